//! Channels (see [`crate::model::Channel`]): their declarations become
//! shared slots, a send or receive one transition over them, `len(c)` and
//! the other questions plain reads of the length, and each rendezvous
//! send, with each receive of another thread that may meet it, one joint
//! transition of the two threads.

use std::cell::RefCell;
use std::collections::HashMap;

use super::lower::{Action, Lower};
use super::*;
use crate::model::{ChanOp, Channel, Dir};
use crate::syntax::ast::{ChanQuery, RecvArg, RecvMode};

/// A declared channel (or array of channels), as names resolve to it.
#[derive(Clone, Debug)]
pub(super) struct ChanSym {
    /// Its channels in `Model::channels`.
    chans: std::ops::Range<u32>,
    /// `Some(n)` for an array of n channels.
    count: Option<u32>,
    capacity: u32,
    /// The lengths, one per channel.
    len: Array,
    /// Per field: its type, lowest value, and the buffer of every channel
    /// (channel i's k-th message at `i * capacity + k`).
    fields: Vec<(Ty, i64, Array)>,
    pub(super) span: Span,
}

/// The half of a rendezvous that one statement writes, kept until every
/// thread is lowered and the halves are paired.
#[derive(Clone, Debug)]
pub(super) enum Half {
    /// The values sent.
    Send(Vec<CExpr>),
    /// Per field: where it goes, or the value it must equal, or nothing.
    Receive(Vec<(Option<Place>, Option<CExpr>)>),
}

/// Where a rendezvous half is kept: (thread, statement, the point the
/// statement goes on to, the channel declaration's first channel). The
/// copies an `either` makes of a transition keep all four; the channel
/// tells apart the options of one statement on different channels (the
/// Promela front end's operation on a channel a variable holds).
pub(super) type HalfKey = (u32, usize, usize, i64, u32);

/// The halves of the rendezvous statements, by [`HalfKey`].
pub(super) type Halves = RefCell<HashMap<HalfKey, Half>>;

/// The key of `t`'s half, going on to `next`.
pub(super) fn half_key(t: &Transition, next: i64) -> Option<HalfKey> {
    let op = t.chan.as_deref()?;
    Some((t.thread, t.span.start, t.span.end, next, op.chans.start))
}

impl Compiler {
    /// Declares `chan` `d`: its lengths, then its buffers, field by field.
    pub(super) fn declare_chan(&mut self, d: &ast::ChanDecl) -> Result<()> {
        let count = match &d.size {
            Some(e) => Some(self.const_int(e, "an array size")?),
            None => None,
        };
        let n = count.unwrap_or(1);
        let capacity = self.const_int(&d.capacity, "a channel's capacity")?;
        let cells = n.checked_mul(capacity.max(1));
        if !(1..=MAX_ARRAY).contains(&n)
            || !(0..=MAX_ARRAY).contains(&capacity)
            || cells.is_none_or(|c| c > MAX_ARRAY)
        {
            return Err(CompileError::at(
                d.span,
                format!(
                    "a channel array holds between 1 and {MAX_ARRAY} channels and messages in all"
                ),
            ));
        }
        let (n, capacity) = (n as u32, capacity as u32);
        let mut fields = Vec::new();
        for ty in &d.fields {
            let decl = ast::VarDecl {
                class: Class::Shared,
                name: d.name.clone(),
                size: None,
                ty: ty.clone(),
                init: None,
                span: d.span,
            };
            let (kind, lo, hi) = self.var_range(&decl, 0)?;
            let ty = if kind == SlotKind::Bool {
                Ty::Bool
            } else {
                Ty::Int
            };
            fields.push((ty, kind, lo, hi));
        }
        if self.slots.len() + (n as usize) * (1 + fields.len() * capacity as usize) > MAX_SLOTS {
            return Err(CompileError::at(
                d.span,
                format!("this channel takes the state past {MAX_SLOTS} slots"),
            ));
        }
        let name = &d.name.name;
        let element = |i: u32| match count {
            Some(_) => format!("{name}[{i}]"),
            None => name.clone(),
        };
        // Slot names make arrays of the runs that computed indices read
        // (exports rebuild arrays from them); reports show channels whole.
        let indexed = |what: &str, k: u32, scalar: bool| match scalar {
            true => format!("{name}.{what}"),
            false => format!("{name}.{what}[{k}]"),
        };
        let len = Array {
            base: self.slots.len() as u32,
            len: n,
            shared: true,
        };
        for i in 0..n {
            self.push_slot(
                indexed("len", i, count.is_none()),
                SlotKind::Int,
                (0, i64::from(capacity)),
                d.span,
            );
        }
        let mut arrays = Vec::new();
        for (f, &(ty, kind, lo, hi)) in fields.iter().enumerate() {
            let base = self.slots.len() as u32;
            for i in 0..n {
                for k in 0..capacity {
                    self.push_slot(
                        indexed(&format!("buf{f}"), i * capacity + k, false),
                        kind,
                        (lo, hi),
                        d.span,
                    );
                }
            }
            arrays.push((
                ty,
                lo,
                Array {
                    base,
                    len: n * capacity,
                    shared: true,
                },
            ));
        }
        let first = self.channels.len() as u32;
        for i in 0..n {
            self.channels.push(Channel {
                name: element(i),
                capacity,
                len: len.base + i,
                fields: arrays.iter().map(|a| a.2.base + i * capacity).collect(),
                kinds: fields.iter().map(|f| f.1).collect(),
                span: d.span,
            });
        }
        let sym = ChanSym {
            chans: first..first + n,
            count: count.map(|c| c as u32),
            capacity,
            len,
            fields: arrays,
            span: d.name.span,
        };
        self.define(&d.name, Sym::Chan(sym))
    }

    fn push_slot(&mut self, name: String, kind: SlotKind, (lo, hi): (i64, i64), span: Span) {
        self.slots.push(Slot {
            name,
            kind,
            class: SlotClass::Shared,
            span,
        });
        self.bounds.push((lo, hi));
        self.init.push(lo);
    }

    /// The channel `lv` names, and which element of its declaration.
    fn chan_ref(&self, lv: &ast::LValue, sc: &mut Scope) -> Result<(ChanSym, CExpr)> {
        if let Some(r) = self.chan_param_ref(lv, sc) {
            return r;
        }
        let local = sc.locals.is_some_and(|l| l.contains_key(&lv.name.name));
        let Some(Sym::Chan(c)) = self.globals.get(&lv.name.name).filter(|_| !local) else {
            let mut err =
                CompileError::at(lv.name.span, format!("`{}` is not a channel", lv.name.name));
            let chans = self
                .globals
                .iter()
                .filter(|(_, s)| matches!(s, Sym::Chan(_)));
            if let Some(best) = closest(&lv.name.name, chans.map(|(k, _)| k.as_str())) {
                err = err.help(format!("did you mean `{best}`?"));
            } else {
                err = err.help("declare one: `chan c : [2] of {0..3};`");
            }
            return Err(err);
        };
        let index = match (&lv.index, c.count) {
            (Some(i), Some(_)) => fold(self.int(i, sc, "a channel index")?),
            (None, None) => CExpr::Const(0),
            (None, Some(_)) => {
                return Err(CompileError::at(
                    lv.span,
                    format!(
                        "`{}` is an array of channels; name one, like `{}[0]`",
                        lv.name.name, lv.name.name
                    ),
                ));
            }
            (Some(_), None) => {
                return Err(CompileError::at(
                    lv.span,
                    format!("`{}` is one channel, not an array", lv.name.name),
                ));
            }
        };
        Ok((c.clone(), index))
    }

    /// The highest index a `chan q` parameter holds (q's last channel).
    pub(super) fn chan_param_top(&self, q: &ast::Ident) -> Result<i64> {
        match self.globals.get(&q.name) {
            Some(Sym::Chan(c)) => Ok(i64::from(c.count.unwrap_or(1)) - 1),
            _ => Err(
                CompileError::at(q.span, format!("`{}` is not a channel", q.name))
                    .help("a parameter `c : chan q` holds one channel of the channel array `q`"),
            ),
        }
    }

    /// The channel a `chan q` parameter names: q's element at the index
    /// it holds. None when `lv` names no such parameter.
    fn chan_param_ref(&self, lv: &ast::LValue, sc: &Scope) -> Option<Result<(ChanSym, CExpr)>> {
        let var = sc.locals?.get(&lv.name.name)?;
        let q = var.chan.as_ref()?;
        let Some(Sym::Chan(c)) = self.globals.get(q) else {
            unreachable!("checked when the parameter was declared")
        };
        if lv.index.is_some() {
            return Some(Err(CompileError::at(
                lv.span,
                format!("`{}` is one channel of `{q}`, not an array", lv.name.name),
            )));
        }
        let index = CExpr::Var {
            slot: var.base,
            shared: false,
        };
        Some(Ok((c.clone(), index)))
    }

    /// The value passed for a `chan q` parameter: the index of `q[i]`, of
    /// `q` itself when it is one channel, or what another `chan q`
    /// parameter holds.
    pub(super) fn chan_arg(&self, a: &ast::Expr, q: &ast::Ident, sc: &mut Scope) -> Result<CExpr> {
        let same = |n: &ast::Ident| n.name == q.name;
        match &a.kind {
            ast::ExprKind::Index(n, i) if same(n) => {
                Ok(fold(self.int(i, sc, "a channel index")?))
            }
            ast::ExprKind::Name(n) if same(n) && self.chan_param_top(q)? == 0 => {
                Ok(CExpr::Const(0))
            }
            ast::ExprKind::Name(n) => match sc.locals.and_then(|l| l.get(&n.name)) {
                Some(v) if v.chan.as_deref() == Some(q.name.as_str()) => Ok(CExpr::Var {
                    slot: v.base,
                    shared: false,
                }),
                _ => Err(self.not_chan_of(a, q)),
            },
            _ => Err(self.not_chan_of(a, q)),
        }
    }

    fn not_chan_of(&self, a: &ast::Expr, q: &ast::Ident) -> CompileError {
        CompileError::at(
            a.span,
            format!("this argument is not a channel of `{}`", q.name),
        )
        .help(format!("pass one of its channels, like `{}[0]`", q.name))
    }

    /// `len(c)`, `empty(c)`, ... as a read of c's length.
    pub(super) fn chan_query(
        &self,
        q: ChanQuery,
        lv: &ast::LValue,
        sc: &mut Scope,
    ) -> Result<(CExpr, Ty)> {
        let (c, index) = self.chan_ref(lv, sc)?;
        let len = elem(c.len, index);
        let cap = CExpr::Const(i64::from(c.capacity));
        let zero = CExpr::Const(0);
        let cmp =
            |op, a: CExpr, b: CExpr| (fold(CExpr::Bin(op, Box::new(a), Box::new(b))), Ty::Bool);
        Ok(match q {
            ChanQuery::Len => (len, Ty::Int),
            ChanQuery::Empty => cmp(BinOp::Eq, len, zero),
            ChanQuery::NotEmpty => cmp(BinOp::Gt, len, zero),
            ChanQuery::Full => cmp(BinOp::Ge, len, cap),
            ChanQuery::NotFull => cmp(BinOp::Lt, len, cap),
        })
    }

    /// `c?[...]` (expression `e`): whether c's first message matches, a
    /// read of c's length and first slots. A variable matches any value.
    pub(super) fn chan_poll(
        &self,
        e: &ast::Expr,
        lv: &ast::LValue,
        args: &[RecvArg],
        sc: &mut Scope,
    ) -> Result<(CExpr, Ty)> {
        let (c, index) = self.chan_ref(lv, sc)?;
        if c.capacity == 0 {
            return Err(CompileError::at(
                e.span,
                format!(
                    "`{}` is a rendezvous channel, which holds no message to poll",
                    lv.name.name
                ),
            )
            .help("SPIN stops with an error when it polls a rendezvous channel"));
        }
        self.check_arity(&c, lv, args.len(), e.span, "poll")?;
        let mut wants = Vec::new();
        for (a, &(want, _, _)) in args.iter().zip(&c.fields) {
            wants.push(match a {
                RecvArg::Var(v) if !self.names_constant(v, sc) => {
                    self.wildcard(v, want, sc)?;
                    None
                }
                _ => self.wanted(a, want, sc)?,
            });
        }
        Ok((first_matches(&c, &index, &wants), Ty::Bool))
    }

    /// A variable of a poll, which matches any value: it must be one of
    /// the field's type.
    fn wildcard(&self, v: &ast::LValue, want: Ty, sc: &Scope) -> Result<()> {
        let ty = match self.lookup(&v.name, sc)? {
            Resolved::Var(var) => var.ty(),
            Resolved::Value(..) => {
                return Err(CompileError::at(
                    v.span,
                    format!(
                        "`{}` is neither a variable (which a poll lets match any value) nor a constant (which it must equal)",
                        v.name.name
                    ),
                )
                .help(format!("to match its value, write `eval({})`", v.name.name)));
            }
        };
        if ty != want {
            return Err(field_mismatch(v, want, ty));
        }
        Ok(())
    }

    /// Whether `lv` is the name of a constant (or of a thread), which a
    /// receive or poll matches, as in Promela.
    fn names_constant(&self, lv: &ast::LValue, sc: &Scope) -> bool {
        lv.index.is_none()
            && matches!(
                self.lookup(&lv.name, sc),
                Ok(Resolved::Value(CExpr::Const(_), _))
            )
    }

    /// The value field `a` of a receive or poll must equal (of type
    /// `want`): a literal, `eval(e)` or a constant's name; `None` for `_`.
    /// A variable that is not a constant is the caller's.
    fn wanted(&self, a: &RecvArg, want: Ty, sc: &mut Scope) -> Result<Option<CExpr>> {
        let mismatch = |ty: Ty| {
            format!(
                "this field is {}, but the value is {}",
                want.name(),
                ty.name()
            )
        };
        match a {
            RecvArg::Skip(_) => Ok(None),
            RecvArg::Match(e) => Ok(Some(fold(self.typed(e, sc, want, mismatch)?))),
            RecvArg::Var(lv) => {
                let name = ast::Expr {
                    kind: ExprKind::Name(lv.name.clone()),
                    span: lv.span,
                };
                let (v, ty) = self.expr(&name, sc)?;
                if ty != want {
                    return Err(field_mismatch(lv, want, ty));
                }
                Ok(Some(v))
            }
        }
    }

    /// The error when `n`, a send's values, a receive's or a poll's fields,
    /// is not the number of c's fields.
    fn check_arity(
        &self,
        c: &ChanSym,
        lv: &ast::LValue,
        n: usize,
        span: Span,
        what: &str,
    ) -> Result<()> {
        if n == c.fields.len() {
            return Ok(());
        }
        Err(CompileError::at(
            span,
            format!(
                "`{}` carries messages of {} field{}, and this {what} has {n}",
                lv.name.name,
                c.fields.len(),
                if c.fields.len() == 1 { "" } else { "s" },
            ),
        ))
    }
}

/// The error for a receive's or poll's variable or constant `lv` of type
/// `ty` in a field of type `want`.
fn field_mismatch(lv: &ast::LValue, want: Ty, ty: Ty) -> CompileError {
    CompileError::at(
        lv.span,
        format!(
            "this field is {}, but `{}` is {}",
            want.name(),
            lv.name.name,
            ty.name()
        ),
    )
}

/// Element `index` of `array`, as an expression (a slot when constant).
fn elem(array: Array, index: CExpr) -> CExpr {
    fold(CExpr::Elem {
        array,
        index: Box::new(index),
    })
}

/// Element `index` of `array`, as a place.
fn elem_place(array: Array, index: CExpr) -> Place {
    match fold(index) {
        CExpr::Const(k) if (0..i64::from(array.len)).contains(&k) => Place::Slot {
            slot: array.base + k as u32,
            shared: true,
        },
        index => Place::Elem { array, index },
    }
}

fn bin(op: BinOp, a: CExpr, b: CExpr) -> CExpr {
    fold(CExpr::Bin(op, Box::new(a), Box::new(b)))
}

fn and_all(parts: Vec<CExpr>) -> Option<CExpr> {
    parts.into_iter().reduce(|a, b| bin(BinOp::And, a, b))
}

impl Lower<'_, '_> {
    /// `c ! v, ...`, `c ? x, ...` and `c ?<x, ...>`: the guard and command
    /// of a buffered channel's transition, or, for a rendezvous channel, a
    /// transition that never fires alone (its half is kept for pairing).
    /// `next` is the point the statement goes on to, `None` inside `atomic`.
    pub(super) fn chan_action(&self, s: &ast::Stmt, next: Option<i64>) -> Result<(Action, ChanOp)> {
        let (lv, dir, n, mode) = match &s.kind {
            StmtKind::Send(lv, v) => (lv, Dir::Send, v.len(), RecvMode::Take),
            StmtKind::Receive(lv, a, mode) => (lv, Dir::Receive, a.len(), *mode),
            _ => unreachable!("only sends and receives are channel actions"),
        };
        let mut sc = Scope {
            guard: Some("a channel's guard"),
            ..self.scope()
        };
        let (c, index) = self.c.chan_ref(lv, &mut sc)?;
        let what = if dir == Dir::Send { "send" } else { "receive" };
        self.c.check_arity(&c, lv, n, s.span, what)?;
        let op = ChanOp {
            chans: c.chans.clone(),
            index: index.clone(),
            dir,
            partner: None,
        };
        let half = match &s.kind {
            StmtKind::Send(_, values) => Half::Send(self.sent(&c, values)?),
            StmtKind::Receive(_, args, _) => Half::Receive(self.received(&c, args)?),
            _ => unreachable!(),
        };
        if c.capacity > 0 {
            return Ok((buffered(&c, &index, half, mode), op));
        }
        if mode == RecvMode::Keep {
            return Err(CompileError::at(
                s.span,
                format!("`{}` is a rendezvous channel, which holds no message to keep", lv.name.name),
            )
            .help("receive it with `c ? ...;` (SPIN stops with an error on `c?<...>` of a rendezvous)"));
        }
        let Some(next) = next else {
            return Err(CompileError::at(s.span, "a rendezvous cannot be part of an `atomic` block")
                .help("a rendezvous is already one step of the sender and the receiver; write it on its own"));
        };
        self.c.halves.borrow_mut().insert(
            (
                self.thread as u32,
                s.span.start,
                s.span.end,
                next,
                c.chans.start,
            ),
            half,
        );
        let action = Action {
            guard: Some(CExpr::Const(0)),
            body: Vec::new(),
            chan: None,
        };
        Ok((action, op))
    }

    /// The values of a send, each of its field's type.
    fn sent(&self, c: &ChanSym, values: &[ast::Expr]) -> Result<Vec<CExpr>> {
        let mut out = Vec::new();
        for (v, &(want, _, _)) in values.iter().zip(&c.fields) {
            let mismatch = |ty: Ty| {
                format!(
                    "this field is {}, but the value is {}",
                    want.name(),
                    ty.name()
                )
            };
            out.push(fold(self.c.typed(v, &mut self.scope(), want, mismatch)?));
        }
        Ok(out)
    }

    /// The fields of a receive: where each goes, or what it must equal.
    fn received(
        &self,
        c: &ChanSym,
        args: &[RecvArg],
    ) -> Result<Vec<(Option<Place>, Option<CExpr>)>> {
        let mut out = Vec::new();
        let mut sc = Scope {
            guard: Some("a value a receive must match"),
            ..self.scope()
        };
        for (a, &(want, _, _)) in args.iter().zip(&c.fields) {
            out.push(match a {
                RecvArg::Var(lv) if !self.c.names_constant(lv, &sc) => {
                    let (place, kind) = self.place(lv, None)?;
                    let ty = match kind {
                        SlotKind::Bool => Ty::Bool,
                        SlotKind::Int => Ty::Int,
                        _ => {
                            return Err(CompileError::at(
                                lv.span,
                                format!("`{}` cannot be assigned by a receive", lv.name.name),
                            ));
                        }
                    };
                    if ty != want {
                        return Err(field_mismatch(lv, want, ty));
                    }
                    (Some(place), None)
                }
                _ => (None, self.c.wanted(a, want, &mut sc)?),
            });
        }
        Ok(out)
    }
}

/// Where the `k`-th message of channel `index` of `c` is in each field's
/// buffer.
fn offset(c: &ChanSym, index: &CExpr, k: CExpr) -> CExpr {
    let cap = CExpr::Const(i64::from(c.capacity));
    bin(BinOp::Add, bin(BinOp::Mul, index.clone(), cap), k)
}

/// Field `f` of the message at `k` (an expression) in channel `index` of
/// `c`, as a place.
fn slot(c: &ChanSym, index: &CExpr, f: usize, k: CExpr) -> Place {
    elem_place(c.fields[f].2, offset(c, index, k))
}

/// Field `f` of the `k`-th message in channel `index` of `c`, as a value.
fn read(c: &ChanSym, index: &CExpr, f: usize, k: i64) -> CExpr {
    elem(c.fields[f].2, offset(c, index, CExpr::Const(k)))
}

/// Whether channel `index` of buffered `c` has a first message whose
/// fields equal `wants` where given: the guard of a receive, the value of
/// a poll. Reading the length first makes a bad index fault before
/// anything else.
fn first_matches(c: &ChanSym, index: &CExpr, wants: &[Option<CExpr>]) -> CExpr {
    let len = elem(c.len, index.clone());
    let mut parts = vec![bin(BinOp::Gt, len, CExpr::Const(0))];
    for (f, w) in wants.iter().enumerate() {
        if let Some(w) = w {
            parts.push(bin(BinOp::Eq, read(c, index, f, 0), w.clone()));
        }
    }
    and_all(parts).expect("a length test")
}

/// The guard and command of a send or receive on buffered channel `c`
/// (element `index`): a send appends; a receive copies the first
/// message's fields, and unless it keeps the message takes it, shifting
/// the rest forward and writing the freed slot back to its field's lowest
/// value, so equal contents are one state.
fn buffered(c: &ChanSym, index: &CExpr, half: Half, mode: RecvMode) -> Action {
    let len = elem(c.len, index.clone());
    let set_len = |d: i64| {
        (
            elem_place(c.len, index.clone()),
            bin(BinOp::Add, len.clone(), CExpr::Const(d)),
        )
    };
    let (guard, parts) = match half {
        Half::Send(values) => {
            let mut parts: Vec<(Place, CExpr)> = values
                .into_iter()
                .enumerate()
                .map(|(f, v)| (slot(c, index, f, len.clone()), v))
                .collect();
            parts.push(set_len(1));
            let cap = CExpr::Const(i64::from(c.capacity));
            (bin(BinOp::Lt, len.clone(), cap), parts)
        }
        Half::Receive(args) => {
            let wants: Vec<Option<CExpr>> = args.iter().map(|a| a.1.clone()).collect();
            let mut parts: Vec<(Place, CExpr)> = args
                .into_iter()
                .enumerate()
                .filter_map(|(f, (place, _))| Some((place?, read(c, index, f, 0))))
                .collect();
            if mode == RecvMode::Take {
                parts.extend(shift(c, index));
                parts.push(set_len(-1));
            }
            (first_matches(c, index, &wants), parts)
        }
    };
    Action {
        guard: Some(guard),
        body: vec![Cmd::Assign(parts)],
        chan: None,
    }
}

/// The assignments that take the first message of channel `index` of `c`:
/// every message moves one place forward, and the last place is written
/// back to its field's lowest value.
fn shift(c: &ChanSym, index: &CExpr) -> Vec<(Place, CExpr)> {
    let cap = i64::from(c.capacity);
    let mut parts = Vec::new();
    for (f, &(_, lo, _)) in c.fields.iter().enumerate() {
        for k in 0..cap {
            let v = if k + 1 < cap {
                read(c, index, f, k + 1)
            } else {
                CExpr::Const(lo)
            };
            parts.push((slot(c, index, f, CExpr::Const(k)), v));
        }
    }
    parts
}

/// Adds, for each rendezvous send and each receive of another thread on
/// the same declaration, the joint transition of the two: the sender's,
/// enabled when the receiver is at its receive, on the same channel, with
/// the sent values matching; it writes the receiver's variables and moves
/// it on. Points keep their transitions in order, joint ones after the
/// sender's own.
pub(super) fn pair_rendezvous(
    c: &Compiler,
    threads: &mut [Thread],
    transitions: Vec<Transition>,
) -> Result<Vec<Transition>> {
    let halves = c.halves.borrow();
    if halves.is_empty() {
        return Ok(transitions);
    }
    fn half<'a>(
        halves: &'a HashMap<HalfKey, Half>,
        t: &'a Transition,
    ) -> Option<(&'a ChanOp, &'a Half)> {
        let Next::To(next) = t.next else { return None };
        let op = t.chan.as_deref()?;
        halves.get(&half_key(t, next)?).map(|h| (op, h))
    }
    let half = |t| half(&halves, t);
    let receives: Vec<&Transition> = transitions
        .iter()
        .filter(|t| matches!(half(t), Some((_, Half::Receive(_)))))
        .collect();
    let mut out = Vec::with_capacity(transitions.len());
    for th in threads.iter_mut() {
        for p in &mut th.points {
            let start = out.len();
            for t in &transitions[p.transitions.clone()] {
                out.push(t.clone());
                let Some((op, Half::Send(values))) = half(t) else {
                    continue;
                };
                for r in &receives {
                    if r.thread == t.thread || r.chan.as_deref().is_none_or(|o| o.chans != op.chans)
                    {
                        continue;
                    }
                    let Some((rop, Half::Receive(args))) = half(r) else {
                        continue;
                    };
                    let joint = joint(c, t, op, values, r, rop, args);
                    c.budget
                        .charge(limits::transition_size(&joint), t.span, "this rendezvous")?;
                    out.push(joint);
                }
            }
            p.transitions = start..out.len();
        }
    }
    Ok(out)
}

/// The joint transition of send `t` and receive `r` (see [`pair_rendezvous`]).
fn joint(
    c: &Compiler,
    t: &Transition,
    op: &ChanOp,
    values: &[CExpr],
    r: &Transition,
    rop: &ChanOp,
    args: &[(Option<Place>, Option<CExpr>)],
) -> Transition {
    let Next::To(r_next) = r.next else {
        unreachable!("a receive goes on to one point")
    };
    let receiver = r.thread;
    let pc = CExpr::Var {
        slot: receiver,
        shared: false,
    };
    // Reading the sender's channel's length (always 0) faults on a bad index.
    let lens = Array {
        base: c.channels[op.chans.start as usize].len,
        len: op.chans.len() as u32,
        shared: true,
    };
    let mut guard = vec![
        bin(BinOp::Eq, elem(lens, op.index.clone()), CExpr::Const(0)),
        bin(BinOp::Eq, pc, CExpr::Const(r.from)),
        bin(BinOp::Eq, op.index.clone(), rop.index.clone()),
    ];
    // A half written `atomic { await e; ... }` is guarded `e && false`:
    // the joint step takes e.
    for half in [t, r] {
        if let Some(CExpr::Bin(BinOp::And, g, zero)) = &half.guard
            && matches!(**zero, CExpr::Const(0))
        {
            guard.push((**g).clone());
        }
    }
    let mut parts = Vec::new();
    for ((place, want), v) in args.iter().zip(values) {
        if let Some(w) = want {
            guard.push(bin(BinOp::Eq, v.clone(), w.clone()));
        }
        if let Some(p) = place {
            parts.push((p.clone(), v.clone()));
        }
    }
    parts.push((
        Place::Slot {
            slot: receiver,
            shared: false,
        },
        CExpr::Const(r_next),
    ));
    Transition {
        guard: and_all(guard),
        body: vec![Cmd::Assign(parts)],
        text: format!(
            "{} with {} {}",
            t.text, c.thread_names[receiver as usize], r.text
        ),
        chan: Some(Box::new(ChanOp {
            partner: Some(receiver),
            ..op.clone()
        })),
        ..t.clone()
    }
}
