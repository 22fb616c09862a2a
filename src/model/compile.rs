//! From AST to [`Model`]: constants, name resolution, type checking, and the
//! lowering of each thread body into control points and transitions.
//!
//! The lowering fixes the state counts, so it follows the reference (`docs/src/language.md`) exactly:
//! every statement is one control point; an `if`/`while` test is one
//! transition with two successors; `atomic` is one transition; an `either`
//! point's transitions are copies of its branches' first transitions; and
//! `x := any lo..hi` is one transition per value.

use std::borrow::Cow;
use std::collections::HashMap;

use indexmap::IndexMap;

use super::expr::{Array, CExpr, Cmd, FREE, Place, Quantified};
use super::layout::Layout;
use super::limits::{self, Budget, MAX_ARRAY, MAX_CHOICES, MAX_SLOTS, MAX_THREADS};
use super::quant::{self, MAX_QUANTIFIED};
use super::recheck;
use super::unroll::{self, MAX_STATEMENTS};
use super::{
    Frame, Invariant, Model, Next, Point, Protected, Slot, SlotClass, SlotKind, Thread, Transition,
};
use crate::syntax::ast::{
    self, BinOp, Class, Excl, ExprKind, Init, Item, Quant, StmtKind, Type, UnOp,
};
use crate::syntax::pretty;
use crate::syntax::span::{LineIndex, Span};
use crate::syntax::suggest::closest;

mod chans;
mod lower;
mod ltl;
mod procs;
mod timeout;
use lower::Lower;

/// The stack bound when none is given: calls deeper than this end a run
/// inconclusive.
pub const DEFAULT_MAX_STACK: u32 = 16;
/// The largest stack bound: each procedure is copied once per depth.
pub const MAX_STACK: u32 = 1024;

/// Options of compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The deepest call stack a thread may have (`--max-stack`).
    pub max_stack: u32,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            max_stack: DEFAULT_MAX_STACK,
        }
    }
}

/// `-D NAME=VALUE` overrides of `const` declarations, in command-line order.
pub type Defines = [(String, String)];

/// A static error in a model that parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// Where, when the error has a place in the source (`-D` errors do not).
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is an obvious way.
    pub help: Option<String>,
    /// Other places involved (e.g. the first declaration of a duplicate).
    pub related: Vec<(Span, String)>,
}

impl CompileError {
    pub(super) fn at(span: Span, message: impl Into<String>) -> CompileError {
        CompileError {
            span: Some(span),
            message: message.into(),
            help: None,
            related: Vec::new(),
        }
    }

    pub(super) fn help(mut self, help: impl Into<String>) -> CompileError {
        self.help = Some(help.into());
        self
    }

    pub(super) fn related(mut self, span: Span, what: impl Into<String>) -> CompileError {
        self.related.push((span, what.into()));
        self
    }
}

type Result<T> = std::result::Result<T, CompileError>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Bool,
    Lock,
}

impl Ty {
    /// The type with its article: "an int", "a bool", "a lock".
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "an int",
            Ty::Bool => "a bool",
            Ty::Lock => "a lock",
        }
    }
}

/// A declared variable: a scalar slot or a run of array slots.
#[derive(Clone, Debug)]
struct Var {
    base: u32,
    len: Option<u32>,
    kind: SlotKind,
    /// Per element: protected (else unprotected shared or local).
    /// Shared, as cloning a `Var` must not copy one flag per element.
    prot: std::sync::Arc<[bool]>,
    /// Some element is protected.
    any_prot: bool,
    /// Shared (not local): its accesses are observed.
    shared: bool,
    /// A `chan q` parameter: the channel array q, one of whose channels
    /// it holds (its index).
    chan: Option<String>,
    span: Span,
}

impl Var {
    fn ty(&self) -> Ty {
        match self.kind {
            SlotKind::Bool => Ty::Bool,
            SlotKind::Lock => Ty::Lock,
            _ => Ty::Int,
        }
    }
}

#[derive(Clone, Debug)]
enum Sym {
    Const(i64, Ty, Span),
    Var(Var),
    Thread(i64, Span),
    Chan(chans::ChanSym),
}

impl Sym {
    fn span(&self) -> Span {
        match self {
            Sym::Const(_, _, s) | Sym::Thread(_, s) => *s,
            Sym::Var(v) => v.span,
            Sym::Chan(c) => c.span,
        }
    }
}

/// Where an expression is compiled, which decides what it may mention.
#[derive(Default)]
struct Scope<'s> {
    locals: Option<&'s IndexMap<String, Var>>,
    self_id: Option<i64>,
    params: Vec<(String, i64)>,
    /// Quantified variables in scope, with the ranges of their values.
    bound: Vec<(String, quant::Interval)>,
    consts_only: bool,
    /// `Some(what)` in a guard: protected variables may not be read.
    guard: Option<&'static str>,
    /// In a procedure, whose names are its own and the shared ones.
    in_proc: bool,
    /// In an `await` guard, which may read `timeout`.
    timeout: bool,
}

struct Compiler {
    /// Where the source's lines start, for the line of every point.
    lines: LineIndex,
    /// The compiled size so far.
    budget: Budget,
    globals: IndexMap<String, Sym>,
    slots: Vec<Slot>,
    bounds: Vec<(i64, i64)>,
    init: Vec<i64>,
    /// Per thread: label of its body -> control point.
    labels: Vec<HashMap<String, i64>>,
    /// Per thread: label of a procedure -> its control points, one in each
    /// copy of the procedure the thread may run.
    proc_labels: Vec<HashMap<String, Vec<i64>>>,
    /// Per thread: variable -> the control points of its `init` blocks.
    init_points: Vec<HashMap<String, (Vec<i64>, Span)>>,
    thread_names: Vec<String>,
    /// Per thread: its copy number, for the copies of `thread NAME[n]`.
    copy_index: Vec<Option<i64>>,
    /// Per thread: its locals, for `t.r` in predicates and invariants.
    thread_locals: Vec<IndexMap<String, Var>>,
    /// The channels declared so far.
    channels: Vec<super::Channel>,
    /// The halves of rendezvous, until they are paired.
    halves: chans::Halves,
    /// The hidden slot of `timeout`, in a model that waits for it.
    timeout: Option<u32>,
}

/// A shared variable declared `protected`, kept until every thread's locals
/// are declared, when its predicates can be compiled.
type ProtectedDecl<'m> = (&'m ast::VarDecl, Var, &'m Excl);

/// Compiles a parsed model. `fallback_name` names a model without `system`;
/// `src` is its text (for line numbers); `defines` override constants;
/// `options` bound the call stacks.
pub fn compile_with(
    m: &ast::Model,
    fallback_name: &str,
    src: &str,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<Model> {
    let mut c = Compiler::new(src);
    c.consts(m, defines)?;
    let bodies = c.threads(m)?;
    let unrolled = unroll_bodies(&c, m, &bodies)?;
    let bodies: Vec<(&ast::ThreadDecl, String)> = bodies
        .into_iter()
        .map(|(d, n)| (&*unrolled[&(d as *const ast::ThreadDecl)], n))
        .collect();
    let procs = procs::Procs::new(&c, m)?;
    let (numbered, layouts) = c.program_counters(&bodies, &procs, options)?;
    let nthreads = bodies.len() as i64;
    let protected_decls = c.shared_vars(m, nthreads)?;
    if let Some(span) = timeout::first_use(m) {
        c.declare_timeout(span);
    }
    c.check_init_names()?;
    let mut transitions = Vec::new();
    let mut threads = Vec::new();
    for (id, (decl, name)) in bodies.iter().enumerate() {
        let body = ThreadBody {
            id,
            decl,
            name,
            numbered: &numbered[id],
            layout: &layouts[id],
        };
        threads.push(c.thread(&body, &procs, options, &mut transitions)?);
    }
    let mut transitions = chans::pair_rendezvous(&c, &mut threads, transitions)?;
    if let Some(slot) = c.timeout {
        timeout::mark(&mut transitions, slot);
    }
    // Predicates are compiled once every thread's locals are declared:
    // they may read them (`t.r`).
    let (protected, mut protected_index) = c.protected(protected_decls, nthreads)?;
    let invariants = c.invariants(m)?;
    let ltl = ltl::properties(&mut c, &m.items)?;
    protected_index.resize(c.slots.len(), None);
    let init_points = c.init_points_by_var();
    recheck::recheck_lists(&mut transitions, &protected, &invariants, &c.slots);
    let layout = Layout::new(&c.bounds);
    Ok(Model {
        name: m
            .name
            .as_ref()
            .map_or(fallback_name.to_string(), |n| n.name.clone()),
        threads,
        slots: c.slots,
        bounds: c.bounds,
        transitions,
        protected,
        protected_index,
        invariants,
        ltl,
        init: c.init,
        layout,
        init_points,
        procs: procs.info(&c.lines),
        max_stack: options.max_stack,
        channels: c.channels,
        timeout: c.timeout,
    })
}

/// One thread to lower: its body (unrolled), its name, and the numbering
/// and copies of procedures fixed for it when the program counters were
/// laid out.
struct ThreadBody<'a> {
    id: usize,
    decl: &'a ast::ThreadDecl,
    name: &'a str,
    numbered: &'a Numbered,
    layout: &'a procs::FrameLayout,
}

impl Compiler {
    /// A compiler with nothing declared yet, for the model text `src`.
    fn new(src: &str) -> Compiler {
        Compiler {
            lines: LineIndex::new(src),
            budget: Budget::default(),
            globals: IndexMap::new(),
            slots: Vec::new(),
            bounds: Vec::new(),
            init: Vec::new(),
            labels: Vec::new(),
            proc_labels: Vec::new(),
            init_points: Vec::new(),
            thread_names: Vec::new(),
            copy_index: Vec::new(),
            thread_locals: Vec::new(),
            channels: Vec::new(),
            halves: Default::default(),
            timeout: None,
        }
    }

    /// Program counters come first in the state; their ranges are known
    /// after numbering each body and laying out the copies of the
    /// procedures it may run. Returns each thread's numbering and layout.
    fn program_counters(
        &mut self,
        bodies: &[(&ast::ThreadDecl, String)],
        procs: &procs::Procs,
        options: &CompileOptions,
    ) -> Result<(Vec<Numbered>, Vec<procs::FrameLayout>)> {
        let mut numbered = Vec::new();
        let mut layouts = Vec::new();
        let mut points_total = 0u64;
        for (id, (decl, name)) in bodies.iter().enumerate() {
            let (n, labels) = number(&decl.body)?;
            let layout = procs.layout(&decl.body.stmts, n.count, options.max_stack)?;
            points_total = points_total.saturating_add(layout.end as u64 + 1);
            if points_total > MAX_STATEMENTS {
                return Err(CompileError::at(
                    decl.name.span,
                    format!(
                        "with their copies of the procedures (one per stack depth, up to --max-stack {}), the threads have more than {MAX_STATEMENTS} control points",
                        options.max_stack
                    ),
                )
                .help("a procedure is copied for every depth it may run at; lower --max-stack"));
            }
            procs.check_labels(&labels, decl)?;
            let mut init_points = n.init_points.clone();
            procs.add_init_points(&layout, &mut init_points);
            self.init_points.push(init_points);
            self.labels.push(labels);
            self.proc_labels.push(procs.labels_in(&layout));
            self.slots.push(Slot {
                name: name.clone(),
                kind: SlotKind::Pc,
                class: SlotClass::Local(id as u32),
                span: decl.span,
            });
            self.bounds.push((0, layout.end));
            self.init.push(0);
            numbered.push(n);
            layouts.push(layout);
        }
        Ok((numbered, layouts))
    }

    /// Declares the shared and protected variables, after the program
    /// counters; returns the protected ones, whose predicates wait for the
    /// threads' locals.
    fn shared_vars<'m>(
        &mut self,
        m: &'m ast::Model,
        nthreads: i64,
    ) -> Result<Vec<ProtectedDecl<'m>>> {
        let mut protected_decls = Vec::new();
        for item in &m.items {
            if let Item::Chan(d) = item {
                self.declare_chan(d)?;
            }
            if let Item::Var(d) = item {
                let var = self.declare_var(d, None, nthreads, None)?;
                self.define(&d.name, Sym::Var(var.clone()))?;
                if let Class::Protected { excl, .. } = &d.class {
                    protected_decls.push((d, var, excl));
                }
            }
        }
        Ok(protected_decls)
    }

    /// Every `init NAME` block must name a shared variable.
    fn check_init_names(&self) -> Result<()> {
        for points in &self.init_points {
            for (name, (_, span)) in points {
                if !matches!(self.globals.get(name), Some(Sym::Var(_))) {
                    return Err(CompileError::at(
                        *span,
                        format!("`init {name}` names no shared variable"),
                    )
                    .help(
                        "an `init` block marks the code that initialises shared or protected variables",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Declares a thread's locals and stack, lowers its body and its copies
    /// of procedures, and appends its transitions to `transitions`, point by
    /// point.
    fn thread(
        &mut self,
        t: &ThreadBody,
        procs: &procs::Procs,
        options: &CompileOptions,
        transitions: &mut Vec<Transition>,
    ) -> Result<Thread> {
        let first_local = self.slots.len() as u32;
        self.check_index_clash(t)?;
        let mut locals = IndexMap::new();
        for d in &t.decl.body.locals {
            let var = self.declare_local(d, t.name, t.id, &locals)?;
            locals.insert(d.name.name.clone(), var);
        }
        let local_slots = first_local..self.slots.len() as u32;
        self.thread_locals.push(locals.clone());
        let layout = t.layout;
        let (ret, frames, frame_vars) = procs.declare_frames(self, layout, t.name, t.id)?;
        let info = procs.point_info(t.numbered, layout);
        let mut by_point: Vec<Vec<Transition>> = vec![Vec::new(); info.len()];
        let mut sites = procs::Sites::new(frames.len(), layout.end);
        let ctx = procs::Ctx {
            procs,
            layout,
            frames: &frames,
            ret: &ret,
            info: &info,
            max_stack: options.max_stack,
        };
        self.lower_thread(t, &locals, &frame_vars, &ctx, &mut by_point, &mut sites)?;
        // Return points past the thread's points, for sites that share a
        // continuation: the return point slots hold them too.
        for &r in &ret {
            self.bounds[r as usize].1 = layout.end + sites.aliases.len() as i64;
        }
        let points = self.points(by_point, &info, layout, &frames, transitions);
        let dormant = t.decl.dormant.as_ref().map(|v| {
            let k = self.slots.iter().position(|s| s.name == v.name);
            k.expect("the front end declares the flag") as u32
        });
        Ok(Thread {
            dormant,
            body: t.decl.name.span,
            name: t.name.to_string(),
            points,
            frames,
            ret,
            ret_alias: sites.aliases,
            locals: local_slots,
        })
    }

    /// In a copy of `thread NAME[n]`, `index` names the copy number, so no
    /// local or shared variable may be called `index`.
    fn check_index_clash(&self, t: &ThreadBody) -> Result<()> {
        if self.copy_index[t.id].is_none() {
            return Ok(());
        }
        let clash = t
            .decl
            .body
            .locals
            .iter()
            .find(|d| d.name.name == "index")
            .map(|d| d.name.span)
            .or_else(|| self.globals.get("index").map(Sym::span));
        if let Some(span) = clash {
            return Err(CompileError::at(
                span,
                "`index` is declared, but it names the copy number in a `thread NAME[n]` body",
            )
            .related(t.decl.name.span, "copies declared here")
            .help("give the variable another name"));
        }
        Ok(())
    }

    /// Lowers a thread's body, then each of its copies of procedures (in
    /// frame order: callers run at a smaller depth, so their call sites are
    /// known before the callee is lowered).
    fn lower_thread(
        &self,
        t: &ThreadBody,
        locals: &IndexMap<String, Var>,
        frame_vars: &[IndexMap<String, Var>],
        ctx: &procs::Ctx,
        by_point: &mut Vec<Vec<Transition>>,
        sites: &mut procs::Sites,
    ) -> Result<()> {
        Lower {
            c: self,
            thread: t.id,
            locals,
            pcs: &t.numbered.pcs,
            labels: &self.labels[t.id],
            base: 0,
            frame: None,
            ctx,
            by_point,
            sites,
            jumps: HashMap::new(),
        }
        .run(&t.decl.body.stmts, t.layout.end, t.decl.provided.as_ref())?;
        for (fi, f) in ctx.frames.iter().enumerate() {
            let p = ctx.procs.get(f.proc);
            // A procedure run by a copy of `thread NAME[n]` sees `index`,
            // so it may not declare a parameter or local of that name.
            if let (Some(_), Some(v)) = (self.copy_index[t.id], frame_vars[fi].get("index")) {
                return Err(CompileError::at(
                    v.span,
                    "`index` is declared, but it names the copy number in a procedure that a `thread NAME[n]` body calls",
                )
                .related(t.decl.name.span, "copies declared here")
                .help("give the variable another name"));
            }
            Lower {
                c: self,
                thread: t.id,
                locals: &frame_vars[fi],
                pcs: &p.numbered.pcs,
                labels: &p.labels,
                base: f.points.start,
                frame: Some(fi),
                ctx,
                by_point,
                sites,
                jumps: HashMap::new(),
            }
            .run_proc(p)?;
        }
        Ok(())
    }

    /// A thread's control points, with its transitions moved point by point
    /// into the model's list `transitions`.
    fn points(
        &self,
        by_point: Vec<Vec<Transition>>,
        info: &[(Option<String>, Span)],
        layout: &procs::FrameLayout,
        frames: &[Frame],
        transitions: &mut Vec<Transition>,
    ) -> Vec<Point> {
        transitions.reserve(by_point.iter().map(Vec::len).sum());
        let mut points = Vec::with_capacity(by_point.len());
        for (pc, trs) in by_point.into_iter().enumerate() {
            let start = transitions.len();
            transitions.extend(trs);
            let (label, span) = info[pc].clone();
            let frame = layout.frame_of(pc as i64);
            points.push(Point {
                label,
                span,
                line: self.lines.line(span.start),
                transitions: start..transitions.len(),
                depth: frame.map_or(0, |f| frames[f as usize].depth),
                frame,
            });
        }
        points
    }

    /// The exclusive access predicates of the protected variables, one per
    /// protected element, and the index of each slot's predicate.
    #[allow(clippy::type_complexity)]
    fn protected(
        &mut self,
        decls: Vec<ProtectedDecl>,
        nthreads: i64,
    ) -> Result<(Vec<Protected>, Vec<Option<u32>>)> {
        let mut protected = Vec::new();
        let mut protected_index = vec![None; self.slots.len()];
        for (d, var, excl) in decls {
            // One predicate per thread and element, each at least one node:
            // too many is known before compiling any.
            let elements = var.prot.iter().filter(|&&p| p).count() as u64;
            self.budget.charge(
                elements * nthreads as u64,
                d.span,
                "this declaration, which has a predicate for every thread and element",
            )?;
            for k in (0..var.len.unwrap_or(1)).filter(|&k| var.prot[k as usize]) {
                let slot = var.base + k;
                protected_index[slot as usize] = Some(protected.len() as u32);
                protected.push(self.excl(d, &var, excl, k, nthreads)?);
            }
        }
        Ok((protected, protected_index))
    }

    /// The model's invariants, in order.
    fn invariants(&mut self, m: &ast::Model) -> Result<Vec<Invariant>> {
        let mut invariants = Vec::new();
        for item in &m.items {
            if let Item::Invariant(e, span) = item {
                let expr = self.cond(e, &mut Scope::default(), "an invariant")?;
                self.budget
                    .charge(limits::nodes(&expr), *span, "this invariant")?;
                invariants.push(Invariant {
                    expr,
                    text: pretty::expr(e),
                    span: *span,
                    line: self.lines.line(span.start),
                });
            }
        }
        Ok(invariants)
    }

    /// The points of the `init` blocks by variable (sorted by name), then
    /// by thread.
    fn init_points_by_var(&self) -> IndexMap<String, Vec<Vec<i64>>> {
        let mut init_points: IndexMap<String, Vec<Vec<i64>>> = IndexMap::new();
        for (t, points) in self.init_points.iter().enumerate() {
            for (name, (pcs, _)) in points {
                init_points
                    .entry(name.clone())
                    .or_insert_with(|| vec![Vec::new(); self.init_points.len()])[t] = pcs.clone();
            }
        }
        init_points.sort_keys();
        init_points
    }
}

/// Every distinct thread body with its `repeat`s unrolled, by address: the
/// copies made by `threads N` share one body, unrolled once. The size of
/// every body, and of all of them together, is checked first.
fn unroll_bodies<'m>(
    c: &Compiler,
    m: &ast::Model,
    bodies: &[(&'m ast::ThreadDecl, String)],
) -> Result<HashMap<*const ast::ThreadDecl, Cow<'m, ast::ThreadDecl>>> {
    let count = |n: &ast::Expr| c.repeat_count(n);
    let mut sizes: HashMap<*const ast::ThreadDecl, u64> = HashMap::new();
    let mut running = Vec::new();
    let mut total = 0u64;
    for (d, _) in bodies {
        let size = match sizes.get(&(*d as *const _)) {
            Some(&n) => n,
            None => {
                let n = c.unrolled_size(&d.body.stmts, &d.name, "thread")?;
                sizes.insert(*d, n);
                n
            }
        };
        total = total.saturating_add(size);
        running.push(total);
    }
    if total > MAX_STATEMENTS {
        let message = format!(
            "the threads have {total} statements in all once `repeat` is unrolled; at most {MAX_STATEMENTS} are allowed"
        );
        // Under `threads N` the count is to blame; else the thread that
        // goes past the bound.
        let copies = m.items.iter().find_map(|i| match i {
            Item::Threads(e, _) => Some(e.span),
            _ => None,
        });
        let (d, _) = bodies[running.partition_point(|&n| n <= MAX_STATEMENTS)];
        return Err(match copies {
            Some(span) => CompileError::at(span, message).related(
                d.name.span,
                format!("each copy of this body has {}", sizes[&(d as *const _)]),
            ),
            None => CompileError::at(d.name.span, message),
        });
    }
    let mut out = HashMap::new();
    for &(d, _) in bodies {
        if let std::collections::hash_map::Entry::Vacant(e) = out.entry(d as *const _) {
            // A body without `repeat` or `init` blocks is used as it is.
            e.insert(if unroll::needed(&d.body.stmts) {
                Cow::Owned(ast::ThreadDecl {
                    name: d.name.clone(),
                    copies: d.copies.clone(),
                    dormant: d.dormant.clone(),
                    provided: d.provided.clone(),
                    body: ast::Body {
                        locals: d.body.locals.clone(),
                        stmts: unroll::unroll(&d.body.stmts, &count)?,
                        end: d.body.end,
                    },
                    span: d.span,
                })
            } else {
                Cow::Borrowed(d)
            });
        }
    }
    Ok(out)
}

/// Control points of one thread body, numbered in source order.
#[derive(Clone)]
struct Numbered {
    count: usize,
    /// Statement address -> control point.
    pcs: HashMap<usize, i64>,
    /// Label and span of each point (the last is the end of the body).
    info: Vec<(Option<String>, Span)>,
    /// Variable -> the points inside its `init` blocks (and where it is named).
    init_points: HashMap<String, (Vec<i64>, Span)>,
}

/// A block's statements with `init` blocks spliced in: an `init` block is a
/// marker around statements, not a control point of its own.
fn flat(stmts: &[ast::Stmt]) -> Vec<&ast::Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Init(_, body) => out.extend(flat(body)),
            _ => out.push(s),
        }
    }
    out
}

fn key(s: &ast::Stmt) -> usize {
    s as *const ast::Stmt as usize
}

/// Numbers the control points of a body (a thread's or a procedure's) from
/// 0, its end last; returns them with the body's labels.
fn number(body: &ast::Body) -> Result<(Numbered, HashMap<String, i64>)> {
    fn walk(
        stmts: &[ast::Stmt],
        n: &mut Numbered,
        labels: &mut HashMap<String, i64>,
        spans: &mut HashMap<String, Span>,
        init: &[&ast::Ident],
    ) -> Result<()> {
        for s in stmts {
            if let StmtKind::Init(vars, body) = &s.kind {
                // A marker, not a control point: its statements are the points.
                let inner: Vec<&ast::Ident> = init.iter().copied().chain(vars).collect();
                walk(body, n, labels, spans, &inner)?;
                continue;
            }
            let pc = n.info.len() as i64;
            for v in init {
                n.init_points
                    .entry(v.name.clone())
                    .or_insert_with(|| (Vec::new(), v.span))
                    .0
                    .push(pc);
            }
            n.pcs.insert(key(s), pc);
            n.info
                .push((s.label.as_ref().map(|l| l.name.clone()), s.span));
            if let Some(l) = &s.label {
                if let Some(first) = spans.get(&l.name) {
                    return Err(
                        CompileError::at(l.span, format!("duplicate label `{}`", l.name))
                            .related(*first, "first used here")
                            .help("labels name control points and must be unique within a thread"),
                    );
                }
                labels.insert(l.name.clone(), pc);
                spans.insert(l.name.clone(), l.span);
            }
            match &s.kind {
                StmtKind::If(_, a, b) => {
                    walk(a, n, labels, spans, init)?;
                    walk(b.as_deref().unwrap_or(&[]), n, labels, spans, init)?;
                }
                StmtKind::While(_, a) => walk(a, n, labels, spans, init)?,
                StmtKind::Either(bs) => {
                    for b in bs {
                        walk(b, n, labels, spans, init)?;
                    }
                }
                StmtKind::Atomic(body) => {
                    if let Some(l) = body.iter().find_map(|s| s.label.as_ref()) {
                        return Err(CompileError::at(l.span, "labels inside `atomic` are not allowed")
                            .help("an `atomic` block is a single transition, so its parts are not control points"));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let mut n = Numbered {
        count: 0,
        pcs: HashMap::new(),
        info: Vec::new(),
        init_points: HashMap::new(),
    };
    let mut map = HashMap::new();
    walk(&body.stmts, &mut n, &mut map, &mut HashMap::new(), &[])?;
    n.count = n.info.len();
    n.info.push((None, body.end));
    Ok((n, map))
}

impl Compiler {
    fn define(&mut self, name: &ast::Ident, sym: Sym) -> Result<()> {
        if let Some(old) = self.globals.get(&name.name) {
            return Err(CompileError::at(
                name.span,
                format!("`{}` is already declared", name.name),
            )
            .related(old.span(), "first declared here"));
        }
        self.globals.insert(name.name.clone(), sym);
        Ok(())
    }

    /// The statements of a thread's or procedure's body (`what`, named
    /// `name`) once `repeat` is unrolled, at most [`MAX_STATEMENTS`].
    fn unrolled_size(&self, body: &[ast::Stmt], name: &ast::Ident, what: &str) -> Result<u64> {
        let n = unroll::size(body, &|n: &ast::Expr| self.repeat_count(n))?;
        if n > MAX_STATEMENTS {
            return Err(CompileError::at(
                name.span,
                format!(
                    "{what} `{}` has {n} statements once `repeat` is unrolled; at most {MAX_STATEMENTS} are allowed",
                    name.name
                ),
            ));
        }
        Ok(n)
    }

    /// A `repeat` count: a constant between 0 and [`MAX_ARRAY`].
    fn repeat_count(&self, n: &ast::Expr) -> Result<u64> {
        let k = self.const_int(n, "a repeat count")?;
        if !(0..=MAX_ARRAY).contains(&k) {
            return Err(CompileError::at(
                n.span,
                format!("a repeat count must be between 0 and {MAX_ARRAY}, not {k}"),
            ));
        }
        Ok(k as u64)
    }

    fn consts(&mut self, m: &ast::Model, defines: &Defines) -> Result<()> {
        let mut overrides: IndexMap<&str, &str> = IndexMap::new();
        for (k, v) in defines {
            overrides.insert(k.as_str(), v.as_str());
        }
        for item in &m.items {
            let Item::Const(d) = item else { continue };
            let (mut value, ty) = self.const_value(&d.value)?;
            if let Some(v) = overrides.shift_remove(d.name.name.as_str()) {
                value = match (ty, v.trim()) {
                    (Ty::Bool, "true") => 1,
                    (Ty::Bool, "false") => 0,
                    (Ty::Int, v) => v.parse().map_err(|_| CompileError {
                        span: Some(d.name.span),
                        message: format!(
                            "-D {}={v}: `{}` is an integer constant, and `{v}` is not an integer",
                            d.name.name, d.name.name
                        ),
                        help: None,
                        related: Vec::new(),
                    })?,
                    (_, v) => {
                        return Err(CompileError {
                            span: Some(d.name.span),
                            message: format!(
                                "-D {}={v}: `{}` is a boolean constant; give `true` or `false`",
                                d.name.name, d.name.name
                            ),
                            help: None,
                            related: Vec::new(),
                        });
                    }
                };
            }
            self.define(&d.name, Sym::Const(value, ty, d.name.span))?;
        }
        if let Some((k, _)) = overrides.first() {
            let declared: Vec<&str> = m.consts().map(|d| d.name.name.as_str()).collect();
            return Err(CompileError {
                span: None,
                message: format!("-D {k}: the model declares no constant `{k}`"),
                help: Some(if declared.is_empty() {
                    "this model has no `const` declarations".to_string()
                } else {
                    format!("its constants are: {}", declared.join(", "))
                }),
                related: Vec::new(),
            });
        }
        Ok(())
    }

    fn const_value(&self, e: &ast::Expr) -> Result<(i64, Ty)> {
        self.const_value_in(
            e,
            &mut Scope {
                consts_only: true,
                ..Scope::default()
            },
        )
    }

    fn const_value_in(&self, e: &ast::Expr, sc: &mut Scope) -> Result<(i64, Ty)> {
        let (ce, ty) = self.expr(e, sc)?;
        match ce.eval(&[], &mut Vec::new(), &mut super::expr::NoAccess) {
            Ok(v) => Ok((v, ty)),
            Err(f) => Err(CompileError::at(
                e.span,
                format!("cannot evaluate this constant: {}", fault_text(&f)),
            )),
        }
    }

    fn const_int(&self, e: &ast::Expr, what: &str) -> Result<i64> {
        let (v, ty) = self.const_value(e)?;
        if ty != Ty::Int {
            return Err(CompileError::at(
                e.span,
                format!("{what} must be an integer, not {}", ty.name()),
            ));
        }
        Ok(v)
    }

    /// Decides the threads: `threads N` with one body, or named threads.
    fn threads<'m>(&mut self, m: &'m ast::Model) -> Result<Vec<(&'m ast::ThreadDecl, String)>> {
        let counts: Vec<(&ast::Expr, Span)> = m
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Threads(e, s) => Some((e, *s)),
                _ => None,
            })
            .collect();
        let bodies: Vec<&ast::ThreadDecl> = m.threads().collect();
        if let [_, (_, second), ..] = counts.as_slice() {
            return Err(CompileError::at(*second, "`threads` is declared twice")
                .related(counts[0].1, "first declared here"));
        }
        match counts.first() {
            Some(&(n, span)) => self.counted_threads(n, span, &bodies),
            None => self.named_threads(&bodies),
        }
    }

    /// `threads N` and its single body: N threads named after the body,
    /// with a number.
    fn counted_threads<'m>(
        &mut self,
        n: &ast::Expr,
        span: Span,
        bodies: &[&'m ast::ThreadDecl],
    ) -> Result<Vec<(&'m ast::ThreadDecl, String)>> {
        let body = match bodies {
            [] => {
                return Err(CompileError::at(span, "`threads N` needs a thread body")
                    .help("add `thread T { ... }`: the body that every thread runs"));
            }
            [one] => *one,
            [_, second, ..] => return Err(CompileError::at(
                second.name.span,
                "both `threads N` and named threads in one model",
            )
            .related(span, "`threads N` declared here")
            .help(
                "use either `threads N` with a single body, or one `thread NAME { }` per thread",
            )),
        };
        if let Some(c) = &body.copies {
            return Err(CompileError::at(
                c.span,
                "both `threads N` and `thread NAME[n]` in one model",
            )
            .related(span, "`threads N` declared here")
            .help("drop `threads N` and write `thread NAME[N] { ... }`, or drop the `[n]`"));
        }
        let count = self.const_int(n, "the number of threads")?;
        if !(1..=MAX_THREADS).contains(&count) {
            return Err(CompileError::at(
                n.span,
                format!("the number of threads must be between 1 and {MAX_THREADS}, not {count}"),
            ));
        }
        for k in 0..count {
            self.add_thread(format!("{}{k}", body.name.name), body.name.span, None)?;
        }
        Ok(self
            .thread_names
            .iter()
            .map(|n| (body, n.clone()))
            .collect())
    }

    /// Named threads, each `thread NAME { }` one thread and each
    /// `thread NAME[n] { }` n copies.
    fn named_threads<'m>(
        &mut self,
        bodies: &[&'m ast::ThreadDecl],
    ) -> Result<Vec<(&'m ast::ThreadDecl, String)>> {
        if bodies.is_empty() {
            return Err(CompileError {
                span: None,
                message: "the model declares no threads".into(),
                help: Some("add `threads N;` and a `thread T { ... }` body, or one `thread NAME { ... }` per thread".into()),
                related: Vec::new(),
            });
        }
        let mut out = Vec::new();
        for t in bodies {
            let Some(n) = &t.copies else {
                let name = self.add_thread(t.name.name.clone(), t.name.span, None)?;
                out.push((*t, name));
                continue;
            };
            let count = self.const_int(n, "the number of copies of a thread")?;
            let total = self.thread_names.len() as i64 + count;
            if count < 1 || total > MAX_THREADS {
                return Err(CompileError::at(
                    n.span,
                    format!(
                        "a thread needs between 1 and {} copies here (at most {MAX_THREADS} threads in all), not {count}",
                        (MAX_THREADS - self.thread_names.len() as i64).max(1)
                    ),
                ));
            }
            for k in 0..count {
                let name = self.add_thread(format!("{}{k}", t.name.name), t.name.span, Some(k))?;
                out.push((*t, name));
            }
        }
        if out.len() as i64 > MAX_THREADS {
            return Err(CompileError::at(
                bodies[bodies.len() - 1].name.span,
                format!("more than {MAX_THREADS} threads"),
            ));
        }
        Ok(out)
    }

    /// Defines the next thread's name (declared at `span`), with its copy
    /// number for a copy of `thread NAME[n]`; returns the name.
    fn add_thread(&mut self, name: String, span: Span, copy: Option<i64>) -> Result<String> {
        let id = self.thread_names.len() as i64;
        let ident = ast::Ident { name, span };
        self.define(&ident, Sym::Thread(id, span))?;
        self.thread_names.push(ident.name.clone());
        self.copy_index.push(copy);
        Ok(ident.name)
    }

    /// Declares a local of thread `thread` (of its body, or of a copy of a
    /// procedure, whose slots are named after `owner`), beside the other
    /// locals of the same body in `locals`.
    fn declare_local(
        &mut self,
        d: &ast::VarDecl,
        owner: &str,
        thread: usize,
        locals: &IndexMap<String, Var>,
    ) -> Result<Var> {
        if let Some(sym) = self.globals.get(&d.name.name) {
            return Err(CompileError::at(
                d.name.span,
                format!("`{}` is already declared", d.name.name),
            )
            .related(sym.span(), "first declared here")
            .help("give the local another name"));
        }
        let nthreads = self.thread_names.len() as i64;
        let var = self.declare_var(d, Some(owner), nthreads, Some(thread as i64))?;
        if let Some(old) = locals.get(&d.name.name) {
            return Err(CompileError::at(
                d.name.span,
                format!("`{}` is already declared", d.name.name),
            )
            .related(old.span, "first declared here"));
        }
        Ok(var)
    }

    /// Allocates the slots of a variable and sets their initial values.
    fn declare_var(
        &mut self,
        d: &ast::VarDecl,
        owner: Option<&str>,
        nthreads: i64,
        thread: Option<i64>,
    ) -> Result<Var> {
        let len = self.array_len(d)?;
        let (kind, lo, hi) = self.var_range(d, nthreads)?;
        let values = self.initial_values(d, len, (kind, lo, hi), thread)?;
        let n = values.len();
        let prot = self.protected_elements(d, len, thread)?;
        if self.slots.len() + n > MAX_SLOTS {
            return Err(CompileError::at(
                d.span,
                format!(
                    "this declaration takes the state to {} slots; at most {MAX_SLOTS} are allowed",
                    self.slots.len() + n
                ),
            )
            .help("every array element is a slot, and the locals of `threads N` are declared once per thread"));
        }
        let base = self.slots.len() as u32;
        for (k, &(v, _)) in values.iter().enumerate() {
            let class = match thread {
                Some(t) => SlotClass::Local(t as u32),
                None if prot[k] => SlotClass::Protected,
                None => SlotClass::Shared,
            };
            let mut name = match len {
                Some(_) => format!("{}[{k}]", d.name.name),
                None => d.name.name.clone(),
            };
            if let Some(o) = owner {
                name = format!("{o}.{name}");
            }
            self.slots.push(Slot {
                name,
                kind,
                class,
                span: d.span,
            });
            self.bounds.push((lo, hi));
            self.init.push(v);
        }
        Ok(Var {
            base,
            len,
            kind,
            any_prot: prot.contains(&true),
            prot: prot.into(),
            shared: thread.is_none(),
            chan: match &d.ty {
                Type::Chan(q) => Some(q.name.clone()),
                _ => None,
            },
            span: d.name.span,
        })
    }

    /// The number of elements of an array, `None` for a scalar.
    fn array_len(&self, d: &ast::VarDecl) -> Result<Option<u32>> {
        let Some(e) = &d.size else {
            return Ok(None);
        };
        let n = self.const_int(e, "an array size")?;
        if !(1..=MAX_ARRAY).contains(&n) {
            return Err(CompileError::at(
                e.span,
                format!("array size must be between 1 and {MAX_ARRAY}, not {n}"),
            ));
        }
        Ok(Some(n as u32))
    }

    /// A variable's kind of slot and its range of values (a lock holds an
    /// owner's id, or `FREE`).
    fn var_range(&self, d: &ast::VarDecl, nthreads: i64) -> Result<(SlotKind, i64, i64)> {
        Ok(match &d.ty {
            Type::Bool => (SlotKind::Bool, 0, 1),
            Type::Lock => (SlotKind::Lock, FREE, nthreads - 1),
            Type::Chan(q) => (SlotKind::Int, 0, self.chan_param_top(q)?),
            Type::Int(lo, hi) | Type::Sem(lo, hi) => {
                let (l, h) = (
                    self.const_int(lo, "a range bound")?,
                    self.const_int(hi, "a range bound")?,
                );
                if l > h {
                    return Err(CompileError::at(
                        lo.span.to(hi.span),
                        format!("empty range {l}..{h}"),
                    )
                    .help("write the smaller bound first"));
                }
                let kind = if matches!(d.ty, Type::Sem(..)) {
                    SlotKind::Sem
                } else {
                    SlotKind::Int
                };
                (kind, l, h)
            }
        })
    }

    /// The initial value of every element (with where it is written), each
    /// inside the variable's range.
    fn initial_values(
        &self,
        d: &ast::VarDecl,
        len: Option<u32>,
        (kind, lo, hi): (SlotKind, i64, i64),
        thread: Option<i64>,
    ) -> Result<Vec<(i64, Span)>> {
        let n = len.unwrap_or(1) as usize;
        let values: Vec<(i64, Span)> = match &d.init {
            None => vec![(if kind == SlotKind::Lock { FREE } else { lo }, d.span); n],
            Some(Init::Value(e)) => vec![(self.init_value(e, kind, thread)?, e.span); n],
            Some(Init::List(es, span)) => {
                if len.is_none() {
                    return Err(CompileError::at(
                        *span,
                        format!(
                            "`{}` is not an array; give it a single initial value",
                            d.name.name
                        ),
                    ));
                }
                if es.len() != n {
                    return Err(CompileError::at(
                        *span,
                        format!("{} initial values for an array of {n}", es.len()),
                    ));
                }
                es.iter()
                    .map(|e| Ok((self.init_value(e, kind, thread)?, e.span)))
                    .collect::<Result<_>>()?
            }
        };
        for &(v, span) in &values {
            if v < lo || v > hi {
                let shown = if kind == SlotKind::Bool {
                    format!("{}", v != 0)
                } else {
                    v.to_string()
                };
                return Err(CompileError::at(
                    span,
                    format!(
                        "initial value {shown} is outside the range {lo}..{hi} of `{}`",
                        d.name.name
                    ),
                ));
            }
        }
        Ok(values)
    }

    /// Which elements are protected: every element of a shared `protected`
    /// variable but those listed `unprotected`.
    fn protected_elements(
        &self,
        d: &ast::VarDecl,
        len: Option<u32>,
        thread: Option<i64>,
    ) -> Result<Vec<bool>> {
        let n = len.unwrap_or(1) as usize;
        let mut prot = vec![matches!(d.class, Class::Protected { .. }) && thread.is_none(); n];
        if let Class::Protected { unprotected, .. } = &d.class {
            for e in unprotected {
                let k = self.const_int(e, "an element index")?;
                match len {
                    None => {
                        return Err(CompileError::at(
                            e.span,
                            format!(
                                "`{}` is not an array; declare it `shared` instead",
                                d.name.name
                            ),
                        ));
                    }
                    Some(len) if !(0..i64::from(len)).contains(&k) => {
                        return Err(CompileError::at(
                            e.span,
                            format!("`{}` has no element {k}", d.name.name),
                        ));
                    }
                    Some(_) => prot[k as usize] = false,
                }
            }
        }
        Ok(prot)
    }

    fn init_value(&self, e: &ast::Expr, kind: SlotKind, thread: Option<i64>) -> Result<i64> {
        // A local of a copy of `thread NAME[n]` may start at `index`.
        let params = thread
            .and_then(|t| self.copy_index.get(t as usize).copied().flatten())
            .map(|k| vec![("index".to_string(), k)])
            .unwrap_or_default();
        let mut sc = Scope {
            consts_only: true,
            self_id: thread,
            params,
            ..Scope::default()
        };
        let (v, ty) = self.const_value_in(e, &mut sc)?;
        let want = match kind {
            SlotKind::Bool => Ty::Bool,
            SlotKind::Lock => Ty::Lock,
            _ => Ty::Int,
        };
        if ty != want && !(want == Ty::Lock && ty == Ty::Int) {
            return Err(CompileError::at(
                e.span,
                format!(
                    "initial value is {}, but the variable is {}",
                    ty.name(),
                    want.name()
                ),
            ));
        }
        Ok(v)
    }

    /// `excl(i, x[k])`, specialised for every thread i.
    fn excl(
        &self,
        d: &ast::VarDecl,
        var: &Var,
        excl: &Excl,
        k: u32,
        nthreads: i64,
    ) -> Result<Protected> {
        let mut preds = Vec::new();
        let text;
        match excl {
            Excl::By(lv) => {
                text = format!("by {}", pretty::lvalue(lv));
                for i in 0..nthreads {
                    let mut sc = Scope::default();
                    let (lock, ty) = self.read_lvalue(lv, &mut sc)?;
                    if ty != Ty::Lock {
                        return Err(CompileError::at(
                            lv.span,
                            format!("`by` needs a lock, and `{}` is {}", lv.name.name, ty.name()),
                        ));
                    }
                    preds.push(CExpr::Bin(
                        BinOp::Eq,
                        Box::new(lock),
                        Box::new(CExpr::Const(i)),
                    ));
                }
            }
            Excl::Pred { params, body } => {
                let ps: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                text = format!("excl({}) = {}", ps.join(", "), pretty::expr(body));
                if params.len() == 2 && var.len.is_none() {
                    return Err(CompileError::at(
                        params[1].span,
                        format!(
                            "`{}` is not an array, so its predicate takes only the thread: `excl(t)`",
                            d.name.name
                        ),
                    ));
                }
                for i in 0..nthreads {
                    let mut sc = Scope {
                        params: vec![(params[0].name.clone(), i)],
                        ..Scope::default()
                    };
                    if let Some(j) = params.get(1) {
                        sc.params.push((j.name.clone(), i64::from(k)));
                    }
                    preds.push(self.cond(body, &mut sc, "an exclusive access predicate")?);
                }
            }
        }
        let excl: Vec<CExpr> = preds.into_iter().map(fold).collect();
        for p in &excl {
            self.budget
                .charge(limits::nodes(p) - 1, d.span, "this declaration")?;
        }
        Ok(Protected {
            slot: var.base + k,
            excl,
            text,
            span: d.span,
            line: self.lines.line(d.span.start),
        })
    }

    // ---- expressions ---------------------------------------------------------

    /// `e` compiled, when its type is `want`; otherwise the error at `e`
    /// that `mismatch` words from the type it has. Every place that needs
    /// a value of one type checks it here.
    fn typed(
        &self,
        e: &ast::Expr,
        sc: &mut Scope,
        want: Ty,
        mismatch: impl FnOnce(Ty) -> String,
    ) -> Result<CExpr> {
        let (c, ty) = self.expr(e, sc)?;
        if ty != want {
            return Err(CompileError::at(e.span, mismatch(ty)));
        }
        Ok(c)
    }

    fn cond(&self, e: &ast::Expr, sc: &mut Scope, what: &str) -> Result<CExpr> {
        let must = |ty: Ty| format!("{what} must be a bool, but this is {}", ty.name());
        Ok(fold(self.typed(e, sc, Ty::Bool, must)?))
    }

    fn int(&self, e: &ast::Expr, sc: &mut Scope, what: &str) -> Result<CExpr> {
        let must = |ty: Ty| format!("{what} must be an int, but this is {}", ty.name());
        self.typed(e, sc, Ty::Int, must)
    }

    fn lookup<'s>(&'s self, name: &ast::Ident, sc: &'s Scope) -> Result<Resolved<'s>> {
        let n = name.name.as_str();
        if let Some(k) = sc.bound.iter().rposition(|b| b.0 == n) {
            return Ok(Resolved::Value(CExpr::Bound(k as u32), Ty::Int));
        }
        if let Some((_, v)) = sc.params.iter().find(|(p, _)| p == n) {
            return Ok(Resolved::Value(CExpr::Const(*v), Ty::Int));
        }
        if let Some(v) = sc.locals.and_then(|l| l.get(n)) {
            return Ok(Resolved::Var(v));
        }
        match self.globals.get(n) {
            Some(Sym::Const(v, ty, _)) => Ok(Resolved::Value(CExpr::Const(*v), *ty)),
            Some(Sym::Thread(id, _)) => Ok(Resolved::Value(CExpr::Const(*id), Ty::Int)),
            Some(Sym::Var(v)) => Ok(Resolved::Var(v)),
            Some(Sym::Chan(_)) => Err(CompileError::at(
                name.span,
                format!("`{n}` is a channel, not a value"),
            )
            .help(format!(
                "send with `{n} ! v;`, receive with `{n} ? x;`, and ask `len({n})`, `empty({n})` or `full({n})`"
            ))),
            None => {
                let mut err = CompileError::at(name.span, format!("unknown name `{n}`"));
                let mut candidates: Vec<&str> = self.globals.keys().map(String::as_str).collect();
                candidates.extend(
                    sc.locals
                        .into_iter()
                        .flat_map(|l| l.keys().map(String::as_str)),
                );
                if n == "index" {
                    err = err.help("`index` is the copy number of a `thread NAME[n]` body, defined in that body and in the procedures it calls");
                } else if let Some(best) = closest(n, candidates) {
                    err = err.help(format!("did you mean `{best}`?"));
                } else if sc.in_proc {
                    err = err.help("a procedure sees its parameters, its locals and the shared variables, not the locals of the threads that call it; pass the value as an argument");
                }
                Err(err)
            }
        }
    }

    /// May `v` (element `elem`, when known) be read here?
    fn var_read_check(
        &self,
        name: &ast::Ident,
        v: &Var,
        sc: &Scope,
        elem: Option<i64>,
    ) -> Result<()> {
        if sc.consts_only {
            return Err(CompileError::at(
                name.span,
                format!(
                    "`{}` is a variable, but a constant is needed here",
                    name.name
                ),
            ));
        }
        let protected = match elem {
            Some(k) => v.prot.get(k as usize).copied().unwrap_or(false),
            None => v.any_prot,
        };
        if let (Some(what), true) = (sc.guard, protected) {
            return Err(CompileError::at(name.span, format!("{what} reads protected variable `{}`", name.name))
                .related(v.span, "declared protected here")
                .help("guards may read only local and unprotected variables; test it in an `if` or `while` instead"));
        }
        Ok(())
    }

    fn read_lvalue(&self, lv: &ast::LValue, sc: &mut Scope) -> Result<(CExpr, Ty)> {
        let kind = match &lv.index {
            Some(i) => ExprKind::Index(lv.name.clone(), i.clone()),
            None => ExprKind::Name(lv.name.clone()),
        };
        self.expr(
            &ast::Expr {
                kind,
                span: lv.span,
            },
            sc,
        )
    }

    fn expr(&self, e: &ast::Expr, sc: &mut Scope) -> Result<(CExpr, Ty)> {
        Ok(match &e.kind {
            ExprKind::Int(n) => (CExpr::Const(*n), Ty::Int),
            ExprKind::Bool(b) => (CExpr::Const(i64::from(*b)), Ty::Bool),
            ExprKind::Free => (CExpr::Const(FREE), Ty::Lock),
            ExprKind::Timeout => (self.timeout_read(e.span, sc)?, Ty::Bool),
            ExprKind::SelfId => match sc.self_id {
                Some(id) => (CExpr::Const(id), Ty::Int),
                None => return Err(CompileError::at(
                    e.span,
                    "`self` is only defined inside a thread body",
                )
                .help(
                    "in an exclusive access predicate, use its thread parameter (`t` in `excl(t)`)",
                )),
            },
            ExprKind::Name(n) => self.read_name(n, sc)?,
            ExprKind::Index(n, i) => self.read_element(n, i, sc)?,
            ExprKind::Unary(UnOp::Neg, a) => (
                CExpr::Neg(Box::new(self.int(a, sc, "the operand of `-`")?)),
                Ty::Int,
            ),
            ExprKind::Unary(UnOp::Not, a) => {
                let (c, ty) = self.expr(a, sc)?;
                if ty != Ty::Bool {
                    return Err(CompileError::at(
                        a.span,
                        format!(
                            "the operand of `!` must be a bool, but this is {}",
                            ty.name()
                        ),
                    ));
                }
                (CExpr::Not(Box::new(c)), Ty::Bool)
            }
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b, sc)?,
            ExprKind::At(t, l) => (self.at(e, t, l, sc)?, Ty::Bool),
            ExprKind::Quant(q, v, lo, hi, body) => (
                self.quantifier(e.span, *q, v, [lo, hi], body, sc)?,
                Ty::Bool,
            ),
            ExprKind::Local(t, r) => self.thread_local(e, t, r, sc)?,
            ExprKind::InitPhase(t, x) => (self.init_phase(e, t.as_deref(), x, sc)?, Ty::Bool),
            ExprKind::Chan(q, c) => self.chan_query(*q, c, sc)?,
            ExprKind::Poll(c, args) => self.chan_poll(e, c, args, sc)?,
            ExprKind::Any(..) => {
                return Err(CompileError::at(
                    e.span,
                    "`any lo..hi` is only allowed as the whole right-hand side of an assignment",
                ));
            }
        })
    }

    /// A name read as a value: a constant, a quantified variable or
    /// parameter, or a scalar variable.
    fn read_name(&self, n: &ast::Ident, sc: &mut Scope) -> Result<(CExpr, Ty)> {
        Ok(match self.lookup(n, sc)? {
            Resolved::Value(c, ty) => (c, ty),
            Resolved::Var(v) => {
                self.var_read_check(n, v, sc, None)?;
                if v.len.is_some() {
                    return Err(CompileError::at(
                        n.span,
                        format!(
                            "`{}` is an array; read one element, like `{}[0]`",
                            n.name, n.name
                        ),
                    ));
                }
                (
                    CExpr::Var {
                        slot: v.base,
                        shared: v.shared,
                    },
                    v.ty(),
                )
            }
        })
    }

    /// `n[i]`, an array element read.
    fn read_element(&self, n: &ast::Ident, i: &ast::Expr, sc: &mut Scope) -> Result<(CExpr, Ty)> {
        let Resolved::Var(v) = self.lookup(n, sc)? else {
            return Err(CompileError::at(
                n.span,
                format!("`{}` is not an array", n.name),
            ));
        };
        let v = v.clone();
        let Some(len) = v.len else {
            return Err(CompileError::at(
                n.span,
                format!("`{}` is not an array", n.name),
            ));
        };
        let index = fold(self.int(i, sc, "an array index")?);
        let elem = if let CExpr::Const(k) = index {
            Some(k)
        } else {
            None
        };
        self.var_read_check(n, &v, sc, elem)?;
        let ty = v.ty();
        Ok((
            fold(CExpr::Elem {
                array: Array {
                    base: v.base,
                    len,
                    shared: v.shared,
                },
                index: Box::new(index),
            }),
            ty,
        ))
    }

    /// `a op b`, whose operand types decide its type.
    fn binary(
        &self,
        e: &ast::Expr,
        op: BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
        sc: &mut Scope,
    ) -> Result<(CExpr, Ty)> {
        let (x, tx) = self.expr(a, sc)?;
        let (y, ty) = self.expr(b, sc)?;
        let out = binary_type(op, tx, ty).ok_or_else(|| {
            CompileError::at(
                e.span,
                format!(
                    "`{}` cannot combine {} and {}",
                    op.symbol(),
                    tx.name(),
                    ty.name()
                ),
            )
            .help(binary_help(op))
        })?;
        Ok((CExpr::Bin(op, Box::new(x), Box::new(y)), out))
    }

    /// `at(t, L)`: thread t is at label `L`. A t known at compile time
    /// compares that thread's pc; any other t picks the pc at run time.
    fn at(&self, e: &ast::Expr, t: &ast::Expr, l: &ast::Ident, sc: &mut Scope) -> Result<CExpr> {
        if sc.consts_only {
            return Err(CompileError::at(e.span, "`at(t, L)` is not a constant"));
        }
        let thread = self.int(t, sc, "the thread of `at`")?;
        if self.labels.iter().all(|m| !m.contains_key(&l.name))
            && self.proc_labels.iter().any(|m| m.contains_key(&l.name))
        {
            return self.at_proc_label(thread, t, l);
        }
        let pcs: Vec<Option<i64>> = self
            .labels
            .iter()
            .map(|m| m.get(&l.name).copied())
            .collect();
        if pcs.iter().all(Option::is_none) {
            return Err(CompileError::at(
                l.span,
                format!("no thread has a label `{}`", l.name),
            ));
        }
        match fold(thread) {
            CExpr::Const(k) => match usize::try_from(k).ok().and_then(|k| pcs.get(k)) {
                Some(Some(pc)) => Ok(pc_is(k as usize, *pc)),
                Some(None) => Err(CompileError::at(
                    l.span,
                    format!(
                        "thread `{}` has no label `{}`",
                        self.thread_names[k as usize], l.name
                    ),
                )),
                None => Err(CompileError::at(t.span, format!("there is no thread {k}"))),
            },
            thread => Ok(CExpr::At {
                thread: Box::new(thread),
                pcs,
            }),
        }
    }

    /// `init(x)` / `init(t, x)`: some thread (or thread t) is in the code
    /// that initialises the shared variable x.
    fn init_phase(
        &self,
        e: &ast::Expr,
        t: Option<&ast::Expr>,
        x: &ast::Ident,
        sc: &mut Scope,
    ) -> Result<CExpr> {
        if sc.consts_only {
            return Err(CompileError::at(e.span, "`init(...)` is not a constant"));
        }
        if !matches!(self.globals.get(&x.name), Some(Sym::Var(_))) {
            return Err(CompileError::at(
                x.span,
                format!("`{}` is not a shared variable", x.name),
            ));
        }
        // Thread k is in x's initialisation code: its pc is one of those points.
        let in_init = |k: usize| {
            let points = self.init_points[k]
                .get(&x.name)
                .map(|(p, _)| p.as_slice())
                .unwrap_or(&[]);
            any_of(points.iter().map(|&p| pc_is(k, p)))
        };
        let threads = 0..self.init_points.len();
        Ok(match t {
            None => any_of(threads.map(in_init)),
            Some(t) => match fold(self.int(t, sc, "the thread of `init`")?) {
                CExpr::Const(k) if (0..self.init_points.len() as i64).contains(&k) => {
                    in_init(k as usize)
                }
                CExpr::Const(k) => {
                    return Err(CompileError::at(t.span, format!("there is no thread {k}")));
                }
                te => any_of(threads.map(|k| {
                    CExpr::Bin(
                        BinOp::And,
                        Box::new(CExpr::Bin(
                            BinOp::Eq,
                            Box::new(te.clone()),
                            Box::new(CExpr::Const(k as i64)),
                        )),
                        Box::new(in_init(k)),
                    )
                })),
            },
        })
    }
}

/// `t.r` reads scalar locals only.
fn scalar(v: &Var, r: &ast::Ident) -> Result<()> {
    if v.len.is_some() {
        return Err(CompileError::at(
            r.span,
            format!("`{}` is an array; `t.r` reads scalar locals only", r.name),
        ));
    }
    Ok(())
}

/// `pc(k) == pc`: thread k is at control point pc.
fn pc_is(k: usize, pc: i64) -> CExpr {
    CExpr::Bin(
        BinOp::Eq,
        Box::new(CExpr::Var {
            slot: k as u32,
            shared: false,
        }),
        Box::new(CExpr::Const(pc)),
    )
}

impl Compiler {
    /// `at(t, L)` for a label `L` inside a procedure: thread t is at `L` in
    /// any of its copies of the procedure (one per stack depth).
    fn at_proc_label(&self, thread: CExpr, t: &ast::Expr, l: &ast::Ident) -> Result<CExpr> {
        let copies: Vec<&[i64]> = self
            .proc_labels
            .iter()
            .map(|m| m.get(&l.name).map_or(&[][..], Vec::as_slice))
            .collect();
        match fold(thread) {
            CExpr::Const(k) => match usize::try_from(k).ok().and_then(|k| copies.get(k)) {
                Some(pcs) => {
                    let k = k as usize;
                    Ok(any_of(pcs.iter().map(|&pc| pc_is(k, pc))))
                }
                None => Err(CompileError::at(t.span, format!("there is no thread {k}"))),
            },
            thread => {
                let most = copies.iter().map(|c| c.len()).max().unwrap_or(0);
                Ok(any_of((0..most).map(|j| CExpr::At {
                    thread: Box::new(thread.clone()),
                    pcs: copies.iter().map(|c| c.get(j).copied()).collect(),
                })))
            }
        }
    }

    /// `t.r`: the local `r` of thread `t`. A t known at compile time (a
    /// thread name, `self`, the thread parameter of a predicate) reads that
    /// thread's slot; any other t (a quantified variable, a lock's owner)
    /// reads the slot of whichever thread it is at run time, and faults
    /// when that thread has no local r.
    fn thread_local(
        &self,
        e: &ast::Expr,
        t: &ast::Expr,
        r: &ast::Ident,
        sc: &mut Scope,
    ) -> Result<(CExpr, Ty)> {
        if sc.consts_only {
            return Err(CompileError::at(e.span, "`t.r` is not a constant"));
        }
        if sc.locals.is_some() {
            return Err(CompileError::at(
                e.span,
                "another thread's local can be read only in exclusive access predicates and invariants",
            )
            .help("threads communicate through shared variables; make it `shared`"));
        }
        let (thread, ty) = self.expr(t, sc)?;
        // A lock holds its owner's id, so `(m).r` reads the owner's local.
        if ty == Ty::Bool {
            return Err(CompileError::at(
                t.span,
                format!("a thread is an int, not {}", ty.name()),
            ));
        }
        let thread = match fold(thread) {
            CExpr::Const(k) => {
                let Some(locals) = usize::try_from(k)
                    .ok()
                    .and_then(|k| self.thread_locals.get(k))
                else {
                    return Err(CompileError::at(t.span, format!("there is no thread {k}")));
                };
                let Some(v) = locals.get(&r.name) else {
                    return Err(CompileError::at(
                        r.span,
                        format!(
                            "thread `{}` has no local `{}`",
                            self.thread_names[k as usize], r.name
                        ),
                    ));
                };
                scalar(v, r)?;
                return Ok((
                    CExpr::Var {
                        slot: v.base,
                        shared: false,
                    },
                    v.ty(),
                ));
            }
            thread => thread,
        };
        let (slots, ty) = self.local_slots(r)?;
        Ok((
            CExpr::LocalOf {
                thread: Box::new(thread),
                slots,
            },
            ty,
        ))
    }

    /// The slot of local `r` in every thread (`None` where a body has no
    /// local r), and its type.
    fn local_slots(&self, r: &ast::Ident) -> Result<(Vec<Option<u32>>, Ty)> {
        // Every body that declares r must declare it of one type, or the
        // expression would have none; a body without r faults at run time.
        let mut ty: Option<(Ty, usize)> = None;
        let mut slots = Vec::with_capacity(self.thread_locals.len());
        for (k, locals) in self.thread_locals.iter().enumerate() {
            let Some(v) = locals.get(&r.name) else {
                slots.push(None);
                continue;
            };
            scalar(v, r)?;
            match ty {
                Some((t0, k0)) if t0 != v.ty() => {
                    return Err(CompileError::at(
                        r.span,
                        format!(
                            "`{}` is {} in thread `{}` but {} in thread `{}`, so `t.{}` has no single type",
                            r.name,
                            t0.name(),
                            self.thread_names[k0],
                            v.ty().name(),
                            self.thread_names[k],
                            r.name
                        ),
                    )
                    .help(format!(
                        "give the locals one type, or name the thread (`{}.{}`)",
                        self.thread_names[k0], r.name
                    )));
                }
                Some(_) => {}
                None => ty = Some((v.ty(), k)),
            }
            slots.push(Some(v.base));
        }
        let Some((ty, _)) = ty else {
            return Err(CompileError::at(
                r.span,
                format!("no thread has a local `{}`", r.name),
            ));
        };
        Ok((slots, ty))
    }

    /// `exists`/`forall v in lo..hi: body`, with its cost bounded before it
    /// can run (see [`quant`]).
    fn quantifier(
        &self,
        span: Span,
        q: Quant,
        v: &ast::Ident,
        ends: [&ast::Expr; 2],
        body: &ast::Expr,
        sc: &mut Scope,
    ) -> Result<CExpr> {
        let ranges = |sc: &Scope| sc.bound.iter().map(|b| b.1).collect::<Vec<_>>();
        let env = ranges(sc);
        let mut bounds = Vec::new();
        for e in ends {
            let c = self.int(e, sc, "a quantifier bound")?;
            let Some(range) = quant::interval(&c, &self.bounds, &env) else {
                return Err(CompileError::at(e.span, "the values of this quantifier bound cannot be bounded: its arithmetic may overflow")
                    .help("quantifiers are evaluated by trying every value, so their bounds must stay within known ranges"));
            };
            bounds.push((c, range));
        }
        let ((hi, h), (lo, l)) = (bounds.pop().unwrap(), bounds.pop().unwrap());
        let values = quant::width(l, h);
        if values > MAX_QUANTIFIED {
            return Err(CompileError::at(
                ends[0].span.to(ends[1].span),
                format!("this quantifier may range over {values} values ({} from {} to {}); at most {MAX_QUANTIFIED} are allowed", v.name, l.0, h.1),
            )
            .help("quantifiers are evaluated by trying every value; a bound that reads a variable may take any value in the variable's declared range"));
        }
        sc.bound.push((v.name.clone(), (l.0, h.1)));
        let body = self.cond(body, sc, "a quantifier's body");
        sc.bound.pop();
        let quant = CExpr::Quant(Quantified {
            forall: q == Quant::Forall,
            var: sc.bound.len() as u32,
            lo: Box::new(lo),
            hi: Box::new(hi),
            body: Box::new(body?),
        });
        let total = quant::evaluations(&quant, &self.bounds, &mut ranges(sc)).unwrap_or(u64::MAX);
        if total > MAX_QUANTIFIED {
            return Err(CompileError::at(
                span,
                format!("with the quantifiers inside it, this quantifier evaluates its body up to {total} times; at most {MAX_QUANTIFIED} are allowed"),
            )
            .help("quantifiers are evaluated by trying every value; narrow the ranges or split the quantifiers"));
        }
        Ok(quant)
    }
}

enum Resolved<'s> {
    Value(CExpr, Ty),
    Var(&'s Var),
}

fn binary_type(op: BinOp, a: Ty, b: Ty) -> Option<Ty> {
    use BinOp::*;
    match op {
        Or | And => (a == Ty::Bool && b == Ty::Bool).then_some(Ty::Bool),
        // Locks compare with `free`, with each other and with thread ids.
        Eq | Ne => (a == b || matches!((a, b), (Ty::Lock, Ty::Int) | (Ty::Int, Ty::Lock)))
            .then_some(Ty::Bool),
        Lt | Le | Gt | Ge => (a == Ty::Int && b == Ty::Int).then_some(Ty::Bool),
        Add | Sub | Mul | Div | Mod => (a == Ty::Int && b == Ty::Int).then_some(Ty::Int),
    }
}

fn binary_help(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Or | And => "`&&` and `||` take two bools",
        Eq | Ne => {
            "both sides must have the same type (a lock may also be compared with a thread id)"
        }
        _ => "arithmetic and ordering take two ints",
    }
}

/// The disjunction of `parts` (false when there are none), as a balanced
/// tree: `init(x)` is a disjunction over every point of every thread, and a
/// chain that long would be too deep to evaluate recursively.
fn any_of(parts: impl IntoIterator<Item = CExpr>) -> CExpr {
    let mut level: Vec<CExpr> = parts.into_iter().collect();
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        let mut it = level.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => CExpr::Bin(BinOp::Or, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        level = next;
    }
    level.pop().unwrap_or(CExpr::Const(0))
}

/// Folds constant subexpressions (keeping those whose evaluation faults, so
/// the fault happens, with its trace, when the model runs).
fn fold(e: CExpr) -> CExpr {
    // Operands are folded inside their boxes, so folding allocates nothing.
    match e {
        CExpr::Not(mut a) => {
            *a = fold(*a);
            match *a {
                CExpr::Const(v) => CExpr::Const(i64::from(v == 0)),
                _ => CExpr::Not(a),
            }
        }
        CExpr::Neg(mut a) => {
            *a = fold(*a);
            match *a {
                CExpr::Const(v) if v != i64::MIN => CExpr::Const(-v),
                _ => CExpr::Neg(a),
            }
        }
        CExpr::Bin(op, mut a, mut b) => {
            *a = fold(*a);
            *b = fold(*b);
            match (op, &*a, &*b) {
                (BinOp::And, CExpr::Const(0), _) | (BinOp::And, _, CExpr::Const(0)) => {
                    CExpr::Const(0)
                }
                (BinOp::Or, CExpr::Const(1), _) | (BinOp::Or, _, CExpr::Const(1)) => {
                    CExpr::Const(1)
                }
                (BinOp::And | BinOp::Or, CExpr::Const(_), _) => *b,
                (BinOp::And | BinOp::Or, _, CExpr::Const(_)) => *a,
                (_, CExpr::Const(x), CExpr::Const(y)) => match super::expr::binop(op, *x, *y) {
                    Ok(v) => CExpr::Const(v),
                    Err(_) => CExpr::Bin(op, a, b),
                },
                _ => CExpr::Bin(op, a, b),
            }
        }
        CExpr::Elem { array, mut index } => {
            *index = fold(*index);
            if let CExpr::Const(i) = *index
                && let Ok(slot) = array.slot(i)
            {
                CExpr::Var {
                    slot,
                    shared: array.shared,
                }
            } else {
                CExpr::Elem { array, index }
            }
        }
        e => e,
    }
}

fn fault_text(f: &super::Fault) -> String {
    match f {
        super::Fault::DivZero => "division by zero".into(),
        super::Fault::Overflow => "integer overflow".into(),
        other => format!("{other:?}"),
    }
}
