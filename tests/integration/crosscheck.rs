//! optimist's full state count and verdict, confirmed by SPIN and Rumur on
//! the exported model: every shipped model, and a few hundred generated
//! systems per run.
//!
//! For a model that holds, the three state counts must be equal. For a
//! violated model only the verdicts are compared: each checker stops at
//! the first violation it meets, and SPIN searches depth-first, so how many
//! states it has stored by then says nothing. A model the export refuses is
//! counted by the construct it refused.
//!
//! Compiling a verifier costs far more than running one on a small model.
//! SPIN's verifier is mostly the same 14,000 lines for every model, so the
//! generated systems that hold go to SPIN in batches (`export_batch`): one
//! file per batch, whose first step chooses the model, and whose count is
//! one more than the sum of the models' counts. A batch that differs is
//! checked model by model, to name the one that differs. A violated model
//! is checked alone, since its violation ends the search. Rumur's verifier
//! grows with the model (its code for a batch of 24 generated systems is
//! 290,000 lines) and gcc slows down on its large functions, so Rumur
//! checks every model alone.

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

pub(crate) fn run(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
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

/// Compiles SPIN's `pan.c` in `dir` for safety without partial-order
/// reduction.
fn compile_pan(dir: &Path) -> Result<String, String> {
    run(
        dir,
        "gcc",
        &[
            "-O0",
            "-w",
            "-DNOREDUCE",
            "-DSAFETY",
            // A model's `ltl` blocks are never claims; safety goes without.
            "-DNOCLAIM",
            "-DVECTORSZ=65536",
            "-o",
            "pan",
            "pan.c",
        ],
    )
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
    compile_pan(dir)?;
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
    rumur_with(dir, text, "off")
}

/// Rumur with `--symmetry-reduction` `symmetry` (off, or exhaustive: one
/// state per orbit) and without deadlock detection.
fn rumur_with(dir: &Path, text: &str, symmetry: &str) -> Result<Found, String> {
    std::fs::write(dir.join("model.m"), text).map_err(|e| e.to_string())?;
    run(
        dir,
        "rumur",
        &[
            "--threads",
            "1",
            "--symmetry-reduction",
            symmetry,
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
#[derive(Clone, Copy)]
enum Row {
    Refused(&'static str),
    TooLarge,
    /// optimist's own run is inconclusive at `--max-stack` (unbounded
    /// recursion): there is no count to compare.
    StackBound,
    Compared {
        holds: bool,
    },
}

/// The most threads in one batch (SPIN runs at most 255 processes).
const BATCH_THREADS: usize = 200;

/// What optimist says of a model before the other checkers run.
enum Plan {
    /// Nothing to compare: refused or too large.
    Done(Row),
    /// Holds with this full count: compared in a batch in SPIN.
    Holds(u64),
    /// Violated: compared alone, verdicts only.
    Violated,
}

fn plan(model: &Model, max_states: u64) -> Plan {
    // The question `check` asks by default: deadlocks are violations.
    let options = Options {
        reduction: Reduction::NONE,
        deadlock: true,
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
        Verdict::Inconclusive(optimist::Limit::Stack(_)) => return Plan::Done(Row::StackBound),
        Verdict::Inconclusive(_) => return Plan::Done(Row::TooLarge),
        Verdict::DoesNotApply(why) => panic!("full exploration applies to every model: {why}"),
    };
    for target in [Target::Promela, Target::Murphi] {
        if let Err(refusal) = optimist::export(model, target, true) {
            return Plan::Done(Row::Refused(refusal.kind.name()));
        }
    }
    if holds {
        Plan::Holds(outcome.stats.states)
    } else {
        Plan::Violated
    }
}

/// What optimist expects of a text: no error and this many states, or an
/// error.
fn expect(theirs: Found, expected: Option<u64>) -> bool {
    match expected {
        None => theirs.violated,
        Some(n) => !theirs.violated && theirs.states == n,
    }
}

fn expected_text(expected: Option<u64>) -> String {
    match expected {
        Some(n) => format!("holds with {n} states"),
        None => "violated".to_string(),
    }
}

/// Runs SPIN on `text`, with its optimisations and (`both_spins`) without.
fn spin_agrees(
    dir: &Path,
    text: &str,
    expected: Option<u64>,
    both_spins: bool,
) -> Result<(), String> {
    let depth = expected.map_or(1_000_000, |n| n + 16);
    let plain = spin(dir, text, depth, true)?;
    let off = if both_spins {
        spin(dir, text, depth, false)?
    } else {
        plain
    };
    if expect(plain, expected) && expect(off, expected) {
        Ok(())
    } else {
        Err(format!(
            "expected {}, SPIN {plain:?} (-o1 -o2 -o3: {off:?})",
            expected_text(expected)
        ))
    }
}

fn rumur_agrees(dir: &Path, text: &str, expected: Option<u64>) -> Result<(), String> {
    let found = rumur(dir, text)?;
    if expect(found, expected) {
        Ok(())
    } else {
        Err(format!(
            "expected {}, Rumur {found:?}",
            expected_text(expected)
        ))
    }
}

/// A unit of work: a model alone, or a batch of models that hold for SPIN
/// (each still alone for Rumur, whose verifiers grow with the batch).
enum Work {
    Batch(Vec<usize>),
    Alone(usize),
}

/// Does one unit of work; an error names the model.
fn work(
    item: &Work,
    jobs: &[(String, Model)],
    counts: &[Option<u64>],
    dir: &Path,
    both_spins: bool,
) -> Result<(), String> {
    let alone = |k: usize, spin: bool| -> Result<(), String> {
        let (name, model) = &jobs[k];
        let [pml, m] = [Target::Promela, Target::Murphi]
            .map(|target| optimist::export(model, target, true).expect("translates"));
        let result = if spin {
            spin_agrees(dir, &pml, counts[k], both_spins)
        } else {
            Ok(())
        };
        result
            .and_then(|()| rumur_agrees(dir, &m, counts[k]))
            .map_err(|e| format!("{name}: {e}\n--- Promela ---\n{pml}"))
    };
    match item {
        Work::Alone(k) => alone(*k, true),
        Work::Batch(ks) => {
            let models: Vec<&Model> = ks.iter().map(|&k| &jobs[k].1).collect();
            let text = optimist::export_batch(&models, Target::Promela, true)
                .expect("each model translates, so the batch does");
            // SPIN's extra state is the one before the choice of model.
            let total = ks.iter().map(|&k| counts[k].expect("holds")).sum::<u64>() + 1;
            let batch = spin_agrees(dir, &text, Some(total), both_spins);
            let mut errors = Vec::new();
            for &k in ks {
                // A batch that differs is checked model by model.
                if let Err(e) = alone(k, batch.is_err()) {
                    errors.push(e);
                }
            }
            if let (Err(e), true) = (&batch, errors.is_empty()) {
                errors.push(format!(
                    "a batch of {} models differs in SPIN although each agrees alone: {e}",
                    ks.len()
                ));
            }
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("\n\n"))
            }
        }
    }
}

/// What a run did: the rows, the errors, and how many times each checker
/// ran (SPIN and Rumur once per unit of work).
struct Ran {
    rows: Vec<Row>,
    errors: Vec<String>,
    units: usize,
}

/// Plans every job, puts the models that hold into batches, and runs the
/// units of work on two workers.
fn run_all(
    jobs: Vec<(String, Model)>,
    scratch: &Path,
    max_states: u64,
    both_spins: bool,
    batch_models: usize,
) -> Ran {
    let mut rows = Vec::new();
    // The full count of a model that holds; None for a violated one.
    let mut counts = vec![None; jobs.len()];
    let mut units = Vec::new();
    let mut batch: Vec<usize> = Vec::new();
    let mut threads = 0;
    for (k, (_, model)) in jobs.iter().enumerate() {
        match plan(model, max_states) {
            Plan::Done(row) => rows.push(row),
            Plan::Violated => {
                rows.push(Row::Compared { holds: false });
                units.push(Work::Alone(k));
            }
            Plan::Holds(n) => {
                counts[k] = Some(n);
                rows.push(Row::Compared { holds: true });
                if batch_models <= 1 {
                    units.push(Work::Alone(k));
                    continue;
                }
                let t = model.threads.len();
                if batch.len() == batch_models || threads + t > BATCH_THREADS {
                    units.push(Work::Batch(std::mem::take(&mut batch)));
                    threads = 0;
                }
                batch.push(k);
                threads += t;
            }
        }
    }
    if !batch.is_empty() {
        units.push(Work::Batch(batch));
    }
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    std::thread::scope(|s| {
        for w in 0..workers {
            let (next, errors, jobs, counts, units) = (&next, &errors, &jobs, &counts, &units);
            let dir = scratch.join(format!("worker{w}"));
            std::fs::create_dir_all(&dir).unwrap();
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = units.get(k) else {
                        break;
                    };
                    if let Err(e) = work(item, jobs, counts, &dir, both_spins) {
                        errors.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    Ran {
        rows,
        errors: errors.into_inner().unwrap(),
        units: units.len(),
    }
}

/// `compared N (holds H, violated V), refused R [kind: n, ...], too large T`.
fn summary(rows: &[Row]) -> (String, usize, usize, usize) {
    let (mut holds, mut violated, mut large, mut bounded) = (0, 0, 0, 0);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    for row in rows {
        match row {
            Row::Compared { holds: true } => holds += 1,
            Row::Compared { holds: false } => violated += 1,
            Row::TooLarge => large += 1,
            Row::StackBound => bounded += 1,
            Row::Refused(kind) => *refused.entry(kind).or_default() += 1,
        }
    }
    let kinds: Vec<String> = refused.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    let text = format!(
        "compared {} (holds, equal counts: {holds}; violated, equal verdicts: {violated}), refused {} [{}], beyond the state bound {large}, inconclusive at the stack bound {bounded}",
        holds + violated,
        refused.values().sum::<usize>(),
        kinds.join(", ")
    );
    (text, holds, violated, bounded)
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
            // without other flags.
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
            // The export refuses `timeout`, which it cannot translate
            // exactly (timeout.rs checks the refusal).
            if model.transitions.iter().any(|t| t.timeout) {
                continue;
            }
            jobs.push((format!("{} {:?}", rel(&path), defines), model));
        }
    }
    let n = jobs.len();
    let ran = run_all(
        jobs,
        &tools::scratch("crosscheck-models"),
        1_000_000,
        true,
        1,
    );
    assert!(ran.errors.is_empty(), "{}", ran.errors.join("\n\n"));
    let (text, holds, violated, bounded) = summary(&ran.rows);
    let text = format!(
        "{text}; SPIN ran {} times (batches of models that hold), Rumur once per model",
        ran.units
    );
    keep_summary("crosscheck-models", &text, started);
    // Every shipped model but those with `timeout` translates, and each
    // one was compared, but for unbounded recursion, which optimist itself
    // leaves inconclusive.
    assert_eq!(holds + violated + bounded, n, "{text}");
}

/// The number of generated systems per run. Each costs a Rumur verifier
/// compiled by gcc (about a second): with the temporal cross-check beside
/// it this was a third of CI's test time at 300. The differential tests
/// and the `soak` example run the same generators on many more systems
/// against full exploration.
const GENERATED: usize = 150;

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
    let ran = run_all(
        jobs,
        &tools::scratch("crosscheck-generated"),
        20_000,
        false,
        24,
    );
    assert!(ran.errors.is_empty(), "{}", ran.errors.join("\n\n"));
    let (text, holds, violated, _) = summary(&ran.rows);
    let text = format!(
        "{text}; SPIN ran {} times (batches of models that hold), Rumur once per model",
        ran.units
    );
    keep_summary("crosscheck-generated", &text, started);
    // Most systems are small enough, and both verdicts occur often.
    assert!(holds + violated >= GENERATED * 4 / 5, "{text}");
    assert!(
        holds >= GENERATED / 10 && violated >= GENERATED / 10,
        "{text}"
    );
}

/// A batch counts the sum of its models' states: in Rumur exactly, in SPIN
/// one more (the state before the choice of model); a violation in any
/// model is a violation of the batch.
#[test]
fn a_batch_counts_the_sum_of_its_models() {
    if !tools::present("a_batch_counts_the_sum_of_its_models", TOOLS) {
        return;
    }
    let dir = tools::scratch("crosscheck-batch");
    let load = |file: &str| {
        optimist::load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(file),
            &Vec::new(),
        )
        .unwrap()
        .1
    };
    let (barrier, handoff) = (load("models/barrier.gc"), load("models/handoff.gc"));
    let batch = [&barrier, &handoff];
    let pml = optimist::export_batch(&batch, Target::Promela, true).unwrap();
    let m = optimist::export_batch(&batch, Target::Murphi, true).unwrap();
    let by_spin = spin(&dir, &pml, 1_000, true).unwrap();
    let by_rumur = rumur(&dir, &m).unwrap();
    assert_eq!((by_spin.states, by_spin.violated), (106 + 5 + 1, false));
    assert_eq!((by_rumur.states, by_rumur.violated), (106 + 5, false));
    let racy = load("models/racy-counter.gc");
    let batch = [&barrier, &racy];
    let pml = optimist::export_batch(&batch, Target::Promela, true).unwrap();
    let m = optimist::export_batch(&batch, Target::Murphi, true).unwrap();
    assert!(spin_violated(&dir, &pml));
    assert!(rumur(&dir, &m).unwrap().violated);
}

fn spin_violated(dir: &Path, text: &str) -> bool {
    spin(dir, text, 1_000_000, true).unwrap().violated
}

/// `t.r` with a thread known only at run time is translated as a choice
/// among the threads' locals, with optimist's fault where the thread has
/// no such local: SPIN and Rumur count what optimist counts, and see the
/// fault as a violation.
#[test]
fn run_time_thread_locals_agree_with_spin_and_rumur() {
    if !tools::present("run_time_thread_locals_agree_with_spin_and_rumur", TOOLS) {
        return;
    }
    let dir = tools::scratch("crosscheck-local-of");
    let load = |file: &str| {
        optimist::load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(file),
            &Vec::new(),
        )
        .unwrap()
        .1
    };
    let holds = load("tests/integration/inputs/lang/local-of-runtime.gc");
    let faults = load("tests/integration/inputs/lang/local-of-missing.gc");
    for (model, expected) in [(&holds, Some(90)), (&faults, None)] {
        let pml = optimist::export(model, Target::Promela, true).unwrap();
        let m = optimist::export(model, Target::Murphi, true).unwrap();
        spin_agrees(&dir, &pml, expected, true).unwrap();
        rumur_agrees(&dir, &m, expected).unwrap();
    }
}

/// A deadlock is a violation for SPIN and Rumur as it is for `check`, and
/// a run where every thread has ended is not (nor one where threads wait
/// at `end` labels, or have not been started by a Promela `run`);
/// exported without deadlocks, the model holds there with `check
/// --no-deadlock`'s count.
#[test]
fn a_deadlock_is_a_violation_there_as_in_check() {
    if !tools::present("a_deadlock_is_a_violation_there_as_in_check", TOOLS) {
        return;
    }
    let dir = tools::scratch("crosscheck-deadlock");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        ("models/deadlock.gc", true),
        ("models/barrier.gc", false),
        ("tests/integration/inputs/chans/keep.gc", false),
        ("tests/integration/inputs/promela/pool.pml", false),
    ];
    for (file, deadlocks) in files {
        let model = optimist::load(&root.join(file), &Vec::new()).unwrap().1;
        for deadlock in [true, false] {
            let options = Options {
                reduction: Reduction::NONE,
                deadlock,
                ..Options::default()
            };
            let o = optimist::check(&model, &options, &mut |_| {});
            let expected = match o.verdict {
                Verdict::Holds => Some(o.stats.states),
                _ => None,
            };
            assert_eq!(expected.is_none(), deadlock && deadlocks, "{file}");
            let pml = optimist::export(&model, Target::Promela, deadlock).unwrap();
            let m = optimist::export(&model, Target::Murphi, deadlock).unwrap();
            spin_agrees(&dir, &pml, expected, true).unwrap();
            rumur_agrees(&dir, &m, expected).unwrap();
        }
    }
}

/// What optimist found over the orbits of a model's full symmetry.
struct Orbits {
    /// The states `check --symmetry on --reduction none` stored.
    states: u64,
    holds: bool,
    /// Whether each orbit is stored once (else optimist may store more).
    exact: bool,
}

/// optimist over orbits, where the model has full symmetry and the search
/// ends within `max_states`; `Err` says why there is nothing to compare.
fn orbits(model: &Model, max_states: u64) -> Result<Orbits, String> {
    let analysis = optimist::detect_symmetry(model);
    match &analysis.symmetry {
        Some(s) if s.kind == optimist::SymmetryKind::Full => {}
        Some(_) => return Err("rotations only".into()),
        None => return Err("no symmetry".into()),
    }
    let options = Options {
        reduction: Reduction::NONE,
        deadlock: true,
        symmetry: optimist::SymmetryUse::On,
        limits: Limits {
            max_states: Some(max_states),
            ..Limits::default()
        },
        ..Options::default()
    };
    let o = optimist::check(model, &options, &mut |_| {});
    let holds = match o.verdict {
        Verdict::Holds => true,
        Verdict::Violated => false,
        v => return Err(format!("optimist is inconclusive: {v:?}")),
    };
    let used = o.symmetry.ok_or("the search used no symmetry")?;
    Ok(Orbits {
        states: o.stats.states,
        holds,
        exact: used.exact,
    })
}

/// One model over orbits: both counts, or why it was not compared.
enum SymRow {
    Compared(Orbits, Found),
    Skipped(String),
}

/// Compares optimist over orbits with Rumur's exhaustive symmetry
/// reduction on the scalarset export, model by model on two workers: the
/// rows by name, and the disagreements.
fn compare_orbits(
    jobs: &[(String, Model)],
    dir: &Path,
    max_states: u64,
) -> (Vec<(String, SymRow)>, Vec<String>) {
    let next = AtomicUsize::new(0);
    let out = Mutex::new((Vec::new(), Vec::new()));
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    std::thread::scope(|s| {
        for w in 0..workers {
            let (next, out) = (&next, &out);
            let dir = dir.join(format!("worker{w}"));
            std::fs::create_dir_all(&dir).unwrap();
            s.spawn(move || {
                while let Some((name, model)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let row = compare_one(model, &dir, max_states);
                    let mut out = out.lock().unwrap();
                    match row {
                        Ok(row) => out.0.push((name.clone(), row)),
                        Err(e) => out.1.push(format!("{name}: {e}")),
                    }
                }
            });
        }
    });
    let (mut rows, errors) = out.into_inner().unwrap();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    (rows, errors)
}

/// Equal counts where the model holds (no more in Rumur where optimist's
/// representatives are not exact), an error in both where it is violated;
/// a refusal or a model without full symmetry is a row with its reason.
fn compare_one(model: &Model, dir: &Path, max_states: u64) -> Result<SymRow, String> {
    let ours = match orbits(model, max_states) {
        Ok(o) => o,
        Err(why) => return Ok(SymRow::Skipped(why)),
    };
    let text = match optimist::export_symmetric(model, Target::Murphi, true) {
        Ok(text) => text,
        Err(r) => return Ok(SymRow::Skipped(format!("refused: {}", r.message))),
    };
    let theirs = rumur_with(dir, &text, "exhaustive").map_err(|e| format!("{e}\n{text}"))?;
    let same = match (ours.holds, theirs.violated) {
        (true, false) if ours.exact => theirs.states == ours.states,
        (true, false) => theirs.states <= ours.states,
        (false, true) => true,
        _ => false,
    };
    if !same {
        return Err(format!(
            "optimist over orbits {} ({} states), Rumur {theirs:?}\n{text}",
            if ours.holds { "holds" } else { "violated" },
            ours.states
        ));
    }
    Ok(SymRow::Compared(ours, theirs))
}

/// The rows as a table: model, optimist's orbits, Rumur's.
fn orbit_table(rows: &[(String, SymRow)]) -> String {
    let mut out = String::from("model | optimist orbits | Rumur orbits\n");
    for (name, row) in rows {
        let name = name.lines().next().unwrap_or_default();
        out += &match row {
            SymRow::Compared(o, r) if o.holds => {
                let note = if o.exact { "" } else { " (not exact)" };
                format!("{name} | {}{note} | {}\n", o.states, r.states)
            }
            SymRow::Compared(o, r) => format!(
                "{name} | violated ({} states) | error ({} states)\n",
                o.states, r.states
            ),
            SymRow::Skipped(why) => format!("{name} | {why} |\n"),
        };
    }
    out
}

fn compared(rows: &[(String, SymRow)]) -> usize {
    (rows.iter())
        .filter(|(_, r)| matches!(r, SymRow::Compared(..)))
        .count()
}

/// Every shipped model with full symmetry (and the benchmarks' lock
/// family), exported with `--symmetry`: Rumur's exhaustive symmetry
/// reduction counts the orbits `check --symmetry on --reduction none`
/// counts, or finds an error where optimist does. The table lists every
/// model with the reason of any it did not compare.
#[test]
fn symmetric_models_agree_with_rumur_over_orbits() {
    let tools = [("rumur", "--version"), ("gcc", "--version")];
    if !tools::present("symmetric_models_agree_with_rumur_over_orbits", &tools) {
        return;
    }
    let started = std::time::Instant::now();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gc"))
        .collect();
    files.sort();
    files.push(root.join("tests/benches/lock-family.gc"));
    let jobs: Vec<(String, Model)> = (files.iter())
        .map(|path| (rel(path), optimist::load(path, &Vec::new()).unwrap().1))
        .filter(|(_, m)| {
            let s = optimist::detect_symmetry(m).symmetry;
            s.is_some_and(|s| s.kind == optimist::SymmetryKind::Full)
        })
        .collect();
    let (rows, errors) = compare_orbits(&jobs, &tools::scratch("crosscheck-orbits"), 1_000_000);
    let table = orbit_table(&rows);
    println!("{table}");
    assert!(errors.is_empty(), "{}\n\n{table}", errors.join("\n\n"));
    let text = format!(
        "{} of {} shipped models with full symmetry compared over orbits with Rumur",
        compared(&rows),
        jobs.len()
    );
    keep_summary("crosscheck-orbits", &format!("{text}\n{table}"), started);
    // Most are compared: the others are refused, or inconclusive in
    // optimist (unbounded recursion), each with its reason in the table.
    assert!(compared(&rows) * 5 >= jobs.len() * 4, "{text}\n{table}");
}

/// Generated systems with full symmetry: the lock-based generator's (locks,
/// turns, owners, procedures) and the grammar generator's (quantifiers
/// over the copies, arrays indexed by them, locals read as `t.r`), each
/// from a fixed draw: the same orbits in optimist and Rumur.
#[test]
fn generated_symmetric_systems_agree_with_rumur_over_orbits() {
    use crate::grammar::shared::{ast::print, generator::Rng};
    let tools = [("rumur", "--version"), ("gcc", "--version")];
    if !tools::present(
        "generated_symmetric_systems_agree_with_rumur_over_orbits",
        &tools,
    ) {
        return;
    }
    let started = std::time::Instant::now();
    let mut texts: Vec<(String, String)> = (crate::generate::fixed_systems(SYMMETRIC_DRAWS))
        .into_iter()
        .enumerate()
        .map(|(k, text)| (format!("generated system {k}"), text))
        .collect();
    for k in 0..GRAMMAR_DRAWS {
        let sys = crate::grammar::shared::generator::system(&mut Rng::for_system(2026, k));
        texts.push((format!("grammar system {k}"), print(&sys)));
    }
    let mut jobs = Vec::new();
    for (name, text) in texts {
        let Ok(model) = compile(&Source::new("generated.gc", &text).unwrap(), &[]) else {
            continue;
        };
        let s = optimist::detect_symmetry(&model).symmetry;
        if s.is_some_and(|s| s.kind == optimist::SymmetryKind::Full) {
            jobs.push((format!("{name}:\n{text}"), model));
        }
    }
    let scratch = tools::scratch("crosscheck-orbits-generated");
    let (rows, errors) = compare_orbits(&jobs, &scratch, 20_000);
    let table = orbit_table(&rows);
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    let text = format!(
        "{} of {} generated systems with full symmetry compared over orbits with Rumur",
        compared(&rows),
        jobs.len()
    );
    keep_summary(
        "crosscheck-orbits-generated",
        &format!("{text}\n{table}"),
        started,
    );
    assert!(
        jobs.len() >= 80 && compared(&rows) * 5 >= jobs.len() * 4,
        "{text}\n{table}"
    );
}

/// How many lock-based systems are drawn for the generated orbit check
/// (more than one in four has full symmetry).
const SYMMETRIC_DRAWS: usize = 300;

/// How many grammar systems are drawn for it (about one in twenty has full
/// symmetry).
const GRAMMAR_DRAWS: u64 = 1000;

/// SPIN asks optimist's deadlock question itself: every shipped model whose
/// header expects a deadlock, exported as `optimist export` writes it and
/// checked with the command its header gives (no `-E`), is an invalid end
/// state for SPIN; shipped models that hold pass with no error.
#[test]
fn spin_reports_each_shipped_deadlock_as_an_invalid_end_state() {
    if !tools::present(
        "spin_reports_each_shipped_deadlock_as_an_invalid_end_state",
        TOOLS,
    ) {
        return;
    }
    let dir = tools::scratch("crosscheck-invalid-end");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pan = |file: &str| -> String {
        let run = crate::common::optimist(["export", file, "--to", "promela"]);
        assert_eq!(run.code, 0, "{file}: {}", run.stderr);
        assert!(!run.stdout.contains("./pan -E") && !run.stdout.contains(" -E "));
        std::fs::write(dir.join("model.pml"), &run.stdout).unwrap();
        run_in(&dir, "spin", &["-a", "model.pml"]);
        compile_pan(&dir).unwrap();
        run_in(&dir, "./pan", &["-m100000000"])
    };
    let mut deadlocking = 0;
    let mut files: Vec<_> = std::fs::read_dir(root.join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gc"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // `// expect: violated deadlock`: what `check` finds with no flags.
        let deadlocks = expectations(&text).into_iter().any(|e| {
            e.flags.is_empty() && e.verdict == "violated" && e.kind.as_deref() == Some("deadlock")
        });
        if !deadlocks {
            continue;
        }
        deadlocking += 1;
        let file = format!("models/{}", path.file_name().unwrap().to_string_lossy());
        let out = pan(&file);
        // Not the banner's "invalid end states +": the error itself.
        assert!(
            out.contains("invalid end state (at depth") && out.contains("errors: 1"),
            "{file}: SPIN said {out}"
        );
        assert!(
            !out.contains("assertion violated"),
            "{file}: SPIN said {out}"
        );
    }
    assert!(deadlocking >= 4, "{deadlocking} shipped deadlocks");
    for file in [
        "models/barrier.gc",
        "models/handoff.gc",
        "models/peterson.gc",
    ] {
        let out = pan(file);
        assert!(out.contains("errors: 0"), "{file}: SPIN said {out}");
        assert!(
            !out.contains("invalid end state ("),
            "{file}: SPIN said {out}"
        );
    }
}

/// `program args` in `dir`, which must succeed: its standard output.
fn run_in(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
