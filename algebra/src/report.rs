//! The result of checking a script: per step, per lemma, and overall, as
//! text (one line per step) or JSON.

use crate::trusted::Pinned;
use std::fmt::Write as _;

use serde::Serialize;

/// Whether everything was proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every step of every lemma was justified.
    Proved,
    /// Some step was not.
    Failed,
}

/// Why a step was not justified.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepFailure {
    /// What went wrong.
    pub reason: String,
    /// A relational model of the cited facts in which the step is false, if one was found.
    pub counter_model: Option<String>,
}

/// One step of a chain (or the single step of a `by` proof).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepReport {
    /// 1-based position in its chain.
    pub number: usize,
    /// `i = j` or `i != j` inside a case split.
    pub case: Option<String>,
    /// Source line.
    pub line: usize,
    /// The step, `lhs rel rhs`.
    pub goal: String,
    /// Whether it was justified.
    pub status: Status,
    /// How it was shown.
    pub how: String,
    /// The hints, as cited (dropped hypotheses marked).
    pub hints: Vec<String>,
    /// Why not, if not.
    pub failure: Option<StepFailure>,
}

/// One lemma.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LemmaReport {
    /// Its label.
    pub label: String,
    /// Its statement.
    pub statement: String,
    /// Source line.
    pub line: usize,
    /// Whether its own proof checked.
    pub status: Status,
    /// Problems with the proof as a whole (chain ends, case split).
    pub errors: Vec<String>,
    /// Its steps.
    pub steps: Vec<StepReport>,
    /// Hypotheses it rests on, directly or through lemmas.
    pub hypotheses: Vec<String>,
    /// Failed lemmas it cites, directly or indirectly.
    pub depends_on_failed: Vec<String>,
    /// Lemmas it cites, directly or indirectly, in script order.
    pub uses: Vec<String>,
}

/// A failed step, in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailedStep {
    /// The lemma.
    pub lemma: String,
    /// Which step (`step 3`, `case i != j, step 2`, or `chain`).
    pub step: String,
    /// Source line.
    pub line: usize,
    /// The step's formula.
    pub goal: String,
    /// The hints tried.
    pub hints: Vec<String>,
    /// Why it failed.
    pub reason: String,
    /// A counter-model, if found.
    pub counter_model: Option<String>,
}

/// The result of checking a script.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The script.
    pub file: String,
    /// Overall verdict.
    pub status: Status,
    /// Number of steps checked.
    pub steps: usize,
    /// Statements used without a valid proof beyond the axioms and the hypotheses.
    pub trusted: Vec<String>,
    /// Everything assumed: the axioms, then the hypotheses used.
    pub assumptions: Vec<String>,
    /// Definitions used (conservative: they name terms).
    pub definitions: Vec<String>,
    /// Hypotheses removed with `--drop`.
    pub dropped: Vec<String>,
    /// Steps that were not justified.
    pub failed: Vec<FailedStep>,
    /// Wall-clock time of the check.
    pub elapsed_ms: u128,
    /// Equality saturations run.
    pub saturations: usize,
    /// Per lemma detail.
    pub lemmas: Vec<LemmaReport>,
    /// When the script's theory is the paper's and one hypothesis is
    /// dropped: whether (19) is known to fail without it.
    pub without: Option<Without>,
    /// The pinned theorem the script is about: the one whose theory it
    /// declares (the paper's (19) when it declares neither).
    #[serde(serialize_with = "pinned_name")]
    pub theorem: crate::trusted::Pinned,
    /// Whether the theory the run assumed is exactly the paper's
    /// (declarations, definitions (3)-(9) and hypotheses (11)-(18), compared
    /// with `trusted/paper.rs`; nothing dropped).
    pub paper_theory: bool,
    /// Whether the core closed (19) exactly as the paper states it, in
    /// exactly the paper's theory (compared with `trusted/paper.rs`).
    pub paper_claim: bool,
    /// What keeps the run from being the paper's (19) in the paper's theory
    /// (`hypotheses dropped: (16)`, `the theory differs: hypothesis (14) is
    /// ...`, `the script does not prove (19)`), when something does.
    pub paper_difference: Option<String>,
}

/// What is known about a pinned theorem ((19) or (M)) without one of its
/// hypotheses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Without {
    /// The theorem whose theory the script declares (not in the JSON,
    /// which has it at the top level).
    #[serde(skip)]
    pub theorem: Pinned,
    /// The dropped hypothesis.
    pub hypothesis: String,
    /// A model where every other hypothesis holds and the theorem fails, if
    /// known.
    pub counter_model: Option<crate::necessity::AnyModel>,
    /// The pair in the theorem's left side (`p (u + v)* q`, `p s* q`) and
    /// not in `N* R`, as found by the evaluators of `necessity/`, which
    /// share no code with the refuter.
    pub violation: Option<crate::necessity::Violation>,
    /// Why the recorded model does not check (never expected).
    pub check_error: Option<String>,
    /// How the counter-model was found (or that none is known).
    pub found: Option<String>,
    /// Why the theorem holds without the hypothesis, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redundant: Option<String>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl Report {
    /// Exit code for a command line: 0 proved, and it is the paper's (19) in
    /// the paper's theory; 1 a step failed; 3 proved, but not the paper's
    /// (19) in the paper's theory, so inconclusive about the theorem the
    /// model checker relies on.
    pub fn exit_code(&self) -> u8 {
        match (self.status, self.paper_claim) {
            (Status::Proved, true) => 0,
            (Status::Proved, false) => 3,
            (Status::Failed, _) => 1,
        }
    }

    /// The verdict, as the summary line starts: `proved`, `FAILED`, or, for
    /// a proof of something else than the paper's (19) in the paper's
    /// theory, `proved, but not the paper's theorem (19)`.
    pub fn verdict(&self) -> &'static str {
        match (self.status, self.paper_claim) {
            (Status::Proved, true) => "proved",
            (Status::Proved, false) => match self.theorem {
                Pinned::Reduction => "proved, but not the paper's theorem (19)",
                Pinned::Movers => "proved, but not the movers theorem (M)",
            },
            (Status::Failed, _) => "FAILED",
        }
    }

    /// The report as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The report as text: one line per step, then a summary.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "checking {} ({} lemmas)", self.file, self.lemmas.len());
        if !self.dropped.is_empty() {
            let _ = writeln!(s, "dropped hypotheses: {}", self.dropped.join(", "));
        }
        for l in &self.lemmas {
            for e in &l.errors {
                let _ = writeln!(s, "FAIL {}:{}: lemma {}: {e}", self.file, l.line, l.label);
            }
            for st in &l.steps {
                let case = st
                    .case
                    .as_ref()
                    .map(|c| format!(" case {c},"))
                    .unwrap_or_default();
                let hints = if st.hints.is_empty() {
                    "axioms only".to_string()
                } else {
                    st.hints.join("; ")
                };
                match (&st.status, &st.failure) {
                    (Status::Proved, _) => {
                        let _ = writeln!(
                            s,
                            "ok   {}:{}: {}{case} step {}: {} {{ {hints} }}",
                            self.file, st.line, l.label, st.number, st.how
                        );
                    }
                    (Status::Failed, f) => {
                        let reason = f.as_ref().map(|f| f.reason.as_str()).unwrap_or("not shown");
                        let _ = writeln!(
                            s,
                            "FAIL {}:{}: {}{case} step {}: {} {{ {hints} }}",
                            self.file, st.line, l.label, st.number, reason
                        );
                        let _ = writeln!(s, "       goal: {}", st.goal);
                        if let Some(cm) = f.as_ref().and_then(|f| f.counter_model.as_ref()) {
                            let _ = writeln!(s, "       counter-model: {cm}");
                        }
                    }
                }
            }
            if !l.depends_on_failed.is_empty() {
                let _ = writeln!(
                    s,
                    "note {}:{}: {} cites failed {}",
                    self.file,
                    l.line,
                    l.label,
                    l.depends_on_failed.join(", ")
                );
            }
        }
        let _ = writeln!(
            s,
            "{}: {} steps in {} lemmas, {} failed; {} saturations",
            self.verdict(),
            self.steps,
            self.lemmas.len(),
            self.failed.len(),
            self.saturations
        );
        let trusted = if self.trusted.is_empty() {
            "none".to_string()
        } else {
            self.trusted.join(", ")
        };
        if let Some(w) = &self.without {
            let _ = write!(s, "{}", w.to_text());
        }
        let (claimed, theory) = match self.theorem {
            Pinned::Reduction => (
                "the paper's (19)",
                "the paper's theory (definitions (3)-(9), hypotheses (11)-(18))",
            ),
            Pinned::Movers => (
                "the movers theorem (M)",
                "its pinned theory (definitions (u), (rm), (v), (s), (Rm), (3)-(9), hypotheses (R), (A2)-(A5r), (Q), (11), (17), (18))",
            ),
        };
        if self.paper_claim {
            let _ = writeln!(
                s,
                "claim: {claimed}, in {theory}, closed by the trusted core"
            );
        } else if let Some(d) = &self.paper_difference {
            let _ = match self.theorem {
                Pinned::Reduction => writeln!(s, "claim: NOT the paper's theorem (19): {d}"),
                Pinned::Movers => writeln!(s, "claim: NOT the movers theorem (M): {d}"),
            };
        }
        let _ = writeln!(s, "trusted: {trusted}");
        let _ = writeln!(s, "assumptions: {}", self.assumptions.join(", "));
        if !self.definitions.is_empty() {
            let _ = writeln!(s, "definitions: {}", self.definitions.join(", "));
        }
        let _ = writeln!(s, "time: {} ms", self.elapsed_ms);
        s
    }
}

impl Without {
    /// Lines for the text report.
    pub fn to_text(&self) -> String {
        let h = &self.hypothesis;
        let (claim, lhs) = match self.theorem {
            Pinned::Reduction => ("(19)", "p (u + v)* q"),
            Pinned::Movers => ("(M)", "p s* q"),
        };
        if let Some(why) = &self.redundant {
            return format!(
                "{claim} without {h} still holds: {h} is redundant given the other hypotheses: {why}\n"
            );
        }
        match (&self.counter_model, &self.violation, &self.check_error) {
            (Some(m), Some(v), _) => format!(
                "{claim} without {h} is false: in this model every other hypothesis holds and {claim} fails (checked by an evaluator independent of the refuter):\n  {m}\n  {lhs} relates {} to {}, N* R does not\n  found: {}\n",
                v.pair.0,
                v.pair.1,
                self.found.as_deref().unwrap_or("search"),
            ),
            (Some(m), _, Some(e)) => {
                format!("{claim} without {h}: the recorded model {m} does not check: {e}\n")
            }
            _ => format!("{claim} without {h}: no counter-model known\n"),
        }
    }
}

/// The pinned theorem's name in JSON: `reduction` or `movers`.
fn pinned_name<S: serde::Serializer>(p: &Pinned, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match p {
        Pinned::Reduction => "reduction",
        Pinned::Movers => "movers",
    })
}
