//! Rendering a [`Program`] as Promela, for SPIN.
//!
//! Each thread is one process that loops over one `d_step` per transition,
//! each guarded by the thread's program counter variable. A `d_step` is a
//! single transition of SPIN with no intermediate states, and the loop's
//! head is the process's only control location, so SPIN's states are
//! exactly optimist's. The loop head carries an `end` label, so that a
//! thread waiting there is no invalid end state by itself: the monitor
//! (see [`super`]), which knows when every thread has ended, leaves its own
//! loop in a deadlock, where asked, for a statement that never runs and
//! has no `end` label, so SPIN reports the deadlocked state as an invalid
//! end state, the question optimist asks.
//!
//! Promela cannot give the elements of an array different initial values
//! without an `init` process, whose steps would add states; such an array
//! becomes one variable per element, indexed by a chain of conditionals.

use std::fmt::Write as _;

use super::ir::{Lhs, Program, St, Var, VarKind, X};

struct R<'p> {
    p: &'p Program,
}

impl R<'_> {
    fn var(&self, v: usize) -> &Var {
        &self.p.vars[v]
    }

    /// Whether array variable `v` is written as one variable per element.
    fn split(&self, v: usize) -> bool {
        let var = self.var(v);
        var.len.is_some() && var.init.windows(2).any(|w| w[0] != w[1])
    }

    /// Whether constant index `k` is inside array `v` (one outside is
    /// checked, and fails, before the access; it is written as a computed
    /// index so that the text stays valid Promela).
    fn inside(&self, v: usize, k: i64) -> bool {
        (0..self.var(v).len.unwrap_or(1) as i64).contains(&k)
    }

    fn elem_name(&self, v: usize, k: usize) -> String {
        format!("{}_{k}", self.var(v).name)
    }

    fn x(&self, x: &X) -> String {
        match x {
            X::Int(c) if *c < 0 => format!("({c})"),
            X::Int(c) => c.to_string(),
            X::Var(v, _) => self.var(*v).name.clone(),
            X::Elem(v, i, _) => match (&**i, self.split(*v)) {
                (X::Int(k), true) if self.inside(*v, *k) => self.elem_name(*v, *k as usize),
                (_, true) => {
                    let len = self.var(*v).len.unwrap_or(1);
                    let i = self.x(i);
                    let mut out = self.elem_name(*v, len - 1);
                    for k in (0..len - 1).rev() {
                        out = format!("(({i} == {k}) -> {} : {out})", self.elem_name(*v, k));
                    }
                    out
                }
                (i, false) => format!("{}[{}]", self.var(*v).name, self.x(i)),
            },
            X::Temp(t) => self.p.temp_names[*t].clone(),
            X::Not(a) => format!("!{}", self.atom(a)),
            X::Neg(a) => format!("-{}", self.atom(a)),
            X::Bin(op, a, b) => format!("({} {} {})", self.x(a), op.symbol(), self.x(b)),
            X::Ite(c, a, b) => format!("({} -> {} : {})", self.x(c), self.x(a), self.x(b)),
            X::Seq(_, v) => self.x(v),
            X::Copy(..) | X::Quant(..) => unreachable!("the symmetric export is Murphi's"),
        }
    }

    /// `x`, parenthesised unless it is a name or a number.
    fn atom(&self, x: &X) -> String {
        let s = self.x(x);
        if s.starts_with('(') || s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            s
        } else {
            format!("({s})")
        }
    }

    fn lhs(&self, l: &Lhs, value: &str, ind: &str, out: &mut String) {
        match l {
            Lhs::Var(v) => {
                let _ = writeln!(out, "{ind}{} = {value};", self.var(*v).name);
            }
            Lhs::Temp(t) => {
                let _ = writeln!(out, "{ind}{} = {value};", self.p.temp_names[*t]);
            }
            Lhs::Elem(v, i) => match (i, self.split(*v)) {
                (X::Int(k), true) if self.inside(*v, *k) => {
                    let _ = writeln!(out, "{ind}{} = {value};", self.elem_name(*v, *k as usize));
                }
                (_, true) => {
                    let len = self.var(*v).len.unwrap_or(1);
                    let i = self.x(i);
                    let _ = writeln!(out, "{ind}if");
                    for k in 0..len {
                        let test = if k + 1 == len {
                            "else".to_string()
                        } else {
                            format!("({i} == {k})")
                        };
                        let _ =
                            writeln!(out, "{ind}:: {test} -> {} = {value}", self.elem_name(*v, k));
                    }
                    let _ = writeln!(out, "{ind}fi;");
                }
                (i, false) => {
                    let _ = writeln!(out, "{ind}{}[{}] = {value};", self.var(*v).name, self.x(i));
                }
            },
        }
    }

    /// A formula over the atoms' variables, in SPIN's syntax (`V` is
    /// release, the dual of `U`).
    fn formula(&self, f: &crate::Ltl, atoms: &[usize]) -> String {
        use crate::Ltl;
        let sub = |g: &Ltl| self.formula(g, atoms);
        match f {
            Ltl::True => "true".into(),
            Ltl::False => "false".into(),
            Ltl::Atom(a) => self.var(atoms[*a]).name.clone(),
            Ltl::Not(g) => format!("!({})", sub(g)),
            Ltl::And(g, h) => format!("({} && {})", sub(g), sub(h)),
            Ltl::Or(g, h) => format!("({} || {})", sub(g), sub(h)),
            Ltl::Until(g, h) => format!("({} U {})", sub(g), sub(h)),
            Ltl::Release(g, h) => format!("({} V {})", sub(g), sub(h)),
        }
    }

    fn stmts(&self, body: &[St], ind: &str, out: &mut String) {
        if body.is_empty() {
            let _ = writeln!(out, "{ind}skip;");
        }
        for st in body {
            match st {
                St::Assert(x, msg) => {
                    let _ = writeln!(out, "{ind}assert({}); /* {} */", self.x(x), comment(msg));
                }
                St::Set(l, x) => self.lhs(l, &self.x(x), ind, out),
                St::If(c, a, b) => {
                    let _ = writeln!(out, "{ind}if");
                    let _ = writeln!(out, "{ind}:: {} ->", self.x(c));
                    self.stmts(a, &format!("{ind}   "), out);
                    let _ = writeln!(out, "{ind}:: else ->");
                    self.stmts(b, &format!("{ind}   "), out);
                    let _ = writeln!(out, "{ind}fi;");
                }
            }
        }
    }
}

/// Text that is safe inside a `/* */` comment.
fn comment(s: &str) -> String {
    s.replace("*/", "* /").replace('\n', " ")
}

fn ty(var: &Var) -> &'static str {
    match var.kind {
        VarKind::Bool => "bool",
        _ if var.lo >= 0 && var.hi <= 255 => "byte",
        _ if var.lo >= i64::from(i16::MIN) && var.hi <= i64::from(i16::MAX) => "short",
        _ => "int",
    }
}

/// The Promela text of `p`.
pub fn render(p: &Program) -> String {
    let r = R { p };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* {}: exported by optimist for SPIN.\n\
         \n   One optimist transition is one d_step; the control points are the pc_\n   \
         variables, so SPIN's states are exactly optimist's. A deadlock is an\n   \
         invalid end state here (so pan runs without -E), and every other\n   \
         violation optimist reports an assertion. Check with\n\n     \
         {}\n\n   \
         \"states, stored\" is `optimist check --reduction none`'s count when the\n   \
         model holds; \"errors: 1\" when it is violated. */\n",
        comment(&p.name),
        super::how_to_run(super::Target::Promela, "MODEL.pml")
    );
    r.declarations(&mut out);
    r.threads(&mut out);
    r.monitor(&mut out);
    r.ltl(&mut out);
    out
}

/// One `d_step` of a `do` loop: `/* title */`, then its guarded statement.
fn d_step(out: &mut String, title: &str, step: &str) {
    let _ = writeln!(out, "  :: d_step {{ /* {title} */");
    let _ = writeln!(out, "       {step}");
    let _ = writeln!(out, "     }}");
}

impl R<'_> {
    /// The global variables (split arrays one per element) and the
    /// scratch variables.
    fn declarations(&self, out: &mut String) {
        let p = self.p;
        for (v, var) in p.vars.iter().enumerate() {
            let note = match var.kind {
                VarKind::Pc => format!("{}: {}", var.source, p.points_of(v)),
                _ => format!("{}: {}..{}", var.source, var.lo, var.hi),
            };
            if var.len.is_some() && self.split(v) {
                for (k, init) in var.init.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "{} {} = {init}; /* {}[{k}]: {}..{} */",
                        ty(var),
                        self.elem_name(v, k),
                        comment(&var.source),
                        var.lo,
                        var.hi
                    );
                }
                continue;
            }
            let dims = var.len.map_or(String::new(), |len| format!("[{len}]"));
            let _ = writeln!(
                out,
                "{} {}{dims} = {}; /* {} */",
                ty(var),
                var.name,
                var.init[0],
                comment(&note)
            );
        }
        for name in &p.temp_names {
            let _ = writeln!(
                out,
                "hidden int {name}; /* scratch, not part of the state */"
            );
        }
    }

    /// One process per thread with rules, a `d_step` per rule.
    fn threads(&self, out: &mut String) {
        let p = self.p;
        for (t, th) in p.threads.iter().enumerate() {
            let rules: Vec<_> = p.rules.iter().filter(|rule| rule.thread == t).collect();
            if rules.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n/* thread {} */", comment(&th.name));
            let _ = writeln!(out, "active proctype {}() {{\nend:\n  do", th.ident);
            for rule in rules {
                let _ = writeln!(out, "  :: d_step {{ /* {} */", comment(&rule.title));
                let _ = writeln!(out, "       {} ->", self.x(&rule.guard));
                self.stmts(&rule.body, "       ", out);
                let _ = writeln!(out, "     }}");
            }
            let _ = writeln!(out, "  od\n}}");
        }
    }

    /// The monitor process: the choice of model, a never enabled read of
    /// every variable, the idle step of a run that ends (with ltl), and
    /// an assertion per check.
    fn monitor(&self, out: &mut String) {
        let p = self.p;
        // SPIN leaves a variable that no statement reads out of its states
        // (unless `-o2`), which would merge states optimist tells apart: one
        // never enabled step of the monitor reads every variable.
        let mut reads = Vec::new();
        for (v, var) in p.vars.iter().enumerate() {
            match var.len {
                _ if var.kind == VarKind::Pc => {}
                Some(len) if self.split(v) => {
                    reads.extend((0..len).map(|k| self.elem_name(v, k)));
                }
                Some(_) => reads.push(format!("{}[0]", var.name)),
                None => reads.push(var.name.clone()),
            }
        }
        if p.checks.is_empty() && reads.is_empty() && p.choice.is_none() {
            return;
        }
        let _ = writeln!(
            out,
            "\n/* Checked in every state: its steps are enabled only in a state that\n   \
             breaks a check, so they add no states. The first, never enabled, reads\n   \
             every variable, so that SPIN keeps them all in its states even when\n   \
             the model never reads one. */"
        );
        let _ = writeln!(out, "active proctype {}() {{\nend:\n  do", p.monitor);
        if let Some((v, count)) = p.choice {
            let which = &p.vars[v].name;
            for j in 1..=count {
                let _ = writeln!(
                    out,
                    "  :: d_step {{ {which} == 0 -> {which} = {j} }} /* run model {j} */"
                );
            }
        }
        if !reads.is_empty() {
            let never: Vec<String> = reads.iter().map(|v| format!("{v} != {v}")).collect();
            let step = format!("({}) -> skip", never.join(" ||\n        "));
            d_step(out, "read every variable", &step);
        }
        if !p.ltl.is_empty() {
            // A run that ends (every thread ended, or a deadlock) repeats its
            // last state for ever in optimist's semantics. SPIN extends such
            // a run by stuttering too, but under weak fairness (`-f`) with
            // several processes it does not accept the stutter as a cycle;
            // an explicit idle step there, enabled only where no thread can
            // move, gives SPIN the same runs, and adds no state.
            let moves: Vec<String> = p.rules.iter().map(|rule| self.x(&rule.guard)).collect();
            let step = format!("!({}) -> skip", moves.join(" ||\n         "));
            d_step(out, "a run that ends: idle for ever", &step);
        }
        let mut stuck = Vec::new();
        for check in &p.checks {
            let c = self.x(&check.cond);
            if check.deadlock {
                // SPIN's own question: the monitor leaves its loop for a
                // statement that never runs, outside any `end` label, so
                // the deadlocked state is an invalid end state for SPIN.
                let _ = writeln!(
                    out,
                    "  :: !{} -> break /* {} */",
                    wrap(&c),
                    comment(&check.message)
                );
                stuck.push(comment(&check.message));
                continue;
            }
            let step = format!("!{} -> assert({c})", wrap(&c));
            d_step(out, &comment(&check.message), &step);
        }
        let _ = writeln!(out, "  od;");
        if !stuck.is_empty() {
            let _ = writeln!(
                out,
                "  /* {}: an invalid end state */\n  false",
                stuck.join("; ")
            );
        }
        let _ = writeln!(out, "}}");
    }

    /// The model's ltl properties, each over the atoms' variables.
    fn ltl(&self, out: &mut String) {
        let p = self.p;
        if p.ltl.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\n/* The model's ltl properties, over one variable per atom that every\n   \
             step keeps equal to the atom's value. Check one with\n\n     \
             spin -a MODEL.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -a -N NAME\n\n   \
             and add -f to ./pan for weak fairness (optimist's default); SPIN has\n   \
             no strong fairness. \"errors: 0\" is optimist's holds. */"
        );
        for block in &p.ltl {
            let mut formula = self.formula(&block.formula, &block.atoms);
            if !block.oks.is_empty() {
                let oks: Vec<&str> = block
                    .oks
                    .iter()
                    .map(|&v| self.var(v).name.as_str())
                    .collect();
                formula = format!("([] ({}) && {formula})", oks.join(" && "));
            }
            let _ = writeln!(
                out,
                "ltl {} {{ {formula} }} /* {} */",
                block.name,
                comment(&block.text)
            );
        }
    }
}

fn wrap(s: &str) -> String {
    if s.starts_with('(') {
        s.to_string()
    } else {
        format!("({s})")
    }
}
