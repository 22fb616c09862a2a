//! The last check of every reduced run: its counterexample is replayed in
//! the original system, transition by transition, and must reach the
//! violation it reports. A reduction whose search reports a trace that
//! the original system does not have is a bug of optimist; the run then
//! ends without a verdict (exit 3), never with a wrong one.

use super::outcome::{Problem, Violation};
use super::reduced::end_excl;
use super::search::{StepResult, replay_checked, step};
use crate::model::Model;

/// Whether `v`'s trace, replayed from the initial state in the full
/// semantics, reaches `v`'s problem; why not, if it does not.
pub(crate) fn confirm(model: &Model, v: &Violation) -> Result<(), String> {
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
    if v.trace
        .iter()
        .any(|st| st.transition >= model.transitions.len())
    {
        return Err("a step by no transition of the model".into());
    }
    let path: Vec<[u32; 1]> = v.trace.iter().map(|st| [st.transition as u32]).collect();
    let (mut n, mut wrong, mut last) = (0, None, None);
    let s = replay_checked(
        model,
        &model.init,
        path.iter().map(|k| &k[..]),
        &mut |step, before, result| {
            n += 1;
            let end = n == v.trace.len();
            let why = match result {
                _ if wrong.is_some() => return,
                StepResult::Disabled => format!("step {n}: disabled, or its thread is elsewhere"),
                StepResult::Ok if end && !in_state => format!("step {n}: no violation at the end"),
                StepResult::Ok if step.state != v.trace[n - 1].state => {
                    format!("step {n}: another state")
                }
                StepResult::Ok => {
                    last = Some((step.transition, before.to_vec()));
                    return;
                }
                StepResult::Bad(p) if end && !in_state && p == v.problem => return,
                StepResult::Bad(p) if end && !in_state => {
                    format!("the replay ends in {p:?}, not {:?}", v.problem)
                }
                StepResult::Bad(p) => format!("step {n}: {p:?} on the way"),
            };
            wrong = Some(why);
        },
    );
    if let Some(why) = wrong {
        return Err(why);
    }
    if !in_state {
        return Ok(());
    }
    let mut out = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Options, Reduction, check};

    /// The violation full exploration finds in a shipped model whose
    /// assertion fails.
    fn found() -> (Model, Violation) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/racy-counter.gc");
        let (_, m) = crate::load(&path, &Vec::new()).expect("the model loads");
        let options = Options {
            reduction: Reduction::NONE,
            ..Options::default()
        };
        let v = check(&m, &options, &mut |_| {})
            .violation
            .expect("violated");
        (m, v)
    }

    #[test]
    fn a_trace_the_search_found_is_confirmed() {
        let (m, v) = found();
        assert_eq!(confirm(&m, &v), Ok(()));
    }

    #[test]
    fn a_trace_that_differs_from_the_semantics_is_not_confirmed() {
        let (m, v) = found();
        let mut short = v.clone();
        short.trace.pop();
        assert!(
            confirm(&m, &short).is_err(),
            "a step short of the violation"
        );
        let mut elsewhere = v.clone();
        elsewhere.trace[0].state.as_mut().expect("a state")[0] += 1;
        assert!(
            confirm(&m, &elsewhere).is_err(),
            "another state after a step"
        );
        let mut other = v.clone();
        other.problem = Problem::Deadlock;
        assert!(confirm(&m, &other).is_err(), "another problem at the end");
        let mut swapped = v;
        let last = swapped.trace.len() - 1;
        swapped.trace.swap(0, last);
        assert!(confirm(&m, &swapped).is_err(), "steps out of order");
    }
}
