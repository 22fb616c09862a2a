//! One copy per procedure: why the local level need not check every copy of
//! a procedure, and which copies it checks.
//!
//! A thread's call stack is compiled into its state (see
//! `model::compile::procs`): a procedure is copied once for every depth it
//! may run at, up to `--max-stack`, each copy with its own control points,
//! its own slots for the parameters and locals, and depth k with a slot
//! `ret@k` for the return point. Checking every copy makes the local level
//! pay for the bound twice: the pairs of control points grow with the
//! number of copies, and a frame that holds a return point slot enumerates
//! every control point of the thread as its value. Two arguments remove
//! both costs; each is exact (it never changes an instance's outcome), and
//! each is used only where its premise has been checked on the model.
//!
//! **Premise.** (P1) No exclusive access predicate and no invariant reads a
//! slot of a procedure's copy, a return point slot, or the program counter
//! of a thread that runs procedures. (P2) No transition reads the program
//! counter of a thread that runs procedures (`at(t, L)` on such a t).
//! (P3) A return point slot is read only by guards `ret@k == c` and
//! written only with constants (calls write the point to go back to,
//! returns write 0). Calls and returns compile to exactly this; `at` and
//! predicates over procedure locals are what break it, and then the local
//! level checks every copy and every value, as it always did, and the
//! report says why.
//!
//! **Return point values** ([`Copies::narrow`]). Under (P1) and (P3), the
//! only thing an instance can do with a return point slot r is compare it
//! with, or set it to, the constants C that the instance's transitions
//! name. For two values v, w of r outside C, exchanging v and w in r maps
//! the frame's valuations one to one, commutes with every transition of
//! the instance (each guard `r == c` has the same value, each write of a
//! constant writes the same one), and keeps q, the lockset and
//! normalisation filters and the equality of states. So the instance has
//! the same outcome at v as at w, and r's values are enumerated as C (within
//! r's range) and one value outside C: a number of values that depends on
//! the call sites, not on the bound.
//!
//! **Copies** ([`Copies::rep`]). Write a control point x of a copy F of
//! procedure p at depth d *relative to F*: every slot and control point
//! its transitions name, and every return point value they compare or
//! write, is given as "F's own, at offset o", "the copy of p' at depth d+1
//! (a callee), at offset o", "the copy of p' at depth d-1 (a caller), at
//! offset o", `ret@d`, `ret@(d+1)` or `ret@(d-1)`, and anything else (a
//! shared variable, another thread's slot, a point of the thread's body)
//! as itself. Two points x' in F' and x in F of the same thread are
//! *alike* when F and F' copy the same procedure, x and x' have the same
//! offset, the reduction stops at both or at neither, the locksets agree,
//! and their transitions written relative to F' and to F are equal. Copies
//! of a recursive procedure are alike in every point but where they
//! differ: the shallowest copies return into other callers, and the
//! deepest copy's calls are the stack bound.
//!
//! Take an instance at points x' of thread j (and y' of thread i, i != j,
//! for a pair) and the instance at alike points x (and y). The renaming
//! that sends F' and its callers and callees to F and its callers and
//! callees (slots and points by offset, return point slots by depth
//! relation), and every other slot to itself, is one to one on the slots
//! either instance names (a slot named absolutely by both is in neither
//! copy's neighbourhood, or it would have been written relative), and it
//! renames only j's and i's own slots, which are disjoint. Applied to
//! slots, and to the values of program counters and return points, it
//! maps the frame's valuations at (x', y') one to one onto those at (x,
//! y): it sends each transition at x' to the one at x in the same
//! position, with the same guard, effect, target, faults and discipline
//! verdict, since by (P1) every predicate and invariant reads only slots it
//! keeps; the same holds for p_i, which is the guards at y'; the locksets
//! agree, and normalisation reads only kept slots. Every check of an
//! instance is built from these (firing, q, p_i, state equality), so the
//! two instances have the same outcome. The local level therefore checks
//! the instances at one point of each class of alike points, the first in
//! the thread's order; a loop of invisible points inside one copy is
//! checked once, where its points are the representatives. Copies beyond
//! the first few are alike at every point, so the instances checked, and
//! with the narrowed return points the valuations of each, do not depend
//! on `--max-stack`.
//!
//! The exhaustive level explores reachable states, where copies at
//! different depths are not interchangeable, and the cross-check of the
//! two levels ([`super::CertifyLevel::LocalOnReachable`]) restricts the
//! valuations to reachable ones: neither uses this.

use std::collections::HashMap;

use super::frame::{Frame, Values};
use super::law::Inst;
use super::system::Sys;
use crate::model::{Array, CExpr, Cmd, Model, Next, Place, SlotKind, StackOp, Transition};
use crate::syntax::ast::BinOp;

/// Which points of the procedures' copies the local level checks, and the
/// values of return point slots that matter to each transition.
pub struct Copies {
    /// Why every copy is checked, when the premise fails.
    pub every_copy: Option<&'static str>,
    /// `rep[t][pc]`: the point whose instances stand for pc's.
    rep: Vec<Vec<i64>>,
    /// Per transition: `(return point slot, constant)` for each constant
    /// it compares such a slot with or writes into it.
    consts: Vec<Vec<(u32, i64)>>,
    /// Control points in copies of procedures.
    pub points: u64,
    /// Of them, the representatives.
    pub checked: u64,
}

/// Where a slot lives: in a copy of thread t (`Copy(t, frame)`), or as
/// the return point of thread t at a depth (`Ret(t, depth)`).
#[derive(Clone, Copy)]
enum Home {
    Other,
    Copy(u32, u32),
    Ret(u32, u32),
}

impl Copies {
    /// Decides the premise on `model` and, where it holds, the classes of
    /// alike points, given whether the reduction stops at each point and
    /// the locks held there.
    pub fn new(
        model: &Model,
        stops: &dyn Fn(usize, i64) -> bool,
        held: &dyn Fn(usize, i64) -> Vec<u32>,
    ) -> Copies {
        let mut home = vec![Home::Other; model.slots.len()];
        for (t, th) in model.threads.iter().enumerate() {
            for (f, fr) in th.frames.iter().enumerate() {
                for s in fr.slots.clone() {
                    home[s as usize] = Home::Copy(t as u32, f as u32);
                }
            }
            for (k, &r) in th.ret.iter().enumerate() {
                home[r as usize] = Home::Ret(t as u32, k as u32 + 1);
            }
        }
        let identity: Vec<Vec<i64>> = model
            .threads
            .iter()
            .map(|th| (0..th.points.len() as i64).collect())
            .collect();
        let points: u64 = model
            .threads
            .iter()
            .map(|th| th.points.iter().filter(|p| p.frame.is_some()).count() as u64)
            .sum();
        let mut copies = Copies {
            every_copy: None,
            rep: identity,
            consts: vec![Vec::new(); model.transitions.len()],
            points,
            checked: points,
        };
        match premise(model, &home) {
            Err(why) => copies.every_copy = Some(why),
            Ok(consts) => {
                copies.consts = consts;
                let enc = Encoder { model, home: &home };
                let mut checked = 0;
                for (t, th) in model.threads.iter().enumerate() {
                    let mut first: HashMap<Vec<i64>, i64> = HashMap::new();
                    for pc in 0..th.points.len() as i64 {
                        let Some(f) = th.points[pc as usize].frame else {
                            continue;
                        };
                        let shape = enc.point(t, f, pc, stops(t, pc), &held(t, pc));
                        let rep = match shape {
                            Some(shape) => *first.entry(shape).or_insert(pc),
                            None => pc,
                        };
                        copies.rep[t][pc as usize] = rep;
                        checked += u64::from(rep == pc);
                    }
                }
                copies.checked = checked;
            }
        }
        copies
    }

    /// The point whose instances stand for those of thread `t` at `pc`.
    pub fn rep(&self, t: usize, pc: i64) -> i64 {
        self.rep[t][pc as usize]
    }

    /// Whether the instances of thread `t` at `pc` are checked.
    pub fn is_rep(&self, t: usize, pc: i64) -> bool {
        self.rep(t, pc) == pc
    }

    /// Whether the loop of thread `t` over `points` is checked: unless it
    /// lies in one copy and its points are alike, offset by offset, to the
    /// points of another loop of `loops` in one other copy, which is
    /// checked for it.
    pub fn loop_checked(
        &self,
        model: &Model,
        t: usize,
        points: &[i64],
        loops: &[Vec<i64>],
    ) -> bool {
        let Some(&first) = points.first() else {
            return true;
        };
        let shift = self.rep(t, first) - first;
        if shift == 0 {
            return true;
        }
        let frame = |pc: i64| model.threads[t].points[pc as usize].frame;
        let image: Vec<i64> = points.iter().map(|&pc| pc + shift).collect();
        let alike = points
            .iter()
            .all(|&pc| self.rep(t, pc) == pc + shift && frame(pc) == frame(first))
            && image.iter().all(|&pc| frame(pc) == frame(image[0]));
        !(alike && frame(first).is_some() && loops.contains(&image))
    }

    /// Narrows the values of the return point slots in `frame` (those not
    /// fixed to a list already) to the constants the transitions of `inst`
    /// compare them with or write into them, and one other value.
    pub fn narrow(&self, sys: &Sys, inst: &Inst, frame: &mut Frame) {
        if self.every_copy.is_some() {
            return;
        }
        let model = sys.model;
        let mut ks: Vec<usize> = Vec::new();
        match inst {
            Inst::Init(_) => return,
            Inst::Point { i, b, .. } => ks.extend(sys.at(*i, *b)),
            Inst::Pair { j, a, i, b, .. } => {
                ks.extend(sys.at(*j, *a));
                ks.extend(sys.at(*i, *b));
            }
            Inst::EndExcl { j, a, .. } => ks.extend(sys.at(*j, *a)),
            Inst::Loop { i, points, .. } => {
                for &b in points {
                    ks.extend(sys.at(*i, b));
                }
            }
        }
        for (n, &slot) in frame.slots.iter().enumerate() {
            if model.slots[slot as usize].kind != SlotKind::Ret
                || !matches!(frame.values[n], Values::Range(..))
            {
                continue;
            }
            let (lo, hi) = model.bounds[slot as usize];
            let mut vals: Vec<i64> = ks
                .iter()
                .flat_map(|&k| &self.consts[k])
                .filter(|&&(s, v)| s == slot && (lo..=hi).contains(&v))
                .map(|&(_, v)| v)
                .collect();
            vals.sort_unstable();
            vals.dedup();
            // One value none of them is: the smallest, as they are sorted.
            let mut other = lo;
            for &v in &vals {
                if v == other {
                    other += 1;
                }
            }
            if other <= hi {
                vals.push(other);
                vals.sort_unstable();
            }
            frame.values[n] = Values::List(vals);
        }
    }
}

/// Checks (P1)-(P3) on `model`; gives, per transition, the constants each
/// return point slot is compared with or set to.
#[allow(clippy::type_complexity)]
fn premise(model: &Model, home: &[Home]) -> Result<Vec<Vec<(u32, i64)>>, &'static str> {
    let runs_procs: Vec<bool> = model
        .threads
        .iter()
        .map(|th| !th.frames.is_empty())
        .collect();
    // Slots that only the copies' own code may read.
    let stack_slot = |s: u32| -> bool {
        match home[s as usize] {
            Home::Copy(..) | Home::Ret(..) => true,
            Home::Other => (s as usize) < model.threads.len() && runs_procs[s as usize],
        }
    };
    let reads_stack = |e: &CExpr| {
        let mut bad = false;
        e.for_each_slot(&mut |s| bad |= stack_slot(s));
        bad
    };
    if model
        .protected
        .iter()
        .any(|p| p.excl.iter().any(reads_stack))
    {
        return Err(
            "an exclusive access predicate reads a procedure's local, a return point or the control point of a thread that runs procedures",
        );
    }
    if model.invariants.iter().any(|i| reads_stack(&i.expr)) {
        return Err(
            "an invariant reads a procedure's local, a return point or the control point of a thread that runs procedures",
        );
    }
    let is_ret = |s: u32| matches!(home[s as usize], Home::Ret(..));
    let pc_of_procs = |s: u32| (s as usize) < model.threads.len() && runs_procs[s as usize];
    let mut all = Vec::with_capacity(model.transitions.len());
    for tr in &model.transitions {
        let mut consts = Vec::new();
        // Every slot read other than by a guard `ret == c`, and every
        // return point written other than with a constant.
        let mut reads: Vec<u32> = Vec::new();
        let mut bad_write = false;
        let mut read = |s: u32| reads.push(s);
        match &tr.guard {
            Some(CExpr::Bin(BinOp::Eq, a, b)) => match (&**a, &**b) {
                (CExpr::Var { slot, .. }, CExpr::Const(v)) if is_ret(*slot) => {
                    consts.push((*slot, *v));
                }
                _ => {
                    a.for_each_slot(&mut read);
                    b.for_each_slot(&mut read);
                }
            },
            Some(g) => g.for_each_slot(&mut read),
            None => {}
        }
        if let Next::Branch(c, ..) = &tr.next {
            c.for_each_slot(&mut read);
        }
        let mut stack = tr.body.iter().collect::<Vec<&Cmd>>();
        while let Some(c) = stack.pop() {
            match c {
                Cmd::Assign(parts) => {
                    for (place, e) in parts {
                        match (place, e) {
                            (Place::Slot { slot, .. }, CExpr::Const(v)) if is_ret(*slot) => {
                                consts.push((*slot, *v));
                            }
                            _ => {
                                e.for_each_slot(&mut read);
                                place.for_each_slot(&mut read, &mut |s| bad_write |= is_ret(s));
                            }
                        }
                    }
                }
                Cmd::Assert(e) => e.for_each_slot(&mut read),
                Cmd::If(c, a, b) => {
                    c.for_each_slot(&mut read);
                    stack.extend(a);
                    stack.extend(b);
                }
            }
        }
        if reads.iter().any(|&s| pc_of_procs(s)) {
            return Err("a transition reads the control point of a thread that runs procedures");
        }
        if bad_write || reads.iter().any(|&s| is_ret(s)) {
            return Err("a return point is read or written other than by calls and returns");
        }
        all.push(consts);
    }
    Ok(all)
}

/// Writes control points relative to their copy.
struct Encoder<'m> {
    model: &'m Model,
    home: &'m [Home],
}

/// Tags of the written form: one per kind of item, so that no two
/// different transitions are written alike.
mod tag {
    pub const ABS_SLOT: i64 = 0;
    pub const OWN_RET: i64 = 1;
    pub const CALLEE_RET: i64 = 2;
    pub const CALLER_RET: i64 = 3;
    pub const OWN_SLOT: i64 = 4;
    pub const CALLEE_SLOT: i64 = 5;
    pub const CALLER_SLOT: i64 = 6;
    pub const OWN_POINT: i64 = 7;
    pub const CALLEE_POINT: i64 = 8;
    pub const CALLER_POINT: i64 = 9;
    pub const ABS_POINT: i64 = 10;
    pub const ALIAS: i64 = 11;
    pub const CONST: i64 = 20;
    pub const VAR: i64 = 21;
    pub const ELEM: i64 = 22;
    pub const AT: i64 = 23;
    pub const LOCAL_OF: i64 = 24;
    pub const BOUND: i64 = 25;
    pub const NOT: i64 = 26;
    pub const NEG: i64 = 27;
    pub const BIN: i64 = 28;
    pub const QUANT: i64 = 29;
    pub const NONE: i64 = 30;
    pub const PLACE: i64 = 31;
    pub const ASSIGN: i64 = 40;
    pub const ASSERT: i64 = 41;
    pub const IF: i64 = 42;
    pub const TRANSITION: i64 = 50;
    pub const TO: i64 = 51;
    pub const BRANCH: i64 = 52;
    pub const RET_CONST: i64 = 53;
}

/// The copy being written, and thread.
#[derive(Clone, Copy)]
struct Ctx {
    t: usize,
    f: usize,
    depth: u32,
}

impl Encoder<'_> {
    /// Point `pc` of copy `f` of thread `t`, written relative to the copy,
    /// with its class and lockset; `None` when it cannot be written so
    /// (an array that spans two copies), and is then alike no other.
    fn point(&self, t: usize, f: u32, pc: i64, stops: bool, held: &[u32]) -> Option<Vec<i64>> {
        let th = &self.model.threads[t];
        let cx = Ctx {
            t,
            f: f as usize,
            depth: th.frames[f as usize].depth,
        };
        let fr = &th.frames[f as usize];
        let mut out = vec![
            i64::from(fr.proc),
            pc - fr.points.start,
            i64::from(stops),
            held.len() as i64,
        ];
        out.extend(held.iter().map(|&m| i64::from(m)));
        let ks = th.points[pc as usize].transitions.clone();
        out.push(ks.len() as i64);
        for k in ks {
            self.transition(cx, &self.model.transitions[k], &mut out)?;
        }
        Some(out)
    }

    fn transition(&self, cx: Ctx, tr: &Transition, out: &mut Vec<i64>) -> Option<()> {
        out.push(tag::TRANSITION);
        match &tr.guard {
            None => out.push(tag::NONE),
            Some(CExpr::Bin(BinOp::Eq, a, b)) if matches!((&**a, &**b), (CExpr::Var { slot, .. }, CExpr::Const(_)) if matches!(self.home[*slot as usize], Home::Ret(..))) =>
            {
                let (CExpr::Var { slot, .. }, CExpr::Const(v)) = (&**a, &**b) else {
                    unreachable!("matched above")
                };
                out.push(tag::RET_CONST);
                self.slot(cx, *slot, out);
                self.ret_value(cx, *v, out);
            }
            Some(g) => self.expr(cx, g, out)?,
        }
        out.push(tr.body.len() as i64);
        for c in &tr.body {
            self.cmd(cx, c, out)?;
        }
        match &tr.next {
            Next::To(pc) => {
                out.push(tag::TO);
                self.pt(cx, *pc, out);
            }
            Next::Branch(c, a, b) => {
                out.push(tag::BRANCH);
                self.expr(cx, c, out)?;
                self.pt(cx, *a, out);
                self.pt(cx, *b, out);
            }
        }
        match tr.stack {
            StackOp::None => out.push(0),
            StackOp::Call(g) => {
                let callee = &self.model.threads[cx.t].frames[g as usize];
                if callee.depth != cx.depth + 1 {
                    return None;
                }
                out.extend([1, i64::from(callee.proc)]);
            }
            StackOp::Return => out.push(2),
            StackOp::Overflow => out.push(3),
        }
        for list in [
            &tr.recheck_overlap,
            &tr.recheck_invariants,
            &tr.touches_excl,
        ] {
            out.push(list.len() as i64);
            out.extend(list.iter().map(|&x| i64::from(x)));
        }
        Some(())
    }

    fn cmd(&self, cx: Ctx, c: &Cmd, out: &mut Vec<i64>) -> Option<()> {
        match c {
            Cmd::Assign(parts) => {
                out.extend([tag::ASSIGN, parts.len() as i64]);
                for (place, e) in parts {
                    self.place(cx, place, out)?;
                    match (place, e) {
                        (Place::Slot { slot, .. }, CExpr::Const(v))
                            if matches!(self.home[*slot as usize], Home::Ret(..)) =>
                        {
                            out.push(tag::RET_CONST);
                            self.ret_value(cx, *v, out);
                        }
                        _ => self.expr(cx, e, out)?,
                    }
                }
            }
            Cmd::Assert(e) => {
                out.push(tag::ASSERT);
                self.expr(cx, e, out)?;
            }
            Cmd::If(c, a, b) => {
                out.extend([tag::IF, a.len() as i64, b.len() as i64]);
                self.expr(cx, c, out)?;
                for c in a.iter().chain(b) {
                    self.cmd(cx, c, out)?;
                }
            }
        }
        Some(())
    }

    fn place(&self, cx: Ctx, p: &Place, out: &mut Vec<i64>) -> Option<()> {
        out.push(tag::PLACE);
        match p {
            Place::Slot { slot, shared } => self.var(cx, *slot, *shared, out),
            Place::Elem { array, index } => self.elem(cx, array, index, out)?,
        }
        Some(())
    }

    /// A variable, read or written: both are written the same.
    fn var(&self, cx: Ctx, slot: u32, shared: bool, out: &mut Vec<i64>) {
        out.extend([tag::VAR, i64::from(shared)]);
        self.slot(cx, slot, out);
    }

    /// An array element `array[index]`, read or written.
    fn elem(&self, cx: Ctx, array: &Array, index: &CExpr, out: &mut Vec<i64>) -> Option<()> {
        self.array(cx, array, out)?;
        self.expr(cx, index, out)
    }

    fn expr(&self, cx: Ctx, e: &CExpr, out: &mut Vec<i64>) -> Option<()> {
        match e {
            CExpr::Const(v) => out.extend([tag::CONST, *v]),
            CExpr::Var { slot, shared } => self.var(cx, *slot, *shared, out),
            CExpr::Elem { array, index } => self.elem(cx, array, index, out)?,
            CExpr::At { thread, pcs } => {
                out.extend([tag::AT, pcs.len() as i64]);
                out.extend(pcs.iter().map(|p| p.unwrap_or(-1)));
                self.expr(cx, thread, out)?;
            }
            CExpr::LocalOf { thread, slots } => {
                out.extend([tag::LOCAL_OF, slots.len() as i64]);
                for s in slots {
                    match s {
                        Some(s) => self.slot(cx, *s, out),
                        None => out.push(-1),
                    }
                }
                self.expr(cx, thread, out)?;
            }
            CExpr::Bound(k) => out.extend([tag::BOUND, i64::from(*k)]),
            CExpr::Not(a) => {
                out.push(tag::NOT);
                self.expr(cx, a, out)?;
            }
            CExpr::Neg(a) => {
                out.push(tag::NEG);
                self.expr(cx, a, out)?;
            }
            CExpr::Bin(op, a, b) => {
                out.extend([tag::BIN, *op as i64]);
                self.expr(cx, a, out)?;
                self.expr(cx, b, out)?;
            }
            CExpr::Quant(q) => {
                out.extend([tag::QUANT, i64::from(q.forall), i64::from(q.var)]);
                for e in q.parts() {
                    self.expr(cx, e, out)?;
                }
            }
        }
        Some(())
    }

    /// An array `base[0..len]`: its first and last elements must lie in
    /// one copy, or both be written as themselves, so that the renaming
    /// maps the array onto an array.
    fn array(&self, cx: Ctx, array: &Array, out: &mut Vec<i64>) -> Option<()> {
        let Array { base, len, shared } = *array;
        out.extend([tag::ELEM, i64::from(len), i64::from(shared)]);
        let last = base + len.checked_sub(1)?;
        let (a, b) = (self.where_(cx, base), self.where_(cx, last));
        let together = a.0 == b.0 && a.1 == b.1 && b.2 - a.2 == i64::from(len) - 1;
        if !together || matches!(a.0, tag::OWN_RET | tag::CALLEE_RET | tag::CALLER_RET) {
            return None;
        }
        self.slot(cx, base, out);
        Some(())
    }

    /// Where a slot is, relative to the copy where it is in its
    /// neighbourhood: `(tag, procedure, offset)`, or `(ABS_SLOT, 0, slot)`.
    fn where_(&self, cx: Ctx, s: u32) -> (i64, i64, i64) {
        let th = &self.model.threads[cx.t];
        let d = cx.depth;
        match self.home[s as usize] {
            Home::Ret(t, k) if t as usize == cx.t && k == d => (tag::OWN_RET, 0, 0),
            Home::Ret(t, k) if t as usize == cx.t && k == d + 1 => (tag::CALLEE_RET, 0, 0),
            Home::Ret(t, k) if t as usize == cx.t && k + 1 == d => (tag::CALLER_RET, 0, 0),
            Home::Copy(t, g) if t as usize == cx.t => {
                let fr = &th.frames[g as usize];
                let off = i64::from(s - fr.slots.start);
                let p = i64::from(fr.proc);
                if g as usize == cx.f {
                    (tag::OWN_SLOT, p, off)
                } else if fr.depth == d + 1 {
                    (tag::CALLEE_SLOT, p, off)
                } else if fr.depth + 1 == d {
                    (tag::CALLER_SLOT, p, off)
                } else {
                    (tag::ABS_SLOT, 0, i64::from(s))
                }
            }
            _ => (tag::ABS_SLOT, 0, i64::from(s)),
        }
    }

    /// A slot, relative to the copy where it is in its neighbourhood, with
    /// its range and initial value when it is written relative.
    fn slot(&self, cx: Ctx, s: u32, out: &mut Vec<i64>) {
        let (tag, p, off) = self.where_(cx, s);
        out.extend([tag, p, off]);
        if tag != tag::ABS_SLOT {
            let (lo, hi) = self.model.bounds[s as usize];
            out.extend([lo, hi, self.model.init[s as usize]]);
        }
    }

    /// A control point of the copy's thread, relative to the copy where it
    /// is in its neighbourhood.
    fn pt(&self, cx: Ctx, pc: i64, out: &mut Vec<i64>) {
        let th = &self.model.threads[cx.t];
        let d = cx.depth;
        if let Some(g) = th.points.get(pc as usize).and_then(|p| p.frame) {
            let fr = &th.frames[g as usize];
            let off = pc - fr.points.start;
            if g as usize == cx.f {
                return out.extend([tag::OWN_POINT, off]);
            } else if fr.depth == d + 1 {
                return out.extend([tag::CALLEE_POINT, i64::from(fr.proc), off]);
            } else if fr.depth + 1 == d {
                return out.extend([tag::CALLER_POINT, i64::from(fr.proc), off]);
            }
        }
        out.extend([tag::ABS_POINT, pc]);
    }

    /// A value of a return point slot: a control point, or past the
    /// thread's points an alias (written as itself).
    fn ret_value(&self, cx: Ctx, v: i64, out: &mut Vec<i64>) {
        let n = self.model.threads[cx.t].points.len() as i64;
        if (0..n).contains(&v) {
            self.pt(cx, v, out);
        } else {
            out.extend([tag::ALIAS, v]);
        }
    }
}
