//! Tests of the certifier: the shipped models, hand-made systems that break
//! one obligation each, the invariants the local level relies on, and a
//! property test over generated systems.

use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;

use super::exhaustive::explore;
use super::law::Failure;
use super::system::Sys;
use super::theorem::Theorem;
use super::*;
use crate::explore::{Budget, Limits, Options, Outcome, Verdict};

// The random-system generator of the integration tests, read-only (the
// movers tests use it too).
#[allow(dead_code)]
#[path = "../../tests/integration/generate.rs"]
pub(super) mod generate;

/// The local level checks one copy per procedure, but the exhaustive level
/// and the cross-check of the two levels pay for every copy of a recursive
/// procedure (one per stack depth), so models are compiled with a small
/// stack bound (figure 4 of Qadeer, Rajamani and Rehof recurses); the
/// shipped models without recursion call no deeper than this.
const STACK: crate::CompileOptions = crate::CompileOptions { max_stack: 2 };

pub(super) fn load(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    crate::load_with(&path, &Vec::new(), &STACK)
        .expect("the model loads")
        .1
}

pub(super) fn compile(text: &str) -> Model {
    compile_at(text, STACK.max_stack)
}

fn compile_at(text: &str, max_stack: u32) -> Model {
    let src = crate::Source::new("inline.gc", text).expect("not empty");
    crate::compile_with(&src, &Vec::new(), &crate::CompileOptions { max_stack })
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn load_at(name: &str, max_stack: u32) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    crate::load_with(&path, &Vec::new(), &crate::CompileOptions { max_stack })
        .expect("the model loads")
        .1
}

fn at(level: CertifyLevel) -> CertifyOptions {
    CertifyOptions {
        level,
        ..CertifyOptions::default()
    }
}

pub(super) fn models() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("models/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".gc"))
        .map(|n| format!("models/{n}"))
        .collect();
    names.sort();
    names
}

pub(super) fn witness(cert: &Certification, law: Obligation) -> &Failure {
    cert.laws
        .iter()
        .find(|r| r.law == law)
        .and_then(|r| r.witness.as_ref())
        .unwrap_or_else(|| panic!("{} has no witness", law.key()))
}

/// Every transition of a witness really leads from its state to the next
/// in the theorem's system, and a witness path from the initial state
/// replays.
pub(super) fn replays<T: Theorem>(sys: &T, f: &Failure) -> Result<(), String> {
    for &(a, k, b) in &f.steps {
        let from = sys.unshown(&f.states[a].1);
        match sys.step(k, &from) {
            Some(to) if T::shown(&to) == f.states[b].1 => {}
            _ => {
                return Err(format!(
                    "{} -> {} by transition {k} does not replay",
                    f.states[a].0, f.states[b].0
                ));
            }
        }
    }
    if let Some(path) = &f.reached_by {
        let mut cur = sys.init();
        for (k, st) in path {
            match sys.step(*k, &cur) {
                Some(to) if &T::shown(&to) == st => cur = to,
                _ => return Err(format!("the path to the witness breaks at transition {k}")),
            }
        }
        if f.states.first().map(|s| &s.1) != Some(&T::shown(&cur)) {
            return Err("the path does not reach the witness's first state".into());
        }
    }
    Ok(())
}

#[test]
fn barrier_handoff_and_counter_certify() {
    for name in [
        "models/barrier.gc",
        "models/handoff.gc",
        "models/counter.gc",
    ] {
        let model = load(name);
        let cert = certify(&model, &at(CertifyLevel::Local));
        let report = CertifyReport::new(&model, name, &cert);
        assert_eq!(cert.verdict(), ObligationStatus::Holds, "{report}");
        assert_eq!(report.exit_code(), 0);
        assert!(report.conclusion.contains("(19) applies"), "{report}");
        assert!(
            report.conclusion.contains("proofs/reduction.proof"),
            "{report}"
        );
    }
}

#[test]
fn barrier_certifies_exhaustively_over_its_106_states() {
    let model = load("models/barrier.gc");
    let cert = certify(&model, &at(CertifyLevel::Exhaustive));
    assert_eq!(cert.verdict(), ObligationStatus::Holds);
    // No violation is reachable, so the system with q has the same states.
    assert_eq!(cert.states, Some(106));
}

/// `law` fails in `cert`, made at `level`.
fn assert_fails(cert: &Certification, law: Obligation, level: CertifyLevel) {
    assert_eq!(cert.status(law), ObligationStatus::Fails, "{level:?}");
}

/// The certifications of `model` at both levels, each checked to fail
/// every one of `laws`: a failure must show at the local level and
/// exhaustively alike.
fn failing_at_both_levels(model: &Model, laws: &[Obligation]) -> [Certification; 2] {
    [CertifyLevel::Local, CertifyLevel::Exhaustive].map(|level| {
        let cert = certify(model, &at(level));
        for &law in laws {
            assert_fails(&cert, law, level);
        }
        cert
    })
}

#[test]
fn spin_forever_fails_11_with_its_lasso() {
    let model = load("models/spin-forever.gc");
    let sys = Sys::new(&model);
    for cert in failing_at_both_levels(&model, &[Obligation::H11, Obligation::FiniteInvis]) {
        let f = witness(&cert, Obligation::H11);
        replays(&sys, f).unwrap();
        // A lasso: the loop starts at s0 and its last transition returns there,
        // through states without q, all of the spinner's invisible transitions.
        assert_eq!(f.loop_from, Some(0));
        assert_eq!(f.steps.last().map(|s| s.2), Some(0));
        assert!(f.states.iter().all(|(_, st)| !st.q));
        for &(a, k, _) in &f.steps {
            let tr = &model.transitions[k];
            assert_eq!(model.threads[tr.thread as usize].name, "spinner");
            assert!(!sys.stops(tr.thread as usize, f.states[a].1.s[tr.thread as usize]));
        }
        let report = CertifyReport::new(&model, "spin-forever.gc", &cert);
        assert_eq!(report.exit_code(), 1);
        let json = serde_json::to_value(&report).unwrap();
        let w = &json["hypotheses"]["11"]["witness"];
        assert_eq!(json["hypotheses"]["11"]["holds"], false);
        assert_eq!(w["loop_from"], 0);
        assert!(w["transitions"][0]["line"].as_u64().is_some());
    }
    // Exhaustively, the lasso's stem starts at the initial state: `go := true`.
    let cert = certify(&model, &at(CertifyLevel::Exhaustive));
    let stem = witness(&cert, Obligation::H11).reached_by.as_ref().unwrap();
    assert_eq!(stem.len(), 1);
    assert_eq!(model.transitions[stem[0].0].text, "go := true");
}

#[test]
fn endexcl_fails_wfendexcl_with_a_witness() {
    let model = load("models/endexcl.gc");
    let sys = Sys::new(&model);
    for cert in failing_at_both_levels(&model, &[Obligation::EndExcl]) {
        let f = witness(&cert, Obligation::EndExcl);
        replays(&sys, f).unwrap();
        let &(_, k, _) = &f.steps[0];
        assert_eq!(model.transitions[k].text, "held := -1");
        // The owner's predicate holds before the thief's step, not after.
        let owner = model
            .threads
            .iter()
            .position(|t| t.name == "owner")
            .unwrap();
        assert_eq!(model.excl(0, owner, &f.states[0].1.s), Ok(true));
        assert_eq!(model.excl(0, owner, &f.states[1].1.s), Ok(false));
    }
}

/// Releasing a semaphore-guarded resource that the thread does not hold:
/// `intruder` resets the holder while `user` is inside.
const SEM_STEAL: &str = "
system sem_steal;
sem s : 0..1 = 1;
shared holder : -1..1 = -1;
protected x : 0..2 = 0 excl(t) = holder == t;

thread user {
  down s;
  holder := user;
  x := 1;
  x := 2;
  holder := -1;
  up s;
}

thread intruder {
  await holder == user;
  holder := -1;
}
";

#[test]
fn a_thread_resetting_another_threads_semaphore_fails_wfendexcl() {
    let model = compile(SEM_STEAL);
    // (15) fails with WFendExcl: the user's invisible `x := 2` cannot move
    // before the intruder's reset.
    failing_at_both_levels(&model, &[Obligation::EndExcl, Obligation::H15]);
}

/// A guard that reads another thread's control point through `at` at an
/// invisible point: the reduction treats `a` as blocked for good when its
/// await is false, but `b`'s invisible step enables it. The reduced check
/// misses the assertion failure; certify reports (12).
const AT_GUARD: &str = "
system atguard;
shared y : 0..1 = 0;

thread a {
  local r : 0..1 = 0;
  y := 1;
  r := 1;
  await at(b, B2);
  assert r == 0;
}

thread b {
  local k : 0..1 = 0;
  B1: y := 0;
  k := 1;
  B2: k := 0;
}
";

/// Certify found that an `await` reading another thread's control point
/// was classified invisible, so the reduced check said `holds` where the
/// full check finds an assertion failure; (12) and (14) failed. Such reads,
/// and the steps that move the observed thread in or out of the point, are
/// now visible: the two checks agree and the hypotheses hold.
#[test]
fn a_guard_reading_another_threads_point_is_visible() {
    let model = compile(AT_GUARD);
    let full = run(&model, "none");
    let reduced = run(&model, "sc");
    assert_eq!(full.verdict, Verdict::Violated);
    assert_eq!(reduced.verdict, Verdict::Violated);
    for level in [CertifyLevel::Local, CertifyLevel::Exhaustive] {
        let cert = certify(&model, &at(level));
        for o in [Obligation::H12, Obligation::H14] {
            assert_eq!(cert.status(o), ObligationStatus::Holds, "{level:?} {o:?}");
        }
    }
}

#[test]
fn memreuse_and_master_worker_fail_locally_but_certify_exhaustively() {
    for name in ["models/memreuse.gc", "models/master-worker.gc"] {
        let model = load(name);
        let local = certify(&model, &at(CertifyLevel::Local));
        let exhaustive = certify(&model, &at(CertifyLevel::Exhaustive));
        assert_eq!(
            local.status(Obligation::EndExcl),
            ObligationStatus::Fails,
            "{name}"
        );
        assert_eq!(exhaustive.verdict(), ObligationStatus::Holds, "{name}");
        // The local witness is a valuation no run reaches.
        let reached = explore(
            &Sys::new(&model),
            DEFAULT_MAX_STATES,
            false,
            &mut Budget::unlimited(),
        )
        .reached;
        let first = &witness(&local, Obligation::EndExcl).states[0].1;
        assert!(reached.find(&Sys::new(&model), first).is_none(), "{name}");
    }
}

#[test]
fn a_frame_above_the_bound_is_not_checked_never_holds() {
    let model = load("models/counter.gc");
    let options = CertifyOptions {
        frame_bound: 100,
        ..CertifyOptions::default()
    };
    let cert = certify(&model, &options);
    assert_eq!(cert.status(Obligation::H14), ObligationStatus::NotChecked);
    assert_eq!(cert.verdict(), ObligationStatus::NotChecked);
    let report = CertifyReport::new(&model, "counter.gc", &cert);
    assert_eq!(report.exit_code(), 3);
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["hypotheses"]["14"]["holds"].is_null());
    assert!(
        json["hypotheses"]["14"]["checked"]
            .as_str()
            .unwrap()
            .starts_with("not checked (frame of ")
    );
}

#[test]
fn a_state_limit_leaves_the_exhaustive_level_not_checked() {
    let model = load("models/counter.gc");
    let options = CertifyOptions {
        level: CertifyLevel::Exhaustive,
        max_states: 500,
        ..CertifyOptions::default()
    };
    let cert = certify(&model, &options);
    assert_eq!(cert.status(Obligation::H14), ObligationStatus::NotChecked);
    assert_eq!(cert.status(Obligation::InitExcl), ObligationStatus::Holds);
    assert_eq!(cert.verdict(), ObligationStatus::NotChecked);
}

/// The local level relies on two invariants of reachable states: the
/// locksets, and q wherever disjointness or an invariant is broken.
#[test]
fn every_reachable_state_agrees_with_the_locksets_and_is_normalised() {
    for name in models() {
        let model = load(&name);
        let sys = Sys::new(&model);
        let reached = explore(&sys, 200_000, false, &mut Budget::unlimited()).reached;
        let all: Vec<u32> = (0..model.slots.len() as u32).collect();
        for st in reached.states(&sys) {
            let mut s = st.s.clone();
            assert!(
                sys.locks.consistent(&mut s, &all, sys.threads()),
                "{name}: {st:?}"
            );
            assert!(st.q || !sys.bad(&st.s), "{name}: {st:?}");
        }
    }
}

#[test]
fn every_witness_of_a_shipped_model_replays() {
    for name in models() {
        let model = load(&name);
        let sys = Sys::new(&model);
        for level in [CertifyLevel::Local, CertifyLevel::Exhaustive] {
            let cert = certify(&model, &at(level));
            for r in &cert.laws {
                if let Some(f) = &r.witness {
                    replays(&sys, f).unwrap_or_else(|e| panic!("{name} {}: {e}", r.law.key()));
                }
                assert_eq!(r.witness.is_some(), r.status == ObligationStatus::Fails);
            }
        }
    }
}

/// A check under the registered reduction called `reduction`.
pub(super) fn run(model: &Model, reduction: &str) -> Outcome {
    let options = Options {
        reduction: reduction.parse().expect("a registered reduction"),
        limits: Limits {
            max_states: Some(100_000),
            max_time: Some(Duration::from_secs(20)),
            max_memory: None,
        },
        ..Options::default()
    };
    crate::check(model, &options, &mut |_| {})
}

pub(super) fn verdict(o: &Outcome) -> &'static str {
    match o.verdict {
        Verdict::Holds => "holds",
        Verdict::Violated => "violated",
        Verdict::Inconclusive(_) | Verdict::DoesNotApply(_) => "inconclusive",
    }
}

/// The two levels and the checker, on one generated system.
fn agree(text: &str) -> Result<(), TestCaseError> {
    let model = compile(text);
    let limit = CertifyOptions {
        max_states: 20_000,
        ..CertifyOptions::default()
    };
    let [local, exhaustive, _] =
        levels_agree(&Sys::new(&model), &model, &limit, Obligation::ALL, text)?;
    // Whenever certify holds, the reduced and full verdicts agree.
    if local.verdict() == ObligationStatus::Holds || exhaustive.verdict() == ObligationStatus::Holds
    {
        reduced_agrees(&model, "sc", "reduced", text)?;
    }
    Ok(())
}

/// Certifies `model` at the local level, the exhaustive level and the
/// cross-check, with `options`' other settings: every witness of the first
/// two replays in `sys`, and for each of `laws` checked at all three, the
/// local level holding implies the exhaustive level holding, and on the
/// same (reachable) states the two levels agree exactly.
pub(super) fn levels_agree<T: Theorem>(
    sys: &T,
    model: &Model,
    options: &CertifyOptions,
    laws: impl IntoIterator<Item = Obligation>,
    text: &str,
) -> Result<[Certification; 3], TestCaseError> {
    let at = |level| CertifyOptions {
        level,
        ..options.clone()
    };
    let local = certify(model, &at(CertifyLevel::Local));
    let exhaustive = certify(model, &at(CertifyLevel::Exhaustive));
    let cross = certify(model, &at(CertifyLevel::LocalOnReachable));
    for cert in [&local, &exhaustive] {
        for r in &cert.laws {
            if let Some(f) = &r.witness {
                replays(sys, f).map_err(|e| {
                    TestCaseError::fail(format!("{} witness: {e}\n{text}", r.law.key()))
                })?;
            }
        }
    }
    for law in laws {
        let (l, e, c) = (local.status(law), exhaustive.status(law), cross.status(law));
        if [l, e, c].contains(&ObligationStatus::NotChecked) {
            continue;
        }
        // Local holds at every valuation, so at every reachable one.
        prop_assert!(
            !(l == ObligationStatus::Holds && e == ObligationStatus::Fails),
            "{}: local holds, exhaustive fails\n{}",
            law.key(),
            text
        );
        // On the same (reachable) states, the two levels agree exactly.
        prop_assert_eq!(
            c,
            e,
            "{}: local on reachable states vs exhaustive\n{}",
            law.key(),
            text
        );
    }
    Ok([local, exhaustive, cross])
}

/// The check under `reduction` (named `name` in messages) and full
/// exploration agree where both conclude: what a certified reduction
/// promises.
pub(super) fn reduced_agrees(
    model: &Model,
    reduction: &str,
    name: &str,
    text: &str,
) -> Result<(Outcome, Outcome), TestCaseError> {
    let full = run(model, "none");
    let reduced = run(model, reduction);
    if verdict(&full) != "inconclusive" && verdict(&reduced) != "inconclusive" {
        prop_assert_eq!(
            verdict(&full),
            verdict(&reduced),
            "certified, but full {:?} and {} {:?} differ\n{}",
            full.violation.as_ref().map(|v| v.problem.clone()),
            name,
            reduced.violation.as_ref().map(|v| v.problem.clone()),
            text
        );
    }
    Ok((full, reduced))
}

/// The configuration of certify's property tests: `cases` cases, and
/// shrinking bounded so that a failure is reported in reasonable time.
pub(super) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 300,
        ..ProptestConfig::default()
    }
}

/// Adds to a generated system (with named threads) a thread that breaks a
/// hypothesis: it spins forever in invisible code after a visible step,
/// gives away a flag-guarded variable it does not own, or waits at an
/// invisible point for another thread's control point.
fn with_rogue(text: String, pick: u8) -> String {
    if text.contains("threads ") {
        return text;
    }
    let body = match pick % 4 {
        0 => "  y := (y + 1) % 4;\n  SP: while true {\n    r := (r + 1) % 3;\n  }\n",
        1 if text.contains("shared own") => "  await y > 0;\n  own := -1;\n",
        1 if text.contains("shared turn") => "  await y > 0;\n  turn := 0;\n",
        2 => "  y := (y + 1) % 4;\n  r := 1;\n  await !at(w0, L0);\n  assert r == 0;\n",
        _ => return text,
    };
    format!("{text}\nthread rogue {{\n  local r : 0..2 = 0;\n{body}}}\n")
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn levels_agree_and_certified_reductions_are_sound(data in generate::choices(), pick in any::<u8>()) {
        // The local level checks one copy per procedure, but the exhaustive
        // level and the cross-check pay for every copy of a procedure (one
        // per stack depth), so one case in four may have procedures
        // (one_copy_and_every_copy_agree has only such cases, and the
        // integration differential test has them all).
        let mut choices = generate::Choices::new(&data);
        choices.procs = pick % 4 == 0;
        let text = generate::system(&mut choices);
        agree(&with_rogue(text, pick))?;
    }
}

/// A slot with a huge range makes frames too large to enumerate: the
/// obligations are not checked, quickly and without running out of memory.
#[test]
fn huge_ranges_leave_obligations_not_checked() {
    let model = compile(
        "threads 2;
lock m;
protected x : 0..1 = 0 by m;
thread T {
  local r : 0..1000000000000 = 0;
  acquire m;
  x := 1;
  r := (r + 1) % 1000;
  release m;
}
",
    );
    let cert = certify(&model, &CertifyOptions::default());
    assert_eq!(cert.status(Obligation::H14), ObligationStatus::NotChecked);
    assert_eq!(cert.verdict(), ObligationStatus::NotChecked);
    let report = CertifyReport::new(&model, "huge.gc", &cert);
    assert!(report.to_string().contains("not checked (frame of "));
}

// ------------------------------------------------- one copy per procedure

/// Whether an outcome holds, fails, or says nothing.
fn kind(o: &local::InstOutcome) -> Option<bool> {
    match o {
        local::InstOutcome::Holds { .. } => Some(true),
        local::InstOutcome::Fails { .. } => Some(false),
        _ => None,
    }
}

/// The instance that stands for `inst` when one copy per procedure is
/// checked: the same obligation at the representatives of its points.
fn representative(sys: &Sys, inst: &law::Inst) -> law::Inst {
    use law::Inst;
    let c = &sys.copies;
    match inst.clone() {
        Inst::Point { law, i, b } => Inst::Point {
            law,
            i,
            b: c.rep(i, b),
        },
        Inst::Pair { law, j, a, i, b } => Inst::Pair {
            law,
            j,
            a: c.rep(j, a),
            i,
            b: c.rep(i, b),
        },
        Inst::EndExcl { j, a, p, i } => Inst::EndExcl {
            j,
            a: c.rep(j, a),
            p,
            i,
        },
        Inst::Loop { law, i, points } => {
            let loops = law::invisible_loops(sys, i);
            if c.loop_checked(sys.model, i, &points, &loops) {
                Inst::Loop { law, i, points }
            } else {
                let shift = c.rep(i, points[0]) - points[0];
                Inst::Loop {
                    law,
                    i,
                    points: points.iter().map(|&pc| pc + shift).collect(),
                }
            }
        }
        other => other,
    }
}

/// Every instance of every copy, checked at every value of its return
/// points, has the outcome of the instance that stands for it, checked
/// with the return points narrowed: the argument of `copies.rs`, instance
/// by instance, where both are within `bound`. Returns the number of
/// instances compared.
fn one_copy_stands_for_every_copy(model: &Model, bound: u64, what: &str) -> usize {
    let sys = Sys::new(model);
    let run = |one_copy: bool| {
        let mut valuations = local::Valuations {
            left: u64::MAX,
            limit: u64::MAX,
        };
        local::run(
            &sys,
            bound,
            None,
            one_copy,
            &mut Budget::unlimited(),
            &mut valuations,
        )
    };
    let every = run(false);
    let one = run(true);
    let checked: std::collections::HashMap<&law::Inst, Option<bool>> =
        one.outcomes.iter().map(|(i, o)| (i, kind(o))).collect();
    let mut compared = 0;
    for (inst, o) in &every.outcomes {
        let rep = representative(&sys, inst);
        let Some(&got) = checked.get(&rep) else {
            panic!("{what}: {rep:?}, which stands for {inst:?}, was not checked");
        };
        if let (Some(want), Some(got)) = (kind(o), got) {
            assert_eq!(got, want, "{what}: {inst:?} and {rep:?} differ");
            compared += 1;
        }
    }
    // Nothing is checked that does not stand for some instance.
    assert!(one.outcomes.len() <= every.outcomes.len(), "{what}");
    compared
}

/// Every obligation has the same status with one copy per procedure as
/// with every copy, where both are checked within `bound` valuations per
/// instance (checking every copy also enumerates every value of the
/// return points, so it may leave instances not checked).
fn same_statuses(model: &Model, bound: u64, what: &str) {
    let at = |one_copy: bool| {
        certify(
            model,
            &CertifyOptions {
                one_copy,
                frame_bound: bound,
                ..CertifyOptions::default()
            },
        )
    };
    let (one, every) = (at(true), at(false));
    for law in Obligation::ALL {
        let (o, e) = (one.status(law), every.status(law));
        if e != ObligationStatus::NotChecked {
            assert_eq!(o, e, "{what}: {}", law.key());
        }
    }
}

#[test]
fn one_copy_stands_for_every_copy_in_the_shipped_models() {
    for name in models() {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&name))
            .expect("readable");
        if !text.contains("proc ") {
            continue;
        }
        // Deep enough that figure 4 has copies alike at every point.
        for stack in [2, 4] {
            let model = load_at(&name, stack);
            let what = format!("{name} --max-stack {stack}");
            // Instance by instance, hence obligation by obligation.
            one_copy_stands_for_every_copy(&model, FRAME_BOUND, &what);
        }
    }
}

#[test]
fn recursive_copies_are_checked_once() {
    // Beyond the shallowest copies (which return into other callers) and
    // the deepest (whose call is the stack bound), every copy of figure
    // 4's foo is alike: the same points are checked at every bound.
    let at = |stack| {
        let model = load_at("models/summaries-fig4.gc", stack);
        let sys = Sys::new(&model);
        assert_eq!(sys.copies.every_copy, None);
        (sys.copies.checked, sys.copies.points)
    };
    let (four, sixteen, many) = (at(4), at(16), at(64));
    assert_eq!(four.0, sixteen.0);
    assert_eq!(sixteen.0, many.0);
    assert!(many.1 > 4 * sixteen.1 - 100, "{many:?} {sixteen:?}");
    let model = load_at("models/summaries-fig4.gc", 64);
    let cert = certify(&model, &CertifyOptions::default());
    assert_eq!(cert.verdict(), ObligationStatus::Holds);
    let note = cert.procedures.as_ref().expect("a note on the copies");
    assert!(note.one_copy);
    assert_eq!(note.checked, many.0);
}

/// A guard that reads the control point of a thread that runs procedures
/// breaks the premise: copies at different depths are told apart, so
/// every copy is checked, and the report says why.
#[test]
fn reading_a_threads_point_checks_every_copy() {
    let text = "
lock m;
protected g : 0..3 = 0 by m;
proc f(n : 0..2) {
  if n > 0 { call f(n - 1); }
  F: acquire m;
  g := g % 3 + 1;
  release m;
}
thread a { call f(2); }
thread b { await !at(a, F); acquire m; g := 0; release m; }
";
    let model = compile_at(text, 4);
    let sys = Sys::new(&model);
    assert_eq!(
        sys.copies.every_copy,
        Some("a transition reads the control point of a thread that runs procedures")
    );
    assert_eq!(sys.copies.checked, sys.copies.points);
    one_copy_stands_for_every_copy(&model, FRAME_BOUND, "at()");
    let cert = certify(&model, &CertifyOptions::default());
    let report = CertifyReport::new(&model, "inline.gc", &cert).to_string();
    assert!(
        report.contains("procedures  every copy:")
            && report.contains("control point of a thread that runs procedures"),
        "{report}"
    );
    // Without `at`, one copy per procedure.
    let model = compile_at(&text.replace("await !at(a, F);", ""), 4);
    assert_eq!(Sys::new(&model).copies.every_copy, None);
}

proptest! {
    #![proptest_config(config(96))]

    /// On generated systems with procedures (some recursive), checking one
    /// copy per procedure gives every instance the outcome of checking
    /// every copy, and every obligation the same status.
    #[test]
    fn one_copy_and_every_copy_agree(data in generate::choices(), pick in any::<u8>()) {
        let mut choices = generate::Choices::new(&data);
        choices.sharing = Some(pick % 2 == 0);
        let text = with_rogue(generate::system(&mut choices), pick / 2);
        let model = compile_at(&text, 3 + u32::from(pick % 2));
        one_copy_stands_for_every_copy(&model, 1 << 12, &text);
        same_statuses(&model, 1 << 12, &text);
    }
}
