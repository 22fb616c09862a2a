//! The language's conveniences: declaration lists, `thread
//! NAME[n]`, thread names as constants. Each must mean exactly what the
//! longhand means, so the tests compare state counts with the longhand.

use crate::common::{json, optimist};

fn counts(file: &str, reduction: &str) -> (String, u64, u64) {
    // Every state: the copies are symmetric, the longhand is not.
    let (run, v) = json([
        "check",
        file,
        "--reduction",
        reduction,
        "--symmetry",
        "off",
        "--format",
        "json",
    ]);
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
/// mode; with `--no-deadlock` the verdict stays `holds`, and by default the
/// release that waits for good is a deadlock that says why.
#[test]
fn lock_misuses_are_warnings() {
    let file = "tests/integration/inputs/lang/lock-misuse.gc";
    for mode in ["none", "sc", "stubborn", "sc+stubborn"] {
        let (run, v) = json(["check", file, "--reduction", mode, "--format", "json"]);
        assert_eq!(run.code, 1, "{mode}: {}", run.stderr);
        let blocked = &v["violation"]["deadlock"]["blocked"][0];
        assert_eq!(blocked["thread"], "b", "{mode}: {v}");
        assert_eq!(blocked["waits"][0]["lock"], "m", "{mode}: {v}");
        assert_eq!(v["violation"]["deadlock"]["ended"][0], "a", "{mode}: {v}");
        let (run, v) = json([
            "check",
            file,
            "--reduction",
            mode,
            "--format",
            "json",
            "--no-deadlock",
        ]);
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

/// Every example of the language reference (`docs/src/language.md`, the
/// blocks fenced as `gcl`) compiles and classifies, and every `gcl,error`
/// block is rejected: the reference cannot drift from the language.
#[test]
fn the_reference_examples_compile() {
    let text = std::fs::read_to_string("docs/src/language.md").unwrap();
    let dir = std::env::temp_dir().join(format!("optimist-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut n, mut bad) = (0, 0);
    let mut block: Option<(String, bool)> = None;
    for line in text.lines() {
        match (&mut block, line) {
            (None, "```gcl") => block = Some((String::new(), false)),
            (None, "```gcl,error") => block = Some((String::new(), true)),
            (Some((b, error)), "```") => {
                let file = dir.join(format!("example{}.gc", n + bad));
                std::fs::write(&file, &b).unwrap();
                let run = optimist(["classify", file.to_str().unwrap()]);
                if *error {
                    assert_eq!(run.code, 2, "a gcl,error block is accepted:\n{b}");
                    bad += 1;
                } else {
                    // `classify` exits 3 where every reduction refuses the
                    // model (a rendezvous, `timeout`).
                    let (_, model) = optimist::load(&file, &[])
                        .unwrap_or_else(|e| panic!("example {n}:\n{b}\n{e}"));
                    let code = match optimist::reductions_refusal(&model) {
                        Some(_) => 3,
                        None => 0,
                    };
                    assert_eq!(run.code, code, "example {n}:\n{b}\n{}", run.stderr);
                    n += 1;
                }
                block = None;
            }
            (Some((b, _)), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(n >= 5, "{n} examples");
    assert!(bad >= 1, "{bad} rejected examples");
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

/// `t.r` with a thread known only at run time (a lock's owner, a
/// quantified thread) explores what the same predicates written out
/// thread by thread explore, in every mode: a write to a local that may
/// change another thread's predicate is visible either way.
#[test]
fn run_time_thread_locals_are_their_longhand() {
    for mode in ["none", "sc", "movers", "stubborn", "sc+stubborn"] {
        let short = counts("tests/integration/inputs/lang/local-of-runtime.gc", mode);
        assert_eq!(short.0, "\"holds\"", "--reduction {mode}");
        assert_eq!(
            short,
            counts(
                "tests/integration/inputs/lang/local-of-runtime-longhand.gc",
                mode
            ),
            "--reduction {mode}"
        );
    }
    // The reduction stops at the writes of `busy`, which the predicates read.
    let (run, v) = json([
        "classify",
        "tests/integration/inputs/lang/local-of-runtime.gc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let busy: Vec<&serde_json::Value> = v["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["statement"].as_str().unwrap().starts_with("busy :="))
        .collect();
    assert_eq!(busy.len(), 6, "{v}");
    for t in busy {
        assert_eq!(t["visible"], true, "{t}");
        assert!(
            t["reason"].as_str().unwrap().contains("may change excl("),
            "{t}"
        );
    }
}

/// `(m).r` while m's owner has no local r faults like an index out of
/// range: a `range` violation naming the thread and the local, in every
/// mode.
#[test]
fn a_thread_without_the_local_faults() {
    for mode in ["none", "sc", "stubborn", "sc+stubborn", "movers"] {
        let (run, v) = json([
            "check",
            "tests/integration/inputs/lang/local-of-missing.gc",
            "--reduction",
            mode,
            "--format",
            "json",
        ]);
        assert_eq!(run.code, 1, "--reduction {mode}: {}", run.stderr);
        assert_eq!(v["violation"]["kind"], "range", "{v}");
        let message = v["violation"]["message"].as_str().unwrap();
        assert!(
            message.contains("reads b.busy, but thread b has no local busy"),
            "--reduction {mode}: {message}"
        );
    }
}

/// A procedure called by the copies of `thread w[n]` reads the caller's
/// `index` (the model asserts it), in every mode.
#[test]
fn procedures_see_the_callers_index() {
    for mode in ["none", "sc", "movers", "stubborn", "sc+stubborn"] {
        let (verdict, _, _) = counts("tests/integration/inputs/lang/proc-index.gc", mode);
        assert_eq!(verdict, "\"holds\"", "--reduction {mode}");
    }
}
