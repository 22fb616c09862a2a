//! Persistent sets checked on the state space itself (`--por semantic`):
//! a thread's operation is taken alone when exploring what the other
//! threads can do from the state shows that none of it interferes.
//!
//! The stubborn closure of [`super::stubborn`] judges interference from
//! footprints: a write of `y` meets every reader of `y`, whatever the
//! values. On the paper's barrier that keeps both threads in almost every
//! state, since every lock operation's checks read `y` through
//! `excl(t, j) = m[j] == t || y == 2`, and `y := y + 1` writes it, though
//! `y == 2` only becomes true once both threads are past their locks.
//! Here the question is asked of the states: `{i}` is persistent in `s`
//! when, for every state `r` the other threads reach from `s` without i,
//! and every operation `K` of another thread j there,
//!
//! - i's operation `A` is enabled in r and in every `y` in `K(r)`,
//! - `A(y) ⊆ ⋃ K(x)` over `x ∈ A(r)`: whatever i reaches after j's step it
//!   also reaches by moving first (so a path of the others followed by `A`
//!   can be reordered to start with `A`, state for state), and
//! - no operation met (`A` or `K`, from r, from `K(r)` or from `A(r)`) is
//!   a violation.
//!
//! That is Godefroid's persistent set with conditional (state-dependent)
//! independence. A path of the others that never runs `A` leaves it
//! enabled, so every deadlock is still reached through `A`, and every
//! violation on such a path is one of the operations checked here, which
//! ends the check with the footprint set kept instead. The exploration is
//! bounded ([`WORK`] operations per candidate); past the bound, or on any
//! violation, the footprint set is kept. Operations are computed by the
//! mode's own step (one original transition, or one reduced step), with
//! a private watch, so the check has no effect on the search's run.

// hashbrown with its default (foldhash) hasher: std's SipHash was 8% of a
// stubborn search, all of it hashing states for the cache and the DFS.
use hashbrown::{HashMap, HashSet};

use super::budget::{Budget, Halt};

/// Operations computed per candidate before giving up on it.
pub const WORK: usize = 64;

/// Cached operations held before the cache is emptied.
const CACHE: usize = 1 << 12;

/// The successors of one thread's operation in a state, without effects on
/// the search: `None` when it meets a violation.
pub trait Ops {
    /// The successors of thread `t`'s operation in `s`, in any order and
    /// with repeats (the cache sorts them), or `None`.
    fn successors(
        &mut self,
        t: usize,
        s: &[i64],
        budget: &mut Budget,
    ) -> Result<Option<Vec<Vec<i64>>>, Halt>;
}

/// The semantic check, with the operations it has computed: an operation
/// is a function of the state, so they are kept from state to state.
#[derive(Default)]
pub struct Persistent {
    /// Operations computed, by thread and then state (a state looks itself
    /// up as a slice, with no key to build).
    cache: Vec<HashMap<Vec<i64>, Option<Vec<Vec<i64>>>>>,
    /// Operations in the cache.
    entries: usize,
    /// Bytes the cache holds, as counted in the budget.
    bytes: u64,
}

impl Persistent {
    /// Thread `t`'s operation in `s`, through the cache.
    fn op(
        &mut self,
        ops: &mut dyn Ops,
        t: usize,
        s: &[i64],
        budget: &mut Budget,
        work: &mut usize,
    ) -> Result<Option<Vec<Vec<i64>>>, Halt> {
        // Cache hits count as work too, so whether a candidate passes does
        // not depend on what earlier states left in the cache: the search
        // and the trace's re-expansion must choose alike.
        *work += 1;
        if let Some(hit) = self.cache.get(t).and_then(|c| c.get(s)) {
            return Ok(hit.clone());
        }
        budget.tick()?;
        let got = ops.successors(t, s, budget)?.map(as_set);
        if self.entries >= CACHE {
            self.clear(budget);
        }
        if self.cache.len() <= t {
            self.cache.resize_with(t + 1, HashMap::new);
        }
        let bytes = (64 + 8 * s.len() * (1 + got.as_ref().map_or(0, |v| v.len()))) as u64;
        budget.afford(bytes)?;
        budget.other_bytes += bytes;
        self.bytes += bytes;
        self.cache[t].insert(s.to_vec(), got.clone());
        self.entries += 1;
        Ok(got)
    }

    /// Empties the cache and gives its bytes back to the budget.
    pub fn clear(&mut self, budget: &mut Budget) {
        self.cache.iter_mut().for_each(HashMap::clear);
        self.entries = 0;
        budget.other_bytes = budget.other_bytes.saturating_sub(self.bytes);
        self.bytes = 0;
    }

    /// Whether thread `i`'s operation alone is persistent in `s`, among
    /// `n` threads (see the module docs). `Ok(false)` when it is not, or
    /// when that cannot be shown within the bound.
    pub fn alone(
        &mut self,
        ops: &mut dyn Ops,
        s: &[i64],
        i: usize,
        n: usize,
        budget: &mut Budget,
    ) -> Result<bool, Halt> {
        let mut work = 0;
        let work = &mut work;
        let mut seen: HashSet<Vec<i64>> = HashSet::from([s.to_vec()]);
        // Depth first: an interfering operation is usually a few steps of one
        // other thread away, and going deep finds it before the
        // interleavings of the rest are enumerated.
        let mut stack = vec![s.to_vec()];
        while let Some(r) = stack.pop() {
            if *work > WORK {
                return Ok(false);
            }
            let Some(a_r) = self.op(ops, i, &r, budget, work)? else {
                return Ok(false);
            };
            if a_r.is_empty() {
                return Ok(false);
            }
            for j in (0..n).filter(|&j| j != i) {
                let Some(k_r) = self.op(ops, j, &r, budget, work)? else {
                    return Ok(false);
                };
                if k_r.is_empty() {
                    continue;
                }
                // What j reaches after i moved first.
                let mut after = Vec::new();
                for x in &a_r {
                    match self.op(ops, j, x, budget, work)? {
                        Some(k_x) => after.extend(k_x),
                        None => return Ok(false),
                    }
                }
                let after = as_set(after);
                for y in k_r {
                    match self.op(ops, i, &y, budget, work)? {
                        Some(a_y)
                            if !a_y.is_empty()
                                && a_y.iter().all(|z| after.binary_search(z).is_ok()) => {}
                        _ => return Ok(false),
                    }
                    if seen.insert(y.clone()) {
                        stack.push(y);
                    }
                }
            }
        }
        Ok(true)
    }
}

/// `states` sorted and without repeats: an operation's successors as a set,
/// so that cached operations compare alike and can be searched.
fn as_set(mut states: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
    states.sort_unstable();
    states.dedup();
    states
}
