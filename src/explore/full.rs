//! Full exploration: every enabled transition of every thread.

use super::budget::Budget;
use super::contract::Mode;
use super::expanding::Expanding;
use super::search::{Emit, Expand, Found, StepResult, Stop, Watch, step_watched};
use crate::model::Model;

/// Expands a state by every enabled transition, in thread order.
pub struct Full<'m> {
    model: &'m Model,
    out: Vec<i64>,
    /// What the search watches besides the semantics.
    pub watch: Watch,
}

impl<'m> Full<'m> {
    /// The full expander of `model`.
    pub fn new(model: &'m Model) -> Full<'m> {
        Full {
            model,
            out: Vec::new(),
            watch: Watch::default(),
        }
    }
}

impl Expand for Full<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.watch)
    }

    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        self.expand_threads(s, None, budget, emit)
    }
}

impl Full<'_> {
    /// [`Expand::expand`] restricted to the threads in `set` (all when
    /// `None`, which costs no allocation on the hot path).
    pub fn expand_threads(
        &mut self,
        s: &[i64],
        set: Option<&[bool]>,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<bool, Stop> {
        let mut enabled = false;
        for (t, thread) in self.model.threads.iter().enumerate() {
            if set.is_some_and(|set| !set[t]) {
                continue;
            }
            for k in thread.points[s[t] as usize].transitions.clone() {
                match step_watched(self.model, k, s, &mut self.out, &mut self.watch) {
                    StepResult::Disabled => {}
                    StepResult::Ok => {
                        enabled = true;
                        emit(&self.out, &[k as u32], budget)?;
                    }
                    StepResult::Bad(problem) => {
                        return Err(Stop::Found(Found {
                            problem,
                            path: vec![k as u32],
                        }));
                    }
                }
            }
        }
        Ok(enabled)
    }
}

/// The contract of `--reduction none`: everything, of every model.
pub(crate) fn contract() -> super::Contract {
    use super::{Preserved, Property};
    super::Contract {
        name: "none".into(),
        source: "the original system",
        preserves: Property::ALL.map(|p| (p, Preserved::Yes)).to_vec(),
        conditions: vec![super::contract::DISCIPLINE],
        store: None,
        symmetry: super::contract::SYMMETRY,
    }
}

/// What a reduction that leaves out interleavings preserves: what
/// `--reduction none` does, but lock misuses only in the states it stores
/// and temporal properties as `ltl` says. Movers, sc and stubborn sets share
/// it, so that they differ only where their theories do.
pub(super) fn reduced_preserves(ltl: super::Preserved) -> Vec<(super::Property, super::Preserved)> {
    use super::{Preserved, Property};
    vec![
        (Property::Assertions, Preserved::Yes),
        (Property::Invariants, Preserved::Yes),
        (Property::Discipline, Preserved::Yes),
        (Property::Deadlocks, Preserved::Yes),
        (Property::LockWarnings, Preserved::Stored),
        (Property::Ltl, ltl),
    ]
}

/// `--reduction none`: the original system, which needs nothing of a
/// model and preserves everything.
pub(crate) struct Plain<'m> {
    model: &'m Model,
}

impl<'m> Plain<'m> {
    /// Full exploration of `model`.
    pub(crate) fn new(model: &'m Model) -> Plain<'m> {
        Plain { model }
    }
}

impl Expanding for Plain<'_> {
    type Expander<'a>
        = Full<'a>
    where
        Self: 'a;
    fn expander(&self) -> Full<'_> {
        Full::new(self.model)
    }
}

impl Mode for Plain<'_> {
    fn judge(&self) -> Vec<super::Judgement> {
        vec![super::contract::discipline(self.model)]
    }

    fn liveness(&self, _visible: &super::visible::Visible) -> Option<Box<dyn Expand + Send + '_>> {
        Some(Box::new(self.expander()))
    }
    fn searches_liveness_graph(&self, _visible: &super::visible::Visible) -> bool {
        true
    }
}

/// The layer of `--reduction none`. Stubborn sets stacked on it select
/// among the original transitions (`--reduction stubborn`).
pub(crate) struct FullLayer;

impl super::registry::Layer for FullLayer {
    fn contract(&self, _: &super::Options) -> super::Contract {
        contract()
    }
    fn mode<'m>(&self, model: &'m Model, _: &super::Options) -> Box<dyn Mode + 'm> {
        Box::new(Plain::new(model))
    }
    fn is_full(&self) -> bool {
        true
    }
    fn stacked_contract(&self, _: &super::Options) -> super::Contract {
        super::stubborn::contract()
    }
    fn stacked_mode<'m>(&self, model: &'m Model, options: &super::Options) -> Box<dyn Mode + 'm> {
        Box::new(super::stubborn::Selective::new(model, options.interference))
    }
}
