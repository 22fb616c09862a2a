//! Procedures: where their code goes in each thread, and their frames.
//!
//! A thread's call stack is bounded by `--max-stack N`, so it can be laid
//! out at compile time as a fixed part of the flat state, and every
//! explorer works on it unchanged. A procedure is copied into a thread once
//! for every depth it may run at (from 1, called from the thread's body, up
//! to N): each copy has its own control points and its own slots for the
//! parameters and locals, and depth k has one more slot, the return point.
//! A call is a transition that writes the callee copy's parameters and
//! return point and enters it; a return is one transition per call site,
//! guarded by the return point, that assigns the caller's target, puts the
//! copy's slots back to their initial values (so a copy that is not running
//! never tells two states apart) and goes back. A call from depth N is the
//! stack bound: a transition whose firing ends the run inconclusive.
//!
//! Copies are made only where they can run: a procedure is copied at depth
//! k + 1 if something copied at depth k calls it. Without recursion that is
//! the depth of the call graph; a recursive procedure is copied at every
//! depth up to N.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use indexmap::IndexMap;

use super::{CompileError, Compiler, Numbered, Result, Var, closest, flat, key, number};
use crate::model::expr::Place;
use crate::model::{Frame, Slot, SlotClass, SlotKind};
use crate::syntax::ast::{self, StmtKind};
use crate::syntax::span::Span;

/// A procedure, ready to be copied.
pub(super) struct ProcEntry<'m> {
    /// The declaration, with `repeat` unrolled.
    pub(super) decl: Cow<'m, ast::ProcDecl>,
    /// Its control points, numbered from 0 (the end last).
    pub(super) numbered: Numbered,
    /// Its labels.
    pub(super) labels: HashMap<String, i64>,
    /// The procedures its body calls, in order, without repeats.
    callees: Vec<u32>,
}

/// Every procedure of a model.
pub(super) struct Procs<'m> {
    list: Vec<ProcEntry<'m>>,
    by_name: HashMap<String, u32>,
}

/// Where the copies of procedures go in one thread.
pub(super) struct FrameLayout {
    /// `(procedure, depth, first point)`, by depth, then declaration order.
    pub(super) frames: Vec<(u32, u32, i64)>,
    /// The thread's final point, after its body and every copy.
    pub(super) end: i64,
    /// `(procedure, depth)` -> index into `frames`.
    index: HashMap<(u32, u32), usize>,
    /// The points of the body (before the copies).
    body: i64,
    /// The first point after each copy.
    ends: Vec<i64>,
}

impl FrameLayout {
    /// The copy a control point belongs to.
    pub(super) fn frame_of(&self, pc: i64) -> Option<u32> {
        if pc < self.body || pc >= self.end {
            return None;
        }
        let f = self.ends.partition_point(|&e| e <= pc);
        Some(f as u32)
    }

    /// The copy of procedure `p` at depth `depth`, if the thread has one.
    pub(super) fn find(&self, p: u32, depth: u32) -> Option<usize> {
        self.index.get(&(p, depth)).copied()
    }

    /// The deepest copy.
    fn depth(&self) -> u32 {
        self.frames.last().map_or(0, |f| f.1)
    }
}

/// A call site of a copy: where its caller goes on, and what the returned
/// value is assigned to there.
#[derive(Clone, Debug)]
pub(super) struct CallSite {
    /// The caller's point after the call.
    pub(super) cont: i64,
    /// The caller's place for the value, if it takes one.
    pub(super) target: Option<Place>,
    /// The return point the call writes and the return tests: `cont`,
    /// unless another site of the copy goes on at `cont` with another
    /// target (calls in two branches of an `if` or an `either` that both
    /// end there): then a value of its own past the thread's points (see
    /// [`crate::model::Thread::ret_alias`]), or the return could not tell
    /// which target is the caller's.
    pub(super) value: i64,
}

/// The call sites of a thread's copies, and the return points past its
/// points given to sites that share a continuation.
pub(super) struct Sites {
    /// Per copy of a procedure: its call sites, filled as callers are
    /// lowered (callers run at a smaller depth, so they come first).
    pub(super) of: Vec<Vec<CallSite>>,
    /// The thread's final point: return points past it are aliases.
    end: i64,
    /// The continuation of each alias `end + 1 + j`.
    pub(super) aliases: Vec<i64>,
}

impl Sites {
    /// No sites yet, for `copies` copies of a thread whose final point is
    /// `end`.
    pub(super) fn new(copies: usize, end: i64) -> Sites {
        Sites {
            of: vec![Vec::new(); copies],
            end,
            aliases: Vec::new(),
        }
    }

    /// Adds a call of copy `callee` that goes on at `cont` with `target`;
    /// returns the value its return point takes.
    pub(super) fn add(&mut self, callee: usize, cont: i64, target: Option<Place>) -> i64 {
        let sites = &self.of[callee];
        let value = match sites.iter().find(|s| s.cont == cont) {
            Some(s) if s.target != target => {
                self.aliases.push(cont);
                self.end + self.aliases.len() as i64
            }
            _ => cont,
        };
        self.of[callee].push(CallSite {
            cont,
            target,
            value,
        });
        value
    }
}

/// What lowering needs to know about a thread's procedures.
pub(super) struct Ctx<'a> {
    pub(super) procs: &'a Procs<'a>,
    pub(super) layout: &'a FrameLayout,
    pub(super) frames: &'a [Frame],
    /// The return point slot of each depth, from 1.
    pub(super) ret: &'a [u32],
    /// Label and span of every point of the thread.
    pub(super) info: &'a [(Option<String>, Span)],
    pub(super) max_stack: u32,
}

impl Ctx<'_> {
    /// How a point is shown: its label, or `line N`.
    pub(super) fn point_name(&self, c: &Compiler, pc: i64) -> String {
        let (label, span) = &self.info[pc as usize];
        match label {
            Some(l) => l.clone(),
            None => format!("line {}", c.lines.line(span.start)),
        }
    }
}

impl<'m> Procs<'m> {
    /// Collects, unrolls and numbers the procedures of `m`, and resolves
    /// every call in them and in the thread bodies.
    pub(super) fn new(c: &Compiler, m: &'m ast::Model) -> Result<Procs<'m>> {
        let decls: Vec<&ast::ProcDecl> = m.procs().collect();
        let mut by_name: HashMap<String, u32> = HashMap::new();
        for (k, d) in decls.iter().enumerate() {
            if let Some(&first) = by_name.get(&d.name.name) {
                return Err(CompileError::at(
                    d.name.span,
                    format!("procedure `{}` is declared twice", d.name.name),
                )
                .related(decls[first as usize].name.span, "first declared here"));
            }
            by_name.insert(d.name.name.clone(), k as u32);
        }
        let count = |n: &ast::Expr| c.repeat_count(n);
        let mut list = Vec::new();
        let mut label_owner: HashMap<String, Span> = HashMap::new();
        for d in decls {
            c.unrolled_size(&d.body.stmts, &d.name, "procedure")?;
            let decl = if super::unroll::needed(&d.body.stmts) {
                Cow::Owned(ast::ProcDecl {
                    body: ast::Body {
                        stmts: super::unroll::unroll(&d.body.stmts, &count)?,
                        ..d.body.clone()
                    },
                    ..d.clone()
                })
            } else {
                Cow::Borrowed(d)
            };
            let (numbered, labels) = number(&decl.body)?;
            // A label names the same point in every thread, so `at(t, L)`
            // and `goto` mean one thing: procedures do not share labels.
            for (l, _) in labels.iter() {
                let span = label_span(&decl.body.stmts, l).unwrap_or(decl.name.span);
                if let Some(first) = label_owner.get(l) {
                    return Err(CompileError::at(span, format!("duplicate label `{l}`"))
                        .related(*first, "first used here")
                        .help("labels of procedures name control points in every thread that calls them, so they must be unique"));
                }
                label_owner.insert(l.clone(), span);
            }
            let mut callees = Vec::new();
            for (name, _) in calls(&decl.body.stmts) {
                let p = resolve(&by_name, name)?;
                if !callees.contains(&p) {
                    callees.push(p);
                }
            }
            list.push(ProcEntry {
                decl,
                numbered,
                labels,
                callees,
            });
        }
        Ok(Procs { list, by_name })
    }

    /// Procedure `p`.
    pub(super) fn get(&self, p: u32) -> &ProcEntry<'m> {
        &self.list[p as usize]
    }

    /// The procedure a call names.
    pub(super) fn resolve(&self, name: &ast::Ident) -> Result<u32> {
        resolve(&self.by_name, name)
    }

    /// What the model reports about its procedures.
    pub(super) fn info(&self, lines: &crate::syntax::span::LineIndex) -> Vec<crate::model::Proc> {
        self.list
            .iter()
            .map(|p| crate::model::Proc {
                name: p.decl.name.name.clone(),
                span: p.decl.span,
                line: lines.line(p.decl.span.start),
                returns: p.decl.ret.is_some(),
            })
            .collect()
    }

    /// The copies a thread with this body needs, after its `count` points.
    pub(super) fn layout(
        &self,
        body: &[ast::Stmt],
        count: usize,
        max_stack: u32,
    ) -> Result<FrameLayout> {
        let mut level = BTreeSet::new();
        for (name, _) in calls(body) {
            level.insert(self.resolve(name)?);
        }
        let mut frames = Vec::new();
        let mut index = HashMap::new();
        let mut ends = Vec::new();
        let mut next_pc = count as i64;
        let mut depth = 1;
        while !level.is_empty() && depth <= max_stack {
            let mut next = BTreeSet::new();
            for &p in &level {
                index.insert((p, depth), frames.len());
                frames.push((p, depth, next_pc));
                next_pc += self.list[p as usize].numbered.info.len() as i64;
                ends.push(next_pc);
                next.extend(self.list[p as usize].callees.iter().copied());
            }
            level = next;
            depth += 1;
        }
        Ok(FrameLayout {
            frames,
            end: next_pc,
            index,
            body: count as i64,
            ends,
        })
    }

    /// A label of a thread's body may not also name a point of a procedure.
    pub(super) fn check_labels(
        &self,
        labels: &HashMap<String, i64>,
        decl: &ast::ThreadDecl,
    ) -> Result<()> {
        let mut names: Vec<&String> = labels.keys().collect();
        names.sort();
        for l in names {
            if let Some(p) = self.list.iter().find(|p| p.labels.contains_key(l)) {
                let span = label_span(&decl.body.stmts, l).unwrap_or(decl.name.span);
                let first = label_span(&p.decl.body.stmts, l).unwrap_or(p.decl.name.span);
                return Err(CompileError::at(span, format!("duplicate label `{l}`"))
                    .related(
                        first,
                        format!("also a label of procedure `{}`", p.decl.name.name),
                    )
                    .help("labels name control points and must be unique within a thread"));
            }
        }
        Ok(())
    }

    /// Adds the points of the copies' `init` blocks to a thread's.
    pub(super) fn add_init_points(
        &self,
        layout: &FrameLayout,
        into: &mut HashMap<String, (Vec<i64>, Span)>,
    ) {
        for &(p, _, base) in &layout.frames {
            let mut names: Vec<(&String, &(Vec<i64>, Span))> =
                self.list[p as usize].numbered.init_points.iter().collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            for (name, (pcs, span)) in names {
                let e = into
                    .entry(name.clone())
                    .or_insert_with(|| (Vec::new(), *span));
                e.0.extend(pcs.iter().map(|&pc| pc + base));
            }
        }
    }

    /// Every label of every procedure, with the points of the copies a
    /// thread may run: none for a procedure it never calls, or calls only
    /// past the stack bound (`at` of such a label is false, and the call
    /// itself is the stack bound).
    pub(super) fn labels_in(&self, layout: &FrameLayout) -> HashMap<String, Vec<i64>> {
        let mut out: HashMap<String, Vec<i64>> = HashMap::new();
        for proc in &self.list {
            for l in proc.labels.keys() {
                out.entry(l.clone()).or_default();
            }
        }
        for &(p, _, base) in &layout.frames {
            for (l, &pc) in &self.list[p as usize].labels {
                out.entry(l.clone()).or_default().push(base + pc);
            }
        }
        out
    }

    /// Label and span of every point of a thread: its body's, then its
    /// copies', then its end.
    pub(super) fn point_info(
        &self,
        n: &Numbered,
        layout: &FrameLayout,
    ) -> Vec<(Option<String>, Span)> {
        let mut info = n.info[..n.count].to_vec();
        for &(p, _, _) in &layout.frames {
            info.extend(self.list[p as usize].numbered.info.iter().cloned());
        }
        info.push(n.info[n.count].clone());
        info
    }

    /// Declares the slots of a thread's stack: a return point per depth,
    /// then the parameters and locals of each copy. Returns the return
    /// point slots, the frames, and each frame's names.
    #[allow(clippy::type_complexity)]
    pub(super) fn declare_frames(
        &self,
        c: &mut Compiler,
        layout: &FrameLayout,
        thread: &str,
        id: usize,
    ) -> Result<(Vec<u32>, Vec<Frame>, Vec<IndexMap<String, Var>>)> {
        let mut ret = Vec::new();
        for depth in 1..=layout.depth() {
            if c.slots.len() >= crate::model::MAX_SLOTS {
                return Err(CompileError::at(
                    c.slots.last().map_or(Span::default(), |s| s.span),
                    format!(
                        "the call stacks take the state past {} slots",
                        crate::model::MAX_SLOTS
                    ),
                )
                .help("every stack depth has a slot for the return point and the locals of each procedure copied there; lower --max-stack"));
            }
            ret.push(c.slots.len() as u32);
            c.slots.push(Slot {
                name: format!("{thread}.ret@{depth}"),
                kind: SlotKind::Ret,
                class: SlotClass::Local(id as u32),
                span: Span::default(),
            });
            c.bounds.push((0, layout.end));
            c.init.push(0);
        }
        let mut frames = Vec::new();
        let mut vars = Vec::new();
        for (fi, &(p, depth, base)) in layout.frames.iter().enumerate() {
            let decl = &self.list[p as usize].decl;
            let owner = format!("{thread}.{}@{depth}", decl.name.name);
            let first = c.slots.len() as u32;
            let mut names = IndexMap::new();
            for q in &decl.params {
                let d = ast::VarDecl {
                    class: ast::Class::Local,
                    name: q.name.clone(),
                    size: None,
                    ty: q.ty.clone(),
                    init: None,
                    span: q.name.span,
                };
                let var = c.declare_local(&d, &owner, id, &names)?;
                names.insert(q.name.name.clone(), var);
            }
            for d in &decl.body.locals {
                let var = c.declare_local(d, &owner, id, &names)?;
                names.insert(d.name.name.clone(), var);
            }
            frames.push(Frame {
                proc: p,
                depth,
                points: base..layout.ends[fi],
                slots: first..c.slots.len() as u32,
            });
            vars.push(names);
        }
        Ok((ret, frames, vars))
    }
}

fn resolve(by_name: &HashMap<String, u32>, name: &ast::Ident) -> Result<u32> {
    if let Some(&p) = by_name.get(&name.name) {
        return Ok(p);
    }
    let mut err = CompileError::at(name.span, format!("unknown procedure `{}`", name.name));
    if let Some(best) = closest(&name.name, by_name.keys().map(String::as_str)) {
        err = err.help(format!("did you mean `{best}`?"));
    }
    Err(err)
}

/// Every `call` in a body, with its statement, in source order.
fn calls(stmts: &[ast::Stmt]) -> Vec<(&ast::Ident, &ast::Stmt)> {
    let mut out = Vec::new();
    let mut stack: Vec<&ast::Stmt> = stmts.iter().rev().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Call(_, f, _) => out.push((f, s)),
            StmtKind::If(_, a, b) => {
                stack.extend(b.iter().flatten().rev());
                stack.extend(a.iter().rev());
            }
            StmtKind::While(_, b)
            | StmtKind::Atomic(b)
            | StmtKind::Init(_, b)
            | StmtKind::Repeat(_, b) => stack.extend(b.iter().rev()),
            StmtKind::Either(bs) => {
                for b in bs.iter().rev() {
                    stack.extend(b.iter().rev());
                }
            }
            _ => {}
        }
    }
    out
}

/// Where label `l` is written in a body.
fn label_span(stmts: &[ast::Stmt], l: &str) -> Option<Span> {
    let mut stack: Vec<&ast::Stmt> = stmts.iter().collect();
    while let Some(s) = stack.pop() {
        if let Some(id) = s.label.as_ref().filter(|id| id.name == l) {
            return Some(id.span);
        }
        match &s.kind {
            StmtKind::If(_, a, b) => {
                stack.extend(a);
                stack.extend(b.iter().flatten());
            }
            StmtKind::While(_, b)
            | StmtKind::Atomic(b)
            | StmtKind::Init(_, b)
            | StmtKind::Repeat(_, b) => stack.extend(b),
            StmtKind::Either(bs) => stack.extend(bs.iter().flatten()),
            _ => {}
        }
    }
    None
}

/// The first point of a body, or its end when it is empty.
pub(super) fn entry(p: &ProcEntry) -> i64 {
    flat(&p.decl.body.stmts)
        .first()
        .map_or(p.numbered.count as i64, |s| p.numbered.pcs[&key(s)])
}
