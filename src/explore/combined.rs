//! Stubborn sets stacked on transactions: `sc+stubborn` (the combination
//! Stoller and Cohen's section 7 proposes) and `movers+stubborn`, one
//! [`Stacked`] mode over the base layer's own. Each owes both contracts:
//! the transactions' side conditions, judged as the transactions alone
//! judge them, and the stubborn sets' proviso.

use super::contract::{Judgement, Mode};
use super::expanding::Expanding;
use super::outcome::Outcome;
use super::stubborn::{self, OverSteps, Steps};
use super::{Ignoring, Interference, Options};
use crate::model::Model;

/// Stubborn sets over the transactions of a base mode.
pub(super) struct Stacked<'m> {
    model: &'m Model,
    base: Box<dyn Mode + 'm>,
    interference: Interference,
    /// The base's `--ignoring`, which the outcome reports.
    ignoring: Ignoring,
}

impl<'m> Stacked<'m> {
    /// Stubborn sets over the transactions of `base`, a mode of `model`,
    /// under `options`.
    pub(super) fn new(model: &'m Model, base: Box<dyn Mode + 'm>, options: &Options) -> Self {
        Stacked {
            model,
            base,
            interference: options.interference,
            ignoring: options.ignoring,
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
}

impl Expanding for Stacked<'_> {
    type Expander<'a>
        = OverSteps<'a, Box<Steps<'a>>>
    where
        Self: 'a;
    fn expander(&self) -> OverSteps<'_, Box<Steps<'_>>> {
        let steps = || self.steps();
        OverSteps::new(self.model, steps(), steps, self.interference)
    }
    fn record(&self, outcome: &mut Outcome, _: &[OverSteps<'_, Box<Steps<'_>>>]) {
        outcome.interference = Some(self.interference);
        outcome.ignoring = Some(self.ignoring);
    }
}
