//! Terms of omega algebra, in the digest's notation.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The relation of a formula.
///
/// `a <= b` is not primitive: the kernel proves it as `a + b = b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rel {
    /// `=`
    Eq,
    /// `<=`
    Le,
}

impl Rel {
    /// The relation of a chain of steps: `=` only if every step is `=`.
    pub fn then(self, other: Rel) -> Rel {
        if self == Rel::Eq && other == Rel::Eq {
            Rel::Eq
        } else {
            Rel::Le
        }
    }

    /// Whether a proof of `self` establishes `goal` (`=` implies `<=`).
    pub fn implies(self, goal: Rel) -> bool {
        self == Rel::Eq || goal == Rel::Le
    }
}

impl fmt::Display for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rel::Eq => "=",
            Rel::Le => "<=",
        })
    }
}

/// A constant: a declared atom or a defined name, possibly indexed by a thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atom {
    /// The name (`u`, `q`, `M`).
    pub name: String,
    /// The thread index (`i` in `u_i`), if the name is a family.
    pub index: Option<String>,
}

/// A term of omega algebra.
///
/// Thread indices are plain names. Bound indices of sums and products are
/// names too; [`Term::canon`] renames them by nesting depth (`#0`, `#1`, ...)
/// so that alpha-equivalent terms are syntactically equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// `0`
    Zero,
    /// `1`
    One,
    /// An atom or defined constant.
    Const(Atom),
    /// A schematic variable of a lemma (`x`, `y`, or a predicate variable `a`).
    Var(String),
    /// Predicate complement `~a` (only of predicate atoms and variables).
    Not(Box<Term>),
    /// `x + y`
    Add(Box<Term>, Box<Term>),
    /// `x y`
    Seq(Box<Term>, Box<Term>),
    /// `x*`
    Star(Box<Term>),
    /// `x^w`
    Omega(Box<Term>),
    /// `x <w> y`
    OmegaStar(Box<Term>, Box<Term>),
    /// `[x]`, a user-defined bracket abbreviation.
    Bracket(Box<Term>),
    /// `(+i : x)`, a sum over all threads.
    Sum(String, Box<Term>),
    /// `(.i : x)`, a product over all threads (of predicates).
    Prod(String, Box<Term>),
}

/// A formula `lhs = rhs` or `lhs <= rhs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formula {
    /// Left-hand side.
    pub lhs: Term,
    /// The relation.
    pub rel: Rel,
    /// Right-hand side.
    pub rhs: Term,
}

impl Formula {
    /// Builds a formula.
    pub fn new(lhs: Term, rel: Rel, rhs: Term) -> Formula {
        Formula { lhs, rel, rhs }
    }

    /// Applies `f` to both sides.
    pub fn map(&self, mut f: impl FnMut(&Term) -> Term) -> Formula {
        Formula::new(f(&self.lhs), self.rel, f(&self.rhs))
    }

    /// Free indices of both sides.
    pub fn free_indices(&self) -> BTreeSet<String> {
        let mut s = self.lhs.free_indices();
        s.extend(self.rhs.free_indices());
        s
    }

    /// Schematic variables of both sides.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut s = self.lhs.vars();
        s.extend(self.rhs.vars());
        s
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.lhs, self.rel, self.rhs)
    }
}

fn bx(t: Term) -> Box<Term> {
    Box::new(t)
}

impl Term {
    /// A constant without index.
    pub fn constant(name: &str) -> Term {
        Term::Const(Atom {
            name: name.to_string(),
            index: None,
        })
    }

    /// A family member `name_index`.
    pub fn member(name: &str, index: &str) -> Term {
        Term::Const(Atom {
            name: name.to_string(),
            index: Some(index.to_string()),
        })
    }

    /// `self + other`
    pub fn plus(self, other: Term) -> Term {
        Term::Add(bx(self), bx(other))
    }

    /// `self other`
    pub fn seq(self, other: Term) -> Term {
        Term::Seq(bx(self), bx(other))
    }

    /// `self*`
    pub fn star(self) -> Term {
        Term::Star(bx(self))
    }

    /// `self^w`
    pub fn omega(self) -> Term {
        Term::Omega(bx(self))
    }

    /// Right-nested product of the factors (`1` if empty).
    pub fn seq_of(factors: Vec<Term>) -> Term {
        let mut it = factors.into_iter().rev();
        match it.next() {
            None => Term::One,
            Some(last) => it.fold(last, |acc, t| Term::Seq(bx(t), bx(acc))),
        }
    }

    /// Right-nested sum of the summands (`0` if empty).
    pub fn add_of(summands: Vec<Term>) -> Term {
        let mut it = summands.into_iter().rev();
        match it.next() {
            None => Term::Zero,
            Some(last) => it.fold(last, |acc, t| Term::Add(bx(t), bx(acc))),
        }
    }

    /// The factors of a product, flattening associativity.
    pub fn factors(&self) -> Vec<Term> {
        let mut out = Vec::new();
        fn go(t: &Term, out: &mut Vec<Term>) {
            match t {
                Term::Seq(a, b) => {
                    go(a, out);
                    go(b, out);
                }
                other => out.push(other.clone()),
            }
        }
        go(self, &mut out);
        out
    }

    /// The summands of a sum, flattening associativity.
    pub fn summands(&self) -> Vec<Term> {
        let mut out = Vec::new();
        fn go(t: &Term, out: &mut Vec<Term>) {
            match t {
                Term::Add(a, b) => {
                    go(a, out);
                    go(b, out);
                }
                other => out.push(other.clone()),
            }
        }
        go(self, &mut out);
        out
    }

    /// The same term with `+` and `·` re-associated to the right, so that
    /// terms equal up to associativity compare equal.
    pub fn assoc_normal(&self) -> Term {
        match self {
            Term::Add(..) => {
                Term::add_of(self.summands().iter().map(|t| t.assoc_normal()).collect())
            }
            Term::Seq(..) => {
                Term::seq_of(self.factors().iter().map(|t| t.assoc_normal()).collect())
            }
            _ => self.map_children(|t| t.assoc_normal()),
        }
    }

    /// Rebuilds the term with `f` applied to each direct child.
    pub fn map_children(&self, mut f: impl FnMut(&Term) -> Term) -> Term {
        match self {
            Term::Zero | Term::One | Term::Const(_) | Term::Var(_) => self.clone(),
            Term::Not(a) => Term::Not(bx(f(a))),
            Term::Add(a, b) => Term::Add(bx(f(a)), bx(f(b))),
            Term::Seq(a, b) => Term::Seq(bx(f(a)), bx(f(b))),
            Term::Star(a) => Term::Star(bx(f(a))),
            Term::Omega(a) => Term::Omega(bx(f(a))),
            Term::OmegaStar(a, b) => Term::OmegaStar(bx(f(a)), bx(f(b))),
            Term::Bracket(a) => Term::Bracket(bx(f(a))),
            Term::Sum(k, a) => Term::Sum(k.clone(), bx(f(a))),
            Term::Prod(k, a) => Term::Prod(k.clone(), bx(f(a))),
        }
    }

    /// Direct children.
    pub fn children(&self) -> Vec<&Term> {
        match self {
            Term::Zero | Term::One | Term::Const(_) | Term::Var(_) => vec![],
            Term::Not(a)
            | Term::Star(a)
            | Term::Omega(a)
            | Term::Bracket(a)
            | Term::Sum(_, a)
            | Term::Prod(_, a) => vec![a],
            Term::Add(a, b) | Term::Seq(a, b) | Term::OmegaStar(a, b) => vec![a, b],
        }
    }

    /// Visits every subterm, outermost first.
    pub fn visit(&self, f: &mut impl FnMut(&Term)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    /// Indices occurring free.
    pub fn free_indices(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        fn go(t: &Term, bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
            match t {
                Term::Const(Atom { index: Some(i), .. }) => {
                    if !bound.contains(i) {
                        out.insert(i.clone());
                    }
                }
                Term::Sum(k, body) | Term::Prod(k, body) => {
                    bound.push(k.clone());
                    go(body, bound, out);
                    bound.pop();
                }
                _ => {
                    for c in t.children() {
                        go(c, bound, out);
                    }
                }
            }
        }
        go(self, &mut Vec::new(), &mut out);
        out
    }

    /// All index names occurring, free or bound.
    pub fn all_indices(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.visit(&mut |t| match t {
            Term::Const(Atom { index: Some(i), .. }) => {
                out.insert(i.clone());
            }
            Term::Sum(k, _) | Term::Prod(k, _) => {
                out.insert(k.clone());
            }
            _ => {}
        });
        out
    }

    /// Schematic variables occurring.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.visit(&mut |t| {
            if let Term::Var(v) = t {
                out.insert(v.clone());
            }
        });
        out
    }

    /// Whether a constant with this name occurs.
    pub fn mentions(&self, name: &str) -> bool {
        let mut found = false;
        self.visit(&mut |t| {
            if let Term::Const(a) = t
                && a.name == name
            {
                found = true;
            }
        });
        found
    }

    /// Replaces the free index `from` by `to`, renaming binders that would capture `to`.
    pub fn subst_index(&self, from: &str, to: &str) -> Term {
        match self {
            Term::Const(Atom {
                name,
                index: Some(i),
            }) if i == from => Term::member(name, to),
            Term::Sum(k, body) | Term::Prod(k, body) => {
                if k == from {
                    return self.clone();
                }
                let (k2, body2) = if k == to {
                    let fresh = fresh_binder(body, to);
                    (fresh.clone(), body.subst_index(k, &fresh))
                } else {
                    (k.clone(), (**body).clone())
                };
                let body3 = body2.subst_index(from, to);
                match self {
                    Term::Sum(..) => Term::Sum(k2, bx(body3)),
                    _ => Term::Prod(k2, bx(body3)),
                }
            }
            _ => self.map_children(|c| c.subst_index(from, to)),
        }
    }

    /// Simultaneous index substitution.
    pub fn subst_indices(&self, map: &BTreeMap<String, String>) -> Term {
        if map.is_empty() {
            return self.clone();
        }
        // Rename through temporaries so that swaps such as {i -> j, j -> i} work.
        let mut t = self.clone();
        let temps: Vec<(String, String, String)> = map
            .iter()
            .enumerate()
            .map(|(n, (from, to))| (from.clone(), format!("%tmp{n}"), to.clone()))
            .collect();
        for (from, tmp, _) in &temps {
            t = t.subst_index(from, tmp);
        }
        for (_, tmp, to) in &temps {
            t = t.subst_index(tmp, to);
        }
        t
    }

    /// Substitutes terms for schematic variables. The complement of a
    /// predicate variable instantiated with `~a` is `a` (complements are
    /// symmetric), so `~~a` never arises.
    pub fn subst_vars(&self, map: &BTreeMap<String, Term>) -> Term {
        match self {
            Term::Var(v) => map.get(v).cloned().unwrap_or_else(|| self.clone()),
            Term::Not(inner) => match inner.subst_vars(map) {
                Term::Not(x) => *x,
                other => Term::Not(bx(other)),
            },
            _ => self.map_children(|c| c.subst_vars(map)),
        }
    }

    /// Renames bound indices by nesting depth (`#0` outermost), so that
    /// alpha-equivalent terms are syntactically equal. Binder order is kept:
    /// `(+i,j : f)` and `(+j,i : f)` are different terms.
    pub fn canon(&self) -> Term {
        self.canon_at(0)
    }

    fn canon_at(&self, depth: usize) -> Term {
        match self {
            Term::Sum(k, body) | Term::Prod(k, body) => {
                let tmp = format!("%canon{depth}");
                let inner = body.subst_index(k, &tmp).canon_at(depth + 1);
                let name = format!("#{depth}");
                let renamed = bx(inner.subst_index(&tmp, &name));
                match self {
                    Term::Sum(..) => Term::Sum(name, renamed),
                    _ => Term::Prod(name, renamed),
                }
            }
            _ => self.map_children(|c| c.canon_at(depth)),
        }
    }

    /// Whether the term is built from predicates only (`0`, `1`, predicate
    /// atoms and their complements, with `+` and `·`). `is_pred` says which
    /// atoms and variables are predicates.
    pub fn is_predicate(&self, is_pred: &dyn Fn(&Term) -> bool) -> bool {
        match self {
            Term::Zero | Term::One => true,
            Term::Const(_) | Term::Var(_) => is_pred(self),
            Term::Not(a) => is_pred(a),
            Term::Add(a, b) | Term::Seq(a, b) => a.is_predicate(is_pred) && b.is_predicate(is_pred),
            Term::Prod(_, a) => a.is_predicate(is_pred),
            _ => false,
        }
    }

    /// Size in nodes.
    pub fn size(&self) -> usize {
        1 + self.children().iter().map(|c| c.size()).sum::<usize>()
    }

    fn prec(&self) -> u8 {
        match self {
            Term::Add(..) => 0,
            Term::Seq(..) | Term::OmegaStar(..) => 1,
            Term::Star(_) | Term::Omega(_) => 2,
            _ => 3,
        }
    }

    fn fmt_prec(&self, f: &mut fmt::Formatter<'_>, ctx: u8) -> fmt::Result {
        let paren = self.prec() < ctx;
        if paren {
            f.write_str("(")?;
        }
        match self {
            Term::Zero => f.write_str("0")?,
            Term::One => f.write_str("1")?,
            Term::Const(Atom { name, index }) => {
                f.write_str(name)?;
                if let Some(i) = index {
                    write!(f, "_{i}")?;
                }
            }
            Term::Var(v) => f.write_str(v)?,
            Term::Not(a) => {
                f.write_str("~")?;
                a.fmt_prec(f, 3)?;
            }
            Term::Add(a, b) => {
                a.fmt_prec(f, 1)?;
                f.write_str(" + ")?;
                b.fmt_prec(f, 0)?;
            }
            Term::Seq(a, b) => {
                a.fmt_prec(f, 2)?;
                f.write_str(" ")?;
                b.fmt_prec(f, 1)?;
            }
            Term::OmegaStar(a, b) => {
                a.fmt_prec(f, 2)?;
                f.write_str(" <w> ")?;
                b.fmt_prec(f, 1)?;
            }
            Term::Star(a) => {
                a.fmt_prec(f, 2)?;
                f.write_str("*")?;
            }
            Term::Omega(a) => {
                a.fmt_prec(f, 2)?;
                f.write_str("^w")?;
            }
            Term::Bracket(a) => {
                f.write_str("[")?;
                a.fmt_prec(f, 0)?;
                f.write_str("]")?;
            }
            Term::Sum(..) | Term::Prod(..) => {
                let is_sum = matches!(self, Term::Sum(..));
                let mut binders = Vec::new();
                let mut body = self;
                while let (Term::Sum(k, b), true) | (Term::Prod(k, b), false) = (body, is_sum) {
                    binders.push(k.as_str());
                    body = b;
                }
                write!(
                    f,
                    "({}{} : ",
                    if is_sum { "+" } else { "." },
                    binders.join(",")
                )?;
                body.fmt_prec(f, 0)?;
                f.write_str(")")?;
            }
        }
        if paren {
            f.write_str(")")?;
        }
        Ok(())
    }
}

fn fresh_binder(body: &Term, avoid: &str) -> String {
    let used = body.all_indices();
    (0..)
        .map(|n| format!("%b{n}"))
        .find(|c| c != avoid && !used.contains(c))
        .expect("an unused name exists")
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_prec(f, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(n: &str, i: &str) -> Term {
        Term::member(n, i)
    }

    #[test]
    fn display_uses_digest_precedences() {
        let t = Term::constant("u").seq(Term::OmegaStar(
            bx(Term::constant("v")),
            bx(Term::OmegaStar(
                bx(Term::Var("x".into())),
                bx(Term::Var("y".into())),
            )),
        ));
        assert_eq!(t.to_string(), "u v <w> x <w> y");
        let t = Term::Seq(bx(m("u", "i").plus(Term::One)), bx(m("v", "j").star()));
        assert_eq!(t.to_string(), "(u_i + 1) v_j*");
        let t = Term::Seq(
            bx(Term::constant("a").seq(Term::constant("b"))),
            bx(Term::constant("c")),
        );
        assert_eq!(t.to_string(), "(a b) c");
        assert_eq!(t.assoc_normal().to_string(), "a b c");
    }

    #[test]
    fn canon_identifies_alpha_equivalent_sums_only() {
        let a = Term::Sum(
            "i".into(),
            bx(Term::Sum("j".into(), bx(m("M", "j").seq(m("u", "i"))))),
        );
        let b = Term::Sum(
            "j".into(),
            bx(Term::Sum("i".into(), bx(m("M", "j").seq(m("u", "i"))))),
        );
        let c = Term::Sum(
            "k".into(),
            bx(Term::Sum("l".into(), bx(m("M", "k").seq(m("u", "l"))))),
        );
        assert_ne!(a.canon(), b.canon());
        assert_eq!(b.canon(), c.canon());
        assert_eq!(a.canon().to_string(), "(+#0,#1 : M_#1 u_#0)");
    }

    #[test]
    fn subst_index_avoids_capture() {
        let t = Term::Sum("j".into(), bx(m("u", "j").seq(m("v", "i"))));
        let s = t.subst_index("i", "j");
        assert_eq!(s.free_indices(), ["j".to_string()].into_iter().collect());
        let swapped = m("u", "i").seq(m("v", "j")).subst_indices(
            &[("i".into(), "j".into()), ("j".into(), "i".into())]
                .into_iter()
                .collect(),
        );
        assert_eq!(swapped.to_string(), "u_j v_i");
    }

    #[test]
    fn complement_of_complement_instance_is_the_atom() {
        let t = Term::Not(bx(Term::Var("a".into())));
        let map = [("a".to_string(), Term::Not(bx(Term::constant("q"))))]
            .into_iter()
            .collect();
        assert_eq!(t.subst_vars(&map), Term::constant("q"));
    }
}
