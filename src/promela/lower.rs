//! Maps a Promela [`Spec`] onto optimist's [`ast::Model`], statement for
//! statement (see `docs/src/promela.md` for the mapping and its limits).
//!
//! Every process instance is a thread of its own: `active [n]` makes n at
//! the start, `init` one, and every `run` site one more, created dormant.
//! A dormant instance's first statement is guarded by its `created` flag,
//! which the `run` sets in the same step that writes its parameters, so a
//! `run` is one step, as in SPIN. Every instance ends with SPIN's removal
//! step: it leaves when it is the last process (`_nr_pr == pid + 1`).

use std::collections::HashMap;

use super::parse::{
    Decl, Ek, Expr, Formula, Init, ProcType, Result, Sk, Spec, Stmt, Ty, VarRef, unsupported,
};
use super::pre::PreError;
use crate::syntax::ast::{self, BinOp, ExprKind, StmtKind, UnOp};
use crate::syntax::span::Span;

mod chanval;
mod numeric;
mod pool;

fn fail<T>(span: Span, message: impl Into<String>) -> Result<T> {
    Err(PreError {
        span,
        message: message.into(),
    })
}

/// At most this many process instances (SPIN's own limit is 255).
const MAX_PROCS: usize = 255;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    B,
    I,
}

/// A variable as the model sees it.
#[derive(Clone, Debug)]
enum Var {
    /// A core variable (shared or local) of this name; `array` when it has
    /// a size; `chan` when it holds channel ids (see [`chanval`]).
    Plain {
        core: String,
        array: bool,
        modulus: Option<i64>,
        chan: bool,
    },
    /// A record of type `ty`: field name -> core variable (`x_f`), whether
    /// an array, whether it holds channel ids; `array` when the record is.
    Record {
        ty: String,
        fields: HashMap<String, (String, bool, bool)>,
        array: bool,
    },
    /// A channel declared with its capacity: the core channel's name,
    /// whether an array, its capacity, the id of its (first) element.
    Chan {
        core: String,
        array: bool,
        cap: i64,
        base: i64,
    },
}

struct Instance {
    proc: usize, // index into procs; usize::MAX for init
    pid: i64,
    name: String,
    /// Created by `run` (dormant until then).
    dormant: bool,
    /// One of a proctype's pool: it goes back to dormant when it ends.
    pool: bool,
    /// For a run-created instance: names bound by the run (params and
    /// non-constant locals), as shared variables, and whether each holds
    /// a channel id.
    run_vars: Vec<(String, String, bool)>,
    /// For a run-created instance: locals whose initial value is not a
    /// constant, which its `run` sets (core name, value).
    run_inits: Vec<(String, Expr)>,
}

impl Instance {
    /// An instance of proctype `proc` (`usize::MAX`: init), named later.
    fn new(proc: usize, pid: i64, dormant: bool, pool: bool) -> Instance {
        Instance {
            proc,
            pid,
            name: String::new(),
            dormant,
            pool,
            run_vars: Vec::new(),
            run_inits: Vec::new(),
        }
    }
}

pub(crate) struct Lower<'s> {
    spec: &'s Spec,
    procs: Vec<ProcType>,
    mtypes: HashMap<String, i64>,
    globals: HashMap<String, Var>,
    items: Vec<ast::Item>,
    instances: Vec<Instance>,
    /// (creator instance, run number within it) -> the instance it
    /// creates, or the pool it creates one of.
    runs: HashMap<(usize, usize), Vec<usize>>,
    /// The processes of a proctype's pool.
    pool_size: usize,
    fresh: usize,
    end: Span,
    pending_locals: Vec<ast::VarDecl>,
    /// `init`, its `run` loops unrolled.
    init: Option<ProcType>,
    /// The instance being lowered.
    cur: usize,
    /// Name -> variable, for the instance being lowered (params, locals).
    scope: HashMap<String, Var>,
    /// `run`s met so far in the instance being lowered.
    run_count: usize,
    /// Labels to rename in the instance's body (a label on nothing).
    aliases: HashMap<String, String>,
    /// The break targets of the enclosing `do`s: (label, used).
    breaks: Vec<(String, bool)>,
    /// Every channel, its id one more than its place (0 is no channel).
    chans: Vec<chanval::ChanEntry>,
}

fn id(name: &str, span: Span) -> ast::Ident {
    ast::Ident {
        name: name.to_string(),
        span,
    }
}
fn ex(kind: ExprKind, span: Span) -> ast::Expr {
    ast::Expr { kind, span }
}
fn int(v: i64, span: Span) -> ast::Expr {
    ex(ExprKind::Int(v), span)
}
fn st(kind: StmtKind, span: Span) -> ast::Stmt {
    ast::Stmt {
        label: None,
        kind,
        span,
    }
}
fn bin(op: BinOp, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    let span = a.span.to(b.span);
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), span)
}
fn not(a: ast::Expr) -> ast::Expr {
    let span = a.span;
    match a.kind {
        ExprKind::Bool(b) => ex(ExprKind::Bool(!b), span),
        _ => ex(ExprKind::Unary(UnOp::Not, Box::new(a)), span),
    }
}

fn range(ty: &Ty, nm: i64, span: Span) -> Result<(i64, i64)> {
    Ok(match ty {
        Ty::Bit => (0, 1),
        Ty::Byte | Ty::Pid => (0, 255),
        Ty::Short => (-32768, 32767),
        Ty::Int => (i32::MIN as i64, i32::MAX as i64),
        Ty::Unsigned(n) => (0, (1i64 << n) - 1),
        Ty::Mtype => (0, nm),
        // SPIN stores a channel as its id, a byte.
        Ty::Chan => (0, 255),
        Ty::Named(n) => return fail(span, format!("`{n}` is a record type, not a value")),
    })
}

/// The mtype names with their numbers, as SPIN gives them: each set (the
/// plain `mtype` and every `mtype:s`) is numbered on its own, from 1, and
/// within a set each declaration's names count down from the set's
/// count so far plus its own length (`mtype = {a, b}; mtype = {c}` gives
/// b = 1, a = 2, c = 3). A name belongs to one set only.
fn number_mtypes(spec: &Spec) -> Result<Vec<(String, i64, Span)>> {
    let mut counts: HashMap<Option<&str>, i64> = HashMap::new();
    let mut seen: HashMap<&str, Span> = HashMap::new();
    let mut out = Vec::new();
    for d in &spec.mtypes {
        let count = counts.entry(d.set.as_deref()).or_default();
        let top = *count + d.names.len() as i64;
        for (k, (name, span)) in d.names.iter().enumerate() {
            if seen.insert(name, *span).is_some() {
                return fail(*span, format!("`{name}` is already an mtype name"));
            }
            out.push((name.clone(), top - k as i64, *span));
        }
        *count = top;
    }
    Ok(out)
}

/// Lowers a whole specification.
pub(crate) fn lower(spec: &Spec, end: Span, pool_size: usize) -> Result<ast::Model> {
    let numbered = number_mtypes(spec)?;
    let mtypes = numbered.iter().map(|(n, v, _)| (n.clone(), *v)).collect();
    let mut l = Lower {
        spec,
        procs: spec.procs.clone(),
        mtypes,
        globals: HashMap::new(),
        items: Vec::new(),
        instances: Vec::new(),
        runs: HashMap::new(),
        pool_size,
        fresh: 0,
        end,
        pending_locals: Vec::new(),
        init: None,
        cur: 0,
        scope: HashMap::new(),
        run_count: 0,
        aliases: HashMap::new(),
        breaks: Vec::new(),
        chans: Vec::new(),
    };
    for (name, v, span) in numbered {
        l.items.push(ast::Item::Const(ast::ConstDecl {
            name: id(&name, span),
            value: int(v, span),
            span,
        }));
    }
    for d in &spec.globals {
        l.global(d)?;
    }
    // Counting loops of `run`s become one site per `run`.
    for k in 0..l.procs.len() {
        let mut body = l.procs[k].body.clone();
        let decls = l.const_decls(&body);
        let whole = body.clone();
        l.unroll_runs(&mut body, &whole, &decls)?;
        l.procs[k].body = body;
    }
    if let Some(init) = &spec.init {
        let mut init = init.clone();
        let decls = l.const_decls(&init.body);
        let whole = init.body.clone();
        l.unroll_runs(&mut init.body, &whole, &decls)?;
        l.init = Some(init);
    }
    l.plan()?;
    let nr = l.instances.iter().filter(|i| !i.dormant).count() as i64;
    l.items.push(ast::Item::Var(ast::VarDecl {
        class: ast::Class::Shared,
        name: id("_nr_pr", end),
        size: None,
        ty: ast::Type::Int(int(0, end), int(MAX_PROCS as i64, end)),
        init: Some(ast::Init::Value(int(nr, end))),
        span: end,
    }));
    // Shared variables of dormant instances: their flag, params and locals.
    for k in 0..l.instances.len() {
        if l.instances[k].dormant {
            l.dormant_vars(k)?;
        }
    }
    for k in 0..l.instances.len() {
        let t = l.thread(k)?;
        l.items.push(ast::Item::Thread(t));
    }
    for (name, f, span) in &spec.ltl {
        let formula = l.formula(f)?;
        l.items.push(ast::Item::Ltl(ast::LtlDecl {
            name: id(name, *span),
            formula,
            text: name.clone(),
            span: *span,
        }));
    }
    Ok(ast::Model {
        name: None,
        items: std::mem::take(&mut l.items),
    })
}

impl<'s> Lower<'s> {
    fn const_eval(&self, e: &Expr) -> Result<i64> {
        let v = match &e.kind {
            Ek::Int(v) => *v,
            Ek::Bool(b) => *b as i64,
            Ek::Var(v)
                if v.index.is_none() && v.field.is_none() && self.mtypes.contains_key(&v.name) =>
            {
                self.mtypes[&v.name]
            }
            Ek::Un("-", a) => self.const_eval(a)?.checked_neg().unwrap_or(0),
            Ek::Un("!", a) => (self.const_eval(a)? == 0) as i64,
            Ek::Bin(op, a, b) => {
                let (a, b) = (self.const_eval(a)?, self.const_eval(b)?);
                match *op {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "/" => a.checked_div(b),
                    "%" => a.checked_rem(b),
                    "<<" => a.checked_shl(b as u32),
                    ">>" => a.checked_shr(b as u32),
                    "&" => Some(a & b),
                    "|" => Some(a | b),
                    "^" => Some(a ^ b),
                    "==" => Some((a == b) as i64),
                    "!=" => Some((a != b) as i64),
                    "<" => Some((a < b) as i64),
                    "<=" => Some((a <= b) as i64),
                    ">" => Some((a > b) as i64),
                    ">=" => Some((a >= b) as i64),
                    "&&" => Some((a != 0 && b != 0) as i64),
                    "||" => Some((a != 0 || b != 0) as i64),
                    _ => None,
                }
                .ok_or_else(|| PreError {
                    span: e.span,
                    message: "this constant overflows or divides by zero".into(),
                })?
            }
            _ => return fail(e.span, "expected a constant"),
        };
        Ok(v)
    }

    /// The largest mtype number: every mtype variable, of any set, is
    /// `0..nm`, since SPIN lets a value of one set be stored in a variable
    /// of another (`test_mtype.pml` of its examples does).
    fn nm(&self) -> i64 {
        self.mtypes.values().copied().max().unwrap_or(0)
    }

    /// Declares variable `d` under the core name `core` with `class`,
    /// returning how it is seen.
    fn declare(
        &mut self,
        d: &Decl,
        core: &str,
        class: ast::Class,
        init: Option<ast::Init>,
    ) -> Result<Var> {
        // Promela's variables start at 0, not at their type's lowest value.
        let init = init.or_else(|| Some(ast::Init::Value(int(0, d.span))));
        let size = match &d.size {
            Some(e) => {
                let n = self.const_eval(e)?;
                if !(1..=65536).contains(&n) {
                    return fail(e.span, "an array size must be 1 to 65536");
                }
                Some(n)
            }
            None => None,
        };
        let sz = |s: Span| size.map(|n| int(n, s));
        if let Ty::Named(tn) = &d.ty {
            let Some(fields) = self.spec.typedefs.get(tn) else {
                return fail(d.span, format!("unknown type `{tn}`"));
            };
            if d.init.is_some() {
                return unsupported(d.span, "an initialiser of a record");
            }
            let mut map = HashMap::new();
            for f in fields.clone() {
                if matches!(f.ty, Ty::Named(_)) {
                    return unsupported(f.span, "a record field of a record type");
                }
                if size.is_some() && f.size.is_some() {
                    return unsupported(f.span, "an array field in an array of records");
                }
                let (lo, hi) = range(&f.ty, self.nm(), f.span)?;
                let fcore = format!("{core}_{}", f.name);
                let init = match &f.init {
                    Some(Init::Value(e)) => {
                        Some(ast::Init::Value(int(self.const_eval(e)?, e.span)))
                    }
                    _ => Some(ast::Init::Value(int(0, f.span))),
                };
                let fsize = match &f.size {
                    Some(e) => Some(int(self.const_eval(e)?, e.span)),
                    None => sz(d.span),
                };
                let array = fsize.is_some();
                self.items_or_local(ast::VarDecl {
                    class: class.clone(),
                    name: id(&fcore, d.span),
                    size: fsize,
                    ty: ast::Type::Int(int(lo, d.span), int(hi, d.span)),
                    init,
                    span: d.span,
                });
                map.insert(f.name.clone(), (fcore, array, f.ty == Ty::Chan));
            }
            return Ok(Var::Record {
                ty: tn.clone(),
                fields: map,
                array: size.is_some(),
            });
        }
        let (lo, hi) = range(&d.ty, self.nm(), d.span)?;
        self.items_or_local(ast::VarDecl {
            class,
            name: id(core, d.span),
            size: sz(d.span),
            ty: ast::Type::Int(int(lo, d.span), int(hi, d.span)),
            init,
            span: d.span,
        });
        // SPIN stores bit, bool, byte and unsigned values truncated, as C does.
        let modulus = match d.ty {
            Ty::Bit | Ty::Byte | Ty::Pid | Ty::Unsigned(_) => Some(hi + 1),
            _ => None,
        };
        Ok(Var::Plain {
            core: core.to_string(),
            array: size.is_some(),
            modulus,
            chan: d.ty == Ty::Chan,
        })
    }

    /// Shared declarations go to the items; locals are collected by the caller.
    fn items_or_local(&mut self, d: ast::VarDecl) {
        if d.class == ast::Class::Local {
            self.pending_locals.push(d);
        } else {
            self.items.push(ast::Item::Var(d));
        }
    }

    /// A channel declared with its capacity, under the core name `core`.
    fn chan_decl(&mut self, d: &Decl, core: &str) -> Result<Var> {
        let Some(Init::Chan(k, fields)) = &d.init else {
            unreachable!("a `chan` without a capacity is a variable of channel ids")
        };
        let (cap, n) = self.chan_shape(d)?;
        let arity = self.msg_fields(fields, d.span)?.len();
        let base = self.chan_id(core, (n, d.size.is_some()), arity, d.span)?;
        let size = d.size.as_ref().map(|e| int(n, e.span));
        let mut tys = Vec::new();
        for f in self.msg_fields(fields, d.span)? {
            // A message field of mtype may carry a channel id (SPIN's
            // examples do): both are bytes.
            let (lo, hi) = match f {
                Ty::Mtype => (0, 255),
                f => range(&f, self.nm(), d.span)?,
            };
            tys.push(ast::Type::Int(int(lo, d.span), int(hi, d.span)));
        }
        self.items.push(ast::Item::Chan(ast::ChanDecl {
            name: id(core, d.span),
            size: size.clone(),
            capacity: int(cap, k.span),
            fields: tys,
            span: d.span,
        }));
        Ok(Var::Chan {
            core: core.to_string(),
            array: size.is_some(),
            cap,
            base,
        })
    }

    fn global(&mut self, d: &Decl) -> Result<()> {
        if self.globals.contains_key(&d.name) || self.mtypes.contains_key(&d.name) {
            return fail(d.span, format!("`{}` is declared twice", d.name));
        }
        let v = if d.ty == Ty::Chan && matches!(d.init, Some(Init::Chan(..))) {
            let c = self.chan_decl(d, &d.name)?;
            let bodies = self
                .procs
                .iter()
                .map(|p| &p.body)
                .chain(self.init.as_ref().map(|i| &i.body));
            let assigned = bodies.flatten().any(|s| assigns(s, &d.name));
            self.held_chan(c, d, &d.name, ast::Class::Shared, assigned)
        } else {
            let init = match &d.init {
                Some(Init::Value(e)) => Some(ast::Init::Value(int(self.const_eval(e)?, e.span))),
                _ => None,
            };
            self.declare(d, &d.name, ast::Class::Shared, init)?
        };
        self.globals.insert(d.name.clone(), v);
        Ok(())
    }
}

/// Visits the `run`s of a body in order, with whether each is in a loop.
fn walk_runs<'a>(
    stmts: &'a [Stmt],
    in_loop: bool,
    f: &mut dyn FnMut(&'a Expr, bool) -> Result<()>,
) -> Result<()> {
    for s in stmts {
        walk_runs_stmt(s, in_loop, f)?;
    }
    Ok(())
}

fn walk_runs_stmt<'a>(
    s: &'a Stmt,
    in_loop: bool,
    f: &mut dyn FnMut(&'a Expr, bool) -> Result<()>,
) -> Result<()> {
    match &s.kind {
        Sk::Expr(e) | Sk::Assign(_, e) if matches!(e.kind, Ek::Run(..)) => f(e, in_loop),
        Sk::If(opts) => opts.iter().try_for_each(|o| walk_runs(o, in_loop, f)),
        Sk::Do(opts) => opts.iter().try_for_each(|o| walk_runs(o, true, f)),
        Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) => walk_runs(b, in_loop, f),
        Sk::For(_, _, _, b) | Sk::ForIn(_, _, b, _) => walk_runs(b, true, f),
        Sk::Label(_, s) => walk_runs_stmt(s, in_loop, f),
        _ => Ok(()),
    }
}

/// The local declarations of a body, wherever they are.
fn local_decls(stmts: &[Stmt], out: &mut Vec<Decl>) {
    for s in stmts {
        match &s.kind {
            Sk::Decl(d) => out.push(d.clone()),
            Sk::If(o) | Sk::Do(o) => o.iter().for_each(|b| local_decls(b, out)),
            Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) | Sk::For(_, _, _, b) => local_decls(b, out),
            Sk::ForIn(_, _, b, counter) => {
                // SPIN's hidden counter of a loop over a channel, a byte.
                out.push(Decl {
                    ty: Ty::Byte,
                    name: counter.clone(),
                    size: None,
                    init: None,
                    span: s.span,
                });
                local_decls(b, out)
            }
            Sk::Label(_, s) => local_decls(std::slice::from_ref(s), out),
            _ => {}
        }
    }
}

impl Lower<'_> {
    /// Decides the process instances: active ones, init, then one per `run` site.
    fn plan(&mut self) -> Result<()> {
        self.plan_active()?;
        self.plan_runs()?;
        self.name_instances();
        self.register_local_chans()
    }

    /// Adds the `active` instances, then `init`, each with no channel binds.
    fn plan_active(&mut self) -> Result<()> {
        let mut pid = 0;
        for (k, p) in self.procs.iter().enumerate() {
            if let Some(n) = &p.active {
                let n = self.const_eval(n)?;
                for _ in 0..n.max(0) {
                    self.instances.push(Instance::new(k, pid, false, false));
                    pid += 1;
                    if self.instances.len() > MAX_PROCS {
                        return fail(p.span, format!("more than {MAX_PROCS} processes"));
                    }
                }
            }
        }
        if self.init.is_some() {
            self.instances
                .push(Instance::new(usize::MAX, pid, false, false));
        }
        Ok(())
    }

    /// Adds one dormant instance per `run` site, breadth first over the
    /// instances, recording each site's instance in `runs`.
    fn plan_runs(&mut self) -> Result<()> {
        let pooled = self.pooled_procs()?;
        let mut pools: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut k = 0;
        while k < self.instances.len() {
            let body = self.body_of(k).clone();
            let mut sites = Vec::new();
            walk_runs(&body, false, &mut |e, _| {
                sites.push(e.clone());
                Ok(())
            })?;
            for (r, e) in sites.into_iter().enumerate() {
                let Ek::Run(name, args) = &e.kind else {
                    continue;
                };
                let Some(pk) = self.procs.iter().position(|p| &p.name == name) else {
                    return fail(e.span, format!("unknown proctype `{name}`"));
                };
                self.check_arity(pk, &e, args)?;
                let members = if pooled.contains(&pk) {
                    match pools.get(&pk) {
                        Some(m) => m.clone(),
                        None => {
                            let m = (0..self.pool_size)
                                .map(|_| self.dormant(pk, true, e.span))
                                .collect::<Result<Vec<_>>>()?;
                            pools.insert(pk, m.clone());
                            m
                        }
                    }
                } else {
                    vec![self.dormant(pk, false, e.span)?]
                };
                self.runs.insert((k, r), members);
            }
            k += 1;
        }
        Ok(())
    }

    /// A new dormant instance of proctype `pk`.
    fn dormant(&mut self, pk: usize, pool: bool, span: Span) -> Result<usize> {
        let new = self.instances.len();
        if new >= MAX_PROCS {
            return unsupported(span, &format!("a model of more than {MAX_PROCS} processes"));
        }
        self.instances
            .push(Instance::new(pk, new as i64, true, pool));
        Ok(new)
    }

    /// The `run` `e` of proctype `pk` gives it as many arguments as it takes.
    fn check_arity(&self, pk: usize, e: &Expr, args: &[Expr]) -> Result<()> {
        let p = &self.procs[pk];
        if p.params.len() != args.len() {
            return fail(
                e.span,
                format!(
                    "`{}` takes {} arguments, given {}",
                    p.name,
                    p.params.len(),
                    args.len()
                ),
            );
        }
        Ok(())
    }

    /// Names the instances: the proctype's for a single instance, else with the pid.
    fn name_instances(&mut self) {
        let mut count: HashMap<usize, usize> = HashMap::new();
        for i in &self.instances {
            *count.entry(i.proc).or_default() += 1;
        }
        for k in 0..self.instances.len() {
            let i = &self.instances[k];
            let base = if i.proc == usize::MAX {
                "init".to_string()
            } else {
                self.procs[i.proc].name.clone()
            };
            let name = if count[&i.proc] == 1 {
                base
            } else {
                format!("{base}_{}", i.pid)
            };
            self.instances[k].name = name;
        }
    }

    fn body_of(&self, k: usize) -> &Vec<Stmt> {
        let i = &self.instances[k];
        if i.proc == usize::MAX {
            &self.init.as_ref().expect("planned").body
        } else {
            &self.procs[i.proc].body
        }
    }

    fn proc_of(&self, k: usize) -> &ProcType {
        let i = &self.instances[k];
        if i.proc == usize::MAX {
            self.init.as_ref().expect("planned")
        } else {
            &self.procs[i.proc]
        }
    }

    /// The shared variables of a dormant instance: its `created` flag and
    /// the parameters its `run` writes.
    fn dormant_vars(&mut self, k: usize) -> Result<()> {
        let name = self.instances[k].name.clone();
        let span = self.proc_of(k).span;
        self.items.push(ast::Item::Var(ast::VarDecl {
            class: ast::Class::Shared,
            name: id(&format!("{name}_created"), span),
            size: None,
            ty: ast::Type::Int(int(0, span), int(1, span)),
            init: None,
            span,
        }));
        // SPIN gives a new process the first free pid: the number of
        // processes alive when it is created.
        self.items.push(ast::Item::Var(ast::VarDecl {
            class: ast::Class::Shared,
            name: id(&format!("{name}_pid"), span),
            size: None,
            ty: ast::Type::Int(int(0, span), int(MAX_PROCS as i64, span)),
            init: None,
            span,
        }));
        let params = self.proc_of(k).params.clone();
        let mut run_vars = Vec::new();
        for d in &params {
            if d.size.is_some() || matches!(d.ty, Ty::Named(_)) {
                return unsupported(d.span, "an array or record parameter");
            }
            let core = format!("{name}_{}", d.name);
            self.declare(d, &core, ast::Class::Shared, None)?;
            run_vars.push((d.name.clone(), core, d.ty == Ty::Chan));
        }
        // Locals initialised from the parameters (or anything not constant).
        let mut decls = Vec::new();
        local_decls(&self.proc_of(k).body.clone(), &mut decls);
        let mut run_inits = Vec::new();
        for d in &decls {
            let Some(Init::Value(e)) = &d.init else {
                continue;
            };
            if d.ty == Ty::Chan || self.const_eval(e).is_ok() {
                continue;
            }
            if d.size.is_some() || matches!(d.ty, Ty::Named(_)) {
                return unsupported(
                    d.span,
                    "an array or record initialised with a non-constant value",
                );
            }
            let core = format!("{name}_{}", d.name);
            self.declare(d, &core, ast::Class::Shared, None)?;
            run_vars.push((d.name.clone(), core.clone(), d.ty == Ty::Chan));
            run_inits.push((core, e.clone()));
        }
        self.instances[k].run_vars = run_vars;
        self.instances[k].run_inits = run_inits;
        Ok(())
    }

    fn thread(&mut self, k: usize) -> Result<ast::ThreadDecl> {
        self.cur = k;
        self.run_count = 0;
        self.aliases.clear();
        self.breaks.clear();
        self.pending_locals.clear();
        let proc = self.proc_of(k).clone();
        let name = self.instances[k].name.clone();
        self.scope = self.param_scope(k, &proc)?;
        self.declare_locals(k, &proc, &name)?;
        let (mut stmts, pending) = self.seq(&proc.body)?;
        let provided = proc.provided.as_ref().map(|e| self.cond(e)).transpose()?;
        self.start_at_goto(&mut stmts, proc.end);
        if self.instances[k].dormant {
            let created = format!("{name}_created");
            if let Some(first) = stmts.first_mut() {
                start_guard(first, &created, &self.globals_cap())?;
            }
        }
        let end = proc.end;
        let mut die = self.die_stmt(k, &name, end);
        for p in pending {
            self.aliases.insert(p, "end__die".into());
        }
        if self.instances[k].dormant && stmts.is_empty() {
            let created = format!("{name}_created");
            die.kind = guard_die_on_created(die.kind, &created, end);
        }
        stmts.push(die);
        self.restart(k, &mut stmts, end);
        let aliases = std::mem::take(&mut self.aliases);
        rename(&mut stmts, &aliases);
        Ok(ast::ThreadDecl {
            name: id(&name, proc.span),
            copies: None,
            dormant: self.instances[k]
                .dormant
                .then(|| id(&format!("{name}_created"), proc.span)),
            provided,
            body: ast::Body {
                locals: std::mem::take(&mut self.pending_locals),
                stmts,
                end: proc.end,
            },
            span: proc.span,
        })
    }

    /// The scope a thread starts with: its bound channels, its `run`
    /// argument variables and, for an active instance, its parameters.
    fn param_scope(&mut self, k: usize, proc: &ProcType) -> Result<HashMap<String, Var>> {
        let mut scope: HashMap<String, Var> = HashMap::new();
        for (p, core, chan) in &self.instances[k].run_vars {
            scope.insert(
                p.clone(),
                Var::Plain {
                    core: core.clone(),
                    array: false,
                    modulus: None,
                    chan: *chan,
                },
            );
        }
        if !self.instances[k].dormant {
            // SPIN starts an active process with its parameters 0.
            for d in &proc.params {
                let v = self.declare(d, &d.name, ast::Class::Local, None)?;
                scope.insert(d.name.clone(), v);
            }
        }
        Ok(scope)
    }

    /// Declares the local variables of instance `k` (named `name`) and adds
    /// them to the scope.
    fn declare_locals(&mut self, k: usize, proc: &ProcType, name: &str) -> Result<()> {
        let mut decls = Vec::new();
        local_decls(&proc.body, &mut decls);
        for d in &decls {
            if self.instances[k]
                .run_inits
                .iter()
                .any(|(c, _)| *c == format!("{name}_{}", d.name))
            {
                continue;
            }
            if self.scope.contains_key(&d.name) {
                return fail(
                    d.span,
                    format!("`{}` is declared twice in this proctype", d.name),
                );
            }
            let v = if d.ty == Ty::Chan && matches!(d.init, Some(Init::Chan(..))) {
                let core = format!("{name}_{}", d.name);
                let c = self.chan_decl(d, &core)?;
                let assigned = proc.body.iter().any(|s| assigns(s, &d.name));
                self.held_chan(c, d, &core, ast::Class::Local, assigned)
            } else {
                let init = match &d.init {
                    Some(Init::Value(e)) => match self.const_eval_pid(e) {
                        Ok(v) => Some(ast::Init::Value(int(v, e.span))),
                        Err(_) => {
                            return unsupported(
                                e.span,
                                "a local initialised with a non-constant expression",
                            );
                        }
                    },
                    _ => None,
                };
                self.declare(d, &d.name, ast::Class::Local, init)?
            };
            self.scope.insert(d.name.clone(), v);
        }
        Ok(())
    }

    /// The final step of a thread, labelled `end__die`: SPIN's removal of an
    /// ended process, the last one (highest pid) first.
    fn die_stmt(&self, k: usize, name: &str, end: Span) -> ast::Stmt {
        let pid = self.pid_expr(end);
        let nr = || ex(ExprKind::Name(id("_nr_pr", end)), end);
        let mut die = st(
            StmtKind::Atomic(vec![
                st(
                    StmtKind::Await(bin(BinOp::Eq, nr(), bin(BinOp::Add, pid, int(1, end)))),
                    end,
                ),
                st(
                    StmtKind::Assign(
                        vec![ast::LValue {
                            name: id("_nr_pr", end),
                            index: None,
                            span: end,
                        }],
                        vec![bin(BinOp::Sub, nr(), int(1, end))],
                    ),
                    end,
                ),
            ]),
            end,
        );
        // SPIN's state loses a removed process's variables: reset them.
        if let StmtKind::Atomic(parts) = &mut die.kind {
            for (var, index, v) in self.die_resets(k, name) {
                let lv = ast::LValue {
                    name: id(&var, end),
                    index: index.map(|i| Box::new(int(i, end))),
                    span: end,
                };
                parts.push(st(StmtKind::Assign(vec![lv], vec![int(v, end)]), end));
            }
        }
        die.label = Some(id("end__die", end));
        die
    }

    /// The variables (name, element, initial value) an ended instance `k`
    /// resets, as SPIN's state loses them.
    fn die_resets(&self, k: usize, name: &str) -> Vec<(String, Option<i64>, i64)> {
        let mut resets: Vec<(String, Option<i64>, i64)> = Vec::new();
        for d in &self.pending_locals {
            let v = reset_value(d);
            match d.size.as_ref().map(|e| &e.kind) {
                Some(ExprKind::Int(n)) => {
                    (0..*n).for_each(|k| resets.push((d.name.name.clone(), Some(k), v)))
                }
                _ => resets.push((d.name.name.clone(), None, v)),
            }
        }
        if self.instances[k].dormant {
            resets.push((format!("{name}_pid"), None, 0));
            for (_, core, _) in &self.instances[k].run_vars {
                let lo = self.items.iter().find_map(|it| match it {
                    ast::Item::Var(d) if &d.name.name == core => Some(reset_value(d)),
                    _ => None,
                });
                resets.push((core.clone(), None, lo.unwrap_or(0)));
            }
        }
        resets
    }

    /// A body that begins with `goto L` (L a statement of the body itself):
    /// SPIN starts the process at L, with no step for the jump. The body
    /// is turned to begin at L: `L: T...; (to the end) S...; (to L)`.
    fn start_at_goto(&mut self, stmts: &mut Vec<ast::Stmt>, end: Span) {
        let Some(ast::Stmt {
            kind: StmtKind::Jump(l),
            label: None,
            ..
        }) = stmts.first()
        else {
            return;
        };
        let mut target = l.name.clone();
        for _ in 0..=self.aliases.len() {
            match self.aliases.get(&target) {
                Some(t) => target = t.clone(),
                None => break,
            }
        }
        let Some(pos) = stmts
            .iter()
            .position(|s| s.label.as_ref().is_some_and(|x| x.name == target))
        else {
            return;
        };
        let mut rest: Vec<ast::Stmt> = stmts.drain(1..).collect();
        let mut body = rest.split_off(pos - 1);
        body.push(st(StmtKind::Jump(id("end__die", end)), end));
        if !rest.is_empty() {
            body.extend(rest);
            body.push(st(StmtKind::Jump(id(&target, end)), end));
        }
        *stmts = body;
    }

    /// `_pid` of the instance being lowered: a constant for the processes
    /// of the initial state, the variable its `run` set for the others.
    fn pid_expr(&self, span: Span) -> ast::Expr {
        let i = &self.instances[self.cur];
        if i.dormant {
            ex(ExprKind::Name(id(&format!("{}_pid", i.name), span)), span)
        } else {
            int(i.pid, span)
        }
    }

    fn globals_cap(&self) -> HashMap<String, i64> {
        let mut m = HashMap::new();
        for v in self.globals.values().chain(self.scope.values()) {
            if let Var::Chan { core, cap, .. } = v {
                m.insert(core.clone(), *cap);
            }
        }
        for it in &self.items {
            if let ast::Item::Chan(c) = it {
                if let ExprKind::Int(v) = c.capacity.kind {
                    m.insert(c.name.name.clone(), v);
                }
            }
        }
        m
    }

    /// The locals of a body declared with a constant value, or none (0).
    fn const_decls(&self, body: &[Stmt]) -> HashMap<String, i64> {
        let mut ds = Vec::new();
        local_decls(body, &mut ds);
        ds.iter()
            .filter(|d| d.size.is_none())
            .filter_map(|d| match &d.init {
                Some(Init::Value(e)) => self.const_eval(e).ok().map(|v| (d.name.clone(), v)),
                None => Some((d.name.clone(), 0)),
                _ => None,
            })
            .collect()
    }

    fn const_eval_pid(&self, e: &Expr) -> Result<i64> {
        if self.instances[self.cur].dormant {
            // Its pid is known only when it is created.
            return self.const_eval(e);
        }
        let pid = self.instances[self.cur].pid;
        let e = subst_pid(e, pid);
        self.const_eval(&e)
    }
}

/// The value a removed process's variable is reset to: its constant
/// initialiser, else its type's lower bound, else 0.
fn reset_value(d: &ast::VarDecl) -> i64 {
    match (&d.init, &d.ty) {
        (
            Some(ast::Init::Value(ast::Expr {
                kind: ExprKind::Int(v),
                ..
            })),
            _,
        ) => *v,
        (
            _,
            ast::Type::Int(
                ast::Expr {
                    kind: ExprKind::Int(lo),
                    ..
                },
                _,
            ),
        ) => *lo,
        _ => 0,
    }
}

/// A dormant instance with an empty body: its removal step also waits for
/// the instance to have been created.
fn guard_die_on_created(kind: StmtKind, created: &str, end: Span) -> StmtKind {
    match kind {
        StmtKind::Atomic(mut parts) => {
            parts[0] = st(
                StmtKind::Await(bin(
                    BinOp::And,
                    bin(
                        BinOp::Eq,
                        ex(ExprKind::Name(id(created, end)), end),
                        int(1, end),
                    ),
                    match &parts[0].kind {
                        StmtKind::Await(e) => e.clone(),
                        _ => unreachable!(),
                    },
                )),
                end,
            );
            StmtKind::Atomic(parts)
        }
        k => k,
    }
}

/// `e` with the parameters replaced by the arguments of a `run`, and
/// `_pid` by the new process's (the last one alive).
fn subst_params(e: &Expr, bound: &HashMap<String, Expr>) -> Expr {
    let kind = match &e.kind {
        Ek::Var(v) if v.index.is_none() && v.field.is_none() && bound.contains_key(&v.name) => {
            return bound[&v.name].clone();
        }
        Ek::Pid => Ek::Bin(
            "-",
            Box::new(Expr {
                kind: Ek::NrPr,
                span: e.span,
            }),
            Box::new(Expr {
                kind: Ek::Int(1),
                span: e.span,
            }),
        ),
        Ek::Un(o, a) => Ek::Un(o, Box::new(subst_params(a, bound))),
        Ek::Bin(o, a, b) => Ek::Bin(
            o,
            Box::new(subst_params(a, bound)),
            Box::new(subst_params(b, bound)),
        ),
        k => k.clone(),
    };
    Expr { kind, span: e.span }
}

fn subst_pid(e: &Expr, pid: i64) -> Expr {
    let kind = match &e.kind {
        Ek::Pid => Ek::Int(pid),
        Ek::Un(o, a) => Ek::Un(o, Box::new(subst_pid(a, pid))),
        Ek::Bin(o, a, b) => Ek::Bin(o, Box::new(subst_pid(a, pid)), Box::new(subst_pid(b, pid))),
        k => k.clone(),
    };
    Expr { kind, span: e.span }
}

/// Renames labels in gotos.
fn rename(stmts: &mut [ast::Stmt], aliases: &HashMap<String, String>) {
    if aliases.is_empty() {
        return;
    }
    let resolve = |mut n: String| {
        let mut hops = 0;
        while let Some(m) = aliases.get(&n) {
            n = m.clone();
            hops += 1;
            if hops > aliases.len() {
                break;
            }
        }
        n
    };
    for s in stmts {
        match &mut s.kind {
            StmtKind::Jump(l) => l.name = resolve(l.name.clone()),
            StmtKind::Either(bs) => bs.iter_mut().for_each(|b| rename(b, aliases)),
            StmtKind::Atomic(b) | StmtKind::While(_, b) => rename(b, aliases),
            StmtKind::If(_, a, b) => {
                rename(a, aliases);
                if let Some(b) = b {
                    rename(b, aliases);
                }
            }
            _ => {}
        }
    }
}

/// Guards the first step of a dormant instance with its `created` flag.
fn start_guard(s: &mut ast::Stmt, created: &str, caps: &HashMap<String, i64>) -> Result<()> {
    let span = s.span;
    let flag = bin(
        BinOp::Eq,
        ex(ExprKind::Name(id(created, span)), span),
        int(1, span),
    );
    let rendezvous = |lv: &ast::LValue| caps.get(&lv.name.name).copied() == Some(0);
    // A rendezvous first step becomes `atomic { await created; c ? x }`,
    // which the core pairs with the guard.
    match &mut s.kind {
        StmtKind::Await(e) | StmtKind::Bound(e) => {
            *e = bin(BinOp::And, flag, e.clone());
        }
        StmtKind::Either(bs) => {
            for b in bs {
                if let Some(f) = b.first_mut() {
                    start_guard(f, created, caps)?;
                }
            }
        }
        StmtKind::Atomic(parts) => match parts.first_mut().map(|p| &mut p.kind) {
            Some(StmtKind::Await(e)) => *e = bin(BinOp::And, flag, e.clone()),
            Some(StmtKind::Send(lv, _) | StmtKind::Receive(lv, ..)) if rendezvous(lv) => {
                return unsupported(
                    span,
                    "a process created by `run` whose first step is a rendezvous in an `atomic`",
                );
            }
            _ => parts.insert(0, st(StmtKind::Await(flag), span)),
        },
        StmtKind::Jump(_) => {
            return unsupported(
                span,
                "a process created by `run` whose first step is a jump",
            );
        }
        _ => {
            let inner = std::mem::replace(&mut s.kind, StmtKind::Skip);
            s.kind = StmtKind::Atomic(vec![st(StmtKind::Await(flag), span), st(inner, span)]);
        }
    }
    Ok(())
}

impl Lower<'_> {
    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}{}", self.fresh)
    }

    /// A sequence: its statements, and labels still waiting for a statement
    /// (a break target or a label at the end), which name what follows.
    fn seq(&mut self, stmts: &[Stmt]) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let mut out: Vec<ast::Stmt> = Vec::new();
        let mut pending: Vec<String> = Vec::new();
        for s in stmts {
            let (mut got, after) = self.stmt(s, &mut pending)?;
            if let Some(first) = got.first_mut() {
                // The statement keeps one label (an `end` label first, then
                // one of the user's); the others become names of it.
                let mut names: Vec<String> = pending.drain(..).collect();
                names.extend(first.label.take().map(|l| l.name));
                let rank = |l: &String| (!l.starts_with("end"), l.starts_with("__"));
                if let Some(keep) = names.iter().min_by_key(|l| rank(l)).cloned() {
                    for other in names.into_iter().filter(|l| *l != keep) {
                        self.aliases.insert(other, keep.clone());
                    }
                    first.label = Some(id(&keep, first.span));
                }
            }
            out.append(&mut got);
            pending.extend(after);
        }
        Ok((out, pending))
    }

    /// One statement: its core statements and the labels that name what follows it.
    fn stmt(
        &mut self,
        s: &Stmt,
        pending: &mut Vec<String>,
    ) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let span = s.span;
        let one = |k: StmtKind| Ok((vec![st(k, span)], Vec::new()));
        match &s.kind {
            Sk::Decl(d) => {
                // Declarations are hoisted; a non-chan one with a
                // constant initialiser takes no step in SPIN either.
                let _ = d;
                Ok((Vec::new(), Vec::new()))
            }
            Sk::Label(l, inner) => {
                // `accept` and `progress` labels matter only to claims and
                // non-progress cycles, which optimist does not check: they
                // are plain labels here.
                pending.push(l.clone());
                let (mut out, after) = self.stmt(inner, pending)?;
                // SPIN gives a labelled `goto` or `break` a state of its
                // own: here it is a step, not a jump.
                if let [ast::Stmt { kind, .. }] = out.as_mut_slice()
                    && let StmtKind::Jump(target) = kind
                {
                    *kind = StmtKind::Goto(target.clone());
                }
                Ok((out, after))
            }
            Sk::Assign(v, e) => self.assign_stmt(v, e, span),
            Sk::Incr(v, d) => {
                let lv = self.lvalue(v)?;
                let cur = self.var_expr(v)?;
                let op = if *d > 0 { BinOp::Add } else { BinOp::Sub };
                let x = self.wrap(v, bin(op, cur, int(1, span)))?;
                one(StmtKind::Assign(vec![lv], vec![x]))
            }
            Sk::Expr(e) => match &e.kind {
                Ek::Run(..) => one(self.run(e, None)?),
                _ => {
                    let c = self.cond(e)?;
                    one(StmtKind::Await(c))
                }
            },
            Sk::Send(c, args) => {
                let mut xs = Vec::new();
                for a in self.msg_args(args) {
                    xs.push(self.int(&a)?);
                }
                one(self.chan_stmt(c, xs.len(), span, &|lv| StmtKind::Send(lv, xs.clone()))?)
            }
            Sk::Recv(c, args, mode) => {
                let xs = self.recv_args(&self.msg_args(args))?;
                one(self.chan_stmt(c, xs.len(), span, &|lv| {
                    StmtKind::Receive(lv, xs.clone(), *mode)
                })?)
            }
            Sk::Skip | Sk::Printf => one(StmtKind::Skip),
            Sk::Assert(e) => {
                let c = self.cond(e)?;
                one(StmtKind::Assert(c))
            }
            Sk::Goto(l, ls) => one(StmtKind::Jump(id(l, *ls))),
            Sk::Break => {
                let Some(b) = self.breaks.last_mut() else {
                    return fail(span, "`break` outside a `do`");
                };
                b.1 = true;
                let l = b.0.clone();
                one(StmtKind::Jump(id(&l, span)))
            }
            Sk::Else => fail(span, "`else` must begin an option of an `if` or `do`"),
            Sk::Seq(b) => self.seq(b),
            Sk::If(opts) => {
                let (branches, after) = self.options(opts, None)?;
                Ok((vec![st(StmtKind::Either(branches), span)], after))
            }
            Sk::Do(opts) => self.do_stmt(opts, pending, span),
            Sk::Atomic(b) | Sk::DStep(b) => self.atomic_stmt(b, span),
            Sk::For(v, lo, hi, body) => self.for_stmt(v, lo, hi, body, span),
            Sk::ForIn(v, over, body, counter) => self.for_in(v, over, body, counter, span),
            Sk::Select(v, lo, hi) => {
                // SPIN runs its expansion (`i = lo; do :: i < hi -> i++ ::
                // break od`) as one atomic sequence: one step per value.
                let lv = self.lvalue(v)?;
                let (a, b) = (self.const_eval(lo)?, self.const_eval(hi)?);
                if a > b {
                    return fail(span, "an empty `select` range");
                }
                let any = ex(
                    ExprKind::Any(Box::new(int(a, lo.span)), Box::new(int(b, hi.span))),
                    span,
                );
                one(StmtKind::Assign(vec![lv], vec![any]))
            }
        }
    }

    /// `v = e`, where a boolean value becomes one atomic `if` step.
    fn assign_stmt(
        &mut self,
        v: &VarRef,
        e: &Expr,
        span: Span,
    ) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let lv = self.lvalue(v)?;
        if matches!(e.kind, Ek::Run(..)) {
            return Ok((vec![st(self.run(e, Some(lv))?, span)], Vec::new()));
        }
        let (x, t) = self.expr(e)?;
        if t == T::B {
            // b = (cond): one step, as an atomic if.
            let set = |k: i64| {
                vec![st(
                    StmtKind::Assign(vec![lv.clone()], vec![int(k, span)]),
                    span,
                )]
            };
            let s = st(StmtKind::If(x, set(1), Some(set(0))), span);
            return Ok((vec![st(StmtKind::Atomic(vec![s]), span)], Vec::new()));
        }
        let x = self.wrap(v, x)?;
        Ok((
            vec![st(StmtKind::Assign(vec![lv], vec![x]), span)],
            Vec::new(),
        ))
    }

    /// The arguments of a receive or poll.
    fn recv_args(&mut self, args: &[Expr]) -> Result<Vec<ast::RecvArg>> {
        args.iter().map(|a| self.recv_arg(a)).collect()
    }

    /// One argument of a receive: a variable to bind, a value to match or `_`.
    fn recv_arg(&mut self, a: &Expr) -> Result<ast::RecvArg> {
        Ok(match &a.kind {
            Ek::Skip => ast::RecvArg::Skip(a.span),
            Ek::Eval(e) => ast::RecvArg::Match(self.int(e)?),
            Ek::Int(_) | Ek::Bool(_) | Ek::Pid => ast::RecvArg::Match(self.int(a)?),
            Ek::Var(v)
                if v.index.is_none()
                    && v.field.is_none()
                    && self.mtypes.contains_key(&v.name)
                    && !self.scope.contains_key(&v.name) =>
            {
                ast::RecvArg::Match(self.int(a)?)
            }
            Ek::Var(v) => ast::RecvArg::Var(self.lvalue(v)?),
            _ => {
                return fail(
                    a.span,
                    "a receive takes variables, constants, `eval(e)` or `_`",
                );
            }
        })
    }

    /// A `do` loop: a labelled choice whose options jump back to its head,
    /// with a fresh label after it when some option breaks out.
    fn do_stmt(
        &mut self,
        opts: &[Vec<Stmt>],
        pending: &[String],
        span: Span,
    ) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let head = match pending.last() {
            Some(l) => l.clone(),
            None => self.fresh("__do"),
        };
        let brk = self.fresh("__od");
        self.breaks.push((brk.clone(), false));
        let res = self.options(opts, Some(&head));
        let (_, used) = self.breaks.pop().expect("pushed");
        let (branches, _) = res?;
        let mut s = st(StmtKind::Either(branches), span);
        if pending.last() != Some(&head) {
            s.label = Some(id(&head, span));
        }
        Ok((vec![s], if used { vec![brk] } else { Vec::new() }))
    }

    /// `atomic`/`d_step`: one atomic step when the body allows, else the
    /// body's statements as they are.
    fn atomic_stmt(&mut self, b: &[Stmt], span: Span) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let (mut inner, after) = self.seq(b)?;
        // A jump that ends the body leaves the atomic without a step.
        let mut jumps = Vec::new();
        while matches!(
            inner.last().map(|s| (&s.kind, &s.label)),
            Some((StmtKind::Jump(_), None))
        ) && inner.len() > 1
        {
            jumps.insert(0, inner.pop().expect("non-empty"));
        }
        match atomic_parts(&inner) {
            Some(parts) if after.is_empty() => {
                let mut out = vec![st(StmtKind::Atomic(parts), span)];
                out.extend(jumps);
                Ok((out, Vec::new()))
            }
            _ => {
                inner.extend(jumps);
                Ok((inner, after))
            }
        }
    }

    /// `for (v : lo .. hi) body`, lowered through SPIN's own expansion.
    fn for_stmt(
        &mut self,
        v: &VarRef,
        lo: &Expr,
        hi: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        // SPIN's own expansion: i = lo; do :: i <= hi -> body; i++ :: else -> break od
        let var = Expr {
            kind: Ek::Var(v.clone()),
            span: v.span,
        };
        let mut loop_body = vec![Stmt {
            kind: Sk::Expr(Expr {
                kind: Ek::Bin("<=", Box::new(var.clone()), Box::new(hi.clone())),
                span,
            }),
            span,
        }];
        loop_body.extend(body.iter().cloned());
        loop_body.push(Stmt {
            kind: Sk::Incr(v.clone(), 1),
            span,
        });
        let exit = vec![
            Stmt {
                kind: Sk::Else,
                span,
            },
            Stmt {
                kind: Sk::Break,
                span,
            },
        ];
        let seq = vec![
            Stmt {
                kind: Sk::Assign(v.clone(), lo.clone()),
                span,
            },
            Stmt {
                kind: Sk::Do(vec![loop_body, exit]),
                span,
            },
        ];
        self.seq(&seq)
    }

    /// `for (v in a) body`: over the indexes of an array, as `for (v : 0
    /// .. n-1)`, or over the messages of a channel, through SPIN's own
    /// expansion: `counter = 0; do :: counter < len(a) -> a?v; a!v; body;
    /// counter++ :: else -> break od`.
    fn for_in(
        &mut self,
        v: &VarRef,
        over: &VarRef,
        body: &[Stmt],
        counter: &str,
        span: Span,
    ) -> Result<(Vec<ast::Stmt>, Vec<String>)> {
        let e = |kind: Ek| Expr { kind, span };
        let s = |kind: Sk| Stmt { kind, span };
        if over.index.is_none() {
            if let Some(n) = self.array_size(&over.name)? {
                return self.for_stmt(v, &e(Ek::Int(0)), &e(Ek::Int(n - 1)), body, span);
            }
        }
        let c = VarRef {
            name: counter.to_string(),
            index: None,
            field: None,
            span,
        };
        let more = e(Ek::Bin(
            "<",
            Box::new(e(Ek::Var(c.clone()))),
            Box::new(e(Ek::Chan("len", over.clone()))),
        ));
        let msg = vec![e(Ek::Var(v.clone()))];
        let mut go = vec![
            s(Sk::Expr(more)),
            s(Sk::Recv(over.clone(), msg.clone(), ast::RecvMode::Take)),
            s(Sk::Send(over.clone(), msg)),
        ];
        go.extend(body.iter().cloned());
        go.push(s(Sk::Incr(c.clone(), 1)));
        let stop = vec![s(Sk::Else), s(Sk::Break)];
        self.seq(&[s(Sk::Assign(c, e(Ek::Int(0)))), s(Sk::Do(vec![go, stop]))])
    }

    /// The number of elements of the array `name` in scope, None when it
    /// is no array.
    fn array_size(&self, name: &str) -> Result<Option<i64>> {
        let mut decls = Vec::new();
        local_decls(self.body_of(self.cur), &mut decls);
        let local = decls
            .iter()
            .find(|d| d.name == name && self.scope.contains_key(name));
        let decl = local.or_else(|| self.spec.globals.iter().find(|d| d.name == name));
        match decl.and_then(|d| d.size.as_ref()) {
            Some(n) => Ok(Some(self.const_eval(n)?)),
            None => Ok(None),
        }
    }

    /// Ends a `do` option with the jump back to `head`; labels pending
    /// after the option name that jump (the first one; the others alias it).
    fn loop_back(&mut self, body: &mut Vec<ast::Stmt>, pend: &mut Vec<String>, head: &str) {
        let span = body.last().expect("non-empty").span;
        let mut g = st(StmtKind::Jump(id(head, span)), span);
        if let Some(p) = pend.first() {
            g.label = Some(id(p, span));
            for q in &pend[1..] {
                self.aliases.insert(q.clone(), p.clone());
            }
        }
        pend.clear();
        body.push(g);
    }

    /// The options of an `if` (`head` None) or a `do` (each option goes
    /// back to `head`).
    fn options(
        &mut self,
        opts: &[Vec<Stmt>],
        head: Option<&str>,
    ) -> Result<(Vec<Vec<ast::Stmt>>, Vec<String>)> {
        let mut branches: Vec<Option<Vec<ast::Stmt>>> = Vec::new();
        let mut after = Vec::new();
        let mut else_at = None;
        for (k, o) in opts.iter().enumerate() {
            if matches!(o.first().map(|s| &s.kind), Some(Sk::Else)) {
                if else_at.is_some() {
                    return fail(o[0].span, "a second `else`");
                }
                else_at = Some(k);
                branches.push(None);
                continue;
            }
            let (mut b, mut pend) = self.seq(o)?;
            if b.is_empty() {
                return fail(
                    o.first().map_or(self.end, |s| s.span),
                    "an option without a statement",
                );
            }
            if let Some(h) = head {
                self.loop_back(&mut b, &mut pend, h);
            }
            after.extend(pend);
            branches.push(Some(b));
        }
        if let Some(k) = else_at {
            let o = &opts[k];
            let span = o[0].span;
            let mut any = Vec::new();
            for b in branches.iter().flatten() {
                match exec(&b[0], &self.globals_cap())? {
                    Some(g) => any.push(g),
                    None => any = vec![ex(ExprKind::Bool(true), span)],
                }
                if matches!(any.last().map(|e| &e.kind), Some(ExprKind::Bool(true))) {
                    break;
                }
            }
            let guard = any
                .into_iter()
                .reduce(|a, b| bin(BinOp::Or, a, b))
                .map_or(ex(ExprKind::Bool(true), span), not);
            let (mut rest, mut pend) = self.seq(&o[1..])?;
            rest.insert(0, st(StmtKind::Await(guard), span));
            if let Some(h) = head {
                self.loop_back(&mut rest, &mut pend, h);
            }
            after.extend(pend);
            branches[k] = Some(rest);
        }
        let branches: Vec<Vec<ast::Stmt>> = branches.into_iter().flatten().collect();
        // Several labels after: one names the statement, the others alias it.
        if after.len() > 1 {
            let first = after[0].clone();
            for q in &after[1..] {
                self.aliases.insert(q.clone(), first.clone());
            }
            after.truncate(1);
        }
        Ok((branches, after))
    }

    /// A `run` (its value, the new pid, into `target`): one step that sets
    /// the instance's flag and parameters; on a pool, the first instance
    /// not running.
    fn run(&mut self, e: &Expr, target: Option<ast::LValue>) -> Result<StmtKind> {
        let r = self.run_count;
        self.run_count += 1;
        let Some(members) = self.runs.get(&(self.cur, r)).cloned() else {
            return unsupported(e.span, "this `run`");
        };
        let Ek::Run(_, args) = &e.kind else {
            unreachable!()
        };
        if self.instances[members[0]].pool {
            return self.pool_run(&members, args, e.span, target);
        }
        Ok(StmtKind::Atomic(
            self.run_parts(members[0], args, e.span, target)?,
        ))
    }

    /// The statements of a `run` of instance `j`.
    fn run_parts(
        &mut self,
        j: usize,
        args: &[Expr],
        span: Span,
        target: Option<ast::LValue>,
    ) -> Result<Vec<ast::Stmt>> {
        let name = self.instances[j].name.clone();
        let params = self.proc_of(j).params.clone();
        let nr = ex(ExprKind::Name(id("_nr_pr", span)), span);
        let mut lvs = vec![
            ast::LValue {
                name: id(&format!("{name}_created"), span),
                index: None,
                span,
            },
            ast::LValue {
                name: id(&format!("{name}_pid"), span),
                index: None,
                span,
            },
        ];
        let mut vals = vec![int(1, span), nr.clone()];
        if let Some(t) = target {
            lvs.push(t);
            vals.push(nr);
        }
        for (d, a) in params.iter().zip(args) {
            lvs.push(ast::LValue {
                name: id(&format!("{name}_{}", d.name), span),
                index: None,
                span,
            });
            vals.push(self.int(a)?);
        }
        lvs.push(ast::LValue {
            name: id("_nr_pr", span),
            index: None,
            span,
        });
        vals.push(bin(
            BinOp::Add,
            ex(ExprKind::Name(id("_nr_pr", span)), span),
            int(1, span),
        ));
        let mut out = vec![st(StmtKind::Assign(lvs, vals), span)];
        // Then the locals initialised from the parameters, read as the arguments.
        let mut bound: HashMap<String, Expr> = HashMap::new();
        for (d, a) in params.iter().zip(args) {
            bound.insert(d.name.clone(), a.clone());
        }
        for (core, e) in self.instances[j].run_inits.clone() {
            let e = subst_params(&e, &bound);
            let v = self.int(&e)?;
            out.push(st(
                StmtKind::Assign(
                    vec![ast::LValue {
                        name: id(&core, span),
                        index: None,
                        span,
                    }],
                    vec![v],
                ),
                span,
            ));
        }
        Ok(out)
    }

    /// `x` as SPIN stores it in `v`: truncated to the width of a bit,
    /// byte or unsigned variable (a constant in range is left as it is).
    fn wrap(&self, v: &VarRef, x: ast::Expr) -> Result<ast::Expr> {
        let m = match self.lookup(&v.name, v.span)? {
            Var::Plain {
                modulus: Some(m), ..
            } if v.field.is_none() => m,
            _ => return Ok(x),
        };
        if let ExprKind::Int(k) = x.kind {
            if (0..m).contains(&k) {
                return Ok(x);
            }
        }
        let span = x.span;
        Ok(bin(
            BinOp::Mod,
            bin(BinOp::Add, bin(BinOp::Mod, x, int(m, span)), int(m, span)),
            int(m, span),
        ))
    }

    fn lookup(&self, name: &str, span: Span) -> Result<Var> {
        if let Some(v) = self.scope.get(name).or_else(|| self.globals.get(name)) {
            return Ok(v.clone());
        }
        fail(span, format!("unknown variable `{name}`"))
    }

    fn lvalue(&mut self, v: &VarRef) -> Result<ast::LValue> {
        let var = self.lookup(&v.name, v.span)?;
        let (core, array, index) = match (&var, &v.field) {
            (Var::Plain { core, array, .. }, None) => (core.clone(), *array, v.index.as_deref()),
            (Var::Record { fields, array, .. }, Some((f, fi))) => {
                let Some((core, farray, _)) = fields.get(f) else {
                    return fail(v.span, format!("`{}` has no field `{f}`", v.name));
                };
                if *array {
                    if fi.is_some() {
                        return unsupported(v.span, "an array field in an array of records");
                    }
                    (core.clone(), true, v.index.as_deref())
                } else {
                    (core.clone(), *farray, fi.as_deref())
                }
            }
            (Var::Record { .. }, None) => return unsupported(v.span, "a whole record as a value"),
            (Var::Chan { .. }, _) => {
                return unsupported(
                    v.span,
                    &format!(
                        "assigning a channel declared with its capacity (`{}`)",
                        v.name
                    ),
                );
            }
            (_, Some(_)) => return fail(v.span, format!("`{}` is not a record", v.name)),
        };
        let index = match (array, index) {
            (true, Some(i)) => Some(Box::new(self.int(i)?)),
            (false, None) => None,
            (true, None) => {
                // SPIN reads `a` as `a[0]`.
                Some(Box::new(int(0, v.span)))
            }
            (false, Some(_)) => return fail(v.span, format!("`{}` is not an array", v.name)),
        };
        Ok(ast::LValue {
            name: id(&core, v.span),
            index,
            span: v.span,
        })
    }

    fn var_expr(&mut self, v: &VarRef) -> Result<ast::Expr> {
        let lv = self.lvalue(v)?;
        Ok(match lv.index {
            Some(i) => ex(ExprKind::Index(lv.name, i), v.span),
            None => ex(ExprKind::Name(lv.name), v.span),
        })
    }

    fn int(&mut self, e: &Expr) -> Result<ast::Expr> {
        let (x, t) = self.expr(e)?;
        match (t, &x.kind) {
            (T::I, _) => Ok(x),
            (T::B, ExprKind::Bool(b)) => Ok(int(*b as i64, x.span)),
            (T::B, _) => unsupported(e.span, "a condition used as a number"),
        }
    }

    fn cond(&mut self, e: &Expr) -> Result<ast::Expr> {
        let (x, t) = self.expr(e)?;
        Ok(match (t, &x.kind) {
            (T::B, _) => x,
            (T::I, ExprKind::Int(v)) => ex(ExprKind::Bool(*v != 0), x.span),
            (T::I, _) => bin(BinOp::Ne, x, int(0, e.span)),
        })
    }

    fn expr(&mut self, e: &Expr) -> Result<(ast::Expr, T)> {
        let span = e.span;
        Ok(match &e.kind {
            Ek::Int(v) => (int(*v, span), T::I),
            Ek::Bool(b) => (ex(ExprKind::Bool(*b), span), T::B),
            Ek::Pid => (self.pid_expr(span), T::I),
            Ek::NrPr => (ex(ExprKind::Name(id("_nr_pr", span)), span), T::I),
            Ek::Var(v) => {
                if v.index.is_none()
                    && v.field.is_none()
                    && !self.scope.contains_key(&v.name)
                    && !self.globals.contains_key(&v.name)
                {
                    if let Some(m) = self.mtypes.get(&v.name) {
                        return Ok((ex(ExprKind::Name(id(&v.name, span)), span), T::I)).map(
                            |(x, t)| {
                                let _ = m;
                                (x, t)
                            },
                        );
                    }
                }
                if let Var::Chan { .. } = self.lookup(&v.name, v.span)? {
                    return Ok((self.chan_value(v)?, T::I));
                }
                (self.var_expr(v)?, T::I)
            }
            Ek::Un(op, a) => match *op {
                "!" => (not(self.cond(a)?), T::B),
                "-" => {
                    let x = self.int(a)?;
                    (ex(ExprKind::Unary(UnOp::Neg, Box::new(x)), span), T::I)
                }
                _ => return unsupported(span, "the bitwise operator `~`"),
            },
            Ek::Bin(op, a, b) => self.bin_expr(op, a, b, span)?,
            Ek::Cond(..) => return unsupported(span, "a conditional expression `(c -> a : b)`"),
            Ek::Chan(q, v) => {
                let query = match *q {
                    "len" => ast::ChanQuery::Len,
                    "empty" => ast::ChanQuery::Empty,
                    "full" => ast::ChanQuery::Full,
                    "nempty" => ast::ChanQuery::NotEmpty,
                    _ => ast::ChanQuery::NotFull,
                };
                self.chan_query(query, v, span)?
            }
            Ek::Poll(c, args) => {
                let xs = self.recv_args(&self.msg_args(args))?;
                (self.poll(c, xs, span)?, T::B)
            }
            Ek::Run(..) => return unsupported(span, "`run` inside an expression"),
            Ek::Timeout => (ex(ExprKind::Timeout, span), T::B),
            Ek::RemoteAt(p, i, l) => (self.remote_at(p, i.as_deref(), l, span)?, T::B),
            Ek::RemoteVar(p, i, x) => {
                let t = self.remote(p, i.as_deref(), span)?;
                (
                    ex(
                        ExprKind::Local(
                            Box::new(ex(ExprKind::Name(id(&t, span)), span)),
                            id(x, span),
                        ),
                        span,
                    ),
                    T::I,
                )
            }
            Ek::Eval(_) | Ek::Skip => return fail(span, "`eval` and `_` belong in a receive"),
        })
    }

    /// A binary operation: arithmetic, a comparison or a logical connective.
    fn bin_expr(&mut self, op: &str, a: &Expr, b: &Expr, span: Span) -> Result<(ast::Expr, T)> {
        let arith = |o: &str| match o {
            "+" => Some(BinOp::Add),
            "-" => Some(BinOp::Sub),
            "*" => Some(BinOp::Mul),
            "/" => Some(BinOp::Div),
            "%" => Some(BinOp::Mod),
            _ => None,
        };
        let cmp = |o: &str| match o {
            "==" => Some(BinOp::Eq),
            "!=" => Some(BinOp::Ne),
            "<" => Some(BinOp::Lt),
            "<=" => Some(BinOp::Le),
            ">" => Some(BinOp::Gt),
            ">=" => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(o) = arith(op) {
            Ok((bin(o, self.int(a)?, self.int(b)?), T::I))
        } else if let Some(o) = cmp(op) {
            if let Some(c) = self.dynamic_len_cmp(o, a, b)? {
                return Ok((c, T::B));
            }
            if let Some(c) = self.numeric_cmp(o, a, b)? {
                return Ok((c, T::B));
            }
            let (x, tx) = self.expr(a)?;
            let (y, ty) = self.expr(b)?;
            let conv = |x: ast::Expr, t: T| -> Result<ast::Expr> {
                match (t, &x.kind) {
                    (T::B, ExprKind::Bool(v)) => Ok(int(*v as i64, x.span)),
                    (T::B, _) => unsupported(span, "comparing conditions"),
                    _ => Ok(x),
                }
            };
            Ok((bin(o, conv(x, tx)?, conv(y, ty)?), T::B))
        } else if op == "&&" {
            Ok((bin(BinOp::And, self.cond(a)?, self.cond(b)?), T::B))
        } else if op == "||" {
            Ok((bin(BinOp::Or, self.cond(a)?, self.cond(b)?), T::B))
        } else {
            unsupported(span, &format!("the bitwise operator `{op}`"))
        }
    }

    /// `len(v) op b` or `a op len(v)` for a variable `v` holding a channel.
    fn dynamic_len_cmp(&mut self, o: BinOp, a: &Expr, b: &Expr) -> Result<Option<ast::Expr>> {
        for (side, other, flip) in [(a, b, false), (b, a, true)] {
            if let Ek::Chan("len", v) = &side.kind {
                if let Var::Chan { .. } = self.lookup(&v.name, v.span)? {
                    continue;
                }
                let y = self.int(other)?;
                return self.len_cmp(v, o, y, flip);
            }
        }
        Ok(None)
    }

    /// `P[pid]@L`; with a pid that is no constant, whether the process of
    /// type P with that pid is at L.
    fn remote_at(
        &mut self,
        p: &str,
        index: Option<&Expr>,
        l: &str,
        span: Span,
    ) -> Result<ast::Expr> {
        let at = |t: &str| {
            ex(
                ExprKind::At(Box::new(ex(ExprKind::Name(id(t, span)), span)), id(l, span)),
                span,
            )
        };
        let Some(i) = index.filter(|i| self.const_eval(i).is_err()) else {
            return Ok(at(&self.remote(p, index, span)?));
        };
        let pid = self.int(i)?;
        let mut any = Vec::new();
        for inst in self.instances.iter().filter(|i| self.proc_name(i) == p) {
            let is = if inst.dormant {
                let var = |x: &str| {
                    ex(
                        ExprKind::Name(id(&format!("{}_{x}", inst.name), span)),
                        span,
                    )
                };
                bin(
                    BinOp::And,
                    bin(BinOp::Eq, var("created"), int(1, span)),
                    bin(BinOp::Eq, var("pid"), pid.clone()),
                )
            } else {
                bin(BinOp::Eq, int(inst.pid, span), pid.clone())
            };
            any.push(bin(BinOp::And, is, at(&inst.name)));
        }
        Ok(any
            .into_iter()
            .reduce(|a, b| bin(BinOp::Or, a, b))
            .unwrap_or(ex(ExprKind::Bool(false), span)))
    }

    /// The proctype of an instance, `init` for init.
    fn proc_name<'a>(&'a self, i: &Instance) -> &'a str {
        if i.proc == usize::MAX {
            "init"
        } else {
            &self.procs[i.proc].name
        }
    }

    /// The thread a remote reference `P[pid]` or `P` names.
    fn remote(&self, p: &str, index: Option<&Expr>, span: Span) -> Result<String> {
        let of_p: Vec<&Instance> = self
            .instances
            .iter()
            .filter(|i| self.proc_name(i) == p)
            .collect();
        match index {
            // SPIN reads `P@L` of the first process of type P that is
            // alive (its `f_pid`): here the first one created.
            None if !of_p.is_empty() => Ok(of_p[0].name.clone()),
            None => fail(span, format!("no process of type `{p}`")),
            Some(i) => {
                let pid = self.const_eval(i)?;
                match of_p.iter().find(|i| i.pid == pid) {
                    Some(i) => Ok(i.name.clone()),
                    None => fail(span, format!("no instance of `{p}` has pid {pid}")),
                }
            }
        }
    }

    fn formula(&mut self, f: &Formula) -> Result<ast::Formula> {
        use ast::Formula as F;
        Ok(match f {
            Formula::Atom(e) => {
                self.scope.clear();
                F::Atom(self.cond(e)?)
            }
            Formula::Not(a) => F::Not(Box::new(self.formula(a)?)),
            Formula::Always(a) => F::Always(Box::new(self.formula(a)?)),
            Formula::Eventually(a) => F::Eventually(Box::new(self.formula(a)?)),
            Formula::Bin(op, a, b) => {
                let (x, y) = (self.formula(a)?, self.formula(b)?);
                match *op {
                    "&&" => F::And(Box::new(x), Box::new(y)),
                    "||" => F::Or(Box::new(x), Box::new(y)),
                    "->" => F::Implies(Box::new(x), Box::new(y)),
                    "<->" => F::And(
                        Box::new(F::Implies(Box::new(x.clone()), Box::new(y.clone()))),
                        Box::new(F::Implies(Box::new(y), Box::new(x))),
                    ),
                    "U" => F::Until(Box::new(x), Box::new(y)),
                    "W" => F::WeakUntil(Box::new(x), Box::new(y)),
                    // p V q == !(!p U !q)
                    _ => F::Not(Box::new(F::Until(
                        Box::new(F::Not(Box::new(x))),
                        Box::new(F::Not(Box::new(y))),
                    ))),
                }
            }
        })
    }
}

/// The parts of a core `atomic` for these statements, when they make one:
/// a first step that may block, then steps that cannot.
fn atomic_parts(stmts: &[ast::Stmt]) -> Option<Vec<ast::Stmt>> {
    let mut parts = Vec::new();
    for (k, s) in stmts.iter().enumerate() {
        if s.label.is_some() {
            return None;
        }
        match &s.kind {
            StmtKind::Await(_) | StmtKind::Send(..) | StmtKind::Receive(..) if k == 0 => {
                parts.push(s.clone())
            }
            StmtKind::Assign(..) | StmtKind::Assert(_) | StmtKind::Skip => parts.push(s.clone()),
            StmtKind::Await(ast::Expr {
                kind: ExprKind::Bool(true),
                ..
            }) => {}
            StmtKind::Atomic(inner) => {
                for (j, p) in inner.iter().enumerate() {
                    match &p.kind {
                        StmtKind::Assign(..)
                        | StmtKind::Assert(_)
                        | StmtKind::Skip
                        | StmtKind::If(..) => parts.push(p.clone()),
                        StmtKind::Await(_) | StmtKind::Send(..) | StmtKind::Receive(..)
                            if k == 0 && j == 0 =>
                        {
                            parts.push(p.clone())
                        }
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts)
}

/// When the first step of a branch can be taken: None when always.
fn exec(s: &ast::Stmt, caps: &HashMap<String, i64>) -> Result<Option<ast::Expr>> {
    let span = s.span;
    let q = |k: ast::ChanQuery, lv: &ast::LValue| ex(ExprKind::Chan(k, lv.clone()), span);
    Ok(match &s.kind {
        StmtKind::Await(e) => Some(e.clone()),
        StmtKind::Send(lv, _) => {
            if caps.get(&lv.name.name) == Some(&0) {
                return unsupported(span, "`else` beside a rendezvous");
            }
            Some(q(ast::ChanQuery::NotFull, lv))
        }
        StmtKind::Receive(lv, args, _) => {
            if caps.get(&lv.name.name) == Some(&0) {
                return unsupported(span, "`else` beside a rendezvous");
            }
            // The poll of the same fields: whether the receive can take
            // the first message.
            Some(ex(ExprKind::Poll(lv.clone(), args.clone()), span))
        }
        // A guarded channel operation (one option of an operation on a
        // channel a variable holds) can run when both can.
        StmtKind::Atomic(parts) => match parts.as_slice() {
            [
                g @ ast::Stmt {
                    kind: StmtKind::Await(_),
                    ..
                },
                op @ ast::Stmt {
                    kind: StmtKind::Send(..) | StmtKind::Receive(..),
                    ..
                },
                ..,
            ] => match (exec(g, caps)?, exec(op, caps)?) {
                (Some(a), Some(b)) => Some(bin(BinOp::And, a, b)),
                (a, b) => a.or(b),
            },
            [p, ..] => exec(p, caps)?,
            [] => None,
        },
        StmtKind::Either(bs) => {
            let mut any: Option<ast::Expr> = None;
            for b in bs {
                match exec(&b[0], caps)? {
                    None => return Ok(None),
                    Some(g) => {
                        any = Some(match any {
                            None => g,
                            Some(a) => bin(BinOp::Or, a, g),
                        })
                    }
                }
            }
            any
        }
        _ => None,
    })
}

/// Whether statement `s` (or anything in it) assigns the variable `v`.
fn assigns(s: &Stmt, v: &str) -> bool {
    let any = |b: &[Stmt]| b.iter().any(|s| assigns(s, v));
    match &s.kind {
        Sk::Assign(r, _) | Sk::Incr(r, _) | Sk::Select(r, ..) => r.name == v,
        Sk::For(r, _, _, b) | Sk::ForIn(r, _, b, _) => r.name == v || any(b),
        Sk::Recv(_, args, _) => args
            .iter()
            .any(|a| matches!(&a.kind, Ek::Var(r) if r.name == v)),
        Sk::If(o) | Sk::Do(o) => o.iter().any(|b| any(b)),
        Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) => any(b),
        Sk::Label(_, s) => assigns(s, v),
        _ => false,
    }
}

fn has_jumps(s: &Stmt) -> bool {
    let any = |b: &[Stmt]| b.iter().any(has_jumps);
    match &s.kind {
        Sk::Break | Sk::Goto(..) | Sk::Label(..) => true,
        Sk::If(o) => o.iter().any(|b| any(b)),
        // A nested loop may break out of itself.
        Sk::Do(o) => o.iter().any(|b| {
            b.iter()
                .any(|s| !matches!(s.kind, Sk::Break) && has_jumps(s))
        }),
        Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) | Sk::For(_, _, _, b) => any(b),
        Sk::ForIn(_, _, b, _) => any(b),
        _ => false,
    }
}

fn subst_var_in_runs(s: &mut Stmt, v: &str, val: i64) {
    fn in_expr(e: &mut Expr, v: &str, val: i64) {
        match &mut e.kind {
            Ek::Var(r) if r.name == v && r.index.is_none() && r.field.is_none() => {
                e.kind = Ek::Int(val)
            }
            Ek::Var(r) => {
                if let Some(i) = &mut r.index {
                    in_expr(i, v, val);
                }
            }
            Ek::Un(_, a) => in_expr(a, v, val),
            Ek::Bin(_, a, b) => {
                in_expr(a, v, val);
                in_expr(b, v, val);
            }
            _ => {}
        }
    }
    match &mut s.kind {
        Sk::Expr(Expr {
            kind: Ek::Run(_, args),
            ..
        }) => args.iter_mut().for_each(|a| in_expr(a, v, val)),
        Sk::If(o) | Sk::Do(o) => o
            .iter_mut()
            .flatten()
            .for_each(|s| subst_var_in_runs(s, v, val)),
        Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) => {
            b.iter_mut().for_each(|s| subst_var_in_runs(s, v, val))
        }
        _ => {}
    }
}

impl Lower<'_> {
    /// Unrolls the counting loops that `run` processes, so that each `run`
    /// is a site of its own: `v = a; do :: v < b -> ...; v++ :: else -> break od`
    /// (or `:: v >= b -> break`), with constant a and b, where only the
    /// last statement of the body changes v. Every guard stays a step, as
    /// in SPIN; v's value is put in the `run`s' arguments.
    fn unroll_runs(
        &self,
        stmts: &mut [Stmt],
        whole: &[Stmt],
        decls: &HashMap<String, i64>,
    ) -> Result<()> {
        for j in 0..stmts.len() {
            match &mut stmts[j].kind {
                Sk::Atomic(b) | Sk::DStep(b) | Sk::Seq(b) => self.unroll_runs(b, whole, decls)?,
                Sk::If(o) => {
                    for b in o.iter_mut() {
                        self.unroll_runs(b, whole, decls)?;
                    }
                }
                _ => {}
            }
            let Sk::Do(opts) = &stmts[j].kind else {
                continue;
            };
            let mut has_run = false;
            walk_runs_stmt(&stmts[j], false, &mut |_, _| {
                has_run = true;
                Ok(())
            })?;
            if !has_run || opts.len() != 2 {
                continue;
            }
            let Some((body, exit, v, op, bound)) = self.counted_loop(opts) else {
                continue;
            };
            // Where the loop starts: the last assignment before it, or the declaration.
            let Some(start) = self.loop_start(&stmts[..j], whole, decls, &v) else {
                continue;
            };
            let mut out = Vec::new();
            let mut val = start;
            let holds = |x: i64| if op == "<" { x < bound } else { x <= bound };
            while holds(val) {
                if out.len() > 4 * MAX_PROCS {
                    return unsupported(stmts[j].span, "a loop of `run`s this long");
                }
                // The guard holds here: a step that cannot block.
                out.push(Stmt {
                    kind: Sk::Skip,
                    span: body[0].span,
                });
                for s in &body[1..] {
                    let mut s = s.clone();
                    subst_var_in_runs(&mut s, &v, val);
                    out.push(s);
                }
                val += 1;
            }
            out.push(Stmt {
                kind: Sk::Skip,
                span: exit[0].span,
            });
            stmts[j].kind = Sk::Seq(out);
        }
        Ok(())
    }

    /// The two options of a `do` as a counted loop `:: v < b -> ...; v++`
    /// and its exit: (body, exit, v, `<` or `<=`, b), or None if not one.
    #[allow(clippy::type_complexity)]
    fn counted_loop<'a>(
        &self,
        opts: &'a [Vec<Stmt>],
    ) -> Option<(&'a [Stmt], &'a [Stmt], String, &'static str, i64)> {
        let (mut body, mut exit) = (opts[0].as_slice(), opts[1].as_slice());
        if matches!(body.first().map(|s| &s.kind), Some(Sk::Else)) {
            std::mem::swap(&mut body, &mut exit);
        }
        let Some(Sk::Expr(Expr {
            kind: Ek::Bin(op, l, r),
            ..
        })) = body.first().map(|s| &s.kind)
        else {
            return None;
        };
        let (Ek::Var(var), Ok(bound)) = (&l.kind, self.const_eval(r)) else {
            return None;
        };
        if var.index.is_some() || var.field.is_some() || !matches!(*op, "<" | "<=") {
            return None;
        }
        let v = var.name.clone();
        let incr = match body.last().map(|s| &s.kind) {
            Some(Sk::Incr(x, 1)) => x.name == v,
            Some(Sk::Assign(
                x,
                Expr {
                    kind: Ek::Bin("+", a, b),
                    ..
                },
            )) => {
                x.name == v
                    && matches!(&a.kind, Ek::Var(y) if y.name == v)
                    && matches!(b.kind, Ek::Int(1))
            }
            _ => false,
        };
        let exit_ok = exit.len() == 2
            && matches!(exit[1].kind, Sk::Break)
            && match &exit[0].kind {
                Sk::Else => true,
                Sk::Expr(Expr {
                    kind: Ek::Bin(">" | ">=" | "==", a, _),
                    ..
                }) => matches!(&a.kind, Ek::Var(y) if y.name == v),
                _ => false,
            };
        let body_ok = body[1..body.len() - 1]
            .iter()
            .all(|s| !assigns(s, &v) && !has_jumps(s));
        if !incr || !exit_ok || !body_ok {
            return None;
        }
        Some((body, exit, v, *op, bound))
    }

    /// The value `v` has when a loop after `before` starts: the last
    /// constant assignment before it, or its initial value when assigned
    /// nowhere else in `whole`; None when unknown.
    fn loop_start(
        &self,
        before: &[Stmt],
        whole: &[Stmt],
        decls: &HashMap<String, i64>,
        v: &str,
    ) -> Option<i64> {
        let mut start = None;
        for s in before.iter().rev() {
            if let Sk::Assign(x, e) = &s.kind
                && x.name == v
            {
                start = self.const_eval(e).ok();
                break;
            }
            if assigns(s, v) {
                break;
            }
        }
        match start {
            Some(a) => Some(a),
            None => {
                // Assigned nowhere else in the body: its initial value.
                let elsewhere = whole.iter().filter(|s| assigns(s, v)).count();
                match decls.get(v) {
                    Some(&a) if elsewhere <= 1 => Some(a),
                    _ => None,
                }
            }
        }
    }
}
