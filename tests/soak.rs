//! The grammar-driven differential test, longer, on every core:
//!
//! ```text
//! cargo run --release --example soak -- --seed S --count N [--threads T] [--from K]
//!     [--strict] [--shrink-seconds S]
//! ```
//!
//! Generates systems `K..K+N` of seed S (`tests/grammar`), compares every
//! mode and option combination with full exploration on each, prints
//! progress, the coverage table, the options table and the disagreements,
//! shrinks the disagreements (a few of each kind) into
//! `tests/integration/inputs/soundness/pending/grammar-<hash>.gc`, and
//! exits 1 when one is not a known open bug (`KNOWN_OPEN` in
//! `tests/grammar/compare.rs`; with `--strict`, on any), 0 otherwise.
//!
//! The systems run in child processes (`tests/grammar/process.rs`), so
//! that one which crashes the checker (a stack overflow, memory exhausted,
//! a hang) is a finding rather than the end of the run: the parent starts
//! a new child after it, and finds the configuration that crashes by
//! running each alone.

#[path = "grammar/mod.rs"]
mod grammar;

use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use grammar::compare::{Tally, check_system, secs};
use grammar::generator::{Rng, system};
use grammar::process::{CHILD_ENV, Launcher, check_isolated, child_main, shrink_some};

fn usage() -> ExitCode {
    eprintln!(
        "usage: soak --seed S --count N [--threads T] [--from K] [--strict] [--shrink-seconds S] [--show K]"
    );
    ExitCode::from(2)
}

struct Args {
    seed: u64,
    count: u64,
    from: u64,
    workers: usize,
    strict: bool,
    shrink_secs: u64,
    show: Option<u64>,
}

fn parse() -> Option<Args> {
    let mut a = Args {
        seed: 1,
        count: 1000,
        from: 0,
        workers: std::thread::available_parallelism().map_or(1, usize::from),
        strict: false,
        shrink_secs: 60,
        show: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut num = || args.next().and_then(|v| v.parse::<u64>().ok());
        match flag.as_str() {
            "--seed" => a.seed = num()?,
            "--count" => a.count = num()?,
            "--from" => a.from = num()?,
            "--threads" => a.workers = (num()? as usize).max(1),
            "--shrink-seconds" => a.shrink_secs = num()?,
            "--strict" => a.strict = true,
            // Debugging: print system K and its outcomes, in this process.
            "--show" => a.show = Some(num()?),
            _ => return None,
        }
    }
    Some(a)
}

fn main() -> ExitCode {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return ExitCode::from(child_main(&spec) as u8);
    }
    let Some(args) = parse() else {
        return usage();
    };
    if let Some(k) = args.show {
        let seed = args.seed;
        println!(
            "{}",
            grammar::ast::print(&system(&mut Rng::for_system(seed, k)))
        );
        let r = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || check_system(seed, k))
            .expect("a thread")
            .join()
            .expect("no crash");
        println!("compile error: {:?}\nfull: {:?}", r.compile_error, r.full);
        for (c, seen) in &r.runs {
            println!("{}: {seen:?}", c.flags());
        }
        for d in &r.disagreements {
            println!("{}: {}: {}", d.config.flags(), d.wrong.name(), d.detail);
        }
        return ExitCode::SUCCESS;
    }
    let (seed, from, count) = (args.seed, args.from, args.count);
    println!(
        "soak: seed {seed}, systems {from}..{}, {} workers",
        from + count,
        args.workers
    );
    let start = Instant::now();
    let shown = Mutex::new((0u64, 0u64, Instant::now()));
    let progress = |r: &grammar::compare::SystemResult| {
        let mut d = shown.lock().unwrap();
        d.0 += 1;
        d.1 += r.disagreements.len() as u64;
        if d.2.elapsed() > Duration::from_secs(10) || d.0 == count {
            d.2 = Instant::now();
            let t = secs(start);
            println!(
                "  {} / {count} systems, {} disagreements, {t:.0} s, {:.1} systems/s",
                d.0,
                d.1,
                d.0 as f64 / t
            );
        }
    };
    let launcher = Launcher::this(&[]);
    let mut tally: Tally =
        check_isolated(&launcher, seed, from, from + count, args.workers, &progress);
    let elapsed = secs(start);
    // A few of each kind: one of each known open bug, three of the others.
    shrink_some(
        &launcher,
        seed,
        args.workers,
        args.shrink_secs,
        (1, 3),
        &mut tally.disagreements,
    );

    println!(
        "\n## Coverage (seed {seed}, systems {from}..{})\n",
        from + count
    );
    println!("{}", tally.table());
    println!("## Modes and options\n\n{}", tally.options_table());
    if !tally.compile_errors.is_empty() {
        println!("## Systems that did not compile\n");
        for (k, e) in tally.compile_errors.iter().take(5) {
            println!("system {k}: {}", e.lines().next().unwrap_or(""));
        }
        println!();
    }
    println!("## Disagreements\n\n{}", tally.disagreement_report());
    println!(
        "{}\n{elapsed:.1} s, {:.1} systems/s",
        tally.summary(),
        tally.systems as f64 / elapsed
    );
    let empty = tally.empty_cells();
    if !empty.is_empty() {
        println!(
            "{} empty cells, first: {:?}",
            empty.len(),
            &empty[..empty.len().min(10)]
        );
    }
    let failing = tally
        .disagreements
        .iter()
        .filter(|d| args.strict || d.known.is_none())
        .count();
    if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
