//! Stubborn sets over transactions: `sc+stubborn` (the combination
//! Stoller and Cohen's section 7 proposes) and `movers+stubborn`. Each
//! owes both contracts: the transactions' side conditions, judged as the
//! transactions alone judge them, and the stubborn sets' proviso.

use super::contract::{Judgement, Mode};
use super::graph::{Overlay, StateGraph};
use super::movers::{Movers, Transactions};
use super::outcome::{Outcome, Stats};
use super::reduced::Reduced;
use super::sc::classify::{Classification, classify};
use super::search::Watch;
use super::stubborn::{self, OverSteps, Transactions as Steps};
use super::{Ignoring, Interference, Options, Reduction};
use crate::model::Model;

/// Stubborn sets over the transactions `make` makes.
fn search<'m, R: Steps + Send>(
    model: &'m Model,
    options: &Options,
    watch: &mut Option<Watch>,
    progress: &mut dyn FnMut(&Stats),
    make: impl Fn() -> R,
) -> Outcome {
    let over = || OverSteps::new(model, make(), &make, options.interference);
    let mut o = super::on_workers(model, options, watch, progress, over);
    o.interference = Some(options.interference);
    o.ignoring = Some(options.ignoring);
    o
}

/// `--reduction sc+stubborn`.
pub(super) struct ScStubborn<'m> {
    model: &'m Model,
    class: Classification,
    ignoring: Ignoring,
    interference: Interference,
}

impl<'m> ScStubborn<'m> {
    /// Stubborn sets over `model`'s Stoller-Cohen steps.
    pub(super) fn new(model: &'m Model, ignoring: Ignoring, interference: Interference) -> Self {
        ScStubborn {
            model,
            class: classify(model),
            ignoring,
            interference,
        }
    }
}

impl Mode for ScStubborn<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = super::sc::judge(self.model, &self.class, self.ignoring);
        j.push(stubborn::proviso(self.model));
        j
    }

    fn search(
        &self,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome {
        let steps = || Reduced::new(self.model, &self.class, self.ignoring);
        search(self.model, options, watch, progress, steps)
    }

    fn overlay(&self, graph: &StateGraph) -> Overlay {
        let steps = || Reduced::new(self.model, &self.class, self.ignoring);
        let mut exp = OverSteps::new(self.model, steps(), steps, self.interference);
        super::graph::walk(&mut exp, Reduction::ScStubborn, graph)
    }
}

/// `--reduction movers+stubborn`.
pub(super) struct MoversStubborn<'m> {
    model: &'m Model,
    txs: Transactions<'m>,
    ignoring: Ignoring,
    interference: Interference,
}

impl<'m> MoversStubborn<'m> {
    /// Stubborn sets over `model`'s mover transactions.
    pub(super) fn new(
        model: &'m Model,
        ignoring: Ignoring,
        interference: Interference,
        deadlocks: bool,
    ) -> Self {
        MoversStubborn {
            model,
            txs: Transactions::new(model, ignoring, deadlocks),
            ignoring,
            interference,
        }
    }
}

impl Mode for MoversStubborn<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = self.txs.judge();
        j.push(stubborn::proviso(self.model));
        j
    }

    fn search(
        &self,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome {
        let txs = || Movers::new(self.model, self.txs.plan(), self.ignoring);
        search(self.model, options, watch, progress, txs)
    }

    fn overlay(&self, graph: &StateGraph) -> Overlay {
        let txs = || Movers::new(self.model, self.txs.plan(), self.ignoring);
        let mut exp = OverSteps::new(self.model, txs(), txs, self.interference);
        super::graph::walk(&mut exp, Reduction::MoversStubborn, graph)
    }
}
