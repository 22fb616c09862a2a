//! The `ltl` part of a check's report: per property its verdict under the
//! fairness assumed, and for a violation the lasso, a run that goes round
//! a cycle for ever, printed like a safety trace with the cycle marked.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{StateLayout, StepReport, json_state, write_trace};
use crate::explore::{LtlOutcome, Step, Verdict};
use crate::ltl::Fairness;
use crate::model::Model;

/// The temporal properties of a check.
#[derive(Clone, Debug, Serialize)]
pub struct LtlReport {
    /// `none`, `weak` or `strong`.
    pub fairness: &'static str,
    /// What that fairness assumes, in words.
    pub fairness_means: &'static str,
    /// States of the graph the properties were checked on.
    pub states: Option<u64>,
    /// Its transitions.
    pub transitions: Option<u64>,
    /// `--hash-compact`: the graph's store and what it may have missed; a
    /// `holds` under it is probabilistic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<super::StoreRow>,
    /// Why the properties were not decided, when they were not: the
    /// safety check did not hold, a limit, or the reduction refuses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// One per property checked, in declaration order.
    pub properties: Vec<PropertyReport>,
}

/// One property.
#[derive(Clone, Debug, Serialize)]
pub struct PropertyReport {
    /// Its name.
    pub name: String,
    /// The formula.
    pub formula: String,
    /// The line it is declared on.
    pub line: usize,
    /// `holds`, `violated`, `inconclusive` or `not checked`.
    pub verdict: &'static str,
    /// The fairness it was checked under.
    pub fairness: &'static str,
    /// States of the graph it was checked on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<u64>,
    /// States of the automaton of its negation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub automaton_states: Option<usize>,
    /// States of the product of the graph and that automaton.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_states: Option<u64>,
    /// What is wrong, for a violation; the limit, when inconclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The counterexample, for a violation by a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lasso: Option<LassoReport>,
    /// For an atom that cannot be evaluated: the trace to the state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<StepReport>>,
}

/// A run that violates a property: the stem, then the cycle for ever.
#[derive(Clone, Debug, Serialize)]
pub struct LassoReport {
    /// From the initial state to the cycle.
    pub stem: Vec<StepReport>,
    /// The cycle, numbered on from the stem; empty when the run ends.
    pub cycle: Vec<StepReport>,
    /// Whether the run ends (every thread ended, or a deadlock) and its
    /// last state repeats for ever.
    pub ends: bool,
    /// The state the cycle starts from and comes back to.
    pub entry_state: Map<String, Value>,
    /// The same, laid out per thread.
    pub entry_layout: StateLayout,
}

/// The words of each fairness.
fn fairness_means(f: Fairness) -> &'static str {
    match f {
        Fairness::None => {
            "any infinite run counts, even one that never schedules a thread that could move"
        }
        Fairness::Weak => "a thread that stays able to move eventually moves",
        Fairness::Strong => "a thread that is able to move again and again eventually moves",
    }
}

fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Holds => "holds",
        Verdict::Violated => "violated",
        _ => "inconclusive",
    }
}

impl LtlReport {
    /// The report of checking `selected` (indices into `Model::ltl`):
    /// `outcome` when they were checked, else `reason` says why not.
    pub fn new(
        model: &Model,
        selected: &[usize],
        fairness: Fairness,
        outcome: Option<&LtlOutcome>,
        reason: Option<String>,
    ) -> LtlReport {
        let skipped = |p: usize, why: Option<String>| {
            let prop = &model.ltl[p];
            PropertyReport {
                name: prop.name.clone(),
                formula: prop.text.clone(),
                line: prop.line,
                verdict: if why.is_some() {
                    "inconclusive"
                } else {
                    "not checked"
                },
                fairness: fairness.name(),
                states: None,
                automaton_states: None,
                product_states: None,
                message: why,
                lasso: None,
                trace: None,
            }
        };
        let Some(o) = outcome else {
            return LtlReport {
                fairness: fairness.name(),
                fairness_means: fairness_means(fairness),
                states: None,
                transitions: None,
                store: None,
                reason,
                properties: selected.iter().map(|&p| skipped(p, None)).collect(),
            };
        };
        // Why the properties not decided were not: a refusal, a limit in
        // the graph, or the limit that stopped the last property checked.
        let stopped = o
            .refused
            .as_ref()
            .map(|r| r.message.clone())
            .or_else(|| o.limit.map(|l| l.to_string()))
            .or_else(|| match o.properties.last().map(|p| &p.verdict) {
                Some(Verdict::Inconclusive(l)) => Some(l.to_string()),
                _ => None,
            });
        let mut properties = Vec::new();
        for &p in selected {
            let Some(po) = o.properties.iter().find(|q| q.property == p) else {
                properties.push(skipped(p, stopped.clone()));
                continue;
            };
            let prop = &model.ltl[p];
            let mut r = skipped(p, None);
            r.verdict = verdict_word(&po.verdict);
            r.automaton_states = Some(po.automaton_states);
            r.states = Some(o.stats.states);
            r.product_states = Some(po.product_states);
            if let Verdict::Inconclusive(l) = &po.verdict {
                r.message = Some(l.to_string());
            }
            if let Some((atom, f, trace)) = &po.fault {
                r.message = Some(format!(
                    "its atom `{}` cannot be evaluated in a reachable state: {}",
                    prop.atom_text[*atom],
                    super::fault_text(model, f).0
                ));
                r.trace = Some(super::steps(model, trace, false));
            }
            if let Some(l) = &po.lasso {
                r.message = Some(format!(
                    "a run {} on which `{}` is false",
                    if l.cycle.is_empty() {
                        "that ends"
                    } else {
                        "that repeats a cycle for ever"
                    },
                    prop.text
                ));
                r.lasso = Some(lasso(model, &l.stem, &l.cycle, l.cycle.is_empty()));
            }
            properties.push(r);
        }
        LtlReport {
            fairness: fairness.name(),
            fairness_means: fairness_means(fairness),
            states: (o.refused.is_none()).then_some(o.stats.states),
            transitions: (o.refused.is_none()).then_some(o.stats.transitions),
            store: o.coverage.as_ref().map(super::StoreRow::of),
            reason: stopped.or(reason),
            properties,
        }
    }

    /// `violated` if a property is, else `inconclusive` if one is, else
    /// `holds` (also when none was checked).
    pub fn verdict(&self) -> &'static str {
        let any = |v: &str| self.properties.iter().any(|p| p.verdict == v);
        if any("violated") {
            "violated"
        } else if any("inconclusive") {
            "inconclusive"
        } else {
            "holds"
        }
    }
}

/// The lasso's rows, numbered on from the stem into the cycle.
fn lasso(model: &Model, stem: &[Step], cycle: &[Step], ends: bool) -> LassoReport {
    let whole: Vec<Step> = stem.iter().chain(cycle).cloned().collect();
    let mut rows = super::steps(model, &whole, false);
    let cycle_rows = rows.split_off(stem.len());
    let entry = stem
        .last()
        .and_then(|s| s.state.as_deref())
        .unwrap_or(&model.init);
    LassoReport {
        stem: rows,
        cycle: cycle_rows,
        ends,
        entry_state: json_state(model, entry),
        entry_layout: StateLayout::of(model, entry),
    }
}

impl fmt::Display for LtlReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        writeln!(
            f,
            "fairness     {} ({})",
            self.fairness, self.fairness_means
        )?;
        if let (Some(s), Some(t)) = (self.states, self.transitions) {
            writeln!(f, "ltl graph    {s} states, {t} transitions")?;
        }
        if let Some(st) = &self.store {
            writeln!(
                f,
                "ltl store    hash-compact (64-bit fingerprints); probability that any state was missed <= {:.2e}; `holds` is probabilistic",
                st.omission_probability
            )?;
        }
        if let Some(r) = &self.reason {
            writeln!(f, "ltl          not decided: {r}")?;
        }
        let width = super::name_width(self.properties.iter().map(|p| p.name.as_str()));
        for p in &self.properties {
            let product = p
                .product_states
                .map_or(String::new(), |n| format!(" ({n} product states)"));
            let verdict = match (&p.message, p.verdict) {
                (Some(m), "inconclusive") if Some(m) != self.reason.as_ref() => {
                    format!("inconclusive: {m}")
                }
                _ => p.verdict.to_string(),
            };
            writeln!(
                f,
                "ltl          {:width$}  {verdict}{product}  [line {}: {}]",
                p.name, p.line, p.formula
            )?;
        }
        for p in &self.properties {
            if p.verdict != "violated" {
                continue;
            }
            writeln!(f)?;
            if let Some(m) = &p.message {
                writeln!(f, "violation    {}: {m}", p.name)?;
            }
            if let Some(t) = p.trace.as_ref().filter(|t| !t.is_empty()) {
                writeln!(f)?;
                writeln!(f, "trace ({} transitions) to that state:", t.len())?;
                write_trace(f, t)?;
            }
            let Some(l) = &p.lasso else { continue };
            let rows: Vec<StepReport> = l.stem.iter().chain(&l.cycle).cloned().collect();
            if !rows.is_empty() {
                writeln!(f)?;
                let s = |n: usize| if n == 1 { "" } else { "s" };
                if l.ends {
                    writeln!(
                        f,
                        "lasso ({} transition{}, then the last state repeats for ever):",
                        l.stem.len(),
                        s(l.stem.len())
                    )?;
                } else {
                    writeln!(
                        f,
                        "lasso ({} transition{} to the cycle, then a cycle of {} repeated for ever):",
                        l.stem.len(),
                        s(l.stem.len()),
                        l.cycle.len()
                    )?;
                }
                let table = Trace(&rows).to_string();
                let start = l.stem.len() + 1;
                for (n, line) in table.lines().enumerate() {
                    if !l.ends && n == start {
                        writeln!(
                            f,
                            "  -- the cycle: steps {start} to {} repeat for ever --",
                            rows.len()
                        )?;
                    }
                    writeln!(f, "{line}")?;
                }
            }
            writeln!(f)?;
            let heading = if l.ends {
                "the state that repeats for ever"
            } else {
                "the state the cycle starts from and comes back to"
            };
            l.entry_layout.write(f, heading)?;
        }
        Ok(())
    }
}

/// A trace table, as text.
struct Trace<'a>(&'a [StepReport]);

impl fmt::Display for Trace<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_trace(f, self.0)
    }
}
