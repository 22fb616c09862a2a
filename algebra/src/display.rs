//! How the core's terms, formulas and statements are shown to people, in
//! the digest's notation. Not part of the trusted core: what is accepted is
//! decided by structural comparison (`trusted::paper`), this only renders it.

use std::collections::BTreeSet;
use std::fmt;

use crate::trusted::{Formula, Ix, Rel, Statement, Term};

impl Term {
    fn prec(&self) -> u8 {
        match self {
            Term::Add(..) => 0,
            Term::Seq(..) | Term::OStar(..) => 1,
            Term::Star(_) | Term::Omega(_) => 2,
            _ => 3,
        }
    }

    fn fmt_in(&self, f: &mut fmt::Formatter<'_>, ctx: u8, names: &mut Vec<String>) -> fmt::Result {
        let paren = self.prec() < ctx;
        if paren {
            f.write_str("(")?;
        }
        match self {
            Term::Zero => f.write_str("0")?,
            Term::One => f.write_str("1")?,
            Term::Atom(n, None) => f.write_str(n)?,
            Term::Atom(n, Some(Ix::Free(i))) => write!(f, "{n}_{i}")?,
            Term::Atom(n, Some(Ix::Bound(k))) => match names.len().checked_sub(k + 1) {
                Some(at) => write!(f, "{n}_{}", names[at])?,
                None => write!(f, "{n}_#{k}")?,
            },
            Term::Var(v, _) => f.write_str(v)?,
            Term::Not(a) => {
                f.write_str("~")?;
                a.fmt_in(f, 3, names)?;
            }
            Term::Add(a, b) | Term::Seq(a, b) | Term::OStar(a, b) => {
                let (op, l, r) = match self {
                    Term::Add(..) => (" + ", 1, 0),
                    Term::Seq(..) => (" ", 2, 1),
                    _ => (" <w> ", 2, 1),
                };
                a.fmt_in(f, l, names)?;
                f.write_str(op)?;
                b.fmt_in(f, r, names)?;
            }
            Term::Star(a) | Term::Omega(a) => {
                a.fmt_in(f, 2, names)?;
                f.write_str(if matches!(self, Term::Star(_)) {
                    "*"
                } else {
                    "^w"
                })?;
            }
            Term::Bracket(a) => {
                f.write_str("[")?;
                a.fmt_in(f, 0, names)?;
                f.write_str("]")?;
            }
            Term::Sum(b) | Term::Prod(b) => {
                // Bound indices are shown as k, l, m, ... avoiding free names.
                let mut free = BTreeSet::new();
                b.free_ixs(&mut free);
                let name = ["k", "l", "m", "n", "r", "s"]
                    .iter()
                    .map(|s| s.to_string())
                    .chain((names.len()..).map(|n| format!("k{n}")))
                    .find(|c| !free.contains(c) && !names.contains(c))
                    .unwrap_or_default();
                let op = if matches!(self, Term::Sum(_)) {
                    "+"
                } else {
                    "."
                };
                write!(f, "({op}{name} : ")?;
                names.push(name);
                b.fmt_in(f, 0, names)?;
                names.pop();
                f.write_str(")")?;
            }
        }
        if paren {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in(f, 0, &mut Vec::new())
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = if self.rel == Rel::Eq { "=" } else { "<=" };
        write!(f, "{} {r} {}", self.lhs, self.rhs)
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut conds: Vec<String> = self
            .distinct
            .iter()
            .map(|(a, b)| format!("{a} != {b}"))
            .collect();
        conds.extend(self.premises.iter().map(|p| p.to_string()));
        if !conds.is_empty() {
            write!(f, "{} => ", conds.join(" and "))?;
        }
        let c: Vec<String> = self.conclusions.iter().map(|c| c.to_string()).collect();
        f.write_str(&c.join(" and "))
    }
}
