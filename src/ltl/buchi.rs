//! From an LTL-X formula to a generalised Büchi automaton: the tableau of
//! Gerth, Peled, Vardi and Wolper (PSTV 1995). Its states are the tableau's
//! nodes; a run reads a state of the model at each node it enters, and the
//! node's literals must hold there. One acceptance set per `U`
//! subformula: `p U q` is accepting where it is not promised or q holds,
//! so an accepting run keeps every promise.

use std::collections::BTreeSet;

use super::Ltl;

/// A state of the automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Whether a run may start here.
    pub initial: bool,
    /// The nodes a run may go to next.
    pub succ: Vec<usize>,
    /// Atoms that must be true in the state read here (bits).
    pub pos: u64,
    /// Atoms that must be false there (bits).
    pub neg: u64,
}

impl Node {
    /// Whether the valuation `w` (bits of true atoms) meets the node's
    /// literals.
    pub fn admits(&self, w: u64) -> bool {
        w & self.pos == self.pos && w & self.neg == 0
    }
}

/// A generalised Büchi automaton: a run is accepting when it visits every
/// acceptance set infinitely often (every run, when there are none).
#[derive(Clone, Debug)]
pub struct Automaton {
    /// Its states, in the order the tableau closed them.
    pub nodes: Vec<Node>,
    /// Per acceptance set, per node, membership.
    pub accepting: Vec<Vec<bool>>,
}

/// A node under construction: formulas still to expand (`new`), expanded
/// (`old`), and promised for the next state (`next`).
#[derive(Clone)]
struct Pending {
    incoming: BTreeSet<Option<usize>>,
    new: BTreeSet<Ltl>,
    old: BTreeSet<Ltl>,
    next: BTreeSet<Ltl>,
}

/// A closed node: where it can be entered from, and what it holds.
struct Closed {
    incoming: BTreeSet<Option<usize>>,
    old: BTreeSet<Ltl>,
    next: BTreeSet<Ltl>,
}

impl Automaton {
    /// The automaton of `f`, whose atoms must be below 64. It accepts
    /// exactly the infinite sequences of valuations on which `f` holds.
    pub fn of(f: &Ltl) -> Automaton {
        let f = f.nnf();
        let closed = tableau(&f);
        let mut nodes: Vec<Node> = closed.iter().map(node).collect();
        for (k, c) in closed.iter().enumerate() {
            for from in c.incoming.iter().flatten() {
                nodes[*from].succ.push(k);
            }
        }
        let accepting = accepting(&f, &closed);
        Automaton { nodes, accepting }
    }

    /// Per node, whether an accepting run can pass it infinitely often:
    /// it lies on a cycle, and its strongly connected component meets
    /// every acceptance set. A component of a product with this automaton
    /// projects into one component of the automaton, so the product's
    /// vertices at other nodes lie on no accepting cycle (the pruning of
    /// automaton components that are not accepting, as in Couvreur,
    /// "On-the-fly verification of linear temporal logic", 1999).
    pub fn live(&self) -> Vec<bool> {
        let succ: Vec<&[usize]> = self.nodes.iter().map(|n| n.succ.as_slice()).collect();
        let mut pred = vec![Vec::new(); self.nodes.len()];
        for (m, n) in self.nodes.iter().enumerate() {
            n.succ.iter().for_each(|&k| pred[k].push(m));
        }
        let pred: Vec<&[usize]> = pred.iter().map(Vec::as_slice).collect();
        // Memory linear in the nodes, time as the tableau's own closing.
        (0..self.nodes.len())
            .map(|m| {
                let (from, to) = (reach(&succ, m), reach(&pred, m));
                let with = |k: usize| from[k] && to[k];
                from[m]
                    && self
                        .accepting
                        .iter()
                        .all(|set| (0..set.len()).any(|k| set[k] && with(k)))
            })
            .collect()
    }
}

/// The nodes reachable from `m` by at least one edge of `edges`.
fn reach(edges: &[&[usize]], m: usize) -> Vec<bool> {
    let mut seen = vec![false; edges.len()];
    let mut todo = edges[m].to_vec();
    while let Some(k) = todo.pop() {
        if !std::mem::replace(&mut seen[k], true) {
            todo.extend_from_slice(edges[k]);
        }
    }
    seen
}

/// The closed nodes of the tableau of `f` (in negation normal form): each
/// pending node is expanded formula by formula until nothing is left to
/// expand, then closed.
fn tableau(f: &Ltl) -> Vec<Closed> {
    let mut closed: Vec<Closed> = Vec::new();
    let mut stack = vec![Pending {
        incoming: BTreeSet::from([None]),
        new: BTreeSet::from([f.clone()]),
        old: BTreeSet::new(),
        next: BTreeSet::new(),
    }];
    while let Some(mut n) = stack.pop() {
        let Some(g) = n.new.pop_first() else {
            close(n, &mut closed, &mut stack);
            continue;
        };
        if n.old.contains(&g) {
            stack.push(n);
            continue;
        }
        expand(&n, &g, &mut stack);
    }
    closed
}

/// An expanded node: merge it with a node that holds the same, or close it
/// and expand what it promises for the next state.
fn close(n: Pending, closed: &mut Vec<Closed>, stack: &mut Vec<Pending>) {
    match closed
        .iter_mut()
        .find(|c| c.old == n.old && c.next == n.next)
    {
        Some(c) => c.incoming.extend(n.incoming),
        None => {
            stack.push(Pending {
                incoming: BTreeSet::from([Some(closed.len())]),
                new: n.next.clone(),
                old: BTreeSet::new(),
                next: BTreeSet::new(),
            });
            closed.push(Closed {
                incoming: n.incoming,
                old: n.old,
                next: n.next,
            });
        }
    }
}

/// Expands formula `g` of node `n`: pushes the nodes it splits into (none
/// where `g` contradicts `n`).
fn expand(n: &Pending, g: &Ltl, stack: &mut Vec<Pending>) {
    // `with(n, adds, promises)`: n with `adds` to expand and
    // `promises` for the next state, g expanded.
    let with = |n: &Pending, adds: &[&Ltl], promises: bool| {
        let mut m = n.clone();
        for a in adds {
            if !m.old.contains(*a) {
                m.new.insert((*a).clone());
            }
        }
        if promises {
            m.next.insert(g.clone());
        }
        m.old.insert(g.clone());
        m
    };
    match g {
        Ltl::False => {}
        Ltl::True => stack.push(with(n, &[], false)),
        Ltl::Atom(_) | Ltl::Not(_) => {
            let opposite = match g {
                Ltl::Atom(a) => Ltl::Not(Box::new(Ltl::Atom(*a))),
                Ltl::Not(a) => (**a).clone(),
                _ => unreachable!(),
            };
            if !n.old.contains(&opposite) {
                stack.push(with(n, &[], false));
            }
        }
        Ltl::And(p, q) => stack.push(with(n, &[p, q], false)),
        Ltl::Or(p, q) => {
            stack.push(with(n, &[q], false));
            stack.push(with(n, &[p], false));
        }
        Ltl::Until(p, q) => {
            stack.push(with(n, &[q], false));
            stack.push(with(n, &[p], true));
        }
        Ltl::Release(p, q) => {
            stack.push(with(n, &[p, q], false));
            stack.push(with(n, &[q], true));
        }
    }
}

/// The automaton's node of a closed node: the atoms it requires true and
/// false (its successors are added after).
fn node(c: &Closed) -> Node {
    let (mut pos, mut neg) = (0u64, 0u64);
    for l in &c.old {
        match l {
            Ltl::Atom(a) => pos |= bit(*a),
            Ltl::Not(a) => {
                if let Ltl::Atom(a) = **a {
                    neg |= bit(a);
                }
            }
            _ => {}
        }
    }
    Node {
        initial: c.incoming.contains(&None),
        succ: Vec::new(),
        pos,
        neg,
    }
}

/// One acceptance set per `p U q` of `f`: the nodes that do not promise it
/// or fulfil it (hold q).
fn accepting(f: &Ltl, closed: &[Closed]) -> Vec<Vec<bool>> {
    let mut untils = BTreeSet::new();
    collect_untils(f, &mut untils);
    untils
        .iter()
        .map(|u| {
            let Ltl::Until(_, q) = u else { unreachable!() };
            closed
                .iter()
                .map(|c| !c.old.contains(u) || c.old.contains(&**q))
                .collect()
        })
        .collect()
}

fn bit(a: usize) -> u64 {
    assert!(a < 64, "an LTL formula reads at most 64 atoms");
    1 << a
}

/// Every `U` subformula of `f`.
fn collect_untils(f: &Ltl, out: &mut BTreeSet<Ltl>) {
    match f {
        Ltl::True | Ltl::False | Ltl::Atom(_) => {}
        Ltl::Not(p) => collect_untils(p, out),
        Ltl::And(p, q) | Ltl::Or(p, q) | Ltl::Release(p, q) => {
            collect_untils(p, out);
            collect_untils(q, out);
        }
        Ltl::Until(p, q) => {
            out.insert(f.clone());
            collect_untils(p, out);
            collect_untils(q, out);
        }
    }
}
