//! Accepting cycles of a generalised Büchi graph: the strongly connected
//! components (Tarjan's algorithm, iterative), then a lasso through the
//! first accepting one a breadth-first search from the initial vertices
//! meets, so the stem is as short as any accepting lasso's can be.

use std::collections::VecDeque;

/// A path to a cycle: `stem` from an initial vertex to the cycle's first
/// vertex (excluded), then `cycle`, whose last vertex has an edge back to
/// its first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    /// From an initial vertex up to, not including, the cycle.
    pub stem: Vec<usize>,
    /// The cycle; it visits every acceptance set.
    pub cycle: Vec<usize>,
}

/// A lasso of the graph of `n` vertices with edges `succ` from `initial`
/// whose cycle visits every set of `accepting` (per set, per vertex), if
/// there is one.
pub fn accepting_lasso(
    n: usize,
    initial: &[usize],
    succ: &[Vec<usize>],
    accepting: &[Vec<bool>],
) -> Option<Lasso> {
    let comp = components(n, succ);
    // A component is accepting when it has an edge inside and meets every
    // acceptance set.
    let ncomp = comp.iter().flatten().max().map_or(0, |m| m + 1);
    let mut inner = vec![false; ncomp];
    for v in 0..n {
        if let Some(c) = comp[v] {
            inner[c] |= succ[v].iter().any(|&w| comp[w] == Some(c));
        }
    }
    let good = |c: usize| {
        inner[c]
            && accepting
                .iter()
                .all(|set| (0..n).any(|v| comp[v] == Some(c) && set[v]))
    };
    // Breadth first from the initial vertices: the first vertex of an
    // accepting component is the end of the shortest stem.
    let (parent, order) = bfs(initial, succ, |_| true);
    let entry = order
        .into_iter()
        .find(|&v| comp[v].is_some_and(good))?;
    let c = comp[entry];
    let mut stem = path_to(&parent, entry);
    stem.pop();
    // Round the component: to a vertex of each set in turn, then back.
    let inside = |v: usize| comp[v] == c;
    let mut cycle = vec![entry];
    let mut at = entry;
    for set in accepting {
        if cycle.iter().any(|&v| set[v]) {
            continue;
        }
        let leg = shortest(at, succ, &inside, |v| set[v]);
        cycle.extend_from_slice(&leg[1..]);
        at = *cycle.last().expect("a leg ends somewhere");
    }
    // Back to the entry with at least one edge.
    let back = succ[at]
        .iter()
        .filter(|&&w| inside(w))
        .map(|&w| {
            let mut leg = shortest(w, succ, &inside, |v| v == entry);
            leg.insert(0, at);
            leg
        })
        .min_by_key(Vec::len)
        .expect("a component with an inner edge has a way back");
    cycle.extend_from_slice(&back[1..back.len() - 1]);
    Some(Lasso { stem, cycle })
}

/// The strongly connected component of every vertex reachable from
/// anywhere (`None` for none: every vertex gets one).
fn components(n: usize, succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![None; n];
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (vertex, next edge to try)
        let mut calls = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on[root] = true;
        while let Some(top) = calls.last_mut() {
            let v = top.0;
            if let Some(&w) = succ[v].get(top.1) {
                top.1 += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on[w] = true;
                    calls.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on[w] = false;
                    comp[w] = Some(next_comp);
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

/// Breadth-first search from `from` through vertices `allowed`: each
/// vertex's parent, and the vertices in the order they were reached.
fn bfs(
    from: &[usize],
    succ: &[Vec<usize>],
    allowed: impl Fn(usize) -> bool,
) -> (Vec<Option<usize>>, Vec<usize>) {
    let mut parent = vec![None; succ.len()];
    let mut seen = vec![false; succ.len()];
    let mut order = Vec::new();
    let mut queue = VecDeque::new();
    for &v in from {
        if !seen[v] {
            seen[v] = true;
            queue.push_back(v);
        }
    }
    while let Some(v) = queue.pop_front() {
        order.push(v);
        for &w in &succ[v] {
            if !seen[w] && allowed(w) {
                seen[w] = true;
                parent[w] = Some(v);
                queue.push_back(w);
            }
        }
    }
    (parent, order)
}

/// The path from a root of `parent` to `v`.
fn path_to(parent: &[Option<usize>], v: usize) -> Vec<usize> {
    let mut path = vec![v];
    while let Some(p) = parent[*path.last().expect("not empty")] {
        path.push(p);
    }
    path.reverse();
    path
}

/// A shortest path from `from` to a vertex `goal` accepts, through
/// vertices `inside`; `[from]` when `from` is one.
fn shortest(
    from: usize,
    succ: &[Vec<usize>],
    inside: &impl Fn(usize) -> bool,
    goal: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let (parent, order) = bfs(&[from], succ, inside);
    let end = order
        .into_iter()
        .find(|&v| goal(v))
        .expect("the component is strongly connected");
    path_to(&parent, end)
}
