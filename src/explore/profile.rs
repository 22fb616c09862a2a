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

/// One level of the breadth-first search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Level {
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

/// The whole run's profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Worker threads.
    pub threads: usize,
    /// Per level, from the initial state's.
    pub levels: Vec<Level>,
    /// From the start of the search to its end.
    pub wall: Duration,
}

impl Profile {
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
        let p = Profile {
            threads: 2,
            levels: vec![
                // Too small to split: 10 ms on one thread, all serial.
                Level {
                    states: 3,
                    workers: vec![work(8, 2, 0, 0), Work::default()],
                    split: Duration::ZERO,
                    wall: ms(10),
                    serial: ms(10),
                },
                // Split: 2 x 40 ms of work, 5 ms merging alone.
                Level {
                    states: 5000,
                    workers: vec![work(30, 5, 5, 0), work(25, 5, 5, 5)],
                    split: ms(75),
                    wall: ms(50),
                    serial: ms(5),
                },
            ],
            wall: ms(65),
        };
        assert_eq!(p.serial(), ms(20));
        assert_eq!(p.split_work(), ms(75));
        assert!((p.serial_fraction() - 20.0 / 95.0).abs() < 1e-9);
        assert_eq!(p.per_worker()[1], work(25, 5, 5, 5));
    }
}
