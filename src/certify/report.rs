//! The certify report, as text for people and as JSON for scripts, and the
//! conclusion of `check --certify`.

use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::law::{Failure, Obligation};
use super::{Certification, CertifyLevel, CertifyTheorem, MoverLaw, ObligationStatus};
use crate::explore::{Limit, Options};
use crate::model::Model;
use crate::report::{CheckReport, json_state};

/// The proof of the reduction theorem that `optimist prove` checks.
const PROOF: &str = "proofs/reduction.proof";

/// The report of `optimist certify`; serialises to the documented JSON
/// schema and displays as the text report.
#[derive(Clone, Debug, Serialize)]
pub struct CertifyReport {
    /// The model's name.
    pub model: String,
    /// The file it was read from.
    pub file: String,
    /// `movers` when the obligations are the movers theorem's (absent for
    /// Stoller and Cohen's, the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduction: Option<&'static str>,
    /// `local` or `exhaustive`.
    pub level: &'static str,
    /// `hypotheses hold`, `hypotheses fail` or `not checked`: about the
    /// reduction theorem's hypotheses, not the model's properties.
    pub verdict: &'static str,
    /// Local level: most valuations per obligation instance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_bound: Option<u64>,
    /// Exhaustive level: reachable states of the system with q (the states
    /// stored, when a limit was hit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<u64>,
    /// The limit that stopped the run or left obligations not checked, if
    /// one did (the exhaustive level's state limit, or a time or memory
    /// limit at either level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// Local level, for a model with procedures: whether one copy of each
    /// procedure stood for the copies alike it, or every copy was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub procedures: Option<ProceduresReport>,
    /// The hypotheses (11)-(18), keyed `"11"` to `"18"`.
    pub hypotheses: Obligations,
    /// The well-formedness conditions, keyed by name.
    pub wf: Obligations,
    /// What follows for the reduction theorem.
    pub conclusion: String,
    /// The certificate written, when `--certificate-out` asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<CertificateNote>,
}

/// Where a certify certificate was written, and the hashes it records.
#[derive(Clone, Debug, Serialize)]
pub struct CertificateNote {
    /// The file.
    pub file: String,
    /// SHA-256 of the model (source text, defines, stack bound).
    pub model_sha256: String,
    /// SHA-256 of the proof certificate the claim rests on.
    pub proof_certificate_sha256: String,
}

/// How the local level checked the copies of procedures, one per stack
/// depth (see `src/certify/copies.rs`).
#[derive(Clone, Debug, Serialize)]
pub struct ProceduresReport {
    /// `one per procedure` or `every copy`.
    pub copies: &'static str,
    /// Control points in the copies.
    pub points: u64,
    /// Of them, those whose instances were checked: each stands for the
    /// points alike it in other copies.
    pub checked: u64,
    /// Why one copy stands for the others, or why every copy was checked.
    pub why: String,
}

/// Why a copy checked stands for the copies alike it.
const ONE_COPY: &str = "a copy alike a checked one differs from it only in its slots, control points and return points, which nothing else reads, so it has the same outcomes";

/// Obligations in report order; serialises as a JSON object.
#[derive(Clone, Debug)]
pub struct Obligations(pub Vec<(&'static str, ObligationReport)>);

impl Serialize for Obligations {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One obligation's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ObligationReport {
    /// The law, as the digest writes it.
    pub law: &'static str,
    /// True or false; null when not checked.
    pub holds: Option<bool>,
    /// How it was checked.
    pub checked: String,
    /// Why it holds whatever the model, when it does.
    pub by_construction: Option<&'static str>,
    /// Instances checked (threads, pairs of threads, control points).
    pub instances: u64,
    /// Instances that fail.
    pub failing: u64,
    /// The first failure found.
    pub witness: Option<WitnessReport>,
}

/// The states and transitions that break an obligation.
#[derive(Clone, Debug, Serialize)]
pub struct WitnessReport {
    /// What goes wrong.
    pub message: String,
    /// The states involved, named.
    pub states: Vec<StateReport>,
    /// The transitions between them.
    pub transitions: Vec<TransitionReport>,
    /// For a lasso: `transitions[loop_from..]` form the loop.
    pub loop_from: Option<usize>,
    /// Exhaustive level: how the first state is reached from the initial
    /// state, one transition per entry.
    pub reached_by: Option<Vec<PathStep>>,
}

/// A named state of a witness.
#[derive(Clone, Debug, Serialize)]
pub struct StateReport {
    /// `s`, `s1`, `s'`, ...
    pub name: String,
    /// The violation flag.
    pub q: bool,
    /// Every slot's value.
    pub state: Map<String, Value>,
    /// Movers: each thread's phase bit (true in the pre-commit part of a
    /// transaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Map<String, Value>>,
    /// The values as shown in text, in slot order.
    #[serde(skip)]
    shown: Vec<(String, String)>,
}

/// A transition of a witness.
#[derive(Clone, Debug, Serialize)]
pub struct TransitionReport {
    /// The state it leaves.
    pub from: String,
    /// The state it enters.
    pub to: String,
    /// The thread.
    pub thread: String,
    /// The label of its control point, if any.
    pub label: Option<String>,
    /// Source line.
    pub line: usize,
    /// The statement.
    pub statement: String,
}

/// One transition on the way to a witness's first state.
#[derive(Clone, Debug, Serialize)]
pub struct PathStep {
    /// The thread.
    pub thread: String,
    /// The label of its control point, if any.
    pub label: Option<String>,
    /// Source line.
    pub line: usize,
    /// The statement.
    pub statement: String,
    /// q after it.
    pub q: bool,
    /// The state after it.
    pub state: Map<String, Value>,
}

fn transition(model: &Model, k: usize) -> (String, Option<String>, usize, String) {
    let tr = &model.transitions[k];
    let t = tr.thread as usize;
    (
        model.threads[t].name.clone(),
        model.threads[t].points[tr.from as usize].label.clone(),
        tr.line,
        tr.text.clone(),
    )
}

fn witness(model: &Model, f: &Failure) -> WitnessReport {
    let name = |i: usize| f.states[i].0.clone();
    // A movers witness's states carry each thread's phase bit after the
    // slots (`MState::shown`).
    let slots = model.slots.len();
    let phase = |t: usize| format!("phase({})", model.threads[t].name);
    WitnessReport {
        message: f.message.clone(),
        states: f
            .states
            .iter()
            .map(|(n, st)| StateReport {
                name: n.clone(),
                q: st.q,
                state: json_state(model, &st.s[..slots]),
                phase: (st.s.len() > slots).then(|| {
                    st.s[slots..]
                        .iter()
                        .enumerate()
                        .map(|(t, &b)| (model.threads[t].name.clone(), Value::Bool(b != 0)))
                        .collect()
                }),
                shown: st.s[..slots]
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (model.slots[k].name.clone(), model.show_value(k, v)))
                    .chain(
                        st.s[slots..]
                            .iter()
                            .enumerate()
                            .map(|(t, &b)| (phase(t), (b != 0).to_string())),
                    )
                    .collect(),
            })
            .collect(),
        transitions: f
            .steps
            .iter()
            .map(|&(a, k, b)| {
                let (thread, label, line, statement) = transition(model, k);
                TransitionReport {
                    from: name(a),
                    to: name(b),
                    thread,
                    label,
                    line,
                    statement,
                }
            })
            .collect(),
        loop_from: f.loop_from,
        reached_by: f.reached_by.as_ref().map(|path| {
            path.iter()
                .map(|(k, st)| {
                    let (thread, label, line, statement) = transition(model, *k);
                    PathStep {
                        thread,
                        label,
                        line,
                        statement,
                        q: st.q,
                        state: json_state(model, &st.s[..slots]),
                    }
                })
                .collect()
        }),
    }
}

fn label(law: Obligation) -> String {
    if law.is_hypothesis() {
        format!("({})", law.key())
    } else {
        law.key().to_string()
    }
}

/// Whether the failing obligations say no more than "a run of invisible
/// transitions can go on forever": (11) and WFfiniteInvis, which commit
/// point completion and cycle detection stand in for.
fn only_finiteness(failing: &[Obligation]) -> bool {
    !failing.is_empty()
        && failing
            .iter()
            .all(|l| matches!(l, Obligation::H11 | Obligation::FiniteInvis))
}

fn list(laws: &[Obligation]) -> String {
    join(laws.iter().map(|&l| label(l)).collect())
}

/// What follows from a certification, for the report's `conclusion`
/// line: the same sentences for both theorems, but for what each theorem
/// says and the escape each allows where only a loop fails.
fn conclusion(cert: &Certification) -> String {
    let movers = cert.options.reduction == CertifyTheorem::Movers;
    let with = |s: ObligationStatus| -> Vec<Obligation> {
        cert.laws
            .iter()
            .filter(|r| r.status == s)
            .map(|r| r.law)
            .collect()
    };
    let name = if movers {
        "the movers theorem"
    } else {
        "the reduction theorem"
    };
    let local = cert.level == CertifyLevel::Local;
    let reachable = if local {
        ""
    } else {
        " to the reachable states, which is all it needs from the initial state"
    };
    match cert.verdict() {
        ObligationStatus::Holds if movers => format!(
            "the movers theorem (M) applies{reachable}: a violation reachable in the original system is reachable by the movers search, which runs whole transactions from states where no thread is inside one ({}); deadlocks are not preserved",
            super::movers::THEOREM
        ),
        ObligationStatus::Holds => format!(
            "the reduction theorem (19) applies{reachable}: a violation reachable in the original system is reachable in the reduced system (proof: {PROOF}, checked by `optimist prove`)"
        ),
        ObligationStatus::Fails if !movers && only_finiteness(&with(ObligationStatus::Fails)) => {
            format!(
                "the reduction theorem (19) does not apply: {} fail{}, so a run of invisible transitions can go on forever, and every other obligation holds; a reduced check that ends such runs by force (`--ignoring cpc`, the default, or `cycles`) is still sound for this model, by the theorem of commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005), which `optimist prove` does not check",
                list(&with(ObligationStatus::Fails)),
                if with(ObligationStatus::Fails).len() == 1 {
                    "s"
                } else {
                    ""
                }
            )
        }
        ObligationStatus::Fails => {
            let failing = with(ObligationStatus::Fails);
            let verb = if failing.len() == 1 { "fails" } else { "fail" };
            let cpc = if movers && failing == [Obligation::Movers(MoverLaw::H11)] {
                ": a post-commit run can go on forever, which the movers search ends by commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005), a theorem `optimist prove` does not check"
            } else {
                ""
            };
            format!(
                "{name} does not apply: {} {verb}{cpc}, so a {} check that holds says nothing about the original system; check it with `--reduction none`{}",
                list(&failing),
                if movers { "movers" } else { "reduced" },
                if local {
                    " (the local level tries every valuation, reachable or not; `--exhaustive` checks the reachable states only)"
                } else {
                    ""
                }
            )
        }
        ObligationStatus::NotChecked => format!(
            "{name} may not apply: {} could not be checked; {}",
            list(&with(ObligationStatus::NotChecked)),
            match cert.limit {
                Some(Limit::States(_)) => "raise `--max-states`",
                Some(Limit::Time(_)) => "raise `--max-time`",
                Some(Limit::Memory(_)) => "raise `--max-memory`",
                Some(Limit::Stack(_)) => "raise `--max-stack`",
                Some(Limit::Internal(_)) => "this is a bug in optimist; please report it",
                Some(Limit::Lost(_) | Limit::Unjoined(_)) => "run it again",
                Some(Limit::Deadlocks) => "check with `--no-deadlock`",
                Some(Limit::FirstViolation) => "check with `--no-ltl`",
                None => "try `--exhaustive`",
            }
        ),
    }
}

impl CertifyReport {
    /// The report of `cert` for `model`, read from `file`.
    pub fn new(model: &Model, file: &str, cert: &Certification) -> CertifyReport {
        let mut hypotheses = Vec::new();
        let mut wf = Vec::new();
        for r in &cert.laws {
            let report = ObligationReport {
                law: r.law.formula(),
                holds: match r.status {
                    ObligationStatus::Holds => Some(true),
                    ObligationStatus::Fails => Some(false),
                    ObligationStatus::NotChecked => None,
                },
                checked: r.checked.clone(),
                by_construction: r.law.by_construction(),
                instances: r.instances,
                failing: r.failing,
                witness: r.witness.as_ref().map(|f| witness(model, f)),
            };
            if r.law.is_hypothesis() {
                hypotheses.push((r.law.key(), report));
            } else {
                wf.push((r.law.key(), report));
            }
        }
        let local = cert.level == CertifyLevel::Local;
        let movers = cert.options.reduction == CertifyTheorem::Movers;
        let conclusion = conclusion(cert);
        CertifyReport {
            model: model.name.clone(),
            file: file.to_string(),
            reduction: movers.then_some("movers"),
            level: match cert.level {
                CertifyLevel::Local | CertifyLevel::LocalOnReachable => "local",
                CertifyLevel::Exhaustive => "exhaustive",
            },
            verdict: match cert.verdict() {
                ObligationStatus::Holds => "hypotheses hold",
                ObligationStatus::Fails => "hypotheses fail",
                ObligationStatus::NotChecked => "not checked",
            },
            frame_bound: local.then_some(cert.options.frame_bound),
            states: cert.states,
            limit: cert.limit.map(|l| l.to_string()),
            procedures: cert.procedures.as_ref().map(|p| ProceduresReport {
                copies: if p.one_copy {
                    "one per procedure"
                } else {
                    "every copy"
                },
                points: p.points,
                checked: p.checked,
                why: match p.every_copy {
                    None => ONE_COPY.to_string(),
                    Some(why) => format!("one copy cannot stand for another: {why}"),
                },
            }),
            hypotheses: Obligations(hypotheses),
            wf: Obligations(wf),
            conclusion,
            certificate: None,
        }
    }

    /// The process exit code: 0 all hold, 1 one fails, 3 one not checked.
    pub fn exit_code(&self) -> u8 {
        match self.verdict {
            "hypotheses hold" => 0,
            "hypotheses fail" => 1,
            _ => 3,
        }
    }

    /// The verdict in words: which hypotheses fail, and that it is not the
    /// model's verdict.
    fn result(&self) -> String {
        let keys = |want: Option<bool>| -> Vec<String> {
            self.all()
                .filter(|(_, o)| o.holds == want)
                .map(|(k, _)| key_label(k))
                .collect()
        };
        match self.verdict {
            "hypotheses hold" if self.reduction == Some("movers") => {
                "every hypothesis of the movers theorem holds (the model's own verdict is `optimist check --reduction movers`'s)".into()
            }
            "hypotheses hold" => {
                "every hypothesis of the reduction theorem holds (the model's own verdict is `optimist check`'s)".into()
            }
            "hypotheses fail" => match keys(Some(false)).as_slice() {
                [one] => format!("hypothesis {one} fails"),
                many => format!("hypotheses {} fail", many.join(", ")),
            },
            _ => format!("not checked: {}", keys(None).join(", ")),
        }
    }

    fn all(&self) -> impl Iterator<Item = &(&'static str, ObligationReport)> {
        self.hypotheses.0.iter().chain(&self.wf.0)
    }

    /// The obligations that fail (of Stoller and Cohen's).
    fn failing_laws(&self) -> Vec<Obligation> {
        if self.reduction.is_some() {
            return Vec::new();
        }
        self.all()
            .filter(|(_, o)| o.holds == Some(false))
            .filter_map(|(k, _)| Obligation::ALL.into_iter().find(|l| l.key() == *k))
            .collect()
    }
}

fn result_name(o: &ObligationReport) -> &'static str {
    match o.holds {
        Some(true) => "holds",
        Some(false) => "fails",
        None => "not checked",
    }
}

fn key_label(key: &str) -> String {
    if key.starts_with("WF") {
        key.to_string()
    } else {
        format!("({key})")
    }
}

impl fmt::Display for CertifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "model       {} ({})", self.model, self.file)?;
        let with = if self.reduction.is_some() {
            writeln!(
                f,
                "reduction   movers: the hypotheses of the movers theorem (M), on the system with q and one phase bit per thread"
            )?;
            "with q and phase bits"
        } else {
            "with q"
        };
        match (self.frame_bound, self.states, &self.limit) {
            (Some(b), _, None) => writeln!(
                f,
                "level       local: every valuation of each obligation's frame, at most {b} per instance"
            )?,
            (Some(b), _, Some(l)) => writeln!(
                f,
                "level       local: every valuation of each obligation's frame, at most {b} per instance; stopped: {l}"
            )?,
            (None, Some(n), None) => writeln!(
                f,
                "level       exhaustive: the {n} reachable state{} of the full system {with}",
                if n == 1 { "" } else { "s" }
            )?,
            (None, Some(n), Some(l)) => writeln!(
                f,
                "level       exhaustive: {l} after storing {n} states of the full system {with}"
            )?,
            (None, None, _) => writeln!(f, "level       {}", self.level)?,
        }
        if let Some(p) = &self.procedures {
            writeln!(
                f,
                "procedures  {}: {} of the {} control points of the copies checked; {}",
                if p.copies == "every copy" {
                    "every copy"
                } else {
                    "one copy per procedure"
                },
                p.checked,
                p.points,
                p.why
            )?;
        }
        writeln!(f, "result      {}", self.result())?;
        writeln!(f)?;
        let mut rows = vec![["obligation", "law", "checked", "result"].map(String::from)];
        for (key, o) in self.all() {
            let mark = if o.by_construction.is_some() && o.holds == Some(true) {
                " *"
            } else {
                ""
            };
            rows.push([
                key_label(key),
                o.law.to_string(),
                o.checked.clone(),
                format!("{}{mark}", result_name(o)),
            ]);
        }
        write_table(f, &rows)?;
        let marked: Vec<_> = self
            .all()
            .filter(|(_, o)| o.by_construction.is_some() && o.holds == Some(true))
            .collect();
        if !marked.is_empty() {
            writeln!(f)?;
            writeln!(f, " * holds by construction as well:")?;
            let w = crate::report::name_width(marked.iter().map(|(k, _)| key_label(k)));
            for (key, o) in marked {
                let k = key_label(key);
                writeln!(
                    f,
                    "   {k}{}  {}",
                    " ".repeat(w - k.len()),
                    o.by_construction.unwrap_or_default()
                )?;
            }
        }
        for (key, o) in self.all() {
            if let Some(w) = &o.witness {
                writeln!(f)?;
                let more = match o.failing {
                    0 | 1 => String::new(),
                    n => format!(" (one of {n} failing instances)"),
                };
                writeln!(f, "{} fails{more}: {}", key_label(key), w.message)?;
                write_witness(f, w)?;
            }
        }
        writeln!(f)?;
        writeln!(f, "conclusion  {}", self.conclusion)?;
        if let Some(c) = &self.certificate {
            writeln!(
                f,
                "certificate {}: model sha256 {}, proof certificate sha256 {}",
                c.file, c.model_sha256, c.proof_certificate_sha256
            )?;
        }
        Ok(())
    }
}

/// `name = value` for each slot.
fn values(state: &StateReport) -> String {
    let vals: Vec<String> = state
        .shown
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    format!("{}; q = {}", vals.join(", "), state.q)
}

/// The slots of `to` that differ from `from`, and q when it changes.
fn changes(from: &StateReport, to: &StateReport) -> String {
    let mut out: Vec<String> = to
        .shown
        .iter()
        .zip(&from.shown)
        .filter(|(a, b)| a.1 != b.1)
        .map(|((k, v), _)| format!("{k} = {v}"))
        .collect();
    if from.q != to.q {
        out.push(format!("q = {}", to.q));
    }
    if out.is_empty() {
        "no change".to_string()
    } else {
        out.join(", ")
    }
}

/// Writes rows as left-aligned columns, indented.
fn columns(f: &mut fmt::Formatter<'_>, indent: &str, rows: &[Vec<String>]) -> fmt::Result {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |x| x.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = indent.to_string();
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            line.push_str(&" ".repeat(width[c] - cell.chars().count() + 2));
        }
        writeln!(f, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Rows of four columns, each padded to its widest cell: the obligations
/// table of the report and of a re-check.
pub(crate) fn write_table(f: &mut fmt::Formatter<'_>, rows: &[[String; 4]]) -> fmt::Result {
    let width: Vec<usize> = (0..4)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let mut line = String::from(" ");
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            line.push_str(&" ".repeat(width[c] - cell.chars().count() + 2));
        }
        writeln!(f, "{}", line.trim_end())?;
    }
    Ok(())
}

fn write_witness(f: &mut fmt::Formatter<'_>, w: &WitnessReport) -> fmt::Result {
    let Some(first) = w.states.first() else {
        return Ok(());
    };
    if let Some(path) = &w.reached_by {
        if path.is_empty() {
            writeln!(f, "  {} is the initial state", first.name)?;
        } else {
            let s = if path.len() == 1 { "" } else { "s" };
            writeln!(
                f,
                "  {} is reached from the initial state by {} transition{s}:",
                first.name,
                path.len()
            )?;
            let rows: Vec<Vec<String>> = path
                .iter()
                .enumerate()
                .map(|(n, p)| {
                    vec![
                        format!("{}.", n + 1),
                        p.thread.clone(),
                        p.label.clone().unwrap_or_default(),
                        format!("line {}", p.line),
                        p.statement.clone(),
                    ]
                })
                .collect();
            columns(f, "    ", &rows)?;
        }
    }
    writeln!(f, "  {}: {}", first.name, values(first))?;
    let by_name = |n: &str| w.states.iter().find(|s| s.name == n);
    let mut rows = Vec::new();
    for (n, t) in w.transitions.iter().enumerate() {
        let (Some(a), Some(b)) = (by_name(&t.from), by_name(&t.to)) else {
            continue;
        };
        let start = if w.loop_from == Some(n) { "loop" } else { "" };
        rows.push(vec![
            start.to_string(),
            format!("{} -> {}", t.from, t.to),
            t.thread.clone(),
            t.label.clone().unwrap_or_default(),
            format!("line {}", t.line),
            t.statement.clone(),
            format!("=> {}", changes(a, b)),
        ]);
    }
    if rows.iter().all(|r| r[0].is_empty()) {
        for r in &mut rows {
            r.remove(0);
        }
    }
    columns(f, "  ", &rows)
}

/// The report of `optimist check --certify`: what follows for the original
/// system, from the check and the certificate.
///
/// The verdict is about the original system, and its exit code follows the
/// usual table: `holds` (0) when the reduced check holds and every
/// obligation holds (or only (11) and WFfiniteInvis fail, and the check
/// ended endless runs by commit point completion or cycle detection, so
/// the theorem of commit point completion stands in for (19)); `violated` (1) when the reduced check found a
/// violation other than of well-formedness, since its counterexample is a
/// path of the original system; `inconclusive` (3) whenever nothing follows
/// for the original system: the reduced check holds but the certificate
/// fails or left obligations unchecked, the reduced check found that the
/// model breaks a well-formedness condition (so the reduction does not
/// apply), or a limit ended the check. Under `--reduction none` the check
/// is about the original system already, and its verdict is the verdict.
#[derive(Clone, Debug, Serialize)]
pub struct CertifiedCheck {
    /// `holds`, `violated` or `inconclusive`, for the original system.
    pub verdict: &'static str,
    /// What follows for the original system, in words.
    pub conclusion: String,
    /// The check.
    pub check: CheckReport,
    /// The certificate.
    pub certify: CertifyReport,
}

/// Labels joined: "(14) and (15)".
fn join(v: Vec<String>) -> String {
    match v.as_slice() {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The keys of the obligations of `c` whose `holds` is `want`.
fn failing(c: &CertifyReport, want: Option<bool>) -> Vec<String> {
    c.all()
        .filter(|(_, o)| o.holds == want)
        .map(|(k, _)| key_label(k))
        .collect()
}

/// What follows for the original system from a reduced check and its
/// certificate: the verdict and why.
fn original(
    check: &CheckReport,
    certify: &CertifyReport,
    options: &Options,
) -> (&'static str, String) {
    match (check.verdict, check.violation.as_ref().map(|v| v.kind)) {
        ("violated", Some("well-formedness")) => (
            "inconclusive",
            "nothing follows for the original system: the reduced check found that the model breaks a well-formedness condition, so the reduction does not apply; check it with `--reduction none`".to_string(),
        ),
        ("violated", Some("deadlock")) => (
            "violated",
            "a deadlock is reachable in the original system: the counterexample is a path of the original system".to_string(),
        ),
        ("violated", _) => (
            "violated",
            "a violation is reachable in the original system: the counterexample is a path of the original system".to_string(),
        ),
        ("holds", _) => certified(check, certify, options),
        _ => (
            "inconclusive",
            "the reduced check is inconclusive, so nothing follows for the original system".to_string(),
        ),
    }
}

/// What follows for the original system from a reduced check that holds,
/// by the certificate's theorem, if it is the reduction's.
fn certified(
    check: &CheckReport,
    certify: &CertifyReport,
    options: &Options,
) -> (&'static str, String) {
    // Which theorem the certificate is about, and whether it is the
    // check's: `--reduction movers` (and `movers+stubborn`) rests on
    // the movers theorem (M), `sc` (and `sc+stubborn`) on (19).
    let movers = certify.reduction == Some("movers");
    let theorem = if movers {
        "the movers theorem"
    } else {
        "the reduction theorem"
    };
    let mismatch = match options.reduction.theorem() {
        _ if options.reduction.is_full() => false,
        Some(CertifyTheorem::Sc) => movers,
        Some(CertifyTheorem::Movers) => !movers,
        None => true,
    };
    match certify.verdict {
        _ if mismatch => (
            "inconclusive",
            format!(
                "nothing follows for the original system: the reduced check ({}) holds, but the certificate checks the hypotheses of {theorem}, which is not the theorem of that reduction",
                options.reduction.name()
            ),
        ),
        "hypotheses hold" if movers => (
            "holds",
            format!(
                "no violation is reachable in the original system: the movers check holds and the movers theorem (M) applies ({}){}",
                super::movers::THEOREM,
                if options.deadlock {
                    "; the theorem covers the discipline, assertions, ranges and invariants, not deadlocks (those inside a transaction are not preserved)"
                } else {
                    ""
                }
            ),
        ),
        "hypotheses hold" => (
            "holds",
            format!(
                "no violation is reachable in the original system: the reduced check holds and the reduction theorem (19) applies (proof: {PROOF}, checked by `optimist prove`){}",
                if options.deadlock {
                    "; the theorem covers the discipline, assertions, ranges and invariants, not deadlocks"
                } else {
                    ""
                }
            ),
        ),
        "hypotheses fail"
            if matches!(check.ignoring, Some("cpc" | "cycles"))
                && only_finiteness(&certify.failing_laws()) =>
        {
            (
                "holds",
                format!(
                    "no violation is reachable in the original system, by the theorem of commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005) rather than (19): {} fail (a run of invisible transitions can go on forever) and every other obligation holds, and the reduced check ({}) scheduled every thread wherever such a run could not complete; `optimist prove` checks (19), not that theorem",
                    join(failing(certify, Some(false))),
                    check.ignoring.unwrap_or_default()
                ),
            )
        }
        "hypotheses fail" => (
            "inconclusive",
            format!(
                "nothing follows for the original system: the reduced check holds, but {theorem} does not apply ({} {}); check it with `--reduction none`{}",
                join(failing(certify, Some(false))),
                if failing(certify, Some(false)).len() == 1 {
                    "fails"
                } else {
                    "fail"
                },
                match (certify.level, movers) {
                    ("local", false) => {
                        ", or certify it on the reachable states with `optimist certify --exhaustive`"
                    }
                    ("local", true) => {
                        ", or certify it on the reachable states with `optimist certify --reduction movers --exhaustive`"
                    }
                    _ => "",
                }
            ),
        ),
        _ => (
            "inconclusive",
            format!(
                "nothing follows for the original system yet: the reduced check holds, but {} could not be checked{}",
                join(failing(certify, None)),
                match &certify.limit {
                    Some(l) => format!(" ({l})"),
                    None => "; try `optimist certify --exhaustive`".to_string(),
                }
            ),
        ),
    }
}

impl CertifiedCheck {
    /// Combines a check of a model (run with `options`) with its certificate.
    pub fn new(check: CheckReport, certify: CertifyReport, options: &Options) -> CertifiedCheck {
        let movers = certify.reduction == Some("movers");
        let (verdict, conclusion) = if options.reduction.is_full() {
            (
                check.verdict,
                "the check explored the original system itself, so its verdict needs no certificate".to_string(),
            )
        } else {
            original(&check, &certify, options)
        };
        // Stubborn sets over transactions: the certificate covers the
        // transactions, not the selection among them.
        let conclusion = if verdict == "holds"
            && options.reduction.stubborn()
            && options.reduction.theorem().is_some()
        {
            format!(
                "{conclusion}; the certificate covers the {} transactions only: the stubborn-set selection among them rests on the stubborn-set argument (Godefroid, 1996), which neither certify nor `optimist prove` checks",
                if movers { "mover" } else { "Stoller-Cohen" }
            )
        } else {
            conclusion
        };
        CertifiedCheck {
            verdict,
            conclusion,
            check,
            certify,
        }
    }

    /// The process exit code of the verdict: 0 holds, 1 violated, 3
    /// inconclusive.
    pub fn exit_code(&self) -> u8 {
        match self.verdict {
            "holds" => 0,
            "violated" => 1,
            _ => 3,
        }
    }
}

impl fmt::Display for CertifiedCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.check)?;
        writeln!(f)?;
        writeln!(f, "certificate")?;
        writeln!(f)?;
        write!(f, "{}", self.certify)?;
        writeln!(f)?;
        writeln!(f, "original    {}: {}", self.verdict, self.conclusion)
    }
}
