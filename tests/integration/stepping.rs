//! `optimist simulate` (seeded random walks) and `optimist replay` (saved
//! counterexamples re-run against a model, maybe changed).

use crate::common::{json, optimist, settings};
use crate::tools::scratch;

#[test]
fn simulate_is_deterministic_per_seed() {
    for format in ["text", "json"] {
        let args = |seed: &'static str| {
            [
                "simulate",
                "models/barrier.gc",
                "--seed",
                seed,
                "--steps",
                "30",
                "--format",
                format,
            ]
        };
        let a = optimist(args("7"));
        let b = optimist(args("7"));
        assert_eq!(a.code, 0, "{}", a.stderr);
        assert_eq!(a.stdout, b.stdout);
        let c = optimist(args("8"));
        assert_ne!(a.stdout, c.stdout, "seeds 7 and 8 walk the same way");
    }
}

#[test]
fn simulate_racy_counter_text() {
    let run = optimist(["simulate", "models/racy-counter.gc", "--seed", "3"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    settings().bind(|| insta::assert_snapshot!("simulate_racy_counter_seed_3", run.stdout));
}

#[test]
fn simulate_stops_at_the_step_limit_and_says_so() {
    let (run, v) = json([
        "simulate",
        "models/barrier.gc",
        "--steps",
        "3",
        "--reduction",
        "sc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(v["end"], "step-limit");
    assert_eq!(v["steps"], 3);
    assert_eq!(v["reduction"], "sc");
    let text = optimist(["simulate", "models/barrier.gc", "--steps", "3"]);
    assert!(text.stdout.contains("stopped after 3 steps (--steps)"));
}

#[test]
fn simulate_ends_at_a_deadlock_or_the_end() {
    let (run, v) = json([
        "simulate",
        "models/barrier.gc",
        "--steps",
        "100000",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(v["end"], "ended", "{v}");
    let (run, v) = json([
        "simulate",
        "models/deadlock.gc",
        "--steps",
        "100000",
        "--format",
        "json",
        "--seed",
        "1",
    ]);
    assert!(run.code == 0, "{}", run.stderr);
    assert!(["deadlock", "ended"].contains(&v["end"].as_str().unwrap()));
}

/// Some seed finds the lost update, and its walk is itself a
/// counterexample that `replay` reproduces.
#[test]
fn simulate_finds_violations_that_replay() {
    let dir = scratch("simulate_replay");
    let found = (0..20).find_map(|seed| {
        let seed = seed.to_string();
        let (run, v) = json([
            "simulate",
            "models/racy-counter.gc",
            "--seed",
            &seed,
            "--format",
            "json",
        ]);
        (run.code == 1).then_some((run.stdout, v))
    });
    let (text, v) = found.expect("a seed below 20 finds the violation");
    assert_eq!(v["end"], "violation");
    assert_eq!(v["violation"]["kind"], "assertion");
    let saved = dir.join("walk.json");
    std::fs::write(&saved, text).unwrap();
    let run = optimist(["replay", "models/racy-counter.gc", saved.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("reproduced"), "{}", run.stdout);
}

/// Every counterexample of every shipped model, in both modes, replays and
/// reproduces its violation.
#[test]
fn replay_round_trips_every_violating_model() {
    let dir = scratch("replay_round_trip");
    let models = crate::common::models();
    let mut replayed = Vec::new();
    for model in &models {
        let name = model.file_stem().unwrap().to_string_lossy().to_string();
        for extra in [
            &["--reduction", "sc"][..],
            &["--reduction", "none"],
            &["--deadlock"],
        ] {
            let mut args = vec!["check", model.to_str().unwrap(), "--format", "json"];
            args.extend(extra);
            args.extend(["--max-states", "200000"]);
            let check = optimist(&args);
            // A violation, or a breach of the reduction's conditions that
            // refuses the run (exit 3) with its trace.
            let breach = check.code == 3 && check.stdout.contains("\"well-formedness\"");
            if check.code != 1 && !breach {
                continue;
            }
            let saved = dir.join(format!("{name}-{}.json", extra.join("")));
            std::fs::write(&saved, &check.stdout).unwrap();
            let (run, v) = json([
                "replay",
                model.to_str().unwrap(),
                saved.to_str().unwrap(),
                "--format",
                "json",
            ]);
            assert_eq!(
                (run.code, v["outcome"].as_str()),
                (1, Some("reproduced")),
                "{name} {extra:?}: {v:#}"
            );
            replayed.push(format!("{name} {}", extra.join(" ")));
        }
    }
    // The -bug models, the ignoring figures, endexcl (WFendExcl) and
    // deadlock (--deadlock) at least.
    for must in [
        "counter-bug --reduction sc",
        "racy-counter --reduction none",
        "endexcl --reduction sc",
        "deadlock --deadlock",
        "memreuse-bug --reduction sc",
    ] {
        assert!(replayed.iter().any(|r| r == must), "{must}: {replayed:?}");
    }
    assert!(replayed.len() >= 20, "{replayed:?}");
}

/// Two branches of an `either` that begin with the same statement on one
/// line look alike in a saved trace (same thread, statement, line and
/// state): replay tries each branch until the rest of the trace matches.
#[test]
fn replay_follows_either_branches_that_begin_alike() {
    let dir = scratch("replay_either");
    let model = dir.join("either.gc");
    std::fs::write(
        &model,
        "system either_same;\nshared x : 0..3 = 0;\n\nthread T {\n  either { x := x + 1; x := x + 1; } or { x := x + 1; assert x == 0; }\n}\n",
    )
    .unwrap();
    let model = model.to_str().unwrap();
    for reduction in ["none", "sc"] {
        let check = optimist(["check", model, "--reduction", reduction, "--format", "json"]);
        assert_eq!(check.code, 1, "{}", check.stdout);
        let saved = dir.join(format!("either-{reduction}.json"));
        std::fs::write(&saved, &check.stdout).unwrap();
        let run = optimist(["replay", model, saved.to_str().unwrap()]);
        assert_eq!(run.code, 1, "{reduction}: {}", run.stdout);
        assert!(
            run.stdout.contains("outcome      reproduced"),
            "{reduction}: {}",
            run.stdout
        );
    }
}

fn saved_racy_counter(dir: &std::path::Path) -> std::path::PathBuf {
    let saved = dir.join("racy.json");
    std::fs::write(&saved, crate::common::racy_counterexample()).unwrap();
    saved
}

#[test]
fn replay_says_where_a_changed_statement_diverges() {
    let dir = scratch("replay_statement");
    let saved = saved_racy_counter(&dir);
    let text = std::fs::read_to_string("models/racy-counter.gc").unwrap();
    let changed = dir.join("racy-plus-two.gc");
    std::fs::write(&changed, text.replace("c := t + 1", "c := t + 2")).unwrap();
    let (run, v) = json([
        "replay",
        changed.to_str().unwrap(),
        saved.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{v:#}");
    assert_eq!(v["outcome"], "diverged");
    let d = &v["divergence"];
    assert_eq!(d["step"], 3);
    assert_eq!(d["thread"], "T0");
    assert_eq!(d["expected_statement"], "c := t + 1");
    assert_eq!(d["found_statements"], serde_json::json!(["c := t + 2"]));
    assert_eq!(v["replayed"], 2);
    let run = optimist(["replay", changed.to_str().unwrap(), saved.to_str().unwrap()]);
    assert_eq!(run.code, 3);
    assert!(
        run.stdout
            .contains("step 3: T0 at W has no statement `c := t + 1`; it has: `c := t + 2`"),
        "{}",
        run.stdout
    );
}

#[test]
fn replay_says_where_a_changed_state_diverges() {
    let dir = scratch("replay_state");
    let saved = saved_racy_counter(&dir);
    let text = std::fs::read_to_string("models/racy-counter.gc").unwrap();
    let changed = dir.join("racy-starts-at-one.gc");
    std::fs::write(
        &changed,
        text.replace("shared c : 0..2 = 0;", "shared c : 0..2 = 1;"),
    )
    .unwrap();
    let (run, v) = json([
        "replay",
        changed.to_str().unwrap(),
        saved.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{v:#}");
    let d = &v["divergence"];
    assert_eq!(d["step"], 1);
    let diffs = d["differences"].as_array().unwrap();
    assert!(
        diffs
            .iter()
            .any(|x| x["variable"] == "c" && x["expected"] == "0" && x["found"] == "1"),
        "{d:#}"
    );
}

#[test]
fn replay_says_when_the_violation_is_gone() {
    let dir = scratch("replay_gone");
    let saved = saved_racy_counter(&dir);
    let text = std::fs::read_to_string("models/racy-counter.gc").unwrap();
    let changed = dir.join("racy-weaker.gc");
    std::fs::write(&changed, text.replace("assert c == 2;", "assert c >= 1;")).unwrap();
    let (run, v) = json([
        "replay",
        changed.to_str().unwrap(),
        saved.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{v:#}");
    assert!(v["found"].is_null());
}

#[test]
fn replay_input_errors() {
    let dir = scratch("replay_errors");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"a\": 1,, }\n").unwrap();
    let run = optimist(["replay", "models/racy-counter.gc", bad.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad.json:1:9"), "{}", run.stderr);
    assert!(run.stderr.contains('|'), "a caret excerpt: {}", run.stderr);
    let (run, v) = json([
        "replay",
        "models/racy-counter.gc",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(v["status"], "error");
    assert_eq!(v["error"]["place"]["line"], 1);
    let holds = dir.join("holds.json");
    let check = optimist(["check", "models/barrier.gc", "--format", "json"]);
    std::fs::write(&holds, check.stdout).unwrap();
    let run = optimist(["replay", "models/barrier.gc", holds.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no counterexample"), "{}", run.stderr);
}

/// A violation in the initial state has a trace of no steps, which replays
/// like any other: the deadlock of `--deadlock`, an invariant false at the
/// start, and an initial overlap of exclusive access predicates.
#[test]
fn replay_accepts_a_trace_of_no_steps() {
    let dir = scratch("replay_no_steps");
    let cases = [
        (
            "deadlock-at-start",
            "shared f : 0..1 = 0;\nthread A { await f == 1; }\nthread B { await f == 1; }\n",
            &["--deadlock"][..],
            "deadlock",
        ),
        (
            "invariant-at-start",
            "shared f : 0..1 = 0;\ninvariant f == 1;\nthread A { f := 1; }\n",
            &[],
            "invariant",
        ),
        (
            "overlap-at-start",
            "threads 2;\nprotected x : 0..1 = 0 excl(t) = true;\nthread T { x := 1; }\n",
            &[],
            "well-formedness",
        ),
    ];
    for (name, text, flags, kind) in cases {
        let model = dir.join(format!("{name}.gc"));
        std::fs::write(&model, text).unwrap();
        let model = model.to_str().unwrap();
        for reduction in ["sc", "none"] {
            let mut args = vec!["check", model, "--reduction", reduction, "--format", "json"];
            args.extend(flags);
            let (check, saved) = json(&args);
            assert_eq!(check.code, 1, "{name}: {}", check.stdout);
            assert_eq!(saved["violation"]["kind"], kind, "{name}");
            assert_eq!(saved["trace"], serde_json::json!([]), "{name}");
            let trace = dir.join(format!("{name}-{reduction}.json"));
            std::fs::write(&trace, &check.stdout).unwrap();
            let trace = trace.to_str().unwrap();
            let (run, v) = json(["replay", model, trace, "--format", "json"]);
            assert_eq!(run.code, 1, "{name} {reduction}: {v:#}");
            assert_eq!(v["outcome"], "reproduced", "{name} {reduction}");
            assert_eq!(v["saved_steps"], 0);
            assert_eq!(v["found"]["kind"], kind);
            assert_eq!(v["found"]["message"], saved["violation"]["message"]);
            let run = optimist(["replay", model, trace]);
            assert_eq!(run.code, 1, "{name}: {}", run.stdout);
            assert!(
                run.stdout.contains(
                    "outcome      reproduced: the trace has no steps, and the initial state has the same violation"
                ),
                "{name}: {}",
                run.stdout
            );
        }
    }
    // Where the model no longer deadlocks at the start, the trace of no
    // steps diverges at its end, the initial state.
    let saved = dir.join("deadlock-at-start-sc.json");
    let moving = dir.join("moving.gc");
    std::fs::write(
        &moving,
        "shared f : 0..1 = 1;\nthread A { await f == 1; }\nthread B { await f == 1; }\n",
    )
    .unwrap();
    let (run, v) = json([
        "replay",
        moving.to_str().unwrap(),
        saved.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{v:#}");
    assert_eq!(v["outcome"], "diverged");
    assert_eq!(v["divergence"]["step"], 0);
    assert!(v["found"].is_null(), "{v:#}");
}
