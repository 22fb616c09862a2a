//! The symmetric translation's declarations and start state in Murphi:
//! the scalarset, the variables indexed by it and the pairs, and the
//! initial values, where the copies that the start state names (a lock held
//! by copy 0 at first) are bound to distinct values of the scalarset.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::SymInfo;
use crate::export::ir::{Program, Var, VarKind};
use crate::export::murphi::{R, note, range};

/// The scalar type of a variable's elements (its scalarset part where it
/// holds identities).
fn scalar(info: &SymInfo, v: usize, var: &Var) -> String {
    match (info.vars[v].ids, var.kind) {
        (Some(_), _) => info.type_name.clone(),
        (None, VarKind::Bool) => "boolean".into(),
        (None, _) => range(var.lo, var.hi),
    }
}

/// The scalarset and the variables.
pub(in crate::export) fn declarations(p: &Program, out: &mut String) {
    let info = p.sym.as_ref().expect("the symmetric export");
    let _ = writeln!(
        out,
        "type\n  {} : scalarset({}); -- the copies {}\n\nvar",
        info.type_name, info.n, info.threads
    );
    for (v, var) in p.vars.iter().enumerate() {
        let sv = &info.vars[v];
        let shape = match (sv.by_copy, var.len) {
            (Some(_), _) => format!("array [{}] of ", info.type_name),
            (None, Some(len)) => format!("array [0..{}] of ", len - 1),
            (None, None) => String::new(),
        };
        let note = note(p, v);
        let elem = scalar(info, v, var);
        let _ = writeln!(out, "  {} : {shape}{elem}; -- {note}", var.name);
        let plain = range(var.lo, var.hi);
        if sv.ids.is_some() {
            let _ = writeln!(
                out,
                "  {} : {shape}{plain}; -- {note}: the values that are no copy",
                sv.val
            );
        }
        for (k, name, val) in &sv.rest {
            let _ = writeln!(out, "  {name} : {elem}; -- {note}: element {k}");
            if sv.ids.is_some() {
                let _ = writeln!(
                    out,
                    "  {val} : {plain}; -- {note}: element {k}, the values that are no copy"
                );
            }
        }
    }
}

/// Assignments of a start state, and the copies they name.
#[derive(Default)]
struct Start {
    free: Vec<String>,
    bound: Vec<String>,
    used: BTreeSet<usize>,
}

impl Start {
    /// `place, val := c` for a slot of identities `o..o + n` (`place :=
    /// c` where it holds none).
    fn value(
        &mut self,
        info: &SymInfo,
        var: &Var,
        ids: Option<i64>,
        (place, val): (&str, &str),
        c: i64,
    ) {
        let n = info.n as i64;
        match ids {
            Some(o) if (o..o + n).contains(&c) => {
                let copy = (c - o) as usize;
                self.used.insert(copy);
                let name = &info.copies[copy];
                self.bound.push(format!("{place} := {name}; {val} := {o};"));
            }
            Some(_) => self.free.push(format!("undefine {place}; {val} := {c};")),
            None if var.kind == VarKind::Bool => self.free.push(format!("{place} := {};", c != 0)),
            None => self.free.push(format!("{place} := {c};")),
        }
    }

    /// The copies' elements of a variable indexed by them: one loop where
    /// they all start alike (or each as its own identity), else each copy
    /// by its variable.
    fn copies(&mut self, info: &SymInfo, v: usize, var: &Var) {
        let sv = &info.vars[v];
        let o = sv.by_copy.expect("indexed by copies") as usize;
        let init = &var.init[o..o + info.n];
        let own = |(i, &c): (usize, &i64)| sv.ids.is_some_and(|p| c == p + i as i64);
        let c0 = &info.copies[0];
        let (place, val) = (format!("{}[{c0}]", var.name), format!("{}[{c0}]", sv.val));
        let loop_ = |s: String| format!("for {c0} : {} do {s} end;", info.type_name);
        if init.iter().enumerate().all(own) {
            let p = sv.ids.expect("own identities");
            self.free
                .push(loop_(format!("{place} := {c0}; {val} := {p};")));
        } else if init.iter().all(|&c| c == init[0]) && !self.names_copy(info, sv.ids, init[0]) {
            let mut one = Start::default();
            one.value(info, var, sv.ids, (&place, &val), init[0]);
            self.free.push(loop_(one.free.concat()));
        } else {
            for (i, &c) in init.iter().enumerate() {
                self.used.insert(i);
                let ci = &info.copies[i];
                let (place, val) = (format!("{}[{ci}]", var.name), format!("{}[{ci}]", sv.val));
                let mut one = Start::default();
                one.value(info, var, sv.ids, (&place, &val), c);
                self.used.extend(one.used);
                self.bound.extend(one.free.into_iter().chain(one.bound));
            }
        }
    }

    fn names_copy(&self, info: &SymInfo, ids: Option<i64>, c: i64) -> bool {
        ids.is_some_and(|o| (o..o + info.n as i64).contains(&c))
    }
}

/// The start state: every variable's initial value; the copies it names
/// (a lock held by copy 0 at first) are bound to distinct values, any
/// will do since Rumur keeps one state of their orbit.
pub(in crate::export) fn start(p: &Program, out: &mut String) {
    let info = p.sym.as_ref().expect("the symmetric export");
    let mut s = Start::default();
    for (v, var) in p.vars.iter().enumerate() {
        let sv = &info.vars[v];
        if sv.by_copy.is_some() {
            s.copies(info, v, var);
            for (k, name, val) in &sv.rest {
                s.value(info, var, sv.ids, (name, val), var.init[*k as usize]);
            }
            continue;
        }
        match var.len {
            None => s.value(info, var, sv.ids, (&var.name, &sv.val), var.init[0]),
            Some(_) => {
                for (k, &c) in var.init.iter().enumerate() {
                    let (place, val) = (format!("{}[{k}]", var.name), format!("{}[{k}]", sv.val));
                    s.value(info, var, sv.ids, (&place, &val), c);
                }
            }
        }
    }
    let _ = writeln!(out, "\nstartstate \"initial state\"");
    let chosen = &info.chosen;
    if !s.used.is_empty() {
        let _ = writeln!(out, "var\n  {chosen} : boolean;");
    }
    let _ = writeln!(out, "begin");
    for line in &s.free {
        let _ = writeln!(out, "  {line}");
    }
    if !s.used.is_empty() {
        let used: Vec<usize> = s.used.iter().copied().collect();
        let loops: String = (used.iter())
            .map(|&c| format!("for {} : {} do ", info.copies[c], info.type_name))
            .collect();
        let r = R { p, temps: &[] };
        let _ = writeln!(out, "  {chosen} := false;\n  {}", loops.trim_end());
        let _ = writeln!(
            out,
            "    if {}!{chosen} then\n      {chosen} := true;",
            r.distinct(&used)
        );
        for line in &s.bound {
            let _ = writeln!(out, "      {line}");
        }
        let _ = writeln!(
            out,
            "    endif;\n  {}",
            "end; ".repeat(used.len()).trim_end()
        );
    }
    let _ = writeln!(out, "end;");
}
