//! `--threads`: the same output, byte for byte, for every number of
//! worker threads, on every shipped model in every mode.

use std::process::Command;

use crate::common::{Run, expectations, rel};

/// `optimist args...` with blocks of `block` states (the environment knob
/// for tests: blocks of one state give tiny models every worker).
fn run(args: &[String], block: usize) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("OPTIMIST_BLOCK", block.to_string())
        .output()
        .expect("the binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The output without its wall-clock time, the one thing that may differ.
fn untimed(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("time ") && !l.trim_start().starts_with("\"elapsed_ms\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `args` with 1 and 3 threads, text and JSON, and compares. Three
/// workers on blocks of one state share every level unevenly, which is
/// where an order could depend on the workers (two threads are compared
/// with one in the differential and grammar tests; a third count here
/// cost a third of the suite's longest test).
fn same_for_every_thread_count(args: &[String], block: usize) -> Run {
    same_in(&["text", "json"], args, block)
}

/// [`same_for_every_thread_count`] in the given formats only.
fn same_in(formats: &[&str], args: &[String], block: usize) -> Run {
    let mut first: Option<Run> = None;
    for &format in formats {
        let mut base: Option<(i32, String)> = None;
        for threads in [1, 3] {
            let mut a = args.to_vec();
            a.extend(["--format".into(), format.into()]);
            a.extend(["--threads".into(), threads.to_string()]);
            let r = run(&a, block);
            let got = (r.code, untimed(&r.stdout));
            match &base {
                None => base = Some(got),
                Some(b) => assert_eq!(
                    b, &got,
                    "{args:?} --format {format}: --threads {threads} differs from --threads 1"
                ),
            }
            if first.is_none() {
                first = Some(r);
            }
        }
    }
    first.expect("ran")
}

#[test]
fn every_model_every_mode_every_thread_count() {
    let mut runs = 0;
    let mut violations = 0;
    let paths = crate::common::models();
    for path in paths {
        let file = rel(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        // The flags of the model's headers (deadlock, ignoring policies,
        // summaries, defines), each set once, and none.
        let mut flag_sets: Vec<Vec<String>> = vec![Vec::new()];
        for e in expectations(&text) {
            let mut flags = e.flags.clone();
            if let Some(k) = flags.iter().position(|f| f == "--reduction") {
                flags.drain(k..k + 2);
            }
            if !flag_sets.contains(&flags) {
                flag_sets.push(flags);
            }
        }
        for flags in &flag_sets {
            for mode in [
                "none",
                "sc",
                "movers",
                "stubborn",
                "sc+stubborn",
                "movers+stubborn",
            ] {
                let mut args = vec!["check".to_string(), file.clone()];
                args.extend(["--reduction".into(), mode.into()]);
                args.extend(flags.iter().cloned());
                // JSON only: it carries everything the text says (the text
                // is rendered from the same report), and the sweep over
                // every model and mode is the suite's longest test; the
                // text is compared in the tests below.
                let r = same_in(&["json"], &args, 1);
                runs += 1;
                violations += usize::from(r.code == 1);
            }
        }
    }
    // The comparison saw real work: many runs, counterexamples among them.
    assert!(runs > 100, "{runs} runs");
    assert!(violations > 20, "{violations} violations");
}

#[test]
fn a_larger_model_with_the_default_blocks() {
    // Levels of thousands of states: several blocks, every worker busy.
    for mode in ["none", "sc", "stubborn"] {
        let args: Vec<String> = [
            "check",
            "tests/benches/lock-family.gc",
            "-D",
            "N=5",
            "-D",
            "K=2",
            "--reduction",
            mode,
        ]
        .map(String::from)
        .to_vec();
        let r = same_for_every_thread_count(&args, 0);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
}

#[test]
fn temporal_properties_give_the_same_graph_and_lasso_on_every_thread_count() {
    // The graph of `ltl` properties is built by every worker: blocks of
    // one state share each level among three, and each edge's target is
    // numbered afterwards. Every shipped model with `ltl` properties, under
    // each fairness, exact and with fingerprints, and the peterson family
    // at a size with levels of many blocks.
    let mut lassos = 0;
    for path in crate::common::models() {
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.contains("\nltl ") {
            continue;
        }
        let file = rel(&path);
        for fairness in ["none", "weak", "strong"] {
            for store in [None, Some("--hash-compact")] {
                let mut args = vec!["check".to_string(), file.clone()];
                args.extend(["--fairness".into(), fairness.into()]);
                args.extend(["--no-deadlock".into()]);
                args.extend(store.map(String::from));
                let r = same_for_every_thread_count(&args, 1);
                lassos += usize::from(r.stdout.contains("lasso ("));
            }
        }
    }
    assert!(lassos >= 10, "{lassos} lassos");
    let args: Vec<String> = [
        "check",
        "models/peterson-live.gc",
        "-D",
        "K=20",
        "--fairness",
        "weak",
    ]
    .map(String::from)
    .to_vec();
    let r = same_for_every_thread_count(&args, 0);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn the_state_limit_cuts_at_the_same_state() {
    // The state limit is met inside a level; which states are kept, and
    // the counts reported, follow the sequential order.
    for (mode, block) in [("none", 0), ("sc", 0), ("none", 1), ("stubborn", 3)] {
        let args: Vec<String> = [
            "check",
            "tests/benches/lock-family.gc",
            "-D",
            "N=5",
            "-D",
            "K=2",
            "--symmetry",
            "off",
            "--reduction",
            mode,
            "--max-states",
            "1000",
        ]
        .map(String::from)
        .to_vec();
        let r = same_for_every_thread_count(&args, block);
        assert_eq!(r.code, 3, "{}", r.stdout);
        assert!(r.stdout.contains("states       1000"), "{}", r.stdout);
    }
}

#[test]
fn a_state_with_more_successors_than_a_batch() {
    // 8,190 successors of one state are looked up in several batches; the
    // state limit then cuts the next level at the same state.
    let args: Vec<String> = [
        "check",
        "tests/integration/inputs/threads/wide.gc",
        "--reduction",
        "none",
        "--max-states",
        "10000",
    ]
    .map(String::from)
    .to_vec();
    let r = same_for_every_thread_count(&args, 0);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(r.stdout.contains("states       10000"), "{}", r.stdout);
    // The cut is in the second level: all 8,190 successors of the
    // initial state were looked up before it.
    assert!(r.stdout.contains("depth        2"), "{}", r.stdout);
}

#[test]
fn summaries_give_the_same_output_from_run_to_run() {
    // Summaries are a cache whose maps iterate in an order that differs
    // from process to process; what a run reports must not follow it. The
    // soundness regressions with procedures, each under both kinds of
    // summaries, as separate processes with 1, 2 and 4 threads.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/inputs/soundness");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gc"))
        .filter(|p| std::fs::read_to_string(p).unwrap().contains("--summaries"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for path in files {
        let file = rel(&path);
        for flags in [
            &["--reduction", "sc", "--summaries", "--deadlock"][..],
            &[
                "--reduction",
                "movers",
                "--summaries",
                "--summaries-per-thread",
            ],
        ] {
            let mut args = vec![
                "check".to_string(),
                file.clone(),
                "--max-stack".into(),
                "4".into(),
            ];
            args.extend(flags.iter().map(|f| f.to_string()));
            same_for_every_thread_count(&args, 1);
        }
    }
}

/// `--stats`: a level per depth and the empty last one, whose expanded
/// states add up to the stored states; a row per worker; and the verdict
/// and counts of the run without it.
#[test]
fn stats_account_for_every_level_and_worker() {
    for threads in ["1", "2"] {
        let args = |extra: &[&str]| -> Vec<String> {
            let mut a: Vec<String> = ["check", "models/counter.gc", "--threads", threads]
                .map(String::from)
                .to_vec();
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        let json = run(&args(&["--stats", "--format", "json"]), 4);
        assert_eq!(json.code, 0, "{}", json.stderr);
        let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        let stats = &v["stats"];
        let levels = stats["levels"].as_array().unwrap();
        let count: u64 = levels.iter().map(|l| l["count"].as_u64().unwrap()).sum();
        assert_eq!(count, v["depth"].as_u64().unwrap() + 1);
        let expanded: u64 = levels.iter().map(|l| l["states"].as_u64().unwrap()).sum();
        assert_eq!(expanded, v["states"].as_u64().unwrap());
        let n: usize = threads.parse().unwrap();
        assert_eq!(stats["workers"].as_array().unwrap().len(), n);
        assert!(
            levels
                .iter()
                .all(|l| l["workers"].as_array().unwrap().len() == n)
        );
        let f = stats["serial_fraction"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f), "{f}");
        let text = run(&args(&["--stats"]), 4);
        assert!(text.stdout.contains("serial fraction"), "{}", text.stdout);
        let plain = run(&args(&[]), 4);
        assert_eq!(
            untimed(&plain.stdout),
            untimed(text.stdout.split("\nsearch ").next().unwrap())
        );
    }
}
