//! The state graph of a small model, for pictures: every reachable state of
//! the full system with every transition between them, and, for a reduced
//! search, which of those states it stores and which runs of transitions
//! are its steps. Both are drawn by the search every check uses
//! ([`parallel::search`]), with this module's visitors.

use indexmap::IndexMap;

use super::budget::{Budget, Halt};
use super::parallel;
use super::search::{Emit, Expand, Findings, Limits, StepResult, Stop, Watch, step};
use super::visit::{Edges, Visit};
use super::{Ignoring, Kept, Problem, Reduction, Verdict};
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
    let mut drawing = Drawing {
        states: Vec::new(),
        edges: Vec::new(),
    };
    let mut every = Every {
        model,
        out: Vec::new(),
        bad: Vec::new(),
    };
    let o = draw(model, &mut every, Some(max_states as u64), &mut drawing);
    if o.verdict != Verdict::Holds {
        return Err(GraphTooLarge::States(max_states));
    }
    let id: IndexMap<&[i64], usize> = (drawing.states.iter().enumerate())
        .map(|(k, s)| (s.as_slice(), k))
        .collect();
    let mut violations: Vec<GraphViolation> = (every.bad.into_iter())
        .map(|(s, transition, problem)| GraphViolation {
            from: id[s.as_slice()],
            transition,
            problem,
        })
        .collect();
    // In the order of states, then of transitions, as they were met.
    violations.sort_by_key(|v| v.from);
    // Each state was first reached by the first edge that leads to it.
    let mut parent = vec![None; drawing.states.len()];
    for e in &drawing.edges {
        if e.to != 0 && parent[e.to].is_none() {
            parent[e.to] = Some(e.from);
        }
    }
    let mut graph = StateGraph {
        states: drawing.states,
        parent,
        edges: drawing.edges,
        violations,
        overlay: None,
    };
    if !reduction.is_full() {
        graph.overlay = Some(overlay(model, reduction, ignoring, &graph));
    }
    Ok(graph)
}

/// Runs the search from the initial state with expander `exp` on one
/// worker, showing every state and edge to `visit`.
fn draw<E: Expand + Send, V: Visit>(
    model: &Model,
    exp: E,
    max_states: Option<u64>,
    visit: &mut V,
) -> super::Outcome {
    let limits = Limits {
        max_states,
        ..Limits::default()
    };
    let mut exps = [exp];
    let kept = Kept::Exact;
    parallel::search(
        model,
        &mut exps,
        Budget::new(&limits),
        false,
        0,
        kept,
        false,
        &mut |_| {},
        visit,
    )
}

/// Every transition of the full system that takes a step; one that breaks
/// the semantics reaches no state and is noted, with the state it leaves,
/// instead of ending the search.
struct Every<'m> {
    model: &'m Model,
    out: Vec<i64>,
    bad: Vec<(Vec<i64>, usize, Problem)>,
}

impl Expand for &mut Every<'_> {
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let mut enabled = false;
        for (t, thread) in self.model.threads.iter().enumerate() {
            for k in thread.points[s[t] as usize].transitions.clone() {
                match step(self.model, k, s, &mut self.out) {
                    StepResult::Disabled => {}
                    StepResult::Ok => {
                        enabled = true;
                        emit(&self.out, &[k as u32], budget)?;
                    }
                    StepResult::Bad(problem) => self.bad.push((s.to_vec(), k, problem)),
                }
            }
        }
        Ok(enabled)
    }
}

/// The full graph as the search meets it: its states and edges.
struct Drawing {
    states: Vec<Vec<i64>>,
    edges: Vec<GraphEdge>,
}

impl Visit for Drawing {
    const EDGES: bool = true;
    type Record = Vec<Vec<i64>>;

    fn initial(&self, _: &Model, _: &[i64]) -> Option<Problem> {
        None
    }

    fn state(&self, _: u32, s: &[i64], record: &mut Vec<Vec<i64>>) {
        record.push(s.to_vec());
    }

    fn absorb(&mut self, record: Vec<Vec<i64>>, edges: &Edges, _: &mut Budget) -> Result<(), Halt> {
        let first = self.states.len();
        self.states.extend(record);
        for (e, from) in edge_sources(first, edges).enumerate() {
            self.edges.push(GraphEdge {
                from,
                to: edges.target[e] as usize,
                transition: edges.transition[e] as usize,
            });
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        0
    }
}

/// The id of the state each of a block's edges leaves, in edge order, for
/// the block whose first state is `first`.
fn edge_sources(first: usize, edges: &Edges) -> impl Iterator<Item = usize> + '_ {
    (edges.degree.iter().enumerate())
        .flat_map(move |(i, &d)| std::iter::repeat_n(first + i, d as usize))
}

/// Runs the reduced search over the states of `graph`.
fn overlay(model: &Model, reduction: Reduction, ignoring: Ignoring, graph: &StateGraph) -> Overlay {
    let options = super::Options {
        reduction,
        ignoring,
        ..super::Options::default()
    };
    super::contract::mode(model, &options).overlay(model, graph, reduction)
}

/// The reduced search with `exp`, recording its stored states and steps
/// as states and edges of `graph`. Where an expansion meets a violation the
/// reduced search stops there: what it stored and the steps it took up to
/// that point are kept (the search runs on, and the rest is dropped).
pub(super) fn walk<E: Expand + Send>(
    model: &Model,
    exp: &mut E,
    reduction: Reduction,
    graph: &StateGraph,
) -> Overlay {
    let find: IndexMap<&[i64], usize> = graph
        .states
        .iter()
        .enumerate()
        .map(|(k, s)| (s.as_slice(), k))
        .collect();
    let mut over = Over {
        find: &find,
        at: Vec::new(),
        steps: Vec::new(),
    };
    let mut on = Onward {
        exp,
        stops: Vec::new(),
    };
    draw(model, &mut on, None, &mut over);
    // The first state (in the search's order) whose expansion stopped.
    let stop = (on.stops.iter())
        .filter_map(|s| find.get(s.as_slice()))
        .filter_map(|&k| over.at.iter().position(|&a| a == Some(k)))
        .min();
    // The full graph's edge by (state, transition).
    let by: IndexMap<(usize, usize), usize> = (graph.edges.iter().enumerate())
        .map(|(e, edge)| ((edge.from, edge.transition), e))
        .collect();
    let mut stored = vec![false; graph.states.len()];
    stored[0] = true;
    let mut steps = Vec::new();
    for (from, to, path) in over.steps {
        if stop.is_some_and(|p| from > p) {
            break;
        }
        let (Some(from), Some(to)) = (over.at[from], over.at[to]) else {
            continue;
        };
        stored[to] = true;
        let edges = along(graph, &by, from, &path);
        steps.push(ReducedStep { from, to, edges });
    }
    Overlay {
        reduction,
        stored,
        steps,
        stopped: stop.is_some(),
    }
}

/// The full graph's edges that `path` follows from state `from`, as far as
/// the graph has them.
fn along(
    graph: &StateGraph,
    by: &IndexMap<(usize, usize), usize>,
    from: usize,
    path: &[u32],
) -> Vec<usize> {
    let mut at = from;
    let mut edges = Vec::new();
    for &k in path {
        let Some(&e) = by.get(&(at, k as usize)) else {
            break;
        };
        edges.push(e);
        at = graph.edges[e].to;
    }
    edges
}

/// A reduced expander that goes on where an expansion meets a violation:
/// the successors it emitted before are kept, and the state is noted.
struct Onward<'e, E> {
    exp: &'e mut E,
    stops: Vec<Vec<i64>>,
}

impl<E: Expand> Expand for &mut Onward<'_, E> {
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        match self.exp.expand(s, budget, emit) {
            Err(Stop::Found(_)) => {
                self.stops.push(s.to_vec());
                Ok(true)
            }
            other => other,
        }
    }

    fn watch(&mut self) -> Option<&mut Watch> {
        self.exp.watch()
    }

    fn take_findings(&mut self, out: &mut Findings) {
        self.exp.take_findings(out);
    }
}

/// The reduced search as it meets the states of the graph.
struct Over<'g> {
    find: &'g IndexMap<&'g [i64], usize>,
    /// Per state of the search, in its order: the graph's state.
    at: Vec<Option<usize>>,
    /// Per step: the search's ids of its ends, and its transitions.
    steps: Vec<(usize, usize, Vec<u32>)>,
}

impl Visit for Over<'_> {
    const EDGES: bool = true;
    const PATHS: bool = true;
    type Record = Vec<Option<usize>>;

    fn initial(&self, _: &Model, _: &[i64]) -> Option<Problem> {
        None
    }

    fn state(&self, _: u32, s: &[i64], record: &mut Vec<Option<usize>>) {
        record.push(self.find.get(s).copied());
    }

    fn absorb(
        &mut self,
        record: Vec<Option<usize>>,
        edges: &Edges,
        _: &mut Budget,
    ) -> Result<(), Halt> {
        let first = self.at.len();
        self.at.extend(record);
        for (e, from) in edge_sources(first, edges).enumerate() {
            let to = edges.target[e] as usize;
            self.steps.push((from, to, edges.path(e).to_vec()));
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        0
    }
}
