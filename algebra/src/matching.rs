//! Syntactic matching modulo associativity of `·` and `+`, used to infer
//! how a cited Horn rule (an induction axiom, (1), (2), ...) is instantiated
//! from the step it justifies. Inference only proposes an instance: the
//! instance's premises are then proved like any goal.

use std::collections::{BTreeMap, BTreeSet};

use crate::term::{Atom, Term};

/// An instantiation of schematic variables and indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Inst {
    pub terms: BTreeMap<String, Term>,
    pub indices: BTreeMap<String, String>,
}

impl Inst {
    /// Applies the instantiation.
    pub fn apply(&self, t: &Term) -> Term {
        t.subst_indices(&self.indices).subst_vars(&self.terms)
    }
}

/// The pattern's schematic variables and indices.
pub(crate) struct Schema<'a> {
    pub vars: &'a BTreeSet<String>,
    pub indices: &'a BTreeSet<String>,
}

/// Extends `inst` so that the pattern becomes the term, if possible.
/// Capture-avoiding: a variable never binds a subterm that mentions an
/// index bound by a sum or product around it in the term, and an index
/// variable never binds such an index, since the instance would move it
/// out of its binder.
pub(crate) fn match_term(s: &Schema<'_>, p: &Term, t: &Term, inst: &mut Inst) -> bool {
    go(s, p, t, inst, &mut Vec::new())
}

fn captures(t: &Term, bound: &[String]) -> bool {
    t.free_indices().iter().any(|i| bound.contains(i))
}

fn go(s: &Schema<'_>, p: &Term, t: &Term, inst: &mut Inst, bound: &mut Vec<String>) -> bool {
    match (p, t) {
        (Term::Var(v), _) if s.vars.contains(v) => !captures(t, bound) && bind(inst, v, t),
        (Term::Seq(..), _) => {
            let pf = p.factors();
            let tf = t.factors();
            match_list(s, &pf, &tf, inst, true, bound)
        }
        (Term::Add(..), _) => {
            let ps = p.summands();
            let ts = t.summands();
            match_list(s, &ps, &ts, inst, false, bound)
        }
        (Term::Not(pa), _) => match (&**pa, t) {
            (Term::Var(v), Term::Not(ta)) if s.vars.contains(v) => {
                !captures(ta, bound) && bind(inst, v, ta)
            }
            (Term::Var(v), Term::Const(_)) | (Term::Var(v), Term::Var(_)) if s.vars.contains(v) => {
                !captures(t, bound) && bind(inst, v, &Term::Not(Box::new(t.clone())))
            }
            (_, Term::Not(ta)) => go(s, pa, ta, inst, bound),
            _ => false,
        },
        (
            Term::Const(Atom {
                name: pn,
                index: pi,
            }),
            Term::Const(Atom {
                name: tn,
                index: ti,
            }),
        ) => {
            if pn != tn {
                return false;
            }
            match (pi, ti) {
                (None, None) => true,
                (Some(a), Some(b)) => {
                    if s.indices.contains(a) && bound.contains(b) {
                        false
                    } else if s.indices.contains(a) {
                        match inst.indices.get(a) {
                            Some(prev) => prev == b,
                            None => {
                                inst.indices.insert(a.clone(), b.clone());
                                true
                            }
                        }
                    } else {
                        a == b
                    }
                }
                _ => false,
            }
        }
        (Term::Star(a), Term::Star(b))
        | (Term::Omega(a), Term::Omega(b))
        | (Term::Bracket(a), Term::Bracket(b)) => go(s, a, b, inst, bound),
        (Term::OmegaStar(a1, a2), Term::OmegaStar(b1, b2)) => {
            let saved = inst.clone();
            if go(s, a1, b1, inst, bound) && go(s, a2, b2, inst, bound) {
                true
            } else {
                *inst = saved;
                false
            }
        }
        (Term::Sum(k1, a), Term::Sum(k2, b)) | (Term::Prod(k1, a), Term::Prod(k2, b)) => {
            // The pattern's own binder is not a pattern index.
            if k1 != k2 || s.indices.contains(k1) {
                return false;
            }
            bound.push(k2.clone());
            let ok = go(s, a, b, inst, bound);
            bound.pop();
            ok
        }
        _ => p == t,
    }
}

fn bind(inst: &mut Inst, v: &str, t: &Term) -> bool {
    match inst.terms.get(v) {
        Some(prev) => prev.assoc_normal() == t.assoc_normal(),
        None => {
            inst.terms.insert(v.to_string(), t.clone());
            true
        }
    }
}

/// Matches a list of factors (or summands) against another; an unbound
/// variable may absorb several consecutive items.
fn match_list(
    s: &Schema<'_>,
    ps: &[Term],
    ts: &[Term],
    inst: &mut Inst,
    seq: bool,
    bound: &mut Vec<String>,
) -> bool {
    let Some((p0, prest)) = ps.split_first() else {
        return ts.is_empty();
    };
    if ts.is_empty() {
        return false;
    }
    let rebuild = |items: &[Term]| {
        if seq {
            Term::seq_of(items.to_vec())
        } else {
            Term::add_of(items.to_vec())
        }
    };
    if let Term::Var(v) = p0 {
        if s.vars.contains(v) && !inst.terms.contains_key(v) {
            let max = ts.len() - prest.len().min(ts.len() - 1);
            for k in 1..=max {
                let saved = inst.clone();
                let chunk = rebuild(&ts[..k]);
                if captures(&chunk, bound) {
                    continue;
                }
                inst.terms.insert(v.clone(), chunk);
                if match_list(s, prest, &ts[k..], inst, seq, bound) {
                    return true;
                }
                *inst = saved;
            }
            return false;
        }
        if let Some(prev) = inst.terms.get(v).cloned() {
            let items = if seq { prev.factors() } else { prev.summands() };
            if ts.len() >= items.len()
                && ts[..items.len()]
                    .iter()
                    .zip(&items)
                    .all(|(a, b)| a.assoc_normal() == b.assoc_normal())
            {
                return match_list(s, prest, &ts[items.len()..], inst, seq, bound);
            }
            return false;
        }
    }
    let saved = inst.clone();
    if go(s, p0, &ts[0], inst, bound) && match_list(s, prest, &ts[1..], inst, seq, bound) {
        return true;
    }
    *inst = saved;
    false
}

/// Candidate (lhs, rhs) pairs for matching a rule's conclusion against a
/// step: the step itself and the step with a common context of factors
/// removed (monotonicity of `·`).
pub(crate) fn contexts(lhs: &Term, rhs: &Term) -> Vec<(Term, Term)> {
    let mut out = vec![(lhs.clone(), rhs.clone())];
    let lf = lhs.factors();
    let rf = rhs.factors();
    let mut pre = 0;
    while pre < lf.len() && pre < rf.len() && lf[pre] == rf[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < lf.len() - pre
        && suf < rf.len() - pre
        && lf[lf.len() - 1 - suf] == rf[rf.len() - 1 - suf]
    {
        suf += 1;
    }
    for (a, b) in [(pre, suf), (pre, 0), (0, suf)] {
        if a + b == 0 {
            continue;
        }
        let l = Term::seq_of(lf[a..lf.len() - b].to_vec());
        let r = Term::seq_of(rf[a..rf.len() - b].to_vec());
        if !out.contains(&(l.clone(), r.clone())) {
            out.push((l, r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Term {
        Term::Var(s.into())
    }

    #[test]
    fn star_induction_matches_modulo_associativity() {
        // x* y against M* N* R gives x = M, y = N* R.
        let vars: BTreeSet<String> = ["x", "y"].iter().map(|s| s.to_string()).collect();
        let idx = BTreeSet::new();
        let s = Schema {
            vars: &vars,
            indices: &idx,
        };
        let pat = v("x").star().seq(v("y"));
        let m = Term::constant("M");
        let n = Term::constant("N");
        let r = Term::constant("R");
        let t = m.clone().star().seq(n.clone().star().seq(r.clone()));
        let mut inst = Inst::default();
        assert!(match_term(&s, &pat, &t, &mut inst));
        assert_eq!(inst.terms["x"], m);
        assert_eq!(inst.terms["y"].to_string(), "N* R");
    }

    #[test]
    fn matching_never_moves_a_bound_index_out_of_its_binder() {
        // x (+k : y) against (+j : v_j u_j) would need x := v_j, y := u_j
        // with j bound: refused, as is an index variable bound to j.
        let vars: BTreeSet<String> = ["x", "y"].iter().map(|s| s.to_string()).collect();
        let idx: BTreeSet<String> = ["i"].iter().map(|s| s.to_string()).collect();
        let s = Schema {
            vars: &vars,
            indices: &idx,
        };
        let t = Term::Sum(
            "j".into(),
            Box::new(Term::member("v", "j").seq(Term::member("u", "j"))),
        );
        let p = Term::Sum("j".into(), Box::new(v("x").seq(v("y"))));
        assert!(!match_term(&s, &p, &t, &mut Inst::default()));
        let p = Term::Sum(
            "j".into(),
            Box::new(Term::member("v", "i").seq(Term::member("u", "j"))),
        );
        assert!(!match_term(&s, &p, &t, &mut Inst::default()));
        // A subterm free of the bound index may be bound.
        let t = Term::Sum(
            "j".into(),
            Box::new(Term::member("v", "k").seq(Term::member("u", "j"))),
        );
        let p = Term::Sum("j".into(), Box::new(v("x").seq(Term::member("u", "j"))));
        let mut i = Inst::default();
        assert!(match_term(&s, &p, &t, &mut i));
        assert_eq!(i.terms["x"], Term::member("v", "k"));
    }

    #[test]
    fn contexts_strip_common_factors() {
        let a = Term::constant("a");
        let t1 = a.clone().seq(Term::constant("b"));
        let t2 = a.seq(Term::constant("c"));
        let cs = contexts(&t1, &t2);
        assert!(cs.contains(&(Term::constant("b"), Term::constant("c"))));
    }
}
