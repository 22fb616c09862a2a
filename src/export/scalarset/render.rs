//! The symmetric translation's expressions and statements in Murphi: the
//! pairs that hold identities (compared, assigned, used as indices), the
//! elements of variables indexed by the copies, the rulesets that bind the
//! copies a rule names, and the checks quantified over them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{SymInfo, bound_in, ids_of};
use crate::export::ir::{Lhs, St, VarKind, X};
use crate::export::murphi::{R, Ty};
use crate::syntax::ast::BinOp;

/// A value among identities `o..o + n`, as Murphi holds it.
enum Leaf {
    /// A value that is no copy: a constant, or a plain read.
    Num(String),
    /// The copy a copy variable stands for.
    Copy(String),
    /// A pair: its scalarset part (read only where it is a copy) and its
    /// plain part.
    Pair { id: String, val: String },
}

/// `a = b` between two values of identities `o..o + n`.
fn eq_leaf(a: &Leaf, b: &Leaf, o: i64) -> String {
    match (a, b) {
        (Leaf::Num(x), Leaf::Num(y)) => format!("({x} = {y})"),
        (Leaf::Num(_), Leaf::Copy(_)) | (Leaf::Copy(_), Leaf::Num(_)) => "false".into(),
        (Leaf::Num(x), Leaf::Pair { val, .. }) | (Leaf::Pair { val, .. }, Leaf::Num(x)) => {
            format!("({val} = {x})")
        }
        (Leaf::Copy(x), Leaf::Copy(y)) => format!("({x} = {y})"),
        (Leaf::Copy(c), Leaf::Pair { id, val }) | (Leaf::Pair { id, val }, Leaf::Copy(c)) => {
            format!("(({val} = {o}) & ({id} = {c}))")
        }
        (Leaf::Pair { id: i, val: v }, Leaf::Pair { id: j, val: w }) => {
            format!("(({v} = {w}) & (({v} != {o}) | ({i} = {j})))")
        }
    }
}

impl R<'_> {
    fn info(&self) -> &SymInfo {
        self.p.sym.as_ref().expect("the symmetric export")
    }

    fn ids(&self, x: &X) -> Option<i64> {
        ids_of(x, &self.p.sym.as_ref()?.vars, self.temps)
    }

    /// The text of `x` where the symmetric layout decides it: in a plain
    /// context, a pair is its plain part.
    pub(in crate::export) fn sym_text(&self, x: &X) -> Option<(String, Ty)> {
        let info = self.p.sym.as_ref()?;
        Some(match x {
            X::Copy(_, o) => (o.to_string(), Ty::Int),
            X::Quant(forall, c, body) => {
                let q = if *forall { "forall" } else { "exists" };
                let body = self.x(body, Ty::Bool);
                let (c, t) = (&info.copies[*c], &info.type_name);
                (format!("({q} {c} : {t} do {body} end)"), Ty::Bool)
            }
            X::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
                let o = self.ids(a).or_else(|| self.ids(b))?;
                let eq = self.cases(a, &mut |la| self.cases(b, &mut |lb| eq_leaf(&la, &lb, o)));
                let text = if *op == BinOp::Eq {
                    eq
                } else {
                    format!("!{eq}")
                };
                (text, Ty::Bool)
            }
            X::Var(v, _) if info.vars[*v].ids.is_some() => (info.vars[*v].val.clone(), Ty::Int),
            X::Elem(v, i, _) if info.vars[*v].ids.is_some() => (self.elem(*v, i, true), Ty::Int),
            X::Elem(v, i, _) if info.vars[*v].by_copy.is_some() => {
                let ty = match self.p.vars[*v].kind {
                    VarKind::Bool => Ty::Bool,
                    _ => Ty::Int,
                };
                (self.elem(*v, i, false), ty)
            }
            X::Temp(t) if self.temps[*t].ids.is_some() => (info.temp_vals[*t].clone(), Ty::Int),
            _ => return None,
        })
    }

    /// `f` of each value `x` may take, chosen by its conditionals.
    fn cases(&self, x: &X, f: &mut dyn FnMut(Leaf) -> String) -> String {
        match x {
            X::Ite(c, a, b) => {
                let c = self.x(c, Ty::Bool);
                let a = self.cases(a, f);
                let b = self.cases(b, f);
                format!("({c} ? {a} : {b})")
            }
            X::Seq(_, v) => self.cases(v, f),
            x => f(self.leaf(x)),
        }
    }

    fn leaf(&self, x: &X) -> Leaf {
        let info = self.info();
        match x {
            X::Copy(c, _) => Leaf::Copy(info.copies[*c].clone()),
            X::Var(v, _) if info.vars[*v].ids.is_some() => Leaf::Pair {
                id: self.p.vars[*v].name.clone(),
                val: info.vars[*v].val.clone(),
            },
            X::Elem(v, i, _) if self.out_of_bounds(*v, i) => Leaf::Num(self.dummy(*v)),
            X::Elem(v, i, _) if info.vars[*v].ids.is_some() => Leaf::Pair {
                id: self.elem(*v, i, false),
                val: self.elem(*v, i, true),
            },
            X::Temp(t) if self.temps[*t].ids.is_some() => Leaf::Pair {
                id: self.p.temp_names[*t].clone(),
                val: info.temp_vals[*t].clone(),
            },
            x => Leaf::Num(self.x(x, Ty::Int)),
        }
    }

    /// Element `i` of `v` (its plain part with `val`): by copy, or one of
    /// the elements outside the copies, chosen by the index's value.
    fn elem(&self, v: usize, i: &X, val: bool) -> String {
        let sv = &self.info().vars[v];
        let name = if val { &sv.val } else { &self.p.vars[v].name };
        let rest = |r: &(i64, String, String)| if val { r.2.clone() } else { r.1.clone() };
        let Some(o) = sv.by_copy else {
            return format!("{name}[{}]", self.x(i, Ty::Int));
        };
        let others = |key: &str| {
            let mut it = sv.rest.iter().rev();
            let last = it.next().map(rest).unwrap_or_default();
            it.fold(last, |acc, r| {
                format!("({key} = {} ? {} : {acc})", r.0, rest(r))
            })
        };
        match i {
            // Out of bounds: the rule's range check fails first, and this
            // is never evaluated; any value of the element's type will do.
            X::Int(k) => match sv.rest.iter().find(|r| r.0 == *k) {
                Some(r) => rest(r),
                None => self.dummy(v),
            },
            i => self.cases(i, &mut |leaf| match leaf {
                Leaf::Copy(c) => format!("{name}[{c}]"),
                Leaf::Pair { id, .. } if sv.rest.is_empty() => format!("{name}[{id}]"),
                Leaf::Pair { id, val } => {
                    format!("({val} = {o} ? {name}[{id}] : {})", others(&val))
                }
                Leaf::Num(key) => others(&key),
            }),
        }
    }

    /// Whether `i` is a constant out of the bounds of `v`, indexed by the
    /// copies.
    fn out_of_bounds(&self, v: usize, i: &X) -> bool {
        let sv = &self.info().vars[v];
        let X::Int(k) = i else {
            return false;
        };
        sv.by_copy.is_some() && !sv.rest.iter().any(|r| r.0 == *k)
    }

    /// A value of `v`'s plain type, for an element that is never read.
    fn dummy(&self, v: usize) -> String {
        let var = &self.p.vars[v];
        match var.kind {
            VarKind::Bool => "false".into(),
            _ => self.x(&X::Int(var.lo), Ty::Int),
        }
    }

    /// Where a write to `l` goes: `(condition, place, plain part)`, tried
    /// in order (the last without condition); none for a constant index
    /// out of bounds, whose range check fails first.
    fn targets(&self, l: &Lhs) -> Vec<(Option<String>, String, String)> {
        let info = self.info();
        let (v, i) = match l {
            Lhs::Temp(t) => {
                let name = self.p.temp_names[*t].clone();
                return vec![(None, name, info.temp_vals[*t].clone())];
            }
            Lhs::Var(v) => {
                let name = self.p.vars[*v].name.clone();
                return vec![(None, name, info.vars[*v].val.clone())];
            }
            Lhs::Elem(v, i) => (*v, i),
        };
        let sv = &info.vars[v];
        let mut out = Vec::new();
        // The key the elements outside the copies are chosen by.
        let key = match (sv.by_copy, self.leaf(i)) {
            (Some(o), Leaf::Pair { id, val }) => {
                let name = &self.p.vars[v].name;
                let place = (format!("{name}[{id}]"), format!("{}[{id}]", sv.val));
                out.push((Some(format!("{val} = {o}")), place.0, place.1));
                val
            }
            (Some(_), Leaf::Num(key)) if !matches!(i, X::Int(_)) => key,
            _ if self.out_of_bounds(v, i) => return Vec::new(),
            _ => return vec![(None, self.elem(v, i, false), self.elem(v, i, true))],
        };
        for r in &sv.rest {
            out.push((Some(format!("{key} = {}", r.0)), r.1.clone(), r.2.clone()));
        }
        if let Some(last) = out.last_mut() {
            last.0 = None;
        }
        out
    }

    /// Writes `x` to `l` where the symmetric layout decides how; false
    /// where the plain assignment does.
    pub(in crate::export) fn sym_set(&self, l: &Lhs, x: &X, ind: &str, out: &mut String) -> bool {
        let Some(info) = self.p.sym.as_ref() else {
            return false;
        };
        let (ids, by_copy) = match l {
            Lhs::Var(v) => (info.vars[*v].ids, false),
            Lhs::Elem(v, _) => (info.vars[*v].ids, info.vars[*v].by_copy.is_some()),
            Lhs::Temp(t) => (self.temps[*t].ids, false),
        };
        if ids.is_none() && !by_copy {
            return false;
        }
        let targets = self.targets(l);
        if targets.is_empty() {
            let _ = writeln!(out, "{ind}-- index out of bounds: checked above");
            return true;
        }
        let deep = format!("{ind}  ");
        let single = targets.len() == 1;
        for (k, (cond, place, val)) in targets.iter().enumerate() {
            let inner = if single { ind } else { &deep };
            match (k, cond) {
                (_, _) if single => {}
                (0, Some(c)) => {
                    let _ = writeln!(out, "{ind}if {c} then");
                }
                (_, Some(c)) => {
                    let _ = writeln!(out, "{ind}elsif {c} then");
                }
                (_, None) => {
                    let _ = writeln!(out, "{ind}else");
                }
            }
            match ids {
                Some(o) => self.set_pair(place, val, x, o, inner, out),
                None => {
                    let ty = match self.p.vars[self.var_of(l)].kind {
                        VarKind::Bool => Ty::Bool,
                        _ => Ty::Int,
                    };
                    let _ = writeln!(out, "{inner}{place} := {};", self.x(x, ty));
                }
            }
        }
        if !single {
            let _ = writeln!(out, "{ind}endif;");
        }
        true
    }

    fn var_of(&self, l: &Lhs) -> usize {
        match l {
            Lhs::Var(v) | Lhs::Elem(v, _) => *v,
            Lhs::Temp(_) => unreachable!("a temporary of identities is a pair"),
        }
    }

    /// `place, val := x`, a value of identities `o..o + n`: the plain part
    /// first, then the scalarset part, or undefined where it is no copy.
    fn set_pair(&self, place: &str, val: &str, x: &X, o: i64, ind: &str, out: &mut String) {
        match x {
            X::Ite(c, a, b) => {
                let _ = writeln!(out, "{ind}if {} then", self.x(c, Ty::Bool));
                self.set_pair(place, val, a, o, &format!("{ind}  "), out);
                let _ = writeln!(out, "{ind}else");
                self.set_pair(place, val, b, o, &format!("{ind}  "), out);
                let _ = writeln!(out, "{ind}endif;");
            }
            X::Seq(_, v) => self.set_pair(place, val, v, o, ind, out),
            x => match self.leaf(x) {
                Leaf::Num(v) => {
                    let _ = writeln!(out, "{ind}undefine {place};\n{ind}{val} := {v};");
                }
                Leaf::Copy(c) => {
                    let _ = writeln!(out, "{ind}{place} := {c};\n{ind}{val} := {o};");
                }
                Leaf::Pair { id, val: w } => {
                    let _ = writeln!(
                        out,
                        "{ind}{val} := {w};\n{ind}if {val} = {o} then {place} := {id}; else undefine {place}; endif;"
                    );
                }
            },
        }
    }

    /// The declaration of temporary `t`, of type `ty` (a pair where it
    /// holds identities).
    pub(in crate::export) fn temp_decl(&self, t: usize, ty: &str, out: &mut String) {
        let name = &self.p.temp_names[t];
        match (self.p.sym.as_ref(), self.temps[t].ids) {
            (Some(info), Some(_)) => {
                let _ = writeln!(out, "  {name} : {};", info.type_name);
                let _ = writeln!(out, "  {} : {ty};", info.temp_vals[t]);
            }
            _ => {
                let _ = writeln!(out, "  {name} : {ty};");
            }
        }
    }

    /// The copy variables that stand for copies and that `xs` read.
    fn bound(&self, xs: &[&X]) -> Vec<usize> {
        let Some(info) = self.p.sym.as_ref() else {
            return Vec::new();
        };
        let mut used = BTreeSet::new();
        for x in xs {
            bound_in(x, info.n, &mut used);
        }
        used.into_iter().collect()
    }

    /// `(a != b) & ...` for the copy variables `used`, as a prefix.
    pub(super) fn distinct(&self, used: &[usize]) -> String {
        let c = &self.info().copies;
        let mut out = String::new();
        for (k, &a) in used.iter().enumerate() {
            for &b in &used[k + 1..] {
                let _ = write!(out, "({} != {}) & ", c[a], c[b]);
            }
        }
        out
    }

    /// The ruleset around a rule that names copies: its opening, the
    /// distinctness of the copies it binds (a prefix of the guard), and its
    /// closing.
    pub(in crate::export) fn ruleset(
        &self,
        rule: &crate::export::ir::Rule,
    ) -> (String, String, String) {
        let mut xs = vec![&rule.guard];
        stmt_exprs(&rule.body, &mut xs);
        let used = self.bound(&xs);
        if used.is_empty() {
            return Default::default();
        }
        let info = self.info();
        let params: Vec<String> = (used.iter())
            .map(|&c| format!("{} : {}", info.copies[c], info.type_name))
            .collect();
        (
            format!("ruleset {} do\n", params.join("; ")),
            self.distinct(&used),
            "\nend;".into(),
        )
    }

    /// A state check that names copies, for every binding of them (it is
    /// the same for each): its opening, its condition and its closing.
    pub(in crate::export) fn quantified(&self, cond: &X) -> (String, String, String) {
        let used = self.bound(&[cond]);
        let text = self.x(cond, Ty::Bool);
        if used.is_empty() {
            return (String::new(), text, String::new());
        }
        let info = self.info();
        let mut open = String::new();
        for &c in &used {
            let _ = write!(open, "forall {} : {} do ", info.copies[c], info.type_name);
        }
        let c = &info.copies;
        let mut cond = String::new();
        for (k, &a) in used.iter().enumerate() {
            for &b in &used[k + 1..] {
                let _ = write!(cond, "({} = {}) | ", c[a], c[b]);
            }
        }
        cond += &text;
        (open, cond, " end".repeat(used.len()))
    }
}

/// Every expression of the statements, their targets' indices included.
fn stmt_exprs<'x>(body: &'x [St], out: &mut Vec<&'x X>) {
    for st in body {
        match st {
            St::Assert(x, _) => out.push(x),
            St::Set(l, x) => {
                if let Lhs::Elem(_, i) = l {
                    out.push(i);
                }
                out.push(x);
            }
            St::If(c, a, b) => {
                out.push(c);
                stmt_exprs(a, out);
                stmt_exprs(b, out);
            }
        }
    }
}
