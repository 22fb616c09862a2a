//! The report of a reduction's contract on one model, as `classify
//! --reduction R` prints it: what the reduction preserves, and each side
//! condition with how the model fares and what breaks it.

use std::fmt;

use serde::Serialize;

use crate::explore::{Assessment, Property};

/// A reduction's contract judged on a model.
#[derive(Clone, Debug, Serialize)]
pub struct ContractReport {
    /// The reduction, with its options.
    pub reduction: String,
    /// Where it comes from: authors, title, year.
    pub source: &'static str,
    /// Per kind of property: `yes`, `in stored states` or `no`.
    pub preserves: Vec<PreservedRow>,
    /// The side conditions, judged.
    pub conditions: Vec<ConditionRow>,
    /// What a store that is not exact adds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<&'static str>,
    /// Whether the reduction applies: no condition refuses the model.
    pub applies: bool,
}

/// How a reduction treats one kind of property.
#[derive(Clone, Debug, Serialize)]
pub struct PreservedRow {
    /// The kind: `assertions`, `invariants`, `discipline`, `deadlocks`,
    /// `lock warnings`.
    pub property: &'static str,
    /// `yes`, `in stored states` or `no`.
    pub preserved: &'static str,
}

/// One side condition, judged.
#[derive(Clone, Debug, Serialize)]
pub struct ConditionRow {
    /// Its name.
    pub name: &'static str,
    /// What the reduction needs of a model.
    pub needs: &'static str,
    /// What it does where a model breaks it: `adapts`, `reports`,
    /// `refuses`, or `nothing (unsound)`.
    pub remedy: &'static str,
    /// How.
    pub how: &'static str,
    /// `met`, `adapted`, `checked`, `refused` or `UNSOUND`.
    pub status: &'static str,
    /// What breaks it.
    pub findings: Vec<FindingRow>,
}

/// What breaks a condition, and where.
#[derive(Clone, Debug, Serialize)]
pub struct FindingRow {
    /// In words.
    pub message: String,
    /// The line of the statement or declaration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl ContractReport {
    /// The report of `a`.
    pub fn new(a: &Assessment) -> ContractReport {
        let c = &a.contract;
        ContractReport {
            reduction: c.name.clone(),
            source: c.source,
            preserves: Property::ALL
                .iter()
                .map(|&p| PreservedRow {
                    property: p.name(),
                    preserved: c.preserves(p).name(),
                })
                .collect(),
            conditions: a
                .judgements
                .iter()
                .map(|j| ConditionRow {
                    name: j.condition.name,
                    needs: j.condition.needs,
                    remedy: j.condition.remedy.name(),
                    how: j.condition.how,
                    status: j.status.name(),
                    findings: j
                        .findings
                        .iter()
                        .map(|f| FindingRow {
                            message: f.message.clone(),
                            line: f.place.map(|(_, l)| l),
                        })
                        .collect(),
                })
                .collect(),
            store: c.store,
            applies: a.refusal().is_none(),
        }
    }
}

impl fmt::Display for ContractReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "reduction  {}", self.reduction)?;
        writeln!(f, "source     {}", self.source)?;
        let preserves: Vec<String> = self
            .preserves
            .iter()
            .map(|p| format!("{} {}", p.property, p.preserved))
            .collect();
        writeln!(f, "preserves  {}", preserves.join(", "))?;
        if let Some(store) = self.store {
            writeln!(f, "store      {store}")?;
        }
        writeln!(f, "side conditions")?;
        let width = super::name_width(self.conditions.iter().map(|c| c.name));
        for c in &self.conditions {
            write!(f, "  {:width$}  {}", c.name, c.status)?;
            if c.status != "met" {
                write!(f, ": {}", c.how)?;
            }
            writeln!(f)?;
            for x in &c.findings {
                match x.line {
                    Some(l) => writeln!(f, "    line {l}: {}", x.message)?,
                    None => writeln!(f, "    {}", x.message)?,
                }
            }
        }
        if self.applies {
            writeln!(f, "applies    yes")
        } else {
            writeln!(
                f,
                "applies    no: the reduction does not apply to this model (check exits 3)"
            )
        }
    }
}
