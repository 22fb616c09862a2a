//! The names of a model at the syntax level: what each declaration
//! declares and where, with the part of the file it is visible in, and every
//! identifier written in the text. Definitions, references, completion and
//! symbols are all lookups in these two lists, so they work on any model
//! that parses, compiled or not.

use crate::syntax::ast::{self, Excl, Item, Stmt, StmtKind, Type};
use crate::syntax::span::Span;

/// What a name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A `shared` or `protected` variable.
    Variable,
    /// A thread's or a procedure's `local` variable.
    Local,
    /// A `lock`.
    Lock,
    /// A `sem`.
    Semaphore,
    /// A `chan`.
    Channel,
    /// A `const`.
    Constant,
    /// A `thread`.
    Thread,
    /// A `proc`.
    Procedure,
    /// A procedure's parameter, or the thread of an `excl(t, j)` predicate.
    Parameter,
    /// A statement's label.
    Label,
    /// An `ltl` property.
    Property,
}

impl Kind {
    /// The kind in words, for hovers.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Variable => "variable",
            Kind::Local => "local variable",
            Kind::Lock => "lock",
            Kind::Semaphore => "semaphore",
            Kind::Channel => "channel",
            Kind::Constant => "constant",
            Kind::Thread => "thread",
            Kind::Procedure => "procedure",
            Kind::Parameter => "parameter",
            Kind::Label => "label",
            Kind::Property => "property",
        }
    }
}

/// One declared name.
#[derive(Clone, Debug)]
pub(crate) struct Decl {
    /// The name.
    pub name: String,
    /// What it names.
    pub kind: Kind,
    /// The name where it is declared.
    pub span: Span,
    /// The whole declaration (for a label, its statement).
    pub whole: Span,
    /// The part of the file where the name is visible; `None`: everywhere.
    pub scope: Option<Span>,
}

/// Every declaration of a model, in source order.
pub(crate) fn declarations(model: &ast::Model) -> Vec<Decl> {
    let mut out = Vec::new();
    for item in &model.items {
        match item {
            Item::Const(d) => push(&mut out, &d.name, Kind::Constant, d.span, None),
            Item::Var(d) => var(&mut out, d, None),
            Item::Chan(c) => push(&mut out, &c.name, Kind::Channel, c.span, None),
            Item::Ltl(l) => push(&mut out, &l.name, Kind::Property, l.span, None),
            Item::Thread(t) => {
                push(&mut out, &t.name, Kind::Thread, t.span, None);
                body(&mut out, &t.body, t.span);
            }
            Item::Proc(p) => {
                push(&mut out, &p.name, Kind::Procedure, p.span, None);
                for param in &p.params {
                    push(&mut out, &param.name, Kind::Parameter, p.span, Some(p.span));
                }
                body(&mut out, &p.body, p.span);
            }
            Item::Threads(..) | Item::Invariant(..) => {}
        }
    }
    out
}

fn push(out: &mut Vec<Decl>, name: &ast::Ident, kind: Kind, whole: Span, scope: Option<Span>) {
    out.push(Decl {
        name: name.name.clone(),
        kind,
        span: name.span,
        whole,
        scope,
    });
}

/// A variable declaration; `scope` is its body, for a local.
fn var(out: &mut Vec<Decl>, d: &ast::VarDecl, scope: Option<Span>) {
    let kind = match (&d.ty, scope) {
        (Type::Lock, _) => Kind::Lock,
        (Type::Sem(..), _) => Kind::Semaphore,
        (_, Some(_)) => Kind::Local,
        _ => Kind::Variable,
    };
    push(out, &d.name, kind, d.span, scope);
    if let ast::Class::Protected {
        excl: Excl::Pred { params, .. },
        ..
    } = &d.class
    {
        for p in params {
            push(out, p, Kind::Parameter, d.span, Some(d.span));
        }
    }
}

/// The locals and labels of a thread's or procedure's body, visible in `scope`.
fn body(out: &mut Vec<Decl>, body: &ast::Body, scope: Span) {
    for l in &body.locals {
        var(out, l, Some(scope));
    }
    labels(out, &body.stmts, scope);
}

fn labels(out: &mut Vec<Decl>, stmts: &[Stmt], scope: Span) {
    for s in stmts {
        if let Some(l) = &s.label {
            push(out, l, Kind::Label, s.span, Some(scope));
        }
        for block in blocks(&s.kind) {
            labels(out, block, scope);
        }
    }
}

/// The statement lists nested in a statement.
pub(crate) fn blocks(kind: &StmtKind) -> Vec<&[Stmt]> {
    match kind {
        StmtKind::Atomic(b)
        | StmtKind::While(_, b)
        | StmtKind::Repeat(_, b)
        | StmtKind::Init(_, b) => vec![b],
        StmtKind::If(_, a, b) => std::iter::once(a.as_slice()).chain(b.as_deref()).collect(),
        StmtKind::Either(branches) => branches.iter().map(Vec::as_slice).collect(),
        _ => Vec::new(),
    }
}

/// An identifier written in the text.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    /// The identifier.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// Every identifier of `text` that is not a keyword, outside comments.
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            i += text[i + 2..].find("*/").map_or(rest.len(), |n| n + 4);
        } else if bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' {
            let len = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(rest.len());
            let word = &text[i..i + len];
            // A word that starts with a digit is a number.
            if !bytes[i].is_ascii_digit() && !ast::KEYWORDS.contains(&word) {
                out.push(Token {
                    name: word.to_string(),
                    span: Span::new(i, i + len),
                });
            }
            i += len;
        } else {
            i += 1;
        }
    }
    out
}

/// The identifiers and declarations of a document, and lookups in them.
pub(crate) struct Names {
    /// Every declaration, in source order.
    pub decls: Vec<Decl>,
    /// Every identifier, in source order.
    pub tokens: Vec<Token>,
}

impl Names {
    /// The names of a model that parsed, with its text.
    pub fn new(model: &ast::Model, text: &str) -> Names {
        Names {
            decls: declarations(model),
            tokens: tokens(text),
        }
    }

    /// The identifier at byte `offset` (or just before it, at its end).
    pub fn token_at(&self, offset: usize) -> Option<&Token> {
        self.tokens
            .iter()
            .find(|t| t.span.start <= offset && offset <= t.span.end)
    }

    /// The declaration that `name`, written at `offset`, refers to: the one
    /// in the innermost scope around it, else any of that name (a label
    /// named in `at(T, L)` outside its thread).
    pub fn resolve(&self, name: &str, offset: usize) -> Option<usize> {
        let named = || {
            self.decls
                .iter()
                .enumerate()
                .filter(|(_, d)| d.name == name)
        };
        named()
            .filter(|(_, d)| d.scope.is_none_or(|s| contains(s, offset)))
            .min_by_key(|(_, d)| d.scope.map_or(usize::MAX, Span::len))
            .or_else(|| named().next())
            .map(|(k, _)| k)
    }

    /// The declaration named at `offset`.
    pub fn decl_at(&self, offset: usize) -> Option<usize> {
        let t = self.token_at(offset)?;
        self.resolve(&t.name, t.span.start)
    }

    /// Every place that names declaration `k`, its declaration included.
    pub fn references(&self, k: usize) -> Vec<Span> {
        let name = &self.decls[k].name;
        self.tokens
            .iter()
            .filter(|t| &t.name == name && self.resolve(name, t.span.start) == Some(k))
            .map(|t| t.span)
            .collect()
    }

    /// The declarations visible at `offset`, one per name.
    pub fn in_scope(&self, offset: usize) -> Vec<&Decl> {
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<&Decl> = self
            .decls
            .iter()
            .filter(|d| d.scope.is_none_or(|s| contains(s, offset)))
            .collect();
        // Innermost first, so that a local hides a shared variable of its name.
        out.sort_by_key(|d| d.scope.map_or(usize::MAX, Span::len));
        out.retain(|d| seen.insert(d.name.clone()));
        out
    }
}

fn contains(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &str = "system s;\nshared x : 0..3 = 0; // x in a comment\nthread T {\n  local x : bool = false;\n  A: x := true;\n  goto A;\n}\nthread U {\n  B: x := 1; /* A */\n  await at(T, A);\n}\n";

    fn names() -> Names {
        let m = crate::syntax::parser::parse(MODEL).unwrap();
        Names::new(&m, MODEL)
    }

    #[test]
    fn comments_and_keywords_are_not_names() {
        let n = names();
        let words: Vec<&str> = n.tokens.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            words,
            ["s", "x", "T", "x", "A", "x", "A", "U", "B", "x", "T", "A"]
        );
    }

    #[test]
    fn locals_hide_shared_variables_and_labels_resolve_across_threads() {
        let n = names();
        let at = |needle: &str, nth: usize| MODEL.match_indices(needle).nth(nth).unwrap().0;
        let shared = n.decl_at(at("x :", 0)).unwrap();
        let local = n.decl_at(at("x :", 1)).unwrap();
        assert_ne!(shared, local);
        assert_eq!(n.decls[local].kind, Kind::Local);
        // `x := true` in T is its local; `x := 1` in U the shared one.
        assert_eq!(n.decl_at(at("x := true", 0)), Some(local));
        assert_eq!(n.decl_at(at("x := 1", 0)), Some(shared));
        assert_eq!(n.references(shared).len(), 2);
        // `A` in `at(T, A)` is T's label, found outside T.
        let label = n.decl_at(at("A:", 0)).unwrap();
        assert_eq!(n.decls[label].kind, Kind::Label);
        assert_eq!(n.references(label).len(), 3);
    }
}
