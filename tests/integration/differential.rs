//! Soundness of the reduction, tested differentially: on random lock-based
//! systems the reduced verdict equals the full verdict, the reduced state
//! space is no larger, and every reduced counterexample replays transition
//! by transition in the full semantics and reaches the same violation.

use std::time::Duration;

use optimist::{
    Ignoring, Interference, Kind, Limits, Model, Options, Outcome, Problem, Reduction, Source,
    SymmetryUse, Verdict, compile,
};
use proptest::prelude::*;

use crate::generate::{Choices, choices, system};

fn run(model: &Model, reduction: Reduction, ignoring: Ignoring, deadlock: bool) -> Outcome {
    run_with(
        model,
        reduction,
        ignoring,
        deadlock,
        false,
        Interference::default(),
    )
}

/// `--summaries` under `reduction`, shared by interchangeable threads or
/// kept per thread.
fn summarized(model: &Model, reduction: Reduction, per_thread: bool) -> Outcome {
    let mut options = options(
        reduction,
        Ignoring::Cpc,
        false,
        true,
        Interference::default(),
    );
    options.summaries_per_thread = per_thread;
    optimist::check(model, &options, &mut |_| {})
}

fn run_with(
    model: &Model,
    reduction: Reduction,
    ignoring: Ignoring,
    deadlock: bool,
    summaries: bool,
    interference: Interference,
) -> Outcome {
    let options = options(reduction, ignoring, deadlock, summaries, interference);
    optimist::check(model, &options, &mut |_| {})
}

fn options(
    reduction: Reduction,
    ignoring: Ignoring,
    deadlock: bool,
    summaries: bool,
    interference: Interference,
) -> Options {
    Options {
        reduction,
        limits: Limits {
            max_states: Some(200_000),
            max_time: Some(Duration::from_secs(20)),
            max_memory: None,
        },
        deadlock,
        ignoring,
        summaries,
        summaries_per_thread: false,
        interference,
        // Every thread count gives the same outcome: two workers on blocks
        // of one state share even the smallest levels.
        threads: 2,
        block: 1,
        kept: Default::default(),
        stats: false,
        cluster: None,
        fingerprint: 0,
        symmetry: SymmetryUse::Off,
    }
}

/// Replays a trace in the full semantics (one definition for every test).
pub use crate::differential2::replays;

/// Keeps a failing model as a regression file. Shrinking only ever replaces a
/// failing case by a smaller failing one, so the file ends up holding the
/// minimal model; give it an `// expect` header to keep it in the suite.
fn keep_failure(text: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/inputs/soundness/shrunk.gc");
    let _ = std::fs::write(
        &path,
        format!(
            "// Shrunk by the differential test: full and reduced verdicts differ.\n// expect: FILL IN\n\n{text}"
        ),
    );
    eprintln!("failing model kept in {}", path.display());
}

fn verdict(o: &Outcome) -> &'static str {
    match o.verdict {
        Verdict::Holds => "holds",
        Verdict::Violated => "violated",
        Verdict::Inconclusive(_) => "inconclusive",
        Verdict::DoesNotApply(_) => "does not apply",
    }
}

fn compare(text: &str, deadlock: bool) -> Result<(), TestCaseError> {
    let src = Source::new("generated.gc", text).unwrap();
    let model = compile(&src, &[]).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let full = run(&model, Reduction::NONE, Ignoring::Cpc, deadlock);
    if matches!(full.verdict, Verdict::Inconclusive(_)) {
        return Ok(());
    }
    if let Some(v) = &full.violation {
        replays(&model, &v.trace, &v.problem)
            .map_err(|e| TestCaseError::fail(format!("full trace does not replay: {e}\n{text}")))?;
    }
    // Both sound ways with loops that can run forever, and the old one
    // that reports them, which may only differ by saying well-formedness.
    // Movers preserve deadlocks too: a transaction ends before a
    // statement that may block (with summaries they end inconclusive).
    let movers = Some((Reduction::MOVERS, Ignoring::Cpc));
    let mut reduced_states = None;
    // Last, Stoller-Cohen and mover transactions read off procedure
    // summaries, and stubborn sets under every way of judging interference.
    let over_movers = Some(Reduction::MOVERS_STUBBORN);
    let stubborn = [Reduction::STUBBORN, Reduction::SC_STUBBORN]
        .into_iter()
        .chain(over_movers)
        .flat_map(|r| {
            [
                Interference::Semantic,
                Interference::State,
                Interference::Static,
            ]
            .map(|i| (r, Ignoring::Cpc, false, i))
        });
    for (reduction, ignoring, summaries, interference) in [
        (Reduction::SC, Ignoring::Cpc, false),
        (Reduction::SC, Ignoring::Cycles, false),
        (Reduction::SC, Ignoring::Forbid, false),
    ]
    .into_iter()
    .chain(movers.map(|(r, i)| (r, i, false)))
    .chain([(Reduction::SC, Ignoring::Cpc, true)])
    .chain(movers.map(|(r, i)| (r, i, true)))
    .map(|(r, i, s)| (r, i, s, Interference::default()))
    .chain(stubborn)
    {
        let red = run_with(
            &model,
            reduction,
            ignoring,
            deadlock,
            summaries,
            interference,
        );
        if matches!(red.verdict, Verdict::Inconclusive(_)) {
            continue;
        }
        let how = format!(
            "{} {}{} --interference {}",
            reduction.name(),
            ignoring.name(),
            if summaries { " --summaries" } else { "" },
            interference.name()
        );
        if let Some(v) = &red.violation {
            if let Err(e) = replays(&model, &v.trace, &v.problem) {
                keep_failure(text);
                return Err(TestCaseError::fail(format!(
                    "reduced ({how}) trace does not replay: {e}\n{text}"
                )));
            }
            if let Verdict::DoesNotApply(why) = &red.verdict {
                // Found broken as the search ran: loops under `forbid`, and
                // a predicate another thread falsifies (WFendExcl). The
                // run refuses (exit 3); nothing to compare.
                prop_assert!(
                    ignoring == Ignoring::Forbid || matches!(v.problem, Problem::EndExcl { .. }),
                    "{how}: refused with {:?}: {why}\n{text}",
                    v.problem
                );
                continue;
            }
            prop_assert!(
                v.kind() != Kind::WellFormedness || v.initial,
                "{how}: well-formedness violation {:?}\n{text}",
                v.problem
            );
        }
        prop_assert!(
            !matches!(red.verdict, Verdict::DoesNotApply(_)),
            "{how}: refused: {:?}\n{text}",
            red.verdict
        );
        if verdict(&full) != verdict(&red) {
            keep_failure(text);
        }
        prop_assert_eq!(
            verdict(&full),
            verdict(&red),
            "{}: full {:?}\nreduced {:?}\n{}",
            how,
            full.violation.as_ref().map(|v| &v.problem),
            red.violation.map(|v| v.problem),
            text
        );
        if full.verdict == Verdict::Holds {
            prop_assert!(
                red.stats.states <= full.stats.states,
                "{how}: reduced {} > full {} states\n{}",
                red.stats.states,
                full.stats.states,
                text
            );
            if (reduction, ignoring, summaries) == (Reduction::SC, Ignoring::Cpc, false) {
                reduced_states = Some(red.stats.states);
            }
        }
    }
    // Cutting loops without scheduling anyone is the lower bound.
    if let Some(cpc) = reduced_states {
        let unsound = run(&model, Reduction::SC, Ignoring::Unsound, deadlock);
        if unsound.verdict == Verdict::Holds {
            prop_assert!(
                unsound.stats.states <= cpc,
                "unsound {} > cpc {} states\n{}",
                unsound.stats.states,
                cpc,
                text
            );
        }
    }
    Ok(())
}

/// Every reduction over the orbits of the system's symmetry (where it
/// has one: these systems are copies of one body) gives full
/// exploration's verdict, stores no more states, and its counterexample
/// replays in the system; whether a symmetry was used.
fn compare_symmetric(text: &str, deadlock: bool) -> Result<bool, TestCaseError> {
    let src = Source::new("generated.gc", text).unwrap();
    let model = compile(&src, &[]).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let full = run(&model, Reduction::NONE, Ignoring::Cpc, deadlock);
    if matches!(full.verdict, Verdict::Inconclusive(_)) {
        return Ok(false);
    }
    let mut used = false;
    for &reduction in Reduction::all() {
        if deadlock && reduction.theorem() == Some(optimist::CertifyTheorem::Movers) {
            continue;
        }
        let mut o = options(
            reduction,
            Ignoring::Cpc,
            deadlock,
            false,
            Interference::default(),
        );
        o.symmetry = SymmetryUse::On;
        let red = optimist::check(&model, &o, &mut |_| {});
        used |= red.symmetry.is_some();
        let how = format!("{} --symmetry on", reduction.name());
        match &red.verdict {
            Verdict::Inconclusive(_) | Verdict::DoesNotApply(_) => continue,
            _ => {}
        }
        if let Some(v) = &red.violation {
            replays(&model, &v.trace, &v.problem).map_err(|e| {
                TestCaseError::fail(format!("{how}: trace does not replay: {e}\n{text}"))
            })?;
        }
        prop_assert_eq!(verdict(&full), verdict(&red), "{}\n{}", how, text);
        if full.verdict == Verdict::Holds {
            prop_assert!(
                red.stats.states <= full.stats.states,
                "{how}: more states\n{text}"
            );
        }
    }
    Ok(used)
}

/// On a fixed draw of 300 systems, symmetry is found and used in many
/// (the proptests above could pass on systems that never have one).
#[test]
fn symmetry_is_used_on_generated_systems() {
    let mut used = 0;
    for text in crate::generate::fixed_systems(300) {
        used += usize::from(compare_symmetric(&text, false).expect("agrees"));
    }
    println!("symmetry used on {used} of 300 systems");
    assert!(used >= 30, "symmetry used on {used} of 300 systems");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn symmetric_verdict_equals_full_verdict(data in choices()) {
        compare_symmetric(&system(&mut Choices::new(&data)), false)?;
    }

    #[test]
    fn symmetric_deadlock_verdict_equals_full_verdict(data in choices()) {
        compare_symmetric(&system(&mut Choices::new(&data)), true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn reduced_verdict_equals_full_verdict(data in choices()) {
        compare(&system(&mut Choices::new(&data)), false)?;
    }

    #[test]
    fn reduced_deadlock_verdict_equals_full_verdict(data in choices()) {
        compare(&system(&mut Choices::new(&data)), true)?;
    }
}

/// Summaries shared between threads: on generated systems of two or three
/// threads calling procedures (in and outside critical sections,
/// recursing), copies of one thread or threads with bodies of their own,
/// Stoller-Cohen and mover transactions read off shared summaries give
/// full exploration's verdict, their counterexamples replay, and they
/// store exactly the states that per-thread summaries store, with the same
/// kind of violation. Most of these systems do share (the test says how
/// many must, of each shape).
#[test]
fn shared_summaries_agree_with_per_thread_and_full() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut shared, mut compared, total) = ([0, 0], 0, 300);
    for case in 0..total {
        let data = choices().new_tree(&mut runner).unwrap().current();
        let mut c = Choices::new(&data);
        let copies = case % 2 == 0;
        c.sharing = Some(copies);
        let text = system(&mut c);
        let model = compile(&Source::new("g.gc", &text).unwrap(), &[]).unwrap();
        let full = run(&model, Reduction::NONE, Ignoring::Cpc, false);
        for reduction in [Reduction::SC, Reduction::MOVERS] {
            let (mine, theirs) = (
                summarized(&model, reduction, true),
                summarized(&model, reduction, false),
            );
            let how = reduction.name();
            if theirs.summaries.is_some_and(|s| s.shared > 0) {
                shared[usize::from(copies)] += 1;
            }
            assert_eq!(verdict(&mine), verdict(&theirs), "{how}\n{text}");
            if matches!(theirs.verdict, Verdict::Inconclusive(_)) {
                continue;
            }
            compared += 1;
            assert_eq!(mine.stats.states, theirs.stats.states, "{how}\n{text}");
            assert_eq!(
                mine.violation.as_ref().map(|v| v.kind()),
                theirs.violation.as_ref().map(|v| v.kind()),
                "{how}\n{text}"
            );
            if let Some(v) = &theirs.violation {
                if let Err(e) = replays(&model, &v.trace, &v.problem) {
                    panic!("{how}: shared trace does not replay: {e}\n{text}");
                }
                if v.kind() == Kind::WellFormedness {
                    continue;
                }
            }
            if !matches!(full.verdict, Verdict::Inconclusive(_)) {
                assert_eq!(verdict(&full), verdict(&theirs), "{how}\n{text}");
            }
        }
    }
    // Runs: `total` of each shape (two reductions, half the cases).
    eprintln!(
        "runs that shared, own bodies and copies: {shared:?} of {total} each; {compared} compared"
    );
    // Threads with bodies of their own share procedures only under `sc`
    // (and not where hand-offs make a predicate read a thread's local or
    // point): at least a tenth of those runs.
    let [own, copies] = shared;
    assert!(
        20 * own >= total && 3 * copies >= total,
        "{shared:?} of {total} runs shared"
    );
}

/// The ignoring problem is exercised: at least a quarter of the generated
/// systems have a loop of invisible control points, which a reduced step
/// can run forever.
#[test]
fn a_quarter_of_generated_systems_can_loop_invisibly() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut looping, total) = (0, 400);
    for _ in 0..total {
        let data = choices().new_tree(&mut runner).unwrap().current();
        let text = system(&mut Choices::new(&data));
        let model = compile(&Source::new("g.gc", &text).unwrap(), &[]).unwrap();
        if !optimist::ClassifyReport::new(&model)
            .invisible_loops
            .is_empty()
        {
            looping += 1;
        }
    }
    assert!(
        4 * looping >= total,
        "{looping} of {total} systems can loop invisibly"
    );
}
