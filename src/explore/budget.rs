//! What a run may use, and what it holds: the one place where the limits
//! of `check`, `certify` and `refine` are enforced.
//!
//! - **States.** A run holds at most `max_states` states at once: the states
//!   it has stored, plus the intermediate states of the reduced step under
//!   way (its depth-first run keeps them to find cycles, and forgets them
//!   when the step ends). So a single reduced step through more states than
//!   the limit stops the run like any other search would.
//! - **Time.** The clock is read every [`TICK`] units of work: a state
//!   expanded, a successor emitted, a transition tried in a reduced step, a
//!   valuation tried by certify. No unit of work is unbounded, so no part
//!   of a run can escape the limit by more than a few thousand such units.
//! - **Memory.** Every structure that grows with the state space (the state
//!   store, the reduced step's map, its depth-first stack and path) asks for
//!   room before it grows, counting the old and the new allocation while
//!   both are live, and the run stops rather than grow past the limit. The
//!   limit covers the whole process: what it holds when the run starts
//!   (code, the model: its resident set as the operating system reports
//!   it, rounded up to a MiB) is taken off the budget first.

use std::time::{Duration, Instant};

use super::outcome::Limit;
use super::search::Limits;
use super::store::{Full, Room};

/// Units of work between two readings of the clock.
pub const TICK: u32 = 1024;

/// A limit was hit: the run must stop. Which limit is in [`Budget::hit`];
/// the marker itself is empty, so the hot path passes a flag, not a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halt;

/// The limits of one run, and what it holds against them.
#[derive(Clone, Debug)]
pub struct Budget {
    max_states: u64,
    /// Bytes for the run's own structures: the limit less the footprint.
    max_bytes: u64,
    /// The limit as given, for reports.
    memory_limit: u64,
    max_time: Option<Duration>,
    start: Instant,
    deadline: Option<Instant>,
    ticks: u32,
    /// States stored by the search.
    pub stored: u64,
    /// Bytes held by the search's store.
    pub store_bytes: u64,
    /// Intermediate states held by the reduced step under way.
    pub run_states: u64,
    /// The thread of the reduced step under way.
    pub run_thread: usize,
    /// Bytes held by the expander (the reduced step's map, stack and path).
    pub exp_bytes: u64,
    /// Bytes held by anything else that grows with the run (certify's
    /// searches for cycles).
    pub other_bytes: u64,
    /// The limit that was hit, once one was.
    pub hit: Option<Limit>,
}

impl Budget {
    /// A budget for `limits`, starting now.
    pub fn new(limits: &Limits) -> Budget {
        let start = Instant::now();
        let memory_limit = limits.max_memory.unwrap_or(u64::MAX);
        let footprint = if limits.max_memory.is_some() {
            resident_bytes().map_or(0, |b| b.div_ceil(1 << 20) << 20)
        } else {
            0
        };
        Budget {
            max_states: limits.max_states.unwrap_or(u64::MAX),
            max_bytes: memory_limit.saturating_sub(footprint),
            memory_limit,
            max_time: limits.max_time,
            start,
            deadline: limits.max_time.and_then(|t| start.checked_add(t)),
            ticks: 0,
            stored: 0,
            store_bytes: 0,
            run_states: 0,
            run_thread: 0,
            exp_bytes: 0,
            other_bytes: 0,
            hit: None,
        }
    }

    /// No limits.
    pub fn unlimited() -> Budget {
        Budget::new(&Limits::default())
    }

    /// Counts one unit of work, and reads the clock every [`TICK`] units.
    #[inline]
    pub fn tick(&mut self) -> Result<(), Halt> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks % TICK == 0 {
            self.check_time()
        } else {
            Ok(())
        }
    }

    /// Stops at the time limit, if it has passed.
    pub fn check_time(&mut self) -> Result<(), Halt> {
        match (self.deadline, self.max_time) {
            (Some(d), Some(t)) if Instant::now() >= d => Err(self.stop(Limit::Time(t))),
            _ => Ok(()),
        }
    }

    /// Records that `limit` was hit (the first one hit is kept).
    pub fn stop(&mut self, limit: Limit) -> Halt {
        self.hit.get_or_insert(limit);
        Halt
    }

    /// The limit that was hit; a halt without one is a bug, reported as the
    /// state limit rather than with a panic.
    pub fn hit(&self) -> Limit {
        self.hit.unwrap_or(Limit::States(self.max_states))
    }

    /// Runs `f` with no state limit (time and memory still hold): for work
    /// whose amount depends on what a cache kept, such as the semantic
    /// interference check, so that where a run is cut does not depend on
    /// which worker expanded what before.
    pub fn without_state_limit<R>(&mut self, f: impl FnOnce(&mut Budget) -> R) -> R {
        let max = std::mem::replace(&mut self.max_states, u64::MAX);
        let r = f(self);
        self.max_states = max;
        r
    }

    /// The state limit (`u64::MAX` when there is none).
    pub fn max_states(&self) -> u64 {
        self.max_states
    }

    /// The memory limit, if there is one.
    pub fn max_memory(&self) -> Option<u64> {
        (self.memory_limit != u64::MAX).then_some(self.memory_limit)
    }

    /// This budget, with a state limit of `max_states` in place of its
    /// own: for a search run within a larger run's time and memory.
    pub fn with_max_states(&self, max_states: u64) -> Budget {
        Budget {
            max_states,
            ..self.clone()
        }
    }

    /// Time since the run started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Bytes held against the limit.
    pub fn held_bytes(&self) -> u64 {
        self.store_bytes
            .saturating_add(self.exp_bytes)
            .saturating_add(self.other_bytes)
    }

    /// What one more insertion may add.
    #[inline]
    pub fn room(&self) -> Room {
        Room {
            states: self
                .max_states
                .saturating_sub(self.stored.saturating_add(self.run_states)),
            bytes: self.max_bytes.saturating_sub(self.held_bytes()),
        }
    }

    /// Stops at the limit that a full store hit.
    pub fn full(&mut self, full: Full) -> Halt {
        self.stop(match full {
            Full::States => Limit::States(self.max_states),
            Full::Memory => Limit::Memory(self.memory_limit),
        })
    }

    /// Whether `bytes` more may be allocated.
    pub fn afford(&mut self, bytes: u64) -> Result<(), Halt> {
        if bytes > self.room().bytes {
            Err(self.full(Full::Memory))
        } else {
            Ok(())
        }
    }

    /// Stops at once when the run may hold no state at all (`--max-states
    /// 0`), or has no time or memory to start with.
    pub fn check_start(&mut self) -> Result<(), Halt> {
        if self.max_states == 0 {
            return Err(self.full(Full::States));
        }
        if self.max_bytes == 0 {
            return Err(self.full(Full::Memory));
        }
        self.check_time()
    }
}

/// Grows `v` by doubling to hold one more element, if it must, within the
/// budget; `held` is the budget's count of the bytes `v` holds, which is
/// kept up to date.
#[inline]
pub fn reserve_one<T>(v: &mut Vec<T>, budget: &mut Budget, held: &mut u64) -> Result<(), Halt> {
    reserve(v, 1, budget, held)
}

/// [`reserve_one`] for `extra` more elements.
#[inline]
pub fn reserve<T>(
    v: &mut Vec<T>,
    extra: usize,
    budget: &mut Budget,
    held: &mut u64,
) -> Result<(), Halt> {
    if v.len() + extra <= v.capacity() {
        return Ok(());
    }
    grow(v, extra, budget, held)
}

#[cold]
fn grow<T>(v: &mut Vec<T>, extra: usize, budget: &mut Budget, held: &mut u64) -> Result<(), Halt> {
    let size = std::mem::size_of::<T>().max(1) as u64;
    let old = v.capacity() as u64;
    let new = (old * 2).max(16).max((v.len() + extra) as u64);
    // A reallocation may copy, holding both.
    budget.afford(new * size)?;
    v.try_reserve_exact(new as usize - v.len())
        .map_err(|_| budget.full(Full::Memory))?;
    *held = held.saturating_add((v.capacity() as u64 - old) * size);
    Ok(())
}

/// The memory the system has available, in bytes, where it says.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The resident set of this process in bytes, where the system says.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_zero() {
        for (limits, hit) in [
            (
                Limits {
                    max_states: Some(0),
                    ..Limits::default()
                },
                Limit::States(0),
            ),
            (
                Limits {
                    max_memory: Some(0),
                    ..Limits::default()
                },
                Limit::Memory(0),
            ),
            (
                Limits {
                    max_time: Some(Duration::ZERO),
                    ..Limits::default()
                },
                Limit::Time(Duration::ZERO),
            ),
        ] {
            let mut b = Budget::new(&limits);
            assert_eq!(b.check_start(), Err(Halt));
            assert_eq!(b.hit(), hit);
        }
        assert_eq!(Budget::unlimited().check_start(), Ok(()));
    }

    #[test]
    fn the_clock_is_read_every_tick_units() {
        let mut b = Budget::new(&Limits {
            max_time: Some(Duration::ZERO),
            ..Limits::default()
        });
        for _ in 1..TICK {
            assert_eq!(b.tick(), Ok(()));
        }
        assert_eq!(b.tick(), Err(Halt));
        assert_eq!(b.hit(), Limit::Time(Duration::ZERO));
    }

    #[test]
    fn room_counts_the_store_and_the_step_under_way() {
        let mut b = Budget::new(&Limits {
            max_states: Some(10),
            ..Limits::default()
        });
        b.stored = 4;
        b.run_states = 5;
        assert_eq!(b.room().states, 1);
        b.run_states = 6;
        assert_eq!(b.room().states, 0);
    }

    #[test]
    fn vectors_grow_within_the_budget() {
        let mut b = Budget::unlimited();
        b.max_bytes = 1000;
        let mut v: Vec<u64> = Vec::new();
        let mut held = 0;
        let mut pushed = 0;
        while reserve_one(&mut v, &mut b, &mut held).is_ok() {
            v.push(0);
            pushed += 1;
            b.exp_bytes = held;
        }
        assert_eq!(held, v.capacity() as u64 * 8);
        assert!(held <= 1000 && pushed == v.capacity());
    }
}
