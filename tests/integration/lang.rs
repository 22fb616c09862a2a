//! The language's conveniences (issue 17): declaration lists, `thread
//! NAME[n]`, thread names as constants. Each must mean exactly what the
//! longhand means, so the tests compare state counts with the longhand.

use crate::common::{json, optimist};

fn counts(file: &str, reduction: &str) -> (String, u64, u64) {
    let (run, v) = json(["check", file, "--reduction", reduction, "--format", "json"]);
    assert!(run.code == 0 || run.code == 1, "{file}: {}", run.stderr);
    (
        v["verdict"].to_string(),
        v["states"].as_u64().unwrap(),
        v["transitions"].as_u64().unwrap(),
    )
}

/// `thread reader[2]` with `index`, declaration lists, `else if` and
/// optional `;` before `}` explore what the copy-pasted model explores,
/// in every mode.
#[test]
fn copies_and_lists_are_their_longhand() {
    for mode in ["none", "sc", "movers", "stubborn", "sc+stubborn"] {
        assert_eq!(
            counts("tests/integration/inputs/lang/copies.gc", mode),
            counts("tests/integration/inputs/lang/copies-pasted.gc", mode),
            "--reduction {mode}"
        );
    }
}

/// Copies are numbered in declaration order and named as reports print
/// them: `reader0`, `reader1`, then `writer`.
#[test]
fn copies_are_named_and_numbered_in_declaration_order() {
    let run = optimist([
        "classify",
        "tests/integration/inputs/lang/copies.gc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let a = run.stdout.find("\"reader0\"").expect("reader0");
    let b = run.stdout.find("\"reader1\"").expect("reader1");
    let c = run.stdout.find("\"writer\"").expect("writer");
    assert!(a < b && b < c, "{}", run.stdout);
}

/// Under `threads N`, the names `T0` .. `T{N-1}` that traces print are
/// constants of the model.
#[test]
fn thread_names_under_threads_n_are_constants() {
    let src = "threads 3;\nshared x : 0..3 = 0;\nthread T {\n  if self == T2 { x := T1 }\n  assert T0 == 0 && T2 == 2\n}\n";
    let dir = std::env::temp_dir().join(format!("optimist-lang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("names.gc");
    std::fs::write(&file, src).unwrap();
    let run = optimist(["check", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let bad = dir.join("bad.gc");
    std::fs::write(&bad, "threads 2;\nthread T {\n  assert T2 == 2;\n}\n").unwrap();
    let run = optimist(["check", bad.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown name `T2`"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).ok();
}

/// A thread that ends holding a lock, and a `release` by a thread that does
/// not hold the lock, are warnings in the report, text and JSON, in every
/// mode; the verdict stays `holds`.
#[test]
fn lock_misuses_are_warnings() {
    let file = "tests/integration/inputs/lang/lock-misuse.gc";
    for mode in ["none", "sc", "stubborn", "sc+stubborn"] {
        let (run, v) = json(["check", file, "--reduction", mode, "--format", "json"]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        let kinds: Vec<&str> = v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .map(|w| w["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"ended-holding-lock"), "{mode}: {v}");
        assert!(kinds.contains(&"release-not-owner"), "{mode}: {v}");
    }
    let run = optimist(["check", file, "--reduction", "none"]);
    assert!(
        run.stdout
            .contains("warning      ended-holding-lock: 1 state, first: a ended holding m"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("b waits at `release m` (line 8), a lock it does not hold"),
        "{}",
        run.stdout
    );
    // A model without misuses has no `warnings` in its JSON.
    let (_, v) = json(["check", "models/barrier.gc", "--format", "json"]);
    assert!(v.get("warnings").is_none(), "{v}");
}

/// Every example of the language reference compiles: the reference cannot
/// drift from the language.
#[test]
fn the_reference_examples_compile() {
    let text = std::fs::read_to_string("src/syntax/README.md").unwrap();
    let dir = std::env::temp_dir().join(format!("optimist-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut n = 0;
    let mut block: Option<String> = None;
    let mut other = false;
    for line in text.lines() {
        // Blocks tagged with a language (the grammar) are not models.
        if other || (block.is_none() && line.starts_with("```") && line != "```") {
            other = other != (line.starts_with("```"));
            continue;
        }
        match (&mut block, line) {
            (None, "```") => block = Some(String::new()),
            (Some(b), "```") => {
                let file = dir.join(format!("example{n}.gc"));
                std::fs::write(&file, &b).unwrap();
                let run = optimist(["classify", file.to_str().unwrap()]);
                assert_eq!(run.code, 0, "example {n}:\n{b}\n{}", run.stderr);
                n += 1;
                block = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(n >= 5, "{n} examples");
    std::fs::remove_dir_all(&dir).ok();
}

/// A copy's locals may start at `index`, and `index` is each copy's number.
#[test]
fn locals_of_copies_may_start_at_index() {
    let dir = std::env::temp_dir().join(format!("optimist-index-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("index.gc");
    std::fs::write(
        &file,
        "shared sum : 0..3 = 0;\nthread r[3] {\n  local k : 0..2 = index;\n  assert k == index && self == index;\n  atomic { sum := sum + k; }\n}\nthread last {\n  await sum == 3;\n  assert self == 3 && r2 == 2;\n}\n",
    )
    .unwrap();
    let run = optimist(["check", file.to_str().unwrap(), "--reduction", "none"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    std::fs::remove_dir_all(&dir).ok();
}
