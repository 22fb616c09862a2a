//! The translation against the lasso semantics: on random formulas and
//! random lassos, the automaton accepts exactly when the formula holds.

use super::{Automaton, Ltl, accepting_lasso};

/// Whether `a` accepts the lasso `word` (cycle from `loop_start`): an
/// accepting cycle in the product of the lasso's positions and the nodes.
fn accepts(a: &Automaton, word: &[u64], loop_start: usize) -> bool {
    let (len, n) = (word.len(), a.nodes.len());
    let next = |i: usize| if i + 1 == len { loop_start } else { i + 1 };
    let id = |i: usize, k: usize| i * n + k;
    let mut succ = vec![Vec::new(); len * n];
    for i in 0..len {
        for (k, node) in a.nodes.iter().enumerate() {
            for &m in &node.succ {
                if a.nodes[m].admits(word[next(i)]) {
                    succ[id(i, k)].push(id(next(i), m));
                }
            }
        }
    }
    let initial: Vec<usize> = (0..n)
        .filter(|&k| a.nodes[k].initial && a.nodes[k].admits(word[0]))
        .map(|k| id(0, k))
        .collect();
    let sets: Vec<Vec<bool>> = a
        .accepting
        .iter()
        .map(|set| (0..len * n).map(|v| set[v % n]).collect())
        .collect();
    accepting_lasso(len * n, &initial, &succ, &sets).is_some()
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
            7 => Ltl::weak_until(self.formula(depth - 1, atoms), self.formula(depth - 1, atoms)),
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
    let succ = vec![vec![1, 3], vec![2], vec![1], vec![3]];
    let sets = vec![vec![false, false, true, false], vec![false, true, false, false]];
    let l = accepting_lasso(4, &[0], &succ, &sets).unwrap();
    assert_eq!(l.stem, vec![0]);
    assert_eq!(l.cycle, vec![1, 2]);
    // Without an inner edge there is no cycle.
    let succ = vec![vec![1], vec![]];
    assert_eq!(accepting_lasso(2, &[0], &succ, &[]), None);
    // No acceptance set: any reachable cycle, a self-loop here.
    let succ = vec![vec![1], vec![1]];
    let l = accepting_lasso(2, &[0], &succ, &[]).unwrap();
    assert_eq!((l.stem, l.cycle), (vec![0], vec![1]));
}
