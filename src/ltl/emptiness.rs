//! On-the-fly emptiness of a generalised Büchi product: Couvreur's
//! depth-first search for strongly connected components that accumulates
//! acceptance marks as components merge (Couvreur, "On-the-fly
//! verification of linear temporal logic", FM 1999; in the iterative form
//! of Renault, Duret-Lutz, Kordon and Poitrenaud, "Three SCC-based
//! emptiness checks for generalized Büchi automata", LPAR 2013). The graph
//! is asked for a vertex's successors only when the search enters the
//! vertex, so a violated property costs what it takes to find one
//! accepting component, not the whole graph.
//!
//! Marks sit on edges. The caller gives each vertex the marks of every
//! edge out of it, and each edge the mark of the thread that moves on it:
//! a component's marks are then the union over its edges, which is what
//! Emerson and Lei's judgement of a component asks for. Weak fairness is
//! one more mark per thread ("moves here, or is disabled here"), so a
//! component with every mark has a cycle that is accepting and weakly
//! fair (a cycle through all its edges). Strong fairness is not a
//! generalised Büchi condition; its callers explore the whole product and
//! judge components with [`super::fair_lasso`].

use crate::explore::{Budget, Halt};

/// A graph whose vertices are numbered as it is explored.
pub trait Explored {
    /// Vertices numbered so far.
    fn vertices(&self) -> usize;
    /// Appends the successors of `v` as (target, mark), numbering new
    /// targets; the mark is an index into the marks, or `u32::MAX`.
    fn successors(
        &mut self,
        v: u32,
        out: &mut Vec<(u32, u32)>,
        budget: &mut Budget,
    ) -> Result<(), Halt>;
    /// Sets in `marks` (`words` words) the marks of every edge out of `v`.
    fn marks(&self, v: u32, marks: &mut [u64]);
    /// Whether `v` may lie on an accepting cycle. The others are only
    /// passed through: each is a component of its own (a product's
    /// vertices at automaton nodes that are not [`super::Automaton::live`]
    /// share no component with those that are).
    fn live(&self, v: u32) -> bool;
}

/// What the search found, and which vertices it entered.
pub struct Search {
    /// The first component found with every mark (and an edge inside):
    /// its vertices, as far as the search had entered them.
    pub accepting: Option<Vec<u32>>,
    /// Per vertex numbered: whether the search entered it (its successors
    /// were asked for).
    pub entered: Vec<bool>,
}

/// Not entered yet.
const NEW: u32 = 0;
/// In a component already closed.
const DEAD: u32 = u32::MAX;

/// The search's stacks: Couvreur's roots with their marks and the marks of
/// the edge into each root, the live vertices, and the call stack of
/// (vertex, next successor, end of its successors).
struct Stacks {
    words: usize,
    /// Preorder number of each vertex, or NEW or DEAD.
    num: Vec<u32>,
    roots: Vec<u32>,
    root_marks: Vec<u64>,
    arc_marks: Vec<u64>,
    live: Vec<u32>,
    calls: Vec<(u32, usize, usize)>,
    /// Successors of the vertices on the call stack, one after another.
    succ: Vec<(u32, u32)>,
    /// Marks of the edges out of each vertex on the call stack.
    out_marks: Vec<u64>,
    next: u32,
    /// Scratch: the marks of the edge followed, and of a merge.
    edge: Vec<u64>,
    merged: Vec<u64>,
}

/// Searches `g` from `initial` for a component with all `marks` marks;
/// with `stop`, it returns at the first, else it explores every vertex.
pub fn search(
    g: &mut impl Explored,
    initial: &[u32],
    marks: usize,
    stop: bool,
    budget: &mut Budget,
) -> Result<Search, Halt> {
    let words = marks.div_ceil(64).max(1);
    let mut all = vec![0u64; words];
    for m in 0..marks {
        all[m / 64] |= 1 << (m % 64);
    }
    let mut st = Stacks {
        words,
        num: Vec::new(),
        roots: Vec::new(),
        root_marks: Vec::new(),
        arc_marks: Vec::new(),
        live: Vec::new(),
        calls: Vec::new(),
        succ: Vec::new(),
        out_marks: Vec::new(),
        next: 0,
        edge: vec![0; words],
        merged: vec![0; words],
    };
    let mut accepting = None;
    for &i in initial {
        st.grow(g.vertices());
        if st.num[i as usize] != NEW {
            continue;
        }
        st.enter(g, i, &vec![0; words], budget)?;
        while !st.calls.is_empty() {
            budget.tick()?;
            if st.step(g, &all, budget)? && accepting.is_none() {
                accepting = Some(st.component());
                if stop {
                    return Ok(st.result(accepting));
                }
            }
        }
    }
    Ok(st.result(accepting))
}

impl Stacks {
    fn grow(&mut self, n: usize) {
        if self.num.len() < n {
            self.num.resize(n, NEW);
        }
    }

    /// The vertices of the component of the top root.
    fn component(&self) -> Vec<u32> {
        let root = *self.roots.last().expect("a root");
        let at = self
            .live
            .iter()
            .rposition(|&u| self.num[u as usize] == root);
        self.live[at.expect("the root is live")..].to_vec()
    }

    fn result(self, accepting: Option<Vec<u32>>) -> Search {
        Search {
            accepting,
            entered: self.num.iter().map(|&n| n != NEW).collect(),
        }
    }

    /// Enters `v` by an edge with marks `arc`.
    fn enter(
        &mut self,
        g: &mut impl Explored,
        v: u32,
        arc: &[u64],
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        if g.live(v) {
            self.next += 1;
            self.num[v as usize] = self.next;
            self.roots.push(self.next);
            self.root_marks.extend(std::iter::repeat_n(0, self.words));
            self.arc_marks.extend_from_slice(arc);
            self.live.push(v);
        } else {
            self.num[v as usize] = DEAD;
        }
        let from = self.succ.len();
        g.successors(v, &mut self.succ, budget)?;
        self.grow(g.vertices());
        let at = self.out_marks.len();
        self.out_marks.resize(at + self.words, 0);
        g.marks(v, &mut self.out_marks[at..]);
        self.calls.push((v, from, self.succ.len()));
        Ok(())
    }

    /// Follows the next edge of the vertex on top of the call stack, or
    /// leaves the vertex; whether the top root now has every mark.
    fn step(
        &mut self,
        g: &mut impl Explored,
        all: &[u64],
        budget: &mut Budget,
    ) -> Result<bool, Halt> {
        let w = self.words;
        let top = self.calls.len() - 1;
        let (v, at, end) = self.calls[top];
        if at == end {
            self.leave(v);
            return Ok(false);
        }
        self.calls[top].1 += 1;
        let (to, mark) = self.succ[at];
        let mut edge = std::mem::take(&mut self.edge);
        edge.copy_from_slice(&self.out_marks[top * w..(top + 1) * w]);
        if mark != u32::MAX {
            edge[mark as usize / 64] |= 1 << (mark % 64);
        }
        let r = match self.num[to as usize] {
            NEW => self.enter(g, to, &edge, budget).map(|()| false),
            DEAD => Ok(false),
            n => Ok(self.merge(n, &edge, all)),
        };
        self.edge = edge;
        r
    }

    /// An edge with marks `edge` closes a cycle back to the vertex numbered
    /// `n`: every root above it joins its component.
    fn merge(&mut self, n: u32, edge: &[u64], all: &[u64]) -> bool {
        let w = self.words;
        let m = &mut self.merged;
        m.copy_from_slice(edge);
        while *self.roots.last().expect("a root") > n {
            self.roots.pop();
            let at = self.roots.len() * w;
            for (k, x) in m.iter_mut().enumerate() {
                *x |= self.root_marks[at + k] | self.arc_marks[at + k];
            }
            self.root_marks.truncate(at);
            self.arc_marks.truncate(at);
        }
        let at = (self.roots.len() - 1) * w;
        let root = &mut self.root_marks[at..at + w];
        for (r, x) in root.iter_mut().zip(m.iter()) {
            *r |= x;
        }
        root.iter().zip(all).all(|(r, a)| r & a == *a)
    }

    /// Leaves `v`, whose successors are all followed; closes its component
    /// if it is the root of one.
    fn leave(&mut self, v: u32) {
        let (_, from, _) = self.calls.pop().expect("a call");
        self.succ.truncate(from);
        self.out_marks.truncate(self.calls.len() * self.words);
        let n = self.num[v as usize];
        if n != DEAD && self.roots.last() == Some(&n) {
            self.roots.pop();
            let at = self.roots.len() * self.words;
            self.root_marks.truncate(at);
            self.arc_marks.truncate(at);
            while let Some(u) = self.live.pop() {
                self.num[u as usize] = DEAD;
                if u == v {
                    break;
                }
            }
        }
    }
}
