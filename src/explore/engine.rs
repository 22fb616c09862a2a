//! The search core's one loop: level-synchronous breadth-first search,
//! with the same ids, counts, cuts and counterexamples whoever runs it.
//!
//! What differs between running it on the threads of one process and on
//! the workers of several is a **back end** ([`Backend`]): how a level's
//! states are expanded and their successors stored and numbered, where a
//! level ends early, and how the parent links of a counterexample are read
//! back. The threads of one process share one sharded table
//! ([`super::parallel`]); timely dataflow workers each own the states whose
//! hash they are given and exchange the rest ([`super::distributed`]).
//! Everything else is here, once: the order in which the state limit, an
//! early end, the memory limit and the time limit are judged, how the
//! counterexample of an early end is rebuilt (by re-expanding along the
//! parent links: expansion is deterministic), and when the search holds.

use super::budget::Budget;
use super::outcome::{Limit, Outcome, Problem, Stats, Verdict, Violation};
use super::search::{Expand, Found, Stop};
use super::space::Space;
use super::visit::Visit;
use crate::model::Fault;

/// How a level ended early, at a parent every worker agrees on.
pub(super) enum End {
    /// A violation: what the expansion found, where the worker that found
    /// it is at hand (else it is found again by re-expanding the parent).
    Found(Option<Found>),
    /// A deadlock reported as a violation.
    Deadlock,
    /// The stack bound, with the reduced step under way (its states and
    /// thread) where known (else found again, as a violation is).
    Stack(Option<(u32, u64, usize)>),
    /// A limit inside an expansion, with the reduced step under way.
    Halt(u64, usize),
}

/// What expanding a level gave, up to its cut.
pub(super) struct Expanded {
    /// States of the next level up to the cut (all of them where none).
    pub count: u64,
    /// The first early end, by parent id.
    pub end: Option<(u32, End)>,
}

/// A way to run the search: see the module's documentation. Every method
/// is called by every worker of the run at the same point of the loop
/// (those of a back end over several workers agree through messages).
pub(super) trait Backend<S: Space, V: Visit<S>> {
    /// The expander that retraces a counterexample.
    type Exp: Expand;
    /// Stores the initial state as the first level; the limit instead
    /// where the run cannot start.
    fn seed(&mut self) -> Result<(), Limit>;
    /// The statistics so far.
    fn stats(&mut self) -> &mut Stats;
    /// The run's limits.
    fn budget(&self) -> &Budget;
    /// Expands the level, showing its states to `visit`, and counts what
    /// lies up to its cut (the first early end, or the block whose
    /// successors pass the state limit).
    fn expand(&mut self, visit: &V, deadlock: bool) -> Expanded;
    /// Counts `added` states of the next level, `new` of them new.
    fn grow(&mut self, new: u64, added: u64);
    /// Stores and numbers the next level and gives the visitor what the
    /// level recorded; whether the next level has any state, or the limit
    /// that ends the run there (memory, time).
    fn next(&mut self, visit: &mut V) -> Result<bool, Limit>;
    /// The limit that ended an expansion, as every worker agrees.
    fn limit(&mut self) -> Limit;
    /// The emit indices from the initial state to state `id`.
    fn seqs(&mut self, id: u32) -> Vec<u32>;
    /// The expander that retraces a counterexample.
    fn exp(&mut self) -> &mut Self::Exp;
    /// The outcome.
    fn end(self, verdict: Verdict, violation: Option<Violation>) -> Outcome;
}

/// Breadth-first search of `space` from its initial state through the back
/// end `back`, showing every state (and edge) to `visit`; `progress` sees
/// the statistics every 65,536 states.
pub(super) fn run<S: Space, V: Visit<S>, B: Backend<S, V>>(
    space: &S,
    mut back: B,
    visit: &mut V,
    deadlock: bool,
    progress: &mut dyn FnMut(&Stats),
) -> Outcome {
    if let Err(limit) = back.seed() {
        return back.end(Verdict::Inconclusive(limit), None);
    }
    if let Some(problem) = visit.initial(space, space.init()) {
        let v = Violation {
            problem,
            initial: true,
            trace: Vec::new(),
        };
        return back.end(Verdict::Violated, Some(v));
    }
    let mut reported = 0u64;
    loop {
        let states = back.stats().states;
        if states / (1 << 16) > reported {
            reported = states / (1 << 16);
            back.stats().elapsed = back.budget().elapsed();
            progress(back.stats());
        }
        let Expanded { count, end } = back.expand(visit, deadlock);
        let max = back.budget().max_states();
        if states + count > max {
            back.grow(count, max - states);
            return back.end(Verdict::Inconclusive(Limit::States(max)), None);
        }
        if let Some((p, end)) = end {
            back.grow(count, count);
            let (verdict, violation) = ending(space, &mut back, p, end);
            return back.end(verdict, violation);
        }
        match back.next(visit) {
            Ok(true) => {}
            Ok(false) => return back.end(Verdict::Holds, None),
            Err(limit) => return back.end(Verdict::Inconclusive(limit), None),
        }
    }
}

/// The verdict and counterexample of a level that ended early at parent
/// `p`, and the reduced step a limit cut (in the statistics).
fn ending<S: Space, V: Visit<S>, B: Backend<S, V>>(
    space: &S,
    back: &mut B,
    p: u32,
    end: End,
) -> (Verdict, Option<Violation>) {
    let seqs = match end {
        End::Halt(..) | End::Stack(Some(_)) => Vec::new(),
        End::Found(_) | End::Deadlock | End::Stack(None) => back.seqs(p),
    };
    let end = match end {
        End::Found(None) | End::Stack(None) => found_again(space, back.exp(), &seqs),
        end => Some(end),
    };
    // A deadlock at the initial state is the initial state's violation.
    let (problem, tail, initial) = match end {
        Some(End::Found(Some(found))) => (found.problem, found.path, false),
        Some(End::Deadlock) => (Problem::Deadlock, Vec::new(), p == 0),
        Some(End::Stack(Some((bound, run_states, run_thread)))) => {
            cut_step(back.stats(), run_states, run_thread);
            return (Verdict::Inconclusive(Limit::Stack(bound)), None);
        }
        Some(End::Halt(run_states, run_thread)) => {
            cut_step(back.stats(), run_states, run_thread);
            return (Verdict::Inconclusive(back.limit()), None);
        }
        _ => {
            let why = "a violation found by the search does not recur on replay";
            return (Verdict::Inconclusive(Limit::Internal(why)), None);
        }
    };
    let mut problem = problem;
    let trace = space.trace(back.exp(), &seqs, tail, &mut problem);
    let v = Violation {
        problem,
        initial,
        trace,
    };
    (Verdict::Violated, Some(v))
}

/// What expanding the state at the end of `seqs` finds again.
fn found_again<S: Space, E: Expand>(space: &S, exp: &mut E, seqs: &[u32]) -> Option<End> {
    let (s, _) = super::parallel::follow(space, exp, seqs);
    let mut again = Budget::unlimited();
    match exp.expand(&s, &mut again, &mut |_, _, _| Ok(())) {
        Err(Stop::Found(Found {
            problem: Problem::Fault(Fault::StackBound { bound }),
            ..
        })) => Some(End::Stack(Some((
            bound,
            again.run_states,
            again.run_thread,
        )))),
        Err(Stop::Found(found)) => Some(End::Found(Some(found))),
        _ => None,
    }
}

/// Records the reduced step under way when a limit or the stack bound cut
/// the run (`states` of them; none where 0).
fn cut_step(stats: &mut Stats, states: u64, thread: usize) {
    if states > 0 {
        stats.run_states = states;
        stats.run_thread = Some(thread);
    }
}
