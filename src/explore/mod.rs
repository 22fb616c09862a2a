//! Exploring a model's state space.

mod full;
mod outcome;
mod search;
mod store;

pub use outcome::{Kind, Limit, Outcome, Problem, Stats, Step, Verdict, Violation};
pub use search::{Limits, StepResult, replay, step};

use crate::model::Model;

/// Which state space to explore.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reduction {
    /// The original system: every interleaving of every transition.
    #[default]
    None,
}

impl Reduction {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::None => "none",
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
}

/// Checks `model`, calling `progress` now and then during long runs.
pub fn check(model: &Model, options: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    match options.reduction {
        Reduction::None => search::search(
            model,
            &mut full::Full::new(model),
            &options.limits,
            options.deadlock,
            progress,
        ),
    }
}
