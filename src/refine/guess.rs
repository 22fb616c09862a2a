//! Guesses of protected variables and their predicates, and how they are
//! written back into a model.
//!
//! A guess is made per variable element (`x`, `x[1]`). Applying guesses
//! rewrites the declarations of the parsed model, so the model that refine
//! checks is exactly the text that `--write` produces.

use std::collections::HashMap;

use crate::syntax::ast::{self, BinOp, Class, Excl, ExprKind, Item, Type, UnOp};
use crate::syntax::parser::parse_expr;
use crate::syntax::pretty;
use crate::syntax::span::Span;

/// What refinement believes about one variable element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guess {
    /// Not protected: every access is visible.
    Unprotected,
    /// Protected by the predicate the model declares.
    Declared,
    /// Protected by this lock (with the initialisation phase, when the
    /// variable has `init` code): `excl(t) = init(t, x) || (m == t && !init(x))`.
    Lock(String),
}

/// A shared variable element that refinement may guess about.
#[derive(Clone, Debug)]
pub struct Element {
    /// `x` or `x[k]`, as slots are named.
    pub name: String,
    /// The declaration's name.
    pub var: String,
    /// The element index, for arrays.
    pub index: Option<u32>,
    /// The slot in models compiled from this source.
    pub slot: u32,
}

fn ident(name: &str) -> ast::Ident {
    ast::Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn expr(kind: ExprKind) -> ast::Expr {
    ast::Expr {
        kind,
        span: Span::default(),
    }
}

fn bin(op: BinOp, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// The text of a guess in the language's own syntax, for reports.
pub fn describe(guess: &Guess, var: &str, declared: &str, has_init: bool) -> String {
    match guess {
        Guess::Unprotected => "unprotected".to_string(),
        Guess::Declared => declared.to_string(),
        Guess::Lock(m) if has_init => {
            format!("excl(t) = init(t, {var}) || ({m} == t && !init({var}))")
        }
        Guess::Lock(m) => format!("by {m}"),
    }
}

/// `excl(t)` of a guess, as an expression in the thread parameter `t`;
/// `Declared` uses the declaration's own predicate for element `k`.
fn predicate(
    guess: &Guess,
    var: &str,
    has_init: bool,
    t: &str,
    declared: &Excl,
    k: Option<u32>,
) -> Option<ast::Expr> {
    let tv = || expr(ExprKind::Name(ident(t)));
    match guess {
        Guess::Unprotected => None,
        Guess::Lock(m) => {
            let lock = parse_expr(m).expect("lock names parse");
            let owns = bin(BinOp::Eq, lock, tv());
            if !has_init {
                return Some(owns);
            }
            let mine = expr(ExprKind::InitPhase(Some(Box::new(tv())), ident(var)));
            let anyone = expr(ExprKind::InitPhase(None, ident(var)));
            let after = bin(
                BinOp::And,
                owns,
                expr(ExprKind::Unary(UnOp::Not, Box::new(anyone))),
            );
            Some(bin(BinOp::Or, mine, after))
        }
        Guess::Declared => Some(match declared {
            Excl::By(lv) => {
                let lock = match &lv.index {
                    Some(i) => expr(ExprKind::Index(lv.name.clone(), i.clone())),
                    None => expr(ExprKind::Name(lv.name.clone())),
                };
                bin(BinOp::Eq, lock, tv())
            }
            Excl::Pred { params, body } => {
                let mut map = HashMap::new();
                map.insert(params[0].name.clone(), tv());
                if let (Some(j), Some(k)) = (params.get(1), k) {
                    map.insert(j.name.clone(), expr(ExprKind::Int(i64::from(k))));
                }
                subst(body, &map)
            }
        }),
    }
}

/// Replaces free names by expressions.
fn subst(e: &ast::Expr, map: &HashMap<String, ast::Expr>) -> ast::Expr {
    let go = |x: &ast::Expr| Box::new(subst(x, map));
    let kind = match &e.kind {
        ExprKind::Name(n) => match map.get(&n.name) {
            Some(r) => return r.clone(),
            None => e.kind.clone(),
        },
        ExprKind::Index(n, i) => ExprKind::Index(n.clone(), go(i)),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, go(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, go(a), go(b)),
        ExprKind::At(t, l) => ExprKind::At(go(t), l.clone()),
        ExprKind::InitPhase(t, x) => ExprKind::InitPhase(t.as_deref().map(go), x.clone()),
        ExprKind::Local(t, r) => ExprKind::Local(go(t), r.clone()),
        ExprKind::Quant(q, v, lo, hi, body) => {
            // The bound name hides a parameter of the same name.
            let mut inner = map.clone();
            inner.remove(&v.name);
            ExprKind::Quant(*q, v.clone(), go(lo), go(hi), Box::new(subst(body, &inner)))
        }
        ExprKind::Any(lo, hi) => ExprKind::Any(go(lo), go(hi)),
        ExprKind::Chan(q, c) => ExprKind::Chan(*q, subst_place(c, map)),
        ExprKind::Poll(c, args) => {
            let args = args
                .iter()
                .map(|a| match a {
                    ast::RecvArg::Match(x) => ast::RecvArg::Match(subst(x, map)),
                    // A parameter in a poll is a variable, which matches
                    // anything: it stays one after the substitution.
                    ast::RecvArg::Var(lv) if map.contains_key(&lv.name.name) => {
                        ast::RecvArg::Skip(lv.span)
                    }
                    ast::RecvArg::Var(lv) => ast::RecvArg::Var(subst_place(lv, map)),
                    ast::RecvArg::Skip(s) => ast::RecvArg::Skip(*s),
                })
                .collect();
            ExprKind::Poll(subst_place(c, map), args)
        }
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::SelfId
        | ExprKind::Free
        | ExprKind::Timeout => e.kind.clone(),
    };
    ast::Expr { kind, span: e.span }
}

/// A place with free names replaced in its index.
fn subst_place(lv: &ast::LValue, map: &HashMap<String, ast::Expr>) -> ast::LValue {
    let index = lv.index.as_deref().map(|i| Box::new(subst(i, map)));
    ast::LValue {
        index,
        ..lv.clone()
    }
}

/// A parameter name that no global declaration uses.
fn fresh(base: &str, taken: &[String]) -> String {
    let mut name = base.to_string();
    while taken.contains(&name) {
        name.push('_');
    }
    name
}

/// The model with `guesses` (one per element of `elements`) written into
/// its declarations. Variables with no protected element become `shared`.
pub fn apply(
    model: &ast::Model,
    elements: &[Element],
    guesses: &[Guess],
    init_vars: &[String],
) -> ast::Model {
    let taken: Vec<String> = model
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Var(d) => Some(d.name.name.clone()),
            Item::Const(c) => Some(c.name.name.clone()),
            Item::Thread(t) => Some(t.name.name.clone()),
            _ => None,
        })
        .collect();
    let (t, j) = (fresh("t", &taken), fresh("j", &taken));
    let mut out = model.clone();
    for item in &mut out.items {
        let Item::Var(d) = item else { continue };
        let mine: Vec<(&Element, &Guess)> = elements
            .iter()
            .zip(guesses)
            .filter(|(e, _)| e.var == d.name.name)
            .collect();
        if mine.is_empty() || matches!(d.ty, Type::Lock | Type::Sem(..)) {
            continue;
        }
        let var = d.name.name.clone();
        let has_init = init_vars.contains(&var);
        let declared = match &d.class {
            Class::Protected { excl, .. } => excl.clone(),
            _ => Excl::Pred {
                params: vec![ident("t")],
                body: expr(ExprKind::Bool(false)),
            },
        };
        let protected: Vec<&(&Element, &Guess)> = mine
            .iter()
            .filter(|(_, g)| **g != Guess::Unprotected)
            .collect();
        if protected.is_empty() {
            d.class = Class::Shared;
            continue;
        }
        let unprotected: Vec<ast::Expr> = mine
            .iter()
            .filter(|(_, g)| **g == Guess::Unprotected)
            .filter_map(|(e, _)| e.index.map(|k| expr(ExprKind::Int(i64::from(k)))))
            .collect();
        let same = protected.iter().all(|(_, g)| *g == protected[0].1);
        let excl = match protected[0].1 {
            // All the declared predicate: keep it as written.
            Guess::Declared if same => declared.clone(),
            Guess::Lock(m) if same && !has_init => Excl::By(ast::LValue {
                name: ident(m.split('[').next().unwrap_or(m)),
                index: m
                    .find('[')
                    .map(|_| Box::new(parse_expr(m).map(index_of).expect("lock names parse"))),
                span: Span::default(),
            }),
            Guess::Lock(_) if same => Excl::Pred {
                params: vec![ident(&t)],
                body: predicate(protected[0].1, &var, true, &t, &declared, None)
                    .expect("a lock guess has a predicate"),
            },
            _ => {
                // Element by element: excl(t, j) = (j == 0 && p0) || (j == 1 && p1) ...
                let body = protected
                    .iter()
                    .filter_map(|(e, g)| {
                        let p = predicate(g, &var, has_init, &t, &declared, e.index)?;
                        let k = expr(ExprKind::Int(i64::from(e.index.unwrap_or(0))));
                        Some(bin(
                            BinOp::And,
                            bin(BinOp::Eq, expr(ExprKind::Name(ident(&j))), k),
                            p,
                        ))
                    })
                    .reduce(|a, b| bin(BinOp::Or, a, b))
                    .expect("at least one protected element");
                Excl::Pred {
                    params: vec![ident(&t), ident(&j)],
                    body,
                }
            }
        };
        d.class = Class::Protected { excl, unprotected };
    }
    out
}

fn index_of(e: ast::Expr) -> ast::Expr {
    match e.kind {
        ExprKind::Index(_, i) => *i,
        _ => e,
    }
}

/// The source with the declarations that differ between `old` and `new`
/// rewritten in place, so comments and statement lines stay where they were.
pub fn splice(text: &str, old: &ast::Model, new: &ast::Model) -> String {
    // A list (`shared p, q : 0..3;`) is one declaration per name, all with
    // the span of the list: when one of them changes, the whole list is
    // written back, one declaration per line.
    let mut edits: Vec<(Span, String)> = Vec::new();
    let mut group: Option<(Span, Vec<String>, bool)> = None;
    for (a, b) in old.items.iter().zip(&new.items) {
        if let (Item::Var(a), Item::Var(b)) = (a, b) {
            if group
                .as_ref()
                .is_some_and(|g| (g.0.start, g.0.end) != (a.span.start, a.span.end))
            {
                if let Some((span, texts, true)) = group.take() {
                    edits.push((span, texts.join("\n")));
                }
            }
            let g = group.get_or_insert((a.span, Vec::new(), false));
            g.1.push(pretty::var_decl(b));
            g.2 |= a != b;
        }
    }
    if let Some((span, texts, true)) = group {
        edits.push((span, texts.join("\n")));
    }
    let mut out = text.to_string();
    for (span, new) in edits.into_iter().rev() {
        out.replace_range(span.start..span.end, &new);
    }
    out
}

/// The text of a declaration's predicate as written (`by m` or `excl(t) = ...`).
pub fn declared_text(d: &ast::VarDecl) -> String {
    match &d.class {
        Class::Protected {
            excl: Excl::By(lv), ..
        } => format!("by {}", pretty::lvalue(lv)),
        Class::Protected {
            excl: Excl::Pred { params, body },
            ..
        } => {
            let ps: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            format!("excl({}) = {}", ps.join(", "), pretty::expr(body))
        }
        _ => "unprotected".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::parse;

    /// A declaration list is one declaration per name with the span of the
    /// list: when one of its names changes, the list is written back whole,
    /// one declaration per line, and the rest of the text stays.
    #[test]
    fn splice_writes_a_changed_list_back_whole() {
        let text =
            "lock m;\nshared a, b : 0..1 = 0; // data\nshared c : 0..1;\nthread T {\n  skip;\n}\n";
        let old = parse(text).unwrap();
        let mut new = old.clone();
        let Item::Var(d) = &mut new.items[2] else {
            panic!()
        };
        let Item::Var(m) = &old.items[0] else {
            panic!()
        };
        d.class = Class::Protected {
            excl: Excl::By(ast::LValue {
                name: m.name.clone(),
                index: None,
                span: m.span,
            }),
            unprotected: Vec::new(),
        };
        let out = splice(text, &old, &new);
        assert_eq!(
            out,
            "lock m;\nshared a : 0..1 = 0;\nprotected b : 0..1 = 0 by m; // data\nshared c : 0..1;\nthread T {\n  skip;\n}\n"
        );
        assert_eq!(splice(text, &old, &old), text);
    }
}
