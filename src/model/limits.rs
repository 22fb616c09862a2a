//! Every bound on what a model may make the compiler build.
//!
//! A short model can ask for a lot: `threads 1024` copies every statement,
//! a protected array gets a predicate for every thread and element, an
//! array declaration is one slot per element. Each of these is bounded
//! where it is decided, before the work, so that compiling ends in bounded
//! time and memory with an error at the place that asks for too much.
//! (`repeat` and quantifiers have their own bounds, [`super::unroll`] and
//! [`super::quant`].)

use std::cell::Cell;

use super::compile::CompileError;
use super::expr::{CExpr, Cmd, Place};
use super::{Next, Transition};
use crate::syntax::span::Span;

/// Largest array, and largest `repeat` count.
pub const MAX_ARRAY: i64 = 1 << 16;
/// Most threads.
pub const MAX_THREADS: i64 = 1 << 10;
/// Most transitions one statement's `any`s may make.
pub const MAX_CHOICES: usize = 1 << 12;
/// Most slots in a state: program counters, variables, array elements
/// (the locals of every thread included).
pub const MAX_SLOTS: usize = 1 << 20;
/// Most transitions, exclusive access predicates and expression nodes in
/// the compiled model, counted together (about 50 bytes each).
pub const MAX_COMPILED: u64 = 1 << 23;

/// The size compiled so far, towards [`MAX_COMPILED`].
#[derive(Default)]
pub(super) struct Budget {
    used: Cell<u64>,
}

impl Budget {
    /// Counts `n` more units for what is compiled at `span` (`what`, for
    /// the message), failing past the bound.
    pub(super) fn charge(&self, n: u64, span: Span, what: &str) -> Result<(), CompileError> {
        let used = self.used.get().saturating_add(n);
        if used > MAX_COMPILED {
            return Err(CompileError::at(
                span,
                format!("the compiled model grows past {MAX_COMPILED} transitions, predicates and expression nodes at {what}"),
            )
            .help("`threads N` copies every statement for each thread, and a protected array has a predicate for every thread and element; make the model smaller"));
        }
        self.used.set(used);
        Ok(())
    }
}

/// The size of a transition: one, plus its expression nodes.
pub(super) fn transition_size(tr: &Transition) -> u64 {
    let next = match &tr.next {
        Next::Branch(c, ..) => nodes(c),
        Next::To(_) => 0,
    };
    1 + tr.guard.as_ref().map_or(0, nodes) + cmds(&tr.body) + next
}

fn cmds(cs: &[Cmd]) -> u64 {
    cs.iter()
        .map(|c| match c {
            Cmd::Assign(parts) => parts
                .iter()
                .map(|(place, e)| {
                    let index = match place {
                        Place::Elem { index, .. } => nodes(index),
                        Place::Slot { .. } => 0,
                    };
                    1 + index + nodes(e)
                })
                .sum(),
            Cmd::Assert(e) => nodes(e),
            Cmd::If(c, a, b) => nodes(c) + cmds(a) + cmds(b),
        })
        .sum()
}

/// Nodes of an expression (an `at` counts its table of points).
pub(super) fn nodes(e: &CExpr) -> u64 {
    match e {
        CExpr::Const(_) | CExpr::Var { .. } | CExpr::Bound(_) => 1,
        CExpr::Elem { index: a, .. } | CExpr::Not(a) | CExpr::Neg(a) => 1 + nodes(a),
        CExpr::At { thread, pcs } => 1 + nodes(thread) + pcs.len() as u64,
        CExpr::LocalOf { thread, slots } => 1 + nodes(thread) + slots.len() as u64,
        CExpr::Bin(_, a, b) => 1 + nodes(a) + nodes(b),
        CExpr::Quant(q) => 1 + q.parts().into_iter().map(nodes).sum::<u64>(),
    }
}
