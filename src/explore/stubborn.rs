//! Selective search with conditional stubborn sets (Godefroid 1996, chapter
//! 4; Kahlon, Gupta and Sinha's Algo1), on the original system (`--reduction stubborn`)
//! and on the Stoller-Cohen reduced system (`--reduction sc+stubborn`, the
//! combination section 7 of the paper proposes).
//!
//! # Operations and footprints
//!
//! An *operation* of thread i in a stored state is what the search would
//! fire for i there: its transitions at its control point (`stubborn`), or
//! its reduced step (`sc+stubborn`: the transitions at its point and every
//! invisible transition the step's run can reach). Its *footprint* is the
//! slots those transitions read and write, where a transition reads, beside
//! what its guard, command and branch read, everything its own checks read:
//! the predicate `excl(i, x)` of every protected x it accesses (the
//! discipline), the predicates of every thread that it may make overlap or
//! falsify (disjointness, WFendExcl), and the invariants it may break. A
//! violation found when a transition fires is then a function of its
//! footprint, so an operation that is independent of another cannot change
//! whether that one fails. Two footprints are *dependent* when one writes a
//! slot the other reads or writes; every transition writes its own program
//! counter, so `at(i, L)` readers depend on thread i.
//!
//! # The stubborn set
//!
//! Sets are built thread by thread: a thread in the set brings all of its
//! operation. Starting from one thread with something enabled, the closure
//! adds, for each thread i in the set,
//!
//! - when i's operation is enabled, every thread j whose *future* (the
//!   transitions reachable in its control flow from its point) holds a
//!   transition dependent with it: the might-be-first-to-interfere relation;
//! - for each of i's transitions at its point that is disabled, a necessary
//!   enabling set: the threads whose future writes a slot its guard reads,
//!   none if it reads only i's own locals, and for `acquire m` while thread
//!   h holds m, just h (Stoller and Cohen section 7: only the holder releases).
//!
//! The relation is *conditional* on the state in one way: a thread's future
//! is cut at an `acquire m` of a lock held by a thread already in the set,
//! since that thread must release m first, which is in the set. Otherwise
//! it is literal: any write of a slot a guard reads may enable it, any
//! access of a slot in a footprint may interfere, whatever the values.
//! Every start thread is tried and the set with the fewest enabled
//! transitions is taken; ties go to the lowest thread index.
//!
//! # Interference
//!
//! [`Interference`] picks the footprints: static (every slot a transition
//! and its checks may touch), taken in the state (above), or those and then
//! the semantic check of [`super::persistent`], which challenges a set of
//! several threads with single threads, each shown persistent or not by
//! exploring what the others can really do (the default).
//!
//! # The ignoring proviso
//!
//! A transition whose target point is not after its source point in the
//! thread's numbering is a *back edge*; every loop of a thread's control
//! flow has one, so every cycle of states has a state where some thread
//! took one. Where the chosen set would take one, the state is fully
//! expanded instead, so every cycle has a fully expanded state and no
//! thread is ignored forever. Stubborn sets preserve deadlocks without
//! this, so `--deadlock` is exact.

use super::Interference;
use super::budget::{Budget, Halt};
use super::commit::{Fired, Run, Transaction};
use super::full::Full;
use super::persistent::{Ops, Persistent};
use super::reduced::Reduced;
use super::search::{Emit, Expand, StepResult, Stop, Watch, step_watched};
use crate::model::{CExpr, FREE, Model, SlotClass, SlotKind};
use crate::syntax::ast::BinOp;

/// Threads with more control points than this get no table of futures:
/// tabulating costs points squared.
const FUTURE_TABLE_POINTS: usize = 4096;

/// Footprints and control flow, computed once per model.
pub struct Por<'m> {
    model: &'m Model,
    /// Per transition: the slots it reads, its checks included; sorted.
    reads: Vec<Vec<u32>>,
    /// Per transition: the slots it writes, its program counter included.
    writes: Vec<Vec<u32>>,
    /// Per transition: the slots its guard reads.
    guard_reads: Vec<Vec<u32>>,
    /// Per transition: the lock it acquires (its guard is `m == free`).
    acquires: Vec<Option<u32>>,
    /// Per transition: its target points.
    targets: Vec<Vec<i64>>,
    /// Per transition: a back edge of its thread's control flow.
    back: Vec<bool>,
    /// Per thread and point: what every transition reachable from there
    /// reads and writes, ignoring locks (a quick first test; empty for
    /// threads too large to tabulate).
    future: Vec<Vec<(Vec<u32>, Vec<u32>)>>,
    /// Threads chosen over the run, to report the reduction's reach.
    pub chosen: u64,
    /// States fully expanded by the proviso.
    pub full: u64,
    /// How interference is judged.
    interference: Interference,
}

/// What one thread does in a state, for the closure.
#[derive(Clone, Default)]
pub struct Op {
    /// Its transitions at its point, and whether each is enabled.
    pub first: Vec<(usize, bool)>,
    /// The slots the operation reads, sorted.
    pub reads: Vec<u32>,
    /// The slots the operation writes, sorted.
    pub writes: Vec<u32>,
    /// It may take a back edge.
    pub back: bool,
}

impl Op {
    fn enabled(&self) -> usize {
        self.first.iter().filter(|f| f.1).count()
    }
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v.dedup();
    v
}

fn meets(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

impl<'m> Por<'m> {
    /// The footprints of `model`'s transitions.
    pub fn new(model: &'m Model, interference: Interference) -> Por<'m> {
        let pred_slots =
            |p: usize, threads: &mut dyn Iterator<Item = usize>, out: &mut Vec<u32>| {
                for t in threads {
                    model.protected[p].excl[t].for_each_slot(&mut |s| out.push(s));
                }
            };
        let n = model.transitions.len();
        let (mut reads, mut writes, mut guard_reads) = (Vec::new(), Vec::new(), Vec::new());
        let (mut acquires, mut targets, mut back) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..n {
            let tr = &model.transitions[k];
            let t = tr.thread as usize;
            let (mut r, w) = crate::classify::slots(model, k);
            for &s in r.clone().iter().chain(&w) {
                if let Some(p) = model.protected_index[s as usize] {
                    pred_slots(p as usize, &mut std::iter::once(t), &mut r);
                }
            }
            for &p in tr.recheck_overlap.iter().chain(&tr.touches_excl) {
                pred_slots(p as usize, &mut (0..model.threads.len()), &mut r);
            }
            for &i in &tr.recheck_invariants {
                model.invariants[i as usize]
                    .expr
                    .for_each_slot(&mut |s| r.push(s));
            }
            let mut g = Vec::new();
            if let Some(e) = &tr.guard {
                e.for_each_slot(&mut |s| g.push(s));
            }
            acquires.push(match &tr.guard {
                Some(CExpr::Bin(BinOp::Eq, a, b)) => match (&**a, &**b) {
                    (CExpr::Var { slot, .. }, CExpr::Const(FREE))
                        if model.slots[*slot as usize].kind == SlotKind::Lock =>
                    {
                        Some(*slot)
                    }
                    _ => None,
                },
                _ => None,
            });
            let to = tr.next.targets();
            back.push(to.iter().any(|&p| p <= tr.from));
            targets.push(to);
            reads.push(sorted(r));
            writes.push(sorted(w));
            guard_reads.push(sorted(g));
        }
        let future = model
            .threads
            .iter()
            .map(|th| {
                if th.points.len() > FUTURE_TABLE_POINTS {
                    return Vec::new();
                }
                (0..th.points.len())
                    .map(|pc| {
                        let (mut r, mut w) = (Vec::new(), Vec::new());
                        let mut seen = vec![false; th.points.len()];
                        let mut stack = vec![pc];
                        seen[pc] = true;
                        while let Some(p) = stack.pop() {
                            for k in th.points[p].transitions.clone() {
                                r.extend_from_slice(&reads[k]);
                                w.extend_from_slice(&writes[k]);
                                for &q in &targets[k] {
                                    if !std::mem::replace(&mut seen[q as usize], true) {
                                        stack.push(q as usize);
                                    }
                                }
                            }
                        }
                        (sorted(r), sorted(w))
                    })
                    .collect()
            })
            .collect();
        Por {
            model,
            future,
            reads,
            writes,
            guard_reads,
            acquires,
            targets,
            back,
            chosen: 0,
            full: 0,
            interference,
        }
    }

    /// Whether the footprint `(reads, writes)` depends on transition `k`.
    fn depends(&self, reads: &[u32], writes: &[u32], k: usize) -> bool {
        meets(writes, &self.reads[k])
            || meets(writes, &self.writes[k])
            || meets(reads, &self.writes[k])
    }

    /// Whether some transition in thread `j`'s future from its point in `s`
    /// satisfies `hit`, not passing an `acquire` of a lock that a thread in
    /// `set` holds.
    fn future_hits(
        &self,
        s: &[i64],
        j: usize,
        set: &[bool],
        hit: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        let th = &self.model.threads[j];
        let mut seen = vec![false; th.points.len()];
        let mut stack = vec![s[j]];
        seen[s[j] as usize] = true;
        while let Some(pc) = stack.pop() {
            for k in th.points[pc as usize].transitions.clone() {
                if let Some(m) = self.acquires[k] {
                    let holder = s[m as usize];
                    if holder != FREE
                        && holder != j as i64
                        && set.get(holder as usize) == Some(&true)
                    {
                        continue;
                    }
                }
                if hit(k) {
                    return true;
                }
                for &p in &self.targets[k] {
                    if !std::mem::replace(&mut seen[p as usize], true) {
                        stack.push(p);
                    }
                }
            }
        }
        false
    }

    /// The stubborn closure from thread `start`: the threads in it.
    fn closure(&self, s: &[i64], ops: &[Op], start: usize) -> Vec<bool> {
        let model = self.model;
        let n = model.threads.len();
        let mut set = vec![false; n];
        set[start] = true;
        let mut queue = vec![start];
        while let Some(i) = queue.pop() {
            let op = &ops[i];
            let mut add = Vec::new();
            if op.enabled() > 0 {
                let (r, w) = (&op.reads[..], &op.writes[..]);
                for j in (0..n).filter(|&j| !set[j]) {
                    let quiet = self.future[j]
                        .get(s[j] as usize)
                        .is_some_and(|(fr, fw)| !meets(w, fr) && !meets(w, fw) && !meets(r, fw));
                    if !quiet && self.future_hits(s, j, &set, &mut |k| self.depends(r, w, k)) {
                        add.push(j);
                    }
                }
            }
            for &(k, on) in &op.first {
                if on {
                    continue;
                }
                let g = &self.guard_reads[k];
                let own = SlotClass::Local(i as u32);
                if g.iter().all(|&x| model.slots[x as usize].class == own) {
                    continue;
                }
                if let Some(m) = self.acquires[k] {
                    let holder = s[m as usize];
                    if holder != FREE {
                        add.push(holder as usize);
                        continue;
                    }
                }
                for j in (0..n).filter(|&j| !set[j] && j != i) {
                    let quiet = self.future[j]
                        .get(s[j] as usize)
                        .is_some_and(|(_, fw)| !meets(g, fw));
                    if !quiet && self.future_hits(s, j, &set, &mut |u| meets(g, &self.writes[u])) {
                        add.push(j);
                    }
                }
            }
            for j in add {
                if j < n && !set[j] {
                    set[j] = true;
                    queue.push(j);
                }
            }
        }
        set
    }

    /// The threads to expand in `s`, whose operations are `ops`: a stubborn
    /// set with as few enabled transitions as possible, or every thread
    /// when the set would take a back edge (the proviso) or nothing is
    /// enabled.
    ///
    /// With `alone` (`--por semantic`), a set of more than one thread is
    /// then challenged by single threads, fewest enabled transitions first:
    /// `alone(i)` says whether i's operation alone is persistent (see
    /// [`super::persistent`]).
    pub fn choose(
        &mut self,
        s: &[i64],
        ops: &[Op],
        alone: Option<&mut dyn FnMut(usize) -> Result<bool, Halt>>,
    ) -> Result<Vec<bool>, Halt> {
        let n = ops.len();
        // A set that takes a back edge is replaced by every thread (the
        // proviso below): any set that takes none ranks before it.
        let backs = |set: &[bool]| (0..n).any(|i| set[i] && ops[i].back);
        let mut best: Option<((bool, usize), Vec<bool>)> = None;
        for start in (0..n).filter(|&i| ops[i].enabled() > 0) {
            let set = self.closure(s, ops, start);
            let size: usize = (0..n).filter(|&i| set[i]).map(|i| ops[i].enabled()).sum();
            let key = (backs(&set), size);
            if best.as_ref().is_none_or(|(b, _)| key < *b) {
                best = Some((key, set));
            }
        }
        let Some(((_, size), mut set)) = best else {
            return Ok(vec![true; n]);
        };
        if let Some(alone) = alone {
            let threads = set.iter().filter(|&&x| x).count();
            let mut single: Vec<usize> = (0..n)
                .filter(|&i| {
                    let e = ops[i].enabled();
                    e > 0 && (e < size || (e == size && threads > 1))
                })
                .collect();
            single.sort_by_key(|&i| (ops[i].enabled(), i));
            for i in single {
                if alone(i)? {
                    set = (0..n).map(|j| j == i).collect();
                    break;
                }
            }
        }
        if backs(&set) {
            self.full += 1;
            return Ok(vec![true; n]);
        }
        self.chosen += 1;
        Ok(set)
    }

    /// Whether transition `k` is enabled in `s` (its guard holds; a guard
    /// that faults counts as enabled, so the fault is met).
    pub fn enabled(&self, k: usize, s: &[i64]) -> bool {
        match &self.model.transitions[k].guard {
            None => true,
            Some(g) => g.holds(s, &mut crate::model::NoAccess) != Ok(false),
        }
    }

    /// The operation of thread `t` in `s`: its transitions at its point,
    /// with their footprints taken in `s`, and the transitions in `rest`
    /// (the rest of a reduced step), with their static footprints.
    pub fn op(&self, s: &[i64], t: usize, rest: &[usize]) -> Op {
        let ks = self.model.threads[t].points[s[t] as usize]
            .transitions
            .clone();
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        let mut back = false;
        let first = ks
            .map(|k| {
                let on = self.enabled(k, s);
                if on {
                    self.footprint(k, s, &mut reads, &mut writes);
                }
                back |= self.back[k];
                (k, on)
            })
            .collect();
        for &k in rest {
            reads.extend_from_slice(&self.reads[k]);
            writes.extend_from_slice(&self.writes[k]);
            back |= self.back[k];
        }
        Op {
            first,
            reads: sorted(reads),
            writes: sorted(writes),
            back,
        }
    }

    /// The footprint of transition `k` fired from `s`: the static one under
    /// [`Interference::Static`], else the one taken in `s`.
    fn footprint(&self, k: usize, s: &[i64], reads: &mut Vec<u32>, writes: &mut Vec<u32>) {
        if self.interference == Interference::Static {
            reads.extend_from_slice(&self.reads[k]);
            writes.extend_from_slice(&self.writes[k]);
        } else {
            self.footprint_in(k, s, reads, writes);
        }
    }

    /// The footprint of transition `k` fired from `s`, which is finer than
    /// its static one: indices are evaluated (`x[self]` touches one
    /// element), and the discipline's predicate is read only as far as
    /// `||` and `&&` evaluate it (`m[0] == t || (y == 2 && ...)` does not
    /// read y while t holds m[0]). Whatever no transition outside the set
    /// writes keeps these values until `k` fires, so this is all `k` can
    /// depend on. The checks after `k` (disjointness, WFendExcl,
    /// invariants) are read the same way in the state `k` makes.
    fn footprint_in(&self, k: usize, s: &[i64], reads: &mut Vec<u32>, writes: &mut Vec<u32>) {
        let model = self.model;
        let tr = &model.transitions[k];
        let t = tr.thread as usize;
        let mut touched = Touched::default();
        let mut out = Vec::new();
        if let Some(g) = &tr.guard {
            let _ = g.holds(s, &mut touched);
        }
        if let crate::model::Fire::Fault(_) = model.fire(tr, s, &mut out, &mut touched) {
            // The transition fails here: keep everything it may touch.
            reads.extend_from_slice(&self.reads[k]);
            writes.extend_from_slice(&self.writes[k]);
            return;
        }
        // Reads the recorder does not see: other threads' control points.
        let (r, _) = crate::classify::slots(model, k);
        reads.extend(r.iter().filter(|&&x| (x as usize) < model.threads.len()));
        writes.push(tr.thread);
        // The recorder does not see locals either: the thread's own locals
        // it writes may be read by other threads' predicates and
        // invariants (`t.r`), which the footprints of their accesses hold.
        let own = SlotClass::Local(tr.thread);
        writes.extend(
            self.writes[k]
                .iter()
                .filter(|&&x| model.slots[x as usize].class == own),
        );
        for &(x, write) in &touched.0 {
            reads.push(x);
            if write {
                writes.push(x);
            }
            if let Some(p) = model.protected_index[x as usize] {
                support(&model.protected[p as usize].excl[t], s, reads);
            }
        }
        // The checks after `k` evaluate in the state it makes, `out`: a slot
        // `k` does not write has its value from `s` there, so the same
        // argument holds for their support in `out`.
        for &p in tr.recheck_overlap.iter().chain(&tr.touches_excl) {
            for e in &model.protected[p as usize].excl {
                support(e, &out, reads);
            }
        }
        for &i in &tr.recheck_invariants {
            support(&model.invariants[i as usize].expr, &out, reads);
        }
    }
}

/// Records the shared slots an evaluation touches, and whether it writes.
#[derive(Default)]
struct Touched(Vec<(u32, bool)>);

impl crate::model::Access for Touched {
    fn access(&mut self, slot: u32, write: bool) -> Result<(), crate::model::Fault> {
        self.0.push((slot, write));
        Ok(())
    }
}

/// The slots a condition reads in `s` when `||` and `&&` stop as soon as
/// its value is known: the value cannot change unless one of them does.
fn support(e: &CExpr, s: &[i64], out: &mut Vec<u32>) {
    use crate::model::NoAccess;
    match e {
        CExpr::Bin(op @ (BinOp::Or | BinOp::And), a, b) => {
            support(a, s, out);
            match a.holds(s, &mut NoAccess) {
                Ok(v) if v == (*op == BinOp::Or) => {}
                _ => support(b, s, out),
            }
        }
        CExpr::Not(a) => support(a, s, out),
        _ => e.for_each_slot(&mut |x| out.push(x)),
    }
}

/// `--reduction stubborn`: selective search on the original system.
pub struct Stubborn<'m> {
    full: Full<'m>,
    /// The stubborn sets.
    pub por: Por<'m>,
    /// The semantic check of single threads, under `--interference semantic`.
    semantic: Option<(Persistent, Transitions<'m>)>,
    /// Per transition, whether it may change what temporal properties
    /// observe (empty for safety checks): a set that would take an enabled
    /// visible transition is replaced by every thread, the visibility
    /// proviso that LTL-X needs (Peled, 1994; the back-edge proviso above
    /// is its cycle proviso).
    visible: Vec<bool>,
}

impl<'m> Stubborn<'m> {
    /// The selective search of `model`.
    pub fn new(model: &'m Model, interference: Interference) -> Stubborn<'m> {
        Stubborn {
            full: Full::new(model),
            por: Por::new(model, interference),
            visible: Vec::new(),
            semantic: (interference == Interference::Semantic).then(|| {
                (
                    Persistent::default(),
                    Transitions {
                        model,
                        watch: Watch::default(),
                        out: Vec::new(),
                    },
                )
            }),
        }
    }
}

impl Expand for Stubborn<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.full.watch)
    }

    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let threads = self.por.model.threads.len();
        let ops: Vec<Op> = (0..threads).map(|t| self.por.op(s, t, &[])).collect();
        let set = match semantic(&mut self.semantic, &self.full.watch) {
            Some((check, trans)) => {
                trans.watch.enforce = self.full.watch.enforce;
                let alone = &mut |i| check.alone(trans, s, i, threads, budget);
                self.por.choose(s, &ops, Some(alone))?
            }
            None => self.por.choose(s, &ops, None)?,
        };
        let set = if self.sees_visible(s, &set) {
            vec![true; threads]
        } else {
            set
        };
        self.full.expand_threads(s, Some(&set), budget, emit)
    }
}

impl Stubborn<'_> {
    /// Whether `set`, short of every thread, would take an enabled
    /// visible transition.
    fn sees_visible(&self, s: &[i64], set: &[bool]) -> bool {
        if self.visible.is_empty() || !set.contains(&false) {
            return false;
        }
        let model = self.por.model;
        (0..set.len()).filter(|&t| set[t]).any(|t| {
            model.threads[t].points[s[t] as usize]
                .transitions
                .clone()
                .any(|k| self.visible[k] && self.por.enabled(k, s))
        })
    }
}

/// The semantic check, unless the watch records or narrows (a refinement
/// pass), whose effects the check's private watch would not reproduce.
fn semantic<'a, T>(
    sem: &'a mut Option<(Persistent, T)>,
    watch: &Watch,
) -> Option<&'a mut (Persistent, T)> {
    sem.as_mut()
        .filter(|_| watch.log.is_none() && watch.narrowing.is_none())
}

/// A thread's operation in the original system: its transitions at its
/// point, each with every check of the semantics.
struct Transitions<'m> {
    model: &'m Model,
    watch: Watch,
    out: Vec<i64>,
}

impl Ops for Transitions<'_> {
    fn successors(
        &mut self,
        t: usize,
        s: &[i64],
        _budget: &mut Budget,
    ) -> Result<Option<Vec<Vec<i64>>>, Halt> {
        let mut succ = Vec::new();
        for k in self.model.threads[t].points[s[t] as usize]
            .transitions
            .clone()
        {
            match step_watched(self.model, k, s, &mut self.out, &mut self.watch) {
                StepResult::Disabled => {}
                StepResult::Ok => succ.push(self.out.clone()),
                StepResult::Bad(_) => return Ok(None),
            }
        }
        Ok(Some(succ))
    }
}

/// A reduction made of transactions (Stoller-Cohen steps, mover
/// transactions): what the selective search runs each operation with.
pub trait Transactions {
    /// The transactions and the run that explores one.
    fn parts(&mut self) -> (&mut dyn Transaction, &mut Run);
    /// What the search watches besides the semantics.
    fn watching(&mut self) -> &mut Watch;
}

/// A base layer's transactions, as stubborn sets stacked on it take them
/// (see `registry.rs`).
pub(super) type Steps<'a> = dyn Transactions + Send + 'a;

impl<T: Transactions + ?Sized> Transactions for Box<T> {
    fn parts(&mut self) -> (&mut dyn Transaction, &mut Run) {
        (**self).parts()
    }
    fn watching(&mut self) -> &mut Watch {
        (**self).watching()
    }
}

/// A thread's operation in a system of transactions: one transaction, run
/// by transactions of their own so the search's run and its logs are
/// untouched.
struct Private<'m, R> {
    model: &'m Model,
    steps: R,
}

impl<R: Transactions> Ops for Private<'_, R> {
    fn successors(
        &mut self,
        t: usize,
        s: &[i64],
        budget: &mut Budget,
    ) -> Result<Option<Vec<Vec<i64>>>, Halt> {
        // The search's run keeps its own count of the bytes it holds.
        let held = budget.exp_bytes;
        let (tx, run) = self.steps.parts();
        let mut succ = Vec::new();
        // What the check explores depends on its cache, so it does not
        // count against the state limit: the run is cut at the same place
        // whatever each worker's cache holds.
        let got = budget.without_state_limit(|budget| {
            run.explore(self.model, tx, t, s, budget, &mut |x, _, _| {
                succ.push(x.to_vec());
                Ok(())
            })
        });
        run.take_call();
        budget.exp_bytes = held;
        match got {
            Ok(_) => Ok(Some(succ)),
            Err(Stop::Found(_)) => Ok(None),
            Err(Stop::Halt) => Err(Halt),
        }
    }
}

/// `--reduction sc+stubborn` and `movers+stubborn`: selective search on a
/// system of transactions.
///
/// Each thread's transaction is run first, into a buffer, by a transaction
/// that records the footprint of every transition the run tries, in the
/// state it tries it from; that footprint is exact for the transaction, so
/// independence is judged on what it really touches. Then the stubborn set
/// is chosen and only its threads' successors are emitted.
pub struct OverSteps<'m, R> {
    steps: R,
    /// The stubborn sets.
    pub por: Por<'m>,
    /// The semantic check of single threads, under `--interference semantic`.
    semantic: Option<(Persistent, Private<'m, R>)>,
}

impl<'m, R: Transactions> OverSteps<'m, R> {
    /// The selective search of `model`'s system of transactions `steps`;
    /// `fresh` makes another copy of them for the semantic check.
    pub fn new(
        model: &'m Model,
        steps: R,
        fresh: impl FnOnce() -> R,
        interference: Interference,
    ) -> OverSteps<'m, R> {
        OverSteps {
            steps,
            por: Por::new(model, interference),
            semantic: (interference == Interference::Semantic).then(|| {
                (
                    Persistent::default(),
                    Private {
                        model,
                        steps: fresh(),
                    },
                )
            }),
        }
    }
}

impl Transactions for Reduced<'_> {
    fn parts(&mut self) -> (&mut dyn Transaction, &mut Run) {
        (&mut self.steps, &mut self.run)
    }

    fn watching(&mut self) -> &mut Watch {
        self.watch_mut()
    }
}

/// A transaction that records the footprint of everything it tries.
struct Recording<'a, 'm> {
    inner: &'a mut dyn Transaction,
    por: &'a Por<'m>,
    reads: Vec<u32>,
    writes: Vec<u32>,
    back: bool,
}

impl Transaction for Recording<'_, '_> {
    fn node(&self, s: &[i64], out: &mut Vec<i64>) {
        self.inner.node(s, out);
    }

    fn state<'a>(&self, node: &'a [i64]) -> &'a [i64] {
        self.inner.state(node)
    }

    fn fire(&mut self, t: usize, k: usize, from: &[i64], out: &mut Vec<i64>) -> Fired {
        let fired = self.inner.fire(t, k, from, out);
        let s = self.inner.state(from);
        match fired {
            // What made it disabled decides where the run goes.
            Fired::Disabled => self.reads.extend_from_slice(&self.por.guard_reads[k]),
            _ => {
                self.por.footprint(k, s, &mut self.reads, &mut self.writes);
                self.back |= self.por.back[k];
            }
        }
        fired
    }
}

impl<R: Transactions> Expand for OverSteps<'_, R> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(self.steps.watching())
    }

    fn take_findings(&mut self, out: &mut super::search::Findings) {
        self.steps.parts().1.take_findings(out);
    }

    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        // The successors wait in buffers until the set is chosen; their
        // bytes count against the memory limit until they are emitted.
        let mut buffered = 0;
        let result = self.buffer(s, budget, &mut buffered, emit);
        // Saturating: the persistent-set cache, emptied while the successors
        // were buffered, gives back what it held, which in a search over
        // several workers or a trace's re-expansion was counted in other
        // budgets than this one.
        budget.other_bytes = budget.other_bytes.saturating_sub(buffered);
        result
    }
}

impl<R: Transactions> OverSteps<'_, R> {
    /// [`Expand::expand`], counting the bytes of the buffered successors in
    /// `buffered` (and in the budget).
    fn buffer(
        &mut self,
        s: &[i64],
        budget: &mut Budget,
        buffered: &mut u64,
        emit: &mut Emit,
    ) -> Result<bool, Stop> {
        let model = self.por.model;
        let n = model.threads.len();
        let (mut ops, mut steps, mut logs) = (Vec::new(), Vec::new(), Vec::new());
        let mut enabled = false;
        for t in 0..n {
            let mut succ: Vec<(Vec<i64>, Vec<u32>)> = Vec::new();
            let (inner, run) = self.steps.parts();
            let mut rec = Recording {
                inner,
                por: &self.por,
                reads: Vec::new(),
                writes: Vec::new(),
                back: false,
            };
            enabled |= run.explore(model, &mut rec, t, s, budget, &mut |x, p, budget| {
                let bytes = (48 + 8 * x.len() + 4 * p.len()) as u64;
                budget.afford(bytes)?;
                budget.other_bytes += bytes;
                *buffered += bytes;
                succ.push((x.to_vec(), p.to_vec()));
                Ok(())
            })?;
            let first = model.threads[t].points[s[t] as usize]
                .transitions
                .clone()
                .map(|k| (k, self.por.enabled(k, s)))
                .collect();
            ops.push(Op {
                first,
                reads: sorted(rec.reads),
                writes: sorted(rec.writes),
                back: rec.back,
            });
            steps.push(succ);
            logs.push(run.take_call());
        }
        let watch = self.steps.watching();
        let enforce = watch.enforce;
        let chosen = match semantic(&mut self.semantic, watch) {
            Some((check, private)) => {
                private.steps.watching().enforce = enforce;
                let alone = &mut |i| check.alone(private, s, i, n, budget);
                self.por.choose(s, &ops, Some(alone))
            }
            None => self.por.choose(s, &ops, None),
        };
        let set = chosen?;
        for (t, (succ, log)) in steps.into_iter().zip(logs).enumerate() {
            if set[t] {
                self.steps.parts().1.keep(log, budget)?;
                for (x, p) in &succ {
                    emit(x, p, budget)?;
                }
            }
        }
        Ok(enabled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state of `model`: the given control points (by label) and slot
    /// values (by name), the rest initial.
    fn state(model: &Model, at: &[&str], values: &[(&str, i64)]) -> Vec<i64> {
        let mut s = model.init.clone();
        for (t, label) in at.iter().enumerate() {
            s[t] = model.threads[t]
                .points
                .iter()
                .position(|p| p.label.as_deref() == Some(*label))
                .expect("a label") as i64;
        }
        for (name, v) in values {
            let k = model
                .slots
                .iter()
                .position(|x| x.name == *name)
                .expect("a slot");
            s[k] = *v;
        }
        s
    }

    fn chosen(file: &str, at: &[&str], values: &[(&str, i64)]) -> Vec<bool> {
        chosen_by(Interference::State, file, at, values)
    }

    fn chosen_by(
        interference: Interference,
        file: &str,
        at: &[&str],
        values: &[(&str, i64)],
    ) -> Vec<bool> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let (_, model) = crate::load(&path, &Vec::new()).unwrap();
        let mut por = Por::new(&model, interference);
        let s = state(&model, at, values);
        let n = model.threads.len();
        let ops: Vec<Op> = (0..n).map(|t| por.op(&s, t, &[])).collect();
        let mut budget = Budget::unlimited();
        let mut check = Persistent::default();
        let mut trans = Transitions {
            model: &model,
            watch: Watch::default(),
            out: Vec::new(),
        };
        let alone = &mut |i| check.alone(&mut trans, &s, i, n, &mut budget);
        let semantic = interference == Interference::Semantic;
        por.choose(&s, &ops, semantic.then_some(alone as _))
            .unwrap()
    }

    /// The barrier with T0 past m[0] and about to take m[1], and T1 about
    /// to take m[0]: T1's acquire checks T0's predicate for x[0], `m[0] ==
    /// 0 || y == 2`, which reads y, and T0's future writes y, so footprints
    /// keep both threads. But T0 cannot make y 2 alone, and nothing else it
    /// can do touches m[0] or x[0]: the semantic check takes T1 alone. Where
    /// both are about to take m[0], they really conflict, and both stay.
    #[test]
    fn the_semantic_check_sees_what_footprints_cannot() {
        let barrier = "models/barrier.gc";
        let at = ["D", "A"];
        assert_eq!(chosen(barrier, &at, &[]), [true, true]);
        let semantic = chosen_by(Interference::Semantic, barrier, &at, &[]);
        assert_eq!(semantic, [false, true]);
        let both = ["A", "A"];
        let semantic = chosen_by(Interference::Semantic, barrier, &both, &[]);
        assert_eq!(semantic, [true, true]);
    }

    /// Seed 001, figure 1: with T1 at 3a holding lk and T2 at 1b, T2 must
    /// acquire lk before it can touch x, so T1 runs alone; with T2 at 5b,
    /// the unprotected write interferes and both run.
    #[test]
    fn lock_acquisition_patterns_decide_the_context_switch() {
        let fig1 = "models/lockpattern-fig1.gc";
        assert_eq!(chosen(fig1, &["L3a", "L1b"], &[("lk", 0)]), [true, false]);
        assert_eq!(chosen(fig1, &["L3a", "L5b"], &[("lk", 0)]), [true, true]);
        // Figure 2: T1 at 6a still holds lk1, which T2 needs on its way to
        // 6b, although 6a and 6b hold no lock in common.
        let fig2 = "models/lockpattern-fig2.gc";
        assert_eq!(chosen(fig2, &["L6a", "L1b"], &[("lk1", 0)]), [true, false]);
        // Once T2 is past 3b (holding lk2 at 6b), the writes of x meet.
        assert_eq!(
            chosen(fig2, &["L6a", "L6b"], &[("lk1", 0), ("lk2", 1)]),
            [true, true]
        );
    }
}

/// Where the reduction comes from.
const SOURCE: &str = "Godefroid, \"Partial-Order Methods for the Verification of Concurrent Systems\", 1996; the lock patterns of Kahlon, Gupta and Sinha, \"Symbolic model checking of concurrent programs using partial orders and on-the-fly transactions\", 2006";

/// Threads postponed for ever round a cycle.
const PROVISO: super::Condition = super::Condition {
    name: "ignoring proviso",
    needs: "no thread is postponed for ever round a cycle of states",
    remedy: super::Remedy::Adapt,
    how: "a state where the chosen set would take a back edge of a loop is fully expanded",
};

/// The stubborn-set part of a contract: the proviso, judged from the loops
/// of the threads' code.
pub(super) fn proviso(model: &Model) -> super::Judgement {
    let loops = super::contract::control_loops(model, |_, _| true);
    let found = loops
        .iter()
        .take(super::contract::FINDINGS)
        .map(|(t, pcs)| {
            let place = super::contract::loop_place(model, *t, pcs);
            super::Finding {
                message: format!(
                    "{} has a loop{}: states where the set would close it are fully expanded",
                    model.threads[*t].name,
                    place.map_or(String::new(), |(_, l)| format!(" at line {l}"))
                ),
                place,
            }
        });
    super::Judgement::of(PROVISO, found.collect())
}

/// Adds stubborn sets to the contract of the transactions they select
/// among (`sc+stubborn`, `movers+stubborn`).
pub(super) fn over(mut contract: super::Contract) -> super::Contract {
    contract.name = format!("{}+stubborn", contract.name);
    // Stubborn sets over transactions choose among whole steps with no
    // visibility proviso for atoms: temporal properties are not kept.
    contract.ltl(super::Preserved::No);
    contract.source = SOURCE;
    contract.conditions.push(PROVISO);
    contract
}

/// The contract of `--reduction stubborn`.
pub(super) fn contract() -> super::Contract {
    use super::Preserved;
    super::Contract {
        name: "stubborn".into(),
        source: SOURCE,
        // Every kind is named: one this list does not name is not
        // preserved (`Contract::preserves`).
        preserves: super::full::reduced_preserves(Preserved::Unfair),
        conditions: vec![PROVISO, super::contract::DISCIPLINE],
        store: None,
        symmetry: super::contract::SYMMETRY,
    }
}

/// `--reduction stubborn`.
pub(super) struct Selective<'m> {
    model: &'m Model,
    interference: Interference,
}

impl<'m> Selective<'m> {
    /// Stubborn sets on `model`'s original system.
    pub(super) fn new(model: &'m Model, interference: Interference) -> Selective<'m> {
        Selective {
            model,
            interference,
        }
    }
}

impl super::contract::Mode for Selective<'_> {
    fn judge(&self) -> Vec<super::Judgement> {
        vec![proviso(self.model), super::contract::discipline(self.model)]
    }

    fn liveness(&self, visible: &super::visible::Visible) -> Option<Box<dyn Expand + Send + '_>> {
        let mut exp = Stubborn::new(self.model, self.interference);
        exp.visible = visible.transitions(self.model);
        Some(Box::new(exp))
    }
}

impl super::expanding::Expanding for Selective<'_> {
    type Expander<'a>
        = Stubborn<'a>
    where
        Self: 'a;
    fn expander(&self) -> Stubborn<'_> {
        Stubborn::new(self.model, self.interference)
    }
    fn record(&self, outcome: &mut super::Outcome, _: &[Stubborn<'_>]) {
        outcome.interference = Some(self.interference);
    }
}
