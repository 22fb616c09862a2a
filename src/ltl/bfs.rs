//! Shortest paths through a graph that is already in memory, breadth
//! first: a lasso's stem and the legs of its cycle, the stem into the
//! component the on-the-fly search found, the run to a state whose atom
//! cannot be evaluated. The state space itself is searched by the search
//! core (`explore::engine`); this walks what that search built.

use crate::explore::{Budget, Halt};

/// A vertex's edges into `out` (each as its target and its name), within
/// the budget.
pub type Edges<'a> = dyn FnMut(u32, &mut Vec<(u32, u32)>, &mut Budget) -> Result<(), Halt> + 'a;

/// No vertex: where a path begins.
const START: u32 = u32::MAX;

/// Breadth-first search with scratch arrays kept between calls; they grow
/// with the vertices met, so a graph may grow while it is searched (the
/// product, expanded as the search asks).
#[derive(Default)]
pub struct Bfs {
    seen: Vec<u32>,
    /// Per vertex seen: the vertex and edge it was first reached by.
    via: Vec<(u32, u32)>,
    stamp: u32,
}

impl Bfs {
    /// A shortest path from one of `from`, through vertices that `inside`
    /// accepts, to a vertex that `goal` accepts: its start, its edges and
    /// its end (no edge where a start is a goal). `edges(v, out, budget)`
    /// puts `v`'s edges into `out`, each as its target and its name.
    pub fn path(
        &mut self,
        from: &[u32],
        inside: &dyn Fn(u32) -> bool,
        goal: &dyn Fn(u32) -> bool,
        edges: &mut Edges,
        budget: &mut Budget,
    ) -> Result<Option<(u32, Vec<u32>, u32)>, Halt> {
        self.stamp += 1;
        let mut queue = std::collections::VecDeque::new();
        for &v in from {
            if self.first_visit(v, (START, 0)) {
                queue.push_back(v);
            }
        }
        let mut out = Vec::new();
        while let Some(v) = queue.pop_front() {
            budget.tick()?;
            if goal(v) {
                return Ok(Some(self.back_from(v)));
            }
            out.clear();
            edges(v, &mut out, budget)?;
            for &(w, k) in &out {
                if inside(w) && self.first_visit(w, (v, k)) {
                    queue.push_back(w);
                }
            }
        }
        Ok(None)
    }

    /// Marks `v` seen, reached by `via`, unless it was seen already.
    fn first_visit(&mut self, v: u32, via: (u32, u32)) -> bool {
        let i = v as usize;
        if i >= self.seen.len() {
            self.seen.resize(i + 1, 0);
            self.via.resize(i + 1, (START, 0));
        }
        if self.seen[i] == self.stamp {
            return false;
        }
        self.seen[i] = self.stamp;
        self.via[i] = via;
        true
    }

    /// The path that reached `end`: its start, edges and end.
    fn back_from(&self, end: u32) -> (u32, Vec<u32>, u32) {
        let mut path = Vec::new();
        let mut at = end;
        while self.via[at as usize].0 != START {
            let (from, k) = self.via[at as usize];
            path.push(k);
            at = from;
        }
        path.reverse();
        (at, path, end)
    }
}
