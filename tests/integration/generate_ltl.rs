//! Random LTL-X formulas over a compiled model's own vocabulary, for the
//! liveness tests: every operator (`[]`, `<>`, `U`, `W`, `!`, `&&`, `||`,
//! `->`, and the words `always`, `eventually`, `until`), and atoms of every
//! kind an invariant may read: shared variables and array elements
//! (compared with constants or with each other, through computed indices
//! that may fault), locks (`m == free`, `m == 1`), `at(t, L)` for the
//! threads' labels, other threads' locals (`(1).r`), and quantifiers over
//! the threads (`exists u in 0..1: at(u, L)`).

use optimist::{Model, SlotClass, SlotKind};

/// A small deterministic generator (xorshift), so a failure reproduces
/// from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A formula over `model`'s names, of depth at most `depth`.
pub fn formula(r: &mut Rng, model: &Model, depth: usize) -> String {
    if depth == 0 || r.below(5) == 0 {
        return atom(r, model);
    }
    let sub = |r: &mut Rng| formula(r, model, depth - 1);
    match r.below(11) {
        0 => format!("[] ({})", sub(r)),
        1 => format!("<> ({})", sub(r)),
        2 => format!("({}) U ({})", sub(r), sub(r)),
        3 => format!("({}) W ({})", sub(r), sub(r)),
        4 => format!("!({})", sub(r)),
        5 => format!("({}) && ({})", sub(r), sub(r)),
        6 => format!("({}) || ({})", sub(r), sub(r)),
        7 => format!("({}) -> ({})", sub(r), sub(r)),
        8 => format!("always ({})", sub(r)),
        9 => format!("eventually ({})", sub(r)),
        _ => format!("({}) until ({})", sub(r), sub(r)),
    }
}

/// The shapes that teaching properties have, over random atoms:
/// response, recurrence, persistence, precedence.
pub fn pattern(r: &mut Rng, model: &Model) -> String {
    let mut a = || format!("({})", atom(r, model));
    let (p, q) = (a(), a());
    match r.below(5) {
        0 => format!("[] ({p} -> <> {q})"),
        1 => format!("[] <> {p}"),
        2 => format!("<> [] {p}"),
        3 => format!("!{q} W {p}"),
        _ => format!("<> {p}"),
    }
}

fn atom(r: &mut Rng, model: &Model) -> String {
    // A channel is read whole, by `len(c)` and the like.
    if !model.channels.is_empty() && r.below(5) == 0 {
        let c = &model.channels[r.below(model.channels.len())].name;
        let q = ["len({c}) > 0", "empty({c})", "full({c})", "len({c}) < 2"][r.below(4)];
        return q.replace("{c}", c);
    }
    let chans = model.chan_slots();
    let vars: Vec<usize> = (0..model.slots.len())
        .filter(|&k| {
            let s = &model.slots[k];
            chans[k] == optimist::ChanSlot::None &&
            matches!(s.kind, SlotKind::Int | SlotKind::Bool | SlotKind::Lock | SlotKind::Sem)
                && !matches!(s.class, SlotClass::Local(_))
                // A procedure's frame variables are no names at the top level.
                && !s.name.contains('$')
        })
        .collect();
    let locals: Vec<(usize, String, bool)> = (0..model.slots.len())
        .filter_map(|k| {
            let s = &model.slots[k];
            match (s.class, s.kind) {
                (SlotClass::Local(t), SlotKind::Int | SlotKind::Bool) => {
                    let (_, name) = s.name.split_once('.')?;
                    let boolean = s.kind == SlotKind::Bool;
                    (!name.contains(['$', '[', '.']))
                        .then(|| (t as usize, name.to_string(), boolean))
                }
                _ => None,
            }
        })
        .collect();
    let labels: Vec<(usize, String)> = model
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, th)| {
            th.points
                .iter()
                .filter(|p| p.depth == 0)
                .filter_map(move |p| p.label.clone().map(|l| (t, l)))
        })
        .collect();
    let n = model.threads.len();
    for _ in 0..8 {
        match r.below(7) {
            0 | 1 if !vars.is_empty() => {
                let k = vars[r.below(vars.len())];
                let s = &model.slots[k];
                let name = &s.name;
                return match s.kind {
                    SlotKind::Bool => {
                        if r.below(2) == 0 {
                            name.clone()
                        } else {
                            format!("!{name}")
                        }
                    }
                    SlotKind::Lock => match r.below(3) {
                        0 => format!("{name} == free"),
                        1 => format!("{name} != free"),
                        _ => format!("{name} == {}", r.below(n)),
                    },
                    _ => {
                        let op = ["==", "!=", "<", ">="][r.below(4)];
                        format!("{name} {op} {}", r.below(3))
                    }
                };
            }
            2 if vars.len() >= 2 => {
                // Two variables, or an element at a computed index.
                let a = &model.slots[vars[r.below(vars.len())]];
                let b = &model.slots[vars[r.below(vars.len())]];
                if a.kind == SlotKind::Int && b.kind == SlotKind::Int {
                    if let Some((base, _)) = a.name.split_once('[')
                        && !b.name.contains('[')
                    {
                        return format!("{base}[{}] == {}", b.name, r.below(2));
                    }
                    return format!("{} <= {}", a.name, b.name);
                }
            }
            3 | 4 if !labels.is_empty() => {
                let (t, l) = &labels[r.below(labels.len())];
                return if r.below(2) == 0 {
                    format!("at({t}, {l})")
                } else {
                    format!("!at({t}, {l})")
                };
            }
            5 if !locals.is_empty() => {
                let (t, name, boolean) = &locals[r.below(locals.len())];
                return match (boolean, r.below(2)) {
                    (true, 0) => format!("({t}).{name}"),
                    (true, _) => format!("!({t}).{name}"),
                    (false, v) => format!("({t}).{name} == {v}"),
                };
            }
            6 if !labels.is_empty() && n >= 2 => {
                let (_, l) = &labels[r.below(labels.len())];
                // Only labels every thread has can be quantified over.
                if labels.iter().filter(|(_, m)| m == l).count() == n {
                    let q = if r.below(2) == 0 { "exists" } else { "forall" };
                    return format!("({q} u in 0..{}: at(u, {l}))", n - 1);
                }
            }
            _ => {}
        }
    }
    ["true", "false"][r.below(2)].to_string()
}
