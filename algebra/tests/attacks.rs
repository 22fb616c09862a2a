//! The attack corpus: proof scripts that try to make the kernel accept a
//! false statement, one file per variant, named by the class of the audit
//! they belong to (`sorts_`: sorts in Horn instances; `capture_`: binder
//! capture; `names_`: names that spell operators; `refuter_`: switching the
//! refuter off; `claim_`: claiming more than is proved). Each file states
//! the reason the kernel must give, and a forged derivation that realises
//! the same attack in the core's primitive rules, with the reason the
//! re-checker must give. Then tampered certificates of the reduction proof:
//! the re-checker must reject every one, naming the lemma, step and rule.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use omega_algebra::{
    Certificate, CheckOptions, LemmaCert, Node, Status, T, check, parse_script, read_term, recheck,
    recheck_declared,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/attacks");

struct Attack {
    name: String,
    source: String,
    kernel: String,
    recheck: String,
    forged: Vec<Node>,
}

fn header<'s>(source: &'s str, key: &str) -> &'s str {
    source
        .lines()
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")))
        .unwrap_or_else(|| panic!("no `// {key}:` line"))
}

fn corpus() -> Vec<Attack> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(DIR).expect("the corpus directory") {
        let path = e.expect("an entry").path();
        if path.extension().and_then(|x| x.to_str()) != Some("proof") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).expect("readable");
        let forge = header(&source, "forge");
        let (lemma, nodes) = forge.split_once(' ').expect("`forge: LEMMA NODES`");
        assert_eq!(lemma, "bad", "{name}: the forged lemma is `bad`");
        let forged: Vec<Node> = serde_json::from_str(nodes)
            .unwrap_or_else(|e| panic!("{name}: forged nodes do not read: {e}"));
        out.push(Attack {
            kernel: header(&source, "kernel").to_string(),
            recheck: header(&source, "recheck").to_string(),
            name,
            source,
            forged,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[test]
fn the_corpus_has_several_variants_of_every_class() {
    let c = corpus();
    for class in ["sorts_", "capture_", "names_", "refuter_", "claim_"] {
        let n = c.iter().filter(|a| a.name.starts_with(class)).count();
        assert!(n >= 3, "class {class}: only {n} variants");
    }
}

/// The kernel rejects every attack, with the screen on and off (so that the
/// search, not the refuter, is what fails to justify it), for the stated
/// reason, naming the lemma and step.
#[test]
fn every_attack_is_rejected_by_the_kernel() {
    for a in corpus() {
        let file = format!("{}.proof", a.name);
        let script = match parse_script(&file, &a.source) {
            Ok(s) => s,
            Err(e) => {
                let want = a.kernel.strip_prefix("parse: ").unwrap_or_else(|| {
                    panic!("{}: does not parse ({e}) but expects a check", a.name)
                });
                assert!(e.to_string().contains(want), "{}: {e}", a.name);
                continue;
            }
        };
        for screen in [true, false] {
            let mut opts = CheckOptions::default();
            if !screen {
                opts.settings.screen_budget = 0;
                opts.settings.subgoal_budget = 0;
                opts.settings.explain_budget = 0;
            }
            let r = check(&script, &opts).report;
            assert_eq!(r.status, Status::Failed, "{} was accepted", a.name);
            let bad: Vec<String> = r
                .failed
                .iter()
                .filter(|f| f.lemma == "bad")
                .map(|f| format!("bad {}: {}", f.step, f.reason))
                .collect();
            assert!(!bad.is_empty(), "{}: lemma bad did not fail", a.name);
            assert!(
                r.lemmas
                    .iter()
                    .filter(|l| l.label != "bad")
                    .all(|l| l.status == Status::Proved),
                "{}: a helper lemma failed:\n{}",
                a.name,
                r.to_text()
            );
            if screen {
                assert!(
                    bad.iter().any(|b| b.contains(&a.kernel)),
                    "{}: expected `{}`, got {bad:?}",
                    a.name,
                    a.kernel
                );
            }
        }
    }
}

/// The statement of lemma `bad` with a trivial proof, so that every script
/// parses and the certificate of its honest lemmas can be made.
fn without_bad_proof(source: &str) -> String {
    let at = source.find("\nlemma bad:").expect("lemma bad") + 1;
    let rest = &source[at..];
    let end = [rest.find(" by {"), rest.find("\nproof")]
        .into_iter()
        .flatten()
        .min()
        .expect("a proof");
    format!("{}{} by {{}}\n", &source[..at], &rest[..end])
}

/// The re-checker rejects the certificate the kernel writes for each attack
/// (lemma `bad` has no derivation), and the forged derivation that realises
/// the attack in primitive rules, for the stated reason.
#[test]
fn every_attack_is_rejected_by_the_re_checker() {
    let mut wrong = Vec::new();
    for a in corpus() {
        let src = without_bad_proof(&a.source);
        let script = parse_script("attack.proof", &src).expect("parses with a trivial proof");
        let checked = check(&script, &CheckOptions::default());
        let mut cert = checked.certificate(&script).expect("a certificate");
        let honest = recheck_declared(&cert, None).expect_err("bad is not derived");
        assert!(
            honest
                .to_string()
                .contains("bad: derivation: the lemma has no derivation"),
            "{}: {honest}",
            a.name
        );
        let bad = cert
            .lemmas
            .iter_mut()
            .find(|l| l.statement.label == "bad")
            .expect("lemma bad");
        bad.nodes = a.forged.clone();
        bad.steps[0].root = Some(a.forged.len() - 1);
        let e = recheck_declared(&cert, None).expect_err("a forged derivation");
        if !e.to_string().contains(&a.recheck) {
            wrong.push(format!("{}: expected `{}`, got `{e}`", a.name, a.recheck));
        }
        // And the pinned re-checker refuses the theory before anything else.
        let e = recheck(&cert).expect_err("not the paper's theory");
        assert!(e.to_string().starts_with("-: theory: "), "{}: {e}", a.name);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ------------------------------------------------- tampered certificates

fn reduction(drop: &[&str]) -> Certificate {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../proofs/reduction.proof");
    let source = std::fs::read_to_string(path).expect("readable");
    let script = parse_script("proofs/reduction.proof", &source).expect("parses");
    let opts = CheckOptions {
        drop: drop.iter().map(|d| d.to_string()).collect(),
        ..Default::default()
    };
    check(&script, &opts)
        .certificate(&script)
        .expect("a certificate")
}

/// The certificate of the reduction proof (made once; terms are not
/// `Sync`, so it is shared as JSON).
fn honest() -> Certificate {
    static CERT: OnceLock<String> = OnceLock::new();
    let json = CERT.get_or_init(|| {
        let c = reduction(&[]);
        recheck(&c).expect("the honest certificate is accepted");
        c.to_json()
    });
    Certificate::from_json(json).expect("reads back")
}

fn lemma<'c>(c: &'c mut Certificate, label: &str) -> &'c mut LemmaCert {
    c.lemmas
        .iter_mut()
        .find(|l| l.statement.label == label)
        .unwrap_or_else(|| panic!("lemma {label}"))
}

fn term(s: &str) -> T {
    T(read_term(s).expect("a term"))
}

fn rejected(c: &Certificate, want: &str) {
    match recheck(c) {
        Ok(a) => panic!("accepted: {a:?}"),
        Err(e) => assert!(e.to_string().contains(want), "expected `{want}`, got `{e}`"),
    }
}

/// The references of a node to earlier nodes.
fn refs(n: &mut Node) -> Vec<&mut usize> {
    match n {
        Node::Inst { of, .. } | Node::SumLeast { of, .. } => vec![of],
        Node::Cut { of, premise } => vec![of, premise],
        Node::Sym(a)
        | Node::LeFold(a)
        | Node::LeUnfold(a)
        | Node::StarIndL(a)
        | Node::StarIndR(a)
        | Node::OmegaInd(a) => vec![a],
        Node::Trans(a, b) => vec![a, b],
        Node::Cases { same, differ, .. } => vec![same, differ],
        Node::Chain { steps, .. } => steps.iter_mut().map(|(r, _)| r).collect(),
        _ => vec![],
    }
}

/// Replaces node `at` by `new` (whose last node takes its place), shifting
/// references.
fn splice(l: &mut LemmaCert, at: usize, new: Vec<Node>) {
    let extra = new.len() - 1;
    let mut new = new;
    for n in new.iter_mut() {
        for r in refs(n) {
            *r += at;
        }
    }
    l.nodes.splice(at..=at, new);
    for n in l.nodes[at + extra + 1..].iter_mut() {
        for r in refs(n) {
            if *r > at {
                *r += extra;
            } else if *r == at {
                *r = at + extra;
            }
        }
    }
    for s in l.steps.iter_mut() {
        if let Some(r) = s.root.as_mut()
            && *r >= at
        {
            *r += extra;
        }
    }
}

#[test]
fn a_certificate_without_lemmas_is_rejected() {
    let mut c = honest();
    c.lemmas.clear();
    rejected(&c, "(19): claim: the certificate does not derive (19)");
}

#[test]
fn a_lemma_without_a_derivation_is_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(23)");
    l.nodes.clear();
    l.steps.clear();
    rejected(&c, "(23): derivation: the lemma has no derivation");
}

#[test]
fn the_theorem_restated_as_1_eq_0_is_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(19)");
    l.statement.conclusions[0].lhs = term("1");
    l.statement.conclusions[0].rel = omega_algebra::trusted::Rel::Eq;
    l.statement.conclusions[0].rhs = term("0");
    let mut bare = c.clone();
    rejected(&c, "(19): statement: rule `lemma`: the proof of (19) shows");
    lemma(&mut bare, "(19)").nodes.clear();
    rejected(&bare, "(19): derivation: the lemma has no derivation");
}

#[test]
fn a_true_statement_under_the_theorems_label_is_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(19)");
    l.statement.conclusions[0].lhs = term("1");
    l.statement.conclusions[0].rel = omega_algebra::trusted::Rel::Eq;
    l.statement.conclusions[0].rhs = term("1");
    l.nodes = vec![Node::Aci(term("1"), term("1"))];
    l.steps.clear();
    rejected(
        &c,
        "(19): claim: it derives (19) as `1 = 1`, but the pinned claim is",
    );
}

#[test]
fn the_theorem_under_an_extra_premise_or_condition_is_rejected() {
    let mut c = honest();
    let st = &mut lemma(&mut c, "(19)").statement;
    st.premises.push(omega_algebra::FormulaCert {
        lhs: term("1"),
        rel: omega_algebra::trusted::Rel::Eq,
        rhs: term("0"),
    });
    rejected(&c, "(19): claim: it derives (19) as `1 = 0 => ");
    let mut c = honest();
    let st = &mut lemma(&mut c, "(19)").statement;
    st.distinct.push(("i".into(), "j".into()));
    rejected(&c, "(19): claim: it derives (19) as `i != j => ");
}

#[test]
fn a_doctored_drop_17_certificate_is_rejected() {
    let dropped = reduction(&["17"]);
    rejected(
        &dropped,
        "-: theory: hypothesis (17) of the paper is missing",
    );
    // Put (17) back in the declared theory: (23) still has no derivation.
    let mut c = dropped.clone();
    let h17 = honest()
        .theory
        .hypotheses
        .iter()
        .find(|h| h.label == "(17)")
        .cloned()
        .expect("(17)");
    c.theory.hypotheses.push(h17);
    rejected(&c, "(23): derivation: the lemma has no derivation");
}

#[test]
fn extra_or_changed_hypotheses_and_definitions_are_rejected() {
    let mut c = honest();
    let mut extra = c.theory.hypotheses[0].clone();
    extra.label = "(20)".into();
    extra.conclusions[0].lhs = term("1");
    extra.conclusions[0].rhs = term("0");
    c.theory.hypotheses.push(extra);
    rejected(
        &c,
        "-: theory: hypothesis (20) is not one of the paper's (11)-(18)",
    );

    let mut c = honest();
    let h = c
        .theory
        .hypotheses
        .iter_mut()
        .find(|h| h.label == "(17)")
        .expect("(17)");
    h.conclusions[0].rhs = term("(@ p i)");
    rejected(
        &c,
        "-: theory: hypothesis (17) is `1 <= p_i`, the paper's is",
    );

    let mut c = honest();
    let d = c
        .theory
        .definitions
        .iter_mut()
        .find(|d| d.label == "(9)")
        .expect("(9)");
    d.body = term("(; (@ q) (@ T))");
    rejected(&c, "-: theory: definition (9) is `R = q T`, the paper's is");
}

#[test]
fn a_hypothesis_used_but_not_in_the_paper_is_rejected() {
    let mut c = honest();
    let (label, k) = c
        .lemmas
        .iter()
        .find_map(|l| {
            l.nodes
                .iter()
                .position(|n| matches!(n, Node::Hyp { label, .. } if label == "(17)"))
                .map(|k| (l.statement.label.clone(), k))
        })
        .expect("a use of (17)");
    lemma(&mut c, &label).nodes[k] = Node::Hyp {
        label: "(20)".into(),
        conclusion: 0,
    };
    rejected(&c, "rule `hypothesis`: the theory has no hypothesis (20)");
}

/// The audit's first attack in certificate form: (13) replaced, where (25)
/// uses it, by the predicate lemma pred_comm instantiated at v_j and p_i.
#[test]
fn hypothesis_13_replaced_by_a_predicate_lemma_on_elements_is_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(25)");
    let k = l
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Hyp { label, .. } if label == "(13)"))
        .expect("(25) uses (13)");
    let vars: BTreeMap<String, T> = [
        ("a".to_string(), term("(@ v j)")),
        ("b".to_string(), term("(@ p i)")),
    ]
    .into();
    splice(
        l,
        k,
        vec![
            Node::Lemma("pred_comm".into()),
            Node::Inst {
                of: 0,
                vars,
                ixs: BTreeMap::new(),
            },
        ],
    );
    rejected(
        &c,
        "rule `instance`: `a` is a predicate variable and `v_j` is not a predicate literal",
    );
}

#[test]
fn lemmas_out_of_order_are_rejected() {
    let mut c = honest();
    let a = c
        .lemmas
        .iter()
        .position(|l| l.statement.label == "(22)")
        .expect("(22)");
    c.lemmas.swap(a, a - 1);
    rejected(
        &c,
        "(22): step 1, node 0: rule `lemma`: no proved lemma (23)",
    );
}

#[test]
fn a_stale_index_in_a_sum_elimination_is_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(25M)");
    let n = l
        .nodes
        .iter_mut()
        .find(|n| matches!(n, Node::SumLeast { .. }))
        .expect("a sum elimination");
    if let Node::SumLeast { index, .. } = n {
        *index = "i".into();
    }
    rejected(&c, "(25M): step 1, node");
    rejected(&c, "rule `sum-least`: ");
}

#[test]
fn a_self_citation_and_a_forward_reference_are_rejected() {
    let mut c = honest();
    let l = lemma(&mut c, "(21)");
    l.nodes[0] = Node::Lemma("(21)".into());
    rejected(
        &c,
        "(21): step 1, node 0: rule `lemma`: no proved lemma (21)",
    );
    let mut c = honest();
    let l = lemma(&mut c, "(21)");
    let last = l.nodes.len() - 1;
    l.nodes[1] = Node::Sym(last);
    rejected(&c, "does not come before it");
}
