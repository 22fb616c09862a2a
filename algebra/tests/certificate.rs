//! Certificates: accepted when intact, rejected when any recorded
//! inference is corrupted. The script exercises every kind of inference:
//! saturation, contexts, Horn rules with premises, cited hypotheses (with
//! and without index conditions), lemma instances, sums over threads and a
//! case split.

use omega_algebra::{
    Certificate, CheckOptions, GoalCert, HowCert, SourceCert, Status, check, parse_script, recheck,
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
    let mut opts = CheckOptions::default();
    opts.settings.explain = true;
    let checked = check(&script, &opts);
    assert_eq!(
        checked.report.status,
        Status::Proved,
        "{}",
        checked.report.to_text()
    );
    checked.certificate(&script).expect("a certificate")
}

fn rejected(c: &Certificate) -> String {
    match recheck(c) {
        Ok(s) => panic!("a corrupted certificate was accepted: {s:?}"),
        Err(e) => {
            eprintln!("rejected: {e}");
            e.to_string()
        }
    }
}

/// Visits goal proofs depth first until `f` reports a change.
fn visit(g: &mut GoalCert, f: &mut dyn FnMut(&mut GoalCert) -> bool) -> bool {
    if f(g) {
        return true;
    }
    match &mut g.how {
        HowCert::Identical => false,
        HowCert::Saturation { facts, .. } => facts.iter_mut().any(|fact| match &mut fact.source {
            SourceCert::Proved { proof } => visit(proof, f),
            SourceCert::Horn { premises, .. } => premises.iter_mut().any(|p| visit(p, f)),
            _ => false,
        }),
        HowCert::Context { inner, .. } => visit(inner, f),
        HowCert::Split { parts } => parts.iter_mut().any(|p| visit(&mut p.proof, f)),
        HowCert::Antisymmetry { le, ge } => visit(le, f) || visit(ge, f),
        HowCert::Factors { factors } => factors.iter_mut().any(|p| visit(p, f)),
    }
}

/// Applies `f` to the first goal proof it changes; panics if none.
fn corrupt_first(c: &mut Certificate, mut f: impl FnMut(&mut GoalCert) -> bool) {
    let done = c
        .lemmas
        .iter_mut()
        .flat_map(|l| l.steps.iter_mut())
        .filter_map(|s| s.proof.as_mut())
        .any(|p| visit(p, &mut f));
    assert!(done, "nothing to corrupt");
}

#[test]
fn intact_certificate_is_accepted_and_round_trips() {
    let c = certificate();
    let back = Certificate::from_json(&c.to_json()).expect("reads back");
    assert_eq!(back, c);
    let s = recheck(&back).expect("accepted");
    assert_eq!(s.lemmas, 5);
    assert_eq!(s.steps, 11);
    assert!(s.rewrites > 10);
    assert_eq!(s.hypotheses, vec!["(12)".to_string(), "(16)".to_string()]);
}

#[test]
fn a_changed_term_in_an_explanation_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } if proof.root.len() > 2 => {
            // A leaf `x` used after the first rewrite becomes `y`.
            let last = proof.root[proof.root.len() - 1];
            match proof.nodes[..=last].iter_mut().rev().find(|n| n.op == "x") {
                Some(n) => {
                    n.op = "y".into();
                    true
                }
                None => false,
            }
        }
        _ => false,
    });
    let e = rejected(&c);
    assert!(e.contains("goal"), "{e}");
    // An operator changed in the middle of a derivation breaks a link.
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } if proof.root.len() > 3 => {
            let mid = proof.root[proof.root.len() / 2];
            let node = &mut proof.nodes[mid];
            node.op = match node.op.as_str() {
                "+" => ";".into(),
                ";" => "+".into(),
                _ => return false,
            };
            true
        }
        _ => false,
    });
    let e = rejected(&c);
    assert!(e.contains("rewrite") || e.contains("differ"), "{e}");
}

#[test]
fn a_wrong_rule_name_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } => {
            for n in proof.nodes.iter_mut() {
                if n.forward.as_deref() == Some("add-comm") {
                    n.forward = Some("seq-assoc".into());
                    return true;
                }
            }
            false
        }
        _ => false,
    });
    assert!(rejected(&c).contains("by seq-assoc"));
}

#[test]
fn a_swapped_pair_of_rewrites_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } if proof.root.len() > 3 => {
            proof.root.swap(1, 2);
            true
        }
        _ => false,
    });
    rejected(&c);
}

#[test]
fn a_cyclic_explanation_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } => {
            match proof.nodes.iter().position(|n| !n.children.is_empty()) {
                Some(k) => {
                    proof.nodes[k].children[0][0] = k;
                    true
                }
                None => false,
            }
        }
        _ => false,
    });
    assert!(rejected(&c).contains("malformed"));
}

#[test]
fn a_changed_hypothesis_is_rejected() {
    let mut c = certificate();
    let h = c
        .hypotheses
        .iter_mut()
        .find(|h| h.label == "(16)")
        .expect("(16)");
    h.conclusions[0].lhs = "(; (p _i) (v _i))".into();
    assert!(rejected(&c).contains("instance of (16)"));
}

#[test]
fn a_fact_attributed_to_the_wrong_source_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { facts, .. } => facts.iter_mut().any(|f| match &mut f.source {
            SourceCert::Cited { kind, label, .. } if kind == "hypothesis" && label == "(16)" => {
                *label = "(12)".into();
                true
            }
            _ => false,
        }),
        _ => false,
    });
    rejected(&c);
}

#[test]
fn a_missing_premise_proof_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { facts, .. } => facts.iter_mut().any(|f| match &mut f.source {
            SourceCert::Horn { premises, .. } if !premises.is_empty() => {
                premises.clear();
                true
            }
            _ => false,
        }),
        _ => false,
    });
    assert!(rejected(&c).contains("premises"));
}

#[test]
fn a_changed_statement_breaks_the_chain() {
    let mut c = certificate();
    let l = c
        .lemmas
        .iter_mut()
        .find(|l| l.statement.label == "sim")
        .expect("sim");
    l.statement.conclusions[0].rhs = "(; y z)".into();
    assert!(rejected(&c).contains("chain ends"));
}

#[test]
fn a_stale_fresh_index_is_rejected() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Split { parts } if parts.iter().any(|p| !p.fresh.is_empty()) => {
            for p in parts.iter_mut() {
                for f in p.fresh.iter_mut() {
                    *f = "j".into();
                }
            }
            true
        }
        _ => false,
    });
    rejected(&c);
}

#[test]
fn a_case_split_without_the_equal_case_is_rejected() {
    let mut c = certificate();
    let l = c
        .lemmas
        .iter_mut()
        .find(|l| l.statement.label == "pu")
        .expect("pu");
    for s in &mut l.steps {
        if let Some(case) = &mut s.case {
            case.2 = false;
        }
    }
    assert!(rejected(&c).contains("case"));
}

#[test]
fn an_unproved_or_truncated_lemma_is_rejected() {
    let mut c = certificate();
    c.lemmas[1].proved = false;
    assert!(rejected(&c).contains("did not prove"));
    let mut c = certificate();
    c.lemmas[1].steps.pop();
    rejected(&c);
}

#[test]
fn a_strengthened_step_is_rejected() {
    let mut c = certificate();
    let step = &mut c.lemmas[1].steps[0];
    step.goal.rel = "=".into();
    rejected(&c);
}

#[test]
fn a_very_deep_explanation_is_rejected_without_overflowing() {
    let mut c = certificate();
    corrupt_first(&mut c, |g| match &mut g.how {
        HowCert::Saturation { proof, .. } => {
            proof.nodes = (0..100_000)
                .map(|k| omega_algebra::NodeCert {
                    op: if k == 0 { "x".into() } else { "*".into() },
                    forward: None,
                    backward: None,
                    children: if k == 0 { vec![] } else { vec![vec![k - 1]] },
                })
                .collect();
            proof.root = vec![99_999];
            true
        }
        _ => false,
    });
    assert!(rejected(&c).contains("nested deeper"));
}

#[test]
fn malformed_certificates_are_errors_not_panics() {
    assert!(Certificate::from_json("{").is_err());
    assert!(Certificate::from_json("{\"format\": \"other\"}").is_err());
    let mut c = certificate();
    c.format = "something/else".into();
    assert!(Certificate::from_json(&c.to_json()).is_err());
    let mut c = certificate();
    c.lemmas[0].steps[0].goal.lhs = "((".into();
    assert!(rejected(&c).contains("malformed"));
    let mut c = certificate();
    c.lemmas[0].steps[0].goal.lhs = format!("{}x{}", "(* ".repeat(50_000), ")".repeat(50_000));
    assert!(rejected(&c).contains("deeper"));
}
