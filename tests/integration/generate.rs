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
    /// Labels handed out so far, for fresh ones.
    labels: usize,
    /// Whether a system may have procedures (it does a quarter of the time).
    pub procs: bool,
    /// Only systems of two or three threads that have procedures: copies
    /// of one thread (`threads N`) if `Some(true)`, threads with bodies
    /// of their own if `Some(false)`. Threads that may share summaries.
    pub sharing: Option<bool>,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u16]) -> Choices<'a> {
        Choices {
            data,
            pos: 0,
            labels: 0,
            procs: true,
            sharing: None,
        }
    }

    /// A label not used before in this model.
    pub fn fresh_label(&mut self) -> String {
        self.labels += 1;
        format!("G{}", self.labels)
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
/// `count` systems drawn from a fixed seed, the same on every run (for
/// tests that need the same systems every time, outside proptest).
pub fn fixed_systems(count: usize) -> Vec<String> {
    let mut x = 2026u64;
    (0..count)
        .map(|_| {
            let data: Vec<u16> = (0..120)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 48) as u16
                })
                .collect();
            system(&mut Choices::new(&data))
        })
        .collect()
}

pub fn choices() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..160)
}

/// How a generated protected variable is guarded.
#[derive(Clone, Copy)]
enum Guard {
    /// By lock `m{k}`.
    Lock(usize),
    /// By the unprotected `turn`: the thread whose turn it is owns it and
    /// passes the turn on.
    Turn,
    /// By the unprotected `own`: taken with an atomic test-and-set, given
    /// back by writing -1.
    Owner,
    /// By control points: w0 owns it until w0 reaches `HD`, where w0 stops
    /// for good; then w1 owns it. Only rule (ii) makes the step into `HD`
    /// visible.
    Pc,
}

/// A protected variable of a generated system.
struct Prot {
    name: String,
    guard: Guard,
}

/// A random system with locks, variables protected by them (as `by m` or as
/// an `excl` predicate), by a turn variable or by an owner flag, unprotected
/// shared variables, locals, critical sections with occasional unlocked
/// accesses and forgotten releases, assertions on protected data, branches,
/// loops, `either`, `atomic`, `repeat` and `any`. Every generated model
/// compiles; its verdict may be anything.
pub fn system(c: &mut Choices) -> String {
    let nthreads = if c.sharing.is_some() {
        2 + c.below(2)
    } else {
        1 + c.below(3)
    };
    let nlocks = 1 + c.below(2);
    let mut out = String::from("system generated;\n");
    let named = match c.sharing {
        Some(copies) => !copies,
        None => c.chance(50),
    };
    if !named {
        out += &format!("threads {nthreads};\n");
    }
    for l in 0..nlocks {
        out += &format!("lock m{l};\n");
    }
    let nprot = c.below(4);
    let mut prots = Vec::new();
    let (mut turn, mut owner) = (false, false);
    // Hand-offs name w0's point (`at(w0, HD)`) or, in some systems, a
    // local that w0 sets just before it (`w0.gone`), decided once.
    let mut local_pc: Option<bool> = None;
    let handoff = named && nthreads >= 2;
    for k in 0..nprot {
        let name = format!("x{k}");
        let guard = match c.below(if handoff { 7 } else { 5 }) {
            3 => Guard::Turn,
            4 => Guard::Owner,
            5 | 6 => Guard::Pc,
            _ => Guard::Lock(c.below(nlocks)),
        };
        out += &match guard {
            Guard::Lock(l) => match c.below(3) {
                0 => format!("protected {name} : 0..2 = 0 by m{l};\n"),
                1 => format!(
                    "protected {name} : 0..2 = {} excl(t) = m{l} == t;\n",
                    c.below(3)
                ),
                _ => format!(
                    "protected {name} : 0..2 = 0\n    excl(t) = m{l} == t && m{l} != free;\n"
                ),
            },
            Guard::Turn => {
                turn = true;
                format!("protected {name} : 0..2 = 0 excl(t) = turn == t;\n")
            }
            Guard::Owner => {
                owner = true;
                format!("protected {name} : 0..2 = 0 excl(t) = own == t;\n")
            }
            Guard::Pc if *local_pc.get_or_insert_with(|| c.chance(50)) => format!(
                "protected {name} : 0..2 = 0\n    excl(t) = (t == w0 && !w0.gone) || (t == w1 && w0.gone);\n"
            ),
            Guard::Pc => format!(
                "protected {name} : 0..2 = 0\n    excl(t) = (t == w0 && !at(w0, HD)) || (t == w1 && at(w0, HD));\n"
            ),
        };
        prots.push(Prot { name, guard });
    }
    if turn {
        out += "shared turn : 0..2 = 0;\n";
    }
    if owner {
        out += "shared own : -1..2 = -1;\n";
    }
    out += "shared y : 0..3 = 0;\n";
    if c.chance(30) {
        out += "shared flag : bool = false;\n";
    }
    // A quarter of the systems have procedures: one or two, some returning
    // a value, some recursive (with a bounded depth), called from the
    // threads and from each other, inside and outside critical sections.
    let procs: Vec<bool> = if c.sharing.is_some() || c.procs && c.chance(25) {
        (0..1 + c.below(2)).map(|_| c.chance(50)).collect()
    } else {
        Vec::new()
    };
    let world = World {
        nlocks,
        nthreads,
        named,
        prots,
        flag: out.contains("shared flag"),
        local_pc: local_pc == Some(true),
        callable: std::cell::Cell::new(procs.len()),
        procs,
    };
    let pc_guarded = world.prots.iter().any(|p| matches!(p.guard, Guard::Pc));
    let bodies: Vec<String> = (0..if named { nthreads } else { 1 })
        .map(|t| body(c, &world, t, pc_guarded && t == 0))
        .collect();
    for k in 0..world.procs.len() {
        out += &procedure(c, &world, k);
    }
    for (t, b) in bodies.iter().enumerate() {
        let name = if named {
            format!("w{t}")
        } else {
            "T".to_string()
        };
        let gone = if world.local_pc {
            "  local gone : bool = false;\n"
        } else {
            ""
        };
        out += &format!("\nthread {name} {{\n  local r : 0..2 = 0;\n{gone}{b}}}\n");
    }
    if c.chance(20) {
        out += "\ninvariant y >= 0;\n";
    }
    out
}

struct World {
    nlocks: usize,
    nthreads: usize,
    named: bool,
    /// Hand-offs are predicates on w0's local `gone` (else on its point).
    local_pc: bool,
    prots: Vec<Prot>,
    flag: bool,
    /// The procedures `p0`, `p1`, ...: whether each returns a value.
    procs: Vec<bool>,
    /// The code being written may call `p0` up to this one (excluded): a
    /// procedure calls only those before it, and itself with a smaller
    /// argument, so every recursion is bounded.
    callable: std::cell::Cell<usize>,
}

/// Procedure `p{k}(n : 0..2)`, with a local `r` like the threads', so the
/// statements of thread bodies work in it too.
fn procedure(c: &mut Choices, w: &World, k: usize) -> String {
    w.callable.set(k);
    let typed = w.procs[k];
    let ret = if typed { " : 0..2" } else { "" };
    let mut out = format!("\nproc p{k}(n : 0..2){ret} {{\n  local r : 0..2 = 0;\n");
    if c.chance(50) {
        // Bounded recursion: n decreases.
        let target = if typed && c.chance(50) { "r := " } else { "" };
        out += &format!("  if n > 0 {{\n    {target}call p{k}(n - 1);\n  }}\n");
    }
    for _ in 0..1 + c.below(2) {
        out += &stmt(c, w, 0, 1);
    }
    if typed {
        out += "  return r;\n";
    }
    out += "}\n";
    w.callable.set(w.procs.len());
    out
}

/// A call of a procedure the code being written may call, or `None`.
fn call(c: &mut Choices, w: &World, ind: &str) -> Option<String> {
    let n = w.callable.get();
    if n == 0 {
        return None;
    }
    let k = c.below(n);
    let arg = ["r", "0", "1", "2"][c.below(4)];
    let target = if w.procs[k] && c.chance(60) {
        "r := "
    } else {
        ""
    };
    Some(format!("{ind}{target}call p{k}({arg});\n"))
}

/// A thread body; `hands_off` ends it at `HD`, giving up the variables
/// guarded by control points.
fn body(c: &mut Choices, w: &World, thread: usize, hands_off: bool) -> String {
    let mut out = String::new();
    let n = 1 + c.below(5);
    let looping = !hands_off && c.chance(40);
    // Where a loop that can run forever goes, if anywhere: after a visible
    // write, as in Levin, Palmer, Qadeer and Rajamani's figure 1, so that ignoring the other threads
    // from there on would hide what they do with it.
    let endless_at = (!hands_off && c.chance(45)).then(|| c.below(n + 1));
    for k in 0..n {
        if endless_at == Some(k) && k > 0 {
            out += "  y := (y + 1) % 4;\n";
            out += &endless(c, w);
        }
        let label = if k == 0 { "  L0: " } else { "  " };
        let s = stmt(c, w, thread, 1);
        out += &format!("{label}{}", s.trim_start());
    }
    if endless_at == Some(n) || endless_at == Some(0) {
        out += "  y := (y + 1) % 4;\n";
        out += &endless(c, w);
    }
    if w.named {
        // An invisible point that other threads may observe with `at`.
        out += "  L1: skip;\n";
    }
    if hands_off && c.chance(60) {
        // Signal, then do invisible work before reaching `HD`.
        out += "  y := (y + 1) % 4;\n  r := (r + 1) % 3;\n";
    }
    if looping {
        out += "  goto L0;\n";
    }
    if hands_off {
        if w.local_pc {
            out += "  gone := true;\n";
        }
        out += "  HD: await false;\n";
    }
    out
}

/// A loop of invisible transitions that can run forever (the ignoring
/// problem, Levin, Palmer, Qadeer and Rajamani): local work for ever, loops with a nondeterministic
/// exit, `goto` back into local code, and loops over protected data inside
/// a critical section, whose states are commit points.
fn endless(c: &mut Choices, w: &World) -> String {
    let l = c.fresh_label();
    match c.below(5) {
        0 => "  while true {\n    r := (r + 1) % 3;\n  }\n".to_string(),
        1 => format!(
            "  {l}: r := (r + 1) % 3;\n  either {{\n    goto {l};\n  }} or {{\n    skip;\n  }}\n"
        ),
        2 => format!(
            "  {l}: either {{\n    r := any 0..2;\n    goto {l};\n  }} or {{\n    skip;\n  }}\n"
        ),
        3 => format!(
            "  {l}: if r == 1 {{\n    r := 0;\n    goto {l};\n  }} else {{\n    r := 1;\n    goto {l};\n  }}\n"
        ),
        _ => match w.prots.iter().find(|p| matches!(p.guard, Guard::Lock(_))) {
            Some(Prot {
                name: x,
                guard: Guard::Lock(m),
            }) => format!(
                "  acquire m{m};\n  {l}: {x} := ({x} + 1) % 3;\n  either {{\n    goto {l};\n  }} or {{\n    skip;\n  }}\n  release m{m};\n"
            ),
            _ => "  while true {\n    skip;\n  }\n".to_string(),
        },
    }
}

fn prot_op(c: &mut Choices, x: &str) -> String {
    match c.below(6) {
        0 => format!("{x} := ({x} + 1) % 3;"),
        1 => format!("r := {x};"),
        2 => format!("if {x} == 1 {{ {x} := 0; }}"),
        3 => format!("assert {x} != 2;"),
        4 => format!("{x} := any 0..1;"),
        _ => format!("{x} := r;"),
    }
}

/// The operations of a critical section on the variables guarded by `g`.
fn section(c: &mut Choices, w: &World, thread: usize, g: Guard, ind: &str) -> String {
    let mine: Vec<&Prot> = w.prots.iter().filter(|p| same(p.guard, g)).collect();
    let mut s = String::new();
    if matches!(g, Guard::Pc) && thread != 0 && c.chance(70) {
        // Wait for w0's signal: often, but not always, w0 has reached `HD` by then.
        s += &format!("{ind}await y > 0;\n");
    }
    for _ in 0..1 + c.below(3) {
        // Sometimes a call inside the critical section.
        if w.callable.get() > 0 && c.chance(20) {
            s += &call(c, w, ind).unwrap_or_default();
            continue;
        }
        match mine.get(c.below(mine.len().max(1))) {
            Some(p) if !c.chance(15) => s += &format!("{ind}{}\n", prot_op(c, &p.name)),
            // Occasionally something visible in the middle of the section.
            _ => s += &format!("{ind}y := (y + 1) % 4;\n"),
        }
    }
    s
}

fn same(a: Guard, b: Guard) -> bool {
    match (a, b) {
        (Guard::Lock(x), Guard::Lock(y)) => x == y,
        (Guard::Turn, Guard::Turn) | (Guard::Owner, Guard::Owner) | (Guard::Pc, Guard::Pc) => true,
        _ => false,
    }
}

fn stmt(c: &mut Choices, w: &World, thread: usize, depth: usize) -> String {
    let ind = "  ".repeat(depth);
    let kinds = if depth > 2 { 4 } else { 12 };
    // Systems with procedures have one more kind of statement: a call.
    let kinds = kinds + usize::from(w.callable.get() > 0);
    match c.below(kinds) {
        k if k + 1 == kinds && w.callable.get() > 0 => call(c, w, &ind).unwrap_or_default(),
        // A critical section, sometimes with a forgotten release.
        0 | 1 => {
            let guard = match w.prots.get(c.below(w.prots.len().max(1))) {
                Some(p) if c.chance(60) => p.guard,
                _ => Guard::Lock(c.below(w.nlocks)),
            };
            let body = section(c, w, thread, guard, &ind);
            let forget = c.chance(10);
            match guard {
                Guard::Lock(l) => {
                    let release = if forget {
                        String::new()
                    } else {
                        format!("{ind}release m{l};\n")
                    };
                    format!("{ind}acquire m{l};\n{body}{release}")
                }
                Guard::Turn => {
                    let pass = if forget {
                        String::new()
                    } else {
                        format!("{ind}turn := (turn + 1) % {};\n", w.nthreads)
                    };
                    format!("{ind}await turn == self;\n{body}{pass}")
                }
                Guard::Owner => {
                    let give = if forget {
                        String::new()
                    } else {
                        format!("{ind}own := -1;\n")
                    };
                    format!("{ind}atomic {{ await own == -1; own := self; }}\n{body}{give}")
                }
                // Ownership follows w0's control point; nothing to take.
                Guard::Pc => body,
            }
        }
        // An access to a protected variable, usually without its guard.
        2 => match w.prots.get(c.below(w.prots.len().max(1))) {
            Some(p) if c.chance(30) => format!("{ind}{}\n", prot_op(c, &p.name)),
            _ => format!("{ind}y := (y + 1) % 4;\n"),
        },
        3 => {
            let e = ["r == 0", "y < 2", "r != y % 3"][c.below(3)];
            format!("{ind}assert {e};\n")
        }
        4 => {
            let cond = ["r == 0", "y > 1", "r < y"][c.below(3)];
            let a = stmt(c, w, thread, depth + 1);
            let b = stmt(c, w, thread, depth + 1);
            if c.chance(50) {
                format!("{ind}if {cond} {{\n{a}{ind}}} else {{\n{b}{ind}}}\n")
            } else {
                format!("{ind}if {cond} {{\n{a}{ind}}}\n")
            }
        }
        5 => {
            let a = stmt(c, w, thread, depth + 1);
            let b = stmt(c, w, thread, depth + 1);
            format!("{ind}either {{\n{a}{ind}}} or {{\n{b}{ind}}}\n")
        }
        6 => {
            let inner = match w.prots.get(c.below(w.prots.len().max(1))) {
                Some(p) if c.chance(30) => format!("{} := ({} + 1) % 3;", p.name, p.name),
                _ => "r := (r + 1) % 3;".to_string(),
            };
            let guard = if c.chance(30) { "await y < 3; " } else { "" };
            format!("{ind}atomic {{ {guard}y := (y + 1) % 4; {inner} }}\n")
        }
        7 => format!("{ind}while r < 2 {{\n{ind}  r := r + 1;\n{ind}}}\n"),
        8 => {
            if w.flag && c.chance(50) {
                format!("{ind}flag := !flag;\n")
            } else {
                format!("{ind}r := any 0..2;\n")
            }
        }
        9 => format!(
            "{ind}repeat {} {{\n{}{ind}}}\n",
            1 + c.below(2),
            stmt(c, w, thread, depth + 1)
        ),
        10 if w.named && w.nthreads > 1 => {
            // Observe another thread's control point (`at` in a guard or a test).
            let other = (thread + 1 + c.below(w.nthreads - 1)) % w.nthreads;
            let label = ["L0", "L1"][c.below(2)];
            if c.chance(50) {
                format!("{ind}await at(w{other}, {label}) || y > 1;\n")
            } else {
                format!("{ind}if at(w{other}, {label}) {{\n{ind}  r := (r + 1) % 3;\n{ind}}}\n")
            }
        }
        10 => format!("{ind}r := (r + 1) % 3;\n"),
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
