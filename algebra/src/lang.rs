//! The e-graph language and the translation of terms into it.
//!
//! Names live in their own namespaces, apart from the operators: an atom or
//! defined name `n` is the leaf `@n` (a family member `(@n _i)`), a fixed
//! variable `x` is `%x`, an index leaf is `_i` (bound indices `_#0`, `_#1`,
//! see [`Term::canon`]). So a declared `omega_i` is `(@omega _i)`, never
//! the operator `omega`. Schematic variables whose name starts with `?`
//! become pattern variables.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use egg::{Id, Symbol, define_language};

/// An interned name that orders by its text. egg sorts e-nodes, and
/// `Symbol` orders by interning order, which differs between runs that
/// intern names in different orders (threads of a test process); ordering
/// by text keeps saturation identical everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Name(Symbol);

impl Ord for Name {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.0 == other.0 {
            Ordering::Equal
        } else {
            self.0.as_str().cmp(other.0.as_str())
        }
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl FromStr for Name {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Name(Symbol::from(s)))
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

use crate::term::{Atom, Term};

define_language! {
    /// Operators of omega algebra as e-graph nodes.
    pub enum Op {
        "0" = Zero,
        "1" = One,
        "+" = Add([Id; 2]),
        ";" = Seq([Id; 2]),
        "*" = Star(Id),
        "omega" = Omega(Id),
        "ostar" = OmegaStar([Id; 2]),
        "~" = Not(Id),
        "box" = Bracket(Id),
        "sum" = Sum([Id; 2]),
        "prod" = Prod([Id; 2]),
        Leaf(Name),
        Member(Name, Vec<Id>),
    }
}

/// The e-graph leaf of an index name (`?i` stays a pattern variable).
pub(crate) fn index_leaf(i: &str) -> String {
    if i.starts_with('?') {
        i.to_string()
    } else {
        format!("_{i}")
    }
}

/// The s-expression of a term. Variables named `?x` and indices named `?i`
/// are pattern variables; anything else is a constant.
pub(crate) fn to_sexp(t: &Term) -> String {
    let mut s = String::new();
    write_sexp(t, &mut s);
    s
}

fn write_sexp(t: &Term, out: &mut String) {
    let un = |op: &str, a: &Term, out: &mut String| {
        out.push('(');
        out.push_str(op);
        out.push(' ');
        write_sexp(a, out);
        out.push(')');
    };
    let bin = |op: &str, a: &Term, b: &Term, out: &mut String| {
        out.push('(');
        out.push_str(op);
        out.push(' ');
        write_sexp(a, out);
        out.push(' ');
        write_sexp(b, out);
        out.push(')');
    };
    match t {
        Term::Zero => out.push('0'),
        Term::One => out.push('1'),
        Term::Const(Atom { name, index: None }) => {
            out.push('@');
            out.push_str(name);
        }
        Term::Const(Atom {
            name,
            index: Some(i),
        }) => {
            out.push_str("(@");
            out.push_str(name);
            out.push(' ');
            out.push_str(&index_leaf(i));
            out.push(')');
        }
        Term::Var(v) if v.starts_with('?') => out.push_str(v),
        Term::Var(v) => {
            out.push('%');
            out.push_str(v);
        }
        Term::Not(a) => un("~", a, out),
        Term::Add(a, b) => bin("+", a, b, out),
        Term::Seq(a, b) => bin(";", a, b, out),
        Term::Star(a) => un("*", a, out),
        Term::Omega(a) => un("omega", a, out),
        Term::OmegaStar(a, b) => bin("ostar", a, b, out),
        Term::Bracket(a) => un("box", a, out),
        Term::Sum(k, a) => {
            out.push_str("(sum ");
            out.push_str(&index_leaf(k));
            out.push(' ');
            write_sexp(a, out);
            out.push(')');
        }
        Term::Prod(k, a) => {
            out.push_str("(prod ");
            out.push_str(&index_leaf(k));
            out.push(' ');
            write_sexp(a, out);
            out.push(')');
        }
    }
}

/// The ground expression of a term (it must have no pattern variables).
pub(crate) fn to_expr(t: &Term) -> egg::RecExpr<Op> {
    match to_sexp(t).parse() {
        Ok(e) => e,
        // `to_sexp` only emits well-formed s-expressions of `Op`.
        Err(e) => unreachable!("term `{t}` has no e-graph expression: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_sums_translate() {
        let t = Term::Sum(
            "#0".into(),
            Box::new(Term::member("M", "#0").seq(Term::member("u", "i"))),
        );
        assert_eq!(to_sexp(&t), "(sum _#0 (; (@M _#0) (@u _i)))");
        let e = to_expr(&t);
        assert_eq!(e.to_string(), "(sum _#0 (; (@M _#0) (@u _i)))");
        // Names that spell operators stay atoms.
        let t = Term::member("omega", "i").seq(Term::constant("box"));
        assert!(matches!(
            to_expr(&t).as_ref()[to_expr(&t).as_ref().len() - 1],
            Op::Seq(_)
        ));
        let e = to_expr(&t);
        assert!(
            !e.as_ref()
                .iter()
                .any(|n| matches!(n, Op::Omega(_) | Op::Bracket(_)))
        );
    }
}
