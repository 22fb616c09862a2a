//! The movers theorem (M) as a [`Theorem`]: the instrumented system, its
//! laws, instances and frames, for the two levels that certify shares
//! with Stoller and Cohen's theorem.

use super::frame::MFrame;
use super::law::{MInst, MoverLaw, instances, instances_at};
use super::system::{MState, MSys};
use crate::certify::copies::Copies;
use crate::certify::law::{Failure, Obligation};
use crate::certify::system::{QState, Sys};
use crate::certify::theorem::{Laws, Theorem};

impl Laws for MoverLaw {
    const EVERY: &'static [MoverLaw] = &MoverLaw::ALL;
    const INIT: &'static [MoverLaw] = &[MoverLaw::InitN];
    const LOOPS: &'static [MoverLaw] = &[MoverLaw::H11];
    fn obligation(self) -> Obligation {
        Obligation::Movers(self)
    }
    fn vacuous(self) -> &'static str {
        MoverLaw::vacuous(self)
    }
}

impl Theorem for MSys<'_> {
    type Law = MoverLaw;
    type State = MState;
    type Inst = MInst;
    type Frame = MFrame;

    fn sys(&self) -> &Sys<'_> {
        self.sys
    }
    fn one_copy(&self) -> Option<&Copies> {
        self.copies()
    }
    fn every_copy(&self) -> Option<&'static str> {
        self.copies().is_none().then(|| {
            self.sys
                .copies
                .every_copy
                .unwrap_or("the mover search judges alike transitions of two copies differently")
        })
    }
    fn phases(&self) -> usize {
        self.threads()
    }

    fn init(&self) -> MState {
        MSys::init(self)
    }
    fn step(&self, k: usize, m: &MState) -> Option<MState> {
        MSys::step(self, k, m)
    }
    fn qstate(m: &MState) -> &QState {
        &m.st
    }
    fn phase_bits(m: &MState) -> &[bool] {
        &m.ph
    }
    fn assemble(st: QState, ph: Vec<bool>) -> MState {
        MState { st, ph }
    }
    fn shown(m: &MState) -> QState {
        m.shown()
    }
    #[cfg(test)]
    fn unshown(&self, st: &QState) -> MState {
        super::law::unshown(self, st)
    }

    fn instances(&self, copies: Option<&Copies>, visit: &mut dyn FnMut(Option<MInst>) -> bool) {
        instances(self, copies, visit);
    }
    fn instances_at(&self, m: &MState, out: &mut Vec<MInst>) {
        instances_at(self, m, out);
    }
    fn init_instances(&self) -> Vec<MInst> {
        vec![MInst::Init]
    }
    fn loop_instances(&self, _law: MoverLaw, i: usize) -> Vec<MInst> {
        self.l_loops(i)
            .into_iter()
            .map(|points| MInst::Loop { i, points })
            .collect()
    }
    /// The cycle is replayed from `start`, so that every state shown is
    /// exact.
    fn lasso(&self, inst: &MInst, start: MState, transitions: &[usize]) -> Failure {
        let mut cur = start.clone();
        let mut steps = Vec::new();
        for &k in transitions {
            if let Some(to) = self.step(k, &cur) {
                cur = to;
            }
            steps.push((k, cur.clone()));
        }
        inst.loop_failure(self, &start, &steps)
    }

    fn narrow(&self, copies: &Copies, inst: &MInst, frame: &mut MFrame) {
        inst.narrow(self, copies, frame);
    }
    fn size(frame: &MFrame) -> u128 {
        frame.size()
    }
    fn width(frame: &MFrame) -> usize {
        frame.frame.slots.len() + frame.phases.len()
    }
    fn valuation_into(&self, frame: &MFrame, index: u64, m: &mut MState) {
        frame.state_into(self, index, m);
    }
    fn index(frame: &MFrame, m: &MState) -> Option<u64> {
        frame.index(m)
    }
    fn covers(frame: &MFrame, m: &MState) -> bool {
        frame.covers(m)
    }
    fn project_into(frame: &MFrame, m: &MState, key: &mut Vec<i64>) {
        frame.project_into(m, key);
    }
    fn admits(&self, frame: &MFrame, m: &mut MState) -> bool {
        frame.admits(self, m)
    }
}
