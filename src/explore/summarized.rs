//! `--summaries`: the transactions of `sc` or `movers`, read off procedure
//! summaries (Qadeer, Rajamani and Rehof, "Summarizing procedures in
//! concurrent programs", 2004; [`super::summaries`]). The contract is the
//! transactions' own, and one more condition: threads share a procedure's
//! summaries only where their code, everything it calls included, is the
//! same up to their identity.

use super::contract::{self, Condition, Contract, Judgement, Mode, Preserved, Property, Remedy};
use super::graph::{Overlay, StateGraph};
use super::movers::{Plan, Txs};
use super::outcome::{Outcome, Stats};
use super::sc::classify::{Classification, classify};
use super::search::Watch;
use super::summaries::{Stepper, Summaries, uniform};
use super::{Ignoring, Options, Reduction};
use crate::model::Model;

/// Summaries shared by threads.
const SHARED: Condition = Condition {
    name: "shared summaries",
    needs: "threads share a procedure's summaries only where its code and everything it calls (calls, returns, parameters, locals and their initial values) is the same up to the two threads' identities, so that `self`, `index` and thread names never reach a value",
    remedy: Remedy::Adapt,
    how: "a thread whose code differs keeps its own summaries; a violation found through another thread's summary is found again in the thread's own terms and its trace replayed before it is reported",
};

/// The transactions summarized: which base layer's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Base {
    /// Stoller and Cohen's reduced steps.
    Sc,
    /// Mover transactions.
    Movers,
}

/// The contract of `--summaries` over `base`'s transactions, shared by
/// interchangeable threads if `share`.
pub(super) fn contract(base: Base, share: bool) -> Contract {
    let mut c = match base {
        Base::Movers => super::movers::contract(Ignoring::Cpc),
        Base::Sc => super::sc::contract(Ignoring::Cpc),
    };
    if base == Base::Movers {
        // A summary keeps a mover transaction whole, past statements that
        // may block (see `super::movers`): a deadlock inside one is missed.
        for (p, how) in &mut c.preserves {
            if *p == Property::Deadlocks {
                *how = Preserved::Stored;
            }
        }
    }
    c.name.push_str(" --summaries");
    c.source =
        "Qadeer, Rajamani and Rehof, \"Summarizing procedures in concurrent programs\", 2004";
    if share {
        c.conditions.push(SHARED);
    }
    c
}

/// The transactions summarized.
enum Inner {
    Sc(Classification),
    Movers(Plan),
}

/// `--summaries` with `--reduction sc` or `movers`.
pub(super) struct Summarized<'m> {
    model: &'m Model,
    inner: Inner,
    share: bool,
}

impl<'m> Summarized<'m> {
    /// Summaries of `model`'s transactions under `base`, shared by
    /// interchangeable threads if `share`.
    pub(super) fn new(model: &'m Model, base: Base, share: bool) -> Self {
        let inner = match base {
            Base::Movers => Inner::Movers(Plan::new(model).for_summaries(model)),
            Base::Sc => Inner::Sc(uniform(model, classify(model))),
        };
        Summarized {
            model,
            inner,
            share,
        }
    }

    /// Runs `f` on the expander.
    fn with<T>(&self, f: impl FnOnce(&mut dyn Summarizing) -> T) -> T {
        match &self.inner {
            Inner::Sc(class) => f(&mut Summaries::new(self.model, class, self.share)),
            Inner::Movers(plan) => {
                let txs = Txs::for_summaries(self.model, plan);
                f(&mut Summaries::with(self.model, txs, self.share))
            }
        }
    }
}

/// What the mode needs of a summaries expander, whatever its transactions.
trait Summarizing {
    fn unshared(&self) -> Vec<(usize, usize)>;
    fn search(
        &mut self,
        model: &Model,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome;
    fn overlay(&mut self, graph: &StateGraph, reduction: Reduction) -> Overlay;
}

impl<X: Stepper + Send> Summarizing for Summaries<'_, X> {
    fn unshared(&self) -> Vec<(usize, usize)> {
        Summaries::unshared(self)
    }

    /// A search read off summaries runs on one worker: summaries are a
    /// cache shared by the whole run, and what it computes and reuses
    /// depends on the order of work.
    fn search(
        &mut self,
        model: &Model,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome {
        let mut o = super::search_with(model, options, watch, progress, std::slice::from_mut(self));
        o.stats.forced = self.stats.forced;
        o.ignoring = Some(Ignoring::Cpc);
        o.summaries = Some(self.stats);
        o
    }

    fn overlay(&mut self, graph: &StateGraph, reduction: Reduction) -> Overlay {
        super::graph::walk(self, reduction, graph)
    }
}

impl Mode for Summarized<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = match &self.inner {
            Inner::Sc(class) => super::sc::judge(self.model, class, Ignoring::Cpc),
            Inner::Movers(plan) => plan.judge(self.model, Ignoring::Cpc),
        };
        if self.share {
            let model = self.model;
            let found = self.with(|e| e.unshared()).into_iter().map(|(t, p)| {
                let proc = &model.procs[p];
                contract::Finding {
                    message: format!(
                        "{} keeps its own summaries of {}: its code there is not an earlier thread's up to their identities",
                        model.threads[t].name, proc.name
                    ),
                    place: Some((proc.span, proc.line)),
                }
            });
            j.push(Judgement::of(
                SHARED,
                found.take(contract::FINDINGS).collect(),
            ));
        }
        j
    }

    fn search(
        &self,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
    ) -> Outcome {
        self.with(|e| e.search(self.model, options, watch, progress))
    }

    fn overlay(&self, graph: &StateGraph, reduction: Reduction) -> Overlay {
        self.with(|e| e.overlay(graph, reduction))
    }
}
