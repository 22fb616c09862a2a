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
//!
//! A run may be very long (a thread-local loop through 10^9 states), so it
//! answers to the limits like the search: each transition tried is a unit
//! of work for the clock, each state it keeps counts against the state
//! limit (with the stored states), and its map, stack and path grow only
//! within the memory budget. Its states are kept packed, and its frames
//! name them by id, so a long run costs a few dozen bytes per state.

use super::budget::{Budget, reserve_one};
use super::outcome::Problem;
use super::search::{Emit, Expand, Found, StepResult, Stop, Watch, step_watched};
use super::store::{Insert, Store};
use crate::classify::Classification;
use crate::model::Model;

/// Expands a stored state by the reduced steps of every thread.
pub struct Reduced<'m> {
    model: &'m Model,
    class: &'m Classification,
    out: Vec<i64>,
    /// The state of the run's top frame, unpacked.
    cur: Vec<i64>,
    packed: Vec<u64>,
    /// States met in the current run, packed; the note is true while the
    /// state is on the depth-first path. Kept between runs, so its memory
    /// is allocated once for the longest run.
    seen: Store<bool>,
    /// The depth-first path of the run.
    frames: Vec<Frame>,
    /// The transitions from the expanded state to the top frame.
    path: Vec<u32>,
    /// Bytes of `frames` and `path`.
    vec_bytes: u64,
    /// What the search watches besides the semantics.
    pub watch: Watch,
}

/// What entering a state of a run found.
enum Entered {
    /// A new state, now the top frame.
    Pushed,
    /// A state met before in this run (on the path while its note is true).
    Seen(u32),
    /// A state met before, without its id.
    Known,
}

/// A state on the depth-first path of a run; its values are in `seen`.
struct Frame {
    id: u32,
    /// Next transition to try, as an offset into the point's transitions.
    next: u32,
    /// Whether any transition was enabled here.
    moved: bool,
}

/// Fires transition `k` from `s` into `out` with every check of the full
/// semantics plus WFendExcl.
fn fire(model: &Model, watch: &mut Watch, k: usize, s: &[i64], out: &mut Vec<i64>) -> StepResult {
    match step_watched(model, k, s, out, watch) {
        StepResult::Ok if !watch.enforce => StepResult::Ok,
        StepResult::Ok => match end_excl(model, k, s, out) {
            Some(p) => StepResult::Bad(p),
            None => StepResult::Ok,
        },
        other => other,
    }
}

impl<'m> Reduced<'m> {
    /// The reduced expander of `model` under `class`.
    pub fn new(model: &'m Model, class: &'m Classification) -> Reduced<'m> {
        let words = model.layout.words();
        Reduced {
            model,
            class,
            out: Vec::new(),
            cur: Vec::new(),
            packed: vec![0; words],
            seen: Store::indexed(words),
            frames: Vec::new(),
            path: Vec::new(),
            vec_bytes: 0,
            watch: Watch::default(),
        }
    }

    /// Bytes held by the runs' structures.
    fn bytes(&self) -> u64 {
        self.seen.bytes() + self.vec_bytes
    }

    /// Appends `k` to the path, within the budget.
    fn push_path(&mut self, k: usize, budget: &mut Budget) -> Result<(), Stop> {
        reserve_one(&mut self.path, budget, &mut self.vec_bytes)?;
        budget.exp_bytes = self.bytes();
        self.path.push(k as u32);
        Ok(())
    }

    /// Adds the state in `out` to the run's map and pushes it as a frame,
    /// or says that the run met it before.
    fn enter(&mut self, budget: &mut Budget) -> Result<Entered, Stop> {
        self.model.layout.pack(&self.out, &mut self.packed);
        let id = match self.seen.insert(&self.packed, true, || budget.room()) {
            Ok(Insert::New(id)) => id,
            Ok(Insert::Old(Some(id))) => return Ok(Entered::Seen(id)),
            // An indexed store always names the state; were it not to, the
            // state is still known, and treated as explored.
            Ok(Insert::Old(None)) => return Ok(Entered::Known),
            Err(full) => return Err(budget.full(full).into()),
        };
        budget.run_states = self.seen.len() as u64;
        budget.exp_bytes = self.bytes();
        reserve_one(&mut self.frames, budget, &mut self.vec_bytes)?;
        budget.exp_bytes = self.bytes();
        self.frames.push(Frame {
            id,
            next: 0,
            moved: false,
        });
        std::mem::swap(&mut self.cur, &mut self.out);
        Ok(Entered::Pushed)
    }

    /// Runs thread `t`'s invisible transitions from the state in `out`,
    /// where `t` is at an invisible point (reached by `path`), emitting
    /// every state where the run stops.
    fn run(&mut self, t: usize, budget: &mut Budget, emit: &mut Emit) -> Result<(), Stop> {
        let model = self.model;
        self.seen.clear();
        self.frames.clear();
        budget.run_thread = t;
        let base = self.path.len();
        self.enter(budget)?;
        while let Some(top) = self.frames.last_mut() {
            let range = model.threads[t].points[self.cur[t] as usize]
                .transitions
                .clone();
            let k = range.start + top.next as usize;
            if k >= range.end {
                // Every transition of this point is done.
                let (id, moved) = (top.id, top.moved);
                self.frames.pop();
                if !moved {
                    emit(&self.cur, &self.path, budget)?;
                }
                self.seen.set_note(id, false);
                if let Some(parent) = self.frames.last() {
                    self.path.pop();
                    model.layout.unpack(self.seen.get(parent.id), &mut self.cur);
                }
                continue;
            }
            top.next += 1;
            budget.tick()?;
            match fire(model, &mut self.watch, k, &self.cur, &mut self.out) {
                StepResult::Disabled => continue,
                StepResult::Bad(problem) => {
                    self.path.push(k as u32);
                    return Err(Stop::Found(Found {
                        problem,
                        path: self.path.clone(),
                    }));
                }
                StepResult::Ok => {}
            }
            if let Some(top) = self.frames.last_mut() {
                top.moved = true;
            }
            self.push_path(k, budget)?;
            if self.class.stops(t, self.out[t]) {
                emit(&self.out, &self.path, budget)?;
                self.path.pop();
                continue;
            }
            match self.enter(budget)? {
                Entered::Pushed => {}
                Entered::Seen(id) if self.seen.note(id) => {
                    // Back to a state on the current path: an infinite run.
                    let start = self.frames.iter().position(|f| f.id == id).unwrap_or(0);
                    return Err(Stop::Found(Found {
                        problem: Problem::InvisibleCycle {
                            thread: t,
                            length: self.path.len() - base - start,
                        },
                        path: self.path.clone(),
                    }));
                }
                Entered::Seen(_) | Entered::Known => {
                    self.path.pop();
                }
            }
        }
        budget.run_states = 0;
        Ok(())
    }
}

impl Expand for Reduced<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.watch)
    }

    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let model = self.model;
        let mut enabled = false;
        for t in 0..model.threads.len() {
            // A thread stopped at an invisible point is blocked for good: its
            // guards read only its own locals.
            if !self.class.stops(t, s[t]) {
                continue;
            }
            for k in model.threads[t].points[s[t] as usize].transitions.clone() {
                match fire(model, &mut self.watch, k, s, &mut self.out) {
                    StepResult::Disabled => continue,
                    StepResult::Bad(problem) => {
                        return Err(Stop::Found(Found {
                            problem,
                            path: vec![k as u32],
                        }));
                    }
                    StepResult::Ok => {}
                }
                enabled = true;
                self.path.clear();
                self.push_path(k, budget)?;
                if self.class.stops(t, self.out[t]) {
                    emit(&self.out, &self.path, budget)?;
                } else {
                    self.run(t, budget, emit)?;
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
