//! Procedures: what they cost in states, the stack bound, and how traces
//! show them.

use crate::common::{json, optimist};

fn states(file: &str, reduction: &str) -> serde_json::Value {
    let (_, v) = json(["check", file, "--reduction", reduction, "--format", "json"]);
    v["states"].clone()
}

/// A procedure costs what its inlined body costs once its locals are put
/// back where it returns: the counter with procedures and the inlined
/// counter that zeroes its locals there have the same state spaces.
#[test]
fn procedures_cost_what_their_inlined_bodies_cost() {
    for mode in ["none", "sc", "movers"] {
        assert_eq!(
            states("models/counter-procs.gc", mode),
            states("models/counter-reset.gc", mode),
            "--reduction {mode}"
        );
    }
}

/// Unbounded recursion hits the stack bound: inconclusive, exit 3, in every
/// mode, and a smaller bound is reached sooner.
#[test]
fn the_stack_bound_is_inconclusive() {
    for mode in ["none", "sc", "movers"] {
        let run = optimist(["check", "models/summaries-fig4.gc", "--reduction", mode]);
        assert_eq!(run.code, 3, "{mode}: {}", run.stderr);
        assert!(
            run.stdout.contains("inconclusive: stack bound 16 reached"),
            "{mode}: {}",
            run.stdout
        );
    }
    let (run, v) = json([
        "check",
        "models/summaries-fig4.gc",
        "--reduction",
        "none",
        "--max-stack",
        "4",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3);
    assert_eq!(v["limit"], "stack bound 4 reached");
    assert!(v["states"].as_u64().unwrap() < 1238, "{v}");
}

/// `--max-stack` takes 1 to 1024.
#[test]
fn max_stack_is_checked() {
    for bad in ["0", "1025", "-1", "many"] {
        let run = optimist(["check", "models/counter-procs.gc", "--max-stack", bad]);
        assert_eq!(run.code, 2, "--max-stack {bad}: {}", run.stderr);
    }
    let run = optimist(["check", "models/counter-procs.gc", "--max-stack", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// A trace shows the statements of procedures indented by stack depth, and
/// each step's depth in JSON.
#[test]
fn traces_show_the_stack() {
    let run = optimist(["check", "models/counter-procs-bug.gc"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("call read()"), "{}", run.stdout);
    assert!(run.stdout.contains("    ty := y"), "{}", run.stdout);
    let (_, v) = json(["check", "models/counter-procs-bug.gc", "--format", "json"]);
    let trace = v["trace"].as_array().unwrap();
    assert!(trace[0].get("depth").is_none(), "{}", trace[0]);
    assert_eq!(trace.last().unwrap()["depth"], 1);
    let state = trace[0]["state"].as_object().unwrap();
    assert_eq!(state["T0.ret@1"], "line 54");
    assert!(!state.contains_key("T0.incr@1.tx"), "{state:?}");
}
