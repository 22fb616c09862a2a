//! Every model in `models/`: its header's expectations hold, and its outputs
//! are pinned by snapshots.

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
    let run = optimist(&args);
    assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{file}: {e}\n{}", run.stdout));
    let expected_code = match v["verdict"].as_str() {
        Some("holds") => 0,
        Some("violated") => 1,
        _ => 3,
    };
    assert_eq!(run.code, expected_code, "{file}: exit code");
    v
}

#[test]
fn headers_hold() {
    insta::glob!("../../models", "**/*.gc", |path| {
        let file = rel(path);
        let text = std::fs::read_to_string(path).unwrap();
        let expects = expectations(&text);
        assert!(!expects.is_empty(), "{file} has no `// expect:` header");
        for e in expects {
            for (mode, count) in [("none", e.full)] {
                let Some(count) = count else { continue };
                let v = check_json(&file, mode, &e.flags);
                assert_eq!(
                    v["verdict"],
                    e.verdict.as_str(),
                    "{file} {:?} ({mode})",
                    e.flags
                );
                assert_eq!(v["states"], count, "{file} {:?}: states ({mode})", e.flags);
                match &e.kind {
                    Some(k) => {
                        assert_eq!(v["violation"]["kind"], k.as_str(), "{file}: kind ({mode})")
                    }
                    None => assert!(
                        v["violation"].is_null(),
                        "{file}: unexpected violation ({mode})"
                    ),
                }
            }
        }
    });
}

#[test]
fn check_outputs() {
    settings().bind(|| {
        insta::glob!("../../models", "**/*.gc", |path| {
            let file = rel(path);
            let text = optimist(["check", &file, "--reduction", "none"]);
            insta::assert_snapshot!("check_none", text.stdout);
            let json = optimist(["check", &file, "--reduction", "none", "--format", "json"]);
            insta::assert_snapshot!("check_none_json", json.stdout);
        });
    });
}
