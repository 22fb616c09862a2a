//! Exploring a model's state space.

mod budget;
mod cluster;
mod combined;
mod confirm;
mod contract;
mod distributed;
mod engine;
mod expanding;
mod full;
mod graph;
mod liveness;
mod ltlgraph;
pub(crate) mod movers;
mod outcome;
mod parallel;
mod persistent;
mod product;
mod profile;
mod refusing;
mod registry;
pub(crate) mod sc;
mod search;
mod space;
mod store;
mod stubborn;
mod summaries;
mod summarized;
mod symmetric;
mod table;
mod visible;
mod visit;
mod walk;

use sc::{commit, reduced};

pub use budget::resident_bytes;
pub(crate) use budget::{Budget, Halt, reserve_one};
pub use cluster::Cluster;
pub use commit::Ignoring;
pub(crate) use contract::control_loops;
pub use contract::{
    Assessment, Condition, Contract, Finding, Judgement, Preserved, Property, Remedy, Status,
    Unsupported, assess, contract, validate,
};
pub use graph::{
    GraphEdge, GraphTooLarge, GraphViolation, Overlay, ReducedStep, StateGraph, state_graph,
};
pub use liveness::{
    LassoTrace, LtlOptions, LtlOutcome, PropertyOutcome, check_ltl, check_temporal, ltl_refusal,
};
pub use movers::{LockReader, Plan as MoverPlan, mover_kind};
pub use outcome::{Inapplicable, Kind, Limit, Outcome, Problem, Stats, Step, Verdict, Violation};
pub(crate) use parallel::search as search_space;
pub use profile::{Level as LevelProfile, Profile, Work as WorkerTimes};
pub(crate) use reduced::end_excl;
pub use refusing::refusal as reductions_refusal;
pub use registry::Reduction;
pub use search::{AccessEvent, Limits, StepResult, Watch, replay, step, step_watched};
pub(crate) use search::{Emit, Expand, Stop};
pub(crate) use space::Space;
pub(crate) use store::{Full, Room, Store};
pub use summaries::SummaryStats;
pub(crate) use visit::{Edges, Visit};
pub use walk::{
    Effect, Mismatch, SavedStep, SplitMix, Walk, WalkEnd, choices, effect, initial_problem,
    match_path, match_step, simulate,
};

use crate::model::Model;

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
    /// Read transactions off procedure summaries (Qadeer, Rajamani and
    /// Rehof); with `sc` and `movers` only
    /// (the layers that support them).
    pub summaries: bool,
    /// With `summaries`: every thread keeps its own, even where threads
    /// are interchangeable and could share them (to see what sharing
    /// saves, or to rule it out).
    pub summaries_per_thread: bool,
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
    /// What the visited set keeps of a state.
    pub kept: Kept,
    /// Record where the search's time goes (`check --stats`), in
    /// `Outcome::profile`.
    pub stats: bool,
    /// Run over the workers of several processes (or machines) with timely
    /// dataflow instead of this process's threads: same counts, verdict
    /// and counterexample (see `distributed.rs`).
    pub cluster: Option<Cluster>,
    /// With `cluster`: what the run checks, the same in every process (the
    /// processes compare it when they connect).
    pub fingerprint: u64,
    /// Store one state per orbit of the copies' permutations (see
    /// `crate::symmetry`).
    pub symmetry: SymmetryUse,
}

/// When the search stores one state per orbit (`--symmetry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SymmetryUse {
    /// Never: every state is stored.
    #[default]
    Off,
    /// Where the model has a symmetry and the question keeps it: safety
    /// properties, deadlocks and the discipline, and temporal properties
    /// whose atoms it keeps, without fairness (the command line's default).
    Auto,
    /// As `Auto`, and a run that cannot use it says why.
    On,
}

/// What the visited set keeps of each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kept {
    /// The state: exact.
    #[default]
    Exact,
    /// A 64-bit fingerprint (`--hash-compact`): two states with the same
    /// fingerprint count as one, so a state may be missed.
    HashCompact,
    /// `hashes` bits in an array of `2^log2` (`--bitstate`, SPIN's
    /// supertrace): a state whose bits are all set counts as visited.
    Bitstate {
        /// The array has `2^log2` bits.
        log2: u32,
        /// Bits per state.
        hashes: u32,
    },
}

impl Kept {
    /// What a run that stored `states` states may have missed, when the
    /// store is not exact.
    pub fn coverage(self, states: u64) -> Option<Coverage> {
        let n = states as f64;
        match self {
            Kept::Exact => None,
            // The birthday bound: two of n fingerprints are equal with
            // probability at most n(n-1)/2 / 2^64.
            Kept::HashCompact => Some(Coverage {
                kept: self,
                omission: (n * (n - 1.0) / 2.0 / 2f64.powi(64)).min(1.0),
                bits_per_state: None,
            }),
            // A new state is taken for a visited one when its k bits are
            // set already: with n states in m bits, with probability
            // (1 - e^(-kn/m))^k, the most any lookup of the run faced.
            Kept::Bitstate { log2, hashes } => {
                let (m, k) = (2f64.powi(log2 as i32), f64::from(hashes));
                Some(Coverage {
                    kept: self,
                    omission: (1.0 - (-k * n / m).exp()).powf(k),
                    bits_per_state: Some(if n > 0.0 { m / n } else { m }),
                })
            }
        }
    }
}

/// What a run with a store that is not exact may have missed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coverage {
    /// The store.
    pub kept: Kept,
    /// `--hash-compact`: a bound on the probability that any state was
    /// missed. `--bitstate`: a bound on the probability that a new state
    /// met during the run was taken for a visited one.
    pub omission: f64,
    /// `--bitstate`: bits of the array per stored state (SPIN's hash factor).
    pub bits_per_state: Option<f64>,
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
    /// closest to the paper's conditional stubborn sets (CSSA).
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

/// The search over `exps`, one per worker. A watch goes to the first
/// expander, and comes back in `watch` after the search. Under a symmetry
/// (`quotient`), over the representatives of orbits.
fn search_with<E: search::Expand + Send>(
    model: &Model,
    options: &Options,
    watch: &mut Option<Watch>,
    progress: &mut dyn FnMut(&Stats),
    exps: &mut [E],
    graph: Option<&mut ltlgraph::Recorder>,
    quotient: Option<&crate::symmetry::Symmetry>,
) -> Outcome {
    if let (Some(w), Some(slot)) = (watch.take(), exps[0].watch()) {
        *slot = w;
    }
    // With a graph: the safety check that also records the temporal
    // properties' graph (see `liveness::check_temporal`).
    let mut o = match quotient {
        Some(sym) => {
            let space = symmetric::Quotient::new(model, sym);
            let mut canon: Vec<_> = (exps.iter_mut())
                .map(|e| symmetric::Canonical::new(e, sym))
                .collect();
            match graph {
                Some(rec) => search_in(&space, options, progress, &mut canon, rec),
                None => search_in(&space, options, progress, &mut canon, &mut ()),
            }
        }
        None => match graph {
            Some(rec) => search_in(model, options, progress, exps, rec),
            None => search_in(model, options, progress, exps, &mut ()),
        },
    };
    if let Some(w) = exps[0].watch() {
        *watch = Some(std::mem::take(w));
    }
    o.coverage = options.kept.coverage(o.stats.states);
    o
}

/// The search of `space` over `exps`, on this process's threads (showing
/// each state to `visit`) or over a cluster.
fn search_in<S: Space, E: search::Expand + Send, V: visit::Visit<S>>(
    space: &S,
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
    exps: &mut [E],
    visit: &mut V,
) -> Outcome
where
    (): visit::Visit<S>,
{
    let (limits, deadlock) = (&options.limits, options.deadlock);
    let (block, kept) = (options.block, options.kept);
    match &options.cluster {
        Some(cluster) => distributed::search(
            space,
            exps,
            cluster,
            options.fingerprint,
            limits,
            deadlock,
            block,
            kept,
        ),
        None => {
            let budget = Budget::new(limits);
            parallel::search(
                space,
                exps,
                budget,
                deadlock,
                block,
                kept,
                options.stats,
                progress,
                visit,
            )
        }
    }
}

/// Checks `model`, calling `progress` now and then during long runs. The
/// reduction's contract is judged first: a model that breaks a side
/// condition the reduction cannot adapt to is refused
/// ([`Verdict::DoesNotApply`]) before anything is explored.
pub fn check(model: &Model, options: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    let orbits = symmetric::Orbits::safety(model, options);
    contract::run(model, options, &mut None, progress, None, &orbits)
}

/// [`check`] with a [`Watch`]: records accesses, or explores without
/// enforcing the discipline (a lockset pass). Returns the watch with its log.
pub fn check_watched(model: &Model, options: &Options, watch: Watch) -> (Outcome, Watch) {
    let mut watch = Some(watch);
    let off = symmetric::Orbits::off();
    let o = contract::run(model, options, &mut watch, &mut |_| {}, None, &off);
    (o, watch.unwrap_or_default())
}
