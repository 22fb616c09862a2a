//! Is each hypothesis of the movers theorem (M) needed? As for (19) (the
//! parent module), a counter-model is a relational model, with a few
//! states and threads, in which every other hypothesis holds and (M)
//! `p s* q <= N* R` fails. The theory is `trusted/movers.rs`'s: atoms q,
//! and per thread p_i, r_i (predicates) and s_i (steps); definitions
//! `u_i = ~p_i s_i`, `rm_i = s_i r_i`, `v_i = rm_i* p_i s_i ~r_i`, the
//! paper's (3)-(9) over them, `p` the product of the p_i, `s` the sum of
//! the s_i; hypotheses (R), (A2)-(A5r), (Q), (11), (17), (18). They are
//! evaluated here on the parent's bit-row relations, with code of this
//! module's own (nothing from the refuter's `model.rs`).
//!
//! Eight hypotheses have recorded counter-models ([`known`]); (A2) and
//! (A5r) are redundant ([`redundant`]): the kernel proves (M) without
//! either, from `proofs/movers.proof` changed as [`WITHOUT_A2`] and
//! [`without_a5r::script`] say (tests check both).

use std::fmt;

use serde::Serialize;

use super::{MAX_N, Rel, Search, Violation, Xs, set};

/// The hypotheses of the movers theorem, in the order of its theory.
pub const HYPOTHESES: [&str; 10] = [
    "(R)", "(A2)", "(A3)", "(A4)", "(A5)", "(A5r)", "(Q)", "(11)", "(17)", "(18)",
];

/// The hypotheses about one thread i.
const LOCAL: [&str; 6] = ["(R)", "(A2)", "(Q)", "(11)", "(17)", "(18)"];

/// The hypotheses about two threads i != j.
const PAIRWISE: [&str; 4] = ["(A3)", "(A4)", "(A5)", "(A5r)"];

/// A model of the movers theorem's atoms: states, q, and per thread p_i,
/// r_i and s_i.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MoversModel {
    /// Number of states.
    pub states: usize,
    /// The states where q holds.
    pub q: Vec<usize>,
    /// Per thread: the states where p_i holds (thread i is not in L(i)).
    pub p: Vec<Vec<usize>>,
    /// Per thread: the states where r_i holds (thread i is in R(i)).
    pub r: Vec<Vec<usize>>,
    /// Per thread: the pairs of s_i (thread i's steps).
    pub s: Vec<Vec<(usize, usize)>>,
}

/// One thread's atoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Thread {
    p: u8,
    r: u8,
    s: Rel,
}

struct Eval {
    n: usize,
    q: u8,
    ts: Vec<Thread>,
}

impl Eval {
    fn of(m: &MoversModel) -> Eval {
        Eval {
            n: m.states,
            q: set(&m.q),
            ts: (0..m.p.len())
                .map(|i| Thread {
                    p: set(&m.p[i]),
                    r: set(&m.r[i]),
                    s: Rel::from_pairs(&m.s[i]),
                })
                .collect(),
        }
    }

    fn full(&self) -> u8 {
        ((1u16 << self.n) - 1) as u8
    }

    /// The predicate with the states of `x` (complements are masked).
    fn pred(&self, x: u8) -> Rel {
        Rel::test(x & self.full(), self.n)
    }

    /// (u) `u_i = ~p_i s_i`.
    fn u(&self, i: usize) -> Rel {
        self.pred(!self.ts[i].p).then(self.ts[i].s, self.n)
    }

    /// (rm) `rm_i = s_i r_i`.
    fn rm(&self, i: usize) -> Rel {
        self.ts[i].s.then(self.pred(self.ts[i].r), self.n)
    }

    /// (v) `v_i = rm_i* p_i s_i ~r_i`.
    fn v(&self, i: usize) -> Rel {
        let (n, t) = (self.n, self.ts[i]);
        self.rm(i)
            .star(n)
            .then(self.pred(t.p), n)
            .then(t.s, n)
            .then(self.pred(!t.r), n)
    }

    /// Whether the one-thread hypothesis `h` holds for thread i.
    fn local(&self, h: &str, i: usize) -> bool {
        let (n, t) = (self.n, self.ts[i]);
        let (q, nq) = (self.pred(self.q), self.pred(!self.q));
        match h {
            // r_i <= p_i
            "(R)" => self.pred(t.r).within(self.pred(t.p)),
            // ~p_i rm_i = 0
            "(A2)" => self.pred(!t.p).then(self.rm(i), n).is_empty(),
            // rm_i q <= q rm_i
            "(Q)" => self.rm(i).then(q, n).within(q.then(self.rm(i), n)),
            // (u_i ~q)^w = 0
            "(11)" => self.u(i).then(nq, n).omega(n).is_empty(),
            // 1 <= p_i + u_i T
            "(17)" => Rel::id(n).within(self.pred(t.p).or(self.u(i).then(Rel::all(n), n))),
            // q u_i <= u_i q
            "(18)" => q.then(self.u(i), n).within(self.u(i).then(q, n)),
            _ => false,
        }
    }

    /// Whether the two-thread hypothesis `h` holds for threads i != j.
    fn pair(&self, h: &str, i: usize, j: usize) -> bool {
        let n = self.n;
        let sj = self.ts[j].s;
        let (pi, ri) = (self.pred(self.ts[i].p), self.pred(self.ts[i].r));
        match h {
            // rm_i s_j <= s_j rm_i
            "(A3)" => self.rm(i).then(sj, n).within(sj.then(self.rm(i), n)),
            // s_j u_i <= u_i s_j
            "(A4)" => sj.then(self.u(i), n).within(self.u(i).then(sj, n)),
            // s_j p_i = p_i s_j
            "(A5)" => sj.then(pi, n) == pi.then(sj, n),
            // s_j r_i = r_i s_j
            "(A5r)" => sj.then(ri, n) == ri.then(sj, n),
            _ => false,
        }
    }

    /// Whether hypothesis `h` holds (for all threads, i != j where stated).
    fn holds(&self, h: &str) -> bool {
        let m = self.ts.len();
        if LOCAL.contains(&h) {
            (0..m).all(|i| self.local(h, i))
        } else if PAIRWISE.contains(&h) {
            (0..m).all(|i| (0..m).all(|j| i == j || self.pair(h, i, j)))
        } else {
            false
        }
    }

    /// Both sides of (M): `p s* q` and `N* R`.
    fn theorem(&self) -> (Rel, Rel) {
        let n = self.n;
        let m = self.ts.len();
        let (q, nq) = (self.pred(self.q), self.pred(!self.q));
        let s = self.ts.iter().fold(Rel::default(), |a, t| a.or(t.s));
        let p = self.pred(self.ts.iter().fold(self.full(), |a, t| a & t.p));
        // (3) M_i = v_i u_i*, (4) N_i = M_i p_i ~q, (7), (8) their sums.
        let mi = |i: usize| self.v(i).then(self.u(i).star(n), n);
        let big_m = (0..m).fold(Rel::default(), |a, i| a.or(mi(i)));
        let big_n = (0..m).fold(Rel::default(), |a, i| {
            a.or(mi(i).then(self.pred(self.ts[i].p), n).then(nq, n))
        });
        // (9) R = (1 + M) q T.
        let r = Rel::id(n).or(big_m).then(q, n).then(Rel::all(n), n);
        let lhs = p.then(s.star(n), n).then(q, n);
        (lhs, big_n.star(n).then(r, n))
    }
}

impl MoversModel {
    /// Checks that every hypothesis but `dropped` holds and (M) fails.
    pub fn check(&self, dropped: &str) -> Result<Violation, String> {
        let (n, threads) = (self.states, self.p.len());
        let in_range = self.q.iter().chain(self.p.iter().flatten()).all(|s| *s < n)
            && self.r.iter().flatten().all(|s| *s < n)
            && self.s.iter().flatten().all(|(s, t)| *s < n && *t < n);
        if n == 0
            || n > MAX_N
            || threads == 0
            || self.r.len() != threads
            || self.s.len() != threads
            || !in_range
        {
            return Err("malformed model".into());
        }
        let e = Eval::of(self);
        let holding: Vec<String> = HYPOTHESES
            .iter()
            .filter(|h| e.holds(h))
            .map(|h| h.to_string())
            .collect();
        if let Some(h) = HYPOTHESES
            .iter()
            .find(|h| **h != dropped && !holding.iter().any(|x| x == *h))
        {
            return Err(format!("hypothesis {h} does not hold in it"));
        }
        let (lhs, rhs) = e.theorem();
        match lhs
            .pairs(n)
            .into_iter()
            .find(|pr| !rhs.pairs(n).contains(pr))
        {
            Some(pair) => Ok(Violation { pair, holding }),
            None => Err("(M) holds in it".into()),
        }
    }
}

impl fmt::Display for MoversModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |xs: &[usize]| {
            let xs: Vec<String> = xs.iter().map(|s| s.to_string()).collect();
            format!("{{{}}}", xs.join(", "))
        };
        let rel = |xs: &[(usize, usize)]| {
            let xs: Vec<String> = xs.iter().map(|(s, t)| format!("{s}->{t}")).collect();
            format!("{{{}}}", xs.join(", "))
        };
        let m = self.p.len();
        write!(
            f,
            "{} states, {m} thread{}; q = {}",
            self.states,
            if m == 1 { "" } else { "s" },
            set(&self.q)
        )?;
        for i in 0..m {
            write!(
                f,
                "; p_{i} = {}; r_{i} = {}; s_{i} = {}",
                set(&self.p[i]),
                set(self.r.get(i).map_or(&[][..], |r| r)),
                rel(self.s.get(i).map_or(&[][..], |s| s))
            )?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------------ search

/// The threads allowed by the one-thread hypotheses kept ((R), (A2), (Q),
/// (11), (17), (18)), for a given q, on `n` states. (17) and (R) prune the
/// enumeration: p_i holds wherever s_i has no step, r_i lies within p_i.
fn threads(n: usize, q: u8, dropped: &str) -> Vec<Thread> {
    let keep = |h: &str| h != dropped;
    let full = ((1u16 << n) - 1) as u8;
    let mut out = Vec::new();
    for ks in 0..(1u64 << (n * n)) {
        let s = Rel::nth(ks, n);
        let enabled = (0..n).fold(0u8, |a, x| if s.rows[x] != 0 { a | (1 << x) } else { a });
        for p in 0..=full {
            if keep("(17)") && !p & full & !enabled != 0 {
                continue;
            }
            for r in 0..=full {
                if keep("(R)") && r & !p != 0 {
                    continue;
                }
                let t = Thread { p, r, s };
                let probe = Eval { n, q, ts: vec![t] };
                if LOCAL.iter().all(|h| !keep(h) || probe.local(h, 0)) {
                    out.push(t);
                }
            }
        }
    }
    out
}

fn model_of(n: usize, q: u8, ts: &[Thread]) -> MoversModel {
    let bits = |x: u8| (0..n).filter(|s| x & (1 << s) != 0).collect::<Vec<_>>();
    MoversModel {
        states: n,
        q: bits(q),
        p: ts.iter().map(|t| bits(t.p)).collect(),
        r: ts.iter().map(|t| bits(t.r)).collect(),
        s: ts.iter().map(|t| t.s.pairs(n)).collect(),
    }
}

/// The model, if it is a counter-model: the one-thread hypotheses kept are
/// taken to hold already; the two-thread ones and (M) are checked here.
fn counter(n: usize, q: u8, ts: &[Thread], dropped: &str) -> Option<MoversModel> {
    let e = Eval {
        n,
        q,
        ts: ts.to_vec(),
    };
    if ts.len() > 1 && PAIRWISE.iter().any(|h| *h != dropped && !e.holds(h)) {
        return None;
    }
    let (lhs, rhs) = e.theorem();
    (!lhs.within(rhs)).then(|| model_of(n, q, ts))
}

/// Looks for a counter-model showing that `dropped` is needed for (M).
/// Returns it (checked) or `None`, with the number of models examined.
/// `Exhaustive` (up to 3 states) and `Random` (up to 3 states) draw the
/// threads from those the one-thread hypotheses allow; since every
/// hypothesis and (M) are symmetric in the threads, `Exhaustive` takes
/// each multiset of threads once. `Sampled` draws each model directly, for
/// up to [`MAX_N`] states: q, then every p_i and r_i (r_i within p_i as
/// (R) asks), then each s_j among the pairs that keep every other thread's
/// p_i and r_i, as (A5) and (A5r) ask, and that (A2) allows, with a step
/// out of every state outside p_j, as (17) asks; the other hypotheses are
/// checked.
pub fn search(dropped: &str, how: Search) -> (Option<MoversModel>, u64) {
    let (n, m) = match how {
        Search::Sampled {
            states,
            threads,
            samples,
            seed,
        } => return sampled(dropped, states, threads, samples, seed),
        Search::Exhaustive { states, threads }
        | Search::Random {
            states, threads, ..
        } => (states, threads),
    };
    assert!((1..=3).contains(&n) && m >= 1, "1 to 3 states");
    let mut seen = 0u64;
    let mut rng = Xs(match how {
        Search::Random { seed, .. } => seed | 1,
        _ => 1,
    });
    for q in 0..(1u8 << n) {
        let cands = threads(n, q, dropped);
        if cands.is_empty() {
            continue;
        }
        match how {
            Search::Random { samples, .. } => {
                for _ in 0..samples >> n {
                    seen += 1;
                    let ts: Vec<Thread> = (0..m)
                        .map(|_| cands[(rng.next() % cands.len() as u64) as usize])
                        .collect();
                    if let Some(cm) = counter(n, q, &ts, dropped) {
                        return (Some(cm), seen);
                    }
                }
            }
            _ => {
                // Non-decreasing index vectors: each multiset once.
                let mut idx = vec![0usize; m];
                loop {
                    seen += 1;
                    let ts: Vec<Thread> = idx.iter().map(|&k| cands[k]).collect();
                    if let Some(cm) = counter(n, q, &ts, dropped) {
                        return (Some(cm), seen);
                    }
                    let Some(k) = (0..m).rev().find(|&k| idx[k] + 1 < cands.len()) else {
                        break;
                    };
                    let next = idx[k] + 1;
                    for x in &mut idx[k..] {
                        *x = next;
                    }
                }
            }
        }
    }
    (None, seen)
}

fn sampled(
    dropped: &str,
    n: usize,
    m: usize,
    samples: u64,
    seed: u64,
) -> (Option<MoversModel>, u64) {
    assert!((1..=MAX_N).contains(&n) && m >= 1, "1 to {MAX_N} states");
    let keep = |h: &str| h != dropped;
    let full = ((1u16 << n) - 1) as u8;
    let mut rng = Xs(seed | 1);
    let mut seen = 0;
    'sample: for _ in 0..samples {
        seen += 1;
        let q = (rng.next() as u8) & full;
        let density = 5 + rng.next() % 50;
        let mut ts: Vec<Thread> = (0..m)
            .map(|_| {
                let p = rng.next() as u8 & full;
                let r = rng.next() as u8 & if keep("(R)") { p } else { full };
                Thread {
                    p,
                    r,
                    s: Rel::default(),
                }
            })
            .collect();
        for j in 0..m {
            // The pairs (a, b) thread j may step.
            let same = |x: u8, a: usize, b: usize| (x >> a) & 1 == (x >> b) & 1;
            let allowed = |a: usize, b: usize| {
                (0..m).filter(|i| *i != j).all(|i| {
                    (!keep("(A5)") || same(ts[i].p, a, b))
                        && (!keep("(A5r)") || same(ts[i].r, a, b))
                }) && !(keep("(A2)") && ts[j].p & (1 << a) == 0 && ts[j].r & (1 << b) != 0)
            };
            let mut s = Rel::default();
            for a in 0..n {
                let ok: Vec<usize> = (0..n).filter(|b| allowed(a, *b)).collect();
                for &b in &ok {
                    if rng.next() % 100 < density {
                        s.rows[a] |= 1 << b;
                    }
                }
                if keep("(17)") && s.rows[a] == 0 && ts[j].p & (1 << a) == 0 {
                    if ok.is_empty() {
                        continue 'sample;
                    }
                    s.rows[a] |= 1 << ok[(rng.next() % ok.len() as u64) as usize];
                }
            }
            ts[j].s = s;
        }
        let probe = Eval {
            n,
            q,
            ts: ts.clone(),
        };
        if LOCAL.iter().any(|h| keep(h) && !probe.holds(h)) {
            continue;
        }
        if let Some(cm) = counter(n, q, &ts, dropped) {
            return (Some(cm), seen);
        }
    }
    (None, seen)
}

/// A smaller counter-model, if one is obtained by deleting a state, a
/// thread, a pair of some s_i, or a state from q or some p_i or r_i;
/// repeated until none is.
pub fn minimize(m: &MoversModel, dropped: &str) -> MoversModel {
    let mut best = m.clone();
    while let Some(c) = smaller(&best)
        .into_iter()
        .find(|c| c.check(dropped).is_ok())
    {
        best = c;
    }
    best
}

/// Every model one deletion smaller than `m`, largest deletions first.
fn smaller(m: &MoversModel) -> Vec<MoversModel> {
    let mut out = Vec::new();
    for d in 0..m.states {
        if m.states == 1 {
            break;
        }
        let re = |s: usize| if s > d { s - 1 } else { s };
        let set = |xs: &Vec<usize>| xs.iter().filter(|s| **s != d).map(|s| re(*s)).collect();
        let rel = |xs: &Vec<(usize, usize)>| {
            xs.iter()
                .filter(|(s, t)| *s != d && *t != d)
                .map(|(s, t)| (re(*s), re(*t)))
                .collect()
        };
        out.push(MoversModel {
            states: m.states - 1,
            q: set(&m.q),
            p: m.p.iter().map(set).collect(),
            r: m.r.iter().map(set).collect(),
            s: m.s.iter().map(rel).collect(),
        });
    }
    for i in 0..m.p.len() {
        if m.p.len() == 1 {
            break;
        }
        let mut c = m.clone();
        c.p.remove(i);
        c.r.remove(i);
        c.s.remove(i);
        out.push(c);
    }
    for i in 0..m.p.len() {
        for k in 0..m.s[i].len() {
            let mut c = m.clone();
            c.s[i].remove(k);
            out.push(c);
        }
        for k in 0..m.p[i].len() {
            let mut c = m.clone();
            c.p[i].remove(k);
            out.push(c);
        }
        for k in 0..m.r[i].len() {
            let mut c = m.clone();
            c.r[i].remove(k);
            out.push(c);
        }
    }
    for k in 0..m.q.len() {
        let mut c = m.clone();
        c.q.remove(k);
        out.push(c);
    }
    out
}

/// The recorded counter-model for (M) without `dropped`, and how it was
/// found. It is re-checked ([`MoversModel::check`]) wherever it is shown.
pub fn known(dropped: &str) -> Option<(MoversModel, &'static str)> {
    known_models()
        .into_iter()
        .find(|(h, _, _)| *h == dropped)
        .map(|(_, m, how)| (m, how))
}

/// Why (M) holds without `dropped`, when it does: the hypotheses that no
/// counter-model can refute.
pub fn redundant(dropped: &str) -> Option<&'static str> {
    match dropped {
        "(A2)" => Some(A2_REDUNDANT),
        "(A5r)" => Some(A5R_REDUNDANT),
        _ => None,
    }
}

/// Why (A2) is redundant, as `prove --drop (A2)` says.
const A2_REDUNDANT: &str = "proofs/movers.proof uses it only for (16v) ~p_i v_i = 0, in (25)'s case i = j, where ~p_i v_i <= u_i v_i serves as well, and that follows from the definitions alone (a right mover s_i r_i taken outside p_i is a step ~p_i s_i of u_i); with that change the kernel proves (M) with (A2) dropped, 0 failed, 0 trusted (a test of necessity/movers.rs checks it)";

/// Why (A5r) is redundant, as `prove --drop (A5r)` says.
const A5R_REDUNDANT: &str = "proofs/movers.proof uses it only to commute r_j with another thread's steps (sr_comm, then (15), rm_rm, rm_v); without it, (A3) still moves right movers right and keeps a thread in R(j) after its own right mover, and the runs of right movers left pending when another thread moves j into R(j) are absorbed by the reduced system (rm N* R <= N* R, from (A2), (A3), (Q)); rewritten so (necessity::movers::without_a5r), the kernel proves (M) with (A5r) dropped, 0 failed, 0 trusted (a test checks it); no counter-model was found among 217 million models either";

/// The change to `proofs/movers.proof` with which (M) is proved without
/// (A2): (16v) weakened to what the definitions give, and (25)'s case
/// i = j proved from that. Pairs of (text, replacement); the first pair is
/// also how to tell a script that has the change already.
pub const WITHOUT_A2: [(&str, &str); 3] = [
    (
        "lemma (16v): ~p_i v_i = 0\n",
        "lemma (16v): ~p_i v_i <= u_i v_i\n",
    ),
    (
        "   = 0                                     { (A2) }\n",
        "   = ~p_i s_i r_i rm_i* p_i s_i ~r_i       { (rm) }\n  <= ~p_i s_i rm_i* p_i s_i ~r_i           { pred_le_one }\n   = u_i v_i                               { (u); (v) }\n",
    ),
    (
        "  <= (p_i + u_i) (M_i + R)                  { M_i <= p_i M_i by (3), (16v), excluded_middle[a := p_i] }\n",
        "  <= (p_i + u_i) M_i                        { M_i <= p_i M_i + u_i M_i by (3), (16v), excluded_middle[a := p_i] }\n  <= (p_i + u_i) (M_i + R)                  {}\n",
    ),
];

/// How the searches went (`cargo run --release -p omega-algebra --example
/// necessity -- --movers [--deep]`): exhaustive over every model with 1 or
/// 2 states and 1 to 3 threads and with 3 states and 1 thread, then random
/// models; each found model minimised. "None smaller" refers to those
/// exhaustive bounds.
const RANDOM_3: &str = "random search, 3 states and 2 threads; none with at most 2 states (1 to 3 threads) or with 3 states and 1 thread";

#[rustfmt::skip]
fn known_models() -> Vec<(&'static str, MoversModel, &'static str)> {
    let m = |states, q: &[usize], p: &[&[usize]], r: &[&[usize]], s: &[&[(usize, usize)]]| MoversModel {
        states,
        q: q.to_vec(),
        p: p.iter().map(|x| x.to_vec()).collect(),
        r: r.iter().map(|x| x.to_vec()).collect(),
        s: s.iter().map(|x| x.to_vec()).collect(),
    };
    vec![
        ("(R)", m(3, &[0], &[&[0, 1]], &[&[2]], &[&[(1, 2), (2, 0)]]),
            "exhaustive search, 3 states and 1 thread; none with at most 2 states (1 to 3 threads)"),
        ("(A3)", m(3, &[0], &[&[0, 1, 2], &[0, 1, 2]], &[&[0, 2], &[]], &[&[(1, 2)], &[(2, 0)]]), RANDOM_3),
        ("(A4)", m(3, &[0], &[&[0, 1, 2], &[1]], &[&[], &[]], &[&[(2, 0)], &[(0, 0), (1, 2), (2, 1)]]), RANDOM_3),
        ("(A5)", m(3, &[0], &[&[0, 1], &[1, 2]], &[&[], &[]], &[&[(1, 2), (2, 1)], &[(0, 0), (2, 0)]]), RANDOM_3),
        ("(Q)", m(2, &[0], &[&[0, 1]], &[&[0]], &[&[(1, 0)]]), "exhaustive search, 2 states and 1 thread; none smaller"),
        ("(11)", m(3, &[0], &[&[0, 1, 2], &[2]], &[&[], &[]], &[&[(1, 0)], &[(0, 0), (1, 1), (2, 1)]]), RANDOM_3),
        ("(17)", m(3, &[0], &[&[1, 2], &[1]], &[&[1, 2], &[]], &[&[(2, 0)], &[(1, 2)]]), RANDOM_3),
        ("(18)", m(3, &[0], &[&[0, 1, 2], &[1]], &[&[], &[]], &[&[(1, 1), (2, 0)], &[(0, 1), (1, 2), (2, 1)]]), RANDOM_3),
    ]
}

/// (M) without (A5r): `proofs/movers.proof` uses (A5r) to commute r_j with
/// another thread's steps (lemmas sr_comm, snr_comm, then u_rm, (15),
/// rm_rm, rm_v). [`without_a5r::script`] rewrites it into a proof that does
/// not: right movers still move right past other threads' steps by (A3),
/// which also keeps a thread in R(j) after its own right mover (`rm_nr`);
/// what (A5r) no longer guarantees, another thread moving j into R(j),
/// leaves runs of right movers pending (`rm_j rm_j*` in (15), (25), (24)),
/// and these are absorbed by the reduced system (`pend`: `rm N* R <= N* R`,
/// by (A2), (A3), (Q)). (19) for the bundled system is not needed: (M) is
/// proved from (20)-(25) directly. The kernel proves (M) with (A5r) dropped.
pub mod without_a5r {
    /// Lemmas of `proofs/movers.proof` removed (some are moved earlier,
    /// into [`BEFORE_15`] and [`BEFORE_25`]).
    pub const REMOVE: [&str; 10] = [
        "sr_comm", "snr_comm", "u_rm", "rm_rm", "rm_v", "rm_uv", "(19)", "r_np", "rm_u", "rm_q",
    ];

    /// Lemmas inserted before (15).
    pub const BEFORE_15: &str = r#"lemma r_np: r_i ~p_i = 0
proof
     r_i ~p_i
   = r_i ~p_i + p_i ~p_i                   {}
   = (r_i + p_i) ~p_i                      {}
   = p_i ~p_i                              { (R) }
   = 0                                     {}
qed

lemma rm_u: rm_i u_j <= u_j rm_i
proof
case i = j:
     rm_i u_i
   = s_i r_i ~p_i s_i                      { (rm); (u) }
   = 0                                     { r_np }
  <= u_i rm_i                              {}
case i != j:
     rm_i u_j
   = ~p_j rm_i s_j                         { (rm); (u); snp_comm; pred_comm }
  <= ~p_j s_j rm_i                         { (A3) }
   = u_j rm_i                              { (u) }
qed

lemma rm_u_self: rm_i u_i = 0
proof
     rm_i u_i
   = s_i r_i ~p_i s_i                      { (rm); (u) }
   = 0                                     { r_np }
qed
lemma star_self: x* x = x x* by { x* x <= x x* by (1)[x := x, y := x, z := x]; x x* <= x* x by star_sim_r[y := x, x := x, z := x] }"#;

    /// Lemmas inserted before (25): right movers moved right, and absorbed.
    pub const BEFORE_25: &str = r#"// Without (A5r): right movers, moved right.
lemma rm_q: rm* q <= q rm*
proof
     rm* q
  <= q rm*                                 { rm q <= q rm by (Rm), (Q); (1) }
qed

lemma rm_qi: rm_i* q <= q rm_i* by { (Q); (1) }

// A right mover of j is not followed by another thread's step out of R(j).
lemma rm_nr: i != j => rm_j s_i ~r_j = 0
proof
     rm_j s_i ~r_j
   = rm_j s_i ~r_j + s_i s_j r_j ~r_j      {}
   = rm_j s_i ~r_j + s_i rm_j ~r_j         { (rm)[i := j] }
   = s_i rm_j ~r_j                         { (A3)[i := j, j := i] }
   = s_i s_j r_j ~r_j                      { (rm)[i := j] }
   = 0                                     {}
qed
lemma rm_commit: i != j => rm_i s_j ~r_j <= s_j ~r_j rm_i
proof
     rm_i s_j ~r_j
  <= s_j rm_i ~r_j                         { (A3) }
   = s_j r_j rm_i ~r_j + s_j ~r_j rm_i ~r_j          {}
  <= s_j r_j s_i ~r_j + s_j ~r_j rm_i      { (rm); pred_le_one }
   = rm_j s_i ~r_j + s_j ~r_j rm_i         { (rm)[i := j] }
  <= s_j ~r_j rm_i                         { rm_nr }
qed

lemma rm_pi: rm_i = p_i rm_i
proof
     rm_i
   = (p_i + ~p_i) rm_i                     {}
   = p_i rm_i                              { (A2) }
qed

lemma commit_v: p_i s_i ~r_i <= v_i by { (v) }

lemma rm_rm2: i != j => rm_i rm_j <= (rm_j + v_j) rm_i
proof
     rm_i rm_j
   = rm_i p_j rm_j                         { rm_pi[i := j] }
   = p_j rm_i s_j r_j                      { rm_p[i := j, j := i]; (rm)[i := j] }
  <= p_j s_j rm_i r_j                      { (A3) }
   = p_j s_j r_j rm_i r_j + p_j s_j ~r_j rm_i r_j    {}
  <= p_j s_j r_j rm_i + p_j s_j ~r_j rm_i  { pred_le_one[a := r_j] }
  <= s_j r_j rm_i + p_j s_j ~r_j rm_i      { pred_le_one[a := p_j] }
   = rm_j rm_i + p_j s_j ~r_j rm_i         { (rm)[i := j] }
  <= rm_j rm_i + v_j rm_i                  { commit_v[i := j] }
   = (rm_j + v_j) rm_i                     {}
qed
lemma rm_vi: rm_i v_i <= v_i
proof
     rm_i v_i
   = rm_i rm_i* p_i s_i ~r_i               { (v) }
  <= rm_i* p_i s_i ~r_i                    { star_unfold_l }
   = v_i                                   { (v) }
qed

lemma vv_absorb: (rm_i + v_i)* v_i <= v_i v_i*
proof
     (rm_i + v_i)* v_i
  <= (rm_i + v_i)* v_i v_i*                {}
  <= v_i v_i*                              { (rm_i + v_i) v_i v_i* <= v_i v_i* by rm_vi, star_unfold_l; star-ind-l }
qed

lemma rm_v2: i != j => rm_i v_j <= v_j v_j* rm_i
proof
     rm_i v_j
   = rm_i rm_j* p_j s_j ~r_j               { (v)[i := j] }
  <= (rm_j + v_j)* rm_i p_j s_j ~r_j       { rm_rm2; star_sim_r[y := rm_i, x := rm_j, z := rm_j + v_j] }
   = (rm_j + v_j)* p_j rm_i s_j ~r_j       { rm_p[i := j, j := i] }
  <= (rm_j + v_j)* p_j s_j ~r_j rm_i       { rm_commit }
  <= (rm_j + v_j)* v_j rm_i                { commit_v[i := j] }
  <= v_j v_j* rm_i                         { vv_absorb[i := j] }
qed

lemma rm_nq: rm_i ~q <= ~q rm_i + q T
proof
     rm_i ~q
   = q rm_i ~q + ~q rm_i ~q                {}
  <= q T + ~q rm_i                         { le_top[x := rm_i ~q]; pred_le_one }
   = ~q rm_i + q T                         {}
qed
lemma v_p: v_i = p_i v_i
proof
     v_i
   = (p_i + ~p_i) v_i                      {}
   = p_i v_i                               { (16v) }
qed

lemma vv_N: v_i v_i <= N_i v_i + R
proof
     v_i v_i
   = v_i p_i v_i                           { v_p }
   = v_i p_i q v_i + v_i p_i ~q v_i        {}
  <= M_i q T + M_i p_i ~q v_i              { v_M; pred_le_one; le_top[x := v_i] }
  <= R + N_i v_i                           { MqT_R; (4) }
   = N_i v_i + R                           {}
qed
lemma vv_step: N_i* (v_i + R) v_i <= N_i* (v_i + R)
proof
     N_i* (v_i + R) v_i
   = N_i* v_i v_i + N_i* R v_i             {}
  <= N_i* (N_i v_i + R) + N_i* R           { vv_N; R_absorb }
   = N_i* N_i v_i + N_i* R                 {}
  <= N_i* v_i + N_i* R                     { star_unfold_r }
   = N_i* (v_i + R)                        {}
qed

lemma vv: v_i v_i* <= N_i* (v_i + R)
proof
     v_i v_i*
  <= N_i* (v_i + R) v_i*                   {}
  <= N_i* (v_i + R)                        { vv_step; star-ind-r }
qed
lemma rm_Nj: i != j => rm_i N_j <= N_j N_j* rm_i + N_j* R
proof
     rm_i N_j
   = rm_i v_j u_j* p_j ~q                  { (4)[i := j]; (3)[i := j] }
  <= v_j v_j* rm_i u_j* p_j ~q             { rm_v2 }
  <= v_j v_j* u_j* rm_i p_j ~q             { rm_u[i := i, j := j]; star_sim_r[y := rm_i, x := u_j, z := u_j] }
   = v_j v_j* u_j* p_j rm_i ~q             { rm_p[i := j, j := i] }
  <= v_j v_j* u_j* p_j (~q rm_i + q T)     { rm_nq }
  <= N_j* (v_j + R) u_j* p_j (~q rm_i + q T)         { vv[i := j] }
   = N_j* v_j u_j* p_j ~q rm_i + N_j* v_j u_j* p_j q T + N_j* R u_j* p_j (~q rm_i + q T)  {}
  <= N_j* N_j rm_i + N_j* M_j q T + N_j* R           { (3)[i := j]; (4)[i := j]; pred_le_one; R_absorb }
  <= N_j N_j* rm_i + N_j* R                          { MqT_R[i := j]; star_self[x := N_j] }
qed

lemma rm_Nij: rm_i N_j <= N_j N_j* (1 + rm_i) + N_j* R
proof
case i = j:
     rm_i N_i
   = rm_i v_i u_i* p_i ~q                  { (4); (3) }
  <= v_i u_i* p_i ~q                       { rm_vi }
   = N_i                                   { (4); (3) }
  <= N_i N_i* (1 + rm_i) + N_i* R          {}
case i != j:
     rm_i N_j
  <= N_j N_j* rm_i + N_j* R                { rm_Nj }
  <= N_j N_j* (1 + rm_i) + N_j* R          {}
qed

lemma N_star_le: N_i* <= N* by { star_mono; (8) }
lemma rm_star_le: rm_i* <= rm* by { star_mono; (Rm) }

lemma N_le: N_i <= N by { (8) }
lemma rm_le: rm_i <= rm by { (Rm) }

lemma rm_N_bound: N_j N_j* (1 + rm_i) <= N N* (1 + rm)
proof
     N_j N_j* (1 + rm_i)
  <= N N_j* (1 + rm_i)                     { N_le[i := j] }
  <= N N* (1 + rm_i)                       { N_star_le[i := j] }
  <= N N* (1 + rm)                         { rm_le }
qed

lemma rm_N_bound2: N_j* R <= N* R by { N_star_le[i := j] }

lemma rm_N: rm N <= N N* (1 + rm) + N* R
proof
     rm N
   = (+i,j : rm_i N_j)                              { (Rm); (8) }
  <= (+i,j : N_j N_j* (1 + rm_i) + N_j* R)          { rm_Nij }
  <= N N* (1 + rm) + N* R                           { rm_N_bound; rm_N_bound2 }
qed
lemma rm_Mj: rm_i M_j q T <= N_j* R
proof
case i = j:
     rm_i M_i q T
   = rm_i v_i u_i* q T                     { (3) }
  <= v_i u_i* q T                          { rm_vi }
  <= R                                     { (3); MqT_R }
  <= N_i* R                                {}
case i != j:
     rm_i M_j q T
   = rm_i v_j u_j* q T                     { (3)[i := j] }
  <= v_j v_j* rm_i u_j* q T                { rm_v2 }
  <= v_j v_j* u_j* rm_i q T                { rm_u[i := i, j := j]; star_sim_r[y := rm_i, x := u_j, z := u_j] }
  <= v_j v_j* u_j* q rm_i T                { (Q) }
  <= v_j v_j* u_j* q T                     { top_top; le_top[x := rm_i] }
  <= N_j* (v_j + R) u_j* q T               { vv[i := j] }
   = N_j* v_j u_j* q T + N_j* R u_j* q T   {}
  <= N_j* M_j q T + N_j* R                 { (3)[i := j]; R_absorb }
  <= N_j* R                                { MqT_R[i := j] }
qed

lemma rm_R: rm R <= N* R
proof
     rm R
   = rm q T + rm M q T                     { (9) }
  <= q rm T + rm M q T                     { rm q <= q rm by (Rm), (Q) }
  <= q T + rm M q T                        { top_top; le_top[x := rm] }
   = q T + (+i,j : rm_i M_j q T)           { (Rm); (7) }
  <= q T + (+i,j : N_j* R)                 { rm_Mj }
  <= N* R                                  { qT_R; N_star_le }
qed

lemma rm_Nstar_step: N* (1 + rm + R) N <= N* (1 + rm + R)
proof
     N* (1 + rm + R) N
   = N* N + N* rm N + N* R N               {}
  <= N* + N* rm N + N* R N                 { star_unfold_r }
  <= N* + N* rm N + N* R                   { R_absorb }
  <= N* + N* (N N* (1 + rm) + N* R) + N* R { rm_N }
   = N* + N* N N* (1 + rm) + N* N* R + N* R          {}
  <= N* + N* (1 + rm) + N* R + N* R        { star_unfold_r; star_idem }
  <= N* (1 + rm + R)                       {}
qed
lemma rm_Nstar: rm N* <= N* (1 + rm + R)
proof
     rm N*
  <= N* (1 + rm + R) N*                    {}
  <= N* (1 + rm + R)                       { rm_Nstar_step; star-ind-r }
qed

lemma pend: rm N* R <= N* R
proof
     rm N* R
  <= N* (1 + rm + R) R                     { rm_Nstar }
   = N* R + N* rm R + N* R R               {}
  <= N* R + N* N* R + N* R                 { rm_R; R_R }
   = N* R                                  { star_idem }
qed

lemma pend_star: rm* N* R <= N* R by { pend; star-ind-l }

lemma rm_plus_u: rm_i rm_i* u_i* = rm_i rm_i*
proof
     rm_i rm_i* u_i*
   = rm_i rm_i* (1 + u_i u_i*)             { star_unfold_eq[x := u_i] }
   = rm_i rm_i* + rm_i* rm_i u_i u_i*      { star_self[x := rm_i] }
   = rm_i rm_i* + rm_i* s_i r_i ~p_i s_i u_i*        { (rm); (u) }
   = rm_i rm_i*                            { r_np }
qed

lemma rm_plus_q: rm_i rm_i* q T <= q T
proof
     rm_i rm_i* q T
  <= q rm_i rm_i* T                        { (Q); rm_qi }
  <= q T                                   { top_top; le_top[x := rm_i rm_i*] }
qed

lemma rm_box: rm_i rm_i* [u_i*] <= rm_i rm_i* + R
proof
     rm_i rm_i* [u_i*]
   = rm_i rm_i* u_i* + rm_i rm_i* u_i* q T + rm_i rm_i* q T   { (box) }
   = rm_i rm_i* + rm_i rm_i* q T           { rm_plus_u }
  <= rm_i rm_i* + R                        { rm_plus_q; qT_R }
qed

lemma rm_plus_le: rm_i rm_i* <= rm* by { rm_star_le; (Rm); star_unfold_l }

lemma rm_star_u: rm* u <= u rm*
proof
     rm* u
  <= u rm*                                 { rm u <= u rm by (Rm), (5), rm_u; (1) }
qed

lemma NR_closed: (N + R + rm*) N* R <= N* R
proof
     (N + R + rm*) N* R
   = N N* R + R N* R + rm* N* R            {}
  <= N* R + R + N* R                       { star_unfold_l; R_absorb; pend_star }
  <= N* R                                  {}
qed

lemma MpR: (M_i + R) p_i <= N + R
proof
     (M_i + R) p_i
   = (M_i + R) p_i (q + ~q)                 {}
  <= N + R                                  { M_i p_i ~q <= N by (4), (8); M_i p_i q <= R by pred_le_one, MqT_R, le_top[x := 1]; R_absorb }
qed"#;

    /// Lemmas replaced, by label.
    pub const REPLACE: [(&str, &str); 9] = [
        (
            "(15)",
            r#"lemma (15): i != j => v_j u_i <= u_i (v_j + rm_j rm_j*)
proof
     v_j u_i
   = rm_j* p_j s_j ~r_j u_i                { (v)[i := j] }
  <= rm_j* p_j s_j u_i                     { pred_le_one }
  <= rm_j* p_j u_i s_j                     { (A4) }
   = rm_j* u_i p_j s_j                     { (12) }
  <= u_i rm_j* p_j s_j                     { rm_u[i := j, j := i]; (1)[x := rm_j, y := u_i, z := rm_j] }
   = u_i rm_j* p_j s_j r_j + u_i rm_j* p_j s_j ~r_j      {}
  <= u_i rm_j* rm_j + u_i v_j              { (rm)[i := j]; (v)[i := j]; pred_le_one }
   = u_i (v_j + rm_j rm_j*)                { star_self[x := rm_j] }
qed"#,
        ),
        (
            "(25)",
            r#"lemma v_pu: i != j => v_j (p_i + u_i) <= (p_i + u_i) [v_j] + u_i rm_j rm_j*
proof
     v_j (p_i + u_i)
   = v_j p_i + v_j u_i                      {}
  <= p_i v_j + u_i (v_j + rm_j rm_j*)       { (13); (15) }
   = (p_i + u_i) v_j + u_i rm_j rm_j*       {}
  <= (p_i + u_i) [v_j] + u_i rm_j rm_j*     { (box) }
qed

lemma (25): M_j (p_i + u_i) <= (p_i + u_i) (M_j + R + rm_j rm_j*)
proof
case i = j:
     M_i (p_i + u_i)
  <= M_i                                    { pred_le_one; M_u }
  <= (p_i + u_i) (M_i + R + rm_i rm_i*)     { M_i <= p_i M_i by (3), (16v), excluded_middle[a := p_i] }
case i != j:
     M_j (p_i + u_i)
   = v_j u_j* (p_i + u_i)                   { (3) }
  <= v_j (p_i + u_i) [u_j]*                 { u_j (p_i + u_i) <= (p_i + u_i) [u_j] by (12), (14), (box); (1) }
  <= v_j (p_i + u_i) [u_j*]                 { box_star }
  <= ((p_i + u_i) [v_j] + u_i rm_j rm_j*) [u_j*]        { v_pu }
   = (p_i + u_i) [v_j] [u_j*] + u_i rm_j rm_j* [u_j*]   {}
  <= (p_i + u_i) (M_j + R) + u_i (rm_j rm_j* + R)       { box_M; rm_box[i := j] }
  <= (p_i + u_i) (M_j + R + rm_j rm_j*)                 {}
qed"#,
        ),
        (
            "(25M)",
            r#"lemma (25M): M (p_i + u_i) <= (p_i + u_i) (M + R + rm*)
proof
     M (p_i + u_i)
   = (+j : M_j (p_i + u_i))                 { (7) }
  <= (+j : (p_i + u_i) (M_j + R + rm_j rm_j*))          { (25) }
  <= (p_i + u_i) (M + R + rm*)              { (7); rm_plus_le }
qed"#,
        ),
        (
            "(25u)",
            r#"lemma (25u): M_j u_i <= (1 + u_i) (M_j + R + rm*)
proof
     M_j u_i
  <= M_j (p_i + u_i)                        {}
  <= (p_i + u_i) (M_j + R + rm_j rm_j*)     { (25) }
  <= (1 + u_i) (M_j + R + rm*)              { pred_le_one; rm_plus_le[i := j] }
qed"#,
        ),
        (
            "(24)",
            r#"lemma (24): N_j (p_i + u_i) <= (p_i + u_i) (N + R + rm*)
proof
     N_j (p_i + u_i)
  <= M_j p_j (p_i + u_i)                    { (4); pred_le_one }
  <= M_j (p_i + u_i) p_j                    { pred_comm; pu_comm }
  <= (p_i + u_i) (M_j + R + rm_j rm_j*) p_j { (25) }
   = (p_i + u_i) (M_j + R) p_j + (p_i + u_i) rm_j rm_j* p_j    {}
  <= (p_i + u_i) (N + R) + (p_i + u_i) rm*  { MpR[i := j]; rm_plus_le[i := j]; pred_le_one }
   = (p_i + u_i) (N + R + rm*)              {}
qed"#,
        ),
        (
            "(24N)",
            r#"lemma (24N): N (p_i + u_i) <= (p_i + u_i) (N + R + rm*)
proof
     N (p_i + u_i)
   = (+j : N_j (p_i + u_i))                 { (8) }
  <= (+j : (p_i + u_i) (N + R + rm*))       { (24) }
  <= (p_i + u_i) (N + R + rm*)              {}
qed"#,
        ),
        (
            "(23)",
            r#"lemma (23): N* R <= (p_i + u_i) N* R
proof
     N* R
   = N* (1 + M) q T                         { (9) }
  <= N* (1 + M) q (p_i + u_i) T             { (17); top_top }
  <= N* (1 + M) (p_i + u_i) q T             { pred_comm; (18) }
  <= N* (p_i + u_i) (1 + M + R + rm*) q T   { (25M) }
  <= N* (p_i + u_i) R                       { (9); R_absorb; rm* q T <= q T by rm_q, top_top, le_top[x := rm*]; qT_R }
  <= (p_i + u_i) (N + R + rm*)* R           { (24N); (1) }
  <= (p_i + u_i) (N + R + rm*)* N* R        {}
  <= (p_i + u_i) N* R                       { NR_closed; star-ind-l }
qed"#,
        ),
        (
            "(20)",
            r#"lemma (20): (M + R + rm*) u <= (1 + u) (M + R + rm*)
proof
     (M + R + rm*) u
   = M u + R u + rm* u                      {}
  <= M u + R + u rm*                        { R_absorb; rm_star_u }
   = (+i,j : M_j u_i) + R + u rm*           { (7); (5) }
  <= (+i,j : (1 + u_i) (M_j + R + rm*)) + R + u rm*     { (25u) }
  <= (1 + u) (M + R + rm*)                  { (7); (5) }
qed"#,
        ),
        (
            "(M)",
            r#"lemma MR_closed: (M + R + rm*) N* R <= N* R
proof
     (M + R + rm*) N* R
   = M N* R + R N* R + rm* N* R            {}
  <= M N* R + R + N* R                     { R_absorb; pend_star }
   = (+i : M_i N* R) + R + N* R            { (7) }
  <= N* R                                  { (21) }
qed

lemma (M): p s* q <= N* R
proof
     p s* q
  <= p (u + v + rm)* q                      { s_le; star_sub }
  <= p (u + M + R + rm*)* q                 { v <= M by (6), (7), v_M; rm <= rm*; star_mono }
  <= p u* (M + R + rm*)* q                  { (M + R + rm*) (1 + u) <= (1 + u) (M + R + rm*) by (20); (2)[x := 1 + u, y := M + R + rm*]; star_one_plus }
  <= (M + R + rm*)* q                       { p u = 0 by (p), (5), (16u); (p); star_unfold_eq }
  <= (M + R + rm*)* N* R                    { q_le_R }
  <= N* R                                   { MR_closed; star-ind-l }
qed"#,
        ),
    ];

    /// `source` (the text of `proofs/movers.proof`) with the lemmas that
    /// use (A5r) rewritten; an error names a lemma it lacks.
    pub fn script(source: &str) -> Result<String, String> {
        let label = |l: &str| {
            l.strip_prefix("lemma ")
                .and_then(|r| r.split_once(':'))
                .map(|(l, _)| l.to_string())
        };
        // A lemma runs until the next lemma, comment, definition or
        // hypothesis at the start of a line.
        let starts = |l: &str| {
            ["lemma ", "//", "def ", "hyp "]
                .iter()
                .any(|p| l.starts_with(p))
        };
        let lines: Vec<&str> = source.lines().collect();
        let mut seen = Vec::new();
        let mut out = String::new();
        let mut k = 0;
        while k < lines.len() {
            if let Some(lab) = label(lines[k]) {
                let mut end = k + 1;
                while end < lines.len() && !starts(lines[end]) {
                    end += 1;
                }
                for (at, block) in [("(15)", BEFORE_15), ("(25)", BEFORE_25)] {
                    if lab == at {
                        out.push_str(block);
                        out.push_str("\n\n");
                    }
                }
                let replaced = REPLACE.iter().find(|(l, _)| *l == lab);
                seen.push(lab.clone());
                if REMOVE.contains(&lab.as_str()) || replaced.is_some() {
                    if let Some((_, text)) = replaced {
                        out.push_str(text);
                        out.push_str("\n\n");
                    }
                    k = end;
                    continue;
                }
            }
            out.push_str(lines[k]);
            out.push('\n');
            k += 1;
        }
        let wanted = REMOVE.iter().chain(REPLACE.iter().map(|(l, _)| l));
        match wanted.into_iter().find(|l| !seen.iter().any(|s| s == *l)) {
            Some(l) => Err(format!("no lemma {l} to rewrite")),
            None => Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_movers_counter_model_checks() {
        for h in HYPOTHESES {
            if redundant(h).is_some() {
                assert!(known(h).is_none(), "{h} is recorded as not refuted");
                continue;
            }
            let (m, _) = known(h).unwrap_or_else(|| panic!("no counter-model for {h}"));
            let v = m.check(h).unwrap_or_else(|e| panic!("{h}: {e}"));
            assert!(
                !v.holding.iter().any(|x| x == h),
                "{h} holds in its own counter-model"
            );
            assert_eq!(
                v.holding.len(),
                HYPOTHESES.len() - 1,
                "{h}: {:?}",
                v.holding
            );
            // With the hypothesis it was built to break, it is not a model.
            assert!(m.check("(none)").is_err());
            // The witness: p s* q relates the pair, N* R does not.
            let (lhs, rhs) = Eval::of(&m).theorem();
            let (a, b) = v.pair;
            assert!(lhs.rows[a] & (1 << b) != 0 && rhs.rows[a] & (1 << b) == 0);
        }
    }

    #[test]
    fn the_movers_evaluator_follows_the_definitions() {
        // One thread: 0 -> 1 into R (a right mover), 1 -> 2 the commit into
        // L, 2 -> 0 a left mover back; q = {0}. Then v = {0->2, 1->2},
        // u = {2->0}, M = v u*, and from 0 and 1 (in p, not in q) N* R
        // reaches q through M.
        let m = MoversModel {
            states: 3,
            q: vec![0],
            p: vec![vec![0, 1]],
            r: vec![vec![1]],
            s: vec![vec![(0, 1), (1, 2), (2, 0)]],
        };
        let e = Eval::of(&m);
        assert_eq!(e.u(0).pairs(3), vec![(2, 0)]);
        assert_eq!(e.rm(0).pairs(3), vec![(0, 1)]);
        assert_eq!(e.v(0).pairs(3), vec![(0, 2), (1, 2)]);
        for h in HYPOTHESES {
            assert!(e.holds(h), "{h}");
        }
        let (lhs, rhs) = e.theorem();
        assert_eq!(lhs.pairs(3), vec![(0, 0), (1, 0)]);
        assert!(lhs.within(rhs));
        // Without the way back, thread 0 is stuck in L(0) at 2: (17) fails.
        let mut stuck = m.clone();
        stuck.s[0].retain(|x| *x != (2, 0));
        let e = Eval::of(&stuck);
        assert!(!e.holds("(17)") && e.holds("(11)"));
    }

    #[test]
    fn exhaustive_search_finds_the_smallest_for_q_and_none_for_a3_on_two_states() {
        let (cm, _) = search(
            "(Q)",
            Search::Exhaustive {
                states: 2,
                threads: 1,
            },
        );
        assert_eq!(cm.expect("a counter-model").states, 2);
        let (cm, seen) = search(
            "(A3)",
            Search::Exhaustive {
                states: 2,
                threads: 2,
            },
        );
        assert_eq!(cm, None);
        assert!(seen > 100, "{seen}");
        // The sampler finds one for (R) among models it draws directly.
        let (cm, _) = search(
            "(R)",
            Search::Sampled {
                states: 4,
                threads: 2,
                samples: 200_000,
                seed: 5,
            },
        );
        let cm = minimize(&cm.expect("a counter-model"), "(R)");
        assert!(cm.check("(R)").is_ok());
    }

    /// The movers evaluator and the refuter's (`model.rs`, reading the
    /// definitions and hypotheses of `proofs/movers.proof`) agree on every
    /// hypothesis and on (M), in random models of up to 4 states and 3
    /// threads.
    #[test]
    fn necessity_movers_evaluator_agrees_with_the_refuters() {
        use crate::refute::{Assumption, assumption_holds};
        use crate::{Evaluator, Model, Relation};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/movers.proof");
        let source = std::fs::read_to_string(path).expect("proofs/movers.proof");
        let script = crate::parse_script("proofs/movers.proof", &source).expect("parses");
        let ev = Evaluator::new(script.definitions());
        let claim = script
            .lemmas()
            .find(|l| l.label == "(M)")
            .expect("(M)")
            .statement
            .conclusions[0]
            .clone();
        let hyps: Vec<_> = script.hypotheses().collect();
        let labels: Vec<&str> = hyps.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, HYPOTHESES);
        let mut rng = Xs(0x5eed_1234_5678_9abc);
        // For each hypothesis and (M): how often it held, how often not.
        let mut seen = [[0u32; 2]; 11];
        for k in 0..3000 {
            let n = 1 + (rng.next() % 4) as usize;
            let threads = 1 + (rng.next() % 3) as usize;
            let full = ((1u16 << n) - 1) as u8;
            let density = [0, 15, 30, 60][(rng.next() % 4) as usize];
            let q = rng.next() as u8 & full;
            let ts: Vec<Thread> = (0..threads)
                .map(|_| {
                    let p = rng.next() as u8 & full;
                    let within = rng.next() & 1 == 0;
                    let r = rng.next() as u8 & if within { p } else { full };
                    Thread {
                        p,
                        r,
                        s: rng.relation(n, full, density),
                    }
                })
                .collect();
            let mm = model_of(n, q, &ts);
            let e = Eval::of(&mm);
            let rel = |r: Rel| {
                Relation(
                    r.pairs(n)
                        .iter()
                        .fold(0, |a, (s, t)| a | (1 << (4 * s + t))),
                )
            };
            let mut m = Model {
                states: n,
                threads,
                constants: [("q".to_string(), rel(e.pred(q)))].into_iter().collect(),
                families: Default::default(),
                indices: Default::default(),
            };
            for (i, t) in ts.iter().enumerate() {
                m.families.insert(("p".into(), i), rel(e.pred(t.p)));
                m.families.insert(("r".into(), i), rel(e.pred(t.r)));
                m.families.insert(("s".into(), i), rel(t.s));
            }
            for (x, hyp) in hyps.iter().enumerate() {
                let forall: Vec<String> = hyp.statement.indices().into_iter().collect();
                let theirs = hyp.statement.conclusions.iter().all(|c| {
                    let a = Assumption {
                        formula: c.clone(),
                        forall: forall.clone(),
                        distinct: hyp.statement.distinct.clone(),
                        vars: vec![],
                    };
                    assumption_holds(&ev, &m, &a).expect("evaluates")
                });
                let ours = e.holds(&hyp.label);
                assert_eq!(ours, theirs, "model {k} ({mm}): {}", hyp.label);
                seen[x][usize::from(ours)] += 1;
            }
            let theirs = ev.holds(&m, &claim).expect("evaluates");
            let (lhs, rhs) = e.theorem();
            assert_eq!(lhs.within(rhs), theirs, "model {k} ({mm}): (M)");
            seen[10][usize::from(theirs)] += 1;
        }
        for (x, [f, t]) in seen.iter().enumerate() {
            assert!(*f > 0 && *t > 0, "{x}: held {t} times, failed {f} times");
        }
    }

    /// (A5r) is redundant: rewritten by [`without_a5r::script`], the proof
    /// closes (M) with (A5r) dropped.
    #[test]
    fn necessity_movers_theorem_is_proved_without_a5r() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/movers.proof");
        let source = std::fs::read_to_string(path).expect("proofs/movers.proof");
        let source = without_a5r::script(&source).expect("the lemmas to rewrite");
        let script = crate::parse_script("movers-without-A5r.proof", &source).expect("parses");
        let opts = crate::CheckOptions {
            drop: vec!["(A5r)".into()],
            ..Default::default()
        };
        let report = crate::check(&script, &opts).report;
        assert_eq!(report.status, crate::Status::Proved, "{}", report.to_text());
        assert!(report.failed.is_empty() && report.trusted.is_empty());
        assert!(!report.assumptions.iter().any(|a| a == "(A5r)"));
        let m = report
            .lemmas
            .iter()
            .find(|l| l.label == "(M)")
            .expect("(M)");
        assert_eq!(m.status, crate::Status::Proved);
        assert_eq!(m.statement, "p s* q <= N* R");
        assert_eq!(
            report.paper_difference.as_deref(),
            Some("hypotheses dropped: (A5r)")
        );
    }

    /// (A2) is redundant: with (16v) weakened as [`WITHOUT_A2`] says, the
    /// kernel proves (M) with (A2) dropped.
    #[test]
    fn necessity_movers_theorem_is_proved_without_a2() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/movers.proof");
        let mut source = std::fs::read_to_string(path).expect("proofs/movers.proof");
        if !source.contains(WITHOUT_A2[0].1) {
            for (from, to) in WITHOUT_A2 {
                assert_eq!(source.matches(from).count(), 1, "{from}");
                source = source.replacen(from, to, 1);
            }
        }
        let script = crate::parse_script("movers-without-A2.proof", &source).expect("parses");
        let opts = crate::CheckOptions {
            drop: vec!["(A2)".into()],
            ..Default::default()
        };
        let report = crate::check(&script, &opts).report;
        assert_eq!(report.status, crate::Status::Proved, "{}", report.to_text());
        assert!(report.failed.is_empty() && report.trusted.is_empty());
        assert!(!report.assumptions.iter().any(|a| a == "(A2)"));
        let m = report
            .lemmas
            .iter()
            .find(|l| l.label == "(M)")
            .expect("(M)");
        assert_eq!(m.status, crate::Status::Proved);
        assert_eq!(m.statement, "p s* q <= N* R");
        // The statement and theory are the pinned ones, less (A2).
        assert_eq!(
            report.paper_difference.as_deref(),
            Some("hypotheses dropped: (A2)")
        );
        assert_eq!(report.theorem, crate::trusted::Pinned::Movers);
    }
}
