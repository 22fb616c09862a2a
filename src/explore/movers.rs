//! Flanagan and Qadeer's transactions (2003, sections 4 and 5) on the
//! model's exclusive access predicates: right movers, one committing
//! action, then left movers.
//!
//! # Movers from exclusive access
//!
//! The exclusive access predicate `E(t, x)` of a variable is `excl(t, x)`
//! for a protected variable, `m == t` for a lock m, and false for every
//! other shared variable (unprotected ones, semaphores). A transition of
//! thread t *accesses* the shared slots its guard reads and its command
//! reads or writes, in the state it fires from (indices are evaluated, so
//! `x[self]` accesses one element). It is
//!
//! - a **right mover** when t has exclusive access to every slot it
//!   accesses in the state after it (an `acquire`, an access to protected
//!   data), and
//! - a **left mover** when t has it in the state before (a `release`, an
//!   access to protected data);
//!
//! a transition that reads another thread's control point, or moves its own
//! thread in or out of a point that another thread reads (`at`, `init`), is
//! neither: control points are shared as far as those readers go. Nor is a
//! transition that changes an exclusive access predicate of any thread (bar
//! `m == t` on a lock, which lock semantics keeps disjoint): Flanagan and Qadeer's
//! predicates read only the store, ours may read control points and data,
//! and moving the moment a thread gains or gives up exclusive access could
//! hide a state where two threads have it, which every mode reports.
//!
//! # The instrumentation and the partition
//!
//! Each thread has a phase bit, true in the pre-commit (right mover) part of
//! a transaction. A transition sets it to `right && (phase || at_init ||
//! !left)` (Flanagan and Qadeer's `p'`). The assertion δ of Flanagan and Qadeer, "an access that
//! is not safe for x holds `E(t, x)`", is the discipline every mode already
//! checks (a protected access needs `excl(t, x)`); locks and unprotected
//! variables are safe. A thread is in
//!
//! - `R(t)` when its phase is true and it is neither at its initial point
//!   nor ended (condition A);
//! - `L(t)` when its phase is false, it is neither at its initial point nor
//!   ended, something is enabled, and everything it can do next is a left
//!   mover (condition B);
//! - `N(t)` otherwise: between transactions.
//!
//! Condition C (every run in `L(t)` reaches `N(t)`) is not assumed: a
//! post-commit run that can go on forever is handled by commit point
//! completion (`super::commit`), where the commit points are the
//! post-commit states reached by a transition that is not a right mover.
//! Pre-commit loops need nothing: right movers commute past everything the
//! other threads do, and those were explored where the transaction began.
//!
//! # The search
//!
//! Thread t moves only where every other thread is in N. Stored states are
//! the ones where every thread is in N (and where a transaction was ended
//! by force), so the phase bits are all false there and are not stored; a
//! transaction is run depth first like a Stoller-Cohen step, and its
//! intermediate states are checked but not stored.
//!
//! # The contract
//!
//! The theorem needs more of a model than the predicates give; [`Plan`]
//! decides, before the run, where a model breaks a side condition, and the
//! reduction adapts there rather than answer wrongly: observed transitions
//! are no movers, a lock read as a value gives no exclusive access, and a
//! variable another thread may hand off (Flanagan and Qadeer's property
//! (ii): exclusive access is taken and given up only by its holder) has
//! none either. WFendExcl, the other half of (ii), is checked as the
//! search runs, and a breach refuses the model.
//!
//! # Deadlocks
//!
//! Flanagan and Qadeer's transactions do not preserve deadlocks by
//! themselves (section 7): two threads that take two locks in opposite
//! orders deadlock in the middle of their transactions, a state no
//! transaction ends in. A transaction here therefore ends before a
//! statement that may block ([`Plan::blocks`]) once it has touched more
//! than its own thread's state, and, before that, where its thread is
//! blocked (`Txs::stops_before`). Ending a transaction early only adds
//! stored states (the remainder is a transaction of its own, right movers
//! then left movers). In a deadlocked state of the original system every
//! thread that has not ended sits at a statement that may block: either
//! its transaction ended there, or it got there by steps on its own state
//! alone, which commute with everything and can be taken last; so the
//! reduced search stores the state.

use super::budget::Budget;
use super::commit::{Fired, Ignoring, Run, Transaction};
use super::contract::{self, Condition, Contract, Judgement, Mode, Remedy};
use super::expanding::Expanding;
use super::reduced::fire;
use super::search::{Emit, Expand, StepResult, Stop, Watch};
use super::summarized::Base;
use crate::certify::CertifyTheorem as Theorem;
use crate::classify::{Classification, Reason};
use crate::model::{Access, Fault, Model, SlotClass, SlotKind};

/// Expands a stored state by every thread's transactions.
pub struct Movers<'m> {
    txs: Txs<'m>,
    /// The run that explores each transaction.
    pub run: Run,
}

impl<'m> Movers<'m> {
    /// The expander of `model`, under what `plan` decided about it.
    pub fn new(model: &'m Model, plan: &'m Plan, ignoring: Ignoring) -> Movers<'m> {
        Movers {
            txs: Txs::new(model, plan),
            run: Run::new(ignoring),
        }
    }
}

/// Who reads a lock's value other than by acquiring or releasing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockReader {
    /// A transition (index into `Model::transitions`).
    Transition(usize),
    /// An invariant (index into `Model::invariants`).
    Invariant(usize),
}

/// What the mover reduction decides about a model before it runs: where
/// the model breaks a side condition of Flanagan and Qadeer's theorem, and
/// the transitions it therefore never takes for movers.
///
/// - A transition that reads another thread's control point, moves its own
///   thread in or out of a point that another thread or an invariant reads
///   (`at`, `init`), or writes a slot an invariant reads, is never a mover:
///   moving it would move what those readers see ([`Plan::fixed`]).
/// - `E(t, m) = (m == t)` for a lock m only while nothing but `acquire m`
///   and `release m` reads m: a lock read as a value by any other
///   transition (`assert m == free`), or by an invariant, has no exclusive
///   access, so its `acquire` and `release` are not movers
///   ([`Plan::read_locks`]).
/// - Exclusive access that another thread can give (a hand-off predicate:
///   a transition of thread u makes `excl(t, x)` true for t != u) breaks
///   Flanagan and Qadeer's requirement that only its holder takes and gives
///   it up: such a variable has no exclusive access under this reduction,
///   and every access to it is a non-mover, as for an unprotected variable
///   ([`Plan::handed`]).
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per transition: why it is never a mover, if it is not.
    pub fixed: Vec<Option<Reason>>,
    /// Per slot: the first reader of a lock's value other than its
    /// `acquire` and `release`.
    pub read_locks: Vec<Option<LockReader>>,
    /// Per protected variable: a transition that may hand it to another
    /// thread.
    pub handed: Vec<Option<crate::classify::HandOff>>,
    /// Per thread, per control point: whether the thread may wait there
    /// for another thread (every statement at the point is guarded, and
    /// some guard reads what another thread can change). A transaction
    /// that has touched more than its own thread's state ends before such
    /// a point, so that a deadlock is met in a stored state.
    pub blocks: Vec<Vec<bool>>,
    /// Per transition: it touches only its own thread's locals and control
    /// point, and is a mover (no other thread observes it).
    pub local: Vec<bool>,
    /// Deadlocks are checked: transactions end where [`Plan::blocks`] says.
    /// Without, whole transactions are kept (fewer states).
    pub deadlocks: bool,
}

impl Plan {
    /// The plan for `model`.
    pub fn new(model: &Model) -> Plan {
        let observers = crate::classify::Observers::new(model);
        let by_excl = crate::classify::excl_observed(model);
        let mut read_locks = vec![None; model.slots.len()];
        let fixed: Vec<Option<Reason>> = (0..model.transitions.len())
            .map(|k| {
                let (reads, writes) = crate::classify::slots(model, k);
                for &m in &reads {
                    let lock = model.slots[m as usize].kind == SlotKind::Lock;
                    // Only `acquire m` and `release m` write a lock.
                    if lock && !writes.contains(&m) && read_locks[m as usize].is_none() {
                        read_locks[m as usize] = Some(LockReader::Transition(k));
                    }
                }
                observers.of(model, k, &reads, &writes).or_else(|| {
                    // The search judges predicate changes in the state at
                    // hand; one that another thread's position decides
                    // is judged here, once for every state.
                    crate::classify::moves_observed(model, k, &by_excl)
                        .then_some(Reason::ObservedPoint(model.transitions[k].thread))
                })
            })
            .collect();
        for (i, inv) in model.invariants.iter().enumerate() {
            inv.expr.for_each_slot(&mut |m| {
                if model.slots[m as usize].kind == SlotKind::Lock
                    && read_locks[m as usize].is_none()
                {
                    read_locks[m as usize] = Some(LockReader::Invariant(i));
                }
            });
        }
        Plan {
            read_locks,
            handed: crate::classify::hand_offs(model),
            blocks: blocking_points(model),
            local: (0..model.transitions.len())
                .map(|k| fixed[k].is_none() && own_only(model, k))
                .collect(),
            fixed,
            deadlocks: true,
        }
    }

    /// The plan for `--summaries`: a transition is never a mover in every
    /// copy of its procedure if it is not in one, because a summary runs a
    /// callee in the shallowest copy and is used at every depth (see
    /// [`super::summaries::uniform`]); fewer movers only end transactions
    /// earlier. Copies list the same transitions at a point in the same
    /// order but for their returns (one per call site), so those match by
    /// their order among the others, and the returns all together.
    pub(super) fn for_summaries(mut self, model: &Model) -> Plan {
        // Summaries key on the transaction's extra word and keep their
        // transactions whole; their contract finds deadlocks in stored
        // states only.
        self.deadlocks = false;
        let returns = |k: &usize| model.transitions[*k].stack == crate::model::StackOp::Return;
        for th in &model.threads {
            for f in &th.frames {
                for o in 0..(f.points.end - f.points.start) as usize {
                    let copies: Vec<Vec<usize>> = th
                        .frames
                        .iter()
                        .filter(|g| g.proc == f.proc)
                        .map(|g| {
                            th.points[g.points.start as usize + o]
                                .transitions
                                .clone()
                                .collect()
                        })
                        .collect();
                    let rets = copies.iter().flatten().copied().filter(returns);
                    let mut groups: Vec<Vec<usize>> = vec![rets.collect()];
                    let others: Vec<Vec<usize>> = copies
                        .iter()
                        .map(|ks| ks.iter().copied().filter(|k| !returns(k)).collect())
                        .collect();
                    let width = others.iter().map(Vec::len).min().unwrap_or(0);
                    groups.extend((0..width).map(|i| others.iter().map(|ks| ks[i]).collect()));
                    for group in groups {
                        if let Some(why) = group.iter().find_map(|&k| self.fixed[k].clone()) {
                            for k in group {
                                self.fixed[k].get_or_insert_with(|| why.clone());
                            }
                        }
                    }
                }
            }
        }
        self
    }
}

/// Per thread, per control point: whether the thread may wait there for
/// another thread. A point with an unguarded statement (an assignment, an
/// `if`, `either` of unguarded branches) is never blocked, nor is a point
/// of returns, of which the real stack enables exactly one; and a guard
/// that reads only what no other thread can change (its own locals, the
/// lock a `release` gives back: only its holder changes it) is decided by
/// the thread alone.
fn blocking_points(model: &Model) -> Vec<Vec<bool>> {
    let blocks = |range: std::ops::Range<usize>| {
        let ks = range.clone().map(|k| &model.transitions[k]);
        !range.is_empty()
            && ks.clone().all(|tr| tr.guard.is_some())
            && !ks
                .clone()
                .all(|tr| tr.stack == crate::model::StackOp::Return)
            && range.clone().any(|k| !stable_guard(model, k))
    };
    model
        .threads
        .iter()
        .map(|th| {
            th.points
                .iter()
                .map(|p| blocks(p.transitions.clone()))
                .collect()
        })
        .collect()
}

/// Whether no other thread can change the truth of transition `k`'s
/// guard: it reads only its thread's own locals and control point, and
/// locks that `k` releases (a lock held by the thread stays held, and one
/// it does not hold never becomes its own but by its own `acquire`).
fn stable_guard(model: &Model, k: usize) -> bool {
    use crate::model::{CExpr, Cmd, FREE, Place};
    let tr = &model.transitions[k];
    let own = SlotClass::Local(tr.thread);
    let released = |m: u32| {
        tr.body.iter().any(|cmd| match cmd {
            Cmd::Assign(parts) => parts.iter().any(|(place, value)| {
                matches!(place, Place::Slot { slot, .. } if *slot == m)
                    && *value == CExpr::Const(FREE)
            }),
            _ => false,
        })
    };
    let mut stable = true;
    if let Some(g) = &tr.guard {
        g.for_each_slot(&mut |x| {
            let slot = &model.slots[x as usize];
            stable &= slot.class == own || (slot.kind == SlotKind::Lock && released(x));
        });
    }
    stable
}

/// Whether transition `k` reads and writes only its own thread's locals
/// (and moves its own control point).
fn own_only(model: &Model, k: usize) -> bool {
    let own = SlotClass::Local(model.transitions[k].thread);
    let (reads, writes) = crate::classify::slots(model, k);
    reads
        .iter()
        .chain(&writes)
        .all(|&x| model.slots[x as usize].class == own)
}

impl super::stubborn::Transactions for Movers<'_> {
    fn parts(&mut self) -> (&mut dyn super::commit::Transaction, &mut Run) {
        (&mut self.txs, &mut self.run)
    }

    fn watching(&mut self) -> &mut Watch {
        &mut self.txs.watch
    }
}

impl Expand for Movers<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.txs.watch)
    }

    fn take_findings(&mut self, out: &mut super::search::Findings) {
        self.run.take_findings(out);
    }

    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let model = self.txs.model;
        let mut enabled = false;
        for t in 0..model.threads.len() {
            enabled |= self.run.explore(model, &mut self.txs, t, s, budget, emit)?;
            let log = self.run.take_call();
            self.run.keep(log, budget)?;
        }
        Ok(enabled)
    }
}

/// The mover transactions of a model: what [`Movers`] runs one by one,
/// and what `--summaries --reduction movers` summarizes. `certify
/// --reduction movers` judges its steps with the same functions
/// ([`Txs::step_phase`], [`Txs::in_left`]).
pub(crate) struct Txs<'m> {
    model: &'m Model,
    /// What the reduction decided about the model before running.
    plan: &'m Plan,
    watch: Watch,
    probe: Vec<i64>,
    /// Fired on the nodes of summaries, where the frames below the top one
    /// are forgotten: a return cannot be fired there to see whether it is
    /// a left mover, and is judged by what it may touch instead.
    summarizing: bool,
}

/// Records the shared slots an evaluation touches.
#[derive(Default)]
struct Touched(Vec<u32>);

impl Access for Touched {
    fn access(&mut self, slot: u32, _: bool) -> Result<(), Fault> {
        self.0.push(slot);
        Ok(())
    }
}

impl<'m> Txs<'m> {
    /// The transactions of `model`, under what `plan` decided about it.
    pub(crate) fn new(model: &'m Model, plan: &'m Plan) -> Txs<'m> {
        Txs {
            model,
            plan,
            watch: Watch::default(),
            probe: Vec::new(),
            summarizing: false,
        }
    }

    /// The transactions `--summaries` summarizes, under a plan made
    /// [`Plan::for_summaries`]. Returns are judged without the stack
    /// (`summarizing`).
    pub(super) fn for_summaries(model: &'m Model, plan: &'m Plan) -> Txs<'m> {
        Txs {
            summarizing: true,
            ..Txs::new(model, plan)
        }
    }

    /// Whether transition `k` is never a mover ([`Plan::fixed`]).
    fn fixed(&self, k: usize) -> bool {
        self.plan.fixed[k].is_some()
    }
}

impl super::summaries::Stepper for Txs<'_> {
    fn watch_mut(&mut self) -> &mut Watch {
        &mut self.watch
    }

    /// Matched transitions observe control points alike; the rest of a
    /// mover's judgement reads the state and the predicates, which the
    /// swap carries over. Only whole threads: at a return point a summary
    /// judges every return of the procedure (see [`Txs::in_left`]), and
    /// those go back into each thread's own callers.
    fn alike(&self, swap: &crate::model::Swap) -> bool {
        swap.whole()
            && swap
                .transitions
                .iter()
                .all(|&(k, j)| self.fixed(k) == self.fixed(j))
    }
}

impl Txs<'_> {
    /// Whether thread `t` has exclusive access to `slot` in `s`. A slot
    /// whose protecting lock is being inferred (`refine --incremental`,
    /// Flanagan and Qadeer section 6) is exclusive while t holds every lock still a
    /// candidate; candidates only narrow, so this only grows, and an
    /// exploration made with smaller transactions stays valid.
    fn exclusive(&self, t: usize, slot: u32, s: &[i64]) -> bool {
        let model = self.model;
        if let Some(c) = self.watch.narrowing.as_ref().and_then(|n| n.get(&slot)) {
            return !c.is_empty() && c.iter().all(|&m| s[m as usize] == t as i64);
        }
        match model.slots[slot as usize].class {
            SlotClass::Local(u) => u as usize == t,
            SlotClass::Protected => model.protected_index[slot as usize].is_some_and(|p| {
                self.plan.handed[p as usize].is_none() && model.excl(p as usize, t, s) == Ok(true)
            }),
            SlotClass::Shared => {
                model.slots[slot as usize].kind == SlotKind::Lock
                    && self.plan.read_locks[slot as usize].is_none()
                    && s[slot as usize] == t as i64
            }
        }
    }

    /// The shared slots transition `k` accesses from `s`: those its guard
    /// reads and, when it is enabled, those its command and branch touch;
    /// and whether it is enabled. `None` when it faults (the step reports
    /// the fault).
    fn accessed(&mut self, k: usize, s: &[i64]) -> Option<(bool, Vec<u32>)> {
        let tr = &self.model.transitions[k];
        let mut touched = Touched::default();
        if let Some(g) = &tr.guard {
            if !g.holds(s, &mut touched).ok()? {
                return Some((false, touched.0));
            }
        }
        match self.model.fire(tr, s, &mut self.probe, &mut touched) {
            crate::model::Fire::Fault(_) => None,
            _ => Some((true, touched.0)),
        }
    }

    /// Whether transition `k` from `before` to `after` changes an exclusive
    /// access predicate of any thread, its own included (`m == t` for a
    /// lock m aside: lock semantics keeps those disjoint and stable). Such a
    /// transition is no mover: moving it would move the moment a thread
    /// gains or gives up exclusive access, and with it a state where two
    /// threads have it, which the full semantics reports.
    fn changes_excl(&self, k: usize, before: &[i64], after: &[i64]) -> bool {
        let model = self.model;
        model.transitions[k].touches_excl.iter().any(|&p| {
            (0..model.threads.len())
                .any(|u| model.excl(p as usize, u, before) != model.excl(p as usize, u, after))
        })
    }

    /// Whether `k` is a left mover from `s`, and whether it is enabled;
    /// `None` when it faults.
    fn left_from(&mut self, t: usize, k: usize, s: &[i64]) -> Option<(bool, bool)> {
        let (enabled, slots) = self.accessed(k, s)?;
        let left = !self.fixed(k)
            && slots.iter().all(|&x| self.exclusive(t, x, s))
            && !(enabled && self.changes_excl(k, s, &self.probe));
        Some((left, enabled))
    }

    /// Whether return `k` of thread `t` is a left mover from `s` whatever
    /// the stack under it: it observes no control point, changes no
    /// exclusive access predicate, and t has exclusive access to every
    /// slot it may touch (its value, its target).
    fn left_return(&self, t: usize, k: usize, s: &[i64]) -> bool {
        let model = self.model;
        let (reads, writes) = crate::classify::slots(model, k);
        !self.fixed(k)
            && model.transitions[k].stack == crate::model::StackOp::Return
            && model.transitions[k].touches_excl.is_empty()
            && reads
                .iter()
                .chain(&writes)
                .filter(|&&x| x as usize != t)
                .all(|&x| self.exclusive(t, x, s))
    }

    /// Whether `t`, in post-commit phase at `s`, is in `L(t)`: something is
    /// enabled and everything it can do is a left mover.
    pub(crate) fn in_left(&mut self, t: usize, s: &[i64]) -> bool {
        let model = self.model;
        let pc = s[t];
        if pc == 0 || pc == model.threads[t].end() {
            return false;
        }
        let range = model.threads[t].points[pc as usize].transitions.clone();
        if self.summarizing
            && range
                .clone()
                .any(|k| model.transitions[k].stack == crate::model::StackOp::Return)
        {
            // With the real stack exactly one return is enabled; which one
            // is forgotten, so every one must be a left mover.
            return range.into_iter().all(|k| self.left_return(t, k, s));
        }
        let mut enabled = false;
        for k in range {
            match self.left_from(t, k, s) {
                Some((true, on)) => enabled |= on,
                _ => return false,
            }
        }
        enabled
    }
}

impl Txs<'_> {
    /// The phase bit of thread `t` after its transition `k` completes from
    /// `s` to `after`, from phase `phase`, and whether `k` was a right mover
    /// there: Flanagan and Qadeer's `p' = right && (p || at_init || !left)`,
    /// with `left` judged in `s` and `right` in `after`.
    pub(crate) fn step_phase(
        &mut self,
        t: usize,
        k: usize,
        s: &[i64],
        after: &[i64],
        phase: bool,
    ) -> (bool, bool) {
        let slots = self.accessed(k, s).map(|a| a.1).unwrap_or_default();
        let mover = !self.fixed(k) && !self.changes_excl(k, s, after);
        let left = mover && slots.iter().all(|&x| self.exclusive(t, x, s));
        let right = mover && slots.iter().all(|&x| self.exclusive(t, x, after));
        let at_init = s[t] == 0;
        (right && (phase || at_init || !left), right)
    }
}

impl Transaction for Txs<'_> {
    /// A node is the state and one word of bits: the phase ([`PHASE`]),
    /// and whether the transaction has touched more than its thread's own
    /// state ([`BEGUN`]); both are false wherever every thread is scheduled.
    fn node(&self, s: &[i64], out: &mut Vec<i64>) {
        out.clear();
        out.extend_from_slice(s);
        out.push(0);
    }

    fn state<'a>(&self, node: &'a [i64]) -> &'a [i64] {
        &node[..node.len() - 1]
    }

    fn disabled(&self, k: usize, from: &[i64]) -> bool {
        super::reduced::guard_false(self.model, k, self.state(from))
    }

    fn fire(&mut self, t: usize, k: usize, from: &[i64], out: &mut Vec<i64>) -> Fired {
        let bits = from[from.len() - 1];
        let s = self.state(from);
        match fire(self.model, &mut self.watch, k, s, out) {
            StepResult::Disabled => return Fired::Disabled,
            StepResult::Bad(p) => return Fired::Bad(p),
            StepResult::Ok => {}
        }
        let (next, right) = self.step_phase(t, k, s, out, bits & PHASE != 0);
        let begun = self.plan.deadlocks && (bits & BEGUN != 0 || !self.plan.local[k]);
        let pc = out[t];
        let ends = pc == 0
            || pc == self.model.threads[t].end()
            || self.stops_before(t, pc as usize, begun, out)
            || (!next && !self.in_left(t, out));
        out.push((i64::from(next) * PHASE) | (i64::from(begun) * BEGUN));
        if ends {
            Fired::Ends
        } else {
            // A post-commit state after a transition that is not a right
            // mover is a commit point (2005).
            Fired::Continues {
                commit: !next && !right,
            }
        }
    }
}

/// The phase bit of a node: the transaction is in its pre-commit part.
const PHASE: i64 = 1;

/// A bit of a node: the transaction has fired a transition that touches
/// more than its own thread's state.
const BEGUN: i64 = 2;

impl Txs<'_> {
    /// Whether the transaction of `t` ends at `pc` in `s` because `t` may
    /// block there: the condition under which Lipton's reduction
    /// preserves deadlocks. Once the transaction has touched more than its
    /// own thread's state (`begun`), it ends before any statement where
    /// `t` may wait for another thread ([`Plan::blocks`]), so that another
    /// thread can take what it waits for in a stored state. Everywhere
    /// else it ends where `t` is blocked in `s`: a blocked thread that no
    /// other thread can release, or one whose transaction so far commutes
    /// with everything (its own state only), which the search must store
    /// to see the deadlock. Where deadlocks are not checked
    /// ([`Plan::deadlocks`]), transactions are kept whole.
    fn stops_before(&self, t: usize, pc: usize, begun: bool, s: &[i64]) -> bool {
        if !self.plan.deadlocks {
            return false;
        }
        let range = self.model.threads[t].points[pc].transitions.clone();
        (begun && self.plan.blocks[t][pc])
            || (!range.is_empty()
                && range
                    .clone()
                    .all(|k| super::reduced::guard_false(self.model, k, s)))
    }
}

/// The mover type of a transition, as `classify --reduction movers` shows
/// it: from the statement's shape and the discipline, where the search
/// decides it again in each state from the predicates.
pub fn mover_kind(
    model: &Model,
    class: &Classification,
    plan: &Plan,
    k: usize,
) -> (&'static str, String) {
    use crate::model::{Cmd, FREE};
    let tr = &model.transitions[k];
    let c = &class.transitions[k];
    if let Some(why) = &plan.fixed[k] {
        return ("non", why.describe(model));
    }
    let (reads, writes) = crate::classify::slots(model, k);
    let name = |s: u32| model.slots[s as usize].name.clone();
    let kind = |s: u32| model.slots[s as usize].kind;
    let class_of = |s: u32| model.slots[s as usize].class;
    if let Some(&s) = reads
        .iter()
        .chain(&writes)
        .find(|&&s| class_of(s) == SlotClass::Shared && kind(s) != SlotKind::Lock)
    {
        let why = crate::classify::unprotected(model, s, writes.contains(&s));
        return ("non", why);
    }
    if let Some(&s) = reads.iter().chain(&writes).find(|&&s| {
        model.protected_index[s as usize].is_some_and(|p| plan.handed[p as usize].is_some())
    }) {
        return (
            "non",
            format!("accesses {}, which another thread may hand off", name(s)),
        );
    }
    if let Some(&s) = reads
        .iter()
        .chain(&writes)
        .find(|&&s| plan.read_locks[s as usize].is_some())
    {
        return (
            "non",
            format!(
                "accesses lock {}, which is read as a value elsewhere",
                name(s)
            ),
        );
    }
    if let Reason::ChangesExcl { .. } = c.reason {
        return ("non", c.reason.describe(model));
    }
    let mut lock_sets = Vec::new();
    for cmd in &tr.body {
        if let Cmd::Assign(parts) = cmd {
            for (place, value) in parts {
                if let (crate::model::Place::Slot { slot, .. }, crate::model::CExpr::Const(v)) =
                    (place, value)
                {
                    if kind(*slot) == SlotKind::Lock {
                        lock_sets.push((*slot, *v));
                    }
                }
            }
        }
    }
    match lock_sets.as_slice() {
        [(m, v)] if *v == FREE => (
            "left",
            format!("releases {}: its thread holds it before", name(*m)),
        ),
        [(m, _)] => (
            "right",
            format!("acquires {}: its thread holds it after", name(*m)),
        ),
        _ if reads
            .iter()
            .chain(&writes)
            .any(|&s| kind(s) == SlotKind::Lock) =>
        {
            (
                "non",
                "reads or writes a lock other than by acquire or release".to_string(),
            )
        }
        _ if reads
            .iter()
            .chain(&writes)
            .any(|&s| class_of(s) == SlotClass::Protected) =>
        {
            (
                "both",
                "accesses only protected data, which the discipline requires its thread to hold"
                    .to_string(),
            )
        }
        _ => ("both", "touches only its thread's own state".to_string()),
    }
}

/// Where the reduction comes from.
const SOURCE: &str = "Flanagan and Qadeer, \"Transactions for software model checking\", 2003";

/// Transitions observed by other threads or invariants.
const OBSERVED: Condition = Condition {
    name: "observed transitions",
    needs: "no mover reads another thread's control point, moves its thread in or out of one that another thread or an invariant reads (`at`, `init`), or writes what an invariant reads",
    remedy: Remedy::Adapt,
    how: "such a transition is not a mover",
};

/// Locks read as values.
const LOCKS: Condition = Condition {
    name: "locks read as values",
    needs: "only `acquire m` and `release m` read a lock m, so that `m == t` is exclusive access that other threads cannot observe",
    remedy: Remedy::Adapt,
    how: "a lock read by any other transition or by an invariant gives no exclusive access: its `acquire` and `release` are not movers",
};

/// Exclusive access given by another thread.
const HAND_OFF: Condition = Condition {
    name: "hand-off predicates",
    needs: "exclusive access is taken and given up only by its holder: no transition of one thread makes `excl(t, x)` true for another thread t",
    remedy: Remedy::Adapt,
    how: "a variable that may be handed off has no exclusive access under this reduction: every access to it is a non-mover, as for an unprotected variable",
};

impl Plan {
    /// The side conditions of the mover transactions, judged on `model`,
    /// and the loops a transaction may run
    /// round under `ignoring`.
    pub(super) fn judge(&self, model: &Model, ignoring: Ignoring) -> Vec<Judgement> {
        let observed = self.fixed.iter().enumerate().filter_map(|(k, why)| {
            let why = why.as_ref()?.describe(model);
            Some((
                k,
                format!("{} {why}: it is not a mover", contract::named(model, k)),
            ))
        });
        let locks = self.read_locks.iter().enumerate().filter_map(|(m, r)| {
            let name = &model.slots[m].name;
            Some(match (*r)? {
                LockReader::Transition(k) => {
                    let tr = &model.transitions[k];
                    contract::Finding {
                        message: format!(
                            "lock {name} is read by {}: its acquire and release are not movers",
                            contract::named(model, k)
                        ),
                        place: Some((tr.span, tr.line)),
                    }
                }
                LockReader::Invariant(i) => {
                    let inv = &model.invariants[i];
                    contract::Finding {
                        message: format!(
                            "lock {name} is read by the invariant `{}` (line {}): its acquire and release are not movers",
                            inv.text, inv.line
                        ),
                        place: Some((inv.span, inv.line)),
                    }
                }
            })
        });
        let handed = self.handed.iter().enumerate().filter_map(|(p, h)| {
            let h = h.as_ref()?;
            let x = &model.slots[model.protected[p].slot as usize].name;
            let when = match &h.witness {
                Some(w) if !w.is_empty() => {
                    format!(" (when {})", crate::classify::valuation(model, w))
                }
                Some(_) => String::new(),
                None => " (too many valuations to rule it out)".into(),
            };
            Some((
                h.transition,
                format!(
                    "{} may give {x} to {}{when}: accesses to {x} are not movers",
                    contract::named(model, h.transition),
                    model.threads[h.receiver].name
                ),
            ))
        });
        // A transaction may run round any loop of its thread's code.
        let loops = contract::control_loops(model, |_, _| true);
        let own = vec![
            Judgement::of(OBSERVED, contract::at_transitions(model, observed)),
            Judgement::of(LOCKS, locks.take(contract::FINDINGS).collect()),
            Judgement::of(HAND_OFF, contract::at_transitions(model, handed)),
        ];
        contract::transactions_judged(model, own, ignoring, &loops)
    }
}

/// The contract of the mover transactions under `ignoring`.
pub(super) fn contract(ignoring: Ignoring) -> Contract {
    contract::transactions("movers", SOURCE, &[OBSERVED, LOCKS, HAND_OFF], ignoring)
}

/// `--reduction movers`.
pub(super) struct Transactions<'m> {
    model: &'m Model,
    plan: Plan,
    ignoring: Ignoring,
}

impl<'m> Transactions<'m> {
    /// The mover transactions of `model`, planned, for a check of
    /// deadlocks if `deadlocks`.
    pub(super) fn new(model: &'m Model, ignoring: Ignoring, deadlocks: bool) -> Transactions<'m> {
        Transactions {
            model,
            plan: Plan {
                deadlocks,
                ..Plan::new(model)
            },
            ignoring,
        }
    }
}

impl Mode for Transactions<'_> {
    fn judge(&self) -> Vec<Judgement> {
        self.plan.judge(self.model, self.ignoring)
    }

    fn steps(&self) -> Option<Box<super::stubborn::Steps<'_>>> {
        Some(Box::new(self.expander()))
    }
}

impl Expanding for Transactions<'_> {
    type Expander<'a>
        = Movers<'a>
    where
        Self: 'a;
    fn record(&self, outcome: &mut super::Outcome, _: &[Movers<'_>]) {
        outcome.ignoring = Some(self.ignoring);
    }
    fn expander(&self) -> Movers<'_> {
        Movers::new(self.model, &self.plan, self.ignoring)
    }
}

/// The layer of `--reduction movers`, with or without `--summaries`; its
/// theorem is Flanagan and Qadeer's (M).
pub(crate) struct MoversLayer;

impl super::registry::Layer for MoversLayer {
    fn contract(&self, options: &super::Options) -> Contract {
        contract(options.ignoring)
    }
    fn mode<'m>(&self, model: &'m Model, options: &super::Options) -> Box<dyn Mode + 'm> {
        Box::new(Transactions::new(model, options.ignoring, options.deadlock))
    }
    fn theorem(&self) -> Option<Theorem> {
        Some(Theorem::Movers)
    }
    fn summarized(&self) -> Option<Base> {
        Some(Base::Movers)
    }
}
