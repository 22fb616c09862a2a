//! The system the theorem talks about: the model's transitions, split into
//! `u_i` and `v_i`, with the violation flag q of (26) as an extra state
//! component, and the predicates `p_i`.
//!
//! A transition of thread i fired from `(s, q)`:
//! - is *enabled* unless its guard evaluates to false (a guard that faults
//!   is enabled, and fires into a fault);
//! - that completes goes to `(s', q')`, with q' set when it accessed a
//!   protected variable x without `excl(i, x)` in s, or when s' breaks
//!   `disjoint(ex)` or an invariant (only what the transition can change is
//!   rechecked, exactly as the checker does);
//! - that faults (failed `assert`, value out of range, bad index, division
//!   by zero, overflow) goes to `(s, true)`: the fault is a violation the
//!   checker reports, so it is part of q, and the rest of the state stays.
//!
//! A state is *normalised* when `q` holds wherever s itself breaks
//! `disjoint(ex)` or an invariant. Every reachable state is, and firing a
//! transition keeps a state normalised.

use std::collections::BTreeSet;

use super::copies::Copies;
use super::lockset::Lockset;
use crate::classify::{Classification, classify, slots};
use crate::model::{Discipline, Fire, Model, NoAccess};

/// A state of the system with the violation flag.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QState {
    /// The model's state vector.
    pub s: Vec<i64>,
    /// The violation flag.
    pub q: bool,
}

/// The result of firing a transition.
pub enum Succ {
    /// The guard is false.
    Disabled,
    /// The transition fired.
    Next {
        /// The state after it.
        to: QState,
        /// Whether it completed (else it faulted and only set q).
        completed: bool,
    },
}

/// A model with its classification and what the obligations need to know
/// about it, computed once.
pub struct Sys<'m> {
    /// The model.
    pub model: &'m Model,
    /// Which control points the reduction stops at.
    pub class: Classification,
    /// Locks each thread holds at each control point.
    pub locks: Lockset,
    /// Which points of the procedures' copies the local level checks.
    pub copies: Copies,
    /// `pred_slots[p][t]`: the slots `excl(t, x_p)` reads.
    pub pred_slots: Vec<Vec<Vec<u32>>>,
    /// The slots each invariant reads.
    pub inv_slots: Vec<Vec<u32>>,
    /// Per transition: every slot that can influence what firing it does
    /// (the frame of the transition; see [`Sys::frame_of`]).
    tr_frame: Vec<Vec<u32>>,
    /// Per transition: the slots its guard reads.
    tr_guard: Vec<Vec<u32>>,
}

fn expr_slots(e: &crate::model::CExpr) -> Vec<u32> {
    let mut v = Vec::new();
    e.for_each_slot(&mut |s| v.push(s));
    v.sort_unstable();
    v.dedup();
    v
}

impl<'m> Sys<'m> {
    /// Prepares `model`.
    pub fn new(model: &'m Model) -> Sys<'m> {
        let class = classify(model);
        let pred_slots: Vec<Vec<Vec<u32>>> = model
            .protected
            .iter()
            .map(|p| p.excl.iter().map(expr_slots).collect())
            .collect();
        let inv_slots: Vec<Vec<u32>> = model
            .invariants
            .iter()
            .map(|i| expr_slots(&i.expr))
            .collect();
        let mut tr_frame = Vec::with_capacity(model.transitions.len());
        let mut tr_guard = Vec::with_capacity(model.transitions.len());
        for (k, tr) in model.transitions.iter().enumerate() {
            let (reads, writes) = slots(model, k);
            let mut f: BTreeSet<u32> = reads.iter().chain(&writes).copied().collect();
            let t = tr.thread as usize;
            for &x in reads.iter().chain(&writes) {
                if let Some(p) = model.protected_index[x as usize] {
                    // The discipline evaluates excl(t, x) before the transition.
                    f.extend(&pred_slots[p as usize][t]);
                }
            }
            for &p in &tr.recheck_overlap {
                for ps in &pred_slots[p as usize] {
                    f.extend(ps);
                }
            }
            for &i in &tr.recheck_invariants {
                f.extend(&inv_slots[i as usize]);
            }
            tr_frame.push(f.into_iter().collect());
            tr_guard.push(tr.guard.as_ref().map_or_else(Vec::new, expr_slots));
        }
        let locks = Lockset::new(model);
        let copies = Copies::new(model, &|t, pc| class.stops(t, pc), &|t, pc| {
            locks.held(t, pc).to_vec()
        });
        Sys {
            model,
            class,
            locks,
            copies,
            pred_slots,
            inv_slots,
            tr_frame,
            tr_guard,
        }
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.model.threads.len()
    }

    /// The transitions of thread `t` at control point `pc`.
    pub fn at(&self, t: usize, pc: i64) -> std::ops::Range<usize> {
        self.model.threads[t].points[pc as usize]
            .transitions
            .clone()
    }

    /// Whether the reduction stops at point `pc` of thread `t`: its
    /// transitions belong to `v_t` (else to `u_t`).
    pub fn stops(&self, t: usize, pc: i64) -> bool {
        self.class.stops(t, pc)
    }

    /// The points of thread `t` that have transitions.
    pub fn points(&self, t: usize) -> impl Iterator<Item = i64> + '_ {
        let th = &self.model.threads[t];
        (0..th.points.len() as i64)
            .filter(move |&pc| !th.points[pc as usize].transitions.is_empty())
    }

    /// The points of thread `t` whose transitions are invisible (`u_t`).
    pub fn invisible_points(&self, t: usize) -> impl Iterator<Item = i64> + '_ {
        self.points(t).filter(move |&pc| !self.stops(t, pc))
    }

    /// Whether transition `k` is enabled in `s`: its guard is not false.
    pub fn enabled(&self, k: usize, s: &[i64]) -> bool {
        match &self.model.transitions[k].guard {
            None => true,
            Some(g) => !matches!(g.holds(s, &mut NoAccess), Ok(false)),
        }
    }

    /// `p_t`: no transition of `u_t` is enabled in `s`.
    pub fn p(&self, t: usize, s: &[i64]) -> bool {
        let pc = s[t];
        self.stops(t, pc) || !self.at(t, pc).any(|k| self.enabled(k, s))
    }

    /// Fires transition `k` from `st`.
    pub fn succ(&self, k: usize, st: &QState) -> Succ {
        let model = self.model;
        let tr = &model.transitions[k];
        let mut acc = Discipline::new(model, &st.s, tr.thread as usize);
        let mut out = Vec::with_capacity(st.s.len());
        match model.fire(tr, &st.s, &mut out, &mut acc) {
            Fire::Disabled => Succ::Disabled,
            Fire::Fault(_) => Succ::Next {
                to: QState {
                    s: st.s.clone(),
                    q: true,
                },
                completed: false,
            },
            Fire::Done => {
                let q = st.q || acc.violation.is_some() || self.rechecks_bad(k, &out);
                Succ::Next {
                    to: QState { s: out, q },
                    completed: true,
                }
            }
        }
    }

    /// Whether what transition `k` can change breaks `disjoint(ex)` or an
    /// invariant in `s`.
    fn rechecks_bad(&self, k: usize, s: &[i64]) -> bool {
        let tr = &self.model.transitions[k];
        !matches!(
            self.model
                .overlap_among(s, tr.recheck_overlap.iter().map(|&p| p as usize)),
            Ok(None)
        ) || tr.recheck_invariants.iter().any(|&i| {
            !matches!(
                self.model.invariants[i as usize]
                    .expr
                    .holds(s, &mut NoAccess),
                Ok(true)
            )
        })
    }

    /// Whether `s` breaks `disjoint(ex)` or an invariant.
    pub fn bad(&self, s: &[i64]) -> bool {
        !matches!(self.model.overlap(s), Ok(None))
            || self
                .model
                .invariants
                .iter()
                .any(|i| !matches!(i.expr.holds(s, &mut NoAccess), Ok(true)))
    }

    /// Whether `s` breaks `disjoint(ex)` for a variable whose predicates
    /// read only slots in `within`, or such an invariant: then every state
    /// that agrees with `s` on `within` does.
    pub fn bad_within(&self, s: &[i64], within: &[u32]) -> bool {
        let inside = |slots: &[u32]| slots.iter().all(|x| within.binary_search(x).is_ok());
        let ps = (0..self.model.protected.len())
            .filter(|&p| self.pred_slots[p].iter().all(|v| inside(v)));
        !matches!(self.model.overlap_among(s, ps), Ok(None))
            || self.model.invariants.iter().enumerate().any(|(i, inv)| {
                inside(&self.inv_slots[i]) && !matches!(inv.expr.holds(s, &mut NoAccess), Ok(true))
            })
    }

    /// The slots that can influence what the transitions `ks` do when
    /// fired: what they read and write, the predicates the discipline
    /// evaluates for the protected variables among them, and the predicates
    /// and invariants they may change.
    pub fn frame_of(&self, ks: impl IntoIterator<Item = usize>) -> BTreeSet<u32> {
        ks.into_iter()
            .flat_map(|k| self.tr_frame[k].iter().copied())
            .collect()
    }

    /// The slots the guards of transitions `ks` read.
    pub fn guards_of(&self, ks: impl IntoIterator<Item = usize>) -> BTreeSet<u32> {
        ks.into_iter()
            .flat_map(|k| self.tr_guard[k].iter().copied())
            .collect()
    }

    /// The control points transition `k` may lead to.
    pub fn targets(&self, k: usize) -> Vec<i64> {
        self.model.transitions[k].next.targets()
    }
}
