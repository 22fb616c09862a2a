//! Command-line behaviour: exit codes, limits, JSON, `-D`.

use serde_json::Value;

use crate::common::optimist;

fn json(args: &[&str]) -> (i32, Value) {
    let (run, v) = crate::common::json(args);
    (run.code, v)
}

#[test]
fn exit_codes_follow_the_verdict() {
    assert_eq!(
        optimist(["check", "models/barrier.gc", "--reduction", "none"]).code,
        0
    );
    assert_eq!(
        optimist(["check", "models/racy-counter.gc", "--reduction", "none"]).code,
        1
    );
    assert_eq!(
        optimist([
            "check",
            "models/deadlock.gc",
            "--reduction",
            "none",
            "--deadlock"
        ])
        .code,
        1
    );
    assert_eq!(
        optimist(["check", "models/barrier.gc", "--no-such-flag"]).code,
        2
    );
    assert_eq!(optimist(["check"]).code, 2);
    assert_eq!(optimist(["--help"]).code, 0);
}

#[test]
fn state_limit_ends_the_run_with_partial_statistics() {
    let (code, v) = json(&[
        "check",
        "models/counter.gc",
        "--reduction",
        "none",
        "--max-states",
        "1000",
        "--format",
        "json",
    ]);
    assert_eq!(code, 3);
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(v["states"], 1000);
    assert!(v["transitions"].as_u64().unwrap() >= 999);
    assert!(v["limit"].as_str().unwrap().contains("state limit of 1000"));
    assert!(v["violation"].is_null());
}

#[test]
fn time_and_memory_limits_end_the_run() {
    let (code, v) = json(&[
        "check",
        "models/counter.gc",
        "--reduction",
        "none",
        "--max-time",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (3, Some("inconclusive")));
    assert!(v["limit"].as_str().unwrap().contains("time limit"));
    let (code, v) = json(&[
        "check",
        "models/counter.gc",
        "--reduction",
        "none",
        "--max-memory",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (3, Some("inconclusive")));
    assert!(v["limit"].as_str().unwrap().contains("memory limit"));
}

#[test]
fn a_violation_carries_its_trace_in_json() {
    let (code, v) = json(&[
        "check",
        "models/racy-counter.gc",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(v["violation"]["kind"], "assertion");
    assert_eq!(v["violation"]["thread"], "T0");
    let trace = v["trace"].as_array().unwrap();
    assert_eq!(
        trace.len(),
        8,
        "the shortest lost update takes 8 transitions"
    );
    for (k, step) in trace.iter().enumerate() {
        assert_eq!(step["step"], k + 1);
        for field in ["thread", "line", "statement", "state"] {
            assert!(step.get(field).is_some(), "{field} missing in {step}");
        }
    }
    assert!(
        trace.last().unwrap()["state"].is_null(),
        "a failing assertion does not complete"
    );
    assert_eq!(trace[2]["state"]["c"], 1);
}

#[test]
fn defines_override_constants() {
    let (_, small) = json(&[
        "check",
        "models/philosophers.gc",
        "--reduction",
        "none",
        "--format",
        "json",
        "-D",
        "N=2",
    ]);
    let (_, big) = json(&[
        "check",
        "models/philosophers.gc",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    assert!(small["states"].as_u64() < big["states"].as_u64());
    let run = optimist(["check", "models/philosophers.gc", "-D", "M=2"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("declares no constant `M`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("its constants are: N"),
        "{}",
        run.stderr
    );
    let run = optimist(["check", "models/philosophers.gc", "-D", "N=many"]);
    assert_eq!(run.code, 2);
    let run = optimist(["check", "models/philosophers.gc", "-D", "N"]);
    assert_eq!(run.code, 2);
}

#[test]
fn output_is_deterministic() {
    let a = optimist([
        "check",
        "models/prodcons.gc",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    let b = optimist([
        "check",
        "models/prodcons.gc",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("elapsed_ms"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&a.stdout), strip(&b.stdout));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // A counterexample of 3,000 steps: its JSON is far larger than a pipe's
    // buffer, so the writer meets the closed pipe.
    let dir = std::env::temp_dir().join(format!("optimist-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("long.gc");
    std::fs::write(&model, "threads 1;\nshared c : 0..3000 = 0;\nthread T {\n  repeat 3000 { c := c + 1; }\n  assert c == 0;\n}\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(["check", model.to_str().unwrap(), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close our end, as `| head -c 1` would.
    let mut one = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut one).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        status.code(),
        Some(1),
        "the verdict's exit code, not a crash"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_certify_concludes_for_the_original_system() {
    let (code, v) = json(&[
        "check",
        "models/barrier.gc",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["check"]["verdict"], "holds");
    assert!(
        v["conclusion"]
            .as_str()
            .unwrap()
            .contains("no violation is reachable in the original system"),
        "{v}"
    );
    // The ignoring problem: (11) fails, so (19) does not apply, and the
    // conclusion rests on commit point completion instead.
    let (code, v) = json(&[
        "check",
        "models/spin-forever.gc",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(v["certify"]["hypotheses"]["11"]["holds"] == false, "{v}");
    assert!(
        v["conclusion"].as_str().unwrap().contains("seed 003"),
        "{v}"
    );
    // Reported instead of handled: nothing follows.
    let (code, _) = json(&[
        "check",
        "models/spin-forever.gc",
        "--ignoring",
        "forbid",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    // A real bug: violated whatever the hypotheses.
    let (code, _) = json(&[
        "check",
        "models/barrier-bug.gc",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
}

/// Movers do not preserve deadlocks, so `--deadlock` is refused, not
/// silently unsound.
#[test]
fn movers_refuse_deadlock_checking() {
    let run = optimist([
        "check",
        "models/deadlock.gc",
        "--reduction",
        "movers",
        "--deadlock",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("deadlocks are not preserved"),
        "{}",
        run.stderr
    );
    // Full exploration and sc find the deadlock.
    for mode in ["none", "sc"] {
        let run = optimist([
            "check",
            "models/deadlock.gc",
            "--reduction",
            mode,
            "--deadlock",
        ]);
        assert_eq!(run.code, 1, "{mode}: {}", run.stdout);
    }
}

/// The counter of seed 000: one transaction per procedure under movers,
/// one per visible transition under sc.
#[test]
fn transactions_per_region_on_the_counter() {
    let count = |mode: &str| -> Vec<(String, u64)> {
        let (_, v) = crate::common::json([
            "check",
            "models/counter.gc",
            "--reduction",
            mode,
            "--format",
            "json",
        ]);
        v["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["thread"] == "T0")
            .map(|r| {
                (
                    r["region"].as_str().unwrap().to_string(),
                    r["transactions"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let pairs = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
        v.iter().map(|(r, n)| (r.to_string(), *n)).collect()
    };
    assert_eq!(
        count("movers"),
        pairs(&[("L0", 1), ("INCR", 1), ("DECR", 1), ("READ", 1)])
    );
    assert_eq!(
        count("sc"),
        pairs(&[("L0", 1), ("INCR", 3), ("DECR", 3), ("READ", 5)])
    );
}
