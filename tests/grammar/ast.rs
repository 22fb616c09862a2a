//! The generator's own syntax tree and its printer.
//!
//! The tree mirrors the grammar of the language reference
//! (`docs/src/language.md`, procedures included) and records what every name refers to, so that
//! the coverage walker (`cover.rs`) can name the construct and the shrinker
//! (`shrink.rs`) can rewrite it. The printer parenthesises every compound
//! expression, so the text parses back to the same tree whatever the
//! precedence.

use std::fmt::Write;

/// What a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ref {
    Const,
    Shared,
    Protected,
    Lock,
    Sem,
    Local,
    Param,
    ProcLocal,
    Thread,
    Index,
    QVar,
    ExclT,
    ExclJ,
    /// A channel (`chan`), named by a send, a receive or a question, or
    /// passed as an argument (`q[i]`, `q`).
    Chan,
    /// A procedure's channel parameter (`c : chan q`): named by a send, a
    /// receive, a question or a poll, or passed on as an argument.
    ChanParam,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl Op {
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Or => "||",
            Op::And => "&&",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Mod => "%",
        }
    }

    /// Operators returning an int.
    pub fn arith(self) -> bool {
        matches!(self, Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mod)
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum E {
    Int(i64),
    Bool(bool),
    Free,
    SelfId,
    /// A scalar variable, constant, thread name, `index`, bound name.
    Name(Ref, String),
    /// An array element.
    Elem(Ref, String, Box<E>),
    Not(Box<E>),
    Neg(Box<E>),
    Bin(Op, Box<E>, Box<E>),
    /// `at(t, L)`
    At(Box<E>, String),
    /// `init(t, x)` or `init(x)`
    InitOf(Option<Box<E>>, String),
    /// `exists`/`forall` (true for forall) `v in lo..hi: body`
    Quant(bool, String, Box<E>, Box<E>, Box<E>),
    /// `t.r`
    LocalOf(Box<E>, String),
    /// `len(c)`, `empty(c)`, ... of channel `c` or `c[i]`.
    Chan(Q, String, Option<Box<E>>),
    /// `c?[args]` or `c[i]?[args]`: a poll.
    Poll(String, Option<Box<E>>, Vec<Recv>),
}

/// A question asked of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Q {
    Len,
    Empty,
    Full,
    NEmpty,
    NFull,
}

impl Q {
    pub fn name(self) -> &'static str {
        match self {
            Q::Len => "len",
            Q::Empty => "empty",
            Q::Full => "full",
            Q::NEmpty => "nempty",
            Q::NFull => "nfull",
        }
    }
}

impl E {
    pub fn bin(op: Op, a: E, b: E) -> E {
        E::Bin(op, Box::new(a), Box::new(b))
    }

    /// The direct subexpressions.
    pub fn children(&self) -> Vec<&E> {
        match self {
            E::Int(_) | E::Bool(_) | E::Free | E::SelfId | E::Name(..) => vec![],
            E::Elem(_, _, i) => vec![i],
            E::Not(a) | E::Neg(a) => vec![a],
            E::Bin(_, a, b) => vec![a, b],
            E::At(t, _) => vec![t],
            E::InitOf(t, _) => t.iter().map(|t| &**t).collect(),
            E::Quant(_, _, lo, hi, b) => vec![lo, hi, b],
            E::LocalOf(t, _) => vec![t],
            E::Chan(_, _, i) => i.iter().map(|i| &**i).collect(),
            E::Poll(_, i, args) => {
                let mut out: Vec<&E> = i.iter().map(|i| &**i).collect();
                out.extend(args.iter().filter_map(Recv::expr));
                out
            }
        }
    }

    pub fn children_mut(&mut self) -> Vec<&mut E> {
        match self {
            E::Int(_) | E::Bool(_) | E::Free | E::SelfId | E::Name(..) => vec![],
            E::Elem(_, _, i) => vec![i],
            E::Not(a) | E::Neg(a) => vec![a],
            E::Bin(_, a, b) => vec![a, b],
            E::At(t, _) => vec![t],
            E::InitOf(t, _) => t.iter_mut().map(|t| &mut **t).collect(),
            E::Quant(_, _, lo, hi, b) => vec![lo, hi, b],
            E::LocalOf(t, _) => vec![t],
            E::Chan(_, _, i) => i.iter_mut().map(|i| &mut **i).collect(),
            E::Poll(_, i, args) => {
                let mut out: Vec<&mut E> = i.iter_mut().map(|i| &mut **i).collect();
                out.extend(args.iter_mut().filter_map(Recv::expr_mut));
                out
            }
        }
    }
}

/// A variable's value type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Int(i64, i64),
    Bool,
}

impl Ty {
    pub fn text(&self) -> String {
        match self {
            Ty::Int(lo, hi) => format!("{lo}..{hi}"),
            Ty::Bool => "bool".into(),
        }
    }
}

/// An assignable place (also a lock or semaphore operand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lv {
    pub r: Ref,
    pub name: String,
    pub idx: Option<E>,
}

/// The right-hand side of an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rhs {
    E(E),
    Any(i64, i64),
}

/// An argument of a receive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recv {
    /// A place the field is assigned to.
    Var(Lv),
    /// A literal the field must equal: a non-negative int or a bool.
    Lit(E),
    /// A constant's (or a thread's) name the field must equal.
    Const(Ref, String),
    /// `eval(e)`: a computed value the field must equal.
    Eval(E),
    /// `_`: the field is dropped.
    Skip,
}

impl Recv {
    /// The expression in it that may change freely: `eval`'s, or a
    /// place's index (a literal stays a literal).
    pub fn expr(&self) -> Option<&E> {
        match self {
            Recv::Eval(e) => Some(e),
            Recv::Var(l) => l.idx.as_ref(),
            Recv::Lit(_) | Recv::Const(..) | Recv::Skip => None,
        }
    }

    pub fn expr_mut(&mut self) -> Option<&mut E> {
        match self {
            Recv::Eval(e) => Some(e),
            Recv::Var(l) => l.idx.as_mut(),
            Recv::Lit(_) | Recv::Const(..) | Recv::Skip => None,
        }
    }
}

/// A statement with its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub label: Option<String>,
    pub s: S,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum S {
    Assign(Vec<Lv>, Vec<Rhs>),
    /// `[x :=] call f(args)`
    Call(Option<Lv>, String, Vec<E>),
    Return(Option<E>),
    Await(E),
    Assert(E),
    Acquire(Lv),
    Release(Lv),
    Down(Lv),
    Up(Lv),
    Skip,
    Goto(String),
    /// `atomic { [await g;] parts }`
    Atomic(Option<E>, Vec<Stmt>),
    If(E, Vec<Stmt>, Option<Vec<Stmt>>),
    While(E, Vec<Stmt>),
    Either(Vec<Vec<Stmt>>),
    Repeat(E, Vec<Stmt>),
    Init(Vec<String>, Vec<Stmt>),
    /// `c ! e1, e2` (the place's `r` is [`Ref::Chan`], or [`Ref::ChanParam`]).
    Send(Lv, Vec<E>),
    /// `c ? x, 3, eval(e), _`, or `c ?<x, 3, eval(e), _>` (keeping the
    /// message) when the flag is set.
    Receive(Lv, Vec<Recv>, bool),
}

impl Stmt {
    pub fn new(s: S) -> Stmt {
        Stmt { label: None, s }
    }

    /// The nested blocks.
    pub fn blocks(&self) -> Vec<&Vec<Stmt>> {
        match &self.s {
            S::Atomic(_, b) | S::While(_, b) | S::Repeat(_, b) | S::Init(_, b) => vec![b],
            S::If(_, a, b) => std::iter::once(a).chain(b.iter()).collect(),
            S::Either(bs) => bs.iter().collect(),
            _ => vec![],
        }
    }

    pub fn blocks_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match &mut self.s {
            S::Atomic(_, b) | S::While(_, b) | S::Repeat(_, b) | S::Init(_, b) => vec![b],
            S::If(_, a, b) => std::iter::once(a).chain(b.iter_mut()).collect(),
            S::Either(bs) => bs.iter_mut().collect(),
            _ => vec![],
        }
    }
}

/// An initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    One(E),
    List(Vec<E>),
}

/// The exclusive access predicate of a protected variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Excl {
    By(Lv),
    /// `excl(t) = e` or `excl(t, j) = e`.
    Pred(Option<String>, E),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    Shared,
    Protected(Excl, Vec<i64>),
    Lock,
    Sem,
}

/// A global variable (`shared`, `protected`, `lock`, `sem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub class: Class,
    pub size: Option<usize>,
    /// Ignored for locks; an int range for semaphores.
    pub ty: Ty,
    pub init: Option<Init>,
}

/// A `local` of a thread or procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    pub size: Option<usize>,
    pub init: Option<Init>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub name: String,
    /// Channel parameters, `c : chan q` (name, channel): printed, and
    /// passed, before the value parameters.
    pub cparams: Vec<(String, String)>,
    pub params: Vec<(String, Ty)>,
    pub ret: Option<Ty>,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub name: String,
    /// `thread NAME[n]`
    pub copies: Option<usize>,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
}

/// A channel declaration, `chan c[n] : [K] of {T, ...}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chan {
    pub name: String,
    pub size: Option<usize>,
    /// 0: a rendezvous.
    pub capacity: usize,
    pub fields: Vec<Ty>,
}

/// A whole generated system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct System {
    pub consts: Vec<(String, E)>,
    /// `threads N;` (with a single body).
    pub threads_n: Option<usize>,
    pub vars: Vec<Var>,
    pub chans: Vec<Chan>,
    pub procs: Vec<Proc>,
    pub threads: Vec<Thread>,
    pub invariants: Vec<E>,
}

// ---------------------------------------------------------------------
// Printing

pub fn expr(e: &E) -> String {
    let mut s = String::new();
    write_expr(&mut s, e);
    s
}

fn write_expr(s: &mut String, e: &E) {
    match e {
        E::Int(n) if *n < 0 => write!(s, "(-{})", -n).unwrap(),
        E::Int(n) => write!(s, "{n}").unwrap(),
        E::Bool(b) => write!(s, "{b}").unwrap(),
        E::Free => s.push_str("free"),
        E::SelfId => s.push_str("self"),
        E::Name(_, n) => s.push_str(n),
        E::Elem(_, n, i) => {
            write!(s, "{n}[").unwrap();
            write_expr(s, i);
            s.push(']');
        }
        E::Not(a) => {
            s.push_str("!(");
            write_expr(s, a);
            s.push(')');
        }
        E::Neg(a) => {
            s.push_str("-(");
            write_expr(s, a);
            s.push(')');
        }
        E::Bin(op, a, b) => {
            s.push('(');
            write_expr(s, a);
            write!(s, " {} ", op.symbol()).unwrap();
            write_expr(s, b);
            s.push(')');
        }
        E::At(t, l) => {
            s.push_str("at(");
            write_expr(s, t);
            write!(s, ", {l})").unwrap();
        }
        E::InitOf(t, x) => {
            s.push_str("init(");
            if let Some(t) = t {
                write_expr(s, t);
                s.push_str(", ");
            }
            write!(s, "{x})").unwrap();
        }
        E::Quant(forall, v, lo, hi, body) => {
            let q = if *forall { "forall" } else { "exists" };
            write!(s, "({q} {v} in ").unwrap();
            write_expr(s, lo);
            s.push_str("..");
            write_expr(s, hi);
            s.push_str(": ");
            write_expr(s, body);
            s.push(')');
        }
        E::LocalOf(t, r) => {
            match &**t {
                E::Name(_, n) => s.push_str(n),
                E::SelfId => s.push_str("self"),
                t => {
                    s.push('(');
                    write_expr(s, t);
                    s.push(')');
                }
            }
            write!(s, ".{r}").unwrap();
        }
        E::Chan(q, c, i) => {
            write!(s, "{}({c}", q.name()).unwrap();
            if let Some(i) = i {
                s.push('[');
                write_expr(s, i);
                s.push(']');
            }
            s.push(')');
        }
        E::Poll(c, i, args) => {
            let place = Lv {
                r: Ref::Chan,
                name: c.clone(),
                idx: i.as_deref().cloned(),
            };
            let a: Vec<String> = args.iter().map(recv_text).collect();
            write!(s, "{}?[{}]", lvalue(&place), a.join(", ")).unwrap();
        }
    }
}

pub fn lvalue(l: &Lv) -> String {
    match &l.idx {
        Some(i) => format!("{}[{}]", l.name, expr(i)),
        None => l.name.clone(),
    }
}

/// A receive's argument.
pub fn recv_text(a: &Recv) -> String {
    match a {
        Recv::Var(l) => lvalue(l),
        Recv::Lit(e) => expr(e),
        Recv::Const(_, n) => n.clone(),
        Recv::Eval(e) => format!("eval({})", expr(e)),
        Recv::Skip => "_".into(),
    }
}

fn init_text(i: &Init) -> String {
    match i {
        Init::One(e) => expr(e),
        Init::List(es) => format!("[{}]", es.iter().map(expr).collect::<Vec<_>>().join(", ")),
    }
}

fn sized(name: &str, size: Option<usize>) -> String {
    match size {
        Some(n) => format!("{name}[{n}]"),
        None => name.to_string(),
    }
}

fn local_text(l: &Local) -> String {
    let mut t = format!("local {} : {}", sized(&l.name, l.size), l.ty.text());
    if let Some(i) = &l.init {
        write!(t, " = {}", init_text(i)).unwrap();
    }
    t.push(';');
    t
}

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn block(&mut self, head: &str, body: &[Stmt]) {
        self.line(&format!("{head} {{"));
        self.body(body);
        self.line("}");
    }

    fn stmt(&mut self, st: &Stmt) {
        let lab = st
            .label
            .as_ref()
            .map(|l| format!("{l}: "))
            .unwrap_or_default();
        match &st.s {
            S::Assign(lvs, rhs) => {
                let l: Vec<String> = lvs.iter().map(lvalue).collect();
                let r: Vec<String> = rhs
                    .iter()
                    .map(|r| match r {
                        Rhs::E(e) => expr(e),
                        Rhs::Any(lo, hi) => {
                            format!("any {}..{}", expr(&E::Int(*lo)), expr(&E::Int(*hi)))
                        }
                    })
                    .collect();
                self.line(&format!("{lab}{} := {};", l.join(", "), r.join(", ")));
            }
            S::Call(target, f, args) => {
                let a: Vec<String> = args.iter().map(expr).collect();
                let t = target
                    .as_ref()
                    .map(|t| format!("{} := ", lvalue(t)))
                    .unwrap_or_default();
                self.line(&format!("{lab}{t}call {f}({});", a.join(", ")));
            }
            S::Return(None) => self.line(&format!("{lab}return;")),
            S::Return(Some(e)) => self.line(&format!("{lab}return {};", expr(e))),
            S::Await(e) => self.line(&format!("{lab}await {};", expr(e))),
            S::Assert(e) => self.line(&format!("{lab}assert {};", expr(e))),
            S::Acquire(l) => self.line(&format!("{lab}acquire {};", lvalue(l))),
            S::Release(l) => self.line(&format!("{lab}release {};", lvalue(l))),
            S::Down(l) => self.line(&format!("{lab}down {};", lvalue(l))),
            S::Up(l) => self.line(&format!("{lab}up {};", lvalue(l))),
            S::Skip => self.line(&format!("{lab}skip;")),
            S::Goto(l) => self.line(&format!("{lab}goto {l};")),
            S::Atomic(g, body) => {
                self.line(&format!("{lab}atomic {{"));
                self.indent += 1;
                if let Some(g) = g {
                    self.line(&format!("await {};", expr(g)));
                }
                for st in body {
                    self.stmt(st);
                }
                self.indent -= 1;
                self.line("}");
            }
            S::If(c, a, b) => {
                self.line(&format!("{lab}if {} {{", expr(c)));
                self.body(a);
                let mut els = b.as_ref();
                loop {
                    match els {
                        // `else if`: an else block that is one unlabelled `if`.
                        Some(b) if is_else_if(b) => {
                            let S::If(c2, a2, b2) = &b[0].s else {
                                unreachable!()
                            };
                            self.line(&format!("}} else if {} {{", expr(c2)));
                            self.body(a2);
                            els = b2.as_ref();
                        }
                        Some(b) => {
                            self.line("} else {");
                            self.body(b);
                            self.line("}");
                            break;
                        }
                        None => {
                            self.line("}");
                            break;
                        }
                    }
                }
            }
            S::While(c, body) => self.block(&format!("{lab}while {}", expr(c)), body),
            S::Either(bs) => {
                self.line(&format!("{lab}either {{"));
                for (k, b) in bs.iter().enumerate() {
                    if k > 0 {
                        self.line("} or {");
                    }
                    self.body(b);
                }
                self.line("}");
            }
            S::Repeat(n, body) => self.block(&format!("{lab}repeat {}", expr(n)), body),
            S::Init(xs, body) => self.block(&format!("{lab}init {}", xs.join(", ")), body),
            S::Send(c, es) => {
                let v: Vec<String> = es.iter().map(expr).collect();
                self.line(&format!("{lab}{} ! {};", lvalue(c), v.join(", ")));
            }
            S::Receive(c, args, keep) => {
                let a = args.iter().map(recv_text).collect::<Vec<_>>().join(", ");
                match keep {
                    true => self.line(&format!("{lab}{} ?<{a}>;", lvalue(c))),
                    false => self.line(&format!("{lab}{} ? {a};", lvalue(c))),
                }
            }
        }
    }

    fn body(&mut self, body: &[Stmt]) {
        self.indent += 1;
        for st in body {
            self.stmt(st);
        }
        self.indent -= 1;
    }
}

/// Whether an else block prints as `else if`.
pub fn is_else_if(b: &[Stmt]) -> bool {
    b.len() == 1 && b[0].label.is_none() && matches!(b[0].s, S::If(..))
}

/// The model's text.
pub fn print(sys: &System) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    for (n, v) in &sys.consts {
        p.line(&format!("const {n} = {};", expr(v)));
    }
    if let Some(n) = sys.threads_n {
        p.line(&format!("threads {n};"));
    }
    for v in &sys.vars {
        let name = sized(&v.name, v.size);
        let init = v
            .init
            .as_ref()
            .map(|i| format!(" = {}", init_text(i)))
            .unwrap_or_default();
        match &v.class {
            Class::Lock => p.line(&format!("lock {name};")),
            Class::Sem => p.line(&format!("sem {name} : {}{init};", v.ty.text())),
            Class::Shared => p.line(&format!("shared {name} : {}{init};", v.ty.text())),
            Class::Protected(excl, unprot) => {
                let e = match excl {
                    Excl::By(l) => format!("by {}", lvalue(l)),
                    Excl::Pred(None, body) => format!("excl(t) = {}", expr(body)),
                    Excl::Pred(Some(j), body) => format!("excl(t, {j}) = {}", expr(body)),
                };
                let u = if unprot.is_empty() {
                    String::new()
                } else {
                    format!(
                        " unprotected [{}]",
                        unprot
                            .iter()
                            .map(|k| k.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                p.line(&format!("protected {name} : {}{init}", v.ty.text()));
                p.indent += 1;
                p.line(&format!("{e}{u};"));
                p.indent -= 1;
            }
        }
    }
    for c in &sys.chans {
        let fields: Vec<String> = c.fields.iter().map(Ty::text).collect();
        p.line(&format!(
            "chan {} : [{}] of {{{}}};",
            sized(&c.name, c.size),
            c.capacity,
            fields.join(", ")
        ));
    }
    for pr in &sys.procs {
        p.out.push('\n');
        let params: Vec<String> = pr
            .cparams
            .iter()
            .map(|(n, q)| format!("{n} : chan {q}"))
            .chain(pr.params.iter().map(|(n, t)| format!("{n} : {}", t.text())))
            .collect();
        let ret = pr
            .ret
            .as_ref()
            .map(|t| format!(" : {}", t.text()))
            .unwrap_or_default();
        p.line(&format!("proc {}({}){ret} {{", pr.name, params.join(", ")));
        p.indent += 1;
        for l in &pr.locals {
            p.line(&local_text(l));
        }
        for st in &pr.body {
            p.stmt(st);
        }
        p.indent -= 1;
        p.line("}");
    }
    for t in &sys.threads {
        p.out.push('\n');
        p.line(&format!("thread {} {{", sized(&t.name, t.copies)));
        p.indent += 1;
        for l in &t.locals {
            p.line(&local_text(l));
        }
        for st in &t.body {
            p.stmt(st);
        }
        p.indent -= 1;
        p.line("}");
    }
    if !sys.invariants.is_empty() {
        p.out.push('\n');
    }
    for i in &sys.invariants {
        p.line(&format!("invariant {};", expr(i)));
    }
    p.out
}
