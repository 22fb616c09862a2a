//! Rendezvous, which every reduction refuses: a send on a channel of
//! capacity 0 and the receive it meets are one transition of the sender
//! that also moves the receiver (see [`crate::model::Channel`]). The
//! reductions' arguments (Stoller and Cohen's transactions, Lipton's
//! movers, Godefroid's stubborn sets, summaries) all take a transition to
//! change one thread's control point and locals; none covers a step of
//! two, so they refuse the model rather than answer without an argument.

use super::contract::{Condition, Explore, Finding, Judgement, Mode, Remedy, at_transitions};
use super::graph::{Overlay, StateGraph};
use super::outcome::{Inapplicable, Outcome, Stats};
use super::search::{Expand, Watch};
use super::visible::Visible;
use super::{Options, Reduction};
use crate::model::Model;

/// The condition every reduction adds to its contract.
pub(crate) const ONE_THREAD: Condition = Condition {
    name: "one thread per step",
    needs: "every transition moves one thread. A send or receive on a buffered channel does: it reads and writes the channel's slots, shared variables like any other (a receive that keeps the message, like a poll, only reads them). A rendezvous, a send on a channel of capacity 0 with the receive it meets, is one step of two threads",
    remedy: Remedy::Refuse,
    how: "refuses a model with a rendezvous; full exploration checks it",
};

/// [`ONE_THREAD`] judged on `model`: its joint transitions.
fn judge(model: &Model) -> Judgement {
    let joint = (0..model.transitions.len()).filter_map(|k| {
        let op = model.transitions[k].chan.as_deref()?;
        let partner = op.partner?;
        let message = format!(
            "`{}` is a rendezvous: one step of {} and {}",
            model.transitions[k].text,
            model.threads[model.transitions[k].thread as usize].name,
            model.threads[partner as usize].name
        );
        Some((k, message))
    });
    let findings: Vec<Finding> = at_transitions(model, joint);
    Judgement::of(ONE_THREAD, findings)
}

/// `base` on a model with a rendezvous: judged with [`ONE_THREAD`], which
/// refuses it, and so never searched; temporal properties are refused too.
pub(crate) struct Refusing<'m> {
    pub(crate) base: Box<dyn Mode + 'm>,
    pub(crate) model: &'m Model,
}

impl Refusing<'_> {
    fn refusal(&self) -> Option<Inapplicable> {
        super::contract::refusal(&[judge(self.model)])
    }
}

impl Mode for Refusing<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = vec![judge(self.model)];
        j.extend(self.base.judge());
        j
    }

    fn liveness(&self, _: &Visible) -> Option<Box<dyn Expand + Send + '_>> {
        None
    }

    fn liveness_refusal(&self, _: &Visible) -> Option<Inapplicable> {
        self.refusal()
    }
}

impl Explore for Refusing<'_> {
    fn search(
        &self,
        model: &Model,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
        graph: Option<&mut super::ltlgraph::Recorder>,
    ) -> Outcome {
        self.base.search(model, options, watch, progress, graph)
    }

    fn overlay(&self, model: &Model, graph: &StateGraph, reduction: Reduction) -> Overlay {
        self.base.overlay(model, graph, reduction)
    }
}
