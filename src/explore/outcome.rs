//! What a run of the checker produces: a verdict, statistics, and for a
//! violation the problem and the trace that reaches it.

use std::time::Duration;

use crate::model::{ExclFault, Fault};

/// The verdict of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No reachable violation.
    Holds,
    /// A violation is reachable; see [`Outcome::violation`].
    Violated,
    /// A resource limit ended the run first.
    Inconclusive(Limit),
    /// The reduction does not apply to this model: a side condition of its
    /// contract fails and the reduction cannot work around it. No state was
    /// explored; the verdict of the original system is unknown (exit 3).
    DoesNotApply(Inapplicable),
}

/// Why a reduction refused a model (see [`Verdict::DoesNotApply`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inapplicable {
    /// The side condition that fails, by its name in the contract
    /// (`optimist classify --reduction R` lists them).
    pub condition: &'static str,
    /// What fails, in words, naming the construct.
    pub message: String,
    /// The statement or declaration that breaks it, when there is one,
    /// with its 1-based line.
    pub place: Option<(crate::syntax::span::Span, usize)>,
}

impl std::fmt::Display for Inapplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the reduction does not apply: ")?;
        if let Some((_, line)) = self.place {
            write!(f, "line {line}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// The resource limit that ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `--max-states`
    States(u64),
    /// `--max-time`, in seconds.
    Time(Duration),
    /// `--max-memory`, in bytes.
    Memory(u64),
    /// `--max-stack`: a thread called deeper than this many frames.
    Stack(u32),
    /// An internal check failed: a bug of optimist, which ends the run
    /// without a verdict rather than with a wrong one.
    Internal(&'static str),
    /// A run over several processes lost one (its connection closed), or
    /// a worker stopped.
    Lost(Option<usize>),
    /// A process did not join the run over several processes: it did not
    /// connect in time, or checks something else.
    Unjoined(usize),
    /// Deadlocks were asked for, and the reduction finds them only in the
    /// states it stores: no deadlock was found, and none is ruled out.
    Deadlocks,
    /// The run stopped at the first violation it found, of a temporal
    /// property, before its safety search had covered every state.
    FirstViolation,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::States(n) => write!(f, "state limit of {n} reached"),
            Limit::Time(d) => write!(f, "time limit of {} s reached", d.as_secs_f64()),
            Limit::Memory(b) => write!(f, "memory limit of {} MB reached", b / (1 << 20)),
            Limit::Stack(n) => write!(f, "stack bound {n} reached"),
            Limit::Internal(why) => write!(
                f,
                "internal error: {why} (a bug of optimist; please report it)"
            ),
            Limit::Lost(Some(p)) => write!(f, "process {p} of the run stopped"),
            Limit::Lost(None) => write!(f, "a worker of the run stopped"),
            Limit::Unjoined(p) => write!(f, "process {p} did not join the run"),
            Limit::Deadlocks => write!(
                f,
                "deadlock freedom is not established: the reduction finds deadlocks only in the states it stores"
            ),
            Limit::FirstViolation => write!(
                f,
                "the run stopped at the first violation it found, of a temporal property, before the safety check covered the states (`--no-ltl` checks safety alone)"
            ),
        }
    }
}

/// Statistics of a run (partial when a limit ended it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Stored states: every reachable state in full mode; in reduced mode the
    /// initial state and the end state of every reduced step.
    pub states: u64,
    /// Transitions (reduced mode: reduced steps) taken, including those that
    /// lead to states already seen.
    pub transitions: u64,
    /// The original transitions those took: equal to `transitions` in full
    /// mode, the transitions inside the steps in reduced mode.
    pub fired: u64,
    /// Longest shortest path from the initial state, in transitions (reduced steps).
    pub depth: u64,
    /// Stored states where some thread has not ended and no thread can move.
    pub deadlocks: u64,
    /// Misuses of locks met in stored states: per kind, the number of
    /// states and the first one met, described.
    pub lock_misuses: Vec<(crate::model::LockMisuse, u64, String)>,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Bytes of the search's structures: the state store (states, hash
    /// table, parent links) and, in reduced mode, the map, stack and path
    /// that a reduced step keeps for its depth-first run.
    pub memory: u64,
    /// When a limit ended the run inside a reduced step: the intermediate
    /// states that step held (else 0).
    pub run_states: u64,
    /// When a limit ended the run inside a reduced step: its thread.
    pub run_thread: Option<usize>,
    /// Reduced mode: distinct states where a transaction was ended by force
    /// because its run of invisible transitions could not complete (or, under
    /// cycle detection, closed a cycle); every thread is scheduled there.
    pub forced: u64,
}

impl Stats {
    /// Bytes of storage per stored state.
    pub fn bytes_per_state(&self) -> f64 {
        if self.states == 0 {
            0.0
        } else {
            self.memory as f64 / self.states as f64
        }
    }
}

/// What is wrong at the end of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The last transition went wrong (discipline, assertion, range).
    Fault(Fault),
    /// After the last transition two threads satisfy the exclusive access
    /// predicate of the same variable (`disjoint(ex)` fails). In the initial
    /// state this is a well-formedness error (WFinitExcl).
    Overlap {
        /// Index into `Model::protected`.
        protected: usize,
        /// The two threads.
        threads: (usize, usize),
    },
    /// An exclusive access predicate cannot be evaluated after the last
    /// transition (or in the initial state): a `range` violation, since the
    /// discipline is not defined there.
    ExclFault(ExclFault),
    /// An invariant is false (index into `Model::invariants`).
    Invariant(usize),
    /// No thread can move and some thread has not ended (with `--deadlock`).
    Deadlock,
    /// WFfiniteInvis: thread `thread` can run invisible transitions forever;
    /// the last `length` transitions of the trace form the loop.
    InvisibleCycle {
        /// The thread.
        thread: usize,
        /// Transitions in the loop.
        length: usize,
    },
    /// WFendExcl: the last transition falsified `excl(victim, x)` for
    /// another thread `victim`.
    EndExcl {
        /// Index into `Model::protected`.
        protected: usize,
        /// The thread whose predicate was falsified.
        victim: usize,
    },
}

/// The class of a violation, as reported in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The synchronization discipline: an access without exclusive access, or two owners.
    Discipline,
    /// An `assert` failed.
    Assertion,
    /// An `invariant` is false.
    Invariant,
    /// A value out of range, an index out of bounds, division by zero, overflow.
    Range,
    /// The model breaks a well-formedness condition of the reduction theorem.
    WellFormedness,
    /// A reachable deadlock (only with `--deadlock`).
    Deadlock,
}

impl Kind {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Discipline => "discipline",
            Kind::Assertion => "assertion",
            Kind::Invariant => "invariant",
            Kind::Range => "range",
            Kind::WellFormedness => "well-formedness",
            Kind::Deadlock => "deadlock",
        }
    }
}

/// One transition of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Index into `Model::transitions`.
    pub transition: usize,
    /// The state after it; `None` for a last transition that could not complete.
    pub state: Option<Vec<i64>>,
    /// True where a reduced step begins (always true in full mode).
    pub starts_step: bool,
}

/// A reachable violation with the shortest trace to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What is wrong.
    pub problem: Problem,
    /// Whether the initial state itself is bad (then the trace is empty).
    pub initial: bool,
    /// The transitions from the initial state.
    pub trace: Vec<Step>,
}

impl Violation {
    /// The class of the violation.
    pub fn kind(&self) -> Kind {
        match &self.problem {
            Problem::Fault(Fault::Discipline { .. }) => Kind::Discipline,
            Problem::Fault(Fault::Assert) => Kind::Assertion,
            Problem::Fault(_) | Problem::ExclFault(_) => Kind::Range,
            Problem::Overlap { .. } if self.initial => Kind::WellFormedness,
            Problem::Overlap { .. } => Kind::Discipline,
            Problem::Invariant(_) => Kind::Invariant,
            Problem::Deadlock => Kind::Deadlock,
            Problem::InvisibleCycle { .. } | Problem::EndExcl { .. } => Kind::WellFormedness,
        }
    }
}

/// The result of a check.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Holds, violated or inconclusive.
    pub verdict: Verdict,
    /// Statistics (partial when inconclusive).
    pub stats: Stats,
    /// The violation, when the verdict is `Violated`.
    pub violation: Option<Violation>,
    /// Reduced mode: what the search did where a run of invisible
    /// transitions could go on forever.
    pub ignoring: Option<super::Ignoring>,
    /// Stubborn sets: how interference was judged.
    pub interference: Option<super::Interference>,
    /// Reduced mode: the control points `(thread, point)` where a reduced
    /// step (a transaction) began.
    pub boundaries: Vec<(usize, i64)>,
    /// `--summaries`: what was computed and reused.
    pub summaries: Option<super::SummaryStats>,
    /// `--hash-compact`, `--bitstate`: what the run may have missed.
    pub coverage: Option<super::Coverage>,
    /// What a `holds` does not establish: properties asked for that the
    /// reduction does not preserve in full.
    pub caveats: Vec<String>,
    /// Where the search's time went (`check --stats`); none where the
    /// search does not record it (over several processes).
    pub profile: Option<super::Profile>,
    /// `--symmetry`: the symmetry the search stored orbits of.
    pub symmetry: Option<crate::symmetry::Used>,
}

impl Outcome {
    /// The outcome of a search; the mode's own fields are filled in by its
    /// caller.
    pub(crate) fn new(verdict: Verdict, stats: Stats, violation: Option<Violation>) -> Outcome {
        Outcome {
            verdict,
            stats,
            violation,
            ignoring: None,
            interference: None,
            boundaries: Vec::new(),
            summaries: None,
            coverage: None,
            caveats: Vec::new(),
            symmetry: None,
            profile: None,
        }
    }
}
