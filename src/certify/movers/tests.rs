//! Tests of the movers obligations: the shipped models (witnesses replay,
//! the local level implies the exhaustive one, the two levels agree on the
//! same states), hand-made systems that break one hypothesis each, and a
//! differential property over generated systems: where certify says the
//! movers theorem applies and the movers check holds, full exploration
//! holds.

use proptest::prelude::*;

use super::law::MoverLaw;
use super::system::MSys;
use crate::certify::law::{Failure, Obligation};
use crate::certify::system::Sys;
use crate::certify::tests::{
    compile, generate, levels_agree, load, models, reduced_agrees, replays, verdict,
};
use crate::certify::{
    Certification, CertifyLevel, CertifyOptions, CertifyTheorem, ObligationStatus, certify,
};
use crate::explore::movers::Plan;
use crate::model::Model;

fn movers(level: CertifyLevel) -> CertifyOptions {
    CertifyOptions {
        reduction: CertifyTheorem::Movers,
        level,
        max_states: 50_000,
        ..CertifyOptions::default()
    }
}

fn status(cert: &Certification, law: MoverLaw) -> ObligationStatus {
    cert.status(Obligation::Movers(law))
}

fn witness(cert: &Certification, law: MoverLaw) -> &Failure {
    crate::certify::tests::witness(cert, Obligation::Movers(law))
}

fn all_replay(model: &Model, cert: &Certification, what: &str) {
    let sys = Sys::new(model);
    let plan = Plan::new(model);
    let msys = MSys::new(&sys, &plan);
    for r in &cert.laws {
        if let Some(f) = &r.witness {
            replays(&msys, f).unwrap_or_else(|e| panic!("{what} {}: {e}", r.law.key()));
        }
    }
}

#[test]
fn the_obligations_are_the_pinned_theorems_hypotheses() {
    let hypotheses: Vec<String> = MoverLaw::ALL
        .iter()
        .filter(|l| l.is_hypothesis())
        .map(|l| format!("({})", l.key()))
        .collect();
    let mut pinned = super::pinned_movers_claim("").hypotheses;
    let mut ours = hypotheses.clone();
    pinned.sort();
    ours.sort();
    assert_eq!(ours, pinned);
}

#[test]
fn counter_certifies_at_both_levels() {
    let model = load("models/counter.gc");
    for level in [CertifyLevel::Local, CertifyLevel::Exhaustive] {
        let cert = certify(
            &model,
            &CertifyOptions {
                max_states: crate::certify::DEFAULT_MAX_STATES,
                ..movers(level)
            },
        );
        assert_eq!(cert.verdict(), ObligationStatus::Holds, "{level:?}");
        assert_eq!(cert.laws.len(), MoverLaw::ALL.len());
    }
}

/// On every shipped model: the local level implies the exhaustive level,
/// every witness replays, and on the reachable states the two levels agree
/// obligation by obligation.
#[test]
fn shipped_models_levels_are_ordered_and_agree_on_reachable_states() {
    // The local level over every valuation is pinned for every model by the
    // integration snapshots; here the local check restricted to reachable
    // valuations must equal the exhaustive level, which with the local
    // level checking a superset of those valuations orders the two.
    for name in models() {
        let model = load(&name);
        let exhaustive = certify(&model, &movers(CertifyLevel::Exhaustive));
        let cross = certify(&model, &movers(CertifyLevel::LocalOnReachable));
        all_replay(&model, &exhaustive, &name);
        for law in MoverLaw::ALL {
            let (e, c) = (status(&exhaustive, law), status(&cross, law));
            if [e, c].contains(&ObligationStatus::NotChecked) {
                continue;
            }
            assert_eq!(
                c,
                e,
                "{name} {}: local on reachable vs exhaustive",
                law.key()
            );
        }
    }
}

/// One copy of a procedure stands for the copies alike it: checking every
/// copy gives the same result, obligation by obligation.
#[test]
fn one_copy_stands_for_every_copy() {
    for name in [
        "models/summaries-fig3.gc",
        "models/summaries-fig4.gc",
        "models/summaries-fig5.gc",
        "models/summaries-shared.gc",
    ] {
        let model = load(name);
        let one = certify(&model, &movers(CertifyLevel::Local));
        let every = certify(
            &model,
            &CertifyOptions {
                one_copy: false,
                ..movers(CertifyLevel::Local)
            },
        );
        assert!(
            one.procedures.as_ref().is_some_and(|p| p.one_copy),
            "{name}"
        );
        for law in MoverLaw::ALL {
            assert_eq!(
                status(&one, law),
                status(&every, law),
                "{name} {}",
                law.key()
            );
        }
    }
}

#[test]
fn a_discipline_breach_fails_a3_with_the_pair_and_the_valuation() {
    let model = load("models/account-bug.gc");
    let cert = certify(&model, &movers(CertifyLevel::Exhaustive));
    assert_eq!(status(&cert, MoverLaw::A3), ObligationStatus::Fails);
    let f = witness(&cert, MoverLaw::A3);
    assert!(f.message.contains("a right mover"), "{}", f.message);
    assert!(f.message.contains("balance := b + 1"), "{}", f.message);
    // s -> s1 -> s2, then the other order s -> s' -> s''.
    let names: Vec<&str> = f.states.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["s", "s1", "s2", "s'", "s''"]);
    assert!(f.reached_by.is_some());
    all_replay(&model, &cert, "account-bug");
}

#[test]
fn a_post_commit_loop_fails_11_with_its_lasso() {
    let model = compile(
        "lock m;
protected x : 0..3 = 0 by m;
thread T {
  local r : 0..2 = 0;
  acquire m;
  x := 1;
  release m;
  while true { r := (r + 1) % 2; }
}
thread U { acquire m; assert x <= 1; release m; }
",
    );
    for level in [CertifyLevel::Local, CertifyLevel::Exhaustive] {
        let cert = certify(&model, &movers(level));
        assert_eq!(
            status(&cert, MoverLaw::H11),
            ObligationStatus::Fails,
            "{level:?}"
        );
        let f = witness(&cert, MoverLaw::H11);
        assert_eq!(f.loop_from, Some(0));
        assert!(f.states.iter().all(|(_, s)| !s.q));
        all_replay(&model, &cert, "loop");
    }
}

#[test]
fn a_step_that_changes_another_threads_left_movers_fails_a5() {
    // T's reads of `flag` after its commit are left movers while
    // excl(T, flag) = (turn == 0) holds; U's `turn := 1` falsifies it (the
    // WFendExcl breach that makes the movers check refuse this model), and
    // takes T out of L(T).
    let model = compile(
        "shared turn : 0..1 = 0;
protected flag : 0..1 = 0 excl(t) = turn == t;
thread T { local r : 0..1 = 0; await turn == 0; r := flag; r := flag; }
thread U { turn := 1; }
",
    );
    let cert = certify(&model, &movers(CertifyLevel::Local));
    assert_eq!(status(&cert, MoverLaw::A5), ObligationStatus::Fails);
    all_replay(&model, &cert, "a5");
}

/// The two levels, the cross-check and the checker, on one generated
/// system.
fn agree(text: &str) -> Result<(), TestCaseError> {
    let model = compile(text);
    let options = CertifyOptions {
        max_states: 20_000,
        ..movers(CertifyLevel::Local)
    };
    let sys = Sys::new(&model);
    let plan = Plan::new(&model);
    let msys = MSys::new(&sys, &plan);
    let laws = MoverLaw::ALL.map(Obligation::Movers);
    let [local, exhaustive, _] = levels_agree(&msys, &model, &options, laws, text)?;
    prop_assert!(
        !(local.verdict() == ObligationStatus::Holds
            && exhaustive.verdict() == ObligationStatus::Fails),
        "local holds, exhaustive fails\n{}",
        text
    );
    // Where the theorem applies, the movers check and full exploration
    // agree: a movers check that holds means that the original system
    // holds.
    if local.verdict() == ObligationStatus::Holds || exhaustive.verdict() == ObligationStatus::Holds
    {
        let (full, reduced) = reduced_agrees(&model, "movers", "movers", text)?;
        if verdict(&reduced) == "holds" {
            prop_assert!(
                verdict(&full) != "violated",
                "certified and the movers check holds, but full exploration finds {:?}\n{}",
                full.violation.map(|v| v.problem),
                text
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::certify::tests::config(100))]

    #[test]
    fn movers_levels_agree_and_a_certified_movers_check_is_sound(data in generate::choices(), pick in any::<u8>()) {
        let mut choices = generate::Choices::new(&data);
        choices.procs = pick % 2 == 0;
        let text = generate::system(&mut choices);
        agree(&text)?;
    }
}
