//! Features of a model that every reduction refuses, because none of
//! their arguments (Stoller and Cohen's transactions, Lipton's movers,
//! Godefroid's stubborn sets, summaries) covers them; full exploration
//! checks such a model.
//!
//! - A rendezvous: a send on a channel of capacity 0 and the receive it
//!   meets are one transition of the sender that also moves the receiver
//!   (see [`crate::model::Channel`]). The arguments take a transition to
//!   change one thread's control point and locals.
//! - `timeout`: a guard true exactly where no other transition of any
//!   thread is enabled. The arguments take whether a transition is enabled
//!   to depend on its own thread and the variables it reads; a step that a
//!   reduction leaves out or moves changes where `timeout` holds.
//!
//! Each is a [`Condition`] that every reduction lists before its own, and
//! [`Refusing`] wraps a reduction's mode on a model that breaks one.

use super::contract::{
    Condition, Explore, Finding, Judgement, Mode, Remedy, Status, at_transitions,
};
use super::graph::{Overlay, StateGraph};
use super::outcome::{Inapplicable, Outcome, Stats};
use super::search::{Expand, Watch};
use super::visible::Visible;
use super::{Options, Reduction};
use crate::model::Model;

/// A rendezvous is one step of two threads.
const ONE_THREAD: Condition = Condition {
    name: "one thread per step",
    needs: "every transition moves one thread. A send or receive on a buffered channel does: it reads and writes the channel's slots, shared variables like any other (a receive that keeps the message, like a poll, only reads them). A rendezvous, a send on a channel of capacity 0 with the receive it meets, is one step of two threads",
    remedy: Remedy::Refuse,
    how: "refuses a model with a rendezvous; full exploration checks it",
};

/// `timeout` is a guard on every thread's state.
const NO_GLOBAL_GUARD: Condition = Condition {
    name: "no global guard",
    needs: "whether a transition is enabled depends on the variables its guard reads, not on what other threads can do. `timeout` holds exactly where no other transition of any thread is enabled: a step that a reduction leaves out or moves changes where it holds",
    remedy: Remedy::Refuse,
    how: "refuses a model that waits for `timeout`; full exploration checks it",
};

/// The conditions every reduction lists first.
pub(crate) const CONDITIONS: [Condition; 2] = [ONE_THREAD, NO_GLOBAL_GUARD];

/// [`ONE_THREAD`] judged on `model`: its joint transitions.
fn rendezvous(model: &Model) -> Judgement {
    let joint = (0..model.transitions.len()).filter_map(|k| {
        let tr = &model.transitions[k];
        let partner = tr.chan.as_deref()?.partner?;
        let message = format!(
            "`{}` is a rendezvous: one step of {} and {}",
            tr.text, model.threads[tr.thread as usize].name, model.threads[partner as usize].name
        );
        Some((k, message))
    });
    let findings: Vec<Finding> = at_transitions(model, joint);
    Judgement::of(ONE_THREAD, findings)
}

/// [`NO_GLOBAL_GUARD`] judged on `model`: the transitions that wait for
/// `timeout`.
fn timeout(model: &Model) -> Judgement {
    let waits = (0..model.transitions.len())
        .filter(|&k| model.transitions[k].timeout)
        .map(|k| {
            let message = format!(
                "{} waits for `timeout`: it can move only where no other transition can",
                super::contract::named(model, k)
            );
            (k, message)
        });
    Judgement::of(NO_GLOBAL_GUARD, at_transitions(model, waits))
}

/// The [`CONDITIONS`] that refuse `model`, judged: empty where every
/// reduction may run on it.
pub(crate) fn refusals(model: &Model) -> Vec<Judgement> {
    [rendezvous(model), timeout(model)]
        .into_iter()
        .filter(|j| j.status == Status::Refused)
        .collect()
}

/// Why every reduction refuses `model`, if one of [`CONDITIONS`] does.
pub fn refusal(model: &Model) -> Option<Inapplicable> {
    super::contract::refusal(&refusals(model))
}

/// `base` on a model that [`refusals`] refuses: judged with those
/// judgements first, and so never searched; temporal properties are
/// refused too.
pub(crate) struct Refusing<'m> {
    pub(crate) base: Box<dyn Mode + 'm>,
    /// What refuses the model: never empty.
    pub(crate) refusals: Vec<Judgement>,
}

impl Mode for Refusing<'_> {
    fn judge(&self) -> Vec<Judgement> {
        let mut j = self.refusals.clone();
        j.extend(self.base.judge());
        j
    }

    fn liveness(&self, _: &Visible) -> Option<Box<dyn Expand + Send + '_>> {
        None
    }

    fn liveness_refusal(&self, _: &Visible) -> Option<Inapplicable> {
        super::contract::refusal(&self.refusals)
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
        quotient: Option<&crate::symmetry::Symmetry>,
    ) -> Outcome {
        self.base
            .search(model, options, watch, progress, graph, quotient)
    }

    fn overlay(&self, model: &Model, graph: &StateGraph, reduction: Reduction) -> Overlay {
        self.base.overlay(model, graph, reduction)
    }
}
