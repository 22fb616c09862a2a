//! `ltl` declarations: each formula's atoms compiled like invariants (they
//! may read everything an invariant may), the temporal structure kept as
//! an [`Ltl`] over the atoms' indices.

use super::{Compiler, Result, Scope};
use crate::Ltl;
use crate::model::limits;
use crate::model::{CompileError, LtlProperty};
use crate::syntax::ast::{Formula, Item};
use crate::syntax::pretty;

/// Atoms of one formula, at most: a state's valuation is a 64-bit set.
pub const MAX_ATOMS: usize = 64;

/// Every `ltl` declaration of `items`, compiled.
pub(super) fn properties(c: &mut Compiler, items: &[Item]) -> Result<Vec<LtlProperty>> {
    let mut out: Vec<LtlProperty> = Vec::new();
    for item in items {
        let Item::Ltl(d) = item else { continue };
        if let Some(first) = out.iter().find(|p| p.name == d.name.name) {
            return Err(CompileError::at(
                d.name.span,
                format!(
                    "the property `{}` is already declared at line {}",
                    d.name.name, first.line
                ),
            )
            .help("give each `ltl` property its own name"));
        }
        let mut atoms = Atoms::default();
        let formula = atoms.lower(c, &d.formula)?;
        if atoms.exprs.len() > MAX_ATOMS {
            return Err(CompileError::at(
                d.span,
                format!(
                    "this formula has {} distinct atoms; at most {MAX_ATOMS} are supported",
                    atoms.exprs.len()
                ),
            )
            .help("split it into several properties"));
        }
        out.push(LtlProperty {
            name: d.name.name.clone(),
            text: d.text.clone(),
            formula,
            atoms: atoms.exprs,
            atom_text: atoms.text,
            span: d.span,
            line: c.lines.line(d.span.start),
        });
    }
    Ok(out)
}

/// The distinct atoms of a formula, by their text.
#[derive(Default)]
struct Atoms {
    exprs: Vec<crate::model::CExpr>,
    text: Vec<String>,
}

impl Atoms {
    fn lower(&mut self, c: &mut Compiler, f: &Formula) -> Result<Ltl> {
        let mut b = |g: &Formula| -> Result<Box<Ltl>> { Ok(Box::new(self.lower(c, g)?)) };
        Ok(match f {
            Formula::Atom(e) => {
                let text = pretty::expr(e);
                if let Some(k) = self.text.iter().position(|t| *t == text) {
                    return Ok(Ltl::Atom(k));
                }
                let expr = c.cond(e, &mut Scope::default(), "an atom of a temporal formula")?;
                c.budget
                    .charge(limits::nodes(&expr), e.span, "this formula")?;
                self.exprs.push(expr);
                self.text.push(text);
                Ltl::Atom(self.exprs.len() - 1)
            }
            Formula::Not(g) => Ltl::Not(b(g)?),
            Formula::And(g, h) => Ltl::And(b(g)?, b(h)?),
            Formula::Or(g, h) => Ltl::Or(b(g)?, b(h)?),
            Formula::Implies(g, h) => Ltl::implies(*b(g)?, *b(h)?),
            Formula::Always(g) => Ltl::always(*b(g)?),
            Formula::Eventually(g) => Ltl::eventually(*b(g)?),
            Formula::Until(g, h) => Ltl::Until(b(g)?, b(h)?),
            Formula::WeakUntil(g, h) => Ltl::weak_until(*b(g)?, *b(h)?),
        })
    }
}
