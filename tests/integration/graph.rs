//! `optimist graph`: the state graph with a reduced search over it, and a
//! counterexample as a chart.

use crate::common::{optimist, settings};

#[test]
fn barrier_graph_has_106_states_and_sc_stores_62() {
    let run = optimist([
        "graph",
        "models/barrier.gc",
        "--reduction",
        "sc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["states"], 106);
    assert_eq!(v["stored"], 62);
    let stored = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["stored"] == true)
        .count();
    assert_eq!(stored, 62);
}

#[test]
fn handoff_dot() {
    let run = optimist(["graph", "models/handoff.gc", "--reduction", "sc"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    settings().bind(|| insta::assert_snapshot!("graph_handoff_sc_dot", run.stdout));
    // Its JSON twin, pinned too.
    let json = optimist([
        "graph",
        "models/handoff.gc",
        "--reduction",
        "sc",
        "--format",
        "json",
    ]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    settings().bind(|| insta::assert_snapshot!("graph_handoff_sc_json", json.stdout));
}

#[test]
fn svg_is_deterministic_and_needs_no_graphviz() {
    let a = optimist(["graph", "models/handoff.gc", "--format", "svg"]);
    let b = optimist(["graph", "models/handoff.gc", "--format", "svg"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(a.stdout.contains("<svg"), "{}", a.stdout);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn large_models_are_refused_politely() {
    let run = optimist(["graph", "models/counter.gc"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(run.stderr.contains("too many to draw"), "{}", run.stderr);
    let run = optimist(["graph", "models/counter.gc", "--max-states", "100000"]);
    assert_eq!(run.code, 2);
}

#[test]
fn racy_counter_trace_chart() {
    let run = optimist([
        "graph",
        "models/racy-counter.gc",
        "--trace",
        "--format",
        "svg",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("<svg"));
    settings().bind(|| insta::assert_snapshot!("graph_racy_counter_chart", run.stdout));
}

/// The chart draws the counterexample `check` reports, a deadlock too.
#[test]
fn a_deadlock_is_charted_as_check_reports_it() {
    let check = optimist(["check", "models/deadlock.gc"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    let run = optimist(["graph", "models/deadlock.gc", "--trace", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["verdict"], "violated", "{}", run.stdout);
    assert_eq!(v["violation"]["kind"], "deadlock", "{}", run.stdout);
    let svg = optimist(["graph", "models/deadlock.gc", "--trace", "--format", "svg"]);
    assert!(svg.stdout.starts_with("<svg"), "{}", svg.stderr);
}
