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

/// Runs `optimist check NAME` in `dir`, so that messages show just `NAME`.
fn check_in(dir: &std::path::Path, name: &str) -> crate::common::Run {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(["check", name])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    crate::common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Bad inputs too big to commit, built here: nesting 100,000 deep in every
/// form that nests, and errors past column 65,535. Each is rejected with a
/// located, rendered message (the snippet cut to a window around the
/// caret), never a crash.
#[test]
fn generated_bad_inputs_are_reported_with_a_location() {
    const D: usize = 100_000;
    let deep =
        |open: &str, mid: &str, close: &str| format!("{}{mid}{}", open.repeat(D), close.repeat(D));
    let body = |stmts: String| {
        format!("threads 1;\nshared a[2] : 0..1 = 0;\nthread T {{\n  L: {stmts}\n}}\n")
    };
    let wide = " ".repeat(D);
    let cases = [
        (
            "deep-parentheses",
            body(format!("a[0] := {};", deep("(", "0", ")"))),
        ),
        (
            "deep-negation",
            body(format!("a[0] := {}0;", "-".repeat(D))),
        ),
        ("deep-not", body(format!("await {}true;", "!".repeat(D)))),
        (
            "deep-index",
            body(format!("a[0] := {};", deep("a[", "0", "]"))),
        ),
        (
            "deep-index-target",
            body(format!("a[{}] := 0;", deep("a[", "0", "]"))),
        ),
        (
            "deep-at",
            body(format!("await {};", deep("at(", "0", ", L)"))),
        ),
        (
            "deep-init",
            body(format!("await {};", deep("init(", "0", ", a)"))),
        ),
        (
            "deep-exists",
            body(format!("await {}true;", "exists i in 0..1: ".repeat(D))),
        ),
        (
            "deep-quantifier-bound",
            body(format!(
                "await forall i in 0..{}: true;",
                deep("a[", "0", "]")
            )),
        ),
        (
            "deep-operators",
            body(format!("a[0] := 0{};", " + 0".repeat(D))),
        ),
        (
            "deep-operands",
            body(format!("a[0] := {};", deep("0 + (0 * ", "0", ")"))),
        ),
        ("deep-while", body(deep("while true { ", "skip;", " }"))),
        ("deep-if", body(deep("if true { ", "skip;", " }"))),
        (
            "deep-else-if",
            body(format!(
                "if true {{ skip; }}{}",
                " else if true { skip; }".repeat(D)
            )),
        ),
        ("deep-either", body(deep("either { ", "skip;", " }"))),
        ("deep-atomic", body(deep("atomic { ", "skip;", " }"))),
        ("deep-repeat", body(deep("repeat 1 { ", "skip;", " }"))),
        ("deep-init-block", body(deep("init a { ", "skip;", " }"))),
        ("wide-unknown-name", body(format!("{wide}cuont := 1;"))),
        (
            "wide-duplicate",
            format!(
                "threads 1;\nshared x : 0..1 = 0;{wide}shared x : 0..1 = 0;\nthread T {{ skip; }}\n"
            ),
        ),
        (
            "wide-syntax-at-end",
            format!("threads 1;\nthread T {{ skip;{wide}"),
        ),
        ("long-name", body(format!("{} := 1;", "n".repeat(D)))),
        ("long-token", body(format!("skip {};", "n".repeat(D)))),
    ];
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("errors-generated");
    std::fs::create_dir_all(&dir).unwrap();
    settings().bind(|| {
        for (name, text) in cases {
            let file = format!("{name}.gc");
            std::fs::write(dir.join(&file), text).unwrap();
            let run = check_in(&dir, &file);
            assert_eq!(run.code, 2, "{file}: {}", run.stderr);
            assert!(!run.stderr.contains("panicked"), "{file}: {}", run.stderr);
            assert!(
                regex_like_location(&run.stderr, &file),
                "{file}: {}",
                run.stderr
            );
            // The snippet shows a window of a long line, not all of it.
            assert!(
                run.stderr.len() < 3_000,
                "{file}: {} bytes",
                run.stderr.len()
            );
            insta::assert_snapshot!(format!("generated-{name}"), run.stderr);
        }
    });
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

#[path = "../benches/generated.rs"]
mod generated;

/// The other side of the bounds: big legal inputs compile and classify.
/// (How fast is for `cargo bench --bench frontend`; here only that they
/// are accepted, and what they compile to.)
#[test]
fn large_legal_inputs_are_accepted() {
    let cases = [
        ("scaling-50000", generated::scaling_model(50_000)),
        ("big-array", generated::big_array_model()),
        ("many-threads", generated::many_threads_model()),
    ];
    for (name, text) in cases {
        let src = optimist::Source::new(format!("{name}.gc"), text).unwrap();
        let model = optimist::compile(&src, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let class = optimist::classify(&model);
        assert_eq!(class.transitions.len(), model.transitions.len(), "{name}");
        match name {
            "scaling-50000" => {
                assert!(src.text.lines().count() >= 49_900, "{name}");
                assert_eq!(model.thread_count(), 8);
            }
            "big-array" => assert_eq!(model.protected.len(), 65_536),
            _ => assert_eq!(model.thread_count(), 1_000),
        }
    }
}

/// A character most editors do not show (a NUL byte, a zero-width space, a
/// byte-order mark past the start, a non-breaking space, a control
/// character) is named with its code point, at its line and column, with
/// the line and a caret; a byte-order mark that begins the file is skipped.
#[test]
fn invisible_characters_are_named() {
    let dir = crate::tools::scratch("errors-invisible");
    let model = |body: &str| format!("threads 1;\nshared x : 0..1 = 0;\nthread T {{\n{body}\n}}\n");
    let cases = [
        ("nul", model("  x := 1;\0"), "4:10", "NUL byte (U+0000)"),
        (
            "zero-width",
            model("  \u{200b}x := 1;"),
            "4:3",
            "zero-width space (U+200B)",
        ),
        (
            "bom-inside",
            model("  x := \u{feff}1;"),
            "4:8",
            "byte-order mark (U+FEFF)",
        ),
        (
            "no-break",
            model("  x :=\u{a0}1;"),
            "4:7",
            "non-breaking space (U+00A0)",
        ),
        (
            "control",
            model("\u{1}  x := 1;"),
            "4:1",
            "control character (U+0001)",
        ),
    ];
    for (name, text, at, what) in cases {
        let file = format!("{name}.gc");
        std::fs::write(dir.join(&file), &text).unwrap();
        let run = check_in(&dir, &file);
        assert_eq!(run.code, 2, "{file}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{file}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("{file}:{at}: unexpected {what}")),
            "{file}: {}",
            run.stderr
        );
        // The source line, and a caret under it.
        let line: usize = at.split(':').next().unwrap().parse().unwrap();
        let source = text.lines().nth(line - 1).unwrap();
        let shown = run
            .stderr
            .lines()
            .position(|l| l.starts_with(&format!(" {line} | ")))
            .unwrap_or_else(|| panic!("{file}: no source line in {}", run.stderr));
        let visible: String = source.chars().filter(|c| c.is_ascii_graphic()).collect();
        let rendered: String = run.stderr.lines().nth(shown).unwrap()[5..]
            .chars()
            .filter(|c| c.is_ascii_graphic())
            .collect();
        assert_eq!(rendered, visible, "{file}: {}", run.stderr);
        assert!(
            run.stderr
                .lines()
                .nth(shown + 2)
                .unwrap()
                .contains("`-- here"),
            "{file}: {}",
            run.stderr
        );
    }
    // A byte-order mark that begins the file, as some editors write it,
    // is no error: the model checks as it does without one.
    let plain = model("  x := 1;");
    std::fs::write(dir.join("plain.gc"), &plain).unwrap();
    std::fs::write(dir.join("bom.gc"), format!("\u{feff}{plain}")).unwrap();
    let (with, without) = (check_in(&dir, "bom.gc"), check_in(&dir, "plain.gc"));
    assert_eq!(with.code, 0, "{}", with.stderr);
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("model") && !l.starts_with("time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&with.stdout), strip(&without.stdout));
    // Its columns are the editor's, which does not show it.
    std::fs::write(
        dir.join("bom-bad.gc"),
        "\u{feff}threads 1;\nthread T { x := ; }\n",
    )
    .unwrap();
    let bad = check_in(&dir, "bom-bad.gc");
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("bom-bad.gc:2:17:"), "{}", bad.stderr);
}

/// A misspelt keyword is named with the keyword meant, at the misspelt
/// word: `file:line:col` is the word's, and the caret is under it.
#[test]
fn misspelt_keywords_are_suggested() {
    let cases = [
        (
            "syntax-misspelt-assert",
            "6:3",
            "statement `asert`",
            "assert",
        ),
        (
            "syntax-misspelt-acquire",
            "6:3",
            "statement `aquire`",
            "acquire",
        ),
        (
            "syntax-misspelt-acquire-swapped",
            "6:3",
            "statement `acquier`",
            "acquire",
        ),
        (
            "syntax-misspelt-release",
            "8:3",
            "statement `relase`",
            "release",
        ),
        ("syntax-misspelt-while", "6:3", "statement `whle`", "while"),
        (
            "syntax-misspelt-thread",
            "7:1",
            "declaration `thred`",
            "thread",
        ),
        (
            "syntax-misspelt-shared",
            "3:1",
            "declaration `sharde`",
            "shared",
        ),
        (
            "syntax-misspelt-protected",
            "4:1",
            "declaration `protcted`",
            "protected",
        ),
        (
            "syntax-misspelt-invariant",
            "4:1",
            "declaration `invarient`",
            "invariant",
        ),
    ];
    for (name, at, what, keyword) in cases {
        let file = format!("tests/integration/inputs/errors/{name}.gc");
        let run = optimist(["check", &file]);
        assert_eq!(run.code, 2, "{file}: {}", run.stderr);
        // The renderer may wrap the message: join its lines first.
        let text = run.stderr.replace("\n  | ", " ");
        assert!(
            text.contains(&format!(
                "{file}:{at}: unknown {what}; did you mean `{keyword}`?"
            )),
            "{file}: {}",
            run.stderr
        );
    }
}
