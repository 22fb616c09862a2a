//! `--summaries`: the transactions of `sc` or `movers`, read off procedure
//! summaries (Qadeer, Rajamani and Rehof, "Summarizing procedures in
//! concurrent programs", 2004; [`super::summaries`]). The contract is the
//! transactions' own, and one more condition: threads share a procedure's
//! summaries only where their code, everything it calls included, is the
//! same up to their identity.

use super::Ignoring;
use super::contract::{self, Condition, Contract, Judgement, Mode, Preserved, Property, Remedy};
use super::expanding::Expanding;
use super::movers::{Plan, Txs};
use super::outcome::Outcome;
use super::sc::classify::{Classification, classify};
use super::summaries::{Stepper, Summaries, uniform};
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
pub(crate) enum Base {
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
    // Summaries stand in for whole transactions, with no graph for the
    // temporal properties to be checked on.
    c.ltl(Preserved::No);
    c.name.push_str(" --summaries");
    c.source =
        "Qadeer, Rajamani and Rehof, \"Summarizing procedures in concurrent programs\", 2004";
    if share {
        c.conditions.push(SHARED);
    }
    c
}

/// The transactions summaries are read off: Stoller and Cohen's reduced
/// steps under a classification, or the mover transactions of a plan.
trait Summarizable {
    /// The transactions, stepped.
    type Steps<'a>: Stepper + Send
    where
        Self: 'a;
    /// A fresh copy of the transactions of `model`.
    fn steps<'a>(&'a self, model: &'a Model) -> Self::Steps<'a>;
    /// The transactions' own side conditions, judged on `model`.
    fn judge(&self, model: &Model) -> Vec<Judgement>;
}

impl Summarizable for Classification {
    type Steps<'a> = super::reduced::Steps<'a>;
    fn steps<'a>(&'a self, model: &'a Model) -> Self::Steps<'a> {
        super::reduced::Steps::new(model, self)
    }
    fn judge(&self, model: &Model) -> Vec<Judgement> {
        super::sc::judge(model, self, Ignoring::Cpc)
    }
}

impl Summarizable for Plan {
    type Steps<'a> = Txs<'a>;
    fn steps<'a>(&'a self, model: &'a Model) -> Self::Steps<'a> {
        Txs::for_summaries(model, self)
    }
    fn judge(&self, model: &Model) -> Vec<Judgement> {
        Plan::judge(self, model, Ignoring::Cpc)
    }
}

/// `--summaries` with `--reduction sc` or `movers`: summaries of the
/// transactions `txs`.
struct Summarized<'m, T> {
    model: &'m Model,
    txs: T,
    share: bool,
}

/// `--summaries` on `model`'s transactions under `base`, shared by
/// interchangeable threads if `share`.
pub(super) fn mode<'m>(model: &'m Model, base: Base, share: bool) -> Box<dyn Mode + 'm> {
    match base {
        Base::Movers => Box::new(Summarized {
            model,
            txs: Plan::new(model).for_summaries(model),
            share,
        }),
        Base::Sc => Box::new(Summarized {
            model,
            txs: uniform(model, classify(model)),
            share,
        }),
    }
}

impl<T: Summarizable> Expanding for Summarized<'_, T> {
    type Expander<'a>
        = Summaries<'a, T::Steps<'a>>
    where
        Self: 'a;
    fn expander(&self) -> Self::Expander<'_> {
        Summaries::with(self.model, self.txs.steps(self.model), self.share)
    }
    /// Summaries are a cache shared by the whole run.
    fn alone(&self) -> bool {
        true
    }
    fn record<'a>(&'a self, outcome: &mut Outcome, expanders: &[Self::Expander<'a>]) {
        let stats = expanders[0].stats;
        outcome.stats.forced = stats.forced;
        outcome.ignoring = Some(Ignoring::Cpc);
        outcome.summaries = Some(stats);
    }
}

impl<T: Summarizable> Mode for Summarized<'_, T> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = self.txs.judge(self.model);
        if self.share {
            let model = self.model;
            let found = self.expander().unshared().into_iter().map(|(t, p)| {
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
}
