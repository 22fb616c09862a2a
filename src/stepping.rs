//! Reports of stepping through a model: a random walk
//! ([`SimulateReport`]), the replay of a saved counterexample
//! ([`ReplayReport`]), and the explorer's session ([`Session`]), each as
//! text in the trace format of `check` and as JSON.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::classify::Classification;
use crate::explore::{
    Effect, Mismatch, Problem, Reduction, SavedStep, Step, Violation, Walk, WalkEnd, choices,
    effect, match_path, match_step,
};
use crate::ltl::Fairness;
use crate::model::Model;
use crate::report::{
    StateLayout, Statement, StepReport, ViolationReport, describe, json_state, step_report, steps,
    words, write_trace,
};

/// The report of `optimist simulate`: a random walk, in the trace format of
/// a counterexample.
#[derive(Clone, Debug, Serialize)]
pub struct SimulateReport {
    /// The model's name.
    pub model: String,
    /// The file it was read from.
    pub file: String,
    /// `none` (transitions) or `sc` (reduced steps).
    pub reduction: &'static str,
    /// The seed of the walk.
    pub seed: u64,
    /// The most steps it could take.
    pub max_steps: usize,
    /// Why it ended: `violation`, `deadlock`, `ended` (every thread),
    /// `step-limit` or `stack-bound`.
    pub end: &'static str,
    /// Steps taken (reduced steps under `sc`).
    pub steps: usize,
    /// The violation, when it ended in one.
    pub violation: Option<ViolationReport>,
    /// One sentence on how it ended.
    pub message: String,
    /// The walk, one entry per transition.
    pub trace: Vec<StepReport>,
    /// The state where it ended (before a failing last step).
    pub final_state: Map<String, Value>,
    /// The same state laid out per thread.
    pub final_layout: StateLayout,
    /// Whether ending in a deadlock is a violation (exit 1): unless
    /// `--no-deadlock`.
    #[serde(skip)]
    pub deadlock_is_violation: bool,
}

impl SimulateReport {
    /// The report of `walk`.
    pub fn new(
        model: &Model,
        file: &str,
        reduction: Reduction,
        seed: u64,
        max_steps: usize,
        walk: &Walk,
    ) -> SimulateReport {
        let last = walk
            .trace
            .iter()
            .rev()
            .find_map(|s| s.state.as_ref())
            .unwrap_or(&model.init);
        let mut violation = walk.violation.as_ref().map(|v| describe(model, v));
        let (end, message) = match &walk.end {
            WalkEnd::Violation => (
                "violation",
                format!("violated ({})", violation.as_ref().map_or("?", |v| v.kind)),
            ),
            WalkEnd::Deadlock => {
                let v = Violation {
                    problem: Problem::Deadlock,
                    initial: false,
                    trace: walk.trace.clone(),
                };
                violation = Some(describe(model, &v));
                ("deadlock", "no thread can move".to_string())
            }
            WalkEnd::Ended => ("ended", "every thread has ended".to_string()),
            WalkEnd::StepLimit(n) => (
                "step-limit",
                format!("stopped after {n} steps (--steps); nothing went wrong on the way"),
            ),
            WalkEnd::StackBound(b) => (
                "stack-bound",
                format!(
                    "inconclusive: a call or a Promela `run` went past the bound of {b} (`--max-stack`)"
                ),
            ),
        };
        SimulateReport {
            model: model.name.clone(),
            file: file.to_string(),
            reduction: reduction.name(),
            seed,
            max_steps,
            end,
            steps: walk.steps,
            violation,
            message,
            trace: steps(model, &walk.trace, !reduction.is_full()),
            final_state: json_state(model, last),
            final_layout: StateLayout::of(model, last),
            deadlock_is_violation: true,
        }
    }

    /// 1 for a violation (a deadlock too, unless `--no-deadlock`), 3 for
    /// the stack bound, else 0.
    pub fn exit_code(&self) -> u8 {
        match self.end {
            "violation" => 1,
            "deadlock" if self.deadlock_is_violation => 1,
            "stack-bound" => 3,
            _ => 0,
        }
    }
}

impl fmt::Display for SimulateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "model        {} ({})", self.model, self.file)?;
        let words = words::reduction(self.reduction);
        words::wrapped(f, "reduction", &words.does)?;
        writeln!(f, "seed         {}", self.seed)?;
        let steps = format!(
            "{} (at most {}; {})",
            self.steps, self.max_steps, words.counted
        );
        words::wrapped(f, "steps", &steps)?;
        writeln!(f, "end          {}", self.message)?;
        if let Some(v) = &self.violation {
            writeln!(f)?;
            writeln!(f, "violation    {}", v.message)?;
            if let Some(p) = &v.predicate {
                writeln!(f, "predicate    {p}")?;
            }
            if let Some(d) = &v.deadlock {
                d.write(f)?;
            }
        }
        if !self.trace.is_empty() {
            writeln!(f)?;
            let s = if self.trace.len() == 1 { "" } else { "s" };
            writeln!(f, "trace ({} transition{s}):", self.trace.len())?;
            write_trace(f, &self.trace)?;
        }
        writeln!(f)?;
        let failed = self.trace.last().is_some_and(|s| s.state.is_none());
        let which = if failed {
            "state before the failing step"
        } else {
            "final state"
        };
        self.final_layout.write(f, which)
    }
}

/// Where a replayed counterexample stops matching the model.
#[derive(Clone, Debug, Serialize)]
pub struct Divergence {
    /// The 1-based step of the saved trace (0: the initial state).
    pub step: usize,
    /// The thread the saved step names.
    pub thread: Option<String>,
    /// The statement the saved step names.
    pub expected_statement: Option<String>,
    /// The statements of that thread's transitions at its current point in
    /// the model, with `(disabled)` after those whose guard is false.
    pub found_statements: Vec<String>,
    /// The variables whose value after the step differs:
    /// `{variable, expected, found}`.
    pub differences: Vec<Difference>,
    /// One sentence saying what differs.
    pub message: String,
}

/// A variable whose value differs from the saved trace.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// The variable (or control point).
    pub variable: String,
    /// Its value in the saved trace.
    pub expected: String,
    /// Its value in the model now.
    pub found: String,
}

/// The report of `optimist replay`.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// The model's name.
    pub model: String,
    /// The model file.
    pub file: String,
    /// The saved report.
    pub trace_file: String,
    /// `reproduced` or `diverged`.
    pub outcome: &'static str,
    /// Steps of the saved trace that matched the model.
    pub replayed: usize,
    /// Steps in the saved trace.
    pub saved_steps: usize,
    /// The saved violation's kind.
    pub expected_kind: String,
    /// The saved violation's message.
    pub expected_message: String,
    /// The violation the model shows at the end of the replay (or earlier).
    pub found: Option<ViolationReport>,
    /// Where it diverged.
    pub divergence: Option<Divergence>,
    /// The steps replayed, as the model takes them now.
    pub trace: Vec<StepReport>,
    /// The transitions replayed (indices into `Model::transitions`).
    #[serde(skip)]
    pub transitions: Vec<usize>,
    /// For a lasso whose cycle repeats (not a run that ends): where its
    /// cycle starts, an index into `transitions`.
    #[serde(skip)]
    pub cycle: Option<usize>,
}

/// Why a saved report cannot be replayed at all (exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotATrace(pub String);

impl ReplayReport {
    /// The report of a replay of `saved_steps` steps from `files` (the
    /// model's and the saved report's) that expects a violation (its kind
    /// and message), before any step: `diverged` until the steps show
    /// otherwise.
    fn unreplayed(
        model: &Model,
        (file, trace_file): (&str, &str),
        saved_steps: usize,
        (expected_kind, expected_message): (String, String),
    ) -> ReplayReport {
        ReplayReport {
            model: model.name.clone(),
            file: file.to_string(),
            trace_file: trace_file.to_string(),
            outcome: "diverged",
            replayed: 0,
            saved_steps,
            expected_kind,
            expected_message,
            found: None,
            divergence: None,
            trace: Vec::new(),
            transitions: Vec::new(),
            cycle: None,
        }
    }

    /// Replays the counterexample of `saved` (a JSON report of `check`,
    /// `simulate` or `graph --trace`) against `model`, step by step.
    pub fn new(
        model: &Model,
        file: &str,
        trace_file: &str,
        saved: &Value,
    ) -> Result<ReplayReport, NotATrace> {
        let saved = match saved {
            Value::Array(items) if items.len() == 1 => &items[0],
            Value::Array(items) => {
                return Err(NotATrace(format!(
                    "the report holds {} reports; replay takes one",
                    items.len()
                )));
            }
            v => v,
        };
        let violation = saved.get("violation").filter(|v| v.is_object());
        if violation.is_none()
            && let Some(p) = violated_property(saved)
        {
            return replay_lasso(model, file, trace_file, p);
        }
        let Some(violation) = violation else {
            let verdict = saved
                .get("verdict")
                .or_else(|| saved.get("end"))
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            return Err(NotATrace(format!(
                "the report has no counterexample to replay (its verdict is {verdict}); save one with `optimist check --format json`"
            )));
        };
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let expected_kind = text(violation, "kind").unwrap_or_default();
        let expected_variable = text(violation, "variable");
        let saved_trace = saved
            .get("trace")
            .and_then(Value::as_array)
            .ok_or_else(|| NotATrace("the report has no `trace` array".into()))?;
        let expected_message = text(violation, "message").unwrap_or_default();
        let mut r = ReplayReport::unreplayed(
            model,
            (file, trace_file),
            saved_trace.len(),
            (expected_kind.clone(), expected_message),
        );
        let (s, taken, problem) = replay_trace(model, saved_trace, &expected_kind, &mut r)?;
        r.trace = steps(model, &taken, false);
        if r.divergence.is_some() {
            return Ok(r);
        }
        // The violation the model shows where the saved trace ends: a
        // trace of no steps ends in the initial state, which can be bad
        // (an invariant, WFinitExcl) or deadlocked as well as any other.
        let initial = saved_trace.is_empty();
        let at = problem.as_ref().map_or(saved_trace.len(), |p| p.1);
        let deadlocked = || {
            expected_kind == "deadlock"
                && !model.all_ended(&s)
                && choices(model, &s)
                    .iter()
                    .all(|(_, e)| *e == Effect::Disabled)
        };
        let found = match problem {
            Some((p, _)) => Some(p),
            None => initial
                .then(|| crate::explore::initial_problem(model))
                .flatten()
                .or_else(|| deadlocked().then_some(Problem::Deadlock)),
        };
        let found = found.map(|p| {
            describe(
                model,
                &Violation {
                    problem: p,
                    initial,
                    trace: taken.clone(),
                },
            )
        });
        let same = found.as_ref().is_some_and(|f| {
            f.kind == expected_kind
                && (expected_variable.is_none() || f.variable == expected_variable)
        });
        if same && at == saved_trace.len() {
            r.outcome = "reproduced";
        } else {
            let message = match &found {
                Some(f) if at < saved_trace.len() => format!(
                    "the model goes wrong earlier, at step {at} of {}: {}",
                    saved_trace.len(),
                    f.message
                ),
                Some(f) => format!(
                    "the trace replays, but ends in a different violation: expected {expected_kind}{}, found {}: {}",
                    expected_variable
                        .as_ref()
                        .map_or(String::new(), |v| format!(" on {v}")),
                    f.kind,
                    f.message
                ),
                None => format!(
                    "the trace replays to its end, but the {expected_kind} violation does not occur there"
                ),
            };
            let last = saved_trace.get(at.max(1) - 1);
            r.divergence = Some(Divergence {
                step: at,
                thread: last.and_then(|st| text(st, "thread")),
                expected_statement: last.and_then(|st| text(st, "statement")),
                found_statements: Vec::new(),
                differences: Vec::new(),
                message,
            });
        }
        r.found = found;
        Ok(r)
    }

    /// 1 when the violation reproduces, 3 when the replay diverges.
    pub fn exit_code(&self) -> u8 {
        if self.outcome == "reproduced" { 1 } else { 3 }
    }
}

/// Replays the saved trace's steps from the initial state into `r`
/// (transitions, replayed count, divergence): the state where it stopped,
/// the steps taken, and the problem met with its step, if any.
fn replay_trace(
    model: &Model,
    saved_trace: &[Value],
    expected_kind: &str,
    r: &mut ReplayReport,
) -> Result<(Vec<i64>, Vec<Step>, Option<(Problem, usize)>), NotATrace> {
    let mut s = model.init.clone();
    let mut taken: Vec<Step> = Vec::new();
    let mut problem: Option<(Problem, usize)> = None;
    let path = match_path(model, &saved_steps(saved_trace));
    for (n, st) in saved_trace.iter().enumerate() {
        let (thread, statement, picked) = replay_step(model, path.as_deref(), n, &s, st, "trace")?;
        match picked {
            Err(m) => {
                r.divergence = Some(diverge(model, &s, n + 1, &thread, &statement, m));
                break;
            }
            Ok((k, effect)) => {
                r.replayed = n + 1;
                r.transitions.push(k);
                let after = match effect {
                    // The reduced search checks WFendExcl too.
                    Effect::Ok(a) if expected_kind == "well-formedness" => {
                        if let Some(p) = crate::explore::end_excl(model, k, &s, &a) {
                            problem = Some((p, n + 1));
                        }
                        Some(a)
                    }
                    Effect::Ok(a) => Some(a),
                    Effect::Bad(p, a) => {
                        problem = Some((p, n + 1));
                        a
                    }
                    Effect::Disabled => unreachable!("match_step takes enabled ones"),
                };
                taken.push(Step {
                    transition: k,
                    state: after.clone(),
                    starts_step: true,
                });
                if problem.is_some() {
                    break;
                }
                if let Some(a) = after {
                    s = a;
                }
            }
        }
    }
    Ok((s, taken, problem))
}

/// The saved steps' threads, statements and states, up to the first step
/// that lacks a thread or a statement (which the replay reports).
fn saved_steps(steps: &[Value]) -> Vec<SavedStep<'_>> {
    steps
        .iter()
        .map_while(|st| {
            let text = |k: &str| st.get(k).and_then(Value::as_str);
            Some((
                text("thread")?,
                text("statement")?,
                st.get("state").and_then(Value::as_object),
            ))
        })
        .collect()
}

/// Step `n` of a replay from `s`: the transition of `path`, the saved
/// trace's match to its end, where there is one, and otherwise the first
/// transition that matches the step, so that a divergence shows where
/// the trace leaves the model.
fn pick(
    model: &Model,
    path: Option<&[usize]>,
    n: usize,
    s: &[i64],
    step: SavedStep,
) -> Result<(usize, Effect), Mismatch> {
    match path.and_then(|p| p.get(n)) {
        Some(&k) => Ok((k, effect(model, k, s))),
        None => match_step(model, s, step.0, step.1, step.2),
    }
}

/// Step `n` of a saved `what` (`trace` or `lasso`) replayed from `s`: the
/// thread and statement it names, and what [`pick`] makes of it. Both
/// replays read their steps here, so that they fail alike on a step
/// without a thread or a statement.
fn replay_step(
    model: &Model,
    path: Option<&[usize]>,
    n: usize,
    s: &[i64],
    st: &Value,
    what: &str,
) -> Result<(String, String, Result<(usize, Effect), Mismatch>), NotATrace> {
    let text = |k: &str| st.get(k).and_then(Value::as_str).map(str::to_string);
    let (Some(thread), Some(statement)) = (text("thread"), text("statement")) else {
        return Err(NotATrace(format!(
            "step {} of the {what} has no `thread` or `statement`",
            n + 1
        )));
    };
    let expected = st.get("state").and_then(Value::as_object);
    let picked = pick(model, path, n, s, (&thread, &statement, expected));
    Ok((thread, statement, picked))
}

/// The first property of a saved report's `ltl` part that has a lasso.
fn violated_property(saved: &Value) -> Option<&Value> {
    saved
        .get("ltl")?
        .get("properties")?
        .as_array()?
        .iter()
        .find(|p| p.get("lasso").is_some_and(Value::is_object))
}

/// Replays the lasso of `prop` (a property of a saved report): its stem
/// and cycle step by step, then checks that the cycle closes on the state
/// it started from (or, for a run that ends, that no thread can move
/// there) and that the property's formula is false on the lasso.
fn replay_lasso(
    model: &Model,
    file: &str,
    trace_file: &str,
    prop: &Value,
) -> Result<ReplayReport, NotATrace> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let name = text(prop, "name").unwrap_or_default();
    let lasso = &prop["lasso"];
    let part = |k: &str| {
        lasso
            .get(k)
            .and_then(Value::as_array)
            .ok_or_else(|| NotATrace(format!("the lasso of `{name}` has no `{k}` array")))
    };
    let (stem, cycle) = (part("stem")?, part("cycle")?);
    let ends = lasso.get("ends").and_then(Value::as_bool).unwrap_or(false);
    let expected_message = format!("{name}: {}", text(prop, "message").unwrap_or_default());
    let mut r = ReplayReport::unreplayed(
        model,
        (file, trace_file),
        stem.len() + cycle.len(),
        ("ltl".into(), expected_message),
    );
    let mut s = model.init.clone();
    let mut states = vec![s.clone()];
    let mut taken: Vec<Step> = Vec::new();
    let all: Vec<Value> = stem.iter().chain(cycle).cloned().collect();
    let path = match_path(model, &saved_steps(&all));
    for (n, st) in all.iter().enumerate() {
        let (thread, statement, picked) = replay_step(model, path.as_deref(), n, &s, st, "lasso")?;
        match picked {
            Ok((k, Effect::Ok(after))) => {
                r.replayed = n + 1;
                r.transitions.push(k);
                s = after;
                states.push(s.clone());
                taken.push(Step {
                    transition: k,
                    state: Some(s.clone()),
                    starts_step: true,
                });
            }
            Ok(_) => {
                r.divergence = Some(lasso_divergence(n + 1, "the step fails in the model"));
                break;
            }
            Err(m) => {
                r.divergence = Some(diverge(model, &s, n + 1, &thread, &statement, m));
                break;
            }
        }
    }
    r.trace = steps(model, &taken, false);
    if r.divergence.is_some() {
        return Ok(r);
    }
    let entry = stem.len();
    let fairness = match text(prop, "fairness").as_deref() {
        Some("weak") => Fairness::Weak,
        Some("strong") => Fairness::Strong,
        _ => Fairness::None,
    };
    let replayed = Replayed {
        states: &states,
        taken: &taken,
        entry,
        ends,
    };
    let property = match lasso_shows(model, &name, fairness, &replayed) {
        Ok(property) => property,
        Err(why) => {
            r.divergence = Some(lasso_divergence(r.saved_steps, &why));
            return Ok(r);
        }
    };
    r.found = Some(ViolationReport {
        kind: "ltl",
        thread: None,
        label: None,
        line: Some(property.line),
        variable: None,
        message: if ends {
            format!(
                "the run ends after step {entry} and repeats its last state for ever; `{}` is false on it",
                property.text
            )
        } else {
            format!(
                "the cycle of steps {} to {} closes on the state after step {entry}; `{}` is false on the run that repeats it",
                entry + 1,
                r.saved_steps,
                property.text
            )
        },
        predicate: None,
        deadlock: None,
    });
    r.outcome = "reproduced";
    r.cycle = (!ends && !cycle.is_empty()).then_some(entry);
    Ok(r)
}

/// A saved lasso as it replayed: the states from the initial one on, the
/// steps taken, where the cycle starts, and whether the run ends instead.
struct Replayed<'a> {
    states: &'a [Vec<i64>],
    taken: &'a [Step],
    entry: usize,
    ends: bool,
}

/// What a lasso must show besides replaying: its cycle closes on the state
/// it started from (or its run ends where no thread can move), property
/// `name`'s formula is false on it, and it is a fair run under `fairness`.
/// The property, or what the lasso fails to show.
fn lasso_shows<'m>(
    model: &'m Model,
    name: &str,
    fairness: Fairness,
    l: &Replayed,
) -> Result<&'m crate::model::LtlProperty, String> {
    let last = l.states.last().expect("the initial state at least");
    let closes = if l.ends {
        choices(model, last)
            .iter()
            .all(|(_, e)| *e == Effect::Disabled)
    } else {
        l.taken.len() > l.entry && *last == l.states[l.entry]
    };
    if !closes {
        return Err(if l.ends {
            "the run was saved as one that ends, but a thread can still move at its end"
        } else {
            "the cycle does not come back to the state it started from"
        }
        .to_string());
    }
    let Some(property) = model.ltl.iter().find(|p| p.name == name) else {
        return Err(format!("the model has no property `{name}`"));
    };
    let positions = if l.ends {
        l.states
    } else {
        &l.states[..l.states.len() - 1]
    };
    let word: Result<Vec<u64>, _> = positions.iter().map(|s| property.valuation(s)).collect();
    if !word.is_ok_and(|w| !property.formula.holds_on(&w, l.entry)) {
        return Err(format!(
            "the lasso replays, but `{}` is not false on it",
            property.text
        ));
    }
    match (!l.ends).then(|| crate::report::unfair(model, l.entry, &l.taken[l.entry..], fairness)) {
        Some(Some(why)) => Err(why),
        _ => Ok(property),
    }
}

fn lasso_divergence(step: usize, message: &str) -> Divergence {
    Divergence {
        step,
        thread: None,
        expected_statement: None,
        found_statements: Vec::new(),
        differences: Vec::new(),
        message: message.to_string(),
    }
}

fn diverge(
    model: &Model,
    s: &[i64],
    step: usize,
    thread: &str,
    statement: &str,
    m: Mismatch,
) -> Divergence {
    let t = model.threads.iter().position(|th| th.name == thread);
    let found_statements: Vec<String> = t
        .map(|t| {
            model.threads[t].points[s[t] as usize]
                .transitions
                .clone()
                .map(|k| {
                    let text = model.transitions[k].text.clone();
                    match crate::explore::effect(model, k, s) {
                        Effect::Disabled => format!("{text} (disabled)"),
                        _ => text,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let at = t.map_or(String::new(), |t| {
        let pc = s[t];
        let p = &model.threads[t].points[pc as usize];
        if pc == model.threads[t].end() {
            " (it has ended)".to_string()
        } else {
            format!(" at {}", p.name())
        }
    });
    let (differences, message) = match m {
        Mismatch::NoThread => (
            Vec::new(),
            format!("step {step}: the model has no thread {thread}"),
        ),
        Mismatch::NoStatement => (
            Vec::new(),
            format!(
                "step {step}: {thread}{at} has no statement `{statement}`; it has: {}",
                if found_statements.is_empty() {
                    "nothing".to_string()
                } else {
                    found_statements
                        .iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        ),
        Mismatch::Disabled => (
            Vec::new(),
            format!("step {step}: {thread}{at} cannot take `{statement}`: it is disabled"),
        ),
        Mismatch::State(d) => {
            let text: Vec<String> = d
                .iter()
                .map(|(v, e, f)| format!("{v} expected {e}, found {f}"))
                .collect();
            (
                d.into_iter()
                    .map(|(variable, expected, found)| Difference {
                        variable,
                        expected,
                        found,
                    })
                    .collect(),
                format!(
                    "step {step}: {thread}{at} takes `{statement}`, but the state after it differs: {}",
                    text.join("; ")
                ),
            )
        }
    };
    Divergence {
        step,
        thread: Some(thread.to_string()),
        expected_statement: Some(statement.to_string()),
        found_statements,
        differences,
        message,
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "model        {} ({})", self.model, self.file)?;
        writeln!(f, "trace        {}", self.trace_file)?;
        writeln!(
            f,
            "expected     {} violation: {}",
            self.expected_kind, self.expected_message
        )?;
        match &self.divergence {
            None if self.saved_steps == 0 => writeln!(
                f,
                "outcome      reproduced: the trace has no steps, and the initial state has the same violation"
            )?,
            None => writeln!(
                f,
                "outcome      reproduced: all {} steps replay and end in the same violation",
                self.saved_steps
            )?,
            Some(d) => {
                writeln!(
                    f,
                    "outcome      diverged at step {} of {} ({} replayed)",
                    d.step, self.saved_steps, self.replayed
                )?;
                writeln!(f, "divergence   {}", d.message)?;
                for x in &d.differences {
                    writeln!(
                        f,
                        "  {}: expected {}, found {}",
                        x.variable, x.expected, x.found
                    )?;
                }
            }
        }
        if let Some(v) = &self.found {
            writeln!(f, "found        {} violation: {}", v.kind, v.message)?;
        }
        if !self.trace.is_empty() {
            writeln!(f)?;
            let s = if self.trace.len() == 1 { "" } else { "s" };
            writeln!(f, "replayed ({} transition{s}):", self.trace.len())?;
            write_trace(f, &self.trace)?;
        }
        Ok(())
    }
}

/// The explorer's session: a path from the initial state that grows by
/// one transition at a time and shrinks by undo, and optionally a loaded
/// counterexample to follow.
#[derive(Clone, Debug)]
pub struct Session {
    model: Model,
    file: String,
    class: Classification,
    trace: Vec<Step>,
    /// The trace's rows, kept with it: a view does not redo the path.
    path: Vec<StepReport>,
    bad: Option<Problem>,
    script: Option<Script>,
}

#[derive(Clone, Debug)]
struct Script {
    transitions: Vec<usize>,
    message: String,
    /// A lasso's cycle start: past the end, the script goes round the
    /// cycle again (the run repeats it for ever).
    cycle: Option<usize>,
}

impl Script {
    /// The transition the script takes at position `n` of a path, going
    /// round a lasso's cycle past its end.
    fn at(&self, n: usize) -> Option<usize> {
        let len = self.transitions.len();
        let k = match self.cycle {
            Some(c) if n >= len => c + (n - c) % (len - c),
            _ => n,
        };
        self.transitions.get(k).copied()
    }
}

/// What the explorer shows: serialised as the `/state` JSON.
#[derive(Clone, Debug, Serialize)]
pub struct SessionView {
    /// The model's name.
    pub model: String,
    /// The model file.
    pub file: String,
    /// Transitions taken so far.
    pub position: usize,
    /// The current state.
    pub state: Map<String, Value>,
    /// The same state as `check` lays out a final state, one line for the
    /// shared variables and one per thread, `*` after what the last step
    /// changed.
    pub layout: Vec<String>,
    /// Each thread with its control point and transitions there.
    pub threads: Vec<ThreadView>,
    /// The path so far, in the trace format of `check`.
    pub path: Vec<StepReport>,
    /// The violation the last step ran into (no step is possible until undo).
    pub violation: Option<ViolationReport>,
    /// No transition is enabled and some thread has not ended.
    pub deadlock: bool,
    /// Why, in a deadlock: the violation `check` reports for it, with who
    /// waits for what and the cycle of waits when locks form one.
    pub deadlock_report: Option<ViolationReport>,
    /// Every thread has ended.
    pub ended: bool,
    /// The loaded counterexample, when there is one.
    pub script: Option<ScriptView>,
}

/// A thread in the explorer.
#[derive(Clone, Debug, Serialize)]
pub struct ThreadView {
    /// Its name.
    pub name: String,
    /// Its control point.
    pub point: String,
    /// Whether it has ended.
    pub ended: bool,
    /// The transitions at its control point.
    pub transitions: Vec<ChoiceView>,
}

/// A transition in the explorer.
#[derive(Clone, Debug, Serialize)]
pub struct ChoiceView {
    /// Its index, for `POST /step`.
    pub id: usize,
    /// Its statement: `label`, `line` and `statement`.
    #[serde(flatten)]
    pub at: Statement,
    /// `visible`, `invisible` or `invisible*` (invisible, at a point where
    /// the reduction stops), as `optimist classify` says.
    pub visibility: &'static str,
    /// `ok`, `disabled` or `violation` (taking it goes wrong).
    pub effect: &'static str,
}

/// The loaded counterexample.
#[derive(Clone, Debug, Serialize)]
pub struct ScriptView {
    /// Its transitions.
    pub steps: usize,
    /// The next of its transitions, when the path so far follows it.
    pub next: Option<usize>,
    /// Its violation, in words.
    pub message: String,
    /// For a lasso that repeats a cycle: the step (from 1) where the
    /// cycle starts; following it past its end goes round the cycle again.
    pub cycle_from: Option<usize>,
}

impl Session {
    /// A session at the initial state of `model`.
    pub fn new(model: Model, file: &str) -> Session {
        let class = crate::classify::classify(&model);
        Session {
            model,
            file: file.to_string(),
            class,
            trace: Vec::new(),
            path: Vec::new(),
            bad: None,
            script: None,
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    fn current(&self) -> &[i64] {
        self.trace
            .iter()
            .rev()
            .find_map(|s| s.state.as_deref())
            .unwrap_or(&self.model.init)
    }

    /// Takes transition `k` from the current state.
    pub fn step(&mut self, k: usize) -> Result<(), String> {
        if self.bad.is_some() {
            return Err("the path ends in a violation; undo first".into());
        }
        let Some(tr) = self.model.transitions.get(k) else {
            return Err(format!("there is no transition {k}"));
        };
        let t = tr.thread as usize;
        if self.current()[t] != tr.from {
            return Err(format!(
                "transition {k} (`{}`) is not at {}'s current point",
                tr.text, self.model.threads[t].name
            ));
        }
        let before = self.current();
        let (state, bad) = match crate::explore::effect(&self.model, k, before) {
            Effect::Disabled => {
                return Err(format!("transition {k} (`{}`) is disabled", tr.text));
            }
            Effect::Ok(a) => (Some(a), None),
            Effect::Bad(p, a) => (a, Some(p)),
        };
        let st = Step {
            transition: k,
            state,
            starts_step: true,
        };
        let row = step_report(&self.model, self.trace.len() + 1, &st, before, false);
        self.path.push(row);
        self.trace.push(st);
        self.bad = bad;
        Ok(())
    }

    /// Takes back the last transition.
    pub fn undo(&mut self) -> Result<(), String> {
        if self.trace.pop().is_none() {
            return Err("nothing to undo: the path is empty".into());
        }
        self.path.pop();
        self.bad = None;
        Ok(())
    }

    /// Back to the initial state (the loaded counterexample stays).
    pub fn reset(&mut self) {
        self.trace.clear();
        self.path.clear();
        self.bad = None;
    }

    /// Loads a counterexample from a JSON report and goes back to the
    /// initial state to follow it; an error says where it diverges.
    pub fn load(&mut self, saved: &Value) -> Result<(), String> {
        let r = ReplayReport::new(&self.model, &self.file, "(loaded)", saved).map_err(|e| e.0)?;
        if let Some(d) = &r.divergence {
            return Err(format!("the counterexample does not replay: {}", d.message));
        }
        self.script = Some(Script {
            transitions: r.transitions,
            message: r.expected_message,
            cycle: r.cycle,
        });
        self.reset();
        Ok(())
    }

    /// Takes the next transition of the loaded counterexample.
    pub fn follow(&mut self) -> Result<(), String> {
        match self.script_next() {
            Some(k) => self.step(k),
            None => Err(match &self.script {
                None => "no counterexample is loaded".into(),
                Some(_) => {
                    "the path does not follow the loaded counterexample here (undo or reset)".into()
                }
            }),
        }
    }

    fn script_next(&self) -> Option<usize> {
        let script = self.script.as_ref()?;
        let follows = self
            .trace
            .iter()
            .enumerate()
            .all(|(n, s)| script.at(n) == Some(s.transition));
        follows.then(|| script.at(self.trace.len())).flatten()
    }

    /// What the explorer shows.
    pub fn view(&self) -> SessionView {
        let m = &self.model;
        let s = self.current();
        let threads: Vec<ThreadView> = m
            .threads
            .iter()
            .enumerate()
            .map(|(t, th)| ThreadView {
                name: th.name.clone(),
                point: m.show_value(t, s[t]),
                ended: s[t] == th.end(),
                transitions: th.points[s[t] as usize]
                    .transitions
                    .clone()
                    .map(|k| {
                        let tr = &m.transitions[k];
                        let c = &self.class.transitions[k];
                        ChoiceView {
                            id: k,
                            at: Statement::of(m, tr),
                            visibility: match (c.own, c.visible) {
                                (true, _) => "visible",
                                (false, true) => "invisible*",
                                (false, false) => "invisible",
                            },
                            effect: match crate::explore::effect(m, k, s) {
                                Effect::Disabled => "disabled",
                                Effect::Ok(_) => "ok",
                                Effect::Bad(..) => "violation",
                            },
                        }
                    })
                    .collect(),
            })
            .collect();
        let none_enabled = threads
            .iter()
            .flat_map(|t| &t.transitions)
            .all(|c| c.effect == "disabled");
        let violation = self.bad.clone().map(|problem| {
            describe(
                m,
                &Violation {
                    problem,
                    initial: false,
                    trace: self.trace.clone(),
                },
            )
        });
        let deadlock = self.bad.is_none() && none_enabled && !m.all_ended(s);
        SessionView {
            model: m.name.clone(),
            file: self.file.clone(),
            position: self.trace.len(),
            state: json_state(m, s),
            layout: {
                // The state before the last step that completed.
                let mut done = self.trace.iter().rev().filter_map(|st| st.state.as_deref());
                let before = done.nth(1).unwrap_or(&m.init);
                let before = (!self.trace.is_empty()).then(|| StateLayout::of(m, before));
                StateLayout::of(m, s).marked(before.as_ref())
            },
            threads,
            path: self.path.clone(),
            deadlock,
            deadlock_report: deadlock.then(|| {
                describe(
                    m,
                    &Violation {
                        problem: Problem::Deadlock,
                        initial: self.trace.is_empty(),
                        trace: self.trace.clone(),
                    },
                )
            }),
            ended: m.all_ended(s),
            violation,
            script: self.script.as_ref().map(|sc| ScriptView {
                steps: sc.transitions.len(),
                next: self.script_next(),
                message: sc.message.clone(),
                cycle_from: sc.cycle.map(|c| c + 1),
            }),
        }
    }
}
