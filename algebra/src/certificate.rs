//! Certificates: every inference of a checked script, with egg's rewrite
//! sequence for each saturation, in a form that [`recheck`](crate::recheck)
//! replays without search. Terms are the kernel's e-graph s-expressions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::CertificateError;
use crate::facts::{Fact, Source};
use crate::kernel::Checked;
use crate::lang::to_sexp;
use crate::proof::{GoalProof, How};
use crate::script::{DefHead, Script, Sort, SourceKind, Statement};
use crate::term::{Formula, Rel};

/// The certificate format this crate writes and reads.
pub const CERTIFICATE_FORMAT: &str = "omega-algebra-certificate/1";

/// A formula as s-expressions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormulaCert {
    /// Left side.
    pub lhs: String,
    /// `=` or `<=`.
    pub rel: String,
    /// Right side.
    pub rhs: String,
}

/// A statement: schematic variables with sorts, index disequalities,
/// premises and conclusions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementCert {
    /// Its label.
    pub label: String,
    /// Schematic variables: `elem` or `pred`.
    pub vars: BTreeMap<String, String>,
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
    /// Whether it is a predicate (has a complement).
    pub pred: bool,
}

/// A definition: `lhs = rhs`, where `name` is fresh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefinitionCert {
    /// Its label.
    pub label: String,
    /// The defined constant or family (`None` for the bracket).
    pub name: Option<String>,
    /// Whether it defines a family `name_i`.
    pub family: bool,
    /// The definition as a statement (`M_i = v_i u_i*`, schematic in `i`).
    pub statement: StatementCert,
}

/// One step of a lemma.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepCert {
    /// The case it belongs to: `(i, j, equal)`.
    pub case: Option<(String, String, bool)>,
    /// Its position in the chain.
    pub number: usize,
    /// The step.
    pub goal: FormulaCert,
    /// Its proof (absent if the step failed).
    pub proof: Option<GoalCert>,
}

/// A lemma and the proofs of its steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LemmaCert {
    /// What it states.
    pub statement: StatementCert,
    /// Whether the kernel accepted it.
    pub proved: bool,
    /// Its steps in order (cases one after the other).
    pub steps: Vec<StepCert>,
}

/// A proof of a goal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalCert {
    /// The goal.
    pub goal: FormulaCert,
    /// The inference.
    pub how: HowCert,
}

/// The inference proving a goal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HowCert {
    /// Equal up to associativity, or the left side is a summand of the right.
    Identical,
    /// A proof of `lhs = rhs` by rewriting; rule `fN` is fact N.
    Saturation {
        /// First term.
        lhs: String,
        /// Last term.
        rhs: String,
        /// The facts the rules come from.
        facts: Vec<FactCert>,
        /// egg's explanation, as a shared tree.
        proof: TreeCert,
    },
    /// A common context removed.
    Context {
        /// Common leading factors.
        prefix: Vec<String>,
        /// Common trailing factors.
        suffix: Vec<String>,
        /// The goal without them.
        inner: Box<GoalCert>,
    },
    /// Summands of the left side, after unfolding and sum elimination.
    Split {
        /// One per summand.
        parts: Vec<PartCert>,
    },
    /// `a = b` from `a <= b` and `b <= a`.
    Antisymmetry {
        /// `a <= b`
        le: Box<GoalCert>,
        /// `b <= a`
        ge: Box<GoalCert>,
    },
    /// Factor by factor.
    Factors {
        /// One per factor.
        factors: Vec<GoalCert>,
    },
}

/// An egg tree explanation with shared nodes. A sequence of node ids
/// proves that the first node's initial term equals the last node's final
/// term; a node's initial (final) term is its operator applied to the
/// initial (final) terms of its children's sequences. Consecutive nodes of
/// a sequence are linked by exactly one rewrite, found in the later node's
/// initial term (at its root, or at the first node of a child sequence,
/// recursively), or by nothing when the terms coincide.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeCert {
    /// The nodes.
    pub nodes: Vec<NodeCert>,
    /// The top-level sequence.
    pub root: Vec<usize>,
}

/// A node of a [`TreeCert`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCert {
    /// The operator or leaf.
    pub op: String,
    /// A rule rewriting the previous node's final term into this node's initial term.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<String>,
    /// A rule rewriting this node's initial term into the previous node's final term.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backward: Option<String>,
    /// One sequence per child.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Vec<usize>>,
}

/// A summand of a split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartCert {
    /// The summand.
    pub summand: String,
    /// Fresh indices of eliminated sums, outermost first.
    pub fresh: Vec<String>,
    /// Definitions unfolded.
    pub unfolded: Vec<String>,
    /// Its proof.
    pub proof: GoalCert,
}

/// A fact and why it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactCert {
    /// The fact (`?x` and `?_i` schematic).
    pub formula: FormulaCert,
    /// Where it comes from.
    pub source: SourceCert,
}

/// Where a fact comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceCert {
    /// An instance of a cited statement's conclusion.
    Cited {
        /// `hypothesis`, `definition`, `lemma` or `premise`.
        kind: String,
        /// The label.
        label: String,
        /// Which conclusion.
        conclusion: usize,
        /// Instantiation of variables.
        terms: BTreeMap<String, String>,
        /// Instantiation of indices.
        indices: BTreeMap<String, String>,
    },
    /// Proved on the spot.
    Proved {
        /// The proof.
        proof: Box<GoalCert>,
    },
    /// The conclusion of a Horn rule instance.
    Horn {
        /// `axiom` or `lemma`.
        kind: String,
        /// The rule.
        label: String,
        /// Instantiation of variables.
        terms: BTreeMap<String, String>,
        /// Instantiation of indices.
        indices: BTreeMap<String, String>,
        /// Proofs of the instantiated premises.
        premises: Vec<GoalCert>,
    },
    /// `f(t) <= (+k : f(k))`.
    SumIntro {
        /// The sum.
        sum: String,
        /// The definition naming it, if the fact is about the name.
        defined: Option<String>,
        /// The indices.
        at: Vec<String>,
    },
    /// `(.k : f(k)) <= f(t)`.
    ProdElim {
        /// The product.
        prod: String,
        /// The definition naming it.
        defined: Option<String>,
        /// The index.
        at: String,
    },
    /// `(.k : f(k)) <= 1`.
    ProdTest {
        /// The product.
        prod: String,
        /// The definition naming it.
        defined: Option<String>,
    },
}

/// A certificate for a whole script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certificate {
    /// [`CERTIFICATE_FORMAT`].
    pub format: String,
    /// The script it certifies.
    pub script: String,
    /// Declared atoms.
    pub atoms: Vec<AtomCert>,
    /// Definitions, in order.
    pub definitions: Vec<DefinitionCert>,
    /// Hypotheses: assumed, not proved.
    pub hypotheses: Vec<StatementCert>,
    /// Lemmas, in order.
    pub lemmas: Vec<LemmaCert>,
}

impl Certificate {
    /// Serialises the certificate.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a certificate.
    pub fn from_json(s: &str) -> Result<Certificate, CertificateError> {
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

fn rel_str(r: Rel) -> String {
    r.to_string()
}

fn formula_cert(f: &Formula) -> FormulaCert {
    let f = f.map(|t| t.canon());
    FormulaCert {
        lhs: to_sexp(&f.lhs),
        rel: rel_str(f.rel),
        rhs: to_sexp(&f.rhs),
    }
}

fn kind_str(k: SourceKind) -> String {
    match k {
        SourceKind::Axiom => "axiom",
        SourceKind::Definition => "definition",
        SourceKind::Hypothesis => "hypothesis",
        SourceKind::Lemma => "lemma",
        SourceKind::Premise => "premise",
    }
    .to_string()
}

pub(crate) fn statement_cert(label: &str, st: &Statement) -> StatementCert {
    StatementCert {
        label: label.to_string(),
        vars: st
            .vars
            .iter()
            .map(|(k, s)| {
                (
                    k.clone(),
                    if *s == Sort::Pred { "pred" } else { "elem" }.to_string(),
                )
            })
            .collect(),
        distinct: st.distinct.clone(),
        premises: st.premises.iter().map(formula_cert).collect(),
        conclusions: st.conclusions.iter().map(formula_cert).collect(),
    }
}

fn index_value(i: &str) -> String {
    i.to_string()
}

fn fact_cert(f: &Fact) -> Result<FactCert, String> {
    let source = match &f.source {
        Source::Cited {
            kind,
            label,
            conclusion,
            inst,
        } => SourceCert::Cited {
            kind: kind_str(*kind),
            label: label.clone(),
            conclusion: *conclusion,
            terms: inst
                .terms
                .iter()
                .map(|(k, v)| (k.clone(), to_sexp(&v.canon())))
                .collect(),
            indices: inst
                .indices
                .iter()
                .map(|(k, v)| (k.clone(), index_value(v)))
                .collect(),
        },
        Source::Proved(p) => SourceCert::Proved {
            proof: Box::new(goal_cert(p)?),
        },
        Source::Horn {
            kind,
            label,
            inst,
            premises,
        } => SourceCert::Horn {
            kind: kind_str(*kind),
            label: label.clone(),
            terms: inst
                .terms
                .iter()
                .map(|(k, v)| (k.clone(), to_sexp(&v.canon())))
                .collect(),
            indices: inst
                .indices
                .iter()
                .map(|(k, v)| (k.clone(), index_value(v)))
                .collect(),
            premises: premises.iter().map(goal_cert).collect::<Result<_, _>>()?,
        },
        Source::SumIntro { sum, defined, at } => SourceCert::SumIntro {
            sum: to_sexp(sum),
            defined: defined.clone(),
            at: at.clone(),
        },
        Source::ProdElim { prod, defined, at } => SourceCert::ProdElim {
            prod: to_sexp(prod),
            defined: defined.clone(),
            at: at.clone(),
        },
        Source::ProdTest { prod, defined } => SourceCert::ProdTest {
            prod: to_sexp(prod),
            defined: defined.clone(),
        },
    };
    Ok(FactCert {
        formula: formula_cert(&f.formula),
        source,
    })
}

fn goal_cert(p: &GoalProof) -> Result<GoalCert, String> {
    let how = match &p.how {
        How::Identical => HowCert::Identical,
        How::Saturation {
            lhs,
            rhs,
            facts,
            sequence,
            ..
        } => HowCert::Saturation {
            lhs: to_sexp(lhs),
            rhs: to_sexp(rhs),
            facts: facts.iter().map(fact_cert).collect::<Result<_, _>>()?,
            proof: sequence
                .as_deref()
                .cloned()
                .ok_or_else(|| "the check ran without explanations".to_string())?,
        },
        How::Context {
            prefix,
            suffix,
            inner,
        } => HowCert::Context {
            prefix: prefix.iter().map(to_sexp).collect(),
            suffix: suffix.iter().map(to_sexp).collect(),
            inner: Box::new(goal_cert(inner)?),
        },
        How::Split { parts } => HowCert::Split {
            parts: parts
                .iter()
                .map(|pt| {
                    Ok(PartCert {
                        summand: to_sexp(&pt.summand),
                        fresh: pt.fresh.clone(),
                        unfolded: pt.unfolded.clone(),
                        proof: goal_cert(&pt.proof)?,
                    })
                })
                .collect::<Result<_, String>>()?,
        },
        How::Antisymmetry(a, b) => HowCert::Antisymmetry {
            le: Box::new(goal_cert(a)?),
            ge: Box::new(goal_cert(b)?),
        },
        How::Factors(ps) => HowCert::Factors {
            factors: ps.iter().map(goal_cert).collect::<Result<_, _>>()?,
        },
    };
    Ok(GoalCert {
        goal: formula_cert(&p.goal),
        how,
    })
}

impl Checked {
    /// Builds the certificate of a check run with
    /// [`Settings::explain`](crate::Settings) on.
    pub fn certificate(&self, script: &Script) -> Result<Certificate, CertificateError> {
        let atoms = script
            .atoms
            .iter()
            .map(|a| AtomCert {
                name: a.name.clone(),
                family: a.family,
                pred: a.sort == Sort::Pred,
            })
            .collect();
        let definitions = script
            .definitions()
            .map(|d| {
                let mut st = Statement {
                    conclusions: vec![d.formula()],
                    ..Default::default()
                };
                if let DefHead::Bracket(x) = &d.head {
                    st.vars.insert(x.clone(), Sort::Elem);
                }
                DefinitionCert {
                    label: d.label.clone(),
                    name: d.name().map(str::to_string),
                    family: matches!(d.head, DefHead::Family(..)),
                    statement: statement_cert(&d.label, &st),
                }
            })
            .collect();
        let hypotheses = script
            .hypotheses()
            .map(|h| statement_cert(&h.label, &h.statement))
            .collect();
        let mut lemmas = Vec::new();
        for rec in &self.records {
            let mut steps = Vec::new();
            for s in &rec.steps {
                let proof = match &s.proof {
                    Some(p) => Some(goal_cert(p).map_err(|e| CertificateError::Rejected {
                        lemma: rec.label.clone(),
                        location: format!("step {}", s.number),
                        reason: e,
                    })?),
                    None => None,
                };
                steps.push(StepCert {
                    case: s.case.clone(),
                    number: s.number,
                    goal: formula_cert(&s.goal),
                    proof,
                });
            }
            lemmas.push(LemmaCert {
                statement: statement_cert(&rec.label, &rec.statement),
                proved: rec.proved,
                steps,
            });
        }
        Ok(Certificate {
            format: CERTIFICATE_FORMAT.to_string(),
            script: script.file.clone(),
            atoms,
            definitions,
            hypotheses,
            lemmas,
        })
    }
}
