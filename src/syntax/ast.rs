//! The abstract syntax of the system language (reference: `docs/src/language.md`).
//!
//! Every node carries the [`Span`] it was parsed from; spans do not take part
//! in equality.

use super::span::Span;

/// A name with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name itself.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole model: `system NAME;` followed by declarations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// The name after `system`, when given.
    pub name: Option<Ident>,
    /// Top-level items in source order.
    pub items: Vec<Item>,
}

impl Model {
    /// The `const` declarations, in source order.
    pub fn consts(&self) -> impl Iterator<Item = &ConstDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Const(d) => Some(d),
            _ => None,
        })
    }

    /// The variable declarations, in source order.
    pub fn vars(&self) -> impl Iterator<Item = &VarDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Var(d) => Some(d),
            _ => None,
        })
    }

    /// The `thread` declarations, in source order.
    pub fn threads(&self) -> impl Iterator<Item = &ThreadDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Thread(t) => Some(t),
            _ => None,
        })
    }

    /// The `chan` declarations, in source order.
    pub fn chans(&self) -> impl Iterator<Item = &ChanDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Chan(c) => Some(c),
            _ => None,
        })
    }

    /// The `proc` declarations, in source order.
    pub fn procs(&self) -> impl Iterator<Item = &ProcDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Proc(p) => Some(p),
            _ => None,
        })
    }
}

/// A top-level declaration.
// Items are built once per model; boxing the large variant buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `const NAME = value;`
    Const(ConstDecl),
    /// `threads N;`: N copies of the single thread body.
    Threads(Expr, Span),
    /// A shared, protected, lock or semaphore variable.
    Var(VarDecl),
    /// `thread NAME { ... }`
    Thread(ThreadDecl),
    /// `invariant e;`
    Invariant(Expr, Span),
    /// `proc NAME(params) [: type] { ... }`, shared by all threads.
    Proc(ProcDecl),
    /// `ltl NAME: FORMULA;`: a linear temporal property of every run.
    Ltl(LtlDecl),
    /// `chan c[n] : [K] of {T, ...};`: channels of capacity K.
    Chan(ChanDecl),
}

/// `chan NAME[n]? : [K] of {T1, T2, ...};`: a channel (or an array of n
/// channels) holding at most K messages of the listed fields; K = 0 is a
/// rendezvous channel, whose send and receive are one step of two threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChanDecl {
    /// The channel's name.
    pub name: Ident,
    /// Array size, for `name[n]`.
    pub size: Option<Expr>,
    /// The capacity (a constant).
    pub capacity: Expr,
    /// The type of each field of a message.
    pub fields: Vec<Type>,
    /// The whole declaration.
    pub span: Span,
}

/// `ltl NAME: FORMULA;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LtlDecl {
    /// The property's name.
    pub name: Ident,
    /// The formula.
    pub formula: Formula,
    /// The formula's text as written, on one line.
    pub text: String,
    /// The whole declaration.
    pub span: Span,
}

/// A formula of linear temporal logic without next (LTL-X), over the
/// model's boolean expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// A boolean expression of one state, read like an invariant.
    Atom(Expr),
    /// `!f`
    Not(Box<Formula>),
    /// `f && g`
    And(Box<Formula>, Box<Formula>),
    /// `f || g`
    Or(Box<Formula>, Box<Formula>),
    /// `f -> g`
    Implies(Box<Formula>, Box<Formula>),
    /// `[] f`, `always f`
    Always(Box<Formula>),
    /// `<> f`, `eventually f`
    Eventually(Box<Formula>),
    /// `f U g`, `f until g`
    Until(Box<Formula>, Box<Formula>),
    /// `f W g`: `f U g`, or `f` for ever.
    WeakUntil(Box<Formula>, Box<Formula>),
}

/// `proc NAME(p : type, ...) [: type] { locals; statements }`: a procedure
/// that every thread may call, recursively too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcDecl {
    /// The procedure's name.
    pub name: Ident,
    /// The parameters, passed by value.
    pub params: Vec<Param>,
    /// The type of the returned value, for a procedure that returns one
    /// (`Int` or `Bool`).
    pub ret: Option<Type>,
    /// Its locals (one copy per call) and statements; its closing brace is
    /// where it returns.
    pub body: Body,
    /// The whole declaration.
    pub span: Span,
}

/// A parameter `name : type` of a procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its type (`Int` or `Bool`).
    pub ty: Type,
}

/// `const NAME = value;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstDecl {
    /// The constant's name.
    pub name: Ident,
    /// Its value, a constant expression.
    pub value: Expr,
    /// The whole declaration.
    pub span: Span,
}

/// A variable declaration (`shared`, `protected`, `local`, `lock`, `sem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    /// Who may access the variable and how it is guarded.
    pub class: Class,
    /// The variable's name.
    pub name: Ident,
    /// Array size, for `name[n]`.
    pub size: Option<Expr>,
    /// The type of the variable (of each element, for an array).
    pub ty: Type,
    /// Initial value; the type's lowest value when absent.
    pub init: Option<Init>,
    /// The whole declaration.
    pub span: Span,
}

/// The class of a variable, as in Stoller and Cohen's discipline (2003).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// `shared`, `lock`, `sem`: an unprotected shared variable.
    Shared,
    /// `protected`, with its guessed exclusive access predicate. The listed
    /// elements of an array (`unprotected [1, 3]`) are unprotected shared
    /// variables instead, which is how `refine` writes back an array whose
    /// elements ended differently.
    Protected {
        /// The predicate.
        excl: Excl,
        /// Element indices that are not protected.
        unprotected: Vec<Expr>,
    },
    /// `local`: unshared, one copy per thread.
    Local,
}

/// The exclusive access predicate of a protected variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Excl {
    /// `excl(t) = e` or, for arrays, `excl(t, j) = e`.
    Pred {
        /// The thread parameter and, for arrays, the element index.
        params: Vec<Ident>,
        /// The predicate.
        body: Expr,
    },
    /// `by m`: sugar for `excl(t) = m == t`.
    By(LValue),
}

/// A variable's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// `lo..hi`
    Int(Expr, Expr),
    /// `bool`
    Bool,
    /// `lock`: `free` or the id of the owning thread.
    Lock,
    /// `sem : lo..hi`: a counting semaphore.
    Sem(Expr, Expr),
    /// `chan q` (a procedure's parameter): one channel of the channel
    /// array q, held as its index.
    Chan(Ident),
}

/// An initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// One value (for an array: every element).
    Value(Expr),
    /// `[e0, e1, ...]`, one value per element.
    List(Vec<Expr>, Span),
}

/// `thread NAME { locals; statements }`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadDecl {
    /// The thread's name (the body's name under `threads N`).
    pub name: Ident,
    /// `thread NAME[n]`: the number of copies of the body (a constant);
    /// the copies are named `NAME0` .. `NAME{n-1}`.
    pub copies: Option<Expr>,
    /// Its locals and statements; its closing brace is the thread's final
    /// control point.
    pub body: Body,
    /// A shared variable that is 0 while the thread has not started: then
    /// waiting at its first point is no deadlock. It has no syntax: the
    /// Promela front end sets it for the processes that `run` creates.
    pub dormant: Option<Ident>,
    /// A condition every step of the thread needs besides its own guard
    /// (no syntax: Promela's `proctype P() provided (e)`).
    pub provided: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// `{ locals; statements }`: the body of a thread or a procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// `local` declarations, before the statements.
    pub locals: Vec<VarDecl>,
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The closing brace.
    pub end: Span,
}

/// A statement, optionally labelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// `L:` before the statement.
    pub label: Option<Ident>,
    /// What the statement does.
    pub kind: StmtKind,
    /// The statement without its label.
    pub span: Span,
}

/// The statements of the language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `x, y := e1, e2` (right-hand sides may be `any lo..hi`).
    Assign(Vec<LValue>, Vec<Expr>),
    /// `await e`
    Await(Expr),
    /// `acquire m`
    Acquire(LValue),
    /// `release m`
    Release(LValue),
    /// `down s`
    Down(LValue),
    /// `up s`
    Up(LValue),
    /// `skip`
    Skip,
    /// `goto L`
    Goto(Ident),
    /// A jump to L with no step of its own, made by the Promela front end
    /// for SPIN's `goto`, `break` and the way back to a `do`'s head: a
    /// transition that would enter it enters L instead. Where it is taken
    /// as a step of its own (the first statement of an `either` branch, or
    /// of a body) it is one transition, like `goto L`. It has no syntax:
    /// the pretty-printer writes it `goto L`.
    Jump(Ident),
    /// A step, taken when `e` holds, past a bound optimist sets on the
    /// model: it ends the search inconclusive, as a call past the stack
    /// bound does. The Promela front end makes it for a `run` when every
    /// process its pool allows is running. It has no syntax: the
    /// pretty-printer writes it `await e; /* past the bound */`.
    Bound(Expr),
    /// `assert e`
    Assert(Expr),
    /// `atomic { ... }`: one transition.
    Atomic(Vec<Stmt>),
    /// `if e { } else { }`
    If(Expr, Vec<Stmt>, Option<Vec<Stmt>>),
    /// `while e { }`
    While(Expr, Vec<Stmt>),
    /// `either { } or { } ...`
    Either(Vec<Vec<Stmt>>),
    /// `repeat n { }`: n copies of the body, unrolled before lowering, so
    /// every copy has control points of its own (`n` is a constant).
    Repeat(Expr, Vec<Stmt>),
    /// `init x, y { }`: the body initialises x and y. It is not a control
    /// point: its statements are, and while a thread is at one of them,
    /// `init(t, x)` holds (the initialisation phase of Stoller and Cohen's discipline).
    Init(Vec<Ident>, Vec<Stmt>),
    /// `call f(args)` or `x := call f(args)`: one transition that pushes a
    /// frame and enters `f`; the return assigns `x`.
    Call(Option<LValue>, Ident, Vec<Expr>),
    /// `return` or `return e`: one transition per call site of the
    /// procedure, each popping the frame back to its caller.
    Return(Option<Expr>),
    /// `c ! e1, e2`: append a message to channel c; blocks while c is full.
    Send(LValue, Vec<Expr>),
    /// `c ? x, 3`: take the first message of c; blocks while c is empty
    /// or its first message does not match the constants. `c ?<x, 3>`
    /// ([`RecvMode::Keep`]) copies the fields but leaves the message.
    Receive(LValue, Vec<RecvArg>, RecvMode),
}

/// Whether a receive takes the message it matches out of the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvMode {
    /// `c ? x`: the message leaves the channel.
    Take,
    /// `c ?<x>`: the message stays, first in the channel (Promela's `c?<x>`).
    Keep,
}

/// One field of a receive: a variable to assign, a value the field must
/// equal, or `_` to drop it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecvArg {
    /// The field is assigned to this place.
    Var(LValue),
    /// The field must equal this value (a literal, a constant, or
    /// `eval(e)`), else the receive is not enabled.
    Match(Expr),
    /// `_`: the field is dropped.
    Skip(Span),
}

/// An assignable place: `x` or `x[e]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LValue {
    /// The variable.
    pub name: Ident,
    /// The element index, for arrays.
    pub index: Option<Box<Expr>>,
    /// The whole place.
    pub span: Span,
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `self`: the id of the executing thread.
    SelfId,
    /// `free`: the value of an unowned lock.
    Free,
    /// `timeout`: no transition of any thread can move (SPIN's `timeout`);
    /// only in an `await` guard.
    Timeout,
    /// A variable, constant, thread name or bound name.
    Name(Ident),
    /// `a[i]`
    Index(Ident, Box<Expr>),
    /// `-e`, `!e`
    Unary(UnOp, Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `at(t, L)`: thread t is at label L.
    At(Box<Expr>, Ident),
    /// `exists v in lo..hi: e`, `forall v in lo..hi: e`
    Quant(Quant, Ident, Box<Expr>, Box<Expr>, Box<Expr>),
    /// `any lo..hi`, only as the right-hand side of an assignment.
    Any(Box<Expr>, Box<Expr>),
    /// `init(t, x)`: thread t is in an `init x` block; `init(x)`: some thread is.
    InitPhase(Option<Box<Expr>>, Ident),
    /// `t.r`: the local `r` of thread `t` (any thread expression), in
    /// exclusive access predicates and invariants.
    Local(Box<Expr>, Ident),
    /// `len(c)`, `empty(c)`, `full(c)`, `nempty(c)`, `nfull(c)`.
    Chan(ChanQuery, LValue),
    /// `c?[x, 3, _]`: whether the receive `c ? x, 3, _` could take c's
    /// first message now (a variable matches any value), without taking
    /// it or assigning anything: Promela's poll.
    Poll(LValue, Vec<RecvArg>),
}

/// What an expression asks of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanQuery {
    /// `len(c)`: the number of messages in it.
    Len,
    /// `empty(c)`
    Empty,
    /// `full(c)`
    Full,
    /// `nempty(c)`
    NotEmpty,
    /// `nfull(c)`
    NotFull,
}

impl ChanQuery {
    /// Every query, with the word that writes it.
    pub const ALL: [(&'static str, ChanQuery); 5] = [
        ("len", ChanQuery::Len),
        ("empty", ChanQuery::Empty),
        ("full", ChanQuery::Full),
        ("nempty", ChanQuery::NotEmpty),
        ("nfull", ChanQuery::NotFull),
    ];

    /// The word that writes it.
    pub fn word(self) -> &'static str {
        ChanQuery::ALL
            .iter()
            .find(|(_, q)| *q == self)
            .map_or("len", |(w, _)| w)
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// Quantifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    /// `exists`
    Exists,
    /// `forall`
    Forall,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Or => "||",
            And => "&&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
        }
    }

    /// Binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        use BinOp::*;
        match self {
            Or => 1,
            And => 2,
            Eq | Ne | Lt | Le | Gt | Ge => 3,
            Add | Sub => 4,
            Mul | Div | Mod => 5,
        }
    }
}

/// Words that cannot be used as names.
pub const KEYWORDS: &[&str] = &[
    "system",
    "threads",
    "thread",
    "const",
    "shared",
    "protected",
    "local",
    "lock",
    "sem",
    "bool",
    "by",
    "excl",
    "invariant",
    "acquire",
    "release",
    "down",
    "up",
    "skip",
    "goto",
    "assert",
    "await",
    "atomic",
    "if",
    "else",
    "while",
    "either",
    "or",
    "any",
    "true",
    "false",
    "self",
    "free",
    "timeout",
    "at",
    "exists",
    "forall",
    "in",
    "repeat",
    "init",
    "unprotected",
    "proc",
    "call",
    "return",
];
