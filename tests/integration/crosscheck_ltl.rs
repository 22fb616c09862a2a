//! Temporal properties confirmed by SPIN: every shipped model with `ltl`
//! properties and a few hundred generated systems with generated formulas
//! (`liveness::systems`) are exported to Promela, and SPIN's `pan -a`
//! (and `pan -a -f`, SPIN's weak fairness) must give optimist's verdict,
//! without fairness and under weak fairness, for every property. Strong
//! fairness has no counterpart in SPIN. A property whose atom cannot be
//! evaluated in some reachable state is violated in both; one that a limit
//! left undecided is counted and not compared.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use optimist::{Fairness, LtlOptions, Model, Options, Reduction, Target, Verdict};

use crate::crosscheck::run as run_tool;
use crate::tools;

const TOOLS: &[(&str, &str)] = &[("spin", "-V"), ("gcc", "--version")];

/// Generated systems compared (each costs SPIN verifiers compiled by gcc;
/// the liveness differential runs 500 against full exploration).
const GENERATED: usize = 120;

/// What one model gave: per fairness, per property, optimist's and SPIN's
/// verdicts (`None`: not compared).
#[derive(Default)]
struct Tally {
    compared: [usize; 2],
    violated: [usize; 2],
    skipped: usize,
    disagreements: Vec<String>,
}

/// Compiles SPIN's verifier for `model` in `dir`, then compares every
/// property without fairness and under weak fairness.
fn compare(dir: &Path, what: &str, model: &Model, tally: &Mutex<Tally>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let pml = optimist::export(model, Target::Promela, false).map_err(|e| format!("{e:?}"))?;
    std::fs::write(dir.join("model.pml"), &pml).map_err(|e| e.to_string())?;
    run_tool(dir, "spin", &["-a", "model.pml"])?;
    run_tool(
        dir,
        "gcc",
        &[
            "-O0",
            "-DNOREDUCE",
            "-DNFAIR=4",
            "-DVECTORSZ=65536",
            "-o",
            "pan",
            "pan.c",
        ],
    )?;
    let properties: Vec<usize> = (0..model.ltl.len()).collect();
    for (fi, fairness) in [Fairness::None, Fairness::Weak].into_iter().enumerate() {
        let options = Options {
            reduction: Reduction::NONE,
            threads: 1,
            limits: optimist::Limits {
                max_states: Some(200_000),
                ..Default::default()
            },
            ..Options::default()
        };
        let ours = optimist::check_ltl(
            model,
            &options,
            &LtlOptions {
                fairness,
                properties: properties.clone(),
            },
        );
        for po in &ours.properties {
            let name = &model.ltl[po.property].name;
            // An atom that cannot be evaluated is a violation in both.
            let violated = match po.verdict {
                Verdict::Holds => Some(false),
                Verdict::Violated => Some(true),
                _ => None,
            };
            let Some(violated) = violated else {
                tally.lock().unwrap().skipped += 1;
                continue;
            };
            // pan's depth bound: its stack is allocated whole, so not more
            // than the product (and the fairness copies) can need.
            let depth = format!(
                "-m{}",
                4 * po.product_states.max(ours.stats.states) + 10_000
            );
            let mut args = vec!["-a", depth.as_str(), "-N", name.as_str()];
            if fairness == Fairness::Weak {
                args.insert(1, "-f");
            }
            let text = run_tool(dir, "./pan", &args)?;
            let spin = text
                .lines()
                .find_map(|l| l.split("errors: ").nth(1))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .ok_or_else(|| format!("{what}: no error count from pan:\n{text}"))?
                > 0;
            if text.contains("max search depth too small") {
                return Err(format!("{what}: pan's depth bound was reached"));
            }
            let mut t = tally.lock().unwrap();
            t.compared[fi] += 1;
            t.violated[fi] += usize::from(violated);
            if spin != violated {
                t.disagreements.push(format!(
                    "{what}: `{name}` under {} fairness: optimist {}, SPIN {}",
                    fairness.name(),
                    if violated { "violated" } else { "holds" },
                    if spin { "violated" } else { "holds" },
                ));
            }
        }
    }
    Ok(())
}

fn run(jobs: Vec<(String, Model)>, scratch: &str) -> Tally {
    let root = tools::scratch(scratch);
    let tally = Mutex::new(Tally::default());
    let errors = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..2 {
            let (jobs, tally, errors, next, root) = (&jobs, &tally, &errors, &next, &root);
            s.spawn(move || {
                let dir = root.join(format!("worker{w}"));
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((what, model)) = jobs.get(k) else {
                        break;
                    };
                    if let Err(e) = compare(&dir, what, model, tally) {
                        errors.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap();
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    tally.into_inner().unwrap()
}

fn report(what: &str, t: &Tally) -> String {
    format!(
        "{what}: SPIN agrees on {} properties without fairness ({} violated) and {} under weak fairness ({} violated); {} not compared (a limit)",
        t.compared[0], t.violated[0], t.compared[1], t.violated[1], t.skipped
    )
}

#[test]
fn shipped_liveness_models_agree_with_spin() {
    if !tools::present("shipped_liveness_models_agree_with_spin", TOOLS) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut jobs = Vec::new();
    for entry in std::fs::read_dir(root.join("models")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "gc") && text.contains("\nltl ") {
            let (_, model) = optimist::load(&path, &[]).unwrap();
            jobs.push((crate::common::rel(&path), model));
        }
    }
    jobs.sort_by(|a, b| a.0.cmp(&b.0));
    let n = jobs.len();
    let t = run(jobs, "crosscheck-ltl-models");
    let text = report(&format!("{n} shipped models"), &t);
    eprintln!("{text}");
    assert!(
        t.disagreements.is_empty(),
        "{}\n{text}",
        t.disagreements.join("\n")
    );
    assert!(n >= 5 && t.compared[0] >= n && t.compared[1] >= n, "{text}");
}

#[test]
fn generated_systems_with_formulas_agree_with_spin() {
    if !tools::present("generated_systems_with_formulas_agree_with_spin", TOOLS) {
        return;
    }
    // The two lock-based generators: the whole grammar's systems use
    // constructs SPIN rejects (an array indexed by itself, `a[a[0]]`).
    let (systems, _) = crate::liveness::systems(GENERATED, false);
    let n = systems.len();
    let jobs = systems
        .into_iter()
        .enumerate()
        .map(|(k, (text, model))| (format!("generated system {k}:\n{text}"), model))
        .collect();
    let t = run(jobs, "crosscheck-ltl-generated");
    let text = report(&format!("{n} generated systems"), &t);
    eprintln!("{text}");
    assert!(
        t.disagreements.is_empty(),
        "{}\n{text}",
        t.disagreements.join("\n\n")
    );
    assert!(n >= GENERATED, "{text}");
    // Both verdicts occur under both assumptions.
    for f in 0..2 {
        assert!(
            t.violated[f] >= n / 10 && t.compared[f] - t.violated[f] >= n / 10,
            "{text}"
        );
    }
}
