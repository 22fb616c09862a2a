//! Benchmark: the whole check of proofs/reduction.proof, and its
//! certificate, in release mode.
//!
//!     cargo bench -p omega-algebra
//!
//! Prints the minimum and median of several runs (target: under 1 s for
//! the check).

use std::time::{Duration, Instant};

use omega_algebra::{CheckOptions, Status, check, parse_script, recheck};

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (
        times[0],
        times[times.len() / 2],
        last.expect("at least one run"),
    )
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("proofs/reduction.proof is readable");
    let (min, med, script) = time(20, || {
        parse_script("proofs/reduction.proof", &source).expect("parses")
    });
    println!("parse            min {:>8.2?}  median {:>8.2?}", min, med);

    let (min, med, checked) = time(10, || check(&script, &CheckOptions::default()));
    assert_eq!(checked.report.status, Status::Proved);
    println!(
        "check            min {:>8.2?}  median {:>8.2?}  ({} steps, {} saturations)",
        min, med, checked.report.steps, checked.report.saturations
    );

    let opts = CheckOptions::default();
    let (min, med, cert) = time(5, || {
        check(&script, &opts)
            .certificate(&script)
            .expect("a certificate")
    });
    println!(
        "check + certificate min {:>8.2?}  median {:>8.2?}  ({} bytes)",
        min,
        med,
        cert.to_json().len()
    );

    let (min, med, summary) = time(5, || recheck(&cert).expect("accepted"));
    println!(
        "re-check         min {:>8.2?}  median {:>8.2?}  ({} inferences, {} rewrites)",
        min, med, summary.inferences, summary.rewrites
    );
}
