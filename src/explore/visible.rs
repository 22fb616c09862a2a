//! What the atoms of temporal properties observe, and so which
//! transitions are *visible*: those that may change an atom's value, which
//! a reduction preserving LTL-X must not reorder (Peled, "Combining
//! partial order reductions with on-the-fly model-checking", 1994: the
//! visibility proviso).
//!
//! A transition that writes no slot an atom reads is invisible. So is one
//! that moves its thread's program counter between control points that no
//! atom names, where the atoms read that counter only by comparing it with
//! points (`at(t, L)`, and `==` or `!=` with a constant): every comparison
//! is false before and after. A thread working in a loop that no `at()`
//! names is then invisible, as in SPIN, where `at()` has no counterpart
//! and only the labels a claim names are observed.

use crate::model::{CExpr, LtlProperty, Model, SlotKind};
use crate::syntax::ast::BinOp;

/// The slots the atoms read, and for a program counter read only by
/// comparisons with control points, those points.
#[derive(Clone, Debug, Default)]
pub struct Visible {
    /// Per slot: whether an atom reads it.
    slots: Vec<bool>,
    /// Per slot: for a program counter read only by comparisons, the
    /// points compared with (sorted); `None` for every other slot.
    points: Vec<Option<Vec<i64>>>,
}

impl Visible {
    /// What the atoms of `props` observe in `model`.
    pub fn of(model: &Model, props: &[&LtlProperty]) -> Visible {
        let n = model.slots.len();
        let mut v = Visible {
            slots: vec![false; n],
            points: vec![Some(Vec::new()); n],
        };
        for a in props.iter().flat_map(|p| &p.atoms) {
            a.for_each_slot(&mut |k| v.slots[k as usize] = true);
            v.walk(model, a);
        }
        for (k, p) in v.points.iter_mut().enumerate() {
            match p {
                Some(points) if model.slots[k].kind == SlotKind::Pc => {
                    points.sort_unstable();
                    points.dedup();
                }
                _ => *p = None,
            }
        }
        v
    }

    /// Whether an atom reads slot `k`.
    pub fn reads(&self, k: u32) -> bool {
        self.slots.get(k as usize) == Some(&true)
    }

    /// Whether a transition that writes slot `k`, from control point
    /// `from` to one of `to` when `k` is its thread's counter, may change
    /// an atom's value.
    pub fn changed_by(&self, k: u32, from: i64, to: &[i64]) -> bool {
        if !self.reads(k) {
            return false;
        }
        match &self.points[k as usize] {
            Some(points) => std::iter::once(&from)
                .chain(to)
                .any(|p| points.binary_search(p).is_ok()),
            None => true,
        }
    }

    /// Per transition of `model`: whether it may change an atom's value
    /// (a transition's source point and targets are fixed, so each is
    /// judged once).
    pub fn transitions(&self, model: &Model) -> Vec<bool> {
        (0..model.transitions.len())
            .map(|k| {
                let tr = &model.transitions[k];
                let to = tr.next.targets();
                let (_, writes) = crate::classify::slots(model, k);
                writes.iter().any(|&w| self.changed_by(w, tr.from, &to))
            })
            .collect()
    }

    /// Notes the comparisons of program counters with points in `e`; a
    /// counter read any other way is observed whole.
    fn walk(&mut self, model: &Model, e: &CExpr) {
        let pc = |e: &CExpr| match e {
            CExpr::Var { slot, .. } if model.slots[*slot as usize].kind == SlotKind::Pc => {
                Some(*slot as usize)
            }
            _ => None,
        };
        match e {
            CExpr::Bin(BinOp::Eq | BinOp::Ne, a, b) => match (pc(a), &**b, pc(b), &**a) {
                (Some(k), CExpr::Const(c), _, _) | (_, _, Some(k), CExpr::Const(c)) => {
                    if let Some(p) = &mut self.points[k] {
                        p.push(*c);
                    }
                }
                _ => {
                    self.walk(model, a);
                    self.walk(model, b);
                }
            },
            CExpr::At { thread, pcs } => {
                self.walk(model, thread);
                for (t, pc) in pcs.iter().enumerate() {
                    if let (Some(pc), Some(p)) = (pc, &mut self.points[t]) {
                        p.push(*pc);
                    }
                }
            }
            CExpr::Var { .. } => {
                if let Some(k) = pc(e) {
                    self.points[k] = None;
                }
            }
            CExpr::Const(_) | CExpr::Bound(_) => {}
            CExpr::Elem { index, .. } => self.walk(model, index),
            CExpr::LocalOf { thread, .. } => self.walk(model, thread),
            CExpr::Not(a) | CExpr::Neg(a) => self.walk(model, a),
            CExpr::Bin(_, a, b) => {
                self.walk(model, a);
                self.walk(model, b);
            }
            CExpr::Quant(q) => q.parts().into_iter().for_each(|p| self.walk(model, p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The control point of `label` in thread `t`.
    fn point(model: &Model, t: usize, label: &str) -> i64 {
        let points = &model.threads[t].points;
        points
            .iter()
            .position(|p| p.label.as_deref() == Some(label))
            .expect("a label") as i64
    }

    /// In Peterson's algorithm with `[] (at(0, W) -> <> at(0, CS))`: P0's
    /// work loop and every move of P1 are invisible, P0's moves into W and
    /// out of CS are visible; a property that reads `turn` sees its writes.
    #[test]
    fn only_moves_to_or_from_a_named_point_are_visible() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/peterson-live.gc");
        let (_, model) = crate::load(&path, &Vec::new()).unwrap();
        let enters = model.ltl.iter().find(|p| p.name == "enters").unwrap();
        let v = Visible::of(&model, &[enters]);
        let (n, l, w, cs) = (
            point(&model, 0, "N"),
            point(&model, 0, "L"),
            point(&model, 0, "W"),
            point(&model, 0, "CS"),
        );
        assert!(!v.changed_by(0, n, &[n + 1]), "P0's work loop");
        assert!(!v.changed_by(0, n, &[l]), "P0 leaves N for L");
        assert!(v.changed_by(0, w - 1, &[w]), "P0 enters W");
        assert!(v.changed_by(0, cs, &[cs + 1]), "P0 leaves CS");
        assert!(!v.changed_by(1, point(&model, 1, "W"), &[point(&model, 1, "CS")]));
        let turn = model.slots.iter().position(|s| s.name == "turn").unwrap() as u32;
        assert!(!v.changed_by(turn, 0, &[]), "no atom reads turn");
        let mutex = model.ltl.iter().find(|p| p.name == "mutex").unwrap();
        let both = Visible::of(&model, &[mutex]);
        assert!(both.changed_by(1, point(&model, 1, "W"), &[point(&model, 1, "CS")]));
    }
}
