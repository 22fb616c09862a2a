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

/// Pushes the operands of `e`'s arithmetic (what is not `+`, `-`, ...)
/// in the order of a left-to-right walk.
fn operands<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        Ek::Bin(op, a, b) if arith(op) => {
            operands(a, out);
            operands(b, out);
        }
        Ek::Un("-", a) => operands(a, out),
        _ => out.push(e),
    }
}

/// `e` with its operands (in [`operands`]' order, counted by `next`)
/// replaced by the numbers given for them.
fn with_values(e: &Expr, vals: &[Option<i64>], next: &mut usize) -> Expr {
    let kind = match &e.kind {
        Ek::Bin(op, a, b) if arith(op) => {
            let a = with_values(a, vals, next);
            Ek::Bin(op, Box::new(a), Box::new(with_values(b, vals, next)))
        }
        Ek::Un("-", a) => Ek::Un("-", Box::new(with_values(a, vals, next))),
        k => {
            *next += 1;
            match vals[*next - 1] {
                Some(v) => Ek::Int(v),
                None => k.clone(),
            }
        }
    };
    Expr { kind, span: e.span }
}

/// Whether `e` is arithmetic (whose operands may be conditions).
fn numeric(e: &Expr) -> bool {
    matches!(&e.kind, Ek::Bin(o, ..) if arith(o)) || matches!(e.kind, Ek::Un("-", _))
}

impl Lower<'_> {
    /// `a op b` (a comparison) when a side uses conditions as numbers:
    /// the disjunction over their values. None when neither does.
    pub(super) fn numeric_cmp(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
    ) -> Result<Option<ast::Expr>> {
        let mut ops = Vec::new();
        for side in [a, b].into_iter().filter(|e| numeric(e)) {
            operands(side, &mut ops);
        }
        // Lowered once each: the conditions, where the operands are ones.
        let mut conds = Vec::new();
        for o in &ops {
            let (x, t) = self.expr(o)?;
            conds.push((t == T::B).then_some(x));
        }
        let k = conds.iter().flatten().count();
        if k == 0 {
            return Ok(None);
        }
        let span = a.span.to(b.span);
        if k > MAX_LEAVES {
            return unsupported(
                span,
                &format!("more than {MAX_LEAVES} conditions used as numbers in one comparison"),
            );
        }
        let mut any = Vec::new();
        for bits in 0..1u32 << k {
            // The j-th condition's value in this case: bit j of `bits`.
            let mut j = 0;
            let mut case = Vec::new();
            let vals: Vec<Option<i64>> = (conds.iter())
                .map(|c| {
                    let c = c.as_ref()?;
                    let v = i64::from(bits >> j & 1);
                    j += 1;
                    case.push(if v == 1 { c.clone() } else { not(c.clone()) });
                    Some(v)
                })
                .collect();
            let mut next = 0;
            let mut side = |e: &Expr| match numeric(e) {
                true => with_values(e, &vals, &mut next),
                false => e.clone(),
            };
            let (a, b) = (side(a), side(b));
            let cmp = bin(op, self.int(&a)?, self.int(&b)?);
            any.push(case.into_iter().fold(cmp, |acc, c| bin(BinOp::And, c, acc)));
        }
        Ok(any
            .into_iter()
            .reduce(|x, y| bin(BinOp::Or, x, y))
            .or(Some(ex(ExprKind::Bool(false), span))))
    }
}
