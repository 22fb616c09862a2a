//! Symmetry benchmark: `cargo bench --bench symmetry`.
//!
//! Each case explores the same model twice on the same machine, paired:
//! every state (`--symmetry off`), then one state per orbit of the copies'
//! permutations (`--symmetry on`), in full exploration and under the
//! default reduction; it prints the counts, the times and the speed-up.
//! The lock family at N = 12, K = 3 has 36,137,988 states, most of them
//! permutations of one another. Speed targets live here, never in the test
//! suite.

use std::path::Path;
use std::time::Duration;

use optimist::{Options, Outcome, Reduction, SymmetryUse};

struct Case {
    file: &'static str,
    defines: &'static [(&'static str, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        file: "tests/benches/lock-family.gc",
        defines: &[("N", "12"), ("K", "3")],
    },
    Case {
        file: "tests/benches/lock-family.gc",
        defines: &[("N", "8"), ("K", "3")],
    },
    Case {
        file: "models/philosophers-live.gc",
        defines: &[("N", "6")],
    },
    Case {
        file: "models/counter.gc",
        defines: &[],
    },
];

fn run(model: &optimist::Model, reduction: Reduction, symmetry: SymmetryUse) -> Outcome {
    let options = Options {
        reduction,
        symmetry,
        // Safety without deadlocks: the philosophers deadlock, and a run
        // that stops there counts where it stopped, not the orbits.
        deadlock: false,
        ..Options::default()
    };
    optimist::check(model, &options, &mut |_| {})
}

fn secs(o: &Outcome) -> f64 {
    o.stats.elapsed.max(Duration::from_nanos(1)).as_secs_f64()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("| model | reduction | states | time | orbits | symmetry | time | speed-up |");
    println!("|---|---|---:|---:|---:|---|---:|---:|");
    for case in CASES {
        let defines: Vec<(String, String)> = (case.defines.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (_, model) =
            optimist::load(&root.join(case.file), &defines).expect("benchmark models compile");
        let name = format!(
            "{} {}",
            Path::new(case.file).file_stem().unwrap().to_string_lossy(),
            (case.defines.iter())
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for reduction in [Reduction::NONE, Reduction::SC] {
            let off = run(&model, reduction, SymmetryUse::Off);
            let on = run(&model, reduction, SymmetryUse::On);
            assert_eq!(off.verdict, on.verdict, "{name}: the verdicts differ");
            let kind = on.symmetry.as_ref().map_or("none", |u| u.kind.name());
            println!(
                "| {name} | {} | {} | {:.2} s | {} | {kind} | {:.3} s | {:.1}x |",
                reduction.name(),
                off.stats.states,
                secs(&off),
                on.stats.states,
                secs(&on),
                secs(&off) / secs(&on)
            );
        }
    }
}
