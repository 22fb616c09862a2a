//! `--hash-compact` and `--bitstate`: stores that keep less than the
//! state, and say so.

use crate::common::{expectations, json, optimist, rel, settings};

/// Every shipped model's header expectations: (file, flags, verdict, full
/// count when the header gives one).
fn headers() -> Vec<(String, Vec<String>, String, Option<u64>)> {
    let paths = crate::common::models();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        for e in expectations(&text) {
            // Headers whose flags apply to full exploration too (defines,
            // `--deadlock`); the others pick a reduction or its policies.
            let mut flags = e.flags.iter();
            let mut full_too = true;
            while let Some(f) = flags.next() {
                match f.as_str() {
                    "--no-deadlock" => {}
                    "-D" => {
                        flags.next();
                    }
                    _ => full_too = false,
                }
            }
            // A line for some reductions only is not about full exploration.
            if !full_too || e.full.is_none() {
                continue;
            }
            out.push((rel(&path), e.flags, e.verdict, e.full));
        }
    }
    out
}

#[test]
fn ample_stores_give_the_exact_counts_on_every_model() {
    let mut checked = 0;
    for (file, flags, verdict, full) in headers() {
        let mut base = vec!["check".to_string(), file.clone()];
        base.extend(["--reduction".into(), "none".into()]);
        base.extend(flags.iter().cloned());
        if !flags.iter().any(|f| f == "--symmetry") {
            base.extend(["--symmetry".into(), "off".into()]);
        }
        base.extend(["--format".into(), "json".into()]);
        let (_, exact) = json(&base);
        assert_eq!(exact["verdict"], verdict.as_str(), "{file} {flags:?}");
        if let Some(n) = full {
            assert_eq!(exact["states"], n, "{file} {flags:?}");
        }
        // `--bitstate` keeps no numbers for states, which the search for a
        // lasso needs: it refuses temporal properties (liveness.rs).
        let temporal = std::fs::read_to_string(&file).unwrap().contains("\nltl ")
            && !flags.iter().any(|f| f == "--no-ltl");
        for store in [&["--hash-compact"][..], &["--bitstate=28"][..]] {
            if temporal && store[0].starts_with("--bitstate") {
                continue;
            }
            let mut args = base.clone();
            args.extend(store.iter().map(|s| s.to_string()));
            let (run, v) = json(&args);
            let what = format!("{file} {flags:?} {store:?}");
            for field in ["verdict", "states", "transitions", "depth", "deadlocks"] {
                assert_eq!(v[field], exact[field], "{what}: {field}");
            }
            assert_eq!(v["store"]["probabilistic"], true, "{what}");
            let p = v["store"]["omission_probability"].as_f64().unwrap();
            assert!((0.0..1e-3).contains(&p), "{what}: {p}");
            // A violation is a real one: its trace is the exact store's.
            assert_eq!(v["trace"], exact["trace"], "{what}");
            assert_eq!(run.code, exit(&verdict), "{what}");
            checked += 1;
        }
    }
    assert!(checked > 60, "{checked} runs");
}

fn exit(verdict: &str) -> i32 {
    match verdict {
        "holds" => 0,
        "violated" => 1,
        _ => 3,
    }
}

#[test]
fn a_small_bit_array_misses_states_and_says_so() {
    let args = |extra: &[&str]| {
        let mut a = vec![
            "check",
            "tests/benches/lock-family.gc",
            "-D",
            "N=5",
            "-D",
            "K=2",
            "--reduction",
            "none",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let (_, exact) = json(args(&[]));
    let (run, small) = json(args(&["--bitstate=12", "--hash-functions", "2"]));
    let (n, m) = (
        exact["states"].as_u64().unwrap(),
        small["states"].as_u64().unwrap(),
    );
    assert!(m < n, "{m} of {n} states");
    assert_eq!(small["verdict"], "holds");
    assert_eq!(run.code, 0);
    let p = small["store"]["omission_probability"].as_f64().unwrap();
    assert!(p > 0.01, "{p}");
    assert_eq!(small["store"]["bits"], 4096);
    assert_eq!(small["store"]["hash_functions"], 2);
    // The text says the verdict is probabilistic.
    let text = optimist(
        args(&["--bitstate=12", "--hash-functions", "2"])
            .into_iter()
            .filter(|a| a != "--format" && a != "json"),
    );
    assert!(
        text.stdout.contains("`holds` is probabilistic"),
        "{}",
        text.stdout
    );
    // The same states for any number of threads.
    for threads in ["1", "2", "4"] {
        let (_, v) = json(args(&[
            "--bitstate=12",
            "--hash-functions",
            "2",
            "--threads",
            threads,
        ]));
        assert_eq!(v["states"], small["states"], "{threads} threads");
        assert_eq!(v["transitions"], small["transitions"], "{threads} threads");
    }
}

#[test]
fn store_text_reports() {
    let settings = settings();
    for (name, store) in [
        ("hash-compact", &["--hash-compact"][..]),
        ("bitstate", &["--bitstate=20"][..]),
    ] {
        let mut args = vec!["check", "models/counter.gc", "--reduction", "none"];
        args.extend_from_slice(store);
        let run = optimist(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        settings.bind(|| insta::assert_snapshot!(format!("store-{name}"), run.stdout));
    }
}

/// `--bitstate` takes its size only after `=`, so it may come before the
/// file, as SPIN users write it.
#[test]
fn bitstate_before_the_file() {
    let run = optimist(["check", "--bitstate", "models/counter.gc"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("store        bitstate: 1073741824 bits"),
        "{}",
        run.stdout
    );
}

#[test]
fn bad_store_flags_are_usage_errors() {
    for bad in [
        &["--bitstate=5"][..],
        &["--bitstate=41"],
        &["--hash-compact", "--bitstate"],
        &["--hash-functions", "3"],
        &["--bitstate=20", "--hash-functions", "0"],
    ] {
        let mut args = vec!["check", "models/counter.gc"];
        args.extend_from_slice(bad);
        let run = optimist(&args);
        assert_eq!(run.code, 2, "{bad:?}: {}{}", run.stdout, run.stderr);
    }
}

#[test]
fn a_bit_array_over_the_memory_limit_ends_the_run_at_once() {
    let run = optimist([
        "check",
        "models/counter.gc",
        "--bitstate=30",
        "--max-memory",
        "64",
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("memory limit of 64 MB"),
        "{}",
        run.stdout
    );
}
