//! Is each hypothesis (11)-(18) needed for (19)? A counter-model is a
//! relational model, with a few states and threads, in which every other
//! hypothesis holds and (19) fails. This module evaluates the paper's
//! definitions, hypotheses and theorem directly on relations, with code of
//! its own (it shares nothing with the refuter's `model.rs`), searches for
//! counter-models, and records the ones found so that `prove --drop H` can
//! show and re-check them.
//!
//! Semantics (digest, section 1): relations on states; `;` composition, `+`
//! union, `*` reflexive-transitive closure, `x^w` relates every state with
//! an infinite x-path to every state; predicates are sets of states (as
//! partial identities), `~p` the complement; sums over threads are unions,
//! the product of predicates an intersection; `T = 1^w` relates all pairs.

use std::fmt;

use serde::Serialize;

pub mod movers;

/// At most this many states.
pub const MAX_N: usize = 8;

/// A relation: `rows[s]` has bit t when (s, t) is in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Rel {
    rows: [u8; MAX_N],
}

impl Rel {
    fn id(n: usize) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            r.rows[s] = 1 << s;
        }
        r
    }
    fn all(n: usize) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            r.rows[s] = ((1u16 << n) - 1) as u8;
        }
        r
    }
    /// The predicate with these states.
    fn test(set: u8, n: usize) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            if set & (1 << s) != 0 {
                r.rows[s] = 1 << s;
            }
        }
        r
    }
    fn or(self, o: Rel) -> Rel {
        let mut r = self;
        for s in 0..MAX_N {
            r.rows[s] |= o.rows[s];
        }
        r
    }
    fn then(self, o: Rel, n: usize) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            for t in 0..n {
                if self.rows[s] & (1 << t) != 0 {
                    r.rows[s] |= o.rows[t];
                }
            }
        }
        r
    }
    fn star(self, n: usize) -> Rel {
        let mut r = Rel::id(n);
        loop {
            let next = r.or(r.then(self, n));
            if next == r {
                return r;
            }
            r = next;
        }
    }
    /// States from which an infinite path starts relate to every state.
    fn omega(self, n: usize) -> Rel {
        // The greatest set of states each with a successor inside the set.
        let mut live: u8 = ((1u16 << n) - 1) as u8;
        loop {
            let mut next = 0u8;
            for s in 0..n {
                if live & (1 << s) != 0 && self.rows[s] & live != 0 {
                    next |= 1 << s;
                }
            }
            if next == live {
                break;
            }
            live = next;
        }
        Rel::test(live, n).then(Rel::all(n), n)
    }
    fn within(self, o: Rel) -> bool {
        (0..MAX_N).all(|s| self.rows[s] & !o.rows[s] == 0)
    }
    fn is_empty(self) -> bool {
        self.rows.iter().all(|r| *r == 0)
    }
    fn pairs(self, n: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for s in 0..n {
            for t in 0..n {
                if self.rows[s] & (1 << t) != 0 {
                    v.push((s, t));
                }
            }
        }
        v
    }
    fn from_pairs(ps: &[(usize, usize)]) -> Rel {
        let mut r = Rel::default();
        for &(s, t) in ps {
            r.rows[s] |= 1 << t;
        }
        r
    }
    /// The `k`-th relation on `n` states (bit `s n + t` of k is (s, t)).
    fn nth(k: u64, n: usize) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            r.rows[s] = ((k >> (s * n)) & ((1 << n) - 1)) as u8;
        }
        r
    }
}

/// A model of the paper's atoms: states, threads, q, and per thread p_i,
/// u_i, v_i.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PaperModel {
    /// Number of states.
    pub states: usize,
    /// The states where q holds.
    pub q: Vec<usize>,
    /// Per thread: the states where p_i holds.
    pub p: Vec<Vec<usize>>,
    /// Per thread: the pairs of u_i.
    pub u: Vec<Vec<(usize, usize)>>,
    /// Per thread: the pairs of v_i.
    pub v: Vec<Vec<(usize, usize)>>,
}

/// The hypotheses, in order.
pub const HYPOTHESES: [&str; 8] = [
    "(11)", "(12)", "(13)", "(14)", "(15)", "(16)", "(17)", "(18)",
];

struct Eval {
    n: usize,
    q: u8,
    p: Vec<u8>,
    u: Vec<Rel>,
    v: Vec<Rel>,
}

fn set(xs: &[usize]) -> u8 {
    xs.iter().fold(0, |a, s| a | (1 << s))
}

impl Eval {
    fn of(m: &PaperModel) -> Eval {
        Eval {
            n: m.states,
            q: set(&m.q),
            p: m.p.iter().map(|p| set(p)).collect(),
            u: m.u.iter().map(|u| Rel::from_pairs(u)).collect(),
            v: m.v.iter().map(|v| Rel::from_pairs(v)).collect(),
        }
    }

    fn full(&self) -> u8 {
        ((1u16 << self.n) - 1) as u8
    }

    /// Whether hypothesis `h` holds (for all threads, i != j where stated).
    fn holds(&self, h: &str) -> bool {
        let n = self.n;
        let (q, nq) = (Rel::test(self.q, n), Rel::test(!self.q & self.full(), n));
        let t = Rel::all(n);
        let qt = q.then(t, n);
        let m = self.u.len();
        let pairs =
            || (0..m).flat_map(move |i| (0..m).filter(move |j| *j != i).map(move |j| (i, j)));
        let pi = |i: usize| Rel::test(self.p[i], n);
        let npi = |i: usize| Rel::test(!self.p[i] & self.full(), n);
        // y u_i <= u_i (q T + y + y q T)
        let mover = |y: Rel, i: usize| {
            y.then(self.u[i], n)
                .within(self.u[i].then(qt.or(y).or(y.then(qt, n)), n))
        };
        match h {
            "(11)" => (0..m).all(|i| self.u[i].then(nq, n).omega(n).is_empty()),
            "(12)" => pairs().all(|(i, j)| self.u[j].then(pi(i), n) == pi(i).then(self.u[j], n)),
            "(13)" => pairs().all(|(i, j)| self.v[j].then(pi(i), n) == pi(i).then(self.v[j], n)),
            "(14)" => pairs().all(|(i, j)| mover(self.u[j], i)),
            "(15)" => pairs().all(|(i, j)| mover(self.v[j], i)),
            "(16)" => (0..m).all(|i| {
                npi(i).then(self.v[i], n).is_empty() && pi(i).then(self.u[i], n).is_empty()
            }),
            "(17)" => (0..m).all(|i| Rel::id(n).within(pi(i).or(self.u[i].then(t, n)))),
            "(18)" => (0..m).all(|i| q.then(self.u[i], n).within(self.u[i].then(q, n))),
            _ => false,
        }
    }

    /// Both sides of (19): `p (u + v)* q` and `N* R`.
    fn theorem(&self) -> (Rel, Rel) {
        let n = self.n;
        let m = self.u.len();
        let (q, nq) = (Rel::test(self.q, n), Rel::test(!self.q & self.full(), n));
        let t = Rel::all(n);
        let union = |rs: &mut dyn Iterator<Item = Rel>| rs.fold(Rel::default(), |a, r| a.or(r));
        let u = union(&mut self.u.iter().copied());
        let v = union(&mut self.v.iter().copied());
        let p = Rel::test(self.p.iter().fold(self.full(), |a, p| a & p), n);
        let mi = |i: usize| self.v[i].then(self.u[i].star(n), n);
        let big_m = union(&mut (0..m).map(mi));
        let big_n = union(&mut (0..m).map(|i| mi(i).then(Rel::test(self.p[i], n), n).then(nq, n)));
        let r = Rel::id(n).or(big_m).then(q, n).then(t, n);
        let lhs = p.then(u.or(v).star(n), n).then(q, n);
        (lhs, big_n.star(n).then(r, n))
    }
}

/// A recorded counter-model, of (19) or of (M).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum AnyModel {
    /// A model of the paper's atoms, for (19).
    Paper(PaperModel),
    /// A model of the movers theorem's atoms, for (M).
    Movers(movers::MoversModel),
}

impl fmt::Display for AnyModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyModel::Paper(m) => m.fmt(f),
            AnyModel::Movers(m) => m.fmt(f),
        }
    }
}

/// A counter-model's witness: a pair in the left side of the theorem
/// (`p (u + v)* q` for (19), `p s* q` for (M)) but not in `N* R`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The pair.
    pub pair: (usize, usize),
    /// The hypotheses that hold in the model.
    pub holding: Vec<String>,
}

impl PaperModel {
    /// Checks that every hypothesis but `dropped` holds and (19) fails.
    pub fn check(&self, dropped: &str) -> Result<Violation, String> {
        let threads = self.p.len();
        if self.states == 0
            || self.states > MAX_N
            || threads == 0
            || self.u.len() != threads
            || self.v.len() != threads
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
            .pairs(self.states)
            .into_iter()
            .find(|pr| !rhs.pairs(self.states).contains(pr))
        {
            Some(pair) => Ok(Violation { pair, holding }),
            None => Err("(19) holds in it".into()),
        }
    }
}

impl fmt::Display for PaperModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |xs: &[usize]| {
            format!(
                "{{{}}}",
                xs.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let rel = |xs: &[(usize, usize)]| {
            format!(
                "{{{}}}",
                xs.iter()
                    .map(|(s, t)| format!("{s}->{t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        write!(
            f,
            "{} states, {} threads; q = {}",
            self.states,
            self.p.len(),
            set(&self.q)
        )?;
        for i in 0..self.p.len() {
            write!(
                f,
                "; p_{i} = {}; u_{i} = {}; v_{i} = {}",
                set(&self.p[i]),
                rel(&self.u[i]),
                rel(&self.v[i])
            )?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------------ search

/// One thread's atoms.
#[derive(Clone, Copy, Debug)]
struct Thread {
    p: u8,
    u: Rel,
    v: Rel,
}

/// The threads allowed by the single-thread hypotheses kept ((11), (16),
/// (17), (18)), for a given q, on `n` states. (16) and (17) prune the
/// enumeration: they fix where u_i and v_i may start.
fn threads(n: usize, q: u8, dropped: &str) -> Vec<Thread> {
    let keep = |h: &str| h != dropped;
    let full = ((1u16 << n) - 1) as u8;
    let mut out = Vec::new();
    for ku in 0..(1u64 << (n * n)) {
        let u = Rel::nth(ku, n);
        let probe = Eval {
            n,
            q,
            p: vec![0],
            u: vec![u],
            v: vec![Rel::default()],
        };
        if (keep("(11)") && !probe.holds("(11)")) || (keep("(18)") && !probe.holds("(18)")) {
            continue;
        }
        let enabled = (0..n).fold(0u8, |a, s| if u.rows[s] != 0 { a | (1 << s) } else { a });
        for p in 0..=full {
            // (16): p_i u_i = 0, u_i starts outside p_i; (17): every state
            // outside p_i has a u_i step.
            if keep("(16)") && p & enabled != 0 || keep("(17)") && !p & full & !enabled != 0 {
                continue;
            }
            // (16): ~p_i v_i = 0, v_i starts in p_i only.
            let rows = if keep("(16)") { p } else { full };
            let free: Vec<usize> = (0..n).filter(|s| rows & (1 << s) != 0).collect();
            for kv in 0..(1u64 << (free.len() * n)) {
                let mut v = Rel::default();
                for (k, s) in free.iter().enumerate() {
                    v.rows[*s] = ((kv >> (k * n)) & ((1 << n) - 1)) as u8;
                }
                out.push(Thread { p, u, v });
            }
        }
    }
    out
}

fn model_of(n: usize, q: u8, ts: &[Thread]) -> PaperModel {
    let bits = |x: u8| (0..n).filter(|s| x & (1 << s) != 0).collect::<Vec<_>>();
    PaperModel {
        states: n,
        q: bits(q),
        p: ts.iter().map(|t| bits(t.p)).collect(),
        u: ts.iter().map(|t| t.u.pairs(n)).collect(),
        v: ts.iter().map(|t| t.v.pairs(n)).collect(),
    }
}

fn counter(n: usize, q: u8, ts: &[Thread], dropped: &str) -> Option<PaperModel> {
    let e = Eval {
        n,
        q,
        p: ts.iter().map(|t| t.p).collect(),
        u: ts.iter().map(|t| t.u).collect(),
        v: ts.iter().map(|t| t.v).collect(),
    };
    let pairwise = ["(12)", "(13)", "(14)", "(15)"];
    if ts.len() > 1 && pairwise.iter().any(|h| *h != dropped && !e.holds(h)) {
        return None;
    }
    let (lhs, rhs) = e.theorem();
    (!lhs.within(rhs)).then(|| model_of(n, q, ts))
}

/// How hard to look.
#[derive(Clone, Copy, Debug)]
pub enum Search {
    /// Every model with `states` states and `threads` threads.
    Exhaustive {
        /// States.
        states: usize,
        /// Threads (1 or 2).
        threads: usize,
    },
    /// `samples` random models, each thread drawn directly: a random u_i,
    /// then p_i and v_i as (16) and (17) allow, rejected unless (11) and
    /// (18) hold. For up to [`MAX_N`] states.
    Sampled {
        /// States.
        states: usize,
        /// Threads.
        threads: usize,
        /// Models tried.
        samples: u64,
        /// Seed.
        seed: u64,
    },
    /// `samples` random models with `states` states and `threads` threads
    /// (threads drawn among those the single-thread hypotheses allow).
    Random {
        /// States.
        states: usize,
        /// Threads.
        threads: usize,
        /// Models tried.
        samples: u64,
        /// Seed.
        seed: u64,
    },
}

/// Looks for a counter-model showing that `dropped` is needed for (19).
/// Returns it (checked) or `None`, with the number of models examined.
pub fn search(dropped: &str, how: Search) -> (Option<PaperModel>, u64) {
    if let Search::Sampled {
        states,
        threads,
        samples,
        seed,
    } = how
    {
        return sampled(dropped, states, threads, samples, seed);
    }
    let (n, m) = match how {
        Search::Exhaustive { states, threads }
        | Search::Random {
            states, threads, ..
        } => (states, threads),
        Search::Sampled { .. } => unreachable!("handled above"),
    };
    assert!((1..=4).contains(&n) && m >= 1, "1 to 4 states");
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
            Search::Exhaustive { .. } => {
                let mut idx = vec![0usize; m];
                loop {
                    seen += 1;
                    let ts: Vec<Thread> = idx.iter().map(|&k| cands[k]).collect();
                    if let Some(cm) = counter(n, q, &ts, dropped) {
                        return (Some(cm), seen);
                    }
                    // Odometer over the candidate lists.
                    let mut k = 0;
                    while k < m {
                        idx[k] += 1;
                        if idx[k] < cands.len() {
                            break;
                        }
                        idx[k] = 0;
                        k += 1;
                    }
                    if k == m {
                        break;
                    }
                }
            }
            Search::Sampled { .. } => unreachable!("handled above"),
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
        }
    }
    (None, seen)
}

/// xorshift64, so that searches repeat exactly.
struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A relation with rows only at `rows`, each pair with `density` percent.
    fn relation(&mut self, n: usize, rows: u8, density: u64) -> Rel {
        let mut r = Rel::default();
        for s in 0..n {
            if rows & (1 << s) != 0 {
                for t in 0..n {
                    if self.next() % 100 < density {
                        r.rows[s] |= 1 << t;
                    }
                }
            }
        }
        r
    }
}

fn sampled(
    dropped: &str,
    n: usize,
    m: usize,
    samples: u64,
    seed: u64,
) -> (Option<PaperModel>, u64) {
    assert!((1..=MAX_N).contains(&n) && m >= 1, "1 to {MAX_N} states");
    let keep = |h: &str| h != dropped;
    let full = ((1u16 << n) - 1) as u8;
    let mut rng = Xs(seed | 1);
    let mut seen = 0;
    for _ in 0..samples {
        let q = (rng.next() as u8) & full;
        let density = 5 + rng.next() % 50;
        let mut ts = Vec::new();
        for _ in 0..m {
            let u = rng.relation(n, full, density);
            let enabled = (0..n).fold(0u8, |a, s| if u.rows[s] != 0 { a | (1 << s) } else { a });
            let extra = rng.next() as u8;
            // (16) keeps p_i among the disabled states, (17) above them.
            let p = match (keep("(16)"), keep("(17)")) {
                (true, true) => !enabled & full,
                (true, false) => !enabled & full & extra,
                (false, true) => (!enabled | extra) & full,
                (false, false) => extra & full,
            };
            let v = rng.relation(n, if keep("(16)") { p } else { full }, density);
            ts.push(Thread { p, u, v });
        }
        seen += 1;
        let probe = Eval {
            n,
            q,
            p: ts.iter().map(|t| t.p).collect(),
            u: ts.iter().map(|t| t.u).collect(),
            v: ts.iter().map(|t| t.v).collect(),
        };
        if ["(11)", "(18)"].iter().any(|h| keep(h) && !probe.holds(h)) {
            continue;
        }
        if let Some(cm) = counter(n, q, &ts, dropped) {
            return (Some(cm), seen);
        }
    }
    (None, seen)
}

/// A smaller counter-model, if one is obtained by deleting a state, a
/// thread, or a pair or state from one of the atoms; repeated until none is.
pub fn minimize(m: &PaperModel, dropped: &str) -> PaperModel {
    let ok = |c: &PaperModel| c.check(dropped).is_ok();
    let mut best = m.clone();
    loop {
        let candidates = smaller(&best);
        match candidates.into_iter().find(|c| ok(c)) {
            Some(c) => best = c,
            None => return best,
        }
    }
}

/// Every model one deletion smaller than `m`, largest deletions first.
fn smaller(m: &PaperModel) -> Vec<PaperModel> {
    let mut out = Vec::new();
    // Delete a state, renumbering the others.
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
        out.push(PaperModel {
            states: m.states - 1,
            q: set(&m.q),
            p: m.p.iter().map(set).collect(),
            u: m.u.iter().map(rel).collect(),
            v: m.v.iter().map(rel).collect(),
        });
    }
    // Delete a thread.
    for i in 0..m.p.len() {
        if m.p.len() == 1 {
            break;
        }
        let mut c = m.clone();
        c.p.remove(i);
        c.u.remove(i);
        c.v.remove(i);
        out.push(c);
    }
    // Delete one pair of a relation, or one state of a predicate.
    for i in 0..m.p.len() {
        for k in 0..m.u[i].len() {
            let mut c = m.clone();
            c.u[i].remove(k);
            out.push(c);
        }
        for k in 0..m.v[i].len() {
            let mut c = m.clone();
            c.v[i].remove(k);
            out.push(c);
        }
        for k in 0..m.p[i].len() {
            let mut c = m.clone();
            c.p[i].remove(k);
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

/// The recorded counter-model for (19) without `dropped`, and how it was
/// found. It is re-checked ([`PaperModel::check`]) wherever it is shown.
pub fn known(dropped: &str) -> Option<(PaperModel, &'static str)> {
    known_models()
        .into_iter()
        .find(|(h, _, _)| *h == dropped)
        .map(|(_, m, how)| (m, how))
}

/// How the searches went (`cargo run --release -p omega-algebra --example
/// necessity [--deep]`): exhaustive over every model with 1 or 2 states and
/// 1 or 2 threads and with 3 states and 1 thread, then random models; each
/// found model minimised. "None smaller" refers to those exhaustive bounds.
const RANDOM_3: &str = "random search, 3 states and 2 threads; none with at most 2 states (1 or 2 threads) or with 3 states and 1 thread";

#[rustfmt::skip]
fn known_models() -> Vec<(&'static str, PaperModel, &'static str)> {
    let m = |states, q: &[usize], p: &[&[usize]], u: &[&[(usize, usize)]], v: &[&[(usize, usize)]]| PaperModel {
        states,
        q: q.to_vec(),
        p: p.iter().map(|x| x.to_vec()).collect(),
        u: u.iter().map(|x| x.to_vec()).collect(),
        v: v.iter().map(|x| x.to_vec()).collect(),
    };
    vec![
        ("(11)", m(3, &[0], &[&[1], &[0, 1, 2]], &[&[(0, 0), (2, 2)], &[]], &[&[(1, 2)], &[(2, 0)]]), RANDOM_3),
        ("(12)", m(4, &[3], &[&[0, 2, 3], &[2, 3]], &[&[(1, 3)], &[(0, 2), (1, 2)]], &[&[(0, 1), (2, 2)], &[(2, 0)]]),
            "random search, 4 states and 2 threads (54 million models); none with at most 3 states and 2 threads (exhaustive)"),
        ("(13)", m(3, &[0], &[&[0, 2], &[0, 1, 2]], &[&[(1, 2)], &[]], &[&[(2, 1)], &[(1, 0)]]), RANDOM_3),
        ("(14)", m(8, &[4], &[&[0, 4, 5, 6, 7], &[0, 1, 3, 4, 6, 7]], &[&[(1, 7), (2, 5), (3, 4)], &[(2, 3), (5, 6)]], &[&[(0, 1)], &[(1, 2), (7, 5)]]),
            "built by hand (thread 1's invisible step c->d cannot be moved after thread 0's c->f) after the search found none: every model with at most 3 states and 2 threads, and 143 million random ones with up to 6 states and 3 threads"),
        ("(15)", m(3, &[0], &[&[1], &[0, 1, 2]], &[&[(0, 0), (2, 1)], &[]], &[&[(1, 2)], &[(2, 0)]]), RANDOM_3),
        ("(16)", m(2, &[0], &[&[0, 1]], &[&[(1, 0)]], &[&[]]), "exhaustive search, 2 states and 1 thread; none smaller"),
        ("(17)", m(3, &[0], &[&[1, 2], &[1]], &[&[], &[]], &[&[(2, 0)], &[(1, 2)]]), RANDOM_3),
        ("(18)", m(3, &[0], &[&[2], &[0, 1, 2]], &[&[(0, 2), (1, 2)], &[]], &[&[(2, 1)], &[(1, 0), (2, 2)]]), RANDOM_3),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_counter_model_checks() {
        for h in HYPOTHESES {
            let (m, _) = known(h).unwrap_or_else(|| panic!("no counter-model for {h}"));
            let v = m.check(h).unwrap_or_else(|e| panic!("{h}: {e}"));
            assert!(
                !v.holding.iter().any(|x| x == h),
                "{h} holds in its own counter-model"
            );
            assert_eq!(v.holding.len(), 7, "{h}: {:?}", v.holding);
            // With the hypothesis it was built to break, it is not a model.
            assert!(m.check("(none)").is_err());
        }
    }

    #[test]
    fn the_evaluator_follows_the_definitions() {
        // One thread, u = 0 -> 1, v empty, p everywhere but 0, q = {1}:
        // (19) needs p (u + v)* q <= N* R; from 1 (in p and q), R holds.
        let m = PaperModel {
            states: 2,
            q: vec![1],
            p: vec![vec![1]],
            u: vec![vec![(0, 1)]],
            v: vec![vec![]],
        };
        let e = Eval::of(&m);
        for h in HYPOTHESES {
            assert!(e.holds(h), "{h}");
        }
        let (lhs, rhs) = e.theorem();
        assert_eq!(lhs.pairs(2), vec![(1, 1)]);
        assert_eq!(rhs.pairs(2), vec![(1, 0), (1, 1)]);
        // omega: a cycle 0 -> 0 relates 0 to everything; a chain nothing.
        assert_eq!(
            Rel::from_pairs(&[(0, 0)]).omega(2).pairs(2),
            vec![(0, 0), (0, 1)]
        );
        assert!(Rel::from_pairs(&[(0, 1)]).omega(2).is_empty());
    }

    #[test]
    fn exhaustive_search_finds_the_smallest_for_16_and_none_for_12_on_two_states() {
        let (cm, _) = search(
            "(16)",
            Search::Exhaustive {
                states: 2,
                threads: 1,
            },
        );
        assert_eq!(cm.expect("a counter-model").states, 2);
        let (cm, seen) = search(
            "(12)",
            Search::Exhaustive {
                states: 2,
                threads: 2,
            },
        );
        assert_eq!(cm, None);
        assert!(seen > 1000);
    }
}
