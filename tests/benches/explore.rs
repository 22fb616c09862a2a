//! Exploration benchmark: `cargo bench --bench explore`.
//!
//! Runs the scalable families in this directory at about 10^5 and 10^6
//! states and prints a Markdown table of what it measured (best of three
//! runs): states, transitions, time, states per second and bytes per state.
//! Speed targets live here, never in the test suite.

use std::path::Path;
use std::time::Duration;

use optimist::{Options, Reduction};

struct Case {
    file: &'static str,
    defines: &'static [(&'static str, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        file: "lock-family.gc",
        defines: &[("N", "6"), ("K", "5")],
    },
    Case {
        file: "lock-family.gc",
        defines: &[("N", "7"), ("K", "6")],
    },
];

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/benches");
    println!("| model | reduction | states | transitions | time (ms) | states/s | bytes/state |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for case in CASES {
        let defines: Vec<(String, String)> = case
            .defines
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (_, model) =
            optimist::load(&dir.join(case.file), &defines).expect("benchmark models compile");
        let options = Options {
            reduction: Reduction::None,
            ..Options::default()
        };
        let mut best: Option<optimist::Outcome> = None;
        for _ in 0..3 {
            let o = optimist::check(&model, &options, &mut |_| {});
            if best
                .as_ref()
                .is_none_or(|b| o.stats.elapsed < b.stats.elapsed)
            {
                best = Some(o);
            }
        }
        let o = best.unwrap();
        let s = &o.stats;
        let secs = s.elapsed.max(Duration::from_nanos(1)).as_secs_f64();
        let name = format!(
            "{} {}",
            case.file.trim_end_matches(".gc"),
            case.defines
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!(
            "| {name} | {} | {} | {} | {:.0} | {:.0} | {:.1} |",
            options.reduction.name(),
            s.states,
            s.transitions,
            secs * 1e3,
            s.states as f64 / secs,
            s.bytes_per_state()
        );
    }
}
