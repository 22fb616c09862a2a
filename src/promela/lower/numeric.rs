//! Conditions used as numbers. Promela reads a condition as 1 or 0 where a
//! number is wanted (`P[0]@L + P[1]@L <= 1`, how many processes are at
//! L); optimist's expressions keep conditions and numbers apart. A
//! comparison whose sides add, multiply, ... such conditions is written
//! out over their values: for each way the k conditions can be true or
//! false, that combination and the comparison with those 0s and 1s in
//! their place. At most [`MAX_LEAVES`] conditions, 2^k cases.

use super::{Lower, T, bin, ex, not};
use crate::promela::parse::{Ek, Expr, Result, unsupported};
use crate::syntax::ast::{self, BinOp, ExprKind};

/// The most conditions one comparison may use as numbers.
const MAX_LEAVES: usize = 6;

fn arith(op: &str) -> bool {
    matches!(op, "+" | "-" | "*" | "/" | "%")
}

impl Lower<'_> {
    /// The conditions `e` uses as numbers, in the order of a left-to-right
    /// walk through its arithmetic.
    fn bool_leaves(&mut self, e: &Expr, out: &mut Vec<Expr>) -> Result<()> {
        match &e.kind {
            Ek::Bin(op, a, b) if arith(op) => {
                self.bool_leaves(a, out)?;
                self.bool_leaves(b, out)
            }
            Ek::Un("-", a) => self.bool_leaves(a, out),
            Ek::Int(_) | Ek::Var(_) | Ek::Pid | Ek::NrPr => Ok(()),
            _ => {
                if self.expr(e)?.1 == T::B {
                    out.push(e.clone());
                }
                Ok(())
            }
        }
    }

    /// `e` with its conditions (those [`Self::bool_leaves`] finds) replaced,
    /// in the same order, by the numbers in `vals`.
    fn with_values(&mut self, e: &Expr, vals: &[i64], next: &mut usize) -> Result<Expr> {
        let kind = match &e.kind {
            Ek::Bin(op, a, b) if arith(op) => {
                let a = self.with_values(a, vals, next)?;
                let b = self.with_values(b, vals, next)?;
                Ek::Bin(op, Box::new(a), Box::new(b))
            }
            Ek::Un("-", a) => Ek::Un("-", Box::new(self.with_values(a, vals, next)?)),
            Ek::Int(_) | Ek::Var(_) | Ek::Pid | Ek::NrPr => e.kind.clone(),
            _ if self.expr(e)?.1 == T::B => {
                *next += 1;
                Ek::Int(vals[*next - 1])
            }
            k => k.clone(),
        };
        Ok(Expr { kind, span: e.span })
    }

    /// `a op b` (a comparison) when a side uses conditions as numbers:
    /// the disjunction over their values. None when neither does.
    pub(super) fn numeric_cmp(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
    ) -> Result<Option<ast::Expr>> {
        let numeric = |e: &Expr| {
            matches!(&e.kind, Ek::Bin(o, ..) if arith(o)) || matches!(e.kind, Ek::Un("-", _))
        };
        let mut leaves = Vec::new();
        for side in [a, b].into_iter().filter(|e| numeric(e)) {
            self.bool_leaves(side, &mut leaves)?;
        }
        if leaves.is_empty() {
            return Ok(None);
        }
        let span = a.span.to(b.span);
        if leaves.len() > MAX_LEAVES {
            return unsupported(
                span,
                &format!("more than {MAX_LEAVES} conditions used as numbers in one comparison"),
            );
        }
        let conds = leaves
            .iter()
            .map(|l| self.cond(l))
            .collect::<Result<Vec<_>>>()?;
        let mut any = Vec::new();
        for bits in 0..1u32 << leaves.len() {
            let vals: Vec<i64> = (0..leaves.len())
                .map(|i| i64::from(bits >> i & 1))
                .collect();
            let mut next = 0;
            let mut side = |l: &mut Self, e: &Expr| match numeric(e) {
                true => l.with_values(e, &vals, &mut next),
                false => Ok(e.clone()),
            };
            let (a, b) = (side(self, a)?, side(self, b)?);
            let cmp = bin(op, self.int(&a)?, self.int(&b)?);
            let case = conds
                .iter()
                .zip(&vals)
                .map(|(c, &v)| if v == 1 { c.clone() } else { not(c.clone()) });
            let case = case.fold(cmp, |acc, c| bin(BinOp::And, c, acc));
            any.push(case);
        }
        Ok(any
            .into_iter()
            .reduce(|x, y| bin(BinOp::Or, x, y))
            .or(Some(ex(ExprKind::Bool(false), span))))
    }
}
