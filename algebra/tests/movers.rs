//! The movers theorem (M) of `proofs/movers.proof` (Flanagan and Qadeer's
//! transactions, in Stoller & Cohen's omega algebra): it is proved with no
//! trusted lemma and closed as the pinned claim of `trusted/movers.rs`;
//! its certificate is accepted for (M) and for nothing else; and attacks on
//! it are rejected: a commutation dropped or turned round, a wrong phase
//! condition, a stronger claim, a doctored certificate.

use std::sync::OnceLock;

use omega_algebra::trusted::{Pinned, Rel};
use omega_algebra::{
    Certificate, CheckOptions, Report, Status, T, check, parse_script, pinned_theorem, read_term,
    recheck, recheck_pinned,
};

fn source() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/movers.proof");
    std::fs::read_to_string(path).expect("proofs/movers.proof")
}

fn run(source: &str, drop: &[&str]) -> Report {
    let script = parse_script("movers.proof", source).expect("parses");
    let opts = CheckOptions {
        drop: drop.iter().map(|d| d.to_string()).collect(),
        ..Default::default()
    };
    check(&script, &opts).report
}

/// The honest certificate (made once, shared as JSON: terms are not `Sync`).
fn honest() -> Certificate {
    static CERT: OnceLock<String> = OnceLock::new();
    let json = CERT.get_or_init(|| {
        let src = source();
        let script = parse_script("proofs/movers.proof", &src).expect("parses");
        let checked = check(&script, &CheckOptions::default());
        assert_eq!(checked.report.status, Status::Proved, "{}", checked.report);
        checked
            .certificate(&script)
            .expect("a certificate")
            .to_json()
    });
    Certificate::from_json(json).expect("reads back")
}

fn term(s: &str) -> T {
    T(read_term(s).expect("a term"))
}

fn rejected(c: &Certificate, want: &str) {
    match recheck_pinned(c, Pinned::Movers) {
        Ok(a) => panic!("accepted: {a:?}"),
        Err(e) => assert!(e.to_string().contains(want), "expected `{want}`, got `{e}`"),
    }
}

#[test]
fn the_movers_theorem_is_proved_with_nothing_trusted_and_is_the_pinned_claim() {
    let r = run(&source(), &[]);
    assert_eq!(r.status, Status::Proved, "{r}");
    assert!(r.trusted.is_empty(), "{:?}", r.trusted);
    assert_eq!(r.theorem, Pinned::Movers);
    assert!(r.paper_theory && r.paper_claim, "{:?}", r.paper_difference);
    assert_eq!(r.exit_code(), 0);
    // Every hypothesis of the pinned theory is used, and nothing else is
    // assumed but the axioms.
    let hyps = [
        "(R)", "(A2)", "(A3)", "(A4)", "(A5)", "(A5r)", "(Q)", "(11)", "(17)", "(18)",
    ];
    let assumed: Vec<&str> = r.assumptions.iter().map(String::as_str).collect();
    assert_eq!(&assumed[assumed.len() - hyps.len()..], hyps.as_slice());
    assert_eq!(assumed.len(), 20 + hyps.len());
    assert!(
        r.to_text()
            .contains("claim: the movers theorem (M), in its pinned theory")
    );
}

#[test]
fn its_certificate_is_accepted_for_the_movers_theorem_and_nothing_else() {
    let c = honest();
    assert_eq!(pinned_theorem(&c), Some(Pinned::Movers));
    let a = recheck_pinned(&c, Pinned::Movers).expect("accepted");
    assert_eq!(a.claim, "(M)");
    assert_eq!(a.statement, "p s* q <= N* R");
    assert_eq!(a.hypotheses.len(), 10);
    // Not a certificate of the paper's (19).
    let e = recheck(&c).expect_err("not the paper's theory");
    assert!(e.to_string().starts_with("-: theory: "), "{e}");
}

/// Each hypothesis the theorem rests on, dropped: the proof fails, at a
/// step that needs it, and the run is not the pinned claim.
#[test]
fn without_any_one_hypothesis_the_proof_fails() {
    for h in [
        "(R)", "(A2)", "(A3)", "(A4)", "(A5)", "(A5r)", "(Q)", "(11)", "(17)", "(18)",
    ] {
        let r = run(&source(), &[h]);
        assert_eq!(r.status, Status::Failed, "{h} dropped, yet proved");
        assert!(!r.paper_claim, "{h}");
        assert!(
            r.paper_difference
                .as_deref()
                .is_some_and(|d| d.contains("hypotheses dropped")),
            "{h}: {:?}",
            r.paper_difference
        );
        assert_eq!(r.exit_code(), 1);
    }
}

/// A script whose theory differs from the pinned one in one place: it
/// must fail, and must never be reported as the movers theorem.
fn attack(name: &str, from: &str, to: &str, failing: &str) {
    let src = source();
    assert!(src.contains(from), "{name}: `{from}` not in the script");
    let r = run(&src.replacen(from, to, 1), &[]);
    assert_eq!(r.status, Status::Failed, "{name}: proved");
    assert!(!r.paper_claim, "{name}: reported as the movers theorem");
    assert!(
        r.failed.iter().any(|f| f.lemma == failing),
        "{name}: expected a failed step in {failing}, got {:?}",
        r.failed.iter().map(|f| &f.lemma).collect::<Vec<_>>()
    );
}

#[test]
fn a_right_mover_that_commutes_to_the_left_instead_is_rejected() {
    attack(
        "A3 turned round",
        "hyp (A3): i != j => rm_i s_j <= s_j rm_i",
        "hyp (A3): i != j => s_j rm_i <= rm_i s_j",
        "rm_u",
    );
}

#[test]
fn a_left_mover_that_commutes_to_the_right_instead_is_rejected() {
    attack(
        "A4 turned round",
        "hyp (A4): i != j => s_j u_i <= u_i s_j",
        "hyp (A4): i != j => u_i s_j <= s_j u_i",
        "(14)",
    );
}

#[test]
fn a_phase_condition_about_the_wrong_phase_is_rejected() {
    // "No right mover before the commit" instead of "none after it".
    attack(
        "A2 on the wrong phase",
        "hyp (A2): ~p_i rm_i = 0",
        "hyp (A2): p_i rm_i = 0",
        "(16v)",
    );
}

#[test]
fn a_right_mover_that_may_reach_a_violation_is_rejected() {
    attack(
        "Q turned round",
        "hyp (Q): rm_i q <= q rm_i",
        "hyp (Q): q rm_i <= rm_i q",
        "rm_q",
    );
}

#[test]
fn commutation_with_the_same_thread_only_is_rejected() {
    // (A3) stated for the thread itself rather than for the others.
    attack(
        "A3 on one thread",
        "hyp (A3): i != j => rm_i s_j <= s_j rm_i",
        "hyp (A3): rm_i s_i <= s_i rm_i",
        "rm_u",
    );
}

#[test]
fn a_stronger_claim_is_rejected() {
    // Violations reached mid-transaction are part of R; without them the
    // claim is false.
    attack(
        "no mid-transaction violations",
        "lemma (M): p s* q <= N* R",
        "lemma (M): p s* q <= N* q T",
        "(M)",
    );
}

#[test]
fn doctored_movers_certificates_are_rejected() {
    // A commutation turned round in the declared theory.
    let mut c = honest();
    let h = c
        .theory
        .hypotheses
        .iter_mut()
        .find(|h| h.label == "(A3)")
        .expect("(A3)");
    let f = &mut h.conclusions[0];
    std::mem::swap(&mut f.lhs, &mut f.rhs);
    rejected(&c, "-: theory: hypothesis (A3) is ");
    // A commutation dropped from the declared theory.
    let mut c = honest();
    c.theory.hypotheses.retain(|h| h.label != "(A4)");
    rejected(&c, "-: theory: hypothesis (A4) of the paper is missing");
    // The phase condition changed.
    let mut c = honest();
    let h = c
        .theory
        .hypotheses
        .iter_mut()
        .find(|h| h.label == "(A2)")
        .expect("(A2)");
    h.conclusions[0].lhs = term("(; (@ p i) (@ rm i))");
    rejected(&c, "-: theory: hypothesis (A2) is ");
    // The claim weakened, its derivation kept.
    let mut c = honest();
    let l = c
        .lemmas
        .iter_mut()
        .find(|l| l.statement.label == "(M)")
        .expect("(M)");
    l.statement.conclusions[0].rhs = term("(w 1)");
    l.statement.conclusions[0].rel = Rel::Le;
    rejected(&c, "(M): statement: rule `lemma`: the proof of (M) shows");
    // A use of (A3) replaced by one of (A4).
    let mut c = honest();
    let (label, k) = c
        .lemmas
        .iter()
        .find_map(|l| {
            l.nodes
                .iter()
                .position(
                    |n| matches!(n, omega_algebra::Node::Hyp { label, .. } if label == "(A3)"),
                )
                .map(|k| (l.statement.label.clone(), k))
        })
        .expect("a use of (A3)");
    let l = c
        .lemmas
        .iter_mut()
        .find(|l| l.statement.label == label)
        .expect("the lemma");
    l.nodes[k] = omega_algebra::Node::Hyp {
        label: "(A4)".into(),
        conclusion: 0,
    };
    assert!(
        recheck_pinned(&c, Pinned::Movers).is_err(),
        "(A3) replaced by (A4) accepted"
    );
}

/// The lemmas (M) does not rest on are exactly those the script marks
/// `// unused by (M)`, so the marking cannot go stale.
#[test]
fn unused_lemmas_are_exactly_the_marked_ones() {
    let report = run(&source(), &[]);
    let thm = report
        .lemmas
        .iter()
        .find(|l| l.label == "(M)")
        .expect("(M)");
    let unused: Vec<&str> = report
        .lemmas
        .iter()
        .map(|l| l.label.as_str())
        .filter(|l| *l != "(M)" && !thm.uses.iter().any(|u| u == l))
        .collect();
    let source = source();
    let lines: Vec<&str> = source.lines().collect();
    let marked: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0].starts_with("// unused by (M):"))
        .map(|w| {
            let rest = w[1].strip_prefix("lemma ").expect("a lemma after the mark");
            rest.split(':').next().expect("a label")
        })
        .collect();
    assert_eq!(unused, marked);
}
