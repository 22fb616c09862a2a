//! The representatives are exact: on small models that hold, the states
//! of the search over orbits are as many as the orbits of the reachable
//! states, counted by brute force (each state's least image under every
//! permutation of the group), and the search finds the same verdicts.

use std::collections::HashSet;

use super::{Kind, Symmetry, detect};
use crate::explore::{Options, Reduction, StepResult, SymmetryUse, Verdict, check, step};
use crate::model::Model;

fn load(file: &str, defines: &[(&str, &str)]) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let defines: Vec<(String, String)> = (defines.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    crate::load(&path, &defines).expect("the model loads").1
}

/// Every reachable state, by breadth-first search over every transition.
fn reachable(model: &Model) -> HashSet<Vec<i64>> {
    let mut seen = HashSet::from([model.init.clone()]);
    let mut todo = vec![model.init.clone()];
    let mut out = Vec::new();
    while let Some(s) = todo.pop() {
        for (k, tr) in model.transitions.iter().enumerate() {
            if tr.from == s[tr.thread as usize]
                && let StepResult::Ok = step(model, k, &s, &mut out)
                && seen.insert(out.clone())
            {
                todo.push(out.clone());
            }
        }
    }
    seen
}

/// Every permutation of `n` (Heap's algorithm), or the rotations.
fn group(n: usize, kind: Kind) -> Vec<Vec<usize>> {
    if kind == Kind::Rotation {
        return (0..n)
            .map(|r| (0..n).map(|i| (i + r) % n).collect())
            .collect();
    }
    let mut p: Vec<usize> = (0..n).collect();
    let (mut c, mut out, mut i) = (vec![0; n], vec![p.clone()], 0);
    while i < n {
        if c[i] < i {
            p.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
            out.push(p.clone());
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// The orbits of `states`: their least images under the whole group.
fn orbits(sym: &Symmetry, states: &HashSet<Vec<i64>>) -> usize {
    let perms = group(sym.n, sym.kind);
    let mut img = Vec::new();
    let least: HashSet<Vec<i64>> = states
        .iter()
        .map(|s| {
            (perms.iter())
                .map(|p| {
                    sym.apply(p, s, &mut img);
                    img.clone()
                })
                .min()
                .unwrap()
        })
        .collect();
    least.len()
}

/// Copies that hold one another's identities in their own locals: ties
/// between copies are broken by trying their orders.
const RICH: &str = "system rich;\nthreads 3;\nlock m;\nshared last : -1..2 = -1;\n\
    thread T {\n  local seen : -1..2 = -1;\n  acquire m;\n  seen := last;\n  last := self;\n  release m;\n}\n";

#[test]
fn the_search_stores_one_state_per_orbit() {
    for (file, defines) in [
        ("models/account.gc", &[][..]),
        ("models/bounded-counter.gc", &[]),
        ("models/peterson.gc", &[]),
        ("models/reader-writer.gc", &[]),
        ("models/recursive-lock.gc", &[]),
        ("models/summaries-shared.gc", &[]),
        ("tests/benches/lock-family.gc", &[("N", "4"), ("K", "2")]),
        ("models/philosophers-live.gc", &[("N", "4")]),
        ("models/token-ring-live.gc", &[("N", "4")]),
        (RICH, &[]),
    ] {
        let model = match file {
            RICH => {
                let src = crate::Source::new("rich.gc", RICH).unwrap();
                crate::compile(&src, &[]).expect("the model compiles")
            }
            file => load(file, defines),
        };
        let sym = detect(&model).symmetry.expect("a symmetric model");
        if sym.kind == Kind::Full {
            assert_eq!(sym.simple, file != RICH, "{file}");
        }
        let run = |symmetry| {
            let options = Options {
                reduction: Reduction::NONE,
                symmetry,
                deadlock: false,
                threads: 1,
                ..Options::default()
            };
            check(&model, &options, &mut |_| {})
        };
        let (all, orbit) = (run(SymmetryUse::Off), run(SymmetryUse::On));
        assert_eq!(
            (all.verdict.clone(), orbit.verdict),
            (Verdict::Holds, Verdict::Holds)
        );
        let states = reachable(&model);
        assert_eq!(states.len() as u64, all.stats.states, "{file}");
        assert_eq!(orbits(&sym, &states) as u64, orbit.stats.states, "{file}");
        assert!(orbit.stats.states < all.stats.states, "{file}");
    }
}

#[test]
fn permutations_and_rotations_are_counted() {
    assert_eq!(group(4, Kind::Full).len(), 24);
    assert_eq!(
        group(4, Kind::Full).iter().collect::<HashSet<_>>().len(),
        24
    );
    assert_eq!(group(5, Kind::Rotation).len(), 5);
}

#[test]
fn a_ring_keeps_its_rotations_only() {
    let model = load("models/philosophers-live.gc", &[("N", "4")]);
    let a = detect(&model);
    let sym = a.symmetry.expect("rotations");
    assert_eq!(sym.kind, Kind::Rotation);
    let broken = &a.broken[0];
    assert_eq!(broken.lost, Kind::Full);
    assert!(broken.why.contains("(self + 1) % N"), "{}", broken.why);
}

#[test]
fn a_constant_naming_one_copy_breaks_the_symmetry() {
    let model = load("models/barrier.gc", &[]);
    let a = detect(&model);
    assert!(a.symmetry.is_none());
    assert_eq!(a.broken[0].lost, Kind::Rotation);
    assert!(
        a.broken[0].why.contains("x[0] := self"),
        "{}",
        a.broken[0].why
    );
}
