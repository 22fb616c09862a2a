//! What the two levels need to know of a reduction theorem: its laws, the
//! states of the system it speaks of, the instances of its laws and their
//! frames. The local level ([`super::local`]), the exhaustive level
//! ([`super::exhaustive`]) and the summary of their outcomes (in
//! [`super`]) are written once against [`Theorem`]; Stoller and Cohen's
//! (19) ([`Sys`]) and Flanagan and Qadeer's (M) (`MSys`) are its two
//! instances, so that a fix to either level reaches both theorems.

use std::hash::Hash;

use super::copies::Copies;
use super::cycle::witness;
use super::frame::Frame;
use super::law::{Failure, Inst, Obligation, instances, instances_at, invisible_loops};
use super::system::{QState, Succ, Sys};
use super::{LawResult, structural, vacuous};

/// A theorem's laws, and where each is checked.
pub(crate) trait Laws: Copy + Eq + Send + Sync + 'static {
    /// Every law, in report order.
    const EVERY: &'static [Self];
    /// The laws checked at the initial state only.
    const INIT: &'static [Self];
    /// The laws checked on loops (a cycle in a graph of states).
    const LOOPS: &'static [Self];
    /// The obligation as reports and certificates name it.
    fn obligation(self) -> Obligation;
    /// What it means that the law has no instances.
    fn vacuous(self) -> &'static str;
}

impl Laws for Obligation {
    const EVERY: &'static [Obligation] = &Obligation::ALL;
    const INIT: &'static [Obligation] = &[Obligation::InitVis, Obligation::InitExcl];
    const LOOPS: &'static [Obligation] = &[Obligation::H11, Obligation::FiniteInvis];
    fn obligation(self) -> Obligation {
        self
    }
    fn vacuous(self) -> &'static str {
        vacuous(self)
    }
}

/// A reduction theorem whose hypotheses certify checks (its exhaustive
/// level is searched by the core of every check, whose workers share it).
pub(crate) trait Theorem: Sync {
    /// A law (hypothesis or well-formedness condition).
    type Law: Laws;
    /// A state of the system the theorem speaks of.
    type State: Clone + Default;
    /// An instance of a law.
    type Inst: Clone + Eq + Hash + Send + Sync + Instance<Self>;
    /// The frame of an instance at the local level.
    type Frame;

    /// The system with q underneath.
    fn sys(&self) -> &Sys<'_>;
    /// The outcome of a law checked structurally, the same at every level.
    fn structural(&self, _law: Self::Law) -> Option<LawResult> {
        None
    }
    /// Where one copy of a procedure may stand for the copies alike it.
    fn one_copy(&self) -> Option<&Copies>;
    /// Why every copy is checked although one copy was asked for.
    fn every_copy(&self) -> Option<&'static str>;
    /// Phase bits per state (besides the model's state and q).
    fn phases(&self) -> usize;

    /// The initial state.
    fn init(&self) -> Self::State;
    /// The step by transition `k` from `st`; `None` when `k` is disabled.
    fn step(&self, k: usize, st: &Self::State) -> Option<Self::State>;
    /// The model's state and q.
    fn qstate(st: &Self::State) -> &QState;
    /// The phase bits.
    fn phase_bits(st: &Self::State) -> &[bool];
    /// A state from the model's state, q and the phase bits.
    fn assemble(st: QState, ph: Vec<bool>) -> Self::State;
    /// The state as a witness shows it.
    fn shown(st: &Self::State) -> QState;
    /// A state of a witness, back in the theorem's system (for tests).
    #[cfg(test)]
    fn unshown(&self, st: &QState) -> Self::State;

    /// The law `inst` is an instance of.
    fn law(inst: &Self::Inst) -> Self::Law {
        inst.law()
    }
    /// Every instance, in report order (see [`super::law::instances`]).
    fn instances(&self, copies: Option<&Copies>, visit: &mut dyn FnMut(Option<Self::Inst>) -> bool);
    /// The instances that apply at a reachable state, but the initial
    /// state's and the loops.
    fn instances_at(&self, st: &Self::State, out: &mut Vec<Self::Inst>);
    /// The instances checked at the initial state.
    fn init_instances(&self) -> Vec<Self::Inst>;
    /// The instances of loop law `law` for thread `i`.
    fn loop_instances(&self, law: Self::Law, i: usize) -> Vec<Self::Inst>;
    /// Whether `inst` is checked on loops.
    fn is_loop(inst: &Self::Inst) -> bool {
        inst.is_loop()
    }
    /// Checks `inst` at `st`.
    fn check(&self, inst: &Self::Inst, st: &Self::State) -> Option<Failure> {
        inst.check(self, st)
    }
    /// The loop edges of `inst` out of `st`.
    fn loop_edges(&self, inst: &Self::Inst, st: &Self::State) -> Vec<(usize, Self::State)> {
        inst.loop_edges(self, st)
    }
    /// The failure of loop `inst` for a cycle of `transitions` from `start`.
    fn lasso(&self, inst: &Self::Inst, start: Self::State, transitions: &[usize]) -> Failure;

    /// The frame of `inst` (`None` at the initial state).
    fn frame(&self, inst: &Self::Inst) -> Option<Self::Frame> {
        inst.frame(self)
    }
    /// Narrows the return point values of `frame` ([`Copies::narrow`]).
    fn narrow(&self, copies: &Copies, inst: &Self::Inst, frame: &mut Self::Frame);
    /// Valuations of the frame (saturating).
    fn size(frame: &Self::Frame) -> u128;
    /// Words of a projection onto the frame.
    fn width(frame: &Self::Frame) -> usize;
    /// The state of valuation `index`.
    fn valuation(&self, frame: &Self::Frame, index: u64) -> Self::State {
        let mut st = Self::State::default();
        self.valuation_into(frame, index, &mut st);
        st
    }
    /// [`Theorem::valuation`] written into `st`.
    fn valuation_into(&self, frame: &Self::Frame, index: u64, st: &mut Self::State);
    /// The index of the valuation `st` projects to, if in the frame.
    fn index(frame: &Self::Frame, st: &Self::State) -> Option<u64>;
    /// Whether the instance of the frame applies at `st`.
    fn covers(frame: &Self::Frame, st: &Self::State) -> bool;
    /// The projection of `st` onto the frame, as a key.
    fn project(frame: &Self::Frame, st: &Self::State) -> Vec<i64> {
        let mut key = Vec::new();
        Self::project_into(frame, st, &mut key);
        key
    }
    /// [`Theorem::project`] written into `key`.
    fn project_into(frame: &Self::Frame, st: &Self::State, key: &mut Vec<i64>);
    /// Whether valuation `st` stands for a state that may occur (the
    /// locksets and normalisation; reachability is checked by the caller).
    fn admits(&self, frame: &Self::Frame, st: &mut Self::State) -> bool;
}

/// An instance of a law of theorem `T`, which knows how it is checked: the
/// theorem's own methods for instances read it from here, the same way
/// for both theorems.
pub(crate) trait Instance<T: Theorem + ?Sized> {
    /// The law it is an instance of.
    fn law(&self) -> T::Law;
    /// Whether it is checked on loops.
    fn is_loop(&self) -> bool;
    /// Checks it at `st`.
    fn check(&self, theorem: &T, st: &T::State) -> Option<Failure>;
    /// Its loop edges out of `st`.
    fn loop_edges(&self, theorem: &T, st: &T::State) -> Vec<(usize, T::State)>;
    /// Its frame at the local level (`None` at the initial state).
    fn frame(&self, theorem: &T) -> Option<T::Frame>;
}

/// Stoller and Cohen's reduction theorem (19) on the system with q.
impl Theorem for Sys<'_> {
    type Law = Obligation;
    type State = QState;
    type Inst = Inst;
    type Frame = Frame;

    fn structural(&self, law: Obligation) -> Option<LawResult> {
        matches!(law, Obligation::Sep | Obligation::Acc).then(|| structural(self, law))
    }
    fn sys(&self) -> &Sys<'_> {
        self
    }
    fn one_copy(&self) -> Option<&Copies> {
        Some(&self.copies)
    }
    fn every_copy(&self) -> Option<&'static str> {
        self.copies.every_copy
    }
    fn phases(&self) -> usize {
        0
    }

    fn init(&self) -> QState {
        QState {
            s: self.model.init.clone(),
            q: self.bad(&self.model.init),
        }
    }
    fn step(&self, k: usize, st: &QState) -> Option<QState> {
        match self.succ(k, st) {
            Succ::Next { to, .. } => Some(to),
            Succ::Disabled => None,
        }
    }
    fn qstate(st: &QState) -> &QState {
        st
    }
    fn phase_bits(_: &QState) -> &[bool] {
        &[]
    }
    fn assemble(st: QState, _: Vec<bool>) -> QState {
        st
    }
    fn shown(st: &QState) -> QState {
        st.clone()
    }
    #[cfg(test)]
    fn unshown(&self, st: &QState) -> QState {
        st.clone()
    }

    fn instances(&self, copies: Option<&Copies>, visit: &mut dyn FnMut(Option<Inst>) -> bool) {
        instances(self, copies, visit);
    }
    fn instances_at(&self, st: &QState, out: &mut Vec<Inst>) {
        instances_at(self, st, out);
    }
    fn init_instances(&self) -> Vec<Inst> {
        Obligation::INIT.iter().map(|&l| Inst::Init(l)).collect()
    }
    fn loop_instances(&self, law: Obligation, i: usize) -> Vec<Inst> {
        invisible_loops(self, i)
            .into_iter()
            .map(|points| Inst::Loop { law, i, points })
            .collect()
    }
    fn lasso(&self, inst: &Inst, start: QState, transitions: &[usize]) -> Failure {
        witness(self, inst, start, transitions)
    }

    fn narrow(&self, copies: &Copies, inst: &Inst, frame: &mut Frame) {
        copies.narrow(self, inst, frame);
    }
    fn size(frame: &Frame) -> u128 {
        frame.size()
    }
    fn width(frame: &Frame) -> usize {
        frame.slots.len()
    }
    fn valuation_into(&self, frame: &Frame, index: u64, st: &mut QState) {
        frame.state_into(&self.model.init, index, st);
    }
    fn index(frame: &Frame, st: &QState) -> Option<u64> {
        frame.index(st)
    }
    fn covers(frame: &Frame, st: &QState) -> bool {
        frame.index(st).is_some()
    }
    fn project_into(frame: &Frame, st: &QState, key: &mut Vec<i64>) {
        frame.project_into(st, key);
    }
    fn admits(&self, frame: &Frame, st: &mut QState) -> bool {
        frame.admits(self, st)
    }
}
