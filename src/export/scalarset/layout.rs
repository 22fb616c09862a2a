//! The variables of the symmetric export: each position of the copies'
//! blocks (program counter, locals, frames) is one variable indexed by the
//! copies, declared before the others; then how every variable uses the
//! scalarset (indexed by it, holding identities, or neither).

use super::{Ctx, QUANTS, SymInfo, SymVar, refuse};
use crate::export::Refusal;
use crate::export::ir::{Builder, Check, Names, Rule, Var, VarKind, split_index};
use crate::model::SlotKind;
use crate::symmetry::Ty;

/// The name of the copies' body: the first copy's name without its number
/// (`teller0` -> `teller`).
fn body_name(thread: &str) -> &str {
    let body = thread.trim_end_matches(|c: char| c.is_ascii_digit());
    if body.is_empty() { thread } else { body }
}

impl Builder<'_> {
    /// Whether `slot` is in a copy's block (declared by
    /// [`Builder::declare_copies`]).
    pub(in crate::export) fn owned_by_copy(&self, slot: u32) -> bool {
        (self.sym.as_ref()).is_some_and(|c| c.block[slot as usize].is_some())
    }

    /// The symmetric export: one variable per position of the copies'
    /// blocks, element `first + i` copy i's (the others never read).
    pub(in crate::export) fn declare_copies(&mut self, names: &mut Names) -> Result<(), Refusal> {
        let Some(ctx) = &self.sym else {
            return Ok(());
        };
        let model = self.model;
        let (first, n) = (ctx.sym.first, ctx.n());
        let blocks = ctx.sym.blocks.clone();
        let threads = ctx.sym.threads.clone();
        let th = &model.threads[first];
        let body = body_name(&th.name).to_string();
        for (k, &s0) in blocks[0].iter().enumerate() {
            // A block may name its program counter twice (as the pc and
            // as a slot of its thread): declared once.
            if blocks[0][..k].contains(&s0) {
                continue;
            }
            let s0 = s0 as usize;
            let slot = &model.slots[s0];
            self.width(s0)?;
            if split_index(&slot.name).is_some() {
                return Err(refuse(format!(
                    "`{}` is a local array of the copies {threads}, which the export does not lay out as an array of arrays",
                    slot.name
                )));
            }
            let v = self.vars.len();
            let mut init = vec![model.init[s0]; first + n];
            for (i, b) in blocks.iter().enumerate() {
                self.slot_var[b[k] as usize] = (v, Some(first + i));
                init[first + i] = model.init[b[k] as usize];
                if k == 0 {
                    self.pc_var[first + i] = v;
                }
            }
            let (lo, hi) = model.bounds[s0];
            let local = slot.name.strip_prefix(&format!("{}.", th.name));
            let var = |name: String, kind, (lo, hi), source| Var {
                name: names.fresh(&name),
                kind,
                lo,
                hi,
                len: Some(first + n),
                init,
                slot: s0,
                source,
            };
            self.vars.push(match (k, local) {
                (0, _) => var(
                    format!("pc_{body}"),
                    VarKind::Pc,
                    (0, th.end()),
                    format!("control point of {threads}"),
                ),
                (_, local) => {
                    let local = local.unwrap_or(&slot.name);
                    let kind = match slot.kind {
                        SlotKind::Bool => VarKind::Bool,
                        _ => VarKind::Int,
                    };
                    var(
                        format!("{body}_{local}"),
                        kind,
                        (lo, hi),
                        format!("{threads}: {local}"),
                    )
                }
            });
        }
        Ok(())
    }

    /// How every variable uses the scalarset, and the names the layout
    /// needs: the type, the plain parts, the elements outside the copies,
    /// the copy variables.
    pub(in crate::export) fn lay_out_copies(&mut self, names: &mut Names) -> Result<(), Refusal> {
        let Some(ctx) = &self.sym else {
            return Ok(());
        };
        let mut out = Vec::new();
        for var in &self.vars {
            out.push(sym_var(ctx, var, names)?);
        }
        for &(base, len, _) in &ctx.sym.arrays {
            let v = self.slot_var[base as usize].0;
            if self.vars[v].slot != base as usize || self.vars[v].len != Some(len as usize) {
                return Err(refuse(format!(
                    "`{}` is indexed by the copies but is not declared as one array",
                    self.model.slots[base as usize].name
                )));
            }
        }
        let body = body_name(&self.model.threads[ctx.sym.first].name).to_string();
        let n = ctx.n();
        let mut copies = vec![names.fresh("t")];
        for i in 1..n {
            copies.push(names.fresh(&if n == 2 { "u".into() } else { format!("u{i}") }));
        }
        copies.extend((0..QUANTS).map(|k| names.fresh(&format!("q{k}"))));
        copies.extend((0..n).map(|i| names.fresh(&format!("d{i}"))));
        let type_name = names.fresh(&format!("{body}_id"));
        let ctx = self.sym.as_mut().expect("symmetric");
        ctx.vars = out;
        ctx.copies = copies;
        ctx.type_name = type_name;
        Ok(())
    }

    /// Whether transition `k` is written as a rule: every transition but
    /// those of copies 1.., which copy 0's rules stand for.
    pub(in crate::export) fn rule_of_its_own(&self, k: usize) -> bool {
        let Some(ctx) = &self.sym else {
            return true;
        };
        let s = &ctx.sym;
        !(1..s.n).any(|i| (s.starts[i]..s.starts[i] + s.per).contains(&k))
    }

    /// The finished layout, once every rule and check is built and found
    /// expressible over the scalarset.
    pub(in crate::export) fn finish_copies(
        &self,
        names: &mut Names,
        rules: &[Rule],
        checks: &[Check],
        temps: usize,
    ) -> Result<Option<SymInfo>, Refusal> {
        let Some(ctx) = &self.sym else {
            return Ok(None);
        };
        for rule in rules {
            self.validate_rule(rule)?;
        }
        for check in checks {
            self.validate(&check.cond, &[], &check.message)?;
        }
        Ok(Some(SymInfo {
            n: ctx.n(),
            type_name: ctx.type_name.clone(),
            threads: ctx.sym.threads.clone(),
            vars: ctx.vars.clone(),
            copies: ctx.copies.clone(),
            temp_vals: (0..temps)
                .map(|k| names.fresh(&format!("tmp{k}_v")))
                .collect(),
            chosen: names.fresh("chosen"),
        }))
    }
}

/// How `var` uses the scalarset.
fn sym_var(ctx: &Ctx, var: &Var, names: &mut Names) -> Result<SymVar, Refusal> {
    let n = ctx.n() as i64;
    let mut out = SymVar::default();
    if ctx.block[var.slot].is_some() {
        out.by_copy = Some(ctx.sym.first as i64);
        out.owned = true;
    } else if let Some(&(_, _, o)) = (ctx.sym.arrays.iter()).find(|a| a.0 as usize == var.slot) {
        out.by_copy = Some(o);
    }
    if let (Ty::Ids(o), false) = (ctx.typing.slot(var.slot as u32), var.kind == VarKind::Pc)
        && var.lo <= o
        && o + n - 1 <= var.hi
    {
        out.ids = Some(o);
        out.val = names.fresh(&format!("{}_v", var.name));
    }
    if let (Some(o), false, Some(len)) = (out.by_copy, out.owned, var.len) {
        for k in (0..len as i64).filter(|k| !(o..o + n).contains(k)) {
            let name = names.fresh(&format!("{}_{k}", var.name));
            let val = match out.ids {
                Some(_) => names.fresh(&format!("{}_{k}_v", var.name)),
                None => String::new(),
            };
            out.rest.push((k, name, val));
        }
    }
    Ok(out)
}
