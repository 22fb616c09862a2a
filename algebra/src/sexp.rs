//! A minimal s-expression type for the re-checker, independent of egg:
//! parsing, printing, first-order matching, substitution and
//! alpha-equivalence.
//!
//! Conventions (as in the kernel's e-graph terms): `?x` is a pattern
//! variable; a leaf starting with `_` is a thread index (`_i`, bound `_#0`);
//! `(sum _k body)` and `(prod _k body)` bind `_k`.

use std::collections::BTreeMap;
use std::fmt;

/// An s-expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Sexp {
    Atom(String),
    List(Vec<Sexp>),
}

impl fmt::Display for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom(a) => f.write_str(a),
            Sexp::List(items) => {
                f.write_str("(")?;
                for (k, i) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{i}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// S-expressions nest at most this deep (the kernel's terms nest far less).
const MAX_DEPTH: usize = 1024;

/// Parses one s-expression.
pub(crate) fn parse(s: &str) -> Result<Sexp, String> {
    let mut toks: Vec<&str> = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c == '(' || c == ')' || c.is_whitespace() {
            if let Some(st) = start.take() {
                toks.push(&s[st..i]);
            }
            if c != ' ' && !c.is_whitespace() {
                toks.push(&s[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        toks.push(&s[st..]);
    }
    // Bound the nesting before recursing, so no input can exhaust the stack.
    let mut depth = 0usize;
    for t in &toks {
        match *t {
            "(" => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("nested deeper than {MAX_DEPTH}"));
                }
            }
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut pos = 0;
    let e = parse_at(&toks, &mut pos)?;
    if pos != toks.len() {
        return Err(format!("trailing input after `{e}`"));
    }
    Ok(e)
}

fn parse_at(toks: &[&str], pos: &mut usize) -> Result<Sexp, String> {
    let Some(t) = toks.get(*pos) else {
        return Err("unexpected end of input".into());
    };
    *pos += 1;
    match *t {
        "(" => {
            let mut items = Vec::new();
            loop {
                match toks.get(*pos) {
                    None => return Err("unclosed `(`".into()),
                    Some(&")") => {
                        *pos += 1;
                        if items.is_empty() {
                            return Err("empty list".into());
                        }
                        return Ok(Sexp::List(items));
                    }
                    Some(_) => items.push(parse_at(toks, pos)?),
                }
            }
        }
        ")" => Err("unexpected `)`".into()),
        a => Ok(Sexp::Atom(a.to_string())),
    }
}

impl Sexp {
    pub fn atom(s: &str) -> Sexp {
        Sexp::Atom(s.to_string())
    }

    /// The operator of a list, or the atom itself.
    pub fn head(&self) -> &str {
        match self {
            Sexp::Atom(a) => a,
            Sexp::List(items) => match &items[0] {
                Sexp::Atom(a) => a,
                Sexp::List(_) => "",
            },
        }
    }

    /// Arguments of a list.
    pub fn args(&self) -> &[Sexp] {
        match self {
            Sexp::Atom(_) => &[],
            Sexp::List(items) => &items[1..],
        }
    }

    /// Binary node.
    pub fn bin(op: &str, a: Sexp, b: Sexp) -> Sexp {
        Sexp::List(vec![Sexp::atom(op), a, b])
    }

    /// Matches a pattern (`?x` variables) against a term.
    pub fn matches(&self, term: &Sexp, subst: &mut BTreeMap<String, Sexp>) -> bool {
        match self {
            Sexp::Atom(v) if v.starts_with('?') => match subst.get(v) {
                Some(bound) => bound == term,
                None => {
                    subst.insert(v.clone(), term.clone());
                    true
                }
            },
            Sexp::Atom(a) => matches!(term, Sexp::Atom(b) if a == b),
            Sexp::List(ps) => match term {
                Sexp::List(ts) if ts.len() == ps.len() => {
                    ps.iter().zip(ts).all(|(p, t)| p.matches(t, subst))
                }
                _ => false,
            },
        }
    }

    /// Replaces variables. `(~ (~ a))` becomes `a`: the complement of a
    /// complement is the predicate itself.
    pub fn subst(&self, subst: &BTreeMap<String, Sexp>) -> Sexp {
        match self {
            Sexp::Atom(v) => subst.get(v).cloned().unwrap_or_else(|| self.clone()),
            Sexp::List(items) => {
                let new: Vec<Sexp> = items.iter().map(|i| i.subst(subst)).collect();
                if new.len() == 2 && new[0] == Sexp::atom("~") {
                    if let Sexp::List(inner) = &new[1] {
                        if inner.len() == 2 && inner[0] == Sexp::atom("~") {
                            return inner[1].clone();
                        }
                    }
                }
                Sexp::List(new)
            }
        }
    }

    /// Replaces free index leaves (`_i` -> `_j`), leaving bound ones alone.
    pub fn rename_indices(&self, map: &BTreeMap<String, String>) -> Sexp {
        match self {
            Sexp::Atom(a) => match map.get(a) {
                Some(b) => Sexp::Atom(b.clone()),
                None => self.clone(),
            },
            Sexp::List(items)
                if (self.head() == "sum" || self.head() == "prod") && items.len() == 3 =>
            {
                let bound = items[1].head().to_string();
                let mut inner = map.clone();
                inner.remove(&bound);
                Sexp::List(vec![
                    items[0].clone(),
                    items[1].clone(),
                    items[2].rename_indices(&inner),
                ])
            }
            Sexp::List(items) => Sexp::List(items.iter().map(|i| i.rename_indices(map)).collect()),
        }
    }

    /// Equality up to renaming of bound indices.
    pub fn alpha_eq(&self, other: &Sexp) -> bool {
        fn go(a: &Sexp, b: &Sexp, env: &mut Vec<(String, String)>) -> bool {
            match (a, b) {
                (Sexp::Atom(x), Sexp::Atom(y)) => {
                    for (l, r) in env.iter().rev() {
                        if l == x || r == y {
                            return l == x && r == y;
                        }
                    }
                    x == y
                }
                (Sexp::List(xs), Sexp::List(ys)) if xs.len() == ys.len() => {
                    let binder = (a.head() == "sum" || a.head() == "prod") && xs.len() == 3;
                    if binder && xs[0] == ys[0] {
                        env.push((xs[1].head().to_string(), ys[1].head().to_string()));
                        let ok = go(&xs[2], &ys[2], env);
                        env.pop();
                        ok
                    } else {
                        xs.iter().zip(ys).all(|(x, y)| go(x, y, env))
                    }
                }
                _ => false,
            }
        }
        go(self, other, &mut Vec::new())
    }

    /// Summands of nested `+`, or factors of nested `;`.
    pub fn flatten(&self, op: &str) -> Vec<Sexp> {
        let mut out = Vec::new();
        fn go(t: &Sexp, op: &str, out: &mut Vec<Sexp>) {
            if t.head() == op && t.args().len() == 2 {
                go(&t.args()[0], op, out);
                go(&t.args()[1], op, out);
            } else {
                out.push(t.clone());
            }
        }
        go(self, op, &mut out);
        out
    }

    /// Re-associates `+` and `;` to the right.
    pub fn assoc_normal(&self) -> Sexp {
        match self {
            Sexp::Atom(_) => self.clone(),
            Sexp::List(items) => {
                let op = self.head();
                if (op == "+" || op == ";") && items.len() == 3 {
                    let parts: Vec<Sexp> =
                        self.flatten(op).iter().map(|p| p.assoc_normal()).collect();
                    right_nest(op, parts)
                } else {
                    Sexp::List(items.iter().map(|i| i.assoc_normal()).collect())
                }
            }
        }
    }

    /// Free index leaves.
    pub fn free_indices(&self) -> Vec<String> {
        let mut out = Vec::new();
        fn go(t: &Sexp, bound: &mut Vec<String>, out: &mut Vec<String>) {
            match t {
                Sexp::Atom(a) => {
                    if a.starts_with('_') && !bound.contains(a) && !out.contains(a) {
                        out.push(a.clone());
                    }
                }
                Sexp::List(items) => {
                    if (t.head() == "sum" || t.head() == "prod") && items.len() == 3 {
                        bound.push(items[1].head().to_string());
                        go(&items[2], bound, out);
                        bound.pop();
                    } else {
                        for i in items {
                            go(i, bound, out);
                        }
                    }
                }
            }
        }
        go(self, &mut Vec::new(), &mut out);
        out
    }
}

/// `a op (b op c)`; `1` for an empty product and `0` for an empty sum.
pub(crate) fn right_nest(op: &str, parts: Vec<Sexp>) -> Sexp {
    let mut it = parts.into_iter().rev();
    match it.next() {
        None => Sexp::atom(if op == ";" { "1" } else { "0" }),
        Some(last) => it.fold(last, |acc, p| Sexp::bin(op, p, acc)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_print_round_trip() {
        let s = "(+ (; a (u _i)) (sum _#0 (M _#0)))";
        assert_eq!(parse(s).unwrap().to_string(), s);
        assert!(parse("(+ a").is_err());
        assert!(parse("a b").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let deep = format!("{}a{}", "(f ".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).unwrap_err().contains("deeper"));
    }

    #[test]
    fn matching_and_substitution() {
        let p = parse("(+ ?x (* ?x))").unwrap();
        let t = parse("(+ (u _i) (* (u _i)))").unwrap();
        let mut s = BTreeMap::new();
        assert!(p.matches(&t, &mut s));
        assert_eq!(s["?x"].to_string(), "(u _i)");
        let neg = parse("(~ ?a)").unwrap();
        let m = [("?a".to_string(), parse("(~ q)").unwrap())]
            .into_iter()
            .collect();
        assert_eq!(neg.subst(&m).to_string(), "q");
    }

    #[test]
    fn alpha_equivalence_respects_binding() {
        let a = parse("(sum _#0 (; (M _#0) (u _i)))").unwrap();
        let b = parse("(sum _#1 (; (M _#1) (u _i)))").unwrap();
        let c = parse("(sum _#1 (; (M _#1) (u _#1)))").unwrap();
        assert!(a.alpha_eq(&b));
        assert!(!a.alpha_eq(&c));
    }
}
