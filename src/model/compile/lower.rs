//! Lowering of thread bodies: every statement is one control point, and
//! its transitions follow `gcl.md` (see the parent module).

use std::collections::HashMap;

use indexmap::IndexMap;

use super::*;

/// Lowers one thread body into transitions, grouped by control point.
pub(super) struct Lower<'c> {
    pub(super) c: &'c Compiler,
    pub(super) thread: usize,
    pub(super) locals: &'c IndexMap<String, Var>,
    pub(super) pcs: &'c HashMap<usize, i64>,
    pub(super) by_point: Vec<Vec<Transition>>,
}

/// The guard and command of a simple statement or `atomic` block.
struct Action {
    guard: Option<CExpr>,
    body: Vec<Cmd>,
}

impl Lower<'_> {
    pub(super) fn run(mut self, t: &ast::ThreadDecl, end: i64) -> Result<Vec<Vec<Transition>>> {
        self.block(&t.body, end)?;
        Ok(self.by_point)
    }

    fn scope(&self) -> Scope<'_> {
        Scope {
            locals: Some(self.locals),
            self_id: Some(self.thread as i64),
            ..Scope::default()
        }
    }

    fn pc(&self, s: &ast::Stmt) -> i64 {
        self.pcs[&key(s)]
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
        let tr = Transition {
            thread: self.thread as u32,
            from,
            guard,
            body,
            next,
            span: s.span,
            line: self.c.lines.line(s.span.start),
            text,
            recheck_overlap: Vec::new(),
            recheck_invariants: Vec::new(),
            touches_excl: Vec::new(),
        };
        self.c
            .budget
            .charge(limits::transition_size(&tr), s.span, "this statement")?;
        let here = &mut self.by_point[from as usize];
        // Most points have one transition; a first push would reserve room
        // for four, and a transition is a few hundred bytes.
        if here.capacity() == 0 {
            here.reserve_exact(1);
        }
        here.push(tr);
        Ok(())
    }

    fn stmt(&mut self, s: &ast::Stmt, next: i64) -> Result<()> {
        let pc = self.pc(s);
        match &s.kind {
            StmtKind::If(c, then, els) => {
                let cond = self.c.cond(c, &mut self.scope(), "an `if` condition")?;
                let els = els.as_deref().unwrap_or(&[]);
                let (yes, no) = (self.first(then, next), self.first(els, next));
                self.push(
                    s,
                    pc,
                    None,
                    Vec::new(),
                    Next::Branch(cond, yes, no),
                    pretty::stmt_head(s),
                )?;
                self.block(then, next)?;
                self.block(els, next)
            }
            StmtKind::While(c, body) => {
                let cond = self.c.cond(c, &mut self.scope(), "a `while` condition")?;
                let yes = self.first(body, pc);
                self.push(
                    s,
                    pc,
                    None,
                    Vec::new(),
                    Next::Branch(cond, yes, next),
                    pretty::stmt_head(s),
                )?;
                self.block(body, pc)
            }
            StmtKind::Either(branches) => {
                for b in branches {
                    self.block(b, next)?;
                }
                // Choosing a branch and taking its first step is one transition.
                let mut copies = Vec::new();
                for b in branches {
                    for t in &self.by_point[self.pc(flat(b)[0]) as usize] {
                        self.c.budget.charge(
                            limits::transition_size(t),
                            s.span,
                            "this `either`",
                        )?;
                        copies.push(Transition {
                            from: pc,
                            ..t.clone()
                        });
                    }
                }
                self.by_point[pc as usize].extend(copies);
                Ok(())
            }
            StmtKind::Goto(l) => {
                let Some(&target) = self.c.labels[self.thread].get(&l.name) else {
                    let mut err = CompileError::at(l.span, format!("unknown label `{}`", l.name));
                    if let Some(best) = closest(
                        &l.name,
                        self.c.labels[self.thread].keys().map(String::as_str),
                    ) {
                        err = err.help(format!("did you mean `{best}`?"));
                    }
                    return Err(err);
                };
                self.push(
                    s,
                    pc,
                    None,
                    Vec::new(),
                    Next::To(target),
                    pretty::stmt_head(s),
                )?;
                Ok(())
            }
            _ => {
                let ranges = self.any_ranges(s)?;
                // In i128: `any i64::MIN..i64::MAX` has 2^64 values.
                let combos = ranges.iter().fold(1u128, |n, &(lo, hi)| {
                    n.saturating_mul((i128::from(hi) - i128::from(lo) + 1) as u128)
                });
                if combos > MAX_CHOICES as u128 {
                    return Err(CompileError::at(
                        s.span,
                        format!(
                            "`any` makes {combos} transitions here; at most {MAX_CHOICES} are allowed"
                        ),
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
                    let a = self.action(s, &mut choices)?;
                    self.push(s, pc, a.guard, a.body, Next::To(next), text)?;
                }
                Ok(())
            }
        }
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
    fn action(&self, s: &ast::Stmt, choices: &mut impl Iterator<Item = i64>) -> Result<Action> {
        let c = self.c;
        let me = CExpr::Const(self.thread as i64);
        Ok(match &s.kind {
            StmtKind::Skip => Action {
                guard: None,
                body: Vec::new(),
            },
            StmtKind::Await(e) => Action {
                guard: Some(c.cond(
                    e,
                    &mut Scope {
                        guard: Some("an `await` guard"),
                        ..self.scope()
                    },
                    "an `await` condition",
                )?),
                body: Vec::new(),
            },
            StmtKind::Assert(e) => Action {
                guard: None,
                body: vec![Cmd::Assert(c.cond(e, &mut self.scope(), "an assertion")?)],
            },
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
                Action {
                    guard: Some(fold(CExpr::Bin(BinOp::Eq, Box::new(read), Box::new(want)))),
                    body: vec![Cmd::Assign(vec![(place, set)])],
                }
            }
            StmtKind::Down(lv) | StmtKind::Up(lv) => {
                let down = matches!(s.kind, StmtKind::Down(_));
                let (read, place) =
                    self.sync_target(lv, SlotKind::Sem, if down { "down" } else { "up" })?;
                let op = if down { BinOp::Sub } else { BinOp::Add };
                let value = CExpr::Bin(op, Box::new(read.clone()), Box::new(CExpr::Const(1)));
                Action {
                    guard: down.then(|| {
                        fold(CExpr::Bin(
                            BinOp::Gt,
                            Box::new(read),
                            Box::new(CExpr::Const(0)),
                        ))
                    }),
                    body: vec![Cmd::Assign(vec![(place, value)])],
                }
            }
            StmtKind::Assign(targets, values) => Action {
                guard: None,
                body: vec![self.assign(s, targets, values, choices)?],
            },
            StmtKind::Atomic(parts) => {
                let (guard, rest) = match parts.first().map(|p| &p.kind) {
                    Some(StmtKind::Await(e)) => (
                        Some(c.cond(
                            e,
                            &mut Scope {
                                guard: Some("an `await` guard"),
                                ..self.scope()
                            },
                            "an `await` condition",
                        )?),
                        &parts[1..],
                    ),
                    _ => (None, &parts[..]),
                };
                Action {
                    guard,
                    body: self.atomic_body(rest, choices)?,
                }
            }
            StmtKind::If(..)
            | StmtKind::While(..)
            | StmtKind::Either(_)
            | StmtKind::Goto(_)
            | StmtKind::Repeat(..)
            | StmtKind::Init(..) => {
                unreachable!(
                    "compound statements are lowered by `stmt`, `repeat` is unrolled, `init` spliced"
                )
            }
        })
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
                StmtKind::Await(_) => {
                    return Err(CompileError::at(p.span, "`await` inside `atomic` must come first")
                        .help("an `atomic` block is one transition `g -> c`: its guard is the leading `await`"))
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
            Place::Elem {
                base,
                len,
                shared,
                index,
            } => CExpr::Elem {
                base: *base,
                len: *len,
                shared: *shared,
                index: Box::new(index.clone()),
            },
        };
        Ok((read, place))
    }

    /// Resolves an assignable place. `guard` names the guard its index is part of, if any.
    fn place(&self, lv: &ast::LValue, guard: Option<&'static str>) -> Result<(Place, SlotKind)> {
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
                    base: v.base,
                    len,
                    shared: v.shared,
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
                let (e, ty) = self.c.expr(v, &mut self.scope())?;
                if ty != want {
                    return Err(CompileError::at(
                        v.span,
                        format!(
                            "`{}` is {}, but this value is {}",
                            t.name.name,
                            want.name(),
                            ty.name()
                        ),
                    ));
                }
                fold(e)
            };
            parts.push((place, value));
        }
        Ok(Cmd::Assign(parts))
    }
}
