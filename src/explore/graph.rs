//! The state graph of a small model, for pictures: every reachable state of
//! the full system with every transition between them, and, for a reduced
//! search, which of those states it stores and which runs of transitions
//! are its steps.

use indexmap::IndexMap;

use super::budget::Budget;
use super::search::{Expand, Limits, StepResult, Stop, step};
use super::{Ignoring, Problem, Reduction};
use crate::model::Model;

/// A transition of the full system between two states of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphEdge {
    /// The state it leaves (an index into [`StateGraph::states`]).
    pub from: usize,
    /// The state it reaches.
    pub to: usize,
    /// The transition (an index into `Model::transitions`).
    pub transition: usize,
}

/// A transition that breaks the semantics: where it starts, and what breaks.
#[derive(Clone, Debug)]
pub struct GraphViolation {
    /// The state it leaves.
    pub from: usize,
    /// The transition.
    pub transition: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// A step of the reduced search, drawn over the full graph: the original
/// transitions it fires, as edges of the full graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReducedStep {
    /// The stored state it leaves.
    pub from: usize,
    /// The stored state it reaches.
    pub to: usize,
    /// The full graph's edges it follows, in order (indices into
    /// [`StateGraph::edges`]).
    pub edges: Vec<usize>,
}

/// The reduced search over the full graph.
#[derive(Clone, Debug)]
pub struct Overlay {
    /// Which reduction.
    pub reduction: Reduction,
    /// Per state of the full graph: whether the reduced search stores it.
    pub stored: Vec<bool>,
    /// Its steps.
    pub steps: Vec<ReducedStep>,
    /// True when the reduced search met a violation and stopped there.
    pub stopped: bool,
}

/// Every reachable state of a small model and every transition between
/// them, in breadth-first order from the initial state (state 0).
#[derive(Clone, Debug)]
pub struct StateGraph {
    /// The states.
    pub states: Vec<Vec<i64>>,
    /// Per state: the state it was first reached from (none for the
    /// initial state), for showing what changed.
    pub parent: Vec<Option<usize>>,
    /// The transitions, by state and then in the model's order.
    pub edges: Vec<GraphEdge>,
    /// The transitions that break the semantics (they reach no state).
    pub violations: Vec<GraphViolation>,
    /// The reduced search, when one was asked for.
    pub overlay: Option<Overlay>,
}

/// Why there is no graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphTooLarge {
    /// The full system has more than this many states.
    States(usize),
}

/// The state graph of `model`, with the steps of `reduction` drawn over it
/// (none for full exploration). Refuses above `max_states` states.
pub fn state_graph(
    model: &Model,
    reduction: Reduction,
    ignoring: Ignoring,
    max_states: usize,
) -> Result<StateGraph, GraphTooLarge> {
    let mut index: IndexMap<Vec<i64>, ()> = IndexMap::new();
    index.insert(model.init.clone(), ());
    let mut parent = vec![None];
    let (mut edges, mut violations) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    let mut next = 0;
    while next < index.len() {
        let s = index.get_index(next).expect("in range").0.clone();
        for (t, thread) in model.threads.iter().enumerate() {
            for k in thread.points[s[t] as usize].transitions.clone() {
                match step(model, k, &s, &mut out) {
                    StepResult::Disabled => {}
                    StepResult::Ok => {
                        let (to, new) = index.insert_full(out.clone(), ());
                        if new.is_none() {
                            if index.len() > max_states {
                                return Err(GraphTooLarge::States(max_states));
                            }
                            parent.push(Some(next));
                        }
                        edges.push(GraphEdge {
                            from: next,
                            to,
                            transition: k,
                        });
                    }
                    StepResult::Bad(problem) => violations.push(GraphViolation {
                        from: next,
                        transition: k,
                        problem,
                    }),
                }
            }
        }
        next += 1;
    }
    let states: Vec<Vec<i64>> = index.into_keys().collect();
    let mut graph = StateGraph {
        states,
        parent,
        edges,
        violations,
        overlay: None,
    };
    if !reduction.is_full() {
        graph.overlay = Some(overlay(model, reduction, ignoring, &graph));
    }
    Ok(graph)
}

/// Runs the reduced search over the states of `graph`.
fn overlay(model: &Model, reduction: Reduction, ignoring: Ignoring, graph: &StateGraph) -> Overlay {
    let options = super::Options {
        reduction,
        ignoring,
        ..super::Options::default()
    };
    super::contract::mode(model, &options).overlay(graph, reduction)
}

/// Breadth-first search with `exp`, recording its stored states and steps
/// as states and edges of `graph`.
pub(super) fn walk<E: Expand>(exp: &mut E, reduction: Reduction, graph: &StateGraph) -> Overlay {
    let find: IndexMap<&[i64], usize> = graph
        .states
        .iter()
        .enumerate()
        .map(|(k, s)| (s.as_slice(), k))
        .collect();
    // The full graph's edge by (state, transition).
    let by: IndexMap<(usize, usize), usize> = graph
        .edges
        .iter()
        .enumerate()
        .map(|(e, edge)| ((edge.from, edge.transition), e))
        .collect();
    let mut stored = vec![false; graph.states.len()];
    stored[0] = true;
    let mut queue = vec![0];
    let mut steps = Vec::new();
    let mut stopped = false;
    let mut budget = Budget::new(&Limits::default());
    let mut head = 0;
    while head < queue.len() {
        let from = queue[head];
        head += 1;
        let mut found = Vec::new();
        let result = exp.expand(&graph.states[from], &mut budget, &mut |succ, path, _| {
            found.push((succ.to_vec(), path.to_vec()));
            Ok(())
        });
        if let Err(Stop::Found(_) | Stop::Halt) = result {
            stopped = true;
        }
        for (succ, path) in found {
            let Some(&to) = find.get(succ.as_slice()) else {
                continue;
            };
            let mut at = from;
            let mut along = Vec::new();
            for &k in &path {
                match by.get(&(at, k as usize)) {
                    Some(&e) => {
                        along.push(e);
                        at = graph.edges[e].to;
                    }
                    None => break,
                }
            }
            steps.push(ReducedStep {
                from,
                to,
                edges: along,
            });
            if !stored[to] {
                stored[to] = true;
                queue.push(to);
            }
        }
        if stopped {
            break;
        }
    }
    Overlay {
        reduction,
        stored,
        steps,
        stopped,
    }
}
