//! The exhaustive level: breadth-first search over the reachable states of
//! the full system with q (and, for a theorem that has them, the phase
//! bits), checking every obligation instance at every reachable state, and
//! the loop obligations on the reachable graph. It is written once for
//! every [`Theorem`].

use hashbrown::HashSet;

use super::cycle::find_cycle;
use super::law::Failure;
use super::system::QState;
use super::theorem::{Laws, Theorem};
use crate::explore::{Budget, Full, Halt, Insert, Limit, Room, Store};

/// The reachable states, with a parent link each: packed (the model's
/// state, q as one word, then the phase bits, if any) in the checker's own
/// store, so that they are counted against the memory limit like any
/// search's.
pub struct Reached {
    words: usize,
    /// Words of the model's state.
    state_words: usize,
    /// For each state: (parent, transition); the first is its own parent.
    store: Store<(u32, u32)>,
    /// Whether every reachable state was stored (no state limit was hit).
    pub complete: bool,
}

impl Reached {
    fn key<T: Theorem>(&self, sys: &T, st: &T::State) -> Vec<u64> {
        let mut w = vec![0u64; self.words];
        let qs = T::qstate(st);
        sys.sys()
            .model
            .layout
            .pack(&qs.s, &mut w[..self.state_words]);
        w[self.state_words] = u64::from(qs.q);
        for (t, &b) in T::phase_bits(st).iter().enumerate() {
            w[self.state_words + 1 + t / 64] |= u64::from(b) << (t % 64);
        }
        w
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// State `id`.
    pub fn get<T: Theorem>(&self, sys: &T, id: usize) -> T::State {
        let w = self.store.get(id as u32);
        let model = sys.sys().model;
        let mut s = vec![0; model.slots.len()];
        model.layout.unpack(&w[..self.state_words], &mut s);
        let ph = (0..sys.phases())
            .map(|t| w[self.state_words + 1 + t / 64] >> (t % 64) & 1 == 1)
            .collect();
        let q = w[self.state_words] != 0;
        T::assemble(QState { s, q }, ph)
    }

    /// The id of a stored state.
    pub fn find<T: Theorem>(&self, sys: &T, st: &T::State) -> Option<usize> {
        self.store.find(&self.key(sys, st)).map(|i| i as usize)
    }

    fn insert<T: Theorem>(
        &mut self,
        sys: &T,
        st: &T::State,
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
    /// state after each (as witnesses show them).
    pub fn path<T: Theorem>(&self, sys: &T, id: usize) -> Vec<(usize, QState)> {
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
                let k = self.store.note(i as u32).1 as usize;
                (k, T::shown(&self.get(sys, i)))
            })
            .collect()
    }

    /// Every stored state.
    pub fn states<T: Theorem>(&self, sys: &T) -> Vec<T::State> {
        (0..self.len()).map(|i| self.get(sys, i)).collect()
    }
}

/// What the exhaustive level found for one law.
pub struct LawFindings<I> {
    /// Distinct instances checked.
    pub instances: HashSet<I>,
    /// Distinct instances that fail.
    pub failing: HashSet<I>,
    /// The first failure, in breadth-first order.
    pub witness: Option<Failure>,
    /// Whether the law was checked everywhere it must be (all of the
    /// reachable states, or all of its loops), so that no failure means
    /// that it holds.
    pub done: bool,
}

// Not derived: a derived `Default` would ask it of the instances too.
impl<I> Default for LawFindings<I> {
    fn default() -> Self {
        LawFindings {
            instances: HashSet::new(),
            failing: HashSet::new(),
            witness: None,
            done: false,
        }
    }
}

/// The outcome of the exhaustive level.
pub struct Exhaustive<T: Theorem> {
    /// The reachable states.
    pub reached: Reached,
    /// Per law, what was found.
    pub findings: Findings<T>,
}

/// Per law, what was found.
pub type Findings<T> = Vec<(<T as Theorem>::Law, LawFindings<<T as Theorem>::Inst>)>;

/// Explores the system from its initial state, storing at most
/// `max_states` states; when `check` is set, checks every obligation.
///
/// A state limit leaves the exploration incomplete, and the obligations are
/// still checked on the states stored. A time or memory limit (recorded in
/// `budget`) ends it at once: the laws not done by then stay not done.
pub fn explore<T: Theorem>(
    sys: &T,
    max_states: u64,
    check: bool,
    budget: &mut Budget,
) -> Exhaustive<T> {
    let state_words = sys.sys().model.layout.words();
    let words = state_words + 1 + sys.phases().div_ceil(64);
    let mut reached = Reached {
        words,
        state_words,
        store: Store::indexed(words),
        complete: true,
    };
    let mut findings: Findings<T> = T::Law::EVERY
        .iter()
        .map(|&l| (l, LawFindings::default()))
        .collect();
    // A halt is recorded in the budget; the findings say how far it got.
    let _ = run(sys, max_states, check, budget, &mut reached, &mut findings);
    Exhaustive { reached, findings }
}

fn record<T: Theorem>(
    sys: &T,
    findings: &mut Findings<T>,
    reached: &Reached,
    inst: &T::Inst,
    id: usize,
    failure: Option<Failure>,
) {
    let Some((_, f)) = findings.iter_mut().find(|(l, _)| *l == T::law(inst)) else {
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

fn set_done<T: Theorem>(findings: &mut Findings<T>, laws: &[T::Law]) {
    for (l, f) in findings.iter_mut() {
        if laws.contains(l) {
            f.done = true;
        }
    }
}

/// The room left in the store.
fn room(max_states: u64, budget: &Budget, reached: &Reached) -> Room {
    Room {
        states: max_states.saturating_sub(reached.len() as u64),
        bytes: budget.room().bytes,
    }
}

/// The exploration proper; a halt leaves `findings` as far as they got.
fn run<T: Theorem>(
    sys: &T,
    max_states: u64,
    check: bool,
    budget: &mut Budget,
    reached: &mut Reached,
    findings: &mut Findings<T>,
) -> Result<(), Halt> {
    budget.check_start()?;
    let init = sys.init();
    match reached.insert(sys, &init, (0, 0), room(max_states, budget, reached)) {
        Ok(_) => {}
        Err(Full::States) => {
            reached.complete = false;
            return Err(budget.stop(Limit::States(max_states)));
        }
        Err(Full::Memory) => return Err(budget.full(Full::Memory)),
    }
    budget.store_bytes = reached.store.bytes();
    if check {
        for inst in sys.init_instances() {
            let failure = sys.check(&inst, &init);
            record(sys, findings, reached, &inst, 0, failure);
        }
        set_done::<T>(findings, T::Law::INIT);
    }
    let mut live = Vec::new();
    let mut id = 0;
    while id < reached.len() {
        budget.tick()?;
        let st = reached.get(sys, id);
        successors(sys, max_states, budget, reached, id, &st)?;
        if check {
            sys.instances_at(&st, &mut live);
            for inst in &live {
                let failure = sys.check(inst, &st);
                record(sys, findings, reached, inst, id, failure);
            }
        }
        id += 1;
    }
    if check && reached.complete {
        let others: Vec<T::Law> = T::Law::EVERY
            .iter()
            .copied()
            .filter(|l| !T::Law::LOOPS.contains(l))
            .collect();
        set_done::<T>(findings, &others);
    }
    if check {
        check_loops(sys, budget, reached, findings)?;
    }
    Ok(())
}

/// Stores the successors of state `id`.
fn successors<T: Theorem>(
    sys: &T,
    max_states: u64,
    budget: &mut Budget,
    reached: &mut Reached,
    id: usize,
    st: &T::State,
) -> Result<(), Halt> {
    for t in 0..sys.sys().threads() {
        for k in sys.sys().at(t, T::qstate(st).s[t]) {
            if let Some(to) = sys.step(k, st) {
                budget.tick()?;
                let room = room(max_states, budget, reached);
                match reached.insert(sys, &to, (id as u32, k as u32), room) {
                    Ok(_) => budget.store_bytes = reached.store.bytes(),
                    Err(Full::States) => reached.complete = false,
                    Err(Full::Memory) => return Err(budget.full(Full::Memory)),
                }
            }
        }
    }
    Ok(())
}

/// The loop laws, on the reachable graph.
fn check_loops<T: Theorem>(
    sys: &T,
    budget: &mut Budget,
    reached: &Reached,
    findings: &mut Findings<T>,
) -> Result<(), Halt> {
    for &law in T::Law::LOOPS {
        for i in 0..sys.sys().threads() {
            for inst in sys.loop_instances(law, i) {
                let failure = find_loop(sys, reached, &inst, budget)?;
                let at = failure.as_ref().map_or(0, |(id, _)| *id);
                record(sys, findings, reached, &inst, at, failure.map(|(_, f)| f));
            }
        }
        if reached.complete {
            set_done::<T>(findings, &[law]);
        }
    }
    Ok(())
}

/// A reachable cycle of loop instance `inst`, with the id of its first state.
fn find_loop<T: Theorem>(
    sys: &T,
    reached: &Reached,
    inst: &T::Inst,
    budget: &mut Budget,
) -> Result<Option<(usize, Failure)>, Halt> {
    let n = reached.len();
    let cycle = find_cycle(
        n,
        0..n,
        |id| {
            let st = reached.get(sys, id);
            Some(
                sys.loop_edges(inst, &st)
                    .into_iter()
                    .filter_map(|(k, to)| reached.find(sys, &to).map(|t| (k, t)))
                    .collect(),
            )
        },
        budget,
    )?;
    Ok(cycle.map(|c| {
        let start = reached.get(sys, c.start);
        (c.start, sys.lasso(inst, start, &c.transitions))
    }))
}
