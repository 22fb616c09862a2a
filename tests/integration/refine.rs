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
    let mut all = vec!["refine", file, "--write", out.to_str().unwrap()];
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
        reduction: Reduction::None,
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
            reduction: if movers { optimist::Reduction::Movers } else { optimist::Reduction::Sc },
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
        "--write",
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
