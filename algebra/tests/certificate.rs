//! Certificates of a small script: accepted when intact, in the theory
//! they declare; refused by the pinned re-checker because that theory is not
//! the paper's; and rejected, naming the lemma, step and rule, when any
//! recorded inference is corrupted.

use omega_algebra::trusted::Term;
use omega_algebra::{
    Certificate, CertificateError, CheckOptions, Node, Status, T, check, parse_script, read_term,
    recheck, recheck_declared,
};

const SCRIPT: &str = "\
pred q
pred p_i
elem u_i, v_i
var x, y, z
def (5) u = (+i : u_i)
hyp (12): i != j => u_j p_i = p_i u_j
hyp (16): p_i u_i = 0
lemma one_le_star: 1 <= x* by {}
lemma star_unfold_l: x x* <= x*
proof
     x x*
  <= x* x*        { x <= x* }
  <= x*           {}
qed
lemma sim: x y <= y z => x* y <= y z*
proof
     x* y
  <= x* y z*      { one_le_star }
  <= y z*         { x y z* <= y z* by premise, star_unfold_l; star-ind-l }
qed
lemma pu: p_j u_i <= u_i p_j
proof
case i = j:
     p_i u_i
   = 0            { (16) }
  <= u_i p_i      {}
case i != j:
     p_j u_i
   = u_i p_j      { (12) }
qed
lemma pu_sum: p_j u <= u p_j
proof
     p_j u
   = (+i : p_j u_i)   { (5) }
  <= (+i : u_i p_j)   { pu }
  <= u p_j            { (5) }
qed
";

fn certificate() -> Certificate {
    let script = parse_script("small.proof", SCRIPT).expect("parses");
    let checked = check(&script, &CheckOptions::default());
    assert_eq!(
        checked.report.status,
        Status::Proved,
        "{}",
        checked.report.to_text()
    );
    checked.certificate(&script).expect("a certificate")
}

fn rejected(c: &Certificate) -> String {
    match recheck_declared(c, None) {
        Ok(s) => panic!("a corrupted certificate was accepted: {s:?}"),
        Err(e) => e.to_string(),
    }
}

fn lemma<'c>(c: &'c mut Certificate, label: &str) -> &'c mut omega_algebra::LemmaCert {
    c.lemmas
        .iter_mut()
        .find(|l| l.statement.label == label)
        .unwrap_or_else(|| panic!("lemma {label}"))
}

#[test]
fn intact_certificate_is_accepted_in_its_theory_and_round_trips() {
    let c = certificate();
    let back = Certificate::from_json(&c.to_json()).expect("reads back");
    assert_eq!(back, c);
    let s = recheck_declared(&back, None).expect("accepted");
    assert_eq!((s.lemmas, s.steps), (5, 11));
    assert_eq!(s.claim, "pu_sum");
    assert_eq!(s.statement, "p_j u <= u p_j");
    let hyps: Vec<&str> = s.hypotheses.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(hyps, ["(12)", "(16)"]);
    assert!(s.rewrites > 10);
}

#[test]
fn the_pinned_re_checker_refuses_a_theory_that_is_not_the_papers() {
    let e = recheck(&certificate()).expect_err("not the paper's theory");
    assert!(e.to_string().contains("theory"), "{e}");
}

#[test]
fn a_changed_axiom_name_is_rejected_naming_the_rule() {
    let mut c = certificate();
    let l = lemma(&mut c, "star_unfold_l");
    let n = l
        .nodes
        .iter_mut()
        .find(|n| matches!(n, Node::Axiom(a) if a == "add-comm"))
        .expect("an add-comm axiom");
    *n = Node::Axiom("add-idem".into());
    let e = rejected(&c);
    assert!(e.starts_with("star_unfold_l: step"), "{e}");
    assert!(e.contains("rule `"), "{e}");
}

#[test]
fn an_unknown_axiom_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "one_le_star");
    l.nodes[0] = Node::Axiom("omega-everything".into());
    assert!(rejected(&c).contains("no equational axiom `omega-everything`"));
}

#[test]
fn a_forward_reference_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "sim");
    let last = l.nodes.len() - 1;
    l.nodes[0] = Node::Sym(last);
    assert!(rejected(&c).contains("does not come before it"));
}

#[test]
fn a_truncated_or_missing_derivation_is_rejected() {
    let mut c = certificate();
    lemma(&mut c, "sim").nodes.pop();
    assert!(rejected(&c).contains("the proof of sim shows"));
    let mut c = certificate();
    lemma(&mut c, "sim").nodes.clear();
    assert!(rejected(&c).contains("sim: derivation: the lemma has no derivation"));
}

#[test]
fn a_changed_statement_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "sim");
    l.statement.conclusions[0].rhs = T(read_term("(; (? y e) (? z e))").expect("a term"));
    assert!(rejected(&c).contains("sim: statement: rule `lemma`"));
}

#[test]
fn a_dropped_premise_or_index_condition_is_rejected() {
    let mut c = certificate();
    lemma(&mut c, "sim").statement.premises.clear();
    assert!(rejected(&c).contains("which is not a premise"));
}

#[test]
fn a_changed_hypothesis_is_rejected_where_it_is_used() {
    let mut c = certificate();
    let h = c
        .theory
        .hypotheses
        .iter_mut()
        .find(|h| h.label == "(16)")
        .expect("(16)");
    h.conclusions[0].lhs = T(read_term("(; (@ p i) (@ v i))").expect("a term"));
    let e = rejected(&c);
    assert!(e.starts_with("pu: case i = j, step 1"), "{e}");
}

#[test]
fn a_case_split_without_the_equal_case_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "pu");
    let k = l
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Cases { .. }))
        .expect("a case split");
    if let Node::Cases { same, differ, .. } = &mut l.nodes[k] {
        *same = *differ;
    }
    assert!(rejected(&c).contains("rule `cases`"));
}

#[test]
fn a_stale_fresh_index_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "pu_sum");
    let n = l
        .nodes
        .iter_mut()
        .find(|n| matches!(n, Node::SumLeast { .. }))
        .expect("a sum elimination");
    if let Node::SumLeast { index, .. } = n {
        *index = "j".into();
    }
    assert!(rejected(&c).contains("rule `sum-least`"));
}

#[test]
fn a_term_grown_without_bound_is_rejected_without_overflowing() {
    // x = 0 + x applied at the root 5,000 times nests the term 5,000 deep.
    let mut c = certificate();
    let l = lemma(&mut c, "one_le_star");
    l.nodes = vec![
        Node::Axiom("add-zero".into()),
        Node::Sym(0),
        Node::Chain {
            start: T(read_term("(? x e)").expect("a term")),
            steps: vec![(1, vec![]); 5_000],
        },
    ];
    assert!(rejected(&c).contains("nests deeper than 2048"));
}

#[test]
fn malformed_certificates_are_errors_not_panics() {
    assert!(Certificate::from_json("{").is_err());
    assert!(Certificate::from_json("{\"format\": \"other\"}").is_err());
    let mut c = certificate();
    c.format = "something/else".into();
    assert!(Certificate::from_json(&c.to_json()).is_err());
    let json = certificate().to_json().replacen("(@ p i)", "((", 1);
    assert!(Certificate::from_json(&json).is_err());
    let deep = format!("{}(@ x){}", "(* ".repeat(50_000), ")".repeat(50_000));
    let json = certificate().to_json().replacen("(@ p i)", &deep, 1);
    let e = Certificate::from_json(&json).expect_err("too deep");
    assert!(e.to_string().contains("deeper"), "{e}");
}

/// Node 0 is `?x + ?x = ?x`; each of the next `n` instantiates `?x` with
/// `?x + ?x`, doubling the theorem: after 40, its left side would have
/// 2^41 - 1 operators and leaves, though every term written is tiny.
fn doubling(n: usize) -> Vec<Node> {
    let double = T(read_term("(+ (? ?x e) (? ?x e))").expect("a term"));
    let mut nodes = vec![Node::Axiom("add-idem".into())];
    for k in 0..n {
        nodes.push(Node::Inst {
            of: k,
            vars: [("?x".to_string(), double.clone())].into(),
            ixs: Default::default(),
        });
    }
    nodes
}

#[test]
fn a_term_doubled_by_forty_instances_is_refused_quickly() {
    let mut c = certificate();
    lemma(&mut c, "one_le_star").nodes = doubling(40);
    let start = std::time::Instant::now();
    let e = recheck_declared(&c, None).expect_err("refused");
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    // The first instance past the bound is refused: 2^15 - 1 > 20,000.
    assert!(
        matches!(&e, CertificateError::Limit { lemma, location, .. }
            if lemma == "one_le_star" && location.ends_with("node 13")),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("rule `instance`: a term has more than 20000 operators and leaves"),
        "{e}"
    );
}

#[test]
fn a_long_derivation_on_large_terms_is_stopped_by_the_work_limit() {
    // A theorem with terms of about 16,000 and 8,000 operators, then flipped by
    // symmetry over and over: each node is cheap to write and costs the
    // core the size of its terms, so the total work is what bounds it.
    let mut c = certificate();
    let mut nodes = doubling(12);
    for k in 12..200_000 {
        nodes.push(Node::Sym(k));
    }
    lemma(&mut c, "one_le_star").nodes = nodes;
    let start = std::time::Instant::now();
    let e = recheck_declared(&c, None).expect_err("refused");
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    assert!(matches!(e, CertificateError::Limit { .. }), "{e:?}");
    assert!(e.to_string().contains("work limit"), "{e}");
    // The same derivation, short, is within the limits (and then refused
    // for proving something else than the lemma).
    let mut c = certificate();
    lemma(&mut c, "one_le_star").nodes = doubling(12);
    let e = recheck_declared(&c, None).expect_err("refused");
    assert!(matches!(e, CertificateError::Rejected { .. }), "{e:?}");
}

#[test]
fn a_step_whose_goal_is_not_what_its_node_derives_is_rejected() {
    let mut c = certificate();
    let l = lemma(&mut c, "sim");
    l.steps[0].goal.lhs = T(Term::One);
    l.steps[0].goal.rel = omega_algebra::trusted::Rel::Eq;
    l.steps[0].goal.rhs = T(Term::Zero);
    let e = rejected(&c);
    assert!(e.contains("sim: step 1, node"), "{e}");
    assert!(
        e.contains("the step's goal is `1 = 0`, but its node derives `x* y <= x* y z*`"),
        "{e}"
    );
    // A step that names no node is rejected too.
    let mut c = certificate();
    lemma(&mut c, "pu").steps[1].root = None;
    let e = rejected(&c);
    assert!(
        e.contains("pu: case i = j, step 2: the step names no node"),
        "{e}"
    );
}

#[test]
fn a_summand_at_a_thread_certified_as_a_lemma_about_every_system_is_rejected() {
    // 1 <= (+k : 1) is false in a system without threads (the sum is 0);
    // sum-intro gives it for every thread t, which says nothing there.
    let mut c = certificate();
    let l = lemma(&mut c, "one_le_star");
    let f = omega_algebra::FormulaCert {
        lhs: T(Term::One),
        rel: omega_algebra::trusted::Rel::Le,
        rhs: T(read_term("(sum 1)").expect("a term")),
    };
    l.statement.conclusions = vec![f.clone()];
    l.nodes = vec![Node::SumIntro {
        sum: f.rhs.clone(),
        at: "t".into(),
    }];
    l.steps[0].goal = f;
    l.steps[0].root = Some(0);
    let e = rejected(&c);
    assert!(
        e.contains("one_le_star: statement: rule `lemma`: the proof of one_le_star holds for every thread t"),
        "{e}"
    );
}
