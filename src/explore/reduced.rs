//! The reduced system of Stoller and Cohen: a step of thread i is one
//! visible transition followed by a maximal run of i's invisible
//! transitions (`N_i = M_i p_i ~q`, `M_i = v_i u_i*`).
//!
//! The run is explored depth-first over every branch (`either`, `any`,
//! `if`). It stops where i reaches a visible point, ends, or has no enabled
//! invisible transition; those states are the successors. Every
//! intermediate state is checked like any other (a violation partway
//! through a step is the `M` of `N* R`) but not stored. A run that can go
//! on forever is handled by the policy of [`super::commit`].

use super::commit::{Ignoring, Run};
use super::outcome::Problem;
use super::search::{Expand, Found, StepResult, Watch, step_watched};
use crate::classify::Classification;
use crate::model::Model;

/// Expands a stored state by the reduced steps of every thread.
pub struct Reduced<'m> {
    model: &'m Model,
    class: &'m Classification,
    out: Vec<i64>,
    /// The run of invisible transitions that ends each step.
    pub run: Run,
    /// What the search watches besides the semantics.
    pub watch: Watch,
}

impl<'m> Reduced<'m> {
    /// The reduced expander of `model` under `class`.
    pub fn new(model: &'m Model, class: &'m Classification, ignoring: Ignoring) -> Reduced<'m> {
        Reduced {
            model,
            class,
            out: Vec::new(),
            run: Run::new(model, ignoring),
            watch: Watch::default(),
        }
    }
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
        Some(&mut self.watch)
    }

    fn expand(&mut self, s: &[i64], emit: &mut dyn FnMut(&[i64], &[u32])) -> Result<bool, Found> {
        let (model, class) = (self.model, self.class);
        let mut enabled = false;
        let mut path = Vec::new();
        for t in 0..model.threads.len() {
            if !class.stops(t, s[t]) {
                // A transaction of t was ended here by force (the run could
                // not complete): t resumes its run. Its invisible guards
                // read only its own locals, so if none is enabled it is
                // blocked for good.
                path.clear();
                let run = &mut self.run;
                enabled |= run.explore(
                    model,
                    class,
                    &mut self.watch,
                    t,
                    s.to_vec(),
                    true,
                    &mut path,
                    emit,
                )?;
                continue;
            }
            for k in model.threads[t].points[s[t] as usize].transitions.clone() {
                match fire(model, &mut self.watch, k, s, &mut self.out) {
                    StepResult::Disabled => continue,
                    StepResult::Bad(problem) => {
                        return Err(Found {
                            problem,
                            path: vec![k as u32],
                        });
                    }
                    StepResult::Ok => {}
                }
                enabled = true;
                path.clear();
                path.push(k as u32);
                if class.stops(t, self.out[t]) {
                    emit(&self.out, &path);
                } else {
                    let first = self.out.clone();
                    let run = &mut self.run;
                    run.explore(
                        model,
                        class,
                        &mut self.watch,
                        t,
                        first,
                        false,
                        &mut path,
                        emit,
                    )?;
                }
            }
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
