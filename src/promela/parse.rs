//! A recursive-descent parser of Promela's tokens into [`Spec`], the
//! Promela syntax tree that [`super::lower`] maps onto optimist's model.
//! Constructs outside the subset are refused here, at their place, by name.

use std::collections::HashMap;

use super::pre::{PreError, Tk, Tok};
use crate::syntax::ast::RecvMode;
use crate::syntax::span::Span;

pub(crate) type Result<T> = std::result::Result<T, PreError>;

fn fail<T>(span: Span, message: impl Into<String>) -> Result<T> {
    Err(PreError {
        span,
        message: message.into(),
    })
}

/// `construct` is outside the subset: the error every refusal gives.
pub(crate) fn unsupported<T>(span: Span, construct: &str) -> Result<T> {
    fail(
        span,
        format!("{construct} is not supported by optimist's Promela subset"),
    )
}

/// A whole specification.
#[derive(Debug, Default)]
pub(crate) struct Spec {
    pub(crate) mtypes: Vec<MtypeDecl>,
    pub(crate) globals: Vec<Decl>,
    pub(crate) procs: Vec<ProcType>,
    pub(crate) init: Option<ProcType>,
    pub(crate) ltl: Vec<(String, Formula, Span)>,
    pub(crate) typedefs: HashMap<String, Vec<Decl>>,
}

/// One `mtype` declaration: the set it adds names to (`None` for the
/// plain `mtype`, `Some(s)` for `mtype:s`) and its names, in order.
#[derive(Debug, Default)]
pub(crate) struct MtypeDecl {
    pub(crate) set: Option<String>,
    pub(crate) names: Vec<(String, Span)>,
}

/// `active [n] proctype NAME(params) { body }` (or `init { body }`).
#[derive(Debug, Clone)]
pub(crate) struct ProcType {
    pub(crate) name: String,
    pub(crate) active: Option<Expr>,
    pub(crate) params: Vec<Decl>,
    pub(crate) body: Vec<Stmt>,
    /// `provided (e)`: a condition on every step.
    pub(crate) provided: Option<Expr>,
    pub(crate) span: Span,
    pub(crate) end: Span,
}

/// A basic type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ty {
    Bit,
    Byte,
    Short,
    Int,
    Unsigned(u32),
    Mtype,
    Pid,
    Chan,
    Named(String),
}

/// A variable declaration (one name).
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    pub(crate) ty: Ty,
    pub(crate) name: String,
    pub(crate) size: Option<Expr>,
    pub(crate) init: Option<Init>,
    pub(crate) span: Span,
}

/// An initialiser.
#[derive(Debug, Clone)]
pub(crate) enum Init {
    Value(Expr),
    /// `= [K] of { T, ... }`
    Chan(Expr, Vec<Ty>),
}

/// `x`, `a[i]`, `s.f`, `a[i].f[j]`.
#[derive(Debug, Clone)]
pub(crate) struct VarRef {
    pub(crate) name: String,
    pub(crate) index: Option<Box<Expr>>,
    pub(crate) field: Option<(String, Option<Box<Expr>>)>,
    pub(crate) span: Span,
}

/// An expression.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub(crate) kind: Ek,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum Ek {
    Int(i64),
    Bool(bool),
    Var(VarRef),
    Un(&'static str, Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `(c -> a : b)`, parsed to be refused by name.
    #[allow(dead_code)]
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// len, empty, full, nempty, nfull
    Chan(&'static str, VarRef),
    /// `c?[args]`, a poll
    Poll(VarRef, Vec<Expr>),
    Run(String, Vec<Expr>),
    Timeout,
    Pid,
    NrPr,
    /// `P[i]@L`
    RemoteAt(String, Option<Box<Expr>>, String),
    /// `P[i]:x`
    RemoteVar(String, Option<Box<Expr>>, String),
    /// `eval(e)` in a receive
    Eval(Box<Expr>),
    /// `_` in a receive
    Skip,
}

/// A statement.
#[derive(Debug, Clone)]
pub(crate) struct Stmt {
    pub(crate) kind: Sk,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum Sk {
    Decl(Decl),
    Assign(VarRef, Expr),
    Incr(VarRef, i64),
    Expr(Expr),
    Send(VarRef, Vec<Expr>),
    /// `c ? args` (take) or `c ?< args >` (keep).
    Recv(VarRef, Vec<Expr>, RecvMode),
    If(Vec<Vec<Stmt>>),
    Do(Vec<Vec<Stmt>>),
    Atomic(Vec<Stmt>),
    DStep(Vec<Stmt>),
    Seq(Vec<Stmt>),
    Else,
    Break,
    Goto(String, Span),
    Skip,
    Assert(Expr),
    Printf,
    Label(String, Box<Stmt>),
    For(VarRef, Expr, Expr, Vec<Stmt>),
    /// `for (v in a) { }`: over an array's indexes or a channel's
    /// messages, with the name of the hidden counter SPIN declares.
    ForIn(VarRef, VarRef, Vec<Stmt>, String),
    Select(VarRef, Expr, Expr),
}

/// An LTL formula.
#[derive(Debug, Clone)]
pub(crate) enum Formula {
    Atom(Expr),
    Not(Box<Formula>),
    Bin(&'static str, Box<Formula>, Box<Formula>),
    Always(Box<Formula>),
    Eventually(Box<Formula>),
}

const MAX_NEST: usize = 200;

struct Inline {
    params: Vec<String>,
    body: Vec<Tok>,
}

pub(crate) struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
    inlines: &'a mut HashMap<String, Inline>,
    typedefs: &'a HashMap<String, Vec<Decl>>,
    depth: usize,
    end_span: Span,
}

/// Parses a whole specification.
pub(crate) fn parse(toks: &[Tok], end: Span) -> Result<Spec> {
    let mut spec = Spec::default();
    let mut inlines = HashMap::new();
    let mut pos = 0;
    loop {
        let typedefs = std::mem::take(&mut spec.typedefs);
        let mut p = Parser {
            toks,
            pos,
            inlines: &mut inlines,
            typedefs: &typedefs,
            depth: 0,
            end_span: end,
        };
        let more = p.unit(&mut spec)?;
        pos = p.pos;
        let mut typedefs = typedefs;
        typedefs.extend(std::mem::take(&mut spec.typedefs));
        spec.typedefs = typedefs;
        if !more {
            break;
        }
    }
    Ok(spec)
}

const TYPES: &[&str] = &[
    "bit", "bool", "byte", "short", "int", "unsigned", "mtype", "pid", "chan",
];

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k)
    }
    fn span(&self) -> Span {
        self.peek().map_or(self.end_span, |t| t.span)
    }
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return self.span();
        }
        self.toks[self.pos - 1].span
    }
    fn at(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }
    fn at_word(&self, w: &str) -> bool {
        self.peek().and_then(Tok::ident) == Some(w)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.at(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.at_word(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn describe(&self) -> String {
        match self.peek().map(|t| &t.kind) {
            None => "the end of the file".into(),
            Some(Tk::Ident(s)) => format!("`{s}`"),
            Some(Tk::Int(v)) => format!("`{v}`"),
            Some(Tk::Str) => "a string".into(),
            Some(Tk::Punct(p)) => format!("`{p}`"),
            Some(Tk::Bad(c)) => format!("{c:?}"),
        }
    }
    fn expect(&mut self, p: &str) -> Result<Span> {
        if self.at(p) {
            self.pos += 1;
            return Ok(self.prev_span());
        }
        fail(
            self.span(),
            format!("expected `{p}`, found {}", self.describe()),
        )
    }
    fn expect_word(&mut self, w: &str) -> Result<Span> {
        if self.eat_word(w) {
            return Ok(self.prev_span());
        }
        fail(
            self.span(),
            format!("expected `{w}`, found {}", self.describe()),
        )
    }
    fn name(&mut self) -> Result<(String, Span)> {
        match self.peek().map(|t| &t.kind) {
            Some(Tk::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok((s, self.prev_span()))
            }
            _ => fail(
                self.span(),
                format!("expected a name, found {}", self.describe()),
            ),
        }
    }
    fn nest(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NEST {
            return fail(self.span(), "the specification nests too deep");
        }
        Ok(())
    }

    /// `priority N` after a proctype, `init` or `run`: SPIN's verifier
    /// ignores priorities (they steer its simulations), and so does optimist.
    fn priority(&mut self) -> Result<()> {
        if self.eat_word("priority") {
            self.primary()?;
        }
        Ok(())
    }

    /// Refuses the words and operators outside the subset.
    fn refuse_word(&self, w: &str, span: Span) -> Result<()> {
        let what = match w {
            "never" => "a never claim (`never { }`)",
            "unless" => "`unless`",
            "_priority" | "get_priority" | "set_priority" => {
                "`_priority`, `get_priority` and `set_priority`"
            }
            "trace" | "notrace" => "a trace assertion (`trace`/`notrace`)",
            "enabled" => "`enabled()`",
            "pc_value" => "`pc_value()`",
            "_last" => "`_last`",
            "STDIN" => "`STDIN`",
            "np_" => "`np_`",
            w if w.starts_with("c_")
                && matches!(w, "c_code" | "c_expr" | "c_decl" | "c_state" | "c_track") =>
            {
                return unsupported(span, &format!("embedded C (`{w}`)"));
            }
            _ => return Ok(()),
        };
        unsupported(span, what)
    }

    /// One top-level unit; false at the end of the file.
    fn unit(&mut self, spec: &mut Spec) -> Result<bool> {
        let Some(t) = self.peek().cloned() else {
            return Ok(false);
        };
        let span = t.span;
        if self.eat(";") {
            return Ok(true);
        }
        let Some(w) = t.ident().map(str::to_string) else {
            return fail(
                span,
                format!("expected a declaration, found {}", self.describe()),
            );
        };
        self.refuse_word(&w, span)?;
        match w.as_str() {
            "active" | "proctype" => self.proctype_unit(spec, span)?,
            "init" => self.init_unit(spec, span)?,
            "mtype" if self.mtype_decl_at() => self.mtype_unit(spec)?,
            "typedef" => self.typedef_unit(spec)?,
            "inline" => self.inline_unit(span)?,
            "ltl" => {
                self.pos += 1;
                let name = match self.peek().and_then(Tok::ident) {
                    Some(_) => self.name()?.0,
                    None => format!("ltl_{}", spec.ltl.len()),
                };
                self.expect("{")?;
                let f = self.formula()?;
                let end = self.expect("}")?;
                spec.ltl.push((name, f, span.to(end)));
            }
            "hidden" | "local" | "show" => {
                self.pos += 1;
            }
            _ if TYPES.contains(&w.as_str()) || self.typedefs.contains_key(&w) => {
                let ds = self.decl(false)?;
                spec.globals.extend(ds);
            }
            _ => {
                return fail(span, format!("expected a declaration, found `{w}`"));
            }
        }
        Ok(true)
    }

    /// `[active [N]] proctype name(params) { body }`, starting at `span`.
    fn proctype_unit(&mut self, spec: &mut Spec, span: Span) -> Result<()> {
        let mut active = None;
        if self.eat_word("active") {
            if self.eat("[") {
                active = Some(self.expr()?);
                self.expect("]")?;
            } else {
                active = Some(Expr {
                    kind: Ek::Int(1),
                    span,
                });
            }
        }
        self.expect_word("proctype")?;
        let (name, _) = self.name()?;
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.at(")") {
            let ds = self.decl(true)?;
            params.extend(ds);
            if !self.eat(";") && !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        self.priority()?;
        let provided = if self.eat_word("provided") {
            self.expect("(")?;
            let e = self.expr()?;
            self.expect(")")?;
            Some(e)
        } else {
            None
        };
        self.priority()?;
        self.expect("{")?;
        let body = self.seq()?;
        let end = self.expect("}")?;
        spec.procs.push(ProcType {
            name,
            active,
            params,
            body,
            provided,
            span: span.to(end),
            end,
        });
        Ok(())
    }

    /// `init { body }`, starting at `span`; at most one.
    fn init_unit(&mut self, spec: &mut Spec, span: Span) -> Result<()> {
        self.pos += 1;
        self.priority()?;
        self.expect("{")?;
        let body = self.seq()?;
        let end = self.expect("}")?;
        if spec.init.is_some() {
            return fail(span, "a second `init`");
        }
        spec.init = Some(ProcType {
            name: "init".into(),
            active: None,
            params: Vec::new(),
            body,
            provided: None,
            span: span.to(end),
            end,
        });
        Ok(())
    }

    /// Whether an `mtype` here declares names (`mtype [=] {`, `mtype:s
    /// [=] {`) rather than variables (`mtype x`, `mtype:s x`).
    fn mtype_decl_at(&self) -> bool {
        let k = if self.peek_at(1).is_some_and(|t| t.is(":")) {
            3
        } else {
            1
        };
        self.peek_at(k).is_some_and(|t| t.is("=") || t.is("{"))
    }

    /// `mtype [=] { a, b, ... }` or `mtype:s [=] { a, b, ... }`.
    fn mtype_unit(&mut self, spec: &mut Spec) -> Result<()> {
        self.pos += 1;
        let mut decl = MtypeDecl::default();
        if self.eat(":") {
            decl.set = Some(self.name()?.0);
        }
        self.eat("=");
        self.expect("{")?;
        loop {
            decl.names.push(self.name()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect("}")?;
        spec.mtypes.push(decl);
        Ok(())
    }

    /// `typedef name { fields }`.
    fn typedef_unit(&mut self, spec: &mut Spec) -> Result<()> {
        self.pos += 1;
        let (name, _) = self.name()?;
        self.expect("{")?;
        let mut fields = Vec::new();
        while !self.at("}") {
            fields.extend(self.decl(false)?);
            if !self.eat(";") {
                break;
            }
        }
        self.expect("}")?;
        spec.typedefs.insert(name, fields);
        Ok(())
    }

    /// `inline name(params) { tokens }`: the body is kept as tokens, to be
    /// expanded where called.
    fn inline_unit(&mut self, span: Span) -> Result<()> {
        self.pos += 1;
        let (name, _) = self.name()?;
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.at(")") {
            params.push(self.name()?.0);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        self.expect("{")?;
        let start = self.pos;
        let mut level = 1;
        while level > 0 {
            let Some(t) = self.peek() else {
                return fail(span, "this `inline` is not closed");
            };
            if t.is("{") {
                level += 1;
            } else if t.is("}") {
                level -= 1;
            }
            self.pos += 1;
        }
        let body = self.toks[start..self.pos - 1].to_vec();
        self.inlines.insert(name, Inline { params, body });
        Ok(())
    }

    fn ty(&mut self) -> Result<Ty> {
        let (w, span) = self.name()?;
        Ok(match w.as_str() {
            "bit" | "bool" => Ty::Bit,
            "byte" => Ty::Byte,
            "short" => Ty::Short,
            "int" => Ty::Int,
            "pid" => Ty::Pid,
            "mtype" => {
                // Every mtype variable has one range (see `lower`): the
                // set's name changes nothing.
                if self.eat(":") {
                    self.name()?;
                }
                Ty::Mtype
            }
            "chan" => Ty::Chan,
            "unsigned" => Ty::Unsigned(0),
            w if self.typedefs.contains_key(w) => Ty::Named(w.to_string()),
            _ => return fail(span, format!("expected a type, found `{w}`")),
        })
    }

    /// `type name [n] = init, name2, ...` (one name in a parameter list).
    fn decl(&mut self, param: bool) -> Result<Vec<Decl>> {
        while self.eat_word("hidden") || self.eat_word("local") || self.eat_word("show") {}
        let ty = self.ty()?;
        let mut out = Vec::new();
        loop {
            let (name, span) = self.name()?;
            let mut ty = ty.clone();
            let mut size = None;
            if self.eat("[") {
                size = Some(self.expr()?);
                self.expect("]")?;
            }
            if matches!(ty, Ty::Unsigned(_)) {
                self.expect(":")?;
                let bits = self.expr()?;
                let Ek::Int(n) = bits.kind else {
                    return fail(bits.span, "the width of an `unsigned` must be a number");
                };
                if !(1..=32).contains(&n) {
                    return fail(bits.span, "the width of an `unsigned` must be 1 to 32 bits");
                }
                ty = Ty::Unsigned(n as u32);
            }
            let mut init = None;
            if !param && self.eat("=") {
                if ty == Ty::Chan {
                    self.expect("[")?;
                    let k = self.expr()?;
                    self.expect("]")?;
                    self.expect_word("of")?;
                    self.expect("{")?;
                    let mut fields = Vec::new();
                    loop {
                        let fspan = self.span();
                        let f = self.ty()?;
                        if matches!(f, Ty::Unsigned(_)) {
                            return unsupported(fspan, "a channel field of type `unsigned`");
                        }
                        fields.push(f);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("}")?;
                    init = Some(Init::Chan(k, fields));
                } else if self.at("{") {
                    return unsupported(self.span(), "an array initialiser list");
                } else {
                    init = Some(Init::Value(self.expr()?));
                }
            }
            out.push(Decl {
                ty,
                name,
                size,
                init,
                span: span.to(self.prev_span()),
            });
            // `chan a, b` in a parameter list: more names of one type.
            let more_names = self.at(",")
                && self
                    .peek_at(1)
                    .and_then(Tok::ident)
                    .is_some_and(|w| !TYPES.contains(&w) && !self.typedefs.contains_key(w));
            if (param && !more_names) || !self.eat(",") {
                break;
            }
        }
        Ok(out)
    }

    fn at_decl(&self) -> bool {
        match self.peek().and_then(Tok::ident) {
            Some("hidden" | "local" | "show") => true,
            Some(w) if TYPES.contains(&w) => !(w == "mtype" && self.mtype_decl_at()),
            Some(w) => self.typedefs.contains_key(w),
            None => false,
        }
    }

    fn at_seq_end(&self) -> bool {
        match self.peek() {
            None => true,
            Some(t) => {
                t.is("}") || t.is("::") || t.ident() == Some("fi") || t.ident() == Some("od")
            }
        }
    }

    /// Statements separated by `;` or `->` until `}`, `::`, `fi` or `od`.
    fn seq(&mut self) -> Result<Vec<Stmt>> {
        self.nest()?;
        let mut out = Vec::new();
        loop {
            while self.eat(";") || self.eat("->") {}
            if self.at_seq_end() {
                break;
            }
            if self.at_decl() {
                for d in self.decl(false)? {
                    let span = d.span;
                    out.push(Stmt {
                        kind: Sk::Decl(d),
                        span,
                    });
                }
            } else {
                let s = self.stmt()?;
                if self.at_word("unless") {
                    return unsupported(self.span(), "`unless`");
                }
                out.push(s);
            }
            // SPIN is lenient about separators (after a compound statement,
            // a declaration, a label); so is optimist.
            if !(self.at(";") || self.at("->")) && self.at_seq_end() {
                break;
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn options(&mut self, close: &str) -> Result<Vec<Vec<Stmt>>> {
        let mut opts = Vec::new();
        while self.eat("::") {
            opts.push(self.seq()?);
        }
        if opts.is_empty() {
            return fail(
                self.span(),
                format!("expected `::`, found {}", self.describe()),
            );
        }
        self.expect_word(close)?;
        Ok(opts)
    }

    fn stmt(&mut self) -> Result<Stmt> {
        self.nest()?;
        let span = self.span();
        let kind = self.stmt_kind(span)?;
        self.depth -= 1;
        Ok(Stmt {
            kind,
            span: span.to(self.prev_span()),
        })
    }

    fn stmt_kind(&mut self, span: Span) -> Result<Sk> {
        if self.eat("{") {
            let b = self.seq()?;
            self.expect("}")?;
            return Ok(Sk::Seq(b));
        }
        let w = self.peek().and_then(Tok::ident).map(str::to_string);
        if let Some(w) = &w {
            self.refuse_word(w, span)?;
            // A label: `name :` (not `::`).
            if self.peek_at(1).is_some_and(|t| t.is(":")) && !TYPES.contains(&w.as_str()) {
                self.pos += 2;
                let inner = self.stmt()?;
                return Ok(Sk::Label(w.clone(), Box::new(inner)));
            }
            if let Some(k) = self.keyword_stmt(w, span)? {
                return Ok(k);
            }
            if self.inlines.contains_key(w.as_str()) && self.peek_at(1).is_some_and(|t| t.is("(")) {
                return self.inline_call(w, span);
            }
            if let Some(k) = self.var_stmt()? {
                return Ok(k);
            }
        }
        Ok(Sk::Expr(self.expr()?))
    }

    /// A statement that begins with the keyword `w`; None when `w` is not one.
    fn keyword_stmt(&mut self, w: &str, span: Span) -> Result<Option<Sk>> {
        let simple = match w {
            "else" => Some(Sk::Else),
            "break" => Some(Sk::Break),
            "skip" => Some(Sk::Skip),
            _ => None,
        };
        if let Some(k) = simple {
            self.pos += 1;
            return Ok(Some(k));
        }
        Ok(Some(match w {
            "if" => {
                self.pos += 1;
                Sk::If(self.options("fi")?)
            }
            "do" => {
                self.pos += 1;
                Sk::Do(self.options("od")?)
            }
            "atomic" | "d_step" => {
                self.pos += 1;
                self.expect("{")?;
                let b = self.seq()?;
                self.expect("}")?;
                if w == "atomic" {
                    Sk::Atomic(b)
                } else {
                    Sk::DStep(b)
                }
            }
            "goto" => {
                self.pos += 1;
                let (l, s) = self.name()?;
                Sk::Goto(l, s)
            }
            "assert" => {
                self.pos += 1;
                Sk::Assert(self.expr()?)
            }
            "printf" | "printm" => self.printf_stmt(span)?,
            "xr" | "xs" => {
                self.pos += 1;
                loop {
                    self.varref()?;
                    if !self.eat(",") {
                        break;
                    }
                }
                Sk::Seq(Vec::new())
            }
            "for" => self.for_stmt()?,
            "select" => self.select_stmt()?,
            "fi" | "od" => return fail(span, format!("`{w}` without its `if`/`do`")),
            _ => return Ok(None),
        }))
    }

    /// `printf(...)`/`printm(...)`: skipped to its closing parenthesis.
    fn printf_stmt(&mut self, span: Span) -> Result<Sk> {
        self.pos += 1;
        self.expect("(")?;
        let mut level = 1;
        while level > 0 {
            let Some(t) = self.peek() else {
                return fail(span, "this `printf` is not closed");
            };
            if t.is("(") {
                level += 1;
            } else if t.is(")") {
                level -= 1;
            }
            self.pos += 1;
        }
        Ok(Sk::Printf)
    }

    /// `for (v : lo .. hi) { body }`.
    fn for_stmt(&mut self) -> Result<Sk> {
        self.pos += 1;
        self.expect("(")?;
        let v = self.varref()?;
        if self.eat_word("in") {
            let over = self.varref()?;
            let counter = format!("_for{}", self.pos);
            self.expect(")")?;
            self.expect("{")?;
            let b = self.seq()?;
            self.expect("}")?;
            return Ok(Sk::ForIn(v, over, b, counter));
        }
        self.expect(":")?;
        let lo = self.expr()?;
        self.expect("..")?;
        let hi = self.expr()?;
        self.expect(")")?;
        self.expect("{")?;
        let b = self.seq()?;
        self.expect("}")?;
        Ok(Sk::For(v, lo, hi, b))
    }

    /// `select (v : lo .. hi)`.
    fn select_stmt(&mut self) -> Result<Sk> {
        self.pos += 1;
        self.expect("(")?;
        let v = self.varref()?;
        self.expect(":")?;
        let lo = self.expr()?;
        self.expect("..")?;
        let hi = self.expr()?;
        self.expect(")")?;
        Ok(Sk::Select(v, lo, hi))
    }

    /// An assignment, send or receive, which begins with a variable; None
    /// (with the position restored) when the statement is none of these.
    fn var_stmt(&mut self) -> Result<Option<Sk>> {
        let save = self.pos;
        if let Ok(v) = self.varref() {
            if self.at("!!") {
                return unsupported(self.span(), "sorted send (`!!`)");
            }
            if self.at("??") {
                return unsupported(self.span(), "random receive (`??`)");
            }
            if self.eat("=") {
                return Ok(Some(Sk::Assign(v, self.expr()?)));
            }
            if self.eat("++") {
                return Ok(Some(Sk::Incr(v, 1)));
            }
            if self.eat("--") {
                return Ok(Some(Sk::Incr(v, -1)));
            }
            if self.eat("!") {
                return Ok(Some(Sk::Send(v, self.send_args()?)));
            }
            // `c?[...]` is a poll, an expression: the statement is one.
            if self.at("?") && !self.peek_at(1).is_some_and(|t| t.is("[")) {
                self.pos += 1;
                if self.eat("<") {
                    let args = self.recv_args()?;
                    self.expect(">")?;
                    return Ok(Some(Sk::Recv(v, args, RecvMode::Keep)));
                }
                return Ok(Some(Sk::Recv(v, self.recv_args()?, RecvMode::Take)));
            }
        }
        self.pos = save;
        Ok(None)
    }

    fn send_args(&mut self) -> Result<Vec<Expr>> {
        let mut args = vec![self.expr()?];
        // `c ! a(b, c)` is SPIN's other way of writing `c ! a, b, c`.
        if self.at("(") {
            self.pos += 1;
            loop {
                args.push(self.expr()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")")?;
        }
        while self.eat(",") {
            args.push(self.expr()?);
        }
        Ok(args)
    }

    fn recv_arg(&mut self) -> Result<Expr> {
        let span = self.span();
        if self.eat_word("eval") {
            self.expect("(")?;
            let e = self.expr()?;
            self.expect(")")?;
            return Ok(Expr {
                kind: Ek::Eval(Box::new(e)),
                span: span.to(self.prev_span()),
            });
        }
        if self.eat_word("_") {
            return Ok(Expr {
                kind: Ek::Skip,
                span,
            });
        }
        if self.eat("-") {
            if let Some(Tk::Int(v)) = self.peek().map(|t| &t.kind) {
                let v = *v;
                self.pos += 1;
                return Ok(Expr {
                    kind: Ek::Int(-v),
                    span,
                });
            }
            return fail(span, "expected a number after `-`");
        }
        self.primary()
    }

    fn recv_args(&mut self) -> Result<Vec<Expr>> {
        let mut args = vec![self.recv_arg()?];
        if self.at("(") {
            self.pos += 1;
            loop {
                args.push(self.recv_arg()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")")?;
        }
        while self.eat(",") {
            args.push(self.recv_arg()?);
        }
        Ok(args)
    }

    fn inline_call(&mut self, name: &str, span: Span) -> Result<Sk> {
        self.pos += 2;
        let mut args: Vec<Vec<Tok>> = Vec::new();
        let mut cur = Vec::new();
        let mut level = 0;
        loop {
            let Some(t) = self.peek().cloned() else {
                return fail(span, "the call of this `inline` is not closed");
            };
            self.pos += 1;
            if t.is("(") {
                level += 1;
            } else if t.is(")") {
                if level == 0 {
                    break;
                }
                level -= 1;
            } else if t.is(",") && level == 0 {
                args.push(std::mem::take(&mut cur));
                continue;
            }
            cur.push(t);
        }
        if !cur.is_empty() || !args.is_empty() {
            args.push(cur);
        }
        let inl = &self.inlines[name];
        if inl.params.len() != args.len() {
            return fail(
                span,
                format!(
                    "inline `{name}` takes {} arguments, given {}",
                    inl.params.len(),
                    args.len()
                ),
            );
        }
        let mut toks = Vec::new();
        for t in &inl.body {
            match t
                .ident()
                .and_then(|n| inl.params.iter().position(|p| p == n))
            {
                Some(k) => toks.extend(args[k].iter().cloned().map(|mut a| {
                    a.span = span;
                    a
                })),
                None => toks.push(Tok {
                    kind: t.kind.clone(),
                    span,
                }),
            }
        }
        if self.depth > MAX_NEST / 2 {
            return fail(span, "inlines nest too deep");
        }
        let mut sub = Parser {
            toks: &toks,
            pos: 0,
            inlines: self.inlines,
            typedefs: self.typedefs,
            depth: self.depth + 10,
            end_span: span,
        };
        let body = sub.seq()?;
        if sub.pos != toks.len() {
            return fail(
                span,
                format!("the body of inline `{name}` does not parse as statements here"),
            );
        }
        Ok(Sk::Seq(body))
    }

    fn varref(&mut self) -> Result<VarRef> {
        let (name, span) = self.name()?;
        if matches!(
            name.as_str(),
            "true"
                | "false"
                | "timeout"
                | "run"
                | "_pid"
                | "_nr_pr"
                | "len"
                | "empty"
                | "full"
                | "nempty"
                | "nfull"
        ) {
            self.pos -= 1;
            return fail(span, "not a variable");
        }
        let mut index = None;
        if self.eat("[") {
            index = Some(Box::new(self.expr()?));
            self.expect("]")?;
        }
        let mut field = None;
        if self.at(".") && !self.peek_at(1).is_some_and(|t| t.is(".")) {
            self.pos += 1;
            let (f, _) = self.name()?;
            let mut fi = None;
            if self.eat("[") {
                fi = Some(Box::new(self.expr()?));
                self.expect("]")?;
            }
            if self.at(".") {
                return unsupported(self.span(), "a nested record field (`a.b.c`)");
            }
            field = Some((f, fi));
        }
        Ok(VarRef {
            name,
            index,
            field,
            span: span.to(self.prev_span()),
        })
    }

    pub(crate) fn expr(&mut self) -> Result<Expr> {
        self.nest()?;
        let e = self.binary(0);
        self.depth -= 1;
        e
    }

    fn binop(&self) -> Option<(&'static str, u8)> {
        let Tk::Punct(p) = self.peek()?.kind else {
            return None;
        };
        Some((p, super::pre::precedence(p)?))
    }

    fn binary(&mut self, min: u8) -> Result<Expr> {
        let mut l = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec <= min {
                break;
            }
            self.pos += 1;
            self.nest()?;
            let r = self.binary(prec)?;
            self.depth -= 1;
            let span = l.span.to(r.span);
            l = Expr {
                kind: Ek::Bin(op, Box::new(l), Box::new(r)),
                span,
            };
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Expr> {
        let span = self.span();
        for op in ["!", "-", "~"] {
            if self.eat(op) {
                self.nest()?;
                let e = self.unary()?;
                self.depth -= 1;
                return Ok(Expr {
                    span: span.to(e.span),
                    kind: Ek::Un(op, Box::new(e)),
                });
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr> {
        let span = self.span();
        let Some(t) = self.peek().cloned() else {
            return fail(span, "expected an expression, found the end of the file");
        };
        let kind = match &t.kind {
            Tk::Int(v) => {
                self.pos += 1;
                Ek::Int(*v)
            }
            Tk::Punct("(") => {
                self.pos += 1;
                let e = self.expr()?;
                if self.eat("->") {
                    let a = self.expr()?;
                    self.expect(":")?;
                    let b = self.expr()?;
                    self.expect(")")?;
                    Ek::Cond(Box::new(e), Box::new(a), Box::new(b))
                } else {
                    self.expect(")")?;
                    return Ok(Expr {
                        kind: e.kind,
                        span: span.to(self.prev_span()),
                    });
                }
            }
            Tk::Ident(w) => {
                self.refuse_word(w, span)?;
                self.word_expr(w)?
            }
            _ => {
                return fail(
                    span,
                    format!("expected an expression, found {}", self.describe()),
                );
            }
        };
        Ok(Expr {
            kind,
            span: span.to(self.prev_span()),
        })
    }

    /// An expression that begins with the word `w`: a constant, a channel
    /// query, a `run`, a variable or a remote reference.
    fn word_expr(&mut self, w: &str) -> Result<Ek> {
        Ok(match w {
            "true" | "false" => {
                self.pos += 1;
                Ek::Bool(w == "true")
            }
            "timeout" => {
                self.pos += 1;
                Ek::Timeout
            }
            "_pid" => {
                self.pos += 1;
                Ek::Pid
            }
            "_nr_pr" => {
                self.pos += 1;
                Ek::NrPr
            }
            "len" | "empty" | "full" | "nempty" | "nfull"
                if self.peek_at(1).is_some_and(|t| t.is("(")) =>
            {
                let q: &'static str = match w {
                    "len" => "len",
                    "empty" => "empty",
                    "full" => "full",
                    "nempty" => "nempty",
                    _ => "nfull",
                };
                self.pos += 2;
                let v = self.varref()?;
                self.expect(")")?;
                Ek::Chan(q, v)
            }
            "run" => {
                self.pos += 1;
                let (name, _) = self.name()?;
                self.expect("(")?;
                let mut args = Vec::new();
                while !self.at(")") {
                    args.push(self.expr()?);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(")")?;
                self.priority()?;
                Ek::Run(name, args)
            }
            _ => self.var_or_remote(w)?,
        })
    }

    /// A variable, or a remote reference: `P[i]@L`, `P@L`, `P[i]:x`.
    fn var_or_remote(&mut self, w: &str) -> Result<Ek> {
        let save = self.pos;
        self.pos += 1;
        let mut index = None;
        if self.eat("[") {
            index = Some(Box::new(self.expr()?));
            self.expect("]")?;
        }
        Ok(if self.eat("@") {
            let (l, _) = self.name()?;
            Ek::RemoteAt(w.to_string(), index, l)
        } else if self.at(":") && self.peek_at(1).and_then(Tok::ident).is_some() && index.is_some()
        {
            self.pos += 1;
            let (x, _) = self.name()?;
            Ek::RemoteVar(w.to_string(), index, x)
        } else {
            self.pos = save;
            let v = self.varref()?;
            if self.at("??") {
                return unsupported(self.span(), "random receive (`??`)");
            }
            if self.at("?") && self.peek_at(1).is_some_and(|t| t.is("[")) {
                self.pos += 2;
                let args = self.recv_args()?;
                self.expect("]")?;
                return Ok(Ek::Poll(v, args));
            }
            Ek::Var(v)
        })
    }

    // LTL: `->`/`<->` loosest, then `||`, `&&`, `U`/`W`/`V`, then unary.
    fn formula(&mut self) -> Result<Formula> {
        self.nest()?;
        let l = self.f_or()?;
        let f = if self.eat("->") {
            Formula::Bin("->", Box::new(l), Box::new(self.formula()?))
        } else if self.at("<") && self.peek_at(1).is_some_and(|t| t.is("->")) {
            self.pos += 2;
            Formula::Bin("<->", Box::new(l), Box::new(self.formula()?))
        } else {
            l
        };
        self.depth -= 1;
        Ok(f)
    }
    fn f_or(&mut self) -> Result<Formula> {
        let mut l = self.f_and()?;
        while self.eat("||") {
            l = Formula::Bin("||", Box::new(l), Box::new(self.f_and()?));
        }
        Ok(l)
    }
    fn f_and(&mut self) -> Result<Formula> {
        let mut l = self.f_until()?;
        while self.eat("&&") {
            l = Formula::Bin("&&", Box::new(l), Box::new(self.f_until()?));
        }
        Ok(l)
    }
    fn f_until(&mut self) -> Result<Formula> {
        let l = self.f_unary()?;
        for op in ["U", "W", "V"] {
            if self.eat_word(op) {
                self.nest()?;
                let r = self.f_until()?;
                self.depth -= 1;
                return Ok(Formula::Bin(op, Box::new(l), Box::new(r)));
            }
        }
        Ok(l)
    }
    fn f_unary(&mut self) -> Result<Formula> {
        self.nest()?;
        let span = self.span();
        let f = if self.eat("[]") || self.eat_word("always") {
            Formula::Always(Box::new(self.f_unary()?))
        } else if self.eat("<>") || self.eat_word("eventually") {
            Formula::Eventually(Box::new(self.f_unary()?))
        } else if self.eat("!") {
            Formula::Not(Box::new(self.f_unary()?))
        } else if self.at_word("X") {
            return unsupported(span, "the LTL next operator `X`");
        } else if self.at("(") {
            // A parenthesised formula, or an expression atom.
            let save = self.pos;
            self.pos += 1;
            match self.formula() {
                Ok(f) if self.eat(")") => {
                    // An atom may go on with an operator: `(a) + 1 > 2`.
                    if self.binop().is_some_and(|(p, _)| p != "&&" && p != "||") {
                        self.pos = save;
                        Formula::Atom(self.atom()?)
                    } else {
                        f
                    }
                }
                first => {
                    // Not a formula: an atom, or else the formula's own
                    // error (which names an unsupported construct).
                    self.pos = save;
                    match (self.atom(), first) {
                        (Ok(a), _) => Formula::Atom(a),
                        (Err(_), Err(e)) => return Err(e),
                        (Err(e), Ok(_)) => return Err(e),
                    }
                }
            }
        } else {
            Formula::Atom(self.atom()?)
        };
        self.depth -= 1;
        Ok(f)
    }
    /// An atom: an expression with operators tighter than `&&`.
    fn atom(&mut self) -> Result<Expr> {
        self.binary(2)
    }
}
