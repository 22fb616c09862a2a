//! Swapping two threads: when two threads run the same code up to their
//! own identity, whatever one does from a state the other does from the
//! state with the two swapped, so a summary computed for one serves the
//! other (see `explore::summaries`).
//!
//! The swap `Φ` of threads a and b exchanges their program counters and
//! their slots, matched by a [`Swap`], and exchanges the values a and b in
//! every lock, whose values are thread identities. Two threads correspond
//! as wholes ([`Swaps::threads`]: the same control points, slots matched
//! in order) or in one procedure ([`Swaps::procedure`]: the copies of the
//! procedure and of everything it calls, matched by depth, their points by
//! offset and their slots in order, whatever the threads' bodies are).
//! Either is decided by comparing compiled transitions one by one: the
//! same guards and commands with a's slots where b has b's, a control
//! point where b has the matching one only where the value meets a program
//! counter or a return point, and a thread identity `c` where b has `π(c)`
//! (π exchanges a and b) only where the value meets a lock: compared with
//! one, or written into one. A lock's value used in any other way is
//! refused, and so are `at()` and `t.r` on a thread computed at run time:
//! the comparison is cheap, decides nothing by search, and says "not
//! alike" whenever in doubt. The checks of every state (the invariants, and
//! the exclusive access predicates of every thread) must also be unchanged
//! by `Φ`: an invariant compared with itself, `excl[w]` with `excl[π(w)]`.

use std::collections::HashMap;

use super::{Array, CExpr, Cmd, Model, Next, Place, SlotClass, SlotKind, StackOp};
use crate::syntax::ast::BinOp;

/// The slots each thread owns, for swapping two threads.
pub struct Swaps {
    /// Per thread, the slots of class `Local(t)` (its program counter
    /// first), in order.
    owned: Vec<Vec<u32>>,
    /// Per slot, the thread owning it.
    owner: Vec<Option<u32>>,
    /// The lock slots.
    locks: Vec<u32>,
    /// Per slot: a parameter or local of a procedure's copy.
    framed: Vec<bool>,
}

/// How thread a's code corresponds to thread b's.
pub struct Swap {
    /// The two threads.
    pub a: usize,
    /// The two threads.
    pub b: usize,
    /// Matched slots, `(a's, b's)`, program counters aside.
    slots: Vec<(u32, u32)>,
    /// Matched frames as `(a's first point, b's first point, points)`;
    /// `None` when the threads match as wholes (points are the same).
    frames: Option<Vec<(i64, i64, i64)>>,
    /// The matched control points, `(a's, b's)`.
    pub points: Vec<(i64, i64)>,
    /// The matched transitions, `(a's, b's)`: all of them for whole
    /// threads; for a procedure, all but the returns of its shallowest
    /// copies, which go back into each thread's own callers.
    pub transitions: Vec<(usize, usize)>,
}

impl Swap {
    /// A match of empty code, which [`Rename::compare`] fills in.
    fn new(
        a: usize,
        b: usize,
        slots: Vec<(u32, u32)>,
        frames: Option<Vec<(i64, i64, i64)>>,
        points: Vec<(i64, i64)>,
    ) -> Swap {
        Swap {
            a,
            b,
            slots,
            frames,
            points,
            transitions: Vec::new(),
        }
    }

    /// The threads match as wholes.
    pub fn whole(&self) -> bool {
        self.frames.is_none()
    }

    /// Whether a's control point `p` compares its returns too: everywhere
    /// but in the procedure's shallowest copy (the first matched frame),
    /// whose returns go back into each thread's own callers. A deeper
    /// copy returns into matched code, and what it returns (`self`, an
    /// expression of `index`) must match as much as any assignment.
    fn returns_compared(&self, p: i64) -> bool {
        match &self.frames {
            None => true,
            Some(frames) => frames
                .first()
                .is_none_or(|&(x, _, n)| !(x..x + n).contains(&p)),
        }
    }

    /// Control point `p` of a (`from_a`) or of b, as the other's.
    fn point(&self, from_a: bool, p: i64) -> Option<i64> {
        let Some(frames) = &self.frames else {
            return Some(p);
        };
        frames.iter().find_map(|&(x, y, n)| {
            let (from, to) = if from_a { (x, y) } else { (y, x) };
            (from..from + n).contains(&p).then(|| to + (p - from))
        })
    }
}

impl Swaps {
    /// The owned slots of `model`'s threads.
    pub fn new(model: &Model) -> Swaps {
        let mut owned = vec![Vec::new(); model.threads.len()];
        let mut owner = vec![None; model.slots.len()];
        let mut locks = Vec::new();
        for (k, slot) in model.slots.iter().enumerate() {
            if let SlotClass::Local(t) = slot.class {
                owned[t as usize].push(k as u32);
                owner[k] = Some(t);
            }
            if slot.kind == SlotKind::Lock {
                locks.push(k as u32);
            }
        }
        let mut framed = vec![false; model.slots.len()];
        for f in model.threads.iter().flat_map(|th| &th.frames) {
            for k in f.slots.clone() {
                framed[k as usize] = true;
            }
        }
        Swaps {
            owned,
            owner,
            locks,
            framed,
        }
    }

    /// The thread owning slot `k` (its program counter or a local), if any.
    pub fn owner(&self, k: usize) -> Option<usize> {
        self.owner[k].map(|t| t as usize)
    }

    /// `Φ` on a node of `swap`'s thread a (`from_a`) or b: what the node
    /// says of that thread's matched slots and program counter, said of
    /// the other's, and every lock's a and b exchanged. The words past the
    /// state (a node may carry more) are left as they are, and so are the
    /// slots of the thread carried from: the caller forgets or restores
    /// them.
    pub fn carry(&self, swap: &Swap, from_a: bool, node: &[i64]) -> Vec<i64> {
        let mut out = node.to_vec();
        for &(x, y) in &swap.slots {
            let (from, to) = if from_a { (x, y) } else { (y, x) };
            out[to as usize] = node[from as usize];
        }
        let (from, to) = if from_a {
            (swap.a, swap.b)
        } else {
            (swap.b, swap.a)
        };
        out[to] = swap.point(from_a, node[from]).unwrap_or(node[from]);
        for &m in &self.locks {
            let v = &mut out[m as usize];
            *v = pi(swap.a, swap.b, *v);
        }
        out
    }

    /// Whether threads `a` and `b` of `model` match as wholes (see the
    /// module docs).
    pub fn threads(&self, model: &Model, a: usize, b: usize) -> Option<Swap> {
        let (ta, tb) = (&model.threads[a], &model.threads[b]);
        let (oa, ob) = (&self.owned[a], &self.owned[b]);
        let same_shape = a != b
            && oa.len() == ob.len()
            && ta.points.len() == tb.points.len()
            && ta.points.iter().zip(&tb.points).all(|(p, q)| {
                p.frame == q.frame
                    && p.depth == q.depth
                    && p.transitions.len() == q.transitions.len()
            });
        if !same_shape {
            return None;
        }
        let slots = oa
            .iter()
            .copied()
            .zip(ob.iter().copied())
            .filter(|&(x, _)| x as usize != a);
        let points = (0..ta.points.len() as i64).map(|p| (p, p)).collect();
        let rename = Rename::new(model, self, Swap::new(a, b, slots.collect(), None, points))?;
        let maps = |x: &std::ops::Range<u32>, y: &std::ops::Range<u32>| {
            x.len() == y.len()
                && x.clone()
                    .zip(y.clone())
                    .all(|(i, j)| rename.slot(i) == Some(j))
        };
        let frames = maps(&ta.locals, &tb.locals)
            && ta.ret.len() == tb.ret.len()
            && ta
                .ret
                .iter()
                .zip(&tb.ret)
                .all(|(&x, &y)| rename.slot(x) == Some(y))
            && ta.frames.len() == tb.frames.len()
            && ta.frames.iter().zip(&tb.frames).all(|(f, g)| {
                f.proc == g.proc
                    && f.depth == g.depth
                    && f.points == g.points
                    && maps(&f.slots, &g.slots)
            });
        if frames { rename.compare() } else { None }
    }

    /// Whether threads `a` and `b` of `model` match in procedure `p`: its
    /// shallowest copies and the copies of everything they call (see the
    /// module docs).
    pub fn procedure(&self, model: &Model, a: usize, b: usize, p: u32) -> Option<Swap> {
        let (ta, tb) = (&model.threads[a], &model.threads[b]);
        let shallowest = |th: &super::Thread| {
            (0..th.frames.len())
                .filter(|&f| th.frames[f].proc == p)
                .min_by_key(|&f| th.frames[f].depth)
        };
        let (fa, fb) = (shallowest(ta)?, shallowest(tb)?);
        // The copies matched by depth, from the calls of matched copies:
        // the shallowest copies may run at different depths (one thread
        // calls the procedure from its body, the other from another
        // procedure), and every matched pair is that far apart.
        let shift = ta.frames[fa].depth as i64 - tb.frames[fb].depth as i64;
        let mut pairs = vec![(fa, fb)];
        let (mut of_a, mut of_b) = (HashMap::new(), HashMap::new());
        of_a.insert(fa, fb);
        of_b.insert(fb, fa);
        let mut at = 0;
        while let Some(&(f, g)) = pairs.get(at) {
            at += 1;
            let (x, y) = (&ta.frames[f], &tb.frames[g]);
            if x.proc != y.proc
                || x.depth as i64 - y.depth as i64 != shift
                || x.points.end - x.points.start != y.points.end - y.points.start
                || x.slots.len() != y.slots.len()
            {
                return None;
            }
            for o in 0..x.points.end - x.points.start {
                let (pa, pb) = (x.points.start + o, y.points.start + o);
                let (ks, js) = (compared(model, a, pa, false), compared(model, b, pb, false));
                if ks.len() != js.len() {
                    return None;
                }
                for (k, j) in ks.into_iter().zip(js) {
                    if let (StackOp::Call(c), StackOp::Call(d)) =
                        (model.transitions[k].stack, model.transitions[j].stack)
                    {
                        let (c, d) = (c as usize, d as usize);
                        match (of_a.get(&c), of_b.get(&d)) {
                            (None, None) => {
                                of_a.insert(c, d);
                                of_b.insert(d, c);
                                pairs.push((c, d));
                            }
                            (Some(&e), Some(&h)) if e == d && h == c => {}
                            _ => return None,
                        }
                    }
                }
            }
        }
        let mut slots: Vec<(u32, u32)> = (0..ta.ret.len())
            .filter_map(|i| {
                let j = usize::try_from(i as i64 - shift).ok()?;
                Some((ta.ret[i], *tb.ret.get(j)?))
            })
            .collect();
        let mut frames = Vec::new();
        let mut points = Vec::new();
        for &(f, g) in &pairs {
            let (x, y) = (&ta.frames[f], &tb.frames[g]);
            slots.extend(x.slots.clone().zip(y.slots.clone()));
            frames.push((
                x.points.start,
                y.points.start,
                x.points.end - x.points.start,
            ));
            points.extend(
                (0..x.points.end - x.points.start)
                    .map(|o| (x.points.start + o, y.points.start + o)),
            );
        }
        Rename::new(model, self, Swap::new(a, b, slots, Some(frames), points))?.compare()
    }
}

/// The transitions of thread `t` at point `pc` that a match compares: all
/// of them, or all but the returns.
fn compared(model: &Model, t: usize, pc: i64, whole: bool) -> Vec<usize> {
    model.threads[t].points[pc as usize]
        .transitions
        .clone()
        .filter(|&k| whole || model.transitions[k].stack != StackOp::Return)
        .collect()
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

/// What a value that meets a slot means.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Meaning {
    /// A thread identity: a lock's holder.
    Thread,
    /// A control point of thread a (`true`) or b: a program counter or a
    /// return point.
    Point(bool),
}

/// The comparison of a's code (left) with b's (right) under `Φ`.
struct Rename<'a> {
    model: &'a Model,
    swaps: &'a Swaps,
    swap: Swap,
    /// Matched slots, both ways.
    map: HashMap<u32, u32>,
}

impl<'a> Rename<'a> {
    /// The comparison of the code `swap` matches; `None` where matched
    /// slots differ in kind or range.
    fn new(model: &'a Model, swaps: &'a Swaps, swap: Swap) -> Option<Rename<'a>> {
        let (a, b) = (swap.a, swap.b);
        if a == b {
            return None;
        }
        let mut map = HashMap::new();
        map.insert(a as u32, b as u32);
        map.insert(b as u32, a as u32);
        for &(x, y) in &swap.slots {
            let (sx, sy) = (&model.slots[x as usize], &model.slots[y as usize]);
            // Control points are renamed, not compared: their ranges are
            // each thread's own.
            let points = matches!(sx.kind, SlotKind::Pc | SlotKind::Ret);
            if sx.kind != sy.kind || !points && model.bounds[x as usize] != model.bounds[y as usize]
            {
                return None;
            }
            // A copy that is not running holds its initial values, and a
            // summary starts a callee's copy from them: `local v = index`
            // in a callee would give one thread the other's value.
            let framed = swaps.framed[x as usize] || swaps.framed[y as usize];
            if framed && !points && model.init[x as usize] != model.init[y as usize] {
                return None;
            }
            map.insert(x, y);
            map.insert(y, x);
        }
        Some(Rename {
            model,
            swaps,
            swap,
            map,
        })
    }

    /// The comparison itself: every matched point and its transitions,
    /// then the checks.
    fn compare(mut self) -> Option<Swap> {
        let (m, w) = (self.model, self.swap.whole());
        let (a, b) = (self.swap.a, self.swap.b);
        let mut transitions = Vec::new();
        for &(p, q) in &self.swap.points {
            let all = w || self.swap.returns_compared(p);
            let (ks, js) = (compared(m, a, p, all), compared(m, b, q, all));
            let returns = |t: usize, pc: i64| {
                m.threads[t].points[pc as usize]
                    .transitions
                    .clone()
                    .any(|k| m.transitions[k].stack == StackOp::Return)
            };
            if ks.len() != js.len() || returns(a, p) != returns(b, q) {
                return None;
            }
            for (k, j) in ks.into_iter().zip(js) {
                if !self.transition(k, j) {
                    return None;
                }
                transitions.push((k, j));
            }
        }
        if !self.checks() {
            return None;
        }
        self.swap.transitions = transitions;
        Some(self.swap)
    }

    /// The slot of b's code that slot `k` of a's code must be (and the
    /// other way); `None` for a slot of a or b that is not matched.
    fn slot(&self, k: u32) -> Option<u32> {
        match self.map.get(&k) {
            Some(&j) => Some(j),
            None => match self.swaps.owner[k as usize] {
                Some(t) if t as usize == self.swap.a || t as usize == self.swap.b => None,
                _ => Some(k),
            },
        }
    }

    /// What a value stored in slot `k` means, if something to rename.
    fn meaning(&self, k: u32) -> Option<Meaning> {
        match self.model.slots[k as usize].kind {
            SlotKind::Lock => Some(Meaning::Thread),
            SlotKind::Pc | SlotKind::Ret => match self.swaps.owner[k as usize] {
                Some(t) if t as usize == self.swap.a => Some(Meaning::Point(true)),
                Some(t) if t as usize == self.swap.b => Some(Meaning::Point(false)),
                // Another thread's points stay as they are.
                _ => None,
            },
            _ => None,
        }
    }

    fn transition(&self, k: usize, j: usize) -> bool {
        let (x, y) = (&self.model.transitions[k], &self.model.transitions[j]);
        let next = match (&x.next, &y.next) {
            (Next::To(p), Next::To(q)) => self.swap.point(true, *p) == Some(*q),
            (Next::Branch(c, p1, p2), Next::Branch(d, q1, q2)) => {
                self.swap.point(true, *p1) == Some(*q1)
                    && self.swap.point(true, *p2) == Some(*q2)
                    && self.expr(c, d)
            }
            _ => false,
        };
        let guard = match (&x.guard, &y.guard) {
            (None, None) => true,
            (Some(g), Some(h)) => self.expr(g, h),
            _ => false,
        };
        // A call enters the matched copy of its callee.
        let callee = match (x.stack, y.stack) {
            (StackOp::Call(f), StackOp::Call(g)) => {
                let start =
                    |t: usize, f: u32| self.model.threads[t].frames[f as usize].points.start;
                self.swap.point(true, start(self.swap.a, f)) == Some(start(self.swap.b, g))
            }
            (s, t) => s == t,
        };
        x.thread as usize == self.swap.a
            && y.thread as usize == self.swap.b
            && self.swap.point(true, x.from) == Some(y.from)
            && callee
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
        let (a, b) = (self.swap.a, self.swap.b);
        m.invariants.iter().all(|i| self.expr(&i.expr, &i.expr))
            && m.protected.iter().all(|p| {
                (0..m.threads.len()).all(|w| {
                    let v = pi(a, b, w as i64) as usize;
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
                            Some(Some(meaning)) => self.value(meaning, e, f),
                            Some(None) => self.expr(e, f),
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

    /// Whether places `p` and `q` correspond, and if so what the value
    /// written means.
    fn place(&self, p: &Place, q: &Place) -> Option<Option<Meaning>> {
        match (p, q) {
            (Place::Slot { slot: s, shared: h }, Place::Slot { slot: r, shared: g }) => {
                (self.slot(*s) == Some(*r) && h == g).then(|| self.meaning(*s))
            }
            (
                Place::Elem { array, index },
                Place::Elem {
                    array: a2,
                    index: i2,
                },
            ) => (self.array(array, a2) && self.expr(index, i2)).then(|| self.meaning(array.base)),
            _ => None,
        }
    }

    /// Arrays `a` in a's code and `b` in b's correspond.
    fn array(&self, a: &Array, b: &Array) -> bool {
        a.len == b.len
            && a.shared == b.shared
            && a.slots()
                .zip(b.slots())
                .all(|(s, t)| self.slot(s) == Some(t))
    }

    /// `x` and `y` where their value has `meaning`: a read of a slot
    /// holding such values, or a constant renamed.
    fn value(&self, meaning: Meaning, x: &CExpr, y: &CExpr) -> bool {
        match (x, y) {
            (CExpr::Const(c), CExpr::Const(d)) => match meaning {
                Meaning::Thread => pi(self.swap.a, self.swap.b, *c) == *d,
                Meaning::Point(from_a) => self.swap.point(from_a, *c) == Some(*d),
            },
            (
                CExpr::Var { slot, shared },
                CExpr::Var {
                    slot: s2,
                    shared: h2,
                },
            ) => {
                self.meaning(*slot) == Some(meaning)
                    && self.slot(*slot) == Some(*s2)
                    && shared == h2
            }
            (
                CExpr::Elem { array, index },
                CExpr::Elem {
                    array: a2,
                    index: i2,
                },
            ) => {
                self.meaning(array.base) == Some(meaning)
                    && self.array(array, a2)
                    && self.expr(index, i2)
            }
            _ => false,
        }
    }

    /// What the value of `e` means, when it reads a slot whose values are
    /// renamed.
    fn meaning_of(&self, e: &CExpr) -> Option<Meaning> {
        match e {
            CExpr::Var { slot, .. } => self.meaning(*slot),
            CExpr::Elem { array, .. } => self.meaning(array.base),
            _ => None,
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
            ) => self.meaning(*slot).is_none() && self.slot(*slot) == Some(*s2) && shared == h2,
            (
                Elem { array, index },
                Elem {
                    array: a2,
                    index: i2,
                },
            ) => {
                self.meaning(array.base).is_none() && self.array(array, a2) && self.expr(index, i2)
            }
            (Bound(i), Bound(j)) => i == j,
            (Not(e), Not(f)) | (Neg(e), Neg(f)) => self.expr(e, f),
            (Bin(op, e1, e2), Bin(op2, f1, f2)) if op == op2 => {
                let meaning = self.meaning_of(e1).or_else(|| self.meaning_of(e2));
                match meaning {
                    Some(m) if matches!(op, BinOp::Eq | BinOp::Ne) => {
                        self.value(m, e1, f1) && self.value(m, e2, f2)
                    }
                    Some(_) => false,
                    None => self.expr(e1, f1) && self.expr(e2, f2),
                }
            }
            (Quant(q), Quant(r)) => {
                q.forall == r.forall
                    && q.var == r.var
                    && (q.parts().into_iter().zip(r.parts())).all(|(e, f)| self.expr(e, f))
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
        Swaps::new(&m).threads(&m, 0, 1).is_some()
    }

    /// Whether threads 0 and 1 match in procedure `name`.
    fn alike_in(text: &str, name: &str) -> bool {
        let m = model(text);
        let p = m.procs.iter().position(|p| p.name == name).unwrap() as u32;
        Swaps::new(&m).procedure(&m, 0, 1, p).is_some()
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
        let swap = sw.threads(&m, 0, 1).unwrap();
        let mut s = m.init.clone();
        let lock = m.slots.iter().position(|x| x.name == "m").unwrap();
        let x0 = m
            .slots
            .iter()
            .position(|x| x.name.starts_with("T0.incr"))
            .unwrap();
        let x1 = m
            .slots
            .iter()
            .position(|x| x.name.starts_with("T1.incr"))
            .unwrap();
        s[0] = 3;
        s[x0] = 2;
        s[lock] = 0;
        let carried = sw.carry(&swap, true, &s);
        assert_eq!((carried[1], carried[x1], carried[lock]), (3, 2, 1));
        let back = sw.carry(&swap, false, &carried);
        assert_eq!((back[0], back[x0], back[lock]), (3, 2, 0));
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
    fn threads_with_different_bodies_match_in_a_procedure() {
        let text = "lock m; protected g : 0..3 = 0 by m; shared y : 0..3 = 0;
             proc inc(k : 0..1) { local x : 0..3 = 0; acquire m; x := g; g := (x + k) % 3; release m; }
             proc twice() { call inc(1); call inc(1); }
             thread A { call twice(); y := 1; }
             thread B { y := 2; call inc(0); call inc(1); }";
        assert!(!alike(text));
        assert!(alike_in(text, "inc"));
        // A calls inc from twice, a level deeper than B does.
        assert!(!alike_in(text, "twice"), "B has no twice");
        // `self` is the calling thread: stored as a number, it differs.
        let selfish = "shared who : 0..1 = 0;
             proc mark() { who := self; }
             thread A { call mark(); }
             thread B { skip; call mark(); }";
        assert!(!alike_in(selfish, "mark"));
        // Compared with a lock, it is a thread identity.
        let locked = "lock m; shared y : 0..1 = 0;
             proc mark() { acquire m; await m == self; y := 1; release m; }
             thread A { call mark(); }
             thread B { skip; call mark(); }";
        assert!(alike_in(locked, "mark"));
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
