//! Checking `ltl` properties: the model's state graph (under a reduction
//! whose contract preserves LTL-X), the product with a Büchi automaton of
//! each property's negation, and a fair accepting lasso of the product
//! ([`crate::ltl::fair_lasso`]), which is a run of the model that violates
//! the property.
//!
//! A run that ends (every thread ended, or a deadlock) is extended by
//! repeating its last state for ever, as SPIN does (the stutter
//! extension): `<> done` fails on a run that deadlocks before `done`.
//!
//! The graph is built breadth first on one thread, whatever `--threads`
//! says, so the states, the lasso and the text are the same for every
//! number of workers. Its states are numbered in the order they are met;
//! the store keeps each state (or its 64-bit fingerprint under
//! `--hash-compact`), and the graph keeps edges between numbers, so a
//! lasso is replayed from the initial state by its transitions, and a
//! lasso that does not replay (a fingerprint collision) is never reported.

use std::collections::VecDeque;
use std::time::Duration;

use super::budget::{Budget, Halt, reserve_one};
use super::outcome::{Inapplicable, Limit, Stats, Step, Verdict};
use super::search::{Expand, StepResult, Stop, step};
use super::store::{Insert, Store};
use super::{Kept, Options, Preserved, Property};
use crate::ltl::{Automaton, Fairness, Graph, Ltl, STUTTER, fair_lasso};
use crate::model::{Fault, Model};

/// What an `ltl` check is asked.
#[derive(Clone, Debug, Default)]
pub struct LtlOptions {
    /// Which runs count.
    pub fairness: Fairness,
    /// Indices into `Model::ltl` of the properties to check.
    pub properties: Vec<usize>,
}

/// A violation of a property: a run that goes round `cycle` for ever
/// after `stem`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LassoTrace {
    /// From the initial state to the cycle's first state.
    pub stem: Vec<Step>,
    /// The cycle; empty when the run ends (every thread ended, or a
    /// deadlock) and its last state repeats for ever.
    pub cycle: Vec<Step>,
}

/// The result of one property.
#[derive(Clone, Debug)]
pub struct PropertyOutcome {
    /// Index into `Model::ltl`.
    pub property: usize,
    /// Holds, violated, or a limit.
    pub verdict: Verdict,
    /// The counterexample, when violated by a run.
    pub lasso: Option<LassoTrace>,
    /// An atom that cannot be evaluated in a reachable state: the atom's
    /// index, the fault, and the trace to that state.
    pub fault: Option<(usize, Fault, Vec<Step>)>,
    /// States of the automaton of the property's negation.
    pub automaton_states: usize,
    /// States of the product of the model and that automaton.
    pub product_states: u64,
    /// Wall-clock time of this property's search (after the graph).
    pub elapsed: Duration,
}

/// The result of checking some `ltl` properties.
#[derive(Clone, Debug)]
pub struct LtlOutcome {
    /// The fairness assumed.
    pub fairness: Fairness,
    /// Why the reduction or store cannot decide them (exit 3), if so.
    pub refused: Option<Inapplicable>,
    /// The model's graph: states, transitions, time and memory; partial
    /// when a limit stopped its construction.
    pub stats: Stats,
    /// A limit that stopped the graph's construction.
    pub limit: Option<Limit>,
    /// One per property asked, in the order asked (empty when refused or
    /// stopped before the properties).
    pub properties: Vec<PropertyOutcome>,
    /// `--hash-compact`: what the graph may have missed.
    pub coverage: Option<super::Coverage>,
}

impl LtlOutcome {
    /// The verdict over all properties: violated if one is, else
    /// inconclusive if one is, else holds.
    pub fn verdict(&self) -> Verdict {
        if let Some(why) = &self.refused {
            return Verdict::DoesNotApply(why.clone());
        }
        if let Some(l) = self.limit {
            return Verdict::Inconclusive(l);
        }
        let vs = self.properties.iter().map(|p| &p.verdict);
        vs.clone()
            .find(|v| matches!(v, Verdict::Violated))
            .or_else(|| vs.clone().find(|v| !matches!(v, Verdict::Holds)))
            .cloned()
            .unwrap_or(Verdict::Holds)
    }
}

/// Why `options` cannot decide LTL-X properties under `fairness`, if they
/// cannot: the reduction's contract, then the store.
pub fn ltl_refusal(options: &Options, fairness: Fairness) -> Option<Inapplicable> {
    let c = super::contract(options).ok()?;
    let refuse = |condition, message: String| {
        Some(Inapplicable {
            condition,
            message,
            place: None,
        })
    };
    match c.preserves(Property::Ltl) {
        Preserved::Yes => {}
        Preserved::Unfair if fairness == Fairness::None => {}
        Preserved::Unfair => {
            return refuse(
                "ltl",
                format!(
                    "`{}` preserves temporal properties only without fairness (Peled, \"Combining partial order reductions with on-the-fly model-checking\", 1994): the states it leaves out can hold the moves that {} fairness needs; use `--fairness none`, or `--reduction none`",
                    c.name,
                    fairness.name()
                ),
            );
        }
        Preserved::No | Preserved::Stored => {
            return refuse(
                "ltl",
                format!(
                    "`{}` does not preserve temporal properties: its reduction theorem is about the states a run reaches, not the order in which it reaches them, and a transaction hides when an atom changes and whether a waiting thread is ever scheduled; use `--reduction none` (or `stubborn` with `--fairness none`)",
                    c.name
                ),
            );
        }
    }
    if let Kept::Bitstate { .. } = options.kept {
        return refuse(
            "store",
            "`--bitstate` keeps no number for a state, and the search for a cycle needs one: use `--hash-compact` (fingerprints) or the exact store".into(),
        );
    }
    None
}

/// Checks the properties `ltl` names on `model` under `options` (its
/// reduction, limits and store). Call it once the safety check holds:
/// the graph assumes no transition fails.
pub fn check_ltl(model: &Model, options: &Options, ltl: &LtlOptions) -> LtlOutcome {
    let mut out = LtlOutcome {
        fairness: ltl.fairness,
        refused: ltl_refusal(options, ltl.fairness),
        stats: Stats::default(),
        limit: None,
        properties: Vec::new(),
        coverage: None,
    };
    if out.refused.is_some() {
        return out;
    }
    let props: Vec<&crate::model::LtlProperty> =
        ltl.properties.iter().map(|&p| &model.ltl[p]).collect();
    // Slots the atoms read: transitions that write one are visible.
    let mut visible = vec![false; model.slots.len()];
    for p in &props {
        for a in &p.atoms {
            a.for_each_slot(&mut |k| visible[k as usize] = true);
        }
    }
    let mode = super::contract::mode(model, options);
    let Some(mut exp) = mode.liveness(&visible) else {
        out.refused = ltl_refusal(options, Fairness::Strong);
        return out;
    };
    let mut budget = Budget::new(&options.limits);
    let graph = ModelGraph::build(model, &props, exp.as_mut(), options.kept, &mut budget);
    let graph = match graph {
        Ok(g) => g,
        Err((stats, _)) => {
            out.stats = stats;
            out.limit = Some(budget.hit());
            return out;
        }
    };
    out.stats = graph.stats.clone();
    out.coverage = options.kept.coverage(out.stats.states);
    for (n, &p) in ltl.properties.iter().enumerate() {
        let started = budget.elapsed();
        let mut o = graph.property(model, p, n, ltl.fairness, &mut budget);
        o.elapsed = budget.elapsed() - started;
        let stop = matches!(o.verdict, Verdict::Inconclusive(_));
        out.properties.push(o);
        if stop && budget.hit.is_some() {
            break;
        }
    }
    out.stats.elapsed = budget.elapsed();
    out
}

/// The model's reachable states as numbers, with their edges.
struct ModelGraph {
    /// Edges of state s: `first[s]..first[s + 1]`.
    first: Vec<u32>,
    target: Vec<u32>,
    transition: Vec<u32>,
    /// Per state, per property asked: the atoms true there.
    vals: Vec<u64>,
    /// Per state: the state it was first reached from, and how (for the
    /// trace to an atom's fault).
    parent: Vec<(u32, u32)>,
    /// Per state: its distance from the initial state.
    depth: Vec<u32>,
    /// Per property asked: the first state where an atom faults.
    faults: Vec<Option<(u32, usize, Fault)>>,
    /// Per state: the threads with an edge (enabled), in words of 64.
    enabled: Vec<u64>,
    words: usize,
    props: usize,
    stats: Stats,
}

/// Bytes the graph's vectors hold, kept in the budget's `other_bytes`.
struct Held(u64);

impl Held {
    fn push<T>(&mut self, v: &mut Vec<T>, x: T, budget: &mut Budget) -> Result<(), Halt> {
        reserve_one(v, budget, &mut self.0)?;
        budget.other_bytes = self.0;
        v.push(x);
        Ok(())
    }
}

impl ModelGraph {
    fn build(
        model: &Model,
        props: &[&crate::model::LtlProperty],
        exp: &mut dyn Expand,
        kept: Kept,
        budget: &mut Budget,
    ) -> Result<ModelGraph, (Stats, Halt)> {
        let words = model.layout.words();
        let compact = kept == Kept::HashCompact;
        let mut store: Store<u32> = Store::indexed(if compact { 1 } else { words });
        let tw = model.threads.len().div_ceil(64);
        let mut g = ModelGraph {
            first: vec![0],
            target: Vec::new(),
            transition: Vec::new(),
            vals: Vec::new(),
            parent: Vec::new(),
            depth: Vec::new(),
            faults: vec![None; props.len()],
            enabled: Vec::new(),
            words: tw,
            props: props.len(),
            stats: Stats::default(),
        };
        let mut held = Held(0);
        let mut queue: VecDeque<u64> = VecDeque::new();
        let r = g.search(
            model, props, exp, compact, &mut store, &mut queue, &mut held, budget,
        );
        g.stats.states = store.len() as u64;
        g.stats.transitions = g.target.len() as u64;
        g.stats.fired = g.stats.transitions;
        g.stats.memory = store.bytes() + held.0;
        g.stats.elapsed = budget.elapsed();
        match r {
            Ok(()) => Ok(g),
            Err(h) => Err((g.stats, h)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        model: &Model,
        props: &[&crate::model::LtlProperty],
        exp: &mut dyn Expand,
        compact: bool,
        store: &mut Store<u32>,
        queue: &mut VecDeque<u64>,
        held: &mut Held,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        budget.check_start()?;
        let words = model.layout.words();
        let mut packed = vec![0u64; words];
        let mut s = vec![0i64; model.slots.len()];
        // Numbers a state, and queues it when it is new.
        let mut add = |g: &mut ModelGraph,
                       st: &[i64],
                       from: (u32, u32),
                       held: &mut Held,
                       queue: &mut VecDeque<u64>,
                       budget: &mut Budget|
         -> Result<u32, Halt> {
            model.layout.pack(st, &mut packed);
            let fingerprint;
            let key: &[u64] = if compact {
                fingerprint = [super::table::fingerprint(&packed)];
                &fingerprint
            } else {
                &packed
            };
            let room = budget.room();
            match store.insert(key, 0, || room) {
                Ok(Insert::Old(id)) => Ok(id.expect("the store is indexed")),
                Ok(Insert::New(id)) => {
                    budget.stored = store.len() as u64;
                    budget.store_bytes = store.bytes();
                    if queue.len() + words > queue.capacity() {
                        budget.afford((queue.capacity() + words).max(16) as u64 * 16)?;
                    }
                    let cap = queue.capacity();
                    queue.extend(&packed);
                    held.0 += (queue.capacity() - cap) as u64 * 8;
                    budget.other_bytes = held.0;
                    held.push(&mut g.parent, from, budget)?;
                    let d = if from.0 == u32::MAX {
                        0
                    } else {
                        g.depth[from.0 as usize] + 1
                    };
                    held.push(&mut g.depth, d, budget)?;
                    g.stats.depth = g.stats.depth.max(u64::from(d));
                    for (n, p) in props.iter().enumerate() {
                        let v = match p.valuation(st) {
                            Ok(v) => v,
                            Err((atom, f)) => {
                                if g.faults[n].is_none() {
                                    g.faults[n] = Some((id, atom, f));
                                }
                                0
                            }
                        };
                        held.push(&mut g.vals, v, budget)?;
                    }
                    Ok(id)
                }
                Err(full) => Err(budget.full(full)),
            }
        };
        add(self, &model.init, (u32::MAX, u32::MAX), held, queue, budget)?;
        let mut id = 0u32;
        let mut w = vec![0u64; words];
        let (mut succs, mut via): (Vec<i64>, Vec<u32>) = (Vec::new(), Vec::new());
        while !queue.is_empty() {
            budget.tick()?;
            for x in w.iter_mut() {
                *x = queue.pop_front().expect("a whole state is queued");
            }
            model.layout.unpack(&w, &mut s);
            // The successors, flat, and the transitions that reach them.
            succs.clear();
            via.clear();
            let r = exp.expand(&s, budget, &mut |succ, path, _| {
                succs.extend_from_slice(succ);
                via.push(path[0]);
                Ok(())
            });
            match r {
                Ok(_) => {}
                Err(Stop::Halt) => return Err(Halt),
                Err(Stop::Found(_)) => {
                    return Err(budget.stop(Limit::Internal(
                        "a transition fails that the safety check passed",
                    )));
                }
            }
            let mut en = vec![0u64; self.words];
            for (succ, &k) in succs.chunks(s.len()).zip(&via) {
                let t = model.transitions[k as usize].thread as usize;
                en[t / 64] |= 1 << (t % 64);
                let to = add(self, succ, (id, k), held, queue, budget)?;
                held.push(&mut self.target, to, budget)?;
                held.push(&mut self.transition, k, budget)?;
            }
            for e in en {
                held.push(&mut self.enabled, e, budget)?;
            }
            held.push(&mut self.first, self.target.len() as u32, budget)?;
            id += 1;
        }
        Ok(())
    }

    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        self.first[s as usize] as usize..self.first[s as usize + 1] as usize
    }

    /// Property `p` (the `n`th asked) on the graph.
    fn property(
        &self,
        model: &Model,
        p: usize,
        n: usize,
        fairness: Fairness,
        budget: &mut Budget,
    ) -> PropertyOutcome {
        let prop = &model.ltl[p];
        let negation = Ltl::Not(Box::new(prop.formula.clone()));
        let a = Automaton::of(&negation);
        let mut o = PropertyOutcome {
            property: p,
            verdict: Verdict::Holds,
            lasso: None,
            fault: None,
            automaton_states: a.nodes.len(),
            product_states: 0,
            elapsed: Duration::ZERO,
        };
        if let Some((s, atom, f)) = &self.faults[n] {
            o.verdict = Verdict::Violated;
            let mut path = Vec::new();
            let mut at = *s;
            while self.parent[at as usize].0 != u32::MAX {
                path.push(self.parent[at as usize].1);
                at = self.parent[at as usize].0;
            }
            path.reverse();
            o.fault = Some((*atom, f.clone(), replay_steps(model, &model.init, &path).0));
            return o;
        }
        let r = self.product(model, &a, n, fairness, budget, &mut o);
        if r.is_err() {
            o.verdict = Verdict::Inconclusive(budget.hit());
        }
        o
    }

    fn val(&self, s: u32, n: usize) -> u64 {
        self.vals[s as usize * self.props + n]
    }

    fn product(
        &self,
        model: &Model,
        a: &Automaton,
        n: usize,
        fairness: Fairness,
        budget: &mut Budget,
        o: &mut PropertyOutcome,
    ) -> Result<(), Halt> {
        let states = self.first.len() - 1;
        let q = a.nodes.len();
        let before = budget.other_bytes;
        let mut held = Held(before);
        let index_bytes = (states * q * 4) as u64;
        budget.afford(index_bytes)?;
        let mut index = vec![u32::MAX; states * q];
        held.0 += index_bytes;
        budget.other_bytes = held.0;
        let (mut vs, mut vq): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        let (mut first, mut target, mut mover, mut label) =
            (vec![0u32], Vec::new(), Vec::new(), Vec::new());
        let mut vertex = |s: u32,
                          m: usize,
                          vs: &mut Vec<u32>,
                          vq: &mut Vec<u32>,
                          held: &mut Held,
                          budget: &mut Budget|
         -> Result<u32, Halt> {
            let slot = &mut index[s as usize * q + m];
            if *slot == u32::MAX {
                if budget.room().states == 0 {
                    return Err(budget.full(super::Full::States));
                }
                *slot = vs.len() as u32;
                held.push(vs, s, budget)?;
                held.push(vq, m as u32, budget)?;
                budget.run_states += 1;
            }
            Ok(*slot)
        };
        let mut initial = Vec::new();
        for (m, node) in a.nodes.iter().enumerate() {
            if node.initial && node.admits(self.val(0, n)) {
                initial.push(vertex(0, m, &mut vs, &mut vq, &mut held, budget)?);
            }
        }
        let mut v = 0;
        while v < vs.len() {
            budget.tick()?;
            let (s, m) = (vs[v], vq[v] as usize);
            // Each edge of the graph from s (a stutter step where it has
            // none), with each move of the automaton that admits its target.
            let stutter = self.edges(s).is_empty().then_some((s, STUTTER));
            let edges = self.edges(s).map(|e| (self.target[e], self.transition[e]));
            for (to, k) in stutter.into_iter().chain(edges) {
                let t = if k == STUTTER {
                    STUTTER
                } else {
                    model.transitions[k as usize].thread
                };
                for &m2 in &a.nodes[m].succ {
                    if a.nodes[m2].admits(self.val(to, n)) {
                        let w = vertex(to, m2, &mut vs, &mut vq, &mut held, budget)?;
                        held.push(&mut target, w, budget)?;
                        held.push(&mut mover, t, budget)?;
                        held.push(&mut label, k, budget)?;
                    }
                }
            }
            held.push(&mut first, target.len() as u32, budget)?;
            v += 1;
        }
        o.product_states = vs.len() as u64;
        let enabled = |v: u32, t: usize| {
            let s = vs[v as usize] as usize;
            self.enabled[s * self.words + t / 64] >> (t % 64) & 1 == 1
        };
        let accepting = |k: usize, v: u32| a.accepting[k][vq[v as usize] as usize];
        let g = Graph {
            first: &first,
            target: &target,
            mover: &mover,
            threads: model.threads.len(),
            enabled: &enabled,
            accepting: &accepting,
            sets: a.accepting.len(),
        };
        let lasso = fair_lasso(&g, &initial, fairness, budget)?;
        budget.run_states = 0;
        budget.other_bytes = before;
        let Some(l) = lasso else { return Ok(()) };
        let real = |ks: &[u32]| -> Vec<u32> {
            ks.iter()
                .map(|&k| label[k as usize])
                .filter(|&k| k != STUTTER)
                .collect()
        };
        let (stem, entry) = replay_steps(model, &model.init, &real(&l.stem));
        let (cycle, back) = replay_steps(model, &entry, &real(&l.cycle));
        if back != entry {
            return Err(budget.stop(Limit::Internal(
                "a lasso's cycle does not close when replayed (a fingerprint collision under --hash-compact)",
            )));
        }
        o.verdict = Verdict::Violated;
        o.lasso = Some(LassoTrace { stem, cycle });
        Ok(())
    }
}

/// The steps of `path` from `from`, and the state they end in.
fn replay_steps(model: &Model, from: &[i64], path: &[u32]) -> (Vec<Step>, Vec<i64>) {
    let mut s = from.to_vec();
    let mut out = Vec::new();
    let mut steps = Vec::with_capacity(path.len());
    for &k in path {
        match step(model, k as usize, &s, &mut out) {
            StepResult::Ok => s.clone_from(&out),
            // The graph was built by the same semantics: a path of it
            // replays. Should it not, the trace stops where it fails.
            _ => break,
        }
        steps.push(Step {
            transition: k as usize,
            state: Some(s.clone()),
            starts_step: true,
        });
    }
    (steps, s)
}
