//! The proof of the reduction theorem: proved from the axioms and
//! (11)-(18) only, and not without any one of them.

use omega_algebra::{CheckOptions, Checked, Report, Status, check, parse_script};

fn run(drop: &[&str]) -> Checked {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("proofs/reduction.proof is readable");
    let script = parse_script("proofs/reduction.proof", &source).expect("the script parses");
    let opts = CheckOptions {
        drop: drop.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    check(&script, &opts)
}

#[test]
fn reduction_theorem_is_proved_from_the_axioms_and_hypotheses() {
    let report = run(&[]).report;
    assert_eq!(report.status, Status::Proved, "{}", report.to_text());
    assert!(report.steps >= 40, "only {} steps", report.steps);
    assert!(report.trusted.is_empty(), "trusted: {:?}", report.trusted);
    assert!(report.failed.is_empty());
    // The core closed the paper's (19) in the paper's theory.
    assert!(report.paper_claim);
    let axioms: Vec<String> = omega_algebra::axioms()
        .iter()
        .map(|a| a.label.clone())
        .collect();
    let hyps: Vec<String> = (11..=18).map(|n| format!("({n})")).collect();
    assert_eq!(report.assumptions, [axioms, hyps].concat());
    // The theorem itself rests on every hypothesis.
    let thm = report
        .lemmas
        .iter()
        .find(|l| l.label == "(19)")
        .expect("lemma (19)");
    assert_eq!(thm.statement, "p (u + v)* q <= N* R");
    assert_eq!(
        thm.hypotheses,
        (11..=18).map(|n| format!("({n})")).collect::<Vec<_>>()
    );
    // The silent facts of the paper are lemmas here, proved, not assumed.
    for silent in [
        "pred_comm",
        "pred_split",
        "star_idem",
        "R_absorb",
        "(1)",
        "(2)",
    ] {
        let l = report
            .lemmas
            .iter()
            .find(|l| l.label == silent)
            .unwrap_or_else(|| panic!("lemma {silent}"));
        assert_eq!(l.status, Status::Proved);
    }
}

fn assert_fails_citing(report: &Report, h: &str) {
    assert_eq!(report.status, Status::Failed, "dropping {h} still proves");
    assert!(!report.paper_claim);
    let w = report.without.as_ref().expect("what is known without it");
    assert!(w.violation.is_some(), "{h}: {w:?}");
    assert_eq!(report.dropped, vec![h.to_string()]);
    assert!(!report.failed.is_empty());
    let marker = format!("{h} (dropped)");
    for f in &report.failed {
        assert!(
            f.hints.iter().any(|x| x.contains(&marker)),
            "{} {} (line {}) failed without citing {h}: {}",
            f.lemma,
            f.step,
            f.line,
            f.reason
        );
    }
}

#[test]
fn dropping_11_to_14_fails_at_the_steps_citing_them() {
    for h in ["(11)", "(12)", "(13)", "(14)"] {
        assert_fails_citing(&run(&[h]).report, h);
    }
}

#[test]
fn dropping_15_to_18_fails_at_the_steps_citing_them() {
    for h in ["15", "16", "17", "18"] {
        let label = format!("({h})");
        assert_fails_citing(&run(&[h]).report, &label);
    }
}

#[test]
fn failures_name_the_step_and_give_a_counter_model() {
    let report = run(&["(17)"]).report;
    let f = &report.failed[0];
    assert_eq!((f.lemma.as_str(), f.step.as_str()), ("(23)", "step 2"));
    assert_eq!(f.goal, "N* (1 + M) q T <= N* (1 + M) q (p_i + u_i) T");
    let cm = f.counter_model.as_ref().expect("a counter-model");
    assert!(cm.contains("states") && cm.contains("lhs ="), "{cm}");
    assert!(report.to_text().contains("FAIL proofs/reduction.proof:"));
}

#[test]
fn certificate_of_the_whole_proof_is_accepted_by_the_re_checker() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("readable");
    let script = parse_script("proofs/reduction.proof", &source).expect("parses");
    let checked = check(&script, &CheckOptions::default());
    assert_eq!(checked.report.status, Status::Proved);
    let cert = checked.certificate(&script).expect("a certificate");
    let json = cert.to_json();
    let back = omega_algebra::Certificate::from_json(&json).expect("reads back");
    assert_eq!(back, cert);
    let accepted = omega_algebra::recheck(&back).expect("accepted");
    // The re-checker states what it accepted: the paper's (19), built by
    // itself, under exactly (11)-(18).
    assert_eq!(accepted.claim, "(19)");
    assert_eq!(accepted.statement, "p (u + v)* q <= N* R");
    assert_eq!(accepted.steps, checked.report.steps);
    assert_eq!(accepted.lemmas, 52);
    assert!(accepted.rewrites > 1000);
    let hyps: Vec<&str> = accepted
        .hypotheses
        .iter()
        .map(|(l, _)| l.as_str())
        .collect();
    assert_eq!(
        hyps,
        [
            "(11)", "(12)", "(13)", "(14)", "(15)", "(16)", "(17)", "(18)"
        ]
    );
    assert_eq!(accepted.hypotheses[1].1, "i != j => u_j p_i = p_i u_j");
    assert_eq!(accepted.hypotheses[5].1, "~p_i v_i = 0 and 0 = p_i u_i");
}

#[test]
fn reports_are_deterministic() {
    let strip = |r: &Report| {
        r.to_text()
            .lines()
            .filter(|l| !l.starts_with("time:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let a = run(&["(13)"]).report;
    let b = run(&["(13)"]).report;
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.failed, b.failed);
}

/// The recorded counter-models of `prove --drop H`, checked by the evaluator
/// of `necessity.rs`, are also counter-models for the refuter's evaluator
/// (`model.rs`, up to 4 states): two independent evaluations agree.
#[test]
fn the_counter_models_for_each_hypothesis_agree_with_the_refuters_evaluator() {
    use omega_algebra::necessity::{HYPOTHESES, known};
    use omega_algebra::{Assumption, Evaluator, Model, Relation, assumption_holds};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("readable");
    let script = parse_script("proofs/reduction.proof", &source).expect("parses");
    let ev = Evaluator::new(script.definitions());
    let theorem = script
        .lemmas()
        .find(|l| l.label == "(19)")
        .expect("(19)")
        .statement
        .conclusions[0]
        .clone();
    let mut compared = 0;
    for h in HYPOTHESES {
        let (cm, _) = known(h).expect("a counter-model");
        cm.check(h).expect("checks");
        if cm.states > omega_algebra::MAX_STATES {
            continue;
        }
        let rel = |pairs: &[(usize, usize)]| {
            Relation(pairs.iter().fold(0, |a, (s, t)| a | (1 << (4 * s + t))))
        };
        let set = |xs: &[usize]| rel(&xs.iter().map(|s| (*s, *s)).collect::<Vec<_>>());
        let mut m = Model {
            states: cm.states,
            threads: cm.p.len(),
            constants: [("q".to_string(), set(&cm.q))].into_iter().collect(),
            families: Default::default(),
            indices: Default::default(),
        };
        for i in 0..cm.p.len() {
            m.families.insert(("p".into(), i), set(&cm.p[i]));
            m.families.insert(("u".into(), i), rel(&cm.u[i]));
            m.families.insert(("v".into(), i), rel(&cm.v[i]));
        }
        assert!(
            !ev.holds(&m, &theorem).expect("evaluates"),
            "{h}: (19) holds"
        );
        for hyp in script.hypotheses() {
            let forall: Vec<String> = hyp.statement.indices().into_iter().collect();
            let holds = hyp.statement.conclusions.iter().all(|c| {
                let a = Assumption {
                    formula: c.clone(),
                    forall: forall.clone(),
                    distinct: hyp.statement.distinct.clone(),
                    vars: vec![],
                };
                assumption_holds(&ev, &m, &a).expect("evaluates")
            });
            assert_eq!(
                holds,
                hyp.label != h,
                "{h}: {} in its counter-model",
                hyp.label
            );
        }
        compared += 1;
    }
    assert_eq!(
        compared, 7,
        "all but (14)'s 8-state model fit the refuter's 4 states"
    );
}

/// The lemmas (19) does not rest on are exactly those the script marks
/// `// unused by (19)`, so the marking cannot go stale.
#[test]
fn unused_lemmas_are_exactly_the_marked_ones() {
    let report = run(&[]).report;
    let thm = report
        .lemmas
        .iter()
        .find(|l| l.label == "(19)")
        .expect("(19)");
    let unused: Vec<&str> = report
        .lemmas
        .iter()
        .map(|l| l.label.as_str())
        .filter(|l| *l != "(19)" && !thm.uses.iter().any(|u| u == l))
        .collect();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("readable");
    let lines: Vec<&str> = source.lines().collect();
    let marked: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0].starts_with("// unused by (19):"))
        .map(|w| {
            let rest = w[1].strip_prefix("lemma ").expect("a lemma after the mark");
            rest.split(':').next().expect("a label")
        })
        .collect();
    assert_eq!(unused, marked);
    assert_eq!(unused.len(), 7);
}
