//! The check that a permutation of the copies maps the model onto itself.
//!
//! Renaming an expression `e` by σ gives `R(e)` with `R(e)(σ(s)) = σ(e(s))`
//! for every state s: slots move as [`Symmetry::apply`] moves them, and a
//! constant that stands for a copy (typed by where it is used) is renamed.
//! A transition's renaming must be, exactly, the transition of the copy it
//! moves to (a transition of another thread: itself); every exclusive
//! access predicate's, the predicate of the image thread on the image
//! variable; every invariant's, itself. Then σ maps every run of the
//! system onto a run, and every verdict is the same in both.

use super::infer::{Shape, Why};
use super::{Kind, Symmetry, Ty};
use crate::model::{Array, CExpr, Cmd, LtlProperty, Model, Next, Place, Quantified, Transition};
use crate::syntax::ast::BinOp;

/// Whether `sigma` (copy i to copy `sigma[i]`) is an automorphism of
/// `model`; the first thing it does not map, where not.
/// `kind` says which symmetry it stands for: a rotation, or the swap that
/// with it makes every permutation.
pub(super) fn generator(
    model: &Model,
    shape: &Shape,
    sigma: &[usize],
    kind: Kind,
) -> Result<(), Why> {
    let sym = shape.symmetry(Kind::Full);
    let mut r = Ren::new(model, shape, &sym, sigma);
    r.kind = kind;
    r.slots()?;
    for (k, tr) in model.transitions.iter().enumerate() {
        let image = &model.transitions[sym.transition(sigma, k)];
        if !r.transition(tr).is_some_and(|t| t == Same(image)) {
            return Err(r.why_transition(tr, sigma));
        }
    }
    for p in &model.protected {
        let q = model.protected_index[r.map[p.slot as usize] as usize];
        let Some(q) = q.map(|q| &model.protected[q as usize]) else {
            return Err(r.why_decl("a protected variable", p.span, p.line));
        };
        for (t, e) in p.excl.iter().enumerate() {
            if !r.maps(e, &q.excl[sym.thread(sigma, t)]) {
                return Err(r.why_decl("its exclusive access predicate", p.span, p.line));
            }
        }
    }
    for inv in &model.invariants {
        if !r.maps(&inv.expr, &inv.expr) {
            return Err(r.why_decl("the invariant", inv.span, inv.line));
        }
    }
    Ok(())
}

/// Whether `sigma` maps every atom of the temporal property `p` onto
/// itself (then the property is true of a run exactly when it is of the
/// run's image: Emerson and Sistla, "Symmetry and model checking", 1996);
/// the first atom it does not map, where not.
pub(super) fn atoms(
    model: &Model,
    shape: &Shape,
    sigma: &[usize],
    kind: Kind,
    p: &LtlProperty,
) -> Result<(), Why> {
    let sym = shape.symmetry(Kind::Full);
    let mut r = Ren::new(model, shape, &sym, sigma);
    r.kind = kind;
    for (atom, text) in p.atoms.iter().zip(&p.atom_text) {
        if !r.maps(atom, atom) {
            let why = format!(
                "the atom `{text}` of property `{}` (line {}) tells the copies apart: {} does not map it onto itself",
                p.name,
                p.line,
                r.kind().0
            );
            return Err((why, Some((p.span, p.line))));
        }
    }
    Ok(())
}

/// The parts of a transition that renaming must reproduce.
#[derive(PartialEq)]
struct Renamed {
    guard: Option<CExpr>,
    body: Vec<Cmd>,
    next: Next,
}

/// A transition seen as its [`Renamed`] parts.
struct Same<'a>(&'a Transition);

impl PartialEq<Same<'_>> for Renamed {
    fn eq(&self, t: &Same) -> bool {
        self.guard == t.0.guard && self.body == t.0.body && self.next == t.0.next
    }
}

/// Renaming by one permutation.
struct Ren<'a> {
    model: &'a Model,
    shape: &'a Shape,
    sym: &'a Symmetry,
    sigma: &'a [usize],
    /// Where each slot moves.
    map: Vec<u32>,
    /// The types of the quantified variables in scope.
    bound: std::cell::RefCell<Vec<Option<Ty>>>,
    /// The symmetry σ stands for.
    kind: Kind,
}

impl<'a> Ren<'a> {
    fn new(model: &'a Model, shape: &'a Shape, sym: &'a Symmetry, sigma: &'a [usize]) -> Self {
        let mut map: Vec<u32> = (0..model.slots.len() as u32).collect();
        for (i, b) in shape.blocks.iter().enumerate() {
            for (k, &s) in b.iter().enumerate() {
                map[s as usize] = shape.blocks[sigma[i]][k];
            }
        }
        for &(base, len, o) in &sym.arrays {
            for (i, &j) in sigma.iter().enumerate() {
                let (from, to) = (o + i as i64, o + j as i64);
                if from < i64::from(len) && to < i64::from(len) {
                    map[(i64::from(base) + from) as usize] = (i64::from(base) + to) as u32;
                }
            }
        }
        Ren {
            model,
            shape,
            sym,
            sigma,
            map,
            bound: Default::default(),
            kind: Kind::Full,
        }
    }

    /// Slots keep their ranges and kinds where they move, arrays indexed
    /// by copies have an element for each, and a slot of identities holds
    /// all of them or none.
    fn slots(&self) -> Result<(), Why> {
        let m = self.model;
        for (s, &t) in self.map.iter().enumerate() {
            let t = t as usize;
            if m.bounds[s] != m.bounds[t] || m.slots[s].kind != m.slots[t].kind {
                return Err(self.why_slot(s, "does not have the same range in every copy"));
            }
        }
        let n = self.sym.n as i64;
        for &(base, len, o) in &self.sym.arrays {
            if o + n > i64::from(len) {
                let why = "is indexed by copies but has fewer elements than there are copies";
                return Err(self.why_slot(base as usize, why));
            }
        }
        for &(s, o) in &self.sym.ids {
            let (lo, hi) = m.bounds[s as usize];
            let (covers, misses) = (lo <= o && o + n - 1 <= hi, hi < o || o + n - 1 < lo);
            if !covers && !misses {
                let why = "holds thread identities but its range leaves some copies out";
                return Err(self.why_slot(s as usize, why));
            }
        }
        Ok(())
    }

    /// Whether the renaming of the condition `e` is `image`, up to the
    /// order of the operands of `&&`, `||`, `==` and `!=` where none can
    /// fault (`at(1, CS) && at(0, CS)` is `at(0, CS) && at(1, CS)`).
    fn maps(&self, e: &CExpr, image: &CExpr) -> bool {
        self.expr(e, Some(Ty::Plain))
            .is_some_and(|r| r == *image || normal(&r) == normal(image))
    }

    fn why_slot(&self, s: usize, what: &str) -> Why {
        let slot = &self.model.slots[s];
        (format!("`{}` {what}", slot.name), None)
    }

    fn why_decl(&self, what: &str, span: crate::syntax::span::Span, line: usize) -> Why {
        let (kind, lost) = self.kind();
        (
            format!(
                "{what} at line {line} is not mapped onto itself by {kind}, so it tells the copies apart ({lost})"
            ),
            Some((span, line)),
        )
    }

    fn why_transition(&self, tr: &Transition, sigma: &[usize]) -> Why {
        let m = self.model;
        let t = tr.thread as usize;
        let u = self.sym.thread(sigma, t);
        let (kind, lost) = self.kind();
        let why = match t == u {
            true => format!(
                "`{}` of {} tells the copies apart: {kind} changes it ({lost})",
                tr.text, m.threads[t].name
            ),
            false => format!(
                "`{}` does not do in {} what it does in {}: {kind} does not map one onto the other ({lost})",
                tr.text, m.threads[u].name, m.threads[t].name
            ),
        };
        (why, Some((tr.span, tr.line)))
    }

    /// The permutation in words, and what its failure loses.
    fn kind(&self) -> (&'static str, &'static str) {
        match self.kind {
            _ if self.sigma.len() == 2 => ("exchanging the two copies", "no symmetry"),
            Kind::Rotation => ("a rotation of the copies", "no symmetry"),
            Kind::Full => ("a swap of two copies", "no full symmetry"),
        }
    }

    /// The value that the identity `v` (of type `Ids(o)`) becomes.
    fn value(&self, o: i64, v: i64) -> i64 {
        match v.checked_sub(o) {
            Some(i) if (0..self.sym.n as i64).contains(&i) => o + self.sigma[i as usize] as i64,
            _ => v,
        }
    }

    /// What an expression holds, where its form says.
    fn ty_of(&self, e: &CExpr) -> Option<Ty> {
        match e {
            CExpr::Const(_) => None,
            CExpr::Var { slot, .. } => Some(self.shape.value[*slot as usize]),
            CExpr::Elem { array, .. } => Some(self.shape.value[array.base as usize]),
            CExpr::Bound(k) => self.bound.borrow().get(*k as usize).copied().flatten(),
            CExpr::LocalOf { slots, .. } => {
                let s = slots.iter().flatten().next()?;
                Some(self.shape.value[*s as usize])
            }
            _ => Some(Ty::Plain),
        }
    }

    /// What indexes an array.
    fn index_ty(&self, a: &Array) -> Ty {
        match self.shape.index[a.base as usize] {
            Some((t, _)) => t,
            None => Ty::Plain,
        }
    }

    fn array(&self, a: &Array) -> Array {
        match self.shape.owner[a.base as usize] {
            Some(_) => Array {
                base: self.map[a.base as usize],
                ..*a
            },
            None => *a,
        }
    }

    /// An element `a[index]` renamed: a copy's own array moves with it;
    /// in the buffer of a channel array the copies own, the element's
    /// channel (the constant part of the index, `e * capacity`) is renamed;
    /// elsewhere the index is renamed as what indexes the array.
    fn element(&self, a: &Array, index: &CExpr) -> Option<(Array, CExpr)> {
        let Some(&(_, cap, o)) = self.shape.buffers.iter().find(|b| b.0 == a.base) else {
            return Some((self.array(a), self.expr(index, Some(self.index_ty(a)))?));
        };
        let (cap, n) = (i64::from(cap.max(1)), self.sym.n as i64);
        let channel = |c: i64| match (c / cap - o, c % cap) {
            (e, k) if (0..n).contains(&e) => (o + self.sigma[e as usize] as i64) * cap + k,
            _ => c,
        };
        let index = match index {
            CExpr::Const(c) => CExpr::Const(channel(*c)),
            CExpr::Bin(BinOp::Add, c, rest) => match **c {
                CExpr::Const(c) => CExpr::Bin(
                    BinOp::Add,
                    Box::new(CExpr::Const(channel(c))),
                    self.boxed(rest, Some(Ty::Plain))?,
                ),
                _ => return None,
            },
            _ => return None,
        };
        Some((*a, index))
    }

    fn boxed(&self, e: &CExpr, want: Option<Ty>) -> Option<Box<CExpr>> {
        self.expr(e, want).map(Box::new)
    }

    /// `R(e)`, where `e` holds what `want` says (any type where `None`);
    /// `None` where the types clash.
    fn expr(&self, e: &CExpr, want: Option<Ty>) -> Option<CExpr> {
        if let (Some(w), Some(t)) = (want, self.ty_of(e))
            && w != t
        {
            return None;
        }
        let ids = Some(Ty::Ids(self.sym.first as i64));
        let plain = Some(Ty::Plain);
        Some(match e {
            CExpr::Const(c) => CExpr::Const(match want {
                Some(Ty::Ids(o)) => self.value(o, *c),
                _ => *c,
            }),
            CExpr::Var { slot, shared } => CExpr::Var {
                slot: self.map[*slot as usize],
                shared: *shared,
            },
            CExpr::Elem { array, index } => {
                let (array, index) = self.element(array, index)?;
                CExpr::Elem {
                    array,
                    index: Box::new(index),
                }
            }
            CExpr::At { thread, pcs } => CExpr::At {
                thread: self.boxed(thread, ids)?,
                pcs: self.per_thread(pcs, |p| *p),
            },
            CExpr::LocalOf { thread, slots } => CExpr::LocalOf {
                thread: self.boxed(thread, ids)?,
                slots: self.per_thread(slots, |s| s.map(|s| self.map[s as usize])),
            },
            CExpr::Bound(k) => CExpr::Bound(*k),
            CExpr::Not(a) => CExpr::Not(self.boxed(a, plain)?),
            CExpr::Neg(a) => CExpr::Neg(self.boxed(a, plain)?),
            CExpr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
                let t = self.ty_of(a).or_else(|| self.ty_of(b));
                CExpr::Bin(*op, self.boxed(a, t)?, self.boxed(b, t)?)
            }
            CExpr::Bin(op, a, b) => CExpr::Bin(*op, self.boxed(a, plain)?, self.boxed(b, plain)?),
            CExpr::Quant(q) => CExpr::Quant(self.quant(q)?),
        })
    }

    /// A per-thread table renamed: entry `σ(t)` is what entry t was.
    fn per_thread<T: Clone, U>(&self, table: &[T], f: impl Fn(&T) -> U) -> Vec<U>
    where
        U: Clone,
    {
        let mut out: Vec<U> = table.iter().map(&f).collect();
        for (t, v) in table.iter().enumerate() {
            let u = self.sym.thread(self.sigma, t);
            if u < out.len() {
                out[u] = f(v);
            }
        }
        out
    }

    /// A quantifier: its variable ranges over the copies' identities where
    /// its range holds them all and its body reads it so; else over plain
    /// values.
    fn quant(&self, q: &Quantified) -> Option<Quantified> {
        let (_, body) = self.quant_typed(q)?;
        Some(Quantified { body, ..q.clone() })
    }

    /// The type of `q`'s variable (the first of identities of the threads,
    /// identities from 0, plain values that types its body) and its body
    /// renamed.
    fn quant_typed(&self, q: &Quantified) -> Option<(Ty, Box<CExpr>)> {
        let (lo, hi) = (constant(&q.lo)?, constant(&q.hi)?);
        let n = self.sym.n as i64;
        let mut tries: Vec<Ty> = [self.sym.first as i64, 0]
            .into_iter()
            .filter(|&o| lo <= o && o + n - 1 <= hi)
            .map(Ty::Ids)
            .collect();
        tries.push(Ty::Plain);
        let k = q.var as usize;
        for t in tries {
            {
                let mut b = self.bound.borrow_mut();
                if b.len() <= k {
                    b.resize(k + 1, None);
                }
                b[k] = Some(t);
            }
            if let Some(body) = self.boxed(&q.body, Some(Ty::Plain)) {
                return Some((t, body));
            }
        }
        None
    }

    fn place(&self, p: &Place) -> Option<(Place, Option<Ty>)> {
        Some(match p {
            Place::Slot { slot, shared } => (
                Place::Slot {
                    slot: self.map[*slot as usize],
                    shared: *shared,
                },
                Some(self.shape.value[*slot as usize]),
            ),
            Place::Elem { array, index } => {
                let (renamed, index) = self.element(array, index)?;
                (
                    Place::Elem {
                        array: renamed,
                        index,
                    },
                    Some(self.shape.value[array.base as usize]),
                )
            }
        })
    }

    fn cmds(&self, cmds: &[Cmd]) -> Option<Vec<Cmd>> {
        let plain = Some(Ty::Plain);
        cmds.iter()
            .map(|c| {
                Some(match c {
                    Cmd::Assign(pairs) => Cmd::Assign(
                        pairs
                            .iter()
                            .map(|(p, e)| {
                                let (p, t) = self.place(p)?;
                                Some((p, self.expr(e, t)?))
                            })
                            .collect::<Option<_>>()?,
                    ),
                    Cmd::Assert(e) => Cmd::Assert(self.expr(e, plain)?),
                    Cmd::If(e, a, b) => Cmd::If(self.expr(e, plain)?, self.cmds(a)?, self.cmds(b)?),
                })
            })
            .collect()
    }

    fn transition(&self, tr: &Transition) -> Option<Renamed> {
        let plain = Some(Ty::Plain);
        let guard = match &tr.guard {
            Some(g) => Some(self.expr(g, plain)?),
            None => None,
        };
        let next = match &tr.next {
            Next::To(p) => Next::To(*p),
            Next::Branch(c, a, b) => Next::Branch(self.expr(c, plain)?, *a, *b),
        };
        Some(Renamed {
            guard,
            body: self.cmds(&tr.body)?,
            next,
        })
    }
}

/// `e` with the operands of every chain of `&&` or `||`, and of every `==`
/// and `!=`, in one order (by their text), where no operand can fault:
/// evaluated in any order they then give the same value.
fn normal(e: &CExpr) -> CExpr {
    match e {
        CExpr::Not(a) => CExpr::Not(Box::new(normal(a))),
        CExpr::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne), ..) if total(e) => {
            let mut operands = Vec::new();
            chain(e, *op, &mut operands);
            let mut operands: Vec<CExpr> = operands.into_iter().map(normal).collect();
            operands.sort_by_cached_key(|o| format!("{o:?}"));
            let mut it = operands.into_iter();
            let first = it.next().expect("a chain has operands");
            it.fold(first, |a, b| CExpr::Bin(*op, Box::new(a), Box::new(b)))
        }
        e => e.clone(),
    }
}

/// The operands of the chain of `op` at `e` (for `==` and `!=`, the two).
fn chain<'e>(e: &'e CExpr, op: BinOp, out: &mut Vec<&'e CExpr>) {
    match e {
        CExpr::Bin(o, a, b) if *o == op && matches!(op, BinOp::And | BinOp::Or) => {
            chain(a, op, out);
            chain(b, op, out);
        }
        CExpr::Bin(o, a, b) if *o == op => out.extend([&**a, &**b]),
        e => out.push(e),
    }
}

/// Whether `e` can be evaluated in every state: no index that may be out
/// of range, no arithmetic that may overflow or divide by zero, no local
/// of a thread that may lack it.
fn total(e: &CExpr) -> bool {
    match e {
        CExpr::Const(_) | CExpr::Var { .. } | CExpr::Bound(_) => true,
        CExpr::Elem { array, index } => {
            constant(index).is_some_and(|i| (0..i64::from(array.len)).contains(&i))
        }
        CExpr::At { thread, .. } => total(thread),
        CExpr::Not(a) => total(a),
        CExpr::Bin(op, a, b) => {
            !matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
            ) && total(a)
                && total(b)
        }
        CExpr::Quant(q) => constant(&q.lo).is_some() && constant(&q.hi).is_some() && total(&q.body),
        CExpr::LocalOf { .. } | CExpr::Neg(_) => false,
    }
}

/// The value of a constant expression (`N - 1`: the compiler leaves a
/// quantifier's bounds as written), where it is one.
pub(crate) fn constant(e: &CExpr) -> Option<i64> {
    match e {
        CExpr::Const(c) => Some(*c),
        CExpr::Neg(a) => constant(a)?.checked_neg(),
        CExpr::Bin(op, a, b) => crate::model::binop(*op, constant(a)?, constant(b)?).ok(),
        _ => None,
    }
}

/// The type of quantifier `q`'s variable as verification reads it, with
/// the quantified variables in scope typed by `bound`; `None` where its
/// body does not type (the model is then not symmetric).
pub(super) fn quant_ty(
    model: &Model,
    shape: &Shape,
    q: &Quantified,
    bound: &[Option<Ty>],
) -> Option<Ty> {
    let sym = shape.symmetry(Kind::Full);
    let identity: Vec<usize> = (0..shape.n).collect();
    let r = Ren::new(model, shape, &sym, &identity);
    *r.bound.borrow_mut() = bound.to_vec();
    r.quant_typed(q).map(|(t, _)| t)
}
