//! Soundness of the reduction on the second generator's systems
//! (`generate2.rs`): faulting predicates, computed lock indices, `at()`,
//! quantifiers, semaphores, `init` blocks.
//!
//! On every generated system:
//! - the reduced verdict equals the full verdict, also with `--deadlock`
//!   (unless the reduced check reports a well-formedness violation: then
//!   the reduction does not apply);
//! - where both hold, the reduced system stores no more states;
//! - every counterexample of either mode replays, transition by
//!   transition, in the full semantics and reaches the same violation;
//! - the local certify level never says holds where the exhaustive level
//!   fails; where the exhaustive level holds, the verdicts agree; and
//!   `check --certify` never concludes for the original system what full
//!   exploration contradicts.
//!
//! The runs are deterministic: a fixed seed and a fixed number of cases.
//! To hunt for bugs, set `OPTIMIST_FUZZ_SEED` and `OPTIMIST_FUZZ_CASES`.
//! A failing case shrinks to a small model, which is written to
//! `inputs/soundness/pending/` with an `// expect:` header giving the full
//! verdict; once the library is fixed, add the reduced state count to the
//! header and move the file up into `inputs/soundness/`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use optimist::{
    CertifiedCheck, CertifyLevel, CertifyOptions, CertifyReport, CheckReport, Ignoring, Kind,
    Limits, Model, ObligationStatus, Options, Outcome, Reduction, Source, Verdict, certify,
    compile,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use crate::generate2::{Choices, system2};

/// Most states stored per check; above it a case is inconclusive and skipped.
const MAX_STATES: u64 = 30_000;

fn options(reduction: Reduction, ignoring: Ignoring, deadlock: bool) -> Options {
    Options {
        reduction,
        limits: Limits {
            max_states: Some(MAX_STATES),
            max_time: Some(Duration::from_secs(30)),
            max_memory: None,
        },
        deadlock,
        ignoring,
        ..Options::default()
    }
}

fn run(model: &Model, reduction: Reduction, deadlock: bool) -> Outcome {
    run_with(model, reduction, Ignoring::default(), deadlock)
}

fn run_with(model: &Model, reduction: Reduction, ignoring: Ignoring, deadlock: bool) -> Outcome {
    optimist::check(model, &options(reduction, ignoring, deadlock), &mut |_| {})
}

/// The reductions compared with full exploration on one system:
/// `--reduction sc` (the default, with commit point completion) always,
/// and one more chosen by `other`: sc with the other ways of handling
/// loops that can run forever, stubborn sets alone and over reduced steps,
/// and movers alone and with stubborn sets. Each reduced check
/// classifies the model, which costs about a hundred times the full check
/// on these systems in a debug build, so each system gets two.
fn reductions(other: usize) -> Vec<(Reduction, Ignoring)> {
    let others = [
        (Reduction::SC, Ignoring::Cycles),
        (Reduction::SC, Ignoring::Forbid),
        (Reduction::STUBBORN, Ignoring::Cpc),
        (Reduction::SC_STUBBORN, Ignoring::Cpc),
        (Reduction::MOVERS, Ignoring::Cpc),
        (Reduction::MOVERS_STUBBORN, Ignoring::Cpc),
    ];
    vec![(Reduction::SC, Ignoring::Cpc), others[other % others.len()]]
}

fn verdict(o: &Outcome) -> &'static str {
    match o.verdict {
        Verdict::Holds => "holds",
        Verdict::Violated => "violated",
        Verdict::Inconclusive(_) => "inconclusive",
        Verdict::DoesNotApply(_) => "does not apply",
    }
}

fn describe(o: &Outcome) -> String {
    match &o.violation {
        Some(v) => format!("violated {:?} ({} states)", v.kind(), o.stats.states),
        None => format!("{} ({} states)", verdict(o), o.stats.states),
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Discipline => "discipline",
        Kind::Assertion => "assertion",
        Kind::Invariant => "invariant",
        Kind::Range => "range",
        Kind::WellFormedness => "well-formedness",
        Kind::Deadlock => "deadlock",
    }
}

/// The raw material of a generated model: longer than the first
/// generator's, since this one reads more choices per statement.
pub fn choices2() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..300)
}

/// A deterministic runner: the seed is fixed (or taken from
/// `OPTIMIST_FUZZ_SEED`), salted per property so each sees other systems.
pub fn runner(cases: u32, salt: u64) -> TestRunner {
    let config = Config {
        cases: case_count(cases),
        failure_persistence: None,
        // Shrinking a model is cheap; let it finish.
        max_shrink_iters: 4096,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, rng(salt))
}

/// `cases`, or `OPTIMIST_FUZZ_CASES` when set.
pub fn case_count(cases: u32) -> u32 {
    std::env::var("OPTIMIST_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases)
}

/// The random source of a property: the fixed seed (or
/// `OPTIMIST_FUZZ_SEED`), salted.
pub fn rng(salt: u64) -> TestRng {
    let seed = std::env::var("OPTIMIST_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0x5eed_0f_2003)
        ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut bytes = [0u8; 32];
    for (k, b) in bytes.iter_mut().enumerate() {
        *b = (seed.rotate_left(8 * (k as u32 % 8)) >> (k / 8)) as u8 ^ k as u8;
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Writes a failing model to `inputs/soundness/pending/` and returns its path.
fn keep(property: &str, text: &str, why: &str, full: Option<&Outcome>) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/inputs/soundness/pending");
    let _ = std::fs::create_dir_all(&dir);
    // FNV-1a: a stable name for the same model.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("gen2-{property}-{:08x}.gc", hash as u32));
    let expect = match full {
        Some(o) => match &o.violation {
            Some(v) => format!(
                "// expect: violated {}, full {}",
                kind_name(v.kind()),
                o.stats.states
            ),
            None => format!("// expect: {}, full {}", verdict(o), o.stats.states),
        },
        None => "// expect: FILL IN".to_string(),
    };
    let why: String = why.lines().map(|l| format!("// {l}\n")).collect();
    let _ = std::fs::write(
        &path,
        format!(
            "// Shrunk by differential2 ({property}).\n{why}// Add the reduced state count (`, sc N`) once the library is fixed.\n//\n{expect}\n\n{text}"
        ),
    );
    path.display().to_string()
}

/// Replays a trace in the full semantics (the grammar generator's
/// comparison, shared by every differential test).
pub use crate::grammar::shared::compare::replays;

/// What happened on the generated systems, to show that the generator
/// reaches every verdict and to fail when it degenerates.
#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    inconclusive: u64,
    wf: u64,
    holds: u64,
    violated: BTreeMap<&'static str, u64>,
    /// Certify: (local, exhaustive) verdicts.
    levels: BTreeMap<String, u64>,
}

impl Tally {
    fn add(&mut self, full: &Outcome, red: &Outcome) {
        self.cases += 1;
        if matches!(full.verdict, Verdict::Inconclusive(_))
            || matches!(red.verdict, Verdict::Inconclusive(_))
        {
            self.inconclusive += 1;
        } else if red
            .violation
            .as_ref()
            .is_some_and(|v| v.kind() == Kind::WellFormedness && !v.initial)
        {
            self.wf += 1;
        } else if let Some(v) = &full.violation {
            *self.violated.entry(kind_name(v.kind())).or_default() += 1;
        } else {
            self.holds += 1;
        }
    }

    fn certify(&mut self, local: ObligationStatus, exhaustive: ObligationStatus) {
        *self
            .levels
            .entry(format!("local {local:?}, exhaustive {exhaustive:?}"))
            .or_default() += 1;
    }

    fn violated(&self) -> u64 {
        self.violated.values().sum()
    }

    /// The generator must keep producing conclusive cases of both verdicts.
    fn assert_healthy(&self, what: &str) {
        eprintln!("{what}: {self:?}");
        let compared = self.holds + self.violated();
        assert!(
            self.inconclusive * 10 <= self.cases,
            "{what}: too many inconclusive cases: {self:?}"
        );
        assert!(
            self.holds * 10 >= compared && self.violated() * 10 >= compared,
            "{what}: the verdicts are too one-sided to test anything: {self:?}"
        );
    }
}

/// Runs `property` on generated systems and fails with the shrunk model.
fn check_property(
    name: &str,
    cases: u32,
    salt: u64,
    tally: &RefCell<Tally>,
    property: impl Fn(&str, &Model, usize, &RefCell<Tally>) -> Result<(), (String, Option<Outcome>)>,
) {
    let result = runner(cases, salt).run(&(choices2(), 0..5usize), |(data, other)| {
        let text = system2(&mut Choices::new(&data));
        let src = Source::new("generated.gc", text.clone()).unwrap();
        let model = compile(&src, &[]).map_err(|e| {
            TestCaseError::fail(format!(
                "the generator wrote a model that does not compile: {e}\n{text}"
            ))
        })?;
        property(&text, &model, other, tally)
            .map_err(|(why, _)| TestCaseError::fail(format!("{why}\n{text}")))
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, (data, other))) => {
            let text = system2(&mut Choices::new(&data));
            let model = compile(&Source::new("generated.gc", text.clone()).unwrap(), &[]).ok();
            // Run it once more for the header (a panic here is the finding itself).
            let (why2, full) = match model.map(|m| property(&text, &m, other, &RefCell::default()))
            {
                Some(Err((w, full))) => (w, full),
                _ => (why.to_string(), None),
            };
            let path = keep(name, &text, &why2, full.as_ref());
            panic!("{name}: {why}\nshrunk model kept in {path}");
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

/// The differential property of one system, for every reduction.
fn differential(
    model: &Model,
    deadlock: bool,
    other: usize,
    tally: &RefCell<Tally>,
) -> Result<(), (String, Option<Outcome>)> {
    let full = run(model, Reduction::NONE, deadlock);
    let fail = |why: String| Err((why, Some(full.clone())));
    if let Some(v) = &full.violation {
        if let Err(e) = replays(model, &v.trace, &v.problem) {
            return fail(format!("the full counterexample does not replay: {e}"));
        }
    }
    let with = if deadlock { " with --deadlock" } else { "" };
    for (k, (reduction, ignoring)) in reductions(other).into_iter().enumerate() {
        let red = run_with(model, reduction, ignoring, deadlock);
        if k == 0 {
            tally.borrow_mut().add(&full, &red);
        }
        let how = format!(
            "--reduction {} --ignoring {}{with}",
            reduction.name(),
            ignoring.name()
        );
        if let Some(v) = &red.violation {
            if let Err(e) = replays(model, &v.trace, &v.problem) {
                return fail(format!(
                    "{how}: the counterexample does not replay in the full semantics: {e}"
                ));
            }
        }
        if matches!(full.verdict, Verdict::Inconclusive(_))
            || matches!(red.verdict, Verdict::Inconclusive(_))
        {
            continue;
        }
        if let Verdict::DoesNotApply(_) = red.verdict {
            // The reduction refuses the model (a side condition it cannot
            // adapt to, found before or during the search): exit 3, no
            // verdict to compare.
            continue;
        }
        if let Some(v) = red
            .violation
            .as_ref()
            .filter(|v| v.kind() == Kind::WellFormedness && !v.initial)
        {
            // Only WFinitExcl (two owners in the initial state) is a
            // well-formedness verdict, in every mode; the others refuse.
            return fail(format!(
                "{how}: a well-formedness violation {:?}",
                v.problem
            ));
        }
        if verdict(&full) != verdict(&red) {
            return fail(format!(
                "{how}: full: {}; reduced: {}",
                describe(&full),
                describe(&red)
            ));
        }
        if full.verdict == Verdict::Holds && red.stats.states > full.stats.states {
            return fail(format!(
                "{how}: the reduced system stores more states: {} > {}",
                red.stats.states, full.stats.states
            ));
        }
    }
    Ok(())
}

#[test]
fn generated2_models_compile() {
    let result = runner(400, 1).run(&choices2(), |data| {
        let text = system2(&mut Choices::new(&data));
        let src = Source::new("generated.gc", text.clone()).unwrap();
        compile(&src, &[]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn reduced_verdict_equals_full_verdict_2() {
    let tally = RefCell::default();
    check_property("verdict", 250, 2, &tally, |_, model, other, tally| {
        differential(model, false, other, tally)
    });
    tally
        .borrow()
        .assert_healthy("reduced_verdict_equals_full_verdict_2");
}

#[test]
fn reduced_deadlock_verdict_equals_full_verdict_2() {
    let tally = RefCell::default();
    check_property("deadlock", 250, 3, &tally, |_, model, other, tally| {
        differential(model, true, other, tally)
    });
    tally
        .borrow()
        .assert_healthy("reduced_deadlock_verdict_equals_full_verdict_2");
}

/// Certify's two levels are ordered, and certify means what it says.
fn certify_property(
    text: &str,
    model: &Model,
    tally: &RefCell<Tally>,
) -> Result<(), (String, Option<Outcome>)> {
    let full = run(model, Reduction::NONE, false);
    let red = run(model, Reduction::SC, false);
    tally.borrow_mut().add(&full, &red);
    let fail = |why: String| Err((why, Some(full.clone())));
    let src = Source::new("generated.gc", text).unwrap();
    if optimist::check_certifiable(&src, model, optimist::CertifyTheorem::Sc).is_err() {
        // An invariant the reduction cannot check, or a rendezvous: certify
        // refuses the model.
        return Ok(());
    }
    let local = certify(
        model,
        &CertifyOptions {
            level: CertifyLevel::Local,
            frame_bound: std::env::var("FB")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(1 << 12),
            ..CertifyOptions::default()
        },
    );
    let exhaustive = certify(
        model,
        &CertifyOptions {
            level: CertifyLevel::Exhaustive,
            max_states: MAX_STATES,
            ..CertifyOptions::default()
        },
    );
    let ex = exhaustive.verdict();
    tally.borrow_mut().certify(local.verdict(), ex);
    if local.verdict() == ObligationStatus::Holds && ex == ObligationStatus::Fails {
        return fail("certify: the local level holds where the exhaustive level fails".into());
    }
    let conclusive = !matches!(full.verdict, Verdict::Inconclusive(_))
        && !matches!(red.verdict, Verdict::Inconclusive(_));
    if ex == ObligationStatus::Holds && conclusive && verdict(&full) != verdict(&red) {
        return fail(format!(
            "certify --exhaustive holds, yet full: {}; reduced: {}",
            describe(&full),
            describe(&red)
        ));
    }
    // `check --certify`, at both levels: exit 0 claims that no violation is
    // reachable in the original system, and a violation it reports is one.
    if !matches!(full.verdict, Verdict::Inconclusive(_)) {
        for cert in [&local, &exhaustive] {
            let sc = options(Reduction::SC, Ignoring::default(), false);
            let check = CheckReport::new(model, "generated.gc", Reduction::SC, &red);
            let report = CertifyReport::new(model, "generated.gc", cert);
            let both = CertifiedCheck::new(check, report, &sc);
            let claims_holds = both.exit_code() == 0;
            let claims_violation = both
                .conclusion
                .starts_with("a violation is reachable in the original system");
            if (claims_holds && full.verdict != Verdict::Holds)
                || (claims_violation && full.verdict != Verdict::Violated)
            {
                return fail(format!(
                    "check --certify ({} level) concludes `{}` (exit {}), but full exploration: {}",
                    cert.level().name(),
                    both.conclusion,
                    both.exit_code(),
                    describe(&full)
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn certify_levels_are_ordered_and_honest_2() {
    let tally = RefCell::default();
    check_property("certify", 120, 4, &tally, |text, model, _, tally| {
        certify_property(text, model, tally)
    });
    eprintln!(
        "certify_levels_are_ordered_and_honest_2: {:?}",
        tally.borrow()
    );
}
