//! The product of the model's graph and the Büchi automaton of a
//! property's negation, numbered as the emptiness search enters it
//! ([`crate::ltl::emptiness`]): a vertex is a state of the model and a
//! node of the automaton that admits the state's atoms.
//!
//! A state without edges (every thread ended, or a deadlock) has one
//! stutter edge to itself, as SPIN extends a run that ends by repeating
//! its last state.

use super::budget::{Budget, Halt};
use super::ltlgraph::{ModelGraph, bytes_of, keep_n, keep_one};
use crate::ltl::{Automaton, Explored, STUTTER};

/// Not numbered.
const NONE: u32 = u32::MAX;

/// The product as far as it was numbered.
pub(super) struct Product<'a, 'm> {
    pub graph: &'a mut ModelGraph<'m>,
    a: &'a Automaton,
    /// Which of the properties asked.
    n: usize,
    /// Whether a mark per thread asks for weak fairness.
    weak: bool,
    /// Per (state, node): the vertex, or NONE.
    index: Vec<u32>,
    /// Per vertex: its state and node.
    pub vs: Vec<u32>,
    pub vq: Vec<u32>,
    /// Per node: the marks of its acceptance sets, in words of 64 (after
    /// the threads' marks under weak fairness).
    node_marks: Vec<u64>,
    words: usize,
    /// Per node: whether it is [`Automaton::live`].
    live: Vec<bool>,
    /// Per node: its successors in the order the search on the fly tries
    /// them ([`eager`]).
    eager: Vec<Vec<usize>>,
}

/// The successors of each node of `a`, those in more acceptance sets
/// first and the node itself last: a depth-first search then tries to
/// enter the part of the automaton that can accept as soon as a state
/// admits it, rather than first exploring the whole graph in the node it
/// started from (SPIN's never claims list the guess first for the same
/// reason). The search finds a violation sooner; which one it finds, and
/// whether it finds one, depends on nothing else.
fn eager(a: &Automaton) -> Vec<Vec<usize>> {
    let sets = |m: usize| a.accepting.iter().filter(|s| s[m]).count();
    (0..a.nodes.len())
        .map(|m| {
            let mut succ = a.nodes[m].succ.clone();
            succ.sort_by_key(|&m2| (m2 == m, std::cmp::Reverse(sets(m2))));
            succ
        })
        .collect()
}

impl<'a, 'm> Product<'a, 'm> {
    pub fn new(graph: &'a mut ModelGraph<'m>, a: &'a Automaton, n: usize, weak: bool) -> Self {
        let base = if weak { graph.threads() } else { 0 };
        let words = (base + a.accepting.len()).div_ceil(64).max(1);
        let mut node_marks = vec![0u64; a.nodes.len() * words];
        for (k, set) in a.accepting.iter().enumerate() {
            for m in (0..a.nodes.len()).filter(|&m| set[m]) {
                let b = base + k;
                node_marks[m * words + b / 64] |= 1 << (b % 64);
            }
        }
        Product {
            graph,
            a,
            n,
            weak,
            index: Vec::new(),
            vs: Vec::new(),
            vq: Vec::new(),
            node_marks,
            words,
            live: a.live(),
            eager: eager(a),
        }
    }

    /// Which of the properties asked it is the product with.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The automaton.
    pub fn automaton(&self) -> &'a Automaton {
        self.a
    }

    /// Marks of the emptiness search: under weak fairness one per thread
    /// (it moves, or it cannot), then the automaton's acceptance sets.
    pub fn marks(&self) -> usize {
        self.a.accepting.len() + if self.weak { self.graph.threads() } else { 0 }
    }

    /// The initial vertices: the initial state at each initial node that
    /// admits it.
    pub fn initial(&mut self, budget: &mut Budget) -> Result<Vec<u32>, Halt> {
        self.cover(budget)?;
        let mut out = Vec::new();
        for m in 0..self.a.nodes.len() {
            let node = &self.a.nodes[m];
            if node.initial && node.admits(self.graph.val(0, self.n)) {
                out.push(self.vertex(0, m, budget)?);
            }
        }
        Ok(out)
    }

    /// The vertex (s, m), numbered if it is new (`index` covers every
    /// state of the graph).
    fn vertex(&mut self, s: u32, m: usize, budget: &mut Budget) -> Result<u32, Halt> {
        let at = s as usize * self.a.nodes.len() + m;
        if self.index[at] == NONE {
            if budget.room().states == 0 {
                return Err(budget.full(super::Full::States));
            }
            self.index[at] = self.vs.len() as u32;
            keep_one(&mut self.vs, s, budget)?;
            keep_one(&mut self.vq, m as u32, budget)?;
            budget.run_states += 1;
        }
        Ok(self.index[at])
    }

    /// Makes `index` cover every state the graph has numbered.
    fn cover(&mut self, budget: &mut Budget) -> Result<(), Halt> {
        let need = self.graph.states() * self.a.nodes.len();
        if self.index.len() < need {
            let more = need - self.index.len();
            keep_n(&mut self.index, NONE, more, budget)?;
        }
        Ok(())
    }

    /// Appends the edges of `v` as (target, the graph's edge or STUTTER),
    /// numbering new targets.
    pub fn edges(
        &mut self,
        v: u32,
        out: &mut Vec<(u32, u32)>,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        self.edges_labelled(v, out, budget, false, |_, e, _| e)
    }

    /// [`Product::edges`], each edge labelled by `label(graph, edge,
    /// transition)` (the graph's edge and its first transition, or
    /// [`STUTTER`] for both),
    /// the automaton's successors in their `eager` order where asked.
    fn edges_labelled(
        &mut self,
        v: u32,
        out: &mut Vec<(u32, u32)>,
        budget: &mut Budget,
        eager: bool,
        label: impl Fn(&ModelGraph, u32, u32) -> u32,
    ) -> Result<(), Halt> {
        let (s, m) = (self.vs[v as usize], self.vq[v as usize] as usize);
        let edges = self.graph.edges(s, budget)?;
        if self.graph.faults[self.n].is_some() {
            return Err(Halt);
        }
        self.cover(budget)?;
        let stutter = edges.is_empty().then_some(usize::MAX);
        for e in stutter.into_iter().chain(edges) {
            let (to, e, k) = if e == usize::MAX {
                (s, STUTTER, STUTTER)
            } else {
                let (to, k) = self.graph.edge(e);
                (to, e as u32, k)
            };
            let (val, lab) = (self.graph.val(to, self.n), label(self.graph, e, k));
            let a = self.a;
            for i in 0..a.nodes[m].succ.len() {
                let m2 = if eager {
                    self.eager[m][i]
                } else {
                    a.nodes[m].succ[i]
                };
                if self.a.nodes[m2].admits(val) {
                    out.push((self.vertex(to, m2, budget)?, lab));
                }
            }
        }
        Ok(())
    }

    /// Bytes the product holds (the graph's are its own).
    pub fn bytes(&self) -> u64 {
        bytes_of(&self.index) + bytes_of(&self.vs) + bytes_of(&self.vq)
    }
}

impl Explored for Product<'_, '_> {
    fn vertices(&self) -> usize {
        self.vs.len()
    }

    fn successors(
        &mut self,
        v: u32,
        out: &mut Vec<(u32, u32)>,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        // The mark of an edge: the thread that moves, under weak fairness.
        let weak = self.weak;
        self.edges_labelled(v, out, budget, true, |g, _, k| {
            if weak && k != STUTTER {
                g.thread(k)
            } else {
                u32::MAX
            }
        })
    }

    fn live(&self, v: u32) -> bool {
        self.live[self.vq[v as usize] as usize]
    }

    fn marks(&self, v: u32, marks: &mut [u64]) {
        let (s, m) = (self.vs[v as usize], self.vq[v as usize] as usize);
        let w = self.words;
        marks.copy_from_slice(&self.node_marks[m * w..(m + 1) * w]);
        if self.weak {
            // A thread without an edge here is disabled: its mark is met.
            let threads = self.graph.threads();
            for (i, &en) in self.graph.enabled_words(s).iter().enumerate() {
                let bits = (threads - i * 64).min(64);
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                marks[i] |= !en & mask;
            }
        }
    }
}
