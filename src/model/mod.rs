//! The compiled model: threads as control-flow graphs of atomic transitions
//! `g -> c`, variables as slots of a state vector, and the exclusive access
//! predicates `excl(i, x)` of the protected variables.

mod chan;
mod compile;
mod expr;
mod layout;
mod limits;
mod quant;
mod recheck;
mod swap;
mod unroll;

pub use chan::{ChanOp, ChanSlot, Channel, Dir};
pub use compile::{
    CompileError, CompileOptions, DEFAULT_MAX_STACK, Defines, MAX_STACK, compile_with,
};
pub(crate) use expr::binop;
use expr::exec;
pub use expr::{Access, Array, CExpr, Cmd, FREE, Fault, NoAccess, Place, Quantified};
pub use layout::Layout;
pub use limits::{MAX_ARRAY, MAX_CHOICES, MAX_COMPILED, MAX_SLOTS, MAX_THREADS};
pub use quant::MAX_QUANTIFIED;
pub use swap::{Swap, Swaps};
pub use unroll::MAX_STATEMENTS;

use indexmap::IndexMap;

use crate::syntax::span::Span;

/// A compiled model, ready to explore.
#[derive(Clone, Debug)]
pub struct Model {
    /// The name after `system`, or the file stem.
    pub name: String,
    /// The threads; thread i's program counter is slot i of the state.
    pub threads: Vec<Thread>,
    /// Every slot of the state: the program counters, then the variables.
    pub slots: Vec<Slot>,
    /// `(lo, hi)` of every slot, for range checks and packing.
    pub bounds: Vec<(i64, i64)>,
    /// Every transition of every thread, grouped by thread and control point.
    pub transitions: Vec<Transition>,
    /// The protected variables (array elements one by one).
    pub protected: Vec<Protected>,
    /// For each slot, its index in `protected`, if it is protected.
    pub protected_index: Vec<Option<u32>>,
    /// `invariant` declarations.
    pub invariants: Vec<Invariant>,
    /// `ltl` declarations.
    pub ltl: Vec<LtlProperty>,
    /// The initial state.
    pub init: Vec<i64>,
    /// How states are packed for storage.
    pub layout: Layout,
    /// Variable name -> per thread, the control points of its `init` blocks.
    pub init_points: IndexMap<String, Vec<Vec<i64>>>,
    /// The procedures, in declaration order.
    pub procs: Vec<Proc>,
    /// The deepest call stack a thread may have (`--max-stack`): a call
    /// deeper than this is the stack bound, and ends a run inconclusive.
    pub max_stack: u32,
    /// The channels, array elements one by one, in declaration order.
    pub channels: Vec<Channel>,
    /// The hidden slot that `timeout` reads, in a model that waits for it:
    /// 0 in every stored state, 1 only in the copy of a state where nothing
    /// else can move that the transitions guarded by `timeout` fire from
    /// (see [`Model::timed_out`]).
    pub timeout: Option<u32>,
}

/// A procedure: its body is copied into every thread that may call it, once
/// per stack depth it may run at (see [`Frame`]).
#[derive(Clone, Debug)]
pub struct Proc {
    /// Its name.
    pub name: String,
    /// The declaration.
    pub span: Span,
    /// 1-based line of the declaration.
    pub line: usize,
    /// Whether it returns a value.
    pub returns: bool,
}

/// One copy of a procedure's body in a thread: the procedure running at
/// stack depth `depth`. Each copy has its own control points and its own
/// slots for the parameters and locals, so a call stack bounded by
/// `--max-stack` is a fixed part of the flat state: frame k of a thread is
/// the copy running at depth k and the return point in slot `ret[k - 1]`.
/// A copy that is not running holds its slots at their initial values.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Index into `Model::procs`.
    pub proc: u32,
    /// The stack depth, from 1 (called from the thread's body).
    pub depth: u32,
    /// Its control points, the end of the body last.
    pub points: std::ops::Range<i64>,
    /// Its parameters, then its locals (array elements one by one).
    pub slots: std::ops::Range<u32>,
}

/// A thread: its name and its control points.
#[derive(Clone, Debug)]
pub struct Thread {
    /// `user`, or `T0`, `T1`, ... for the copies made by `threads N`.
    pub name: String,
    /// Control points: the body's, then those of the copies of procedures
    /// in `frames`, and last the end of the body.
    pub points: Vec<Point>,
    /// The copies of procedures this thread may run, by depth.
    pub frames: Vec<Frame>,
    /// `ret[k - 1]`: the slot holding the return point of the frame at depth k.
    pub ret: Vec<u32>,
    /// Return points past the thread's points: `end() + 1 + j` stands for
    /// a call that goes on at point `ret_alias[j]`, where another call of
    /// the same copy goes on too but assigns its value elsewhere (calls in
    /// two branches of an `if` or an `either`).
    pub ret_alias: Vec<i64>,
    /// The slots of the thread body's `local` variables.
    pub locals: std::ops::Range<u32>,
    /// A shared slot that is 0 while the thread has not started (see
    /// [`crate::ast::ThreadDecl::dormant`]).
    pub dormant: Option<u32>,
    /// The name of the body it runs: the copies of `threads N` and of
    /// `thread NAME[n]` share it (symmetry looks for them there).
    pub body: Span,
}

impl Thread {
    /// The final control point.
    pub fn end(&self) -> i64 {
        self.points.len() as i64 - 1
    }

    /// Whether a thread stopped at `pc` has validly ended: `pc` is the
    /// final point, or one whose label begins with `end` (as in Promela).
    pub fn valid_end(&self, pc: i64) -> bool {
        pc == self.end()
            || (self.points.get(pc as usize))
                .is_some_and(|p| p.label.as_deref().is_some_and(|l| l.starts_with("end")))
    }
}

/// A control point: a statement of the body, or its end.
#[derive(Clone, Debug)]
pub struct Point {
    /// The statement's label, if it has one.
    pub label: Option<String>,
    /// The statement (or the closing brace, for the end point).
    pub span: Span,
    /// 1-based source line.
    pub line: usize,
    /// The outgoing transitions: a range of `Model::transitions`.
    pub transitions: std::ops::Range<usize>,
    /// The stack depth of code at this point: 0 in the thread's body.
    pub depth: u32,
    /// The copy of a procedure it belongs to (index into `Thread::frames`).
    pub frame: Option<u32>,
}

impl Point {
    /// How the point is shown in traces: its label, or `line N`.
    pub fn name(&self) -> String {
        match &self.label {
            Some(l) => l.clone(),
            None => format!("line {}", self.line),
        }
    }
}

/// What a slot holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Display name: `x`, `x[1]`, `user.r`, or the thread name for a program counter.
    pub name: String,
    /// The kind of value.
    pub kind: SlotKind,
    /// Who may access it.
    pub class: SlotClass,
    /// The declaration (the thread declaration for a program counter).
    pub span: Span,
}

/// A misuse of a lock, reported as a warning by `check` (see
/// [`Model::lock_misuses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LockMisuse {
    /// A thread ended while holding a lock.
    EndedHolding,
    /// A thread waits at `release m` while it does not hold m.
    ReleaseNotOwner,
}

impl LockMisuse {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            LockMisuse::EndedHolding => "ended-holding-lock",
            LockMisuse::ReleaseNotOwner => "release-not-owner",
        }
    }
}

/// The kind of value a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// A thread's program counter.
    Pc,
    /// An integer.
    Int,
    /// A boolean (0 or 1).
    Bool,
    /// A lock: [`FREE`] or an owner id.
    Lock,
    /// A counting semaphore.
    Sem,
    /// The return point of a stack frame: a control point of its thread.
    Ret,
}

/// The class of a slot, in the sense of the digest's section 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotClass {
    /// Unshared: a program counter or a `local` of the given thread.
    Local(u32),
    /// Unprotected shared (`shared`, `lock`, `sem`).
    Shared,
    /// Protected.
    Protected,
}

/// A protected variable (one array element) and its exclusive access predicates.
#[derive(Clone, Debug)]
pub struct Protected {
    /// The slot.
    pub slot: u32,
    /// `excl[i]`: the predicate `excl(i, x)` for thread i, specialised.
    pub excl: Vec<CExpr>,
    /// The source text of the predicate, as declared (`excl(t) = ...` or `by m`).
    pub text: String,
    /// The declaration.
    pub span: Span,
    /// 1-based line of the declaration.
    pub line: usize,
}

/// A declared invariant.
#[derive(Clone, Debug)]
pub struct Invariant {
    /// The predicate.
    pub expr: CExpr,
    /// Its source text.
    pub text: String,
    /// Where it was declared.
    pub span: Span,
    /// 1-based line of that declaration.
    pub line: usize,
}

/// A declared `ltl` property.
#[derive(Clone, Debug)]
pub struct LtlProperty {
    /// Its name.
    pub name: String,
    /// The formula as written (normalised spacing).
    pub text: String,
    /// The formula over the indices of `atoms`.
    pub formula: crate::Ltl,
    /// The distinct atoms, compiled like invariants.
    pub atoms: Vec<CExpr>,
    /// Their source text.
    pub atom_text: Vec<String>,
    /// Where it was declared.
    pub span: Span,
    /// 1-based line of that declaration.
    pub line: usize,
}

impl LtlProperty {
    /// The atoms true in `s`, as bits; the first atom that cannot be
    /// evaluated there, with its fault.
    pub fn valuation(&self, s: &[i64]) -> Result<u64, (usize, Fault)> {
        let mut w = 0;
        for (a, e) in self.atoms.iter().enumerate() {
            match e.holds(s, &mut NoAccess) {
                Ok(true) => w |= 1 << a,
                Ok(false) => {}
                Err(f) => return Err((a, f)),
            }
        }
        Ok(w)
    }
}

/// Where a transition goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Always to this control point.
    To(i64),
    /// An `if`/`while` test: the first point if the condition holds, else the second.
    Branch(CExpr, i64, i64),
}

impl Next {
    /// The control points it may lead to.
    pub fn targets(&self) -> Vec<i64> {
        match self {
            Next::To(p) => vec![*p],
            Next::Branch(_, a, b) => vec![*a, *b],
        }
    }
}

/// An atomic transition `g -> c` of one thread.
#[derive(Clone, Debug)]
pub struct Transition {
    /// The thread.
    pub thread: u32,
    /// The control point it leaves.
    pub from: i64,
    /// The guard; `None` is `true`. Guards never read protected variables.
    pub guard: Option<CExpr>,
    /// The command.
    pub body: Vec<Cmd>,
    /// The control point it enters.
    pub next: Next,
    /// The statement it executes.
    pub span: Span,
    /// 1-based line of that statement.
    pub line: usize,
    /// The statement's text (its head, for `if`, `while`).
    pub text: String,
    /// Protected variables whose disjointness this transition may change
    /// (their predicates read a slot it writes).
    pub recheck_overlap: Vec<u32>,
    /// Invariants this transition may change.
    pub recheck_invariants: Vec<u32>,
    /// Protected variables whose predicates read a slot this transition
    /// writes, for WFendExcl (`m == t` predicates on a lock m are left out:
    /// lock semantics keeps them).
    pub touches_excl: Vec<u32>,
    /// What the transition does to the call stack.
    pub stack: StackOp,
    /// What it does to a channel, for a send or receive.
    pub chan: Option<Box<ChanOp>>,
    /// Its guard reads `timeout`: where nothing else can move, it fires
    /// from [`Model::timed_out`]'s state, and its command ends by putting
    /// the slot back to 0.
    pub timeout: bool,
}

/// What a transition does to its thread's call stack. Calls and returns are
/// ordinary transitions on the frame slots (see [`Frame`]); this says which
/// they are, for traces and for summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackOp {
    /// Nothing.
    #[default]
    None,
    /// A call: it writes the callee's parameters and return point and
    /// enters the callee (index into `Thread::frames`).
    Call(u32),
    /// A return from the frame it leaves, to the return point its guard
    /// tests; it resets the frame's slots to their initial values.
    Return,
    /// A call from the deepest frame: firing it is the stack bound
    /// ([`Fault::StackBound`]).
    Overflow,
}

/// An exclusive access predicate `excl(thread, x)` that cannot be evaluated
/// in some state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExclFault {
    /// Index into `Model::protected`.
    pub protected: usize,
    /// The predicate's thread.
    pub thread: usize,
    /// What went wrong.
    pub fault: Fault,
}

/// The result of firing a transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fire {
    /// The guard is false.
    Disabled,
    /// The transition completed; the successor was written to the output.
    Done,
    /// The transition went wrong.
    Fault(Fault),
}

impl Model {
    /// Number of threads.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// The control point that transition `tr` leaves.
    pub fn point_of(&self, tr: &Transition) -> &Point {
        &self.threads[tr.thread as usize].points[tr.from as usize]
    }

    /// The transitions of thread `t` at its current control point in `s`.
    pub fn enabled_candidates(&self, s: &[i64], t: usize) -> &[Transition] {
        let p = &self.threads[t].points[s[t] as usize];
        &self.transitions[p.transitions.clone()]
    }

    /// Fires `tr` from `s`, writing the successor into `out`.
    pub fn fire<A: Access>(
        &self,
        tr: &Transition,
        s: &[i64],
        out: &mut Vec<i64>,
        acc: &mut A,
    ) -> Fire {
        if let Some(g) = &tr.guard {
            match g.holds(s, &mut NoAccess) {
                Ok(true) => {}
                Ok(false) => return Fire::Disabled,
                Err(f) => return Fire::Fault(f),
            }
        }
        out.clear();
        out.extend_from_slice(s);
        self.run(tr, out, acc)
    }

    /// Fires `tr` in `s` itself, for a caller that undoes the step by
    /// restoring the slots the transition may write (its program counter
    /// included): classification tries many valuations of a few slots of
    /// a state that may have thousands. On a fault, `s` may be half
    /// written.
    pub fn fire_in_place(&self, tr: &Transition, s: &mut [i64]) -> Fire {
        if let Some(g) = &tr.guard {
            match g.holds(s, &mut NoAccess) {
                Ok(true) => {}
                Ok(false) => return Fire::Disabled,
                Err(f) => return Fire::Fault(f),
            }
        }
        self.run(tr, s, &mut NoAccess)
    }

    /// The command of an enabled transition, then its jump, in `s`.
    #[inline]
    fn run<A: Access>(&self, tr: &Transition, s: &mut [i64], acc: &mut A) -> Fire {
        if tr.stack == StackOp::Overflow {
            return Fire::Fault(Fault::StackBound {
                bound: self.max_stack,
            });
        }
        if let Err(f) = exec(&tr.body, s, &self.bounds, acc) {
            return Fire::Fault(f);
        }
        let pc = match &tr.next {
            Next::To(pc) => *pc,
            Next::Branch(c, yes, no) => match c.holds(s, acc) {
                Ok(true) => *yes,
                Ok(false) => *no,
                Err(f) => return Fire::Fault(f),
            },
        };
        s[tr.thread as usize] = pc;
        Fire::Done
    }

    /// `excl(t, x)` for protected variable `p` in state `s`.
    pub fn excl(&self, p: usize, t: usize, s: &[i64]) -> Result<bool, Fault> {
        self.protected[p].excl[t].holds(s, &mut NoAccess)
    }

    /// The first protected variable whose predicate two threads satisfy in
    /// `s`, as `(protected index, i, j)`; `disjoint(ex)` is its absence.
    /// A predicate that cannot be evaluated is an error: disjointness is
    /// undefined in that state.
    pub fn overlap(&self, s: &[i64]) -> Result<Option<(usize, usize, usize)>, ExclFault> {
        self.overlap_among(s, 0..self.protected.len())
    }

    /// [`Model::overlap`] restricted to some protected variables.
    pub fn overlap_among(
        &self,
        s: &[i64],
        ps: impl IntoIterator<Item = usize>,
    ) -> Result<Option<(usize, usize, usize)>, ExclFault> {
        for p in ps {
            let mut owner = None;
            for t in 0..self.threads.len() {
                let holds = self.excl(p, t, s).map_err(|fault| ExclFault {
                    protected: p,
                    thread: t,
                    fault,
                })?;
                if holds {
                    if let Some(i) = owner {
                        return Ok(Some((p, i, t)));
                    }
                    owner = Some(t);
                }
            }
        }
        Ok(None)
    }

    /// True when every thread is at its final control point, at a valid
    /// end point (a label that begins with `end`, as in Promela) or not
    /// started (at its first point, its dormant flag 0): a state without
    /// successors is a deadlock only when this is false.
    pub fn all_ended(&self, s: &[i64]) -> bool {
        self.threads.iter().enumerate().all(|(t, th)| {
            th.valid_end(s[t]) || (s[t] == 0 && th.dormant.is_some_and(|k| s[k as usize] == 0))
        })
    }

    /// Misuses of locks in `s`, each with a description: a thread that has
    /// ended holding a lock, and a thread waiting at `release m` of a lock
    /// it does not own (that `release` blocks for good unless m's owner
    /// is the thread itself, which it is not).
    pub fn lock_misuses(&self, s: &[i64], out: &mut Vec<(LockMisuse, String)>) {
        for (t, th) in self.threads.iter().enumerate() {
            if s[t] == th.end() {
                for (k, slot) in self.slots.iter().enumerate() {
                    if slot.kind == SlotKind::Lock && s[k] == t as i64 {
                        out.push((
                            LockMisuse::EndedHolding,
                            format!("{} ended holding {}", th.name, slot.name),
                        ));
                    }
                }
                continue;
            }
            for tr in self.enabled_candidates(s, t) {
                if !tr.text.starts_with("release ") {
                    continue;
                }
                let Some(g) = &tr.guard else { continue };
                if g.holds(s, &mut expr::NoAccess) == Ok(false) {
                    out.push((
                        LockMisuse::ReleaseNotOwner,
                        format!(
                            "{} waits at `{}` (line {}), a lock it does not hold",
                            th.name,
                            tr.text.trim_end_matches(';'),
                            tr.line
                        ),
                    ));
                }
            }
        }
    }

    /// A value as the user wrote it: `free`, `true`, a thread's point name.
    pub fn show_value(&self, slot: usize, v: i64) -> String {
        match self.slots[slot].kind {
            SlotKind::Bool => (v != 0).to_string(),
            SlotKind::Lock if v == FREE => "free".to_string(),
            SlotKind::Lock => self
                .threads
                .get(v as usize)
                .map_or(v.to_string(), |t| t.name.clone()),
            SlotKind::Pc => self.threads[slot].points[v as usize].name(),
            SlotKind::Ret => match self.slots[slot].class {
                SlotClass::Local(t) => {
                    let th = &self.threads[t as usize];
                    let alias = usize::try_from(v - th.end() - 1).ok();
                    let point = match alias.and_then(|j| th.ret_alias.get(j)) {
                        Some(&cont) => cont,
                        None => v,
                    };
                    th.points
                        .get(point as usize)
                        .map_or(v.to_string(), Point::name)
                }
                _ => v.to_string(),
            },
            SlotKind::Int | SlotKind::Sem => v.to_string(),
        }
    }

    /// The first variable slot (after the program counters).
    pub fn first_var(&self) -> usize {
        self.threads.len()
    }

    /// Whether some transition is a rendezvous: one step of two threads.
    pub fn has_rendezvous(&self) -> bool {
        self.transitions
            .iter()
            .any(|t| t.chan.as_ref().is_some_and(|c| c.partner.is_some()))
    }

    /// Whether no transition can move in `s`, where `timeout` is false:
    /// every guard at every thread's point is false. (A guard that cannot
    /// be evaluated counts as a move: firing it is a violation.)
    pub fn blocked(&self, s: &[i64]) -> bool {
        (0..self.threads.len()).all(|t| {
            self.enabled_candidates(s, t).iter().all(|tr| {
                tr.guard
                    .as_ref()
                    .is_some_and(|g| g.holds(s, &mut NoAccess) == Ok(false))
            })
        })
    }

    /// The state that the transitions guarded by `timeout` fire from in
    /// `s`: `s` with `timeout` true, where the model has it and nothing
    /// can move in `s` (SPIN's semantics: a state's successors are those
    /// of the transitions enabled with `timeout` false, and only where
    /// there are none those enabled with it true).
    pub fn timed_out(&self, s: &[i64]) -> Option<Vec<i64>> {
        let slot = self.timeout? as usize;
        self.blocked(s).then(|| {
            let mut t = s.to_vec();
            t[slot] = 1;
            t
        })
    }

    /// Whether the model has procedures (and so frames and stacks).
    pub fn has_procs(&self) -> bool {
        !self.procs.is_empty()
    }

    /// The frames of thread `t`'s call stack in `s`, outermost first (as
    /// indices into `Thread::frames`); empty in the thread's body.
    pub fn stack(&self, s: &[i64], t: usize) -> Vec<u32> {
        let th = &self.threads[t];
        let mut out = Vec::new();
        let mut pc = s[t];
        while let Some(f) = th.points.get(pc as usize).and_then(|p| p.frame) {
            out.push(f);
            let depth = th.frames[f as usize].depth as usize;
            pc = s[th.ret[depth - 1] as usize];
            if out.len() > th.ret.len() {
                break;
            }
        }
        out.reverse();
        out
    }

    /// Which slots mean something in `s`: all but the frames of procedures
    /// that are not on their thread's stack (and the return points of
    /// depths the stack does not reach), which hold their initial values,
    /// and the hidden slot of `timeout`. Traces show only these.
    pub fn live(&self, s: &[i64]) -> Vec<bool> {
        let mut live = vec![true; self.slots.len()];
        if let Some(k) = self.timeout {
            // Always 0 in a state: no variable of the model.
            live[k as usize] = false;
        }
        for (t, th) in self.threads.iter().enumerate() {
            if th.frames.is_empty() {
                continue;
            }
            for f in &th.frames {
                for k in f.slots.clone() {
                    live[k as usize] = false;
                }
            }
            for &r in &th.ret {
                live[r as usize] = false;
            }
            for f in self.stack(s, t) {
                let f = &th.frames[f as usize];
                for k in f.slots.clone() {
                    live[k as usize] = true;
                }
                live[th.ret[f.depth as usize - 1] as usize] = true;
            }
        }
        live
    }
}

/// The protected discipline as an [`Access`]: an access by thread `thread`
/// to a protected slot is allowed only if `excl(thread, x)` holds in the
/// state `before` the transition (condition (i) of the discipline).
///
/// A forbidden access does not stop the transition: as in the paper, the
/// transition completes and the violation flag q holds in the state after.
/// The first forbidden access is kept in `violation`.
pub struct Discipline<'a> {
    /// The model.
    pub model: &'a Model,
    /// The state the transition starts from.
    pub before: &'a [i64],
    /// The thread taking the transition.
    pub thread: usize,
    /// The first forbidden access, if any.
    pub violation: Option<Fault>,
    /// Whether forbidden accesses count (a lockset pass only watches).
    pub enforce: bool,
    /// Every access to a shared slot, `(slot, write)`, when recording.
    pub accesses: Option<Vec<(u32, bool)>>,
    /// Slots whose predicate is not enforced (incremental lockset inference
    /// checks them instead).
    pub exempt: Option<&'a std::collections::BTreeMap<u32, Vec<u32>>>,
}

impl<'a> Discipline<'a> {
    /// The discipline for thread `thread` leaving state `before`.
    pub fn new(model: &'a Model, before: &'a [i64], thread: usize) -> Discipline<'a> {
        Discipline {
            model,
            before,
            thread,
            violation: None,
            enforce: true,
            accesses: None,
            exempt: None,
        }
    }
}

impl Access for Discipline<'_> {
    fn access(&mut self, slot: u32, write: bool) -> Result<(), Fault> {
        if let Some(log) = &mut self.accesses {
            log.push((slot, write));
        }
        let Some(p) = self.model.protected_index[slot as usize] else {
            return Ok(());
        };
        let exempt = self.exempt.is_some_and(|e| e.contains_key(&slot));
        if self.enforce
            && !exempt
            && self.violation.is_none()
            && !self.model.excl(p as usize, self.thread, self.before)?
        {
            self.violation = Some(Fault::Discipline { slot, write });
        }
        Ok(())
    }
}
