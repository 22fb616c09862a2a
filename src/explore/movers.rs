//! Flanagan and Qadeer's transactions (seed 000, sections 4 and 5) on the
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
//! `m == t` on a lock, which lock semantics keeps disjoint): seed 000's
//! predicates read only the store, ours may read control points and data,
//! and moving the moment a thread gains or gives up exclusive access could
//! hide a state where two threads have it, which every mode reports.
//!
//! # The instrumentation and the partition
//!
//! Each thread has a phase bit, true in the pre-commit (right mover) part of
//! a transaction. A transition sets it to `right && (phase || at_init ||
//! !left)` (seed 000's `p'`). The assertion δ of seed 000, "an access that
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
//! Seed 000 also needs exclusive access that only its holder can give up
//! and take (its property (ii)): a transition of another thread that makes
//! `excl(u, x)` true is reported as a well-formedness violation, as WFendExcl
//! already reports one that makes it false. Deadlocks in the middle of a
//! transaction are not preserved (seed 000 section 7), so `--deadlock` is
//! refused under this reduction.

use super::budget::Budget;
use super::commit::{Fired, Ignoring, Run, Transaction};
use super::outcome::Problem;
use super::reduced::fire;
use super::search::{Emit, Expand, StepResult, Stop, Watch};
use crate::classify::{Classification, Reason};
use crate::model::{Access, Fault, Model, SlotClass, SlotKind};

/// Expands a stored state by every thread's transactions.
pub struct Movers<'m> {
    txs: Txs<'m>,
    /// The run that explores each transaction.
    pub run: Run,
}

impl<'m> Movers<'m> {
    /// The expander of `model`, with `class` telling which transitions
    /// observe control points.
    pub fn new(model: &'m Model, class: &Classification, ignoring: Ignoring) -> Movers<'m> {
        Movers {
            txs: Txs::new(model, class),
            run: Run::new(ignoring),
        }
    }
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
/// and what `--summaries --reduction movers` summarizes.
pub(super) struct Txs<'m> {
    model: &'m Model,
    /// Per transition: it reads another thread's control point or moves its
    /// thread in or out of one that others read, so it is never a mover.
    observes: Vec<bool>,
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
    /// The transactions of `model`, with `class` telling which transitions
    /// observe control points.
    pub(super) fn new(model: &'m Model, class: &Classification) -> Txs<'m> {
        let observes = class
            .transitions
            .iter()
            .map(|c| {
                matches!(
                    c.reason,
                    Reason::OtherControlPoint(_) | Reason::ObservedPoint(_)
                )
            })
            .collect();
        Txs {
            model,
            observes,
            watch: Watch::default(),
            probe: Vec::new(),
            summarizing: false,
        }
    }

    /// The transactions `--summaries` summarizes: a transition observes in
    /// every copy of its procedure if it does in one, because a summary
    /// runs a callee in the shallowest copy and is used at every depth (see
    /// [`super::summaries::uniform`]); fewer movers only end transactions
    /// earlier. Returns are judged without the stack (`summarizing`).
    pub(super) fn for_summaries(model: &'m Model, class: &Classification) -> Txs<'m> {
        let mut txs = Txs::new(model, class);
        txs.summarizing = true;
        for th in &model.threads {
            for f in &th.frames {
                let len = (f.points.end - f.points.start) as usize;
                for o in 0..len {
                    let copies = || {
                        th.frames.iter().filter(|g| g.proc == f.proc).map(move |g| {
                            th.points[g.points.start as usize + o].transitions.clone()
                        })
                    };
                    let width = copies().map(|r| r.len()).min().unwrap_or(0);
                    for i in 0..width {
                        let any = copies().any(|r| txs.observes[r.start + i]);
                        for r in copies() {
                            txs.observes[r.start + i] = any;
                        }
                    }
                }
            }
        }
        txs
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
                .all(|&(k, j)| self.observes[k] == self.observes[j])
    }
}

impl Txs<'_> {
    /// Whether thread `t` has exclusive access to `slot` in `s`. A slot
    /// whose protecting lock is being inferred (`refine --incremental`,
    /// seed 000 section 6) is exclusive while t holds every lock still a
    /// candidate; candidates only narrow, so this only grows, and an
    /// exploration made with smaller transactions stays valid.
    fn exclusive(&self, t: usize, slot: u32, s: &[i64]) -> bool {
        let model = self.model;
        if let Some(c) = self.watch.narrowing.as_ref().and_then(|n| n.get(&slot)) {
            return !c.is_empty() && c.iter().all(|&m| s[m as usize] == t as i64);
        }
        match model.slots[slot as usize].class {
            SlotClass::Local(u) => u as usize == t,
            SlotClass::Protected => model.protected_index[slot as usize]
                .is_some_and(|p| model.excl(p as usize, t, s) == Ok(true)),
            SlotClass::Shared => {
                model.slots[slot as usize].kind == SlotKind::Lock && s[slot as usize] == t as i64
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
        let left = !self.observes[k]
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
        !self.observes[k]
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
    fn in_left(&mut self, t: usize, s: &[i64]) -> bool {
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

    /// Seed 000's property (ii), the half WFendExcl does not check: no
    /// transition of one thread makes another's `excl` true.
    fn gives(&self, k: usize, before: &[i64], after: &[i64]) -> Option<Problem> {
        let model = self.model;
        let tr = &model.transitions[k];
        for &p in &tr.touches_excl {
            let p = p as usize;
            for u in (0..model.threads.len()).filter(|&u| u != tr.thread as usize) {
                if model.excl(p, u, before) != Ok(true) && model.excl(p, u, after) == Ok(true) {
                    return Some(Problem::GiveExcl {
                        protected: p,
                        receiver: u,
                    });
                }
            }
        }
        None
    }
}

impl Transaction for Txs<'_> {
    /// A node is the state and the phase bit, which is false wherever every
    /// thread is scheduled.
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
        let (s, phase) = (self.state(from), from[from.len() - 1] != 0);
        let accessed = self.accessed(k, s);
        match fire(self.model, &mut self.watch, k, s, out) {
            StepResult::Disabled => return Fired::Disabled,
            StepResult::Bad(p) => return Fired::Bad(p),
            StepResult::Ok => {}
        }
        if self.watch.enforce {
            if let Some(p) = self.gives(k, s, out) {
                return Fired::Bad(p);
            }
        }
        let slots = accessed.map(|a| a.1).unwrap_or_default();
        let mover = !self.observes[k] && !self.changes_excl(k, s, out);
        let left = mover && slots.iter().all(|&x| self.exclusive(t, x, s));
        let right = mover && slots.iter().all(|&x| self.exclusive(t, x, out));
        let at_init = s[t] == 0;
        let next = right && (phase || at_init || !left);
        let pc = out[t];
        let ends = pc == 0 || pc == self.model.threads[t].end() || (!next && !self.in_left(t, out));
        out.push(i64::from(next));
        if ends {
            Fired::Ends
        } else {
            // A post-commit state after a transition that is not a right
            // mover is a commit point (seed 003).
            Fired::Continues {
                commit: !next && !right,
            }
        }
    }
}

/// The mover type of a transition, as `classify --reduction movers` shows
/// it: from the statement's shape and the discipline, where the search
/// decides it again in each state from the predicates.
pub fn mover_kind(model: &Model, class: &Classification, k: usize) -> (&'static str, String) {
    use crate::model::{Cmd, FREE};
    let tr = &model.transitions[k];
    let c = &class.transitions[k];
    if let Reason::OtherControlPoint(_) | Reason::ObservedPoint(_) = c.reason {
        return ("non", c.reason.describe(model));
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
        return ("non", format!("accesses unprotected {}", name(s)));
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
