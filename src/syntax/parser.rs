//! The parser: nom over `&str`, one method per grammar rule.
//!
//! Error reporting follows the furthest-failure rule of PEG parsers: every
//! primitive that fails records what it expected at its offset, and when the
//! parse as a whole fails the error names the expectations at the furthest
//! offset reached. Optional continuations (binary operators, `else`, `or`)
//! are tried quietly so they do not clutter the message.

use std::cell::{Cell, RefCell};

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::multispace0;
use nom::{Err as NomErr, IResult, Parser as _};

use super::ast::*;
use super::span::Span;
use super::suggest;

mod ltl;

type Res<'a, T> = IResult<&'a str, T, ()>;

/// Deepest nesting of blocks and of expressions inside expressions
/// (parentheses, unary operators, `a[...]`, `at(...)`, `init(...)`,
/// quantifiers). Deeper input is an error rather than a stack overflow.
pub const MAX_NESTING: u32 = 64;
/// Deepest expression tree (long operator chains nest without parentheses).
pub const MAX_EXPR_DEPTH: usize = 128;

/// A syntax error: where, what, and optionally how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where the error was detected.
    pub span: Span,
    /// What went wrong.
    pub message: String,
    /// A hint, when there is one.
    pub help: Option<String>,
}

/// Parses a whole model.
pub fn parse(src: &str) -> Result<Model, SyntaxError> {
    let p = Parser::new(src);
    match p.model(src) {
        Ok((_, m)) => Ok(m),
        Err(_) => Err(p.error()),
    }
}

/// Parses one expression (used by refine for lock names, and in tests).
pub fn parse_expr(src: &str) -> Result<Expr, SyntaxError> {
    let p = Parser::new(src);
    let r = p.expr(src).and_then(|(i, e)| {
        let i = p.skip(i)?;
        if i.is_empty() {
            Ok(e)
        } else {
            p.expect::<()>(i, "end of input").map(|_| e)
        }
    });
    r.map_err(|_| p.error())
}

struct Parser<'a> {
    src: &'a str,
    far: Cell<usize>,
    expected: RefCell<Vec<&'static str>>,
    fatal: RefCell<Option<SyntaxError>>,
    depth: Cell<u32>,
    quiet: Cell<bool>,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            far: Cell::new(0),
            expected: RefCell::new(Vec::new()),
            fatal: RefCell::new(None),
            depth: Cell::new(0),
            quiet: Cell::new(false),
        }
    }

    // ---- positions and errors -------------------------------------------

    fn off(&self, i: &'a str) -> usize {
        self.src.len() - i.len()
    }

    fn span_from(&self, start: usize, rest: &'a str) -> Span {
        Span::new(start, self.off(rest))
    }

    /// Records that `what` was expected at `i` and fails.
    fn expect<T>(&self, i: &'a str, what: &'static str) -> Res<'a, T> {
        if !self.quiet.get() {
            let at = self.off(i);
            let mut exp = self.expected.borrow_mut();
            if at > self.far.get() || exp.is_empty() {
                self.far.set(at);
                exp.clear();
            }
            if at == self.far.get() && !exp.contains(&what) {
                exp.push(what);
            }
        }
        Err(NomErr::Error(()))
    }

    /// Fails the whole parse with a specific message.
    fn fatal<T>(&self, span: Span, message: String, help: Option<&str>) -> Res<'a, T> {
        let mut f = self.fatal.borrow_mut();
        if f.is_none() {
            *f = Some(SyntaxError {
                span,
                message,
                help: help.map(str::to_string),
            });
        }
        Err(NomErr::Failure(()))
    }

    fn error(&self) -> SyntaxError {
        // A file of NULs between letters is UTF-16: say so at the first.
        let utf16 = looks_utf16(self.src);
        if let Some(f) = self.fatal.borrow().clone()
            && !utf16
        {
            return f;
        }
        let mut at = self.far.get();
        if utf16 && let Some(first) = self.src.find('\0') {
            at = first;
        }
        let rest = &self.src[at..];
        // A character the reader cannot see is named, and pointed at
        // where it is (not at the end of the previous line).
        if let Some(c) = rest.chars().next()
            && let Some((what, help)) = invisible(c)
        {
            let mut message = format!("unexpected {what} (U+{:04X})", u32::from(c));
            let mut help = help.to_string();
            if c == '\0' {
                // One NUL is a stray; many mean the file is not UTF-8 text.
                let nuls = self.src.bytes().filter(|&b| b == 0).count();
                if utf16 {
                    message.push_str("; the file is not UTF-8 text (UTF-16?)");
                    help = "a file with a NUL byte after every letter is UTF-16: convert it to UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`)".into();
                } else if nuls > 1 {
                    message.push_str(&format!("; the file has {nuls} of them: is it text?"));
                    help = "models are UTF-8 text; delete the NUL bytes, or check that this is the model file".into();
                }
            }
            return SyntaxError {
                span: Span::new(at, at + c.len_utf8()),
                message,
                help: Some(help),
            };
        }
        let found = found_token(rest);
        let mut span = Span::new(at, at + found.len().max(usize::from(!rest.is_empty())));
        let exp = self.expected.borrow();
        // A symbol missing at the start of a line was forgotten at the end
        // of the previous one (a `;`), and the end of the input is past the
        // last line: point there. A word that is wrong (`expected a
        // declaration, found ...`) is pointed at where it is.
        let prev = self.src[..at].trim_end();
        let missing = rest.is_empty() || exp.iter().all(|e| is_symbol(e));
        if missing && self.src[prev.len()..at].contains('\n') && !prev.is_empty() {
            span = Span::new(prev.len(), prev.len());
        }
        let list = match exp.as_slice() {
            [] => "more input".to_string(),
            [one] => one.to_string(),
            [init @ .., last] => format!("{} or {}", init.join(", "), last),
        };
        let found = if rest.is_empty() {
            "end of input".to_string()
        } else if found.len() > 40 {
            // A name can be any length; the message shows its start.
            format!("`{}...`", &found[..40])
        } else {
            format!("`{found}`")
        };
        SyntaxError {
            span,
            message: format!("expected {list}, found {found}"),
            help: None,
        }
    }

    /// Runs `f` without recording expectations: for optional continuations.
    fn quietly<T>(&self, f: impl FnOnce() -> T) -> T {
        let old = self.quiet.replace(true);
        let r = f();
        self.quiet.set(old);
        r
    }

    /// An expression inside another one, one nesting level deeper. Every
    /// form that nests an expression goes through here (or [`Self::nested`]),
    /// so the parser's recursion is bounded whatever the input.
    fn sub_expr(&self, i: &'a str) -> Res<'a, Expr> {
        self.nested(i, |i| self.expr(i))
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    fn nested<T>(&self, i: &'a str, f: impl FnOnce(&'a str) -> Res<'a, T>) -> Res<'a, T> {
        let d = self.depth.get() + 1;
        if d > MAX_NESTING {
            let at = self.off(i);
            return self.fatal(
                Span::new(at, at + 1),
                format!("nesting deeper than {MAX_NESTING} levels"),
                Some("split the expression or block into smaller pieces"),
            );
        }
        self.depth.set(d);
        let r = f(i);
        self.depth.set(d - 1);
        r
    }

    // ---- tokens ---------------------------------------------------------

    /// Skips whitespace and comments.
    fn skip(&self, mut i: &'a str) -> Result<&'a str, NomErr<()>> {
        loop {
            let (r, _) = multispace0::<_, ()>(i)?;
            i = r;
            if let Ok((r, _)) = tag::<_, _, ()>("//").parse(i) {
                let (r, _) = take_while::<_, _, ()>(|c| c != '\n').parse(r)?;
                i = r;
            } else if let Ok((r, _)) = tag::<_, _, ()>("/*").parse(i) {
                match r.find("*/") {
                    Some(n) => i = &r[n + 2..],
                    None => {
                        let at = self.off(i);
                        return Err(self
                            .fatal::<()>(
                                Span::new(at, at + 2),
                                "unterminated comment".into(),
                                Some("close it with `*/`"),
                            )
                            .unwrap_err());
                    }
                }
            } else {
                return Ok(i);
            }
        }
    }

    /// A punctuation symbol. `:`, `=`, `<`, `>` and `!` do not match the
    /// first character of `:=`, `==`, `<=`, `>=` and `!=`.
    fn sym(&self, i: &'a str, s: &'static str) -> Res<'a, Span> {
        let i = self.skip(i)?;
        let start = self.off(i);
        match tag::<_, _, ()>(s).parse(i) {
            Ok((r, _)) if !(matches!(s, ":" | "=" | "<" | ">" | "!") && r.starts_with('=')) => {
                Ok((r, self.span_from(start, r)))
            }
            _ => self.expect(i, sym_name(s)),
        }
    }

    fn try_sym(&self, i: &'a str, s: &'static str) -> Option<(&'a str, Span)> {
        self.quietly(|| self.sym(i, s)).ok()
    }

    fn kw(&self, i: &'a str, k: &'static str) -> Res<'a, Span> {
        let i = self.skip(i)?;
        let start = self.off(i);
        match tag::<_, _, ()>(k).parse(i) {
            Ok((r, _)) if !r.starts_with(is_ident_char) => Ok((r, self.span_from(start, r))),
            _ => self.expect(i, kw_name(k)),
        }
    }

    fn try_kw(&self, i: &'a str, k: &'static str) -> Option<(&'a str, Span)> {
        self.quietly(|| self.kw(i, k)).ok()
    }

    fn ident(&self, i: &'a str) -> Res<'a, Ident> {
        let i = self.skip(i)?;
        let start = self.off(i);
        if !i.starts_with(is_ident_start) {
            return self.expect(i, "a name");
        }
        let (r, name) = take_while1(is_ident_char).parse(i)?;
        let span = self.span_from(start, r);
        if KEYWORDS.contains(&name) {
            if self.quiet.get() {
                return Err(NomErr::Error(()));
            }
            return self.fatal(
                span,
                format!("`{name}` is a keyword and cannot be used as a name"),
                Some("choose another name"),
            );
        }
        Ok((
            r,
            Ident {
                name: name.to_string(),
                span,
            },
        ))
    }

    fn int(&self, i: &'a str) -> Res<'a, (i64, Span)> {
        let i = self.skip(i)?;
        let start = self.off(i);
        let Ok((r, digits)) = take_while1::<_, _, ()>(|c: char| c.is_ascii_digit()).parse(i) else {
            return self.expect(i, "an integer");
        };
        let span = self.span_from(start, r);
        if r.starts_with(is_ident_char) {
            return self.expect(r, "an operator");
        }
        match digits.parse::<i64>() {
            Ok(n) => Ok((r, (n, span))),
            Err(_) => self.fatal(
                span,
                "integer literal too large".into(),
                Some("integers are 64-bit; the largest is 9223372036854775807"),
            ),
        }
    }

    /// One or more `item`s separated by commas.
    fn comma_list<T>(&self, i: &'a str, item: impl Fn(&'a str) -> Res<'a, T>) -> Res<'a, Vec<T>> {
        self.separated(i, |r| self.try_sym(r, ","), item)
    }

    /// One or more `item`s, each after the first behind what `sep` takes
    /// (a comma, `or`).
    fn separated<T>(
        &self,
        mut i: &'a str,
        sep: impl Fn(&'a str) -> Option<(&'a str, Span)>,
        item: impl Fn(&'a str) -> Res<'a, T>,
    ) -> Res<'a, Vec<T>> {
        let mut out = Vec::new();
        loop {
            let (r, x) = item(i)?;
            out.push(x);
            match sep(r) {
                Some((r, _)) => i = r,
                None => return Ok((r, out)),
            }
        }
    }

    fn at_eof(&self, i: &'a str) -> Result<bool, NomErr<()>> {
        Ok(self.skip(i)?.is_empty())
    }

    // ---- model and declarations -------------------------------------------

    fn model(&self, i: &'a str) -> Res<'a, Model> {
        let (mut i, name) = match self.try_kw(i, "system") {
            Some((r, _)) => {
                let (r, name) = self.ident(r)?;
                let (r, _) = self.sym(r, ";")?;
                (r, Some(name))
            }
            None => (i, None),
        };
        let mut items = Vec::new();
        while !self.at_eof(i)? {
            let (r, mut new) = self.item(i)?;
            items.append(&mut new);
            i = r;
        }
        Ok((i, Model { name, items }))
    }

    fn item(&self, i: &'a str) -> Res<'a, Vec<Item>> {
        let i = self.skip(i)?;
        let start = self.off(i);
        if let Some((r, _)) = self.try_kw(i, "const") {
            let (r, name) = self.ident(r)?;
            let (r, _) = self.sym(r, "=")?;
            let (r, value) = self.expr(r)?;
            let (r, _) = self.sym(r, ";")?;
            let span = self.span_from(start, r);
            return Ok((r, vec![Item::Const(ConstDecl { name, value, span })]));
        }
        if let Some((r, _)) = self.try_kw(i, "threads") {
            let (r, n) = self.expr(r)?;
            let (r, _) = self.sym(r, ";")?;
            return Ok((r, vec![Item::Threads(n, self.span_from(start, r))]));
        }
        if let Some((r, _)) = self.try_kw(i, "invariant") {
            let (r, e) = self.expr(r)?;
            let (r, _) = self.sym(r, ";")?;
            return Ok((r, vec![Item::Invariant(e, self.span_from(start, r))]));
        }
        if let Some((r, _)) = self.try_kw(i, "ltl") {
            return self.ltl_decl(r, start);
        }
        if let Some((r, _)) = self.try_kw(i, "thread") {
            let (r, t) = self.thread(r, start)?;
            return Ok((r, vec![Item::Thread(t)]));
        }
        if let Some((r, _)) = self.try_kw(i, "proc") {
            let (r, p) = self.proc_decl(r, start)?;
            return Ok((r, vec![Item::Proc(p)]));
        }
        if let Some((r, _)) = self.try_kw(i, "chan") {
            let (r, c) = self.chan_decl(r, start)?;
            return Ok((r, vec![Item::Chan(c)]));
        }
        if let Some((r, _)) = self.try_kw(i, "lock") {
            let (r, decls) = self.lock_decl(r, start)?;
            return Ok((r, decls.into_iter().map(Item::Var).collect()));
        }
        for kw in ["shared", "protected", "sem"] {
            if let Some((r, _)) = self.try_kw(i, kw) {
                let (r, decls) = self.var_decl(r, start, kw)?;
                return Ok((r, decls.into_iter().map(Item::Var).collect()));
            }
        }
        if let Some((_, _)) = self.try_kw(i, "local") {
            let at = self.off(i);
            return self.fatal(
                Span::new(at, at + 5),
                "`local` variables are declared inside a thread body".into(),
                Some("move the declaration into a `thread NAME { ... }` block, before its statements"),
            );
        }
        self.unknown_word(i, "declaration", DECLARATION_KEYWORDS, DECLARATION_WORDS)?;
        self.misplaced_at_top(i)?;
        self.expect(i, "a declaration")
    }

    /// A statement, or a stray `}`, where a declaration should be.
    fn misplaced_at_top(&self, i: &'a str) -> Result<(), NomErr<()>> {
        let word = found_token(i);
        let at = self.off(i);
        let span = Span::new(at, at + word.len().max(1));
        if i.starts_with('}') {
            return self
                .fatal::<()>(
                    span,
                    "expected a declaration, found `}`".into(),
                    Some("this `}` closes no block: delete it, or the `}` that closes the block too early"),
                )
                .map(|_| ());
        }
        let statement = STATEMENT_KEYWORDS.contains(&word)
            || (i.starts_with(is_ident_start)
                && !KEYWORDS.contains(&word)
                && word.len() <= suggest::MAX_TYPO
                && self.skip(&i[word.len()..])?.starts_with(":="));
        if statement {
            return self
                .fatal::<()>(
                    span,
                    format!("expected a declaration, found `{word}`"),
                    Some("statements belong in the body of a thread: `thread T { ... }`"),
                )
                .map(|_| ());
        }
        Ok(())
    }

    /// `lock a, b[2];`
    fn lock_decl(&self, i: &'a str, start: usize) -> Res<'a, Vec<VarDecl>> {
        let (r, mut decls) = self.comma_list(i, |r| {
            let (r, name) = self.ident(r)?;
            let (r, size) = self.opt_size(r)?;
            let span = Span::default();
            Ok((
                r,
                VarDecl {
                    class: Class::Shared,
                    name,
                    size,
                    ty: Type::Lock,
                    init: None,
                    span,
                },
            ))
        })?;
        let (r, _) = self.semi(r)?;
        let span = self.span_from(start, r);
        for d in &mut decls {
            d.span = span;
        }
        Ok((r, decls))
    }

    /// `chan c[n]? : [K] of {T, ...};`
    fn chan_decl(&self, i: &'a str, start: usize) -> Res<'a, ChanDecl> {
        let (r, name) = self.ident(i)?;
        let (r, size) = self.opt_size(r)?;
        let (r, _) = self.sym(r, ":")?;
        let (r, _) = self.sym(r, "[")?;
        let (r, capacity) = self.expr(r)?;
        let (r, _) = self.sym(r, "]")?;
        let (r, _) = self.kw(r, "of")?;
        let (r, _) = self.sym(r, "{")?;
        let (r, fields) = self.comma_list(r, |r| self.value_type(r))?;
        let (r, _) = self.sym(r, "}")?;
        let (r, _) = self.semi(r)?;
        let span = self.span_from(start, r);
        Ok((
            r,
            ChanDecl {
                name,
                size,
                capacity,
                fields,
                span,
            },
        ))
    }

    fn opt_size(&self, i: &'a str) -> Res<'a, Option<Expr>> {
        match self.try_sym(i, "[") {
            Some((r, _)) => {
                let (r, e) = self.expr(r)?;
                let (r, _) = self.sym(r, "]")?;
                Ok((r, Some(e)))
            }
            None => Ok((i, None)),
        }
    }

    /// `shared|protected|sem|local NAME[n]? {, NAME[n]?} : TYPE (= INIT)?
    /// (excl ... | by m)? ;`: one declaration per name, each with the same
    /// type, initial value and predicate, all with the span of the whole
    /// declaration.
    fn var_decl(&self, i: &'a str, start: usize, kw: &'static str) -> Res<'a, Vec<VarDecl>> {
        let (r, names) = self.comma_list(i, |r| {
            let (r, name) = self.ident(r)?;
            let (r, size) = self.opt_size(r)?;
            Ok((r, (name, size)))
        })?;
        let (r, _) = self.sym(r, ":")?;
        let first = &names[0].0.name;
        let first_size = names[0].1.as_ref().map(super::pretty::expr);
        let decl = |size: Option<&str>, ty: &str, init: &str| {
            declaration(kw, first, size.or(first_size.as_deref()), ty, init)
        };
        self.foreign_type(r, &decl)?;
        let (r, ty) = if kw == "sem" {
            let (r, (lo, hi)) = self.range(r)?;
            (r, Type::Sem(lo, hi))
        } else if let Some((r, _)) = self.try_kw(r, "bool") {
            (r, Type::Bool)
        } else {
            let (r, (lo, hi)) = self.range(r)?;
            (r, Type::Int(lo, hi))
        };
        self.array_after_type(r, &decl, &ty)?;
        let (r, init) = match self.try_sym(r, "=") {
            Some((r, _)) => {
                let (r, init) = self.init(r)?;
                (r, Some(init))
            }
            None => (r, None),
        };
        let (r, class) = match kw {
            "protected" => {
                let (r, excl) = self.excl(r)?;
                let (r, unprotected) = match self.try_kw(r, "unprotected") {
                    Some((r, _)) => {
                        let (r, _) = self.sym(r, "[")?;
                        let (r, list) = self.comma_list(r, |r| self.expr(r))?;
                        let (r, _) = self.sym(r, "]")?;
                        (r, list)
                    }
                    None => (r, Vec::new()),
                };
                (r, Class::Protected { excl, unprotected })
            }
            "local" => (r, Class::Local),
            _ => (r, Class::Shared),
        };
        let (r, _) = self.semi(r)?;
        let span = self.span_from(start, r);
        let decls = names
            .into_iter()
            .map(|(name, size)| VarDecl {
                class: class.clone(),
                name,
                size,
                ty: ty.clone(),
                init: init.clone(),
                span,
            })
            .collect();
        Ok((r, decls))
    }

    fn range(&self, i: &'a str) -> Res<'a, (Expr, Expr)> {
        let (r, lo) = self.expr(i)?;
        let (r, _) = self.sym(r, "..")?;
        let (r, hi) = self.expr(r)?;
        Ok((r, (lo, hi)))
    }

    fn init(&self, i: &'a str) -> Res<'a, Init> {
        let i = self.skip(i)?;
        let start = self.off(i);
        let Some((r, _)) = self.try_sym(i, "[") else {
            let (r, e) = self.expr(i)?;
            return Ok((r, Init::Value(e)));
        };
        let (r, list) = self.comma_list(r, |r| self.expr(r))?;
        let (r, _) = self.sym(r, "]")?;
        Ok((r, Init::List(list, self.span_from(start, r))))
    }

    /// `excl(t) = e`, `excl(t, j) = e` or `by m`.
    fn excl(&self, i: &'a str) -> Res<'a, Excl> {
        if let Some((r, _)) = self.try_kw(i, "by") {
            let (r, lv) = self.lvalue(r)?;
            return Ok((r, Excl::By(lv)));
        }
        let (r, _) = self.kw(i, "excl")?;
        let (r, _) = self.sym(r, "(")?;
        let (mut r, t) = self.ident(r)?;
        let mut params = vec![t];
        if let Some((r2, _)) = self.try_sym(r, ",") {
            let (r2, j) = self.ident(r2)?;
            params.push(j);
            r = r2;
        }
        let (r, _) = self.sym(r, ")")?;
        let (r, _) = self.sym(r, "=")?;
        let (r, body) = self.expr(r)?;
        Ok((r, Excl::Pred { params, body }))
    }

    fn thread(&self, i: &'a str, start: usize) -> Res<'a, ThreadDecl> {
        let (r, name) = self.ident(i)?;
        let (r, copies) = self.opt_size(r)?;
        let (r, body) = self.body(r, "thread")?;
        Ok((
            r,
            ThreadDecl {
                name,
                copies,
                body,
                dormant: None,
                provided: None,
                span: self.span_from(start, r),
            },
        ))
    }

    /// `proc NAME(p : type, ...) [: type] { locals statements }`, after `proc`.
    fn proc_decl(&self, i: &'a str, start: usize) -> Res<'a, ProcDecl> {
        let (r, name) = self.ident(i)?;
        let (r, _) = self.sym(r, "(")?;
        let (r, params) = match self.try_sym(r, ")") {
            Some((r, _)) => (r, Vec::new()),
            None => {
                let (r, params) = self.comma_list(r, |r| {
                    let (r, name) = self.ident(r)?;
                    let (r, _) = self.sym(r, ":")?;
                    let (r, ty) = self.value_type(r)?;
                    Ok((r, Param { name, ty }))
                })?;
                let (r, _) = self.sym(r, ")")?;
                (r, params)
            }
        };
        let (r, ret) = match self.try_sym(r, ":") {
            Some((r, _)) => {
                let (r, ty) = self.value_type(r)?;
                (r, Some(ty))
            }
            None => (r, None),
        };
        let (r, body) = self.body(r, "procedure")?;
        Ok((
            r,
            ProcDecl {
                name,
                params,
                ret,
                body,
                span: self.span_from(start, r),
            },
        ))
    }

    /// `bool` or `lo..hi`: the type of a parameter or a returned value.
    fn value_type(&self, r: &'a str) -> Res<'a, Type> {
        let decl =
            |_: Option<&str>, ty: &str, _: &str| format!("proc f(x : {ty}) : {ty} {{ ... }}");
        self.foreign_type(r, &decl)?;
        if let Some((r, _)) = self.try_kw(r, "bool") {
            return Ok((r, Type::Bool));
        }
        if let Some((r, _)) = self.try_kw(r, "chan") {
            let (r, q) = self.ident(r)?;
            return Ok((r, Type::Chan(q)));
        }
        let (r, (lo, hi)) = self.range(r)?;
        Ok((r, Type::Int(lo, hi)))
    }

    /// Fails with a hint when the type at `i` is written as in another
    /// language (`int`, `boolean`, `string`, `int[3]`); `decl(type, init)`
    /// writes the declaration as it should be. A name followed by `..`
    /// is the bound of a range (`const int = 3;` is allowed), not a type.
    fn foreign_type(&self, i: &'a str, decl: &Decl) -> Result<(), NomErr<()>> {
        let i = self.skip(i)?;
        let word = found_token(i);
        if !i.starts_with(is_ident_start) || word.len() > suggest::MAX_TYPO {
            return Ok(());
        }
        let Some((kind, range)) = foreign(word) else {
            return Ok(());
        };
        // `int[3]`: a length in brackets after the type.
        let mut after = self.skip(&i[word.len()..])?;
        let mut end = self.off(i) + word.len();
        let mut size = None;
        if after.starts_with('[') {
            let Some(n) = bracket_end(after) else {
                return Ok(());
            };
            end = self.off(after) + n + 1;
            size = Some(array_size(&after[1..n]));
            after = self.skip(&after[n + 1..])?;
        }
        if after.starts_with("..")
            || after.starts_with("==")
            || after.starts_with("!=")
            || after.starts_with(['+', '-', '*', '/', '%', '(', '.', '<', '>', '&', '|'])
        {
            return Ok(());
        }
        let decl = |ty: &str, init: &str| decl(size, ty, init);
        let array_note = if size.is_some() {
            ", and the array's length after its name"
        } else {
            ""
        };
        let (message, help) = match kind {
            Foreign::Int => (
                format!("optimist has no `{word}` type: a variable takes a range of values"),
                format!(
                    "write the range of its values{array_note}, as in `{}`",
                    decl(range, range.split("..").next().unwrap_or("0"))
                ),
            ),
            Foreign::Bool => (
                format!("optimist has no `{word}` type: its boolean type is `bool`"),
                format!("write `bool`{array_note}, as in `{}`", decl("bool", "false")),
            ),
            Foreign::Other => (
                format!("optimist has no `{word}` type: a variable is a `bool` or takes a range of integers"),
                format!("number the values it takes{array_note}, as in `{}`", decl("0..3", "0")),
            ),
            Foreign::Lock => (
                format!("a lock is not a variable's type: `{word}` cannot follow `:`"),
                "a lock is declared on its own, as in `lock m;` (and `lock m[3];` for an array of locks)".into(),
            ),
        };
        let at = self.off(i);
        self.fatal::<()>(Span::new(at, end), message, Some(&help))
            .map(|_| ())
    }

    /// Fails with a hint when an array's length follows the type
    /// (`bool[3]`, `0..3[2]`) rather than the name.
    fn array_after_type(&self, r: &'a str, decl: &Decl, ty: &Type) -> Result<(), NomErr<()>> {
        let r = self.skip(r)?;
        if !r.starts_with('[') {
            return Ok(());
        }
        let at = self.off(r);
        let (ty, init) = match ty {
            Type::Bool => ("bool".to_string(), "false".to_string()),
            Type::Int(lo, hi) | Type::Sem(lo, hi) => (
                format!("{}..{}", super::pretty::expr(lo), super::pretty::expr(hi)),
                super::pretty::expr(lo),
            ),
            Type::Lock | Type::Chan(_) => return Ok(()),
        };
        let size = bracket_end(r).map(|n| array_size(&r[1..n]));
        self.fatal::<()>(
            Span::new(at, at + 1),
            "an array's length goes after its name, not after its type".into(),
            Some(&format!(
                "write `{}`",
                decl(Some(size.unwrap_or("3")), &ty, &init)
            )),
        )
        .map(|_| ())
    }

    /// `{ locals statements }` of a thread or a procedure (`what`), with the
    /// span of its closing brace.
    fn body(&self, r: &'a str, what: &str) -> Res<'a, Body> {
        let (mut r, _) = self.sym(r, "{")?;
        let mut locals = Vec::new();
        loop {
            let r0 = self.skip(r)?;
            let Some((r2, _)) = self.try_kw(r0, "local") else {
                break;
            };
            let (r2, mut d) = self.var_decl(r2, self.off(r0), "local")?;
            locals.append(&mut d);
            r = r2;
        }
        let (r, stmts) = self.stmts(r)?;
        let r = self.skip(r)?;
        let end_start = self.off(r);
        if let Some((_, _)) = self.try_kw(r, "local") {
            return self.fatal(
                Span::new(end_start, end_start + 5),
                format!("`local` declarations must come before the {what}'s statements"),
                Some(&format!("move it to the top of the {what} body")),
            );
        }
        let (r, end) = self.sym(r, "}")?;
        Ok((r, Body { locals, stmts, end }))
    }

    // ---- statements ---------------------------------------------------------

    /// Statements up to (not including) the closing `}`.
    fn stmts(&self, mut i: &'a str) -> Res<'a, Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            let r = self.skip(i)?;
            if r.is_empty() || r.starts_with('}') {
                // Record that a statement could have come here, for messages
                // like "expected a statement or `}`".
                let _ = self.expect::<()>(r, "a statement");
                return Ok((r, out));
            }
            if self.quietly(|| self.kw(r, "local")).is_ok() {
                return Ok((r, out));
            }
            let (r, s) = self.stmt(r)?;
            out.push(s);
            i = r;
        }
    }

    fn block(&self, i: &'a str) -> Res<'a, Vec<Stmt>> {
        let (r, _) = self.sym(i, "{")?;
        self.nested(r, |r| {
            let (r, body) = self.stmts(r)?;
            let (r, _) = self.sym(r, "}")?;
            Ok((r, body))
        })
    }

    fn stmt(&self, i: &'a str) -> Res<'a, Stmt> {
        let i = self.skip(i)?;
        let (i, label) = match self.quietly(|| {
            self.ident(i)
                .and_then(|(r, id)| self.sym(r, ":").map(|(r, _)| (r, id)))
        }) {
            Ok((r, id)) => (r, Some(id)),
            Err(_) => (i, None),
        };
        let i = self.skip(i)?;
        let start = self.off(i);
        let (r, kind) = self.stmt_kind(i)?;
        Ok((
            r,
            Stmt {
                label,
                kind,
                span: self.span_from(start, r),
            },
        ))
    }

    /// A statement after its label, `i` at its first token. Compound
    /// statements recurse through blocks, so each has its own small
    /// function (see `primary`).
    fn stmt_kind(&self, i: &'a str) -> Res<'a, StmtKind> {
        let word = i.find(|c: char| !is_ident_char(c)).map_or(i, |n| &i[..n]);
        let r = &i[word.len()..];
        match word {
            "atomic" => {
                let (r, body) = self.block(r)?;
                Ok((self.opt_semi(r), StmtKind::Atomic(body)))
            }
            "if" => self.if_rest(r),
            "while" => self.while_rest(r),
            "init" => self.init_block(r),
            "repeat" => self.repeat_rest(r),
            "either" => {
                let at = self.off(i);
                self.either_rest(r, Span::new(at, at + word.len()))
            }
            _ => self.simple_stmt(i),
        }
    }

    fn while_rest(&self, r: &'a str) -> Res<'a, StmtKind> {
        let (r, c) = self.expr(r)?;
        let (r, body) = self.block(r)?;
        Ok((self.opt_semi(r), StmtKind::While(c, body)))
    }

    fn init_block(&self, r: &'a str) -> Res<'a, StmtKind> {
        let (r, vars) = self.comma_list(r, |r| self.ident(r))?;
        let (r, body) = self.block(r)?;
        Ok((self.opt_semi(r), StmtKind::Init(vars, body)))
    }

    fn repeat_rest(&self, r: &'a str) -> Res<'a, StmtKind> {
        let (r, n) = self.expr(r)?;
        let (r, body) = self.block(r)?;
        Ok((self.opt_semi(r), StmtKind::Repeat(n, body)))
    }

    fn either_rest(&self, r: &'a str, kw: Span) -> Res<'a, StmtKind> {
        let (r, branches) = self.separated(r, |r| self.try_kw(r, "or"), |r| self.block(r))?;
        if branches.iter().any(Vec::is_empty) {
            return self.fatal(
                kw,
                "an `either` branch is empty".into(),
                Some("every branch needs a first statement; write `skip;` for a branch that does nothing"),
            );
        }
        Ok((self.opt_semi(r), StmtKind::Either(branches)))
    }

    /// A statement without a block.
    fn simple_stmt(&self, i: &'a str) -> Res<'a, StmtKind> {
        type Lv = fn(LValue) -> StmtKind;
        let lock_ops: [(&'static str, Lv); 4] = [
            ("acquire", StmtKind::Acquire),
            ("release", StmtKind::Release),
            ("down", StmtKind::Down),
            ("up", StmtKind::Up),
        ];
        for (kw, make) in lock_ops {
            if let Some((r, _)) = self.try_kw(i, kw) {
                let (r, lv) = self.lvalue(r)?;
                let (r, _) = self.semi(r)?;
                return Ok((r, make(lv)));
            }
        }
        if let Some((r, _)) = self.try_kw(i, "call") {
            let (r, (name, args)) = self.call_rest(r)?;
            return Ok((r, StmtKind::Call(None, name, args)));
        }
        if let Some((r, _)) = self.try_kw(i, "return") {
            let r0 = self.skip(r)?;
            if let Some((r, _)) = self.try_sym(r, ";") {
                return Ok((r, StmtKind::Return(None)));
            }
            if r0.starts_with('}') {
                return Ok((r, StmtKind::Return(None)));
            }
            let (r, e) = self.expr(r)?;
            let (r, _) = self.semi(r)?;
            return Ok((r, StmtKind::Return(Some(e))));
        }
        if let Some((r, _)) = self.try_kw(i, "skip") {
            let (r, _) = self.semi(r)?;
            return Ok((r, StmtKind::Skip));
        }
        if let Some((r, _)) = self.try_kw(i, "goto") {
            let (r, l) = self.ident(r)?;
            let (r, _) = self.semi(r)?;
            return Ok((r, StmtKind::Goto(l)));
        }
        for kw in ["assert", "await"] {
            if let Some((r, _)) = self.try_kw(i, kw) {
                let (r, e) = self.expr(r)?;
                let (r, _) = self.semi(r)?;
                let k = if kw == "assert" {
                    StmtKind::Assert(e)
                } else {
                    StmtKind::Await(e)
                };
                return Ok((r, k));
            }
        }
        if self.quietly(|| self.ident(i)).is_err() {
            self.unknown_word(i, "statement", STATEMENT_KEYWORDS, STATEMENT_WORDS)?;
            return self.expect(i, "a statement");
        }
        if let Some(op) = self.channel_op(i)? {
            return Ok(op);
        }
        // A name that no `:=`, `,` or `[` follows begins no assignment: it
        // is more likely a misspelt keyword (`asert x;`, `whle (...)`).
        let word = found_token(i);
        let next = self.skip(&i[word.len()..])?;
        if !next.starts_with(":=") && !next.starts_with(',') && !next.starts_with('[') {
            self.unknown_word(i, "statement", STATEMENT_KEYWORDS, STATEMENT_WORDS)?;
            self.assignment_hint(next)?;
        }
        self.assign(i)
    }

    /// `c ! e, ...;` or `c ? x, 3, _;` at `i`, if that is what is there.
    fn channel_op(&self, i: &'a str) -> Result<Option<(&'a str, StmtKind)>, NomErr<()>> {
        let Ok((r, c)) = self.quietly(|| self.lvalue(i)) else {
            return Ok(None);
        };
        let r = self.skip(r)?;
        if let Some(r) = r.strip_prefix('!').filter(|r| !r.starts_with('=')) {
            let (r, values) = self.comma_list(r, |r| self.expr(r))?;
            let (r, _) = self.semi(r)?;
            return Ok(Some((r, StmtKind::Send(c, values))));
        }
        if let Some(r) = r.strip_prefix('?') {
            if let Some((_, at)) = self.try_sym(r, "[") {
                return self
                    .fatal::<()>(
                        at,
                        "a poll `c?[...]` is an expression, not a statement".into(),
                        Some("wait for it with `await c?[...];`, or receive with `c ? ...;`"),
                    )
                    .map(|_| None);
            }
            let keep = self.try_sym(r, "<");
            let r = keep.map_or(r, |(r, _)| r);
            let (r, args) = self.comma_list(r, |r| self.recv_arg(r))?;
            let (r, mode) = match keep {
                Some(_) => (self.sym(r, ">")?.0, RecvMode::Keep),
                None => (r, RecvMode::Take),
            };
            let (r, _) = self.semi(r)?;
            return Ok(Some((r, StmtKind::Receive(c, args, mode))));
        }
        Ok(None)
    }

    /// One field of a receive: `_`, `eval(e)`, a literal, or a place.
    fn recv_arg(&self, i: &'a str) -> Res<'a, RecvArg> {
        let i = self.skip(i)?;
        let start = self.off(i);
        if let Some(r) = i
            .strip_prefix('_')
            .filter(|r| !r.starts_with(is_ident_char))
        {
            return Ok((r, RecvArg::Skip(Span::new(start, start + 1))));
        }
        if let Some(r) = i
            .strip_prefix("eval")
            .filter(|r| self.skip(r).is_ok_and(|r| r.starts_with('(')))
        {
            let (r, _) = self.sym(r, "(")?;
            let (r, e) = self.expr(r)?;
            let (r, _) = self.sym(r, ")")?;
            return Ok((r, RecvArg::Match(e)));
        }
        let literal = i.starts_with(|c: char| c.is_ascii_digit() || c == '-')
            || ["true", "false"].contains(&found_token(i));
        if literal {
            let (r, e) = self.unary(i)?;
            return Ok((r, RecvArg::Match(e)));
        }
        let (r, lv) = self.lvalue(i)?;
        Ok((r, RecvArg::Var(lv)))
    }

    /// Fails with "unknown WHAT `w`; did you mean `k`?" when the word at
    /// `i` misspells one of `keywords`, or is one of `words` (the ways other
    /// languages say something: `fi`, `procedure`); succeeds otherwise.
    fn unknown_word(
        &self,
        i: &'a str,
        what: &str,
        keywords: &[&'static str],
        words: &[(&str, Option<&'static str>, &'static str)],
    ) -> Result<(), NomErr<()>> {
        let word = found_token(i);
        if word.is_empty() || !i.starts_with(is_ident_start) || word.len() > suggest::MAX_TYPO {
            return Ok(());
        }
        let at = self.off(i);
        let span = Span::new(at, at + word.len());
        if let Some(&(_, instead, help)) = words.iter().find(|(w, _, _)| *w == word) {
            let message = match instead {
                Some(k) => format!("unknown {what} `{word}`; did you mean `{k}`?"),
                None => format!("unknown {what} `{word}`"),
            };
            return self.fatal::<()>(span, message, Some(help)).map(|_| ());
        }
        if KEYWORDS.contains(&word) {
            return Ok(());
        }
        match suggest::keyword(word, keywords) {
            Some(k) => self
                .fatal::<()>(
                    span,
                    format!("unknown {what} `{word}`; did you mean `{k}`?"),
                    None,
                )
                .map(|_| ()),
            None => Ok(()),
        }
    }

    /// After a name at the start of a statement, a token that shows what
    /// was meant: `=` for `:=`, `(` for a call without `call`.
    fn assignment_hint(&self, next: &'a str) -> Result<(), NomErr<()>> {
        let at = self.off(next);
        let (found, help) = if next.starts_with('=') && !next.starts_with("==") {
            ("=", "an assignment is written `x := e;`")
        } else if next.starts_with('(') {
            (
                "(",
                "a procedure is called with `call`: `call f(...);` or `x := call f(...);`",
            )
        } else {
            return Ok(());
        };
        self.fatal::<()>(
            Span::new(at, at + 1),
            format!("expected `:=`, found `{found}`"),
            Some(help),
        )
        .map(|_| ())
    }

    fn opt_semi(&self, i: &'a str) -> &'a str {
        self.try_sym(i, ";").map_or(i, |(r, _)| r)
    }

    /// The `;` that ends a statement or a declaration, optional before `}`.
    fn semi(&self, i: &'a str) -> Res<'a, ()> {
        if let Some((r, _)) = self.try_sym(i, ";") {
            return Ok((r, ()));
        }
        let r = self.skip(i)?;
        if r.starts_with('}') {
            return Ok((i, ()));
        }
        self.sym(i, ";").map(|(r, _)| (r, ()))
    }

    fn if_rest(&self, i: &'a str) -> Res<'a, StmtKind> {
        let (r, c) = self.expr(i)?;
        let (r, then) = self.block(r)?;
        let Some((r, _)) = self.try_kw(r, "else") else {
            return Ok((self.opt_semi(r), StmtKind::If(c, then, None)));
        };
        let r0 = self.skip(r)?;
        if let Some((r2, _)) = self.try_kw(r0, "if") {
            let start = self.off(r0);
            let (r2, kind) = self.nested(r2, |r2| self.if_rest(r2))?;
            let inner = Stmt {
                label: None,
                kind,
                span: self.span_from(start, r2),
            };
            return Ok((r2, StmtKind::If(c, then, Some(vec![inner]))));
        }
        let (r, els) = self.block(r)?;
        Ok((self.opt_semi(r), StmtKind::If(c, then, Some(els))))
    }

    /// `NAME(args);`, after `call`.
    fn call_rest(&self, r: &'a str) -> Res<'a, (Ident, Vec<Expr>)> {
        let (r, name) = self.ident(r)?;
        let (r, _) = self.sym(r, "(")?;
        let (r, args) = match self.try_sym(r, ")") {
            Some((r, _)) => (r, Vec::new()),
            None => {
                let (r, args) = self.comma_list(r, |r| self.expr(r))?;
                let (r, _) = self.sym(r, ")")?;
                (r, args)
            }
        };
        let (r, _) = self.semi(r)?;
        Ok((r, (name, args)))
    }

    /// `x, y[i] := e1, any 0..3;` or `x := call f(args);`
    fn assign(&self, i: &'a str) -> Res<'a, StmtKind> {
        let (r, mut targets) = self.comma_list(i, |r| self.lvalue(r))?;
        let (r, _) = self.sym(r, ":=")?;
        let r0 = self.skip(r)?;
        if let Some((r, kw)) = self.try_kw(r0, "call") {
            if targets.len() != 1 {
                return self.fatal(
                    kw,
                    format!(
                        "a call returns one value, but {} targets are assigned",
                        targets.len()
                    ),
                    Some("assign the result to one variable: `x := call f(...);`"),
                );
            }
            let (r, (name, args)) = self.call_rest(r)?;
            return Ok((r, StmtKind::Call(targets.pop(), name, args)));
        }
        let (r, values) = self.comma_list(r, |r| self.rhs(r))?;
        let (r, _) = self.semi(r)?;
        Ok((r, StmtKind::Assign(targets, values)))
    }

    fn rhs(&self, i: &'a str) -> Res<'a, Expr> {
        let i = self.skip(i)?;
        let start = self.off(i);
        if let Some((r, _)) = self.try_kw(i, "any") {
            let (r, (lo, hi)) = self.range(r)?;
            let span = self.span_from(start, r);
            return Ok((
                r,
                Expr {
                    kind: ExprKind::Any(Box::new(lo), Box::new(hi)),
                    span,
                },
            ));
        }
        self.expr(i)
    }

    fn lvalue(&self, i: &'a str) -> Res<'a, LValue> {
        let (r, name) = self.ident(i)?;
        let start = name.span.start;
        let (r, index) = match self.try_sym(r, "[") {
            Some((r, _)) => {
                let (r, e) = self.expr(r)?;
                let (r, _) = self.sym(r, "]")?;
                (r, Some(Box::new(e)))
            }
            None => (r, None),
        };
        Ok((
            r,
            LValue {
                name,
                index,
                span: self.span_from(start, r),
            },
        ))
    }

    // ---- expressions ----------------------------------------------------------

    /// A full expression, with its tree depth bounded.
    fn expr(&self, i: &'a str) -> Res<'a, Expr> {
        let (r, e) = self.binary(i, 1)?;
        if depth(&e) > MAX_EXPR_DEPTH {
            return self.too_deep(e.span);
        }
        Ok((r, e))
    }

    /// Precedence climbing; operators of one level associate to the left.
    fn binary(&self, i: &'a str, min_prec: u8) -> Res<'a, Expr> {
        let (mut i, mut lhs) = self.unary(i)?;
        let mut d = depth(&lhs);
        while let Some((r, op)) = self.binop(i) {
            if op.precedence() < min_prec {
                break;
            }
            let (r, rhs) = self.binary(r, op.precedence() + 1)?;
            let span = lhs.span.to(rhs.span);
            // Chains fold into left-deep trees without recursion in the
            // parser, so bound their depth here, before a tree too deep to
            // walk (or even drop) recursively is built.
            d = 1 + d.max(depth(&rhs));
            if d > MAX_EXPR_DEPTH {
                return self.too_deep(span);
            }
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = r;
        }
        Ok((i, lhs))
    }

    fn binop(&self, i: &'a str) -> Option<(&'a str, BinOp)> {
        use BinOp::*;
        const OPS: [(&str, BinOp); 13] = [
            ("||", Or),
            ("&&", And),
            ("==", Eq),
            ("!=", Ne),
            ("<=", Le),
            (">=", Ge),
            ("<", Lt),
            (">", Gt),
            ("+", Add),
            ("-", Sub),
            ("*", Mul),
            ("/", Div),
            ("%", Mod),
        ];
        let i = self.skip(i).ok()?;
        // `->` is the temporal implication of `ltl` formulas, never `-`.
        if i.starts_with("->") {
            return None;
        }
        OPS.iter()
            .find(|(s, _)| i.starts_with(s))
            .map(|&(s, op)| (&i[s.len()..], op))
    }

    fn unary(&self, i: &'a str) -> Res<'a, Expr> {
        let i = self.skip(i)?;
        let start = self.off(i);
        let op = if i.starts_with('!') && !i.starts_with("!=") {
            Some(UnOp::Not)
        } else if i.starts_with('-') {
            Some(UnOp::Neg)
        } else {
            None
        };
        let Some(op) = op else { return self.primary(i) };
        self.nested(&i[1..], |r| {
            let (r, e) = self.unary(r)?;
            let span = self.span_from(start, r);
            Ok((
                r,
                Expr {
                    kind: ExprKind::Unary(op, Box::new(e)),
                    span,
                },
            ))
        })
    }

    // The functions on the recursive path (`expr`, `binary`, `unary`,
    // `primary`, `parens`, ...) are kept small, and each form has its own
    // function: an unoptimised build gives a function one stack slot per
    // temporary of every branch, and nesting multiplies the frame.

    fn primary(&self, i: &'a str) -> Res<'a, Expr> {
        let i = self.skip(i)?;
        let start = self.off(i);
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (r, (n, span)) = self.int(i)?;
            return Ok((
                r,
                Expr {
                    kind: ExprKind::Int(n),
                    span,
                },
            ));
        }
        if let Some(r) = i.strip_prefix('(') {
            return self.parens(r, start);
        }
        let word = i.find(|c: char| !is_ident_char(c)).map_or(i, |n| &i[..n]);
        let after = &i[word.len()..];
        match word {
            "true" => self.leaf(after, start, ExprKind::Bool(true)),
            "false" => self.leaf(after, start, ExprKind::Bool(false)),
            "self" => {
                let (r, e) = self.leaf(after, start, ExprKind::SelfId)?;
                self.opt_local(r, start, e)
            }
            "free" => self.leaf(after, start, ExprKind::Free),
            "timeout" => self.leaf(after, start, ExprKind::Timeout),
            "at" => self.at(after, start),
            "init" => self.init_phase(after, start),
            "exists" => self.quant(after, start, Quant::Exists),
            "forall" => self.quant(after, start, Quant::Forall),
            "any" => self.any_misplaced(Span::new(start, start + 3)),
            w if self.skip(after)?.starts_with('(') => {
                match ChanQuery::ALL.iter().find(|(k, _)| *k == w) {
                    Some(&(_, q)) => self.chan_query(after, start, q),
                    None => self.name_or_index(i, start),
                }
            }
            _ => self.name_or_index(i, start),
        }
    }

    /// `len(c)` and the other questions to a channel, after the word.
    fn chan_query(&self, r: &'a str, start: usize, q: ChanQuery) -> Res<'a, Expr> {
        let (r, _) = self.sym(r, "(")?;
        let (r, c) = self.lvalue(r)?;
        let (r, _) = self.sym(r, ")")?;
        self.leaf(r, start, ExprKind::Chan(q, c))
    }

    /// The expression of `kind` from `start` to `r`.
    fn leaf(&self, r: &'a str, start: usize, kind: ExprKind) -> Res<'a, Expr> {
        Ok((
            r,
            Expr {
                kind,
                span: self.span_from(start, r),
            },
        ))
    }

    /// `( e )`, after the `(`.
    fn parens(&self, r: &'a str, start: usize) -> Res<'a, Expr> {
        self.nested(r, |r| {
            let (r, e) = self.expr(r)?;
            let (r, _) = self.sym(r, ")")?;
            // Keep the inner node; the span grows to cover the parentheses.
            let e = Expr {
                kind: e.kind,
                span: self.span_from(start, r),
            };
            self.opt_local(r, start, e)
        })
    }

    /// `at(t, L)`, after `at`.
    fn at(&self, r: &'a str, start: usize) -> Res<'a, Expr> {
        let (r, _) = self.sym(r, "(")?;
        let (r, t) = self.sub_expr(r)?;
        let (r, _) = self.sym(r, ",")?;
        let (r, l) = self.ident(r)?;
        let (r, _) = self.sym(r, ")")?;
        self.leaf(r, start, ExprKind::At(Box::new(t), l))
    }

    /// `init(x)` or `init(t, x)`, after `init`.
    fn init_phase(&self, r: &'a str, start: usize) -> Res<'a, Expr> {
        let (r, _) = self.sym(r, "(")?;
        let (r, first) = self.sub_expr(r)?;
        if let Some((r, _)) = self.try_sym(r, ",") {
            let (r, var) = self.ident(r)?;
            let (r, _) = self.sym(r, ")")?;
            return self.leaf(r, start, ExprKind::InitPhase(Some(Box::new(first)), var));
        }
        let (r, _) = self.sym(r, ")")?;
        let ExprKind::Name(var) = first.kind else {
            return self.fatal(
                first.span,
                "`init(x)` takes a variable name".into(),
                Some("write `init(x)` or `init(t, x)`"),
            );
        };
        self.leaf(r, start, ExprKind::InitPhase(None, var))
    }

    /// `exists`/`forall v in lo..hi: body`, after the keyword.
    fn quant(&self, r: &'a str, start: usize, q: Quant) -> Res<'a, Expr> {
        let (r, v) = self.ident(r)?;
        let (r, _) = self.kw(r, "in")?;
        let (r, (lo, hi)) = self.nested(r, |r| self.range(r))?;
        let (r, _) = self.sym(r, ":")?;
        let (r, body) = self.sub_expr(r)?;
        let kind = ExprKind::Quant(q, v, Box::new(lo), Box::new(hi), Box::new(body));
        self.leaf(r, start, kind)
    }

    #[cold]
    fn any_misplaced<T>(&self, kw: Span) -> Res<'a, T> {
        self.fatal(
            kw,
            "`any lo..hi` is only allowed as the whole right-hand side of an assignment".into(),
            Some("write `x := any lo..hi;`"),
        )
    }

    /// `x` or `a[e]`.
    fn name_or_index(&self, i: &'a str, start: usize) -> Res<'a, Expr> {
        let Ok((r, name)) = self.quietly(|| self.ident(i)) else {
            // A keyword in expression position gets the keyword message.
            if i.starts_with(is_ident_start) {
                self.ident(i)?;
            }
            return self.expect(i, "an expression");
        };
        let (r, index) = match self.try_sym(r, "[") {
            Some((r, _)) => {
                let (r, idx) = self.sub_expr(r)?;
                let (r, _) = self.sym(r, "]")?;
                (r, Some(Box::new(idx)))
            }
            None => (r, None),
        };
        if let Some(after) = self.skip(r)?.strip_prefix('?') {
            let span = self.span_from(start, r);
            return self.poll(after, start, LValue { name, index, span });
        }
        match index {
            Some(idx) => self.leaf(r, start, ExprKind::Index(name, idx)),
            None => {
                let (r, e) = self.leaf(r, start, ExprKind::Name(name))?;
                self.opt_local(r, start, e)
            }
        }
    }

    /// `c?[x, 3, _]`, after the `?`.
    fn poll(&self, r: &'a str, start: usize, c: LValue) -> Res<'a, Expr> {
        let (r, _) = self.sym(r, "[")?;
        let (r, args) = self.nested(r, |r| self.comma_list(r, |r| self.recv_arg(r)))?;
        let (r, _) = self.sym(r, "]")?;
        self.leaf(r, start, ExprKind::Poll(c, args))
    }

    /// `.r` after a thread `t`: `t.r`, the local `r` of thread t (`..` is
    /// a range, not this).
    fn opt_local(&self, r: &'a str, start: usize, t: Expr) -> Res<'a, Expr> {
        let r0 = self.skip(r)?;
        let Some(after) = r0.strip_prefix('.').filter(|a| !a.starts_with('.')) else {
            return Ok((r, t));
        };
        let (r, local) = self.ident(after)?;
        self.leaf(r, start, ExprKind::Local(Box::new(t), local))
    }

    #[cold]
    fn too_deep<T>(&self, span: Span) -> Res<'a, T> {
        self.fatal(
            span,
            format!("expression nested deeper than {MAX_EXPR_DEPTH} levels"),
            Some("split it into smaller expressions"),
        )
    }
}

/// Depth of an expression tree, computed without recursion so that it is
/// safe on any input.
pub fn depth(e: &Expr) -> usize {
    let mut max = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::SelfId
            | ExprKind::Free
            | ExprKind::Timeout
            | ExprKind::Name(_) => {}
            ExprKind::Chan(_, c) => {
                if let Some(a) = &c.index {
                    stack.push((a, d + 1));
                }
            }
            ExprKind::Poll(c, args) => {
                stack.extend(c.index.iter().map(|a| (&**a, d + 1)));
                stack.extend(args.iter().filter_map(|a| match a {
                    RecvArg::Match(e) => Some((e, d + 1)),
                    RecvArg::Var(lv) => lv.index.as_deref().map(|e| (e, d + 1)),
                    RecvArg::Skip(_) => None,
                }));
            }
            ExprKind::Index(_, a)
            | ExprKind::Unary(_, a)
            | ExprKind::At(a, _)
            | ExprKind::InitPhase(Some(a), _)
            | ExprKind::Local(a, _) => stack.push((a, d + 1)),
            ExprKind::InitPhase(None, _) => {}
            ExprKind::Binary(_, a, b) | ExprKind::Any(a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            ExprKind::Quant(_, _, a, b, c) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
                stack.push((c, d + 1));
            }
        }
    }
    max
}

/// The keywords that begin a statement.
const STATEMENT_KEYWORDS: &[&str] = &[
    "acquire", "release", "down", "up", "call", "return", "skip", "goto", "assert", "await",
    "atomic", "if", "while", "either", "repeat",
];

/// The keywords that begin a declaration.
const DECLARATION_KEYWORDS: &[&str] = &[
    "system",
    "chan",
    "const",
    "threads",
    "thread",
    "lock",
    "shared",
    "protected",
    "sem",
    "invariant",
    "ltl",
    "proc",
];

/// What other languages write where a statement goes: the word, the
/// keyword meant (if one), and a hint.
type Words = [(&'static str, Option<&'static str>, &'static str)];

const BLOCK_END: &str = "a block is closed with `}`, as in `if c { ... }` and `while c { ... }`";
const LOCAL: &str =
    "a thread's variables are declared before its statements: `local x : 0..10 = 0;`";

const STATEMENT_WORDS: &Words = &[
    ("assume", Some("await"), "`await e;` waits until e holds"),
    ("wait", Some("await"), "`await e;` waits until e holds"),
    ("when", Some("await"), "`await e;` waits until e holds"),
    (
        "lock",
        Some("acquire"),
        "a lock is taken with `acquire m;` and given back with `release m;`",
    ),
    (
        "unlock",
        Some("release"),
        "a lock is given back with `release m;`",
    ),
    ("fi", None, BLOCK_END),
    ("od", None, BLOCK_END),
    ("end", None, BLOCK_END),
    ("endif", None, BLOCK_END),
    ("done", None, BLOCK_END),
    ("esac", None, BLOCK_END),
    ("do", Some("while"), "a loop is written `while c { ... }`"),
    (
        "loop",
        Some("while"),
        "a loop is written `while true { ... }`",
    ),
    (
        "for",
        Some("repeat"),
        "a loop is written `repeat n { ... }` or `while c { ... }`",
    ),
    (
        "choice",
        Some("either"),
        "a choice is written `either { ... } or { ... }`",
    ),
    (
        "select",
        Some("either"),
        "a choice is written `either { ... } or { ... }`",
    ),
    ("elif", None, "write `} else if c {`"),
    ("elsif", None, "write `} else if c {`"),
    (
        "break",
        None,
        "jump out of a loop with `goto L;`, to a label `L:` after it",
    ),
    ("continue", None, "jump with `goto L;`, to a label `L:`"),
    ("int", None, LOCAL),
    ("var", None, LOCAL),
    ("bool", None, LOCAL),
    ("let", None, LOCAL),
];

const DECLARATION_WORDS: &Words = &[
    (
        "procedure",
        Some("proc"),
        "a procedure is declared `proc f(x : 0..3) { ... }`",
    ),
    (
        "function",
        Some("proc"),
        "a procedure is declared `proc f(x : 0..3) : bool { ... }`",
    ),
    (
        "func",
        Some("proc"),
        "a procedure is declared `proc f(x : 0..3) : bool { ... }`",
    ),
    (
        "fn",
        Some("proc"),
        "a procedure is declared `proc f(x : 0..3) : bool { ... }`",
    ),
    (
        "def",
        Some("proc"),
        "a procedure is declared `proc f(x : 0..3) : bool { ... }`",
    ),
    (
        "process",
        Some("thread"),
        "a thread is declared `thread T { ... }`",
    ),
    (
        "proctype",
        Some("thread"),
        "a thread is declared `thread T { ... }`",
    ),
    (
        "task",
        Some("thread"),
        "a thread is declared `thread T { ... }`",
    ),
    (
        "var",
        Some("shared"),
        "a shared variable is declared `shared x : 0..10 = 0;`",
    ),
    (
        "global",
        Some("shared"),
        "a shared variable is declared `shared x : 0..10 = 0;`",
    ),
    (
        "int",
        Some("shared"),
        "a shared variable is declared `shared x : 0..10 = 0;`",
    ),
    (
        "bool",
        Some("shared"),
        "a shared variable is declared `shared x : bool = false;`",
    ),
    ("mutex", Some("lock"), "a lock is declared `lock m;`"),
    (
        "semaphore",
        Some("sem"),
        "a semaphore is declared `sem s : 0..2 = 1;`",
    ),
    (
        "define",
        Some("const"),
        "a constant is declared `const N = 3;`",
    ),
    (
        "constant",
        Some("const"),
        "a constant is declared `const N = 3;`",
    ),
    (
        "assert",
        Some("invariant"),
        "a property of every state is declared `invariant e;`",
    ),
];

fn sym_name(s: &'static str) -> &'static str {
    match s {
        ";" => "`;`",
        ":" => "`:`",
        ":=" => "`:=`",
        "=" => "`=`",
        "," => "`,`",
        "(" => "`(`",
        ")" => "`)`",
        "[" => "`[`",
        "]" => "`]`",
        "{" => "`{`",
        "}" => "`}`",
        ".." => "`..`",
        _ => "a symbol",
    }
}

fn kw_name(k: &'static str) -> &'static str {
    match k {
        "excl" => "`excl` or `by`",
        "in" => "`in`",
        "system" => "`system`",
        _ => "a keyword",
    }
}

/// The name of a character that most editors do not show, or show as a
/// space, and what to do with it; `None` for a visible character. The
/// parser skips only ASCII spaces, tabs and newlines, so any of these
/// outside a comment is a syntax error, which must say what it is.
fn invisible(c: char) -> Option<(&'static str, &'static str)> {
    const DELETE: &str = "delete it (most editors do not show it)";
    const SPACE: &str = "replace it with an ordinary space";
    Some(match c {
        '\0' => ("NUL byte", "delete it (most editors do not show it)"),
        '\u{b}' => ("vertical tab", SPACE),
        '\u{c}' => ("form feed", SPACE),
        '\u{1b}' => ("escape character", DELETE),
        '\u{7f}' => ("delete character", DELETE),
        '\u{a0}' => ("non-breaking space", SPACE),
        '\u{ad}' => ("soft hyphen", DELETE),
        '\u{200b}' => ("zero-width space", DELETE),
        '\u{200c}' => ("zero-width non-joiner", DELETE),
        '\u{200d}' => ("zero-width joiner", DELETE),
        '\u{200e}' => ("left-to-right mark", DELETE),
        '\u{200f}' => ("right-to-left mark", DELETE),
        '\u{2028}' => ("line separator", "replace it with an ordinary newline"),
        '\u{2029}' => ("paragraph separator", "replace it with an ordinary newline"),
        '\u{2060}' => ("word joiner", DELETE),
        '\u{3000}' => ("ideographic space", SPACE),
        '\u{feff}' => (
            "byte-order mark",
            "a byte-order mark may only begin the file; delete this one (most editors do not show it)",
        ),
        '\u{61c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            ("bidirectional text control", DELETE)
        }
        '\u{34f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{180e}'
        | '\u{2061}'..='\u{2064}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}' => ("invisible character", DELETE),
        c if c.is_control() => ("control character", DELETE),
        c if c.is_whitespace() => ("non-ASCII space", SPACE),
        _ => return None,
    })
}

/// Writes a declaration for a hint, from its array length (if any), type
/// and initial value.
type Decl<'d> = dyn Fn(Option<&str>, &str, &str) -> String + 'd;

/// A declaration written `KW NAME[SIZE] : TYPE = INIT;`, for hints.
fn declaration(kw: &str, name: &str, size: Option<&str>, ty: &str, init: &str) -> String {
    let size = size.map_or(String::new(), |n| format!("[{n}]"));
    let by = if kw == "protected" { " by m" } else { "" };
    format!("{kw} {name}{size} : {ty} = {init}{by};")
}

/// Where the `]` is that closes the `[` that begins `s`, when it is near
/// (a hint shows a short length, and looks no further).
fn bracket_end(s: &str) -> Option<usize> {
    s.bytes().take(40).position(|b| b == b']')
}

/// The length written between brackets, or `3` when there is none.
fn array_size(text: &str) -> &str {
    match text.trim() {
        "" => "3",
        n => n,
    }
}

/// The kinds of type other languages have.
enum Foreign {
    Int,
    Bool,
    Other,
    Lock,
}

/// The kind of a type name from another language, with the range that
/// stands for it.
fn foreign(word: &str) -> Option<(Foreign, &'static str)> {
    let lower = word.to_ascii_lowercase();
    Some(match lower.as_str() {
        "uint8" | "u8" | "byte" | "uchar" => (Foreign::Int, "0..255"),
        "int8" | "i8" | "sbyte" => (Foreign::Int, "-128..127"),
        "int" | "integer" | "nat" | "natural" | "number" | "unsigned" | "signed" | "long"
        | "short" | "uint" | "usize" | "isize" | "int16" | "int32" | "int64" | "uint16"
        | "uint32" | "uint64" | "i16" | "i32" | "i64" | "u16" | "u32" | "u64" | "bigint" => {
            (Foreign::Int, "0..10")
        }
        "boolean" | "bit" => (Foreign::Bool, ""),
        "bool" if word != "bool" => (Foreign::Bool, ""),
        "string" | "str" | "char" | "float" | "double" | "real" | "float32" | "float64" | "f32"
        | "f64" | "rune" | "symbol" | "enum" => (Foreign::Other, ""),
        "lock" | "mutex" | "sem" | "semaphore" => (Foreign::Lock, ""),
        _ => return None,
    })
}

/// Whether an expectation is a symbol (`` `;` ``, `` `}` ``), which can be
/// missing, rather than a word or a kind of thing, which can be wrong.
fn is_symbol(expected: &str) -> bool {
    expected
        .strip_prefix('`')
        .is_some_and(|s| !s.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// Whether `src` reads as UTF-16 taken for UTF-8: a NUL byte in (almost)
/// every other place, as the ASCII letters of UTF-16 have.
fn looks_utf16(src: &str) -> bool {
    let head = &src.as_bytes()[..src.len().min(512)];
    let pairs = head.len() / 2;
    let nul_at = |k: usize| head.chunks_exact(2).filter(|p| p[k] == 0).count();
    pairs >= 2 && nul_at(0).max(nul_at(1)) * 10 >= pairs * 9
}

/// The token at the start of `rest`, for "found ..." in messages.
fn found_token(rest: &str) -> &str {
    let Some(c) = rest.chars().next() else {
        return "";
    };
    if is_ident_char(c) {
        let n = rest.find(|c| !is_ident_char(c)).unwrap_or(rest.len());
        &rest[..n]
    } else {
        &rest[..c.len_utf8()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> String {
        parse(src).unwrap_err().message
    }

    #[test]
    fn precedence_and_associativity() {
        let e = parse_expr("1 + 2 * 3 - 4 == 3 || !a && b").unwrap();
        assert_eq!(
            crate::syntax::pretty::expr(&e),
            "1 + 2 * 3 - 4 == 3 || (!a && b)"
        );
        let ExprKind::Binary(BinOp::Or, l, _) = &e.kind else {
            panic!("{e:?}")
        };
        let ExprKind::Binary(BinOp::Eq, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Binary(BinOp::Sub, l, _) = &l.kind else {
            panic!("left associative")
        };
        assert!(matches!(l.kind, ExprKind::Binary(BinOp::Add, _, _)));
    }

    #[test]
    fn labels_and_assignments() {
        let m = parse("thread T { A: x := 1; y, z := 2, any 0..3; B: goto A; }").unwrap();
        let Item::Thread(t) = &m.items[0] else {
            panic!()
        };
        assert_eq!(t.body.stmts.len(), 3);
        assert_eq!(t.body.stmts[0].label.as_ref().unwrap().name, "A");
        assert!(
            matches!(&t.body.stmts[1].kind, StmtKind::Assign(l, r) if l.len() == 2 && matches!(r[1].kind, ExprKind::Any(..)))
        );
    }

    #[test]
    fn missing_semicolon_names_what_was_expected() {
        let m = err("thread T { x := 1 y := 2; }");
        assert_eq!(m, "expected `;`, found `y`");
    }

    #[test]
    fn error_inside_a_block_is_reported_where_it_is() {
        let e = parse("thread T {\n  while x < 3 {\n    x := ;\n  }\n}").unwrap_err();
        assert_eq!(e.message, "expected an expression, found `;`");
        assert_eq!(
            crate::syntax::span::line_col(
                "thread T {\n  while x < 3 {\n    x := ;\n  }\n}",
                e.span.start
            ),
            (3, 10)
        );
    }

    #[test]
    fn invisible_characters_are_named_where_they_are() {
        let src = "thread T {\n  skip;\n\u{200b}  skip;\n}";
        let e = parse(src).unwrap_err();
        assert_eq!(e.message, "unexpected zero-width space (U+200B)");
        // At the character, not at the end of the line before it.
        assert_eq!(crate::syntax::span::line_col(src, e.span.start), (3, 1));
        assert_eq!(e.span.end - e.span.start, 3);
        assert_eq!(err("thread T { skip;\0 }"), "unexpected NUL byte (U+0000)");
        assert_eq!(
            err("thread T { skip;\0\0 }"),
            "unexpected NUL byte (U+0000); the file has 2 of them: is it text?"
        );
        let utf16: String = "threads 1;".chars().flat_map(|c| [c, '\0']).collect();
        let e = parse(&utf16).unwrap_err();
        assert_eq!(
            e.message,
            "unexpected NUL byte (U+0000); the file is not UTF-8 text (UTF-16?)"
        );
        assert_eq!(e.span.start, 1);
        assert_eq!(
            err("thread T { skip; }\u{feff}"),
            "unexpected byte-order mark (U+FEFF)"
        );
        assert_eq!(
            err("thread T { x :=\u{a0}1; }"),
            "unexpected non-breaking space (U+00A0)"
        );
        assert_eq!(err("thread T { é }"), "expected a statement, found `é`");
    }

    /// The message and the `line:col` of the error in `src`.
    fn err_at(src: &str) -> (String, (usize, usize)) {
        let e = parse(src).unwrap_err();
        let at = crate::syntax::span::line_col(src, e.span.start);
        (e.message, at)
    }

    #[test]
    fn misspelt_keywords_are_suggested_where_they_are() {
        let body = |s: &str| format!("lock m;\nthread T {{\n  {s}\n}}\n");
        let cases = [
            (
                "asert x > 0;",
                "unknown statement `asert`; did you mean `assert`?",
            ),
            (
                "aquire m;",
                "unknown statement `aquire`; did you mean `acquire`?",
            ),
            (
                "acquier m;",
                "unknown statement `acquier`; did you mean `acquire`?",
            ),
            (
                "relase m;",
                "unknown statement `relase`; did you mean `release`?",
            ),
            (
                "whle (x < 3) { skip; }",
                "unknown statement `whle`; did you mean `while`?",
            ),
            (
                "awiat x;",
                "unknown statement `awiat`; did you mean `await`?",
            ),
            ("skp;", "unknown statement `skp`; did you mean `skip`?"),
            (
                "retrun;",
                "unknown statement `retrun`; did you mean `return`?",
            ),
            (
                "L: asert x;",
                "unknown statement `asert`; did you mean `assert`?",
            ),
            (
                "assume x > 0;",
                "unknown statement `assume`; did you mean `await`?",
            ),
            (
                "unlock m;",
                "unknown statement `unlock`; did you mean `release`?",
            ),
            (
                "lock m;",
                "unknown statement `lock`; did you mean `acquire`?",
            ),
            ("if x { skip; } fi", "unknown statement `fi`"),
        ];
        for (stmt, message) in cases {
            let src = body(stmt);
            let (m, at) = err_at(&src);
            assert_eq!(m, message, "{stmt}");
            // At the word, on its line.
            let word = message.split('`').nth(1).unwrap();
            assert_eq!(at, (3, 3 + stmt.find(word).unwrap()), "{stmt}");
        }
        let top = |d: &str| format!("threads 1;\nshared x : 0..1 = 0;\n\n{d}\n");
        let cases = [
            ("thred T { skip; }", "thred", "thread"),
            ("sharde y : 0..1 = 0;", "sharde", "shared"),
            ("protcted y : 0..1 = 0 by m;", "protcted", "protected"),
            ("invarient x < 1;", "invarient", "invariant"),
            ("thraeds 2;", "thraeds", "threads"),
            ("Thread T { skip; }", "Thread", "thread"),
            ("procedure f() { skip; }", "procedure", "proc"),
        ];
        for (decl, word, keyword) in cases {
            let (m, at) = err_at(&top(decl));
            assert_eq!(
                m,
                format!("unknown declaration `{word}`; did you mean `{keyword}`?")
            );
            // On the line of the word, not at the end of the line before.
            assert_eq!(at, (4, 1), "{decl}");
        }
        // A name that begins an assignment is no misspelt keyword; nor is a
        // name far from every keyword.
        assert_eq!(err(&body("asert := 1 1;")), "expected `;`, found `1`");
        assert_eq!(err(&body("frobnicate m;")), "expected `:=`, found `m`");
        assert_eq!(err(&body("f(1);")), "expected `:=`, found `(`");
        // Long words are not compared with the keywords.
        let long = format!("{} m;", "acquire".repeat(10_000));
        assert!(err(&body(&long)).starts_with("expected `:=`"));
    }

    #[test]
    fn a_wrong_word_is_pointed_at_a_missing_symbol_after_the_line() {
        // A forgotten `;`: at the end of the line that lacks it.
        assert_eq!(
            err_at("shared x : 0..1 = 0\nthread T { skip; }"),
            ("expected `;`, found `thread`".into(), (1, 20))
        );
        // A wrong word: where it is.
        assert_eq!(
            err_at("shared x : 0..1 = 0;\n\n  frob T { skip; }"),
            ("expected a declaration, found `frob`".into(), (3, 3))
        );
        assert_eq!(
            err_at("thread T {\n  skip;\n  é\n}"),
            ("expected a statement, found `é`".into(), (3, 3))
        );
        // The end of the input: after the last line.
        assert_eq!(
            err_at("thread T {\n  skip;\n\n"),
            (
                "expected a statement or `}`, found end of input".into(),
                (2, 8)
            )
        );
    }

    #[test]
    fn types_of_other_languages_get_a_hint() {
        let hint = |src: &str| {
            let e = parse(src).unwrap_err();
            (e.message, e.help.unwrap_or_default())
        };
        // Each source, a part of the message and a part of the help.
        let cases = [
            (
                "shared x : int = 0;",
                "optimist has no `int` type: a variable takes a range of values",
                "`shared x : 0..10 = 0;`",
            ),
            (
                "shared x : int[3];",
                "optimist has no `int` type",
                "`shared x[3] : 0..10 = 0;`",
            ),
            (
                "shared x : bool[] = false;",
                "an array's length goes after its name, not after its type",
                "`shared x[3] : bool = false;`",
            ),
            (
                "protected x : boolean = false by m;",
                "its boolean type is `bool`",
                "`protected x : bool = false by m;`",
            ),
            ("shared x : uint8 = 0;", "", "0..255"),
            (
                "thread T { local s : string = 0; skip; }",
                "optimist has no `string` type",
                "",
            ),
            (
                "proc f(x : nat) { skip; }",
                "optimist has no `nat` type",
                "",
            ),
        ];
        for (src, message, help) in cases {
            let (m, h) = hint(src);
            assert!(m.contains(message), "{src}: {m}");
            assert!(h.contains(help), "{src}: {h}");
        }
        // A constant named like a type is the bound of a range.
        parse("const int = 3;\nshared x : int..5 = 3;\nshared y : 0..int + 1 = 0;").unwrap();
    }

    #[test]
    fn keywords_are_not_names() {
        assert_eq!(
            err("shared lock : 0..1;"),
            "`lock` is a keyword and cannot be used as a name"
        );
    }

    #[test]
    fn literal_overflow_is_an_error() {
        assert_eq!(
            err("const N = 99999999999999999999;"),
            "integer literal too large"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("const N = {}1{};", "(".repeat(20_000), ")".repeat(20_000));
        assert!(err(&src).starts_with("nesting deeper than"));
        let src = format!("const N = {}1;", "-".repeat(20_000));
        assert!(err(&src).starts_with("nesting deeper than"));
        let src = format!("const N = 1{};", " + 1".repeat(20_000));
        assert!(err(&src).starts_with("expression nested deeper than"));
        let src = format!("thread T {{ {} }}", "while true { ".repeat(5_000));
        assert!(err(&src).starts_with("nesting deeper than"));
    }

    /// Every form that nests, 100,000 deep: an error, not a stack overflow
    /// (this runs on a test thread's small stack).
    #[test]
    fn every_nested_form_is_bounded() {
        const D: usize = 100_000;
        let deep = |open: &str, mid: &str, close: &str| {
            format!("{}{mid}{}", open.repeat(D), close.repeat(D))
        };
        // An integer constant nested around `mid`.
        let int =
            |open: &str, mid: &str, close: &str| format!("const N = {};", deep(open, mid, close));
        // A block statement nested around `skip;` in a thread's body.
        let block = |open: &str| format!("thread T {{ {} }}", deep(open, "skip;", " }"));
        let cases = [
            ("parentheses", int("(", "1", ")")),
            ("negation", format!("const N = {}1;", "-".repeat(D))),
            ("not", format!("const B = {}true;", "!".repeat(D))),
            ("mixed unary", format!("const B = {}true;", "!(".repeat(D))),
            ("index", int("a[", "0", "]")),
            (
                "index target",
                format!("thread T {{ a[{}] := 0; }}", deep("a[", "0", "]")),
            ),
            ("at", format!("const B = {};", deep("at(", "0", ", L)"))),
            ("init", format!("const B = {};", deep("init(", "0", ", x)"))),
            (
                "exists",
                format!("const B = {}true;", "exists i in 0..1: ".repeat(D)),
            ),
            (
                "forall bound",
                format!("const B = forall i in {}..1: true;", deep("a[", "0", "]")),
            ),
            ("right operands", int("1 + (2 * ", "3", ")")),
            ("operators", int("1 + -(", "3", ")")),
            (
                "any bound",
                format!("thread T {{ x := any 0..{}; }}", deep("(", "1", ")")),
            ),
            ("while", block("while true { ")),
            ("if", block("if true { ")),
            (
                "else if",
                format!(
                    "thread T {{ if a {{ skip; }}{} }}",
                    " else if a { skip; }".repeat(D)
                ),
            ),
            ("either", block("either { ")),
            ("atomic", block("atomic { ")),
            ("repeat", block("repeat 2 { ")),
            ("init block", block("init x { ")),
            (
                "condition",
                format!(
                    "thread T {{ while {} {{ skip; }} }}",
                    deep("(", "true", ")")
                ),
            ),
        ];
        for (form, src) in cases {
            let e = parse(&src).unwrap_err();
            assert!(e.message.contains("deeper than"), "{form}: {}", e.message);
            assert!(e.span.start < src.len(), "{form}");
        }
    }

    #[test]
    fn unterminated_comment() {
        assert_eq!(err("/* no end"), "unterminated comment");
    }

    #[test]
    fn comparison_operators_do_not_swallow_assignment() {
        let m = parse("shared x : 0..1 = 0; invariant x <= 1 && x >= 0 && x != 2;").unwrap();
        assert_eq!(m.items.len(), 2);
    }

    #[test]
    fn else_if_chains() {
        let m = parse("thread T { if a { skip; } else if b { skip; } else { skip; } }").unwrap();
        let Item::Thread(t) = &m.items[0] else {
            panic!()
        };
        let StmtKind::If(_, _, Some(els)) = &t.body.stmts[0].kind else {
            panic!()
        };
        assert!(matches!(els[0].kind, StmtKind::If(_, _, Some(_))));
    }

    #[test]
    fn init_blocks_predicates_and_unprotected_elements_round_trip() {
        let src = "lock m;\nshared ready : bool = false;\nprotected a[3] : 0..2 = 0\n    excl(t) = init(t, a) || (m == t && !init(a)) unprotected [2];\n\nthread w {\n  I: init a, ready {\n    a[0] := 1;\n  }\n  acquire m;\n}\n";
        let m = parse(src).unwrap();
        let printed = crate::syntax::pretty::model(&m);
        assert_eq!(printed, src);
        let Item::Thread(t) = &m.items[3] else {
            panic!()
        };
        let StmtKind::Init(vars, body) = &t.body.stmts[0].kind else {
            panic!("{:?}", t.body.stmts[0])
        };
        assert_eq!((vars.len(), body.len()), (2, 1));
        assert_eq!(
            err("shared x : 0..1 = 0; invariant init(x + 1);"),
            "`init(x)` takes a variable name"
        );
    }

    #[test]
    fn declaration_lists_are_one_declaration_per_name() {
        let src = "lock a, b[2];\nshared p, q[2] : 0..3 = 0;\nprotected x, y : 0..1 = 0 by a;\nsem s, t : 0..2 = 1;\nthread T {\n  local r, u : bool = true;\n  skip\n}\n";
        let m = parse(src).unwrap();
        let names: Vec<&str> = m.vars().map(|d| d.name.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "p", "q", "x", "y", "s", "t"]);
        let printed = crate::syntax::pretty::model(&m);
        assert_eq!(
            printed,
            "lock a;\nlock b[2];\nshared p : 0..3 = 0;\nshared q[2] : 0..3 = 0;\nprotected x : 0..1 = 0 by a;\nprotected y : 0..1 = 0 by a;\nsem s : 0..2 = 1;\nsem t : 0..2 = 1;\n\nthread T {\n  local r : bool = true;\n  local u : bool = true;\n  skip;\n}\n"
        );
        assert_eq!(parse(&printed).unwrap(), m);
    }

    #[test]
    fn semicolon_before_a_closing_brace_is_optional() {
        let short = parse("thread T { if a { x := 1 } else { return } await c await d }");
        assert_eq!(
            short.unwrap_err().message,
            "expected `;`, found `await`",
            "only before `}}`"
        );
        let short = parse(
            "thread T { if a { x := 1 } else if b { release m } else { goto L } L: await c }",
        )
        .unwrap();
        let long = parse(
            "thread T { if a { x := 1; } else { if b { release m; } else { goto L; } } L: await c; }",
        )
        .unwrap();
        assert_eq!(short, long);
    }

    #[test]
    fn thread_copies_round_trip() {
        let src = "const N = 2;\n\nthread reader[N] {\n  local r : 0..3 = 0;\n  r := index;\n}\n\nthread writer {\n  skip;\n}\n";
        let m = parse(src).unwrap();
        assert_eq!(crate::syntax::pretty::model(&m), src);
        let Item::Thread(t) = &m.items[1] else {
            panic!()
        };
        assert!(t.copies.is_some());
    }

    #[test]
    fn locals_of_other_threads_round_trip() {
        let m = parse("invariant reader0.r + self.r + (1).r <= 1;\nconst A = B..C;").err();
        assert!(m.is_some(), "`B..C` is not an expression");
        let e = parse_expr("reader0.r + self.r + (1).r").unwrap();
        assert_eq!(
            crate::syntax::pretty::expr(&e),
            "reader0.r + self.r + (1).r"
        );
        assert!(
            matches!(&e.kind, ExprKind::Binary(_, a, _) if matches!(&a.kind, ExprKind::Binary(_, l, _) if matches!(&l.kind, ExprKind::Local(..))))
        );
        let m = parse("shared y : 0..N = 0;\nshared z : N..M = N;").unwrap();
        assert_eq!(m.items.len(), 2, "`N..M` is still a range");
    }
}
