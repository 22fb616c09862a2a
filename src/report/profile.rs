//! `check --stats`: where the search's time went, per level and per
//! worker, and its serial fraction (see the explore module's `profile`).

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::explore::{Profile, WorkerTimes};

/// The profile as reported, in seconds.
#[derive(Clone, Debug, Serialize)]
pub struct StatsReport {
    /// Worker threads.
    pub threads: usize,
    /// The search from start to end.
    pub seconds: f64,
    /// Per level of the breadth-first search.
    pub levels: Vec<LevelRow>,
    /// Per worker, summed over the levels.
    pub workers: Vec<TimesRow>,
    /// What ran on one thread alone.
    pub serial_seconds: f64,
    /// The serial time over all the work (Amdahl's f).
    pub serial_fraction: f64,
    /// The speedup that serial fraction allows on any number of threads
    /// (1 / f; none where it is 0).
    pub speedup_bound: Option<f64>,
}

/// One level, or a run of consecutive levels (a run of very many levels
/// is shown in at most 1024 rows).
#[derive(Clone, Debug, Serialize)]
pub struct LevelRow {
    /// The first level of the row (its depth).
    pub depth: u64,
    /// The levels the row stands for.
    pub count: u64,
    /// States expanded.
    pub states: u64,
    /// The level from start to end.
    pub seconds: f64,
    /// Its serial part.
    pub serial: f64,
    /// Per worker.
    pub workers: Vec<TimesRow>,
}

/// One worker's times.
#[derive(Clone, Debug, Serialize)]
pub struct TimesRow {
    /// Expanding states.
    pub expand: f64,
    /// Looking successors up and offering the new ones.
    pub store: f64,
    /// Moving the next level into the table and sorting it.
    pub number: f64,
    /// Waiting for the other workers.
    pub wait: f64,
}

impl From<&WorkerTimes> for TimesRow {
    fn from(w: &WorkerTimes) -> TimesRow {
        TimesRow {
            expand: secs(w.expand),
            store: secs(w.store),
            number: secs(w.number),
            wait: secs(w.wait),
        }
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

impl StatsReport {
    /// The report of `profile`.
    pub fn new(profile: &Profile) -> StatsReport {
        let f = profile.serial_fraction();
        StatsReport {
            threads: profile.threads,
            seconds: secs(profile.wall),
            levels: profile
                .levels
                .iter()
                .map(|l| LevelRow {
                    depth: l.depth,
                    count: l.count,
                    states: l.states,
                    seconds: secs(l.wall),
                    serial: secs(l.serial),
                    workers: l.workers.iter().map(TimesRow::from).collect(),
                })
                .collect(),
            workers: profile.per_worker().iter().map(TimesRow::from).collect(),
            serial_seconds: secs(profile.serial()),
            serial_fraction: f,
            speedup_bound: (f > 0.0).then(|| 1.0 / f),
        }
    }
}

fn write_times(f: &mut fmt::Formatter<'_>, t: &TimesRow) -> fmt::Result {
    write!(
        f,
        " {:>9.4} {:>9.4} {:>9.4} {:>9.4}",
        t.expand, t.store, t.number, t.wait
    )
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = if self.threads == 1 { "" } else { "s" };
        writeln!(
            f,
            "search       {} thread{t}, {} levels, {:.3} s",
            self.threads,
            self.levels.iter().map(|l| l.count).sum::<u64>(),
            self.seconds
        )?;
        writeln!(f, "  seconds per level and worker:")?;
        writeln!(
            f,
            "  level    states worker    expand     store    number      wait    serial"
        )?;
        for l in &self.levels {
            let level = match l.count {
                1 => l.depth.to_string(),
                n => format!("{}-{}", l.depth, l.depth + n - 1),
            };
            for (w, times) in l.workers.iter().enumerate() {
                if w == 0 {
                    write!(f, "  {level:>5} {:>9} {w:>6}", l.states)?;
                } else {
                    write!(f, "  {:>5} {:>9} {w:>6}", "", "")?;
                }
                write_times(f, times)?;
                if w == 0 {
                    write!(f, " {:>9.4}", l.serial)?;
                }
                writeln!(f)?;
            }
        }
        for (w, times) in self.workers.iter().enumerate() {
            write!(f, "  {:>5} {:>9} {w:>6}", "all", "")?;
            write_times(f, times)?;
            writeln!(f)?;
        }
        write!(
            f,
            "serial       {:.4} s, serial fraction {:.2}%",
            self.serial_seconds,
            100.0 * self.serial_fraction
        )?;
        match self.speedup_bound {
            Some(b) => writeln!(f, " (Amdahl: at most {b:.1}x on any number of threads)"),
            None => writeln!(f),
        }
    }
}
