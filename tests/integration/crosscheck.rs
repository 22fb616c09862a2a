//! optimist's full state count and verdict, confirmed by SPIN and Rumur on
//! the exported model: every shipped model, and a few hundred generated
//! systems per run.
//!
//! For a model that holds, the three state counts must be equal. For a
//! violated model only the verdicts are compared: each checker stops at
//! the first violation it meets, and SPIN searches depth-first, so how many
//! states it has stored by then says nothing. A model the export refuses is
//! counted by the construct it refused.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use optimist::{Limits, Model, Options, Reduction, Source, Target, Verdict, compile};

use crate::common::{expectations, rel};
use crate::generate::{Choices, choices, system};
use crate::tools;

const TOOLS: &[(&str, &str)] = &[("spin", "-V"), ("rumur", "--version"), ("gcc", "--version")];

/// What a checker found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Found {
    states: u64,
    violated: bool,
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // Rumur's verifier exits 1 when it finds an error; that is an answer.
    let answered = program == "./model" && out.status.code() == Some(1);
    if !(out.status.success() || answered) {
        return Err(format!(
            "{program} {args:?} failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(text)
}

/// The number before `what` on the line that has it.
fn number_before(text: &str, what: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.contains(what))?;
    let head = &line[..line.find(what)?];
    head.split_whitespace().last()?.parse().ok()
}

/// SPIN without partial-order reduction; `depth` bounds the depth-first
/// stack (no search is deeper than the number of states). `optimised`
/// leaves SPIN's own optimisations on (plain `spin -a`); otherwise they are
/// off (`-o1 -o2 -o3`). Either way the count must be optimist's.
fn spin(dir: &Path, text: &str, depth: u64, optimised: bool) -> Result<Found, String> {
    std::fs::write(dir.join("model.pml"), text).map_err(|e| e.to_string())?;
    let args: &[&str] = if optimised {
        &["-a", "model.pml"]
    } else {
        &["-a", "-o1", "-o2", "-o3", "model.pml"]
    };
    run(dir, "spin", args)?;
    run(
        dir,
        "gcc",
        &[
            "-O0",
            "-w",
            "-DNOREDUCE",
            "-DSAFETY",
            "-DVECTORSZ=65536",
            "-o",
            "pan",
            "pan.c",
        ],
    )?;
    let out = run(dir, "./pan", &[&format!("-m{depth}"), "-w20"])?;
    if out.contains("max search depth too small") {
        return Err(format!("SPIN's depth bound {depth} was too small:\n{out}"));
    }
    Ok(Found {
        states: number_before(&out, "states, stored").ok_or(format!("SPIN said: {out}"))?,
        violated: out
            .lines()
            .find_map(|l| l.split("errors: ").nth(1))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .ok_or(format!("SPIN said: {out}"))?
            > 0,
    })
}

/// Rumur without symmetry reduction or deadlock detection.
fn rumur(dir: &Path, text: &str) -> Result<Found, String> {
    std::fs::write(dir.join("model.m"), text).map_err(|e| e.to_string())?;
    run(
        dir,
        "rumur",
        &[
            "--threads",
            "1",
            "--symmetry-reduction",
            "off",
            "--deadlock-detection",
            "off",
            "--value-type",
            "int32_t",
            "--colour",
            "off",
            "--counterexample-trace",
            "off",
            "--output",
            "model.c",
            "model.m",
        ],
    )?;
    run(
        dir,
        "gcc",
        &["-O0", "-w", "-o", "model", "model.c", "-lpthread"],
    )?;
    let out = run(dir, "./model", &[])?;
    let violated = if out.contains("No error found") {
        false
    } else if out.contains("error(s) found") {
        true
    } else {
        return Err(format!("Rumur said: {out}"));
    };
    Ok(Found {
        states: number_before(&out, "states,").ok_or(format!("Rumur said: {out}"))?,
        violated,
    })
}

/// How one model compared.
enum Row {
    Refused(&'static str),
    TooLarge,
    Compared { holds: bool },
}

/// Exports `model` both ways and compares the three answers; a mismatch or
/// a tool failure is an error naming the model.
fn compare(
    name: &str,
    model: &Model,
    dir: &Path,
    max_states: u64,
    both_spins: bool,
) -> Result<Row, String> {
    let options = Options {
        reduction: Reduction::None,
        limits: Limits {
            max_states: Some(max_states),
            ..Limits::default()
        },
        ..Options::default()
    };
    let outcome = optimist::check(model, &options, &mut |_| {});
    let holds = match outcome.verdict {
        Verdict::Holds => true,
        Verdict::Violated => false,
        Verdict::Inconclusive(_) => return Ok(Row::TooLarge),
    };
    let ours = Found {
        states: outcome.stats.states,
        violated: !holds,
    };
    let mut texts = Vec::new();
    for target in [Target::Promela, Target::Murphi] {
        match optimist::export(model, target) {
            Ok(text) => texts.push(text),
            Err(refusal) => {
                // Both targets compute in 32 bits, so a refusal is for both.
                return Ok(Row::Refused(refusal.kind.name()));
            }
        }
    }
    let depth = if holds { ours.states + 16 } else { 1_000_000 };
    let spin_plain = spin(dir, &texts[0], depth, true).map_err(|e| format!("{name}: {e}"))?;
    let spin_off = if both_spins {
        spin(dir, &texts[0], depth, false).map_err(|e| format!("{name}: {e}"))?
    } else {
        spin_plain
    };
    let rumur = rumur(dir, &texts[1]).map_err(|e| format!("{name}: {e}"))?;
    let agree = |theirs: Found| {
        theirs.violated == ours.violated && (!holds || theirs.states == ours.states)
    };
    if agree(spin_plain) && agree(spin_off) && agree(rumur) {
        Ok(Row::Compared { holds })
    } else {
        Err(format!(
            "{name}: optimist {ours:?}, SPIN {spin_plain:?} (-o1 -o2 -o3: {spin_off:?}), Rumur {rumur:?}\n--- Promela ---\n{}",
            texts[0]
        ))
    }
}

/// Runs `jobs` on two workers; returns the rows and the errors.
fn run_all(
    jobs: Vec<(String, Model)>,
    scratch: &Path,
    max_states: u64,
    both_spins: bool,
) -> (Vec<Row>, Vec<String>) {
    let next = AtomicUsize::new(0);
    let rows = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    std::thread::scope(|s| {
        for w in 0..workers {
            let (next, rows, errors, jobs) = (&next, &rows, &errors, &jobs);
            let dir = scratch.join(format!("worker{w}"));
            std::fs::create_dir_all(&dir).unwrap();
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((name, model)) = jobs.get(k) else {
                        break;
                    };
                    match compare(name, model, &dir, max_states, both_spins) {
                        Ok(row) => rows.lock().unwrap().push(row),
                        Err(e) => errors.lock().unwrap().push(e),
                    }
                }
            });
        }
    });
    (rows.into_inner().unwrap(), errors.into_inner().unwrap())
}

/// `compared N (holds H, violated V), refused R [kind: n, ...], too large T`.
fn summary(rows: &[Row]) -> (String, usize, usize) {
    let (mut holds, mut violated, mut large) = (0, 0, 0);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    for row in rows {
        match row {
            Row::Compared { holds: true } => holds += 1,
            Row::Compared { holds: false } => violated += 1,
            Row::TooLarge => large += 1,
            Row::Refused(kind) => *refused.entry(kind).or_default() += 1,
        }
    }
    let kinds: Vec<String> = refused.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    let text = format!(
        "compared {} (holds, equal counts: {holds}; violated, equal verdicts: {violated}), refused {} [{}], beyond the state bound {large}",
        holds + violated,
        refused.values().sum::<usize>(),
        kinds.join(", ")
    );
    (text, holds, violated)
}

fn keep_summary(name: &str, text: &str, started: std::time::Instant) {
    let text = format!("{text}, in {:.0} s", started.elapsed().as_secs_f64());
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.txt"));
    let _ = std::fs::write(path, format!("{text}\n"));
    println!("{name}: {text}");
}

/// Every shipped model, with every `-D` of its header: the same full state
/// count in optimist, SPIN (with its own optimisations and without them)
/// and Rumur, or the same verdict when violated.
#[test]
fn shipped_models_agree_with_spin_and_rumur() {
    if !tools::present("shipped_models_agree_with_spin_and_rumur", TOOLS) {
        return;
    }
    let started = std::time::Instant::now();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut jobs = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gc"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut seen = Vec::new();
        for e in expectations(&text) {
            // The define sets of the header lines that give a full count
            // without other flags (`--deadlock` is not exported).
            if e.full.is_none() || e.flags.iter().any(|f| f.starts_with("--")) {
                continue;
            }
            let defines: Vec<(String, String)> = e
                .flags
                .chunks(2)
                .filter(|c| c[0] == "-D")
                .map(|c| {
                    let (k, v) = c[1].split_once('=').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect();
            if seen.contains(&defines) {
                continue;
            }
            seen.push(defines.clone());
            let (_, model) = optimist::load(&path, &defines).unwrap();
            jobs.push((format!("{} {:?}", rel(&path), defines), model));
        }
    }
    let n = jobs.len();
    let (rows, errors) = run_all(jobs, &tools::scratch("crosscheck-models"), 1_000_000, true);
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    let (text, holds, violated) = summary(&rows);
    keep_summary("crosscheck-models", &text, started);
    // Every shipped model translates, and each one was compared.
    assert_eq!(holds + violated, n, "{text}");
}

/// The number of generated systems per run.
const GENERATED: usize = 300;

/// Generated systems (the differential test's generator, from a fixed
/// seed): the same full state count in optimist, SPIN and Rumur, or the
/// same verdict when violated.
#[test]
fn generated_systems_agree_with_spin_and_rumur() {
    use proptest::strategy::{Strategy, ValueTree};
    if !tools::present("generated_systems_agree_with_spin_and_rumur", TOOLS) {
        return;
    }
    let started = std::time::Instant::now();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut jobs = Vec::new();
    for k in 0..GENERATED {
        let data = choices().new_tree(&mut runner).unwrap().current();
        let text = system(&mut Choices::new(&data));
        let model = compile(&Source::new("generated.gc", &text).unwrap(), &[]).unwrap();
        jobs.push((format!("generated system {k}:\n{text}"), model));
    }
    let (rows, errors) = run_all(jobs, &tools::scratch("crosscheck-generated"), 20_000, false);
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    let (text, holds, violated) = summary(&rows);
    keep_summary("crosscheck-generated", &text, started);
    // Most systems are small enough, and both verdicts occur often.
    assert!(holds + violated >= GENERATED * 4 / 5, "{text}");
    assert!(
        holds >= GENERATED / 10 && violated >= GENERATED / 10,
        "{text}"
    );
}
