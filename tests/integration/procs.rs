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
    assert_eq!(state["T0.ret@1"], "line 56");
    assert!(!state.contains_key("T0.incr@1.tx"), "{state:?}");
}

/// Seed 004's figure 4: unbounded recursion inside a transaction. With
/// summaries the search ends and the assertion holds (exit 0); the
/// recursive call reaches the summary being computed and adds nothing.
#[test]
fn summaries_end_unbounded_recursion() {
    let (run, v) = json([
        "check",
        "models/summaries-fig4.gc",
        "--summaries",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(v["verdict"], "holds");
    assert!(v["summaries"]["computed"].as_u64().unwrap() > 0, "{v}");
    assert!(v["summaries"]["reused"].as_u64().unwrap() > 0, "{v}");
    let text = optimist(["check", "models/summaries-fig4.gc", "--summaries"]);
    assert!(text.stdout.contains("summaries    "), "{}", text.stdout);
}

/// `--summaries` reads transactions off summaries, so on every model it
/// finds what `--reduction sc` finds, with the same stored states, except
/// where sc stops at the stack bound.
#[test]
fn summaries_agree_with_sc_on_every_model() {
    for entry in std::fs::read_dir("models").unwrap() {
        let path = entry.unwrap().path();
        // models/pictures holds images, not models.
        if path.extension().is_none_or(|e| e != "gc") {
            continue;
        }
        let file = path.to_str().unwrap().to_string();
        let (_, sc) = json(["check", &file, "--format", "json"]);
        let (run, sum) = json(["check", &file, "--summaries", "--format", "json"]);
        if sc["limit"]
            .as_str()
            .is_some_and(|l| l.starts_with("stack bound"))
        {
            assert_ne!(sum["verdict"], "inconclusive", "{file}");
            continue;
        }
        assert_eq!(sc["verdict"], sum["verdict"], "{file}");
        assert_eq!(sc["states"], sum["states"], "{file}");
        assert_eq!(sc["violation"]["kind"], sum["violation"]["kind"], "{file}");
        assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
    }
}

/// `--summaries` is made of Stoller-Cohen or mover transactions under
/// commit point completion; other choices are usage errors.
#[test]
fn summaries_need_transactions_and_cpc() {
    for args in [
        ["--reduction", "none"],
        ["--reduction", "stubborn"],
        ["--reduction", "sc+stubborn"],
        ["--ignoring", "cycles"],
    ] {
        let mut all = vec!["check", "models/summaries-fig4.gc", "--summaries"];
        all.extend(args);
        let run = optimist(all);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("--summaries"), "{}", run.stderr);
    }
}

/// Summaries run a callee in the shallowest copies of its procedure, so
/// they can find a violation whose trace needs a deeper stack than
/// `--max-stack`: that run ends at the stack bound, as it does without
/// summaries, and with a stack deep enough the trace replays.
#[test]
fn summaries_never_go_past_the_stack_bound() {
    let file = "tests/integration/inputs/procs/dive.gc";
    for (bound, code) in [("2", 3), ("3", 1), ("16", 1)] {
        for extra in [&["--summaries"][..], &["--reduction", "none"][..]] {
            let mut args = vec!["check", file, "--max-stack", bound];
            args.extend(extra);
            let run = optimist(&args);
            assert_eq!(run.code, code, "{args:?}: {}", run.stdout);
        }
    }
    let src = optimist::Source::read(std::path::Path::new(file)).unwrap();
    let model = optimist::compile(&src, &Vec::new()).unwrap();
    let options = optimist::Options {
        summaries: true,
        ..Default::default()
    };
    let v = optimist::check(&model, &options, &mut |_| {})
        .violation
        .expect("a violation");
    crate::differential::replays(&model, &v.trace, &v.problem).unwrap();
}

/// `--summaries --reduction movers` summarizes Flanagan-Qadeer
/// transactions: on every model it gives the verdict and the kind of
/// violation of `--reduction movers` (or ends where movers hit the stack
/// bound), its counterexamples replay in the full semantics, and where the
/// model holds it stores exactly the states movers store.
#[test]
fn movers_summaries_agree_with_movers_on_every_model() {
    for entry in std::fs::read_dir("models").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "gc") {
            continue;
        }
        let file = path.to_str().unwrap().to_string();
        // Summaries keep transactions whole and do not decide deadlocks.
        let movers = [
            "check",
            &file,
            "--reduction",
            "movers",
            "--no-deadlock",
            "--format",
            "json",
        ];
        let (_, m) = json(movers);
        let (run, sum) = json([&movers[..], &["--summaries"]].concat());
        assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
        if m["limit"]
            .as_str()
            .is_some_and(|l| l.starts_with("stack bound"))
        {
            assert_eq!(sum["verdict"], "holds", "{file}");
            continue;
        }
        assert_eq!(m["verdict"], sum["verdict"], "{file}");
        assert_eq!(m["violation"]["kind"], sum["violation"]["kind"], "{file}");
        if m["verdict"] == "holds" {
            assert_eq!(m["states"], sum["states"], "{file}");
        }
        let (_, model) = optimist::load(&path, &[]).unwrap();
        let options = optimist::Options {
            reduction: optimist::Reduction::MOVERS,
            summaries: true,
            deadlock: false,
            ..Default::default()
        };
        if let Some(v) = optimist::check(&model, &options, &mut |_| {}).violation {
            crate::differential::replays(&model, &v.trace, &v.problem)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}

/// Figure 4 under movers: summaries end the recursion inside the
/// transaction (exit 0), where movers alone hit the stack bound (exit 3).
#[test]
fn movers_summaries_end_unbounded_recursion() {
    let file = "models/summaries-fig4.gc";
    let (run, v) = json([
        "check",
        file,
        "--reduction",
        "movers",
        "--summaries",
        "--no-deadlock",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(v["verdict"], "holds");
    assert!(v["summaries"]["computed"].as_u64().unwrap() > 0, "{v}");
    let plain = optimist(["check", file, "--reduction", "movers"]);
    assert_eq!(plain.code, 3, "{}", plain.stdout);
    // Deadlocks checked: summaries find them only in the states they
    // store, so the run says it cannot rule them out (exit 3).
    let checked = optimist(["check", file, "--reduction", "movers", "--summaries"]);
    assert_eq!(checked.code, 3, "{}", checked.stdout);
    assert!(
        checked
            .stdout
            .contains("deadlock freedom is not established")
            && checked
                .stdout
                .contains("`--no-deadlock` gives the safety verdict"),
        "{}",
        checked.stdout
    );
}

/// A procedure called only past `--max-stack` has no copy: `at` of its
/// labels is false, and a run that reaches the call ends at the stack
/// bound (exit 3), as for any other call past the bound.
#[test]
fn a_procedure_called_only_past_the_bound_is_the_stack_bound() {
    let dir = std::env::temp_dir().join(format!("optimist-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deep.gc");
    std::fs::write(
        &file,
        "system deep;\nshared x : 0..3 = 0;\n\nproc g() {\n  G0: x := 1;\n  return;\n}\n\nproc f() {\n  call g();\n  return;\n}\n\nthread T {\n  call f();\n}\n\ninvariant !at(T, G0) || x == 0;\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    for mode in ["none", "sc", "movers"] {
        let run = optimist(["check", file, "--reduction", mode, "--max-stack", "1"]);
        assert_eq!(run.code, 3, "{mode}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains("stack bound 1 reached"),
            "{}",
            run.stdout
        );
        let run = optimist(["check", file, "--reduction", mode, "--max-stack", "2"]);
        assert_eq!(run.code, 0, "{mode}: {}{}", run.stdout, run.stderr);
    }
}

/// certify's local level checks one copy per procedure, so figure 4
/// certifies at its default bound as at a small one; a time limit still
/// ends it at exit 3, "not checked", never with a verdict it did not reach.
#[test]
fn certify_on_deep_recursion_checks_one_copy_and_keeps_its_limits() {
    let file = "models/summaries-fig4.gc";
    let (run, v) = json(["certify", file, "--max-time", "60", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(v["verdict"], "hypotheses hold", "{v}");
    assert_eq!(v["procedures"]["copies"], "one per procedure", "{v}");
    let (run, v) = json(["certify", file, "--max-time", "0", "--format", "json"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(v["verdict"], "not checked", "{v}");
    assert!(v["limit"].as_str().unwrap().contains("time limit"), "{v}");
    let small = optimist(["certify", file, "--max-stack", "2"]);
    assert_eq!(small.code, 0, "{}", small.stdout);
}

/// A violation met in summaries another thread computed is reported in the
/// thread's own terms: shared and per-thread summaries report the same
/// violation (B1's assertion, found through B0's summaries of `twice` and
/// A's of `add`), its trace replays, and sharing computes fewer edges.
#[test]
fn shared_summaries_report_violations_in_the_threads_own_terms() {
    let src = optimist::Source::read(std::path::Path::new(
        "tests/integration/inputs/procs/shared-bug.gc",
    ))
    .unwrap();
    let model = optimist::compile(&src, &Vec::new()).unwrap();
    for reduction in [optimist::Reduction::SC, optimist::Reduction::MOVERS] {
        let run = |per_thread: bool| {
            let options = optimist::Options {
                reduction,
                summaries: true,
                summaries_per_thread: per_thread,
                ..Default::default()
            };
            optimist::check(&model, &options, &mut |_| {})
        };
        let (shared, own) = (run(false), run(true));
        let (s, o) = (shared.summaries.unwrap(), own.summaries.unwrap());
        assert!(s.shared > 0 && o.shared == 0, "{s:?} {o:?}");
        assert!(s.computed < o.computed, "{s:?} {o:?}");
        let (v, w) = (shared.violation.unwrap(), own.violation.unwrap());
        assert_eq!(v.problem, w.problem, "{}", reduction.name());
        crate::differential::replays(&model, &v.trace, &v.problem).unwrap();
    }
}
