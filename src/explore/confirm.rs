//! The last check of every reduced run: its counterexample is replayed in
//! the original system, transition by transition, and must reach the
//! violation it reports. A reduction whose search reports a trace that
//! the original system does not have is a bug of optimist; the run then
//! ends without a verdict (exit 3), never with a wrong one.

use super::outcome::{Problem, Violation};
use super::reduced::end_excl;
use super::search::{StepResult, step};
use crate::model::Model;

/// Whether `v`'s trace, replayed from the initial state in the full
/// semantics, reaches `v`'s problem; why not, if it does not.
pub(crate) fn confirm(model: &Model, v: &Violation) -> Result<(), String> {
    let mut s = model.init.clone();
    let mut out = Vec::new();
    // Problems of a state rather than of the transition into it.
    let in_state = matches!(
        v.problem,
        Problem::Deadlock | Problem::InvisibleCycle { .. } | Problem::EndExcl { .. }
    );
    if v.trace.is_empty() && !in_state {
        return match super::initial_problem(model) {
            Some(p) if p == v.problem => Ok(()),
            other => Err(format!(
                "the initial state has {other:?}, not {:?}",
                v.problem
            )),
        };
    }
    let mut last = None;
    for (n, st) in v.trace.iter().enumerate() {
        let tr = model
            .transitions
            .get(st.transition)
            .ok_or_else(|| format!("step {}: no such transition", n + 1))?;
        if tr.from != s[tr.thread as usize] {
            return Err(format!("step {}: its thread is elsewhere", n + 1));
        }
        let end = n + 1 == v.trace.len();
        match step(model, st.transition, &s, &mut out) {
            StepResult::Disabled => return Err(format!("step {}: disabled", n + 1)),
            StepResult::Ok if end && !in_state => {
                return Err(format!("step {}: no violation at the end", n + 1));
            }
            StepResult::Ok => {
                if st.state.as_deref() != Some(out.as_slice()) {
                    return Err(format!("step {}: another state", n + 1));
                }
                last = Some((st.transition, std::mem::replace(&mut s, out.clone())));
            }
            StepResult::Bad(p) if end && !in_state => {
                return if p == v.problem {
                    Ok(())
                } else {
                    Err(format!("the replay ends in {p:?}, not {:?}", v.problem))
                };
            }
            StepResult::Bad(p) => return Err(format!("step {}: {p:?} on the way", n + 1)),
        }
    }
    match &v.problem {
        Problem::Deadlock => {
            let moves = model.threads.iter().enumerate().any(|(t, th)| {
                th.points[s[t] as usize]
                    .transitions
                    .clone()
                    .any(|k| !matches!(step(model, k, &s, &mut out), StepResult::Disabled))
            });
            let ended = (0..model.threads.len()).all(|t| s[t] == model.threads[t].end());
            if moves || ended {
                return Err("the trace ends where a thread can move, or every thread ended".into());
            }
        }
        Problem::EndExcl { .. } => {
            let (k, before) = last.ok_or("a well-formedness violation without a transition")?;
            if end_excl(model, k, &before, &s).as_ref() != Some(&v.problem) {
                return Err("the last transition falsifies no other thread's predicate".into());
            }
        }
        Problem::InvisibleCycle { length, .. } => {
            let start = v
                .trace
                .len()
                .checked_sub(*length)
                .ok_or("a loop longer than its trace")?;
            let entry = match start {
                0 => model.init.clone(),
                _ => v.trace[start - 1]
                    .state
                    .clone()
                    .ok_or("a loop through a failed step")?,
            };
            if entry != s {
                return Err("the loop does not close".into());
            }
        }
        _ => {}
    }
    Ok(())
}
