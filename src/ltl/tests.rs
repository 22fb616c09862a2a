//! The translation against the lasso semantics: on random formulas and
//! random lassos, the automaton accepts exactly when the formula holds.

use super::{Automaton, Fairness, Graph, Lasso, Ltl, fair_lasso};
use crate::explore::{Budget, Halt};

/// A lasso of the graph `succ` (edges labelled `(target, thread)`), with
/// thread t enabled at v when `enabled[v]` has bit t; vertices as paths.
fn lasso_of(
    succ: &[Vec<(u32, u32)>],
    threads: usize,
    enabled: &[u64],
    initial: &[u32],
    sets: &[Vec<bool>],
    fairness: Fairness,
    live: Option<&[bool]>,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut first = vec![0u32];
    let (mut target, mut mover) = (Vec::new(), Vec::new());
    for row in succ {
        for &(w, t) in row {
            target.push(w);
            mover.push(t);
        }
        first.push(target.len() as u32);
    }
    let en = |v: u32, t: usize| enabled.get(v as usize).is_some_and(|e| e >> t & 1 == 1);
    let acc = |k: usize, v: u32| sets[k][v as usize];
    let g = Graph {
        first: &first,
        target: &target,
        mover: &mover,
        threads,
        enabled: &en,
        accepting: &acc,
        sets: sets.len(),
        live: &|v| live.is_none_or(|l| l[v as usize]),
    };
    let l: Lasso = fair_lasso(&g, initial, fairness, &mut Budget::unlimited()).unwrap()?;
    let verts = |from: u32, edges: &[u32]| {
        let mut v = vec![from];
        v.extend(edges.iter().map(|&k| target[k as usize]));
        v
    };
    let stem = verts(l.start, &l.stem);
    let entry = *stem.last().unwrap();
    let cycle = verts(entry, &l.cycle);
    Some((stem, cycle))
}

/// Whether `a` accepts the lasso `word` (cycle from `loop_start`): an
/// accepting cycle in the product of the lasso's positions and the nodes.
fn accepts(a: &Automaton, word: &[u64], loop_start: usize) -> bool {
    let (len, n) = (word.len(), a.nodes.len());
    let next = |i: usize| if i + 1 == len { loop_start } else { i + 1 };
    let mut succ = vec![Vec::new(); len * n];
    let id = |i: usize, k: usize| (i * n + k) as u32;
    for i in 0..len {
        for (k, node) in a.nodes.iter().enumerate() {
            for &m in &node.succ {
                if a.nodes[m].admits(word[next(i)]) {
                    succ[id(i, k) as usize].push((id(next(i), m), 0));
                }
            }
        }
    }
    let initial: Vec<u32> = (0..n)
        .filter(|&k| a.nodes[k].initial && a.nodes[k].admits(word[0]))
        .map(|k| id(0, k))
        .collect();
    let sets: Vec<Vec<bool>> = a
        .accepting
        .iter()
        .map(|set| (0..len * n).map(|v| set[v % n]).collect())
        .collect();
    // The pruning of automaton components that are not accepting changes
    // no answer.
    let nodes = a.live();
    let live: Vec<bool> = (0..len * n).map(|v| nodes[v % n]).collect();
    let pruned = lasso_of(&succ, 1, &[], &initial, &sets, Fairness::None, Some(&live));
    let whole = lasso_of(&succ, 1, &[], &initial, &sets, Fairness::None, None);
    assert_eq!(
        pruned.is_some(),
        whole.is_some(),
        "pruning changed the answer"
    );
    pruned.is_some()
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn formula(&mut self, depth: u32, atoms: u64) -> Ltl {
        let b = |r: &mut Rng| Box::new(r.formula(depth - 1, atoms));
        if depth == 0 {
            return match self.below(8) {
                0 => Ltl::True,
                1 => Ltl::False,
                _ => Ltl::Atom(self.below(atoms) as usize),
            };
        }
        match self.below(9) {
            0 => Ltl::Not(b(self)),
            1 => Ltl::And(b(self), b(self)),
            2 => Ltl::Or(b(self), b(self)),
            3 => Ltl::Until(b(self), b(self)),
            4 => Ltl::Release(b(self), b(self)),
            5 => Ltl::always(self.formula(depth - 1, atoms)),
            6 => Ltl::eventually(self.formula(depth - 1, atoms)),
            7 => Ltl::weak_until(
                self.formula(depth - 1, atoms),
                self.formula(depth - 1, atoms),
            ),
            _ => Ltl::Atom(self.below(atoms) as usize),
        }
    }
}

#[test]
fn the_automaton_accepts_exactly_the_lassos_the_formula_holds_on() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut held = 0;
    for case in 0..400 {
        let depth = 1 + rng.below(3) as u32;
        let f = rng.formula(depth, 3);
        let a = Automaton::of(&f);
        for _ in 0..6 {
            let len = 1 + rng.below(5) as usize;
            let word: Vec<u64> = (0..len).map(|_| rng.below(8)).collect();
            let loop_start = rng.below(len as u64) as usize;
            let want = f.holds_on(&word, loop_start);
            held += usize::from(want);
            assert_eq!(
                accepts(&a, &word, loop_start),
                want,
                "case {case}: {f:?} on {word:?} looping to {loop_start}"
            );
        }
    }
    // Both answers were exercised.
    assert!(held > 200 && held < 2200, "{held}");
}

#[test]
fn textbook_formulas() {
    let p = || Ltl::Atom(0);
    let q = || Ltl::Atom(1);
    // []<>p holds on a cycle that visits p, not on one that leaves it.
    let gf = Ltl::always(Ltl::eventually(p()));
    assert!(gf.holds_on(&[0, 0, 1], 1));
    assert!(!gf.holds_on(&[1, 0], 1));
    // p U q needs q to come; p W q does not.
    assert!(!Ltl::Until(Box::new(p()), Box::new(q())).holds_on(&[1], 0));
    assert!(Ltl::weak_until(p(), q()).holds_on(&[1], 0));
    // [](p -> <>q): a response property.
    let resp = Ltl::always(Ltl::implies(p(), Ltl::eventually(q())));
    assert!(resp.holds_on(&[1, 2], 0));
    assert!(!resp.holds_on(&[0, 1], 1));
    for f in [gf, resp] {
        let a = Automaton::of(&f);
        assert!(!a.nodes.is_empty());
        assert!(a.nodes.iter().any(|n| n.initial));
    }
}

#[test]
fn a_lasso_has_the_shortest_stem_and_visits_every_set() {
    // 0 -> 1 -> 2 -> 1, and 0 -> 3 -> 3; set A = {2}, set B = {1}.
    let succ = vec![
        vec![(1, 0), (3, 0)],
        vec![(2, 0)],
        vec![(1, 0)],
        vec![(3, 0)],
    ];
    let sets = vec![
        vec![false, false, true, false],
        vec![false, true, false, false],
    ];
    let (stem, cycle) = lasso_of(&succ, 1, &[], &[0], &sets, Fairness::None, None).unwrap();
    assert_eq!(stem, vec![0, 1]);
    assert_eq!(cycle, vec![1, 2, 1]);
    // Without an inner edge there is no cycle.
    let succ = vec![vec![(1, 0)], vec![]];
    assert_eq!(
        lasso_of(&succ, 1, &[], &[0], &[], Fairness::None, None),
        None
    );
    // No acceptance set: any reachable cycle, a self-loop here.
    let succ = vec![vec![(1, 0)], vec![(1, 0)]];
    let (stem, cycle) = lasso_of(&succ, 1, &[], &[0], &[], Fairness::None, None).unwrap();
    assert_eq!((stem, cycle), (vec![0, 1], vec![1, 1]));
}

#[test]
fn fairness_rules_out_the_cycles_it_should() {
    // One state where thread 0 spins (a self-loop) and thread 1 is enabled
    // and could leave to state 1, which has no way back.
    let succ = vec![vec![(0, 0), (1, 1)], vec![(1, u32::MAX)]];
    let enabled = [0b11, 0b00];
    let in0 = vec![vec![true, false]];
    // Accepting at 0: without fairness the spin is a lasso; thread 1 stays
    // enabled there for ever, so weak fairness rules it out, and strong too.
    assert!(lasso_of(&succ, 2, &enabled, &[0], &in0, Fairness::None, None).is_some());
    assert!(lasso_of(&succ, 2, &enabled, &[0], &in0, Fairness::Weak, None).is_none());
    assert!(lasso_of(&succ, 2, &enabled, &[0], &in0, Fairness::Strong, None).is_none());
    // Two states: thread 0 toggles between them, thread 1 is enabled only
    // at the first and would leave: weakly fair (disabled half the time),
    // not strongly fair (enabled infinitely often).
    let succ = vec![vec![(1, 0), (2, 1)], vec![(0, 0)], vec![(2, u32::MAX)]];
    let enabled = [0b11, 0b01, 0b00];
    let at0 = vec![vec![true, false, false]];
    let weak = lasso_of(&succ, 2, &enabled, &[0], &at0, Fairness::Weak, None).unwrap();
    assert_eq!(weak.1, vec![0, 1, 0]);
    assert!(lasso_of(&succ, 2, &enabled, &[0], &at0, Fairness::Strong, None).is_none());
    // Strong fairness finds the cycle that survives once the vertices
    // where an unfair thread is enabled are removed: 1 <-> 3 by thread 0.
    let succ = vec![
        vec![(1, 0), (2, 1)],
        vec![(0, 0), (3, 0)],
        vec![(2, u32::MAX)],
        vec![(1, 0)],
    ];
    let enabled = [0b11, 0b01, 0b00, 0b01];
    let at3 = vec![vec![false, false, false, true]];
    let strong = lasso_of(&succ, 2, &enabled, &[0], &at3, Fairness::Strong, None).unwrap();
    assert_eq!(strong.1, vec![1, 3, 1]);
    // The stutter at an end state is fair under every fairness.
    let at2 = vec![vec![false, false, true, false]];
    for f in [Fairness::None, Fairness::Weak, Fairness::Strong] {
        assert_eq!(
            lasso_of(&succ, 2, &enabled, &[0], &at2, f, None).unwrap().1,
            vec![2, 2]
        );
    }
}

/// A random graph as the emptiness check sees it: edges labelled by the
/// thread that moves (or none), marks of acceptance sets on vertices, and
/// under weak fairness one mark per thread (it moves, or is disabled).
struct Random<'a> {
    succ: &'a [Vec<(u32, u32)>],
    enabled: &'a [u64],
    sets: &'a [Vec<bool>],
    threads: usize,
    weak: bool,
}

impl super::Explored for Random<'_> {
    fn vertices(&self) -> usize {
        self.succ.len()
    }
    fn successors(&mut self, v: u32, o: &mut Vec<(u32, u32)>, _: &mut Budget) -> Result<(), Halt> {
        for &(w, t) in &self.succ[v as usize] {
            o.push((w, if self.weak { t } else { u32::MAX }));
        }
        Ok(())
    }
    fn marks(&self, v: u32, marks: &mut [u64]) {
        let base = if self.weak { self.threads } else { 0 };
        for (k, set) in self.sets.iter().enumerate() {
            if set[v as usize] {
                marks[(base + k) / 64] |= 1 << ((base + k) % 64);
            }
        }
        if self.weak {
            marks[0] |= !self.enabled[v as usize] & ((1 << self.threads) - 1);
        }
    }
    fn live(&self, _: u32) -> bool {
        true
    }
}

#[test]
fn the_search_on_the_fly_finds_a_fair_accepting_cycle_exactly_when_there_is_one() {
    let mut rng = Rng(0x5eed_cafe);
    for _ in 0..3000 {
        let n = 1 + rng.below(7) as usize;
        let threads = 1 + rng.below(3) as usize;
        // Each thread has at most one edge from a vertex, or none (then
        // it is disabled there); a vertex without edges stutters.
        let mut succ = vec![Vec::new(); n];
        let mut enabled = vec![0u64; n];
        for (v, row) in succ.iter_mut().enumerate() {
            for t in 0..threads {
                if rng.below(3) > 0 {
                    row.push((rng.below(n as u64) as u32, t as u32));
                    enabled[v] |= 1 << t;
                }
            }
            if row.is_empty() {
                row.push((v as u32, u32::MAX));
            }
        }
        let sets: Vec<Vec<bool>> = (0..rng.below(3))
            .map(|_| (0..n).map(|_| rng.below(3) == 0).collect())
            .collect();
        for fairness in [Fairness::None, Fairness::Weak] {
            let weak = fairness == Fairness::Weak;
            let mut g = Random {
                succ: &succ,
                enabled: &enabled,
                sets: &sets,
                threads,
                weak,
            };
            let marks = sets.len() + if weak { threads } else { 0 };
            let found =
                super::accepting_component(&mut g, &[0], marks, true, &mut Budget::unlimited())
                    .unwrap();
            let expected = lasso_of(&succ, threads, &enabled, &[0], &sets, fairness, None);
            assert_eq!(
                found.accepting.is_some(),
                expected.is_some(),
                "{succ:?} {enabled:?} {sets:?} {fairness:?}"
            );
        }
    }
}
