//! What each slot, array index and quantified variable holds, as the
//! verification of a symmetry typed them, for the translations that keep
//! the symmetry (Murphi's scalarsets): a constant is a copy's identity
//! exactly where verification renamed it.

use super::infer::Shape;
use super::{Symmetry, Ty};
use crate::model::{Model, Quantified};

/// The types of a model's slots under its symmetry.
pub(crate) struct Typing<'m> {
    model: &'m Model,
    shape: Shape,
}

impl<'m> Typing<'m> {
    /// The typing `sym` was verified with (inference is deterministic).
    pub(crate) fn new(model: &'m Model, sym: &Symmetry) -> Option<Typing<'m>> {
        let shape = Shape::of(model, sym.first, sym.n, sym.channels).ok()?;
        Some(Typing { model, shape })
    }

    /// What slot `s` holds.
    pub(crate) fn slot(&self, s: u32) -> Ty {
        self.shape.value[s as usize]
    }

    /// What indexes the array whose element 0 is `base`.
    pub(crate) fn index(&self, base: u32) -> Ty {
        match self.shape.index.get(base as usize).copied().flatten() {
            Some((t, _)) => t,
            None => Ty::Plain,
        }
    }

    /// `q`'s bounds where they are constant (as verification reads them).
    pub(crate) fn bounds(&self, q: &Quantified) -> Option<(i64, i64)> {
        Some((
            super::verify::constant(&q.lo)?,
            super::verify::constant(&q.hi)?,
        ))
    }

    /// What `q`'s variable holds, the variables in scope typed by
    /// `bound`; `None` where its body does not type.
    pub(crate) fn quant(&self, q: &Quantified, bound: &[Option<Ty>]) -> Option<Ty> {
        super::verify::quant_ty(self.model, &self.shape, q, bound)
    }
}
