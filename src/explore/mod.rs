//! Exploring a model's state space.

mod budget;
mod commit;
mod full;
mod graph;
mod movers;
mod outcome;
mod persistent;
mod reduced;
mod search;
mod store;
mod stubborn;
mod summaries;
mod walk;

pub use budget::resident_bytes;
pub(crate) use budget::{Budget, Halt, reserve_one};
pub use commit::Ignoring;
pub use graph::{
    GraphEdge, GraphTooLarge, GraphViolation, Overlay, ReducedStep, StateGraph, state_graph,
};
pub use movers::mover_kind;
pub use outcome::{Kind, Limit, Outcome, Problem, Stats, Step, Verdict, Violation};
pub(crate) use reduced::end_excl;
pub use search::{AccessEvent, Limits, StepResult, Watch, replay, step, step_watched};
pub(crate) use store::{Full, Insert, Room, Store};
pub use summaries::SummaryStats;
pub use walk::{
    Effect, Mismatch, SplitMix, Walk, WalkEnd, choices, effect, initial_problem, match_step,
    simulate,
};

use crate::model::Model;
use search::Expand as _;

/// Which state space to explore.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reduction {
    /// The original system: every interleaving of every transition.
    None,
    /// Stoller and Cohen's reduced system: one visible transition followed
    /// by a maximal run of the same thread's invisible transitions.
    #[default]
    Sc,
    /// Flanagan and Qadeer's transactions: right movers, one committing
    /// action, left movers (seed 000). Does not preserve deadlocks.
    Movers,
    /// Selective search with conditional stubborn sets on the original
    /// system (Godefroid; seed 001).
    Stubborn,
    /// Stubborn sets over the Stoller-Cohen reduced steps.
    ScStubborn,
    /// Stubborn sets over the mover transactions. Does not preserve
    /// deadlocks.
    MoversStubborn,
}

impl Reduction {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::None => "none",
            Reduction::Sc => "sc",
            Reduction::Movers => "movers",
            Reduction::Stubborn => "stubborn",
            Reduction::ScStubborn => "sc+stubborn",
            Reduction::MoversStubborn => "movers+stubborn",
        }
    }
}

/// Options of a check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which state space to explore.
    pub reduction: Reduction,
    /// Resource limits.
    pub limits: Limits,
    /// Report a reachable deadlock as a violation.
    pub deadlock: bool,
    /// What a reduced step does where a run of invisible transitions can
    /// go on forever.
    pub ignoring: Ignoring,
    /// Read transactions off procedure summaries (seed 004); with
    /// [`Reduction::Sc`] only.
    pub summaries: bool,
    /// How the stubborn-set modes judge interference.
    pub interference: Interference,
}

/// How the stubborn-set modes (`stubborn`, `sc+stubborn`) decide that one
/// thread's operation cannot interfere with another's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interference {
    /// Footprints of the whole transitions, whatever the state: every slot
    /// an expression or a check may read, every index possible. The
    /// closest to the paper's CSSA.
    Static,
    /// Footprints taken in the state: indices evaluated, and a condition
    /// read only as far as `||` and `&&` evaluate it.
    State,
    /// [`Interference::State`], then single threads checked against what
    /// the other threads can really do from the state (a bounded
    /// exploration; see `persistent.rs`).
    #[default]
    Semantic,
}

impl Interference {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Interference::Static => "static",
            Interference::State => "state",
            Interference::Semantic => "semantic",
        }
    }
}

/// Stubborn sets over the transactions `make` makes.
fn over_steps<'m, R: stubborn::Transactions>(
    model: &'m Model,
    options: &Options,
    watch: Watch,
    progress: &mut dyn FnMut(&Stats),
    make: impl Fn() -> R,
) -> (Outcome, Watch) {
    let mut exp = stubborn::OverSteps::new(model, make(), &make, options.interference);
    *exp.steps().watching() = watch;
    let mut o = search::search(model, &mut exp, &options.limits, options.deadlock, progress);
    o.interference = Some(options.interference);
    o.ignoring = Some(options.ignoring);
    let run = exp.steps().parts().1;
    o.stats.forced = run.forced.len() as u64;
    o.boundaries = run.starts.iter().copied().collect();
    let watch = std::mem::take(exp.steps().watching());
    (o, watch)
}

/// Checks `model`, calling `progress` now and then during long runs.
pub fn check(model: &Model, options: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    run(model, options, Watch::default(), progress).0
}

/// [`check`] with a [`Watch`]: records accesses, or explores without
/// enforcing the discipline (a lockset pass). Returns the watch with its log.
pub fn check_watched(model: &Model, options: &Options, watch: Watch) -> (Outcome, Watch) {
    run(model, options, watch, &mut |_| {})
}

fn run(
    model: &Model,
    options: &Options,
    watch: Watch,
    progress: &mut dyn FnMut(&Stats),
) -> (Outcome, Watch) {
    let (limits, deadlock) = (&options.limits, options.deadlock);
    match options.reduction {
        Reduction::None => {
            let mut exp = full::Full::new(model);
            exp.watch = watch;
            let o = search::search(model, &mut exp, limits, deadlock, progress);
            (o, exp.watch)
        }
        Reduction::Sc if options.summaries => {
            let class = summaries::uniform(model, crate::classify::classify(model));
            let mut exp = summaries::Summaries::new(model, &class);
            *exp.watch_mut() = watch;
            let mut o = search::search(model, &mut exp, limits, deadlock, progress);
            o.stats.forced = exp.stats.forced;
            o.ignoring = Some(options.ignoring);
            o.summaries = Some(exp.stats);
            let watch = std::mem::take(exp.watch_mut());
            (o, watch)
        }
        Reduction::Sc => {
            let class = crate::classify::classify(model);
            let mut exp = reduced::Reduced::new(model, &class, options.ignoring);
            *exp.watch_mut() = watch;
            let mut o = search::search(model, &mut exp, limits, deadlock, progress);
            o.stats.forced = exp.run.forced.len() as u64;
            o.ignoring = Some(options.ignoring);
            o.boundaries = exp.run.starts.iter().copied().collect();
            (o, exp.into_watch())
        }
        Reduction::Stubborn => {
            let mut exp = stubborn::Stubborn::new(model, options.interference);
            *exp.watch_mut() = watch;
            let mut o = search::search(model, &mut exp, limits, deadlock, progress);
            o.interference = Some(options.interference);
            let watch = exp.watch().map(std::mem::take).unwrap_or_default();
            (o, watch)
        }
        Reduction::ScStubborn => {
            let class = crate::classify::classify(model);
            let steps = || reduced::Reduced::new(model, &class, options.ignoring);
            over_steps(model, options, watch, progress, steps)
        }
        Reduction::MoversStubborn => {
            let class = crate::classify::classify(model);
            let txs = || movers::Movers::new(model, &class, options.ignoring);
            over_steps(model, options, watch, progress, txs)
        }
        Reduction::Movers => {
            let class = crate::classify::classify(model);
            let mut exp = movers::Movers::new(model, &class, options.ignoring);
            *exp.watch_mut() = watch;
            let mut o = search::search(model, &mut exp, limits, deadlock, progress);
            o.stats.forced = exp.run.forced.len() as u64;
            o.ignoring = Some(options.ignoring);
            o.boundaries = exp.run.starts.iter().copied().collect();
            (o, exp.into_watch())
        }
    }
}
