//! The report of `optimist refine`.

use std::fmt;

use indexmap::IndexMap;
use serde::Serialize;

use super::{State, held};
use crate::CheckReport;
use crate::explore::AccessEvent;
use crate::model::Model;
use crate::report::Statement;

/// Everything refine reports; serialises to its JSON schema and displays
/// as the text report.
#[derive(Clone, Debug, Serialize)]
pub struct RefineReport {
    /// The model's name.
    pub model: String,
    /// The file it was read from.
    pub file: String,
    /// Where the first guesses came from: `annotated` or `locks`.
    pub guess: &'static str,
    /// The verdict of a plain reduced check of the final guesses.
    pub verdict: &'static str,
    /// Why the loop stopped.
    pub stopped: String,
    /// Final guesses of the protected variables, in the language's syntax
    /// (`by m`, `excl(t) = ...`), by variable or, where elements differ, by element.
    pub protected: IndexMap<String, String>,
    /// Variables (or elements) that end unprotected.
    pub unprotected: Vec<String>,
    /// Why each of them is unprotected, in words, by the same keys.
    pub unprotected_why: IndexMap<String, String>,
    /// One entry per iteration.
    pub iterations: Vec<Iteration>,
    /// Variables that started protected and ended unprotected because two
    /// threads access them with no lock in common.
    pub racy: Vec<Racy>,
    /// States explored over all runs.
    pub explored_states: u64,
    /// The plain check of the final guesses.
    pub check: CheckReport,
    /// The model with the final guesses, as `--write` writes it.
    #[serde(skip)]
    pub text: String,
}

/// One iteration of the loop.
#[derive(Clone, Debug, Serialize)]
pub struct Iteration {
    /// 1-based; 0 is the lockset pass of `--guess locks`.
    pub iteration: usize,
    /// What changed (`x: by m1 -> unprotected`).
    pub changed: String,
    /// Why: the access that refuted the guess, and the counterexample's length.
    pub reason: String,
    /// Reduced states explored by this iteration's check.
    pub states: u64,
}

/// A racy variable and a pair of accesses with no lock in common.
#[derive(Clone, Debug, Serialize)]
pub struct Racy {
    /// The variable (or element).
    pub variable: String,
    /// The two accesses.
    pub accesses: [Access; 2],
}

/// An access to a variable, as shown in reports.
#[derive(Clone, Debug, Serialize)]
pub struct Access {
    /// The thread.
    pub thread: String,
    /// Its statement: `label`, `line` and `statement`.
    #[serde(flatten)]
    pub at: Statement,
    /// A write (else a read).
    pub write: bool,
    /// The locks held.
    pub held: Vec<String>,
}

impl Access {
    pub(super) fn new(model: &Model, a: &AccessEvent) -> Access {
        let tr = &model.transitions[a.transition as usize];
        Access {
            thread: model.threads[tr.thread as usize].name.clone(),
            at: Statement::of(model, tr),
            write: a.write,
            held: held(model, a).into_iter().collect(),
        }
    }
}

impl Access {
    /// "T0 writes x at E (line 19) holding no lock"; `var` names the variable.
    pub fn text(&self, var: Option<&str>) -> String {
        let verb = if self.write { "writes" } else { "reads" };
        let var = var.map_or(String::new(), |v| format!(" {v}"));
        let at = self
            .at
            .label
            .as_ref()
            .map_or(format!("line {}", self.at.line), |l| {
                format!("{l} (line {})", self.at.line)
            });
        let holding = if self.held.is_empty() {
            "no lock".to_string()
        } else {
            self.held.join(", ")
        };
        format!("{} {verb}{var} at {at} holding {holding}", self.thread)
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(None))
    }
}

/// Why element `e` ends unprotected: a lock guess refuted (it `started`
/// protected), the model's own declaration, or what keeps a variable from
/// being a candidate of `--guess locks`.
fn why_unprotected(st: &State, started: bool, e: usize) -> String {
    let model = &st.model0;
    let slot = st.elements[e].slot;
    let reads = |expr: &crate::model::CExpr| {
        let mut hit = false;
        expr.for_each_slot(&mut |s| hit |= s == slot);
        hit
    };
    let why = if started {
        "no lock is held at all its accesses"
    } else if st.mode == super::GuessFrom::Annotated {
        "the model declares it shared"
    } else if model
        .transitions
        .iter()
        .any(|t| t.guard.as_ref().is_some_and(reads))
    {
        "a guard reads it, so it synchronises threads"
    } else if model.invariants.iter().any(|i| reads(&i.expr)) {
        "an invariant reads it, so its writes are visible whatever protects it"
    } else {
        "the model has no lock to protect it"
    };
    why.to_string()
}

/// Assembles the report from the final state of the loop.
pub(super) fn build(
    st: &State,
    started: &[bool],
    check: CheckReport,
    iterations: Vec<Iteration>,
    stopped: String,
) -> RefineReport {
    let model = &st.model0;
    let mut protected = IndexMap::new();
    let mut unprotected = Vec::new();
    let mut unprotected_why = IndexMap::new();
    let mut vars: Vec<&str> = st.elements.iter().map(|e| e.var.as_str()).collect();
    vars.dedup();
    for var in vars {
        let mine: Vec<usize> = (0..st.elements.len())
            .filter(|&e| st.elements[e].var == var)
            .collect();
        let uniform = mine.iter().all(|&e| st.guesses[e] == st.guesses[mine[0]]);
        let keys: Vec<(String, usize)> = if uniform {
            vec![(var.to_string(), mine[0])]
        } else {
            mine.iter()
                .map(|&e| (st.elements[e].name.clone(), e))
                .collect()
        };
        for (key, e) in keys {
            if st.guesses[e] == super::Guess::Unprotected {
                unprotected_why.insert(key.clone(), why_unprotected(st, started[e], e));
                unprotected.push(key);
            } else {
                protected.insert(key, st.describe(e));
            }
        }
    }
    let mut racy = Vec::new();
    for (e, el) in st.elements.iter().enumerate() {
        if !started[e] || st.guesses[e] != super::Guess::Unprotected {
            continue;
        }
        let mine: Vec<&AccessEvent> = st
            .accesses
            .iter()
            .filter(|a| a.slot == el.slot && !a.init)
            .collect();
        let pair = mine.iter().enumerate().find_map(|(i, a)| {
            mine[i + 1..]
                .iter()
                .find(|b| {
                    b.thread != a.thread
                        && (a.write || b.write)
                        && a.held.iter().all(|l| !b.held.contains(l))
                })
                .map(|b| (*a, *b))
        });
        if let Some((a, b)) = pair {
            racy.push(Racy {
                variable: el.name.clone(),
                accesses: [Access::new(model, a), Access::new(model, b)],
            });
        }
    }
    RefineReport {
        model: model.name.clone(),
        file: st.src.name.clone(),
        guess: match st.mode {
            super::GuessFrom::Annotated => "annotated",
            super::GuessFrom::Locks => "locks",
        },
        verdict: check.verdict,
        stopped,
        protected,
        unprotected,
        unprotected_why,
        iterations,
        racy,
        explored_states: st.explored,
        check,
        text: st.text(),
    }
}

impl RefineReport {
    /// The process exit code: the final check's.
    pub fn exit_code(&self) -> u8 {
        self.check.exit_code()
    }
}

impl fmt::Display for RefineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "refine       {} ({}), guesses from {}",
            self.model, self.file, self.guess
        )?;
        writeln!(f)?;
        let mut rows = vec![vec![
            "#".to_string(),
            "changed".into(),
            "reason".into(),
            "states".into(),
        ]];
        for it in &self.iterations {
            rows.push(vec![
                it.iteration.to_string(),
                it.changed.clone(),
                it.reason.clone(),
                it.states.to_string(),
            ]);
        }
        if self.iterations.is_empty() {
            writeln!(f, " (no guess needed revising)")?;
        } else {
            crate::report::table(f, &rows, &[0, 3])?;
        }
        writeln!(f)?;
        writeln!(f, "stopped      {}", self.stopped)?;
        writeln!(
            f,
            "verdict      {} (plain reduced check of the final guesses: {} states)",
            self.verdict, self.check.states
        )?;
        let mut first = true;
        for (k, v) in &self.protected {
            writeln!(
                f,
                "{}{k}: {v}",
                if first {
                    "protected    "
                } else {
                    "             "
                }
            )?;
            first = false;
        }
        if !self.unprotected.is_empty() {
            let each: Vec<String> = self
                .unprotected
                .iter()
                .map(|k| match self.unprotected_why.get(k) {
                    Some(why) => format!("{k} ({why})"),
                    None => k.clone(),
                })
                .collect();
            writeln!(f, "unprotected  {}", each.join("; "))?;
        }
        for r in &self.racy {
            writeln!(
                f,
                "racy         {}: {}; {}",
                r.variable, r.accesses[0], r.accesses[1]
            )?;
        }
        writeln!(
            f,
            "explored     {} states over all runs",
            self.explored_states
        )?;
        if let Some(v) = &self.check.violation {
            writeln!(f)?;
            writeln!(f, "The final check is violated ({}): {}", v.kind, v.message)?;
            writeln!(
                f,
                "For its trace, write the final guesses (`-o OUT`) and run `optimist check OUT`."
            )?;
        }
        Ok(())
    }
}
