//! The deadlock check over the scalarset, and the check that every rule
//! and state check is expressible over the pairs that hold identities:
//! what the renderer writes is then exactly what the integers say.

use std::collections::BTreeSet;

use super::{bound_in, refuse, rename};
use crate::export::Refusal;
use crate::export::ir::{Builder, Check, Lhs, Rule, St, Temp, X, bin};
use crate::syntax::ast::BinOp;

impl Builder<'_> {
    /// No deadlock: some rule is enabled for some binding of its copy
    /// variables, or every thread has ended (every copy: `forall` over
    /// the scalarset).
    pub(in crate::export) fn no_deadlock_copies(&self, rules: &[Rule]) -> Check {
        let ctx = self.sym.as_ref().expect("symmetric");
        let (first, n) = (ctx.sym.first, ctx.n());
        let ended = |t: usize, pc: X| {
            let th = &self.model.threads[t];
            (0..=th.end())
                .filter(|&k| th.valid_end(k))
                .map(|k| bin(BinOp::Eq, pc.clone(), X::Int(k)))
                .reduce(|a, b| bin(BinOp::Or, a, b))
                .expect("the end")
        };
        let d = ctx.spare_var(0);
        let every_copy = ended(
            first,
            X::Elem(
                self.pc_var[first],
                Box::new(X::Copy(d, first as i64)),
                false,
            ),
        );
        let ended = (0..self.model.threads.len())
            .filter(|t| !(first + 1..first + n).contains(t))
            .map(|t| match t == first {
                true => X::Quant(true, d, Box::new(every_copy.clone())),
                false => ended(t, self.read_slot(t as u32, false)),
            })
            .reduce(|a, b| bin(BinOp::And, a, b))
            .unwrap_or(X::Int(1));
        let guards = (rules.iter()).map(|r| match r.thread == first {
            true => self.for_some_copies(&r.guard),
            false => r.guard.clone(),
        });
        crate::export::ir::deadlock_check(guards, ended)
    }

    /// `exists` distinct copies for the copy variables `x` reads.
    fn for_some_copies(&self, x: &X) -> X {
        let ctx = self.sym.as_ref().expect("symmetric");
        let n = ctx.n();
        let mut used = BTreeSet::new();
        bound_in(x, n, &mut used);
        let spare = |c: usize| if c < n { ctx.spare_var(c) } else { c };
        let mut body = rename(x, &spare);
        let o = ctx.sym.first as i64;
        for (k, &a) in used.iter().enumerate() {
            for &b in used.iter().skip(k + 1) {
                let ne = bin(BinOp::Ne, X::Copy(spare(a), o), X::Copy(spare(b), o));
                body = bin(BinOp::And, ne, body);
            }
        }
        for &c in used.iter().rev() {
            body = X::Quant(false, spare(c), Box::new(body));
        }
        body
    }

    /// Refuses a rule that the pairs cannot express.
    pub(in crate::export) fn validate_rule(&self, rule: &Rule) -> Result<(), Refusal> {
        self.validate(&rule.guard, &rule.temps, &rule.title)?;
        self.validate_stmts(&rule.body, &rule.temps, &rule.title)
    }

    fn validate_stmts(&self, body: &[St], temps: &[Temp], what: &str) -> Result<(), Refusal> {
        for st in body {
            match st {
                St::Assert(x, _) => self.validate(x, temps, what)?,
                St::Set(lhs, x) => {
                    self.validate(x, temps, what)?;
                    let target = match lhs {
                        Lhs::Var(v) => X::Var(*v, false),
                        Lhs::Elem(v, i) => X::Elem(*v, Box::new(i.clone()), false),
                        Lhs::Temp(t) => X::Temp(*t),
                    };
                    self.validate(&target, temps, what)?;
                    if let Some(o) = self.ids_of(&target, temps) {
                        self.side(x, o, temps, what)?;
                    }
                }
                St::If(c, a, b) => {
                    self.validate(c, temps, what)?;
                    self.validate_stmts(a, temps, what)?;
                    self.validate_stmts(b, temps, what)?;
                }
            }
        }
        Ok(())
    }

    /// Refuses `x` where it does with identities what the pairs cannot:
    /// arithmetic, an order that tells copies apart, a copy by number.
    pub(in crate::export) fn validate(
        &self,
        x: &X,
        temps: &[Temp],
        what: &str,
    ) -> Result<(), Refusal> {
        let ids = |y: &X| self.ids_of(y, temps);
        let no = |why: &str| Err(refuse(format!("{what}: {why}")));
        match x {
            X::Bin(op, a, b) => {
                if let Some(o) = ids(a).or_else(|| ids(b)) {
                    match op {
                        BinOp::Eq | BinOp::Ne => {
                            self.side(a, o, temps, what)?;
                            self.side(b, o, temps, what)?;
                        }
                        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                            if !self.same_for_copies(*op, a, b, o) {
                                return no("identities compared by order");
                            }
                        }
                        _ => return no("arithmetic on identities"),
                    }
                }
                self.validate(a, temps, what)?;
                self.validate(b, temps, what)
            }
            X::Not(a) | X::Neg(a) if ids(a).is_some() => no("arithmetic on identities"),
            X::Elem(v, i, _) => {
                self.index(*v, i, temps, what)?;
                self.validate(i, temps, what)
            }
            x => x
                .children()
                .into_iter()
                .try_for_each(|c| self.validate(c, temps, what)),
        }
    }

    /// Whether `a op b`, one side identities `o..o + n` and the other a
    /// constant, is the same for every copy (a range check).
    fn same_for_copies(&self, op: BinOp, a: &X, b: &X, o: i64) -> bool {
        let n = self.sym.as_ref().map_or(1, |c| c.n()) as i64;
        let holds = |x: i64, y: i64| match op {
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            _ => x >= y,
        };
        match (a, b) {
            (X::Int(c), _) => holds(*c, o) == holds(*c, o + n - 1),
            (_, X::Int(c)) => holds(o, *c) == holds(o + n - 1, *c),
            _ => false,
        }
    }

    /// The values `x` may take, through conditionals.
    fn leaves<'x>(x: &'x X, out: &mut Vec<&'x X>) {
        match x {
            X::Ite(_, a, b) => {
                Self::leaves(a, out);
                Self::leaves(b, out);
            }
            X::Seq(_, v) => Self::leaves(v, out),
            x => out.push(x),
        }
    }

    /// Refuses a side of a comparison or assignment of identities `o..o +
    /// n` that is no pair, copy, or plain value that is never a copy.
    fn side(&self, x: &X, o: i64, temps: &[Temp], what: &str) -> Result<(), Refusal> {
        let n = self.sym.as_ref().map_or(1, |c| c.n()) as i64;
        let mut leaves = Vec::new();
        Self::leaves(x, &mut leaves);
        for leaf in leaves {
            let ok = match (leaf, self.ids_of(leaf, temps)) {
                (_, Some(p)) => p == o,
                (X::Int(c), None) if (o..o + n).contains(c) => {
                    return Err(refuse(format!(
                        "{what}: names copy {} of the symmetric group by number",
                        c - o
                    )));
                }
                (leaf, None) => {
                    let iv = self.iv(leaf, temps);
                    iv.1 < i128::from(o) || i128::from(o + n - 1) < iv.0
                }
            };
            if !ok {
                return Err(refuse(format!(
                    "{what}: a plain value that may be a copy's identity is compared with or assigned identities"
                )));
            }
        }
        Ok(())
    }

    /// Refuses an index of a variable indexed by copies that is neither a
    /// copy nor a value the other elements can be chosen by.
    fn index(&self, v: usize, i: &X, temps: &[Temp], what: &str) -> Result<(), Refusal> {
        let ctx = self.sym.as_ref().expect("symmetric");
        let Some(o) = ctx.vars[v].by_copy else {
            return Ok(());
        };
        let rest = &ctx.vars[v].rest;
        let mut leaves = Vec::new();
        Self::leaves(i, &mut leaves);
        for leaf in leaves {
            let ok = match (leaf, self.ids_of(leaf, temps)) {
                (_, Some(p)) => p == o,
                // A constant out of bounds fails its range check first.
                (X::Int(k), None) => {
                    let len = self.vars[v].len.unwrap_or(0) as i64;
                    rest.iter().any(|r| r.0 == *k) || !(0..len).contains(k)
                }
                (_, None) => !rest.is_empty() && !ctx.vars[v].owned,
            };
            if !ok {
                return Err(refuse(format!(
                    "{what}: `{}` indexed by a value that is not a copy's identity (a constant out of bounds, or a copy named by number)",
                    self.vars[v].source
                )));
            }
        }
        Ok(())
    }
}
