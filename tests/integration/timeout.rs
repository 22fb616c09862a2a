//! `timeout`, SPIN's guard, in optimist's language: true exactly where no
//! other transition of any thread can move. Full exploration, simulation,
//! replay, the explorer and temporal properties take it so; a state where
//! it fires is no deadlock; every reduction, `certify` and `export` refuse
//! a model that waits for it; and only an `await` may read it.

use crate::common::{json, optimist};

const DIR: &str = "tests/integration/inputs/timeout";

fn input(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// `(verdict, states, transitions)` of `check --reduction none`.
fn full(name: &str) -> (String, u64, u64) {
    let (run, v) = json([
        "check",
        "--reduction",
        "none",
        "--format",
        "json",
        &input(name),
    ]);
    assert_ne!(run.code, 101, "{name}: {}", run.stderr);
    let verdict = v["verdict"].as_str().unwrap_or("?").to_string();
    let count = |k: &str| v[k].as_u64().unwrap_or(0);
    (verdict, count("states"), count("transitions"))
}

#[test]
fn timeout_fires_only_where_nothing_else_can_move() {
    // The counts of the comments in the models, by hand.
    assert_eq!(full("watchdog.gc"), ("holds".into(), 6, 5));
    assert_eq!(full("turns.gc"), ("holds".into(), 8, 8));
    assert_eq!(full("late-fault.gc"), ("violated".into(), 2, 1));
}

#[test]
fn a_state_where_timeout_fires_is_no_deadlock() {
    // At the start of watchdog.gc only `timeout` fires: checked for
    // deadlocks by default, it holds.
    let run = optimist(["check", "--reduction", "none", &input("watchdog.gc")]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("deadlocks    0"), "{}", run.stdout);
    // Where `timeout` holds and still nothing moves, it is one, and the
    // report says that the guard is false even so.
    let run = optimist(["check", "--reduction", "none", &input("stuck.gc")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "`await timeout && x == 1` (line 9) its guard is false even with `timeout` true: x = 0"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("timeout = "), "{}", run.stdout);
}

#[test]
fn simulate_replay_and_ltl_take_timeout() {
    let run = optimist(["simulate", &input("watchdog.gc")]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("every thread has ended"),
        "{}",
        run.stdout
    );
    let run = optimist(["simulate", &input("late-fault.gc")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    // A counterexample through `timeout` replays.
    let dir = std::env::temp_dir().join(format!("optimist-timeout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = optimist([
        "check",
        "--reduction",
        "none",
        "--format",
        "json",
        &input("late-fault.gc"),
    ]);
    let saved = dir.join("late-fault.json");
    std::fs::write(&saved, &check.stdout).unwrap();
    let run = optimist(["replay", &input("late-fault.gc"), saved.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("outcome      reproduced"),
        "{}",
        run.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
    // `check` takes full exploration for the `ltl` property, whose graph
    // has the one path.
    let run = optimist(["check", "--fairness", "weak", &input("watchdog.gc")]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("ltl graph    6 states, 5 transitions"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("recovers  holds"), "{}", run.stdout);
}

#[test]
fn the_explorer_offers_timeout_where_it_fires() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(input("turns.gc"));
    let (_, model) = optimist::load(&path, &[]).unwrap();
    let mut session = optimist::Session::new(model, "turns.gc");
    let effects = |s: &optimist::Session| -> Vec<Vec<&'static str>> {
        let view = s.view();
        view.threads
            .iter()
            .map(|t| t.transitions.iter().map(|c| c.effect).collect())
            .collect()
    };
    assert_eq!(effects(&session), [["ok"], ["ok"]]);
    let p = session.view().threads[0].transitions[0].id;
    session.step(p).unwrap();
    // P can move, so Q's `timeout` cannot.
    assert_eq!(effects(&session), [["ok"], ["disabled"]]);
    assert!(!session.view().deadlock);
}

#[test]
fn every_reduction_refuses_timeout() {
    let file = input("watchdog.gc");
    for flags in [
        &["--reduction", "sc"][..],
        &["--reduction", "movers"],
        &["--reduction", "stubborn"],
        &["--reduction", "sc+stubborn"],
        &["--reduction", "movers+stubborn"],
        &["--summaries"],
        &["--summaries", "--reduction", "movers"],
    ] {
        let mut args = vec!["check", "--no-ltl", &file];
        args.extend(flags);
        let run = optimist(&args);
        assert_eq!(run.code, 3, "{flags:?}: {}", run.stdout);
        assert!(
            run.stdout.contains(
                "the reduction does not apply: line 14: `await timeout` of W waits for `timeout`"
            ),
            "{flags:?}: {}",
            run.stdout
        );
    }
    let run = optimist(["classify", &file]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("no global guard") && l.contains("refused")),
        "{}",
        run.stdout
    );
    // Temporal properties under a reduction are refused too.
    let run = optimist([
        "check",
        "--reduction",
        "stubborn",
        "--fairness",
        "none",
        &file,
    ]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    for args in [
        &["certify", &file][..],
        &["certify", "--reduction", "movers", &file],
        &["simulate", "--reduction", "sc", &file],
    ] {
        let run = optimist(args);
        assert_eq!(run.code, 3, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("help: every reduction refuses"),
            "{args:?}: {}",
            run.stderr
        );
    }
    for target in ["promela", "murphi"] {
        let run = optimist(["export", "--to", target, &file]);
        assert_eq!(run.code, 2, "{target}: {}", run.stderr);
        assert!(run.stderr.contains("waits for"), "{target}: {}", run.stderr);
    }
}

#[test]
fn only_an_await_reads_timeout() {
    let dir = std::env::temp_dir().join(format!("optimist-timeout-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (text, want)) in [
        (
            "shared b : bool = false;\nthread T { b := timeout; }\n",
            "`timeout` can only be read by an `await` guard",
        ),
        (
            "thread T { if timeout { skip } }\n",
            "`timeout` can only be read by an `await` guard",
        ),
        (
            "thread T { await timeout; }\ninvariant timeout;\n",
            "`timeout` can only be read by an `await` guard",
        ),
        ("shared timeout : bool;\nthread T { skip; }\n", "timeout"),
    ]
    .into_iter()
    .enumerate()
    {
        let p = dir.join(format!("m{k}.gc"));
        std::fs::write(&p, text).unwrap();
        let run = optimist(["check", p.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{text}: {}", run.stderr);
        assert!(run.stderr.contains(want), "{text}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
