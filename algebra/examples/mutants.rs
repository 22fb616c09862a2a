//! Runs the mutation analysis of a proof script and prints each accepted mutant.

use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "proofs/reduction.proof".into());
    let source = std::fs::read_to_string(&path).expect("readable script");
    let script = omega_algebra::parse_script(&path, &source).expect("script parses");
    let mut ms = omega_algebra::mutants(&script);
    if let Ok(k) = std::env::var("KIND") {
        ms.retain(|m| format!("{:?}", m.mutation).starts_with(&k));
    }
    let start = Instant::now();
    let mut opts = omega_algebra::CheckOptions::default();
    if let Ok(b) = std::env::var("EXPLAIN_BUDGET") {
        opts.settings.explain_budget = b.parse().unwrap();
    }
    if let Ok(b) = std::env::var("NODES") {
        opts.settings.limits.nodes = b.parse().unwrap();
    }
    let outcomes = omega_algebra::check_mutants(&script, &ms, &opts);
    let rejected = outcomes.iter().filter(|o| o.rejected).count();
    let refuted = outcomes.iter().filter(|o| o.refuted).count();
    for o in &outcomes {
        if !o.rejected {
            let m = &o.mutant;
            println!(
                "ACCEPTED {} {:?} step {}: {} -- {} [{}]",
                m.lemma, m.case, m.number, m.description, m.goal, o.detail
            );
        }
    }
    println!(
        "{} mutants, {rejected} rejected ({refuted} with a counter-model), in {:?}",
        outcomes.len(),
        start.elapsed()
    );
}
