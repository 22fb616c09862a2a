//! Breadth-first search over stored states, generic in how a state expands
//! (one transition in full mode, one reduced step in reduced mode).

use std::time::Duration;

use super::budget::{Budget, Halt, TICK};
use super::outcome::{Outcome, Problem, Stats, Step, Verdict, Violation};
use super::store::{Insert, Store};
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
    let tr = &model.transitions[k];
    let mut acc = Discipline::new(model, s, tr.thread as usize);
    acc.enforce = watch.enforce;
    acc.exempt = watch.narrowing.as_ref();
    if watch.log.is_some() {
        acc.accesses = Some(Vec::new());
    }
    let fired = model.fire(tr, s, out, &mut acc);
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
    match fired {
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
    }
}

/// Replays transition paths from the initial state, one path per stored
/// step, into trace steps with the state after each transition.
pub fn replay(model: &Model, segments: &[Vec<u32>]) -> Vec<Step> {
    let mut s = model.init.clone();
    let mut out = Vec::new();
    let mut steps = Vec::new();
    for seg in segments {
        for (n, &k) in seg.iter().enumerate() {
            let tr = &model.transitions[k as usize];
            let mut acc = Discipline::new(model, &s, tr.thread as usize);
            let state = match model.fire(tr, &s, &mut out, &mut acc) {
                Fire::Done => Some(out.clone()),
                Fire::Disabled | Fire::Fault(_) => None,
            };
            steps.push(Step {
                transition: k as usize,
                state: state.clone(),
                starts_step: n == 0,
            });
            match state {
                Some(next) => s = next,
                None => return steps,
            }
        }
    }
    steps
}

/// Breadth-first search from the initial state.
pub fn search<E: Expand>(
    model: &Model,
    exp: &mut E,
    limits: &Limits,
    deadlock_is_violation: bool,
    progress: &mut dyn FnMut(&Stats),
) -> Outcome {
    let mut budget = Budget::new(limits);
    let mut stats = Stats::default();
    let finish = |mut stats: Stats, store: &Store, budget: &Budget, verdict, violation| {
        stats.states = store.len() as u64;
        stats.memory = budget.held_bytes();
        stats.elapsed = budget.elapsed();
        if let (Verdict::Inconclusive(_), 1..) = (&verdict, budget.run_states) {
            stats.run_states = budget.run_states;
            stats.run_thread = Some(budget.run_thread);
        }
        Outcome::new(verdict, stats, violation)
    };
    let words = model.layout.words();
    let mut store = Store::new(words);
    let mut packed = vec![0u64; words];
    let mut misuses = Vec::new();
    model.layout.pack(&model.init, &mut packed);
    let first = budget.check_start().and_then(|()| {
        let room = budget.room();
        store
            .insert(&packed, 0, || room)
            .map_err(|f| budget.full(f))
    });
    if first.is_err() {
        let l = budget.hit();
        return finish(stats, &store, &budget, Verdict::Inconclusive(l), None);
    }
    budget.stored = 1;
    budget.store_bytes = store.bytes();
    if let Some(problem) = check_state(model, &model.init) {
        let v = Violation {
            problem,
            initial: true,
            trace: Vec::new(),
        };
        return finish(stats, &store, &budget, Verdict::Violated, Some(v));
    }
    let mut s = model.init.clone();
    let (mut level, mut level_end) = (0u64, 1usize);
    let mut id = 0usize;
    while id < store.len() {
        if id == level_end {
            level += 1;
            level_end = store.len();
        }
        if budget.tick().is_err() {
            let l = budget.hit();
            return finish(stats, &store, &budget, Verdict::Inconclusive(l), None);
        }
        if id % (1 << 16) == 0 && id > 0 {
            stats.states = store.len() as u64;
            stats.memory = budget.held_bytes();
            stats.elapsed = budget.elapsed();
            progress(&stats);
        }
        model.layout.unpack(store.get(id as u32), &mut s);
        let parent = id as u32;
        let result = exp.expand(&s, &mut budget, &mut |succ, path, budget| {
            // Every successor is a unit of work; the count of transitions
            // doubles as the clock's counter, which keeps this loop tight.
            stats.transitions += 1;
            stats.fired += path.len() as u64;
            if stats.transitions % u64::from(TICK) == 0 {
                budget.check_time()?;
            }
            model.layout.pack(succ, &mut packed);
            match store.insert(&packed, parent, || budget.room()) {
                Ok(Insert::New(_)) => {
                    stats.depth = stats.depth.max(level + 1);
                    budget.stored = store.len() as u64;
                    budget.store_bytes = store.bytes();
                    Ok(())
                }
                Ok(Insert::Old(_)) => Ok(()),
                Err(full) => Err(budget.full(full)),
            }
        });
        misuses.clear();
        model.lock_misuses(&s, &mut misuses);
        // Counted once per state and kind; the first description is kept.
        misuses.sort_by_key(|m| m.0);
        misuses.dedup_by_key(|m| m.0);
        for (kind, text) in misuses.drain(..) {
            match stats.lock_misuses.iter_mut().find(|m| m.0 == kind) {
                Some(m) => m.1 += 1,
                None => stats.lock_misuses.push((kind, 1, text)),
            }
        }
        match result {
            // Not a violation of the model: the stack the checker can
            // represent ends here, so nothing can be concluded.
            Err(Stop::Found(Found {
                problem: Problem::Fault(crate::model::Fault::StackBound { bound }),
                ..
            })) => {
                let l = super::outcome::Limit::Stack(bound);
                return finish(stats, &store, &budget, Verdict::Inconclusive(l), None);
            }
            Err(Stop::Found(found)) => {
                let trace = trace_to(model, exp, &store, parent, found.path);
                let v = Violation {
                    problem: found.problem,
                    initial: false,
                    trace,
                };
                return finish(stats, &store, &budget, Verdict::Violated, Some(v));
            }
            Err(Stop::Halt) => {
                let l = budget.hit();
                return finish(stats, &store, &budget, Verdict::Inconclusive(l), None);
            }
            Ok(false) if !model.all_ended(&s) => {
                stats.deadlocks += 1;
                if deadlock_is_violation {
                    let trace = trace_to(model, exp, &store, parent, Vec::new());
                    let v = Violation {
                        problem: Problem::Deadlock,
                        initial: parent == 0,
                        trace,
                    };
                    return finish(stats, &store, &budget, Verdict::Violated, Some(v));
                }
            }
            Ok(_) => {}
        }
        id += 1;
    }
    finish(stats, &store, &budget, Verdict::Holds, None)
}

/// A shortest path from `a` to `b` of one or more transitions of one
/// thread, with every check of the semantics, if there is one within a
/// bound: a reduced step (a transaction) is one.
fn one_thread_path(model: &Model, a: &[i64], b: &[i64]) -> Option<Vec<u32>> {
    const BOUND: usize = 1 << 20;
    let mut out = Vec::new();
    for (t, thread) in model.threads.iter().enumerate() {
        // Breadth-first, each state with the state and transition before it.
        let mut states = vec![a.to_vec()];
        let mut back = vec![(0usize, 0u32)];
        let mut seen = std::collections::HashSet::from([a.to_vec()]);
        let mut next = 0;
        while next < states.len() && states.len() < BOUND {
            let s = states[next].clone();
            for k in thread.points[s[t] as usize].transitions.clone() {
                if !matches!(step(model, k, &s, &mut out), StepResult::Ok) {
                    continue;
                }
                if out == b {
                    let mut path = vec![k as u32];
                    let mut at = next;
                    while at != 0 {
                        path.push(back[at].1);
                        at = back[at].0;
                    }
                    path.reverse();
                    return Some(path);
                }
                if seen.insert(out.clone()) {
                    states.push(out.clone());
                    back.push((next, k as u32));
                }
            }
            next += 1;
        }
    }
    None
}

/// The trace to stored state `id`, followed by `tail`: each stored step is
/// found again by re-expanding its parent (expansion is deterministic).
fn trace_to<E: Expand>(
    model: &Model,
    exp: &mut E,
    store: &Store,
    id: u32,
    tail: Vec<u32>,
) -> Vec<Step> {
    let mut ids = vec![id];
    let mut cur = id;
    while cur != 0 {
        cur = store.note(cur);
        ids.push(cur);
    }
    ids.reverse();
    if let Some(w) = exp.watch() {
        w.tracing = true;
    }
    let n = model.slots.len();
    let (mut a, mut b) = (vec![0; n], vec![0; n]);
    let mut segments = Vec::new();
    for w in ids.windows(2) {
        model.layout.unpack(store.get(w[0]), &mut a);
        model.layout.unpack(store.get(w[1]), &mut b);
        let mut found = None;
        // The search stored this step within its limits, and re-expansion
        // retraces it exactly, so it needs no limit of its own.
        let _ = exp.expand(&a, &mut Budget::unlimited(), &mut |succ, path, _| {
            if found.is_none() && succ == b.as_slice() {
                found = Some(path.to_vec());
            }
            Ok(())
        });
        // Expansion is deterministic, except where the watch changed on the
        // way (`refine --incremental` narrows candidate locks, and under
        // `movers` that reshapes transactions): then the step is found again
        // as a path of one thread in the original system.
        let segment = found.or_else(|| one_thread_path(model, &a, &b));
        segments.push(segment.unwrap_or_default());
    }
    if !tail.is_empty() {
        segments.push(tail);
    }
    if let Some(w) = exp.watch() {
        w.tracing = false;
    }
    replay(model, &segments)
}
