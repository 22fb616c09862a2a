//! The re-checker: the trusted core reading a certificate. It does not use
//! egg, the parser or the prover, and it pins the claim: [`recheck`] builds
//! the paper's theory and theorem (19) itself (`trusted/paper.rs`), refuses
//! a certificate that declares any other theory, replays every lemma's
//! derivation through the core's rules (within the core's bounds on term
//! size, depth and total work: past them it stops with
//! [`CertificateError::Limit`]), checks that each step's recorded goal is
//! what its node derives, and accepts only if (19) itself, as the paper
//! states it, was derived. It says what it accepted.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::certificate::{Certificate, LemmaCert, StepCert, formula_of, statement_of, theory_of};
use crate::error::CertificateError;
use crate::proofterm::{Node, run_all};
use crate::trusted::{DefHead, Pinned, Statement, Term, Theory};

/// What a re-check accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Accepted {
    /// The theorem's label.
    pub claim: String,
    /// The theorem, as accepted.
    pub statement: String,
    /// The hypotheses it rests on: (label, statement).
    pub hypotheses: Vec<(String, String)>,
    /// The definitions of the theory: (label, definition).
    pub definitions: Vec<(String, String)>,
    /// Lemmas re-derived.
    pub lemmas: usize,
    /// Steps among them.
    pub steps: usize,
    /// Primitive inferences replayed.
    pub inferences: usize,
    /// Single rewrites among them.
    pub rewrites: usize,
}

fn reject(lemma: &str, location: impl Into<String>, reason: impl Into<String>) -> CertificateError {
    CertificateError::Rejected {
        lemma: lemma.to_string(),
        location: location.into(),
        reason: reason.into(),
    }
}

/// Re-checks a certificate of the reduction theorem: it must derive the
/// paper's (19) in the paper's theory, and nothing else is accepted.
pub fn recheck(cert: &Certificate) -> Result<Accepted, CertificateError> {
    recheck_pinned(cert, Pinned::Reduction)
}

/// Re-checks a certificate of a pinned theorem: it must derive that
/// theorem's claim in that theorem's theory, both built by the core
/// (`trusted/paper.rs`, `trusted/movers.rs`), and nothing else is accepted.
pub fn recheck_pinned(cert: &Certificate, theorem: Pinned) -> Result<Accepted, CertificateError> {
    let pinned = theorem
        .theory()
        .map_err(|e| reject("-", "paper", e.to_string()))?;
    let declared = theory_of(&cert.theory).map_err(|e| reject("-", "theory", e.to_string()))?;
    same_theory(&declared, &pinned)?;
    recheck_in(cert, pinned, Some((theorem.label(), theorem.claim())))
}

/// The pinned theorem whose theory a certificate declares, if any: which
/// claim [`recheck_pinned`] should hold it to. Choosing by the declared
/// theory trusts nothing: the certificate is then held to that theorem's
/// claim, built by the core.
pub fn pinned_theorem(cert: &Certificate) -> Option<Pinned> {
    let declared = theory_of(&cert.theory).ok()?;
    Pinned::ALL
        .into_iter()
        .find(|p| p.theory().is_ok_and(|t| same_theory(&declared, &t).is_ok()))
}

/// Re-checks a certificate in the theory it declares, and, when a claim is
/// given, requires that lemma with exactly that statement.
pub fn recheck_declared(
    cert: &Certificate,
    claim: Option<(&str, Statement)>,
) -> Result<Accepted, CertificateError> {
    let declared = theory_of(&cert.theory).map_err(|e| reject("-", "theory", e.to_string()))?;
    recheck_in(cert, declared, claim)
}

fn recheck_in(
    cert: &Certificate,
    mut th: Theory,
    claim: Option<(&str, Statement)>,
) -> Result<Accepted, CertificateError> {
    let (mut steps, mut inferences, mut rewrites) = (0, 0, 0);
    for l in &cert.lemmas {
        lemma(&mut th, l)?;
        steps += l.steps.len();
        inferences += l.nodes.len();
        rewrites += l
            .nodes
            .iter()
            .map(|n| {
                if let Node::Chain { steps, .. } = n {
                    steps.len()
                } else {
                    0
                }
            })
            .sum::<usize>();
    }
    let (label, st) = match claim {
        Some((label, want)) => {
            let Some((got, _, _)) = th.lemma(label) else {
                return Err(reject(
                    label,
                    "claim",
                    format!("the certificate does not derive {label}"),
                ));
            };
            if *got != want {
                return Err(reject(
                    label,
                    "claim",
                    format!("it derives {label} as `{got}`, but the pinned claim is `{want}`"),
                ));
            }
            (label.to_string(), want)
        }
        None => match cert.lemmas.last() {
            Some(l) => (l.statement.label.clone(), statement_of(&l.statement)),
            None => return Err(reject("-", "claim", "the certificate derives no lemma")),
        },
    };
    let (_, hyps, admitted) = th
        .lemma(&label)
        .ok_or_else(|| reject(&label, "claim", "not derived"))?;
    if !admitted.is_empty() {
        return Err(reject(&label, "claim", "it rests on lemmas without proof"));
    }
    let hyps: BTreeSet<String> = hyps.clone();
    Ok(Accepted {
        claim: label,
        statement: st.to_string(),
        hypotheses: th
            .hypotheses()
            .iter()
            .filter(|(l, _)| hyps.contains(*l))
            .map(|(l, s)| (l.clone(), s.to_string()))
            .collect(),
        definitions: th
            .definitions()
            .iter()
            .map(|(l, (h, b))| (l.clone(), definition_text(h, b)))
            .collect(),
        lemmas: cert.lemmas.len(),
        steps,
        inferences,
        rewrites,
    })
}

fn lemma(th: &mut Theory, l: &LemmaCert) -> Result<(), CertificateError> {
    let label = &l.statement.label;
    if l.nodes.is_empty() {
        return Err(reject(label, "derivation", "the lemma has no derivation"));
    }
    let step_name = |s: &StepCert| match &s.case {
        Some((i, j, eq)) => format!(
            "case {i} {} {j}, step {}",
            if *eq { "=" } else { "!=" },
            s.number
        ),
        None => format!("step {}", s.number),
    };
    let thms = run_all(th, &l.nodes).map_err(|e| {
        // Name the step whose proof contains the refused node.
        let step = l
            .steps
            .iter()
            .find(|s| s.root.is_some_and(|r| r >= e.node))
            .map(step_name)
            .unwrap_or_else(|| "assembly of the steps".into());
        let location = format!("{step}, node {}", e.node);
        match e.error.limit {
            Some(_) => CertificateError::Limit {
                lemma: label.to_string(),
                location,
                reason: e.error.to_string(),
            },
            None => reject(label, location, e.error.to_string()),
        }
    })?;
    let Some(thm) = thms.last() else {
        return Err(reject(label, "derivation", "the lemma has no derivation"));
    };
    th.close_lemma(label, statement_of(&l.statement), thm)
        .map_err(|e| reject(label, "statement", e.to_string()))?;
    // Each step's goal is what its root node derives, so that what the
    // certificate says of a step is never more than the core showed.
    for s in &l.steps {
        let Some(thm) = s.root.and_then(|r| thms.get(r)) else {
            return Err(reject(
                label,
                step_name(s),
                "the step names no node of the derivation as its proof",
            ));
        };
        let goal = formula_of(&s.goal);
        if *thm.concl() != goal {
            return Err(reject(
                label,
                format!("{}, node {}", step_name(s), s.root.unwrap_or_default()),
                format!(
                    "the step's goal is `{goal}`, but its node derives `{}`",
                    thm.concl()
                ),
            ));
        }
    }
    Ok(())
}

fn definition_text(h: &DefHead, body: &Term) -> String {
    match h {
        DefHead::Const(n) => format!("{n} = {body}"),
        DefHead::Family(n, i) => format!("{n}_{i} = {body}"),
        DefHead::Bracket(x) => format!("[{x}] = {body}"),
    }
}

/// The declared theory must be the paper's, exactly.
pub(crate) fn same_theory(got: &Theory, want: &Theory) -> Result<(), CertificateError> {
    let t = |r: String| Err(reject("-", "theory", r));
    for (k, s) in want.atoms() {
        if got.atoms().get(k) != Some(s) {
            return t(format!(
                "the paper declares `{}{}`, the certificate does not",
                k.0,
                if k.1 { "_i" } else { "" }
            ));
        }
    }
    if let Some(k) = got.atoms().keys().find(|k| !want.atoms().contains_key(*k)) {
        return t(format!("`{}` is not declared in the paper", k.0));
    }
    for (l, d) in want.definitions() {
        match got.definitions().get(l) {
            None => return t(format!("definition {l} of the paper is missing")),
            Some(g) if g != d => {
                return t(format!(
                    "definition {l} is `{}`, the paper's is `{}`",
                    definition_text(&g.0, &g.1),
                    definition_text(&d.0, &d.1)
                ));
            }
            _ => {}
        }
    }
    if let Some(l) = got
        .definitions()
        .keys()
        .find(|l| !want.definitions().contains_key(*l))
    {
        return t(format!("definition {l} is not one of the paper's"));
    }
    for (l, h) in want.hypotheses() {
        match got.hypotheses().get(l) {
            None => {
                return t(format!(
                    "hypothesis {l} of the paper is missing (a run with --drop {l}?)"
                ));
            }
            Some(g) if g != h => {
                return t(format!("hypothesis {l} is `{g}`, the paper's is `{h}`"));
            }
            _ => {}
        }
    }
    if let Some(l) = got
        .hypotheses()
        .keys()
        .find(|l| !want.hypotheses().contains_key(*l))
    {
        return t(format!(
            "hypothesis {l} is not one of the paper's (11)-(18)"
        ));
    }
    Ok(())
}
