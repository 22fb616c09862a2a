//! The `ltl` part of a check's report: per property its verdict under the
//! fairness assumed, and for a violation the lasso, a run that goes round
//! a cycle for ever, printed like a safety trace with the cycle marked.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{StateLayout, StepReport, json_state, write_trace};
use crate::explore::{LtlOutcome, Step, StepResult, Verdict};
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
    /// The symmetry whose orbits the graph has one state of, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<super::SymmetryRow>,
    /// Under `--symmetry on`, why the graph has every state, where it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused_symmetry: Option<String>,
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
    /// The threads that take no step on the cycle, and why the run is fair
    /// to each under the fairness assumed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sitting_out: Vec<SitOut>,
}

/// A thread that takes no step on a lasso's cycle.
#[derive(Clone, Debug, Serialize)]
pub struct SitOut {
    /// The thread.
    pub thread: String,
    /// `ended`, `disabled` (throughout the cycle), `sometimes-disabled` or
    /// `enabled` (throughout: only a run without fairness may leave it out).
    pub kind: &'static str,
    /// The steps of the lasso after which it cannot move (its states on the
    /// cycle are the ones after each of the cycle's steps).
    pub disabled_after: Vec<usize>,
    /// Why that is fair, in words.
    pub why: String,
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
                symmetry: None,
                unused_symmetry: None,
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
                r.lasso = Some(lasso(
                    model,
                    &l.stem,
                    &l.cycle,
                    l.cycle.is_empty(),
                    fairness,
                ));
            }
            properties.push(r);
        }
        LtlReport {
            fairness: fairness.name(),
            fairness_means: fairness_means(fairness),
            states: (o.refused.is_none()).then_some(o.stats.states),
            transitions: (o.refused.is_none()).then_some(o.stats.transitions),
            symmetry: o.symmetry.as_ref().map(super::SymmetryRow::of),
            unused_symmetry: o.unused_symmetry.clone(),
            store: o.coverage.as_ref().map(super::StoreRow::of),
            reason: stopped.or(reason),
            properties,
        }
    }

    /// The report of `selected` when the safety check, which runs first,
    /// ended otherwise than `holds` (its verdict `safety`): after a
    /// violation they are not checked; after a limit or a refusal they are
    /// inconclusive, as the check is.
    pub fn after_safety(
        model: &Model,
        selected: &[usize],
        fairness: Fairness,
        safety: &Verdict,
    ) -> LtlReport {
        let why = match safety {
            Verdict::Holds | Verdict::Violated => "the safety check did not hold".to_string(),
            Verdict::Inconclusive(l) => format!("the safety check was inconclusive ({l})"),
            Verdict::DoesNotApply(_) => {
                "the safety check was not made: the reduction does not apply".to_string()
            }
        };
        let open = !matches!(safety, Verdict::Holds | Verdict::Violated);
        let mut r = LtlReport::new(model, selected, fairness, None, Some(why.clone()));
        for p in r.properties.iter_mut().filter(|_| open) {
            p.verdict = "inconclusive";
            p.message = Some(why.clone());
        }
        r
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
fn lasso(
    model: &Model,
    stem: &[Step],
    cycle: &[Step],
    ends: bool,
    fairness: Fairness,
) -> LassoReport {
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
        sitting_out: if ends {
            Vec::new()
        } else {
            sitting_out(model, stem.len(), cycle, fairness)
        },
    }
}

/// Why the lasso with `cycle` (after a stem of `stem` steps) is not a fair
/// run under `fairness`, if it is not: a thread the fairness asks to move
/// that never moves on the cycle.
pub(crate) fn unfair(
    model: &Model,
    stem: usize,
    cycle: &[Step],
    fairness: Fairness,
) -> Option<String> {
    let asked = |o: &SitOut| match fairness {
        Fairness::None => false,
        Fairness::Weak => o.kind == "enabled",
        Fairness::Strong => matches!(o.kind, "enabled" | "sometimes-disabled"),
    };
    let o = sitting_out(model, stem, cycle, fairness)
        .into_iter()
        .find(asked)?;
    let how = match o.kind {
        "enabled" => "could move throughout the cycle".to_string(),
        _ => format!(
            "could move on the cycle (it cannot only after {})",
            steps_list(&o.disabled_after)
        ),
    };
    Some(format!(
        "the lasso is not a fair run under {} fairness: {} {how} and never moves on it",
        fairness.name(),
        o.thread
    ))
}

/// The threads that take no step on `cycle` (numbered on from a stem of
/// `stem` steps), each with the steps after which it cannot move.
fn sitting_out(model: &Model, stem: usize, cycle: &[Step], fairness: Fairness) -> Vec<SitOut> {
    let states: Vec<&[i64]> = cycle.iter().filter_map(|s| s.state.as_deref()).collect();
    let moves = |t: usize| {
        cycle
            .iter()
            .any(|s| model.transitions[s.transition].thread as usize == t)
    };
    let mut out = Vec::new();
    for (t, thread) in model.threads.iter().enumerate().filter(|&(t, _)| !moves(t)) {
        let disabled_after: Vec<usize> = (states.iter().enumerate())
            .filter(|(_, s)| !enabled(model, t, s))
            .map(|(j, _)| stem + j + 1)
            .collect();
        let ended = states.first().is_some_and(|s| s[t] == thread.end());
        let (kind, why) = sit_out_why(ended, &disabled_after, states.len(), fairness);
        out.push(SitOut {
            thread: thread.name.clone(),
            kind,
            disabled_after,
            why,
        });
    }
    out
}

/// Whether thread `t` can move in `s`.
fn enabled(model: &Model, t: usize, s: &[i64]) -> bool {
    let mut next = Vec::new();
    model.threads[t].points[s[t] as usize]
        .transitions
        .clone()
        .any(|k| {
            !matches!(
                crate::explore::step(model, k, s, &mut next),
                StepResult::Disabled
            )
        })
}

/// What kind of sitting out it is, for a thread disabled after the steps
/// `off` of the cycle's `n`, and why the run is fair to it under
/// `fairness`.
fn sit_out_why(ended: bool, off: &[usize], n: usize, fairness: Fairness) -> (&'static str, String) {
    let unfair = "such a run does not count under this fairness";
    match (ended, off.len()) {
        (true, _) => ("ended", "it has ended".to_string()),
        (false, o) if o == n => (
            "disabled",
            "it cannot move anywhere on the cycle, so no fairness asks it to".to_string(),
        ),
        (false, 0) => (
            "enabled",
            match fairness {
                Fairness::None => "it could move throughout the cycle; without fairness a run need not schedule it",
                _ => unfair,
            }
            .to_string(),
        ),
        (false, _) => (
            "sometimes-disabled",
            format!(
                "it cannot move after {}; {}",
                steps_list(off),
                match fairness {
                    Fairness::None => "without fairness a run need not schedule it anyway",
                    Fairness::Weak => "weak fairness asks a move only of a thread able to move at every step",
                    Fairness::Strong => unfair,
                }
            ),
        ),
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
            let orbits = match &self.symmetry {
                Some(_) => ", one state per orbit",
                None => "",
            };
            writeln!(f, "ltl graph    {s} states, {t} transitions{orbits}")?;
        }
        if let Some(why) = &self.unused_symmetry {
            writeln!(f, "note         {why}")?;
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
            for o in &l.sitting_out {
                writeln!(f, "sits out     {}: {}", o.thread, o.why)?;
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

/// `step 5`, `steps 5, 7 and 9`, `steps 2 to 6, 8 and 9`: runs of three
/// or more consecutive steps as ranges.
fn steps_list(steps: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &s in steps {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == s => *hi = s,
            _ => runs.push((s, s)),
        }
    }
    let mut words = Vec::new();
    for (lo, hi) in runs {
        match hi - lo {
            0 => words.push(lo.to_string()),
            1 => words.extend([lo.to_string(), hi.to_string()]),
            _ => words.push(format!("{lo} to {hi}")),
        }
    }
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("steps {} and {last}", rest.join(", ")),
        Some((last, _)) if last.contains(' ') => format!("steps {last}"),
        _ => format!("step {}", words.join("")),
    }
}

#[cfg(test)]
mod tests {
    use super::steps_list;

    #[test]
    fn steps_are_listed_with_runs_as_ranges() {
        assert_eq!(steps_list(&[3]), "step 3");
        assert_eq!(steps_list(&[3, 4]), "steps 3 and 4");
        assert_eq!(steps_list(&[3, 4, 5]), "steps 3 to 5");
        assert_eq!(
            steps_list(&[2, 3, 4, 6, 9, 10]),
            "steps 2 to 4, 6, 9 and 10"
        );
    }
}
