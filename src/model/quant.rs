//! Static bounds on quantifiers.
//!
//! `exists`/`forall v in lo..hi: e` is evaluated by trying every value, so
//! its cost is the size of its range, multiplied by nested quantifiers. The
//! compiler bounds that cost before the model runs: the values `lo` and `hi`
//! can take follow from constants, from the declared ranges of the
//! variables they read and from the ranges of enclosing quantifiers
//! (interval arithmetic over the compiled expression). A quantifier whose
//! body could be evaluated more than [`MAX_QUANTIFIED`] times in one
//! evaluation is rejected, so no evaluation of any expression can hang.

use super::expr::{CExpr, Quantified};
use crate::syntax::ast::BinOp;

/// Most evaluations of quantifier bodies one evaluation of an expression
/// may make: the range of a quantifier, times the ranges of the
/// quantifiers nested in it.
pub const MAX_QUANTIFIED: u64 = 1_000_000;

/// An interval of values, `lo <= hi`.
pub(super) type Interval = (i64, i64);

/// The values `e` may take when every slot `s` is within `bounds[s]` and
/// quantified variable `k` within `env[k]`; `None` when they cannot be
/// bounded (an intermediate value may overflow).
pub(super) fn interval(e: &CExpr, bounds: &[(i64, i64)], env: &[Interval]) -> Option<Interval> {
    const BOOL: Option<Interval> = Some((0, 1));
    match e {
        CExpr::Const(v) => Some((*v, *v)),
        CExpr::Var { slot, .. } => bounds.get(*slot as usize).copied(),
        CExpr::Elem { array, .. } => {
            let elems = bounds.get(array.base as usize..(array.base + array.len) as usize)?;
            elems
                .iter()
                .copied()
                .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
        }
        CExpr::LocalOf { slots, .. } => slots
            .iter()
            .flatten()
            .map(|&s| bounds.get(s as usize).copied())
            .reduce(|a, b| Some(((a?.0).min(b?.0), (a?.1).max(b?.1))))?,
        CExpr::Bound(k) => env.get(*k as usize).copied(),
        CExpr::At { .. } | CExpr::Not(_) | CExpr::Quant(_) => BOOL,
        CExpr::Neg(a) => {
            let (lo, hi) = interval(a, bounds, env)?;
            Some((hi.checked_neg()?, lo.checked_neg()?))
        }
        CExpr::Bin(op, a, b) => {
            use BinOp::*;
            if matches!(op, Or | And | Eq | Ne | Lt | Le | Gt | Ge) {
                return BOOL;
            }
            let (x, y) = (interval(a, bounds, env)?, interval(b, bounds, env)?);
            match op {
                Add => Some((x.0.checked_add(y.0)?, x.1.checked_add(y.1)?)),
                Sub => Some((x.0.checked_sub(y.1)?, x.1.checked_sub(y.0)?)),
                Mul => corners(x, y, i64::checked_mul),
                // Away from 0, division is monotone in each operand.
                Div if y.0 > 0 || y.1 < 0 => corners(x, y, i64::checked_div),
                // |x / y| <= |x|; the remainder has x's sign, and
                // |x % y| < |y| and <= |x|.
                Div => {
                    let m = magnitude(x)?;
                    Some((-m, m))
                }
                Mod => {
                    let m = magnitude(x)?.min(magnitude(y)?.saturating_sub(1));
                    Some((if x.0 < 0 { -m } else { 0 }, if x.1 > 0 { m } else { 0 }))
                }
                _ => BOOL,
            }
        }
    }
}

/// The least and greatest of `f` at the four corners of `x` by `y`.
fn corners(x: Interval, y: Interval, f: fn(i64, i64) -> Option<i64>) -> Option<Interval> {
    let vals = [f(x.0, y.0)?, f(x.0, y.1)?, f(x.1, y.0)?, f(x.1, y.1)?];
    Some((*vals.iter().min()?, *vals.iter().max()?))
}

/// The largest absolute value in `x`, if it is an `i64`.
fn magnitude(x: Interval) -> Option<i64> {
    Some(x.0.checked_abs()?.max(x.1.checked_abs()?))
}

/// The number of values in `lo..hi` for `lo` in `l` and `hi` in `h`.
pub(super) fn width(l: Interval, h: Interval) -> u64 {
    let w = i128::from(h.1) - i128::from(l.0) + 1;
    u64::try_from(w.max(0)).unwrap_or(u64::MAX)
}

/// How many quantifier bodies one evaluation of `e` may evaluate, at most
/// (saturating); `None` when a range cannot be bounded. `env` holds the
/// ranges of the quantified variables in scope.
pub(super) fn evaluations(
    e: &CExpr,
    bounds: &[(i64, i64)],
    env: &mut Vec<Interval>,
) -> Option<u64> {
    Some(match e {
        CExpr::Const(_) | CExpr::Var { .. } | CExpr::Bound(_) => 0,
        CExpr::Elem { index: a, .. }
        | CExpr::At { thread: a, .. }
        | CExpr::LocalOf { thread: a, .. }
        | CExpr::Not(a)
        | CExpr::Neg(a) => evaluations(a, bounds, env)?,
        CExpr::Bin(_, a, b) => {
            evaluations(a, bounds, env)?.saturating_add(evaluations(b, bounds, env)?)
        }
        CExpr::Quant(Quantified {
            var, lo, hi, body, ..
        }) => {
            let (l, h) = (interval(lo, bounds, env)?, interval(hi, bounds, env)?);
            let ends = evaluations(lo, bounds, env)?.saturating_add(evaluations(hi, bounds, env)?);
            env.truncate(*var as usize);
            env.push((l.0, h.1));
            let inner = evaluations(body, bounds, env);
            env.pop();
            width(l, h)
                .saturating_mul(1u64.saturating_add(inner?))
                .saturating_add(ends)
        }
    })
}

impl CExpr {
    /// An upper bound on the nodes one evaluation visits (saturating), with
    /// quantifier bodies counted once per value of their ranges, for
    /// callers that must bound the work of many evaluations.
    pub fn cost(&self, bounds: &[(i64, i64)]) -> u64 {
        cost(self, bounds, &mut Vec::new())
    }
}

fn cost(e: &CExpr, bounds: &[(i64, i64)], env: &mut Vec<Interval>) -> u64 {
    match e {
        CExpr::Const(_) | CExpr::Var { .. } | CExpr::Bound(_) => 1,
        CExpr::Elem { index: a, .. }
        | CExpr::At { thread: a, .. }
        | CExpr::LocalOf { thread: a, .. }
        | CExpr::Not(a)
        | CExpr::Neg(a) => 1u64.saturating_add(cost(a, bounds, env)),
        CExpr::Bin(_, a, b) => 1u64
            .saturating_add(cost(a, bounds, env))
            .saturating_add(cost(b, bounds, env)),
        CExpr::Quant(Quantified {
            var, lo, hi, body, ..
        }) => {
            let ends = cost(lo, bounds, env).saturating_add(cost(hi, bounds, env));
            let (Some(l), Some(h)) = (interval(lo, bounds, env), interval(hi, bounds, env)) else {
                return u64::MAX;
            };
            env.truncate(*var as usize);
            env.push((l.0, h.1));
            let inner = cost(body, bounds, env);
            env.pop();
            width(l, h)
                .saturating_mul(inner.saturating_add(1))
                .saturating_add(ends)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(slot: u32) -> Box<CExpr> {
        Box::new(CExpr::Var { slot, shared: true })
    }

    fn bin(op: BinOp, a: Box<CExpr>, b: Box<CExpr>) -> Box<CExpr> {
        Box::new(CExpr::Bin(op, a, b))
    }

    fn c(v: i64) -> Box<CExpr> {
        Box::new(CExpr::Const(v))
    }

    #[test]
    fn intervals_contain_every_value() {
        let bounds = [(-3, 5), (2, 4), (-4, -1), (i64::MIN, i64::MAX)];
        let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod];
        for op in ops {
            for (a, b) in [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2)] {
                let e = bin(op, var(a), var(b));
                let (lo, hi) = interval(&e, &bounds, &[]).unwrap();
                for x in bounds[a as usize].0..=bounds[a as usize].1 {
                    for y in bounds[b as usize].0..=bounds[b as usize].1 {
                        if let Ok(v) = crate::model::expr::binop(op, x, y) {
                            assert!(lo <= v && v <= hi, "{op:?} {x} {y} = {v} not in {lo}..{hi}");
                        }
                    }
                }
            }
        }
        assert_eq!(interval(&bin(BinOp::Add, var(3), c(1)), &bounds, &[]), None);
        assert_eq!(
            interval(&bin(BinOp::Add, var(3), c(0)), &bounds, &[]),
            Some((i64::MIN, i64::MAX))
        );
    }

    #[test]
    fn nested_quantifiers_multiply() {
        let q = |var: u32, hi: Box<CExpr>, body: Box<CExpr>| {
            Box::new(CExpr::Quant(Quantified {
                forall: true,
                var,
                lo: c(0),
                hi,
                body,
            }))
        };
        // forall i in 0..999: forall j in 0..i: true
        let e = q(0, c(999), q(1, Box::new(CExpr::Bound(0)), c(1)));
        assert_eq!(
            evaluations(&e, &[], &mut Vec::new()),
            Some(1000 * (1 + 1000))
        );
        // A bound that reads a variable takes its declared range.
        let e = q(0, var(0), c(1));
        assert_eq!(
            evaluations(&e, &[(0, 1 << 40)], &mut Vec::new()),
            Some((1 << 40) + 1)
        );
        assert_eq!(
            evaluations(&e, &[(i64::MIN, i64::MAX)], &mut Vec::new()),
            Some(1 << 63)
        );
    }
}
