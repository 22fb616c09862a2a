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

use crate::model::{Fire, Model, NoAccess, SlotClass};
use crate::syntax::ast::BinOp;

/// Most valuations tried for one transition and one predicate.
pub const ENUMERATION_BOUND: u64 = 1 << 20;

/// Why a transition is visible or invisible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// (i): it reads or writes this unprotected shared slot.
    Unprotected(u32),
    /// (i): it reads another thread's control point (through `at` or
    /// `init`), which that thread's steps change: in the paper's model no
    /// thread reads another's unshared variables, so the read counts as an
    /// access to a shared one.
    OtherControlPoint(u32),
    /// (i): it moves its thread into or out of a control point that another
    /// thread's transitions read (through `at` or `init`).
    ObservedPoint(u32),
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
    /// Whether thread `t` stops at control point `pc`.
    pub fn stops(&self, t: usize, pc: i64) -> bool {
        self.points[t][pc as usize]
    }
}

/// Classifies every transition and control point of `model`.
pub fn classify(model: &Model) -> Classification {
    let observed = observed_points(model);
    let transitions: Vec<(bool, Reason)> = (0..model.transitions.len())
        .map(|k| own(model, k, &observed))
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
type Observed = std::collections::BTreeSet<(u32, Option<i64>)>;

/// The control points that transitions of other threads read.
fn observed_points(model: &Model) -> Observed {
    use crate::model::CExpr;
    fn walk(e: &CExpr, own: u32, threads: u32, out: &mut Observed) {
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
    out
}

/// Visibility of one transition by (i) and (ii).
fn own(model: &Model, k: usize, observed: &Observed) -> (bool, Reason) {
    let tr = &model.transitions[k];
    let (reads, writes) = slots(model, k);
    if let Some(&s) = reads
        .iter()
        .chain(&writes)
        .find(|&&s| model.slots[s as usize].class == SlotClass::Shared)
    {
        return (true, Reason::Unprotected(s));
    }
    // Without this, a thread whose invisible guard waits for another
    // thread's control point would count as blocked for good.
    if let Some(&s) = reads
        .iter()
        .find(|&&s| (s as usize) < model.threads.len() && s != tr.thread)
    {
        return (true, Reason::OtherControlPoint(s));
    }
    // And the other side: moving in or out of a point another thread reads
    // is visible, or the reduced system would never stop there.
    let targets = match &tr.next {
        crate::model::Next::To(p) => vec![*p],
        crate::model::Next::Branch(_, a, b) => vec![*a, *b],
    };
    let seen =
        |p: i64| observed.contains(&(tr.thread, Some(p))) || observed.contains(&(tr.thread, None));
    if seen(tr.from) || targets.iter().any(|&p| p != tr.from && seen(p)) {
        return (true, Reason::ObservedPoint(tr.thread));
    }
    for (p, prot) in model.protected.iter().enumerate() {
        for (i, pred) in prot.excl.iter().enumerate() {
            let mut pred_reads = Vec::new();
            pred.for_each_slot(&mut |s| pred_reads.push(s));
            if !pred_reads.iter().any(|s| writes.contains(s)) {
                continue;
            }
            // Enumerate what the predicate and the transition read; the
            // thread's own program counter is fixed to where it starts.
            let mut vars: Vec<u32> = pred_reads
                .iter()
                .chain(&reads)
                .copied()
                .filter(|&s| s != tr.thread)
                .collect();
            vars.sort_unstable();
            vars.dedup();
            let valuations: u128 = vars.iter().map(|&s| width(model, s)).product();
            if valuations > u128::from(ENUMERATION_BOUND) {
                return (
                    true,
                    Reason::TooManyValues {
                        protected: p,
                        thread: i,
                        valuations,
                    },
                );
            }
            if let Some((witness, before, after)) = changes(model, k, pred, &vars) {
                return (
                    true,
                    Reason::ChangesExcl {
                        protected: p,
                        thread: i,
                        witness,
                        before,
                        after,
                    },
                );
            }
        }
    }
    (false, Reason::Invisible)
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

/// A witness valuation, and the predicate's value before and after (`None`:
/// it faults).
type Change = (Vec<(u32, i64)>, Option<bool>, Option<bool>);

/// A valuation of `vars` in which firing `k` changes `pred`, if there is
/// one, with the predicate's value before and after.
///
/// A predicate that cannot be evaluated (an index out of range, a division
/// by zero) has a third value, "faults", different from true and from false:
/// a transition that turns `excl(i, x)` from true into a fault changes it
/// just as one that makes it false, and hiding it behind an invisible step
/// would hide the violation the fault is.
fn changes(model: &Model, k: usize, pred: &crate::model::CExpr, vars: &[u32]) -> Option<Change> {
    let tr = &model.transitions[k];
    let mut s = model.init.clone();
    s[tr.thread as usize] = tr.from;
    for &v in vars {
        s[v as usize] = model.bounds[v as usize].0;
    }
    let mut out = Vec::new();
    loop {
        if let Fire::Done = model.fire(tr, &s, &mut out, &mut NoAccess) {
            let before = pred.holds(&s, &mut NoAccess).ok();
            let after = pred.holds(&out, &mut NoAccess).ok();
            if before != after {
                let witness = vars.iter().map(|&v| (v, s[v as usize])).collect();
                return Some((witness, before, after));
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
            return None;
        }
    }
}

impl Reason {
    /// The reason in words.
    pub fn describe(&self, model: &Model) -> String {
        let name = |s: u32| model.slots[s as usize].name.clone();
        match self {
            Reason::Unprotected(s) => format!("accesses unprotected {}", name(*s)),
            Reason::OtherControlPoint(s) => format!("reads the control point of {}", name(*s)),
            Reason::ObservedPoint(_) => {
                "moves its thread in or out of a control point another thread reads".to_string()
            }
            Reason::ChangesExcl {
                protected,
                thread,
                witness,
                before,
                after,
            } => {
                let x = name(model.protected[*protected].slot);
                let t = &model.threads[*thread].name;
                let vals: Vec<String> = witness
                    .iter()
                    .map(|&(s, v)| format!("{} = {}", name(s), model.show_value(s as usize, v)))
                    .collect();
                let when = if vals.is_empty() {
                    String::new()
                } else {
                    format!(" when {}", vals.join(", "))
                };
                let value = |v: &Option<bool>| v.map_or("a fault".to_string(), |b| b.to_string());
                format!(
                    "may change excl({t}, {x}) from {} to {}{when}",
                    value(before),
                    value(after)
                )
            }
            Reason::TooManyValues {
                protected,
                thread,
                valuations,
            } => format!(
                "may change excl({}, {}): {valuations} valuations are too many to check",
                model.threads[*thread].name,
                name(model.protected[*protected].slot)
            ),
            Reason::Invisible => {
                "touches only protected and local variables and keeps every predicate".to_string()
            }
        }
    }
}

/// The invisible control points of each thread that lie on a loop of
/// invisible points: a reduced step of that thread can run round them for
/// ever (WFfiniteInvis fails), so the search's ignoring policy matters.
/// One entry per loop (a strongly connected set of points), in source order.
pub fn invisible_loops(model: &Model, class: &Classification) -> Vec<(usize, Vec<i64>)> {
    let mut loops = Vec::new();
    for (t, th) in model.threads.iter().enumerate() {
        let n = th.points.len();
        let succ = |pc: usize| -> Vec<usize> {
            if class.points[t][pc] {
                return Vec::new();
            }
            th.points[pc]
                .transitions
                .clone()
                .flat_map(|k| match &model.transitions[k].next {
                    crate::model::Next::To(p) => vec![*p],
                    crate::model::Next::Branch(_, a, b) => vec![*a, *b],
                })
                .map(|p| p as usize)
                .filter(|&p| !class.points[t][p])
                .collect()
        };
        for scc in components(n, succ) {
            let self_loop = || succ(scc[0]).contains(&scc[0]);
            if scc.len() > 1 || self_loop() {
                let mut pcs: Vec<i64> = scc.iter().map(|&p| p as i64).collect();
                pcs.sort_unstable();
                loops.push((t, pcs));
            }
        }
    }
    loops.sort();
    loops
}

/// The strongly connected components of the graph on `0..n` given by
/// `succ` (Tarjan's algorithm, iteratively, so deep graphs are no risk).
fn components(n: usize, succ: impl Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
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
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        open.push(root);
        on_open[root] = true;
        path.push((root, succ(root), 0));
        while let Some((v, next, i)) = path.last_mut() {
            let v = *v;
            if let Some(&w) = next.get(*i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    open.push(w);
                    on_open[w] = true;
                    path.push((w, succ(w), 0));
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
