//! `optimist refine`: the iteration table and JSON are pinned, written
//! models check as they are, and refinement never turns a violation into a
//! `holds` that full exploration would contradict.

use std::time::Duration;

use optimist::{GuessFrom, Limits, Options, Reduction, RefineOptions, Source, Verdict};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::{optimist, rel, settings};
use crate::generate::{Choices, choices, system};

fn refine_json(file: &str, args: &[&str]) -> Value {
    let mut all = vec!["refine", file, "--format", "json"];
    all.extend(args);
    let (run, v) = crate::common::json(&all);
    assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
    v
}

/// The written model checks with the final verdict, in both modes.
fn written_rechecks(file: &str, args: &[&str]) {
    let out = std::env::temp_dir().join(format!(
        "optimist-refine-{}-{}.gc",
        std::process::id(),
        file.replace('/', "_")
    ));
    let mut all = vec!["refine", file, "--output", out.to_str().unwrap()];
    all.extend(args);
    let run = optimist(&all);
    let verdict_code = run.code;
    for mode in ["sc", "none"] {
        let check = optimist(["check", out.to_str().unwrap(), "--reduction", mode]);
        assert!(
            check.stderr.is_empty(),
            "{file}: the written model does not load: {}",
            check.stderr
        );
        if verdict_code == 0 {
            assert_eq!(
                check.code, 0,
                "{file} {args:?}: refine said holds, --reduction {mode} says\n{}",
                check.stdout
            );
        }
    }
    let _ = std::fs::remove_file(out);
}

#[test]
fn lock_models_refine_from_nothing() {
    settings().bind(|| {
        insta::glob!("../../models", "refine-*.gc", |path| {
            let file = rel(path);
            let text = optimist(["refine", &file, "--guess", "locks"]);
            insta::assert_snapshot!("refine_locks", text.stdout);
            let json = optimist(["refine", &file, "--guess", "locks", "--format", "json"]);
            insta::assert_snapshot!("refine_locks_json", json.stdout);
            written_rechecks(&file, &["--guess", "locks"]);
            written_rechecks(&file, &["--guess", "locks", "--incremental"]);
        });
    });
}

#[test]
fn seeded_bugs_refine_from_their_annotations() {
    settings().bind(|| {
        insta::glob!("../../models", "*-bug.gc", |path| {
            let file = rel(path);
            let text = optimist(["refine", &file]);
            insta::assert_snapshot!("refine_annotated", text.stdout);
            let json = optimist(["refine", &file, "--format", "json"]);
            insta::assert_snapshot!("refine_annotated_json", json.stdout);
            written_rechecks(&file, &[]);
        });
    });
}

#[test]
fn two_lock_model_ends_with_each_variable_by_its_lock() {
    for args in [
        &["--guess", "locks"][..],
        &["--guess", "locks", "--incremental"],
    ] {
        let v = refine_json("models/refine-locks.gc", args);
        assert_eq!(v["verdict"], "holds", "{args:?}");
        assert_eq!(
            v["protected"],
            serde_json::json!({"a": "by m1", "b": "by m1", "c": "by m2"}),
            "{args:?}"
        );
        assert_eq!(
            v["unprotected"],
            serde_json::json!(["d", "ready"]),
            "{args:?}"
        );
        // Each says why: d's lock guess was refuted, ready is no candidate.
        assert_eq!(
            v["unprotected_why"],
            serde_json::json!({
                "d": "no lock is held at all its accesses",
                "ready": "a guard reads it, so it synchronises threads",
            }),
            "{args:?}"
        );
        let racy: Vec<&str> = v["racy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["variable"].as_str().unwrap())
            .collect();
        assert_eq!(
            racy,
            ["d"],
            "ready is read by a guard: a synchronisation variable, not a race"
        );
        let pair = &v["racy"][0]["accesses"];
        assert_ne!(pair[0]["thread"], pair[1]["thread"]);
    }
    let v = refine_json("models/refine-init.gc", &["--guess", "locks"]);
    assert_eq!(
        v["protected"]["buf"],
        "excl(t) = init(t, buf) || (m2 == t && !init(buf))"
    );
    assert_eq!(
        v["racy"][0]["variable"], "e",
        "e is taken under m1 by one thread and under m2 by the other"
    );
}

#[test]
fn the_buggy_barrier_names_the_offending_access() {
    let v = refine_json("models/barrier-bug.gc", &[]);
    assert_eq!(v["verdict"], "holds");
    let first = &v["iterations"][0];
    assert!(
        first["changed"].as_str().unwrap().starts_with("x[1]:"),
        "{first}"
    );
    assert!(
        first["reason"]
            .as_str()
            .unwrap()
            .contains("T0 writes x[1] at E (line 19) holding no lock"),
        "{first}"
    );
    assert_eq!(v["unprotected"], serde_json::json!(["y", "x[1]"]));
    assert!(v["protected"]["x[0]"].is_string());
}

#[test]
fn an_assertion_failure_is_a_real_bug_not_a_guess() {
    let v = refine_json("models/racy-counter.gc", &[]);
    assert_eq!(v["verdict"], "violated");
    assert!(
        v["stopped"]
            .as_str()
            .unwrap()
            .contains("assertion violation: a real bug"),
        "{v}"
    );
    assert_eq!(v["check"]["violation"]["kind"], "assertion");
}

fn full_holds(text: &str) -> bool {
    let src = Source::new("written.gc", text).unwrap();
    let model = optimist::compile(&src, &[])
        .unwrap_or_else(|e| panic!("the written model does not compile: {e}\n{text}"));
    let options = Options {
        reduction: Reduction::NONE,
        limits: Limits {
            max_states: Some(200_000),
            max_time: Some(Duration::from_secs(20)),
            max_memory: None,
        },
        ..Options::default()
    };
    let o = optimist::check(&model, &options, &mut |_| {});
    !matches!(o.verdict, Verdict::Violated)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// When refine ends with holds, a full-mode check of the written model
    /// holds too: refinement can only end with guesses the original system
    /// satisfies.
    #[test]
    fn refined_models_hold_in_full(data in choices(), locks in any::<bool>(), incremental in any::<bool>(), movers in any::<bool>()) {
        let text = system(&mut Choices::new(&data));
        let src = Source::new("generated.gc", text.clone()).unwrap();
        let options = RefineOptions {
            guess: if locks { GuessFrom::Locks } else { GuessFrom::Annotated },
            incremental,
            limits: Limits { max_states: Some(100_000), ..Limits::default() },
            reduction: if movers { optimist::Reduction::MOVERS } else { optimist::Reduction::SC },
            ..RefineOptions::default()
        };
        let Ok(report) = optimist::refine(&src, &[], &options) else { return Ok(()) };
        if report.verdict == "holds" {
            prop_assert!(full_holds(&report.text), "refine said holds, full exploration disagrees\n--- original\n{}\n--- written\n{}", text, report.text);
        }
    }
}

#[test]
fn write_never_overwrites_the_model() {
    let dir = std::env::temp_dir().join(format!("optimist-refine-self-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("m.gc");
    std::fs::copy("models/barrier-bug.gc", &model).unwrap();
    let before = std::fs::read_to_string(&model).unwrap();
    let run = optimist([
        "refine",
        model.to_str().unwrap(),
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("would overwrite the model itself"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&model).unwrap(), before);
    let _ = std::fs::remove_dir_all(dir);
}

/// Writes an inline model to a file of its own.
fn model_file(name: &str, text: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("refine");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn variables_read_by_invariants_are_not_guessed_protected() {
    // y is always written under m, so a lockset pass would guess it `by m`;
    // but the invariant reads it, and the reduction checks invariants over
    // unprotected variables only, so refine must not guess it (and then
    // reject its own guess as an input error).
    let file = model_file(
        "invariant-reads.gc",
        "lock m;\nshared x : 0..2 = 0;\nshared y : 0..2 = 0;\ninvariant y <= 2;\n\n\
         thread A {\n  acquire m;\n  x := 1;\n  y := 1;\n  release m;\n}\n\n\
         thread B {\n  acquire m;\n  x := 2;\n  y := 2;\n  release m;\n}\n",
    );
    for args in [
        &["--guess", "locks"][..],
        &["--guess", "locks", "--incremental"],
    ] {
        let v = refine_json(&file, args);
        assert_eq!(v["verdict"], "holds", "{args:?}: {v}");
        assert_eq!(v["protected"], serde_json::json!({"x": "by m"}), "{args:?}");
        assert_eq!(v["unprotected"], serde_json::json!(["y"]), "{args:?}");
    }
    written_rechecks(&file, &["--guess", "locks"]);
}

#[test]
fn limits_end_refine_with_the_iterations_done_so_far() {
    // A state limit in the first check: the iteration says so, the loop
    // stops, and the final check is inconclusive too.
    let run = optimist([
        "refine",
        "models/barrier-bug.gc",
        "--max-states",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(
        v["stopped"],
        "a limit was hit (state limit of 2 reached) in iteration 1"
    );
    let its = v["iterations"].as_array().unwrap();
    assert_eq!(its.len(), 1, "{v}");
    assert_eq!(
        its[0]["reason"],
        "the reduced check stopped: state limit of 2 reached"
    );
    assert!(
        v["check"]["limit"]
            .as_str()
            .unwrap()
            .starts_with("state limit of 2 reached"),
        "{v}"
    );
    // Text says the same.
    let text = optimist(["refine", "models/barrier-bug.gc", "--max-states", "2"]);
    assert_eq!(text.code, 3);
    assert!(
        text.stdout
            .contains("stopped      a limit was hit (state limit of 2 reached) in iteration 1"),
        "{}",
        text.stdout
    );
    // Time covers the whole run: nothing is left for any check.
    for guess in ["annotated", "locks"] {
        let run = optimist([
            "refine",
            "models/refine-locks.gc",
            "--guess",
            guess,
            "--max-time",
            "0",
            "--format",
            "json",
        ]);
        assert_eq!(run.code, 3, "{guess}: {}{}", run.stdout, run.stderr);
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["check"]["limit"], "time limit of 0 s reached", "{guess}");
        assert!(
            v["stopped"]
                .as_str()
                .unwrap()
                .starts_with("a limit was hit (time limit of 0 s reached)"),
            "{guess}: {v}"
        );
    }
    // Memory: below what the process holds at the start.
    let run = optimist([
        "refine",
        "models/barrier-bug.gc",
        "--max-memory",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["check"]["limit"], "memory limit of 1 MB reached");
}

#[test]
fn zero_iterations_check_the_first_guesses_only() {
    let v = refine_json("models/barrier-bug.gc", &["--max-iterations", "0"]);
    assert_eq!(v["iterations"], serde_json::json!([]));
    assert_eq!(v["stopped"], "the iteration limit of 0 was reached");
    assert_eq!(v["verdict"], "violated", "the annotations are wrong: {v}");
}
