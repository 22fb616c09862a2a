//! The local level: each obligation instance is checked at every valuation
//! of its frame, reachable or not, without exploring the system. It is
//! written once for every [`Theorem`].

use hashbrown::HashSet;

use super::copies::Copies;
use super::cycle::find_cycle;
use super::law::Failure;
use super::theorem::Theorem;
use crate::explore::{Budget, Halt, Limit};

/// What checking one instance gave.
pub enum InstOutcome {
    /// It holds at every admitted valuation; `valuations` were tried.
    Holds {
        /// Valuations tried.
        valuations: u64,
    },
    /// It fails; the first failure found.
    Fails {
        /// The witness.
        failure: Failure,
        /// Valuations tried up to it.
        valuations: u64,
    },
    /// Its frame is larger than the bound.
    NotChecked {
        /// The frame's size.
        frame: u128,
    },
    /// A limit of the run stopped it (or stopped the run before it); the
    /// budget says which.
    Stopped,
}

/// How many valuations the whole local level may still try.
pub struct Valuations {
    /// Valuations left.
    pub left: u64,
    /// The limit, as given.
    pub limit: u64,
}

impl Valuations {
    /// Counts one valuation, and the clock.
    fn take(&mut self, budget: &mut Budget) -> Result<(), Halt> {
        if self.left == 0 {
            return Err(budget.stop(Limit::States(self.limit)));
        }
        self.left -= 1;
        budget.tick()
    }
}

/// Checks every instance at the local level. With `reachable`, only
/// valuations that some state of `reachable` projects to are tried (this
/// is how the tests compare the two levels on the same states).
///
/// With `one_copy` (and without `reachable`, where copies at different
/// depths are not interchangeable), only one point of each class of alike
/// points of the procedures' copies is checked, and return points take
/// only the values that matter ([`super::copies`]), where
/// [`Theorem::one_copy`] allows it.
///
/// Each valuation tried counts in `valuations` and is a unit of work for
/// the budget's clock; once a limit is hit, the instance under way is
/// [`InstOutcome::Stopped`] and the enumeration stops ([`Local::cut`]).
pub fn run<T: Theorem>(
    sys: &T,
    bound: u64,
    reachable: Option<&[T::State]>,
    one_copy: bool,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Local<T::Inst> {
    let copies = sys.one_copy().filter(|_| one_copy && reachable.is_none());
    let mut local = Local {
        outcomes: Vec::new(),
        cut: false,
    };
    let each = std::mem::size_of::<(T::Inst, InstOutcome)>() as u64;
    sys.instances(copies, &mut |inst| {
        let Some(inst) = inst else {
            // Between points: the enumeration itself is work.
            let go_on = budget.hit.is_none() && budget.tick().is_ok();
            local.cut |= !go_on;
            return go_on;
        };
        let outcome = match budget.afford(each) {
            Ok(()) if budget.hit.is_none() => {
                budget.exp_bytes += each;
                check(sys, &inst, bound, reachable, copies, budget, valuations)
                    .unwrap_or(InstOutcome::Stopped)
            }
            _ => InstOutcome::Stopped,
        };
        local.outcomes.push((inst, outcome));
        true
    });
    local
}

/// What the local level found.
pub struct Local<I> {
    /// The instances checked, in report order, with their outcomes.
    pub outcomes: Vec<(I, InstOutcome)>,
    /// A limit stopped the enumeration: instances after the last
    /// outcome were never made.
    pub cut: bool,
}

fn check<T: Theorem>(
    sys: &T,
    inst: &T::Inst,
    bound: u64,
    reachable: Option<&[T::State]>,
    copies: Option<&Copies>,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Result<InstOutcome, Halt> {
    let Some(mut frame) = sys.frame(inst) else {
        // At the initial state: nothing to enumerate.
        valuations.take(budget)?;
        return Ok(match sys.check(inst, &sys.init()) {
            Some(failure) => InstOutcome::Fails {
                failure,
                valuations: 1,
            },
            None => InstOutcome::Holds { valuations: 1 },
        });
    };
    if let Some(c) = copies {
        sys.narrow(c, inst, &mut frame);
    }
    let size = T::size(&frame);
    if size > u128::from(bound) {
        return Ok(InstOutcome::NotChecked { frame: size });
    }
    if let Some(states) = reachable {
        // The projections: one small vector per reachable state at most.
        let each = 48 + 8 * T::width(&frame) as u64;
        budget.afford(states.len() as u64 * each)?;
    }
    let projections: Option<HashSet<Vec<i64>>> = reachable.map(|states| {
        states
            .iter()
            .filter(|st| T::covers(&frame, st))
            .map(|st| T::project(&frame, st))
            .collect()
    });
    let mut valid = Valid {
        sys,
        frame: &frame,
        reachable: projections.as_ref(),
        key: Vec::new(),
    };
    let size = size as u64;
    if T::is_loop(inst) {
        return check_loop(&mut valid, inst, size, budget, valuations);
    }
    let mut tried = 0;
    let mut st = T::State::default();
    for index in 0..size {
        sys.valuation_into(&frame, index, &mut st);
        valuations.take(budget)?;
        if !valid.admits(&mut st) {
            continue;
        }
        tried += 1;
        if let Some(failure) = sys.check(inst, &st) {
            return Ok(InstOutcome::Fails {
                failure,
                valuations: tried,
            });
        }
    }
    Ok(InstOutcome::Holds { valuations: tried })
}

/// The valuations of a frame that stand for states that may occur.
struct Valid<'a, T: Theorem> {
    sys: &'a T,
    frame: &'a T::Frame,
    /// Only valuations that some reachable state projects to, when given.
    reachable: Option<&'a HashSet<Vec<i64>>>,
    /// A projection, reused from valuation to valuation.
    key: Vec<i64>,
}

impl<T: Theorem> Valid<'_, T> {
    fn admits(&mut self, st: &mut T::State) -> bool {
        if !self.sys.admits(self.frame, st) {
            return false;
        }
        let Some(set) = self.reachable else {
            return true;
        };
        T::project_into(self.frame, st, &mut self.key);
        set.contains(self.key.as_slice())
    }

    /// Valuation `index`, if admitted.
    fn node(&mut self, index: u64) -> Option<T::State> {
        let mut st = self.sys.valuation(self.frame, index);
        self.admits(&mut st).then_some(st)
    }
}

/// A loop instance: a cycle in the graph of the frame's valuations.
fn check_loop<T: Theorem>(
    valid: &mut Valid<'_, T>,
    inst: &T::Inst,
    size: u64,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Result<InstOutcome, Halt> {
    let sys = valid.sys;
    let mut tried = 0u64;
    // find_cycle reads the clock itself; valuations are counted here, and
    // running out of them ends the search as a node without edges would,
    // so the halt is read back from the budget afterwards.
    let mut out_of_valuations = false;
    let cycle = find_cycle(
        size as usize,
        0..size as usize,
        |n| {
            if valuations.left == 0 {
                out_of_valuations = true;
                return None;
            }
            valuations.left -= 1;
            let st = valid.node(n as u64)?;
            tried += 1;
            Some(
                sys.loop_edges(inst, &st)
                    .into_iter()
                    .filter_map(|(k, to)| T::index(valid.frame, &to).map(|i| (k, i as usize)))
                    .collect(),
            )
        },
        budget,
    )?;
    match cycle {
        Some(c) => match valid.node(c.start as u64) {
            Some(start) => Ok(InstOutcome::Fails {
                failure: sys.lasso(inst, start, &c.transitions),
                valuations: tried,
            }),
            // A node on a cycle is admitted; were it not, the instance is
            // not known to fail.
            None => Ok(InstOutcome::NotChecked {
                frame: u128::from(size),
            }),
        },
        None if out_of_valuations => Err(budget.stop(Limit::States(valuations.limit))),
        None => Ok(InstOutcome::Holds { valuations: tried }),
    }
}
