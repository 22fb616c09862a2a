//! The exhaustive level: the reachable states of the full system with q
//! (and, for a theorem that has them, the phase bits), explored by the
//! search core of every check (`explore::search_space`) over a space of
//! their own, checking every obligation instance at every reachable state,
//! then the loop obligations on the reachable graph. It is written once
//! for every [`Theorem`].

use crate::explore::Problem;
use hashbrown::HashSet;

use super::cycle::find_cycle;
use super::law::Failure;
use super::system::QState;
use super::theorem::{Laws, Theorem};
use crate::explore::{
    Budget, Edges, Expand, Halt, Kept, Limit, Room, Space, Step, Stop, Store, Verdict, Visit,
    search_space,
};
use crate::model::Layout;

/// Marks a state whose parent is not known yet.
const NONE: (u32, u32) = (u32::MAX, u32::MAX);

/// The system's states as the search core sees them: the model's slots,
/// then q, then one slot per phase bit.
struct Phased<'a, T> {
    sys: &'a T,
    layout: Layout,
    init: Vec<i64>,
    /// Slots of the model's state.
    n: usize,
}

impl<'a, T: Theorem> Phased<'a, T> {
    fn new(sys: &'a T) -> Self {
        let model = sys.sys().model;
        let mut bounds = model.bounds.clone();
        bounds.extend(std::iter::repeat_n((0, 1), 1 + sys.phases()));
        let mut space = Phased {
            sys,
            layout: Layout::new(&bounds),
            init: Vec::new(),
            n: model.slots.len(),
        };
        flat_into::<T>(&sys.init(), &mut space.init);
        space
    }

    /// The theorem's state of slots `s`.
    fn state(&self, s: &[i64]) -> T::State {
        unflat::<T>(s, self.n)
    }
}

/// `st` as the slots of the space: the model's, q, then the phase bits.
fn flat_into<T: Theorem>(st: &T::State, out: &mut Vec<i64>) {
    let qs = T::qstate(st);
    out.clear();
    out.extend_from_slice(&qs.s);
    out.push(i64::from(qs.q));
    out.extend(T::phase_bits(st).iter().map(|&b| i64::from(b)));
}

/// The theorem's state of slots `s`, whose model state has `n` slots.
fn unflat<T: Theorem>(s: &[i64], n: usize) -> T::State {
    let q = QState {
        s: s[..n].to_vec(),
        q: s[n] != 0,
    };
    T::assemble(q, s[n + 1..].iter().map(|&b| b != 0).collect())
}

impl<T: Theorem> Space for Phased<'_, T> {
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn init(&self) -> &[i64] {
        &self.init
    }
    /// Certify asks about the obligations, not about deadlocks.
    fn ended(&self, _: &[i64]) -> bool {
        true
    }
    /// Never asked: the expander finds no violation, and deadlocks are
    /// not reported.
    fn trace<E: Expand>(&self, _: &mut E, _: &[u32], _: Vec<u32>, _: &mut Problem) -> Vec<Step> {
        Vec::new()
    }
}

/// Every transition of the theorem's system that is enabled.
struct Steps<'s, 'a, T> {
    space: &'s Phased<'a, T>,
    out: Vec<i64>,
}

impl<T: Theorem> Expand for Steps<'_, '_, T> {
    fn expand(
        &mut self,
        s: &[i64],
        budget: &mut Budget,
        emit: &mut crate::explore::Emit,
    ) -> Result<bool, Stop> {
        let (space, sys) = (self.space, self.space.sys);
        let st = space.state(s);
        for t in 0..sys.sys().threads() {
            for k in sys.sys().at(t, T::qstate(&st).s[t]) {
                if let Some(to) = sys.step(k, &st) {
                    budget.tick()?;
                    flat_into::<T>(&to, &mut self.out);
                    emit(&self.out, &[k as u32], budget)?;
                }
            }
        }
        // A state without successors is no concern of the obligations.
        Ok(true)
    }
}

/// The reachable states, with a parent link each: packed in the
/// checker's own store, so that they are counted against the memory
/// limit like any search's.
pub struct Reached {
    layout: Layout,
    /// Slots of the model's state, and of the space's.
    n: usize,
    slots: usize,
    store: Store<()>,
    /// For each state: (parent, transition); the first is its own parent.
    parent: Vec<(u32, u32)>,
    /// Whether every reachable state was stored (no state limit was hit).
    pub complete: bool,
}

impl Reached {
    fn key<T: Theorem>(&self, st: &T::State) -> Vec<u64> {
        let mut s = Vec::with_capacity(self.slots);
        flat_into::<T>(st, &mut s);
        let mut w = vec![0u64; self.layout.words()];
        self.layout.pack(&s, &mut w);
        w
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// State `id`.
    pub fn get<T: Theorem>(&self, _sys: &T, id: usize) -> T::State {
        let mut s = vec![0; self.slots];
        self.layout.unpack(self.store.get(id as u32), &mut s);
        unflat::<T>(&s, self.n)
    }

    /// The id of a stored state.
    pub fn find<T: Theorem>(&self, _sys: &T, st: &T::State) -> Option<usize> {
        self.store.find(&self.key::<T>(st)).map(|i| i as usize)
    }

    /// The transitions from the initial state to state `id`, with the
    /// state after each (as witnesses show them).
    pub fn path<T: Theorem>(&self, sys: &T, id: usize) -> Vec<(usize, QState)> {
        let mut ids = vec![id];
        let mut cur = id;
        while cur != 0 {
            cur = self.parent[cur].0 as usize;
            ids.push(cur);
        }
        ids.reverse();
        ids[1..]
            .iter()
            .map(|&i| {
                let k = self.parent[i].1 as usize;
                (k, T::shown(&self.get(sys, i)))
            })
            .collect()
    }

    /// Every stored state.
    pub fn states<T: Theorem>(&self, sys: &T) -> Vec<T::State> {
        (0..self.len()).map(|i| self.get(sys, i)).collect()
    }

    /// Bytes held.
    fn bytes(&self) -> u64 {
        self.store.bytes() + (self.parent.capacity() * 8) as u64
    }

    /// Stores a block of states (packed, one after another) in id order,
    /// and the first edge into each of their successors as its parent link.
    fn absorb(&mut self, packed: &[u64], edges: &Edges, room: Room) -> Result<(), Halt> {
        let base = self.len() as u32;
        for w in packed.chunks_exact(self.layout.words().max(1)) {
            if self.store.insert(w, (), || room).is_err() {
                return Err(Halt);
            }
        }
        let mut e = 0;
        for (i, &d) in edges.degree.iter().enumerate() {
            for e in e..e + d as usize {
                let t = edges.target[e] as usize;
                if t >= self.parent.len() {
                    self.parent.resize(t + 1, NONE);
                }
                if self.parent[t] == NONE {
                    self.parent[t] = (base + i as u32, edges.transition[e]);
                }
            }
            e += d as usize;
        }
        Ok(())
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
    /// The reachable states visited.
    pub reached: Reached,
    /// States stored: those visited, and at a state limit, as every search
    /// counts them, exactly the limit.
    pub stored: u64,
    /// Per law, what was found.
    pub findings: Findings<T>,
}

/// Per law, what was found.
pub type Findings<T> = Vec<(<T as Theorem>::Law, LawFindings<<T as Theorem>::Inst>)>;

/// Explores the system from its initial state, storing at most
/// `max_states` states; when `check` is set, checks every obligation.
///
/// The search is the one of every check, so it cuts where they cut: a
/// state limit ends it at the level that would pass the limit, and the
/// obligations are still checked on the states visited by then (loops
/// among them too). A time or memory limit (recorded in `budget`) ends it
/// at once: the laws not done by then stay not done.
pub fn explore<T: Theorem>(
    sys: &T,
    max_states: u64,
    check: bool,
    budget: &mut Budget,
) -> Exhaustive<T> {
    let space = Phased::new(sys);
    let mut visit = Checking {
        space: &space,
        check,
        reached: Reached {
            layout: space.layout.clone(),
            n: space.n,
            slots: space.init.len(),
            store: Store::indexed(space.layout.words()),
            parent: vec![(0, 0)],
            complete: true,
        },
        findings: T::Law::EVERY
            .iter()
            .map(|&l| (l, LawFindings::default()))
            .collect(),
    };
    let mut exps = [Steps {
        space: &space,
        out: Vec::new(),
    }];
    let within = budget.with_max_states(max_states);
    let o = search_space(
        &space,
        &mut exps,
        within,
        false,
        0,
        Kept::Exact,
        false,
        &mut |_| {},
        &mut visit,
    );
    let Checking {
        mut reached,
        mut findings,
        ..
    } = visit;
    match o.verdict {
        Verdict::Inconclusive(Limit::States(_)) => reached.complete = false,
        Verdict::Inconclusive(limit) => _ = budget.stop(limit),
        _ => {}
    }
    budget.store_bytes = reached.bytes();
    if check && reached.len() > 0 {
        // A halt is recorded in the budget; the findings say how far it got.
        let _ = check_rest(sys, budget, &reached, &mut findings);
    }
    Exhaustive {
        reached,
        findings,
        stored: o.stats.states,
    }
}

/// What the search visits: each state with the obligations that apply
/// there, checked on the worker that expands it.
struct Checking<'s, 'a, T: Theorem> {
    space: &'s Phased<'a, T>,
    check: bool,
    reached: Reached,
    findings: Findings<T>,
}

impl<T: Theorem> Checking<'_, '_, T> {
    /// Whether `inst` was checked in a level before, and whether it failed
    /// there: most are known after the first levels, and a block then
    /// records nothing for them.
    fn known(&self, inst: &T::Inst) -> (bool, bool) {
        self.findings
            .iter()
            .find(|(l, _)| *l == T::law(inst))
            .map_or((false, false), |(_, f)| {
                (f.instances.contains(inst), f.failing.contains(inst))
            })
    }
}

/// What a block of states records: the states, packed, the instances
/// checked (each once: a level holds many states), and each failure with
/// the id of its state.
struct Checked<I> {
    packed: Vec<u64>,
    checked: HashSet<I>,
    failed: Vec<(u32, I, Failure)>,
}

// Not derived: a derived `Default` would ask it of the instances too.
impl<I> Default for Checked<I> {
    fn default() -> Self {
        Checked {
            packed: Vec::new(),
            checked: HashSet::new(),
            failed: Vec::new(),
        }
    }
}

impl<'a, T: Theorem> Visit<Phased<'a, T>> for Checking<'_, 'a, T> {
    const EDGES: bool = true;
    type Record = Checked<T::Inst>;

    /// The initial state's instances are checked once it is stored.
    fn initial(&self, _: &Phased<'a, T>, _: &[i64]) -> Option<crate::explore::Problem> {
        None
    }

    fn state(&self, id: u32, s: &[i64], record: &mut Checked<T::Inst>) {
        let at = record.packed.len();
        record.packed.resize(at + self.space.layout.words(), 0);
        self.space.layout.pack(s, &mut record.packed[at..]);
        if self.check {
            let (sys, st) = (self.space.sys, self.space.state(s));
            let mut live = Vec::new();
            sys.instances_at(&st, &mut live);
            for inst in live {
                // Past its first failure, an instance's failures add
                // nothing to what is reported.
                let (checked, failed) = self.known(&inst);
                if failed {
                    continue;
                }
                if let Some(failure) = sys.check(&inst, &st)
                    && !record.failed.iter().any(|(_, i, _)| *i == inst)
                {
                    record.failed.push((id, inst.clone(), failure));
                }
                if !checked {
                    record.checked.insert(inst);
                }
            }
        }
    }

    fn absorb(
        &mut self,
        record: Checked<T::Inst>,
        edges: &Edges,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        budget.other_bytes = self.reached.bytes();
        let room = Room {
            states: u64::MAX,
            bytes: budget.room().bytes,
        };
        if self.reached.absorb(&record.packed, edges, room).is_err() {
            return Err(budget.full(crate::explore::Full::Memory));
        }
        let (sys, findings, reached) = (self.space.sys, &mut self.findings, &self.reached);
        for inst in record.checked {
            self::record(sys, findings, reached, &inst, 0, None);
        }
        for (id, inst, failure) in record.failed {
            self::record(sys, findings, reached, &inst, id as usize, Some(failure));
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.reached.bytes()
    }
}

/// Records what checking `inst` at state `id` found.
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

/// After the search: the initial state's laws, the laws done wherever the
/// search went everywhere, and the loop laws; a halt leaves `findings` as
/// far as they got.
fn check_rest<T: Theorem>(
    sys: &T,
    budget: &mut Budget,
    reached: &Reached,
    findings: &mut Findings<T>,
) -> Result<(), Halt> {
    let init = sys.init();
    for inst in sys.init_instances() {
        let failure = sys.check(&inst, &init);
        record(sys, findings, reached, &inst, 0, failure);
    }
    set_done::<T>(findings, T::Law::INIT);
    if budget.hit.is_some() {
        return Err(Halt);
    }
    if reached.complete {
        let others: Vec<T::Law> = T::Law::EVERY
            .iter()
            .copied()
            .filter(|l| !T::Law::LOOPS.contains(l))
            .collect();
        set_done::<T>(findings, &others);
    }
    check_loops(sys, budget, reached, findings)
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
