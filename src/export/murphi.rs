//! Rendering a [`Program`] as Murphi, for Rumur (or CMurphi).
//!
//! Each transition is a rule guarded by its thread's program counter, the
//! checks of every state are invariants, and the temporaries are rule-local.
//! Murphi is typed: optimist's booleans are 0 and 1, so a boolean used as a
//! number becomes `(b ? 1 : 0)` and a number used as a boolean `(n != 0)`.

use std::fmt::Write as _;

use super::ir::{Lhs, Program, St, Temp, Var, VarKind, X, is_bool};
use crate::syntax::ast::BinOp;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ty {
    Int,
    Bool,
}

pub(super) struct R<'p> {
    pub(super) p: &'p Program,
    pub(super) temps: &'p [Temp],
}

impl R<'_> {
    fn var(&self, v: usize) -> &Var {
        &self.p.vars[v]
    }

    fn natural(&self, x: &X) -> Ty {
        if is_bool(x, &self.p.vars, self.temps) {
            Ty::Bool
        } else {
            Ty::Int
        }
    }

    /// `x` rendered as a value of type `want`.
    pub(super) fn x(&self, x: &X, want: Ty) -> String {
        if let X::Int(c) = x {
            return match want {
                Ty::Bool => (if *c != 0 { "true" } else { "false" }).to_string(),
                Ty::Int if *c < 0 => format!("({c})"),
                Ty::Int => c.to_string(),
            };
        }
        let (text, ty) = self.natural_text(x);
        match (ty, want) {
            (a, b) if a == b => text,
            (Ty::Bool, Ty::Int) => format!("({text} ? 1 : 0)"),
            (Ty::Int, Ty::Bool) => format!("({text} != 0)"),
            _ => unreachable!(),
        }
    }

    fn natural_text(&self, x: &X) -> (String, Ty) {
        if let Some(text) = self.sym_text(x) {
            return text;
        }
        let ty = self.natural(x);
        let text = match x {
            X::Int(c) => c.to_string(),
            X::Var(v, _) => self.var(*v).name.clone(),
            X::Elem(v, i, _) => format!("{}[{}]", self.var(*v).name, self.x(i, Ty::Int)),
            X::Temp(t) => self.p.temp_names[*t].clone(),
            X::Not(a) => format!("!{}", self.x(a, Ty::Bool)),
            X::Neg(a) => format!("(-{})", self.x(a, Ty::Int)),
            X::Bin(op, a, b) => {
                let (sym, operands) = match op {
                    BinOp::And => ("&", Ty::Bool),
                    BinOp::Or => ("|", Ty::Bool),
                    BinOp::Eq | BinOp::Ne => {
                        let sym = if *op == BinOp::Eq { "=" } else { "!=" };
                        let boolish = |x: &X| match x {
                            X::Int(c) => (0..=1).contains(c),
                            x => self.natural(x) == Ty::Bool,
                        };
                        let both_bool = self.natural(a) == Ty::Bool && boolish(b)
                            || self.natural(b) == Ty::Bool && boolish(a);
                        (sym, if both_bool { Ty::Bool } else { Ty::Int })
                    }
                    BinOp::Lt => ("<", Ty::Int),
                    BinOp::Le => ("<=", Ty::Int),
                    BinOp::Gt => (">", Ty::Int),
                    BinOp::Ge => (">=", Ty::Int),
                    BinOp::Add => ("+", Ty::Int),
                    BinOp::Sub => ("-", Ty::Int),
                    BinOp::Mul => ("*", Ty::Int),
                    BinOp::Div => ("/", Ty::Int),
                    BinOp::Mod => ("%", Ty::Int),
                };
                format!("({} {sym} {})", self.x(a, operands), self.x(b, operands))
            }
            X::Ite(c, a, b) => format!(
                "({} ? {} : {})",
                self.x(c, Ty::Bool),
                self.x(a, ty),
                self.x(b, ty)
            ),
            X::Seq(_, v) => return self.natural_text(v),
            X::Copy(..) | X::Quant(..) => unreachable!("only in the symmetric export"),
        };
        (text, ty)
    }

    fn target_ty(&self, l: &Lhs) -> Ty {
        match l {
            Lhs::Var(v) | Lhs::Elem(v, _) if self.var(*v).kind == VarKind::Bool => Ty::Bool,
            Lhs::Temp(t) if self.temps[*t].bool => Ty::Bool,
            _ => Ty::Int,
        }
    }

    pub(super) fn stmts(&self, body: &[St], ind: &str, out: &mut String) {
        for st in body {
            match st {
                St::Set(l, x) if self.sym_set(l, x, ind, out) => {}
                St::Assert(x, msg) => {
                    let _ = writeln!(
                        out,
                        "{ind}assert {} \"{}\";",
                        self.x(x, Ty::Bool),
                        string(msg)
                    );
                }
                St::Set(l, x) => {
                    let lhs = match l {
                        Lhs::Var(v) => self.var(*v).name.clone(),
                        Lhs::Elem(v, i) => format!("{}[{}]", self.var(*v).name, self.x(i, Ty::Int)),
                        Lhs::Temp(t) => self.p.temp_names[*t].clone(),
                    };
                    let _ = writeln!(out, "{ind}{lhs} := {};", self.x(x, self.target_ty(l)));
                }
                St::If(c, a, b) => {
                    let _ = writeln!(out, "{ind}if {} then", self.x(c, Ty::Bool));
                    self.stmts(a, &format!("{ind}  "), out);
                    if !b.is_empty() {
                        let _ = writeln!(out, "{ind}else");
                        self.stmts(b, &format!("{ind}  "), out);
                    }
                    let _ = writeln!(out, "{ind}endif;");
                }
            }
        }
    }
}

/// Text that is safe inside a Murphi string.
pub(super) fn string(s: &str) -> String {
    s.replace('"', "'").replace('\n', " ")
}

/// Text that is safe in a `--` comment.
fn comment(s: &str) -> String {
    s.replace('\n', " ")
}

pub(super) fn range(lo: i64, hi: i64) -> String {
    format!("{lo}..{hi}")
}

fn ty(var: &Var) -> String {
    let scalar = match var.kind {
        VarKind::Bool => "boolean".to_string(),
        _ => range(var.lo, var.hi),
    };
    match var.len {
        Some(len) => format!("array [0..{}] of {scalar}", len - 1),
        None => scalar,
    }
}

/// The Murphi text of `p`.
pub fn render(p: &Program) -> String {
    let mut out = String::new();
    match &p.sym {
        None => {
            let _ = writeln!(
                out,
                "-- {}: exported by optimist for Rumur.\n--\n\
                 -- One optimist transition is one rule; the control points are the pc_\n\
                 -- variables, so Rumur's states are exactly optimist's. Every violation\n\
                 -- optimist reports is an assertion or an invariant here. Check with\n--\n\
                 --   {}\n--\n\
                 -- Its state count is `optimist check --reduction none`'s when the model\n\
                 -- holds; it finds an error when the model is violated.\n",
                comment(&p.name),
                super::how_to_run(super::Target::Murphi, "MODEL.m")
            );
        }
        Some(sym) => {
            let _ = writeln!(
                out,
                "-- {}: exported by optimist for Rumur, with the copies {} as a\n\
                 -- scalarset. One transition of copy 0 is one ruleset over the copies, one\n\
                 -- of another thread one rule; Rumur's states are optimist's, and a\n\
                 -- permutation of the scalarset moves them as a permutation of the copies\n\
                 -- does. Every violation optimist reports is an assertion or an invariant\n\
                 -- here. Check with\n--\n\
                 --   {}\n--\n\
                 -- Its state count is `optimist check --reduction none --symmetry on`'s\n\
                 -- (one state per orbit) when the model holds; it finds an error when the\n\
                 -- model is violated.\n",
                comment(&p.name),
                sym.threads,
                super::how_to_run_with(super::Target::Murphi, "MODEL.m", true)
            );
        }
    }
    if p.sym.is_some() {
        super::scalarset::start::declarations(p, &mut out);
        super::scalarset::start::start(p, &mut out);
    } else {
        declarations(p, &mut out);
        starts(p, &mut out);
    }
    for (k, rule) in p.rules.iter().enumerate() {
        self::rule(p, k, rule, &mut out);
    }
    if p.rules.is_empty() {
        let _ = writeln!(out, "\nrule \"no transitions\"\n  false\n==>\nbegin\nend;");
    }
    let r = R { p, temps: &[] };
    for check in &p.checks {
        let (open, cond, close) = r.quantified(&check.cond);
        let _ = writeln!(
            out,
            "\ninvariant \"{}\"\n  {open}{cond}{close};",
            string(&check.message),
        );
    }
    out
}

/// The variables, one per target variable.
fn declarations(p: &Program, out: &mut String) {
    let _ = writeln!(out, "var");
    for (v, var) in p.vars.iter().enumerate() {
        let _ = writeln!(out, "  {} : {}; -- {}", var.name, ty(var), note(p, v));
    }
}

/// What a variable's declaration says of it.
pub(super) fn note(p: &Program, v: usize) -> String {
    let var = &p.vars[v];
    comment(&match var.kind {
        VarKind::Pc => format!("{}: {}", var.source, p.points_of(v)),
        _ => var.source.clone(),
    })
}

/// The start state, or one per model of a batch.
fn starts(p: &Program, out: &mut String) {
    match p.choice {
        None => {
            let _ = writeln!(out, "\nstartstate \"initial state\"\nbegin");
            start_values(p, None, out);
            let _ = writeln!(out, "end;");
        }
        Some((v, count)) => {
            for j in 1..=count {
                let _ = writeln!(out, "\nstartstate \"model {j}\"\nbegin");
                start_values(p, Some((v, j)), out);
                let _ = writeln!(out, "end;");
            }
        }
    }
}

/// Rule `k`, in the rulesets that bind the copies it names.
fn rule(p: &Program, k: usize, rule: &super::ir::Rule, out: &mut String) {
    let r = R {
        p,
        temps: &rule.temps,
    };
    let (open, distinct, close) = r.ruleset(rule);
    let _ = writeln!(out, "\n{open}rule \"{}: {}\"", k + 1, string(&rule.title));
    let _ = writeln!(out, "  {distinct}{}\n==>", r.x(&rule.guard, Ty::Bool));
    if !rule.temps.is_empty() {
        let _ = writeln!(out, "var");
        for (t, temp) in rule.temps.iter().enumerate() {
            let ty = if temp.bool {
                "boolean".to_string()
            } else if temp.lo <= temp.hi {
                range(temp.lo, temp.hi)
            } else {
                range(0, 0)
            };
            r.temp_decl(t, &ty, out);
        }
    }
    let _ = writeln!(out, "begin");
    r.stmts(&rule.body, "  ", out);
    let _ = writeln!(out, "end;{close}");
}

/// The assignments of a start state: every variable's initial value, and
/// for a batch, `which := j`.
pub(super) fn start_values(p: &Program, start: Option<(usize, i64)>, out: &mut String) {
    for (v, var) in p.vars.iter().enumerate() {
        if let Some((which, j)) = start
            && which == v
        {
            let _ = writeln!(out, "  {} := {j};", var.name);
            continue;
        }
        let value = |c: i64| match var.kind {
            VarKind::Bool => (if c != 0 { "true" } else { "false" }).to_string(),
            _ => c.to_string(),
        };
        match var.len {
            None => {
                let _ = writeln!(out, "  {} := {};", var.name, value(var.init[0]));
            }
            Some(_) => {
                for (k, &c) in var.init.iter().enumerate() {
                    let _ = writeln!(out, "  {}[{k}] := {};", var.name, value(c));
                }
            }
        }
    }
}
