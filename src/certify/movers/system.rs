//! The instrumented system of the movers theorem: the model's states with
//! the violation flag q (as [`Sys`] fires them) and one phase bit per
//! thread, updated exactly as the mover search updates it
//! ([`Txs::step_phase`]), with the partition R(i), L(i), N(i).
//!
//! A step of thread i by transition k from `(s, q, ph)`:
//! - is enabled unless k's guard is false ([`Sys::succ`]);
//! - that completes goes to `(s', q', ph')` as [`Sys::succ`] gives `(s',
//!   q')`, with `ph'_i = right && (ph_i || at_init || !left)` (Flanagan
//!   and Qadeer's `p'`; `left` judged in s, `right` in s', both by the
//!   search's own functions under the search's [`Plan`]) and every other
//!   phase bit kept;
//! - that faults goes to `(s, true, ph')` with `ph'_i` false: a fault never
//!   completes, so it is no mover, and the search reports it where it
//!   happens.
//!
//! `r_i` holds when i's phase bit is set and i is neither at its initial
//! point nor ended; `p_i` when i is not in L(i), which is the search's own
//! judgement ([`Txs::in_left`]) with the phase bit clear.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use crate::certify::copies::Copies;
use crate::certify::system::{QState, Succ, Sys};
use crate::explore::movers::{Plan, Txs};

/// A state of the instrumented system.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MState {
    /// The model's state and q.
    pub st: QState,
    /// Each thread's phase bit: true in the pre-commit part of a
    /// transaction.
    pub ph: Vec<bool>,
}

impl MState {
    /// The state as a witness shows it: the phase bits follow the model's
    /// slots, as 0 or 1 (the report names them `phase(t)`).
    pub fn shown(&self) -> QState {
        let mut s = self.st.s.clone();
        s.extend(self.ph.iter().map(|&b| i64::from(b)));
        QState { s, q: self.st.q }
    }
}

/// The model, its certify system and the mover search's judgements.
pub struct MSys<'a> {
    /// The system with q.
    pub sys: &'a Sys<'a>,
    txs: Mutex<Txs<'a>>,
    /// Per thread and point: whether the thread can be in L there (not its
    /// initial point, not its end, and no transition there is fixed).
    lpoints: Vec<Vec<bool>>,
    /// Per thread and point: whether a step from there can enter R (some
    /// transition there is not fixed).
    rpoints: Vec<Vec<bool>>,
    /// Per transition: the slots that can influence how the mover search
    /// judges it (see [`MSys::frame_of`]).
    tr_frame: Vec<Vec<u32>>,
    /// Whether one copy of a procedure may stand for the copies alike it.
    one_copy: bool,
}

impl<'a> MSys<'a> {
    /// The instrumented system of `sys`, under `plan`.
    pub fn new(sys: &'a Sys<'a>, plan: &'a Plan) -> MSys<'a> {
        let model = sys.model;
        let fixed = |k: usize| plan.fixed[k].is_some();
        let mut lpoints = Vec::new();
        let mut rpoints = Vec::new();
        for (t, th) in model.threads.iter().enumerate() {
            let n = th.points.len();
            let mut l = vec![false; n];
            let mut r = vec![false; n];
            for pc in 0..n as i64 {
                let ks = sys.at(t, pc);
                if ks.is_empty() {
                    continue;
                }
                r[pc as usize] = ks.clone().any(|k| !fixed(k));
                l[pc as usize] = pc != 0 && pc != th.end() && ks.clone().all(|k| !fixed(k));
            }
            lpoints.push(l);
            rpoints.push(r);
        }
        let tr_frame = (0..model.transitions.len())
            .map(|k| {
                let mut f = sys.frame_of([k]);
                // Whether k changes an exclusive access predicate: every
                // thread's predicate of what it touches.
                for &p in &model.transitions[k].touches_excl {
                    for ps in &sys.pred_slots[p as usize] {
                        f.extend(ps);
                    }
                }
                f.into_iter().collect()
            })
            .collect();
        // Alike points of the copies (`Copies`) have transitions that read and
        // write alike slots, and the mover search judges them alike: no
        // predicate, invariant or other thread reads a copy's slots or its
        // thread's point. That the plan fixes alike transitions alike is
        // checked here rather than argued.
        let copies = &sys.copies;
        let one_copy = copies.every_copy.is_none()
            && model.threads.iter().enumerate().all(|(t, th)| {
                (0..th.points.len() as i64).all(|pc| {
                    let (a, b) = (sys.at(t, pc), sys.at(t, copies.rep(t, pc)));
                    a.len() == b.len() && a.zip(b).all(|(x, y)| fixed(x) == fixed(y))
                })
            });
        MSys {
            sys,
            one_copy,
            txs: Mutex::new(Txs::new(model, plan)),
            lpoints,
            rpoints,
            tr_frame,
        }
    }

    /// The classes of alike points of the procedures' copies, where one
    /// copy may stand for the others.
    pub fn copies(&self) -> Option<&Copies> {
        self.one_copy.then_some(&self.sys.copies)
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.sys.threads()
    }

    /// The transitions of thread `t` at point `pc`.
    pub fn at(&self, t: usize, pc: i64) -> std::ops::Range<usize> {
        self.sys.at(t, pc)
    }

    /// Whether thread `t` can be in L(t) at point `pc`.
    pub fn l_point(&self, t: usize, pc: i64) -> bool {
        self.lpoints[t].get(pc as usize).copied().unwrap_or(false)
    }

    /// Whether a step of thread `t` from point `pc` can enter R(t).
    pub fn r_point(&self, t: usize, pc: i64) -> bool {
        self.rpoints[t].get(pc as usize).copied().unwrap_or(false)
    }

    /// Whether `pc` is thread `t`'s initial point or its end.
    pub fn init_or_end(&self, t: usize, pc: i64) -> bool {
        pc == 0 || pc == self.sys.model.threads[t].end()
    }

    /// The initial state: q where it breaks a predicate, every phase clear.
    pub fn init(&self) -> MState {
        let model = self.sys.model;
        MState {
            st: QState {
                s: model.init.clone(),
                q: self.sys.bad(&model.init),
            },
            ph: vec![false; self.threads()],
        }
    }

    /// Thread `t`'s step by transition `k` from `m`; `None` when `k` is
    /// disabled there.
    pub fn step(&self, k: usize, m: &MState) -> Option<MState> {
        let t = self.sys.model.transitions[k].thread as usize;
        match self.sys.succ(k, &m.st) {
            Succ::Disabled => None,
            Succ::Next { to, completed } => {
                let next = completed && self.txs().step_phase(t, k, &m.st.s, &to.s, m.ph[t]).0;
                let mut ph = m.ph.clone();
                ph[t] = next;
                Some(MState { st: to, ph })
            }
        }
    }

    /// The search's judgement of steps (a scratch watch inside: one user
    /// at a time; the exhaustive level's workers share the system).
    fn txs(&self) -> MutexGuard<'_, Txs<'a>> {
        self.txs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `r_t`: thread t is in R(t), its pre-commit phase.
    pub fn r(&self, t: usize, m: &MState) -> bool {
        m.ph[t] && !self.init_or_end(t, m.st.s[t])
    }

    /// Whether thread t is in L(t), its post-commit phase: phase clear, not
    /// at its initial point nor ended, something enabled, and everything it
    /// can do a left mover (the search's judgement).
    pub fn in_l(&self, t: usize, m: &MState) -> bool {
        !m.ph[t] && self.txs().in_left(t, &m.st.s)
    }

    /// `p_t`: thread t is not in L(t).
    pub fn p(&self, t: usize, m: &MState) -> bool {
        !self.in_l(t, m)
    }

    /// The slots that can influence what transitions `ks` do and how the
    /// mover search judges them: what [`Sys::frame_of`] gives (what they
    /// read and write, the predicates the discipline evaluates, the
    /// predicates and invariants they may change), and every thread's
    /// predicate of the protected variables whose predicates they may
    /// change. The same slots decide whether their thread is in L at
    /// their point.
    pub fn frame_of(&self, ks: impl IntoIterator<Item = usize>) -> BTreeSet<u32> {
        ks.into_iter()
            .flat_map(|k| self.tr_frame[k].iter().copied())
            .collect()
    }

    /// The points of thread `t` that have transitions.
    pub fn points(&self, t: usize) -> Vec<i64> {
        self.sys.points(t).collect()
    }

    /// The loops of points where thread `t` can be in L: strongly
    /// connected components of its control-flow graph restricted to them,
    /// with at least one edge. An infinite run of steps from L(t) stays at
    /// such points and so goes round one of them.
    pub fn l_loops(&self, t: usize) -> Vec<Vec<i64>> {
        crate::certify::law::loops_among(self.sys, t, |pc| self.l_point(t, pc as i64))
    }
}
