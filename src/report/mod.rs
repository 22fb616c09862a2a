//! The report of a check, as text for people and as JSON for scripts.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

mod contract;
mod deadlock;
mod ltl;
mod profile;
mod state;
mod symmetry;
pub(crate) mod words;

pub use contract::{ConditionRow, ContractReport, FindingRow, PreservedRow};
pub use deadlock::{Blocked, Deadlock, Link, Wait};
pub(crate) use ltl::unfair;
pub use ltl::{LassoReport, LtlReport, PropertyReport, SitOut};
pub use profile::{LevelRow, StatsReport, TimesRow};
pub use state::{StateLayout, ThreadState};
pub use symmetry::{BrokenRow, SymmetryReport, SymmetryRow, TemporalRow};

use crate::explore::{Outcome, Problem, Reduction, Step, Verdict, Violation};
use crate::model::{ChanSlot, Fault, Model, SlotKind};

/// The width of a column of `names`, so that what follows them lines up.
pub(crate) fn name_width(names: impl IntoIterator<Item = impl AsRef<str>>) -> usize {
    names
        .into_iter()
        .map(|n| n.as_ref().len())
        .max()
        .unwrap_or(0)
}

/// Everything a check reports; serialises to the documented JSON schema and
/// displays as the text report.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The model's name.
    pub model: String,
    /// The file it was read from.
    pub file: String,
    /// `holds`, `violated` or `inconclusive`.
    pub verdict: &'static str,
    /// `none` or `sc`.
    pub reduction: &'static str,
    /// Reduced mode: `cpc`, `cycles`, `forbid` or `unsound`, what the search
    /// did where a run of invisible transitions could go on forever.
    pub ignoring: Option<&'static str>,
    /// Stubborn sets: `static`, `state` or `semantic`, how interference was
    /// judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interference: Option<&'static str>,
    /// The symmetry whose orbits the search stored one state of (see
    /// `check --symmetry`); absent where it stored every state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<SymmetryRow>,
    /// Reduced mode: states where a transaction was ended by force.
    pub forced_states: Option<u64>,
    /// `--summaries`: summaries made, summary edges computed and reused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summaries: Option<SummariesRow>,
    /// Reduced mode: per thread and labelled region of its code, how many
    /// transactions (reduced steps) the reduction cuts it into.
    pub transactions: Option<Vec<RegionRow>>,
    /// Print the transactions per region in the text report too.
    #[serde(skip)]
    pub show_transactions: bool,
    /// Stored states.
    pub states: u64,
    /// Transitions (reduced steps in reduced mode) taken.
    pub transitions: u64,
    /// Reduced mode: the original transitions inside those steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_transitions: Option<u64>,
    /// Depth of the search.
    pub depth: u64,
    /// Deadlocked states.
    pub deadlocks: u64,
    /// What a `holds` does not establish: properties the reduction does
    /// not preserve in full (deadlocks under the mover transactions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub caveats: Vec<String>,
    /// Misuses of locks met in stored states (a thread that ended holding
    /// a lock, a `release` by a thread that does not hold the lock):
    /// warnings, not violations. Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<WarningRow>,
    /// Wall-clock time in milliseconds.
    pub elapsed_ms: f64,
    /// Bytes of state storage per stored state.
    pub bytes_per_state: f64,
    /// `--hash-compact`, `--bitstate`: the store, and what it may have
    /// missed. A verdict of `holds` under it is probabilistic. Absent for
    /// the exact store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreRow>,
    /// The limit that ended the run, when inconclusive.
    pub limit: Option<String>,
    /// The violation, when violated.
    pub violation: Option<ViolationReport>,
    /// The counterexample, one entry per transition.
    pub trace: Vec<StepReport>,
    /// The last state of the counterexample: after its last transition
    /// that completed (the one before a failing step).
    pub final_state: Option<Map<String, Value>>,
    /// The same state laid out per thread: where each is, and its locals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_layout: Option<StateLayout>,
    /// The `ltl` properties checked, when the model has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ltl: Option<LtlReport>,
    /// `--stats`: where the search's time went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
}

/// A kind of lock misuse met during the search.
#[derive(Clone, Debug, Serialize)]
pub struct WarningRow {
    /// `ended-holding-lock` or `release-not-owner`.
    pub kind: &'static str,
    /// Stored states where it holds.
    pub states: u64,
    /// The first one met, described.
    pub first: String,
}

/// A store that is not exact, and what it may have missed.
#[derive(Clone, Debug, Serialize)]
pub struct StoreRow {
    /// `hash-compact` or `bitstate`.
    pub kind: &'static str,
    /// `bitstate`: bits in the array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bits: Option<u64>,
    /// `bitstate`: bits set per state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_functions: Option<u32>,
    /// `bitstate`: bits of the array per stored state (SPIN's hash factor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bits_per_state: Option<f64>,
    /// `hash-compact`: a bound on the probability that any state was
    /// missed; `bitstate`: on the probability that a new state met in the
    /// run was taken for a visited one.
    pub omission_probability: f64,
    /// Whether a `holds` is probabilistic: always, for these stores.
    pub probabilistic: bool,
}

impl StoreRow {
    pub(crate) fn of(c: &crate::explore::Coverage) -> StoreRow {
        let (kind, bits, hash_functions) = match c.kept {
            crate::explore::Kept::Bitstate { log2, hashes } => {
                ("bitstate", Some(1u64 << log2), Some(hashes))
            }
            _ => ("hash-compact", None, None),
        };
        StoreRow {
            kind,
            bits,
            hash_functions,
            bits_per_state: c.bits_per_state.map(|b| (b * 10.0).round() / 10.0),
            omission_probability: c.omission,
            probabilistic: true,
        }
    }
}

/// What `--summaries` computed and reused.
#[derive(Clone, Debug, Serialize)]
pub struct SummariesRow {
    /// Summaries: the nodes a transaction, or its part in one frame, started from.
    pub entries: u64,
    /// Summary edges computed (ends, returns, calls that end inside).
    pub computed: u64,
    /// Summary edges reused from summaries computed before.
    pub reused: u64,
    /// Threads that use the summaries of another thread with the same
    /// code up to their identity.
    pub shared_threads: u64,
}

/// How a region of a thread's code is cut into transactions.
#[derive(Clone, Debug, Serialize)]
pub struct RegionRow {
    /// The thread.
    pub thread: String,
    /// The label the region starts at; it runs to the next label.
    pub region: String,
    /// Source line of the label.
    pub line: usize,
    /// Transactions a run through the region is cut into: one per boundary
    /// in it, plus one if it is entered inside a transaction.
    pub transactions: usize,
    /// The points of the region where a transaction began.
    pub boundaries: Vec<String>,
}

/// The labelled regions of every thread, with the transaction boundaries
/// the search met in them.
fn regions(model: &Model, boundaries: &[(usize, i64)]) -> Vec<RegionRow> {
    let mut rows = Vec::new();
    for (t, th) in model.threads.iter().enumerate() {
        // A procedure's code is copied once per stack depth: its regions
        // are shown once, at its first copy, with the boundaries met in
        // any copy.
        let first_copy = |pc: usize| -> usize {
            let Some(f) = th.points[pc].frame else {
                return pc;
            };
            let copy = &th.frames[f as usize];
            let first = th
                .frames
                .iter()
                .find(|g| g.proc == copy.proc)
                .expect("a copy of its own procedure");
            (pc as i64 - copy.points.start + first.points.start) as usize
        };
        let boundaries: Vec<(usize, i64)> = boundaries
            .iter()
            .map(|&(u, pc)| {
                if u == t {
                    (u, first_copy(pc as usize) as i64)
                } else {
                    (u, pc)
                }
            })
            .collect();
        let starts: Vec<usize> = (0..th.points.len())
            .filter(|&pc| {
                th.points[pc].label.is_some()
                    || (pc > 0 && th.points[pc].frame != th.points[pc - 1].frame)
            })
            .collect();
        for (n, &from) in starts.iter().enumerate() {
            let to = starts.get(n + 1).copied().unwrap_or(th.points.len());
            if th.points[from].label.is_none() || first_copy(from) != from {
                continue;
            }
            let mut inside: Vec<i64> = boundaries
                .iter()
                .filter(|&&(u, pc)| u == t && (from..to).contains(&(pc as usize)))
                .map(|&(_, pc)| pc)
                .collect();
            inside.sort_unstable();
            inside.dedup();
            let entered_inside = !inside.contains(&(from as i64));
            rows.push(RegionRow {
                thread: th.name.clone(),
                region: th.points[from].name(),
                line: th.points[from].line,
                transactions: inside.len() + usize::from(entered_inside),
                boundaries: inside
                    .iter()
                    .map(|&pc| th.points[pc as usize].name())
                    .collect(),
            });
        }
    }
    rows
}

/// A violation, described.
#[derive(Clone, Debug, Serialize)]
pub struct ViolationReport {
    /// `discipline`, `assertion`, `invariant`, `range`, `well-formedness` or `deadlock`.
    pub kind: &'static str,
    /// The thread that took the last transition.
    pub thread: Option<String>,
    /// The control point it left.
    pub label: Option<String>,
    /// The source line of the last transition, or of the declaration at fault.
    pub line: Option<usize>,
    /// The variable involved.
    pub variable: Option<String>,
    /// One sentence saying what is wrong.
    pub message: String,
    /// The exclusive access predicate involved, with the values it read.
    pub predicate: Option<String>,
    /// A deadlock: what each thread waits for, and the cycle of waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlock: Option<Deadlock>,
}

/// A transition's statement and where it stands in the source: what a
/// trace, a classification, the explorer and refine show of it.
#[derive(Clone, Debug, Serialize)]
pub struct Statement {
    /// The label of the control point the transition leaves, if it has one.
    pub label: Option<String>,
    /// Source line of the statement.
    pub line: usize,
    /// The statement.
    pub statement: String,
}

impl Statement {
    /// The statement of transition `tr` of `model`.
    pub(crate) fn of(model: &Model, tr: &crate::model::Transition) -> Statement {
        Statement {
            label: model.point_of(tr).label.clone(),
            line: tr.line,
            statement: tr.text.clone(),
        }
    }
}

/// One transition of a counterexample.
#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    /// 1-based position in the trace.
    pub step: usize,
    /// Whether a reduced step starts here (reduced mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts_step: Option<bool>,
    /// The thread.
    pub thread: String,
    /// Its statement: `label`, `line` and `statement`.
    #[serde(flatten)]
    pub at: Statement,
    /// The stack depth of the point the transition leaves (0 in the
    /// thread's body; absent then).
    #[serde(skip_serializing_if = "is_zero")]
    pub depth: u32,
    /// The variables the transition changed, with their new values.
    pub changes: Map<String, Value>,
    /// Variables the transition wrote without changing them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchanged: Vec<String>,
    /// Which way it went: an `if` (`then`, `else`), a `while` (`loops`,
    /// `exits`), or the value an `any` chose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub took: Option<String>,
    /// The whole state after the transition; null when it did not complete.
    pub state: Option<Map<String, Value>>,
}

impl CheckReport {
    /// Builds the report of `outcome` for `model`, read from `file`.
    pub fn new(model: &Model, file: &str, reduction: Reduction, outcome: &Outcome) -> CheckReport {
        let s = &outcome.stats;
        let (verdict, limit) = match &outcome.verdict {
            Verdict::Holds => ("holds", None),
            Verdict::Violated => ("violated", None),
            Verdict::Inconclusive(l) => {
                let mut limit = l.to_string();
                if let (Some(t), n @ 1..) = (s.run_thread, s.run_states) {
                    // Otherwise a run stopped inside one long reduced step
                    // would show one state and no transition, and no clue.
                    let name = model.threads.get(t).map_or("?", |t| t.name.as_str());
                    let states = if n == 1 { "state" } else { "states" };
                    limit.push_str(&format!(
                        " inside a reduced step of {name}, which held {n} intermediate {states}"
                    ));
                }
                ("inconclusive", Some(limit))
            }
            Verdict::DoesNotApply(why) => ("inconclusive", Some(why.to_string())),
        };
        let violation = outcome.violation.as_ref();
        let last_state = violation.map(|v| {
            let last = v.trace.iter().rev().find_map(|st| st.state.as_ref());
            last.unwrap_or(&model.init).as_slice()
        });
        CheckReport {
            model: model.name.clone(),
            file: file.to_string(),
            verdict,
            reduction: reduction.name(),
            ignoring: outcome.ignoring.map(|i| i.name()),
            interference: outcome.interference.map(|i| i.name()),
            forced_states: outcome.ignoring.map(|_| s.forced),
            summaries: outcome.summaries.map(|m| SummariesRow {
                entries: m.entries,
                computed: m.computed,
                reused: m.reused,
                shared_threads: m.shared,
            }),
            transactions: outcome
                .ignoring
                .map(|_| regions(model, &outcome.boundaries)),
            show_transactions: false,
            states: s.states,
            transitions: s.transitions,
            original_transitions: (!reduction.is_full()).then_some(s.fired),
            depth: s.depth,
            deadlocks: s.deadlocks,
            caveats: outcome.caveats.clone(),
            warnings: s
                .lock_misuses
                .iter()
                .map(|(k, n, first)| WarningRow {
                    kind: k.name(),
                    states: *n,
                    first: first.clone(),
                })
                .collect(),
            elapsed_ms: (s.elapsed.as_secs_f64() * 1e5).round() / 100.0,
            bytes_per_state: (s.bytes_per_state() * 10.0).round() / 10.0,
            store: outcome.coverage.as_ref().map(StoreRow::of),
            symmetry: outcome.symmetry.as_ref().map(SymmetryRow::of),
            limit,
            violation: violation.map(|v| describe(model, v)),
            trace: violation
                .map_or_else(Vec::new, |v| steps(model, &v.trace, !reduction.is_full())),
            final_state: last_state.map(|s| json_state(model, s)),
            final_layout: last_state.map(|s| StateLayout::of(model, s)),
            ltl: None,
            stats: None,
        }
    }

    /// Adds the `ltl` part: where the safety check holds, the verdict
    /// becomes the properties' (violated, or inconclusive).
    pub fn with_ltl(&mut self, ltl: LtlReport) {
        // A violation decides the run, also one that stopped the safety
        // check before it covered the states.
        if self.verdict == "holds" || ltl.verdict() == "violated" {
            self.verdict = ltl.verdict();
        }
        self.ltl = Some(ltl);
    }

    /// The process exit code for this verdict: 0 holds, 1 violated, 3 inconclusive.
    pub fn exit_code(&self) -> u8 {
        match self.verdict {
            "holds" => 0,
            "violated" => 1,
            _ => 3,
        }
    }
}

/// A value of a trace's JSON as the text report writes it: strings bare,
/// a channel's messages as `[1, true; 2, false]`.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(messages) => {
            let each: Vec<String> = messages
                .iter()
                .map(|m| match m {
                    Value::Array(fields) => fields.iter().map(show).collect::<Vec<_>>().join(", "),
                    other => show(other),
                })
                .collect();
            format!("[{}]", each.join("; "))
        }
        other => other.to_string(),
    }
}

/// The JSON value of slot `k` holding `v`.
pub fn json_value(model: &Model, k: usize, v: i64) -> Value {
    match model.slots[k].kind {
        SlotKind::Int | SlotKind::Sem => Value::from(v),
        SlotKind::Bool => Value::from(v != 0),
        SlotKind::Lock | SlotKind::Pc | SlotKind::Ret => Value::from(model.show_value(k, v)),
    }
}

/// The whole state as a JSON object: each thread's control point, then the
/// variables (of procedures, only the frames on their thread's stack).
pub fn json_state(model: &Model, s: &[i64]) -> Map<String, Value> {
    let live = model.live(s);
    let chans = model.chan_slots();
    s.iter()
        .enumerate()
        .filter(|&(k, _)| live[k])
        .filter_map(|(k, &v)| match chans[k] {
            ChanSlot::None => Some((model.slots[k].name.clone(), json_value(model, k, v))),
            ChanSlot::Len(c) => Some(json_channel(model, c, s)),
            ChanSlot::Buffer => None,
        })
        .collect()
}

/// Channel `c` in `s`, as its name and a JSON array of its messages (each
/// an array of fields).
fn json_channel(model: &Model, c: usize, s: &[i64]) -> (String, Value) {
    let ch = &model.channels[c];
    let messages = ch.messages(s).into_iter().map(|m| {
        let fields = m.iter().zip(&ch.kinds).map(|(&v, &k)| match k {
            SlotKind::Bool => Value::from(v != 0),
            _ => Value::from(v),
        });
        Value::Array(fields.collect())
    });
    (ch.name.clone(), Value::Array(messages.collect()))
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The trace's rows: what each transition changed, which way it went, and
/// the state after it.
pub(crate) fn steps(model: &Model, trace: &[Step], reduced: bool) -> Vec<StepReport> {
    let mut before = &model.init;
    let mut out = Vec::with_capacity(trace.len());
    for (n, st) in trace.iter().enumerate() {
        out.push(step_report(model, n + 1, st, before, reduced));
        if let Some(after) = &st.state {
            before = after;
        }
    }
    out
}

/// Row `number` of a trace: transition `st` taken from state `before`.
pub(crate) fn step_report(
    model: &Model,
    number: usize,
    st: &Step,
    before: &[i64],
    reduced: bool,
) -> StepReport {
    let tr = &model.transitions[st.transition];
    let t = tr.thread as usize;
    let (mut changes, mut unchanged) = (Map::new(), Vec::new());
    let mut took = None;
    if let Some(after) = &st.state {
        // A frame that a return puts back to its initial values is
        // gone: what changed there is not shown.
        let live = model.live(after);
        let written = written_scalars(tr);
        let chans = model.chan_slots();
        let used = tr.chan.as_deref().and_then(|op| op.channel_index(before));
        if let Some(c) = used
            .filter(|&c| model.channels[c].messages(before) != model.channels[c].messages(after))
        {
            let (name, value) = json_channel(model, c, after);
            changes.insert(name, value);
        }
        for k in model.first_var()..after.len() {
            if !live[k] || chans[k] != ChanSlot::None {
                continue;
            }
            let name = model.slots[k].name.clone();
            if after[k] != before[k] {
                changes.insert(name, json_value(model, k, after[k]));
            } else if written.contains(&(k as u32)) {
                unchanged.push(name);
            }
        }
        took = match &tr.next {
            crate::model::Next::Branch(_, yes, _) => {
                let taken = after[t] == *yes;
                Some(match (tr.text.starts_with("while"), taken) {
                    (true, true) => "loops",
                    (true, false) => "exits",
                    (false, true) => "then",
                    (false, false) => "else",
                })
                .map(str::to_string)
            }
            _ if tr.text.contains(" any ") => written
                .first()
                .map(|&k| format!("chose {}", model.show_value(k as usize, after[k as usize]))),
            _ => None,
        };
    }
    StepReport {
        step: number,
        starts_step: reduced.then_some(st.starts_step),
        thread: model.threads[t].name.clone(),
        at: Statement::of(model, tr),
        depth: model.threads[t].points[tr.from as usize].depth,
        changes,
        unchanged,
        took,
        state: st.state.as_ref().map(|s| json_state(model, s)),
    }
}

/// The scalar variables a transition's top-level assignments write (array
/// elements at a computed index, and writes inside an `atomic`'s `if`, show
/// only when they change).
fn written_scalars(tr: &crate::model::Transition) -> Vec<u32> {
    use crate::model::{Cmd, Place};
    tr.body
        .iter()
        .filter_map(|c| match c {
            Cmd::Assign(parts) => Some(parts),
            _ => None,
        })
        .flatten()
        .filter_map(|(place, _)| match place {
            Place::Slot { slot, .. } => Some(*slot),
            Place::Elem { .. } => None,
        })
        .collect()
}

/// `name = value` for each slot `e` reads, in `s`.
fn values_read(model: &Model, e: &crate::model::CExpr, s: &[i64]) -> String {
    let mut slots = Vec::new();
    e.for_each_slot(&mut |k| {
        // `timeout` is no variable: its slot is 0 in every state.
        if !slots.contains(&k) && model.timeout != Some(k) {
            slots.push(k);
        }
    });
    slots
        .iter()
        .map(|&k| {
            format!(
                "{} = {}",
                model.slots[k as usize].name,
                model.show_value(k as usize, s[k as usize])
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The state before the last transition of a trace, and that transition.
fn last(model: &Model, v: &Violation) -> (Vec<i64>, Option<usize>) {
    match v.trace.as_slice() {
        [] => (model.init.clone(), None),
        [.., prev, lst] => (prev.state.clone().unwrap_or_default(), Some(lst.transition)),
        [lst] => (model.init.clone(), Some(lst.transition)),
    }
}

/// What each part of a violation's description reads: the model, the
/// states before and after the last transition, that transition, and
/// where it was taken (`T at L (line N)`, empty for none).
struct Scene<'a> {
    model: &'a Model,
    v: &'a Violation,
    before: Vec<i64>,
    after: Vec<i64>,
    tr: Option<&'a crate::model::Transition>,
    at: String,
}

impl Scene<'_> {
    fn tname(&self, t: usize) -> String {
        self.model.threads[t].name.clone()
    }

    /// A discipline fault: a thread accessed a protected element whose
    /// predicate was false for it.
    fn discipline(&self, r: &mut ViolationReport, slot: usize, write: bool) {
        let model = self.model;
        let t = self.tr.map_or(0, |t| t.thread as usize);
        let name = &model.slots[slot].name;
        r.variable = Some(name.clone());
        let verb = if write { "writes" } else { "reads" };
        let p = model.protected_index[slot].unwrap_or(0) as usize;
        let thread = self.tname(t);
        // `by m` names the lock; any other predicate is a condition.
        let without = match model.protected[p].text.strip_prefix("by ") {
            Some(lock) => format!("without holding lock {lock}, which protects it"),
            None => format!("when the condition for {thread} to access it is false"),
        };
        r.message = format!(
            "{} {verb} {name} {without} (the exclusive access predicate excl({thread}, {name}) is false)",
            self.at,
        );
        r.predicate = Some(predicate(model, p, t, &self.before));
    }

    /// Two threads' predicates hold at once (WFdisjointExcl), with the
    /// values each read.
    fn overlap(&self, r: &mut ViolationReport, protected: usize, i: usize, j: usize) {
        let model = self.model;
        let slot = model.protected[protected].slot as usize;
        let name = &model.slots[slot].name;
        r.variable = Some(name.clone());
        r.message = if self.v.initial {
            format!(
                "in the initial state both {} and {} may access {name} (both satisfy its exclusive access predicate; WFinitExcl)",
                self.tname(i),
                self.tname(j)
            )
        } else {
            format!(
                "after {}, both {} and {} may access {name} at once (both satisfy its exclusive access predicate)",
                self.at,
                self.tname(i),
                self.tname(j)
            )
        };
        if self.v.initial {
            r.line = Some(model.protected[protected].line);
        }
        // Both threads' predicates, with the values each read.
        let prot = &model.protected[protected];
        let read = |t: usize| {
            let v = values_read(model, &prot.excl[t], &self.after);
            format!(
                "for {}: {}",
                self.tname(t),
                if v.is_empty() { "true".into() } else { v }
            )
        };
        r.predicate = Some(format!("{}; {}; {}", prot.text, read(i), read(j)));
    }

    /// A failed assertion, with the values it read.
    fn assertion(&self) -> String {
        let at = &self.at;
        let text = self.tr.map_or(String::new(), |t| {
            t.text.trim_start_matches("assert ").to_string()
        });
        // The values the failing assertion read, in the state it left.
        let read = self
            .tr
            .and_then(|t| {
                t.body.iter().find_map(|c| match c {
                    crate::model::Cmd::Assert(e) => Some(values_read(self.model, e, &self.before)),
                    _ => None,
                })
            })
            .filter(|v| !v.is_empty());
        match read {
            Some(values) => format!("{at}: assertion `{text}` fails: {values}"),
            None => format!("{at}: assertion `{text}` fails"),
        }
    }

    /// A predicate that faulted when evaluated.
    fn excl_fault(&self, r: &mut ViolationReport, e: &crate::model::ExclFault) {
        let model = self.model;
        let slot = model.protected[e.protected].slot as usize;
        let name = &model.slots[slot].name;
        let (text, _) = fault_text(model, &e.fault);
        let thread = self.tname(e.thread);
        let pred = format!(
            "whether {thread} may access {name} cannot be decided: its exclusive access predicate excl({thread}, {name}) {text}"
        );
        r.variable = Some(name.clone());
        r.message = if self.v.initial {
            format!("in the initial state, {pred}")
        } else {
            format!("after {}, {pred}", self.at)
        };
        if self.v.initial {
            r.line = Some(model.protected[e.protected].line);
        }
        r.predicate = Some(predicate(model, e.protected, e.thread, &self.after));
    }

    /// A false invariant, with the values it read.
    fn invariant(&self, k: usize) -> String {
        let inv = &self.model.invariants[k];
        let mut message = format!("invariant `{}` is false", inv.text);
        if !self.at.is_empty() {
            message = format!("{message} after {}", self.at);
        }
        let values = values_read(self.model, &inv.expr, &self.after);
        if !values.is_empty() {
            message = format!("{message}: {values}");
        }
        message
    }
}

/// Describes a violation in words.
pub(crate) fn describe(model: &Model, v: &Violation) -> ViolationReport {
    let (before, last_tr) = last(model, v);
    let after = v
        .trace
        .last()
        .and_then(|s| s.state.clone())
        .unwrap_or_else(|| before.clone());
    let tr = last_tr.map(|k| &model.transitions[k]);
    let thread = tr.map(|t| t.thread as usize);
    let tname = |t: usize| model.threads[t].name.clone();
    let mut r = ViolationReport {
        kind: v.kind().name(),
        thread: thread.map(tname),
        label: tr.and_then(|t| model.point_of(t).label.clone()),
        line: tr.map(|t| t.line),
        variable: None,
        message: String::new(),
        predicate: None,
        deadlock: None,
    };
    let at = match (&r.thread, tr) {
        (Some(t), Some(tr)) => match &model.point_of(tr).label {
            Some(l) => format!("{t} at {l} (line {})", tr.line),
            None => format!("{t} at line {}", tr.line),
        },
        _ => String::new(),
    };
    let scene = Scene {
        model,
        v,
        before,
        after,
        tr,
        at,
    };
    let at = &scene.at;
    match &v.problem {
        Problem::Fault(Fault::Discipline { slot, write }) => {
            scene.discipline(&mut r, *slot as usize, *write);
        }
        Problem::Overlap {
            protected,
            threads: (i, j),
        } => scene.overlap(&mut r, *protected, *i, *j),
        Problem::Fault(Fault::Assert) => r.message = scene.assertion(),
        Problem::Fault(f) => {
            let (text, variable) = fault_text(model, f);
            r.message = format!("{at} {text}");
            r.variable = variable;
        }
        Problem::ExclFault(e) => scene.excl_fault(&mut r, e),
        Problem::Invariant(k) => r.message = scene.invariant(*k),
        Problem::InvisibleCycle { thread, length } => {
            let first = v.trace.len() - length + 1;
            r.message = format!(
                "{} can run private (invisible) steps forever, which --ignoring forbid refuses (the paper's WFfiniteInvis): transitions {first} to {} of the trace form a loop",
                tname(*thread),
                v.trace.len()
            );
        }
        Problem::EndExcl { protected, victim } => {
            let slot = model.protected[*protected].slot as usize;
            let name = &model.slots[slot].name;
            r.variable = Some(name.clone());
            r.message = format!(
                "{at} takes away {victim}'s right to access {name} (it makes another thread's exclusive access predicate excl({victim}, {name}) false; WFendExcl)",
                victim = tname(*victim)
            );
            r.predicate = Some(predicate(model, *protected, *victim, &scene.after));
        }
        Problem::Deadlock => {
            let d = Deadlock::explain(model, &scene.after);
            r.message = format!("deadlock: no thread can move; {}", d.summary());
            r.deadlock = Some(d);
            r.thread = None;
            r.label = None;
            r.line = None;
        }
    }
    r
}

/// What an evaluation that faulted did, as a verb phrase ("divides by
/// zero"), and the variable involved.
pub(crate) fn fault_text(model: &Model, f: &Fault) -> (String, Option<String>) {
    match f {
        Fault::Range { slot, value } => {
            let slot = *slot as usize;
            let (lo, hi) = model.bounds[slot];
            let name = &model.slots[slot].name;
            let text = format!("assigns {value} to {name}, outside its range {lo}..{hi}");
            (text, Some(name.clone()))
        }
        Fault::Index { base, len, index } => {
            let name = model.slots[*base as usize]
                .name
                .split('[')
                .next()
                .unwrap_or_default()
                .to_string();
            let text = format!("indexes {name}[{index}], but {name} has {len} elements");
            (text, Some(name))
        }
        Fault::NoLocal { thread, local } => {
            let slot = &model.slots[*local as usize].name;
            let r = slot.split_once('.').map_or(slot.as_str(), |(_, r)| r);
            let text = match usize::try_from(*thread)
                .ok()
                .and_then(|t| model.threads.get(t))
            {
                Some(th) => format!(
                    "reads {}.{r}, but thread {} has no local {r}",
                    th.name, th.name
                ),
                None => format!("reads t.{r} with t = {thread}, which is no thread"),
            };
            (text, None)
        }
        Fault::DivZero => ("divides by zero".into(), None),
        Fault::Overflow => ("overflows 64-bit integer arithmetic".into(), None),
        Fault::Assert => ("fails an assertion".into(), None),
        Fault::Discipline { slot, .. } => {
            let name = &model.slots[*slot as usize].name;
            (format!("accesses protected {name}"), Some(name.clone()))
        }
        Fault::StackBound { bound } => (
            format!(
                "goes past the bound of {bound} (`--max-stack`: call frames, or processes of one Promela proctype)"
            ),
            None,
        ),
    }
}

/// `excl(t, x) = ...` with the values it reads in `s`.
fn predicate(model: &Model, p: usize, t: usize, s: &[i64]) -> String {
    let prot = &model.protected[p];
    let mut slots = Vec::new();
    prot.excl[t].for_each_slot(&mut |k| {
        if !slots.contains(&k) {
            slots.push(k);
        }
    });
    let values: Vec<String> = slots
        .iter()
        .map(|&k| {
            format!(
                "{} = {}",
                model.slots[k as usize].name,
                model.show_value(k as usize, s[k as usize])
            )
        })
        .collect();
    if values.is_empty() {
        prot.text.clone()
    } else {
        format!("{}, where {}", prot.text, values.join(", "))
    }
}

impl CheckReport {
    /// The verdict as the report's `verdict` line gives it.
    pub fn verdict_line(&self) -> String {
        match (&self.violation, &self.limit, &self.ltl) {
            (_, Some(l), _) if !self.stopped_at_ltl() => format!("inconclusive: {l}"),
            (Some(v), _, _) => format!("violated ({})", v.kind),
            (None, _, Some(ltl)) if self.verdict != "holds" => {
                let names: Vec<&str> = ltl
                    .properties
                    .iter()
                    .filter(|p| p.verdict == self.verdict)
                    .map(|p| p.name.as_str())
                    .collect();
                format!("{} (ltl: {})", self.verdict, names.join(", "))
            }
            (None, _, _) => self.verdict.to_string(),
        }
    }

    /// Whether a temporal property found violated on the fly stopped the
    /// run before the safety check covered the states.
    fn stopped_at_ltl(&self) -> bool {
        self.verdict == "violated" && self.violation.is_none() && self.limit.is_some()
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = self.verdict_line();
        writeln!(f, "model        {} ({})", self.model, self.file)?;
        words::wrapped(f, "reduction", &words::reduction(self.reduction).does)?;
        if let Some(i) = self.ignoring {
            words::wrapped(f, "ignoring", &words::ignoring(i))?;
        }
        if let Some(i) = self.interference {
            words::wrapped(f, "interference", &words::interference(i))?;
        }
        if let Some(sym) = &self.symmetry {
            writeln!(f, "symmetry     {sym}: one state stored per orbit")?;
        }
        writeln!(f, "verdict      {verdict}")?;
        self.write_counts(f)?;
        self.write_store(f)?;
        self.write_transactions(f)?;
        self.write_notes(f)?;
        self.write_violation(f)?;
        if !self.trace.is_empty() {
            writeln!(f)?;
            let s = if self.trace.len() == 1 { "" } else { "s" };
            writeln!(f, "trace ({} transition{s}):", self.trace.len())?;
            write_trace(f, &self.trace)?;
        }
        if let Some(state) = &self.final_layout {
            writeln!(f)?;
            let failed = self.trace.last().is_some_and(|s| s.state.is_none());
            let which = if failed {
                "state before the failing step"
            } else {
                "final state"
            };
            state.write(f, which)?;
        }
        if let Some(ltl) = &self.ltl {
            write!(f, "{ltl}")?;
        }
        if let Some(stats) = &self.stats {
            writeln!(f)?;
            write!(f, "{stats}")?;
        }
        Ok(())
    }
}

impl CheckReport {
    /// The counts: states, transitions (reduced steps and the original
    /// transitions they fired, in reduced mode), depth, deadlocks, time and
    /// memory.
    fn write_counts(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.original_transitions {
            // In reduced mode a stored state ends a reduced step, and the
            // counts are of steps: say so, with the original transitions.
            Some(fired) => {
                let words = words::reduction(self.reduction);
                let stored = words.stored.unwrap_or("where a reduced step ends");
                words::wrapped(
                    f,
                    "states",
                    &format!("{} ({stored}; --reduction none stores all)", self.states),
                )?;
                let s = if self.transitions == 1 { "" } else { "s" };
                let o = if fired == 1 { "" } else { "s" };
                let counted = words.counted;
                words::wrapped(
                    f,
                    "transitions",
                    &format!(
                        "{} step{s} ({fired} single transition{o}; {counted})",
                        self.transitions
                    ),
                )?;
                let d = if self.depth == 1 { "" } else { "s" };
                words::wrapped(f, "depth", &format!("{} step{d} ({counted})", self.depth))?;
            }
            None => {
                writeln!(f, "states       {}", self.states)?;
                writeln!(f, "transitions  {}", self.transitions)?;
                writeln!(f, "depth        {}", self.depth)?;
            }
        }
        writeln!(f, "deadlocks    {}", self.deadlocks)?;
        writeln!(f, "time         {:.2} ms", self.elapsed_ms)?;
        writeln!(f, "memory       {:.1} bytes/state", self.bytes_per_state)?;
        Ok(())
    }

    /// A probabilistic store, and what its `holds` means.
    fn write_store(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(st) = &self.store {
            match (st.bits, st.hash_functions, st.bits_per_state) {
                (Some(bits), Some(k), Some(per)) => writeln!(
                    f,
                    "store        bitstate: {bits} bits, {k} per state, {per:.1} bits/state; \
                     a new state was taken for a visited one with probability <= {:.2e}",
                    st.omission_probability
                )?,
                _ => writeln!(
                    f,
                    "store        hash-compact (64-bit fingerprints); \
                     probability that any state was missed <= {:.2e}",
                    st.omission_probability
                )?,
            }
            if self.verdict == "holds" {
                writeln!(
                    f,
                    "             `holds` is probabilistic: states may have been missed"
                )?;
            }
        }
        Ok(())
    }

    /// `--transactions`: the table of transactions per labelled region.
    fn write_transactions(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (true, Some(rows)) = (self.show_transactions, &self.transactions) {
            writeln!(
                f,
                "transactions per labelled region (a region runs to the next label):"
            )?;
            let mut table_rows = vec![
                ["thread", "region", "line", "transactions", "boundaries"]
                    .map(String::from)
                    .to_vec(),
            ];
            for r in rows {
                table_rows.push(vec![
                    r.thread.clone(),
                    r.region.clone(),
                    r.line.to_string(),
                    r.transactions.to_string(),
                    r.boundaries.join(", "),
                ]);
            }
            table(f, &table_rows, &[2, 3])?;
        }
        Ok(())
    }

    /// States forced, summaries, warnings, unreported deadlocks and caveats.
    fn write_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.limit.as_ref().filter(|_| self.stopped_at_ltl()) {
            writeln!(f, "safety       not established: {l}")?;
        }
        if let Some(n @ 1..) = self.forced_states {
            let s = if n == 1 { "" } else { "s" };
            let why = match self.ignoring {
                Some("cycles") => "its run of invisible transitions closed a cycle",
                _ => "its run of invisible transitions could not complete",
            };
            writeln!(
                f,
                "forced       {n} state{s} where a step was ended early, every thread scheduled: {why}"
            )?;
        }
        if let Some(m) = &self.summaries {
            write!(
                f,
                "summaries    {} computed edges from {} entries, {} reused",
                m.computed, m.entries, m.reused
            )?;
            match m.shared_threads {
                0 => writeln!(f)?,
                1 => writeln!(f, "; 1 thread uses another's")?,
                n => writeln!(f, "; {n} threads use another's")?,
            }
        }
        for w in &self.warnings {
            let s = if w.states == 1 { "" } else { "s" };
            writeln!(
                f,
                "warning      {}: {} state{s}, first: {}",
                w.kind, w.states, w.first
            )?;
        }
        if self.deadlocks > 0 && self.violation.is_none() {
            let s = if self.deadlocks == 1 { "" } else { "s" };
            writeln!(
                f,
                "note         {} deadlocked state{s}, not reported (--no-deadlock)",
                self.deadlocks
            )?;
        }
        for c in &self.caveats {
            writeln!(f, "note         {c}")?;
        }
        Ok(())
    }

    /// The violation (or breach), its predicate and its deadlock.
    fn write_violation(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(v) = &self.violation {
            writeln!(f)?;
            // A breach of the reduction's conditions, not a verdict.
            let label = if self.limit.is_some() {
                "breach   "
            } else {
                "violation"
            };
            writeln!(f, "{label}    {}", v.message)?;
            if let Some(p) = &v.predicate {
                writeln!(f, "predicate    {p}")?;
            }
            if let Some(d) = &v.deadlock {
                d.write(f)?;
            }
        }
        Ok(())
    }
}

pub(crate) fn write_trace(f: &mut fmt::Formatter<'_>, trace: &[StepReport]) -> fmt::Result {
    let reduced = trace.iter().any(|s| s.starts_step.is_some());
    let mut rows = vec![vec![
        "#".to_string(),
        if reduced {
            "step".into()
        } else {
            String::new()
        },
        "thread".into(),
        "point".into(),
        "line".into(),
        "statement".into(),
        "changes".into(),
    ]];
    let mut nstep = 0;
    for s in trace {
        let step = match s.starts_step {
            Some(true) => {
                nstep += 1;
                nstep.to_string()
            }
            _ => String::new(),
        };
        let changes = if s.state.is_none() {
            "(does not complete)".to_string()
        } else {
            let state = s.state.as_ref().expect("completed");
            let mut parts: Vec<String> = s.took.iter().map(|t| format!("[{t}]")).collect();
            parts.extend(s.changes.iter().map(|(k, v)| format!("{k} = {}", show(v))));
            parts.extend(s.unchanged.iter().map(|k| {
                format!(
                    "{k} = {} (unchanged)",
                    state.get(k).map_or(String::new(), show)
                )
            }));
            parts.join(", ")
        };
        // Code inside procedures is indented by its stack depth.
        let indent = "  ".repeat(s.depth as usize);
        rows.push(vec![
            s.step.to_string(),
            step,
            s.thread.clone(),
            s.at.label.clone().unwrap_or_default(),
            s.at.line.to_string(),
            format!("{indent}{}", s.at.statement),
            changes,
        ]);
    }
    if !reduced {
        for r in &mut rows {
            r.remove(1);
        }
    }
    // `#` and `line` are right-aligned.
    table(f, &rows, if reduced { &[0, 4] } else { &[0, 3] })
}

/// The report of `optimist classify`: one row per transition.
#[derive(Clone, Debug, Serialize)]
pub struct ClassifyReport {
    /// The model's name.
    pub model: String,
    /// One row per transition, thread by thread, in source order.
    pub transitions: Vec<ClassRow>,
    /// Loops of invisible control points, which a reduced step can run
    /// forever: `check --ignoring` decides what happens there.
    pub invisible_loops: Vec<LoopRow>,
    /// The symmetry `check` stores orbits of, and what breaks others.
    pub symmetry: SymmetryReport,
    /// The contract of the reduction asked for, judged on the model.
    pub contract: ContractReport,
}

/// A loop of invisible control points of one thread.
#[derive(Clone, Debug, Serialize)]
pub struct LoopRow {
    /// The thread.
    pub thread: String,
    /// Its points on the loop, as shown in traces (label or `line N`).
    pub points: Vec<String>,
}

/// One transition's classification.
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    /// The thread.
    pub thread: String,
    /// Its statement: `label`, `line` and `statement`.
    #[serde(flatten)]
    pub at: Statement,
    /// Visible by itself: (i) it touches an unprotected variable, or (ii) it
    /// may change an exclusive access predicate.
    pub visible: bool,
    /// Why.
    pub reason: String,
    /// Whether the reduction stops at its control point, so that a reduced
    /// step starts with it: the point has a visible transition (WFsep) or
    /// starts the thread (WFinitVis).
    pub point_visible: bool,
    /// Why the point is visible although the transition is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_reason: Option<String>,
    /// Under `--reduction movers`: `right`, `left`, `both` or `non`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mover: Option<&'static str>,
    /// Why it is that kind of mover.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mover_reason: Option<String>,
}

impl ClassifyReport {
    /// Classifies `model`, with the contract of the default reduction.
    pub fn new(model: &Model) -> ClassifyReport {
        let options = crate::explore::Options::default();
        let a = crate::explore::assess(model, &options).expect("the default options are valid");
        ClassifyReport::with(model, &a)
    }

    /// Classifies `model`, with each transition's mover type when the
    /// reduction `a` judged uses movers, and `a`'s contract.
    pub fn with(model: &Model, a: &crate::explore::Assessment) -> ClassifyReport {
        let movers = a.contract.name.starts_with("movers");
        let class = crate::classify::classify(model);
        let plan = movers.then(|| crate::explore::MoverPlan::new(model));
        // A procedure is copied once per stack depth; a copy whose row says
        // nothing new is left out.
        let mut shown = std::collections::HashSet::new();
        let transitions = model
            .transitions
            .iter()
            .zip(&class.transitions)
            .enumerate()
            .map(|(k, (tr, c))| {
                let t = tr.thread as usize;
                let point = &model.threads[t].points[tr.from as usize];
                let point_reason = (c.visible && !c.own).then(|| {
                    match point
                        .transitions
                        .clone()
                        .find(|&j| j != k && class.transitions[j].own)
                    {
                        Some(j) => format!(
                            "shares its point with the visible transition at line {} (WFsep)",
                            model.transitions[j].line
                        ),
                        None => "its point starts the thread (WFinitVis)".to_string(),
                    }
                });
                let (mover, mover_reason) = match &plan {
                    Some(plan) => {
                        let (m, why) = crate::explore::mover_kind(model, &class, plan, k);
                        (Some(m), Some(why))
                    }
                    None => (None, None),
                };
                let row = ClassRow {
                    mover,
                    mover_reason,
                    thread: model.threads[t].name.clone(),
                    at: Statement::of(model, tr),
                    visible: c.own,
                    reason: c.reason.describe(model),
                    point_visible: c.visible,
                    point_reason,
                };
                let copy = point.frame.map(|f| {
                    let f = &model.threads[t].frames[f as usize];
                    (f.proc, tr.from - f.points.start)
                });
                (copy, row)
            })
            .filter(|(copy, row)| match copy {
                None => true,
                Some((proc, at)) => shown.insert((
                    row.thread.clone(),
                    *proc,
                    *at,
                    row.at.statement.clone(),
                    row.visible,
                    row.reason.clone(),
                    row.point_visible,
                    row.point_reason.clone(),
                    row.mover,
                    row.mover_reason.clone(),
                )),
            })
            .map(|(_, row)| row)
            .collect();
        let invisible_loops = crate::classify::invisible_loops(model, &class)
            .into_iter()
            .map(|(t, pcs)| LoopRow {
                thread: model.threads[t].name.clone(),
                points: pcs
                    .iter()
                    .map(|&pc| model.threads[t].points[pc as usize].name())
                    .collect(),
            })
            .collect();
        ClassifyReport {
            model: model.name.clone(),
            transitions,
            invisible_loops,
            symmetry: SymmetryReport::new(model),
            contract: ContractReport::new(a),
        }
    }
}

impl fmt::Display for ClassifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let visible = self.transitions.iter().filter(|r| r.visible).count();
        let stops = self
            .transitions
            .iter()
            .filter(|r| r.point_visible && !r.visible)
            .count();
        let n = self.transitions.len();
        writeln!(
            f,
            "model {}: {n} transition{}, {visible} visible (another thread may see them), {} invisible \
             (private to their thread; {stops} of them where a step may start)",
            self.model,
            if n == 1 { "" } else { "s" },
            n - visible
        )?;
        writeln!(f)?;
        let movers = self.transitions.iter().any(|r| r.mover.is_some());
        let header: &[&str] = if movers {
            &["thread", "point", "line", "statement", "sc", "mover", "why"]
        } else {
            &["thread", "point", "line", "statement", "class", "reason"]
        };
        let rows: Vec<Vec<String>> =
            std::iter::once(header.iter().map(|h| h.to_string()).collect())
                .chain(self.transitions.iter().map(|r| {
                    let class = match (r.visible, r.point_visible) {
                        (true, _) => "visible",
                        (false, true) => "invisible*",
                        (false, false) => "invisible",
                    };
                    let reason = match &r.point_reason {
                        Some(p) => format!("{}; * but {p}", r.reason),
                        None => r.reason.clone(),
                    };
                    let mut row = vec![
                        r.thread.clone(),
                        r.at.label.clone().unwrap_or_default(),
                        r.at.line.to_string(),
                        r.at.statement.clone(),
                        class.to_string(),
                        reason,
                    ];
                    if let (Some(m), Some(why)) = (r.mover, &r.mover_reason) {
                        // The mover's reason replaces visibility's, to keep it narrow.
                        row.pop();
                        row.push(m.to_string());
                        row.push(why.clone());
                    }
                    row
                }))
                .collect();
        table(f, &rows, &[2])?;
        if stops > 0 {
            writeln!(f)?;
            writeln!(
                f,
                " * invisible, but at a visible control point (where a step may start): a step may begin with it."
            )?;
        }
        if !self.invisible_loops.is_empty() {
            writeln!(f)?;
            writeln!(
                f,
                "loops a private run can go round forever (of invisible points; `check --ignoring cpc`, the \
                 default, ends such a run by force where it cannot complete):"
            )?;
            for l in &self.invisible_loops {
                writeln!(f, " {}  {}", l.thread, l.points.join(", "))?;
            }
        }
        writeln!(f)?;
        write!(f, "{}", self.symmetry)?;
        writeln!(f)?;
        write!(f, "{}", self.contract)
    }
}

impl ClassifyReport {
    /// 0, or 3 when the reduction does not apply to the model, as `check`
    /// would exit.
    pub fn exit_code(&self) -> u8 {
        if self.contract.applies { 0 } else { 3 }
    }
}

/// Writes rows as left-aligned columns (right-aligned where listed).
pub(crate) fn table(
    f: &mut fmt::Formatter<'_>,
    rows: &[Vec<String>],
    right: &[usize],
) -> fmt::Result {
    let cols = rows.first().map_or(0, Vec::len);
    let width: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let mut line = String::from(" ");
        for (c, cell) in r.iter().enumerate() {
            let pad = " ".repeat(width[c] - cell.chars().count());
            if right.contains(&c) {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
            line.push_str("  ");
        }
        writeln!(f, "{}", line.trim_end())?;
    }
    Ok(())
}
