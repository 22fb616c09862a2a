//! Stepping through a model one choice at a time: the transitions enabled
//! in a state, seeded random walks (`optimist simulate`), and matching a
//! saved counterexample against a model transition by transition
//! (`optimist replay`, the explorer's `load`).

use super::budget::Budget;
use super::outcome::{Problem, Step, Violation};
use super::search::{Expand, Found, StepResult, Stop, Watch, check_state, fire_checked, replay};
use super::{Ignoring, Reduction, reduced};
use crate::model::{Fault, Model};

/// A small seeded pseudo-random generator (SplitMix64): the same seed gives
/// the same walk on every machine, and no clock is read.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), without modulo bias worth noticing for
    /// the few choices a state offers.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// What happens when a transition is taken from a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Its guard is false.
    Disabled,
    /// It completes; the state after it.
    Ok(Vec<i64>),
    /// It goes wrong: the problem, and the state after it when it completed
    /// (a discipline violation or two owners), `None` when it aborted.
    Bad(Problem, Option<Vec<i64>>),
}

/// Takes transition `k` from `s` with every check of the semantics.
pub fn effect(model: &Model, k: usize, s: &[i64]) -> Effect {
    let mut out = Vec::new();
    match fire_checked(model, k, s, &mut out, &mut Watch::default()) {
        (_, StepResult::Disabled) => Effect::Disabled,
        (_, StepResult::Ok) => Effect::Ok(out),
        // The trace shows the state after a step that completed (a
        // discipline violation, two owners), as `check`'s replay does.
        (done, StepResult::Bad(p)) => Effect::Bad(p, done.then_some(out)),
    }
}

/// Every transition at each thread's current control point, in model
/// order, with its effect from `s` (disabled ones included).
pub fn choices(model: &Model, s: &[i64]) -> Vec<(usize, Effect)> {
    (0..model.threads.len())
        .flat_map(|t| {
            model.threads[t].points[s[t] as usize]
                .transitions
                .clone()
                .map(move |k| (k, effect(model, k, s)))
        })
        .collect()
}

/// Why a random walk ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// A violation; see [`Walk::violation`].
    Violation,
    /// No thread can move and some thread has not ended.
    Deadlock,
    /// Every thread has ended.
    Ended,
    /// The walk took the number of steps it was allowed.
    StepLimit(usize),
    /// A call deeper than the stack bound: nothing can be concluded.
    StackBound(u32),
}

/// A random walk from the initial state.
#[derive(Clone, Debug)]
pub struct Walk {
    /// The transitions taken, with the state after each.
    pub trace: Vec<Step>,
    /// Steps taken: transitions under full exploration (`none`), reduced
    /// steps under `sc`.
    pub steps: usize,
    /// Why it ended.
    pub end: WalkEnd,
    /// The violation, when it ended in one (its trace is [`Walk::trace`]).
    pub violation: Option<Violation>,
}

/// Walks at random from the initial state, at most `max_steps` steps,
/// choosing uniformly among the enabled transitions (full exploration) or
/// among the reduced steps (`sc`, the successors `check` would
/// store; since a reduced step is explored depth first, a violation
/// anywhere inside the reduced steps from the current state ends the walk,
/// as it ends `check`). The same `seed` gives the same walk.
pub fn simulate(model: &Model, reduction: Reduction, seed: u64, max_steps: usize) -> Walk {
    let mut rng = SplitMix::new(seed);
    let finish = |segments: &[Vec<u32>], steps, end, problem: Option<(Problem, bool)>| {
        let trace = replay(model, segments);
        let violation = problem.map(|(problem, initial)| Violation {
            problem,
            initial,
            trace: trace.clone(),
        });
        Walk {
            trace,
            steps,
            end,
            violation,
        }
    };
    if let Some(p) = initial_problem(model) {
        return finish(&[], 0, WalkEnd::Violation, Some((p, true)));
    }
    // Classification is the costly part of a small model: only a reduced
    // walk needs it.
    let class = (!reduction.is_full()).then(|| crate::classify::classify(model));
    let mut red = class
        .as_ref()
        .map(|class| reduced::Reduced::new(model, class, Ignoring::Cpc));
    let mut s = model.init.clone();
    let mut segments: Vec<Vec<u32>> = Vec::new();
    loop {
        if segments.len() >= max_steps {
            return finish(
                &segments,
                segments.len(),
                WalkEnd::StepLimit(max_steps),
                None,
            );
        }
        // The successors, each with the transitions that reach it.
        let mut next: Vec<(Vec<i64>, Vec<u32>)> = Vec::new();
        let bad: Option<Found> = match &mut red {
            None => {
                let enabled: Vec<(usize, Effect)> = choices(model, &s)
                    .into_iter()
                    .filter(|(_, e)| *e != Effect::Disabled)
                    .collect();
                if enabled.is_empty() {
                    None
                } else {
                    let (k, e) = &enabled[rng.below(enabled.len())];
                    match e {
                        Effect::Ok(after) => {
                            next.push((after.clone(), vec![*k as u32]));
                            None
                        }
                        Effect::Bad(p, _) => Some(Found {
                            problem: p.clone(),
                            path: vec![*k as u32],
                        }),
                        Effect::Disabled => unreachable!("filtered"),
                    }
                }
            }
            Some(red) => {
                let r = red.expand(&s, &mut Budget::unlimited(), &mut |succ, path, _| {
                    next.push((succ.to_vec(), path.to_vec()));
                    Ok(())
                });
                match r {
                    Err(Stop::Found(f)) => Some(f),
                    _ => None,
                }
            }
        };
        if let Some(found) = bad {
            segments.push(found.path);
            let n = segments.len();
            if let Problem::Fault(Fault::StackBound { bound }) = found.problem {
                return finish(&segments, n, WalkEnd::StackBound(bound), None);
            }
            return finish(
                &segments,
                n,
                WalkEnd::Violation,
                Some((found.problem, false)),
            );
        }
        if next.is_empty() {
            let n = segments.len();
            let end = if model.all_ended(&s) {
                WalkEnd::Ended
            } else {
                WalkEnd::Deadlock
            };
            return finish(&segments, n, end, None);
        }
        // Unreduced, the one successor was drawn above, among the enabled
        // transitions (some of which may go wrong).
        let pick = if red.is_some() {
            rng.below(next.len())
        } else {
            0
        };
        let (succ, path) = next.swap_remove(pick);
        segments.push(path);
        s = succ;
    }
}

/// How a saved step failed to match the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// No thread of that name.
    NoThread,
    /// No transition at the thread's current point has that statement.
    NoStatement,
    /// Transitions with that statement exist, but none is enabled.
    Disabled,
    /// An enabled transition has that statement, but the state after it
    /// differs: `(variable, expected, found)` for each difference, of the
    /// transition whose state is closest.
    State(Vec<(String, String, String)>),
}

/// One step of a saved trace: its thread, its statement and, when the step
/// completed, the state after it (as JSON; a saved state may name only
/// some variables).
pub type SavedStep<'a> = (
    &'a str,
    &'a str,
    Option<&'a serde_json::Map<String, serde_json::Value>>,
);

/// Finds the transition of thread `thread` at its point in `s` whose
/// statement is `statement` and whose state after it (`expected`, as JSON,
/// when the step completed) agrees on every variable `expected` names.
/// Returns the transition and its effect: the first that matches.
pub fn match_step(
    model: &Model,
    s: &[i64],
    thread: &str,
    statement: &str,
    expected: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<(usize, Effect), Mismatch> {
    let mut all = candidates(model, s, (thread, statement, expected))?;
    Ok(all.swap_remove(0))
}

/// Every transition that matches saved step `step` in `s` (see
/// [`match_step`]), in the model's order; never empty.
fn candidates(model: &Model, s: &[i64], step: SavedStep) -> Result<Vec<(usize, Effect)>, Mismatch> {
    let (thread, statement, expected) = step;
    let t = model
        .threads
        .iter()
        .position(|th| th.name == thread)
        .ok_or(Mismatch::NoThread)?;
    let same: Vec<usize> = model.threads[t].points[s[t] as usize]
        .transitions
        .clone()
        .filter(|&k| model.transitions[k].text == statement)
        .collect();
    if same.is_empty() {
        return Err(Mismatch::NoStatement);
    }
    let mut best: Option<Vec<(String, String, String)>> = None;
    let mut any_enabled = false;
    let mut found = Vec::new();
    for k in same {
        let e = effect(model, k, s);
        let after = match &e {
            Effect::Disabled => continue,
            Effect::Ok(a) => Some(a),
            Effect::Bad(_, a) => a.as_ref(),
        };
        any_enabled = true;
        let diffs = match (expected, after) {
            (None, None) => Vec::new(),
            (Some(exp), Some(a)) => differences(model, exp, a),
            (Some(_), None) => vec![(
                "(state)".into(),
                "the step completes".into(),
                "it does not complete".into(),
            )],
            (None, Some(_)) => vec![(
                "(state)".into(),
                "the step does not complete".into(),
                "it completes".into(),
            )],
        };
        if diffs.is_empty() {
            found.push((k, e));
        } else if best.as_ref().is_none_or(|b| diffs.len() < b.len()) {
            best = Some(diffs);
        }
    }
    match best {
        _ if !found.is_empty() => Ok(found),
        Some(d) if any_enabled => Err(Mismatch::State(d)),
        _ => Err(Mismatch::Disabled),
    }
}

/// The transitions of a saved trace that matches the model to its end,
/// from the initial state: where several transitions match a step (two
/// branches of an `either` that begin with the same statement on one line
/// look alike in a saved trace), each is tried until the rest of the trace
/// matches too. A step that goes wrong ends the trace. `None` where no
/// choice matches to the end: matching step by step ([`match_step`]) then
/// shows where the trace diverges.
pub fn match_path(model: &Model, saved: &[SavedStep]) -> Option<Vec<usize>> {
    let mut path = Vec::new();
    let mut failed = std::collections::HashSet::new();
    follow(model, &model.init, saved, &mut path, &mut failed).then_some(path)
}

/// [`match_path`] from state `s` at saved step `path.len()`; `failed`
/// keeps the (step, state) pairs that lead nowhere, so that each is tried
/// once.
fn follow(
    model: &Model,
    s: &[i64],
    saved: &[SavedStep],
    path: &mut Vec<usize>,
    failed: &mut std::collections::HashSet<(usize, Vec<i64>)>,
) -> bool {
    let n = path.len();
    if n == saved.len() {
        return true;
    }
    if failed.contains(&(n, s.to_vec())) {
        return false;
    }
    for (k, e) in candidates(model, s, saved[n]).unwrap_or_default() {
        path.push(k);
        let rest = match &e {
            Effect::Ok(after) => follow(model, after, saved, path, failed),
            _ => n + 1 == saved.len(),
        };
        if rest {
            return true;
        }
        path.pop();
    }
    failed.insert((n, s.to_vec()));
    false
}

/// The variables of `expected` whose value differs in `found` (or that
/// `found` lacks): `(name, expected, found)`.
fn differences(
    model: &Model,
    expected: &serde_json::Map<String, serde_json::Value>,
    found: &[i64],
) -> Vec<(String, String, String)> {
    let found = crate::report::json_state(model, found);
    let show = |v: &serde_json::Value| v.as_str().map_or(v.to_string(), str::to_string);
    expected
        .iter()
        .filter_map(|(k, v)| match found.get(k) {
            Some(f) if f == v => None,
            Some(f) => Some((k.clone(), show(v), show(f))),
            None => Some((k.clone(), show(v), "(no such variable)".into())),
        })
        .collect()
}

/// What is wrong with the initial state itself, if anything.
pub fn initial_problem(model: &Model) -> Option<Problem> {
    check_state(model, &model.init)
}
