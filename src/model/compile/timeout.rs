//! `timeout`, SPIN's guard: true exactly in a state where no transition of
//! any thread can move. A model that waits for it gets one hidden shared
//! slot, 0 in every state the search stores: the guards that read it are
//! false there, so a state's transitions are first those enabled with
//! `timeout` false. Where none is, the searches fire the transitions that
//! read it from a copy of the state with the slot at 1 (see
//! [`crate::model::Model::timed_out`]), and each such transition puts the
//! slot back to 0 as the last part of its command, so its successor is an
//! ordinary state and every reader of a transition's writes sees that it
//! writes the slot.

use super::*;
use crate::model::Place;

/// The name of the hidden slot, which no variable can have (`timeout` is
/// a keyword).
const NAME: &str = "timeout";

/// The first `timeout` that an `await` of a thread or a procedure reads,
/// if any: where the model needs the slot. A `timeout` anywhere else is
/// the compiler's error at that place.
pub(super) fn first_use(m: &ast::Model) -> Option<Span> {
    let bodies = m
        .threads()
        .map(|t| &t.body)
        .chain(m.procs().map(|p| &p.body));
    bodies.into_iter().find_map(|b| in_block(&b.stmts))
}

/// The first `timeout` an `await` among `stmts` reads.
fn in_block(stmts: &[ast::Stmt]) -> Option<Span> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Await(e) => in_expr(e),
        StmtKind::Atomic(b)
        | StmtKind::While(_, b)
        | StmtKind::Repeat(_, b)
        | StmtKind::Init(_, b) => in_block(b),
        StmtKind::If(_, a, b) => in_block(a).or_else(|| in_block(b.as_deref().unwrap_or(&[]))),
        StmtKind::Either(bs) => bs.iter().find_map(|b| in_block(b)),
        _ => None,
    })
}

/// The first `timeout` in `e`.
fn in_expr(e: &ast::Expr) -> Option<Span> {
    match &e.kind {
        ExprKind::Timeout => Some(e.span),
        ExprKind::Index(_, a)
        | ExprKind::Unary(_, a)
        | ExprKind::At(a, _)
        | ExprKind::InitPhase(Some(a), _)
        | ExprKind::Local(a, _) => in_expr(a),
        ExprKind::Binary(_, a, b) | ExprKind::Any(a, b) => in_expr(a).or_else(|| in_expr(b)),
        ExprKind::Quant(_, _, lo, hi, body) => [lo, hi, body].into_iter().find_map(|x| in_expr(x)),
        ExprKind::Chan(_, lv) => lv.index.as_deref().and_then(in_expr),
        ExprKind::Poll(lv, args) => lv.index.as_deref().and_then(in_expr).or_else(|| {
            args.iter().find_map(|a| match a {
                ast::RecvArg::Match(x) => in_expr(x),
                ast::RecvArg::Var(v) => v.index.as_deref().and_then(in_expr),
                ast::RecvArg::Skip(_) => None,
            })
        }),
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::SelfId
        | ExprKind::Free
        | ExprKind::Name(_)
        | ExprKind::InitPhase(None, _) => None,
    }
}

impl Compiler {
    /// Declares the hidden slot of a model whose first `timeout` is at
    /// `span`: a shared bool, 0 in the initial state.
    pub(super) fn declare_timeout(&mut self, span: Span) {
        self.timeout = Some(self.slots.len() as u32);
        self.slots.push(Slot {
            name: NAME.to_string(),
            kind: SlotKind::Bool,
            class: SlotClass::Shared,
            span,
        });
        self.bounds.push((0, 1));
        self.init.push(0);
    }

    /// `timeout` read in scope `sc`: the hidden slot, where an `await`
    /// guard reads it.
    pub(super) fn timeout_read(&self, span: Span, sc: &Scope) -> Result<CExpr> {
        match (sc.timeout, self.timeout) {
            // Not observed: the slot is no variable of the model.
            (true, Some(slot)) => Ok(CExpr::Var {
                slot,
                shared: false,
            }),
            _ => Err(CompileError::at(
                span,
                "`timeout` can only be read by an `await` guard",
            )
            .help("`timeout` holds where no transition of any thread can move: wait for it with `await timeout;` or `atomic { await timeout; ... }`")),
        }
    }
}

/// Marks the transitions whose guard reads the hidden `slot`, and makes
/// each put it back to 0 last: fired where `timeout` holds, its successor
/// is a state like any other.
pub(super) fn mark(transitions: &mut [Transition], slot: u32) {
    for tr in transitions {
        let mut reads = false;
        if let Some(g) = &tr.guard {
            g.for_each_slot(&mut |k| reads |= k == slot);
        }
        if reads {
            tr.timeout = true;
            let place = Place::Slot {
                slot,
                shared: false,
            };
            tr.body.push(Cmd::Assign(vec![(place, CExpr::Const(0))]));
        }
    }
}
