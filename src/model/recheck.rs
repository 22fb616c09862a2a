//! Which disjointness and invariant checks each transition needs.
//!
//! A predicate can change only if the transition writes a slot it reads (the
//! thread's program counter included), and a predicate of the form `X == t`,
//! with the same variable X for every thread t, can hold for one thread at
//! most and cannot fault, so it is never checked. Stored states are all
//! checked, so the checks skipped here would find nothing.
//!
//! Every other predicate is re-evaluated after every transition that may
//! change it, so a predicate that faults (`a[y] == t` once y is out of
//! range) is met in the first state where it does, in every mode: the fault
//! is a `range` violation there, never a silent "no change".
//!
//! The lists are built from an index, slot -> the predicates and
//! invariants that read it, so the work is proportional to what each
//! transition writes and to the lists themselves, not to the number of
//! transitions times the number of protected variables (65,536 for one
//! protected array).

use super::expr::CExpr;
use super::{Invariant, Protected, Slot, SlotKind, Transition};
use crate::syntax::ast::BinOp;

/// Fills `recheck_overlap`, `recheck_invariants` and `touches_excl` of
/// every transition.
pub(super) fn recheck_lists(
    transitions: &mut [Transition],
    protected: &[Protected],
    invariants: &[Invariant],
    slots: &[Slot],
) {
    let owners: Vec<Option<&CExpr>> = protected.iter().map(common_owner).collect();
    let never_overlap = |p: usize| matches!(owners[p], Some(CExpr::Var { .. }));
    // `m == t` for a lock m: only m's owner releases it and only a free lock
    // is acquired, so no other thread can falsify it (WFendExcl by construction).
    let lock_owned = |p: usize| matches!(owners[p], Some(CExpr::Var { slot, .. }) if slots[*slot as usize].kind == SlotKind::Lock);
    let mut excl_readers = vec![Vec::new(); slots.len()];
    for (p, prot) in protected.iter().enumerate() {
        if lock_owned(p) {
            continue;
        }
        for pred in &prot.excl {
            pred.for_each_slot(&mut |s| push_new(&mut excl_readers[s as usize], p as u32));
        }
    }
    let mut inv_readers = vec![Vec::new(); slots.len()];
    for (k, inv) in invariants.iter().enumerate() {
        inv.expr
            .for_each_slot(&mut |s| push_new(&mut inv_readers[s as usize], k as u32));
    }
    let mut writes = Vec::new();
    for tr in transitions {
        writes.clear();
        writes.push(tr.thread);
        for c in &tr.body {
            c.for_each_slot(&mut |_| {}, &mut |k| writes.push(k));
        }
        writes.sort_unstable();
        writes.dedup();
        tr.touches_excl = readers_of(&writes, &excl_readers);
        tr.recheck_overlap = tr
            .touches_excl
            .iter()
            .copied()
            .filter(|&p| !never_overlap(p as usize))
            .collect();
        tr.recheck_invariants = readers_of(&writes, &inv_readers);
    }
}

/// Pushes `x` unless it is already last (readers are added in order, so
/// this removes every duplicate).
fn push_new(v: &mut Vec<u32>, x: u32) {
    if v.last() != Some(&x) {
        v.push(x);
    }
}

/// Everything that reads one of `writes`, in increasing order.
fn readers_of(writes: &[u32], readers: &[Vec<u32>]) -> Vec<u32> {
    let mut out: Vec<u32> = writes
        .iter()
        .flat_map(|&w| &readers[w as usize])
        .copied()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// X, when every thread's predicate is `X == t` with the same X: X has one
/// value, so at most one thread satisfies its predicate.
pub(super) fn common_owner(p: &Protected) -> Option<&CExpr> {
    let mut first = None;
    for (t, e) in p.excl.iter().enumerate() {
        let x = match e {
            CExpr::Bin(BinOp::Eq, x, c) | CExpr::Bin(BinOp::Eq, c, x)
                if **c == CExpr::Const(t as i64) =>
            {
                &**x
            }
            _ => return None,
        };
        match first {
            None => first = Some(x),
            Some(f) if f == x => {}
            Some(_) => return None,
        }
    }
    first
}
