//! Certificates: the theory a run assumed and, for every lemma, its
//! derivation in the primitive rules of the trusted core (a list of
//! [`Node`]s whose last one proves the lemma). [`recheck`](crate::recheck)
//! replays them through the core.

use serde::{Deserialize, Serialize};

use crate::bridge::{self, Sorts};
use crate::error::CertificateError;
use crate::kernel::Checked;
use crate::proofterm::{Node, T};
use crate::script::{self, Script};
use crate::trusted::{CoreError, DefHead, Formula, Rel, Sort, Statement, Theory};

/// The certificate format this crate writes and reads.
pub const CERTIFICATE_FORMAT: &str = "omega-algebra-certificate/2";

/// `lhs rel rhs`, terms in the certificate syntax.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormulaCert {
    /// Left side.
    pub lhs: T,
    /// `=` or `<=`.
    pub rel: Rel,
    /// Right side.
    pub rhs: T,
}

/// A hypothesis or lemma statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementCert {
    /// Its label.
    pub label: String,
    /// Index pairs assumed different.
    pub distinct: Vec<(String, String)>,
    /// Premises.
    pub premises: Vec<FormulaCert>,
    /// Conclusions.
    pub conclusions: Vec<FormulaCert>,
}

/// A declared atom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomCert {
    /// Its name.
    pub name: String,
    /// Whether it is a thread-indexed family.
    pub family: bool,
    /// Whether it is a predicate.
    pub pred: bool,
}

/// A definition `head = body`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefinitionCert {
    /// Its label.
    pub label: String,
    /// `const`, `family` or `bracket`.
    pub kind: String,
    /// The defined name (for the bracket, its variable).
    pub name: String,
    /// A family's index parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The body.
    pub body: T,
}

/// What a run assumed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TheoryCert {
    /// Declared atoms.
    pub atoms: Vec<AtomCert>,
    /// Definitions, in order.
    pub definitions: Vec<DefinitionCert>,
    /// Hypotheses.
    pub hypotheses: Vec<StatementCert>,
}

/// One step of a lemma's chain: where its proof ends in the node list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepCert {
    /// The case it belongs to: `(i, j, equal)`.
    pub case: Option<(String, String, bool)>,
    /// Its position in its chain.
    pub number: usize,
    /// The step: exactly what its root node derives (the re-checker
    /// refuses a certificate where it is not).
    pub goal: FormulaCert,
    /// The node proving it (every step of a derived lemma has one).
    pub root: Option<usize>,
}

/// A lemma and its derivation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LemmaCert {
    /// What it states.
    pub statement: StatementCert,
    /// Its steps, for messages.
    pub steps: Vec<StepCert>,
    /// The derivation; the last node proves the statement.
    pub nodes: Vec<Node>,
}

/// A certificate for a whole script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certificate {
    /// [`CERTIFICATE_FORMAT`].
    pub format: String,
    /// The script it certifies.
    pub script: String,
    /// The theory the run assumed.
    pub theory: TheoryCert,
    /// Lemmas, in order.
    pub lemmas: Vec<LemmaCert>,
}

impl Certificate {
    /// Serialises the certificate.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a certificate.
    pub fn from_json(s: &str) -> Result<Certificate, CertificateError> {
        // Derivations are flat lists, so the JSON nests only a few levels.
        let c: Certificate =
            serde_json::from_str(s).map_err(|e| CertificateError::Malformed(e.to_string()))?;
        if c.format != CERTIFICATE_FORMAT {
            return Err(CertificateError::Malformed(format!(
                "format `{}`, expected `{CERTIFICATE_FORMAT}`",
                c.format
            )));
        }
        Ok(c)
    }
}

pub(crate) fn formula_cert(f: &Formula) -> FormulaCert {
    FormulaCert {
        lhs: T(f.lhs.clone()),
        rel: f.rel,
        rhs: T(f.rhs.clone()),
    }
}

pub(crate) fn formula_of(f: &FormulaCert) -> Formula {
    Formula::new(f.lhs.0.clone(), f.rel, f.rhs.0.clone())
}

pub(crate) fn statement_cert(label: &str, st: &Statement) -> StatementCert {
    StatementCert {
        label: label.to_string(),
        distinct: st.distinct.clone(),
        premises: st.premises.iter().map(formula_cert).collect(),
        conclusions: st.conclusions.iter().map(formula_cert).collect(),
    }
}

pub(crate) fn statement_of(s: &StatementCert) -> Statement {
    Statement {
        distinct: s.distinct.clone(),
        premises: s.premises.iter().map(formula_of).collect(),
        conclusions: s.conclusions.iter().map(formula_of).collect(),
    }
}

/// The theory of a script, without the dropped hypotheses, in its order.
fn theory_cert(s: &Script, dropped: &[String]) -> TheoryCert {
    let sorts = Sorts(s.vars.clone());
    let atoms = s
        .atoms
        .iter()
        .map(|a| AtomCert {
            name: a.name.clone(),
            family: a.family,
            pred: a.sort == script::Sort::Pred,
        })
        .collect();
    let mut definitions = Vec::new();
    let mut hypotheses = Vec::new();
    for item in &s.items {
        match item {
            script::Item::Def(d) => {
                let (kind, name, param) = match &d.head {
                    script::DefHead::Const(n) => ("const", n.clone(), None),
                    script::DefHead::Family(n, i) => ("family", n.clone(), Some(i.clone())),
                    script::DefHead::Bracket(x) => ("bracket", x.clone(), None),
                };
                let mut ds = sorts.clone();
                if let script::DefHead::Bracket(x) = &d.head {
                    ds.0.insert(x.clone(), script::Sort::Elem);
                }
                definitions.push(DefinitionCert {
                    label: d.label.clone(),
                    kind: kind.into(),
                    name,
                    param,
                    body: T(bridge::term(&d.body, &ds)),
                });
            }
            script::Item::Hyp(h) if !dropped.contains(&h.label) => {
                hypotheses.push(statement_cert(
                    &h.label,
                    &bridge::statement(&h.statement, &sorts),
                ));
            }
            _ => {}
        }
    }
    TheoryCert {
        atoms,
        definitions,
        hypotheses,
    }
}

/// Builds the core theory a certificate declares (checking, as the core
/// does, that definitions are conservative).
pub(crate) fn theory_of(t: &TheoryCert) -> Result<Theory, CoreError> {
    let mut th = Theory::default();
    for a in &t.atoms {
        th.declare(
            &a.name,
            a.family,
            if a.pred { Sort::Pred } else { Sort::Elem },
        )?;
    }
    for d in &t.definitions {
        let head = match (d.kind.as_str(), &d.param) {
            ("const", None) => DefHead::Const(d.name.clone()),
            ("family", Some(p)) => DefHead::Family(d.name.clone(), p.clone()),
            ("bracket", None) => DefHead::Bracket(d.name.clone()),
            _ => {
                return Err(CoreError::new(
                    "define",
                    format!("{}: unknown kind of definition `{}`", d.label, d.kind),
                ));
            }
        };
        th.define(&d.label, head, d.body.0.clone())?;
    }
    for h in &t.hypotheses {
        th.assume(&h.label, statement_of(h))?;
    }
    Ok(th)
}

impl Checked {
    /// The certificate of this run: the theory and each lemma's derivation.
    pub fn certificate(&self, script: &Script) -> Result<Certificate, CertificateError> {
        let sorts = Sorts(script.vars.clone());
        let lemmas = self
            .records
            .iter()
            .map(|rec| LemmaCert {
                statement: statement_cert(&rec.label, &bridge::statement(&rec.statement, &sorts)),
                steps: rec
                    .steps
                    .iter()
                    .zip(&rec.roots)
                    .map(|(s, root)| StepCert {
                        case: s.case.clone(),
                        number: s.number,
                        goal: formula_cert(&bridge::formula(&s.goal, &sorts)),
                        root: *root,
                    })
                    .collect(),
                nodes: if rec.proved {
                    rec.nodes.clone()
                } else {
                    Vec::new()
                },
            })
            .collect();
        Ok(Certificate {
            format: CERTIFICATE_FORMAT.to_string(),
            script: script.file.clone(),
            theory: theory_cert(script, &self.report.dropped),
            lemmas,
        })
    }
}
