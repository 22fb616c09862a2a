//! Finding a cycle in a graph given by its successor function, for the
//! loop obligations (11) and WFfiniteInvis at both levels.

use super::law::{Failure, Inst};
use super::system::{QState, Succ, Sys};
use crate::explore::{Budget, Halt, reserve_one};

/// A cycle: its first node and the transitions around it.
pub struct Cycle {
    /// The node the cycle starts and ends at.
    pub start: usize,
    /// The transitions, in order.
    pub transitions: Vec<usize>,
}

/// Depth-first search for a cycle among nodes `0..n`, starting from each
/// root in turn. `edges(node)` lists `(transition, node)` pairs; a node it
/// returns `None` for is not part of the graph.
///
/// The search counts a unit of work per node in `budget`, and its memory
/// (a colour per node, the stack and the edges it holds) as the budget's
/// `other_bytes`, released when it returns.
pub fn find_cycle(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    mut edges: impl FnMut(usize) -> Option<Vec<(usize, usize)>>,
    budget: &mut Budget,
) -> Result<Option<Cycle>, Halt> {
    let before = budget.other_bytes;
    let found = search(n, roots, &mut edges, budget);
    budget.other_bytes = before;
    found
}

struct Entry {
    node: usize,
    edges: Vec<(usize, usize)>,
    next: usize,
}

fn search(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    edges: &mut impl FnMut(usize) -> Option<Vec<(usize, usize)>>,
    budget: &mut Budget,
) -> Result<Option<Cycle>, Halt> {
    const WHITE: u8 = 0;
    const GRAY: u8 = 1;
    const BLACK: u8 = 2;
    budget.afford(n as u64)?;
    let base = budget.other_bytes + n as u64;
    budget.other_bytes = base;
    let mut color = vec![WHITE; n];
    let size =
        |e: &Vec<(usize, usize)>| (e.capacity() * std::mem::size_of::<(usize, usize)>()) as u64;
    let mut stack: Vec<Entry> = Vec::new();
    // Bytes of the stack itself, and of the edge lists on it.
    let (mut stack_bytes, mut edge_bytes) = (0, 0);
    for root in roots {
        if color[root] != WHITE {
            continue;
        }
        let mut next = Some(root);
        while let Some(node) = next.take() {
            budget.tick()?;
            match edges(node) {
                Some(out) => {
                    color[node] = GRAY;
                    reserve_one(&mut stack, budget, &mut stack_bytes)?;
                    budget.other_bytes = base + stack_bytes + edge_bytes;
                    budget.afford(size(&out))?;
                    edge_bytes += size(&out);
                    budget.other_bytes = base + stack_bytes + edge_bytes;
                    stack.push(Entry {
                        node,
                        edges: out,
                        next: 0,
                    });
                }
                None => color[node] = BLACK,
            }
            while let Some(top) = stack.last_mut() {
                let Some(&(_, to)) = top.edges.get(top.next) else {
                    color[top.node] = BLACK;
                    edge_bytes -= size(&top.edges);
                    budget.other_bytes = base + stack_bytes + edge_bytes;
                    stack.pop();
                    continue;
                };
                top.next += 1;
                match color[to] {
                    WHITE => {
                        next = Some(to);
                        break;
                    }
                    GRAY => {
                        // A gray node is on the stack.
                        let pos = stack.iter().position(|e| e.node == to).unwrap_or(0);
                        let transitions =
                            stack[pos..].iter().map(|e| e.edges[e.next - 1].0).collect();
                        return Ok(Some(Cycle {
                            start: to,
                            transitions,
                        }));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(None)
}

/// The failure of loop instance `inst` for a cycle of `transitions` from
/// state `start`: the cycle is replayed, so every state shown is exact.
///
/// The cycle was found in a graph where q may not be part of a node (q does
/// not matter to WFfiniteInvis), so a round may set q and end in `start`
/// with q: then the witness is the next round, from there, which returns to
/// its start because q, once set, stays set.
pub fn witness(sys: &Sys, inst: &Inst, start: QState, transitions: &[usize]) -> Failure {
    let round = |from: &QState| {
        let mut cur = from.clone();
        let mut steps = Vec::new();
        for &k in transitions {
            if let Succ::Next { to, .. } = sys.succ(k, &cur) {
                cur = to;
            }
            steps.push((k, cur.clone()));
        }
        (cur, steps)
    };
    let (end, steps) = round(&start);
    if end == start {
        return inst.loop_failure(sys, start, steps);
    }
    let (_, steps) = round(&end);
    inst.loop_failure(sys, end, steps)
}
