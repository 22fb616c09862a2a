//! The obligations of the movers theorem (M): its hypotheses (R), (A2),
//! (A3), (A4), (A5), (A5r), (Q), (11), (17), (18) as `proofs/movers.proof`
//! states them, and WFinitN (`I => p`, the premise of its conclusion), read
//! as concrete facts about the instrumented system ([`MSys`]) and split
//! into instances (per thread and control point, or per pair of threads
//! and control points) that can be checked state by state.
//!
//! Notation (the proof script's): `s_i` is thread i's steps, `r_i` "i is
//! in R(i)", `p_i` "i is not in L(i)", `rm_i = s_i r_i` (the steps into
//! R(i): right movers) and `u_i = ~p_i s_i` (the steps from L(i): left
//! movers).

use std::collections::BTreeSet;

use super::frame::{BOTH, MFrame};
use super::system::{MState, MSys};
use crate::certify::copies::Copies;
use crate::certify::frame::{Frame, QMode};
use crate::certify::law::{Failure, tr_name};
use crate::certify::theorem::Instance;

/// An obligation of the movers theorem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoverLaw {
    /// (R) `r_i <= p_i`
    R,
    /// (A2) `~p_i rm_i = 0`
    A2,
    /// (A3) `i != j => rm_i s_j <= s_j rm_i`
    A3,
    /// (A4) `i != j => s_j u_i <= u_i s_j`
    A4,
    /// (A5) `i != j => s_j p_i = p_i s_j`
    A5,
    /// (A5r) `i != j => s_j r_i = r_i s_j`
    A5r,
    /// (Q) `rm_i q <= q rm_i`
    Q,
    /// (11) `(u_i ~q)^w = 0`
    H11,
    /// (17) `1 <= p_i + u_i T`
    H17,
    /// (18) `q u_i <= u_i q`
    H18,
    /// WFinitN: `I => p`, no thread is in L in the initial state.
    InitN,
}

impl MoverLaw {
    /// Every obligation, in report order.
    pub const ALL: [MoverLaw; 11] = [
        MoverLaw::R,
        MoverLaw::A2,
        MoverLaw::A3,
        MoverLaw::A4,
        MoverLaw::A5,
        MoverLaw::A5r,
        MoverLaw::Q,
        MoverLaw::H11,
        MoverLaw::H17,
        MoverLaw::H18,
        MoverLaw::InitN,
    ];

    /// The key in reports: the hypothesis's label without parentheses, or
    /// the condition's name.
    pub fn key(self) -> &'static str {
        match self {
            MoverLaw::R => "R",
            MoverLaw::A2 => "A2",
            MoverLaw::A3 => "A3",
            MoverLaw::A4 => "A4",
            MoverLaw::A5 => "A5",
            MoverLaw::A5r => "A5r",
            MoverLaw::Q => "Q",
            MoverLaw::H11 => "11",
            MoverLaw::H17 => "17",
            MoverLaw::H18 => "18",
            MoverLaw::InitN => "WFinitN",
        }
    }

    /// Whether it is a hypothesis of (M) (else a condition of applying it).
    pub fn is_hypothesis(self) -> bool {
        self != MoverLaw::InitN
    }

    /// The law, as `proofs/movers.proof` writes it.
    pub fn formula(self) -> &'static str {
        match self {
            MoverLaw::R => "r_i <= p_i",
            MoverLaw::A2 => "~p_i rm_i = 0",
            MoverLaw::A3 => "rm_i s_j <= s_j rm_i, i != j",
            MoverLaw::A4 => "s_j u_i <= u_i s_j, i != j",
            MoverLaw::A5 => "s_j p_i = p_i s_j, i != j",
            MoverLaw::A5r => "s_j r_i = r_i s_j, i != j",
            MoverLaw::Q => "rm_i q <= q rm_i",
            MoverLaw::H11 => "(u_i ~q)^w = 0",
            MoverLaw::H17 => "1 <= p_i + u_i T",
            MoverLaw::H18 => "q u_i <= u_i q",
            MoverLaw::InitN => "I => p",
        }
    }

    /// The concrete reading checked, in words.
    pub fn meaning(self) -> &'static str {
        match self {
            MoverLaw::R => "no state has thread i both in R(i) and in L(i)",
            MoverLaw::A2 => "from L(i), no step of thread i enters R(i)",
            MoverLaw::A3 => {
                "if s -rm_i-> s1 -s_j-> s2 (a step of i into R(i), then any step of j), then some s -s_j-> s' -rm_i-> s2: the right mover commutes to the right, exactly (q and phase bits included)"
            }
            MoverLaw::A4 => {
                "if s -s_j-> s1 -u_i-> s2 (any step of j, then a step of i from L(i)), then some s -u_i-> s' -s_j-> s2: the left mover commutes to the left, exactly, and starts from L(i)"
            }
            MoverLaw::A5 => "a step of thread j never changes whether thread i is in L(i)",
            MoverLaw::A5r => "a step of thread j never changes whether thread i is in R(i)",
            MoverLaw::Q => "a step into R(i) from a state without q leads to a state without q",
            MoverLaw::H11 => {
                "no thread has an infinite run of steps from L(i) through states without q"
            }
            MoverLaw::H17 => "in L(i), some step of thread i is enabled",
            MoverLaw::H18 => "a step from L(i) from a state with q leads to a state with q",
            MoverLaw::InitN => "in the initial state no thread is in L(i)",
        }
    }

    /// Why the law holds whatever the model, when it does.
    pub fn by_construction(self) -> Option<&'static str> {
        match self {
            MoverLaw::R => Some("R(i) needs the phase bit set, L(i) needs it clear"),
            MoverLaw::A2 => Some(
                "from L(i) the phase bit is clear and every step is a left mover, so the phase after it is clear",
            ),
            MoverLaw::A5r => Some(
                "R(i) reads only thread i's phase bit and control point, which no other thread changes",
            ),
            MoverLaw::H17 => Some("L(i) requires something enabled"),
            MoverLaw::H18 => Some("q is a history flag: no transition clears it"),
            MoverLaw::InitN => Some("L(i) excludes the initial point, where every thread starts"),
            _ => None,
        }
    }

    /// What it means that the law has no instances.
    pub fn vacuous(self) -> &'static str {
        match self {
            MoverLaw::H11 => "structural: no loop of points where a thread can be in L",
            MoverLaw::A3 => "structural: no instances (no right mover, or one thread)",
            MoverLaw::A4 | MoverLaw::A5 => {
                "structural: no instances (no point where a thread can be in L, or one thread)"
            }
            MoverLaw::A5r => "structural: no instances (one thread)",
            MoverLaw::Q => "structural: no right mover",
            MoverLaw::R => "structural: no control point",
            _ => "structural: no point where a thread can be in L",
        }
    }
}

/// An instance of a movers obligation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MInst {
    /// WFinitN, at the initial state.
    Init,
    /// (R), (A2), (Q), (17) or (18) for thread i at point b.
    Point {
        /// The law.
        law: MoverLaw,
        /// The thread.
        i: usize,
        /// Its control point.
        b: i64,
    },
    /// (A3), (A4), (A5), (A5r): thread j at point c against thread i at
    /// point b (for (A3), i moves first).
    Pair {
        /// The law.
        law: MoverLaw,
        /// The thread whose predicate or mover is in question.
        i: usize,
        /// Its point.
        b: i64,
        /// The other thread.
        j: usize,
        /// Its point.
        c: i64,
    },
    /// (11): thread i's steps from L(i) inside a loop of its points.
    Loop {
        /// The thread.
        i: usize,
        /// The points of the loop (a strongly connected component).
        points: Vec<i64>,
    },
}

/// "T0's `x := 1` (line 12)"
fn name(msys: &MSys, k: usize) -> String {
    tr_name(msys.sys, k)
}

fn tname<'a>(msys: &'a MSys, t: usize) -> &'a str {
    &msys.sys.model.threads[t].name
}

/// A failure from named instrumented states and steps between them, shown
/// with their phase bits.
fn failure(
    message: String,
    states: Vec<(&str, &MState)>,
    steps: Vec<(usize, usize, usize)>,
) -> Failure {
    let states = states.into_iter().map(|(n, m)| (n, m.shown())).collect();
    Failure::new(message, states, steps)
}

impl<'m> Instance<MSys<'m>> for MInst {
    /// Whether it is checked on loops.
    fn is_loop(&self) -> bool {
        matches!(self, MInst::Loop { .. })
    }

    /// The obligation this is an instance of.
    fn law(&self) -> MoverLaw {
        match self {
            MInst::Init => MoverLaw::InitN,
            MInst::Point { law, .. } | MInst::Pair { law, .. } => *law,
            MInst::Loop { .. } => MoverLaw::H11,
        }
    }

    /// The frame of the instance for the local level (`None` at the
    /// initial state).
    fn frame(&self, msys: &MSys) -> Option<MFrame> {
        let sys = msys.sys;
        let pc = |t: usize, pc: i64| (t as u32, vec![pc]);
        let both = |t: usize| (t, BOTH.to_vec());
        Some(match self {
            MInst::Init => return None,
            MInst::Point { law, i, b } => {
                let slots = msys.frame_of(msys.at(*i, *b));
                let q = match law {
                    MoverLaw::Q => QMode::Only(false),
                    MoverLaw::H18 => QMode::Only(true),
                    _ => QMode::Absent,
                };
                MFrame {
                    frame: Frame::new(sys, slots, &[pc(*i, *b)], q),
                    phases: vec![both(*i)],
                }
            }
            MInst::Pair { law, i, b, j, c } => {
                let mut slots = msys.frame_of(msys.at(*j, *c));
                let (q, phases) = match law {
                    MoverLaw::A3 | MoverLaw::A4 => {
                        slots.extend(msys.frame_of(msys.at(*i, *b)));
                        (QMode::Both, vec![both(*i), both(*j)])
                    }
                    MoverLaw::A5 => {
                        // Whether i is in L(i) reads the slots of its
                        // transitions at b; j's phase bit changes neither
                        // j's step nor L(i).
                        slots.extend(msys.frame_of(msys.at(*i, *b)));
                        (QMode::Absent, vec![both(*i)])
                    }
                    _ => (QMode::Absent, vec![both(*i)]),
                };
                MFrame {
                    frame: Frame::new(sys, slots, &[pc(*i, *b), pc(*j, *c)], q),
                    phases,
                }
            }
            MInst::Loop { i, points } => {
                let slots: BTreeSet<u32> =
                    msys.frame_of(points.iter().flat_map(|&b| msys.at(*i, b)));
                MFrame {
                    frame: Frame::new(
                        sys,
                        slots,
                        &[(*i as u32, points.clone())],
                        QMode::Only(false),
                    ),
                    // In L(i) the phase bit is clear.
                    phases: vec![(*i, vec![false])],
                }
            }
        })
    }

    /// Checks the instance at `m` (whose control points are those of the
    /// instance). Loops are checked by [`MInst::loop_edges`] instead.
    fn check(&self, msys: &MSys, m: &MState) -> Option<Failure> {
        match self {
            MInst::Init => {
                let i = (0..msys.threads()).find(|&i| msys.r(i, m) || !msys.p(i, m))?;
                Some(failure(
                    format!(
                        "{} is not in N({}) in the initial state",
                        tname(msys, i),
                        tname(msys, i)
                    ),
                    vec![("s", m)],
                    Vec::new(),
                ))
            }
            MInst::Point { law, i, b } => check_point(msys, *law, *i, *b, m),
            MInst::Pair { law, i, b, j, c } => match law {
                MoverLaw::A3 => check_a3(msys, *i, *b, *j, *c, m),
                MoverLaw::A4 => check_a4(msys, *i, *b, *j, *c, m),
                _ => check_keeps(msys, *law, *i, *j, *c, m),
            },
            MInst::Loop { .. } => None,
        }
    }

    /// The loop edges out of `m`: where thread i is in L(i) without q at a
    /// point of the loop, its steps to states without q at a point of the
    /// loop.
    fn loop_edges(&self, msys: &MSys, m: &MState) -> Vec<(usize, MState)> {
        let MInst::Loop { i, points } = self else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if m.st.q || !points.contains(&m.st.s[*i]) || !msys.in_l(*i, m) {
            return out;
        }
        for k in msys.at(*i, m.st.s[*i]) {
            if let Some(to) = msys.step(k, m)
                && !to.st.q
                && points.contains(&to.st.s[*i])
            {
                out.push((k, to));
            }
        }
        out
    }
}

impl MInst {
    /// Narrows the values of the return point slots in `frame` to those
    /// that matter to the instance's transitions ([`Copies::narrow`], which
    /// reads only the transitions of the instance it is given).
    pub fn narrow(&self, msys: &MSys, copies: &Copies, frame: &mut MFrame) {
        use crate::certify::law::{Inst, Obligation};
        let stand_in = match self {
            MInst::Init => return,
            MInst::Point { i, b, .. } => Inst::Point {
                law: Obligation::H16,
                i: *i,
                b: *b,
            },
            MInst::Pair { i, b, j, c, .. } => Inst::Pair {
                law: Obligation::H14,
                j: *j,
                a: *c,
                i: *i,
                b: *b,
            },
            MInst::Loop { i, points } => Inst::Loop {
                law: Obligation::H11,
                i: *i,
                points: points.clone(),
            },
        };
        copies.narrow(msys.sys, &stand_in, &mut frame.frame);
    }

    /// The failure for a loop found: `cycle` lists the steps and the state
    /// after each, returning to `start`.
    pub fn loop_failure(&self, msys: &MSys, start: &MState, cycle: &[(usize, MState)]) -> Failure {
        let i = match self {
            MInst::Loop { i, .. } => *i,
            _ => 0,
        };
        let n = cycle.len();
        let mut states = vec![("s0".to_string(), start.shown())];
        let mut steps = Vec::new();
        for (m, (k, to)) in cycle.iter().enumerate() {
            if m + 1 < n {
                states.push((format!("s{}", m + 1), to.shown()));
                steps.push((m, *k, m + 1));
            } else {
                steps.push((m, *k, 0));
            }
        }
        Failure {
            message: format!(
                "{} can take steps from L({}) forever without a violation: its post-commit phase need not end (commit point completion, which the search uses here, is not part of this theorem); the loop returns to s0",
                tname(msys, i),
                tname(msys, i)
            ),
            states,
            steps,
            loop_from: Some(0),
            reached_by: None,
        }
    }
}

/// (R), (A2), (Q), (17), (18) for thread i at b, at `m`.
fn check_point(msys: &MSys, law: MoverLaw, i: usize, b: i64, m: &MState) -> Option<Failure> {
    let t = tname(msys, i);
    let one = |message: String| Some(failure(message, vec![("s", m)], Vec::new()));
    let stepped = |message: String, k: usize, to: &MState| {
        Some(failure(
            message,
            vec![("s", m), ("s1", to)],
            vec![(0, k, 1)],
        ))
    };
    match law {
        MoverLaw::R => (msys.r(i, m) && !msys.p(i, m))
            .then(|| one(format!("{t} is in R({t}) and in L({t})")))
            .flatten(),
        MoverLaw::A2 => {
            if !msys.in_l(i, m) {
                return None;
            }
            let (k, to) = first_step(msys, i, b, m, |to| msys.r(i, to))?;
            stepped(
                format!("{} enters R({t}) from L({t})", name(msys, k)),
                k,
                &to,
            )
        }
        MoverLaw::Q => {
            if m.st.q {
                return None;
            }
            let (k, to) = first_step(msys, i, b, m, |to| msys.r(i, to) && to.st.q)?;
            stepped(
                format!(
                    "{} is a step into R({t}), a right mover, that sets q: the search would move it past other threads' steps, and the violation with it",
                    name(msys, k)
                ),
                k,
                &to,
            )
        }
        MoverLaw::H17 => (msys.in_l(i, m) && msys.at(i, b).all(|k| msys.step(k, m).is_none()))
            .then(|| one(format!("{t} is in L({t}) and has no enabled step")))
            .flatten(),
        _ => {
            // (18): from a state with q.
            if !m.st.q || !msys.in_l(i, m) {
                return None;
            }
            let (k, to) = first_step(msys, i, b, m, |to| !to.st.q)?;
            stepped(format!("{} clears q", name(msys, k)), k, &to)
        }
    }
}

/// The first step of thread i at b from `m` to a state where `bad` holds.
fn first_step(
    msys: &MSys,
    i: usize,
    b: i64,
    m: &MState,
    bad: impl Fn(&MState) -> bool,
) -> Option<(usize, MState)> {
    msys.at(i, b)
        .filter_map(|k| Some((k, msys.step(k, m)?)))
        .find(|(_, to)| bad(to))
}

/// (A5), (A5r): no step of j at c changes p_i (r_i).
fn check_keeps(
    msys: &MSys,
    law: MoverLaw,
    i: usize,
    j: usize,
    c: i64,
    m: &MState,
) -> Option<Failure> {
    let t = tname(msys, i);
    let pred = |st: &MState| {
        if law == MoverLaw::A5 {
            !msys.p(i, st)
        } else {
            msys.r(i, st)
        }
    };
    let set = if law == MoverLaw::A5 { "L" } else { "R" };
    let before = pred(m);
    for k in msys.at(j, c) {
        if let Some(to) = msys.step(k, m) {
            let after = pred(&to);
            if after != before {
                let (verb, prep) = if before {
                    ("takes", "out of")
                } else {
                    ("puts", "into")
                };
                return Some(failure(
                    format!(
                        "{} {verb} {t} {prep} {set}({t}) at {}",
                        name(msys, k),
                        msys.sys.model.threads[i].points[m.st.s[i] as usize].name()
                    ),
                    vec![("s", m), ("s1", &to)],
                    vec![(0, k, 1)],
                ));
            }
        }
    }
    None
}

/// Every two steps `s -k1-> s1 -k2-> s2` from `m`, with `k1` a transition
/// of `first` (a thread and its point), `k2` one of `second`, and `s1` one
/// that `mid` admits, given to `f` until it finds a failure. (A3) and (A4)
/// walk the same pairs of steps, in opposite orders of i and j.
fn two_steps(
    msys: &MSys,
    m: &MState,
    (first, second): ((usize, i64), (usize, i64)),
    mid: impl Fn(&MState) -> bool,
    mut f: impl FnMut(usize, &MState, usize, MState) -> Option<Failure>,
) -> Option<Failure> {
    for k1 in msys.at(first.0, first.1) {
        let Some(s1) = msys.step(k1, m) else {
            continue;
        };
        if !mid(&s1) {
            continue;
        }
        for k2 in msys.at(second.0, second.1) {
            let Some(s2) = msys.step(k2, &s1) else {
                continue;
            };
            if let Some(failure) = f(k1, &s1, k2, s2) {
                return Some(failure);
            }
        }
    }
    None
}

/// (A3): every `s -rm_i-> s1 -s_j-> s2` (i at b, j at c) is also
/// `s -s_j-> s' -rm_i-> s2`.
fn check_a3(msys: &MSys, i: usize, b: i64, j: usize, c: i64, m: &MState) -> Option<Failure> {
    let right = |s: &MState| msys.r(i, s);
    two_steps(msys, m, ((i, b), (j, c)), right, |ka, s1, kb, s2| {
        let swaps = msys.at(j, c).any(|kb2| {
            msys.step(kb2, m).is_some_and(|s_| {
                msys.at(i, b).any(|ka2| {
                    msys.step(ka2, &s_)
                        .is_some_and(|s__| s__ == s2 && msys.r(i, &s__))
                })
            })
        });
        if swaps {
            return None;
        }
        let t = tname(msys, i);
        let lead = format!(
            "{}, a right mover (its step enters R({t})), cannot move after {}",
            name(msys, ka),
            name(msys, kb)
        );
        Some(swap_failure(msys, lead, m, (ka, s1.clone()), (kb, s2)))
    })
}

/// (A4): every `s -s_j-> s1 -u_i-> s2` (j at c, i at b) is also
/// `s -u_i-> s' -s_j-> s2`, with s in L(i).
fn check_a4(msys: &MSys, i: usize, b: i64, j: usize, c: i64, m: &MState) -> Option<Failure> {
    let left = |s: &MState| msys.in_l(i, s);
    two_steps(msys, m, ((j, c), (i, b)), left, |kb, s1, ka, s2| {
        let t = tname(msys, i);
        if !msys.in_l(i, m) {
            let lead = format!(
                "{}, a left mover (its step starts in L({t})), cannot move before {}: {t} is not in L({t}) before it",
                name(msys, ka),
                name(msys, kb)
            );
            return Some(swap_failure(msys, lead, m, (kb, s1.clone()), (ka, s2)));
        }
        let swaps = msys.at(i, b).any(|ka2| {
            msys.step(ka2, m).is_some_and(|s_| {
                msys.at(j, c)
                    .any(|kb2| msys.step(kb2, &s_).is_some_and(|s__| s__ == s2))
            })
        });
        if swaps {
            return None;
        }
        let lead = format!(
            "{}, a left mover (its step starts in L({t})), cannot move before {}",
            name(msys, ka),
            name(msys, kb)
        );
        Some(swap_failure(msys, lead, m, (kb, s1.clone()), (ka, s2)))
    })
}

/// The witness of a pair that does not commute: `s -k1-> s1 -k2-> s2`, and
/// the other order tried with the same transitions (`s -k2-> s' -k1->
/// s''`), as far as it goes.
fn swap_failure(
    msys: &MSys,
    lead: String,
    m: &MState,
    (k1, s1): (usize, MState),
    (k2, s2): (usize, MState),
) -> Failure {
    let mut states: Vec<(&str, MState)> = vec![("s", m.clone()), ("s1", s1), ("s2", s2.clone())];
    let mut steps = vec![(0, k1, 1), (1, k2, 2)];
    let why = match msys.step(k2, m) {
        None => format!("{} is not enabled in s", name(msys, k2)),
        Some(s_) => {
            states.push(("s'", s_.clone()));
            steps.push((0, k2, 3));
            match msys.step(k1, &s_) {
                None => format!("after it, {} is not enabled", name(msys, k1)),
                Some(s__) if s__ == s2 => {
                    states.push(("s''", s__));
                    steps.push((3, k1, 4));
                    "in the other order they lead through s' to s'', which is s2".to_string()
                }
                Some(s__) => {
                    let differs = differences(msys, &s__, &s2);
                    states.push(("s''", s__));
                    steps.push((3, k1, 4));
                    format!(
                        "in the other order they lead through s' to s'', which differs from s2 ({differs})"
                    )
                }
            }
        }
    };
    failure(
        format!("{lead}: {why}"),
        states.iter().map(|(n, st)| (*n, st)).collect(),
        steps,
    )
}

/// Where two instrumented states differ, in words.
fn differences(msys: &MSys, a: &MState, b: &MState) -> String {
    let model = msys.sys.model;
    let mut out: Vec<String> = Vec::new();
    for (k, (x, y)) in a.st.s.iter().zip(&b.st.s).enumerate() {
        if x != y {
            out.push(model.slots[k].name.clone());
        }
    }
    if a.st.q != b.st.q {
        out.push("q".into());
    }
    for (t, (x, y)) in a.ph.iter().zip(&b.ph).enumerate() {
        if x != y {
            out.push(format!("phase({})", model.threads[t].name));
        }
    }
    format!("in {}", out.join(", "))
}

/// Every instance the local level checks, in report order, handed to
/// `visit` one by one until it returns false; `visit` is also called with
/// `None` after every point and pair of points, so that a caller can stop
/// at its limits anywhere.
///
/// With `copies`, only the instances at the points that stand for their
/// class of alike points of the procedures' copies are made
/// ([`Copies`](crate::certify::copies::Copies)); the others have the same
/// outcomes.
pub fn instances(
    msys: &MSys,
    copies: Option<&Copies>,
    visit: &mut dyn FnMut(Option<MInst>) -> bool,
) {
    let n = msys.threads();
    let checked = |t: usize, pc: i64| copies.is_none_or(|c| c.is_rep(t, pc));
    let mut out = vec![MInst::Init];
    let mut flush = |out: &mut Vec<MInst>| out.drain(..).all(|i| visit(Some(i))) && visit(None);
    for i in 0..n {
        let loops = msys.l_loops(i);
        for points in &loops {
            if copies.is_none_or(|c| c.loop_checked(msys.sys.model, i, points, &loops)) {
                out.push(MInst::Loop {
                    i,
                    points: points.clone(),
                });
            }
        }
        for b in msys.points(i).into_iter().filter(|&b| checked(i, b)) {
            point_instances(msys, i, b, None, &mut out);
            if !flush(&mut out) {
                return;
            }
        }
    }
    let points: Vec<Vec<i64>> = (0..n)
        .map(|t| {
            msys.points(t)
                .into_iter()
                .filter(|&b| checked(t, b))
                .collect()
        })
        .collect();
    for i in 0..n {
        for &b in &points[i] {
            for j in (0..n).filter(|&j| j != i) {
                for &c in &points[j] {
                    pair_instances(msys, i, b, j, c, &mut out);
                    if !flush(&mut out) {
                        return;
                    }
                }
            }
        }
    }
    flush(&mut out);
}

/// The point instances of thread i at b; with `q`, only those that speak
/// of states with that q.
fn point_instances(msys: &MSys, i: usize, b: i64, q: Option<bool>, out: &mut Vec<MInst>) {
    let mut push = |law| out.push(MInst::Point { law, i, b });
    if b != 0 {
        push(MoverLaw::R);
    }
    let l = msys.l_point(i, b);
    if l {
        push(MoverLaw::A2);
    }
    if msys.r_point(i, b) && q != Some(true) {
        push(MoverLaw::Q);
    }
    if l {
        push(MoverLaw::H17);
        if q != Some(false) {
            push(MoverLaw::H18);
        }
    }
}

/// The pair instances of thread i at b against thread j at c.
fn pair_instances(msys: &MSys, i: usize, b: i64, j: usize, c: i64, out: &mut Vec<MInst>) {
    let mut push = |law| out.push(MInst::Pair { law, i, b, j, c });
    if msys.r_point(i, b) {
        push(MoverLaw::A3);
    }
    if msys.l_point(i, b) {
        push(MoverLaw::A4);
        push(MoverLaw::A5);
    }
    if b != 0 {
        push(MoverLaw::A5r);
    }
}

/// The instances that apply at a reachable state `m` (exhaustive level;
/// the loop and initial-state instances are handled separately).
pub fn instances_at(msys: &MSys, m: &MState, out: &mut Vec<MInst>) {
    out.clear();
    let n = msys.threads();
    let pc = |t: usize| m.st.s[t];
    let moves = |t: usize| !msys.at(t, pc(t)).is_empty();
    for i in (0..n).filter(|&i| moves(i)) {
        point_instances(msys, i, pc(i), Some(m.st.q), out);
    }
    for i in (0..n).filter(|&i| moves(i)) {
        for j in (0..n).filter(|&j| j != i && moves(j)) {
            pair_instances(msys, i, pc(i), j, pc(j), out);
        }
    }
}

/// The states of a witness, back as instrumented states (for tests).
#[cfg(test)]
pub fn unshown(msys: &MSys, st: &crate::certify::system::QState) -> MState {
    let n = msys.sys.model.slots.len();
    MState {
        st: crate::certify::system::QState {
            s: st.s[..n].to_vec(),
            q: st.q,
        },
        ph: st.s[n..].iter().map(|&b| b != 0).collect(),
    }
}
