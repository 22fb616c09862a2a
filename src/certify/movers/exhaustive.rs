//! The exhaustive level of the movers obligations: breadth-first search
//! over the reachable states of the instrumented system (the model's
//! state, q and every thread's phase bit), checking every instance that
//! applies at every reachable state, and (11) on the reachable graph.

use hashbrown::HashSet;

use super::law::{MInst, MoverLaw, instances_at};
use super::local::lasso;
use super::system::{MState, MSys};
use crate::certify::cycle::find_cycle;
use crate::certify::law::Failure;
use crate::certify::system::QState;
use crate::explore::{Budget, Full, Halt, Insert, Limit, Room, Store};

/// The reachable instrumented states, with a parent link each, packed in
/// the checker's own store (counted against the memory limit).
pub struct Reached {
    words: usize,
    /// Words of the model's state.
    state_words: usize,
    /// For each state: (parent, transition); the first is its own parent.
    store: Store<(u32, u32)>,
    /// Whether every reachable state was stored.
    pub complete: bool,
}

impl Reached {
    fn key(&self, msys: &MSys, m: &MState) -> Vec<u64> {
        let mut w = vec![0u64; self.words];
        msys.sys
            .model
            .layout
            .pack(&m.st.s, &mut w[..self.state_words]);
        w[self.state_words] = u64::from(m.st.q);
        for (t, &b) in m.ph.iter().enumerate() {
            w[self.state_words + 1 + t / 64] |= u64::from(b) << (t % 64);
        }
        w
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// State `id`.
    pub fn get(&self, msys: &MSys, id: usize) -> MState {
        let w = self.store.get(id as u32);
        let model = msys.sys.model;
        let mut s = vec![0; model.slots.len()];
        model.layout.unpack(&w[..self.state_words], &mut s);
        let ph = (0..msys.threads())
            .map(|t| w[self.state_words + 1 + t / 64] >> (t % 64) & 1 == 1)
            .collect();
        MState {
            st: QState {
                s,
                q: w[self.state_words] != 0,
            },
            ph,
        }
    }

    /// The id of a stored state.
    pub fn find(&self, msys: &MSys, m: &MState) -> Option<usize> {
        self.store.find(&self.key(msys, m)).map(|i| i as usize)
    }

    fn insert(
        &mut self,
        msys: &MSys,
        m: &MState,
        parent: (u32, u32),
        room: Room,
    ) -> Result<bool, Full> {
        let key = self.key(msys, m);
        match self.store.insert(&key, parent, || room)? {
            Insert::New(_) => Ok(true),
            Insert::Old(_) => Ok(false),
        }
    }

    /// The transitions from the initial state to state `id`, with the
    /// state after each (as witnesses show them).
    pub fn path(&self, msys: &MSys, id: usize) -> Vec<(usize, QState)> {
        let mut ids = vec![id];
        let mut cur = id;
        while cur != 0 {
            cur = self.store.note(cur as u32).0 as usize;
            ids.push(cur);
        }
        ids.reverse();
        ids[1..]
            .iter()
            .map(|&i| {
                (
                    self.store.note(i as u32).1 as usize,
                    self.get(msys, i).shown(),
                )
            })
            .collect()
    }

    /// Every stored state.
    pub fn states(&self, msys: &MSys) -> Vec<MState> {
        (0..self.len()).map(|i| self.get(msys, i)).collect()
    }
}

/// What the exhaustive level found for one law.
#[derive(Default)]
pub struct LawFindings {
    /// Distinct instances checked.
    pub instances: HashSet<MInst>,
    /// Distinct instances that fail.
    pub failing: HashSet<MInst>,
    /// The first failure, in breadth-first order.
    pub witness: Option<Failure>,
    /// Whether the law was checked everywhere it must be.
    pub done: bool,
}

/// The outcome of the exhaustive level.
pub struct Exhaustive {
    /// The reachable states.
    pub reached: Reached,
    /// Per law, what was found.
    pub findings: Vec<(MoverLaw, LawFindings)>,
}

/// Explores the instrumented system from its initial state, storing at
/// most `max_states` states; when `check` is set, checks every obligation.
/// A state limit leaves the exploration incomplete (the obligations are
/// still checked on the states stored); a time or memory limit, recorded
/// in `budget`, ends it at once.
pub fn explore(msys: &MSys, max_states: u64, check: bool, budget: &mut Budget) -> Exhaustive {
    let model = msys.sys.model;
    let state_words = model.layout.words();
    let words = state_words + 1 + msys.threads().div_ceil(64);
    let mut reached = Reached {
        words,
        state_words,
        store: Store::indexed(words),
        complete: true,
    };
    let mut findings: Vec<(MoverLaw, LawFindings)> = MoverLaw::ALL
        .iter()
        .map(|&l| (l, LawFindings::default()))
        .collect();
    let _ = run(msys, max_states, check, budget, &mut reached, &mut findings);
    Exhaustive { reached, findings }
}

fn record(
    msys: &MSys,
    findings: &mut [(MoverLaw, LawFindings)],
    reached: &Reached,
    inst: &MInst,
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
            failure.reached_by = Some(reached.path(msys, id));
            f.witness = Some(failure);
        }
    }
}

fn set_done(findings: &mut [(MoverLaw, LawFindings)], laws: &[MoverLaw]) {
    for (l, f) in findings.iter_mut() {
        if laws.contains(l) {
            f.done = true;
        }
    }
}

fn run(
    msys: &MSys,
    max_states: u64,
    check: bool,
    budget: &mut Budget,
    reached: &mut Reached,
    findings: &mut [(MoverLaw, LawFindings)],
) -> Result<(), Halt> {
    budget.check_start()?;
    let init = msys.init();
    let room = |budget: &Budget, reached: &Reached| Room {
        states: max_states.saturating_sub(reached.len() as u64),
        bytes: budget.room().bytes,
    };
    match reached.insert(msys, &init, (0, 0), room(budget, reached)) {
        Ok(_) => {}
        Err(Full::States) => {
            reached.complete = false;
            return Err(budget.stop(Limit::States(max_states)));
        }
        Err(Full::Memory) => return Err(budget.full(Full::Memory)),
    }
    budget.store_bytes = reached.store.bytes();
    if check {
        let failure = MInst::Init.check(msys, &init);
        record(msys, findings, reached, &MInst::Init, 0, failure);
        set_done(findings, &[MoverLaw::InitN]);
    }
    let mut live = Vec::new();
    let mut id = 0;
    while id < reached.len() {
        budget.tick()?;
        let m = reached.get(msys, id);
        for t in 0..msys.threads() {
            for k in msys.at(t, m.st.s[t]) {
                if let Some(to) = msys.step(k, &m) {
                    budget.tick()?;
                    match reached.insert(msys, &to, (id as u32, k as u32), room(budget, reached)) {
                        Ok(_) => budget.store_bytes = reached.store.bytes(),
                        Err(Full::States) => reached.complete = false,
                        Err(Full::Memory) => return Err(budget.full(Full::Memory)),
                    }
                }
            }
        }
        if check {
            instances_at(msys, &m, &mut live);
            for inst in &live {
                let failure = inst.check(msys, &m);
                record(msys, findings, reached, inst, id, failure);
            }
        }
        id += 1;
    }
    if check && reached.complete {
        let others: Vec<MoverLaw> = MoverLaw::ALL
            .iter()
            .copied()
            .filter(|&l| l != MoverLaw::H11)
            .collect();
        set_done(findings, &others);
    }
    if check {
        for i in 0..msys.threads() {
            for points in msys.l_loops(i) {
                let inst = MInst::Loop { i, points };
                let failure = find_loop(msys, reached, &inst, budget)?;
                let at = failure.as_ref().map_or(0, |(id, _)| *id);
                record(msys, findings, reached, &inst, at, failure.map(|(_, f)| f));
            }
        }
        if reached.complete {
            set_done(findings, &[MoverLaw::H11]);
        }
    }
    Ok(())
}

/// A reachable cycle of loop instance `inst`, with the id of its first
/// state.
fn find_loop(
    msys: &MSys,
    reached: &Reached,
    inst: &MInst,
    budget: &mut Budget,
) -> Result<Option<(usize, Failure)>, Halt> {
    let n = reached.len();
    let cycle = find_cycle(
        n,
        0..n,
        |id| {
            let m = reached.get(msys, id);
            Some(
                inst.loop_edges(msys, &m)
                    .into_iter()
                    .filter_map(|(k, to)| reached.find(msys, &to).map(|t| (k, t)))
                    .collect(),
            )
        },
        budget,
    )?;
    Ok(cycle.map(|c| {
        let start = reached.get(msys, c.start);
        (c.start, lasso(msys, inst, &start, &c.transitions))
    }))
}
