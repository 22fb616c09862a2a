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
//! The graph is built by the search every check uses
//! ([`parallel::search`], with this module's visitor), on every worker
//! `--threads` gives. Its states are numbered as a sequential breadth-first
//! search meets them, whatever the number of workers, so the states, the
//! lasso and the text are the same for every number. The store keeps each
//! state (or its 64-bit fingerprint under `--hash-compact`), and the graph
//! keeps edges between numbers, so a lasso is replayed from the initial
//! state by its transitions, and a lasso that does not replay (a
//! fingerprint collision) is never reported. The product with the
//! automaton is searched on one thread.

use std::time::Duration;

use super::budget::{Budget, Halt, reserve, reserve_one};
use super::outcome::{Inapplicable, Limit, Problem, Stats, Step, Verdict};
use super::parallel;
use super::search::{Expand, replay_from};
use super::visit::{Edges, Visit};
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
    let workers = options.workers().max(1);
    let exps: Option<Vec<_>> = (0..workers).map(|_| mode.liveness(&visible)).collect();
    let Some(mut exps) = exps else {
        out.refused = ltl_refusal(options, Fairness::Strong);
        return out;
    };
    let mut budget = Budget::new(&options.limits);
    let graph = match ModelGraph::build(model, &props, &mut exps, options) {
        Ok(g) => g,
        Err((stats, limit)) => {
            out.stats = stats;
            out.limit = Some(limit);
            return out;
        }
    };
    // The product's states and memory count on top of the graph's.
    budget.stored = graph.stats.states;
    budget.store_bytes = graph.stats.memory;
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

    fn extend<T: Copy>(
        &mut self,
        v: &mut Vec<T>,
        xs: &[T],
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        reserve(v, xs.len(), budget, &mut self.0)?;
        budget.other_bytes = self.0;
        v.extend_from_slice(xs);
        Ok(())
    }
}

/// The graph as the search meets it: the visitor of [`parallel::search`].
struct Recorder<'a> {
    model: &'a Model,
    props: &'a [&'a crate::model::LtlProperty],
    graph: ModelGraph,
    held: Held,
}

/// What a block of states records: per state, each property's valuation;
/// the atoms that fault, as (state, property, atom, fault).
#[derive(Default)]
struct Valuations {
    vals: Vec<u64>,
    faults: Vec<(u32, usize, usize, Fault)>,
}

impl Visit for Recorder<'_> {
    const EDGES: bool = true;
    type Record = Valuations;

    fn initial(&self, model: &Model, s: &[i64]) -> Option<Problem> {
        super::search::check_state(model, s)
    }

    fn state(&self, id: u32, s: &[i64], record: &mut Valuations) {
        for (n, p) in self.props.iter().enumerate() {
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
        let (g, held) = (&mut self.graph, &mut self.held);
        held.extend(&mut g.vals, &record.vals, budget)?;
        for (id, n, atom, f) in record.faults {
            g.faults[n].get_or_insert((id, atom, f));
        }
        held.extend(&mut g.target, &edges.target, budget)?;
        held.extend(&mut g.transition, &edges.transition, budget)?;
        let mut e = 0;
        let mut en = vec![0u64; g.words];
        for &d in &edges.degree {
            en.fill(0);
            for &k in &edges.transition[e..e + d as usize] {
                let t = self.model.transitions[k as usize].thread as usize;
                en[t / 64] |= 1 << (t % 64);
            }
            e += d as usize;
            held.extend(&mut g.enabled, &en, budget)?;
            let end = *g.first.last().expect("the first state's start") + d;
            held.push(&mut g.first, end, budget)?;
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.held.0
    }
}

impl ModelGraph {
    /// The graph of `model` through the expanders `exps`, one per worker,
    /// by the search every check uses; its statistics, and the limit that
    /// stopped it, if one did.
    fn build<E: Expand + Send>(
        model: &Model,
        props: &[&crate::model::LtlProperty],
        exps: &mut [E],
        options: &Options,
    ) -> Result<ModelGraph, (Stats, Limit)> {
        let graph = ModelGraph {
            first: vec![0],
            target: Vec::new(),
            transition: Vec::new(),
            vals: Vec::new(),
            faults: vec![None; props.len()],
            enabled: Vec::new(),
            words: model.threads.len().div_ceil(64),
            props: props.len(),
            stats: Stats::default(),
        };
        let mut rec = Recorder {
            model,
            props,
            graph,
            held: Held(0),
        };
        let o = parallel::search(
            model,
            exps,
            Budget::new(&options.limits),
            false,
            options.block,
            options.kept,
            false,
            &mut |_| {},
            &mut rec,
        );
        let stats = Stats {
            states: o.stats.states,
            transitions: o.stats.transitions,
            fired: o.stats.transitions,
            depth: o.stats.depth,
            memory: o.stats.memory,
            elapsed: o.stats.elapsed,
            ..Stats::default()
        };
        match o.verdict {
            Verdict::Holds => Ok(ModelGraph { stats, ..rec.graph }),
            Verdict::Inconclusive(limit) => Err((stats, limit)),
            _ => Err((
                stats,
                Limit::Internal("a transition fails that the safety check passed"),
            )),
        }
    }

    /// The transitions of a shortest path from the initial state to `s`:
    /// each state was first reached by the first edge that leads to it, in
    /// the order of ids and then of emission (the search's numbering).
    fn path_to(&self, s: u32) -> Vec<u32> {
        let mut reached = vec![u32::MAX; self.first.len() - 1];
        for (e, &t) in self.target.iter().enumerate() {
            if t != 0 && reached[t as usize] == u32::MAX {
                reached[t as usize] = e as u32;
            }
        }
        let mut path = Vec::new();
        let mut at = s;
        while at != 0 {
            let e = reached[at as usize];
            path.push(self.transition[e as usize]);
            at = (self.first.partition_point(|&f| f <= e) - 1) as u32;
        }
        path.reverse();
        path
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
            let path = self.path_to(*s);
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
        // The product as far as it was built, also where a limit stops it.
        let built = (|| -> Result<(), Halt> {
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
            Ok(())
        })();
        o.product_states = vs.len() as u64;
        built?;
        let enabled = |v: u32, t: usize| {
            let s = vs[v as usize] as usize;
            self.enabled[s * self.words + t / 64] >> (t % 64) & 1 == 1
        };
        let accepting = |k: usize, v: u32| a.accepting[k][vq[v as usize] as usize];
        let live_nodes = a.live();
        let live = |v: u32| live_nodes[vq[v as usize] as usize];
        let g = Graph {
            first: &first,
            target: &target,
            mover: &mover,
            threads: model.threads.len(),
            enabled: &enabled,
            accepting: &accepting,
            sets: a.accepting.len(),
            live: &live,
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
        let fired = stem.iter().chain(&cycle).all(|s| s.state.is_some());
        if back != entry || !fired {
            return Err(budget.stop(Limit::Internal(
                "a lasso does not replay, or its cycle does not close (a fingerprint collision under --hash-compact)",
            )));
        }
        o.verdict = Verdict::Violated;
        o.lasso = Some(LassoTrace { stem, cycle });
        Ok(())
    }
}

/// The steps of `path` from `from`, a transition of the graph each, and
/// the state they end in.
fn replay_steps(model: &Model, from: &[i64], path: &[u32]) -> (Vec<Step>, Vec<i64>) {
    replay_from(model, from, path.chunks(1))
}
