//! The reduction of Stoller and Cohen ("Optimistic synchronization-based
//! state-space reduction", 2003), in one place: the classification of
//! transitions into visible and invisible ([`classify`]), the reduced
//! steps ([`reduced`]), what a step does where its run can go on forever
//! ([`commit`]), and its contract ([`Sc`]).
//!
//! # The contract
//!
//! A reduced step of thread i is one visible transition followed by i's
//! invisible ones. The theorem (19) concludes for the original system
//! under hypotheses (11)-(18); the discipline's are checked at every
//! transition (a `discipline` or `well-formedness` violation, as in full
//! exploration), and the others hold by construction of the
//! classification, which adapts to what the paper's systems do not have:
//!
//! - a transition that reads another thread's control point, or moves its
//!   thread in or out of one that another thread or an invariant reads
//!   (`at`, `init`), is visible;
//! - a transition that writes what an invariant reads is visible, so
//!   invisible steps never change an invariant (`I u_i <= u_i I`);
//! - a run of invisible transitions that can go on forever is ended by the
//!   `--ignoring` policy.
//!
//! It preserves assertions, invariants, the discipline and deadlocks;
//! lock misuse warnings are found in the states it stores. Temporal
//! properties (LTL-X, under every fairness) are checked on the steps of a
//! second classification that also makes visible what may change an atom
//! or another thread's guard ([`classify::observing`]), where every run of
//! invisible transitions ends; the argument is in the book's "Temporal
//! properties under Stoller and Cohen's reduction".

pub(crate) mod classify;
pub(crate) mod commit;
pub(crate) mod reduced;

use std::sync::OnceLock;

use super::contract::{self, Condition, Contract, Judgement, Mode, Preserved, Remedy};
use super::expanding::Expanding;
use super::outcome::{Inapplicable, Outcome};
use super::search::Expand;
use super::stubborn::Steps;
use super::summarized::Base;
use super::visible::Visible;
use super::{Ignoring, Options};
use crate::certify::CertifyTheorem as Theorem;
use crate::model::Model;
use classify::{Classification, Reason};

/// Where the reduction comes from.
pub(crate) const SOURCE: &str =
    "Stoller and Cohen, \"Optimistic synchronization-based state-space reduction\", 2003";

/// Control points that other threads observe.
const OBSERVED: Condition = Condition {
    name: "observed control points",
    needs: "no invisible transition reads another thread's control point or moves its thread in or out of one that another thread or an invariant reads (`at`, `init`)",
    remedy: Remedy::Adapt,
    how: "such a transition is visible",
};

/// Invariants over what invisible transitions write.
const INVARIANTS: Condition = Condition {
    name: "invariants",
    needs: "invisible transitions never change what an invariant reads (I u_i <= u_i I)",
    remedy: Remedy::Adapt,
    how: "a transition that writes a protected or local variable an invariant reads is visible",
};

/// `--reduction sc`.
pub(crate) struct Sc<'m> {
    model: &'m Model,
    class: Classification,
    ignoring: Ignoring,
    /// The classification for the temporal properties checked, and why it
    /// is refused, if it is: made the first time it is asked for (a mode
    /// checks one set of properties).
    observing: OnceLock<(Classification, Option<Inapplicable>)>,
}

impl<'m> Sc<'m> {
    /// The reduction of `model`, classified.
    pub(crate) fn new(model: &'m Model, ignoring: Ignoring) -> Sc<'m> {
        Sc {
            model,
            class: classify::classify(model),
            ignoring,
            observing: OnceLock::new(),
        }
    }
}

/// The side conditions of a Stoller-Cohen classification, judged on
/// `model`: what it made visible, and its loops under `ignoring`.
pub(crate) fn judge(model: &Model, class: &Classification, ignoring: Ignoring) -> Vec<Judgement> {
    let by = |want: fn(&Reason) -> bool| {
        let found = (0..model.transitions.len())
            .filter(|&k| want(&class.transitions[k].reason))
            .map(|k| {
                let why = class.transitions[k].reason.describe(model);
                (
                    k,
                    format!("{} {why}: it is visible", contract::named(model, k)),
                )
            });
        contract::at_transitions(model, found)
    };
    let own = vec![
        Judgement::of(
            OBSERVED,
            by(|r| matches!(r, Reason::OtherControlPoint(_) | Reason::ObservedPoint(_))),
        ),
        Judgement::of(INVARIANTS, by(|r| matches!(r, Reason::Invariant(_)))),
    ];
    let loops = classify::invisible_loops(model, class);
    contract::transactions_judged(model, own, ignoring, &loops)
}

/// The contract of `--reduction sc`.
pub(crate) fn contract(ignoring: Ignoring) -> Contract {
    let mut c = contract::transactions("sc", SOURCE, &[OBSERVED, INVARIANTS], ignoring);
    c.ltl(Preserved::Yes);
    c
}

impl Mode for Sc<'_> {
    fn judge(&self) -> Vec<Judgement> {
        judge(self.model, &self.class, self.ignoring)
    }

    fn steps(&self) -> Option<Box<Steps<'_>>> {
        Some(Box::new(self.expander()))
    }

    /// The reduced steps of the classification that also makes visible
    /// what may change an atom or another thread's guard.
    fn liveness(&self, visible: &Visible) -> Option<Box<dyn Expand + Send + '_>> {
        let (class, refused) = self.observing(visible);
        let exp = reduced::Reduced::new(self.model, class, self.ignoring);
        refused
            .is_none()
            .then(|| Box::new(exp) as Box<dyn Expand + Send>)
    }

    /// Where the atoms make no transition visible that safety does not
    /// (the common case: they read shared variables and named points),
    /// the safety search's steps are the temporal graph's.
    fn searches_liveness_graph(&self, visible: &Visible) -> bool {
        let (class, refused) = self.observing(visible);
        refused.is_none() && class.same_steps(&self.class)
    }

    fn liveness_refusal(&self, visible: &Visible) -> Option<Inapplicable> {
        self.observing(visible).1.clone()
    }
}

impl Sc<'_> {
    /// The classification for temporal properties whose atoms observe
    /// `visible` ([`classify::observing`]), and why it is refused, if it is.
    fn observing(&self, visible: &Visible) -> &(Classification, Option<Inapplicable>) {
        self.observing.get_or_init(|| {
            let class = classify::observing(self.model, &visible.transitions(self.model));
            let refused = self.endless(&class);
            (class, refused)
        })
    }

    /// A run of invisible transitions under `class` that can go on for ever
    /// is refused: the argument that carries a run between the two systems
    /// needs every reduced step to end.
    fn endless(&self, class: &Classification) -> Option<Inapplicable> {
        let loops = classify::invisible_loops(self.model, class);
        let judged = contract::loops(self.model, self.ignoring, &loops);
        let first = judged.findings.first()?;
        Some(Inapplicable {
            condition: "ltl",
            message: format!(
                "`sc` checks temporal properties only where every run of invisible transitions ends: {}, and a step that never ends could hide a thread that waits for ever; use `--reduction none`",
                first.message
            ),
            place: first.place,
        })
    }
}

impl Expanding for Sc<'_> {
    type Expander<'a>
        = reduced::Reduced<'a>
    where
        Self: 'a;
    fn expander(&self) -> reduced::Reduced<'_> {
        reduced::Reduced::new(self.model, &self.class, self.ignoring)
    }
    fn record(&self, outcome: &mut Outcome, _: &[reduced::Reduced<'_>]) {
        outcome.ignoring = Some(self.ignoring);
    }
}

/// The layer of `--reduction sc`, with or without `--summaries`; its
/// theorem is (19).
pub(crate) struct ScLayer;

impl super::registry::Layer for ScLayer {
    fn contract(&self, options: &Options) -> Contract {
        contract(options.ignoring)
    }
    fn mode<'m>(&self, model: &'m Model, options: &Options) -> Box<dyn Mode + 'm> {
        Box::new(Sc::new(model, options.ignoring))
    }
    fn theorem(&self) -> Option<Theorem> {
        Some(Theorem::Sc)
    }
    fn summarized(&self) -> Option<Base> {
        Some(Base::Sc)
    }
}
