//! Soundness of every reduction on systems drawn from the whole grammar
//! (`tests/grammar`): every mode and option combination against full
//! exploration, with the coverage table (construct x position x mode)
//! printed and checked.
//!
//! On each of a fixed number of systems of a fixed seed, each column
//! (reduction) runs one of its combinations (ignoring, interference,
//! shared or per-thread summaries, `--deadlock`), rotating, plus another
//! store (`--hash-compact`, `--bitstate`) on one column and, on every third
//! system, two workers:
//!
//! - the verdict equals full exploration's, or the reduction refused the
//!   model (`DoesNotApply`, an invariant it cannot check, a loop reported
//!   under `--ignoring forbid`); a well-formedness violation where full
//!   exploration holds is a disagreement;
//! - every counterexample, full and reduced, replays in the full semantics
//!   and reaches the violation reported;
//! - where both hold, the reduction stores no more states;
//! - two workers print what one prints.
//!
//! The test fails on any disagreement (`KNOWN_OPEN` in
//! `tests/grammar/compare.rs` is empty: every bug found is fixed), on an
//! empty cell of the coverage table or of the options table, when more
//! than 2% of the systems do not compile, when the verdicts are too
//! one-sided to test anything, and when the book's coverage table is
//! not the one this seed prints. The systems run in child processes (`grammar_child_process`),
//! so that a crash of the checker is a disagreement of its own, found
//! without taking the machine's memory. A disagreement is shrunk into
//! `inputs/soundness/pending/grammar-<hash>.gc`. Print the tables with
//! `cargo test --test integration grammar -- --nocapture`;
//! `cargo run --release --example soak` runs the same comparison longer.
//! `OPTIMIST_GRAMMAR_SEED` and `OPTIMIST_GRAMMAR_SYSTEMS` choose other
//! systems (the coverage check then needs enough of them).

#[path = "../grammar/mod.rs"]
pub mod shared;

use std::time::{Duration, Instant};

use shared::compare::KNOWN_OPEN;
use shared::generator::{Rng, system};
use shared::process::{CHILD_ENV, Launcher, check_isolated, child_main, shrink_some};

const SEED: u64 = 2026;
const SYSTEMS: u64 = 5000;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn grammar_generated_systems_agree_with_full_exploration() {
    let seed = env("OPTIMIST_GRAMMAR_SEED", SEED);
    let systems = env("OPTIMIST_GRAMMAR_SYSTEMS", SYSTEMS);
    let start = Instant::now();
    // The systems run in children: this binary again, running only
    // `grammar_child_process`.
    let launcher = Launcher::this(&[
        "grammar::grammar_child_process",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    let mut tally = check_isolated(&launcher, seed, 0, systems, 2, &|_| {});
    let elapsed = start.elapsed();
    // Shrink the first new disagreement of each kind.
    shrink_some(&launcher, seed, 2, 20, (0, 1), &mut tally.disagreements);
    println!(
        "## Coverage (seed {seed}, {systems} systems)\n\n{}",
        tally.table()
    );
    println!("## Modes and options\n\n{}", tally.options_table());
    println!("## Disagreements\n\n{}", tally.disagreement_report());
    for k in KNOWN_OPEN {
        let n = tally
            .disagreements
            .iter()
            .filter(|d| d.known == Some(k.name))
            .count();
        println!("known open bug {}: {n} runs", k.name);
    }
    println!("{}\n{:.1} s", tally.summary(), elapsed.as_secs_f64());

    let compiled = tally.systems - tally.compile_errors.len() as u64;
    assert!(
        tally.compile_errors.len() as u64 * 50 <= tally.systems,
        "{} of {} systems do not compile, first: {:?}",
        tally.compile_errors.len(),
        tally.systems,
        tally.compile_errors.first()
    );
    let [holds, violated, inconclusive] = tally.full;
    assert!(
        holds * 5 >= holds + violated && violated * 5 >= holds + violated,
        "too one-sided: full exploration holds {holds}, violated {violated}"
    );
    assert!(
        inconclusive * 20 <= compiled,
        "{inconclusive} full explorations inconclusive"
    );
    assert!(
        tally.symmetric * 50 >= compiled,
        "only {} of {compiled} systems searched over a symmetry's orbits",
        tally.symmetric
    );
    let empty = tally.empty_cells();
    assert!(
        empty.is_empty(),
        "{} empty cells of the coverage table: {:?}",
        empty.len(),
        &empty[..empty.len().min(20)]
    );
    let empty = tally.empty_options();
    assert!(empty.is_empty(), "modes and options never run: {empty:?}");
    if (seed, systems) == (SEED, SYSTEMS) {
        // The book shows this table: it must be this run's.
        let table = tally.table();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/development.md");
        let page = std::fs::read_to_string(path).expect("docs/src/development.md");
        if !page.contains(&table) {
            let start = "<!-- coverage table: written by tests/integration/grammar.rs -->\n";
            let from = page.find(start).map(|k| k + start.len());
            let to = from.and_then(|f| page[f..].find("<!-- end -->").map(|k| f + k));
            if let (Some(from), Some(to), true) =
                (from, to, std::env::var_os("UPDATE_DOCS").is_some())
            {
                let out = format!("{}{}{}", &page[..from], table, &page[to..]);
                std::fs::write(path, out).unwrap();
            } else {
                let out = concat!(env!("CARGO_MANIFEST_DIR"), "/target/grammar-coverage.md");
                let _ = std::fs::write(out, &table);
                panic!(
                    "the coverage table of docs/src/development.md is not this run's \
                     (UPDATE_DOCS=1 rewrites it); the table is in {out}"
                );
            }
        }
    }
    let new: Vec<String> = tally
        .disagreements
        .iter()
        .filter(|d| d.known.is_none())
        .map(|d| {
            format!(
                "system {} `{}`: {}: {}{}",
                d.system,
                d.config.flags(),
                d.wrong.name(),
                d.detail,
                d.shrunk
                    .as_ref()
                    .map(|(_, p)| format!(" (shrunk: {p})"))
                    .unwrap_or_default()
            )
        })
        .collect();
    assert!(
        new.is_empty(),
        "{} disagreements with full exploration:\n{}",
        new.len(),
        new.join("\n")
    );
}

/// A child process of the test above (does nothing unless it is one).
#[test]
fn grammar_child_process() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        std::process::exit(child_main(&spec));
    }
}

/// A seed gives one system, whatever else ran before.
#[test]
fn grammar_generator_is_deterministic() {
    for k in [0, 1, 77, 4242] {
        let a = shared::ast::print(&system(&mut Rng::for_system(SEED, k)));
        let b = shared::ast::print(&system(&mut Rng::for_system(SEED, k)));
        assert_eq!(a, b);
    }
    let a = shared::ast::print(&system(&mut Rng::for_system(SEED, 1)));
    let b = shared::ast::print(&system(&mut Rng::for_system(SEED + 1, 1)));
    assert_ne!(a, b, "another seed, another system");
}

/// Every printed system parses, and the shrinker keeps a system that
/// compiles compiling while it makes it smaller.
#[test]
fn grammar_printer_and_shrinker_are_faithful() {
    for k in 0..200 {
        let text = shared::ast::print(&system(&mut Rng::for_system(SEED, k)));
        let src = optimist::Source::new("g.gc", text.clone()).unwrap();
        assert!(
            optimist::parse(&src).is_ok(),
            "system {k} does not parse:\n{text}"
        );
    }
    for k in 0..3 {
        let sys = system(&mut Rng::for_system(SEED, k));
        let compiles =
            |s: &shared::ast::System| shared::compare::compile(&shared::ast::print(s)).is_ok();
        if !compiles(&sys) {
            continue;
        }
        let small = shared::shrink::shrink(&sys, Duration::from_secs(3), &mut |s| compiles(s));
        assert!(compiles(&small));
        assert!(shared::ast::print(&small).len() < shared::ast::print(&sys).len());
    }
    // A system with channel parameters: the shrinker keeps it compiling,
    // and can drop a parameter (its uses then name the channel).
    let (k, sys) = (0..)
        .map(|k| (k, system(&mut Rng::for_system(SEED, k))))
        .find(|(_, s)| s.procs.iter().any(|p| !p.cparams.is_empty()))
        .unwrap();
    let text = shared::ast::print(&sys);
    let compiles =
        |s: &shared::ast::System| shared::compare::compile(&shared::ast::print(s)).is_ok();
    assert!(compiles(&sys), "system {k} does not compile:\n{text}");
    let small = shared::shrink::shrink(&sys, Duration::from_secs(3), &mut |s| compiles(s));
    assert!(compiles(&small));
    assert!(shared::ast::print(&small).len() < text.len());
    let cparams = |s: &shared::ast::System| s.procs.iter().map(|p| p.cparams.len()).sum::<usize>();
    let fewer = shared::shrink::shrink(&sys, Duration::from_secs(3), &mut |s| {
        compiles(s) && s.procs.len() == sys.procs.len() && cparams(s) < cparams(&sys)
    });
    assert!(
        cparams(&fewer) < cparams(&sys),
        "no channel parameter of system {k} dropped:\n{text}"
    );
}
