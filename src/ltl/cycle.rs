//! Fair accepting cycles of a generalised Büchi graph whose edges are
//! labelled by the thread that moves: the strongly connected components
//! (Tarjan's algorithm, iterative), judged for acceptance and fairness,
//! then a lasso through the first good one that a breadth-first search
//! from the initial vertices meets, so the stem is as short as any fair
//! accepting lasso's can be.
//!
//! Fairness is judged on whole components, as in the SCC-based algorithms
//! for fair emptiness (Emerson and Lei, "Modalities for model checking",
//! 1987): a cycle that goes through every vertex and edge of a component
//! is the fairest cycle the component has, so
//!
//! - without fairness, a component is good when it has an edge inside and
//!   meets every acceptance set;
//! - under **weak** fairness (a thread enabled in every state from some
//!   point on eventually moves), it is good when besides, for every thread,
//!   the thread moves on some edge inside or is disabled at some vertex;
//! - under **strong** fairness (a thread enabled infinitely often moves
//!   infinitely often), a thread that is enabled somewhere in the
//!   component and moves nowhere inside it rules out every cycle through
//!   the vertices where it is enabled: those are removed and what is left
//!   is split into components again, recursively.

use super::bfs::Bfs;
use crate::explore::{Budget, Halt};

/// Which runs count (see the module's documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fairness {
    /// Every infinite run.
    None,
    /// Runs in which no thread stays enabled for ever without moving.
    #[default]
    Weak,
    /// Runs in which no thread is enabled infinitely often without moving
    /// infinitely often.
    Strong,
}

impl Fairness {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Fairness::None => "none",
            Fairness::Weak => "weak",
            Fairness::Strong => "strong",
        }
    }
}

/// The label of an edge on which no thread moves: the stutter step that
/// extends a run which ends (every thread ended, or a deadlock).
pub const STUTTER: u32 = u32::MAX;

/// A graph in compressed rows: the edges of vertex v are
/// `first[v]..first[v + 1]`, with their targets and the thread that moves.
pub struct Graph<'a> {
    /// Row offsets, one more than the vertices.
    pub first: &'a [u32],
    /// Per edge: its target.
    pub target: &'a [u32],
    /// Per edge: the thread that moves, or [`STUTTER`].
    pub mover: &'a [u32],
    /// Threads of the model.
    pub threads: usize,
    /// Whether thread t is enabled at vertex v: `enabled(v, t)`.
    pub enabled: &'a dyn Fn(u32, usize) -> bool,
    /// Acceptance sets: `accepting(set, v)`.
    pub accepting: &'a dyn Fn(usize, u32) -> bool,
    /// Number of acceptance sets.
    pub sets: usize,
    /// Whether vertex v may lie on an accepting cycle: the others are
    /// passed over when components are sought (a product's vertices at
    /// automaton nodes that are not [`super::Automaton::live`]).
    pub live: &'a dyn Fn(u32) -> bool,
}

impl Graph<'_> {
    fn len(&self) -> usize {
        self.first.len() - 1
    }

    fn edges(&self, v: u32) -> std::ops::Range<usize> {
        self.first[v as usize] as usize..self.first[v as usize + 1] as usize
    }
}

/// A lasso as edges: `stem` from an initial vertex to the cycle's entry,
/// then `cycle`, which returns to the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    /// The initial vertex the stem starts at.
    pub start: u32,
    /// Edge indices of the stem.
    pub stem: Vec<u32>,
    /// Edge indices of the cycle (at least one).
    pub cycle: Vec<u32>,
}

/// A fair lasso of `g` from `initial` whose cycle meets every acceptance
/// set, if there is one. `budget` is ticked for every vertex and edge
/// visited.
pub fn fair_lasso(
    g: &Graph,
    initial: &[u32],
    fairness: Fairness,
    budget: &mut Budget,
) -> Result<Option<Lasso>, Halt> {
    let n = g.len();
    let mut scc = Scc::new(n);
    // Good vertex sets, and for each vertex the good set it is in.
    let mut good: Vec<Vec<u32>> = Vec::new();
    let mut in_good = vec![u32::MAX; n];
    let live: Vec<u32> = (0..n as u32).filter(|&v| (g.live)(v)).collect();
    let mut work = scc.components(g, &live, g.live, budget)?;
    let mut marks = Marks {
        mark: vec![0; n],
        stamp: 0,
    };
    while let Some(c) = work.pop() {
        budget.tick()?;
        marks.set(&c);
        let j = Judged::of(g, &c, &|v| marks.has(v));
        if !j.accepting {
            continue;
        }
        let unfair: Vec<usize> = (0..g.threads)
            .filter(|&t| match fairness {
                Fairness::None => false,
                Fairness::Weak => j.everywhere[t] && !j.moved[t],
                Fairness::Strong => j.somewhere[t] && !j.moved[t],
            })
            .collect();
        if unfair.is_empty() {
            for &v in &c {
                in_good[v as usize] = good.len() as u32;
            }
            good.push(c);
        } else if fairness == Fairness::Strong {
            let rest: Vec<u32> = c
                .iter()
                .copied()
                .filter(|&v| !unfair.iter().any(|&t| (g.enabled)(v, t)))
                .collect();
            marks.set(&rest);
            work.extend(scc.components(g, &rest, &|v| marks.has(v), budget)?);
        }
    }
    if good.is_empty() {
        return Ok(None);
    }
    // The first good vertex breadth first from the initial ones.
    let mut bfs = Bfs::default();
    let Some((start, stem, entry)) = path(
        &mut bfs,
        g,
        initial,
        &|_| true,
        &|v| in_good[v as usize] != u32::MAX,
        budget,
    )?
    else {
        return Ok(None);
    };
    let set = &good[in_good[entry as usize] as usize];
    let id = in_good[entry as usize];
    let inside = |v: u32| in_good[v as usize] == id;
    let j = Judged::of(g, set, &inside);
    let cycle = round(g, &mut bfs, entry, &inside, &j, fairness, budget)?;
    Ok(Some(Lasso { start, stem, cycle }))
}

/// What a vertex set offers: acceptance, and per thread whether it moves
/// on an edge inside, is enabled somewhere, is enabled everywhere.
struct Judged {
    accepting: bool,
    moved: Vec<bool>,
    somewhere: Vec<bool>,
    everywhere: Vec<bool>,
}

impl Judged {
    fn of(g: &Graph, set: &[u32], inside: &dyn Fn(u32) -> bool) -> Judged {
        let mut moved = vec![false; g.threads];
        let mut somewhere = vec![false; g.threads];
        let mut everywhere = vec![true; g.threads];
        let mut met = vec![false; g.sets];
        for &v in set {
            for (k, m) in met.iter_mut().enumerate() {
                *m |= (g.accepting)(k, v);
            }
            for t in 0..g.threads {
                let on = (g.enabled)(v, t);
                somewhere[t] |= on;
                everywhere[t] &= on;
            }
            for e in g.edges(v) {
                let t = g.mover[e];
                if t != STUTTER && inside(g.target[e]) {
                    moved[t as usize] = true;
                }
            }
        }
        Judged {
            accepting: met.iter().all(|&m| m),
            moved,
            somewhere,
            everywhere,
        }
    }
}

/// A cycle from `entry` through the set `inside` that meets every
/// acceptance set and what `fairness` asks of it, back to `entry`.
fn round(
    g: &Graph,
    bfs: &mut Bfs,
    entry: u32,
    inside: &dyn Fn(u32) -> bool,
    j: &Judged,
    fairness: Fairness,
    budget: &mut Budget,
) -> Result<Vec<u32>, Halt> {
    let mut r = Round {
        g,
        bfs,
        inside,
        cycle: Vec::new(),
        at: entry,
        visited: vec![entry],
    };
    for set in 0..g.sets {
        if !r.visited.iter().any(|&v| (g.accepting)(set, v)) {
            r.leg(&|v| (g.accepting)(set, v), None, budget)?;
        }
    }
    for t in 0..g.threads {
        let needs_move = match fairness {
            Fairness::None => false,
            Fairness::Weak => j.moved[t],
            Fairness::Strong => j.somewhere[t],
        };
        let moves = |k: usize| g.mover[k] == t as u32;
        if needs_move {
            if !r.cycle.iter().any(|&k| moves(k as usize)) {
                r.leg(&|_| true, Some(&moves), budget)?;
            }
        } else if fairness == Fairness::Weak && !r.visited.iter().any(|&v| !(g.enabled)(v, t)) {
            r.leg(&|v| !(g.enabled)(v, t), None, budget)?;
        }
    }
    r.back_to(entry, budget)?;
    Ok(r.cycle)
}

/// A cycle being built by `round`: its edges so far, the vertex it has
/// reached, and every vertex it passed.
struct Round<'a, 'g> {
    g: &'a Graph<'g>,
    bfs: &'a mut Bfs,
    inside: &'a dyn Fn(u32) -> bool,
    cycle: Vec<u32>,
    at: u32,
    visited: Vec<u32>,
}

impl Round<'_, '_> {
    /// Goes on to the nearest vertex `goal` accepts (one already passed
    /// counts), then, if `edge` says so, along an edge from it.
    fn leg(
        &mut self,
        goal: &dyn Fn(u32) -> bool,
        edge: Option<&dyn Fn(usize) -> bool>,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        let (g, inside) = (self.g, self.inside);
        let want = |v: u32| {
            goal(v) && edge.is_none_or(|e| g.edges(v).any(|k| e(k) && inside(g.target[k])))
        };
        let (_, path, end) = path(self.bfs, g, &[self.at], inside, &want, budget)?
            .expect("the set is strongly connected");
        for &k in &path {
            self.visited.push(g.target[k as usize]);
        }
        self.cycle.extend(path);
        self.at = end;
        if let Some(e) = edge {
            let k = g
                .edges(end)
                .find(|&k| e(k) && inside(g.target[k]))
                .expect("found");
            self.cycle.push(k as u32);
            self.at = g.target[k];
            self.visited.push(self.at);
        }
        Ok(())
    }

    /// Back to the entry, with at least one edge.
    fn back_to(&mut self, entry: u32, budget: &mut Budget) -> Result<(), Halt> {
        let (g, inside) = (self.g, self.inside);
        if self.cycle.is_empty() || self.at != entry {
            if self.cycle.is_empty() {
                let k = g
                    .edges(self.at)
                    .find(|&k| inside(g.target[k]))
                    .expect("an edge inside");
                self.cycle.push(k as u32);
                self.at = g.target[k];
            }
            if self.at != entry {
                let (_, path, _) = path(self.bfs, g, &[self.at], inside, &|v| v == entry, budget)?
                    .expect("the set is strongly connected");
                self.cycle.extend(path);
            }
        }
        Ok(())
    }
}

/// Tarjan's algorithm over a vertex list, with scratch arrays kept
/// between calls.
struct Scc {
    index: Vec<u32>,
    low: Vec<u32>,
    on: Vec<bool>,
}

const UNSEEN: u32 = u32::MAX;

impl Scc {
    fn new(n: usize) -> Scc {
        Scc {
            index: vec![UNSEEN; n],
            low: vec![0; n],
            on: vec![false; n],
        }
    }

    /// The components of the graph on `members` (edges to vertices
    /// `allowed` accepts only) that have an edge inside.
    fn components(
        &mut self,
        g: &Graph,
        members: &[u32],
        allowed: &dyn Fn(u32) -> bool,
        budget: &mut Budget,
    ) -> Result<Vec<Vec<u32>>, Halt> {
        let mut out = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        let mut calls: Vec<(u32, usize)> = Vec::new();
        let mut next = 0u32;
        for &root in members {
            if self.index[root as usize] != UNSEEN {
                continue;
            }
            self.open(root, &mut next, &mut stack);
            calls.push((root, g.edges(root).start));
            while let Some(top) = calls.last_mut() {
                budget.tick()?;
                let v = top.0;
                if top.1 < g.edges(v).end {
                    let w = g.target[top.1];
                    top.1 += 1;
                    if !allowed(w) {
                        continue;
                    }
                    if self.index[w as usize] == UNSEEN {
                        self.open(w, &mut next, &mut stack);
                        calls.push((w, g.edges(w).start));
                    } else if self.on[w as usize] {
                        let lw = self.index[w as usize];
                        let lv = &mut self.low[v as usize];
                        *lv = (*lv).min(lw);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    let lv = self.low[v as usize];
                    let lu = &mut self.low[u as usize];
                    *lu = (*lu).min(lv);
                }
                if self.low[v as usize] == self.index[v as usize] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        self.on[w as usize] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.reverse();
                    let inner = comp.len() > 1 || g.edges(v).any(|k| g.target[k] == v);
                    if inner {
                        out.push(comp);
                    }
                }
            }
        }
        // Reset for the next call on a subset.
        for &v in members {
            self.index[v as usize] = UNSEEN;
        }
        Ok(out)
    }

    fn open(&mut self, v: u32, next: &mut u32, stack: &mut Vec<u32>) {
        self.index[v as usize] = *next;
        self.low[v as usize] = *next;
        *next += 1;
        self.on[v as usize] = true;
        stack.push(v);
    }
}

/// Membership of one vertex set at a time, by stamps.
struct Marks {
    mark: Vec<u32>,
    stamp: u32,
}

impl Marks {
    /// Makes `set` the current set.
    fn set(&mut self, set: &[u32]) {
        self.stamp += 1;
        for &v in set {
            self.mark[v as usize] = self.stamp;
        }
    }

    fn has(&self, v: u32) -> bool {
        self.mark[v as usize] == self.stamp
    }
}

/// A shortest path in `g` (see [`Bfs::path`]).
fn path(
    bfs: &mut Bfs,
    g: &Graph,
    from: &[u32],
    inside: &dyn Fn(u32) -> bool,
    goal: &dyn Fn(u32) -> bool,
    budget: &mut Budget,
) -> Result<Option<(u32, Vec<u32>, u32)>, Halt> {
    let mut edges = |v: u32, out: &mut Vec<(u32, u32)>, _: &mut Budget| {
        out.extend(g.edges(v).map(|k| (g.target[k], k as u32)));
        Ok(())
    };
    bfs.path(from, inside, goal, &mut edges, budget)
}
