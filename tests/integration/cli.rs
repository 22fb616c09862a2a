//! Command-line behaviour: exit codes, limits, JSON, `-D`.

use std::time::{Duration, Instant};

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
        "--symmetry",
        "off",
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
    assert_eq!((code, v["verdict"].as_str()), (0, Some("holds")), "{v}");
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
    assert_eq!((code, v["verdict"].as_str()), (0, Some("holds")), "{v}");
    assert!(v["certify"]["hypotheses"]["11"]["holds"] == false, "{v}");
    assert!(
        v["conclusion"]
            .as_str()
            .unwrap()
            .contains("commit point completion"),
        "{v}"
    );
    // Reported instead of handled: the reduction does not apply, so
    // nothing follows for the original system (which holds).
    let (code, v) = json(&[
        "check",
        "models/spin-forever.gc",
        "--ignoring",
        "forbid",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!(
        (code, v["verdict"].as_str()),
        (3, Some("inconclusive")),
        "{v}"
    );
    // A real bug: violated whatever the hypotheses.
    let (code, v) = json(&[
        "check",
        "models/barrier-bug.gc",
        "--certify",
        "--format",
        "json",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("violated")), "{v}");
}

#[test]
fn check_certify_that_holds_with_a_failing_certificate_is_inconclusive() {
    // master-worker holds, but locally two obligations fail at unreachable
    // valuations: the reduced check holds and the theorem does not apply,
    // so nothing is concluded about the original system.
    for format in ["text", "json"] {
        let run = optimist([
            "check",
            "models/master-worker.gc",
            "--certify",
            "--format",
            format,
        ]);
        assert_eq!(run.code, 3, "{}", run.stdout);
        if format == "json" {
            let v: Value = serde_json::from_str(&run.stdout).unwrap();
            assert_eq!(v["verdict"], "inconclusive");
            assert_eq!(v["check"]["verdict"], "holds");
            assert_eq!(v["certify"]["verdict"], "hypotheses fail");
            assert!(
                v["conclusion"]
                    .as_str()
                    .unwrap()
                    .starts_with("nothing follows")
            );
        } else {
            assert!(
                run.stdout
                    .contains("original    inconclusive: nothing follows"),
                "{}",
                run.stdout
            );
        }
    }
    // Under --reduction none the check's verdict is the verdict.
    let (code, v) = json(&[
        "check",
        "models/master-worker.gc",
        "--certify",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("holds")), "{v}");
}

/// `optimist args...`, killed if it runs past a watchdog far above what it
/// needs (so that a hang fails the test instead of blocking it), with the
/// peak resident memory seen while it ran, where the system tells (Linux:
/// `VmHWM`, sampled; a lower bound of the true peak).
fn watched(args: &[&str], watchdog: Duration) -> (crate::common::Run, Option<u64>) {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status_file = format!("/proc/{}/status", child.id());
    let start = Instant::now();
    let mut peak = None;
    let status = loop {
        if let Some(kb) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        }) {
            peak = Some(peak.unwrap_or(0).max(kb * 1024));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > watchdog {
            let _ = child.kill();
            panic!("{args:?} still runs after {watchdog:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let run = crate::common::Run {
        code: status.code().unwrap_or(-1),
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    (run, peak)
}

const RUNAWAY: &str = "tests/integration/inputs/limits/runaway-step.gc";

#[test]
fn a_reduced_step_through_a_billion_states_stops_at_every_limit() {
    let watchdog = Duration::from_secs(120);
    // States: the intermediate states of the step under way count, so the
    // run stops inside the step, at exactly the limit, every time.
    let args = [
        "check",
        RUNAWAY,
        "--max-states",
        "50000",
        "--format",
        "json",
    ];
    let (run, _) = watched(&args, watchdog);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(v["states"], 1, "only the initial state is stored");
    assert_eq!(
        v["limit"],
        "state limit of 50000 reached inside a reduced step of counter, which held 49999 intermediate states"
    );
    let (again, _) = watched(&args, watchdog);
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("elapsed_ms"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&run.stdout), strip(&again.stdout), "deterministic");
    // Time: no timing is asserted, only the verdict and the limit named.
    let (run, _) = watched(
        &["check", RUNAWAY, "--max-time", "0.2", "--format", "json"],
        watchdog,
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let limit = v["limit"].as_str().unwrap();
    assert!(
        limit.starts_with("time limit of 0.2 s reached inside a reduced step of counter"),
        "{limit}"
    );
    // Memory: the step's map, stack and path count, and the process stays
    // within the limit.
    let (run, peak) = watched(
        &["check", RUNAWAY, "--max-memory", "40", "--format", "json"],
        watchdog,
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let limit = v["limit"].as_str().unwrap();
    assert!(
        limit.starts_with("memory limit of 40 MB reached inside a reduced step"),
        "{limit}"
    );
    if let Some(peak) = peak {
        assert!(peak <= 44 << 20, "peak {} MB", peak >> 20);
    }
    // Full exploration stores the same states one by one.
    let (run, _) = watched(
        &[
            "check",
            RUNAWAY,
            "--reduction",
            "none",
            "--max-states",
            "50000",
            "--format",
            "json",
        ],
        watchdog,
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((run.code, v["states"].as_u64()), (3, Some(50000)), "{v}");
}

#[test]
fn the_memory_limit_bounds_the_whole_process() {
    // A big state space: the run stops before the process grows past the
    // limit (sampled peak, so a lower bound), with partial statistics. (The
    // reduced step's own memory is tested on the runaway step above.)
    let (run, peak) = watched(
        &[
            "check",
            "tests/benches/lock-family.gc",
            "-D",
            "N=9",
            "-D",
            "K=6",
            "--symmetry",
            "off",
            "--reduction",
            "none",
            "--max-memory",
            "20",
            "--format",
            "json",
        ],
        Duration::from_secs(300),
    );
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
    assert_eq!(run.code, 3, "{v}");
    assert_eq!(v["limit"], "memory limit of 20 MB reached", "{v}");
    assert!(v["states"].as_u64().unwrap() > 100_000, "{v}");
    if let Some(peak) = peak {
        assert!(peak <= 22 << 20, "peak {} MB", peak >> 20);
    }
}

#[test]
fn limit_flags_reject_what_is_not_a_limit() {
    let bad: &[&[&str]] = &[
        &["--max-time", "1e20"],
        &["--max-time=-1"],
        &["--max-time", "NaN"],
        &["--max-time", "inf"],
        &["--max-time", "-inf"],
        &["--max-time", "ten"],
        &["--max-time", ""],
        &["--max-states=-1"],
        &["--max-states", "1e6"],
        &["--max-states", "18446744073709551616"],
        &["--max-memory", "17592186044416"],
        &["--max-memory=-5"],
        &["--max-memory", "0.5"],
    ];
    for command in [
        &["check", "models/barrier.gc"][..],
        &["certify", "models/barrier.gc"],
        &["certify", "models/barrier.gc", "--exhaustive"],
        &["refine", "models/barrier.gc"],
    ] {
        for flag in bad {
            let mut args = command.to_vec();
            args.extend_from_slice(flag);
            let run = optimist(&args);
            assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
            assert!(run.stderr.contains("error:"), "{args:?}: {}", run.stderr);
            assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
        }
    }
    let run = optimist(["refine", "models/barrier.gc", "--max-iterations=-1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    // The largest values accepted are limits like any other.
    let run = optimist([
        "check",
        "models/barrier.gc",
        "--max-time",
        "1e9",
        "--max-states",
        "18446744073709551615",
        "--max-memory",
        "17592186044415",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn zero_limits_mean_zero() {
    for reduction in ["none", "sc"] {
        for (flag, limit) in [
            ("--max-states", "state limit of 0 reached"),
            ("--max-time", "time limit of 0 s reached"),
            ("--max-memory", "memory limit of 0 MB reached"),
        ] {
            let (code, v) = json(&[
                "check",
                "models/barrier.gc",
                "--reduction",
                reduction,
                flag,
                "0",
                "--format",
                "json",
            ]);
            assert_eq!(
                (code, v["verdict"].as_str()),
                (3, Some("inconclusive")),
                "{v}"
            );
            assert_eq!(v["limit"], limit, "{v}");
            assert_eq!(v["states"], 0, "{flag} 0 stores nothing: {v}");
        }
    }
    // One state is one state: the initial one.
    let (code, v) = json(&[
        "check",
        "models/barrier.gc",
        "--reduction",
        "none",
        "--max-states",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!((code, v["states"].as_u64()), (3, Some(1)), "{v}");
}

#[test]
fn state_limits_give_the_same_partial_statistics_every_time() {
    for reduction in ["none", "sc"] {
        let args = [
            "check",
            "models/counter.gc",
            "--reduction",
            reduction,
            "--max-states",
            "5000",
            "--format",
            "json",
        ];
        let (a, b) = (optimist(args), optimist(args));
        assert_eq!(a.code, 3);
        let strip = |s: &str| {
            s.lines()
                .filter(|l| !l.contains("elapsed_ms"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&a.stdout), strip(&b.stdout), "{reduction}");
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert!(v["states"].as_u64().unwrap() <= 5000, "{v}");
    }
}

/// Deadlocks are checked by default, and every mode that answers `holds`
/// has ruled them out. Mover transactions end before a statement that may
/// block, so movers find the deadlock of two locks taken in opposite
/// orders, the first one every course shows; summaries over movers keep
/// their transactions whole, and a run of them that meets no deadlock is
/// inconclusive (exit 3), saying that `--no-deadlock` gives the safety
/// verdict; with `--no-deadlock`, nothing is said.
#[test]
fn movers_say_deadlock_freedom_is_not_established() {
    for mode in ["movers", "movers+stubborn"] {
        for file in ["models/deadlock.gc", "models/bank.gc"] {
            let run = optimist(["check", file, "--reduction", mode]);
            assert_eq!(run.code, 1, "{mode} {file}: {}", run.stdout);
            assert!(
                run.stdout.contains("violated (deadlock)")
                    && run.stdout.contains("a cycle of waits"),
                "{mode}: {}",
                run.stdout
            );
        }
        let (code, v) = json(&[
            "check",
            "models/deadlock.gc",
            "--reduction",
            mode,
            "--no-deadlock",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{v}");
        assert!(v["caveats"].is_null(), "{v}");
    }
    let summaries = [
        "check",
        "models/summaries-fig2.gc",
        "--reduction",
        "movers",
        "--summaries",
    ];
    let run = optimist(summaries);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("inconclusive: deadlock freedom is not established"),
        "{}",
        run.stdout
    );
    let (code, v) = json(&[&summaries[..], &["--format", "json"]].concat());
    assert_eq!(code, 3);
    assert!(
        v["caveats"][0]
            .as_str()
            .unwrap()
            .contains("`--no-deadlock` gives the safety verdict"),
        "{v}"
    );
    let (code, v) = json(&[&summaries[..], &["--no-deadlock", "--format", "json"]].concat());
    assert_eq!(code, 0, "{v}");
    assert!(v["caveats"].is_null(), "{v}");
    // Full exploration and sc find the deadlock, by default, with the
    // cycle of waits; `--no-deadlock` counts it only.
    for mode in ["none", "sc", "stubborn", "sc+stubborn"] {
        let run = optimist(["check", "models/bank.gc", "--reduction", mode]);
        assert_eq!(run.code, 1, "{mode}: {}", run.stdout);
        assert!(
            run.stdout.contains(
                "a cycle of waits: alice holds la, waits for lb; bob holds lb, waits for la"
            ),
            "{mode}: {}",
            run.stdout
        );
        let run = optimist([
            "check",
            "models/bank.gc",
            "--reduction",
            mode,
            "--no-deadlock",
        ]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stdout);
        assert!(
            run.stdout.contains("not reported (--no-deadlock)"),
            "{}",
            run.stdout
        );
    }
}

/// The counter of Flanagan and Qadeer: one transaction per procedure under movers
/// (where deadlocks are checked, READ's second `acquire`, which may block,
/// starts a transaction of its own), one per visible transition under sc.
#[test]
fn transactions_per_region_on_the_counter() {
    let count = |mode: &str, extra: &[&str]| -> Vec<(String, u64)> {
        let args = [
            "check",
            "models/counter.gc",
            "--symmetry",
            "off",
            "--reduction",
            mode,
            "--format",
            "json",
        ];
        let (_, v) = crate::common::json([&args[..], extra].concat());
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
        count("movers", &["--no-deadlock"]),
        pairs(&[("L0", 1), ("INCR", 1), ("DECR", 1), ("READ", 1)])
    );
    assert_eq!(
        count("movers", &[]),
        pairs(&[("L0", 1), ("INCR", 1), ("DECR", 1), ("READ", 2)])
    );
    assert_eq!(
        count("sc", &[]),
        pairs(&[("L0", 1), ("INCR", 3), ("DECR", 3), ("READ", 5)])
    );
}

/// `--symmetry`: the report names the symmetry whose orbits it counted
/// (text and JSON), `off` counts every state, and `on` says why it could
/// not use one.
#[test]
fn symmetry_is_reported_and_can_be_turned_off() {
    let args = ["check", "models/account.gc", "--reduction", "none"];
    let (code, on) = json(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0);
    assert_eq!(on["symmetry"]["kind"], "full");
    assert_eq!(on["symmetry"]["threads"], "teller0..teller1");
    assert_eq!(on["symmetry"]["exact"], true);
    let (_, off) = json(&[&args[..], &["--symmetry", "off", "--format", "json"]].concat());
    assert!(off["symmetry"].is_null());
    let (orbits, all) = (
        on["states"].as_u64().unwrap(),
        off["states"].as_u64().unwrap(),
    );
    assert!(orbits < all, "{orbits} orbits, {all} states");
    let text = optimist(args);
    assert!(
        text.stdout
            .contains("symmetry     full (any permutation of the 2 copies teller0..teller1)")
    );
    let broken = optimist(["check", "models/barrier.gc", "--symmetry", "on"]);
    assert_eq!(broken.code, 0);
    assert!(
        broken
            .stdout
            .contains("symmetry not used for T0..T1: line 20: `x[0] := self`"),
        "{}",
        broken.stdout
    );
    assert!(
        !broken.stdout.contains("symmetry     "),
        "{}",
        broken.stdout
    );
}

/// The `--help` of every subcommand (the list read off `optimist --help`)
/// speaks in words: the paper's notation for its hypotheses and
/// predicates is no way to explain an option.
#[test]
fn no_help_text_uses_the_papers_notation() {
    let top = optimist(["--help"]);
    assert_eq!(top.code, 0, "{}", top.stderr);
    let commands: Vec<String> = top
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 12, "{commands:?}");
    let mut texts = vec![("optimist".to_string(), top.stdout)];
    for c in &commands {
        let run = optimist([c.as_str(), "--help"]);
        assert_eq!(run.code, 0, "{c}: {}", run.stderr);
        texts.push((c.clone(), run.stdout));
    }
    for (c, text) in &texts {
        for jargon in ["CSSA", "WFfiniteInvis", "excl("] {
            assert!(
                !text.contains(jargon),
                "`{c} --help` says {jargon}:\n{text}"
            );
        }
    }
    // Every command that exits with codes says which (completions and man
    // print and exit 0).
    for (c, text) in &texts[1..] {
        if c != "completions" && c != "man" {
            assert!(text.contains("Exit codes:"), "`{c} --help`:\n{text}");
        }
    }
    // Exit code 3 is more than a limit.
    assert!(texts[0].1.contains("does not apply"), "{}", texts[0].1);
}
