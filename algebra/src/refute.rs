//! The refuter: a search for a small relational model in which the cited
//! facts hold but a step does not. Such a model shows that the step does not
//! follow from the axioms and those facts, since every axiom holds in every
//! relational model (checked by the tests of this module).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::model::{Evaluator, MAX_STATES, Model, Relation, Uninterpreted};
use crate::script::{AtomDecl, Sort};
use crate::term::{Atom, Formula, Term};

/// A fact the model must satisfy: `formula` for every thread assignment of
/// the indices in `forall` that keeps the `distinct` pairs apart, and every
/// value of the variables in `vars` (relations, or predicates).
#[derive(Clone, Debug, PartialEq)]
pub struct Assumption {
    /// The formula.
    pub formula: Formula,
    /// Indices quantified over all threads.
    pub forall: Vec<String>,
    /// Pairs of indices that must denote different threads.
    pub distinct: Vec<(String, String)>,
    /// Variables quantified over all relations (or predicates) of the model.
    pub vars: Vec<(String, Sort)>,
}

/// At most this many valuations of an assumption's variables are tried per
/// model; the refuter draws models small enough for that.
pub const MAX_VALUATIONS: u64 = 4096;

/// How many values a variable of this sort has on `n` states.
fn values(sort: Sort, n: usize) -> u64 {
    match sort {
        Sort::Pred => 1 << n,
        Sort::Elem => 1 << (n * n),
    }
}

/// The `k`-th relation of a sort on `n` states, in bit order.
fn nth_value(sort: Sort, n: usize, k: u64) -> Relation {
    let mut bits = 0u16;
    match sort {
        Sort::Pred => {
            for s in 0..n {
                if k & (1 << s) != 0 {
                    bits |= 1 << (5 * s);
                }
            }
        }
        Sort::Elem => {
            for s in 0..n {
                for t in 0..n {
                    if k & (1 << (s * n + t)) != 0 {
                        bits |= 1 << (4 * s + t);
                    }
                }
            }
        }
    }
    Relation(bits)
}

/// The largest number of states (at most [`MAX_STATES`]) on which every
/// assumption's variables can be enumerated within [`MAX_VALUATIONS`].
pub fn max_states_for(assumptions: &[Assumption]) -> usize {
    (1..=MAX_STATES)
        .rev()
        .find(|&n| {
            assumptions.iter().all(|a| {
                a.vars
                    .iter()
                    .try_fold(1u64, |acc, (_, s)| acc.checked_mul(values(*s, n)))
                    .is_some_and(|c| c <= MAX_VALUATIONS)
            })
        })
        .unwrap_or(1)
}

/// What the refuter interprets: atoms, schematic variables, and the free
/// indices of the step with their known disequalities.
#[derive(Clone, Debug)]
pub struct Signature<'a> {
    /// Declared atoms.
    pub atoms: &'a [AtomDecl],
    /// Schematic variables that may occur, with their sorts.
    pub vars: BTreeMap<String, Sort>,
    /// Free indices of the step.
    pub indices: Vec<String>,
    /// Index pairs known to be different.
    pub distinct: Vec<(String, String)>,
}

/// A model in which the assumptions hold and the goal fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterModel {
    /// The model.
    pub model: Model,
    /// The goal's left-hand side in the model.
    pub lhs: Relation,
    /// The goal's right-hand side in the model.
    pub rhs: Relation,
    /// The atoms and variables the goal and assumptions mention, with values.
    pub shown: Vec<(String, Relation, bool)>,
}

impl fmt::Display for CounterModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.model.states;
        write!(f, "{}", self.model)?;
        for (name, r, is_pred) in &self.shown {
            write!(f, "; {name} = {}", r.render(n, *is_pred))?;
        }
        write!(
            f,
            "; lhs = {}; rhs = {}",
            self.lhs.render(n, false),
            self.rhs.render(n, false)
        )
    }
}

/// A small deterministic generator (xorshift64*), so that searches repeat exactly.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `num / den`.
    pub(crate) fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// A stable hash of a string, to seed searches per step.
pub fn seed_of(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A random relation on `n` states; empty with some probability, since
/// empty relations satisfy many hypotheses.
pub(crate) fn random_relation(rng: &mut Rng, n: usize, density: u64) -> Relation {
    if rng.chance(1, 6) {
        return Relation::EMPTY;
    }
    let mut bits = 0u16;
    for s in 0..n {
        for t in 0..n {
            if rng.chance(density, 100) {
                bits |= 1 << (4 * s + t);
            }
        }
    }
    Relation(bits)
}

/// A random predicate (partial identity) on `n` states.
pub(crate) fn random_test(rng: &mut Rng, n: usize) -> Relation {
    let mut bits = 0u16;
    for s in 0..n {
        if rng.chance(1, 2) {
            bits |= 1 << (5 * s);
        }
    }
    Relation(bits)
}

/// Draws a random model of the signature: 2 to `max_states` states (or
/// exactly `max_states` if fewer), 1 to 3 threads (enough for the distinct
/// indices), random relations and predicates.
pub(crate) fn random_model(rng: &mut Rng, sig: &Signature<'_>, max_states: usize) -> Model {
    let n = if max_states <= 2 {
        max_states.max(1)
    } else {
        2 + rng.below((max_states - 1) as u64) as usize
    };
    let needed = if sig.distinct.is_empty() { 1 } else { 2 };
    let m = needed + rng.below((4 - needed) as u64) as usize;
    let density = [12, 25, 40, 60][rng.below(4) as usize];
    let mut model = Model {
        states: n,
        threads: m,
        constants: BTreeMap::new(),
        families: BTreeMap::new(),
        indices: BTreeMap::new(),
    };
    for a in sig.atoms {
        let draw = |rng: &mut Rng| match a.sort {
            Sort::Pred => random_test(rng, n),
            Sort::Elem => random_relation(rng, n, density),
        };
        if a.family {
            for th in 0..m {
                let r = draw(rng);
                model.families.insert((a.name.clone(), th), r);
            }
        } else {
            let r = draw(rng);
            model.constants.insert(a.name.clone(), r);
        }
    }
    for (v, sort) in &sig.vars {
        let r = match sort {
            Sort::Pred => random_test(rng, n),
            Sort::Elem => random_relation(rng, n, density),
        };
        model.constants.insert(v.clone(), r);
    }
    // Indices: distinct pairs get different threads, by rejection.
    for _ in 0..16 {
        model.indices.clear();
        for i in &sig.indices {
            model
                .indices
                .insert(i.clone(), rng.below(m as u64) as usize);
        }
        if sig.distinct.iter().all(|(a, b)| {
            model.indices.get(a) != model.indices.get(b) || !model.indices.contains_key(a)
        }) {
            break;
        }
    }
    model
}

fn assignments_ok(model: &Model, distinct: &[(String, String)]) -> bool {
    distinct.iter().all(
        |(a, b)| match (model.indices.get(a), model.indices.get(b)) {
            (Some(x), Some(y)) => x != y,
            _ => true,
        },
    )
}

/// Whether an assumption holds in the model, for all values of its
/// variables and all assignments of its quantified indices. A model too big
/// to enumerate the variables' values (see [`max_states_for`]) is an error.
pub fn assumption_holds(
    ev: &Evaluator,
    model: &Model,
    a: &Assumption,
) -> Result<bool, Uninterpreted> {
    let mut m = model.clone();
    let n = m.states;
    let count = a
        .vars
        .iter()
        .try_fold(1u64, |acc, (_, s)| acc.checked_mul(values(*s, n)))
        .filter(|c| *c <= MAX_VALUATIONS)
        .ok_or_else(|| Uninterpreted(format!("all values of {} variables", a.vars.len())))?;
    for mut k in 0..count {
        for (v, sort) in &a.vars {
            let c = values(*sort, n);
            m.constants.insert(v.clone(), nth_value(*sort, n, k % c));
            k /= c;
        }
        if !indices_hold(ev, &mut m, a)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn indices_hold(ev: &Evaluator, m: &mut Model, a: &Assumption) -> Result<bool, Uninterpreted> {
    fn go(ev: &Evaluator, m: &mut Model, a: &Assumption, k: usize) -> Result<bool, Uninterpreted> {
        if k == a.forall.len() {
            if !assignments_ok(m, &a.distinct) {
                return Ok(true);
            }
            return ev.holds(m, &a.formula);
        }
        for th in 0..m.threads {
            m.indices.insert(a.forall[k].clone(), th);
            if !go(ev, m, a, k + 1)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
    go(ev, m, a, 0)
}

/// Searches `budget` random models for one where every assumption holds and
/// `goal` fails. `Err` means the goal or an assumption mentions something the
/// model cannot interpret (then no search is possible).
pub fn refute(
    ev: &Evaluator,
    sig: &Signature<'_>,
    goal: &Formula,
    assumptions: &[Assumption],
    budget: usize,
    seed: u64,
) -> Result<Option<CounterModel>, Uninterpreted> {
    let mut rng = Rng::new(seed);
    // Schematic assumptions are checked for every value of their variables,
    // so models are kept small enough to enumerate them.
    let max_states = max_states_for(assumptions);
    for _ in 0..budget {
        let model = random_model(&mut rng, sig, max_states);
        if !assignments_ok(&model, &sig.distinct) {
            continue;
        }
        if ev.holds(&model, goal)? {
            continue;
        }
        let mut all = true;
        for a in assumptions {
            if !assumption_holds(ev, &model, a)? {
                all = false;
                break;
            }
        }
        if all {
            let lhs = ev.eval(&model, &goal.lhs)?;
            let rhs = ev.eval(&model, &goal.rhs)?;
            let shown = shown_atoms(ev, sig, &model, goal, assumptions);
            return Ok(Some(CounterModel {
                model,
                lhs,
                rhs,
                shown,
            }));
        }
    }
    Ok(None)
}

fn shown_atoms(
    ev: &Evaluator,
    sig: &Signature<'_>,
    model: &Model,
    goal: &Formula,
    assumptions: &[Assumption],
) -> Vec<(String, Relation, bool)> {
    let mut names = BTreeSet::new();
    let mut collect = |t: &Term| {
        t.visit(&mut |s| match s {
            Term::Const(Atom { name, .. }) => {
                names.insert(name.clone());
            }
            Term::Var(v) => {
                names.insert(v.clone());
            }
            _ => {}
        })
    };
    for f in std::iter::once(goal).chain(assumptions.iter().map(|a| &a.formula)) {
        collect(&f.lhs);
        collect(&f.rhs);
    }
    // Definitions are shown through the atoms they expand to.
    let mut expanded = names.clone();
    for _ in 0..8 {
        let mut more = BTreeSet::new();
        for n in &expanded {
            if let Some(body) = ev.definition_body(n) {
                body.visit(&mut |s| {
                    if let Term::Const(Atom { name, .. }) = s {
                        more.insert(name.clone());
                    }
                });
            }
        }
        let before = expanded.len();
        expanded.extend(more);
        if expanded.len() == before {
            break;
        }
    }
    let mut out = Vec::new();
    for a in sig.atoms {
        if !expanded.contains(&a.name) {
            continue;
        }
        let is_pred = a.sort == Sort::Pred;
        if a.family {
            for th in 0..model.threads {
                if let Some(r) = model.families.get(&(a.name.clone(), th)) {
                    out.push((format!("{}_{th}", a.name), *r, is_pred));
                }
            }
        } else if let Some(r) = model.constants.get(&a.name) {
            out.push((a.name.clone(), *r, is_pred));
        }
    }
    for (v, sort) in &sig.vars {
        if expanded.contains(v)
            && let Some(r) = model.constants.get(v)
        {
            out.push((v.clone(), *r, *sort == Sort::Pred));
        }
    }
    out
}

impl Evaluator {
    /// The body of a defined name (constant or family), if defined.
    pub fn definition_body(&self, name: &str) -> Option<&Term> {
        self.body_of(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axioms::axioms;
    use crate::script::Statement;
    use crate::term::Rel;

    fn sig_for(st: &Statement) -> Signature<'static> {
        Signature {
            atoms: &[],
            vars: st.vars.clone(),
            indices: vec![],
            distinct: vec![],
        }
    }

    /// Every axiom holds in every sampled relational model; for Horn axioms,
    /// the conclusion holds whenever the premises do, and the premises hold
    /// often enough for that to be tested.
    #[test]
    fn axioms_hold_in_random_relational_models() {
        let ev = Evaluator::default();
        for ax in axioms() {
            let st = &ax.statement;
            let sig = sig_for(st);
            let mut rng = Rng::new(seed_of(&ax.label));
            let mut premise_true = 0;
            for _ in 0..4000 {
                let mut model = random_model(&mut rng, &sig, MAX_STATES);
                // Bias towards premises that hold: sometimes make y below x or z.
                if st.is_horn() && rng.chance(1, 2) {
                    let n = model.states;
                    let which = if rng.chance(1, 2) { "x" } else { "y" };
                    if let Some(r) = model.constants.get(which).copied() {
                        model
                            .constants
                            .insert(which.into(), Relation::identity(n).meet(r));
                    }
                    if rng.chance(1, 3)
                        && let Some(x) = model.constants.get("x").copied()
                    {
                        model.constants.insert("z".into(), x);
                    }
                }
                let premises = st
                    .premises
                    .iter()
                    .all(|p| ev.holds(&model, p).expect("axioms are interpreted"));
                if !premises {
                    continue;
                }
                premise_true += 1;
                for c in &st.conclusions {
                    assert!(
                        ev.holds(&model, c).expect("axioms are interpreted"),
                        "axiom {} fails in {model:?}",
                        ax.label
                    );
                }
            }
            assert!(
                premise_true >= 100,
                "axiom {}: premises held only {premise_true} times",
                ax.label
            );
        }
    }

    #[test]
    fn refuter_finds_a_counter_model_to_a_false_law() {
        // x^w y = x^w is a tempting false law (Nitpick finds it in the AFP).
        let ev = Evaluator::default();
        let x = Term::Var("x".into());
        let y = Term::Var("y".into());
        let goal = Formula::new(x.clone().omega().seq(y.clone()), Rel::Eq, x.clone().omega());
        let sig = Signature {
            atoms: &[],
            vars: [("x".to_string(), Sort::Elem), ("y".to_string(), Sort::Elem)]
                .into_iter()
                .collect(),
            indices: vec![],
            distinct: vec![],
        };
        let cm = refute(&ev, &sig, &goal, &[], 500, 1)
            .unwrap()
            .expect("a counter-model");
        assert_ne!(cm.lhs, cm.rhs);
        assert!(cm.to_string().contains("lhs ="));
        // A true law has none.
        let good = Formula::new(x.clone().omega().seq(y), Rel::Le, x.omega());
        assert_eq!(refute(&ev, &sig, &good, &[], 500, 1).unwrap(), None);
    }

    #[test]
    fn schematic_assumptions_are_checked_for_every_value() {
        // From `?z x <= ?z` for all ?z (take ?z = 1), x <= 1 follows; a
        // screen that skipped the schematic fact would refute x <= 1.
        let ev = Evaluator::default();
        let x = Term::Var("x".into());
        let z = Term::Var("?z".into());
        let sig = Signature {
            atoms: &[],
            vars: [("x".to_string(), Sort::Elem)].into_iter().collect(),
            indices: vec![],
            distinct: vec![],
        };
        let goal = Formula::new(x.clone(), Rel::Le, Term::One);
        assert!(refute(&ev, &sig, &goal, &[], 300, 3).unwrap().is_some());
        let assume = Assumption {
            formula: Formula::new(z.clone().seq(x), Rel::Le, z),
            forall: vec![],
            distinct: vec![],
            vars: vec![("?z".into(), Sort::Elem)],
        };
        assert_eq!(max_states_for(std::slice::from_ref(&assume)), 3);
        assert_eq!(refute(&ev, &sig, &goal, &[assume], 300, 3).unwrap(), None);
        // Every relation on 2 states is enumerated exactly once.
        let all: BTreeSet<Relation> = (0..16).map(|k| nth_value(Sort::Elem, 2, k)).collect();
        assert_eq!(all.len(), 16);
        assert!(all.iter().all(|r| Relation::le(*r, Relation::full(2))));
    }

    #[test]
    fn assumptions_restrict_the_models() {
        // From x <= 0, x y = 0 follows: no counter-model satisfies the assumption.
        let ev = Evaluator::default();
        let x = Term::Var("x".into());
        let y = Term::Var("y".into());
        let sig = Signature {
            atoms: &[],
            vars: [("x".to_string(), Sort::Elem), ("y".to_string(), Sort::Elem)]
                .into_iter()
                .collect(),
            indices: vec![],
            distinct: vec![],
        };
        let goal = Formula::new(x.clone().seq(y), Rel::Eq, Term::Zero);
        let assume = Assumption {
            formula: Formula::new(x, Rel::Le, Term::Zero),
            forall: vec![],
            distinct: vec![],
            vars: vec![],
        };
        assert!(refute(&ev, &sig, &goal, &[], 300, 2).unwrap().is_some());
        assert_eq!(refute(&ev, &sig, &goal, &[assume], 300, 2).unwrap(), None);
    }
}
