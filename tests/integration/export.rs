//! `optimist export`: the exported text is pinned, and what cannot be
//! translated exactly is refused with a clear error (exit 2). Whether the
//! translation is exact is measured by `crosscheck`.

use crate::common::{optimist, rel, settings};

#[test]
fn barrier_in_promela_and_murphi() {
    for to in ["promela", "murphi"] {
        let run = optimist(["export", "models/barrier.gc", "--to", to]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stderr.is_empty());
        settings().bind(|| insta::assert_snapshot!(format!("export_barrier_{to}"), run.stdout));
    }
}

#[test]
fn export_writes_a_file_with_output() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("handoff.m");
    let run = optimist([
        "export",
        "models/handoff.gc",
        "--to",
        "murphi",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("startstate"), "{text}");
    let same = optimist(["export", "models/handoff.gc", "--to", "murphi"]);
    assert_eq!(same.stdout, text, "the same model gives the same text");
}

#[test]
fn untranslatable_models_are_refused() {
    insta::glob!("inputs/export", "*.gc", |path| {
        for to in ["promela", "murphi"] {
            let file = rel(path);
            let run = optimist(["export", file.as_str(), "--to", to]);
            assert_eq!(run.code, 2, "{file}: {}", run.stdout);
            assert!(run.stdout.is_empty(), "{file}: nothing is written");
            assert!(
                run.stderr.contains("cannot translate this model"),
                "{}",
                run.stderr
            );
            settings().bind(|| insta::assert_snapshot!(format!("refused_{to}"), run.stderr));
        }
    });
}

#[test]
fn bad_target_is_a_usage_error() {
    let run = optimist(["export", "models/barrier.gc", "--to", "tla"]);
    assert_eq!(run.code, 2);
    let run = optimist(["export", "models/no-such-file.gc", "--to", "promela"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no such file"), "{}", run.stderr);
}

#[test]
fn export_json_holds_the_text_or_the_refusal() {
    let run = optimist([
        "export",
        "models/handoff.gc",
        "--to",
        "promela",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let text = optimist(["export", "models/handoff.gc", "--to", "promela"]).stdout;
    assert_eq!(v["text"], text.as_str());
    assert_eq!(v["target"], "promela");
    assert!(v["refused"].is_null());
    assert!(
        v["check_with"]
            .as_str()
            .unwrap()
            .starts_with("spin -a MODEL.pml"),
        "{v}"
    );
    let run = optimist([
        "export",
        "tests/integration/inputs/export/quantifier.gc",
        "--to",
        "murphi",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    settings().bind(|| insta::assert_snapshot!("export_refused_json", run.stdout));
}

/// `--symmetry`: a fully symmetric model becomes a scalarset; Promela, a
/// model without full symmetry and what a scalarset cannot express are
/// refused (exit 2) with the reason.
#[test]
fn symmetric_export_writes_a_scalarset_or_says_why_not() {
    let run = optimist([
        "export",
        "tests/integration/inputs/export-symmetric/mutex.gc",
        "--to",
        "murphi",
        "--symmetry",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for part in [
        "T_id : scalarset(2)",
        "pc_T : array [T_id] of",
        "ruleset t : T_id do",
        "m := t;",
        "--symmetry-reduction exhaustive",
    ] {
        assert!(run.stdout.contains(part), "{part}:\n{}", run.stdout);
    }
    let refused = [
        (
            "tests/integration/inputs/export-symmetric/mutex.gc",
            "promela",
            "Promela has no scalarsets",
        ),
        ("models/barrier.gc", "murphi", "no symmetry"),
        ("models/philosophers-live.gc", "murphi", "rotations only"),
        (
            "tests/integration/inputs/export-symmetric/local-array.gc",
            "murphi",
            "a local array of the copies",
        ),
    ];
    for (file, to, why) in refused {
        let run = optimist(["export", file, "--to", to, "--symmetry"]);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{file}");
        assert!(run.stderr.contains(why), "{file}: {}", run.stderr);
        assert!(
            run.stderr.contains("keeping its symmetry"),
            "{}",
            run.stderr
        );
    }
}
