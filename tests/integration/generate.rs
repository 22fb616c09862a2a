//! Random models for property tests, built from a choice sequence.
//!
//! proptest generates a vector of numbers and [`system`] reads choices from
//! it; an exhausted sequence answers 0, which always picks the simplest
//! option. Shrinking the vector therefore shrinks the model, so a failing
//! case ends as a small, readable system.

use proptest::prelude::*;

/// A choice sequence.
pub struct Choices<'a> {
    data: &'a [u16],
    pos: usize,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u16]) -> Choices<'a> {
        Choices { data, pos: 0 }
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        let v = self.data.get(self.pos).copied().unwrap_or(0) as usize;
        self.pos += 1;
        v % n.max(1)
    }

    /// True with probability about `percent`/100 (false when exhausted).
    pub fn chance(&mut self, percent: usize) -> bool {
        let exhausted = self.pos >= self.data.len();
        let v = self.below(100);
        !exhausted && v < percent
    }
}

/// The raw material of a generated model.
pub fn choices() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..160)
}

/// A protected variable of a generated system.
struct Prot {
    name: String,
    /// The lock that guards it.
    lock: usize,
}

/// A random lock-based system: locks, variables protected by them (as `by m`
/// or as an `excl` predicate), unprotected shared variables, locals, critical
/// sections with occasional unlocked accesses and forgotten releases,
/// branches, loops, `either`, `atomic` and assertions. Every generated model
/// compiles; its verdict may be anything.
pub fn system(c: &mut Choices) -> String {
    let nthreads = 1 + c.below(3);
    let nlocks = 1 + c.below(2);
    let mut out = String::from("system generated;\n");
    let named = c.chance(50);
    if !named {
        out += &format!("threads {nthreads};\n");
    }
    for l in 0..nlocks {
        out += &format!("lock m{l};\n");
    }
    let nprot = c.below(4);
    let mut prots = Vec::new();
    for k in 0..nprot {
        let lock = c.below(nlocks);
        let name = format!("x{k}");
        let form = c.below(3);
        out += &match form {
            0 => format!("protected {name} : 0..2 = 0 by m{lock};\n"),
            1 => format!(
                "protected {name} : 0..2 = {} excl(t) = m{lock} == t;\n",
                c.below(3)
            ),
            _ => format!(
                "protected {name} : 0..2 = 0\n    excl(t) = m{lock} == t && m{lock} != free;\n"
            ),
        };
        prots.push(Prot { name, lock });
    }
    out += "shared y : 0..3 = 0;\n";
    if c.chance(30) {
        out += "shared flag : bool = false;\n";
    }
    let flag = out.contains("shared flag");
    let bodies: Vec<String> = (0..if named { nthreads } else { 1 })
        .map(|_| body(c, nlocks, &prots, flag))
        .collect();
    for (t, b) in bodies.iter().enumerate() {
        let name = if named {
            format!("w{t}")
        } else {
            "T".to_string()
        };
        out += &format!("\nthread {name} {{\n  local r : 0..2 = 0;\n{b}}}\n");
    }
    if c.chance(20) {
        out += "\ninvariant y >= 0;\n";
    }
    out
}

fn body(c: &mut Choices, nlocks: usize, prots: &[Prot], flag: bool) -> String {
    let mut out = String::new();
    let n = 1 + c.below(5);
    let looping = c.chance(40);
    for k in 0..n {
        let label = if k == 0 { "  L0: " } else { "  " };
        let s = stmt(c, nlocks, prots, flag, 1);
        out += &format!("{label}{}", s.trim_start());
    }
    if looping {
        out += "  goto L0;\n";
    }
    out
}

fn prot_op(c: &mut Choices, x: &str) -> String {
    match c.below(4) {
        0 => format!("{x} := ({x} + 1) % 3;"),
        1 => format!("r := {x};"),
        2 => format!("if {x} == 1 {{ {x} := 0; }}"),
        _ => format!("{x} := r;"),
    }
}

fn stmt(c: &mut Choices, nlocks: usize, prots: &[Prot], flag: bool, depth: usize) -> String {
    let ind = "  ".repeat(depth);
    let kinds = if depth > 2 { 4 } else { 10 };
    match c.below(kinds) {
        // A critical section, sometimes with a forgotten release.
        0 | 1 => {
            let lock = c.below(nlocks);
            let mine: Vec<&Prot> = prots.iter().filter(|p| p.lock == lock).collect();
            let mut s = format!("{ind}acquire m{lock};\n");
            for _ in 0..1 + c.below(2) {
                match mine.get(c.below(mine.len().max(1))) {
                    Some(p) => s += &format!("{ind}{}\n", prot_op(c, &p.name)),
                    None => s += &format!("{ind}y := (y + 1) % 4;\n"),
                }
            }
            if !c.chance(10) {
                s += &format!("{ind}release m{lock};\n");
            }
            s
        }
        // An access to a protected variable, usually without its lock.
        2 => match prots.get(c.below(prots.len().max(1))) {
            Some(p) if c.chance(30) => format!("{ind}{}\n", prot_op(c, &p.name)),
            _ => format!("{ind}y := (y + 1) % 4;\n"),
        },
        3 => {
            let e = ["r == 0", "y < 2", "r != y % 3"][c.below(3)];
            format!("{ind}assert {e};\n")
        }
        4 => {
            let cond = ["r == 0", "y > 1", "r < y"][c.below(3)];
            let a = stmt(c, nlocks, prots, flag, depth + 1);
            let b = stmt(c, nlocks, prots, flag, depth + 1);
            if c.chance(50) {
                format!("{ind}if {cond} {{\n{a}{ind}}} else {{\n{b}{ind}}}\n")
            } else {
                format!("{ind}if {cond} {{\n{a}{ind}}}\n")
            }
        }
        5 => {
            let a = stmt(c, nlocks, prots, flag, depth + 1);
            let b = stmt(c, nlocks, prots, flag, depth + 1);
            format!("{ind}either {{\n{a}{ind}}} or {{\n{b}{ind}}}\n")
        }
        6 => {
            let inner = match prots.get(c.below(prots.len().max(1))) {
                Some(p) if c.chance(30) => format!("{} := ({} + 1) % 3;", p.name, p.name),
                _ => "r := (r + 1) % 3;".to_string(),
            };
            let guard = if c.chance(30) { "await y < 3; " } else { "" };
            format!("{ind}atomic {{ {guard}y := (y + 1) % 4; {inner} }}\n")
        }
        7 => format!("{ind}while r < 2 {{\n{ind}  r := r + 1;\n{ind}}}\n"),
        8 => {
            if flag && c.chance(50) {
                format!("{ind}flag := !flag;\n")
            } else {
                format!("{ind}r := any 0..2;\n")
            }
        }
        _ => format!("{ind}await y > 0 || r == 0;\n"),
    }
}

/// A random expression, fully parenthesised so it always parses, over every
/// operator and form of the language (not necessarily well typed).
pub fn expr(c: &mut Choices, depth: usize) -> String {
    if depth == 0 {
        return ["0", "7", "x", "a[1]", "true", "false", "self", "free", "N"][c.below(9)]
            .to_string();
    }
    let sub = |c: &mut Choices| expr(c, depth - 1);
    match c.below(8) {
        0 => {
            let op = [
                "||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%",
            ][c.below(13)];
            let (a, b) = (sub(c), sub(c));
            // Leave some operands unparenthesised to exercise precedence.
            if c.chance(50) {
                format!("{a} {op} {b}")
            } else {
                format!("({a}) {op} ({b})")
            }
        }
        1 => format!("!({})", sub(c)),
        2 => format!("-({})", sub(c)),
        3 => format!("a[{}]", sub(c)),
        4 => format!("at({}, L{})", sub(c), c.below(3)),
        5 => {
            let q = ["exists", "forall"][c.below(2)];
            let (lo, hi, body) = (sub(c), sub(c), sub(c));
            format!("({q} v in {lo}..{hi}: {body})")
        }
        6 => format!("({})", sub(c)),
        _ => sub(c),
    }
}
