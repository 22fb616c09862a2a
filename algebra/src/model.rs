//! The relational model (digest, section 1): terms denote binary relations
//! on a few states; `x^w` relates a state to every state iff an infinite
//! x-path starts there.

use std::collections::BTreeMap;
use std::fmt;

use crate::script::{DefHead, Definition};
use crate::term::{Atom, Formula, Rel, Term};

/// At most this many states.
pub const MAX_STATES: usize = 4;

/// A relation on at most four states: bit `4 s + t` is the pair `(s, t)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Relation(pub u16);

impl Relation {
    /// The empty relation.
    pub const EMPTY: Relation = Relation(0);

    fn row(self, s: usize) -> u16 {
        (self.0 >> (4 * s)) & 0xF
    }

    /// Whether `(s, t)` is in the relation.
    pub fn contains(self, s: usize, t: usize) -> bool {
        self.0 & (1 << (4 * s + t)) != 0
    }

    /// The identity on `n` states.
    pub fn identity(n: usize) -> Relation {
        Relation((0..n).fold(0, |acc, s| acc | (1 << (5 * s))))
    }

    /// All pairs of `n` states.
    pub fn full(n: usize) -> Relation {
        let row = (1u16 << n) - 1;
        Relation((0..n).fold(0, |acc, s| acc | (row << (4 * s))))
    }

    /// Union.
    pub fn union(self, other: Relation) -> Relation {
        Relation(self.0 | other.0)
    }

    /// Intersection.
    pub fn meet(self, other: Relation) -> Relation {
        Relation(self.0 & other.0)
    }

    /// Relational composition: `x ; y`.
    pub fn compose(self, other: Relation) -> Relation {
        let mut out = 0u16;
        for s in 0..MAX_STATES {
            let row = self.row(s);
            let mut acc = 0u16;
            for t in 0..MAX_STATES {
                if row & (1 << t) != 0 {
                    acc |= other.row(t);
                }
            }
            out |= acc << (4 * s);
        }
        Relation(out)
    }

    /// Reflexive-transitive closure on `n` states.
    pub fn star(self, n: usize) -> Relation {
        let mut acc = Relation::identity(n);
        loop {
            let next = acc.union(acc.compose(self));
            if next == acc {
                return acc;
            }
            acc = next;
        }
    }

    /// `x^w` on `n` states: every pair `(s, t)` where an infinite x-path starts at s.
    pub fn omega(self, n: usize) -> Relation {
        // Greatest fixpoint: states with a successor that again has one, forever.
        let mut alive: u16 = (1 << n) - 1;
        loop {
            let mut next = 0u16;
            for s in 0..n {
                if alive & (1 << s) != 0 && self.row(s) & alive != 0 {
                    next |= 1 << s;
                }
            }
            if next == alive {
                break;
            }
            alive = next;
        }
        let row = (1u16 << n) - 1;
        Relation((0..n).fold(0, |acc, s| {
            if alive & (1 << s) != 0 {
                acc | (row << (4 * s))
            } else {
                acc
            }
        }))
    }

    /// `self <= other`: inclusion.
    pub fn le(self, other: Relation) -> bool {
        self.0 & !other.0 == 0
    }

    /// The pairs, in order.
    pub fn pairs(self, n: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for s in 0..n {
            for t in 0..n {
                if self.contains(s, t) {
                    v.push((s, t));
                }
            }
        }
        v
    }

    /// Whether it is a partial identity (a predicate).
    pub fn is_test(self, n: usize) -> bool {
        self.le(Relation::identity(n))
    }

    /// Renders `{0->1, 2->2}`, or `{0, 2}` for a predicate.
    pub fn render(self, n: usize, as_set: bool) -> String {
        let items: Vec<String> = if as_set {
            self.pairs(n).iter().map(|(s, _)| s.to_string()).collect()
        } else {
            self.pairs(n)
                .iter()
                .map(|(s, t)| format!("{s}->{t}"))
                .collect()
        };
        format!("{{{}}}", items.join(", "))
    }
}

/// An interpretation of atoms, variables and indices over `states` states and `threads` threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Number of states (1 to 4).
    pub states: usize,
    /// Number of threads (at least 1).
    pub threads: usize,
    /// Unindexed atoms and schematic variables.
    pub constants: BTreeMap<String, Relation>,
    /// Family members: `(name, thread)`.
    pub families: BTreeMap<(String, usize), Relation>,
    /// The thread of each free index.
    pub indices: BTreeMap<String, usize>,
}

/// A term that mentions something the model does not interpret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the model does not interpret `{0}`")]
pub struct Uninterpreted(pub String);

/// Evaluates terms in a model, expanding definitions.
#[derive(Clone, Debug, Default)]
pub struct Evaluator {
    consts: BTreeMap<String, Term>,
    families: BTreeMap<String, (String, Term)>,
    bracket: Option<(String, Term)>,
}

impl Evaluator {
    /// An evaluator that expands the given definitions.
    pub fn new<'a>(defs: impl IntoIterator<Item = &'a Definition>) -> Evaluator {
        let mut e = Evaluator::default();
        for d in defs {
            match &d.head {
                DefHead::Const(n) => {
                    e.consts.insert(n.clone(), d.body.clone());
                }
                DefHead::Family(n, i) => {
                    e.families.insert(n.clone(), (i.clone(), d.body.clone()));
                }
                DefHead::Bracket(x) => e.bracket = Some((x.clone(), d.body.clone())),
            }
        }
        e
    }

    pub(crate) fn body_of(&self, name: &str) -> Option<&Term> {
        self.consts
            .get(name)
            .or_else(|| self.families.get(name).map(|(_, b)| b))
    }

    /// The relation a term denotes.
    pub fn eval(&self, m: &Model, t: &Term) -> Result<Relation, Uninterpreted> {
        let mut env = m.indices.clone();
        self.eval_in(m, t, &mut env, &BTreeMap::new())
    }

    /// Whether a formula holds.
    pub fn holds(&self, m: &Model, f: &Formula) -> Result<bool, Uninterpreted> {
        let l = self.eval(m, &f.lhs)?;
        let r = self.eval(m, &f.rhs)?;
        Ok(match f.rel {
            Rel::Eq => l == r,
            Rel::Le => l.le(r),
        })
    }

    fn eval_in(
        &self,
        m: &Model,
        t: &Term,
        env: &mut BTreeMap<String, usize>,
        locals: &BTreeMap<String, Relation>,
    ) -> Result<Relation, Uninterpreted> {
        let n = m.states;
        Ok(match t {
            Term::Zero => Relation::EMPTY,
            Term::One => Relation::identity(n),
            Term::Var(v) => match locals.get(v).or_else(|| m.constants.get(v)) {
                Some(r) => *r,
                None => return Err(Uninterpreted(v.clone())),
            },
            Term::Const(Atom { name, index: None }) => {
                if let Some(body) = self.consts.get(name) {
                    let mut fresh = BTreeMap::new();
                    self.eval_in(m, body, &mut fresh, &BTreeMap::new())?
                } else {
                    match m.constants.get(name) {
                        Some(r) => *r,
                        None => return Err(Uninterpreted(name.clone())),
                    }
                }
            }
            Term::Const(Atom {
                name,
                index: Some(i),
            }) => {
                let thread = match env.get(i) {
                    Some(t) => *t,
                    None => return Err(Uninterpreted(format!("index {i}"))),
                };
                if let Some((param, body)) = self.families.get(name) {
                    let mut inner = BTreeMap::new();
                    inner.insert(param.clone(), thread);
                    self.eval_in(m, body, &mut inner, &BTreeMap::new())?
                } else {
                    match m.families.get(&(name.clone(), thread)) {
                        Some(r) => *r,
                        None => return Err(Uninterpreted(format!("{name}_{thread}"))),
                    }
                }
            }
            Term::Not(a) => {
                let r = self.eval_in(m, a, env, locals)?;
                Relation(Relation::identity(n).0 & !r.0)
            }
            Term::Add(a, b) => self
                .eval_in(m, a, env, locals)?
                .union(self.eval_in(m, b, env, locals)?),
            Term::Seq(a, b) => self
                .eval_in(m, a, env, locals)?
                .compose(self.eval_in(m, b, env, locals)?),
            Term::Star(a) => self.eval_in(m, a, env, locals)?.star(n),
            Term::Omega(a) => self.eval_in(m, a, env, locals)?.omega(n),
            Term::OmegaStar(a, b) => {
                let x = self.eval_in(m, a, env, locals)?;
                let y = self.eval_in(m, b, env, locals)?;
                x.omega(n).union(x.star(n).compose(y))
            }
            Term::Bracket(a) => {
                let arg = self.eval_in(m, a, env, locals)?;
                match &self.bracket {
                    Some((x, body)) => {
                        let mut l = BTreeMap::new();
                        l.insert(x.clone(), arg);
                        let mut fresh = BTreeMap::new();
                        self.eval_in(m, body, &mut fresh, &l)?
                    }
                    None => return Err(Uninterpreted("[x]".into())),
                }
            }
            Term::Sum(k, body) | Term::Prod(k, body) => {
                let is_sum = matches!(t, Term::Sum(..));
                let saved = env.get(k).copied();
                let mut acc = if is_sum {
                    Relation::EMPTY
                } else {
                    Relation::identity(n)
                };
                for th in 0..m.threads {
                    env.insert(k.clone(), th);
                    let r = self.eval_in(m, body, env, locals)?;
                    acc = if is_sum { acc.union(r) } else { acc.compose(r) };
                }
                match saved {
                    Some(s) => env.insert(k.clone(), s),
                    None => env.remove(k),
                };
                acc
            }
        })
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} states, {} threads", self.states, self.threads)?;
        if !self.indices.is_empty() {
            let idx: Vec<String> = self
                .indices
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            write!(f, " ({})", idx.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn omega_detects_infinite_paths() {
        // 0 -> 1 -> 1: an infinite path from 0 and 1; state 2 is stuck.
        let r = Relation((1 << 1) | (1 << 5));
        let w = r.omega(3);
        assert!(w.contains(0, 2) && w.contains(1, 0));
        assert!(!w.contains(2, 2));
        // A well-founded relation has an empty omega.
        let chain = Relation((1 << 1) | (1 << 6));
        assert_eq!(chain.omega(3), Relation::EMPTY);
    }

    #[test]
    fn star_is_reflexive_transitive_closure() {
        let chain = Relation((1 << 1) | (1 << 6)); // 0->1->2
        let s = chain.star(3);
        assert!(s.contains(0, 2) && s.contains(2, 2) && !s.contains(2, 0));
    }
}
