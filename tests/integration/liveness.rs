//! Temporal properties on generated systems: full exploration's verdict
//! under each fairness, every lasso checked independently of the search
//! (it replays, its cycle closes, the formula is false on it by the lasso
//! semantics, and it is fair), and every reduction either agrees with
//! full exploration or refuses as its contract says (exit 3).

use optimist::{
    Fairness, LassoTrace, LtlOptions, LtlOutcome, Model, Options, Reduction, Source, StepResult,
    Verdict, compile,
};
use proptest::strategy::{Strategy, ValueTree};

use crate::generate::{Choices, choices, system};
use crate::generate_ltl::{Rng, formula, pattern};
use crate::generate2::{Choices as Choices2, system2};

/// Systems whose safety holds, each with two generated properties.
const SYSTEMS: usize = 500;

fn options(reduction: Reduction, summaries: bool) -> Options {
    Options {
        reduction,
        summaries,
        threads: 1,
        limits: optimist::Limits {
            max_states: Some(50_000),
            ..Default::default()
        },
        ..Options::default()
    }
}

/// The generated systems with properties whose safety holds (without
/// deadlock checking: a deadlock is a run that ends), and the count drawn;
/// from the whole-grammar generator too if `whole`.
pub fn systems(n: usize, whole: bool) -> (Vec<(String, Model)>, usize) {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut out = Vec::new();
    let mut drawn = 0;
    while out.len() < n && drawn < 20 * n {
        drawn += 1;
        let data = choices().new_tree(&mut runner).unwrap().current();
        // Three generators: lock-based templates, disciplines over a drawn
        // world, and the whole grammar (procedures, semaphores, `init`).
        let text = match drawn % if whole { 3 } else { 2 } {
            0 => system(&mut Choices::new(&data)),
            1 => system2(&mut Choices2::new(&data)),
            _ => {
                let mut r = crate::grammar::shared::generator::Rng::new(drawn as u64);
                crate::grammar::shared::ast::print(&crate::grammar::shared::generator::system(
                    &mut r,
                ))
            }
        };
        let Ok(base) = compile(&Source::new("generated.gc", &text).unwrap(), &[]) else {
            // The whole-grammar generator may draw a system that does not
            // compile (its own test allows 2%).
            continue;
        };
        let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ drawn as u64);
        let text = format!(
            "{text}\nltl shaped: {};\nltl drawn: {};\n",
            pattern(&mut r, &base),
            formula(&mut r, &base, 3)
        );
        let model = match compile(&Source::new("generated.gc", &text).unwrap(), &[]) {
            Ok(m) => m,
            Err(e) => panic!("a generated formula does not compile: {e:?}\n{text}"),
        };
        let o = optimist::check(&model, &options(Reduction::NONE, false), &mut |_| {});
        if o.verdict == Verdict::Holds {
            out.push((text, model));
        }
    }
    (out, drawn)
}

fn ltl(model: &Model, options: &Options, fairness: Fairness) -> LtlOutcome {
    let properties = (0..model.ltl.len()).collect();
    optimist::check_ltl(
        model,
        options,
        &LtlOptions {
            fairness,
            properties,
        },
    )
}

/// Whether thread t can move in s.
fn enabled(model: &Model, s: &[i64], t: usize) -> bool {
    let mut out = Vec::new();
    model.threads[t].points[s[t] as usize]
        .transitions
        .clone()
        .any(|k| !matches!(optimist::step(model, k, s, &mut out), StepResult::Disabled))
}

/// Checks a lasso of property `p` without the search: it replays, its
/// cycle closes, the formula is false on it, and it is fair.
pub fn validate(model: &Model, p: usize, l: &LassoTrace, fairness: Fairness) -> Result<(), String> {
    let mut s = model.init.clone();
    let mut out = Vec::new();
    let mut states = vec![s.clone()];
    for st in l.stem.iter().chain(&l.cycle) {
        match optimist::step(model, st.transition, &s, &mut out) {
            StepResult::Ok => s.clone_from(&out),
            _ => return Err(format!("transition {} does not replay", st.transition)),
        }
        if st.state.as_ref() != Some(&s) {
            return Err("a state of the lasso is not the one its transition reaches".into());
        }
        states.push(s.clone());
    }
    let entry = l.stem.len();
    if !l.cycle.is_empty() && states.last() != Some(&states[entry]) {
        return Err("the cycle does not come back to its first state".into());
    }
    if l.cycle.is_empty() && (0..model.threads.len()).any(|t| enabled(model, &s, t)) {
        return Err("a run that ends has a thread that can move".into());
    }
    let positions = if l.cycle.is_empty() {
        &states[..]
    } else {
        &states[..states.len() - 1]
    };
    let prop = &model.ltl[p];
    let word: Vec<u64> = positions
        .iter()
        .map(|s| {
            prop.valuation(s)
                .map_err(|_| "an atom faults on the lasso".to_string())
        })
        .collect::<Result<_, _>>()?;
    if prop.formula.holds_on(&word, entry) {
        return Err(format!("`{}` holds on the lasso", prop.text));
    }
    let cycle_states = &positions[entry..];
    let moved: Vec<usize> = l
        .cycle
        .iter()
        .map(|st| model.transitions[st.transition].thread as usize)
        .collect();
    for t in 0..model.threads.len() {
        let on: Vec<bool> = cycle_states.iter().map(|s| enabled(model, s, t)).collect();
        let unfair = match fairness {
            Fairness::None => false,
            Fairness::Weak => on.iter().all(|&e| e) && !moved.contains(&t),
            Fairness::Strong => on.iter().any(|&e| e) && !moved.contains(&t),
        };
        if unfair {
            return Err(format!(
                "the cycle is not {} fair to thread {t}",
                fairness.name()
            ));
        }
    }
    Ok(())
}

fn verdicts(o: &LtlOutcome) -> Vec<String> {
    o.properties
        .iter()
        .map(|p| match &p.verdict {
            Verdict::Holds => "holds".to_string(),
            Verdict::Violated if p.fault.is_some() => "fault".to_string(),
            Verdict::Violated => "violated".to_string(),
            v => format!("{v:?}"),
        })
        .collect()
}

#[test]
fn every_reduction_agrees_with_full_exploration_or_refuses() {
    let (systems, drawn) = systems(SYSTEMS, true);
    assert_eq!(
        systems.len(),
        SYSTEMS,
        "only {} of {drawn} drawn hold",
        systems.len()
    );
    let modes: [(Reduction, bool); 7] = [
        (Reduction::STUBBORN, false),
        (Reduction::SC, false),
        (Reduction::MOVERS, false),
        (Reduction::SC_STUBBORN, false),
        (Reduction::MOVERS_STUBBORN, false),
        (Reduction::SC, true),
        (Reduction::MOVERS, true),
    ];
    let fairnesses = [Fairness::None, Fairness::Weak, Fairness::Strong];
    let (mut violated, mut held, mut lassos, mut agreed, mut refused) = ([0; 3], [0; 3], 0, 0, 0);
    let mut stubborn_smaller = 0;
    for (text, model) in &systems {
        let mut previous: Option<Vec<String>> = None;
        for (fi, &fairness) in fairnesses.iter().enumerate() {
            let full = ltl(model, &options(Reduction::NONE, false), fairness);
            if full.limit.is_some() {
                continue;
            }
            let v = verdicts(&full);
            for (p, po) in full.properties.iter().enumerate() {
                match &po.lasso {
                    Some(l) => {
                        violated[fi] += 1;
                        lassos += 1;
                        if let Err(e) = validate(model, p, l, fairness) {
                            panic!("{e}\nunder {} fairness:\n{text}", fairness.name());
                        }
                    }
                    None if po.verdict == Verdict::Holds => held[fi] += 1,
                    None => {}
                }
            }
            // A stronger fairness assumption admits fewer runs.
            if let Some(prev) = &previous {
                for (a, b) in prev.iter().zip(&v) {
                    assert!(
                        !(a == "holds" && b == "violated"),
                        "weaker fairness holds, stronger is violated:\n{text}"
                    );
                }
            }
            previous = Some(v.clone());
            for &(reduction, summaries) in &modes {
                let o = ltl(model, &options(reduction, summaries), fairness);
                // Stubborn sets keep temporal properties without fairness;
                // sc under every fairness, where every run of invisible
                // transitions ends (it refuses a model otherwise).
                // Every reduction refuses a rendezvous and `timeout`.
                let keeps = if summaries || optimist::reductions_refusal(&model).is_some() {
                    false
                } else if reduction == Reduction::STUBBORN {
                    fairness == Fairness::None
                } else {
                    reduction == Reduction::SC
                };
                let expect_refusal = !keeps;
                match o.verdict() {
                    Verdict::DoesNotApply(_) => {
                        assert!(
                            !keeps || reduction == Reduction::SC,
                            "{} refused under {} fairness:\n{text}",
                            reduction.name(),
                            fairness.name()
                        );
                        refused += 1;
                    }
                    Verdict::Inconclusive(_) => {}
                    _ => {
                        assert!(
                            !expect_refusal,
                            "{reduction:?} answered under {fairness:?}:\n{text}"
                        );
                        // Where a limit left full exploration undecided
                        // (a reduction may decide more), there is nothing
                        // to compare.
                        let decided = |x: &String| !x.starts_with("Inconclusive");
                        let ours = verdicts(&o);
                        for (a, b) in ours
                            .iter()
                            .zip(&v)
                            .filter(|(a, b)| decided(a) && decided(b))
                        {
                            assert_eq!(
                                a,
                                b,
                                "{} disagrees with full exploration under {} fairness:\n{text}",
                                reduction.name(),
                                fairness.name()
                            );
                        }
                        for (p, po) in o.properties.iter().enumerate() {
                            if let Some(l) = &po.lasso {
                                validate(model, p, l, fairness).unwrap();
                            }
                        }
                        stubborn_smaller += usize::from(o.stats.states < full.stats.states);
                        agreed += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "temporal properties on {} generated systems ({drawn} drawn): violated {violated:?} and held {held:?} under no, weak, strong fairness; {lassos} lassos validated; {agreed} reduced runs agreed with full exploration ({stubborn_smaller} on fewer states), {refused} refused",
        systems.len()
    );
    // Both verdicts occur, and the reduction that answers does reduce.
    for fi in 0..3 {
        assert!(
            violated[fi] >= SYSTEMS / 10 && held[fi] >= SYSTEMS / 10,
            "{violated:?} {held:?}"
        );
    }
    assert!(
        agreed >= SYSTEMS * 9 / 10 && stubborn_smaller > 0,
        "{agreed} {stubborn_smaller}"
    );
}

/// Properties drawn for `model` (its text `text`) until two have atoms
/// that its symmetry keeps (as detection judges them; the comparison below
/// is the check of that judgement): the model with them, and their indices.
fn symmetric_properties(text: &str, seed: u64) -> Option<(String, Model, Vec<usize>)> {
    let base = compile(&Source::new("generated.gc", text).unwrap(), &[]).ok()?;
    let mut r = Rng(0x2545_f491_4f6c_dd1d ^ seed);
    let mut text = text.to_string();
    for k in 0..40 {
        let f = if k % 2 == 0 {
            pattern(&mut r, &base)
        } else {
            formula(&mut r, &base, 2)
        };
        let with = format!("{text}ltl symmetric{k}: {f};\n");
        let model = compile(&Source::new("generated.gc", &with).unwrap(), &[]).ok()?;
        let kept = optimist::detect_symmetry(&model).temporal.last()?.is_none();
        if kept {
            text = with;
        }
    }
    let model = compile(&Source::new("generated.gc", &text).unwrap(), &[]).ok()?;
    let first = base.ltl.len();
    (model.ltl.len() >= first + 2).then(|| (text, model, (first..first + 2).collect()))
}

/// Temporal properties over orbits: on the generated systems that have a
/// symmetry, properties whose atoms it keeps are checked without fairness
/// over orbits (`--symmetry on`) under every reduction that keeps them,
/// and each verdict is full exploration's of every state; every lasso is
/// a run of the system (its cycle unfolded until it closes) that violates
/// the property.
#[test]
fn orbits_agree_with_full_exploration_on_symmetric_properties() {
    let (systems, drawn) = systems(SYSTEMS, true);
    let reductions = [
        Reduction::NONE,
        Reduction::SC,
        Reduction::STUBBORN,
        Reduction::SC_STUBBORN,
    ];
    let (mut symmetric, mut agreed, mut lassos, mut smaller) = (0, [0; 4], 0, 0);
    for (i, (text, model)) in systems.iter().enumerate() {
        if optimist::detect_symmetry(model).symmetry.is_none() {
            continue;
        }
        symmetric += 1;
        let Some((text, model, properties)) = symmetric_properties(text, i as u64) else {
            continue;
        };
        let asked = LtlOptions {
            fairness: Fairness::None,
            properties,
        };
        let full = optimist::check_ltl(&model, &options(Reduction::NONE, false), &asked);
        if full.verdict() != Verdict::Holds && full.verdict() != Verdict::Violated {
            continue;
        }
        for (r, reduction) in reductions.into_iter().enumerate() {
            let mut o = options(reduction, false);
            o.symmetry = optimist::SymmetryUse::On;
            let ours = optimist::check_ltl(&model, &o, &asked);
            if matches!(
                ours.verdict(),
                Verdict::DoesNotApply(_) | Verdict::Inconclusive(_)
            ) {
                continue;
            }
            let what = format!("{} over orbits:\n{text}", reduction.name());
            assert!(ours.symmetry.is_some(), "{what}: orbits not used");
            assert_eq!(verdicts(&ours), verdicts(&full), "{what}");
            for (po, &p) in ours.properties.iter().zip(&asked.properties) {
                if let Some(l) = &po.lasso {
                    validate(&model, p, l, Fairness::None)
                        .unwrap_or_else(|e| panic!("{e}: {what}"));
                    lassos += 1;
                }
            }
            smaller += usize::from(r == 0 && ours.stats.states < full.stats.states);
            agreed[r] += 1;
        }
    }
    eprintln!(
        "temporal properties over orbits: {symmetric} of {} generated systems ({drawn} drawn) symmetric; runs over orbits that agreed with full exploration: {agreed:?} (none, sc, stubborn, sc+stubborn; {smaller} on fewer states), {lassos} lassos validated",
        systems.len()
    );
    assert!(
        agreed[0] >= 40 && agreed[1] > 0 && agreed[2] > 0 && lassos >= 20 && smaller >= 10,
        "{agreed:?} {lassos} {smaller}"
    );
}

/// The shipped models with `ltl` properties: their reports under every
/// fairness, text and JSON, pinned (with `--no-deadlock` too where the
/// model deadlocks, so that its temporal property is checked).
#[test]
fn liveness_models_under_every_fairness() {
    use crate::common::{optimist, rel, settings};
    settings().bind(|| {
        insta::glob!("../../models", "*.gc", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            if !text.contains("\nltl ") {
                return;
            }
            let file = rel(path);
            let deadlocks = text.contains("--no-deadlock");
            for fairness in ["none", "weak", "strong"] {
                let mut args = vec!["check", file.as_str(), "--fairness", fairness];
                if deadlocks {
                    args.push("--no-deadlock");
                }
                let run = optimist(&args);
                assert!(run.stderr.is_empty(), "{file}: {}", run.stderr);
                insta::assert_snapshot!(format!("ltl_{fairness}"), run.stdout);
                args.extend(["--format", "json"]);
                insta::assert_snapshot!(format!("ltl_{fairness}_json"), optimist(&args).stdout);
            }
        });
    });
}

/// Every lasso of a shipped model replays with `optimist replay` (exit 1,
/// reproduced), and one whose cycle is cut short does not (exit 3).
#[test]
fn lassos_replay_and_a_broken_one_does_not() {
    use crate::common::{json, optimist, rel};
    let dir = crate::tools::scratch("liveness-replay");
    insta::glob!("../../models", "*-live.gc", |path| {
        let file = rel(path);
        for fairness in ["none", "weak", "strong"] {
            let args = [
                "check",
                &file,
                "--no-deadlock",
                "--fairness",
                fairness,
                "--format",
                "json",
            ];
            let (run, v) = json(args);
            if run.code != 1 {
                continue;
            }
            let saved = dir.join("report.json");
            std::fs::write(&saved, &run.stdout).unwrap();
            let replay = optimist(["replay", &file, saved.to_str().unwrap()]);
            assert_eq!(
                replay.code, 1,
                "{file} {fairness}: {}{}",
                replay.stdout, replay.stderr
            );
            assert!(
                replay.stdout.contains("outcome      reproduced"),
                "{}",
                replay.stdout
            );
            // Drop the last step of the first cycle: it no longer closes.
            let mut v = v.clone();
            let props = v["ltl"]["properties"].as_array_mut().unwrap();
            let p = props.iter_mut().find(|p| p["lasso"].is_object()).unwrap();
            let cycle = p["lasso"]["cycle"].as_array_mut().unwrap();
            if cycle.len() < 2 {
                continue;
            }
            cycle.pop();
            std::fs::write(&saved, v.to_string()).unwrap();
            let broken = optimist(["replay", &file, saved.to_str().unwrap()]);
            assert_eq!(broken.code, 3, "{file} {fairness}: {}", broken.stdout);
            assert!(
                broken.stdout.contains("does not come back"),
                "{}",
                broken.stdout
            );
        }
    });
}

/// A lasso found without fairness names the thread that sits out its
/// cycle and why that is allowed; relabelled as found under weak or strong
/// fairness it is not a fair run, and `replay` rejects it (exit 3) naming
/// the thread. Under weak fairness, the lasso of the philosophers names the
/// steps after which each idle thread cannot move.
#[test]
fn replay_rejects_a_lasso_that_is_not_fair_under_its_fairness() {
    use crate::common::{json, optimist};
    let dir = crate::tools::scratch("liveness-unfair");
    let file = "models/peterson-live.gc";
    let args = ["check", file, "--fairness", "none", "--format", "json"];
    let (run, mut v) = json(args);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let props = v["ltl"]["properties"].as_array().unwrap();
    let k = props.iter().position(|p| p["lasso"].is_object()).unwrap();
    let out = v["ltl"]["properties"][k]["lasso"]["sitting_out"].clone();
    assert_eq!(out.as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(out[0]["thread"], "P0");
    assert_eq!(out[0]["kind"], "enabled");
    let saved = dir.join("report.json");
    for fairness in ["weak", "strong"] {
        v["ltl"]["properties"][k]["fairness"] = fairness.into();
        std::fs::write(&saved, v.to_string()).unwrap();
        let replay = optimist(["replay", file, saved.to_str().unwrap()]);
        assert_eq!(replay.code, 3, "{fairness}: {}", replay.stdout);
        let why =
            format!("not a fair run under {fairness} fairness: P0 could move throughout the cycle");
        assert!(replay.stdout.contains(&why), "{}", replay.stdout);
    }
    let text = optimist(["check", "models/philosophers-live.gc", "--no-deadlock"]);
    assert!(
        text.stdout
            .contains("sits out     P0: it cannot move after steps ")
            && text
                .stdout
                .contains("weak fairness asks a move only of a thread able to move at every step"),
        "{}",
        text.stdout
    );
}

/// A property found violated on the fly ends the run at that first
/// violation (exit 1), as in SPIN, where the safety check would need more
/// states than the search on the fly may meet: the report says safety is
/// not established, the same for any number of threads. Where the safety
/// check finds its own violation within those states (the philosophers'
/// deadlock, in the models' headers) it is the one reported.
#[test]
fn a_temporal_violation_found_on_the_fly_ends_the_run() {
    use crate::common::{json, optimist};
    let file = "models/philosophers-ordered-live.gc";
    let args = |threads: &'static str, format: &'static str| {
        let size = ["-D", "N=6", "--fairness", "none"];
        [
            &["check", file, "--threads", threads, "--format", format][..],
            &size,
        ]
        .concat()
    };
    let (run, v) = json(args("2", "json"));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(v["verdict"], "violated");
    assert!(v["violation"].is_null(), "{}", v["violation"]);
    let limit = v["limit"].as_str().unwrap_or_default();
    assert!(limit.contains("stopped at the first violation"), "{limit}");
    let p = &v["ltl"]["properties"][0];
    assert_eq!(p["verdict"], "violated");
    assert!(p["lasso"]["cycle"].is_array(), "{p}");
    let (_, all) = json([
        "check",
        file,
        "-D",
        "N=6",
        "--no-ltl",
        "--reduction",
        "none",
        "--format",
        "json",
    ]);
    assert!(
        v["states"].as_u64() < all["states"].as_u64(),
        "{} {}",
        v["states"],
        all["states"]
    );
    let text = |threads| {
        let out = optimist(args(threads, "text")).stdout;
        out.lines()
            .filter(|l| !l.starts_with("time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let one = text("1");
    assert!(
        one.contains("safety       not established: the run stopped"),
        "{one}"
    );
    assert_eq!(one, text("2"));
}

/// Limits: where the safety check (which runs first) stops at one, the
/// properties are inconclusive for that reason; where the product stops
/// at one, the property reports the product states it had built.
#[test]
fn limits_leave_properties_inconclusive_with_what_was_built() {
    use crate::common::json;
    let file = "models/peterson-live.gc";
    let run = |max: &str| {
        json([
            "check",
            file,
            "--fairness",
            "none",
            "--max-states",
            max,
            "--format",
            "json",
        ])
    };
    let (early, v) = run("100");
    assert_eq!(early.code, 3, "{}", early.stdout);
    let reason = v["ltl"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("the safety check was inconclusive"),
        "{reason}"
    );
    for p in v["ltl"]["properties"].as_array().unwrap() {
        assert_eq!(p["verdict"], "inconclusive", "{p}");
    }
    let (late, v) = run("700");
    assert_eq!(late.code, 3, "{}", late.stdout);
    let first = &v["ltl"]["properties"][0];
    assert_eq!(first["verdict"], "inconclusive", "{first}");
    let built = first["product_states"].as_u64().unwrap_or(0);
    assert!(built > 0 && built <= 700, "{first}");
}

#[test]
fn the_command_line_selects_properties_fairness_and_reductions() {
    use crate::common::{json, optimist};
    let file = "models/peterson-live.gc";
    // One property, by name; an unknown one is a usage error that lists them.
    let (_, v) = json([
        "check",
        file,
        "--ltl",
        "mutex",
        "--format",
        "json",
        "--fairness",
        "none",
    ]);
    assert_eq!(v["verdict"], "holds");
    assert_eq!(v["ltl"]["properties"].as_array().unwrap().len(), 1);
    let bad = optimist(["check", file, "--ltl", "enter"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("mutex, enters"), "{}", bad.stderr);
    // `--no-ltl`: safety only, under the default reduction.
    let (run, v) = json(["check", file, "--no-ltl", "--format", "json"]);
    assert_eq!((run.code, v["reduction"].as_str()), (0, Some("sc")));
    assert!(v["ltl"].is_null());
    // The default reduction for temporal properties is none, and says so.
    let run = optimist(["check", file]);
    assert!(
        run.stdout.contains("reduction    none: every interleaving"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("the default for `ltl` properties"));
    // `sc` decides them under every fairness, on fewer states; movers
    // refuses them with its reason; stubborn refuses fairness only.
    let (run, v) = json(["check", file, "--reduction", "sc", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(v["ltl"]["properties"][1]["verdict"], "holds");
    assert!(v["ltl"]["states"].as_u64().unwrap() < 666, "{v}");
    let (run, v) = json([
        "check",
        file,
        "--reduction",
        "sc",
        "--fairness",
        "strong",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(v["ltl"]["properties"][1]["verdict"], "holds");
    let run = optimist(["check", file, "--reduction", "movers"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stdout.contains("does not preserve temporal properties"),
        "{}",
        run.stdout
    );
    // A thread that can spin invisibly for ever: sc refuses, naming it.
    let spin = "tests/integration/inputs/soundness/ltl-invisible-spin.gc";
    let run = optimist(["check", spin, "--reduction", "sc"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("every run of invisible transitions ends"),
        "{}",
        run.stdout
    );
    let run = optimist(["check", file, "--reduction", "stubborn"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stdout.contains("only without fairness"),
        "{}",
        run.stdout
    );
    let (run, v) = json([
        "check",
        file,
        "--reduction",
        "stubborn",
        "--fairness",
        "none",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(v["ltl"]["properties"][1]["verdict"], "violated");
    // The store: fingerprints work and say so; bitstate is refused.
    let (run, v) = json(["check", file, "--hash-compact", "--format", "json"]);
    assert_eq!(
        (run.code, &v["ltl"]["properties"][1]["verdict"]),
        (0, &"holds".into())
    );
    assert_eq!(v["ltl"]["store"]["probabilistic"], true);
    let run = optimist(["check", file, "--hash-compact"]);
    assert!(
        run.stdout.contains("`holds` is probabilistic"),
        "{}",
        run.stdout
    );
    let run = optimist(["check", file, "--bitstate"]);
    assert_eq!(run.code, 3);
    assert!(run.stdout.contains("--bitstate"), "{}", run.stdout);
    // The same text for any number of workers.
    let one = optimist([
        "check",
        "models/philosophers-ordered-live.gc",
        "--threads",
        "1",
    ]);
    let four = optimist([
        "check",
        "models/philosophers-ordered-live.gc",
        "--threads",
        "4",
    ]);
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&one.stdout), strip(&four.stdout));
    // A state limit inside the product ends the run inconclusive.
    let run = optimist(["check", file, "--max-states", "700"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(run.stdout.contains("state limit of 700"), "{}", run.stdout);
}

/// `graph --trace` draws a lasso when the model's safety holds.
#[test]
fn graph_draws_a_lasso() {
    let run = crate::common::optimist([
        "graph",
        "--trace",
        "models/spinlock-live.gc",
        "--format",
        "svg",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("gets: steps 2 to 9 repeat for ever"),
        "{}",
        run.stdout
    );
}

/// The explorer follows a lasso step by step: loaded from the JSON report,
/// every step of the stem and of the cycle, ending where the cycle began,
/// and on round the cycle again (the run repeats it for ever).
#[test]
fn the_explorer_follows_a_lasso() {
    let (_, v) = crate::common::json(["check", "models/spinlock-live.gc", "--format", "json"]);
    let (_, model) = optimist::load(std::path::Path::new("models/spinlock-live.gc"), &[]).unwrap();
    let mut session = optimist::Session::new(model, "models/spinlock-live.gc");
    session.load(&v).unwrap();
    let lasso = &v["ltl"]["properties"][0]["lasso"];
    let steps = lasso["stem"].as_array().unwrap().len() + lasso["cycle"].as_array().unwrap().len();
    for _ in 0..steps {
        session.follow().unwrap();
    }
    let end = session.view();
    assert_eq!(end.position, steps);
    let entry = lasso["entry_state"].as_object().unwrap();
    assert_eq!(&end.state, entry);
    // Past the end, the cycle's first step again.
    session.follow().unwrap();
    let again = session.view();
    assert_eq!(again.position, steps + 1);
    let stem = lasso["stem"].as_array().unwrap().len();
    let (a, b) = (&again.path[steps], &again.path[stem]);
    assert_eq!(
        (&a.thread, a.at.line),
        (&b.thread, b.at.line),
        "the lasso has {steps} steps"
    );
}
