//! Stubborn sets stacked on transactions: `sc+stubborn` (the combination
//! Stoller and Cohen's section 7 proposes) and `movers+stubborn`, one
//! [`Stacked`] mode over the base layer's own. Each owes both contracts:
//! the transactions' side conditions, judged as the transactions alone
//! judge them, and the stubborn sets' proviso.

use super::contract::{Judgement, Mode};
use super::graph::{Overlay, StateGraph};
use super::outcome::{Outcome, Stats};
use super::search::Watch;
use super::stubborn::{self, OverSteps, Steps};
use super::{Interference, Options, Reduction};
use crate::model::Model;

/// Stubborn sets over the transactions of a base mode.
pub(super) struct Stacked<'m> {
    model: &'m Model,
    base: Box<dyn Mode + 'm>,
    interference: Interference,
}

impl<'m> Stacked<'m> {
    /// Stubborn sets over the transactions of `base`, a mode of `model`.
    pub(super) fn new(
        model: &'m Model,
        base: Box<dyn Mode + 'm>,
        interference: Interference,
    ) -> Self {
        Stacked {
            model,
            base,
            interference,
        }
    }

    /// A fresh copy of the base's transactions.
    fn steps(&self) -> Box<Steps<'_>> {
        // Only layers of transactions stack stubborn sets this way; the
        // original system has its own (`stubborn::Selective`).
        self.base.steps().expect("the base mode has transactions")
    }
}

impl Mode for Stacked<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = self.base.judge();
        j.push(stubborn::proviso(self.model));
        j
    }

    fn search(
        &self,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome {
        let steps = || self.steps();
        let over = || OverSteps::new(self.model, steps(), steps, options.interference);
        let mut o = super::on_workers(self.model, options, watch, progress, over);
        o.interference = Some(options.interference);
        o.ignoring = Some(options.ignoring);
        o
    }

    fn overlay(&self, graph: &StateGraph, reduction: Reduction) -> Overlay {
        let steps = || self.steps();
        let mut exp = OverSteps::new(self.model, steps(), steps, self.interference);
        super::graph::walk(&mut exp, reduction, graph)
    }
}
