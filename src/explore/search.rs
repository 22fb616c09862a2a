//! Breadth-first search over stored states, generic in how a state expands
//! (one transition in full mode, one reduced step in reduced mode).

use std::time::Duration;

use super::budget::{Budget, Halt};
use super::outcome::{Problem, Step};
use crate::model::{Discipline, Fire, Model};

/// Resource limits and options of a run.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop rather than hold more than this many states: the stored states
    /// plus the intermediate states of the reduced step under way. Zero
    /// stops before the initial state.
    pub max_states: Option<u64>,
    /// Stop after this long.
    pub max_time: Option<Duration>,
    /// Stop rather than let the process's memory grow past this many bytes:
    /// what it holds when the run starts plus what the run allocates (see
    /// `budget.rs`).
    pub max_memory: Option<u64>,
}

/// A violation found while expanding a state: the problem and the
/// transitions from that state to it.
pub struct Found {
    /// What is wrong.
    pub problem: Problem,
    /// Transitions from the expanded state to the violation.
    pub path: Vec<u32>,
}

/// Why an expansion ended early.
pub enum Stop {
    /// A violation.
    Found(Found),
    /// A limit of the run, recorded in the budget.
    Halt,
}

impl From<Halt> for Stop {
    fn from(_: Halt) -> Stop {
        Stop::Halt
    }
}

/// Receives a successor and the transitions that reach it, with the run's
/// budget; an error ends the expansion.
pub type Emit<'a> = dyn FnMut(&[i64], &[u32], &mut Budget) -> Result<(), Halt> + 'a;

/// How a stored state expands into its successors.
pub trait Expand {
    /// Calls `emit(successor, path, budget)` for every successor of `s`,
    /// where `path` is the transitions from `s` to it. Returns whether any
    /// transition was enabled, or the first violation met, or the limit
    /// that stopped it (the expander counts its own work and memory in
    /// `budget`).
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop>;

    /// The watch of the search, if it has one: trace reconstruction puts it
    /// in tracing mode, so re-expansion has no side effects.
    fn watch(&mut self) -> Option<&mut Watch> {
        None
    }

    /// Moves what the expansions since the last call found besides their
    /// successors into `out`, so that a parallel search keeps only what
    /// lies before its cut (see `parallel.rs`).
    fn take_findings(&mut self, _out: &mut Findings) {}
}

/// A boxed expander (the temporal graph's, made by a layer) expands as the
/// expander inside.
impl<E: Expand + ?Sized> Expand for Box<E> {
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        (**self).expand(s, budget, emit)
    }

    fn watch(&mut self) -> Option<&mut Watch> {
        (**self).watch()
    }

    fn take_findings(&mut self, out: &mut Findings) {
        (**self).take_findings(out);
    }
}

/// What expansions find besides successors: the control points where a
/// transaction began, and the packed states where one was ended by force.
#[derive(Default)]
pub struct Findings {
    /// `(thread, point)` where a transaction began.
    pub starts: Vec<(usize, i64)>,
    /// Packed states (the model's words each) ended by force.
    pub forced: Vec<u64>,
}

/// Checks a state: `disjoint(ex)` and the invariants.
pub fn check_state(model: &Model, s: &[i64]) -> Option<Problem> {
    check_some(
        model,
        s,
        0..model.protected.len(),
        0..model.invariants.len(),
    )
}

/// Checks `disjoint(ex)` for some protected variables and some invariants.
fn check_some(
    model: &Model,
    s: &[i64],
    ps: impl IntoIterator<Item = usize>,
    invs: impl IntoIterator<Item = usize>,
) -> Option<Problem> {
    match model.overlap_among(s, ps) {
        Ok(Some((protected, i, j))) => {
            return Some(Problem::Overlap {
                protected,
                threads: (i, j),
            });
        }
        Ok(None) => {}
        Err(e) => return Some(Problem::ExclFault(e)),
    }
    for k in invs {
        match model.invariants[k]
            .expr
            .holds(s, &mut crate::model::NoAccess)
        {
            Ok(true) => {}
            Ok(false) => return Some(Problem::Invariant(k)),
            Err(f) => return Some(Problem::Fault(f)),
        }
    }
    None
}

/// The result of one transition with every check of the semantics applied.
pub enum StepResult {
    /// The guard is false.
    Disabled,
    /// Completed without violation; the successor is in the output buffer.
    Ok,
    /// Completed or aborted with a violation.
    Bad(Problem),
}

/// Fires transition `k` from `s` into `out` and checks the discipline, the
/// disjointness of the exclusive access predicates and the invariants.
pub fn step(model: &Model, k: usize, s: &[i64], out: &mut Vec<i64>) -> StepResult {
    step_watched(model, k, s, out, &mut Watch::default())
}

/// An access to a shared variable, with what refinement needs to know
/// about it: the locks the thread held and whether it was initialising.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccessEvent {
    /// The thread.
    pub thread: u32,
    /// The transition (index into `Model::transitions`).
    pub transition: u32,
    /// The slot accessed.
    pub slot: u32,
    /// A write (else a read).
    pub write: bool,
    /// The lock slots the thread held in the state the transition left.
    pub held: Vec<u32>,
    /// The thread was in an `init` block of the variable.
    pub init: bool,
}

/// What a search watches besides the semantics.
#[derive(Clone, Debug)]
pub struct Watch {
    /// Every distinct access to a shared variable, when recording.
    pub log: Option<std::collections::BTreeSet<AccessEvent>>,
    /// Enforce the discipline (access rule, disjointness, WFendExcl); a
    /// lockset pass switches it off and only records.
    pub enforce: bool,
    /// Incremental lockset inference: for these slots the predicate is not
    /// enforced; instead each access narrows the slot's candidate locks (lock
    /// slots) to those the thread holds, and an access that leaves none is a
    /// discipline violation. Needs `log`.
    pub narrowing: Option<std::collections::BTreeMap<u32, Vec<u32>>>,
    /// Rebuilding a trace: re-expansions must retrace the search, so nothing
    /// is recorded or narrowed any more.
    pub tracing: bool,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch {
            log: None,
            enforce: true,
            narrowing: None,
            tracing: false,
        }
    }
}

impl Watch {
    /// Records the accesses of transition `k` from `s` and narrows the
    /// candidate locks; returns an access that leaves a slot with none.
    fn record(
        &mut self,
        model: &Model,
        k: usize,
        s: &[i64],
        accesses: Vec<(u32, bool)>,
    ) -> Option<(u32, bool)> {
        if self.tracing {
            return None;
        }
        let Some(log) = &mut self.log else {
            return None;
        };
        let mut emptied = None;
        let thread = model.transitions[k].thread;
        let held: Vec<u32> = (0..model.slots.len())
            .filter(|&l| {
                model.slots[l].kind == crate::model::SlotKind::Lock && s[l] == i64::from(thread)
            })
            .map(|l| l as u32)
            .collect();
        for (slot, write) in accesses {
            let var = model.slots[slot as usize]
                .name
                .split('[')
                .next()
                .unwrap_or_default();
            let init = model
                .init_points
                .get(var)
                .is_some_and(|per| per[thread as usize].contains(&s[thread as usize]));
            if let Some(c) = self.narrowing.as_mut().and_then(|n| n.get_mut(&slot)) {
                if !init {
                    c.retain(|l| held.contains(l));
                    if c.is_empty() && emptied.is_none() {
                        emptied = Some((slot, write));
                    }
                }
            }
            log.insert(AccessEvent {
                thread,
                transition: k as u32,
                slot,
                write,
                held: held.clone(),
                init,
            });
        }
        emptied
    }
}

/// [`step`], watching: recording accesses, or not enforcing the discipline.
pub fn step_watched(
    model: &Model,
    k: usize,
    s: &[i64],
    out: &mut Vec<i64>,
    watch: &mut Watch,
) -> StepResult {
    fire_checked(model, k, s, out, watch).1
}

/// [`step_watched`], and whether the transition completed (`out` holds
/// its successor, whatever a check then says of it). A transition guarded
/// by `timeout` that is disabled in `s` fires where nothing else can move
/// there, with `timeout` true: every caller (the searches, replay,
/// simulation, the explorer, deadlock checks) sees one semantics.
pub(crate) fn fire_checked(
    model: &Model,
    k: usize,
    s: &[i64],
    out: &mut Vec<i64>,
    watch: &mut Watch,
) -> (bool, StepResult) {
    let tr = &model.transitions[k];
    let mut acc = Discipline::new(model, s, tr.thread as usize);
    acc.enforce = watch.enforce;
    acc.exempt = watch.narrowing.as_ref();
    if watch.log.is_some() {
        acc.accesses = Some(Vec::new());
    }
    let mut fired = model.fire(tr, s, out, &mut acc);
    if tr.timeout
        && fired == Fire::Disabled
        && let Some(timed_out) = model.timed_out(s)
    {
        fired = model.fire(tr, &timed_out, out, &mut acc);
    }
    let (mut violation, accesses) = (acc.violation.take(), acc.accesses.take());
    if let (Some(accesses), false) = (accesses, matches!(fired, Fire::Disabled)) {
        if let Some((slot, write)) = watch.record(model, k, s, accesses) {
            violation.get_or_insert(crate::model::Fault::Discipline { slot, write });
        }
    }
    let overlap: &[u32] = if watch.enforce {
        &tr.recheck_overlap
    } else {
        &[]
    };
    let done = matches!(fired, Fire::Done);
    let result = match fired {
        Fire::Disabled => StepResult::Disabled,
        Fire::Fault(f) => StepResult::Bad(Problem::Fault(violation.unwrap_or(f))),
        Fire::Done => match violation {
            Some(f) => StepResult::Bad(Problem::Fault(f)),
            // `s` passed every check, so only what this transition can change is rechecked.
            None => match check_some(
                model,
                out,
                overlap.iter().map(|&p| p as usize),
                tr.recheck_invariants.iter().map(|&k| k as usize),
            ) {
                Some(p) => StepResult::Bad(p),
                None => StepResult::Ok,
            },
        },
    };
    (done, result)
}

/// Replays transition paths from the initial state, one path per stored
/// step, into trace steps with the state after each transition.
pub fn replay(model: &Model, segments: &[Vec<u32>]) -> Vec<Step> {
    replay_from(model, &model.init, segments.iter().map(Vec::as_slice)).0
}

/// The one replay of a path of transitions, from state `from`, a segment
/// per step (a reduced step's transitions, or one transition of the full
/// graph): the trace steps with the state after each transition, and the
/// state reached. A transition that does not fire ends it, as a step
/// without a state.
pub fn replay_from<'a>(
    model: &Model,
    from: &[i64],
    segments: impl IntoIterator<Item = &'a [u32]>,
) -> (Vec<Step>, Vec<i64>) {
    let mut steps = Vec::new();
    let s = replay_checked(model, from, segments, &mut |step, _, _| steps.push(step));
    (steps, s)
}

/// [`replay_from`], handing each step to `each` with the state it left and
/// what the full semantics say of it (the check's confirmation reads
/// those); the state reached. A transition whose thread is not at its
/// point does not fire.
pub(crate) fn replay_checked<'a>(
    model: &Model,
    from: &[i64],
    segments: impl IntoIterator<Item = &'a [u32]>,
    each: &mut dyn FnMut(Step, &[i64], StepResult),
) -> Vec<i64> {
    let mut s = from.to_vec();
    let mut out = Vec::new();
    let mut watch = Watch::default();
    for seg in segments {
        for (n, &k) in seg.iter().enumerate() {
            let tr = &model.transitions[k as usize];
            let (fired, result) = match tr.from == s[tr.thread as usize] {
                true => fire_checked(model, k as usize, &s, &mut out, &mut watch),
                false => (false, StepResult::Disabled),
            };
            let step = Step {
                transition: k as usize,
                state: fired.then(|| out.clone()),
                starts_step: n == 0,
            };
            each(step, &s, result);
            if !fired {
                return s;
            }
            std::mem::swap(&mut s, &mut out);
        }
    }
    s
}
