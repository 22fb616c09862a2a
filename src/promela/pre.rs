//! Promela's lexer and C-like preprocessor: comments, `#define` (with and
//! without parameters), `#undef`, `#include "file"`, and
//! `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` over constants.
//!
//! Every token keeps a span into the main file: its own place there, or,
//! for a token that comes from a macro's body, the place of the macro's
//! use, and, for a token of an included file, the `#include` line. So an
//! error always names a line of the file the user gave.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::syntax::span::Span;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tk {
    /// A name or keyword.
    Ident(String),
    /// An integer literal.
    Int(i64),
    /// A string literal (only `printf` and `#include` take one).
    Str,
    /// An operator or punctuation, longest match first.
    Punct(&'static str),
    /// A character the language has no use for.
    Bad(char),
}

/// A token with its place in the main file.
#[derive(Clone, Debug)]
pub(crate) struct Tok {
    pub(crate) kind: Tk,
    pub(crate) span: Span,
}

impl Tok {
    pub(crate) fn is(&self, p: &str) -> bool {
        matches!(&self.kind, Tk::Punct(q) if *q == p)
    }
    pub(crate) fn ident(&self) -> Option<&str> {
        match &self.kind {
            Tk::Ident(s) => Some(s),
            _ => None,
        }
    }
}

/// An error of the preprocessor or the lexer, at a place of the main file.
#[derive(Debug)]
pub(crate) struct PreError {
    pub(crate) span: Span,
    pub(crate) message: String,
}

fn err<T>(span: Span, message: impl Into<String>) -> Result<T, PreError> {
    Err(PreError {
        span,
        message: message.into(),
    })
}

const PUNCTS: &[&str] = &[
    "<<", ">>", "->", "::", "..", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "!!", "??", "[]",
    "<>", "(", ")", "[", "]", "{", "}", ";", ",", ".", ":", "=", "<", ">", "+", "-", "*", "/", "%",
    "!", "?", "&", "|", "^", "~", "@", "#", "\\", "'",
];

/// How deep `#include`s and macro expansions may nest.
const MAX_DEPTH: usize = 64;
/// How many tokens the preprocessor may produce in all.
const MAX_TOKENS: usize = 4_000_000;

/// Replaces comments by spaces (newlines kept), so offsets stay.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'*') || b.get(i + 1) == Some(&b'/') => {
                let block = b[i + 1] == b'*';
                out.push_str(&text[last..i]);
                let start = i;
                i += 2;
                if block {
                    while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                        i += 1;
                    }
                    i = (i + 2).min(b.len());
                } else {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                for c in text[start..i].chars() {
                    if c == '\n' {
                        out.push('\n');
                    } else {
                        for _ in 0..c.len_utf8() {
                            out.push(' ');
                        }
                    }
                }
                last = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[last.min(text.len())..]);
    out
}

/// Tokens of `text[range]`, spans offset by `base` (or all set to `fixed`).
fn lex(text: &str, start: usize, end: usize, fixed: Option<Span>) -> Result<Vec<Tok>, PreError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let s = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tk::Ident(text[s..i].to_string())
        } else if c.is_ascii_digit() {
            while i < end && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let word = &text[s..i];
            let v = if let Some(h) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else if word.len() > 1 && word.starts_with('0') {
                i64::from_str_radix(&word[1..], 8).ok()
            } else {
                word.parse::<i64>().ok()
            };
            match v {
                Some(v) => Tk::Int(v),
                None => {
                    let sp = fixed.unwrap_or(Span::new(s, i));
                    return err(sp, format!("`{word}` is not an integer optimist reads"));
                }
            }
        } else if c == b'\'' && i + 2 < end && b[i + 2] == b'\'' && b[i + 1].is_ascii() {
            // A character constant, `'a'`: its code.
            i += 3;
            Tk::Int(i64::from(b[s + 1]))
        } else if c == b'"' {
            i += 1;
            while i < end && b[i] != b'"' && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= end || b[i] != b'"' {
                return err(fixed.unwrap_or(Span::new(s, s + 1)), "unterminated string");
            }
            i += 1;
            Tk::Str
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..end].starts_with(**p)) {
            i += p.len();
            Tk::Punct(p)
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8();
            Tk::Bad(ch)
        };
        out.push(Tok {
            kind,
            span: fixed.unwrap_or(Span::new(s, i)),
        });
    }
    Ok(out)
}

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    body: Vec<Tok>,
}

/// The preprocessor's state across files.
pub(crate) struct Pre {
    macros: HashMap<String, Macro>,
    out: Vec<Tok>,
    depth: usize,
}

/// Preprocesses and lexes the main file `text` (at `path`, for includes),
/// with `defines` set first as `-DNAME=VALUE` does for cpp.
pub(crate) fn preprocess(
    text: &str,
    path: Option<&Path>,
    defines: &[(String, String)],
) -> Result<Vec<Tok>, PreError> {
    let mut pre = Pre {
        macros: HashMap::new(),
        out: Vec::new(),
        depth: 0,
    };
    for (name, value) in defines {
        let body = lex(value, 0, value.len(), Some(Span::new(0, 0)))?;
        pre.macros
            .insert(name.clone(), Macro { params: None, body });
    }
    pre.file(text, path.map(Path::to_path_buf), None)?;
    Ok(pre.out)
}

impl Pre {
    /// One file: `at` is the `#include` that brought it in (None for the main file).
    fn file(&mut self, raw: &str, path: Option<PathBuf>, at: Option<Span>) -> Result<(), PreError> {
        let text = strip_comments(raw);
        // (active, some branch taken, else seen) for each open #if.
        let mut conds: Vec<(bool, bool, Span)> = Vec::new();
        let mut pending: Vec<Tok> = Vec::new();
        let mut pos = 0;
        while pos < text.len() {
            let start = pos;
            let end = logical_line_end(text.as_bytes(), start);
            pos = end + 1;
            let line = &text[start..end];
            let active = conds.iter().all(|c| c.0);
            let trimmed = line.trim_start();
            let fixed = at;
            if !trimmed.starts_with('#') {
                if active {
                    pending.extend(code_line_toks(&text, start, end, fixed)?);
                }
                continue;
            }
            let hash = start + (line.len() - trimmed.len());
            let dspan = fixed.unwrap_or(Span::new(hash, end));
            let toks = lex(&text, hash + 1, end, fixed)?;
            let toks: Vec<Tok> = toks.into_iter().filter(|t| !t.is("\\")).collect();
            let word = toks.first().and_then(Tok::ident).unwrap_or("").to_string();
            match word.as_str() {
                "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" => {
                    self.conditional(&word, &toks, dspan, active, &mut conds)?
                }
                _ if !active => {}
                "define" => {
                    self.flush(&mut pending)?;
                    self.define(&toks, dspan, fixed)?;
                }
                "undef" => {
                    self.flush(&mut pending)?;
                    if let Some(name) = toks.get(1).and_then(Tok::ident) {
                        self.macros.remove(name);
                    }
                }
                "include" => {
                    self.flush(&mut pending)?;
                    self.include(line, dspan, path.as_deref())?;
                }
                "" => {}
                "line" | "pragma" => {}
                other => return err(dspan, format!("unknown preprocessor directive `#{other}`")),
            }
        }
        if let Some(&(_, _, sp)) = conds.last() {
            return err(sp, "this `#if` has no `#endif`");
        }
        self.flush(&mut pending)
    }

    /// `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else` or `#endif` (`word`):
    /// updates the stack of open conditionals.
    fn conditional(
        &mut self,
        word: &str,
        toks: &[Tok],
        dspan: Span,
        active: bool,
        conds: &mut Vec<(bool, bool, Span)>,
    ) -> Result<(), PreError> {
        match word {
            "if" | "ifdef" | "ifndef" => {
                let v = if !active {
                    false
                } else if word == "if" {
                    self.eval_if(&toks[1..], dspan)? != 0
                } else {
                    let name = toks.get(1).and_then(Tok::ident).ok_or_else(|| PreError {
                        span: dspan,
                        message: format!("`#{word}` needs a name"),
                    })?;
                    self.macros.contains_key(name) == (word == "ifdef")
                };
                conds.push((v, v || !active, dspan));
            }
            "elif" => {
                let outer = conds.len() > 1 && conds[..conds.len() - 1].iter().all(|c| c.0);
                let outer = outer || conds.len() == 1;
                let Some(&(_, taken, sp)) = conds.last() else {
                    return err(dspan, "`#elif` without `#if`");
                };
                let v = !taken && outer && self.eval_if(&toks[1..], dspan)? != 0;
                *conds.last_mut().unwrap() = (v, taken || v, sp);
            }
            "else" => {
                let Some(&(_, taken, sp)) = conds.last() else {
                    return err(dspan, "`#else` without `#if`");
                };
                *conds.last_mut().unwrap() = (!taken, true, sp);
            }
            _ => {
                if conds.pop().is_none() {
                    return err(dspan, "`#endif` without `#if`");
                }
            }
        }
        Ok(())
    }

    /// `#define NAME body` or `#define NAME(params) body`.
    fn define(&mut self, toks: &[Tok], dspan: Span, fixed: Option<Span>) -> Result<(), PreError> {
        let Some(name) = toks.get(1).and_then(Tok::ident) else {
            return err(dspan, "`#define` needs a name");
        };
        let name = name.to_string();
        // A parameter list follows the name with no space between.
        let mut rest = 2;
        let mut params = None;
        if let Some(t) = toks.get(2)
            && t.is("(")
            && (fixed.is_some() || t.span.start == toks[1].span.end)
        {
            let mut ps = Vec::new();
            let mut k = 3;
            loop {
                match toks.get(k) {
                    Some(t) if t.is(")") => break,
                    Some(t) if t.is(",") => k += 1,
                    Some(Tok {
                        kind: Tk::Ident(p), ..
                    }) => {
                        ps.push(p.clone());
                        k += 1;
                    }
                    _ => return err(dspan, "malformed macro parameter list"),
                }
            }
            rest = k + 1;
            params = Some(ps);
        }
        let body = toks[rest.min(toks.len())..].to_vec();
        self.macros.insert(name, Macro { params, body });
        Ok(())
    }

    /// `#include "file"` on `line`, read relative to the including file `path`.
    fn include(&mut self, line: &str, dspan: Span, path: Option<&Path>) -> Result<(), PreError> {
        let rest = line[line.find("include").unwrap_or(0) + 7..].trim();
        let name = rest.trim_matches(|c| c == '"' || c == '<' || c == '>');
        if name.is_empty() {
            return err(dspan, "`#include` needs a file name");
        }
        if self.depth >= MAX_DEPTH {
            return err(dspan, "`#include`s nest too deep");
        }
        let dir = path
            .and_then(Path::parent)
            .map_or_else(PathBuf::new, Path::to_path_buf);
        let file = dir.join(name);
        let body = std::fs::read_to_string(&file).map_err(|e| PreError {
            span: dspan,
            message: format!("cannot read included file {}: {e}", file.display()),
        })?;
        self.depth += 1;
        self.file(&body, Some(file), Some(dspan))?;
        self.depth -= 1;
        Ok(())
    }

    /// Expands the macros of `pending` onto the output.
    fn flush(&mut self, pending: &mut Vec<Tok>) -> Result<(), PreError> {
        let toks = std::mem::take(pending);
        let mut out = Vec::new();
        self.expand(&toks, &mut HashSet::new(), &mut out, 0)?;
        self.out.extend(out);
        Ok(())
    }

    fn expand(
        &self,
        toks: &[Tok],
        active: &mut HashSet<String>,
        out: &mut Vec<Tok>,
        depth: usize,
    ) -> Result<(), PreError> {
        let mut i = 0;
        while i < toks.len() {
            if out.len() + self.out.len() > MAX_TOKENS {
                return err(toks[i].span, "the macros expand to too many tokens");
            }
            let t = &toks[i];
            let Some(name) = t.ident() else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            let Some(m) = self.macros.get(name).filter(|_| !active.contains(name)) else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            if depth >= MAX_DEPTH {
                return err(t.span, format!("macro `{name}` expands too deep"));
            }
            let at = t.span;
            let body: Vec<Tok>;
            match &m.params {
                None => {
                    body = m.body.clone();
                    i += 1;
                }
                Some(params) => {
                    if !toks.get(i + 1).is_some_and(|t| t.is("(")) {
                        out.push(t.clone());
                        i += 1;
                        continue;
                    }
                    // Arguments: split at top-level commas.
                    let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
                    let mut level = 0;
                    let mut k = i + 2;
                    loop {
                        let Some(a) = toks.get(k) else {
                            return err(
                                at,
                                format!("the arguments of macro `{name}` are not closed"),
                            );
                        };
                        if a.is("(") {
                            level += 1;
                        } else if a.is(")") {
                            if level == 0 {
                                break;
                            }
                            level -= 1;
                        } else if a.is(",") && level == 0 {
                            args.push(Vec::new());
                            k += 1;
                            continue;
                        }
                        args.last_mut().unwrap().push(a.clone());
                        k += 1;
                    }
                    i = k + 1;
                    if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                        args.clear();
                    }
                    if args.len() != params.len() {
                        return err(
                            at,
                            format!(
                                "macro `{name}` takes {} arguments, given {}",
                                params.len(),
                                args.len()
                            ),
                        );
                    }
                    // Arguments are expanded before substitution, as cpp does.
                    let mut expanded = Vec::new();
                    for a in &args {
                        let mut e = Vec::new();
                        self.expand(a, active, &mut e, depth + 1)?;
                        expanded.push(e);
                    }
                    let mut b = Vec::new();
                    for bt in &m.body {
                        match bt.ident().and_then(|n| params.iter().position(|p| p == n)) {
                            Some(p) => b.extend(expanded[p].iter().cloned()),
                            None => b.push(bt.clone()),
                        }
                    }
                    body = b;
                }
            }
            let body: Vec<Tok> = body
                .into_iter()
                .map(|mut b| {
                    b.span = at;
                    b
                })
                .collect();
            active.insert(name.to_string());
            self.expand(&body, active, out, depth + 1)?;
            active.remove(name);
        }
        Ok(())
    }

    /// The value of a `#if` line.
    fn eval_if(&self, toks: &[Tok], span: Span) -> Result<i64, PreError> {
        // `defined X` and `defined(X)` first, then macros, then arithmetic.
        let mut pre = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].ident() == Some("defined") {
                let (name, skip) = if toks.get(i + 1).is_some_and(|t| t.is("(")) {
                    (toks.get(i + 2).and_then(Tok::ident), 4)
                } else {
                    (toks.get(i + 1).and_then(Tok::ident), 2)
                };
                let Some(name) = name else {
                    return err(span, "`defined` needs a name");
                };
                pre.push(Tok {
                    kind: Tk::Int(self.macros.contains_key(name) as i64),
                    span,
                });
                i += skip;
            } else {
                pre.push(toks[i].clone());
                i += 1;
            }
        }
        let mut out = Vec::new();
        self.expand(&pre, &mut HashSet::new(), &mut out, 0)?;
        let mut p = IfEval {
            toks: &out,
            pos: 0,
            span,
        };
        let v = p.expr(0)?;
        if p.pos != out.len() {
            return err(
                span,
                "this `#if` condition is not a constant expression optimist reads",
            );
        }
        Ok(v)
    }
}

/// The end of the logical line from `start`: physical lines joined by a
/// trailing backslash.
fn logical_line_end(b: &[u8], start: usize) -> usize {
    let mut end = start;
    loop {
        while end < b.len() && b[end] != b'\n' {
            end += 1;
        }
        let mut k = end;
        while k > start && (b[k - 1] == b' ' || b[k - 1] == b'\t' || b[k - 1] == b'\r') {
            k -= 1;
        }
        if k > start && b[k - 1] == b'\\' && end < b.len() {
            end += 1;
            continue;
        }
        break;
    }
    end
}

/// The tokens of a non-directive line `text[start..end]`; a continued line's
/// tokens all take the whole line's span (or `fixed`).
fn code_line_toks(
    text: &str,
    start: usize,
    end: usize,
    fixed: Option<Span>,
) -> Result<Vec<Tok>, PreError> {
    let line_text = text[start..end].replace("\\\n", "  ");
    let toks = lex(&line_text, 0, line_text.len(), Some(Span::new(0, 0)))?;
    // re-lex with real offsets when the line has no continuation
    Ok(if line_text.len() == end - start {
        lex(text, start, end, fixed)?
    } else {
        toks.into_iter()
            .map(|mut t| {
                t.span = fixed.unwrap_or(Span::new(start, end));
                t
            })
            .collect()
    })
}

/// The binding strength of a binary operator of Promela (and of `#if`):
/// higher binds tighter; `None` for what is no binary operator.
pub(super) fn precedence(p: &str) -> Option<u8> {
    Some(match p {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

struct IfEval<'a> {
    toks: &'a [Tok],
    pos: usize,
    span: Span,
}

impl IfEval<'_> {
    fn binop(&self) -> Option<(&'static str, u8)> {
        let t = self.toks.get(self.pos)?;
        let Tk::Punct(p) = t.kind else { return None };
        Some((p, precedence(p)?))
    }

    fn expr(&mut self, min: u8) -> Result<i64, PreError> {
        let mut l = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec <= min {
                break;
            }
            self.pos += 1;
            let r = self.expr(prec)?;
            l = match op {
                "||" => (l != 0 || r != 0) as i64,
                "&&" => (l != 0 && r != 0) as i64,
                "|" => l | r,
                "^" => l ^ r,
                "&" => l & r,
                "==" => (l == r) as i64,
                "!=" => (l != r) as i64,
                "<" => (l < r) as i64,
                ">" => (l > r) as i64,
                "<=" => (l <= r) as i64,
                ">=" => (l >= r) as i64,
                "<<" => l.checked_shl(r as u32).unwrap_or(0),
                ">>" => l.checked_shr(r as u32).unwrap_or(0),
                "+" => l.wrapping_add(r),
                "-" => l.wrapping_sub(r),
                "*" => l.wrapping_mul(r),
                "/" | "%" if r == 0 => return err(self.span, "division by zero in `#if`"),
                "/" => l.wrapping_div(r),
                _ => l.wrapping_rem(r),
            };
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<i64, PreError> {
        let Some(t) = self.toks.get(self.pos) else {
            return err(self.span, "this `#if` condition ends early");
        };
        self.pos += 1;
        match &t.kind {
            Tk::Int(v) => Ok(*v),
            Tk::Ident(_) => Ok(0),
            Tk::Punct("!") => Ok((self.unary()? == 0) as i64),
            Tk::Punct("-") => Ok(self.unary()?.wrapping_neg()),
            Tk::Punct("~") => Ok(!self.unary()?),
            Tk::Punct("(") => {
                let v = self.expr(0)?;
                if !self.toks.get(self.pos).is_some_and(|t| t.is(")")) {
                    return err(self.span, "a `(` in this `#if` is not closed");
                }
                self.pos += 1;
                Ok(v)
            }
            _ => err(
                self.span,
                "this `#if` condition is not a constant expression optimist reads",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> String {
        let toks = preprocess(text, None, &[]).unwrap();
        toks.iter()
            .map(|t| match &t.kind {
                Tk::Ident(s) => s.clone(),
                Tk::Int(v) => v.to_string(),
                Tk::Str => "\"\"".into(),
                Tk::Punct(p) => p.to_string(),
                Tk::Bad(c) => c.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn object_and_function_macros() {
        assert_eq!(words("#define N 3\nbyte x = N;"), "byte x = 3 ;");
        assert_eq!(
            words("#define sq(a) ((a)*(a))\nx = sq(y+1);"),
            "x = ( ( y + 1 ) * ( y + 1 ) ) ;"
        );
        assert_eq!(words("#define A B\n#define B A\nA"), "A");
    }

    #[test]
    fn conditionals() {
        let t =
            "#define X 2\n#if X > 1\na\n#else\nb\n#endif\n#ifdef Y\nc\n#elif defined(X)\nd\n#endif";
        assert_eq!(words(t), "a d");
        assert_eq!(words("#ifndef N\n#define N 4\n#endif\nN"), "4");
    }

    #[test]
    fn comments_keep_offsets() {
        let toks = preprocess("/* a\n b */ x // y\n z", None, &[]).unwrap();
        assert_eq!(toks[0].span.start, 11);
        assert_eq!(toks.len(), 2);
    }

    #[test]
    fn errors_have_places() {
        let e = preprocess("x\n#endif", None, &[]).unwrap_err();
        assert_eq!(e.span.start, 2);
        assert!(preprocess("#if 1\nx", None, &[]).is_err());
    }
}
