//! Checking `ltl` properties: the product of the model's state graph
//! (under a reduction whose contract preserves LTL-X) with a Büchi
//! automaton of each property's negation, searched for a fair accepting
//! lasso, which is a run of the model that violates the property.
//!
//! A run that ends (every thread ended, or a deadlock) is extended by
//! repeating its last state for ever, as SPIN does (the stutter
//! extension): `<> done` fails on a run that deadlocks before `done`.
//!
//! Two searches, in turn. First on the fly ([`crate::ltl::accepting_component`],
//! Couvreur's): without fairness or under weak fairness, the graph is
//! expanded as the product asks for it, and the search stops at the first
//! component that meets every acceptance set, within [`QUICK`] states.
//! Then, for a property it did not decide, the whole graph, built by the
//! search every check uses on every worker `--threads` gives, and the
//! whole product decomposed into components ([`crate::ltl::fair_lasso`],
//! which also decides strong fairness). Which search decides a property
//! never depends on the number of workers, so the states, the lasso and
//! the text are the same for every number. A lasso is replayed from the
//! initial state by its transitions before it is reported, so a
//! fingerprint collision under `--hash-compact` never invents one.

use std::time::Duration;

use super::budget::{Budget, Halt};
use super::ltlgraph::{ModelGraph, Recorder, bytes_of, keep_one};
use super::outcome::{Inapplicable, Limit, Stats, Step, Verdict};
use super::product::Product;
use super::search::replay_from;
use super::symmetric::Orbits;
use super::visible::Visible;
use super::{Kept, Options, Preserved, Property};
use crate::ltl::{Automaton, Bfs, Fairness, Graph, Ltl, STUTTER, accepting_component, fair_lasso};
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
    /// Bytes the product held (its vertices and their index), besides
    /// the graph's.
    pub product_bytes: u64,
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
    /// The symmetry whose orbits the graph has one state of, if any.
    pub symmetry: Option<crate::symmetry::Used>,
    /// Under `--symmetry on`, why the graph has every state, where it does.
    pub unused_symmetry: Option<String>,
}

impl LtlOutcome {
    /// The verdict over all properties: violated if one is, else
    /// inconclusive if one is (or a limit stopped the graph), else holds.
    pub fn verdict(&self) -> Verdict {
        if let Some(why) = &self.refused {
            return Verdict::DoesNotApply(why.clone());
        }
        let vs = self.properties.iter().map(|p| &p.verdict);
        if vs.clone().any(|v| matches!(v, Verdict::Violated)) {
            return Verdict::Violated;
        }
        if let Some(l) = self.limit {
            return Verdict::Inconclusive(l);
        }
        vs.clone()
            .find(|v| !matches!(v, Verdict::Holds))
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
                    "`{}` does not preserve temporal properties: its reduction theorem is about the states a run reaches, not the order in which it reaches them, and a transaction hides when an atom changes and whether a waiting thread is ever scheduled; use `--reduction none` or `sc` (or `stubborn` with `--fairness none`)",
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
    let orbits = Orbits::temporal(model, options, &ltl.properties, ltl.fairness);
    let quick = quick(model, options, ltl, orbits.symmetry());
    check_ltl_over(model, options, ltl, quick, None, &orbits)
}

/// The safety check of `model` ([`super::check`]), then, where it holds,
/// the properties `ltl` names ([`check_ltl`]); the outcomes are those of
/// the two calls. The properties are first searched on the fly; where
/// one is left for the whole graph under full exploration in one process,
/// the safety search records that graph as it goes, so the states are
/// explored once. Where one is found violated on the fly, the run stops
/// at that first violation: the safety check covers at most as many
/// states as that search may meet, and ends with
/// [`Limit::FirstViolation`] unless it finds a violation of its own there.
pub fn check_temporal(
    model: &Model,
    options: &Options,
    ltl: &LtlOptions,
    progress: &mut dyn FnMut(&Stats),
) -> (super::Outcome, Option<LtlOutcome>) {
    let orbits = Orbits::temporal(model, options, &ltl.properties, ltl.fairness);
    let quick = quick(model, options, ltl, orbits.symmetry());
    // A property found violated on the fly ends the run at the first
    // violation, as in SPIN, unless the safety check finds one of its own
    // within as many states as the search on the fly may meet.
    let violated = quick
        .as_ref()
        .is_some_and(|(d, _)| d.iter().any(|p| p.verdict == Verdict::Violated));
    let capped;
    let safety = if violated {
        let mut o = options.clone();
        o.limits.max_states = Some(options.limits.max_states.map_or(QUICK, |m| m.min(QUICK)));
        capped = o;
        &capped
    } else {
        options
    };
    let props = properties(model, ltl);
    let once = super::contract::mode(model, options)
        .searches_liveness_graph(&Visible::of(model, &props))
        && options.cluster.is_none()
        && ltl_refusal(options, ltl.fairness).is_none()
        && quick
            .as_ref()
            .is_none_or(|(d, _)| d.len() < ltl.properties.len());
    // A recorded graph is searched over the orbits the properties allow.
    let sym = orbits.symmetry();
    let mut rec = once.then(|| Recorder::new(model, &props, options.kept, sym));
    let safe = match rec {
        Some(_) => None,
        None => Some(Orbits::safety(model, options)),
    };
    let searched = safe.as_ref().unwrap_or(&orbits);
    let mut o = super::contract::run(model, safety, &mut None, progress, rec.as_mut(), searched);
    if violated
        && matches!(o.verdict, Verdict::Inconclusive(_))
        && let Some(quick) = quick
    {
        o.verdict = Verdict::Inconclusive(Limit::FirstViolation);
        o.stats.memory = o.stats.memory.max(quick.1.memory);
        let l = decided_on_the_fly(unchecked(options, ltl, &orbits), quick, options.kept);
        return (o, Some(l));
    }
    if !matches!(o.verdict, Verdict::Holds) {
        return (o, None);
    }
    let graph = rec.map(|r| (r.into_graph(), o.stats.states, o.stats.memory));
    let recorded = graph.is_some();
    let mut l = check_ltl_over(model, options, ltl, quick, graph, &orbits);
    if recorded {
        // The safety check searched the same graph, and said so.
        l.unused_symmetry = None;
    }
    // The run held at most the larger of the two searches' structures.
    o.stats.memory = o.stats.memory.max(l.stats.memory);
    (o, Some(l))
}

/// The properties `ltl` asks for.
fn properties<'m>(model: &'m Model, ltl: &LtlOptions) -> Vec<&'m crate::model::LtlProperty> {
    ltl.properties.iter().map(|&p| &model.ltl[p]).collect()
}

/// What the search on the fly decides ([`on_the_fly`]), where it runs:
/// without fairness or under weak fairness, under a reduction that keeps
/// the properties.
fn quick(
    model: &Model,
    options: &Options,
    ltl: &LtlOptions,
    sym: Option<&crate::symmetry::Symmetry>,
) -> Option<Quick> {
    if ltl.fairness == Fairness::Strong || ltl_refusal(options, ltl.fairness).is_some() {
        return None;
    }
    let props = properties(model, ltl);
    let mode = super::contract::mode(model, options);
    let exp = mode.liveness(&Visible::of(model, &props))?;
    on_the_fly(
        model,
        &props,
        exp,
        options,
        ltl,
        sym,
        &Budget::new(&options.limits),
    )
}

/// The properties decided on the fly, in order, and the graph's statistics.
type Quick = (Vec<PropertyOutcome>, Stats);

/// [`check_ltl`] after the search on the fly decided `quick`, over the
/// whole graph `recorded` (with its states and bytes) where the safety
/// check recorded it.
fn check_ltl_over(
    model: &Model,
    options: &Options,
    ltl: &LtlOptions,
    quick: Option<Quick>,
    recorded: Option<(ModelGraph, u64, u64)>,
    orbits: &Orbits,
) -> LtlOutcome {
    let mut out = unchecked(options, ltl, orbits);
    if out.refused.is_some() {
        return out;
    }
    let decided = match quick {
        Some(q) if q.0.len() == ltl.properties.len() => {
            return decided_on_the_fly(out, q, options.kept);
        }
        q => q.map(|(d, _)| d).unwrap_or_default(),
    };
    let mut budget = Budget::new(&options.limits);
    if let Some((mut g, states, bytes)) = recorded {
        (budget.stored, budget.store_bytes) = (states, bytes);
        return whole(out, &mut g, model, ltl, decided, &mut budget);
    }
    let props = properties(model, ltl);
    let visible = Visible::of(model, &props);
    let mode = super::contract::mode(model, options);
    let workers = options.workers().max(1);
    let exps: Option<Vec<_>> = (0..workers).map(|_| mode.liveness(&visible)).collect();
    let Some(mut exps) = exps else {
        out.refused = mode
            .liveness_refusal(&visible)
            .or_else(|| ltl_refusal(options, Fairness::Strong));
        return out;
    };
    let sym = orbits.symmetry();
    match ModelGraph::build(model, &props, &mut exps, options, sym, &mut budget) {
        Ok(mut g) => whole(out, &mut g, model, ltl, decided, &mut budget),
        Err((stats, limit)) => {
            out.stats = stats;
            out.limit = Some(limit);
            out.properties = decided;
            out
        }
    }
}

/// The outcome before any property is checked: the fairness, why
/// `options` refuse the properties, if they do, and the orbits searched.
fn unchecked(options: &Options, ltl: &LtlOptions, orbits: &Orbits) -> LtlOutcome {
    LtlOutcome {
        fairness: ltl.fairness,
        refused: ltl_refusal(options, ltl.fairness),
        stats: Stats::default(),
        limit: None,
        properties: Vec::new(),
        coverage: None,
        symmetry: orbits.symmetry().map(crate::symmetry::Symmetry::used),
        unused_symmetry: (options.symmetry == super::SymmetryUse::On)
            .then(|| orbits.unused())
            .flatten(),
    }
}

/// `out` with the properties the search on the fly decided, and its graph.
fn decided_on_the_fly(mut out: LtlOutcome, (decided, stats): Quick, kept: Kept) -> LtlOutcome {
    out.coverage = kept.coverage(stats.states);
    out.stats = stats;
    out.properties = decided;
    out
}

/// The properties after those `decided`, over the whole `graph`.
fn whole(
    mut out: LtlOutcome,
    graph: &mut ModelGraph,
    model: &Model,
    ltl: &LtlOptions,
    mut decided: Vec<PropertyOutcome>,
    budget: &mut Budget,
) -> LtlOutcome {
    for (n, &p) in ltl.properties.iter().enumerate().skip(decided.len()) {
        let started = budget.elapsed();
        let mut o = property(graph, model, p, n, ltl.fairness, budget, false);
        o.elapsed = budget.elapsed() - started;
        let stop = matches!(o.verdict, Verdict::Inconclusive(_));
        decided.push(o);
        if stop && budget.hit.is_some() {
            break;
        }
    }
    out.stats = graph.stats(budget.store_bytes + budget.other_bytes + largest_product(&decided));
    out.properties = decided;
    out.stats.elapsed = budget.elapsed();
    out.coverage = graph.kept().coverage(out.stats.states);
    out
}

/// States and product vertices the search on the fly may number before
/// the properties it has not decided go to the whole graph.
const QUICK: u64 = 1 << 17;

/// The properties decided on the fly, in order, up to the first that the
/// search did not decide within [`QUICK`] states (or a limit of the run),
/// with the graph's statistics; none when not even the initial state fits.
fn on_the_fly(
    model: &Model,
    props: &[&crate::model::LtlProperty],
    exp: super::ltlgraph::Boxed,
    options: &Options,
    ltl: &LtlOptions,
    sym: Option<&crate::symmetry::Symmetry>,
    budget: &Budget,
) -> Option<Quick> {
    let mut quick = budget.with_max_states(budget.max_states().min(QUICK));
    let mut graph = ModelGraph::new(model, props, exp, options.kept, sym, &mut quick).ok()?;
    let mut decided = Vec::new();
    for (n, &p) in ltl.properties.iter().enumerate() {
        let started = quick.elapsed();
        let mut o = property(&mut graph, model, p, n, ltl.fairness, &mut quick, true);
        o.elapsed = quick.elapsed() - started;
        if matches!(o.verdict, Verdict::Inconclusive(_)) {
            break;
        }
        decided.push(o);
    }
    let held = quick.store_bytes + quick.other_bytes + largest_product(&decided);
    let mut stats = graph.stats(held);
    stats.elapsed = quick.elapsed();
    Some((decided, stats))
}

/// The bytes of the largest product built for `decided`: the products
/// are built one after another over the same graph.
fn largest_product(decided: &[PropertyOutcome]) -> u64 {
    decided.iter().map(|p| p.product_bytes).max().unwrap_or(0)
}

/// Property `p` (the `n`th asked) over `graph`: searched on the fly, or
/// over the whole product.
fn property(
    graph: &mut ModelGraph,
    model: &Model,
    p: usize,
    n: usize,
    fairness: Fairness,
    budget: &mut Budget,
    fly: bool,
) -> PropertyOutcome {
    let negation = Ltl::Not(Box::new(model.ltl[p].formula.clone()));
    let a = Automaton::of(&negation);
    let mut o = PropertyOutcome {
        property: p,
        verdict: Verdict::Holds,
        lasso: None,
        fault: None,
        automaton_states: a.nodes.len(),
        product_states: 0,
        product_bytes: 0,
        elapsed: Duration::ZERO,
    };
    let mut product = Product::new(graph, &a, n, fairness == Fairness::Weak);
    let r = decide(&mut product, model, fairness, budget, fly);
    o.product_states = product.vs.len() as u64;
    o.product_bytes = product.bytes();
    budget.other_bytes -= o.product_bytes;
    budget.run_states = 0;
    match r {
        Ok(Some(lasso)) => {
            o.verdict = Verdict::Violated;
            o.lasso = Some(lasso);
        }
        Ok(None) => {}
        Err(Halt) => match &graph.faults[n] {
            // An atom that cannot be evaluated: the run to it violates.
            Some((s, atom, f)) => {
                o.verdict = Verdict::Violated;
                let path = graph.path_to(*s);
                o.fault = Some((*atom, f.clone(), replay_steps(model, &model.init, &path).0));
            }
            None => o.verdict = Verdict::Inconclusive(budget.hit()),
        },
    }
    o
}

/// A fair accepting lasso of the product, if it has one, replayed in the
/// model: found on the fly (`fly`), else over the whole product.
fn decide(
    p: &mut Product,
    model: &Model,
    fairness: Fairness,
    budget: &mut Budget,
    fly: bool,
) -> Result<Option<LassoTrace>, Halt> {
    if p.graph.faults[p.n()].is_some() {
        return Err(Halt);
    }
    let initial = p.initial(budget)?;
    let found = if fly {
        fly_lasso(p, &initial, fairness, budget)?
    } else {
        lasso(p, &initial, None, None, fairness, budget)?
    };
    let Some((stem, cycle)) = found else {
        return Ok(None);
    };
    let Some((stem, cycle)) = p.graph.unfold(&stem, &cycle) else {
        return Err(budget.stop(Limit::Internal(
            "a cycle over orbits takes too many transitions to unfold into a cycle of the system",
        )));
    };
    let (stem, entry) = replay_steps(model, &model.init, &stem);
    let (cycle, back) = replay_steps(model, &entry, &cycle);
    let fired = stem.iter().chain(&cycle).all(|s| s.state.is_some());
    if back != entry || !fired {
        return Err(budget.stop(Limit::Internal(
            "a lasso does not replay, or its cycle does not close (a fingerprint collision under --hash-compact)",
        )));
    }
    Ok(Some(LassoTrace { stem, cycle }))
}

/// A lasso as edges of the graph: its stem, then its cycle.
type Path = (Vec<u32>, Vec<u32>);

/// A lasso found on the fly without fairness or under weak fairness
/// (every mark of the emptiness search): the shortest stem into the
/// component the search found, and a cycle through it.
fn fly_lasso(
    p: &mut Product,
    initial: &[u32],
    fairness: Fairness,
    budget: &mut Budget,
) -> Result<Option<Path>, Halt> {
    let found = accepting_component(p, initial, p.marks(), true, budget)?;
    let Some(component) = found.accepting else {
        return Ok(None);
    };
    let mut region = found.entered;
    let mut goal = vec![false; p.vs.len()];
    component.iter().for_each(|&v| goal[v as usize] = true);
    reach(p, initial, &goal, &mut region, budget)?;
    match lasso(p, initial, Some(&region), Some(&goal), fairness, budget)? {
        Some(l) => Ok(Some(l)),
        None => Err(budget.stop(Limit::Internal(
            "the on-the-fly search found a fair accepting component that the lasso search did not",
        ))),
    }
}

/// Marks in `region` the vertices a breadth-first search from `initial`
/// expands before it meets a vertex of `goal`: with them, the part of the
/// product searched holds a shortest stem into `goal`.
fn reach(
    p: &mut Product,
    initial: &[u32],
    goal: &[bool],
    region: &mut Vec<bool>,
    budget: &mut Budget,
) -> Result<(), Halt> {
    let mut edges = |v: u32, out: &mut Vec<(u32, u32)>, budget: &mut Budget| {
        p.edges(v, out, budget)?;
        region.resize(region.len().max(p.vs.len()), false);
        region[v as usize] = true;
        Ok(())
    };
    let goal = |v: u32| goal.get(v as usize) == Some(&true);
    Bfs::default().path(initial, &|_| true, &goal, &mut edges, budget)?;
    Ok(())
}

/// The transitions of a fair accepting lasso through the vertices of `p`
/// in `region` (every vertex, numbered breadth first, where none is
/// given), if there is one: its stem and its cycle, the cycle in `goal`
/// where given, else in any component the automaton allows. Over the whole
/// product, the stem is as short as any fair accepting lasso's can be.
fn lasso(
    p: &mut Product,
    initial: &[u32],
    region: Option<&[bool]>,
    goal: Option<&[bool]>,
    fairness: Fairness,
    budget: &mut Budget,
) -> Result<Option<Path>, Halt> {
    let (mut first, mut target, mut mover, mut label) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    keep_one(&mut first, 0u32, budget)?;
    let mut out = Vec::new();
    let mut v = 0;
    while v < p.vs.len() as u32 {
        budget.tick()?;
        if region.is_none_or(|r| r.get(v as usize) == Some(&true)) {
            out.clear();
            p.edges(v, &mut out, budget)?;
            for &(w, k) in &out {
                let t = if k == STUTTER {
                    STUTTER
                } else {
                    p.graph.thread(p.graph.edge(k as usize).1)
                };
                keep_one(&mut target, w, budget)?;
                keep_one(&mut label, k, budget)?;
                keep_one(&mut mover, t, budget)?;
            }
        }
        keep_one(&mut first, target.len() as u32, budget)?;
        v += 1;
    }
    let a = p.automaton();
    let enabled = |v: u32, t: usize| p.graph.enabled(p.vs[v as usize], t);
    let accepting = |k: usize, v: u32| a.accepting[k][p.vq[v as usize] as usize];
    let live_nodes = a.live();
    let live = |v: u32| match goal {
        Some(goal) => goal.get(v as usize) == Some(&true),
        None => live_nodes[p.vq[v as usize] as usize],
    };
    let g = Graph {
        first: &first,
        target: &target,
        mover: &mover,
        threads: p.graph.threads(),
        enabled: &enabled,
        accepting: &accepting,
        sets: a.accepting.len(),
        live: &live,
    };
    let found = fair_lasso(&g, initial, fairness, budget)?;
    let csr = bytes_of(&first) + bytes_of(&target) + bytes_of(&mover) + bytes_of(&label);
    budget.other_bytes -= csr;
    // A lasso's edges as the graph's (the stutter extension's are none).
    let edges = |ks: &[u32]| -> Vec<u32> {
        ks.iter()
            .map(|&k| label[k as usize])
            .filter(|&e| e != STUTTER)
            .collect()
    };
    Ok(found.map(|l| (edges(&l.stem), edges(&l.cycle))))
}

/// The steps of `path` from `from`, a transition of the graph each, and
/// the state they end in.
fn replay_steps(model: &Model, from: &[i64], path: &[u32]) -> (Vec<Step>, Vec<i64>) {
    replay_from(model, from, path.chunks(1))
}
