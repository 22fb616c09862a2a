//! Every model in `models/`: its header's expectations hold in both modes,
//! and its outputs are pinned by snapshots.

use std::path::Path;

use serde_json::Value;

use crate::common::{expectations, optimist, rel, settings};

fn check_json(file: &str, reduction: &str, flags: &[String]) -> Value {
    let mut args = vec![
        "check".to_string(),
        file.to_string(),
        "--format".into(),
        "json".into(),
        "--reduction".into(),
        reduction.into(),
    ];
    args.extend(flags.iter().cloned());
    // A header counts every state unless its flags ask for symmetry.
    if !flags.iter().any(|f| f == "--symmetry") {
        args.extend(["--symmetry".into(), "off".into()]);
    }
    let (run, v) = crate::common::json(&args);
    assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
    let expected_code = match v["verdict"].as_str() {
        Some("holds") => 0,
        Some("violated") => 1,
        _ => 3,
    };
    assert_eq!(run.code, expected_code, "{file}: exit code");
    v
}

/// Checks a model against its `// expect` header lines, in both modes.
pub fn check_headers(path: &Path) {
    let file = rel(path);
    let text = std::fs::read_to_string(path).unwrap();
    let expects = expectations(&text);
    assert!(!expects.is_empty(), "{file} has no `// expect:` header");
    for e in expects {
        for (mode, count) in [
            ("none", e.full),
            ("sc", e.sc),
            ("movers", e.movers),
            ("stubborn", e.stubborn),
            ("sc+stubborn", e.sc_stubborn),
            ("movers+stubborn", e.movers_stubborn),
        ] {
            let Some(count) = count else { continue };
            // A line for one mode (`// expect --reduction sc: ...`) names it
            // in its flags; it holds for stubborn sets over that mode too.
            let only = e
                .flags
                .iter()
                .position(|f| f == "--reduction")
                .map(|k| e.flags[k + 1].clone());
            if only
                .as_deref()
                .is_some_and(|m| m != mode && mode != format!("{m}+stubborn"))
            {
                continue;
            }
            let mut flags = e.flags.clone();
            if let Some(k) = flags.iter().position(|f| f == "--reduction") {
                flags.drain(k..k + 2);
            }
            let e = crate::common::Expect { flags, ..e.clone() };
            let v = check_json(&file, mode, &e.flags);
            let what = format!("{file} {:?} --reduction {mode}", e.flags);
            assert_eq!(v["verdict"], e.verdict.as_str(), "{what}: verdict");
            assert_eq!(v["states"], count, "{what}: states");
            match &e.kind {
                Some(k) => assert_eq!(v["violation"]["kind"], k.as_str(), "{what}: kind"),
                None => assert!(v["violation"].is_null(), "{what}: unexpected violation"),
            }
        }
    }
}

#[test]
fn headers_hold() {
    insta::glob!("../../models", "**/*.gc", check_headers);
}

#[test]
fn soundness_regressions_hold() {
    insta::glob!("inputs/soundness", "*.gc", check_headers);
}

#[test]
fn check_outputs() {
    settings().bind(|| {
        insta::glob!("../../models", "**/*.gc", |path| {
            let file = rel(path);
            for mode in ["none", "sc", "movers"] {
                let text = optimist(["check", &file, "--reduction", mode]);
                insta::assert_snapshot!(format!("check_{mode}"), text.stdout);
                let json = optimist(["check", &file, "--reduction", mode, "--format", "json"]);
                insta::assert_snapshot!(format!("check_{mode}_json"), json.stdout);
            }
            // Models with a header line for `--summaries` pin its output too.
            if std::fs::read_to_string(path)
                .unwrap()
                .contains("// expect --summaries")
            {
                let text = optimist(["check", &file, "--summaries"]);
                insta::assert_snapshot!("check_summaries", text.stdout);
                let json = optimist(["check", &file, "--summaries", "--format", "json"]);
                insta::assert_snapshot!("check_summaries_json", json.stdout);
                let movers = ["check", &file, "--summaries", "--reduction", "movers"];
                let text = optimist(movers);
                insta::assert_snapshot!("check_summaries_movers", text.stdout);
                let json = optimist([&movers[..], &["--format", "json"]].concat());
                insta::assert_snapshot!("check_summaries_movers_json", json.stdout);
            }
        });
    });
}

#[test]
fn classify_outputs() {
    settings().bind(|| {
        insta::glob!("../../models", "**/*.gc", |path| {
            let file = rel(path);
            let text = optimist(["classify", &file]);
            // sc refuses a model with a rendezvous or `timeout` (exit 3)
            // and says why.
            let (_, model) = optimist::load(path, &[]).unwrap();
            let refused = optimist::reductions_refusal(&model).is_some();
            assert_eq!(
                text.code,
                if refused { 3 } else { 0 },
                "{file}: {}",
                text.stderr
            );
            insta::assert_snapshot!("classify", text.stdout);
            let json = optimist(["classify", &file, "--format", "json"]);
            insta::assert_snapshot!("classify_json", json.stdout);
            let movers = optimist(["classify", &file, "--reduction", "movers"]);
            insta::assert_snapshot!("classify_movers", movers.stdout);
        });
    });
}

/// Every reduced counterexample of a shipped model replays, transition by
/// transition, in the full semantics and reaches the same violation.
#[test]
fn reduced_counterexamples_replay_in_full() {
    insta::glob!("../../models", "**/*.gc", |path| {
        let (_, model) = optimist::load(path, &[]).unwrap();
        for (deadlock, summaries) in [(false, false), (true, false), (false, true), (true, true)] {
            let options = optimist::Options {
                reduction: optimist::Reduction::SC,
                deadlock,
                summaries,
                ..Default::default()
            };
            let outcome = optimist::check(&model, &options, &mut |_| {});
            if let Some(v) = outcome.violation {
                if let Err(e) = crate::differential::replays(&model, &v.trace, &v.problem) {
                    panic!("{}: {e}", rel(path));
                }
            }
        }
    });
}

/// On every soundness regression, the two certify levels are ordered and
/// certify means what it says: the local level never holds where the
/// exhaustive level fails, and where the exhaustive level holds the reduced
/// verdict is the full verdict.
#[test]
fn soundness_regressions_certify_honestly() {
    insta::glob!("inputs/soundness", "*.gc", |path| {
        let file = rel(path);
        let certify = |extra: &[&str]| {
            let mut args = vec!["certify", file.as_str(), "--format", "json"];
            args.extend_from_slice(extra);
            let (_, v) = crate::common::json(&args);
            v["verdict"].as_str().unwrap_or_default().to_string()
        };
        let (local, exhaustive) = (certify(&[]), certify(&["--exhaustive"]));
        if local == "holds" {
            assert_eq!(
                exhaustive, "holds",
                "{file}: local holds, exhaustive does not"
            );
        }
        if exhaustive == "holds" {
            let verdict = |mode: &str| {
                let (_, v) =
                    crate::common::json(["check", &file, "--reduction", mode, "--format", "json"]);
                v["verdict"].clone()
            };
            assert_eq!(
                verdict("sc"),
                verdict("none"),
                "{file}: certified, yet the verdicts differ"
            );
        }
    });
}
