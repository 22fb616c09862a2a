//! Lowering under the symmetry: constants that are copies' identities
//! become copy variables (typed as the symmetry's verification typed
//! them), and `at`, `t.r`, quantifiers and the discipline of an array
//! indexed by copies are written over the scalarset instead of thread by
//! thread.

use super::{ids_of, refuse};
use crate::export::Refusal;
use crate::export::ir::{Builder, Disc, Env, Here, Temp, X, bin};
use crate::model::{CExpr, Place, Quantified};
use crate::symmetry::Ty;
use crate::syntax::ast::BinOp;

/// `o <= x <= o + n - 1`: whether `x` is a copy's identity (an order that
/// every copy shares, so it reads the plain part of a pair).
pub(super) fn is_copy(x: &X, o: i64, n: usize) -> X {
    bin(
        BinOp::And,
        bin(BinOp::Le, X::Int(o), x.clone()),
        bin(BinOp::Le, x.clone(), X::Int(o + n as i64 - 1)),
    )
}

impl Builder<'_> {
    /// The constant `c` where it holds what `want` says: a copy variable
    /// where it is a copy's identity (copy variable i stands for copy i).
    pub(in crate::export) fn constant(&self, c: i64, want: Option<Ty>) -> X {
        if let (Some(ctx), Some(Ty::Ids(o))) = (&self.sym, want)
            && (0..ctx.n() as i64).contains(&(c - o))
        {
            return X::Copy((c - o) as usize, o);
        }
        X::Int(c)
    }

    /// What a thread (of `at`, `t.r`) is: identities of the copies as
    /// threads number them.
    pub(in crate::export) fn thread_ty(&self) -> Option<Ty> {
        (self.sym.as_ref()).map(|c| Ty::Ids(c.sym.first as i64))
    }

    /// What an expression holds where its form says, as verification
    /// reads it (`None` for a constant, or outside the symmetric export).
    pub(in crate::export) fn ty_of(&self, e: &CExpr, env: &Env) -> Option<Ty> {
        let ctx = self.sym.as_ref()?;
        match e {
            CExpr::Const(_) => None,
            CExpr::Var { slot, .. } => Some(ctx.typing.slot(*slot)),
            CExpr::Elem { array, .. } => Some(ctx.typing.slot(array.base)),
            CExpr::Bound(k) => env.tys.get(*k as usize).copied().flatten(),
            CExpr::LocalOf { slots, .. } => {
                (slots.iter().flatten().next()).map(|s| ctx.typing.slot(*s))
            }
            _ => Some(Ty::Plain),
        }
    }

    /// What indexes the array whose element 0 is `base`.
    pub(in crate::export) fn index_ty(&self, base: u32) -> Ty {
        (self.sym.as_ref()).map_or(Ty::Plain, |c| c.typing.index(base))
    }

    /// What a place holds.
    pub(in crate::export) fn place_ty(&self, p: &Place) -> Option<Ty> {
        let ctx = self.sym.as_ref()?;
        Some(match p {
            Place::Slot { slot, .. } => ctx.typing.slot(*slot),
            Place::Elem { array, .. } => ctx.typing.slot(array.base),
        })
    }

    /// The index of `slot` in its variable where a copy owns it: that
    /// copy's identity.
    pub(in crate::export) fn copy_index(&self, slot: u32) -> Option<X> {
        let ctx = self.sym.as_ref()?;
        ctx.copy_of(slot).map(|(i, o)| X::Copy(i, o))
    }

    /// The offset of the identities `x` holds in pairs, if it does.
    pub(in crate::export) fn ids_of(&self, x: &X, temps: &[Temp]) -> Option<i64> {
        ids_of(x, &self.sym.as_ref()?.vars, temps)
    }

    /// `at(t, L)` where `t` may be a copy: `pc[t] = L` over the scalarset,
    /// the other threads by number.
    pub(in crate::export) fn lower_at_copies(
        &self,
        t: X,
        pcs: &[Option<i64>],
    ) -> Result<X, Refusal> {
        let ctx = self.sym.as_ref().expect("symmetric");
        let (first, n) = (ctx.sym.first, ctx.n());
        let copies = &pcs[first..first + n];
        if copies.iter().any(|p| *p != copies[0]) {
            return Err(refuse(format!(
                "`at` names a label that is not at the same point in every copy of {}",
                ctx.sym.threads
            )));
        }
        let pc = self.slot_var[first].0;
        let at_copy = |x: X| match copies[0] {
            Some(p) => bin(BinOp::Eq, X::Elem(pc, Box::new(x), false), X::Int(p)),
            None => X::Int(0),
        };
        Ok(match t {
            X::Copy(..) => at_copy(t),
            X::Int(_) => self.lower_at_threads(t, pcs),
            t => {
                let mut others = pcs.to_vec();
                others[first..first + n].fill(None);
                let rest = self.lower_at_threads(t.clone(), &others);
                let Some(o) = self.ids_of(&t, &[]) else {
                    return Ok(rest);
                };
                let copy = bin(BinOp::And, is_copy(&t, o, n), at_copy(t.clone()));
                match others.iter().all(Option::is_none) {
                    true => copy,
                    false => bin(BinOp::Or, copy, rest),
                }
            }
        })
    }

    /// `t.r` where `t` may be a copy: `r[t]` over the scalarset, the other
    /// threads' `r` by number, and optimist's fault where `t` has no `r`.
    pub(in crate::export) fn lower_local_of_copies(
        &self,
        t: X,
        slots: &[Option<u32>],
    ) -> Result<X, Refusal> {
        let ctx = self.sym.as_ref().expect("symmetric");
        let (first, n) = (ctx.sym.first, ctx.n());
        let copies = &slots[first..first + n];
        if copies.iter().any(|s| s.is_some() != copies[0].is_some()) {
            return Err(refuse(format!(
                "a local read as `t.r` is not a local of every copy of {}",
                ctx.sym.threads
            )));
        }
        let mut others = slots.to_vec();
        others[first..first + n].fill(None);
        let (Some(s0), Some(o)) = (copies[0], self.ids_of(&t, &[])) else {
            return Ok(self.lower_local_of_threads(t, &others));
        };
        let local = |x: X| X::Elem(self.slot_var[s0 as usize].0, Box::new(x), false);
        if let X::Copy(..) = t {
            return Ok(local(t));
        }
        let owners: Vec<(usize, u32)> = (others.iter().enumerate())
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect();
        let is = |k: usize| bin(BinOp::Eq, t.clone(), X::Int(k as i64));
        let valid = (owners.iter().map(|&(k, _)| is(k)))
            .fold(is_copy(&t, o, n), |a, b| bin(BinOp::Or, a, b));
        let mut rest = owners.iter().rev();
        let value = match rest.next() {
            None => local(t.clone()),
            Some(&(_, last)) => {
                let others = rest.fold(self.read_slot(last, false), |acc, &(k, s)| {
                    X::Ite(
                        Box::new(is(k)),
                        Box::new(self.read_slot(s, false)),
                        Box::new(acc),
                    )
                });
                X::Ite(
                    Box::new(is_copy(&t, o, n)),
                    Box::new(local(t.clone())),
                    Box::new(others),
                )
            }
        };
        Ok(X::Seq(
            vec![t, bin(BinOp::Div, X::Int(1), valid)],
            Box::new(value),
        ))
    }

    /// A quantifier whose variable holds identities: `forall`/`exists`
    /// over the scalarset for the copies, in its place among the other
    /// values, which are unrolled; `None` for a quantifier over plain
    /// values (unrolled as usual).
    pub(in crate::export) fn lower_quant_copies(
        &self,
        q: &Quantified,
        env: &mut Env,
        here: &Here,
    ) -> Result<Option<X>, Refusal> {
        let Some(ctx) = &self.sym else {
            return Ok(None);
        };
        let (Some(Ty::Ids(o)), Some((lo, hi))) =
            (ctx.typing.quant(q, &env.tys), ctx.typing.bounds(q))
        else {
            return Ok(None);
        };
        if hi - lo + 1 > crate::export::MAX_UNROLL {
            return Ok(None);
        }
        let (k, n) = (q.var as usize, ctx.n() as i64);
        let cv = ctx.quant_var(k)?;
        let ty = Some(Ty::Ids(o));
        let mut terms = Vec::new();
        for v in lo..=hi {
            if v == o {
                env.set(k, X::Copy(cv, o), ty);
                let body = self.lower(&q.body, env, here)?;
                terms.push(X::Quant(q.forall, cv, Box::new(body)));
            } else if !(o..o + n).contains(&v) {
                env.set(k, X::Int(v), ty);
                terms.push(self.lower(&q.body, env, here)?);
            }
        }
        let op = if q.forall { BinOp::And } else { BinOp::Or };
        let first = terms.remove(0);
        Ok(Some(terms.into_iter().fold(first, |a, b| bin(op, a, b))))
    }

    /// A quantifier over the copies may neither fault nor access protected
    /// variables: optimist evaluates it copy by copy in their order, which
    /// a scalarset does not have.
    pub(in crate::export) fn ok_quant(
        &self,
        body: &X,
        disc: Option<&Disc>,
        temps: &[Temp],
    ) -> Result<Option<X>, Refusal> {
        match self.ok(body, disc, temps)? {
            None => Ok(None),
            Some(_) => Err(refuse(
                "a quantifier over the copies whose body may fault or access a protected variable: optimist evaluates it copy by copy, in an order that a scalarset does not have".into(),
            )),
        }
    }

    /// The discipline of an access to element `i` of `v` where `v` is
    /// indexed by copies: the same predicate for every element, or chosen
    /// by `i` among the copies' and the other elements'; `None` elsewhere.
    pub(in crate::export) fn allowed_copy_elem(
        &self,
        d: &Disc,
        v: usize,
        i: &X,
    ) -> Result<Option<X>, Refusal> {
        let Some(ctx) = &self.sym else {
            return Ok(None);
        };
        let Some(o) = ctx.vars[v].by_copy else {
            return Ok(None);
        };
        if ctx.vars[v].owned {
            // A copy's locals are never protected.
            return Ok(Some(X::Int(1)));
        }
        let (base, len) = (self.vars[v].slot as u32, self.vars[v].len.unwrap_or(1));
        let each = (0..len as u32)
            .map(|k| self.allowed(d, base + k))
            .collect::<Result<Vec<X>, Refusal>>()?;
        if each.iter().all(|a| *a == each[0]) {
            return Ok(Some(each[0].clone()));
        }
        let n = ctx.n() as i64;
        let key = |k: i64| match (o..o + n).contains(&k) {
            true => X::Copy((k - o) as usize, o),
            false => X::Int(k),
        };
        let mut out = each[len - 1].clone();
        for k in (0..len - 1).rev() {
            out = X::Ite(
                Box::new(bin(BinOp::Eq, i.clone(), key(k as i64))),
                Box::new(each[k].clone()),
                Box::new(out),
            );
        }
        Ok(Some(out))
    }
}

impl Builder<'_> {
    /// A value that holds identities, kept in a temporary where it is not
    /// a constant or a plain read: a pair's two parts are written one
    /// after the other, and the value must not read what the first write
    /// changed.
    pub(in crate::export) fn keep_pair(
        &self,
        x: X,
        temps: &mut Vec<Temp>,
        out: &mut Vec<crate::export::ir::St>,
    ) -> X {
        let Some(o) = self.ids_of(&x, temps) else {
            return x;
        };
        let simple = |i: &X| matches!(i, X::Int(_) | X::Copy(..));
        match &x {
            X::Copy(..) | X::Var(..) | X::Temp(_) => return x,
            X::Elem(_, i, _) if simple(i) => return x,
            _ => {}
        }
        let iv = self.iv(&x, temps);
        temps.push(Temp {
            lo: iv.0 as i64,
            hi: iv.1 as i64,
            bool: false,
            ids: Some(o),
        });
        let t = temps.len() - 1;
        out.push(crate::export::ir::St::Set(
            crate::export::ir::Lhs::Temp(t),
            x,
        ));
        X::Temp(t)
    }
}
