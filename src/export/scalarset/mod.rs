//! The Murphi export that keeps the symmetry (`export --symmetry`): the
//! copies of a fully symmetric group (see [`crate::symmetry`]) become one
//! Murphi `scalarset`, so that Rumur's symmetry reduction stores one state
//! per orbit, as `check --symmetry on` does.
//!
//! # The layout
//!
//! - `type T : scalarset(n)`, named after the copies' body;
//! - a copy's program counter and locals (its block of slots, aligned
//!   across copies) are one `array [T] of ...` each; a shared array
//!   indexed by copies (`flag[self]`) is an `array [T] of ...` for the
//!   copies' elements, and one variable for each other element;
//! - a slot that holds identities (`o + i` for copy i: a lock's owner,
//!   `turn`) is a pair: a scalarset part, undefined where the value is no
//!   copy, and a plain part that holds the value where it is no copy and
//!   `o` where it is one. States stay in bijection with optimist's, and a
//!   permutation of the copies acts on both as [`Symmetry::apply`] says;
//! - copy 0's transitions are written once, in `ruleset t : T`: its own
//!   identity is `t`, its slots `v[t]`. Where a rule names another copy (n
//!   = 2: `1 - self` is the other one), the ruleset binds one more variable
//!   per copy named, all distinct; a rule or check of another thread, which
//!   names no copy in particular, is the same for every binding;
//! - a quantifier over identities is a Murphi `forall`/`exists` over `T`
//!   for the copies, unrolled for the other values.
//!
//! Every other construct is translated as [`super::ir`] does, over the
//! integers that the pairs stand for: an index or range check reads the
//! plain part, which is in range exactly where every copy is. What cannot
//! be written over the pairs (arithmetic or an order on identities, a copy
//! named by number) is refused.
//!
//! [`Symmetry::apply`]: crate::symmetry::Symmetry::apply

mod checks;
mod layout;
mod lower;
mod render;
pub(super) mod start;

use super::ir::{Temp, X};
use super::{Refusal, RefusalKind};
use crate::model::Model;
use crate::symmetry::{Kind, Symmetry, Typing};

/// How one target variable uses the scalarset.
#[derive(Clone, Debug, Default)]
pub struct SymVar {
    /// Indexed by the copies (`array [T] of ...`): element `o + i` is copy
    /// i's.
    pub by_copy: Option<i64>,
    /// A copy's own (its program counter or a local), not a shared array.
    pub owned: bool,
    /// Holds identities, `o + i` for copy i: the variable is the scalarset
    /// part and `val` the plain part.
    pub ids: Option<i64>,
    /// The plain part's name, where it holds identities.
    pub val: String,
    /// The elements of an array indexed by copies that belong to no copy,
    /// each a variable of its own: its index, its name and its plain
    /// part's name.
    pub rest: Vec<(i64, String, String)>,
}

/// The scalarset of a symmetric translation, in its [`super::ir::Program`].
#[derive(Clone, Debug)]
pub struct SymInfo {
    /// How many copies.
    pub n: usize,
    /// The scalarset type's name.
    pub type_name: String,
    /// The copies, as `teller0..teller1`.
    pub threads: String,
    /// Per target variable.
    pub vars: Vec<SymVar>,
    /// The names of the copy variables: variable i < n stands for copy i
    /// (the ruleset's `t` for copy 0), the others are bound by quantifiers.
    pub copies: Vec<String>,
    /// The plain parts of the temporaries that hold identities.
    pub temp_vals: Vec<String>,
    /// The start state's flag that the copies it names are bound.
    pub chosen: String,
}

/// How many quantifiers over copies may be nested.
const QUANTS: usize = 8;

/// The symmetric group and its layout, while the translation is built.
pub(crate) struct Ctx<'m> {
    pub sym: Symmetry,
    pub typing: Typing<'m>,
    /// Per slot: the copy and position of a slot of a copy's block.
    pub block: Vec<Option<(usize, usize)>>,
    /// Per slot: the copy whose element of an indexed array it is, and the
    /// array's `o`.
    pub elem: Vec<Option<(usize, i64)>>,
    /// Per target variable (once declared).
    pub vars: Vec<SymVar>,
    /// Copy variables: n for the copies, [`QUANTS`] for quantifiers, n for
    /// the deadlock check.
    pub copies: Vec<String>,
    pub type_name: String,
}

/// A refusal of the symmetric export.
pub(super) fn refuse(message: String) -> Refusal {
    Refusal {
        kind: RefusalKind::Symmetry,
        message,
        span: None,
    }
}

/// The group of `model` that `export --symmetry` writes as a scalarset, or
/// why there is none.
pub(super) fn full_symmetry(model: &Model) -> Result<Symmetry, Refusal> {
    let analysis = crate::symmetry::detect(model);
    let Some(sym) = analysis.symmetry else {
        let why: Vec<String> = (analysis.broken.iter())
            .map(|b| format!("{}: {}", b.threads, b.why))
            .collect();
        return Err(refuse(match why.is_empty() {
            true => "no symmetry: no thread body is run by two threads or more".into(),
            false => format!("no symmetry ({})", why.join("; ")),
        }));
    };
    if sym.kind != Kind::Full {
        return Err(refuse(format!(
            "rotations only ({}): Murphi's scalarsets permute every way, and these copies are symmetric under rotations alone",
            sym.threads
        )));
    }
    Ok(sym)
}

impl<'m> Ctx<'m> {
    pub fn new(model: &'m Model, sym: &Symmetry) -> Result<Ctx<'m>, Refusal> {
        if sym.channels {
            return Err(refuse(
                "the copies own channels (`c[index]`), whose buffers the scalarset export does not lay out per copy yet".into(),
            ));
        }
        let typing = Typing::new(model, sym)
            .ok_or_else(|| refuse("the symmetry's types cannot be read again".into()))?;
        let mut block = vec![None; model.slots.len()];
        for (i, b) in sym.blocks.iter().enumerate() {
            for (k, &s) in b.iter().enumerate() {
                block[s as usize].get_or_insert((i, k));
            }
        }
        let mut elem = vec![None; model.slots.len()];
        for &(base, _, o) in &sym.arrays {
            for i in 0..sym.n {
                elem[(i64::from(base) + o + i as i64) as usize] = Some((i, o));
            }
        }
        Ok(Ctx {
            sym: sym.clone(),
            typing,
            block,
            elem,
            vars: Vec::new(),
            copies: Vec::new(),
            type_name: String::new(),
        })
    }

    /// How many copies.
    pub fn n(&self) -> usize {
        self.sym.n
    }

    /// Copy `i`'s identity `o + i` where `slot` is its own or its element
    /// of an indexed array, as the index of the slot's variable.
    pub fn copy_of(&self, slot: u32) -> Option<(usize, i64)> {
        match self.block[slot as usize] {
            Some((i, _)) => Some((i, self.sym.first as i64)),
            None => self.elem[slot as usize],
        }
    }

    /// The copy variable of quantified variable `k`.
    pub fn quant_var(&self, k: usize) -> Result<usize, Refusal> {
        match k < QUANTS {
            true => Ok(self.n() + k),
            false => Err(refuse(format!(
                "quantifiers over the copies nested more than {QUANTS} deep"
            ))),
        }
    }

    /// The copy variable the deadlock check binds for copy `i`.
    pub fn spare_var(&self, i: usize) -> usize {
        self.n() + QUANTS + i
    }
}

/// The offset `o` of the identities `x` holds, where it holds them in
/// pairs or is a copy; `None` for a plain value (a constant among them).
pub fn ids_of(x: &X, vars: &[SymVar], temps: &[Temp]) -> Option<i64> {
    match x {
        X::Copy(_, o) => Some(*o),
        X::Var(v, _) | X::Elem(v, _, _) => vars.get(*v).and_then(|s| s.ids),
        X::Temp(t) => temps[*t].ids,
        X::Ite(_, a, b) => ids_of(a, vars, temps).or_else(|| ids_of(b, vars, temps)),
        X::Seq(_, v) => ids_of(v, vars, temps),
        _ => None,
    }
}

/// The copy variables below `n` (those that stand for copies) that `x`
/// reads.
pub fn bound_in(x: &X, n: usize, out: &mut std::collections::BTreeSet<usize>) {
    match x {
        X::Copy(c, _) if *c < n => {
            out.insert(*c);
        }
        X::Int(_) | X::Var(..) | X::Temp(_) | X::Copy(..) => {}
        X::Elem(_, i, _) | X::Not(i) | X::Neg(i) | X::Quant(_, _, i) => bound_in(i, n, out),
        X::Bin(_, a, b) => {
            bound_in(a, n, out);
            bound_in(b, n, out);
        }
        X::Ite(c, a, b) => {
            bound_in(c, n, out);
            bound_in(a, n, out);
            bound_in(b, n, out);
        }
        X::Seq(pre, v) => {
            pre.iter().for_each(|p| bound_in(p, n, out));
            bound_in(v, n, out);
        }
    }
}

/// `x` with every copy variable `c` renamed `f(c)` (none is bound twice,
/// so no capture).
pub fn rename(x: &X, f: &dyn Fn(usize) -> usize) -> X {
    let r = |y: &X| Box::new(rename(y, f));
    match x {
        X::Copy(c, o) => X::Copy(f(*c), *o),
        X::Int(_) | X::Var(..) | X::Temp(_) => x.clone(),
        X::Elem(v, i, a) => X::Elem(*v, r(i), *a),
        X::Not(a) => X::Not(r(a)),
        X::Neg(a) => X::Neg(r(a)),
        X::Quant(q, c, b) => X::Quant(*q, f(*c), r(b)),
        X::Bin(op, a, b) => X::Bin(*op, r(a), r(b)),
        X::Ite(c, a, b) => X::Ite(r(c), r(a), r(b)),
        X::Seq(pre, v) => X::Seq(pre.iter().map(|p| rename(p, f)).collect(), r(v)),
    }
}
