//! Visible and invisible transitions (digest section 3).
//!
//! A transition is *visible* when (i) it contains an occurrence of an
//! unprotected shared variable (locks and semaphores included), or (ii) it
//! might change the value of an exclusive access predicate. (ii) is decided
//! semantically: for every predicate `excl(i, x)` that reads a slot the
//! transition writes, every valuation of the slots the predicate and the
//! transition read is tried, and the predicate compared before and after.
//! Above an enumeration bound the transition is taken to be visible.
//!
//! Visibility is then lifted to control points: a point is visible when any
//! of its transitions is (so visible and invisible transitions are never
//! enabled together, WFsep), and every thread's initial point is visible
//! (WFinitVis). The end of a body is a point where a thread stops.

use crate::model::{Fire, Model, NoAccess, SlotClass, SlotKind};
use crate::syntax::ast::BinOp;

/// Most valuations tried for one transition and one predicate.
pub const ENUMERATION_BOUND: u64 = 1 << 20;

/// Most work rule (ii) may do for a whole model, in expression nodes
/// evaluated (valuations tried times the cost of one try). A predicate
/// whose check would go past it is taken to be changed, as one with too
/// many valuations is: visible is always sound. It keeps classification
/// within seconds whatever the model (thousands of predicates, each with a
/// million valuations, would otherwise take hours).
pub const WORK_BOUND: u64 = 1 << 30;

/// Why a transition is visible or invisible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// (i): it reads or writes this unprotected shared slot.
    Unprotected {
        /// The slot.
        slot: u32,
        /// It writes the slot (else it only reads it).
        wrote: bool,
    },
    /// (i): it reads another thread's control point (through `at` or
    /// `init`), which that thread's steps change: in the paper's model no
    /// thread reads another's unshared variables, so the read counts as an
    /// access to a shared one.
    OtherControlPoint(u32),
    /// (i): it moves its thread into or out of a control point that another
    /// thread's transitions, or an invariant, read (through `at` or `init`).
    ObservedPoint(u32),
    /// It may change an atom of a temporal property being checked: hidden
    /// behind an invisible step, the change could not be seen.
    Atom,
    /// It writes this slot, which another thread's guard reads: hidden
    /// behind an invisible step, that thread could be able to move at
    /// states the reduced system does not store.
    Guard(u32),
    /// It writes this slot, which an invariant reads: hidden behind an
    /// invisible step, a change of the invariant could not be seen (the
    /// reduction theorem covers a predicate I only when `I u_i <= u_i I`).
    Invariant(u32),
    /// (ii): it can change `excl(thread, x)` for protected variable
    /// `protected`, e.g. from the valuation `witness` (slot, value).
    ChangesExcl {
        /// Index into `Model::protected`.
        protected: usize,
        /// The predicate's thread.
        thread: usize,
        /// A valuation of the slots read where the predicate changes.
        witness: Vec<(u32, i64)>,
        /// The predicate's value before the transition, in the witness
        /// (`None`: evaluating it faults).
        before: Option<bool>,
        /// Its value after the transition (`None`: evaluating it faults).
        after: Option<bool>,
    },
    /// (ii) was not decided: checking this predicate would take the work of
    /// the whole classification past [`WORK_BOUND`].
    TooMuchWork {
        /// Index into `Model::protected`.
        protected: usize,
        /// The predicate's thread.
        thread: usize,
        /// The work this check would need, in expression nodes evaluated.
        work: u64,
    },
    /// (ii) could not be decided: too many valuations to try.
    TooManyValues {
        /// Index into `Model::protected`.
        protected: usize,
        /// The predicate's thread.
        thread: usize,
        /// How many valuations there were.
        valuations: u128,
    },
    /// It touches only protected and local variables and keeps every predicate.
    Invisible,
}

/// The classification of one transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Visible by itself, by (i) or (ii).
    pub own: bool,
    /// Why.
    pub reason: Reason,
    /// Visible in the reduction: its control point is visible.
    pub visible: bool,
}

/// Visibility of every transition and control point of a model.
#[derive(Clone, Debug)]
pub struct Classification {
    /// One entry per transition of the model.
    pub transitions: Vec<Class>,
    /// `points[t][pc]`: thread t stops at pc (visible, or the end).
    pub points: Vec<Vec<bool>>,
}

impl Classification {
    /// Whether the reduced steps of `self` and `other` are the same: the
    /// same transitions visible, on their own and by their point.
    pub fn same_steps(&self, other: &Classification) -> bool {
        self.points == other.points
            && self
                .transitions
                .iter()
                .zip(&other.transitions)
                .all(|(a, b)| (a.own, a.visible) == (b.own, b.visible))
    }

    /// Whether thread `t` stops at control point `pc`.
    pub fn stops(&self, t: usize, pc: i64) -> bool {
        self.points[t][pc as usize]
    }
}

/// Classifies every transition and control point of `model`.
pub fn classify(model: &Model) -> Classification {
    classify_with(model, &|_| None)
}

/// The classification of `model` for temporal properties whose atoms
/// transition `k` may change where `atoms[k]`: besides what [`classify`]
/// makes visible, a transition that may change an atom, and one that
/// writes what another thread's guard reads, are visible. A reduced step
/// then changes the atoms only at its first transition, and no other
/// thread is able to move at a state inside a step and unable at the
/// state the step ends in (or the other way round), which is what carries
/// a run and its fairness between the two systems (see the book's
/// "Temporal properties under the reduction").
pub fn observing(model: &Model, atoms: &[bool]) -> Classification {
    let mut guarded: Vec<Vec<u32>> = vec![Vec::new(); model.slots.len()];
    for tr in &model.transitions {
        if let Some(g) = &tr.guard {
            g.for_each_slot(&mut |s| guarded[s as usize].push(tr.thread));
        }
    }
    classify_with(model, &|k| {
        if atoms[k] {
            return Some(Reason::Atom);
        }
        let t = model.transitions[k].thread;
        let (_, writes) = slots(model, k);
        let read = |s: &&u32| guarded[**s as usize].iter().any(|&j| j != t);
        writes.iter().find(read).map(|&s| Reason::Guard(s))
    })
}

/// [`classify`], where `extra` may make an invisible transition visible.
fn classify_with(model: &Model, extra: &dyn Fn(usize) -> Option<Reason>) -> Classification {
    let observers = Observers::new(model);
    let preds = Predicates::new(model);
    let mut scratch = Scratch::new(model);
    let transitions: Vec<(bool, Reason)> = (0..model.transitions.len())
        .map(|k| match own(model, k, &observers, &preds, &mut scratch) {
            (false, why) => extra(k).map_or((false, why), |more| (true, more)),
            own => own,
        })
        .collect();
    let points: Vec<Vec<bool>> = model
        .threads
        .iter()
        .map(|th| {
            th.points
                .iter()
                .enumerate()
                .map(|(pc, p)| {
                    pc == 0
                        || p.transitions.is_empty()
                        || p.transitions.clone().any(|k| transitions[k].0)
                })
                .collect()
        })
        .collect();
    let transitions = transitions
        .into_iter()
        .enumerate()
        .map(|(k, (own, reason))| {
            let tr = &model.transitions[k];
            Class {
                own,
                reason,
                visible: points[tr.thread as usize][tr.from as usize],
            }
        })
        .collect();
    Classification {
        transitions,
        points,
    }
}

/// A control point of a thread that other threads' transitions observe
/// (`at(t, L)`, `init(t, x)`); `None` stands for every point of the thread.
pub(crate) type Observed = std::collections::BTreeSet<(u32, Option<i64>)>;

/// The control points that transitions of other threads read.
/// Adds to `out` the control points of threads other than `own` that `e`
/// reads (a `pc == p` test names one point; any other read, all of them).
fn walk_observed(e: &crate::model::CExpr, own: u32, threads: u32, out: &mut Observed) {
    use crate::model::CExpr;
    let walk = walk_observed;
    let is_pc = |s: u32| s < threads && s != own;
    match e {
        CExpr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (CExpr::Var { slot, .. }, CExpr::Const(p))
            | (CExpr::Const(p), CExpr::Var { slot, .. })
                if is_pc(*slot) =>
            {
                out.insert((*slot, Some(*p)));
            }
            _ => {
                walk(a, own, threads, out);
                walk(b, own, threads, out);
            }
        },
        CExpr::At { thread, pcs } => {
            walk(thread, own, threads, out);
            for (t, p) in pcs.iter().enumerate() {
                if let (Some(p), true) = (p, t as u32 != own) {
                    out.insert((t as u32, Some(*p)));
                }
            }
        }
        CExpr::Not(a) | CExpr::Neg(a) => walk(a, own, threads, out),
        CExpr::Bin(_, a, b) => {
            walk(a, own, threads, out);
            walk(b, own, threads, out);
        }
        // Any other read of another thread's counter observes all of it.
        _ => e.for_each_slot(&mut |s| {
            if is_pc(s) {
                out.insert((s, None));
            }
        }),
    }
}

/// The control points of other threads that the exclusive access
/// predicates read: `excl(u, x)` observing where thread v is. A move in or
/// out of one can change u's predicate whatever u does, so a search that
/// judges predicate changes in the state at hand (movers) must not move it.
pub(crate) fn excl_observed(model: &Model) -> Observed {
    let threads = model.threads.len() as u32;
    let mut out = Observed::new();
    for p in &model.protected {
        for (u, e) in p.excl.iter().enumerate() {
            walk_observed(e, u as u32, threads, &mut out);
        }
    }
    out
}

fn observed_points(model: &Model) -> Observed {
    use crate::model::CExpr;
    let walk = walk_observed;
    let threads = model.threads.len() as u32;
    let mut out = Observed::new();
    for tr in &model.transitions {
        let mut exprs: Vec<&CExpr> = tr.guard.iter().collect();
        if let crate::model::Next::Branch(c, ..) = &tr.next {
            exprs.push(c);
        }
        for e in exprs {
            walk(e, tr.thread, threads, &mut out);
        }
        for c in &tr.body {
            // Reads inside commands are rare; they observe every point.
            c.for_each_slot(
                &mut |s| {
                    if s < threads && s != tr.thread {
                        out.insert((s, None));
                    }
                },
                &mut |_| {},
            );
        }
    }
    // An invariant is read in every state, by no thread: it observes the
    // points of all of them.
    for inv in &model.invariants {
        walk(&inv.expr, u32::MAX, threads, &mut out);
    }
    out
}

/// Per slot: some invariant reads it (control points aside: those are
/// [`observed_points`]).
fn invariant_reads(model: &Model) -> Vec<bool> {
    let mut read = vec![false; model.slots.len()];
    for inv in &model.invariants {
        inv.expr.for_each_slot(&mut |s| read[s as usize] = true);
    }
    read[..model.threads.len()].fill(false);
    read
}

/// Whether transition `k` moves its thread into or out of a control point
/// in `observed`.
pub(crate) fn moves_observed(model: &Model, k: usize, observed: &Observed) -> bool {
    let tr = &model.transitions[k];
    let targets = tr.next.targets();
    let seen =
        |p: i64| observed.contains(&(tr.thread, Some(p))) || observed.contains(&(tr.thread, None));
    seen(tr.from) || targets.iter().any(|&p| p != tr.from && seen(p))
}

/// What other threads and the invariants observe of a thread's own state,
/// beyond the shared variables: which transitions make that observable.
/// The reductions that hide a thread's steps (Stoller-Cohen's invisible
/// transitions, Flanagan-Qadeer's movers) may hide none of these.
pub(crate) struct Observers {
    observed: Observed,
    invariant_reads: Vec<bool>,
}

impl Observers {
    /// The observations of `model`.
    pub(crate) fn new(model: &Model) -> Observers {
        Observers {
            observed: observed_points(model),
            invariant_reads: invariant_reads(model),
        }
    }

    /// Why transition `k` is observed, if it is: it reads another thread's
    /// control point, moves its own thread in or out of one that something
    /// reads, or writes a slot an invariant reads.
    pub(crate) fn of(
        &self,
        model: &Model,
        k: usize,
        reads: &[u32],
        writes: &[u32],
    ) -> Option<Reason> {
        let tr = &model.transitions[k];
        // Without this, a thread whose invisible guard waits for another
        // thread's control point would count as blocked for good.
        if let Some(&s) = reads
            .iter()
            .find(|&&s| (s as usize) < model.threads.len() && s != tr.thread)
        {
            return Some(Reason::OtherControlPoint(s));
        }
        // And the other side: moving in or out of a point another thread
        // reads is visible, or the reduced system would never stop there.
        if moves_observed(model, k, &self.observed) {
            return Some(Reason::ObservedPoint(tr.thread));
        }
        writes
            .iter()
            .find(|&&s| self.invariant_reads[s as usize])
            .map(|&s| Reason::Invariant(s))
    }
}

/// Every exclusive access predicate `excl(i, x)` with the slots it reads,
/// and for every slot the predicates that read it: rule (ii) looks at the
/// predicates that read a slot a transition writes, and finding them by
/// this index instead of reading every predicate of every thread for every
/// transition keeps classification linear in the model.
struct Predicates {
    threads: usize,
    /// `reads[p * threads + i]`: the slots `excl(i, p)` reads, in order.
    reads: Vec<Vec<u32>>,
    /// `readers[s]`: the predicates (as `p * threads + i`) that read slot s,
    /// in increasing order.
    readers: Vec<Vec<u32>>,
}

impl Predicates {
    fn new(model: &Model) -> Predicates {
        let threads = model.threads.len();
        let mut reads = Vec::new();
        let mut readers = vec![Vec::new(); model.slots.len()];
        for prot in &model.protected {
            for pred in &prot.excl {
                let mut r = Vec::new();
                pred.for_each_slot(&mut |s| r.push(s));
                r.sort_unstable();
                r.dedup();
                for &s in &r {
                    readers[s as usize].push(reads.len() as u32);
                }
                reads.push(r);
            }
        }
        Predicates {
            threads,
            reads,
            readers,
        }
    }

    /// The predicates that read one of `writes`, in the order of the
    /// protected variables and then of the threads.
    fn reading(&self, writes: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = writes
            .iter()
            .flat_map(|&w| &self.readers[w as usize])
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A state to enumerate valuations in: the initial state, except while a
/// valuation is being tried (see [`changes`]).
struct Scratch {
    state: Vec<i64>,
    /// Values of the slots a transition writes, to undo its step.
    saved: Vec<i64>,
    /// Work done so far, towards [`WORK_BOUND`].
    work: u64,
    /// Valuations the last call of [`changes`] tried.
    tries: u64,
}

impl Scratch {
    /// A scratch state for `model`, with no work done yet.
    fn new(model: &Model) -> Scratch {
        Scratch {
            state: model.init.clone(),
            saved: Vec::new(),
            work: 0,
            tries: 0,
        }
    }
}

/// An upper bound on the nodes evaluated by firing `tr` once.
fn transition_cost(model: &Model, tr: &crate::model::Transition) -> u64 {
    use crate::model::{Cmd, Next, Place};
    fn cmds(model: &Model, cs: &[Cmd]) -> u64 {
        cs.iter().fold(0u64, |n, c| {
            n.saturating_add(match c {
                Cmd::Assign(parts) => parts.iter().fold(0u64, |n, (place, e)| {
                    let index = match place {
                        Place::Elem { index, .. } => index.cost(&model.bounds),
                        Place::Slot { .. } => 0,
                    };
                    n.saturating_add(e.cost(&model.bounds))
                        .saturating_add(index)
                        .saturating_add(1)
                }),
                Cmd::Assert(e) => e.cost(&model.bounds),
                Cmd::If(c, a, b) => c
                    .cost(&model.bounds)
                    .saturating_add(cmds(model, a))
                    .saturating_add(cmds(model, b)),
            })
        })
    }
    let guard = tr.guard.as_ref().map_or(0, |g| g.cost(&model.bounds));
    let next = match &tr.next {
        Next::Branch(c, ..) => c.cost(&model.bounds),
        Next::To(_) => 0,
    };
    guard
        .saturating_add(cmds(model, &tr.body))
        .saturating_add(next)
        .saturating_add(1)
}

/// Visibility of one transition by (i) and (ii).
fn own(
    model: &Model,
    k: usize,
    observers: &Observers,
    preds: &Predicates,
    scratch: &mut Scratch,
) -> (bool, Reason) {
    let (reads, writes) = slots(model, k);
    if let Some(&s) = reads
        .iter()
        .chain(&writes)
        .find(|&&s| model.slots[s as usize].class == SlotClass::Shared)
    {
        let wrote = writes.contains(&s);
        return (true, Reason::Unprotected { slot: s, wrote });
    }
    if let Some(why) = observers.of(model, k, &reads, &writes) {
        return (true, why);
    }
    // The predicates that read a slot the transition writes, in the order
    // of the protected variables and then of the threads: the first one
    // that may change is the reason.
    for q in preds.reading(&writes) {
        let (p, i) = (q as usize / preds.threads, q as usize % preds.threads);
        let reason = match try_predicate(model, k, q, preds, (&reads, &writes), scratch, |b, a| {
            b != a
        }) {
            Tried::Nothing => continue,
            Tried::Found((witness, before, after)) => Reason::ChangesExcl {
                protected: p,
                thread: i,
                witness,
                before,
                after,
            },
            Tried::TooManyValues(valuations) => Reason::TooManyValues {
                protected: p,
                thread: i,
                valuations,
            },
            Tried::TooMuchWork(work) => Reason::TooMuchWork {
                protected: p,
                thread: i,
                work,
            },
        };
        return (true, reason);
    }
    (false, Reason::Invisible)
}

/// What trying predicate `q` (as `p * threads + i`) against transition
/// `k` found.
enum Tried {
    /// A valuation where `wanted` holds of its values before and after.
    Found(Change),
    /// No such valuation.
    Nothing,
    /// Not tried: too many valuations ([`ENUMERATION_BOUND`]).
    TooManyValues(u128),
    /// Not tried: the classification's work would pass [`WORK_BOUND`].
    TooMuchWork(u64),
}

/// Tries every valuation of what predicate `q` and transition `k` read
/// (`slots`: its reads and writes), with its thread's own program counter
/// fixed to where it starts, for one where `wanted` holds of the
/// predicate's values before and after the transition.
fn try_predicate(
    model: &Model,
    k: usize,
    q: u32,
    preds: &Predicates,
    (reads, writes): (&[u32], &[u32]),
    scratch: &mut Scratch,
    wanted: fn(Option<bool>, Option<bool>) -> bool,
) -> Tried {
    let tr = &model.transitions[k];
    let (p, i) = (q as usize / preds.threads, q as usize % preds.threads);
    let pred = &model.protected[p].excl[i];
    let mut vars: Vec<u32> = preds.reads[q as usize]
        .iter()
        .chain(reads)
        .copied()
        .filter(|&s| s != tr.thread)
        .collect();
    vars.sort_unstable();
    vars.dedup();
    // Saturating: three full 64-bit ranges overflow even a u128.
    let valuations = vars
        .iter()
        .fold(1u128, |n, &s| n.saturating_mul(width(model, s)));
    if valuations > u128::from(ENUMERATION_BOUND) {
        return Tried::TooManyValues(valuations);
    }
    // Each valuation evaluates the predicate twice and fires the
    // transition once.
    let tr_cost = transition_cost(model, tr).saturating_add(writes.len() as u64);
    let per_try = pred
        .cost(&model.bounds)
        .saturating_mul(2)
        .saturating_add(tr_cost);
    let work = (valuations as u64).saturating_mul(per_try);
    if scratch.work.saturating_add(work) > WORK_BOUND {
        return Tried::TooMuchWork(work);
    }
    let found = changes(model, k, pred, &vars, writes, scratch, wanted);
    scratch.work = scratch
        .work
        .saturating_add(scratch.tries.saturating_mul(per_try));
    found.map_or(Tried::Nothing, Tried::Found)
}

fn width(model: &Model, s: u32) -> u128 {
    let (lo, hi) = model.bounds[s as usize];
    (hi as i128 - lo as i128 + 1) as u128
}

/// The slots transition `k` may read and write (its program counter is written).
pub fn slots(model: &Model, k: usize) -> (Vec<u32>, Vec<u32>) {
    let tr = &model.transitions[k];
    let (mut reads, mut writes) = (Vec::new(), vec![tr.thread]);
    if let Some(g) = &tr.guard {
        g.for_each_slot(&mut |s| reads.push(s));
    }
    for c in &tr.body {
        c.for_each_slot(&mut |s| reads.push(s), &mut |s| writes.push(s));
    }
    if let crate::model::Next::Branch(c, ..) = &tr.next {
        c.for_each_slot(&mut |s| reads.push(s));
    }
    reads.sort_unstable();
    reads.dedup();
    writes.sort_unstable();
    writes.dedup();
    (reads, writes)
}

/// A valuation of `vars` in which firing `k` changes `pred`, if there is
/// one, with the predicate's value before and after.
///
/// A predicate that cannot be evaluated (an index out of range, a division
/// by zero) has a third value, "faults", different from true and from false:
/// a transition that turns `excl(i, x)` from true into a fault changes it
/// just as one that makes it false, and hiding it behind an invisible step
/// would hide the violation the fault is.
fn changes(
    model: &Model,
    k: usize,
    pred: &crate::model::CExpr,
    vars: &[u32],
    writes: &[u32],
    scratch: &mut Scratch,
    wanted: fn(Option<bool>, Option<bool>) -> bool,
) -> Option<Change> {
    let tr = &model.transitions[k];
    let Scratch {
        state: s,
        saved,
        tries,
        ..
    } = scratch;
    *tries = 0;
    s[tr.thread as usize] = tr.from;
    for &v in vars {
        s[v as usize] = model.bounds[v as usize].0;
    }
    let mut found = None;
    loop {
        *tries += 1;
        // The step is taken in place and undone: copying the whole state
        // for every valuation would cost the size of the state each time.
        let before = pred.holds(s, &mut NoAccess).ok();
        saved.clear();
        saved.extend(writes.iter().map(|&w| s[w as usize]));
        let fired = model.fire_in_place(tr, s);
        let after = match fired {
            Fire::Done => pred.holds(s, &mut NoAccess).ok(),
            _ => None,
        };
        for (&w, &v) in writes.iter().zip(saved.iter()) {
            s[w as usize] = v;
        }
        if let Fire::Done = fired {
            if wanted(before, after) {
                let witness = vars.iter().map(|&v| (v, s[v as usize])).collect();
                found = Some((witness, before, after));
                break;
            }
        }
        // Next valuation, odometer style.
        let mut carried = true;
        for &v in vars {
            let (lo, hi) = model.bounds[v as usize];
            if s[v as usize] < hi {
                s[v as usize] += 1;
                carried = false;
                break;
            }
            s[v as usize] = lo;
        }
        if carried {
            break;
        }
    }
    // Back to the initial state for the next call.
    for &v in vars.iter().chain([&tr.thread]) {
        s[v as usize] = model.init[v as usize];
    }
    found
}

/// A valuation of the slots read where a predicate changes, with its value
/// before and after (`None`: evaluating it faults).
type Change = (Vec<(u32, i64)>, Option<bool>, Option<bool>);

/// A valuation as `x = 1, m = free`.
pub(crate) fn valuation(model: &Model, witness: &[(u32, i64)]) -> String {
    let vals: Vec<String> = witness
        .iter()
        .map(|&(s, v)| {
            format!(
                "{} = {}",
                model.slots[s as usize].name,
                model.show_value(s as usize, v)
            )
        })
        .collect();
    vals.join(", ")
}

/// A transition that may hand a protected variable to another thread: make
/// `excl(receiver, x)` true where it was not, for a receiver other than
/// its own thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandOff {
    /// The transition.
    pub transition: usize,
    /// The thread whose predicate it may make true.
    pub receiver: usize,
    /// A valuation of the slots read where it does; `None` when there were
    /// too many valuations to try, and the hand-off is assumed.
    pub witness: Option<Vec<(u32, i64)>>,
}

/// Per protected variable, the first transition (in the model's order)
/// that may hand it to another thread, decided as rule (ii) decides a
/// change: by trying every valuation of the slots the predicate and the
/// transition read, and assuming a hand-off past the bounds.
pub(crate) fn hand_offs(model: &Model) -> Vec<Option<HandOff>> {
    let preds = Predicates::new(model);
    let mut scratch = Scratch::new(model);
    let mut out = vec![None; model.protected.len()];
    for (k, tr) in model.transitions.iter().enumerate() {
        let (reads, writes) = slots(model, k);
        for &p in &tr.touches_excl {
            let p = p as usize;
            if out[p].is_some() {
                continue;
            }
            for u in (0..model.threads.len()).filter(|&u| u != tr.thread as usize) {
                let q = (p * preds.threads + u) as u32;
                let gives = |b: Option<bool>, a| b != Some(true) && a == Some(true);
                let witness = match try_predicate(
                    model,
                    k,
                    q,
                    &preds,
                    (&reads, &writes),
                    &mut scratch,
                    gives,
                ) {
                    Tried::Nothing => None,
                    Tried::Found((w, ..)) => Some(Some(w)),
                    Tried::TooManyValues(_) | Tried::TooMuchWork(_) => Some(None),
                };
                if let Some(witness) = witness {
                    out[p] = Some(HandOff {
                        transition: k,
                        receiver: u,
                        witness,
                    });
                    break;
                }
            }
        }
    }
    out
}

impl Reason {
    /// The reason in words.
    pub fn describe(&self, model: &Model) -> String {
        let name = |s: u32| model.slots[s as usize].name.clone();
        // `excl(t, x)` for thread `t` and protected variable `p`, the
        // predicate the last three reasons are about.
        let excl = |t: usize, p: usize| {
            let x = name(model.protected[p].slot);
            format!("excl({}, {x})", model.threads[t].name)
        };
        match self {
            Reason::Unprotected { slot, wrote } => unprotected(model, *slot, *wrote),
            Reason::OtherControlPoint(s) => format!("reads the control point of {}", name(*s)),
            Reason::ObservedPoint(_) => {
                "moves its thread in or out of a control point another thread or an invariant reads"
                    .to_string()
            }
            Reason::Invariant(s) => format!("writes {}, which an invariant reads", name(*s)),
            Reason::Atom => "may change an atom of a temporal property".to_string(),
            Reason::Guard(s) => format!("writes {}, which another thread's guard reads", name(*s)),
            Reason::ChangesExcl {
                protected,
                thread,
                witness,
                before,
                after,
            } => {
                let when = match witness.is_empty() {
                    true => String::new(),
                    false => format!(" when {}", valuation(model, witness)),
                };
                let value = |v: &Option<bool>| v.map_or("a fault".to_string(), |b| b.to_string());
                format!(
                    "may change {} from {} to {}{when}",
                    excl(*thread, *protected),
                    value(before),
                    value(after)
                )
            }
            Reason::TooMuchWork {
                protected,
                thread,
                work,
            } => format!(
                "may change {}: checking it would take {work} evaluations, past the bound of {WORK_BOUND} for the whole classification",
                excl(*thread, *protected)
            ),
            Reason::TooManyValues {
                protected,
                thread,
                valuations,
            } => format!(
                "may change {}: {valuations} valuations are too many to check",
                excl(*thread, *protected)
            ),
            Reason::Invisible => {
                "touches only protected and local variables and keeps every predicate".to_string()
            }
        }
    }
}

/// Rule (i) in words: what the transition does with shared slot `s`. A
/// lock or semaphore is a means of synchronisation, not data, so it is not
/// called unprotected.
pub(crate) fn unprotected(model: &Model, s: u32, wrote: bool) -> String {
    let slot = &model.slots[s as usize];
    let name = &slot.name;
    // A channel's length or buffer: the channel, not its slot.
    let channel = model.channels.iter().find(|ch| ch.slots().contains(&s));
    if let Some(ch) = channel {
        return match wrote {
            true => format!("sends on or receives from channel {}", ch.name),
            false => format!("reads channel {}", ch.name),
        };
    }
    match (slot.kind, wrote) {
        (SlotKind::Lock, true) => format!("takes or releases lock {name}"),
        (SlotKind::Lock, false) => format!("reads lock {name}"),
        (SlotKind::Sem, true) => format!("waits on or signals semaphore {name}"),
        (SlotKind::Sem, false) => format!("reads semaphore {name}"),
        (_, true) => format!("writes {name}, which no lock protects"),
        (_, false) => format!("reads {name}, which no lock protects"),
    }
}

/// The invisible control points of each thread that lie on a loop of
/// invisible points: a reduced step of that thread can run round them for
/// ever (WFfiniteInvis fails), so the search's ignoring policy matters.
/// One entry per loop (a strongly connected set of points), in source order.
pub fn invisible_loops(model: &Model, class: &Classification) -> Vec<(usize, Vec<i64>)> {
    crate::explore::control_loops(model, |t, pc| !class.points[t][pc])
}

/// The strongly connected components of the graph on `0..n` given by
/// `succ` (Tarjan's algorithm, iteratively, so deep graphs are no risk).
pub(crate) fn components(n: usize, succ: impl Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    const NONE: usize = usize::MAX;
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let (mut open, mut on_open) = (Vec::new(), vec![false; n]);
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut path: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        // The node met for the first time, numbered and put on the path at
        // the top of the loop: the root, then each tree edge's target.
        let mut enter = Some(root);
        loop {
            if let Some(w) = enter.take() {
                index[w] = counter;
                low[w] = counter;
                counter += 1;
                open.push(w);
                on_open[w] = true;
                path.push((w, succ(w), 0));
            }
            let Some((v, next, i)) = path.last_mut() else {
                break;
            };
            let v = *v;
            if let Some(&w) = next.get(*i) {
                *i += 1;
                if index[w] == NONE {
                    enter = Some(w);
                } else if on_open[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some((p, ..)) = path.last() {
                low[*p] = low[*p].min(low[v]);
            }
            if low[v] == index[v] {
                let at = open.iter().rposition(|&x| x == v).expect("v is open");
                let scc = open.split_off(at);
                for &x in &scc {
                    on_open[x] = false;
                }
                out.push(scc);
            }
        }
    }
    out
}
