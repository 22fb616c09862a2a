//! The model's state graph as the temporal properties' search asks for
//! it: a state is numbered when an expansion first emits it, and expanded
//! (its edges computed and kept) the first time the product search enters
//! a vertex over it. The states no product vertex enters are never
//! expanded, so a property violated near the initial state costs the
//! states around that violation.
//!
//! The store keeps each state (or its 64-bit fingerprint under
//! `--hash-compact`, with the words of a state only until it is expanded),
//! and the graph keeps edges between numbers: a lasso is replayed from the
//! initial state by its transitions, and one that does not replay (a
//! fingerprint collision) is never reported.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Kept;
use super::budget::{Budget, Halt, reserve};
use super::outcome::{Limit, Problem, Stats, Verdict};
use super::parallel;
use super::search::{Expand, Stop};
use super::space::{Modelled, Space};
use super::store::{Insert, Room, Store, hash};
use super::symmetric::{Canonical, Quotient, Walk};
use super::visit::{Edges, Visit};
use crate::ltl::Bfs;
use crate::model::{Fault, LtlProperty, Model};
use crate::symmetry::Symmetry;

/// The expander of the temporal properties' graph, as a layer makes it.
pub(super) type Boxed<'m> = Box<dyn Expand + Send + 'm>;

/// A state not expanded yet.
const UNEXPANDED: u32 = u32::MAX;

/// Bytes a state's words take while it waits to be expanded under
/// `--hash-compact` (its words, and the map's entry).
fn waiting_bytes(words: usize) -> u64 {
    (words * 8 + 48) as u64
}

/// Bytes an edge's whole path takes (its transitions, and the map's entry).
fn long_bytes(path: &[u32]) -> u64 {
    (path.len() * 4 + 40) as u64
}

/// Makes room in `v` for `n` more within the budget's memory, counting
/// what `v` grows by in `other_bytes`.
#[inline]
fn room_for<T>(v: &mut Vec<T>, n: usize, budget: &mut Budget) -> Result<(), Halt> {
    let mut held = budget.other_bytes;
    reserve(v, n, budget, &mut held)?;
    budget.other_bytes = held;
    Ok(())
}

/// Appends `xs` to `v`, as [`room_for`] allows.
pub(super) fn keep<T: Copy>(v: &mut Vec<T>, xs: &[T], budget: &mut Budget) -> Result<(), Halt> {
    room_for(v, xs.len(), budget)?;
    v.extend_from_slice(xs);
    Ok(())
}

/// Pushes `x` onto `v`, as [`room_for`] allows.
#[inline]
pub(super) fn keep_one<T>(v: &mut Vec<T>, x: T, budget: &mut Budget) -> Result<(), Halt> {
    room_for(v, 1, budget)?;
    v.push(x);
    Ok(())
}

/// Appends `n` copies of `x` to `v`, as [`room_for`] allows.
pub(super) fn keep_n<T: Copy>(
    v: &mut Vec<T>,
    x: T,
    n: usize,
    budget: &mut Budget,
) -> Result<(), Halt> {
    room_for(v, n, budget)?;
    v.resize(v.len() + n, x);
    Ok(())
}

/// Bytes `v` holds.
pub(super) fn bytes_of<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// The graph, as far as it was asked for.
pub(crate) struct ModelGraph<'m> {
    model: &'m Model,
    props: &'m [&'m LtlProperty],
    /// Where the graph's states are representatives of orbits: the orbits.
    quotient: Option<Quotient<'m>>,
    /// The expander of a graph built as it is asked for; none for a graph
    /// built whole by [`ModelGraph::build`].
    exp: Option<Mutex<Boxed<'m>>>,
    store: Store<()>,
    compact: bool,
    /// Under `--hash-compact`: the words of states met, not yet expanded.
    waiting: HashMap<u32, Box<[u64]>>,
    /// Per state: its first edge, or UNEXPANDED; and its number of edges.
    start: Vec<u32>,
    degree: Vec<u32>,
    /// Per edge: its target, and its (first) transition.
    target: Vec<u32>,
    transition: Vec<u32>,
    /// The whole path of every edge that takes more than one transition
    /// (a reduced step's), by edge.
    long: HashMap<u32, Box<[u32]>>,
    /// Per state, per property asked: the atoms true there.
    vals: Vec<u64>,
    /// Per state: the threads with an edge, in words of 64.
    enabled: Vec<u64>,
    words: usize,
    /// Per property asked: the first state met where an atom faults.
    pub faults: Vec<Option<(u32, usize, Fault)>>,
    scratch: Scratch,
}

/// Buffers an expansion reuses: the state expanded, its successors' slots
/// one after another and their transitions, and a packed successor.
#[derive(Default)]
struct Scratch {
    state: Vec<i64>,
    flat: Vec<i64>,
    ks: Vec<u32>,
    /// The paths of more than one transition, by successor.
    long: Vec<(usize, Box<[u32]>)>,
    packed: Vec<u64>,
    /// A successor's representative, and what computing it reuses.
    canon: Vec<i64>,
    x: crate::symmetry::Scratch,
}

impl<'m> ModelGraph<'m> {
    /// The graph of `model` through `exp`, with its initial state (state 0)
    /// numbered; over the orbits of `sym` where given.
    pub fn new(
        model: &'m Model,
        props: &'m [&'m LtlProperty],
        exp: Boxed<'m>,
        kept: Kept,
        sym: Option<&'m Symmetry>,
        budget: &mut Budget,
    ) -> Result<Self, Halt> {
        let mut g = ModelGraph::empty(model, props, Some(Mutex::new(exp)), kept, sym);
        budget.check_start()?;
        let init = match &g.quotient {
            Some(q) => q.init().to_vec(),
            None => model.init.clone(),
        };
        let mut packed = vec![0; model.layout.words()];
        model.layout.pack(&init, &mut packed);
        g.number(&init, &packed, budget)?;
        Ok(g)
    }

    fn empty(
        model: &'m Model,
        props: &'m [&'m LtlProperty],
        exp: Option<Mutex<Boxed<'m>>>,
        kept: Kept,
        sym: Option<&'m Symmetry>,
    ) -> Self {
        let compact = kept == Kept::HashCompact;
        ModelGraph {
            model,
            props,
            quotient: sym.map(|sym| Quotient::new(model, sym)),
            exp,
            store: Store::indexed(if compact { 1 } else { model.layout.words() }),
            compact,
            waiting: HashMap::new(),
            start: Vec::new(),
            degree: Vec::new(),
            target: Vec::new(),
            transition: Vec::new(),
            long: HashMap::new(),
            vals: Vec::new(),
            enabled: Vec::new(),
            words: model.threads.len().div_ceil(64),
            faults: vec![None; props.len()],
            scratch: Scratch::default(),
        }
    }

    /// The whole graph of `model`, built by the search every check uses
    /// ([`parallel::search`]) through `exps`, one per worker: its states
    /// are numbered as a sequential breadth-first search meets them,
    /// whatever the number of workers; over the orbits of `sym` where
    /// given. The budget then holds the graph; where a limit stops the
    /// search, its statistics and the limit.
    pub fn build(
        model: &'m Model,
        props: &'m [&'m LtlProperty],
        exps: &mut [Boxed<'m>],
        options: &super::Options,
        sym: Option<&'m Symmetry>,
        budget: &mut Budget,
    ) -> Result<Self, (Stats, Limit)> {
        let mut rec = Recorder::new(model, props, options.kept, sym);
        let o = match sym {
            Some(sym) => {
                let space = Quotient::new(model, sym);
                let mut canon: Vec<_> = exps.iter_mut().map(|e| Canonical::new(e, sym)).collect();
                record(&space, &mut canon, options, budget, &mut rec)
            }
            None => record(model, exps, options, budget, &mut rec),
        };
        match o.verdict {
            Verdict::Holds => {
                budget.stored = o.stats.states;
                budget.store_bytes = o.stats.memory;
                Ok(rec.0)
            }
            Verdict::Inconclusive(limit) => Err((rec.0.stats(o.stats.memory), limit)),
            _ => Err((
                rec.0.stats(o.stats.memory),
                Limit::Internal("a transition fails that the safety check passed"),
            )),
        }
    }

    /// What the store keeps of a state.
    pub fn kept(&self) -> Kept {
        if self.compact {
            Kept::HashCompact
        } else {
            Kept::Exact
        }
    }

    /// States numbered.
    pub fn states(&self) -> usize {
        self.start.len()
    }

    /// The atoms of the `n`th property asked true in state `s`.
    pub fn val(&self, s: u32, n: usize) -> u64 {
        self.vals[s as usize * self.props.len() + n]
    }

    /// The threads with an edge from `s`, in words of 64 (none until `s`
    /// is expanded).
    pub fn enabled_words(&self, s: u32) -> &[u64] {
        &self.enabled[s as usize * self.words..(s as usize + 1) * self.words]
    }

    /// Whether thread `t` has an edge from `s` (false until `s` is
    /// expanded).
    pub fn enabled(&self, s: u32, t: usize) -> bool {
        self.enabled[s as usize * self.words + t / 64] >> (t % 64) & 1 == 1
    }

    /// Threads of the model.
    pub fn threads(&self) -> usize {
        self.model.threads.len()
    }

    /// The thread that moves on transition `k`.
    pub fn thread(&self, k: u32) -> u32 {
        self.model.transitions[k as usize].thread
    }

    /// The edge `e`: its target and (first) transition.
    pub fn edge(&self, e: usize) -> (u32, u32) {
        (self.target[e], self.transition[e])
    }

    /// The transitions of edge `e`.
    pub fn path(&self, e: u32) -> &[u32] {
        match self.long.get(&e) {
            Some(path) => path,
            None => std::slice::from_ref(&self.transition[e as usize]),
        }
    }

    /// Keeps `path` as the whole path of edge `e`.
    fn keep_long(&mut self, e: u32, path: Box<[u32]>, budget: &mut Budget) {
        budget.other_bytes += long_bytes(&path);
        self.long.insert(e, path);
    }

    /// The graph's size, for reports: states numbered, edges kept, and
    /// `memory` bytes held.
    pub fn stats(&self, memory: u64) -> Stats {
        Stats {
            states: self.states() as u64,
            transitions: self.target.len() as u64,
            fired: self.target.len() as u64,
            memory,
            ..Stats::default()
        }
    }

    /// Bytes held besides the store.
    pub fn bytes(&self) -> u64 {
        bytes_of(&self.start)
            + bytes_of(&self.degree)
            + bytes_of(&self.target)
            + bytes_of(&self.transition)
            + bytes_of(&self.vals)
            + bytes_of(&self.enabled)
            + self.long.values().map(|p| long_bytes(p)).sum::<u64>()
            + self.waiting.len() as u64 * waiting_bytes(self.model.layout.words())
    }

    /// Numbers the state `s` (packed: `packed`) if it is new; its number.
    fn number(&mut self, s: &[i64], packed: &[u64], budget: &mut Budget) -> Result<u32, Halt> {
        // Under `--hash-compact` the key is the fingerprint, and the words
        // wait beside it until the state is expanded.
        let fingerprint = [if self.compact { hash(packed) } else { 0 }];
        let waiting = if self.compact {
            waiting_bytes(packed.len())
        } else {
            0
        };
        let key: &[u64] = if self.compact { &fingerprint } else { packed };
        let room = || {
            let r = budget.room();
            Room {
                bytes: r.bytes.saturating_sub(waiting),
                ..r
            }
        };
        let id = match self.store.insert(key, (), room) {
            Ok(Insert::Old(id)) => return Ok(id.expect("an indexed store")),
            Ok(Insert::New(id)) => id,
            Err(full) => return Err(budget.full(full)),
        };
        budget.stored += 1;
        budget.store_bytes = self.store.bytes();
        if self.compact {
            self.waiting.insert(id, packed.into());
            budget.other_bytes += waiting;
        }
        keep_one(&mut self.start, UNEXPANDED, budget)?;
        keep_one(&mut self.degree, 0, budget)?;
        keep_n(&mut self.enabled, 0, self.words, budget)?;
        let props = self.props;
        for (n, p) in props.iter().enumerate() {
            let v = p.valuation(s).unwrap_or_else(|(atom, f)| {
                self.faults[n].get_or_insert((id, atom, f));
                0
            });
            keep_one(&mut self.vals, v, budget)?;
        }
        Ok(id)
    }

    /// The edges of `s`, expanding it first if it was not.
    pub fn edges(&mut self, s: u32, budget: &mut Budget) -> Result<std::ops::Range<usize>, Halt> {
        if self.start[s as usize] == UNEXPANDED {
            self.expand(s, budget)?;
        }
        let start = self.start[s as usize] as usize;
        Ok(start..start + self.degree[s as usize] as usize)
    }

    fn expand(&mut self, s: u32, budget: &mut Budget) -> Result<(), Halt> {
        let layout = &self.model.layout;
        let mut sc = std::mem::take(&mut self.scratch);
        sc.state.resize(self.model.init.len(), 0);
        match self.waiting.remove(&s) {
            Some(w) => {
                budget.other_bytes -= waiting_bytes(w.len());
                layout.unpack(&w, &mut sc.state);
            }
            None => layout.unpack(self.store.get(s), &mut sc.state),
        }
        sc.flat.clear();
        sc.ks.clear();
        sc.long.clear();
        let (flat, ks, long) = (&mut sc.flat, &mut sc.ks, &mut sc.long);
        let (canon, x, quotient) = (&mut sc.canon, &mut sc.x, &self.quotient);
        let exp = self
            .exp
            .as_mut()
            .expect("a graph built whole has every state expanded");
        let exp = exp
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let r = exp.expand(&sc.state, budget, &mut |t, path, _| {
            match quotient {
                Some(q) => flat.extend_from_slice(q.canonical(t, canon, x)),
                None => flat.extend_from_slice(t),
            }
            if path.len() > 1 {
                long.push((ks.len(), path.into()));
            }
            ks.push(path[0]);
            Ok(())
        });
        // What a reduced step's run notes for the safety report (where
        // transactions began, states ended by force) is not wanted here.
        exp.take_findings(&mut super::search::Findings::default());
        let r = match r {
            Ok(_) => self.add_edges(s, &mut sc, budget),
            Err(Stop::Halt) => Err(Halt),
            Err(Stop::Found(_)) => Err(budget.stop(Limit::Internal(
                "a transition fails that the safety check passed",
            ))),
        };
        self.scratch = sc;
        r
    }

    /// Numbers the successors of `s` in `sc` and keeps its edges.
    fn add_edges(&mut self, s: u32, sc: &mut Scratch, budget: &mut Budget) -> Result<(), Halt> {
        let layout = &self.model.layout;
        let start = self.target.len() as u32;
        sc.packed.resize(layout.words(), 0);
        for (i, path) in sc.long.drain(..) {
            self.keep_long(start + i as u32, path, budget);
        }
        let at = s as usize * self.words;
        for (t, &k) in sc.flat.chunks(sc.state.len().max(1)).zip(&sc.ks) {
            layout.pack(t, &mut sc.packed);
            let id = self.number(t, &sc.packed, budget)?;
            keep_one(&mut self.target, id, budget)?;
            keep_one(&mut self.transition, k, budget)?;
            let th = self.model.transitions[k as usize].thread as usize;
            self.enabled[at + th / 64] |= 1 << (th % 64);
        }
        self.start[s as usize] = start;
        self.degree[s as usize] = self.target.len() as u32 - start;
        Ok(())
    }

    /// The transitions of a shortest path from the initial state to `s`
    /// through the states expanded so far.
    pub fn path_to(&self, s: u32) -> Vec<u32> {
        let mut edges = |v: u32, out: &mut Vec<(u32, u32)>, _: &mut Budget| {
            if self.start[v as usize] != UNEXPANDED {
                let start = self.start[v as usize];
                let end = start + self.degree[v as usize];
                out.extend((start..end).map(|e| (self.target[e as usize], e)));
            }
            Ok(())
        };
        // Unlimited: the search that built the graph was within its limits.
        let found = Bfs::default().path(
            &[0],
            &|_| true,
            &|v| v == s,
            &mut edges,
            &mut Budget::unlimited(),
        );
        let (_, path, _) = found.ok().flatten().expect("every state met is reachable");
        self.unfold(&path, &[])
            .map(|(stem, _)| stem)
            .unwrap_or_default()
    }

    /// The system's transitions along the edges `stem` from the initial
    /// state, then round the edges `cycle` (from where `stem` ends) as
    /// often as it takes the system to come back to the state it entered
    /// the cycle at: once, unless the states are representatives of
    /// orbits, where going round permutes the copies, and going round as
    /// often as that permutation's order closes the cycle (Emerson and
    /// Sistla, "Symmetry and model checking", 1996). None where that takes
    /// more than [`UNFOLDED`] transitions.
    pub fn unfold(&self, stem: &[u32], cycle: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
        let Some(q) = &self.quotient else {
            let real = |es: &[u32]| {
                es.iter()
                    .flat_map(|&e| self.path(e).iter().copied())
                    .collect()
            };
            return Some((real(stem), real(cycle)));
        };
        let mut walk = Walk::new(q);
        let stem = stem.iter().flat_map(|&e| walk.step(self.path(e))).collect();
        let entry = walk.state();
        let mut round = Vec::new();
        loop {
            for &e in cycle {
                round.extend(walk.step(self.path(e)));
            }
            if walk.state() == entry {
                return Some((stem, round));
            }
            if round.len() > UNFOLDED {
                return None;
            }
        }
    }
}

/// The most transitions a lasso's cycle over orbits may take once
/// unfolded into a cycle of the system.
const UNFOLDED: usize = 1 << 22;

/// The search of `space` through `exps` that records its graph in `rec`.
fn record<S: Modelled, E: Expand + Send>(
    space: &S,
    exps: &mut [E],
    options: &super::Options,
    budget: &Budget,
    rec: &mut Recorder,
) -> super::Outcome {
    parallel::search(
        space,
        exps,
        budget.clone(),
        false,
        options.block,
        options.kept,
        false,
        &mut |_| {},
        rec,
    )
}

/// The whole graph as the search meets it: the visitor of
/// [`parallel::search`] that [`ModelGraph::build`] runs, and that the
/// safety check runs where it explores the same graph.
/// Every edge's whole path is kept where it takes more than one
/// transition (a reduced step's).
pub(crate) struct Recorder<'m>(ModelGraph<'m>);

impl<'m> Recorder<'m> {
    /// Records the graph of `model` for the properties `props`, over the
    /// orbits of `sym` where given (the search's space must be those).
    pub fn new(
        model: &'m Model,
        props: &'m [&'m LtlProperty],
        kept: Kept,
        sym: Option<&'m Symmetry>,
    ) -> Self {
        Recorder(ModelGraph::empty(model, props, None, kept, sym))
    }

    /// The graph recorded by a search that met every state.
    pub fn into_graph(self) -> ModelGraph<'m> {
        self.0
    }
}

/// What a block of states records: per state, each property's valuation;
/// the atoms that fault, as (state, property, atom, fault).
#[derive(Default)]
pub(crate) struct Valuations {
    vals: Vec<u64>,
    faults: Vec<(u32, usize, usize, Fault)>,
}

impl<S: Modelled> Visit<S> for Recorder<'_> {
    const EDGES: bool = true;
    const PATHS: bool = true;
    type Record = Valuations;

    fn initial(&self, space: &S, _: &[i64]) -> Option<Problem> {
        let model = space.model();
        super::search::check_state(model, &model.init)
    }

    fn state(&self, id: u32, s: &[i64], record: &mut Valuations) {
        for (n, p) in self.0.props.iter().enumerate() {
            let v = p.valuation(s).unwrap_or_else(|(atom, f)| {
                record.faults.push((id, n, atom, f));
                0
            });
            record.vals.push(v);
        }
    }

    fn absorb(
        &mut self,
        record: Valuations,
        edges: &Edges,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        let g = &mut self.0;
        keep(&mut g.vals, &record.vals, budget)?;
        for (id, n, atom, f) in record.faults {
            g.faults[n].get_or_insert((id, atom, f));
        }
        // The whole block at once: this runs between levels, on one thread.
        let mut e = g.target.len();
        keep(&mut g.target, &edges.target, budget)?;
        keep(&mut g.transition, &edges.transition, budget)?;
        keep(&mut g.degree, &edges.degree, budget)?;
        room_for(&mut g.start, edges.degree.len(), budget)?;
        let mut at = g.enabled.len();
        keep_n(&mut g.enabled, 0, edges.degree.len() * g.words, budget)?;
        for (i, path) in edges.long_paths() {
            g.keep_long((e + i) as u32, path.into(), budget);
        }
        for &d in &edges.degree {
            g.start.push(e as u32);
            for &k in &g.transition[e..e + d as usize] {
                let t = g.model.transitions[k as usize].thread as usize;
                g.enabled[at + t / 64] |= 1 << (t % 64);
            }
            e += d as usize;
            at += g.words;
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.0.bytes()
    }
}
