//! Rewrite rules for egg: the equational axioms, and the facts a step cites.
//!
//! A fact `l = r` gives `l => r` and `r => l`; a fact `l <= r`, which means
//! `l + r = r`, gives `l + r => r` and `r => l + r`. A direction is left out
//! when its right-hand side would use a variable its left-hand side does not
//! bind, or when its left-hand side is a bare variable (it would match
//! everything). Rule names say where a rule comes from, so that a recorded
//! rewrite sequence can be re-checked against its source alone.

use egg::{Pattern, Rewrite};

use crate::axioms::axioms;
use crate::lang::{Op, to_sexp};
use crate::term::{Formula, Rel};

/// One oriented rewrite rule as s-expression patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RuleSpec {
    pub name: String,
    pub lhs: String,
    pub rhs: String,
}

/// Axioms used in both directions; all others only left to right, since
/// their reverse (`x => x + x`, `0 => 0 x`, `1 => a + ~a`) would apply to
/// every node. Steps that need such an expansion cite it as a fact.
const BOTH_WAYS: &[&str] = &[
    "add-assoc",
    "seq-assoc",
    "dist-l",
    "dist-r",
    "star-unfold",
    "omega-star",
    "omega-unfold",
];

/// Derived rules: equations that follow from the axioms by a fixed short
/// rewrite sequence, given with it so that a re-checker can verify them.
/// They factor a sum with an implicit unit (`x y + x = x (y + 1)`), which
/// egg could otherwise only do by rewriting `x` to `x 1`, a rule that would
/// apply to every node.
pub(crate) const DERIVED: &[(&str, &str, &str, &[&str])] = &[
    (
        "factor-l",
        "(+ (; ?x ?y) ?x)",
        "(; ?x (+ ?y 1))",
        // (; x (+ y 1)) -> (+ (; x y) (; x 1)) -> (+ (; x y) x), read backwards.
        &[
            "(; ?x (+ ?y 1))",
            "(+ (; ?x ?y) (; ?x 1))",
            "(+ (; ?x ?y) ?x)",
        ],
    ),
    (
        "factor-r",
        "(+ (; ?y ?x) ?x)",
        "(; (+ ?y 1) ?x)",
        &[
            "(; (+ ?y 1) ?x)",
            "(+ (; ?y ?x) (; 1 ?x))",
            "(+ (; ?y ?x) ?x)",
        ],
    ),
];

/// The oriented rules of the equational axioms, and the derived rules.
pub(crate) fn axiom_specs() -> Vec<RuleSpec> {
    let mut out = Vec::new();
    for (name, lhs, rhs, _) in DERIVED {
        out.push(RuleSpec {
            name: name.to_string(),
            lhs: lhs.to_string(),
            rhs: rhs.to_string(),
        });
    }
    for ax in axioms() {
        if ax.statement.is_horn() {
            continue;
        }
        for f in &ax.statement.conclusions {
            let f = schematic(f);
            let (l, r) = (to_sexp(&f.lhs), to_sexp(&f.rhs));
            out.push(RuleSpec {
                name: ax.label.clone(),
                lhs: l.clone(),
                rhs: r.clone(),
            });
            if BOTH_WAYS.contains(&ax.label.as_str()) {
                out.push(RuleSpec {
                    name: format!("{}-rev", ax.label),
                    lhs: r,
                    rhs: l,
                });
            }
        }
    }
    out
}

/// The formula with its schematic variables renamed `?x`.
pub(crate) fn schematic(f: &Formula) -> Formula {
    let map = f
        .vars()
        .into_iter()
        .filter(|v| !v.starts_with('?'))
        .map(|v| (v.clone(), crate::term::Term::Var(format!("?{v}"))))
        .collect();
    f.map(|t| t.subst_vars(&map))
}

fn pattern_vars(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tok in p.split(|c: char| c == '(' || c == ')' || c.is_whitespace()) {
        if tok.starts_with('?') && !out.iter().any(|o| o == tok) {
            out.push(tok.to_string());
        }
    }
    out
}

fn bare_var(p: &str) -> bool {
    p.starts_with('?') && !p.contains(' ')
}

fn usable(lhs: &str, rhs: &str) -> bool {
    if bare_var(lhs) || lhs == rhs {
        return false;
    }
    let bound = pattern_vars(lhs);
    pattern_vars(rhs).iter().all(|v| bound.contains(v))
}

/// The oriented rules of a fact named `name`.
pub(crate) fn fact_specs(name: &str, f: &Formula) -> Vec<RuleSpec> {
    let (l, r) = (to_sexp(&f.lhs), to_sexp(&f.rhs));
    let mut out = Vec::new();
    let mut push = |suffix: &str, lhs: String, rhs: String| {
        if usable(&lhs, &rhs) {
            out.push(RuleSpec {
                name: format!("{name}{suffix}"),
                lhs,
                rhs,
            });
        }
    };
    match f.rel {
        Rel::Eq => {
            push("", l.clone(), r.clone());
            push("-rev", r, l);
        }
        Rel::Le => {
            let sum = format!("(+ {l} {r})");
            push("-absorb", sum.clone(), r.clone());
            push("-expand", r, sum);
        }
    }
    out
}

/// Builds egg rewrites; a spec that egg rejects is skipped (none should be,
/// since [`fact_specs`] only emits usable directions).
pub(crate) fn build(specs: &[RuleSpec]) -> Vec<Rewrite<Op, ()>> {
    specs
        .iter()
        .filter_map(|s| {
            let lhs: Pattern<Op> = s.lhs.parse().ok()?;
            let rhs: Pattern<Op> = s.rhs.parse().ok()?;
            Rewrite::new(s.name.as_str(), lhs, rhs).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axiom_rules_all_build() {
        let specs = axiom_specs();
        assert_eq!(build(&specs).len(), specs.len());
        assert!(specs.iter().any(|s| s.name == "star-unfold-rev"));
        assert!(!specs.iter().any(|s| s.name == "add-idem-rev"));
    }

    #[test]
    fn inequalities_absorb_and_expand() {
        let f = Formula::new(
            crate::term::Term::Var("?x".into()),
            Rel::Le,
            crate::term::Term::Var("?x".into()).star(),
        );
        let specs = fact_specs("f1", &f);
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[0].lhs, "(+ ?x (* ?x))");
        assert_eq!(specs[1].rhs, "(+ ?x (* ?x))");
        // x <= T cannot expand T (x would be unbound).
        let top = Formula::new(
            crate::term::Term::Var("?x".into()),
            Rel::Le,
            crate::term::Term::constant("T"),
        );
        assert_eq!(fact_specs("f2", &top).len(), 1);
    }
}
