//! Lowering of thread bodies and of the copies of procedures: every
//! statement is one control point, and its transitions follow the reference (`docs/src/language.md`)
//! (see the parent module); calls and returns are described in
//! [`super::procs`].

use std::collections::HashMap;

use indexmap::IndexMap;

use super::procs::{Ctx, ProcEntry, Sites};
use super::*;
use crate::model::{ChanOp, StackOp};

/// Lowers one body (a thread's, or a copy of a procedure) into
/// transitions, grouped by control point of the thread.
pub(super) struct Lower<'c, 'x> {
    pub(super) c: &'c Compiler,
    pub(super) thread: usize,
    pub(super) locals: &'c IndexMap<String, Var>,
    /// The body's statements -> their points, from 0.
    pub(super) pcs: &'c HashMap<usize, i64>,
    /// The body's labels -> their points, from 0.
    pub(super) labels: &'c HashMap<String, i64>,
    /// The thread's point of the body's point 0.
    pub(super) base: i64,
    /// The copy of a procedure being lowered (index into `Thread::frames`),
    /// or `None` for the thread's body.
    pub(super) frame: Option<usize>,
    pub(super) ctx: &'c Ctx<'c>,
    pub(super) by_point: &'x mut Vec<Vec<Transition>>,
    /// The call sites of the thread's copies.
    pub(super) sites: &'x mut Sites,
    /// The points of `Jump`s -> where they go, filled while lowering.
    pub(super) jumps: HashMap<i64, i64>,
}

/// The guard and command of a simple statement or `atomic` block.
pub(super) struct Action {
    pub(super) guard: Option<CExpr>,
    pub(super) body: Vec<Cmd>,
    /// What it does to a channel.
    pub(super) chan: Option<ChanOp>,
}

impl Lower<'_, '_> {
    /// Lowers a thread's body, whose end is point `end`.
    pub(super) fn run(
        mut self,
        body: &[ast::Stmt],
        end: i64,
        provided: Option<&ast::Expr>,
    ) -> Result<()> {
        self.block(body, end)?;
        self.thread_jumps();
        if let Some(p) = provided {
            let cond = self
                .c
                .cond(p, &mut self.scope(), "a `provided` condition")?;
            for t in self.by_point.iter_mut().flatten() {
                t.guard = Some(match t.guard.take() {
                    Some(g) => CExpr::Bin(BinOp::And, Box::new(cond.clone()), Box::new(g)),
                    None => cond.clone(),
                });
            }
        }
        Ok(())
    }

    /// Sends every transition that enters a `Jump` on to where it jumps
    /// (following chains of jumps; a cycle of jumps is left as it is).
    fn thread_jumps(&mut self) {
        if self.jumps.is_empty() {
            return;
        }
        let jumps = std::mem::take(&mut self.jumps);
        let resolve = |mut q: i64| {
            for _ in 0..=jumps.len() {
                match jumps.get(&q) {
                    Some(&r) => q = r,
                    None => return q,
                }
            }
            q
        };
        let mut halves = self.c.halves.borrow_mut();
        for ts in self.by_point.iter_mut() {
            for t in ts.iter_mut() {
                // The half's key, but for where it goes on to.
                let at = chans::half_key(t, 0);
                match &mut t.next {
                    Next::To(q) => {
                        let to = resolve(*q);
                        // A rendezvous half is known by where it goes on to.
                        if let Some((th, a, b, _, c)) = at.filter(|_| to != *q) {
                            if let Some(h) = halves.remove(&(th, a, b, *q, c)) {
                                halves.insert((th, a, b, to, c), h);
                            }
                        }
                        *q = to;
                    }
                    Next::Branch(_, a, b) => {
                        *a = resolve(*a);
                        *b = resolve(*b);
                    }
                }
            }
        }
    }

    /// Lowers a copy of procedure `p`, its end included: there an untyped
    /// procedure returns, and a typed one must never arrive.
    pub(super) fn run_proc(mut self, p: &ProcEntry) -> Result<()> {
        let end = self.base + p.numbered.count as i64;
        self.block(&p.decl.body.stmts, end)?;
        self.thread_jumps();
        if p.decl.ret.is_none() {
            return self.returns(p.decl.body.end, end, None, "return".to_string());
        }
        let frame = &self.ctx.frames[self.frame.expect("a procedure's copy")];
        let reaches_end = (frame.points.start..end).any(|pc| {
            self.by_point[pc as usize].iter().any(|t| match &t.next {
                Next::To(q) => *q == end,
                // `while true`: only the body follows the test.
                Next::Branch(CExpr::Const(v), yes, no) => *(if *v != 0 { yes } else { no }) == end,
                Next::Branch(_, yes, no) => *yes == end || *no == end,
            })
        });
        if reaches_end {
            return Err(CompileError::at(
                p.decl.body.end,
                format!(
                    "`{}` returns a value, but control can reach the end of its body",
                    p.decl.name.name
                ),
            )
            .help("end every path through the body with `return e;`"));
        }
        Ok(())
    }

    pub(super) fn scope(&self) -> Scope<'_> {
        // In the body of `thread NAME[n]`, and in the procedures it calls
        // (copied for every thread, like `self`), `index` is the copy number.
        let params = match self.c.copy_index[self.thread] {
            Some(k) => vec![("index".to_string(), k)],
            None => Vec::new(),
        };
        Scope {
            locals: Some(self.locals),
            self_id: Some(self.thread as i64),
            in_proc: self.frame.is_some(),
            params,
            ..Scope::default()
        }
    }

    fn pc(&self, s: &ast::Stmt) -> i64 {
        self.base + self.pcs[&key(s)]
    }

    fn first(&self, stmts: &[ast::Stmt], otherwise: i64) -> i64 {
        flat(stmts).first().map_or(otherwise, |s| self.pc(s))
    }

    fn block(&mut self, stmts: &[ast::Stmt], cont: i64) -> Result<()> {
        let stmts = flat(stmts);
        for (k, s) in stmts.iter().enumerate() {
            let next = stmts.get(k + 1).map_or(cont, |n| self.pc(n));
            self.stmt(s, next)?;
        }
        Ok(())
    }

    fn push(
        &mut self,
        s: &ast::Stmt,
        from: i64,
        guard: Option<CExpr>,
        body: Vec<Cmd>,
        next: Next,
        text: String,
    ) -> Result<()> {
        self.push_op(s.span, from, guard, body, next, text, StackOp::None)
    }

    #[allow(clippy::too_many_arguments)]
    fn push_op(
        &mut self,
        span: Span,
        from: i64,
        guard: Option<CExpr>,
        body: Vec<Cmd>,
        next: Next,
        text: String,
        stack: StackOp,
    ) -> Result<()> {
        let tr = Transition {
            thread: self.thread as u32,
            from,
            guard,
            body,
            next,
            span,
            line: self.c.lines.line(span.start),
            text,
            recheck_overlap: Vec::new(),
            recheck_invariants: Vec::new(),
            touches_excl: Vec::new(),
            stack,
            chan: None,
            timeout: false,
        };
        self.c
            .budget
            .charge(limits::transition_size(&tr), span, "this statement")?;
        let here = &mut self.by_point[from as usize];
        // Most points have one transition; a first push would reserve room
        // for four, and a transition is a few hundred bytes.
        if here.capacity() == 0 {
            here.reserve_exact(1);
        }
        here.push(tr);
        Ok(())
    }

    /// The one transition of a test or `goto` at `pc`: no guard, no
    /// command, only where it goes.
    fn jump(&mut self, s: &ast::Stmt, pc: i64, to: Next) -> Result<()> {
        self.push(s, pc, None, Vec::new(), to, pretty::stmt_head(s))
    }

    fn stmt(&mut self, s: &ast::Stmt, next: i64) -> Result<()> {
        let pc = self.pc(s);
        match &s.kind {
            StmtKind::If(c, then, els) => {
                let cond = self.c.cond(c, &mut self.scope(), "an `if` condition")?;
                let els = els.as_deref().unwrap_or(&[]);
                let (yes, no) = (self.first(then, next), self.first(els, next));
                self.jump(s, pc, Next::Branch(cond, yes, no))?;
                self.block(then, next)?;
                self.block(els, next)
            }
            StmtKind::While(c, body) => {
                let cond = self.c.cond(c, &mut self.scope(), "a `while` condition")?;
                let yes = self.first(body, pc);
                self.jump(s, pc, Next::Branch(cond, yes, next))?;
                self.block(body, pc)
            }
            StmtKind::Either(branches) => self.either(s, pc, branches, next),
            StmtKind::Call(target, f, args) => self.call(s, pc, next, target.as_ref(), f, args),
            StmtKind::Return(value) => self.ret(s, pc, value.as_ref()),
            StmtKind::Goto(l) => self.goto(s, pc, l),
            StmtKind::Bound(e) => {
                let cond = self.c.cond(e, &mut self.scope(), "a bound's condition")?;
                let text = pretty::stmt_head(s);
                let next = Next::To(next);
                self.push_op(
                    s.span,
                    pc,
                    Some(cond),
                    Vec::new(),
                    next,
                    text,
                    StackOp::Overflow,
                )
            }
            StmtKind::Jump(l) => {
                self.goto(s, pc, l)?;
                let to = self.by_point[pc as usize]
                    .last()
                    .map(|t| t.next.targets()[0]);
                self.jumps.insert(pc, to.expect("just pushed"));
                Ok(())
            }
            _ => self.simple(s, pc, next),
        }
    }

    /// `either`: its branches are lowered, and the point's transitions are
    /// copies of their first transitions (choosing a branch and taking its
    /// first step is one transition).
    fn either(
        &mut self,
        s: &ast::Stmt,
        pc: i64,
        branches: &[Vec<ast::Stmt>],
        next: i64,
    ) -> Result<()> {
        for b in branches {
            self.block(b, next)?;
        }
        // Choosing a branch and taking its first step is one transition.
        let mut copies = Vec::new();
        for b in branches {
            for t in &self.by_point[self.pc(flat(b)[0]) as usize] {
                self.c
                    .budget
                    .charge(limits::transition_size(t), s.span, "this `either`")?;
                copies.push(Transition {
                    from: pc,
                    ..t.clone()
                });
            }
        }
        self.by_point[pc as usize].extend(copies);
        Ok(())
    }

    /// `goto L`: one transition to the label, which must be in the same
    /// body or procedure.
    fn goto(&mut self, s: &ast::Stmt, pc: i64, l: &ast::Ident) -> Result<()> {
        let Some(&target) = self.labels.get(&l.name) else {
            let mut err = CompileError::at(l.span, format!("unknown label `{}`", l.name));
            if let Some(best) = closest(&l.name, self.labels.keys().map(String::as_str)) {
                err = err.help(format!("did you mean `{best}`?"));
            }
            if self.frame.is_some() {
                err = err.help("`goto` can only go to a label of the same procedure");
            }
            return Err(err);
        };
        let target = target + self.base;
        self.jump(s, pc, Next::To(target))?;
        Ok(())
    }

    /// A simple statement or `atomic`: one transition per combination of
    /// the values its `any`s choose.
    fn simple(&mut self, s: &ast::Stmt, pc: i64, next: i64) -> Result<()> {
        let ranges = self.any_ranges(s)?;
        // In i128: `any i64::MIN..i64::MAX` has 2^64 values.
        let combos = ranges.iter().fold(1u128, |n, &(lo, hi)| {
            n.saturating_mul((i128::from(hi) - i128::from(lo) + 1) as u128)
        });
        if combos > MAX_CHOICES as u128 {
            return Err(CompileError::at(
                s.span,
                format!("`any` makes {combos} transitions here; at most {MAX_CHOICES} are allowed"),
            ));
        }
        for n in 0..combos as usize {
            let mut choice = Vec::new();
            let mut rest = n;
            for &(lo, hi) in ranges.iter().rev() {
                let width = (hi - lo + 1) as usize;
                choice.push(lo + (rest % width) as i64);
                rest /= width;
            }
            choice.reverse();
            let mut text = pretty::stmt_head(s);
            if !choice.is_empty() {
                let vals: Vec<String> = choice.iter().map(i64::to_string).collect();
                text = format!("{text} (chose {})", vals.join(", "));
            }
            let mut choices = choice.into_iter();
            let a = self.action(s, next, &mut choices)?;
            self.push(s, pc, a.guard, a.body, Next::To(next), text)?;
            if let Some(op) = a.chan {
                let pushed = self.by_point[pc as usize].last_mut();
                pushed.expect("just pushed").chan = Some(Box::new(op));
            }
        }
        Ok(())
    }

    /// The `(lo, hi)` of every `any` in a simple statement or `atomic`, in order.
    fn any_ranges(&self, s: &ast::Stmt) -> Result<Vec<(i64, i64)>> {
        let mut out = Vec::new();
        let mut stack = vec![s];
        while let Some(s) = stack.pop() {
            match &s.kind {
                StmtKind::Assign(_, values) => {
                    for v in values {
                        if let ExprKind::Any(lo, hi) = &v.kind {
                            let l = self.c.const_int(lo, "a bound of `any`")?;
                            let h = self.c.const_int(hi, "a bound of `any`")?;
                            if l > h {
                                return Err(CompileError::at(
                                    v.span,
                                    format!("empty range {l}..{h}"),
                                ));
                            }
                            out.push((l, h));
                        }
                    }
                }
                StmtKind::Atomic(body) => stack.extend(body.iter().rev()),
                StmtKind::If(_, a, b) => {
                    stack.extend(b.iter().flatten().rev());
                    stack.extend(a.iter().rev());
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Guard and command of a simple statement or an `atomic` block.
    fn action(
        &self,
        s: &ast::Stmt,
        next: i64,
        choices: &mut impl Iterator<Item = i64>,
    ) -> Result<Action> {
        let c = self.c;
        let me = CExpr::Const(self.thread as i64);
        let plain = |guard, body| Action {
            guard,
            body,
            chan: None,
        };
        Ok(match &s.kind {
            StmtKind::Skip => plain(None, Vec::new()),
            StmtKind::Send(..) | StmtKind::Receive(..) => {
                let (mut a, op) = self.chan_action(s, Some(next))?;
                a.chan = Some(op);
                a
            }
            StmtKind::Await(e) => plain(Some(self.await_guard(e)?), Vec::new()),
            StmtKind::Assert(e) => plain(
                None,
                vec![Cmd::Assert(c.cond(e, &mut self.scope(), "an assertion")?)],
            ),
            StmtKind::Acquire(lv) | StmtKind::Release(lv) => {
                let acquire = matches!(s.kind, StmtKind::Acquire(_));
                let (read, place) = self.sync_target(
                    lv,
                    SlotKind::Lock,
                    if acquire { "acquire" } else { "release" },
                )?;
                let (want, set) = if acquire {
                    (CExpr::Const(FREE), me)
                } else {
                    (me, CExpr::Const(FREE))
                };
                plain(
                    Some(fold(CExpr::Bin(BinOp::Eq, Box::new(read), Box::new(want)))),
                    vec![Cmd::Assign(vec![(place, set)])],
                )
            }
            StmtKind::Down(lv) | StmtKind::Up(lv) => {
                let down = matches!(s.kind, StmtKind::Down(_));
                let (read, place) =
                    self.sync_target(lv, SlotKind::Sem, if down { "down" } else { "up" })?;
                let op = if down { BinOp::Sub } else { BinOp::Add };
                let value = CExpr::Bin(op, Box::new(read.clone()), Box::new(CExpr::Const(1)));
                plain(
                    down.then(|| {
                        fold(CExpr::Bin(
                            BinOp::Gt,
                            Box::new(read),
                            Box::new(CExpr::Const(0)),
                        ))
                    }),
                    vec![Cmd::Assign(vec![(place, value)])],
                )
            }
            StmtKind::Assign(targets, values) => {
                plain(None, vec![self.assign(s, targets, values, choices)?])
            }
            StmtKind::Atomic(parts) => self.atomic_action(s, parts, next, choices)?,
            StmtKind::If(..)
            | StmtKind::While(..)
            | StmtKind::Either(_)
            | StmtKind::Goto(_)
            | StmtKind::Jump(_)
            | StmtKind::Bound(_)
            | StmtKind::Call(..)
            | StmtKind::Return(_)
            | StmtKind::Repeat(..)
            | StmtKind::Init(..) => {
                unreachable!(
                    "compound statements are lowered by `stmt`, `repeat` is unrolled, `init` spliced"
                )
            }
        })
    }

    /// The guard of `await e`.
    fn await_guard(&self, e: &ast::Expr) -> Result<CExpr> {
        let mut sc = Scope {
            guard: Some("an `await` guard"),
            timeout: true,
            ..self.scope()
        };
        self.c.cond(e, &mut sc, "an `await` condition")
    }

    /// `atomic { ... }`: its guard is the leading `await` and the send or
    /// receive after it, together; the rest runs in sequence.
    fn atomic_action(
        &self,
        s: &ast::Stmt,
        parts: &[ast::Stmt],
        next: i64,
        choices: &mut impl Iterator<Item = i64>,
    ) -> Result<Action> {
        let guard = match parts.first().map(|p| &p.kind) {
            Some(StmtKind::Await(e)) => Some(self.await_guard(e)?),
            _ => None,
        };
        let mut head = Action {
            guard,
            body: Vec::new(),
            chan: None,
        };
        let mut skip = usize::from(head.guard.is_some());
        if let Some(
            p @ ast::Stmt {
                kind: StmtKind::Send(..) | StmtKind::Receive(..),
                ..
            },
        ) = parts.get(skip)
        {
            // `atomic { await e; c ! x }` with nothing after: a rendezvous
            // may be guarded (its half is known by the atomic's span;
            // `joint` adds the guard).
            let alone = parts.len() == skip + 1 && skip == 1;
            let (a, op) = if alone {
                let whole = ast::Stmt {
                    span: s.span,
                    ..p.clone()
                };
                self.chan_action(&whole, Some(next))?
            } else {
                self.chan_action(p, None)?
            };
            head.guard = match (head.guard, a.guard) {
                (Some(g), Some(h)) => Some(CExpr::Bin(BinOp::And, Box::new(g), Box::new(h))),
                (g, h) => g.or(h),
            };
            head.body = a.body;
            head.chan = Some(op);
            skip += 1;
        }
        head.body.extend(self.atomic_body(&parts[skip..], choices)?);
        Ok(head)
    }

    fn atomic_body(
        &self,
        parts: &[ast::Stmt],
        choices: &mut impl Iterator<Item = i64>,
    ) -> Result<Vec<Cmd>> {
        let mut out = Vec::new();
        for p in parts {
            match &p.kind {
                StmtKind::Assign(t, v) => out.push(self.assign(p, t, v, choices)?),
                StmtKind::Assert(e) => out.push(Cmd::Assert(self.c.cond(e, &mut self.scope(), "an assertion")?)),
                StmtKind::Skip => {}
                StmtKind::If(c, a, b) => {
                    let cond = self.c.cond(c, &mut self.scope(), "an `if` condition")?;
                    let a = self.atomic_body(a, choices)?;
                    let b = self.atomic_body(b.as_deref().unwrap_or(&[]), choices)?;
                    out.push(Cmd::If(cond, a, b));
                }
                StmtKind::Await(_) | StmtKind::Send(..) | StmtKind::Receive(..) => {
                    return Err(CompileError::at(p.span, "an `atomic` may wait only at its start: an `await`, then a send or receive")
                        .help("an `atomic` block is one transition `g -> c`: its guard is what its first statements wait for"))
                }
                _ => {
                    return Err(CompileError::at(p.span, "`atomic` may contain only assignments, `if`, `assert`, `skip` and one leading `await`")
                        .help("an `atomic` block is a single transition; move this statement out of it"))
                }
            }
        }
        Ok(out)
    }

    /// The lock or semaphore of `acquire`/`release`/`down`/`up`.
    fn sync_target(&self, lv: &ast::LValue, want: SlotKind, op: &str) -> Result<(CExpr, Place)> {
        let guard = match op {
            "acquire" => "the guard of `acquire`",
            "release" => "the guard of `release`",
            "down" => "the guard of `down`",
            _ => "the guard of `up`",
        };
        let (place, kind) = self.place(lv, Some(guard))?;
        if kind != want {
            let what = if want == SlotKind::Lock {
                "a lock"
            } else {
                "a semaphore"
            };
            return Err(CompileError::at(
                lv.span,
                format!("`{op}` needs {what}, and `{}` is not one", lv.name.name),
            ));
        }
        let read = match &place {
            Place::Slot { slot, shared } => CExpr::Var {
                slot: *slot,
                shared: *shared,
            },
            Place::Elem { array, index } => CExpr::Elem {
                array: *array,
                index: Box::new(index.clone()),
            },
        };
        Ok((read, place))
    }

    /// Resolves an assignable place. `guard` names the guard its index is part of, if any.
    pub(super) fn place(
        &self,
        lv: &ast::LValue,
        guard: Option<&'static str>,
    ) -> Result<(Place, SlotKind)> {
        let sc = self.scope();
        let v = match self.c.lookup(&lv.name, &sc)? {
            Resolved::Var(v) => v.clone(),
            Resolved::Value(..) => {
                return Err(CompileError::at(
                    lv.name.span,
                    format!(
                        "`{}` is not a variable and cannot be assigned",
                        lv.name.name
                    ),
                ));
            }
        };
        let mut sc = Scope {
            guard,
            ..self.scope()
        };
        let place = match (&lv.index, v.len) {
            (None, None) => Place::Slot {
                slot: v.base,
                shared: v.shared,
            },
            (Some(i), Some(len)) => match fold(self.c.int(i, &mut sc, "an array index")?) {
                CExpr::Const(k) if (0..i64::from(len)).contains(&k) => Place::Slot {
                    slot: v.base + k as u32,
                    shared: v.shared,
                },
                index => Place::Elem {
                    array: Array {
                        base: v.base,
                        len,
                        shared: v.shared,
                    },
                    index,
                },
            },
            (None, Some(_)) => {
                return Err(CompileError::at(
                    lv.span,
                    format!(
                        "`{}` is an array; assign one element, like `{}[0]`",
                        lv.name.name, lv.name.name
                    ),
                ));
            }
            (Some(_), None) => {
                return Err(CompileError::at(
                    lv.span,
                    format!("`{}` is not an array", lv.name.name),
                ));
            }
        };
        Ok((place, v.kind))
    }

    fn assign(
        &self,
        s: &ast::Stmt,
        targets: &[ast::LValue],
        values: &[ast::Expr],
        choices: &mut impl Iterator<Item = i64>,
    ) -> Result<Cmd> {
        if targets.len() != values.len() {
            return Err(CompileError::at(
                s.span,
                format!(
                    "{} targets but {} value{}",
                    targets.len(),
                    values.len(),
                    if values.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        for (k, t) in targets.iter().enumerate() {
            if let Some(dup) = targets[..k]
                .iter()
                .find(|o| o.name.name == t.name.name && o.index.is_none() && t.index.is_none())
            {
                return Err(CompileError::at(
                    t.span,
                    format!("`{}` is assigned twice", t.name.name),
                )
                .related(dup.span, "first assigned here"));
            }
        }
        let mut parts = Vec::with_capacity(targets.len());
        for (t, v) in targets.iter().zip(values) {
            let (place, kind) = self.place(t, None)?;
            let want = match kind {
                SlotKind::Lock => {
                    return Err(CompileError::at(
                        t.span,
                        format!(
                            "`{}` is a lock; it changes only by `acquire` and `release`",
                            t.name.name
                        ),
                    ));
                }
                SlotKind::Sem => {
                    return Err(CompileError::at(
                        t.span,
                        format!(
                            "`{}` is a semaphore; it changes only by `up` and `down`",
                            t.name.name
                        ),
                    ));
                }
                SlotKind::Bool => Ty::Bool,
                _ => Ty::Int,
            };
            let value = if let ExprKind::Any(..) = v.kind {
                if want != Ty::Int {
                    return Err(CompileError::at(
                        v.span,
                        "`any lo..hi` chooses an integer, and the target is a bool",
                    ));
                }
                CExpr::Const(choices.next().expect("one choice per `any`"))
            } else {
                let mismatch = |ty: Ty| {
                    let (t, want) = (&t.name.name, want.name());
                    format!("`{t}` is {want}, but this value is {}", ty.name())
                };
                fold(self.c.typed(v, &mut self.scope(), want, mismatch)?)
            };
            parts.push((place, value));
        }
        Ok(Cmd::Assign(parts))
    }
}

/// Calls and returns (see [`super::procs`]).
impl Lower<'_, '_> {
    /// `[x :=] call f(args)` at point `pc`, going on at `next` on return.
    fn call(
        &mut self,
        s: &ast::Stmt,
        pc: i64,
        next: i64,
        target: Option<&ast::LValue>,
        f: &ast::Ident,
        args: &[ast::Expr],
    ) -> Result<()> {
        let ctx = self.ctx;
        let p = ctx.procs.resolve(f)?;
        let decl = &ctx.procs.get(p).decl;
        let values = self.call_args(s, f, decl, args)?;
        let place = match target {
            None => None,
            Some(t) => Some(self.call_target(t, f, decl)?),
        };
        let text = pretty::stmt_head(s);
        let depth = self.frame.map_or(0, |f| ctx.frames[f].depth);
        let Some(callee) = ctx.layout.find(p, depth + 1) else {
            // The deepest frame: the call is the stack bound. It reads
            // what the call would, so that it is classified alike.
            let reads = values
                .into_iter()
                .map(|v| {
                    Cmd::If(
                        CExpr::Bin(BinOp::Eq, Box::new(v.clone()), Box::new(v)),
                        Vec::new(),
                        Vec::new(),
                    )
                })
                .collect();
            assert_eq!(depth, ctx.max_stack);
            return self.push_op(
                s.span,
                pc,
                None,
                reads,
                Next::To(next),
                text,
                StackOp::Overflow,
            );
        };
        let frame = &ctx.frames[callee];
        let mut parts: Vec<(Place, CExpr)> = values
            .into_iter()
            .enumerate()
            .map(|(j, v)| {
                (
                    Place::Slot {
                        slot: frame.slots.start + j as u32,
                        shared: false,
                    },
                    v,
                )
            })
            .collect();
        let value = self.sites.add(callee, next, place);
        parts.push((
            Place::Slot {
                slot: ctx.ret[depth as usize],
                shared: false,
            },
            CExpr::Const(value),
        ));
        let entry = frame.points.start + super::procs::entry(ctx.procs.get(p));
        self.push_op(
            s.span,
            pc,
            None,
            vec![Cmd::Assign(parts)],
            Next::To(entry),
            text,
            StackOp::Call(callee as u32),
        )
    }

    /// The arguments of a call of `f`, one per parameter, each of the
    /// parameter's type.
    fn call_args(
        &self,
        s: &ast::Stmt,
        f: &ast::Ident,
        decl: &ast::ProcDecl,
        args: &[ast::Expr],
    ) -> Result<Vec<CExpr>> {
        if args.len() != decl.params.len() {
            let n = decl.params.len();
            return Err(CompileError::at(
                s.span,
                format!(
                    "`{}` takes {n} argument{}, but this call passes {}",
                    f.name,
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .related(decl.name.span, "declared here"));
        }
        let mut values = Vec::with_capacity(args.len());
        for (a, q) in args.iter().zip(&decl.params) {
            if let ast::Type::Chan(arr) = &q.ty {
                values.push(self.c.chan_arg(a, arr, &mut self.scope())?);
                continue;
            }
            let want = value_ty(&q.ty);
            let mismatch = |ty: Ty| {
                let (q, want) = (&q.name.name, want.name());
                format!(
                    "parameter `{q}` of `{}` is {want}, but this argument is {}",
                    f.name,
                    ty.name()
                )
            };
            values.push(fold(self.c.typed(a, &mut self.scope(), want, mismatch)?));
        }
        Ok(values)
    }

    /// Where `t := call f(...)` puts the returned value: an int or bool
    /// variable of the type `f` returns.
    fn call_target(&self, t: &ast::LValue, f: &ast::Ident, decl: &ast::ProcDecl) -> Result<Place> {
        let Some(ret) = &decl.ret else {
            return Err(
                CompileError::at(t.span, format!("`{}` returns no value", f.name))
                    .related(decl.name.span, "declared without a return type here")
                    .help(format!("call it as a statement: `call {}(...);`", f.name)),
            );
        };
        let (place, kind) = self.place(t, None)?;
        let want = match kind {
            SlotKind::Bool => Ty::Bool,
            SlotKind::Int => Ty::Int,
            _ => {
                return Err(CompileError::at(
                    t.span,
                    format!(
                        "`{}` is a lock or semaphore; it cannot take a returned value",
                        t.name.name
                    ),
                ));
            }
        };
        if want != value_ty(ret) {
            return Err(CompileError::at(
                t.span,
                format!(
                    "`{}` is {}, but `{}` returns {}",
                    t.name.name,
                    want.name(),
                    f.name,
                    value_ty(ret).name()
                ),
            ));
        }
        Ok(place)
    }

    /// `return [e]` at point `pc`.
    fn ret(&mut self, s: &ast::Stmt, pc: i64, value: Option<&ast::Expr>) -> Result<()> {
        let Some(f) = self.frame else {
            return Err(CompileError::at(s.span, "`return` outside a procedure")
                .help("a thread's body ends at its closing brace; `return` leaves a procedure"));
        };
        let decl = &self.ctx.procs.get(self.ctx.frames[f].proc).decl;
        let value = match (value, &decl.ret) {
            (None, None) => None,
            (Some(e), Some(ty)) => {
                let want = value_ty(ty);
                let mismatch = |got: Ty| {
                    let (name, want) = (&decl.name.name, want.name());
                    format!("`{name}` returns {want}, but this value is {}", got.name())
                };
                Some(fold(self.c.typed(e, &mut self.scope(), want, mismatch)?))
            }
            (None, Some(_)) => {
                return Err(CompileError::at(
                    s.span,
                    format!(
                        "`{}` returns a value, but this `return` has none",
                        decl.name.name
                    ),
                )
                .related(decl.name.span, "declared with a return type here")
                .help("write `return e;`"));
            }
            (Some(e), None) => {
                return Err(CompileError::at(
                    e.span,
                    format!("`{}` returns no value", decl.name.name),
                )
                .related(decl.name.span, "declared without a return type here")
                .help("write `return;`, or give the procedure a return type: `proc f(...) : 0..3 { ... }`"));
            }
        };
        self.returns(s.span, pc, value, pretty::stmt_head(s))
    }

    /// The return transitions at point `pc` of the copy being lowered: one
    /// per call site, guarded by the return point.
    fn returns(&mut self, span: Span, pc: i64, value: Option<CExpr>, head: String) -> Result<()> {
        let ctx = self.ctx;
        let fi = self.frame.expect("a procedure's copy");
        let frame = &ctx.frames[fi];
        let ret = ctx.ret[frame.depth as usize - 1];
        let sites = self.sites.of[fi].clone();
        for site in sites {
            let mut parts = Vec::new();
            if let (Some(place), Some(v)) = (site.target, &value) {
                parts.push((place, v.clone()));
            }
            // The copy is not running any more: back to its initial values.
            for k in frame.slots.clone() {
                let place = Place::Slot {
                    slot: k,
                    shared: false,
                };
                parts.push((place, CExpr::Const(self.c.init[k as usize])));
            }
            parts.push((
                Place::Slot {
                    slot: ret,
                    shared: false,
                },
                CExpr::Const(0),
            ));
            let guard = CExpr::Bin(
                BinOp::Eq,
                Box::new(CExpr::Var {
                    slot: ret,
                    shared: false,
                }),
                Box::new(CExpr::Const(site.value)),
            );
            let text = format!("{head} (to {})", ctx.point_name(self.c, site.cont));
            self.push_op(
                span,
                pc,
                Some(guard),
                vec![Cmd::Assign(parts)],
                Next::To(site.cont),
                text,
                StackOp::Return,
            )?;
        }
        Ok(())
    }
}

/// The type of a parameter or returned value.
fn value_ty(t: &ast::Type) -> Ty {
    match t {
        ast::Type::Bool => Ty::Bool,
        _ => Ty::Int,
    }
}
