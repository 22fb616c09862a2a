//! The reduced system of Stoller and Cohen: a step of thread i is one
//! visible transition followed by a maximal run of i's invisible
//! transitions (`N_i = M_i p_i ~q`, `M_i = v_i u_i*`).
//!
//! The run is explored depth-first over every branch (`either`, `any`,
//! `if`). It stops where i reaches a visible point, ends, or has no enabled
//! invisible transition; those states are the successors. Every
//! intermediate state is checked like any other (a violation partway
//! through a step is the `M` of `N* R`) but not stored. A run that can go
//! on forever is handled by the policy of [`crate::explore::commit`].

use crate::classify::Classification;
use crate::explore::budget::Budget;
use crate::explore::commit::{Fired, Ignoring, Run, Transaction};
use crate::explore::outcome::Problem;
use crate::explore::search::{Emit, Expand, StepResult, Stop, Watch, step_watched};
use crate::model::{Model, SlotClass};

/// Expands a stored state by the reduced steps of every thread.
pub struct Reduced<'m> {
    pub(crate) steps: Steps<'m>,
    /// The run that explores each step.
    pub run: Run,
}

/// Stoller-Cohen's transactions: a visible transition, then invisible ones
/// until the thread reaches a point where the reduction stops.
pub(crate) struct Steps<'m> {
    model: &'m Model,
    class: &'m Classification,
    /// Per transition: invisible, and touching only its own thread's locals
    /// and program counter, so a both-mover; the state after it is not a
    /// commit point.
    both: Vec<bool>,
    watch: Watch,
}

impl<'m> Steps<'m> {
    /// The transactions of `model` under `class`, for an expander of its own
    /// (the summaries of `crate::explore::summaries`).
    pub(crate) fn new(model: &'m Model, class: &'m Classification) -> Steps<'m> {
        Steps {
            model,
            class,
            both: both_movers(model, class),
            watch: Watch::default(),
        }
    }

    /// What the steps watch besides the semantics.
    pub(crate) fn watch_mut(&mut self) -> &mut Watch {
        &mut self.watch
    }

    /// The threads of `swap` stop at the same matched points, and matched
    /// transitions are both-movers alike.
    pub(crate) fn alike(&self, swap: &crate::model::Swap) -> bool {
        let (a, b) = (swap.a, swap.b);
        swap.points
            .iter()
            .all(|&(p, q)| self.class.stops(a, p) == self.class.stops(b, q))
            && swap
                .transitions
                .iter()
                .all(|&(k, j)| self.both[k] == self.both[j])
    }
}

impl<'m> Reduced<'m> {
    /// The reduced expander of `model` under `class`.
    pub fn new(model: &'m Model, class: &'m Classification, ignoring: Ignoring) -> Reduced<'m> {
        Reduced {
            steps: Steps {
                model,
                class,
                both: both_movers(model, class),
                watch: Watch::default(),
            },
            run: Run::new(ignoring),
        }
    }

    /// What the search watches besides the semantics.
    pub fn watch_mut(&mut self) -> &mut Watch {
        &mut self.steps.watch
    }
}

/// The transitions that are both-movers: invisible, touching only their own
/// thread's locals and program counter.
pub fn both_movers(model: &Model, class: &Classification) -> Vec<bool> {
    (0..model.transitions.len())
        .map(|k| {
            let own = SlotClass::Local(model.transitions[k].thread);
            let (reads, writes) = crate::classify::slots(model, k);
            !class.transitions[k].own
                && reads
                    .iter()
                    .chain(&writes)
                    .all(|&s| model.slots[s as usize].class == own)
        })
        .collect()
}

impl Transaction for Steps<'_> {
    fn node(&self, s: &[i64], out: &mut Vec<i64>) {
        out.clear();
        out.extend_from_slice(s);
    }

    fn state<'a>(&self, node: &'a [i64]) -> &'a [i64] {
        node
    }

    fn disabled(&self, k: usize, from: &[i64]) -> bool {
        guard_false(self.model, k, from)
    }

    fn fire(&mut self, t: usize, k: usize, from: &[i64], out: &mut Vec<i64>) -> Fired {
        match fire(self.model, &mut self.watch, k, from, out) {
            StepResult::Disabled => Fired::Disabled,
            StepResult::Bad(p) => Fired::Bad(p),
            StepResult::Ok if self.class.stops(t, out[t]) => Fired::Ends,
            StepResult::Ok => Fired::Continues {
                commit: !self.both[k],
            },
        }
    }
}

/// Whether transition `k`'s guard is false in `s` (a guard that faults is
/// not false: firing reports the fault).
pub fn guard_false(model: &Model, k: usize, s: &[i64]) -> bool {
    model.transitions[k]
        .guard
        .as_ref()
        .is_some_and(|g| g.holds(s, &mut crate::model::NoAccess) == Ok(false))
}

/// Fires transition `k` from `s` into `out` with every check of the full
/// semantics plus WFendExcl.
pub fn fire(
    model: &Model,
    watch: &mut Watch,
    k: usize,
    s: &[i64],
    out: &mut Vec<i64>,
) -> StepResult {
    match step_watched(model, k, s, out, watch) {
        StepResult::Ok if !watch.enforce => StepResult::Ok,
        StepResult::Ok => match end_excl(model, k, s, out) {
            Some(p) => StepResult::Bad(p),
            None => StepResult::Ok,
        },
        other => other,
    }
}

impl Expand for Reduced<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.steps.watch)
    }

    fn take_findings(&mut self, out: &mut crate::explore::search::Findings) {
        self.run.take_findings(out);
    }

    /// Every thread takes its step from `s`: a thread at a visible point
    /// starts one, and a thread at an invisible point (its step was ended
    /// here by force, see [`crate::explore::commit`]) resumes its run. Its invisible
    /// guards read only its own locals, so if none is enabled it is blocked
    /// for good.
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let model = self.steps.model;
        let mut enabled = false;
        for t in 0..model.threads.len() {
            enabled |= self
                .run
                .explore(model, &mut self.steps, t, s, budget, emit)?;
            let log = self.run.take_call();
            self.run.keep(log, budget)?;
        }
        Ok(enabled)
    }
}

/// WFendExcl: a transition of thread j never falsifies `excl(i, x)` for i != j.
///
/// "Falsifies" means: true before, and not true after. A predicate that
/// faults after the transition is not true either; the step's own checks
/// report that fault first, but this check must not depend on it.
pub fn end_excl(model: &Model, k: usize, before: &[i64], after: &[i64]) -> Option<Problem> {
    let tr = &model.transitions[k];
    for &p in &tr.touches_excl {
        let p = p as usize;
        for i in (0..model.threads.len()).filter(|&i| i != tr.thread as usize) {
            if model.excl(p, i, before) == Ok(true) && model.excl(p, i, after) != Ok(true) {
                return Some(Problem::EndExcl {
                    protected: p,
                    victim: i,
                });
            }
        }
    }
    None
}
