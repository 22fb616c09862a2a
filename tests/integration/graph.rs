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

/// `graph --trace` asks `check`'s question, deadlocks included, and draws
/// the deadlock as a path whose last state is marked, in DOT and in its
/// JSON twin; `--no-deadlock` asks `check --no-deadlock`'s.
#[test]
fn deadlock_trace_marks_the_deadlocked_state() {
    let run = optimist(["graph", "models/deadlock.gc", "--trace"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("digraph"), "{}", run.stdout);
    // The last state (after two transitions) carries the mark, the others not.
    let last = run
        .stdout
        .lines()
        .find(|l| l.starts_with("  s2 ["))
        .unwrap();
    assert!(last.contains("deadlock: no thread can move"), "{last}");
    assert!(last.contains("fillcolor=\"#fde2e2\""), "{last}");
    assert_eq!(run.stdout.matches("no thread can move\"").count(), 1);
    settings().bind(|| insta::assert_snapshot!("graph_deadlock_trace_dot", run.stdout));
    let json = optimist(["graph", "models/deadlock.gc", "--trace", "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["violation"]["kind"], "deadlock");
    let drawing = &v["drawing"];
    let nodes = drawing["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes[2]["deadlock"], true);
    assert_eq!(nodes[2]["note"], "deadlock: no thread can move");
    assert!(nodes[..2].iter().all(|n| n["deadlock"] == false));
    let pretty = serde_json::to_string_pretty(drawing).unwrap();
    settings().bind(|| insta::assert_snapshot!("graph_deadlock_trace_json", pretty));
    let off = optimist(["graph", "models/deadlock.gc", "--trace", "--no-deadlock"]);
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(off.stdout.is_empty(), "{}", off.stdout);
    assert!(off.stderr.contains("verdict is holds"), "{}", off.stderr);
}

/// The state graph marks its deadlocked states (red, bold, and the words)
/// in DOT, SVG and JSON; the SVG's boxes hold the states' names, each
/// state's text its tooltip.
#[test]
fn the_state_graph_marks_deadlocked_states() {
    let dot = optimist(["graph", "models/deadlock.gc"]);
    assert_eq!(dot.code, 0, "{}", dot.stderr);
    assert_eq!(
        dot.stdout
            .matches("\\ndeadlock: no thread can move\"")
            .count(),
        1,
        "{}",
        dot.stdout
    );
    assert!(dot.stdout.contains("1 deadlocked"), "{}", dot.stdout);
    let json = optimist(["graph", "models/deadlock.gc", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["deadlocks"], 1);
    let dead: Vec<&serde_json::Value> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["deadlock"] == true)
        .collect();
    assert_eq!(dead.len(), 1);
    // Both threads hold one lock each there.
    assert_eq!(dead[0]["state"]["a"], "left", "{}", dead[0]);
    assert_eq!(dead[0]["state"]["b"], "right", "{}", dead[0]);
    let svg = optimist(["graph", "models/deadlock.gc", "--format", "svg"]);
    assert_eq!(svg.code, 0, "{}", svg.stderr);
    assert!(svg.stdout.contains("max-width: 100%"), "{}", svg.stdout);
    assert_eq!(svg.stdout.matches("<title>s").count(), 24, "{}", svg.stdout);
    assert!(svg.stdout.contains("deadlock: no thread can move</title>"));
}

/// A model with a state graph of 78 states.
const MODEL_78: &str = "models/token-buffer-bug.gc";

/// The built-in SVG of a graph of 78 states is of a readable size: names
/// in the boxes (the states in tooltips) and edges coloured by thread
/// rather than labelled keep layout-rs's picture small. With the full
/// states in the boxes and the transitions on the edges it was 4112 by
/// 5810 pixels; now about 2420 by 3000.
#[test]
fn the_svg_of_a_78_state_graph_is_of_readable_size() {
    let json = optimist(["graph", MODEL_78, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["states"], 78);
    let svg = optimist(["graph", MODEL_78, "--format", "svg"]);
    assert_eq!(svg.code, 0, "{}", svg.stderr);
    let number = |attr: &str| -> f64 {
        let at = svg.stdout.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
        let rest = &svg.stdout[at..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    };
    let (w, h) = (number("width"), number("height"));
    assert!(w < 3_000.0 && h < 3_500.0, "{w}x{h}");
    // The legend names each thread's colour.
    assert!(
        svg.stdout
            .contains("edges by thread: producer blue, consumer green"),
        "{}",
        svg.stdout
    );
}
