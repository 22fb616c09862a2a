//! Exploring a model's state space.

mod budget;
mod commit;
mod full;
mod graph;
mod movers;
mod outcome;
mod parallel;
mod persistent;
mod reduced;
mod search;
mod store;
mod stubborn;
mod summaries;
mod table;
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
    /// [`Reduction::Sc`] and [`Reduction::Movers`] only.
    pub summaries: bool,
    /// How the stubborn-set modes judge interference.
    pub interference: Interference,
    /// Worker threads of the search; 0 takes the available cores. The
    /// output is the same for every number (see `parallel.rs`).
    pub threads: usize,
    /// States per block of work of the parallel search; 0 for the default.
    /// Only the state limit's partial counts depend on it. For tests, which
    /// need several workers on small models (a level of fewer than four
    /// blocks runs on one thread).
    #[doc(hidden)]
    pub block: usize,
}

impl Options {
    /// The worker threads a check uses.
    pub fn workers(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }
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

/// A search read off summaries, on one worker: summaries are a cache
/// shared by the whole run, and what it computes and reuses depends on the
/// order of work.
fn summarized<X: summaries::Stepper + Send>(
    model: &Model,
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
    exp: summaries::Summaries<'_, X>,
) -> Outcome {
    let (limits, deadlock) = (&options.limits, options.deadlock);
    let mut exps = [exp];
    let mut o = parallel::search(model, &mut exps, limits, deadlock, options.block, progress);
    o.stats.forced = exps[0].stats.forced;
    o.ignoring = Some(options.ignoring);
    o.summaries = Some(exps[0].stats);
    o
}

/// The search with one expander per worker, made by `make`.
fn on_workers<E: search::Expand + Send>(
    model: &Model,
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
    make: impl Fn() -> E,
) -> Outcome {
    let mut exps: Vec<_> = (0..options.workers().max(1)).map(|_| make()).collect();
    let (limits, deadlock) = (&options.limits, options.deadlock);
    parallel::search(model, &mut exps, limits, deadlock, options.block, progress)
}

/// [`over_steps`] on every worker.
fn over_steps_parallel<'m, R: stubborn::Transactions + Send>(
    model: &'m Model,
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
    make: impl Fn() -> R,
) -> Outcome {
    let over = || stubborn::OverSteps::new(model, make(), &make, options.interference);
    let mut o = on_workers(model, options, progress, over);
    o.interference = Some(options.interference);
    o.ignoring = Some(options.ignoring);
    o
}

/// Checks `model`, calling `progress` now and then during long runs.
pub fn check(model: &Model, options: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    run_parallel(model, options, progress)
}

/// [`check`] on [`Options::workers`] threads: one expander per worker,
/// what they find besides successors merged by the search up to its cut.
fn run_parallel(model: &Model, options: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    let ignoring = options.ignoring;
    match options.reduction {
        Reduction::None => on_workers(model, options, progress, || full::Full::new(model)),
        Reduction::Sc if options.summaries => {
            let class = summaries::uniform(model, crate::classify::classify(model));
            summarized(
                model,
                options,
                progress,
                summaries::Summaries::new(model, &class),
            )
        }
        Reduction::Sc => {
            let class = crate::classify::classify(model);
            let make = || reduced::Reduced::new(model, &class, ignoring);
            let mut o = on_workers(model, options, progress, make);
            o.ignoring = Some(ignoring);
            o
        }
        Reduction::Movers if options.summaries => {
            let class = crate::classify::classify(model);
            let txs = movers::Txs::for_summaries(model, &class);
            summarized(
                model,
                options,
                progress,
                summaries::Summaries::with(model, txs),
            )
        }
        Reduction::Stubborn => {
            let make = || stubborn::Stubborn::new(model, options.interference);
            let mut o = on_workers(model, options, progress, make);
            o.interference = Some(options.interference);
            o
        }
        Reduction::ScStubborn => {
            let class = crate::classify::classify(model);
            let steps = || reduced::Reduced::new(model, &class, ignoring);
            over_steps_parallel(model, options, progress, steps)
        }
        Reduction::MoversStubborn => {
            let class = crate::classify::classify(model);
            let txs = || movers::Movers::new(model, &class, ignoring);
            over_steps_parallel(model, options, progress, txs)
        }
        Reduction::Movers => {
            let class = crate::classify::classify(model);
            let make = || movers::Movers::new(model, &class, ignoring);
            let mut o = on_workers(model, options, progress, make);
            o.ignoring = Some(ignoring);
            o
        }
    }
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
        Reduction::Movers if options.summaries => {
            let class = crate::classify::classify(model);
            let txs = movers::Txs::for_summaries(model, &class);
            let mut exp = summaries::Summaries::with(model, txs);
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
