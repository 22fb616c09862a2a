//! `ltl NAME: FORMULA;`: temporal operators over the model's boolean
//! expressions. The temporal layer is parsed here; every atom is an
//! ordinary expression, parsed by the expression grammar at the level of
//! comparisons, so `x > 0 && y` is the conjunction of two atoms and means
//! what it means in an invariant.
//!
//! Precedence, loosest first: `->` (to the right), `||`, `&&`, `U` / `W` /
//! `until` (to the right), then the prefix operators `!`, `[]`, `<>`,
//! `always`, `eventually`. A parenthesised group is a formula when it holds
//! a temporal operator or `->`, and an expression otherwise.

use super::{Parser, Res, is_ident_char};
use crate::syntax::ast::{Formula, Item, LtlDecl};

/// The level of the expression grammar an atom is read at: comparisons
/// and tighter (see `BinOp::precedence`).
const ATOM_LEVEL: u8 = 3;

impl<'a> Parser<'a> {
    /// `NAME: FORMULA;`, after `ltl`.
    pub(super) fn ltl_decl(&self, r: &'a str, start: usize) -> Res<'a, Vec<Item>> {
        let (r, name) = self.ident(r)?;
        let (r, _) = self.sym(r, ":")?;
        let from = self.skip(r)?;
        let (r, formula) = self.formula(from)?;
        let text = written(&from[..from.len() - r.len()], &formula);
        let (r, _) = self.sym(r, ";")?;
        let span = self.span_from(start, r);
        Ok((
            r,
            vec![Item::Ltl(LtlDecl {
                name,
                formula,
                text,
                span,
            })],
        ))
    }

    /// A whole formula.
    fn formula(&self, i: &'a str) -> Res<'a, Formula> {
        self.nested(i, |i| self.implication(i))
    }

    fn implication(&self, i: &'a str) -> Res<'a, Formula> {
        let (r, lhs) = self.disjunction(i)?;
        match self.try_sym(r, "->") {
            Some((r, _)) => {
                let (r, rhs) = self.nested(r, |r| self.implication(r))?;
                Ok((r, Formula::Implies(Box::new(lhs), Box::new(rhs))))
            }
            None => Ok((r, lhs)),
        }
    }

    fn disjunction(&self, i: &'a str) -> Res<'a, Formula> {
        self.left_assoc(i, "||", Self::conjunction, Formula::Or)
    }

    fn conjunction(&self, i: &'a str) -> Res<'a, Formula> {
        self.left_assoc(i, "&&", Self::until, Formula::And)
    }

    /// `operand (op operand)*`, grouped to the left by `join`.
    fn left_assoc(
        &self,
        i: &'a str,
        op: &'static str,
        operand: fn(&Self, &'a str) -> Res<'a, Formula>,
        join: fn(Box<Formula>, Box<Formula>) -> Formula,
    ) -> Res<'a, Formula> {
        let (mut i, mut f) = operand(self, i)?;
        while let Some((r, _)) = self.try_sym(i, op) {
            let (r, g) = operand(self, r)?;
            f = join(Box::new(f), Box::new(g));
            i = r;
        }
        Ok((i, f))
    }

    fn until(&self, i: &'a str) -> Res<'a, Formula> {
        let (r, lhs) = self.temporal_unary(i)?;
        let weak = if let Some((r, _)) = self.try_word(r, "U").or_else(|| self.try_word(r, "until"))
        {
            Some((r, false))
        } else {
            self.try_word(r, "W").map(|(r, _)| (r, true))
        };
        match weak {
            Some((r, weak)) => {
                let (r, rhs) = self.nested(r, |r| self.until(r))?;
                let (l, g) = (Box::new(lhs), Box::new(rhs));
                Ok((
                    r,
                    if weak {
                        Formula::WeakUntil(l, g)
                    } else {
                        Formula::Until(l, g)
                    },
                ))
            }
            None => Ok((r, lhs)),
        }
    }

    fn temporal_unary(&self, i: &'a str) -> Res<'a, Formula> {
        let i = self.skip(i)?;
        let prefix = |r: &'a str, make: fn(Box<Formula>) -> Formula| {
            self.nested(r, |r| {
                let (r, f) = self.temporal_unary(r)?;
                Ok((r, make(Box::new(f))))
            })
        };
        if let Some(r) = i.strip_prefix("[]") {
            return prefix(r, Formula::Always);
        }
        if let Some(r) = i.strip_prefix("<>") {
            return prefix(r, Formula::Eventually);
        }
        if let Some((r, _)) = self.try_word(i, "always") {
            return prefix(r, Formula::Always);
        }
        if let Some((r, _)) = self.try_word(i, "eventually") {
            return prefix(r, Formula::Eventually);
        }
        if let Some(r) = i.strip_prefix('!').filter(|r| !r.starts_with('='))
            && self.is_temporal_start(r)
        {
            return prefix(r, Formula::Not);
        }
        if let Some(r) = i.strip_prefix('(')
            && group_is_temporal(r)
        {
            return self.nested(r, |r| {
                let (r, f) = self.formula(r)?;
                let (r, _) = self.sym(r, ")")?;
                Ok((r, f))
            });
        }
        for next in ["X", "next"] {
            if let Some((r, _)) = self.try_word(i, next)
                && self.skip(r).is_ok_and(|r| {
                    r.starts_with(|c: char| c.is_ascii_alphabetic() || "([<!".contains(c))
                })
            {
                let at = self.off(i);
                return self.fatal(
                    crate::syntax::span::Span::new(at, at + next.len()),
                    format!("`{next}` (next) is not an operator of these properties"),
                    Some(
                        "they are LTL without next, which a run that repeats a state cannot tell apart: say it with `<>`, `U` or `W`",
                    ),
                );
            }
        }
        let (r, e) = self.nested(i, |i| self.binary(i, ATOM_LEVEL))?;
        Ok((r, Formula::Atom(e)))
    }

    /// Whether what follows a `!` is a formula rather than an expression.
    fn is_temporal_start(&self, r: &'a str) -> bool {
        let Ok(r) = self.skip(r) else { return false };
        r.starts_with("[]")
            || r.starts_with("<>")
            || r.starts_with('!')
            || self.try_word(r, "always").is_some()
            || self.try_word(r, "eventually").is_some()
            || r.strip_prefix('(').is_some_and(group_is_temporal)
    }

    /// The word `w` as a whole word (the temporal words are not reserved:
    /// they are operators only where a formula expects one).
    fn try_word(&self, i: &'a str, w: &'static str) -> Option<(&'a str, ())> {
        let i = self.skip(i).ok()?;
        let r = i.strip_prefix(w)?;
        (!r.starts_with(is_ident_char)).then_some((r, ()))
    }
}

/// Whether the group whose text follows its `(` holds a temporal
/// operator or `->` before its matching `)`.
fn group_is_temporal(r: &str) -> bool {
    let mut depth = 0usize;
    let bytes = r.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        match c {
            b'(' => depth += 1,
            b')' if depth == 0 => return false,
            b')' => depth -= 1,
            b'[' if bytes.get(k + 1) == Some(&b']') => return true,
            b'<' if bytes.get(k + 1) == Some(&b'>') => return true,
            b'-' if bytes.get(k + 1) == Some(&b'>') => return true,
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = r[k..]
                    .find(|c: char| !is_ident_char(c))
                    .map_or(r.len(), |n| k + n);
                let before = k.checked_sub(1).map(|b| bytes[b]);
                if before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
                    && matches!(&r[k..end], "U" | "W" | "until" | "always" | "eventually")
                {
                    return true;
                }
                k = end;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::syntax::ast::{ExprKind, Formula, Item};
    use crate::syntax::parser::parse;
    use crate::syntax::pretty;

    fn formula(text: &str) -> Formula {
        let m = parse(&format!("ltl p: {text};")).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        match m.items.into_iter().next() {
            Some(Item::Ltl(d)) => d.formula,
            other => panic!("{other:?}"),
        }
    }

    fn shown(text: &str) -> String {
        pretty::formula(&formula(text))
    }

    #[test]
    fn operators_bind_as_documented() {
        // `->` is loosest and goes to the right; `U` binds tighter than `&&`.
        assert_eq!(shown("a -> b -> c"), "a -> (b -> c)");
        assert_eq!(shown("a && b U c || d"), "(a && (b U c)) || d");
        assert_eq!(shown("a U b U c"), "a U (b U c)");
        assert_eq!(shown("[] <> a"), "[] <> a");
        assert_eq!(shown("always eventually a"), "[] <> a");
        assert_eq!(shown("a until b"), "a U b");
        assert_eq!(shown("!<> a W b"), "!<> a W b");
        assert!(matches!(formula("!<> a W b"), Formula::WeakUntil(..)));
    }

    #[test]
    fn atoms_are_expressions_at_the_level_of_comparisons() {
        // `x > 0 && y` is two atoms; `(x + 1) > 2` is one.
        assert!(matches!(formula("x > 0 && y"), Formula::And(..)));
        match formula("(x + 1) > 2") {
            Formula::Atom(e) => assert!(matches!(e.kind, ExprKind::Binary(..))),
            f => panic!("{f:?}"),
        }
        // A group without a temporal operator is an expression.
        assert!(matches!(formula("(a || b)"), Formula::Atom(_)));
        // `!x == 1` is the expression's `(!x) == 1`, as in an invariant.
        assert!(matches!(formula("!x == 1"), Formula::Atom(_)));
        assert!(matches!(formula("!(a U b)"), Formula::Not(_)));
        // Quantifiers and `at` are atoms; the words are names elsewhere.
        assert!(matches!(
            formula("exists u in 0..1: at(u, CS)"),
            Formula::Atom(_)
        ));
        assert!(parse("shared U : 0..1 = 0; ltl p: [] U == 0;").is_ok());
    }

    #[test]
    fn errors_point_at_the_formula() {
        let err = |text: &str| parse(&format!("ltl p: {text};")).unwrap_err();
        assert!(err("[] (a").message.contains("`)`"));
        let next = err("[] (a -> X b)");
        assert!(next.message.contains("next"), "{}", next.message);
        assert_eq!(next.span.start, "ltl p: [] (a -> ".len());
    }
}

/// A formula as its author wrote it, on one line: their parentheses and
/// spacing within a line, each line break and indentation one space. One
/// with a comment inside is printed from its structure instead (a `//`
/// would hide the rest of the line).
fn written(source: &str, formula: &Formula) -> String {
    if source.contains("//") || source.contains("/*") {
        return crate::syntax::pretty::formula(formula);
    }
    source
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
