//! Terms of the trusted core, locally nameless: a sum or product binds its
//! index as a de Bruijn index (`Ix::Bound`), and every other index is a
//! name (`Ix::Free`). Capture is impossible by construction: substitution
//! puts only closed terms under binders, and matching binds a pattern
//! variable only to a closed subterm and a pattern index only to a free one.
//! Atoms are `Term::Atom`, never operators: a declared `omega` or `box` is
//! an atom like any other.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A thread index: a name, or the binder `n` levels up.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ix {
    /// An index variable (universally quantified in a theorem).
    Free(String),
    /// De Bruijn: 0 is the innermost enclosing sum or product.
    Bound(usize),
}

/// A bound of the core that a derivation exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// A term with more operators and leaves than [`MAX_SIZE`](super::thm::MAX_SIZE).
    TermSize,
    /// A term nested deeper than [`MAX_DEPTH`](super::thm::MAX_DEPTH).
    TermDepth,
    /// More work than the theory's limit (see [`Theory::work_limit`](super::Theory::work_limit)).
    Work,
}

/// The sort of a schematic variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    /// Any element.
    Elem,
    /// A predicate: instantiated only by a predicate literal.
    Pred,
}

/// A term of omega algebra.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// `0`
    Zero,
    /// `1`
    One,
    /// A declared atom or defined name, with its thread index if a family.
    Atom(String, Option<Ix>),
    /// A schematic variable (universally quantified in a theorem).
    Var(String, Sort),
    /// `~a`, for a predicate atom or variable `a` only.
    Not(Rc<Term>),
    /// `x + y`
    Add(Rc<Term>, Rc<Term>),
    /// `x y`
    Seq(Rc<Term>, Rc<Term>),
    /// `x*`
    Star(Rc<Term>),
    /// `x^w`
    Omega(Rc<Term>),
    /// `x <w> y`
    OStar(Rc<Term>, Rc<Term>),
    /// `[x]`, the theory's bracket definition applied.
    Bracket(Rc<Term>),
    /// `(+k : body)`, body over `Ix::Bound(0)`.
    Sum(Rc<Term>),
    /// `(.k : body)`, body over `Ix::Bound(0)`.
    Prod(Rc<Term>),
}

fn rc(t: Term) -> Rc<Term> {
    Rc::new(t)
}

impl Term {
    /// `a + b`
    pub fn plus(a: Term, b: Term) -> Term {
        Term::Add(rc(a), rc(b))
    }
    /// `a b`
    pub fn seq(a: Term, b: Term) -> Term {
        Term::Seq(rc(a), rc(b))
    }

    /// The direct children, in order (the body of a binder is its only child).
    pub fn children(&self) -> Vec<&Rc<Term>> {
        match self {
            Term::Zero | Term::One | Term::Atom(..) | Term::Var(..) => vec![],
            Term::Not(a)
            | Term::Star(a)
            | Term::Omega(a)
            | Term::Bracket(a)
            | Term::Sum(a)
            | Term::Prod(a) => vec![a],
            Term::Add(a, b) | Term::Seq(a, b) | Term::OStar(a, b) => vec![a, b],
        }
    }

    /// The same node with its children replaced, in order.
    pub fn with_children(&self, mut c: Vec<Rc<Term>>) -> Term {
        let mut next = || c.remove(0);
        match self {
            Term::Zero | Term::One | Term::Atom(..) | Term::Var(..) => self.clone(),
            Term::Not(_) => Term::Not(next()),
            Term::Star(_) => Term::Star(next()),
            Term::Omega(_) => Term::Omega(next()),
            Term::Bracket(_) => Term::Bracket(next()),
            Term::Sum(_) => Term::Sum(next()),
            Term::Prod(_) => Term::Prod(next()),
            Term::Add(..) => Term::Add(next(), next()),
            Term::Seq(..) => Term::Seq(next(), next()),
            Term::OStar(..) => Term::OStar(next(), next()),
        }
    }

    /// Whether it binds an index.
    pub fn is_binder(&self) -> bool {
        matches!(self, Term::Sum(_) | Term::Prod(_))
    }

    /// Rebuilds the term with `f` applied to every index, told how many
    /// binders enclose the index inside this term.
    fn map_ix(&self, depth: usize, f: &impl Fn(&Ix, usize) -> Ix) -> Term {
        match self {
            Term::Atom(n, Some(i)) => Term::Atom(n.clone(), Some(f(i, depth))),
            Term::Zero | Term::One | Term::Atom(_, None) | Term::Var(..) => self.clone(),
            _ => {
                let d = depth + usize::from(self.is_binder());
                let c = self.children().iter().map(|c| rc(c.map_ix(d, f))).collect();
                self.with_children(c)
            }
        }
    }

    /// A binder's body with its bound index replaced by the name `k`.
    pub fn open(body: &Term, k: &str) -> Term {
        body.map_ix(0, &|i, d| match i {
            Ix::Bound(n) if *n == d => Ix::Free(k.to_string()),
            other => other.clone(),
        })
    }

    /// The body of a binder over the name `k` (the inverse of [`Term::open`]).
    pub fn close(t: &Term, k: &str) -> Term {
        t.map_ix(0, &|i, d| match i {
            Ix::Free(n) if n == k => Ix::Bound(d),
            other => other.clone(),
        })
    }

    /// The term's size (its operators and leaves, a shared subterm counted
    /// at every occurrence) when it has at most `max_size` of them and
    /// nests at most `max_depth` deep; otherwise the bound it exceeds.
    /// Checked without recursion, and in at most `max_size + 1` steps, so a
    /// term whose sharing unfolds into an exponential tree costs no more
    /// than the bound.
    pub fn measure(&self, max_size: usize, max_depth: usize) -> Result<usize, Limit> {
        let mut todo = vec![(self, 0usize)];
        let mut size = 0;
        while let Some((t, d)) = todo.pop() {
            size += 1;
            if size > max_size {
                return Err(Limit::TermSize);
            }
            if d > max_depth {
                return Err(Limit::TermDepth);
            }
            todo.extend(t.children().into_iter().map(|c| (&**c, d + 1)));
        }
        Ok(size)
    }

    /// Whether every bound index refers to a binder inside the term.
    pub fn is_closed(&self) -> bool {
        fn go(t: &Term, d: usize) -> bool {
            match t {
                Term::Atom(_, Some(Ix::Bound(n))) => *n < d,
                _ => {
                    let d2 = d + usize::from(t.is_binder());
                    t.children().iter().all(|c| go(c, d2))
                }
            }
        }
        go(self, 0)
    }

    /// Free index names.
    pub fn free_ixs(&self, out: &mut BTreeSet<String>) {
        match self {
            Term::Atom(_, Some(Ix::Free(i))) => {
                out.insert(i.clone());
            }
            _ => self.children().iter().for_each(|c| c.free_ixs(out)),
        }
    }

    /// Schematic variables with their sorts.
    pub fn vars(&self, out: &mut BTreeSet<(String, Sort)>) {
        match self {
            Term::Var(v, s) => {
                out.insert((v.clone(), *s));
            }
            _ => self.children().iter().for_each(|c| c.vars(out)),
        }
    }

    /// Simultaneous substitution of closed terms for variables and of
    /// names for free indices. `~a` with `a := ~b` is `b` (complements of
    /// predicates are symmetric). The caller checks sorts.
    pub fn subst(&self, vars: &BTreeMap<String, Term>, ixs: &BTreeMap<String, String>) -> Term {
        match self {
            Term::Var(v, _) => vars.get(v).cloned().unwrap_or_else(|| self.clone()),
            Term::Atom(n, Some(Ix::Free(i))) => match ixs.get(i) {
                Some(j) => Term::Atom(n.clone(), Some(Ix::Free(j.clone()))),
                None => self.clone(),
            },
            Term::Not(a) => match a.subst(vars, ixs) {
                Term::Not(b) => (*b).clone(),
                b => Term::Not(rc(b)),
            },
            Term::Zero | Term::One | Term::Atom(..) => self.clone(),
            _ => {
                let c = self
                    .children()
                    .iter()
                    .map(|c| rc(c.subst(vars, ixs)))
                    .collect();
                self.with_children(c)
            }
        }
    }

    /// Normal form modulo associativity, commutativity and idempotence of
    /// `+` with unit `0`, and associativity of `·` with unit `1`.
    pub fn aci_normal(&self) -> Term {
        match self {
            Term::Add(..) => {
                let mut s: Vec<Term> = Vec::new();
                flatten(self, true, &mut s);
                let mut s: Vec<Term> = s.iter().map(Term::aci_normal).collect();
                let mut flat = Vec::new();
                for t in s.drain(..) {
                    flatten(&t, true, &mut flat);
                }
                flat.retain(|t| *t != Term::Zero);
                flat.sort();
                flat.dedup();
                nest(flat, Term::Zero, Term::plus)
            }
            Term::Seq(..) => {
                let mut f = Vec::new();
                flatten(self, false, &mut f);
                let mut flat = Vec::new();
                for t in f.iter().map(Term::aci_normal) {
                    flatten(&t, false, &mut flat);
                }
                flat.retain(|t| *t != Term::One);
                nest(flat, Term::One, Term::seq)
            }
            _ => {
                let c = self.children().iter().map(|c| rc(c.aci_normal())).collect();
                self.with_children(c)
            }
        }
    }
}

fn flatten(t: &Term, add: bool, out: &mut Vec<Term>) {
    match (t, add) {
        (Term::Add(a, b), true) | (Term::Seq(a, b), false) => {
            flatten(a, add, out);
            flatten(b, add, out);
        }
        _ => out.push(t.clone()),
    }
}

fn nest(items: Vec<Term>, unit: Term, op: fn(Term, Term) -> Term) -> Term {
    let mut it = items.into_iter().rev();
    match it.next() {
        None => unit,
        Some(last) => it.fold(last, |acc, t| op(t, acc)),
    }
}

/// A substitution found by matching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subst {
    /// Variables to closed terms.
    pub vars: BTreeMap<String, Term>,
    /// Free indices to free indices.
    pub ixs: BTreeMap<String, String>,
}

/// Whether a variable or index name is schematic: one that matching may
/// instantiate. Other names are fixed and match only themselves.
pub fn schematic(name: &str) -> bool {
    name.starts_with('?')
}

/// First-order matching: the schematic variables and free indices of the
/// pattern are pattern variables. A variable binds only a closed subterm
/// (one that mentions no binder around it) and an index only a free index,
/// so an instance never moves a bound index out of its binder.
pub fn matches(p: &Term, t: &Term, s: &mut Subst) -> bool {
    match (p, t) {
        (Term::Var(v, _), _) if schematic(v) => {
            if !t.is_closed() {
                return false;
            }
            match s.vars.get(v) {
                Some(prev) => prev == t,
                None => {
                    s.vars.insert(v.clone(), t.clone());
                    true
                }
            }
        }
        (Term::Atom(n, i), Term::Atom(m, j)) if n == m => match (i, j) {
            (None, None) => true,
            (Some(Ix::Bound(a)), Some(Ix::Bound(b))) => a == b,
            (Some(Ix::Free(a)), Some(Ix::Free(b))) if !schematic(a) => a == b,
            (Some(Ix::Free(a)), Some(Ix::Free(b))) => match s.ixs.get(a) {
                Some(prev) => prev == b,
                None => {
                    s.ixs.insert(a.clone(), b.clone());
                    true
                }
            },
            _ => false,
        },
        _ => {
            let (pc, tc) = (p.children(), t.children());
            std::mem::discriminant(p) == std::mem::discriminant(t)
                && !matches!(p, Term::Atom(..))
                && pc.len() == tc.len()
                && pc.iter().zip(&tc).all(|(a, b)| matches(a, b, s))
                && (!pc.is_empty() || p == t)
        }
    }
}
