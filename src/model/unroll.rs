//! `repeat n { body }`: n copies of its body.
//!
//! Copies multiply: `repeat 65536 { repeat 65536 { ... } }` is 2^32
//! statements. So the size of every expansion is computed first, from the
//! counts alone and with saturating arithmetic, and an expansion past
//! [`MAX_STATEMENTS`] is an error at the `repeat` that makes it, before
//! anything is copied.

use super::compile::CompileError;
use crate::syntax::ast::{self, StmtKind};

type Result<T> = std::result::Result<T, CompileError>;

/// Most statements a thread body, and all thread bodies together, may have
/// once `repeat` is unrolled (every statement counts: those inside
/// `atomic`, and compound statements as well as their parts).
pub const MAX_STATEMENTS: u64 = 1_000_000;

/// Evaluates a `repeat` count (a constant expression, checked for range).
pub(super) type Count<'c> = &'c dyn Fn(&ast::Expr) -> Result<u64>;

/// The number of statements in `stmts` once unrolled, without unrolling.
/// A `repeat` that alone unrolls past [`MAX_STATEMENTS`] is an error at its
/// count.
pub(super) fn size(stmts: &[ast::Stmt], count: Count) -> Result<u64> {
    let mut total = 0u64;
    for s in stmts {
        let n = match &s.kind {
            StmtKind::Repeat(n, body) => {
                let k = count(n)?;
                let unrolled = k.saturating_mul(size(body, count)?);
                if unrolled > MAX_STATEMENTS {
                    return Err(CompileError::at(
                        n.span,
                        format!(
                            "this `repeat` unrolls to {unrolled} statements; at most {MAX_STATEMENTS} are allowed"
                        ),
                    )
                    .help("`repeat` copies its body; a `while` loop with a counter repeats without copies"));
                }
                unrolled
            }
            // A marker around statements, not a statement of its own.
            StmtKind::Init(_, body) => size(body, count)?,
            StmtKind::If(_, a, b) => 1u64
                .saturating_add(size(a, count)?)
                .saturating_add(size(b.as_deref().unwrap_or(&[]), count)?),
            StmtKind::While(_, b) | StmtKind::Atomic(b) => 1u64.saturating_add(size(b, count)?),
            StmtKind::Either(bs) => {
                let mut n = 1u64;
                for b in bs {
                    n = n.saturating_add(size(b, count)?);
                }
                n
            }
            _ => 1,
        };
        total = total.saturating_add(n);
    }
    Ok(total)
}

/// Whether `stmts` has anything [`unroll`] changes: a `repeat`, or an
/// `init` block (whose label moves to its first statement).
pub(super) fn needed(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Repeat(..) | StmtKind::Init(..) => true,
        StmtKind::If(_, a, b) => needed(a) || b.as_deref().is_some_and(needed),
        StmtKind::While(_, b) | StmtKind::Atomic(b) => needed(b),
        StmtKind::Either(bs) => bs.iter().any(|b| needed(b)),
        _ => false,
    })
}

/// Expands every `repeat` in `stmts` (whose [`size`] is known to be small).
pub(super) fn unroll(stmts: &[ast::Stmt], count: Count) -> Result<Vec<ast::Stmt>> {
    let mut out = Vec::new();
    for s in stmts {
        let kind = match &s.kind {
            StmtKind::Repeat(n, body) => {
                let k = count(n)?;
                let inner = unroll(body, count)?;
                let first = out.len();
                for _ in 0..k {
                    out.extend(inner.iter().cloned());
                }
                if let Some(l) = &s.label {
                    match out.get_mut(first) {
                        Some(f) if f.label.is_none() => f.label = Some(l.clone()),
                        Some(_) => {
                            return Err(CompileError::at(
                                l.span,
                                "a labelled `repeat` cannot start with a labelled statement",
                            ));
                        }
                        None => {
                            return Err(CompileError::at(
                                l.span,
                                "a labelled `repeat` must repeat at least one statement",
                            ));
                        }
                    }
                }
                continue;
            }
            StmtKind::If(c, a, b) => StmtKind::If(
                c.clone(),
                unroll(a, count)?,
                b.as_deref().map(|b| unroll(b, count)).transpose()?,
            ),
            StmtKind::While(c, b) => StmtKind::While(c.clone(), unroll(b, count)?),
            StmtKind::Atomic(b) => StmtKind::Atomic(unroll(b, count)?),
            StmtKind::Init(vars, b) => {
                let mut body = unroll(b, count)?;
                let Some(first) = body.first_mut() else {
                    return Err(CompileError::at(
                        s.span,
                        "an `init` block needs at least one statement",
                    ));
                };
                // The block is not a control point; its label names its first statement.
                if let Some(l) = &s.label {
                    if first.label.is_some() {
                        return Err(CompileError::at(
                            l.span,
                            "a labelled `init` block cannot start with a labelled statement",
                        ));
                    }
                    first.label = Some(l.clone());
                }
                out.push(ast::Stmt {
                    label: None,
                    kind: StmtKind::Init(vars.clone(), body),
                    span: s.span,
                });
                continue;
            }
            StmtKind::Either(bs) => {
                let bs = bs
                    .iter()
                    .map(|b| unroll(b, count))
                    .collect::<Result<Vec<_>>>()?;
                if bs.iter().any(Vec::is_empty) {
                    return Err(CompileError::at(
                        s.span,
                        "an `either` branch is empty after unrolling `repeat`",
                    ));
                }
                StmtKind::Either(bs)
            }
            other => other.clone(),
        };
        out.push(ast::Stmt {
            kind,
            label: s.label.clone(),
            span: s.span,
        });
    }
    Ok(out)
}
