//! Finding a cycle in a graph given by its successor function, for the
//! loop obligations (11) and WFfiniteInvis at both levels.

use super::law::{Failure, Inst};
use super::system::{QState, Succ, Sys};

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
pub fn find_cycle(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    mut edges: impl FnMut(usize) -> Option<Vec<(usize, usize)>>,
) -> Option<Cycle> {
    const WHITE: u8 = 0;
    const GRAY: u8 = 1;
    const BLACK: u8 = 2;
    let mut color = vec![WHITE; n];
    struct Entry {
        node: usize,
        edges: Vec<(usize, usize)>,
        next: usize,
    }
    for root in roots {
        if color[root] != WHITE {
            continue;
        }
        let Some(out) = edges(root) else {
            color[root] = BLACK;
            continue;
        };
        color[root] = GRAY;
        let mut stack = vec![Entry {
            node: root,
            edges: out,
            next: 0,
        }];
        while let Some(top) = stack.last_mut() {
            let Some(&(_, to)) = top.edges.get(top.next) else {
                color[top.node] = BLACK;
                stack.pop();
                continue;
            };
            top.next += 1;
            match color[to] {
                WHITE => match edges(to) {
                    Some(out) => {
                        color[to] = GRAY;
                        stack.push(Entry {
                            node: to,
                            edges: out,
                            next: 0,
                        });
                    }
                    None => color[to] = BLACK,
                },
                GRAY => {
                    let pos = stack
                        .iter()
                        .position(|e| e.node == to)
                        .expect("a gray node is on the stack");
                    let transitions = stack[pos..].iter().map(|e| e.edges[e.next - 1].0).collect();
                    return Some(Cycle {
                        start: to,
                        transitions,
                    });
                }
                _ => {}
            }
        }
    }
    None
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
