//! The exhaustive level: breadth-first search over the reachable states of
//! the full system with q, checking every obligation instance at every
//! reachable state, and the loop obligations on the reachable graph.

use hashbrown::HashSet;

use super::cycle::{find_cycle, witness};
use super::law::{Failure, Inst, Obligation, instances_at, invisible_loops};
use super::system::{QState, Succ, Sys};
use crate::explore::{Budget, Full, Halt, Insert, Limit, Room, Store};

/// The reachable states of the system with q, with a parent link each:
/// packed (the state, then q as a last word) in the checker's own store, so
/// that they are counted against the memory limit like any search's.
pub struct Reached {
    words: usize,
    /// For each state: (parent, transition); the first is its own parent.
    store: Store<(u32, u32)>,
    /// Whether every reachable state was stored (no state limit was hit).
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
        self.store.len()
    }

    /// State `id`.
    pub fn get(&self, sys: &Sys, id: usize) -> QState {
        let w = self.store.get(id as u32);
        let mut s = vec![0; sys.model.slots.len()];
        sys.model.layout.unpack(&w[..self.words - 1], &mut s);
        QState {
            s,
            q: w[self.words - 1] != 0,
        }
    }

    /// The id of a stored state.
    pub fn find(&self, sys: &Sys, st: &QState) -> Option<usize> {
        self.store.find(&self.key(sys, st)).map(|i| i as usize)
    }

    fn insert(
        &mut self,
        sys: &Sys,
        st: &QState,
        parent: (u32, u32),
        room: Room,
    ) -> Result<bool, Full> {
        let key = self.key(sys, st);
        match self.store.insert(&key, parent, || room)? {
            Insert::New(_) => Ok(true),
            Insert::Old(_) => Ok(false),
        }
    }

    /// The transitions from the initial state to state `id`, with the
    /// state after each.
    pub fn path(&self, sys: &Sys, id: usize) -> Vec<(usize, QState)> {
        let mut ids = vec![id];
        let mut cur = id;
        while cur != 0 {
            cur = self.store.note(cur as u32).0 as usize;
            ids.push(cur);
        }
        ids.reverse();
        ids[1..]
            .iter()
            .map(|&i| (self.store.note(i as u32).1 as usize, self.get(sys, i)))
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
    /// Whether the law was checked everywhere it must be (all of the
    /// reachable states, or all of its loops), so that no failure means
    /// that it holds.
    pub done: bool,
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
///
/// A state limit leaves the exploration incomplete, and the obligations are
/// still checked on the states stored. A time or memory limit (recorded in
/// `budget`) ends it at once: the laws not done by then stay not done.
pub fn explore(sys: &Sys, max_states: u64, check: bool, budget: &mut Budget) -> Exhaustive {
    let model = sys.model;
    let words = model.layout.words() + 1;
    let mut reached = Reached {
        words,
        store: Store::indexed(words),
        complete: true,
    };
    let mut findings: Vec<(Obligation, LawFindings)> = Obligation::ALL
        .iter()
        .map(|&l| (l, LawFindings::default()))
        .collect();
    // A halt is recorded in the budget; the findings say how far it got.
    let _ = run(sys, max_states, check, budget, &mut reached, &mut findings);
    Exhaustive { reached, findings }
}

fn record(
    sys: &Sys,
    findings: &mut [(Obligation, LawFindings)],
    reached: &Reached,
    inst: &Inst,
    id: usize,
    failure: Option<Failure>,
) {
    let Some((_, f)) = findings.iter_mut().find(|(l, _)| *l == inst.law()) else {
        return;
    };
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
}

fn set_done(findings: &mut [(Obligation, LawFindings)], laws: &[Obligation]) {
    for (l, f) in findings.iter_mut() {
        if laws.contains(l) {
            f.done = true;
        }
    }
}

/// The exploration proper; a halt leaves `findings` as far as they got.
fn run(
    sys: &Sys,
    max_states: u64,
    check: bool,
    budget: &mut Budget,
    reached: &mut Reached,
    findings: &mut [(Obligation, LawFindings)],
) -> Result<(), Halt> {
    let model = sys.model;
    budget.check_start()?;
    let init = QState {
        s: model.init.clone(),
        q: sys.bad(&model.init),
    };
    let room = |budget: &Budget, reached: &Reached| Room {
        states: max_states.saturating_sub(reached.len() as u64),
        bytes: budget.room().bytes,
    };
    match reached.insert(sys, &init, (0, 0), room(budget, reached)) {
        Ok(_) => {}
        Err(Full::States) => {
            reached.complete = false;
            return Err(budget.stop(Limit::States(max_states)));
        }
        Err(Full::Memory) => return Err(budget.full(Full::Memory)),
    }
    budget.store_bytes = reached.store.bytes();
    if check {
        for law in [Obligation::InitVis, Obligation::InitExcl] {
            let inst = Inst::Init(law);
            let failure = inst.check(sys, &init);
            record(sys, findings, reached, &inst, 0, failure);
        }
        set_done(findings, &[Obligation::InitVis, Obligation::InitExcl]);
    }
    let mut live = Vec::new();
    let mut id = 0;
    while id < reached.len() {
        budget.tick()?;
        let st = reached.get(sys, id);
        for t in 0..sys.threads() {
            for k in sys.at(t, st.s[t]) {
                if let Succ::Next { to, .. } = sys.succ(k, &st) {
                    budget.tick()?;
                    match reached.insert(sys, &to, (id as u32, k as u32), room(budget, reached)) {
                        Ok(_) => budget.store_bytes = reached.store.bytes(),
                        Err(Full::States) => reached.complete = false,
                        Err(Full::Memory) => return Err(budget.full(Full::Memory)),
                    }
                }
            }
        }
        if check {
            instances_at(sys, &st, &mut live);
            for inst in &live {
                let failure = inst.check(sys, &st);
                record(sys, findings, reached, inst, id, failure);
            }
        }
        id += 1;
    }
    let loops = [Obligation::H11, Obligation::FiniteInvis];
    if check && reached.complete {
        let others: Vec<Obligation> = Obligation::ALL
            .iter()
            .copied()
            .filter(|l| !loops.contains(l))
            .collect();
        set_done(findings, &others);
    }
    if check {
        for law in loops {
            for i in 0..sys.threads() {
                for points in invisible_loops(sys, i) {
                    let inst = Inst::Loop { law, i, points };
                    let failure = find_loop(sys, reached, &inst, budget)?;
                    let at = failure.as_ref().map_or(0, |(id, _)| *id);
                    record(sys, findings, reached, &inst, at, failure.map(|(_, f)| f));
                }
            }
            if reached.complete {
                set_done(findings, &[law]);
            }
        }
    }
    Ok(())
}

/// A reachable cycle of loop instance `inst`, with the id of its first state.
fn find_loop(
    sys: &Sys,
    reached: &Reached,
    inst: &Inst,
    budget: &mut Budget,
) -> Result<Option<(usize, Failure)>, Halt> {
    let n = reached.len();
    let cycle = find_cycle(
        n,
        0..n,
        |id| {
            let st = reached.get(sys, id);
            Some(
                inst.loop_edges(sys, &st)
                    .into_iter()
                    .filter_map(|(k, to)| reached.find(sys, &to).map(|t| (k, t)))
                    .collect(),
            )
        },
        budget,
    )?;
    Ok(cycle.map(|c| {
        let start = reached.get(sys, c.start);
        (c.start, witness(sys, inst, start, &c.transitions))
    }))
}
