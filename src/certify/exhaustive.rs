//! The exhaustive level: breadth-first search over the reachable states of
//! the full system with q, checking every obligation instance at every
//! reachable state, and the loop obligations on the reachable graph.

use hashbrown::{HashMap, HashSet};

use super::cycle::{find_cycle, witness};
use super::law::{Failure, Inst, Obligation, instances_at, invisible_loops};
use super::system::{QState, Succ, Sys};

/// The reachable states of the system with q, with a parent link each.
pub struct Reached {
    words: usize,
    data: Vec<u64>,
    index: HashMap<Vec<u64>, u32>,
    /// For each state but the first: (parent, transition).
    parent: Vec<(u32, u32)>,
    /// Whether every reachable state was stored (no limit was hit).
    pub complete: bool,
}

impl Reached {
    fn key(&self, sys: &Sys, st: &QState) -> Vec<u64> {
        let mut w = vec![0u64; self.words];
        sys.model.layout.pack(&st.s, &mut w[..self.words - 1]);
        w[self.words - 1] = u64::from(st.q);
        w
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// State `id`.
    pub fn get(&self, sys: &Sys, id: usize) -> QState {
        let w = &self.data[id * self.words..(id + 1) * self.words];
        let mut s = vec![0; sys.model.slots.len()];
        sys.model.layout.unpack(&w[..self.words - 1], &mut s);
        QState {
            s,
            q: w[self.words - 1] != 0,
        }
    }

    /// The id of a stored state.
    pub fn find(&self, sys: &Sys, st: &QState) -> Option<usize> {
        self.index.get(&self.key(sys, st)).map(|&i| i as usize)
    }

    fn insert(&mut self, sys: &Sys, st: &QState, parent: (u32, u32)) -> bool {
        let key = self.key(sys, st);
        if self.index.contains_key(&key) {
            return false;
        }
        self.index.insert(key.clone(), self.parent.len() as u32);
        self.data.extend_from_slice(&key);
        self.parent.push(parent);
        true
    }

    /// The transitions from the initial state to state `id`, with the
    /// state after each.
    pub fn path(&self, sys: &Sys, id: usize) -> Vec<(usize, QState)> {
        let mut ids = vec![id];
        let mut cur = id;
        while cur != 0 {
            cur = self.parent[cur].0 as usize;
            ids.push(cur);
        }
        ids.reverse();
        ids[1..]
            .iter()
            .map(|&i| (self.parent[i].1 as usize, self.get(sys, i)))
            .collect()
    }

    /// Every stored state.
    pub fn states(&self, sys: &Sys) -> Vec<QState> {
        (0..self.len()).map(|i| self.get(sys, i)).collect()
    }
}

/// What the exhaustive level found for one law.
#[derive(Default)]
pub struct LawFindings {
    /// Distinct instances checked.
    pub instances: HashSet<Inst>,
    /// Distinct instances that fail.
    pub failing: HashSet<Inst>,
    /// The first failure, in breadth-first order.
    pub witness: Option<Failure>,
}

/// The outcome of the exhaustive level.
pub struct Exhaustive {
    /// The reachable states.
    pub reached: Reached,
    /// Per law, what was found.
    pub findings: Vec<(Obligation, LawFindings)>,
}

/// Explores the system with q from its initial state, storing at most
/// `max_states` states; when `check` is set, checks every obligation.
pub fn explore(sys: &Sys, max_states: u64, check: bool) -> Exhaustive {
    let model = sys.model;
    let words = model.layout.words() + 1;
    let mut reached = Reached {
        words,
        data: Vec::new(),
        index: HashMap::new(),
        parent: Vec::new(),
        complete: true,
    };
    let init = QState {
        s: model.init.clone(),
        q: sys.bad(&model.init),
    };
    reached.insert(sys, &init, (0, 0));
    let mut findings: Vec<(Obligation, LawFindings)> = Obligation::ALL
        .iter()
        .map(|&l| (l, LawFindings::default()))
        .collect();
    let record = |findings: &mut Vec<(Obligation, LawFindings)>,
                  reached: &Reached,
                  inst: &Inst,
                  id: usize,
                  failure: Option<Failure>| {
        let f = &mut findings
            .iter_mut()
            .find(|(l, _)| *l == inst.law())
            .expect("every law")
            .1;
        if !f.instances.contains(inst) {
            f.instances.insert(inst.clone());
        }
        if let Some(mut failure) = failure {
            f.failing.insert(inst.clone());
            if f.witness.is_none() {
                failure.reached_by = Some(reached.path(sys, id));
                f.witness = Some(failure);
            }
        }
    };
    if check {
        for law in [Obligation::InitVis, Obligation::InitExcl] {
            let inst = Inst::Init(law);
            let failure = inst.check(sys, &init);
            record(&mut findings, &reached, &inst, 0, failure);
        }
    }
    let mut live = Vec::new();
    let mut id = 0;
    while id < reached.len() {
        let st = reached.get(sys, id);
        for t in 0..sys.threads() {
            for k in sys.at(t, st.s[t]) {
                if let Succ::Next { to, .. } = sys.succ(k, &st) {
                    if reached.find(sys, &to).is_some() {
                        continue;
                    }
                    if reached.len() as u64 >= max_states {
                        reached.complete = false;
                        continue;
                    }
                    reached.insert(sys, &to, (id as u32, k as u32));
                }
            }
        }
        if check {
            instances_at(sys, &st, &mut live);
            for inst in &live {
                let failure = inst.check(sys, &st);
                record(&mut findings, &reached, inst, id, failure);
            }
        }
        id += 1;
    }
    if check {
        for i in 0..sys.threads() {
            for law in [Obligation::H11, Obligation::FiniteInvis] {
                for points in invisible_loops(sys, i) {
                    let inst = Inst::Loop { law, i, points };
                    let failure = find_loop(sys, &reached, &inst);
                    let at = failure.as_ref().map_or(0, |(id, _)| *id);
                    record(&mut findings, &reached, &inst, at, failure.map(|(_, f)| f));
                }
            }
        }
    }
    Exhaustive { reached, findings }
}

/// A reachable cycle of loop instance `inst`, with the id of its first state.
fn find_loop(sys: &Sys, reached: &Reached, inst: &Inst) -> Option<(usize, Failure)> {
    let n = reached.len();
    let cycle = find_cycle(n, 0..n, |id| {
        let st = reached.get(sys, id);
        Some(
            inst.loop_edges(sys, &st)
                .into_iter()
                .filter_map(|(k, to)| reached.find(sys, &to).map(|t| (k, t)))
                .collect(),
        )
    })?;
    let start = reached.get(sys, cycle.start);
    Some((cycle.start, witness(sys, inst, start, &cycle.transitions)))
}
