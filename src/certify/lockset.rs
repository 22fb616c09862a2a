//! A static lockset: the locks a thread holds at each of its control
//! points, on every path that reaches it.
//!
//! Locks change only through `acquire` (guard `m == free`, then `m := t`)
//! and `release` (guard `m == t`, then `m := free`), so a lock that thread t
//! holds stays held until t releases it. Hence "thread t at point a holds
//! every lock in `held(t, a)`" is an inductive invariant of the system, true
//! initially (every thread starts at its initial point, holding nothing).
//! The local level uses it to skip valuations no run can reach, such as
//! a thread in the middle of its critical section while another thread owns
//! the lock. A lock written in any other way is left out (a sound, weaker
//! invariant).

use std::collections::BTreeSet;

use crate::model::{CExpr, Cmd, FREE, Model, Place, SlotKind};
use crate::syntax::ast::BinOp;

/// `held[t][pc]`: the lock slots thread t holds at control point pc.
pub struct Lockset {
    held: Vec<Vec<Vec<u32>>>,
}

/// What a transition does to lock slots.
struct Effect {
    /// Acquired: from now on owned by the thread.
    acquires: Vec<u32>,
    /// Possibly released.
    releases: Vec<u32>,
}

/// The slots a place may denote.
fn place_slots(p: &Place) -> Vec<u32> {
    match p {
        Place::Slot { slot, .. } => vec![*slot],
        Place::Elem { array, index } => {
            if let CExpr::Const(i) = index
                && let Ok(slot) = array.slot(*i)
            {
                vec![slot]
            } else {
                array.slots().collect()
            }
        }
    }
}

/// Whether `e` reads the same lock element as place `p` denotes.
fn reads_place(e: &CExpr, p: &Place) -> bool {
    match (e, p) {
        (CExpr::Elem { array: a, index: i }, Place::Elem { array: b, index: j })
            if a.base == b.base && **i == *j =>
        {
            true
        }
        (CExpr::Var { slot, .. }, _) => place_slots(p) == [*slot],
        (CExpr::Elem { array, index }, _) => match **index {
            CExpr::Const(i) => array.slot(i).is_ok_and(|slot| place_slots(p) == [slot]),
            _ => false,
        },
        _ => false,
    }
}

/// Classifies transition k's writes to lock slots; `None` when it writes a
/// lock in a way other than `acquire`/`release`.
fn effect(model: &Model, k: usize) -> Option<Effect> {
    let tr = &model.transitions[k];
    let me = i64::from(tr.thread);
    let is_lock = |s: &u32| model.slots[*s as usize].kind == SlotKind::Lock;
    let mut writes_lock = false;
    for c in &tr.body {
        c.for_each_slot(&mut |_| {}, &mut |s| writes_lock |= is_lock(&s));
    }
    if !writes_lock {
        return Some(Effect {
            acquires: Vec::new(),
            releases: Vec::new(),
        });
    }
    let [Cmd::Assign(parts)] = tr.body.as_slice() else {
        return None;
    };
    let [(place, CExpr::Const(value))] = parts.as_slice() else {
        return None;
    };
    let Some(CExpr::Bin(BinOp::Eq, read, want)) = &tr.guard else {
        return None;
    };
    let CExpr::Const(want) = **want else {
        return None;
    };
    if !reads_place(read, place) {
        return None;
    }
    let slots = place_slots(place);
    match (want, *value) {
        // acquire: only from free, to the thread itself.
        (FREE, v) if v == me => Some(Effect {
            acquires: if slots.len() == 1 { slots } else { Vec::new() },
            releases: Vec::new(),
        }),
        // release: only by the owner.
        (w, FREE) if w == me => Some(Effect {
            acquires: Vec::new(),
            releases: slots,
        }),
        _ => None,
    }
}

impl Lockset {
    /// Computes the locksets of every thread of `model`.
    pub fn new(model: &Model) -> Lockset {
        let effects: Vec<Option<Effect>> = (0..model.transitions.len())
            .map(|k| effect(model, k))
            .collect();
        // Locks written in an unrecognised way are never claimed.
        let mut unstable = BTreeSet::new();
        for (k, e) in effects.iter().enumerate() {
            if e.is_none() {
                let mut ws = Vec::new();
                for c in &model.transitions[k].body {
                    c.for_each_slot(&mut |_| {}, &mut |s| ws.push(s));
                }
                unstable.extend(ws);
            }
        }
        let held = model
            .threads
            .iter()
            .map(|th| {
                // Must-analysis: None is "no path reaches this point yet".
                let mut held: Vec<Option<BTreeSet<u32>>> = vec![None; th.points.len()];
                held[0] = Some(BTreeSet::new());
                let mut changed = true;
                while changed {
                    changed = false;
                    for (pc, point) in th.points.iter().enumerate() {
                        let Some(now) = held[pc].clone() else {
                            continue;
                        };
                        for k in point.transitions.clone() {
                            let mut out = now.clone();
                            match &effects[k] {
                                Some(e) => {
                                    for s in &e.releases {
                                        out.remove(s);
                                    }
                                    out.extend(
                                        e.acquires.iter().filter(|s| !unstable.contains(*s)),
                                    );
                                }
                                None => out.clear(),
                            }
                            let tr = &model.transitions[k];
                            let targets = tr.next.targets();
                            for n in targets {
                                let n = n as usize;
                                let merged = match &held[n] {
                                    None => out.clone(),
                                    Some(old) => old.intersection(&out).copied().collect(),
                                };
                                // The initial point is also entered with nothing held.
                                let merged = if n == 0 { BTreeSet::new() } else { merged };
                                if held[n].as_ref() != Some(&merged) {
                                    held[n] = Some(merged);
                                    changed = true;
                                }
                            }
                        }
                    }
                }
                held.into_iter()
                    .map(|h| h.map_or_else(Vec::new, |h| h.into_iter().collect()))
                    .collect()
            })
            .collect();
        Lockset { held }
    }

    /// The locks thread `t` holds at point `pc`, in every reachable state.
    pub fn held(&self, t: usize, pc: i64) -> &[u32] {
        &self.held[t][pc as usize]
    }

    /// Whether `s` agrees with the locksets on `frame` (sorted): every lock
    /// in the frame that a thread whose program counter is in the frame
    /// holds is owned by it, and no lock is claimed by two threads. Locks
    /// outside the frame are set to their owner in `s`.
    pub fn consistent(&self, s: &mut [i64], frame: &[u32], threads: usize) -> bool {
        let mut claimed: Vec<(u32, i64)> = Vec::new();
        for t in 0..threads {
            if frame.binary_search(&(t as u32)).is_err() {
                continue;
            }
            for &m in self.held(t, s[t]) {
                if let Some(&(_, o)) = claimed.iter().find(|(l, _)| *l == m) {
                    if o != t as i64 {
                        return false;
                    }
                }
                claimed.push((m, t as i64));
                if frame.binary_search(&m).is_ok() {
                    if s[m as usize] != t as i64 {
                        return false;
                    }
                } else {
                    s[m as usize] = t as i64;
                }
            }
        }
        true
    }
}
