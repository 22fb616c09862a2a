//! Where a search's time goes (`check --stats`): per level and per worker,
//! the time spent expanding states, storing their successors, numbering
//! the next level, and waiting for the other workers; and the part of the
//! run that no number of workers shortens, its serial fraction.
//!
//! A level's work is *split* among the workers when it is large enough to
//! be worth starting threads for (the same test whatever the number of
//! workers), so the serial fraction means the same on one thread as on
//! sixteen: by Amdahl's law a serial fraction `f` bounds the speedup on
//! `n` threads by `1 / (f + (1 - f) / n)`.

use std::time::Duration;

/// One worker's time in a level (or summed over the run).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Expanding states: running the reduction's steps.
    pub expand: Duration,
    /// Looking successors up and offering the new ones to the next level.
    pub store: Duration,
    /// Moving the next level into the table and sorting its keys.
    pub number: Duration,
    /// Idle while other workers finished the level's split parts.
    pub wait: Duration,
}

impl Work {
    /// Time spent working (not waiting).
    pub fn busy(&self) -> Duration {
        self.expand + self.store + self.number
    }

    fn add(&mut self, other: &Work) {
        self.expand += other.expand;
        self.store += other.store;
        self.number += other.number;
        self.wait += other.wait;
    }
}

/// At most this many rows: past it, neighbouring rows are merged, so
/// that a run of millions of levels keeps a profile of bounded size.
const MAX_ROWS: usize = 1024;

/// One level of the breadth-first search, or a run of consecutive levels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Level {
    /// The first level of the row.
    pub depth: u64,
    /// The levels the row stands for (1 until rows are merged).
    pub count: u64,
    /// States expanded (the level's frontier).
    pub states: u64,
    /// Per worker.
    pub workers: Vec<Work>,
    /// The workers' busy time in the parts split among them (expansion and
    /// numbering of large levels).
    pub split: Duration,
    /// The level from start to end.
    pub wall: Duration,
    /// What ran on one thread while the others had nothing to do: levels
    /// too small to split, merging the numbered states in order, counting
    /// the blocks, the limits.
    pub serial: Duration,
}

impl Level {
    /// Adds the next level (or row) to this row.
    fn absorb(&mut self, next: &Level) {
        self.count += next.count;
        self.states += next.states;
        self.split += next.split;
        self.wall += next.wall;
        self.serial += next.serial;
        for (w, n) in self.workers.iter_mut().zip(&next.workers) {
            w.add(n);
        }
    }
}

/// The whole run's profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Worker threads.
    pub threads: usize,
    /// Per level (or run of levels), from the initial state's.
    pub levels: Vec<Level>,
    /// Levels per row, doubled each time the rows are merged.
    pub per_row: u64,
    /// From the start of the search to its end.
    pub wall: Duration,
}

impl Profile {
    /// Adds the next level (its `depth` and `count` are set here).
    pub(crate) fn push(&mut self, mut level: Level) {
        self.per_row = self.per_row.max(1);
        level.depth = self.levels.last().map_or(0, |l| l.depth + l.count);
        level.count = 1;
        match self.levels.last_mut() {
            Some(last) if last.count < self.per_row => last.absorb(&level),
            _ => self.levels.push(level),
        }
        if self.levels.len() > MAX_ROWS {
            self.per_row *= 2;
            let rows = std::mem::take(&mut self.levels);
            for pair in rows.chunks(2) {
                let mut row = pair[0].clone();
                if let Some(next) = pair.get(1) {
                    row.absorb(next);
                }
                self.levels.push(row);
            }
        }
    }

    /// Each worker's time summed over the levels.
    pub fn per_worker(&self) -> Vec<Work> {
        let mut sum = vec![Work::default(); self.threads];
        for level in &self.levels {
            for (s, w) in sum.iter_mut().zip(&level.workers) {
                s.add(w);
            }
        }
        sum
    }

    /// The serial time: the run minus its split parts.
    pub fn serial(&self) -> Duration {
        let levels: Duration = self.levels.iter().map(|l| l.wall).sum();
        let serial: Duration = self.levels.iter().map(|l| l.serial).sum();
        // Setting up and ending the run are serial too.
        serial + self.wall.saturating_sub(levels)
    }

    /// Time the workers spent on split parts.
    fn split_work(&self) -> Duration {
        self.levels.iter().map(|l| l.split).sum()
    }

    /// The serial time over all the work the run did (serial plus every
    /// worker's time on split parts): Amdahl's `f`.
    pub fn serial_fraction(&self) -> f64 {
        let serial = self.serial().as_secs_f64();
        let total = serial + self.split_work().as_secs_f64();
        if total == 0.0 { 0.0 } else { serial / total }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_serial_fraction_counts_small_levels_and_merges_as_serial() {
        let work = |e, s, n, w| Work {
            expand: ms(e),
            store: ms(s),
            number: ms(n),
            wait: ms(w),
        };
        let mut p = Profile {
            threads: 2,
            wall: ms(65),
            ..Profile::default()
        };
        // Too small to split: 10 ms on one thread, all serial.
        p.push(Level {
            states: 3,
            workers: vec![work(8, 2, 0, 0), Work::default()],
            wall: ms(10),
            serial: ms(10),
            ..Level::default()
        });
        // Split: 2 x 40 ms of work, 5 ms merging alone.
        p.push(Level {
            states: 5000,
            workers: vec![work(30, 5, 5, 0), work(25, 5, 5, 5)],
            split: ms(75),
            wall: ms(50),
            serial: ms(5),
            ..Level::default()
        });
        assert_eq!(p.serial(), ms(20));
        assert_eq!(p.split_work(), ms(75));
        assert!((p.serial_fraction() - 20.0 / 95.0).abs() < 1e-9);
        assert_eq!(p.per_worker()[1], work(25, 5, 5, 5));
    }

    #[test]
    fn a_run_of_many_levels_keeps_a_bounded_profile() {
        let mut p = Profile {
            threads: 1,
            ..Profile::default()
        };
        let levels = 5 * MAX_ROWS as u64 + 3;
        for _ in 0..levels {
            p.push(Level {
                states: 1,
                workers: vec![Work::default()],
                wall: ms(1),
                serial: ms(1),
                ..Level::default()
            });
        }
        assert!(p.levels.len() <= MAX_ROWS);
        assert_eq!(p.levels.iter().map(|l| l.count).sum::<u64>(), levels);
        assert_eq!(p.levels.iter().map(|l| l.states).sum::<u64>(), levels);
        // The rows are consecutive runs of levels.
        for pair in p.levels.windows(2) {
            assert_eq!(pair[0].depth + pair[0].count, pair[1].depth);
        }
        assert_eq!(p.serial(), ms(levels));
    }
}
