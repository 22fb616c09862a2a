//! Bad input: every file in `inputs/errors` is rejected with exit code 2 and
//! a located, rendered diagnostic, never a panic.

use crate::common::{optimist, rel, settings};

#[test]
fn bad_inputs_are_reported_with_a_location() {
    settings().bind(|| {
        insta::glob!("inputs/errors", "*.gc", |path| {
            let file = rel(path);
            let run = optimist(["check", &file]);
            assert_eq!(run.code, 2, "{file}: {}", run.stderr);
            assert!(run.stdout.is_empty(), "{file}: nothing on stdout");
            assert!(!run.stderr.contains("panicked"), "{file}: {}", run.stderr);
            let name = path.file_name().unwrap().to_string_lossy();
            // Every error names the file; those with a place name line and column.
            assert!(run.stderr.contains(&file), "{file}: {}", run.stderr);
            if !["empty.gc", "no-threads.gc"].contains(&name.as_ref()) {
                let located = regex_like_location(&run.stderr, &file);
                assert!(located, "{file}: no file:line:col in\n{}", run.stderr);
            }
            insta::assert_snapshot!("error", run.stderr);
        });
    });
}

/// True when `text` contains `file:LINE:COL`.
fn regex_like_location(text: &str, file: &str) -> bool {
    text.match_indices(&format!("{file}:")).any(|(i, m)| {
        let rest = &text[i + m.len()..];
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().unwrap_or("");
        let col: String = parts
            .next()
            .unwrap_or("")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) && !col.is_empty()
    })
}

#[test]
fn deeply_nested_input_is_an_error_not_a_crash() {
    let dir = std::env::temp_dir().join(format!("optimist-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "parens.gc",
            format!(
                "threads 1;\nshared x : 0..1 = {}0{};\nthread T {{ skip; }}\n",
                "(".repeat(20_000),
                ")".repeat(20_000)
            ),
        ),
        (
            "chain.gc",
            format!(
                "threads 1;\nshared x : 0..1 = 0;\nthread T {{ x := 0{}; }}\n",
                " + 0".repeat(20_000)
            ),
        ),
        (
            "blocks.gc",
            format!(
                "threads 1;\nthread T {{ {} skip; {} }}\n",
                "while true { ".repeat(20_000),
                "}".repeat(20_000)
            ),
        ),
        (
            "unary.gc",
            format!(
                "threads 1;\nshared b : bool = {}true;\nthread T {{ skip; }}\n",
                "!".repeat(20_000)
            ),
        ),
    ];
    for (name, text) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let run = optimist([std::ffi::OsStr::new("check"), path.as_os_str()]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert!(run.stderr.contains("deeper than"), "{name}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn missing_file() {
    let run = optimist(["check", "models/no-such-model.gc"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("cannot read models/no-such-model.gc: no such file"),
        "{}",
        run.stderr
    );
}
