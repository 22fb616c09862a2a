//! Swapping two threads: when two threads run the same code up to their
//! own identity, whatever one does from a state the other does from the
//! state with the two swapped, so a summary computed for one serves the
//! other (see `explore::summaries`).
//!
//! The swap `Φ` of threads a and b exchanges their program counters and
//! their slots (body locals, frames, return points, matched in order) and
//! exchanges the values a and b in every lock, whose values are thread
//! identities. [`Swaps::alike`] decides whether a and b are interchangeable
//! under `Φ` by comparing their compiled transitions one by one: the same
//! control points, guards and commands with a's slots where b has b's, and
//! with a thread identity `c` where b has `π(c)` (π exchanges a and b) only
//! where the value meets a lock: compared with one, or written into one.
//! A lock's value used in any other way (arithmetic, an index, `at()` or
//! `t.r` on it) is refused, and so are `at()` and `t.r`, which name threads
//! at run time: the comparison is cheap, decides nothing by search, and
//! says "not alike" whenever in doubt. The checks of every state (the
//! invariants, and the exclusive access predicates of every thread) must
//! also be unchanged by `Φ`: an invariant compared with itself, `excl[w]`
//! with `excl[π(w)]`.

use super::{CExpr, Cmd, Model, Next, Place, SlotClass, SlotKind};
use crate::syntax::ast::BinOp;

/// The slots each thread owns, for swapping two threads.
pub struct Swaps {
    /// Per thread, the slots of class `Local(t)` (its program counter
    /// first), in order.
    owned: Vec<Vec<u32>>,
    /// Per slot, its position in its owner's list.
    pos: Vec<u32>,
    /// The lock slots.
    locks: Vec<u32>,
}

impl Swaps {
    /// The owned slots of `model`'s threads.
    pub fn new(model: &Model) -> Swaps {
        let mut owned = vec![Vec::new(); model.threads.len()];
        let mut pos = vec![0; model.slots.len()];
        let mut locks = Vec::new();
        for (k, slot) in model.slots.iter().enumerate() {
            if let SlotClass::Local(t) = slot.class {
                let list = &mut owned[t as usize];
                pos[k] = list.len() as u32;
                list.push(k as u32);
            }
            if slot.kind == SlotKind::Lock {
                locks.push(k as u32);
            }
        }
        Swaps { owned, pos, locks }
    }

    /// The slots thread `t` owns.
    pub fn owned(&self, t: usize) -> &[u32] {
        &self.owned[t]
    }

    /// `Φ` on a state of `model` (or a longer node, whose extra words are
    /// left as they are), in place.
    pub fn swap(&self, a: usize, b: usize, node: &mut [i64]) {
        if a == b {
            return;
        }
        for (&x, &y) in self.owned[a].iter().zip(&self.owned[b]) {
            node.swap(x as usize, y as usize);
        }
        for &m in &self.locks {
            let v = &mut node[m as usize];
            *v = pi(a, b, *v);
        }
    }

    /// Whether threads `a` and `b` of `model` are interchangeable under
    /// `Φ` (see the module docs).
    pub fn alike(&self, model: &Model, a: usize, b: usize) -> bool {
        let rename = Rename {
            model,
            swaps: self,
            a,
            b,
        };
        a != b && rename.threads() && rename.checks()
    }
}

/// `π`: exchanges thread identities a and b.
fn pi(a: usize, b: usize, v: i64) -> i64 {
    if v == a as i64 {
        b as i64
    } else if v == b as i64 {
        a as i64
    } else {
        v
    }
}

/// The comparison of a's code (left) with b's (right) under `Φ`.
struct Rename<'a> {
    model: &'a Model,
    swaps: &'a Swaps,
    a: usize,
    b: usize,
}

impl Rename<'_> {
    /// The slot of b's code that slot `k` of a's code must be.
    fn slot(&self, k: u32) -> u32 {
        let s = self.swaps;
        match self.model.slots[k as usize].class {
            SlotClass::Local(t) if t as usize == self.a => {
                s.owned[self.b][s.pos[k as usize] as usize]
            }
            SlotClass::Local(t) if t as usize == self.b => {
                s.owned[self.a][s.pos[k as usize] as usize]
            }
            _ => k,
        }
    }

    fn is_lock(&self, k: u32) -> bool {
        self.model.slots[k as usize].kind == SlotKind::Lock
    }

    /// The same shape: control points, frames, owned slots of the same
    /// kinds and ranges, and transitions that correspond one to one.
    fn threads(&self) -> bool {
        let (m, sw) = (self.model, self.swaps);
        let (ta, tb) = (&m.threads[self.a], &m.threads[self.b]);
        let (oa, ob) = (&sw.owned[self.a], &sw.owned[self.b]);
        let same_slots = oa.len() == ob.len()
            && oa.iter().zip(ob).all(|(&x, &y)| {
                let (x, y) = (x as usize, y as usize);
                m.slots[x].kind == m.slots[y].kind && m.bounds[x] == m.bounds[y]
            });
        let maps = |x: &std::ops::Range<u32>, y: &std::ops::Range<u32>| {
            x.len() == y.len() && x.clone().zip(y.clone()).all(|(i, j)| self.slot(i) == j)
        };
        same_slots
            && self.slot(self.a as u32) == self.b as u32
            && ta.points.len() == tb.points.len()
            && maps(&ta.locals, &tb.locals)
            && ta.ret.len() == tb.ret.len()
            && ta.ret.iter().zip(&tb.ret).all(|(&x, &y)| self.slot(x) == y)
            && ta.frames.len() == tb.frames.len()
            && ta.frames.iter().zip(&tb.frames).all(|(f, g)| {
                f.proc == g.proc
                    && f.depth == g.depth
                    && f.points == g.points
                    && maps(&f.slots, &g.slots)
            })
            && ta.points.iter().zip(&tb.points).all(|(p, q)| {
                p.frame == q.frame
                    && p.depth == q.depth
                    && p.transitions.len() == q.transitions.len()
                    && p.transitions
                        .clone()
                        .zip(q.transitions.clone())
                        .all(|(k, j)| self.transition(k, j))
            })
    }

    fn transition(&self, k: usize, j: usize) -> bool {
        let (x, y) = (&self.model.transitions[k], &self.model.transitions[j]);
        let next = match (&x.next, &y.next) {
            (Next::To(p), Next::To(q)) => p == q,
            (Next::Branch(c, p1, p2), Next::Branch(d, q1, q2)) => {
                p1 == q1 && p2 == q2 && self.expr(c, d)
            }
            _ => false,
        };
        let guard = match (&x.guard, &y.guard) {
            (None, None) => true,
            (Some(g), Some(h)) => self.expr(g, h),
            _ => false,
        };
        x.thread as usize == self.a
            && y.thread as usize == self.b
            && x.from == y.from
            && x.stack == y.stack
            && x.recheck_overlap == y.recheck_overlap
            && x.recheck_invariants == y.recheck_invariants
            && x.touches_excl == y.touches_excl
            && next
            && guard
            && self.cmds(&x.body, &y.body)
    }

    /// The checks of every state are unchanged by `Φ`.
    fn checks(&self) -> bool {
        let m = self.model;
        m.invariants.iter().all(|i| self.expr(&i.expr, &i.expr))
            && m.protected.iter().all(|p| {
                (0..m.threads.len()).all(|w| {
                    let v = pi(self.a, self.b, w as i64) as usize;
                    self.expr(&p.excl[w], &p.excl[v])
                })
            })
    }

    fn cmds(&self, xs: &[Cmd], ys: &[Cmd]) -> bool {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.cmd(x, y))
    }

    fn cmd(&self, x: &Cmd, y: &Cmd) -> bool {
        match (x, y) {
            (Cmd::Assign(xs), Cmd::Assign(ys)) => {
                xs.len() == ys.len()
                    && xs
                        .iter()
                        .zip(ys)
                        .all(|((p, e), (q, f))| match self.place(p, q) {
                            Some(true) => self.lock_value(e, f),
                            Some(false) => self.expr(e, f),
                            None => false,
                        })
            }
            (Cmd::Assert(e), Cmd::Assert(f)) => self.expr(e, f),
            (Cmd::If(c, t1, e1), Cmd::If(d, t2, e2)) => {
                self.expr(c, d) && self.cmds(t1, t2) && self.cmds(e1, e2)
            }
            _ => false,
        }
    }

    /// Whether places `p` and `q` correspond, and if so whether they hold
    /// a lock.
    fn place(&self, p: &Place, q: &Place) -> Option<bool> {
        match (p, q) {
            (Place::Slot { slot: s, shared: h }, Place::Slot { slot: r, shared: g }) => {
                (self.slot(*s) == *r && h == g).then(|| self.is_lock(*s))
            }
            (
                Place::Elem {
                    base,
                    len,
                    shared,
                    index,
                },
                Place::Elem {
                    base: b2,
                    len: l2,
                    shared: s2,
                    index: i2,
                },
            ) => (self.array(*base, *len, *b2, *l2) && shared == s2 && self.expr(index, i2))
                .then(|| self.is_lock(*base)),
            _ => None,
        }
    }

    /// Arrays `base[len]` in a's code and `b2[l2]` in b's correspond.
    fn array(&self, base: u32, len: u32, b2: u32, l2: u32) -> bool {
        len == l2 && (0..len).all(|i| self.slot(base + i) == b2 + i)
    }

    /// `x` and `y` where their value is a thread identity: a lock read, or
    /// a constant under `π`.
    fn lock_value(&self, x: &CExpr, y: &CExpr) -> bool {
        match (x, y) {
            (CExpr::Const(c), CExpr::Const(d)) => pi(self.a, self.b, *c) == *d,
            (
                CExpr::Var { slot, shared },
                CExpr::Var {
                    slot: s2,
                    shared: h2,
                },
            ) => self.is_lock(*slot) && self.slot(*slot) == *s2 && shared == h2,
            (
                CExpr::Elem {
                    base,
                    len,
                    shared,
                    index,
                },
                CExpr::Elem {
                    base: b2,
                    len: l2,
                    shared: s2,
                    index: i2,
                },
            ) => {
                self.is_lock(*base)
                    && self.array(*base, *len, *b2, *l2)
                    && shared == s2
                    && self.expr(index, i2)
            }
            _ => false,
        }
    }

    /// Reads a lock.
    fn reads_lock(&self, e: &CExpr) -> bool {
        match e {
            CExpr::Var { slot, .. } => self.is_lock(*slot),
            CExpr::Elem { base, .. } => self.is_lock(*base),
            _ => false,
        }
    }

    /// `x` and `y` compute the same value from states swapped by `Φ`.
    fn expr(&self, x: &CExpr, y: &CExpr) -> bool {
        use CExpr::*;
        match (x, y) {
            (Const(c), Const(d)) => c == d,
            (
                Var { slot, shared },
                Var {
                    slot: s2,
                    shared: h2,
                },
            ) => !self.is_lock(*slot) && self.slot(*slot) == *s2 && shared == h2,
            (
                Elem {
                    base,
                    len,
                    shared,
                    index,
                },
                Elem {
                    base: b2,
                    len: l2,
                    shared: s2,
                    index: i2,
                },
            ) => {
                !self.is_lock(*base)
                    && self.array(*base, *len, *b2, *l2)
                    && shared == s2
                    && self.expr(index, i2)
            }
            (Bound(i), Bound(j)) => i == j,
            (Not(e), Not(f)) | (Neg(e), Neg(f)) => self.expr(e, f),
            (Bin(op, e1, e2), Bin(op2, f1, f2)) if op == op2 => {
                if matches!(op, BinOp::Eq | BinOp::Ne)
                    && (self.reads_lock(e1) || self.reads_lock(e2))
                {
                    self.lock_value(e1, f1) && self.lock_value(e2, f2)
                } else {
                    self.expr(e1, f1) && self.expr(e2, f2)
                }
            }
            (
                Quant {
                    forall,
                    var,
                    lo,
                    hi,
                    body,
                },
                Quant {
                    forall: f2,
                    var: v2,
                    lo: l2,
                    hi: h2,
                    body: b2,
                },
            ) => {
                forall == f2
                    && var == v2
                    && self.expr(lo, l2)
                    && self.expr(hi, h2)
                    && self.expr(body, b2)
            }
            // `at()` and `t.r` name threads at run time; anything else
            // differs in shape.
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        let src = crate::Source::new("swap.gc", text).unwrap();
        crate::compile(&src, &Vec::new()).unwrap()
    }

    fn alike(text: &str) -> bool {
        let m = model(text);
        Swaps::new(&m).alike(&m, 0, 1)
    }

    const LOCKED: &str = "
        threads 2;
        lock m;
        protected g : 0..3 = 0 by m;
        proc incr() { local x : 0..3 = 0; acquire m; x := g; g := x + 1 - x; release m; }
        thread T { call incr(); }";

    #[test]
    fn a_locked_procedure_is_shared() {
        assert!(alike(LOCKED));
    }

    #[test]
    fn the_swap_exchanges_slots_and_lock_values() {
        let m = model(LOCKED);
        let sw = Swaps::new(&m);
        let mut s = m.init.clone();
        let lock = m.slots.iter().position(|x| x.name == "m").unwrap();
        s[0] = 3;
        s[lock] = 0;
        let before = s.clone();
        sw.swap(0, 1, &mut s);
        assert_eq!((s[0], s[1], s[lock]), (before[1], 3, 1));
        sw.swap(1, 0, &mut s);
        assert_eq!(s, before, "a swap is an involution");
    }

    #[test]
    fn the_thread_index_outside_a_lock_is_not_shared() {
        for body in [
            "x := index;",
            "turn := index;",
            "if index == 0 { x := 1; }",
            "flag[index] := true;",
            "await turn == index;",
            "await m == x;",
        ] {
            let text = format!(
                "lock m; shared x : 0..1 = 0; shared turn : 0..1 = 0;
                 shared flag[2] : bool = false;
                 proc p() {{ {body} }}
                 thread T[2] {{ call p(); }}"
            );
            assert!(!alike(&text), "{body}");
        }
    }

    #[test]
    fn the_thread_index_compared_with_a_lock_is_shared() {
        assert!(alike(
            "lock m; lock n[2]; shared x : 0..1 = 0;
             proc p() { acquire n[x]; await m == index || m == free; release n[x]; }
             thread T[2] { acquire m; call p(); release m; }"
        ));
    }

    #[test]
    fn checks_that_name_a_thread_are_not_shared() {
        let base = "threads 2; lock m; shared x : 0..1 = 0;";
        let body = "thread T { L: acquire m; x := 1; release m; }";
        assert!(alike(&format!("{base} invariant m != 2; {body}")));
        assert!(!alike(&format!("{base} invariant m != 0; {body}")));
        assert!(!alike(&format!("{base} invariant !at(T0, L); {body}")));
        // Symmetric: excl(0) reads T0's point where excl(1) reads T1's
        // (the summaries refuse it: their nodes must forget the others).
        assert!(alike(&format!(
            "{base} protected g : 0..1 = 0 excl(t) = at(t, L); {body}"
        )));
        assert!(!alike(&format!(
            "{base} protected g : 0..1 = 0 excl(t) = t == 0 && m == t; {body}"
        )));
    }

    #[test]
    fn different_code_is_not_shared() {
        assert!(!alike(
            "shared x : 0..2 = 0;
             thread A { x := 1; }
             thread B { x := 2; }"
        ));
        assert!(alike(
            "shared x : 0..2 = 0;
             thread A { x := 1; }
             thread B { x := 1; }"
        ));
    }
}
