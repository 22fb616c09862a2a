//! Runs over several processes (timely dataflow, `--hostfile`): the same
//! output as one process, on every shipped model, with processes on
//! localhost; a lost process, a missing one and a mismatched one end the
//! run with exit 3 and say which.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, expectations, rel};

/// A host file of `n` free ports on localhost.
fn hostfile(n: usize) -> Hosts {
    // Bound together, so that the ports differ; freed before the run.
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    Hosts::with(&text)
}

/// A host file, removed when dropped.
struct Hosts(std::path::PathBuf);

impl Hosts {
    fn with(text: &str) -> Hosts {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "optimist-hosts-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&p, text).unwrap();
        Hosts(p)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn spawn(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Waits for `child` at most `limit`; a run that outlives it fails the test
/// (a hang is the bug this file looks for).
fn wait(mut child: Child, limit: Duration) -> Run {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("a process of the run still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `args` over `processes` processes of `workers` workers: every process's
/// run, process 0 first.
fn over(args: &[String], processes: usize, workers: usize) -> Vec<Run> {
    let hosts = hostfile(processes);
    let children: Vec<Child> = (0..processes)
        .map(|p| {
            let mut a = args.to_vec();
            a.extend(["--hostfile".into(), hosts.0.display().to_string()]);
            a.extend(["--process".into(), p.to_string()]);
            a.extend(["--workers".into(), workers.to_string()]);
            spawn(&a)
        })
        .collect();
    children
        .into_iter()
        .map(|c| wait(c, Duration::from_secs(300)))
        .collect()
}

/// The output without what measures the machine (time, bytes per state).
fn unmeasured(s: &str) -> String {
    s.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("time ")
                && !t.starts_with("memory ")
                && !t.starts_with("\"elapsed_ms\"")
                && !t.starts_with("\"bytes_per_state\"")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn one_process(args: &[String]) -> Run {
    wait(spawn(args), Duration::from_secs(300))
}

/// The same exit code and report from process 0 as from one process, and
/// every other process exits with the same code and prints nothing on
/// stdout.
fn assert_same(args: &[String], processes: usize, workers: usize, base: &Run) {
    let runs = over(args, processes, workers);
    let lead = &runs[0];
    assert_eq!(
        (lead.code, unmeasured(&lead.stdout)),
        (base.code, unmeasured(&base.stdout)),
        "{args:?} over {processes} processes x {workers} workers differs from one process; stderr: {}",
        lead.stderr
    );
    for (p, r) in runs.iter().enumerate().skip(1) {
        assert_eq!(r.code, base.code, "{args:?}: process {p}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "process {p} printed: {}", r.stdout);
        assert!(
            r.stderr
                .starts_with(&format!("process {p} of {processes}: ")),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn every_model_the_same_over_one_two_and_three_processes() {
    let (mut runs, mut violations) = (0, 0);
    for path in crate::common::models() {
        let file = rel(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut flag_sets: Vec<Vec<String>> = vec![Vec::new()];
        for e in expectations(&text) {
            let mut flags = e.flags.clone();
            if let Some(k) = flags.iter().position(|f| f == "--reduction") {
                flags.drain(k..k + 2);
            }
            // Summaries are shared by every expansion, temporal properties
            // need the whole graph: one process only (refused, as
            // `refusals` shows). Safety is checked with `--no-ltl`.
            flags.retain(|f| f != "--no-ltl");
            let one_only = ["--summaries", "--ltl", "--fairness"];
            if !flags.iter().any(|f| one_only.contains(&f.as_str())) && !flag_sets.contains(&flags)
            {
                flag_sets.push(flags);
            }
        }
        for flags in &flag_sets {
            for mode in ["none", "sc"] {
                let mut args = vec!["check".to_string(), file.clone(), "--no-ltl".into()];
                args.extend(["--reduction".into(), mode.into()]);
                args.extend(flags.iter().cloned());
                args.extend(["--format".into(), "json".into()]);
                let base = one_process(&args);
                assert_same(&args, 2, 1, &base);
                assert_same(&args, 3, 1, &base);
                runs += 1;
                violations += usize::from(base.code == 1);
            }
        }
    }
    assert!(runs > 50, "{runs} runs");
    assert!(violations > 10, "{violations} violations");
}

#[test]
fn text_reports_every_mode_and_workers_per_process() {
    // Text reports, the other modes, several workers in a process.
    for (file, defines) in [
        ("models/counter-bug.gc", vec![]),
        ("models/philosophers.gc", vec![]),
        ("models/memreuse-bug.gc", vec![]),
        (
            "tests/benches/lock-family.gc",
            vec!["-D", "N=4", "-D", "K=2"],
        ),
    ] {
        for mode in ["none", "sc", "movers", "stubborn", "sc+stubborn"] {
            let mut args: Vec<String> = vec!["check".into(), file.into(), "--no-ltl".into()];
            args.extend(defines.iter().map(|s| s.to_string()));
            args.extend(["--reduction".into(), mode.into()]);
            let base = one_process(&args);
            assert_same(&args, 1, 3, &base);
            assert_same(&args, 2, 2, &base);
        }
    }
}

#[test]
fn the_state_limit_cuts_at_the_same_state() {
    for mode in ["none", "sc"] {
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
        let base = one_process(&args);
        assert_eq!(base.code, 3, "{}", base.stdout);
        assert!(base.stdout.contains("states       1000"), "{}", base.stdout);
        assert_same(&args, 3, 1, &base);
        assert_same(&args, 2, 2, &base);
    }
}

/// Where the state limit falls inside a reduced step (a transaction, a
/// stubborn set's check of what other threads can do), the run is cut at
/// the same step over workers and processes as in one process, and says
/// which step held the intermediate states.
#[test]
fn the_state_limit_cuts_inside_reduced_steps_alike() {
    for (file, mode, limit) in [
        ("models/counter-bug.gc", "movers", "5"),
        ("models/counter-bug.gc", "sc", "8"),
        ("models/ignoring-fig3.gc", "movers", "2"),
        ("models/memreuse-bug.gc", "sc+stubborn", "3"),
        ("models/memreuse-bug.gc", "movers+stubborn", "3"),
    ] {
        let args: Vec<String> = ["check", file, "--reduction", mode, "--max-states", limit]
            .map(String::from)
            .to_vec();
        let base = one_process(&args);
        assert_eq!(base.code, 3, "{args:?}: {}", base.stdout);
        assert_same(&args, 1, 2, &base);
        assert_same(&args, 2, 1, &base);
    }
}

#[test]
fn a_lost_process_ends_the_run_naming_it() {
    let hosts = hostfile(3);
    let args = |p: usize| -> Vec<String> {
        [
            "check",
            "tests/benches/lock-family.gc",
            "-D",
            "N=11",
            "-D",
            "K=3",
            "--symmetry",
            "off",
            "--reduction",
            "none",
            "--hostfile",
            &hosts.0.display().to_string(),
            "--process",
            &p.to_string(),
        ]
        .map(String::from)
        .to_vec()
    };
    let lead = spawn(&args(0));
    let mut lost = spawn(&args(1));
    let other = spawn(&args(2));
    // Well into the search (it takes many seconds), process 1 dies.
    std::thread::sleep(Duration::from_secs(3));
    lost.kill().unwrap();
    let _ = lost.wait();
    // On a machine so loaded that process 1 died before it connected, the
    // run ends when the others stop waiting for it: named all the same.
    let lead = wait(lead, Duration::from_secs(120));
    let other = wait(other, Duration::from_secs(120));
    assert_eq!(lead.code, 3, "{}{}", lead.stdout, lead.stderr);
    // The lead hears of the loss from the first connection that closes:
    // process 1's, or process 2's where process 2 noticed first and
    // stopped (on a loaded machine); either way a process is named.
    let stopped = ["process 1", "process 2"].iter().any(|p| {
        lead.stdout.contains(&format!(
            "verdict      inconclusive: {p} of the run stopped"
        ))
    }) && lead.stdout.contains("closed its connection");
    let unjoined = lead.stdout.contains("process 1 did not join the run");
    assert!(stopped || unjoined, "{}", lead.stdout);
    assert!(!lead.stderr.contains("panicked"), "{}", lead.stderr);
    assert_eq!(other.code, 3, "{}", other.stderr);
    assert!(!other.stderr.contains("panicked"), "{}", other.stderr);
}

#[test]
fn a_missing_or_mismatched_process_is_named() {
    let hosts = hostfile(2);
    let base: Vec<String> = ["check", "models/counter.gc", "--hostfile"]
        .map(String::from)
        .to_vec();
    let h = hosts.0.display().to_string();
    // Process 1 never starts.
    let mut a = base.clone();
    a.extend([h.clone(), "--process".into(), "0".into()]);
    a.extend(["--connect-timeout".into(), "1".into()]);
    let r = wait(spawn(&a), Duration::from_secs(30));
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("process 1 did not join the run")
            && r.stdout.contains("did not connect within 1 s"),
        "{}",
        r.stdout
    );
    // Process 1 checks another model.
    let mut a0 = base.clone();
    a0.extend([h.clone(), "--process".into(), "0".into()]);
    let mut a1 = vec![
        "check".into(),
        "models/counter-bug.gc".into(),
        "--hostfile".into(),
    ];
    a1.extend([h, "--process".into(), "1".into()]);
    let (c0, c1) = (spawn(&a0), spawn(&a1));
    let (r0, r1) = (
        wait(c0, Duration::from_secs(90)),
        wait(c1, Duration::from_secs(90)),
    );
    assert_eq!(r0.code, 3, "{}{}", r0.stdout, r0.stderr);
    assert!(
        r0.stdout.contains("checks a different model"),
        "{}",
        r0.stdout
    );
    assert_eq!(r1.code, 3, "{}", r1.stderr);
}

#[test]
fn refusals() {
    for (args, says) in [
        (
            vec![
                "check",
                "models/counter.gc",
                "--processes",
                "2",
                "--process",
                "2",
            ],
            "`--process 2`, but the run has 2 processes",
        ),
        (
            vec![
                "check",
                "models/counter.gc",
                "--workers",
                "2",
                "--summaries",
            ],
            "`--summaries` runs in one process",
        ),
        (
            vec!["check", "models/peterson-live.gc", "--workers", "2"],
            "`--no-ltl` checks safety over several",
        ),
        (
            vec![
                "check",
                "models/counter.gc",
                "--workers",
                "2",
                "--threads",
                "2",
            ],
            "cannot be used with",
        ),
    ] {
        let r = crate::common::optimist(&args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    }
}
