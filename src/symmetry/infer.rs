//! Which slots hold copies' identities and which arrays they index, read
//! off the code of the first two copies side by side. The compiler has
//! replaced `self` and `index` by constants, so a constant that is 0 in
//! copy 0 and 1 in copy 1 is an identity, and so is everything it is
//! compared with or stored in (a union-find over variables, as in type
//! inference). This is a guess: [`super::verify`] checks it.

use super::{Symmetry, Ty};
use crate::model::{CExpr, Cmd, Model, Next, Place, SlotClass, Transition};
use crate::syntax::ast::BinOp;
use crate::syntax::span::Span;

/// Why a group is not symmetric: what, and where.
pub(super) type Why = (String, Option<(Span, usize)>);

/// The shape of a group of copies and the types inferred for its slots.
pub(super) struct Shape {
    pub first: usize,
    pub n: usize,
    /// Per copy: its slots (program counter, locals, frames), aligned.
    pub blocks: Vec<Vec<u32>>,
    /// Per copy: its first transition; each has `per`.
    pub starts: Vec<usize>,
    pub per: usize,
    /// Per slot: what it holds.
    pub value: Vec<Ty>,
    /// Per slot: where it is an array's element 0, what indexes the array
    /// and its length.
    pub index: Vec<Option<(Ty, u32)>>,
    /// Per slot: where it is owned by a copy, which copy and where.
    pub owner: Vec<Option<(usize, usize)>>,
    /// Whether each copy owns its element of the channel arrays.
    pub channels: bool,
    /// The message buffers of the channel arrays the copies own: per
    /// field, `(base, capacity, o)`: the field of element e's k-th message
    /// is slot `base + e * capacity + k`, and element `o + i` is copy i's.
    pub buffers: Vec<(u32, u32, i64)>,
}

impl Shape {
    /// The shape of the `n` copies from thread `first`, with the types
    /// their code suggests.
    /// With `channels`, each copy also owns the element of every channel
    /// array that has one per copy (`ring[index]`): its length and buffer
    /// move with the copy.
    pub fn of(model: &Model, first: usize, n: usize, channels: bool) -> Result<Shape, Why> {
        let (own, buffers) = match channels {
            true => channel_elements(model, first, n),
            false => (vec![Vec::new(); n], Vec::new()),
        };
        let blocks: Vec<Vec<u32>> = (first..first + n)
            .zip(own)
            .map(|(t, chans)| {
                let locals = (0..model.slots.len() as u32)
                    .filter(|&s| model.slots[s as usize].class == SlotClass::Local(t as u32));
                std::iter::once(t as u32)
                    .chain(locals)
                    .chain(chans)
                    .collect()
            })
            .collect();
        let decl = place(model, first);
        if blocks.iter().any(|b| b.len() != blocks[0].len()) {
            return Err(("the copies have different locals".into(), decl));
        }
        let (starts, per) = transitions(model, first, n)?;
        let mut owner = vec![None; model.slots.len()];
        for (i, b) in blocks.iter().enumerate() {
            for (k, &s) in b.iter().enumerate() {
                owner[s as usize] = Some((i, k));
            }
        }
        let vars = Vars::of(model);
        let mut shape = Shape {
            first,
            n,
            blocks,
            starts,
            per,
            value: Vec::new(),
            index: Vec::new(),
            owner,
            channels,
            buffers,
        };
        let mut u = Unify::new(model.slots.len(), &vars, &shape);
        for k in 0..per {
            let (a, b) = (
                starts_tr(model, &shape, 0, k),
                starts_tr(model, &shape, 1, k),
            );
            u.transition(a, b).map_err(|()| differs(model, &shape, a))?;
        }
        for p in &model.protected {
            let _ = u.expr(&p.excl[first], &p.excl[first + 1]);
        }
        let value = (0..model.slots.len())
            .map(|s| {
                let k = u.key(s as u32);
                u.ty(2 * k)
            })
            .collect();
        let index = (0..model.slots.len())
            .map(|s| {
                let base = vars.base[s];
                (base == s as u32 && vars.len[s] > 1 && shape.owner[s].is_none())
                    .then(|| (u.ty(2 * s + 1), vars.len[s]))
            })
            .collect();
        drop(u);
        shape.value = value;
        shape.index = index;
        Ok(shape)
    }

    /// The symmetry of this shape, of kind `kind`.
    pub fn symmetry(&self, kind: super::Kind) -> Symmetry {
        let arrays: Vec<(u32, u32, i64)> = (self.index.iter().enumerate())
            .filter_map(|(s, ix)| match ix {
                Some((Ty::Ids(o), len)) => Some((s as u32, *len, *o)),
                _ => None,
            })
            .collect();
        let in_array = |s: u32| arrays.iter().any(|&(b, len, _)| (b..b + len).contains(&s));
        let ids: Vec<(u32, i64)> = (self.value.iter().enumerate())
            .filter_map(|(s, t)| match t {
                Ty::Ids(o) => Some((s as u32, *o)),
                Ty::Plain => None,
            })
            .collect();
        let free: Vec<(u32, i64)> = (ids.iter().copied())
            .filter(|&(s, _)| self.owner[s as usize].is_none() && !in_array(s))
            .collect();
        let simple = free.len() == ids.len();
        let ids_of = |s: u32| match self.value[s as usize] {
            Ty::Ids(o) => Some(o),
            Ty::Plain => None,
        };
        Symmetry {
            channels: self.channels,
            block_ids: self.blocks[0].iter().map(|&s| ids_of(s)).collect(),
            array_ids: arrays.iter().map(|&(b, _, _)| ids_of(b)).collect(),
            kind,
            first: self.first,
            n: self.n,
            threads: String::new(),
            exact: simple || kind == super::Kind::Rotation || super::canon::all_tried(self.n),
            blocks: self.blocks.clone(),
            arrays,
            ids,
            free,
            simple,
            starts: self.starts.clone(),
            per: self.per,
        }
    }
}

/// Per copy, the slots of its channels; and the channels' buffers.
type Owned = (Vec<Vec<u32>>, Vec<(u32, u32, i64)>);

/// Per copy: the slots of the channels it owns, one element of each
/// channel array with an element per copy (counted from 0, or from the
/// first copy's thread id); and those arrays' buffers (see
/// [`Shape::buffers`]).
fn channel_elements(model: &Model, first: usize, n: usize) -> Owned {
    let (mut out, mut buffers) = (vec![Vec::new(); n], Vec::new());
    let name = |c: usize| model.channels[c].name.split('[').next().unwrap_or_default();
    let mut c = 0;
    while c < model.channels.len() {
        let len = (c..model.channels.len())
            .take_while(|&d| name(d) == name(c) && model.channels[d].name.contains('['))
            .count()
            .max(1);
        let o = match len {
            l if l == n => Some(0),
            l if first > 0 && l == first + n => Some(first),
            _ => None,
        };
        if let Some(o) = o {
            for (i, slots) in out.iter_mut().enumerate() {
                slots.extend(model.channels[c + o + i].slots());
            }
            let ch = &model.channels[c];
            buffers.extend((ch.fields.iter()).map(|&f| (f, ch.capacity, o as i64)));
        }
        c += len;
    }
    (out, buffers)
}

/// Where thread `t` begins, to point at its body.
fn place(model: &Model, t: usize) -> Option<(Span, usize)> {
    let p = model.threads[t].points.first()?;
    Some((p.span, p.line))
}

/// Transition `k` of copy `i`.
fn starts_tr<'m>(model: &'m Model, shape: &Shape, i: usize, k: usize) -> &'m Transition {
    &model.transitions[shape.starts[i] + k]
}

/// Why a statement is not the same in copies 0 and 1.
fn differs(model: &Model, shape: &Shape, tr: &Transition) -> Why {
    let (a, b) = (
        &model.threads[shape.first].name,
        &model.threads[shape.first + 1].name,
    );
    (
        format!("`{}` does not do the same in {a} as in {b}", tr.text),
        Some((tr.span, tr.line)),
    )
}

/// Each copy's first transition and how many each has: the same at every
/// point, or the copies are not aligned.
fn transitions(model: &Model, first: usize, n: usize) -> Result<(Vec<usize>, usize), Why> {
    let shape = |t: usize| -> Vec<usize> {
        let th = &model.threads[t];
        th.points.iter().map(|p| p.transitions.len()).collect()
    };
    let start = |t: usize| {
        let th = &model.threads[t];
        (th.points.iter())
            .map(|p| p.transitions.start)
            .min()
            .unwrap_or(0)
    };
    for t in first + 1..first + n {
        if shape(t) != shape(first) {
            let why = "the copies' code is not the same after compilation (a branch on `self` decided when it was compiled)";
            return Err((why.into(), place(model, first)));
        }
    }
    let per = shape(first).iter().sum();
    Ok(((first..first + n).map(start).collect(), per))
}

/// The variables of slots: arrays are runs of `name[i]` slots.
struct Vars {
    /// Per slot: the slot of its variable's element 0.
    base: Vec<u32>,
    /// Per slot that is a base: the variable's length.
    len: Vec<u32>,
}

impl Vars {
    fn of(model: &Model) -> Vars {
        let prefix = |s: usize| {
            let name = &model.slots[s].name;
            name.find('[').map(|k| &name[..k])
        };
        let mut base = Vec::with_capacity(model.slots.len());
        let mut len = vec![1; model.slots.len()];
        for s in 0..model.slots.len() {
            let b = match (s.checked_sub(1), prefix(s)) {
                (Some(p), Some(name)) if prefix(p) == Some(name) => base[p] as usize,
                _ => s,
            };
            if b != s {
                len[b] += 1;
            }
            base.push(b as u32);
        }
        Vars { base, len }
    }
}

/// One side of a unification: a variable's node, a known type, or a
/// constant that constrains nothing.
#[derive(Clone, Copy)]
enum Z {
    Node(usize),
    Known(Ty),
    Free,
}

/// Union-find over nodes `2 * key` (what variable `key` holds) and
/// `2 * key + 1` (what indexes it).
struct Unify<'a> {
    parent: Vec<usize>,
    ty: Vec<Option<Ty>>,
    vars: &'a Vars,
    shape: &'a Shape,
}

impl<'a> Unify<'a> {
    fn new(slots: usize, vars: &'a Vars, shape: &'a Shape) -> Unify<'a> {
        Unify {
            parent: (0..2 * slots).collect(),
            ty: vec![None; 2 * slots],
            vars,
            shape,
        }
    }

    /// The variable of slot `s`, a copy's slots standing for copy 0's.
    fn key(&self, s: u32) -> usize {
        let s = match self.shape.owner[s as usize] {
            Some((_, k)) => self.shape.blocks[0][k],
            None => s,
        };
        self.vars.base[s as usize] as usize
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn ty(&mut self, node: usize) -> Ty {
        let r = self.find(node);
        self.ty[r].unwrap_or(Ty::Plain)
    }

    /// Unifies two sides; a clash is left for `verify` to find.
    fn unify(&mut self, a: Z, b: Z) {
        match (a, b) {
            (Z::Node(x), Z::Node(y)) => {
                let (x, y) = (self.find(x), self.find(y));
                if x != y {
                    self.parent[y] = x;
                    self.ty[x] = self.ty[x].or(self.ty[y]);
                }
            }
            (Z::Node(x), Z::Known(t)) | (Z::Known(t), Z::Node(x)) => {
                let r = self.find(x);
                self.ty[r].get_or_insert(t);
            }
            _ => {}
        }
    }

    /// The type of a constant that is `c0` in copy 0 and `c1` in copy 1.
    fn constant(&self, c0: i64, c1: i64) -> Z {
        if c0 == c1 {
            return Z::Free;
        }
        let (first, n) = (self.shape.first as i64, self.shape.n as i64);
        let within = |o: i64| (o..o + n).contains(&c0) && (o..o + n).contains(&c1);
        match first {
            f if f != 0 && within(f) => Z::Known(Ty::Ids(f)),
            _ if within(0) => Z::Known(Ty::Ids(0)),
            _ => Z::Known(Ty::Plain),
        }
    }

    /// Slots `s0` in copy 0's code and `s1` in copy 1's: the same variable
    /// (an array's elements by identities where they differ).
    fn slots(&mut self, s0: u32, s1: u32) -> Result<Z, ()> {
        let (k0, k1) = (self.key(s0), self.key(s1));
        if k0 != k1 {
            return Err(());
        }
        let (own0, own1) = (self.shape.owner[s0 as usize], self.shape.owner[s1 as usize]);
        let aligned = own0.zip(own1).is_some_and(|(a, b)| a.1 == b.1);
        if s0 != s1 && !aligned {
            let (j0, j1) = (s0 - k0 as u32, s1 - k0 as u32);
            let c = self.constant(i64::from(j0), i64::from(j1));
            self.unify(Z::Node(2 * k0 + 1), c);
        }
        Ok(Z::Node(2 * k0))
    }

    fn plain(&mut self, z: Z) {
        self.unify(z, Z::Known(Ty::Plain));
    }

    /// Zips an expression of copy 0 with copy 1's.
    fn expr(&mut self, a: &CExpr, b: &CExpr) -> Result<Z, ()> {
        use CExpr as E;
        Ok(match (a, b) {
            (E::Const(x), E::Const(y)) => self.constant(*x, *y),
            (E::Var { slot: x, .. }, E::Var { slot: y, .. }) => self.slots(*x, *y)?,
            (E::Elem { array: x, index: i }, E::Elem { array: y, index: j }) => {
                let z = self.slots(x.base, y.base)?;
                let ix = self.expr(i, j)?;
                let k = self.key(x.base);
                self.unify(ix, Z::Node(2 * k + 1));
                z
            }
            (E::At { thread: x, pcs: p }, E::At { thread: y, pcs: q }) if p == q => {
                let t = self.expr(x, y)?;
                self.unify(t, Z::Known(Ty::Ids(self.shape.first as i64)));
                Z::Known(Ty::Plain)
            }
            (
                E::LocalOf {
                    thread: x,
                    slots: p,
                },
                E::LocalOf {
                    thread: y,
                    slots: q,
                },
            ) if p == q => {
                let t = self.expr(x, y)?;
                self.unify(t, Z::Known(Ty::Ids(self.shape.first as i64)));
                match p.iter().flatten().next() {
                    Some(&s) => Z::Node(2 * self.key(s)),
                    None => Z::Free,
                }
            }
            (E::Bound(x), E::Bound(y)) if x == y => Z::Free,
            (E::Not(x), E::Not(y)) | (E::Neg(x), E::Neg(y)) => {
                let z = self.expr(x, y)?;
                self.plain(z);
                Z::Known(Ty::Plain)
            }
            (E::Bin(o, x1, x2), E::Bin(p, y1, y2)) if o == p => {
                let (l, r) = (self.expr(x1, y1)?, self.expr(x2, y2)?);
                match o {
                    BinOp::Eq | BinOp::Ne => self.unify(l, r),
                    _ => {
                        self.plain(l);
                        self.plain(r);
                    }
                }
                Z::Known(Ty::Plain)
            }
            (E::Quant(q), E::Quant(r)) if q.forall == r.forall && q.var == r.var => {
                self.expr(&q.lo, &r.lo)?;
                self.expr(&q.hi, &r.hi)?;
                let z = self.expr(&q.body, &r.body)?;
                self.plain(z);
                Z::Known(Ty::Plain)
            }
            _ => return Err(()),
        })
    }

    fn place(&mut self, a: &Place, b: &Place) -> Result<Z, ()> {
        match (a, b) {
            (Place::Slot { slot: x, .. }, Place::Slot { slot: y, .. }) => self.slots(*x, *y),
            (Place::Elem { array: x, index: i }, Place::Elem { array: y, index: j }) => {
                let (x, y) = (
                    CExpr::Elem {
                        array: *x,
                        index: Box::new(i.clone()),
                    },
                    CExpr::Elem {
                        array: *y,
                        index: Box::new(j.clone()),
                    },
                );
                self.expr(&x, &y)
            }
            _ => Err(()),
        }
    }

    fn cmds(&mut self, a: &[Cmd], b: &[Cmd]) -> Result<(), ()> {
        if a.len() != b.len() {
            return Err(());
        }
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Cmd::Assign(p), Cmd::Assign(q)) if p.len() == q.len() => {
                    for ((pl, e), (ql, f)) in p.iter().zip(q) {
                        let (l, r) = (self.place(pl, ql)?, self.expr(e, f)?);
                        self.unify(l, r);
                    }
                }
                (Cmd::Assert(e), Cmd::Assert(f)) => {
                    let z = self.expr(e, f)?;
                    self.plain(z);
                }
                (Cmd::If(e, x1, x2), Cmd::If(f, y1, y2)) => {
                    let z = self.expr(e, f)?;
                    self.plain(z);
                    self.cmds(x1, y1)?;
                    self.cmds(x2, y2)?;
                }
                _ => return Err(()),
            }
        }
        Ok(())
    }

    fn transition(&mut self, a: &Transition, b: &Transition) -> Result<(), ()> {
        match (&a.guard, &b.guard) {
            (Some(g), Some(h)) => {
                let z = self.expr(g, h)?;
                self.plain(z);
            }
            (None, None) => {}
            _ => return Err(()),
        }
        self.cmds(&a.body, &b.body)?;
        match (&a.next, &b.next) {
            (Next::To(p), Next::To(q)) if p == q => {}
            (Next::Branch(e, p1, p2), Next::Branch(f, q1, q2)) if (p1, p2) == (q1, q2) => {
                let z = self.expr(e, f)?;
                self.plain(z);
            }
            _ => return Err(()),
        }
        match a.stack == b.stack && a.timeout == b.timeout {
            true => Ok(()),
            false => Err(()),
        }
    }
}
