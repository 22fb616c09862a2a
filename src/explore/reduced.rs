//! The reduced system of Stoller and Cohen: a step of thread i is one
//! visible transition followed by a maximal run of i's invisible
//! transitions (`N_i = M_i p_i ~q`, `M_i = v_i u_i*`).
//!
//! The run is explored depth-first over every branch (`either`, `any`,
//! `if`). It stops where i reaches a visible point, ends, or has no enabled
//! invisible transition; those states are the successors. Every
//! intermediate state is checked like any other (a violation partway
//! through a step is the `M` of `N* R`) but not stored. A run that comes
//! back to a state on its own path is an infinite invisible run, which
//! breaks WFfiniteInvis: it is reported with the lasso, never ignored.

use hashbrown::HashMap;

use super::outcome::Problem;
use super::search::{Expand, Found, StepResult, Watch, step_watched};
use crate::classify::Classification;
use crate::model::Model;

/// Expands a stored state by the reduced steps of every thread.
pub struct Reduced<'m> {
    model: &'m Model,
    class: &'m Classification,
    out: Vec<i64>,
    /// States met in the current run: `true` while on the DFS path.
    seen: HashMap<Vec<i64>, bool>,
    /// What the search watches besides the semantics.
    pub watch: Watch,
}

struct Frame {
    state: Vec<i64>,
    /// Next transition to try, as an offset into the point's transitions.
    next: usize,
    /// Whether any transition was enabled here.
    moved: bool,
}

impl<'m> Reduced<'m> {
    /// The reduced expander of `model` under `class`.
    pub fn new(model: &'m Model, class: &'m Classification) -> Reduced<'m> {
        Reduced {
            model,
            class,
            out: Vec::new(),
            seen: HashMap::new(),
            watch: Watch::default(),
        }
    }

    /// Fires transition `k` from `s` into `self.out` with every check of
    /// the full semantics plus WFendExcl.
    fn fire(&mut self, k: usize, s: &[i64]) -> StepResult {
        match step_watched(self.model, k, s, &mut self.out, &mut self.watch) {
            StepResult::Ok if !self.watch.enforce => StepResult::Ok,
            StepResult::Ok => match end_excl(self.model, k, s, &self.out) {
                Some(p) => StepResult::Bad(p),
                None => StepResult::Ok,
            },
            other => other,
        }
    }

    /// Runs thread `t`'s invisible transitions from `start`, a state where
    /// `t` is at an invisible point (reached by `path`), emitting every
    /// state where the run stops.
    fn run(
        &mut self,
        t: usize,
        start: Vec<i64>,
        path: &mut Vec<u32>,
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) -> Result<(), Found> {
        let model = self.model;
        self.seen.clear();
        self.seen.insert(start.clone(), true);
        let base = path.len();
        let mut stack = vec![Frame {
            state: start,
            next: 0,
            moved: false,
        }];
        while let Some(top) = stack.last_mut() {
            let range = model.threads[t].points[top.state[t] as usize]
                .transitions
                .clone();
            let Some(k) = range.clone().nth(top.next) else {
                // Every transition of this point is done.
                let frame = stack.pop().expect("non-empty stack");
                if !frame.moved {
                    emit(&frame.state, path);
                }
                self.seen.insert(frame.state, false);
                if !stack.is_empty() {
                    path.pop();
                }
                continue;
            };
            top.next += 1;
            let top = stack.last().expect("non-empty stack");
            match self.fire(k, &top.state) {
                StepResult::Disabled => continue,
                StepResult::Bad(problem) => {
                    path.push(k as u32);
                    return Err(Found {
                        problem,
                        path: path.clone(),
                    });
                }
                StepResult::Ok => {}
            }
            stack.last_mut().expect("non-empty stack").moved = true;
            path.push(k as u32);
            if self.class.stops(t, self.out[t]) {
                emit(&self.out, path);
                path.pop();
                continue;
            }
            let next = self.out.clone();
            match self.seen.get(&next) {
                Some(true) => {
                    // Back to a state on the current path: an infinite run.
                    let start = stack
                        .iter()
                        .position(|f| f.state == next)
                        .expect("on the path");
                    let cycle = path.len() - base - start;
                    return Err(Found {
                        problem: Problem::InvisibleCycle {
                            thread: t,
                            length: cycle,
                        },
                        path: path.clone(),
                    });
                }
                Some(false) => {
                    path.pop();
                }
                None => {
                    self.seen.insert(next.clone(), true);
                    stack.push(Frame {
                        state: next,
                        next: 0,
                        moved: false,
                    });
                }
            }
        }
        Ok(())
    }
}

impl Expand for Reduced<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.watch)
    }

    fn expand(&mut self, s: &[i64], emit: &mut dyn FnMut(&[i64], &[u32])) -> Result<bool, Found> {
        let model = self.model;
        let mut enabled = false;
        let mut path = Vec::new();
        for t in 0..model.threads.len() {
            // A thread stopped at an invisible point is blocked for good: its
            // guards read only its own locals.
            if !self.class.stops(t, s[t]) {
                continue;
            }
            for k in model.threads[t].points[s[t] as usize].transitions.clone() {
                match self.fire(k, s) {
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
                if self.class.stops(t, self.out[t]) {
                    emit(&self.out, &path);
                } else {
                    let first = self.out.clone();
                    self.run(t, first, &mut path, emit)?;
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
