//! From the prover's terms and scripts (named binders, untyped variables)
//! to the core's (locally nameless, sorted). Untrusted: a wrong translation
//! can only make the core refuse a step, or prove a statement other than the
//! claimed one, which the lemma check and the pinned claim catch.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::script::{self, DefHead, Script, Sort as SSort};
use crate::term::{Atom, Formula as KFormula, Rel as KRel, Term as K};
use crate::trusted::{self, CoreError, Formula, Ix, Rel, Sort, Statement, Term, Theory};

/// Sorts of the script's variables; a schematic `?x` has the sort of `x`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sorts(pub BTreeMap<String, SSort>);

impl Sorts {
    pub fn of(&self, v: &str) -> Sort {
        match self.0.get(v.trim_start_matches('?')) {
            Some(SSort::Pred) => Sort::Pred,
            _ => Sort::Elem,
        }
    }
}

fn rc(t: Term) -> Rc<Term> {
    Rc::new(t)
}

/// The core term of a prover term. An index bound by an enclosing sum or
/// product becomes a de Bruijn index; any other is free.
pub(crate) fn term(t: &K, sorts: &Sorts) -> Term {
    fn go(t: &K, sorts: &Sorts, bound: &mut Vec<String>) -> Term {
        let c = |a: &K, bound: &mut Vec<String>| rc(go(a, sorts, bound));
        match t {
            K::Zero => Term::Zero,
            K::One => Term::One,
            K::Const(Atom { name, index }) => {
                let ix = index
                    .as_ref()
                    .map(|i| match bound.iter().rev().position(|b| b == i) {
                        Some(n) => Ix::Bound(n),
                        None => Ix::Free(i.clone()),
                    });
                Term::Atom(name.clone(), ix)
            }
            K::Var(v) => Term::Var(v.clone(), sorts.of(v)),
            K::Not(a) => Term::Not(c(a, bound)),
            K::Add(a, b) => Term::Add(c(a, bound), c(b, bound)),
            K::Seq(a, b) => Term::Seq(c(a, bound), c(b, bound)),
            K::Star(a) => Term::Star(c(a, bound)),
            K::Omega(a) => Term::Omega(c(a, bound)),
            K::OmegaStar(a, b) => Term::OStar(c(a, bound), c(b, bound)),
            K::Bracket(a) => Term::Bracket(c(a, bound)),
            K::Sum(k, body) | K::Prod(k, body) => {
                bound.push(k.clone());
                let b = c(body, bound);
                bound.pop();
                if matches!(t, K::Sum(..)) {
                    Term::Sum(b)
                } else {
                    Term::Prod(b)
                }
            }
        }
    }
    go(t, sorts, &mut Vec::new())
}

pub(crate) fn rel(r: KRel) -> Rel {
    match r {
        KRel::Eq => Rel::Eq,
        KRel::Le => Rel::Le,
    }
}

pub(crate) fn formula(f: &KFormula, sorts: &Sorts) -> Formula {
    Formula::new(term(&f.lhs, sorts), rel(f.rel), term(&f.rhs, sorts))
}

pub(crate) fn statement(st: &script::Statement, sorts: &Sorts) -> Statement {
    Statement {
        distinct: st.distinct.clone(),
        premises: st.premises.iter().map(|f| formula(f, sorts)).collect(),
        conclusions: st.conclusions.iter().map(|f| formula(f, sorts)).collect(),
    }
}

/// The core theory of a script's declarations, definitions and hypotheses,
/// without the hypotheses in `dropped`.
pub(crate) fn theory(s: &Script, dropped: &BTreeSet<String>) -> Result<Theory, CoreError> {
    let sorts = Sorts(s.vars.clone());
    let mut th = Theory::default();
    for a in &s.atoms {
        let sort = if a.sort == SSort::Pred {
            Sort::Pred
        } else {
            Sort::Elem
        };
        th.declare(&a.name, a.family, sort)?;
    }
    for item in &s.items {
        match item {
            script::Item::Def(d) => {
                let head = match &d.head {
                    DefHead::Const(n) => trusted::DefHead::Const(n.clone()),
                    DefHead::Family(n, i) => trusted::DefHead::Family(n.clone(), i.clone()),
                    DefHead::Bracket(x) => trusted::DefHead::Bracket(x.clone()),
                };
                // The bracket's parameter is an element variable whatever
                // the script declares about the name.
                let mut ds = sorts.clone();
                if let DefHead::Bracket(x) = &d.head {
                    ds.0.insert(x.clone(), SSort::Elem);
                }
                th.define(&d.label, head, term(&d.body, &ds))?;
            }
            script::Item::Hyp(h) if !dropped.contains(&h.label) => {
                th.assume(&h.label, statement(&h.statement, &sorts))?;
            }
            _ => {}
        }
    }
    Ok(th)
}
