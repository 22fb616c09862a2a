//! The obligations: each hypothesis (11)-(18) and each well-formedness
//! condition, read as concrete facts about the model's `u_i`, `v_i`, `p_i`
//! and q, and split into instances (per thread, pair of threads, control
//! point) that can be checked state by state.

use std::collections::BTreeSet;

use super::copies::Copies;
use super::frame::{Frame, QMode};
use super::system::{QState, Succ, Sys};
use super::theorem::Instance;

/// An obligation: a hypothesis of the reduction theorem or a
/// well-formedness condition (digest sections 2 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Obligation {
    /// (11) `(u_i ~q)^w = 0`
    H11,
    /// (12) `i != j => u_j p_i = p_i u_j`
    H12,
    /// (13) `i != j => v_j p_i = p_i v_j`
    H13,
    /// (14) `i != j => u_j u_i <= u_i (q T + u_j + u_j q T)`
    H14,
    /// (15) `i != j => v_j u_i <= u_i (q T + v_j + v_j q T)`
    H15,
    /// (16) `~p_i v_i = 0 = p_i u_i`
    H16,
    /// (17) `1 <= p_i + u_i T`
    H17,
    /// (18) `q u_i <= u_i q`
    H18,
    /// WFinitVis: `I => p`
    InitVis,
    /// WFsep: visible and invisible transitions never enabled together.
    Sep,
    /// WFacc: internal nondeterminism does not change what is accessed.
    Acc,
    /// WFfiniteInvis: `u_i^w = 0`
    FiniteInvis,
    /// WFinitExcl: `I => disjoint(ex)`
    InitExcl,
    /// WFendExcl: no transition of j falsifies `excl(i, x)`, i != j.
    EndExcl,
    /// An obligation of the movers theorem (M) (`certify --reduction
    /// movers`; not in [`Obligation::ALL`], which lists Stoller and
    /// Cohen's).
    Movers(super::movers::MoverLaw),
}

impl Obligation {
    /// Every obligation, in report order.
    pub const ALL: [Obligation; 14] = [
        Obligation::H11,
        Obligation::H12,
        Obligation::H13,
        Obligation::H14,
        Obligation::H15,
        Obligation::H16,
        Obligation::H17,
        Obligation::H18,
        Obligation::InitVis,
        Obligation::Sep,
        Obligation::Acc,
        Obligation::FiniteInvis,
        Obligation::InitExcl,
        Obligation::EndExcl,
    ];

    /// The key in reports: `11` to `18`, or the condition's name.
    pub fn key(self) -> &'static str {
        match self {
            Obligation::H11 => "11",
            Obligation::H12 => "12",
            Obligation::H13 => "13",
            Obligation::H14 => "14",
            Obligation::H15 => "15",
            Obligation::H16 => "16",
            Obligation::H17 => "17",
            Obligation::H18 => "18",
            Obligation::InitVis => "WFinitVis",
            Obligation::Sep => "WFsep",
            Obligation::Acc => "WFacc",
            Obligation::FiniteInvis => "WFfiniteInvis",
            Obligation::InitExcl => "WFinitExcl",
            Obligation::EndExcl => "WFendExcl",
            Obligation::Movers(m) => m.key(),
        }
    }

    /// Whether it is one of the hypotheses (11)-(18).
    pub fn is_hypothesis(self) -> bool {
        matches!(
            self,
            Obligation::H11
                | Obligation::H12
                | Obligation::H13
                | Obligation::H14
                | Obligation::H15
                | Obligation::H16
                | Obligation::H17
                | Obligation::H18
        ) || matches!(self, Obligation::Movers(m) if m.is_hypothesis())
    }

    /// The law, as the digest writes it.
    pub fn formula(self) -> &'static str {
        match self {
            Obligation::H11 => "(u_i ~q)^w = 0",
            Obligation::H12 => "u_j p_i = p_i u_j, i != j",
            Obligation::H13 => "v_j p_i = p_i v_j, i != j",
            Obligation::H14 => "u_j u_i <= u_i (q T + u_j + u_j q T), i != j",
            Obligation::H15 => "v_j u_i <= u_i (q T + v_j + v_j q T), i != j",
            Obligation::H16 => "~p_i v_i = 0 = p_i u_i",
            Obligation::H17 => "1 <= p_i + u_i T",
            Obligation::H18 => "q u_i <= u_i q",
            Obligation::InitVis => "I => p",
            Obligation::Sep => "v_i, u_i never enabled together",
            Obligation::Acc => "nondeterminism keeps accesses",
            Obligation::FiniteInvis => "u_i^w = 0",
            Obligation::InitExcl => "I => disjoint(ex)",
            Obligation::EndExcl => "j never falsifies excl(i, x)",
            Obligation::Movers(m) => m.formula(),
        }
    }

    /// The concrete reading checked, in words.
    pub fn meaning(self) -> &'static str {
        match self {
            Obligation::H11 => {
                "no thread has an infinite run of invisible transitions through states without q"
            }
            Obligation::H12 => {
                "an invisible transition of thread j never changes p_i: it neither enables nor disables thread i's invisible transitions"
            }
            Obligation::H13 => {
                "a visible transition of thread j never changes p_i: it neither enables nor disables thread i's invisible transitions"
            }
            Obligation::H14 => {
                "if s -u_j-> s1 -u_i-> s2, then some s -u_i-> s' has q at s', or is followed by s' -u_j-> s2, or by s' -u_j-> s'' with q at s''"
            }
            Obligation::H15 => {
                "if s -v_j-> s1 -u_i-> s2, then some s -u_i-> s' has q at s', or is followed by s' -v_j-> s2, or by s' -v_j-> s'' with q at s''"
            }
            Obligation::H16 => {
                "v_i is enabled only where p_i holds, and no u_i transition is enabled where p_i holds"
            }
            Obligation::H17 => "in every state p_i holds or some u_i transition is enabled",
            Obligation::H18 => {
                "an invisible transition from a state with q leads to a state with q"
            }
            Obligation::InitVis => {
                "in the initial state no thread can take an invisible transition"
            }
            Obligation::Sep => {
                "no state has a visible and an invisible transition of the same thread enabled"
            }
            Obligation::Acc => {
                "internal nondeterminism of a transition does not change the variables it accesses or the order of first access"
            }
            Obligation::FiniteInvis => "no thread has an infinite run of invisible transitions",
            Obligation::InitExcl => {
                "in the initial state no two threads satisfy the exclusive access predicate of the same variable"
            }
            Obligation::EndExcl => {
                "from a state without q, no transition of thread j that completes falsifies excl(i, x) for i != j"
            }
            Obligation::Movers(m) => m.meaning(),
        }
    }

    /// Why the law holds whatever the model, when it does.
    pub fn by_construction(self) -> Option<&'static str> {
        match self {
            Obligation::H16 => Some(
                "p_i is defined as \"no u_i transition is enabled\", and v_i holds exactly the transitions at points where the reduction stops",
            ),
            Obligation::H17 => Some("p_i is defined as \"no u_i transition is enabled\""),
            Obligation::H18 => Some("q is a history flag: no transition clears it"),
            Obligation::InitVis => {
                Some("every thread's initial point is a point where the reduction stops")
            }
            Obligation::Sep => Some(
                "visibility is decided per control point: a point's transitions are all in v_i or all in u_i",
            ),
            Obligation::Acc => Some(
                "every transition is deterministic: `either` branches and `any` values are separate transitions",
            ),
            Obligation::Movers(m) => m.by_construction(),
            _ => None,
        }
    }
}

/// An instance of an obligation, checked at one state at a time (or, for
/// the loop obligations, over a graph of states).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inst {
    /// WFinitVis or WFinitExcl, at the initial state.
    Init(Obligation),
    /// (16), (17) or (18) for thread i at point b.
    Point {
        /// The law.
        law: Obligation,
        /// The thread.
        i: usize,
        /// Its control point.
        b: i64,
    },
    /// (12)-(15): thread j's transitions at a, thread i at invisible point b.
    Pair {
        /// The law.
        law: Obligation,
        /// The thread moving first.
        j: usize,
        /// Its control point.
        a: i64,
        /// The other thread.
        i: usize,
        /// Its (invisible) control point.
        b: i64,
    },
    /// WFendExcl: thread j's transitions at a against `excl(i, x_p)`.
    EndExcl {
        /// The thread moving.
        j: usize,
        /// Its control point.
        a: i64,
        /// The protected variable.
        p: usize,
        /// The thread whose predicate must not be falsified.
        i: usize,
    },
    /// (11) or WFfiniteInvis: thread i's invisible transitions inside a
    /// loop of its invisible control points.
    Loop {
        /// The law.
        law: Obligation,
        /// The thread.
        i: usize,
        /// The control points of the loop (a strongly connected component).
        points: Vec<i64>,
    },
}

/// A broken obligation: the states and transitions that break it.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What goes wrong, in one sentence.
    pub message: String,
    /// Named states (`s`, `s1`, ...).
    pub states: Vec<(String, QState)>,
    /// Transitions between them: (from state, transition, to state).
    pub steps: Vec<(usize, usize, usize)>,
    /// For a lasso: `steps[loop_from..]` form the loop.
    pub loop_from: Option<usize>,
    /// Exhaustive level: the transitions from the initial state to the
    /// first state, with the state after each.
    pub reached_by: Option<Vec<(usize, QState)>>,
}

impl Failure {
    /// A failure from named states and steps between them.
    pub fn new(
        message: String,
        states: Vec<(&str, QState)>,
        steps: Vec<(usize, usize, usize)>,
    ) -> Failure {
        Failure {
            message,
            states: states
                .into_iter()
                .map(|(n, s)| (n.to_string(), s))
                .collect(),
            steps,
            loop_from: None,
            reached_by: None,
        }
    }
}

/// "T0's `x := 1` (line 12)"
pub fn tr_name(sys: &Sys, k: usize) -> String {
    let tr = &sys.model.transitions[k];
    format!(
        "{}'s `{}` (line {})",
        sys.model.threads[tr.thread as usize].name, tr.text, tr.line
    )
}

fn point_name(sys: &Sys, t: usize, pc: i64) -> String {
    sys.model.threads[t].points[pc as usize].name()
}

fn next(sys: &Sys, k: usize, st: &QState) -> Option<QState> {
    match sys.succ(k, st) {
        Succ::Disabled => None,
        Succ::Next { to, .. } => Some(to),
    }
}

/// Thread j at point a, thread i at point b: a pair instance's points.
type PairAt = (usize, i64, usize, i64);

impl<'m> Instance<Sys<'m>> for Inst {
    /// Whether it is checked on loops.
    fn is_loop(&self) -> bool {
        matches!(self, Inst::Loop { .. })
    }

    /// The obligation this is an instance of.
    fn law(&self) -> Obligation {
        match self {
            Inst::Init(law) => *law,
            Inst::Point { law, .. } | Inst::Pair { law, .. } | Inst::Loop { law, .. } => *law,
            Inst::EndExcl { .. } => Obligation::EndExcl,
        }
    }

    /// The frame of the instance for the local level (`None` for the
    /// initial-state instances, which need no enumeration).
    fn frame(&self, sys: &Sys) -> Option<Frame> {
        let pc = |t: usize, pc: i64| (t as u32, vec![pc]);
        Some(match self {
            Inst::Init(_) => return None,
            Inst::Point { law, i, b } => {
                let ks = sys.at(*i, *b);
                if *law == Obligation::H18 {
                    Frame::new(sys, sys.frame_of(ks), &[pc(*i, *b)], QMode::Only(true))
                } else {
                    Frame::new(sys, sys.guards_of(ks), &[pc(*i, *b)], QMode::Absent)
                }
            }
            Inst::Pair { law, j, a, i, b } => {
                let mut slots = sys.frame_of(sys.at(*j, *a));
                let q = if matches!(law, Obligation::H12 | Obligation::H13) {
                    slots.extend(sys.guards_of(sys.at(*i, *b)));
                    QMode::Absent
                } else {
                    slots.extend(sys.frame_of(sys.at(*i, *b)));
                    QMode::Both
                };
                Frame::new(sys, slots, &[pc(*j, *a), pc(*i, *b)], q)
            }
            Inst::EndExcl { j, a, p, i } => {
                let mut slots = sys.frame_of(sys.at(*j, *a));
                slots.extend(&sys.pred_slots[*p][*i]);
                Frame::new(sys, slots, &[pc(*j, *a)], QMode::Only(false))
            }
            Inst::Loop { law, i, points } => {
                let slots = sys.frame_of(points.iter().flat_map(|&b| sys.at(*i, b)));
                let q = if *law == Obligation::H11 {
                    QMode::Only(false)
                } else {
                    QMode::Absent
                };
                Frame::new(sys, slots, &[(*i as u32, points.clone())], q)
            }
        })
    }

    /// Checks the instance at `st` (whose control points are those of the
    /// instance). Loops are checked by [`Inst::loop_edges`] instead.
    fn check(&self, sys: &Sys, st: &QState) -> Option<Failure> {
        let model = sys.model;
        let tname = |t: usize| model.threads[t].name.clone();
        match self {
            Inst::Init(law) => Self::check_init(sys, *law, st),
            Inst::Point { law, i, b } => Self::check_point(sys, *law, (*i, *b), st),
            Inst::Pair { law, j, a, i, b } => {
                if matches!(law, Obligation::H12 | Obligation::H13) {
                    Self::check_enabling(sys, st, (*j, *a, *i, *b))
                } else {
                    Self::check_commute(sys, st, (*j, *a, *i, *b))
                }
            }
            Inst::EndExcl { j, a, p, i } => {
                if st.q {
                    return None;
                }
                let before = model.excl(*p, *i, &st.s);
                if before != Ok(true) {
                    return None;
                }
                for k in sys.at(*j, *a) {
                    if let Succ::Next {
                        to,
                        completed: true,
                    } = sys.succ(k, st)
                    {
                        if model.excl(*p, *i, &to.s) != Ok(true) {
                            let prot = &model.protected[*p];
                            return Some(Failure::new(
                                format!(
                                    "{} falsifies excl({}, {}), another thread's exclusive access predicate ({})",
                                    tr_name(sys, k),
                                    tname(*i),
                                    model.slots[prot.slot as usize].name,
                                    prot.text
                                ),
                                vec![("s", st.clone()), ("s1", to)],
                                vec![(0, k, 1)],
                            ));
                        }
                    }
                }
                None
            }
            Inst::Loop { .. } => None,
        }
    }

    /// The loop edges out of `st`: thread i's invisible transitions at
    /// points of the loop that complete (and, for (11), without q).
    fn loop_edges(&self, sys: &Sys, st: &QState) -> Vec<(usize, QState)> {
        let Inst::Loop { law, i, points } = self else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if !points.contains(&st.s[*i]) || (*law == Obligation::H11 && st.q) {
            return out;
        }
        for k in sys.at(*i, st.s[*i]) {
            if let Succ::Next {
                to,
                completed: true,
            } = sys.succ(k, st)
            {
                if *law == Obligation::H11 && to.q {
                    continue;
                }
                if points.contains(&to.s[*i]) {
                    out.push((k, to));
                }
            }
        }
        out
    }
}

impl Inst {
    /// WFinitVis and WFinitExcl at the initial state `st`.
    fn check_init(sys: &Sys, law: Obligation, st: &QState) -> Option<Failure> {
        let model = sys.model;
        let tname = |t: usize| model.threads[t].name.clone();
        match law {
            Obligation::InitVis => {
                for i in 0..sys.threads() {
                    if let Some(k) = sys
                        .at(i, st.s[i])
                        .find(|&k| !sys.stops(i, st.s[i]) && sys.enabled(k, &st.s))
                    {
                        return Some(Failure::new(
                            format!(
                                "{} is invisible and enabled in the initial state",
                                tr_name(sys, k)
                            ),
                            vec![("s", st.clone())],
                            Vec::new(),
                        ));
                    }
                }
                None
            }
            _ => {
                let message = match model.overlap(&st.s) {
                    Ok(None) => return None,
                    Ok(Some((p, i, j))) => format!(
                        "both {} and {} satisfy the exclusive access predicate of {} in the initial state",
                        tname(i),
                        tname(j),
                        model.slots[model.protected[p].slot as usize].name
                    ),
                    Err(e) => format!(
                        "excl({}, {}) cannot be evaluated in the initial state ({})",
                        tname(e.thread),
                        model.slots[model.protected[e.protected].slot as usize].name,
                        model.protected[e.protected].text
                    ),
                };
                Some(Failure::new(message, vec![("s", st.clone())], Vec::new()))
            }
        }
    }

    /// (16), (17) and (18) for thread i at b, at `st`.
    fn check_point(
        sys: &Sys,
        law: Obligation,
        (i, b): (usize, i64),
        st: &QState,
    ) -> Option<Failure> {
        let tname = |t: usize| sys.model.threads[t].name.clone();
        let p = sys.p(i, &st.s);
        let stops = sys.stops(i, b);
        let fail = |message: String, steps: Vec<(usize, QState)>| {
            let mut states = vec![("s", st.clone())];
            let mut edges = Vec::new();
            for (k, to) in steps {
                states.push(("s1", to));
                edges.push((0, k, 1));
            }
            Some(Failure::new(message, states, edges))
        };
        match law {
            Obligation::H16 => {
                let enabled = sys.at(i, b).find(|&k| sys.enabled(k, &st.s));
                match enabled {
                    Some(k) if stops && !p => fail(
                        format!(
                            "the visible {} is enabled where p_{} is false",
                            tr_name(sys, k),
                            tname(i)
                        ),
                        Vec::new(),
                    ),
                    Some(k) if !stops && p => fail(
                        format!(
                            "p_{} holds although the invisible {} is enabled",
                            tname(i),
                            tr_name(sys, k)
                        ),
                        Vec::new(),
                    ),
                    _ => None,
                }
            }
            Obligation::H17 => {
                let some_u = !stops && sys.at(i, b).any(|k| sys.enabled(k, &st.s));
                (!p && !some_u).then(|| {
                    Failure::new(
                        format!(
                            "p_{} is false and no invisible transition of {} is enabled",
                            tname(i),
                            tname(i)
                        ),
                        vec![("s", st.clone())],
                        Vec::new(),
                    )
                })
            }
            _ => {
                // (18): from a state with q.
                if !st.q || stops {
                    return None;
                }
                for k in sys.at(i, b) {
                    if let Some(to) = next(sys, k, st) {
                        if !to.q {
                            return fail(format!("{} clears q", tr_name(sys, k)), vec![(k, to)]);
                        }
                    }
                }
                None
            }
        }
    }

    /// (12), (13): p_i is the same before and after each transition of j at a.
    fn check_enabling(sys: &Sys, st: &QState, (j, a, i, b): PairAt) -> Option<Failure> {
        let before = sys.p(i, &st.s);
        for k in sys.at(j, a) {
            if let Some(to) = next(sys, k, st) {
                let after = sys.p(i, &to.s);
                if after != before {
                    let verb = if before { "enables" } else { "disables" };
                    return Some(Failure::new(
                        format!(
                            "{} {verb} {}'s invisible transitions at {}: p_{} is {before} before it and {after} after it",
                            tr_name(sys, k),
                            sys.model.threads[i].name,
                            point_name(sys, i, b),
                            sys.model.threads[i].name
                        ),
                        vec![("s", st.clone()), ("s1", to)],
                        vec![(0, k, 1)],
                    ));
                }
            }
        }
        None
    }

    /// (14), (15): every `s -j-> s1 -u_i-> s2` commutes, unless q shows.
    fn check_commute(sys: &Sys, st: &QState, (j, a, i, b): PairAt) -> Option<Failure> {
        for kj in sys.at(j, a) {
            let Some(s1) = next(sys, kj, st) else {
                continue;
            };
            for ki in sys.at(i, b) {
                let Some(s2) = next(sys, ki, &s1) else {
                    continue;
                };
                let commutes = sys.at(i, b).any(|ki2| match next(sys, ki2, st) {
                    None => false,
                    Some(s_) => {
                        s_.q || sys
                            .at(j, s_.s[j])
                            .any(|kj2| next(sys, kj2, &s_).is_some_and(|s__| s__.q || s__ == s2))
                    }
                });
                if commutes {
                    continue;
                }
                let mut states = vec![("s", st.clone()), ("s1", s1), ("s2", s2)];
                let mut steps = vec![(0, kj, 1), (1, ki, 2)];
                let why = match next(sys, ki, st) {
                    None => "it is not enabled in s".to_string(),
                    Some(s_) => {
                        states.push(("s'", s_.clone()));
                        steps.push((0, ki, 3));
                        match next(sys, kj, &s_) {
                            None => format!("after it, {} is not enabled", tr_name(sys, kj)),
                            Some(s__) => {
                                states.push(("s''", s__));
                                steps.push((3, kj, 4));
                                "taken first, it leads through s' to s'', which differs from s2 and has no violation".to_string()
                            }
                        }
                    }
                };
                return Some(Failure::new(
                    format!(
                        "{} cannot move before {}: {why}",
                        tr_name(sys, ki),
                        tr_name(sys, kj)
                    ),
                    states,
                    steps,
                ));
            }
        }
        None
    }

    /// The failure for a loop found: `cycle` lists the transitions and the
    /// state after each, returning to `start`.
    pub fn loop_failure(&self, sys: &Sys, start: QState, cycle: Vec<(usize, QState)>) -> Failure {
        let (law, i) = match self {
            Inst::Loop { law, i, .. } => (*law, *i),
            _ => (Obligation::FiniteInvis, 0),
        };
        let name = &sys.model.threads[i].name;
        let message = if law == Obligation::H11 {
            format!(
                "{name} can run invisible transitions forever without a violation: the loop returns to s0"
            )
        } else {
            format!("{name} can run invisible transitions forever: the loop returns to s0")
        };
        let n = cycle.len();
        let mut states = vec![("s0".to_string(), start)];
        let mut steps = Vec::new();
        for (m, (k, to)) in cycle.into_iter().enumerate() {
            if m + 1 < n {
                states.push((format!("s{}", m + 1), to));
                steps.push((m, k, m + 1));
            } else {
                steps.push((m, k, 0));
            }
        }
        Failure {
            message,
            states,
            steps,
            loop_from: Some(0),
            reached_by: None,
        }
    }
}

/// The loops of thread t's invisible control points: strongly connected
/// components of its control-flow graph restricted to invisible points,
/// with at least one edge. An infinite run of u_t stays at invisible points
/// and so must go round one of them.
pub fn invisible_loops(sys: &Sys, t: usize) -> Vec<Vec<i64>> {
    let n = sys.model.threads[t].points.len();
    let mut inv = vec![false; n];
    for pc in sys.invisible_points(t) {
        inv[pc as usize] = true;
    }
    loops_among(sys, t, |pc| inv[pc])
}

/// The loops of thread t among the control points where `member` holds:
/// strongly connected components of its control-flow graph restricted to
/// them, with at least one edge, each sorted, in order. Both theorems'
/// loop laws are instantiated on these.
pub fn loops_among(sys: &Sys, t: usize, member: impl Fn(usize) -> bool) -> Vec<Vec<i64>> {
    // Linear in the thread's size (Tarjan), as a thread can have a
    // million points: `repeat` and `-D` make them cheaply.
    let n = sys.model.threads[t].points.len();
    let succ = |pc: usize| -> Vec<usize> {
        if !member(pc) {
            return Vec::new();
        }
        sys.at(t, pc as i64)
            .flat_map(|k| sys.targets(k))
            .map(|p| p as usize)
            .filter(|&p| member(p))
            .collect()
    };
    let mut loops: Vec<Vec<i64>> = crate::classify::components(n, succ)
        .into_iter()
        .filter(|scc| member(scc[0]) && (scc.len() > 1 || succ(scc[0]).contains(&scc[0])))
        .map(|scc| {
            let mut pcs: Vec<i64> = scc.into_iter().map(|p| p as i64).collect();
            pcs.sort_unstable();
            pcs
        })
        .collect();
    loops.sort_unstable();
    loops
}

/// Every instance the local level checks, in report order, handed to
/// `visit` one by one until it returns false. The pairs of control points
/// are quadratic in the model's size, so the instances are never all held
/// at once, and `visit` is also called with `None` after every point and
/// pair of points, instances or not, so that a caller can stop at its
/// limits anywhere.
///
/// With `copies`, only the instances at the points that stand for their
/// class of alike points of the procedures' copies are made (see
/// [`Copies`]); the others have the same outcomes.
pub fn instances(sys: &Sys, copies: Option<&Copies>, visit: &mut dyn FnMut(Option<Inst>) -> bool) {
    let n = sys.threads();
    let checked = |t: usize, pc: i64| copies.is_none_or(|c| c.is_rep(t, pc));
    let mut out = vec![
        Inst::Init(Obligation::InitVis),
        Inst::Init(Obligation::InitExcl),
    ];
    let mut flush = |out: &mut Vec<Inst>| out.drain(..).all(|i| visit(Some(i))) && visit(None);
    for i in 0..n {
        let loops = invisible_loops(sys, i);
        for law in [Obligation::H11, Obligation::FiniteInvis] {
            for points in &loops {
                if copies.is_none_or(|c| c.loop_checked(sys.model, i, points, &loops)) {
                    out.push(Inst::Loop {
                        law,
                        i,
                        points: points.clone(),
                    });
                }
            }
        }
        for b in 0..sys.model.threads[i].points.len() as i64 {
            if checked(i, b) {
                point_instances(sys, i, b, true, &mut out);
            }
            if !flush(&mut out) {
                return;
            }
        }
    }
    let invisible: Vec<Vec<i64>> = (0..n)
        .map(|i| sys.invisible_points(i).filter(|&b| checked(i, b)).collect())
        .collect();
    for j in 0..n {
        for a in sys.points(j).filter(|&a| checked(j, a)) {
            for i in (0..n).filter(|&i| i != j) {
                for &b in &invisible[i] {
                    pair_instances(sys, j, a, i, b, &mut out);
                    if !flush(&mut out) {
                        return;
                    }
                }
            }
            end_excl_instances(sys, j, a, &mut out);
            if !flush(&mut out) {
                return;
            }
        }
    }
    flush(&mut out);
}

/// (16), (17) and, at an invisible point where `with_18`, (18) for thread i at b.
fn point_instances(sys: &Sys, i: usize, b: i64, with_18: bool, out: &mut Vec<Inst>) {
    out.push(Inst::Point {
        law: Obligation::H16,
        i,
        b,
    });
    out.push(Inst::Point {
        law: Obligation::H17,
        i,
        b,
    });
    if with_18 && !sys.stops(i, b) {
        out.push(Inst::Point {
            law: Obligation::H18,
            i,
            b,
        });
    }
}

/// (12) and (14), or (13) and (15) when j's point a is visible: j's step at
/// a against i's invisible step at b.
fn pair_instances(sys: &Sys, j: usize, a: i64, i: usize, b: i64, out: &mut Vec<Inst>) {
    let (enable, commute) = if sys.stops(j, a) {
        (Obligation::H13, Obligation::H15)
    } else {
        (Obligation::H12, Obligation::H14)
    };
    out.push(Inst::Pair {
        law: enable,
        j,
        a,
        i,
        b,
    });
    out.push(Inst::Pair {
        law: commute,
        j,
        a,
        i,
        b,
    });
}

/// WFendExcl for j's steps at a, against every other thread's predicates.
fn end_excl_instances(sys: &Sys, j: usize, a: i64, out: &mut Vec<Inst>) {
    for p in touched(sys, j, a) {
        for i in (0..sys.threads()).filter(|&i| i != j) {
            out.push(Inst::EndExcl { j, a, p, i });
        }
    }
}

/// The protected variables whose predicates read a slot some transition
/// of thread j at a writes.
fn touched(sys: &Sys, j: usize, a: i64) -> BTreeSet<usize> {
    sys.at(j, a)
        .flat_map(|k| {
            sys.model.transitions[k]
                .touches_excl
                .iter()
                .map(|&p| p as usize)
        })
        .collect()
}

/// The instances that apply at a reachable state `st` (exhaustive level;
/// the loop and initial-state instances are handled separately).
pub fn instances_at(sys: &Sys, st: &QState, out: &mut Vec<Inst>) {
    out.clear();
    let n = sys.threads();
    for i in 0..n {
        // (18) speaks of states with q.
        point_instances(sys, i, st.s[i], st.q, out);
    }
    for j in 0..n {
        let a = st.s[j];
        if sys.at(j, a).is_empty() {
            continue;
        }
        for i in (0..n).filter(|&i| i != j && !sys.stops(i, st.s[i])) {
            pair_instances(sys, j, a, i, st.s[i], out);
        }
        if !st.q {
            end_excl_instances(sys, j, a, out);
        }
    }
}
