//! Process pools. A `run` at a place reached once makes one thread of its
//! own (see the module above); a proctype run from inside a loop, or one
//! that runs itself (through others or not), or one run by a pooled
//! process, has a pool instead: `pool_size` threads (the `--max-stack`
//! bound), dormant at the start. Its `run`s create the first one that is
//! not running, as SPIN creates a process in the first free slot; one
//! that ends goes back to dormant, its variables reset, so that the next
//! `run` can create it again. A `run` when every thread of the pool is
//! running is past the bound: it ends the search inconclusive (exit 3),
//! as a call past the stack bound does, never a silent block.

use std::collections::HashSet;

use super::{Lower, bin, ex, id, int, st, walk_runs};
use crate::promela::parse::{Ek, Expr, Result};
use crate::syntax::ast::{self, BinOp, ExprKind, StmtKind};
use crate::syntax::span::Span;

impl Lower<'_> {
    /// The proctypes that get a pool: run in a loop, run by themselves
    /// (directly or through others), or run by a pooled proctype.
    pub(super) fn pooled_procs(&self) -> Result<HashSet<usize>> {
        // (runner: None for init, proctype run, inside a loop)
        let mut edges: Vec<(Option<usize>, usize, bool)> = Vec::new();
        let bodies = self
            .procs
            .iter()
            .enumerate()
            .map(|(k, p)| (Some(k), &p.body));
        let init = self.init.as_ref().map(|i| (None, &i.body));
        for (from, body) in bodies.chain(init) {
            walk_runs(body, false, &mut |e, in_loop| {
                if let Ek::Run(name, _) = &e.kind {
                    if let Some(to) = self.procs.iter().position(|p| &p.name == name) {
                        edges.push((from, to, in_loop));
                    }
                }
                Ok(())
            })?;
        }
        let mut pooled: HashSet<usize> = edges.iter().filter(|e| e.2).map(|e| e.1).collect();
        for p in 0..self.procs.len() {
            if reaches(&edges, p, p) {
                pooled.insert(p);
            }
        }
        loop {
            let more: Vec<usize> = edges
                .iter()
                .filter(|(from, to, _)| {
                    from.is_some_and(|f| pooled.contains(&f)) && !pooled.contains(to)
                })
                .map(|e| e.1)
                .collect();
            if more.is_empty() {
                return Ok(pooled);
            }
            pooled.extend(more);
        }
    }

    /// A `run` on the pool `members`: one option per member, taken when
    /// it is the first one not running, and the bound when none is free.
    pub(super) fn pool_run(
        &mut self,
        members: &[usize],
        args: &[Expr],
        span: Span,
        target: Option<ast::LValue>,
    ) -> Result<StmtKind> {
        let running = |l: &Lower, j: usize, v: i64| {
            let flag = format!("{}_created", l.instances[j].name);
            bin(
                BinOp::Eq,
                ex(ExprKind::Name(id(&flag, span)), span),
                int(v, span),
            )
        };
        let mut options = Vec::new();
        let mut before: Option<ast::Expr> = None;
        for &j in members {
            let free = running(self, j, 0);
            let guard = match &before {
                Some(b) => bin(BinOp::And, b.clone(), free),
                None => free,
            };
            let mut parts = vec![st(StmtKind::Await(guard), span)];
            parts.extend(self.run_parts(j, args, span, target.clone())?);
            options.push(vec![st(StmtKind::Atomic(parts), span)]);
            let busy = running(self, j, 1);
            before = Some(match before {
                Some(b) => bin(BinOp::And, b, busy),
                None => busy,
            });
        }
        let full = before.expect("a pool has members");
        options.push(vec![st(StmtKind::Bound(full), span)]);
        Ok(StmtKind::Either(options))
    }

    /// For a pooled instance: its first statement labelled, and the jump
    /// back to it after its removal step, which also clears its flag.
    pub(super) fn restart(&mut self, k: usize, stmts: &mut Vec<ast::Stmt>, end: Span) {
        if !self.instances[k].pool || stmts.len() < 2 {
            return;
        }
        let name = self.instances[k].name.clone();
        let start = match &stmts[0].label {
            Some(l) => l.name.clone(),
            None => {
                let l = self.fresh("__start");
                stmts[0].label = Some(id(&l, end));
                l
            }
        };
        if let Some(StmtKind::Atomic(parts)) = stmts.last_mut().map(|s| &mut s.kind) {
            let flag = ast::LValue {
                name: id(&format!("{name}_created"), end),
                index: None,
                span: end,
            };
            parts.push(st(StmtKind::Assign(vec![flag], vec![int(0, end)]), end));
        }
        stmts.push(st(StmtKind::Jump(id(&start, end)), end));
    }
}

/// Whether proctype `to` is run, through any chain of `run`s, by `from`.
fn reaches(edges: &[(Option<usize>, usize, bool)], from: usize, to: usize) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![from];
    while let Some(p) = stack.pop() {
        for e in edges.iter().filter(|e| e.0 == Some(p)) {
            if e.1 == to {
                return true;
            }
            if seen.insert(e.1) {
                stack.push(e.1);
            }
        }
    }
    false
}
