//! Channels as values. SPIN stores a channel as its id, a number (0 is no
//! channel), so a `chan` variable, parameter, record field or message
//! field here is a number too, and every channel has an id: one more than
//! its place in [`Lower::chans`]. An operation on a channel named by its
//! declaration is the core channel operation; one on a channel a variable
//! holds is a choice of one option per channel it may hold, each guarded
//! by the variable's value, `atomic { await v == id; c ! x }`: only the
//! channel the variable holds can move, in one step, as in SPIN. An
//! operation on a variable that holds no channel never moves.

use super::{Lower, T, Var, bin, ex, fail, id, int, local_decls, st};
use crate::promela::parse::{Decl, Ek, Expr, Init, Result, Ty, VarRef, unsupported};
use crate::syntax::ast::{self, BinOp, ExprKind, StmtKind};
use crate::syntax::span::Span;

/// SPIN's channel ids are bytes.
const MAX_CHANS: usize = 255;

/// One channel (an element of a channel array is one).
#[derive(Clone, Debug)]
pub(super) struct ChanEntry {
    /// The core channel.
    core: String,
    /// Its element, for an array.
    index: Option<i64>,
    /// The number of fields of its messages.
    arity: usize,
}

/// The channel an operation names.
pub(super) enum Target {
    /// A channel by its declaration (an array element by any index).
    Static(ast::LValue),
    /// The channel whose id this expression holds.
    Dynamic(ast::Expr),
}

impl Lower<'_> {
    /// The capacity and the number of elements of a channel declaration.
    pub(super) fn chan_shape(&self, d: &Decl) -> Result<(i64, i64)> {
        let Some(Init::Chan(k, _)) = &d.init else {
            unreachable!("a channel declared with its capacity")
        };
        let cap = self.const_eval(k)?;
        if !(0..=255).contains(&cap) {
            return fail(k.span, "a channel's capacity must be 0 to 255");
        }
        let n = match &d.size {
            Some(e) => self.const_eval(e)?,
            None => 1,
        };
        if !(1..=MAX_CHANS as i64).contains(&n) {
            return fail(
                d.span,
                format!("a channel array has 1 to {MAX_CHANS} elements"),
            );
        }
        Ok((cap, n))
    }

    /// The id of the first element of core channel `core` (an array of `n`
    /// elements when `array`; messages of `arity` fields), given the ids
    /// when it has none yet.
    pub(super) fn chan_id(
        &mut self,
        core: &str,
        (n, array): (i64, bool),
        arity: usize,
        span: Span,
    ) -> Result<i64> {
        if let Some(k) = self.chans.iter().position(|c| c.core == core) {
            return Ok(k as i64 + 1);
        }
        let base = self.chans.len() as i64 + 1;
        for j in 0..n {
            self.chans.push(ChanEntry {
                core: core.to_string(),
                index: array.then_some(j),
                arity,
            });
        }
        if self.chans.len() > MAX_CHANS {
            return unsupported(span, &format!("more than {MAX_CHANS} channels"));
        }
        Ok(base)
    }

    /// Gives the channels every process declares their ids, before any
    /// process is lowered: an operation on a channel a variable holds
    /// chooses among all of them.
    pub(super) fn register_local_chans(&mut self) -> Result<()> {
        for k in 0..self.instances.len() {
            let mut decls = Vec::new();
            local_decls(self.body_of(k), &mut decls);
            for d in decls {
                let Some(Init::Chan(_, fields)) = &d.init else {
                    continue;
                };
                let (_, n) = self.chan_shape(&d)?;
                let core = format!("{}_{}", self.instances[k].name, d.name);
                let arity = self.msg_fields(fields, d.span)?.len();
                self.chan_id(&core, (n, d.size.is_some()), arity, d.span)?;
            }
        }
        Ok(())
    }

    /// The channel `v` names.
    pub(super) fn chan(&mut self, v: &VarRef) -> Result<Target> {
        match self.lookup(&v.name, v.span)? {
            Var::Chan { core, array, .. } => {
                if v.field.is_some() {
                    return fail(v.span, "a channel has no fields");
                }
                let index = match (array, &v.index) {
                    (false, None) => None,
                    (true, Some(i)) => Some(Box::new(self.int(i)?)),
                    (true, None) => {
                        return fail(
                            v.span,
                            format!("`{}` is an array of channels: give an index", v.name),
                        );
                    }
                    (false, Some(_)) => {
                        return fail(v.span, format!("`{}` is not an array", v.name));
                    }
                };
                Ok(Target::Static(ast::LValue {
                    name: id(&core, v.span),
                    index,
                    span: v.span,
                }))
            }
            Var::Plain { chan: true, .. } => Ok(Target::Dynamic(self.var_expr(v)?)),
            Var::Record { fields, .. }
                if v.field
                    .as_ref()
                    .is_some_and(|(f, _)| fields.get(f).is_some_and(|f| f.2)) =>
            {
                Ok(Target::Dynamic(self.var_expr(v)?))
            }
            _ => fail(v.span, format!("`{}` is not a channel", v.name)),
        }
    }

    /// The fields of a channel's messages, a record's fields in their place.
    pub(super) fn msg_fields(&self, fields: &[Ty], span: Span) -> Result<Vec<Ty>> {
        let mut out = Vec::new();
        for f in fields {
            let Ty::Named(tn) = f else {
                out.push(f.clone());
                continue;
            };
            let Some(fs) = self.spec.typedefs.get(tn) else {
                return fail(span, format!("unknown type `{tn}`"));
            };
            for g in fs {
                if g.size.is_some() || matches!(g.ty, Ty::Named(_)) {
                    return unsupported(g.span, "a message record with an array or record field");
                }
                out.push(g.ty.clone());
            }
        }
        Ok(out)
    }

    /// The fields of record `v` (not a field of it) in declaration order,
    /// as a message's fields; None when `v` is no whole record.
    fn record_fields(&self, v: &VarRef) -> Option<Vec<VarRef>> {
        if v.field.is_some() {
            return None;
        }
        let var = self
            .scope
            .get(&v.name)
            .or_else(|| self.globals.get(&v.name));
        let Some(Var::Record { ty, .. }) = var else {
            return None;
        };
        let field = |f: &Decl| VarRef {
            field: Some((f.name.clone(), None)),
            ..v.clone()
        };
        Some(self.spec.typedefs[ty].iter().map(field).collect())
    }

    /// The arguments of a send or receive, a whole record as its fields.
    pub(super) fn msg_args(&self, args: &[Expr]) -> Vec<Expr> {
        let mut out = Vec::new();
        for a in args {
            let fields = match &a.kind {
                Ek::Var(v) => self.record_fields(v),
                _ => None,
            };
            match fields {
                Some(fs) => out.extend(fs.into_iter().map(|f| Expr {
                    kind: Ek::Var(f),
                    span: a.span,
                })),
                None => out.push(a.clone()),
            }
        }
        out
    }

    /// A declared channel `c` that the model assigns (`fa = fp`): SPIN's
    /// variable holds the channel's id and may take another's, so it is a
    /// variable of ids (`core_id`), starting at the channel's own.
    pub(super) fn held_chan(
        &mut self,
        c: Var,
        d: &Decl,
        core: &str,
        class: ast::Class,
        assigned: bool,
    ) -> Var {
        let Var::Chan {
            base, array: false, ..
        } = c
        else {
            return c;
        };
        if !assigned {
            return c;
        }
        let name = format!("{core}_id");
        self.items_or_local(ast::VarDecl {
            class,
            name: id(&name, d.span),
            size: None,
            ty: ast::Type::Int(int(0, d.span), int(MAX_CHANS as i64, d.span)),
            init: Some(ast::Init::Value(int(base, d.span))),
            span: d.span,
        });
        Var::Plain {
            core: name,
            array: false,
            modulus: None,
            chan: true,
        }
    }

    /// The id of the declared channel `v` as a value.
    pub(super) fn chan_value(&mut self, v: &VarRef) -> Result<ast::Expr> {
        let Var::Chan { base, array, .. } = self.lookup(&v.name, v.span)? else {
            unreachable!("called on a declared channel")
        };
        Ok(match (&v.index, array) {
            (Some(i), true) => bin(BinOp::Add, int(base, v.span), self.int(i)?),
            (None, false) => int(base, v.span),
            _ => {
                return fail(
                    v.span,
                    format!("`{}` is an array of channels: give an index", v.name),
                );
            }
        })
    }

    /// The channels a variable `holder` may hold whose number of message
    /// fields `fits`: each with the condition that it holds it, and that
    /// number.
    fn candidates(
        &self,
        holder: &ast::Expr,
        fits: &dyn Fn(usize) -> bool,
    ) -> Vec<(ast::Expr, ast::LValue, usize)> {
        let span = holder.span;
        (self.chans.iter().enumerate())
            .filter(|(_, c)| fits(c.arity))
            .map(|(k, c)| {
                let is = bin(BinOp::Eq, holder.clone(), int(k as i64 + 1, span));
                let lv = ast::LValue {
                    name: id(&c.core, span),
                    index: c.index.map(|i| Box::new(int(i, span))),
                    span,
                };
                (is, lv, c.arity)
            })
            .collect()
    }

    /// The statement `make` builds on the channel `v` names: on a variable,
    /// one guarded option per channel it may hold.
    pub(super) fn chan_stmt(
        &mut self,
        v: &VarRef,
        arity: usize,
        span: Span,
        make: &dyn Fn(ast::LValue) -> StmtKind,
    ) -> Result<StmtKind> {
        let holder = match self.chan(v)? {
            Target::Static(lv) => return Ok(make(lv)),
            Target::Dynamic(e) => e,
        };
        let mut opts: Vec<Vec<ast::Stmt>> = self
            .candidates(&holder, &|a| a == arity)
            .into_iter()
            .map(|(is, lv, _)| {
                let guarded = vec![st(StmtKind::Await(is), span), st(make(lv), span)];
                vec![st(StmtKind::Atomic(guarded), span)]
            })
            .collect();
        Ok(match opts.len() {
            0 => StmtKind::Await(ex(ExprKind::Bool(false), span)),
            1 => opts.pop().expect("one").pop().expect("one").kind,
            _ => StmtKind::Either(opts),
        })
    }

    /// `len(v)`, `empty(v)`, ...: on a variable, whether it holds a channel
    /// for which the query holds (`len` only inside a comparison, below).
    pub(super) fn chan_query(
        &mut self,
        q: ast::ChanQuery,
        v: &VarRef,
        span: Span,
    ) -> Result<(ast::Expr, T)> {
        if q != ast::ChanQuery::Len {
            let query = |lv, _| ex(ExprKind::Chan(q, lv), span);
            return Ok((self.chan_cond(v, &|_| true, span, &query)?, T::B));
        }
        match self.chan(v)? {
            Target::Static(lv) => Ok((ex(ExprKind::Chan(q, lv), span), T::I)),
            Target::Dynamic(_) => unsupported(
                span,
                "`len` of a channel held in a variable, outside a comparison",
            ),
        }
    }

    /// The condition `make` builds on the channel `v` names and its number
    /// of message fields: on a variable, whether it holds a channel whose
    /// number `fits` and for which the condition holds.
    fn chan_cond(
        &mut self,
        v: &VarRef,
        fits: &dyn Fn(usize) -> bool,
        span: Span,
        make: &dyn Fn(ast::LValue, usize) -> ast::Expr,
    ) -> Result<ast::Expr> {
        let holder = match self.chan(v)? {
            Target::Static(lv) => {
                let entry = self.chans.iter().find(|c| c.core == lv.name.name);
                let arity = entry.map_or(0, |c| c.arity);
                return Ok(make(lv, arity));
            }
            Target::Dynamic(e) => e,
        };
        let any = (self.candidates(&holder, fits).into_iter())
            .map(|(is, lv, arity)| bin(BinOp::And, is, make(lv, arity)))
            .reduce(|a, b| bin(BinOp::Or, a, b));
        Ok(any.unwrap_or(ex(ExprKind::Bool(false), span)))
    }

    /// `c?[a1, ..]`. SPIN lets a poll name fewer fields than the channel
    /// has (a receive may not): the others match anything.
    pub(super) fn poll(
        &mut self,
        v: &VarRef,
        xs: Vec<ast::RecvArg>,
        span: Span,
    ) -> Result<ast::Expr> {
        let padded = |lv: ast::LValue, arity: usize| {
            let mut all = xs.clone();
            all.resize(arity.max(xs.len()), ast::RecvArg::Skip(span));
            ex(ExprKind::Poll(lv, all), span)
        };
        self.chan_cond(v, &|a| a >= xs.len(), span, &padded)
    }

    /// `len(v) op y` (`y op len(v)` when `flip`) for a variable `v` that
    /// holds a channel: the comparison for the channel it holds, or with 0
    /// when it holds none. None when `v` names a declared channel.
    pub(super) fn len_cmp(
        &mut self,
        v: &VarRef,
        o: BinOp,
        y: ast::Expr,
        flip: bool,
    ) -> Result<Option<ast::Expr>> {
        let Target::Dynamic(holder) = self.chan(v)? else {
            return Ok(None);
        };
        let span = v.span;
        let cmp = |x: ast::Expr| {
            if flip {
                bin(o, y.clone(), x)
            } else {
                bin(o, x, y.clone())
            }
        };
        let cands = self.candidates(&holder, &|_| true);
        let mut none = cmp(int(0, span));
        let mut any = Vec::new();
        for (is, lv, _) in cands {
            none = bin(
                BinOp::And,
                ex(ExprKind::Unary(ast::UnOp::Not, Box::new(is.clone())), span),
                none,
            );
            any.push(bin(
                BinOp::And,
                is,
                cmp(ex(ExprKind::Chan(ast::ChanQuery::Len, lv), span)),
            ));
        }
        any.push(none);
        Ok(any.into_iter().reduce(|a, b| bin(BinOp::Or, a, b)))
    }
}
