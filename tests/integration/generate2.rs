//! A second generator of random systems, in a different style from
//! `generate.rs`.
//!
//! The first generator writes lock-based systems from fixed templates. This
//! one first draws a *world* (a lock array, an index table `k`, a divisor
//! `d` that can become zero, an owner flag, a semaphore) and then, for each
//! protected variable, an access *discipline* together with an exclusive
//! access predicate written for it: a lock chosen by a computed index
//! (`m[k[j]] == t`), an owner flag, the control points of a semaphore
//! section (`at(t, C1) || at(t, C2)`), a fixed owner, an initialisation
//! phase (`init(t, x) || (m[0] == t && !init(x))`), a pc hand-off, or a
//! quantifier over the lock array (`exists v in 0..y: m[v] == t`). A
//! predicate is often weakened or strengthened by a term that can fault
//! (`2 / d > 0`, `k[y]` with `y` out of range), or that reads other
//! threads' locals (`y.r`, `(own).r`, a thread that may be no thread).
//! Thread bodies mostly follow
//! the disciplines and sometimes break them, and are filled with typed
//! random expressions: divisions and remainders by values that can be
//! zero, indices that can go out of range, quantifiers with variable
//! bounds, `any`, `either`, `while`, `if`, `atomic`, `await`, assertions,
//! and sometimes sends, receives (on a buffered channel also receives that
//! keep the message, and polls in conditions) on an array of two
//! channels, buffered or rendezvous, at computed indices that can be out
//! of range.
//!
//! Like the first generator, it reads a choice sequence ([`Choices`]), so
//! proptest shrinks a failing case to a small model. Every generated model
//! compiles; its verdict may be anything.

/// A choice sequence. Unlike the first generator's, a 0 (what shrinking
/// moves every number towards, and what an exhausted sequence answers)
/// picks the simplest option everywhere, `chance` included, so shrunk
/// models are small.
pub struct Choices<'a> {
    data: &'a [u16],
    pos: usize,
}

impl<'a> Choices<'a> {
    /// Reads choices from `data`.
    pub fn new(data: &'a [u16]) -> Choices<'a> {
        Choices { data, pos: 0 }
    }

    /// A number in `0..n`; 0 when the sequence is exhausted.
    pub fn below(&mut self, n: usize) -> usize {
        let v = self.data.get(self.pos).copied().unwrap_or(0) as usize;
        self.pos += 1;
        v % n.max(1)
    }

    /// True with probability about `percent`/100; false for a 0.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) >= 100 - percent.min(100)
    }
}

/// How threads are allowed to access a protected variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Disc {
    /// Hold lock `m[index]`.
    Lock(Index),
    /// Own the flag `own` (taken with an atomic test-and-set).
    Owner,
    /// Be at the control points `C1` or `C2` of the semaphore section.
    SemPc,
    /// Be thread `0`.
    Fixed,
    /// Run the variable's `init` block, or hold `m[0]` once no thread does.
    Init,
    /// Thread 0 before it reaches `L1`, thread 1 once thread 0 is there.
    Handoff,
    /// Hold some lock `m[v]` with `v` in `0..y` (faults when `y` is 2).
    Quant,
}

/// How the lock of a lock discipline is indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Index {
    /// A constant lock.
    Const(usize),
    /// The lock of the element's own index (`m[j]`); scalars use `m[0]`.
    Elem,
    /// Through the shared table `k` (`m[k[j]]`), whose entries can be 2.
    Table,
    /// By the shared `y` (`m[y]`), which can be 2 and which others change.
    Shared,
    /// `m[(j + y) % 2]`.
    Mixed,
    /// `m[j / d]`, which faults when `d` is 0.
    Div,
    /// By the protected `x0` (`m[x0]`), which can be 2: a write of `x0`
    /// can change this predicate. Statements take `m[0]`.
    Prot,
}

struct Prot {
    name: String,
    array: bool,
    disc: Disc,
}

struct World {
    nthreads: usize,
    named: bool,
    prots: Vec<Prot>,
    /// Whether bodies have the semaphore section labels `C1`, `C2`.
    sem_pc: bool,
    /// The capacity of the channels `q[2]`, when there are channels (0: a
    /// rendezvous, which every reduction refuses).
    chan: Option<usize>,
}

impl World {
    fn thread_name(&self, t: usize) -> String {
        if self.named {
            format!("w{t}")
        } else {
            t.to_string()
        }
    }
}

/// A random system of the second style (see the module documentation).
pub fn system2(c: &mut Choices) -> String {
    let nthreads = 2 + usize::from(c.chance(25));
    let named = c.chance(50);
    let mut out = String::from("system generated2;\n");
    if !named {
        out += &format!("threads {nthreads};\n");
    }
    out += "lock m[2];\n";
    out += &format!("shared y : 0..2 = {};\n", c.below(3) % 2);
    out += &format!("shared k[2] : 0..2 = [{}, {}];\n", c.below(2), c.below(2));
    out += "shared d : 0..1 = 1;\n";
    out += "shared own : -1..2 = -1;\n";
    let sem_init = [1, 1, 1, 0, 2][c.below(5)];
    out += &format!("sem s : 0..2 = {sem_init};\n");
    let chan = c.chance(30).then(|| [1, 2, 1, 0][c.below(4)]);
    if let Some(k) = chan {
        out += &format!("chan q[2] : [{k}] of {{0..2}};\n");
    }

    let nprot = 1 + c.below(3);
    let mut prots = Vec::new();
    let mut sem_pc = false;
    for n in 0..nprot {
        let disc = match c.below(11) {
            0..=3 => Disc::Lock(match c.below(7) {
                0 => Index::Const(c.below(2)),
                1 | 2 => Index::Elem,
                3 => Index::Table,
                4 => Index::Shared,
                5 => Index::Mixed,
                6 if n > 0 && c.chance(50) => Index::Prot,
                _ => Index::Div,
            }),
            4 => Disc::Owner,
            5 => Disc::SemPc,
            6 => Disc::Fixed,
            7 => Disc::Init,
            8 if named => Disc::Handoff,
            9 => Disc::Quant,
            _ => Disc::Lock(Index::Elem),
        };
        // Init blocks name scalars; the other disciplines take arrays too.
        let array = disc != Disc::Init && c.chance(40);
        sem_pc |= disc == Disc::SemPc;
        let name = format!("x{n}");
        let decl = if array {
            format!(
                "protected {name}[2] : 0..2 = [{}, {}]",
                c.below(3),
                c.below(3)
            )
        } else {
            format!("protected {name} : 0..2 = {}", c.below(3))
        };
        let x0 = prots.first().map(|p: &Prot| place(p, "0"));
        let pred = predicate(c, &name, array, disc, nthreads, named, x0.as_deref());
        let params = if array { "t, j" } else { "t" };
        let unprotected = if array && c.chance(10) {
            format!(" unprotected [{}]", c.below(2))
        } else {
            String::new()
        };
        out += &format!("{decl}\n    excl({params}) = {pred}{unprotected};\n");
        prots.push(Prot { name, array, disc });
    }
    let w = World {
        nthreads,
        named,
        prots,
        sem_pc,
        chan,
    };
    if c.chance(15) {
        let inv = ["y != 2 || d == 1", "own != 2", "k[0] + k[1] < 4", "s < 2"][c.below(4)];
        out += &format!("invariant {inv};\n");
    }
    let bodies = if named { nthreads } else { 1 };
    for t in 0..bodies {
        let b = body(c, &w, t);
        let name = if named {
            w.thread_name(t)
        } else {
            "T".to_string()
        };
        out += &format!("\nthread {name} {{\n  local r : 0..2 = 0;\n{b}}}\n");
    }
    out
}

/// The exclusive access predicate of a variable under `disc`, sometimes
/// combined with a term that can fault or that hands the variable over.
fn predicate(
    c: &mut Choices,
    name: &str,
    array: bool,
    disc: Disc,
    nthreads: usize,
    named: bool,
    x0: Option<&str>,
) -> String {
    let j = if array { "j" } else { "0" };
    let id = |t: usize| {
        if named {
            format!("w{t}")
        } else {
            t.to_string()
        }
    };
    let base = match disc {
        Disc::Lock(Index::Prot) => format!("m[{}] == t", x0.unwrap_or("0")),
        Disc::Lock(ix) => format!("m[{}] == t", lock_index(ix, j)),
        Disc::Owner if array && c.chance(30) => format!("own == t && {j} <= y"),
        Disc::Owner => "own == t".to_string(),
        Disc::SemPc => "at(t, C1) || at(t, C2)".to_string(),
        Disc::Fixed => format!("t == {}", id(0)),
        Disc::Init => format!("init(t, {name}) || (m[0] == t && !init({name}))"),
        Disc::Handoff => format!(
            "(t == {a} && !at({a}, L1)) || (t == {b} && at({a}, L1))",
            a = id(0),
            b = id(1)
        ),
        Disc::Quant if c.chance(30) => {
            format!(
                "exists v in 0..{}: m[v] == t && v <= y",
                if array { "j" } else { "1" }
            )
        }
        Disc::Quant => "exists v in 0..y: m[v] == t".to_string(),
    };
    match c.below(18) {
        // Other threads' locals (`t.r`): a thread's write to its own r
        // changes other threads' predicates (rule (ii)), and a thread
        // computed at run time may be no thread at all (a fault).
        14 => format!("({base}) || (t.r == 2 && own == t)"),
        15 => format!("({base}) && y.r != 1"),
        16 => format!("({base}) || (exists v in 0..y: v.r == 2 && v == t)"),
        17 => format!("({base}) || (own != -1 && (own).r == t)"),
        12 if x0.is_some() => format!("({base}) && {} != 2", x0.unwrap_or_default()),
        13 => format!("({base}) || (at(y, L1) && t == y)"),
        5 => format!(
            "({base}) || (y == 2 && t == {})",
            if array {
                j.to_string()
            } else {
                id(nthreads - 1)
            }
        ),
        6 => format!("({base}) && 2 / d > 0"),
        7 => format!("({base}) && k[y] != 2"),
        8 => format!("({base}) && (forall v in 0..y: v % (d + 1) <= 1)"),
        9 => format!("({base}) && (y + t) % (d + 1) >= 0"),
        10 => format!("({base}) || at(t, L1) && own == t"),
        11 => format!("({base}) && !(exists v in 0..1: at(v, L0) && v != t && y == 2)"),
        _ => base,
    }
}

/// The lock index of a discipline: in the predicate (`j` the element
/// parameter) or in a statement (`j` the element index expression).
fn lock_index(ix: Index, j: &str) -> String {
    match ix {
        Index::Const(n) => n.to_string(),
        Index::Elem => j.to_string(),
        Index::Table => format!("k[{j}]"),
        Index::Shared => "y".to_string(),
        Index::Mixed => format!("({j} + y) % 2"),
        Index::Div => format!("{j} / d"),
        Index::Prot => "0".to_string(),
    }
}

fn body(c: &mut Choices, w: &World, t: usize) -> String {
    let mut stmts: Vec<(String, bool)> = Vec::new();
    // Initialisation blocks first, sometimes.
    for p in &w.prots {
        if p.disc == Disc::Init && c.chance(70) {
            let op = prot_op(c, p, "0", 2);
            stmts.push((format!("  init {} {{\n{op}  }}\n", p.name), false));
        }
    }
    let n = 2 + c.below(4);
    for _ in 0..n {
        stmts.push((block(c, w, t, 1), true));
    }
    if w.sem_pc {
        // Every thread has the labels C1 and C2 that the predicate names.
        let k = c.below(stmts.len() + 1);
        stmts.insert(k, (sem_section(c, w, t), false));
    }
    // L0 on the first labelable statement, L1 on another (or a `skip`).
    let mut out = String::new();
    let first = stmts.iter().position(|(_, l)| *l);
    let second = first.and_then(|f| {
        let k = f + 1 + c.below(stmts.len() - f);
        (k < stmts.len() && stmts[k].1).then_some(k)
    });
    for (k, (s, _)) in stmts.iter().enumerate() {
        let label = if Some(k) == first {
            "L0: "
        } else if Some(k) == second {
            "L1: "
        } else {
            ""
        };
        out += &format!("  {label}{}", s.trim_start());
    }
    if first.is_none() {
        out += "  L0: skip;\n";
    }
    if second.is_none() {
        out += "  L1: skip;\n";
    }
    if c.chance(30) {
        out += "  goto L0;\n";
    }
    out
}

/// `down s; C1: op; C2: op; up s;`, the section the `SemPc` predicate names.
fn sem_section(c: &mut Choices, w: &World, _t: usize) -> String {
    let p = w
        .prots
        .iter()
        .find(|p| p.disc == Disc::SemPc)
        .expect("a SemPc variable");
    let e = elem(c, p);
    let a = prot_op_inline(c, p, &e);
    let b = prot_op_inline(c, p, &e);
    let down = if c.chance(90) { "  down s;\n" } else { "" };
    let up = if c.chance(90) { "  up s;\n" } else { "" };
    format!("{down}  C1: {a}\n  C2: {b}\n{up}")
}

/// An element index of a protected variable in a statement.
fn elem(c: &mut Choices, p: &Prot) -> String {
    if !p.array {
        return String::new();
    }
    ["0", "1", "r", "r", "k[0]", "y", "r + 1"][c.below(7)].to_string()
}

fn place(p: &Prot, e: &str) -> String {
    if p.array {
        format!("{}[{e}]", p.name)
    } else {
        p.name.clone()
    }
}

/// One access to a protected variable, as a single statement.
fn prot_op_inline(c: &mut Choices, p: &Prot, e: &str) -> String {
    let x = place(p, e);
    match c.below(9) {
        0 => format!("{x} := ({x} + 1) % 3;"),
        1 => format!("r := {x};"),
        2 => format!("{x} := any 0..2;"),
        3 => format!("{x} := {x} / d;"),
        4 => format!("{x} := 2 % ({x} + d);"),
        5 => format!("assert {x} != 2;"),
        6 => format!("{x} := r;"),
        7 => format!("{x} := (r + y) % 3;"),
        _ => format!("r := ({x} + r) % 3;"),
    }
}

/// One or two accesses to a protected variable, with control flow.
fn prot_op(c: &mut Choices, p: &Prot, e: &str, ind: usize) -> String {
    let i = "  ".repeat(ind);
    let x = place(p, e);
    match c.below(8) {
        0 => format!("{i}if {x} == 1 {{\n{i}  {x} := 0;\n{i}}}\n"),
        1 => format!("{i}while {x} < 2 {{\n{i}  {x} := {x} + 1;\n{i}}}\n"),
        2 => format!(
            "{i}either {{\n{i}  {}\n{i}}} or {{\n{i}  {}\n{i}}}\n",
            prot_op_inline(c, p, e),
            prot_op_inline(c, p, e)
        ),
        _ => format!("{i}{}\n", prot_op_inline(c, p, e)),
    }
}

/// A critical section of `p` under its discipline, usually correct.
fn section(c: &mut Choices, w: &World, t: usize, p: &Prot, ind: usize) -> String {
    let i = "  ".repeat(ind);
    let e = elem(c, p);
    let mut ops = String::new();
    for _ in 0..1 + c.below(2) {
        if c.chance(10) {
            // Something visible in the middle of the section.
            ops += &format!("{i}y := (y + 1) % 3;\n");
        } else {
            ops += &prot_op(c, p, &e, ind);
        }
    }
    let forget = c.chance(8);
    match p.disc {
        Disc::Lock(_) | Disc::Quant | Disc::Init => {
            let ix = match p.disc {
                Disc::Lock(ix) => ix,
                _ => Index::Const(0),
            };
            let j = if p.array { e.as_str() } else { "0" };
            let l = if c.chance(10) {
                // The wrong lock, now and then.
                format!("m[{}]", c.below(2))
            } else {
                format!("m[{}]", lock_index(ix, j))
            };
            let release = if forget {
                String::new()
            } else {
                format!("{i}release {l};\n")
            };
            format!("{i}acquire {l};\n{ops}{release}")
        }
        Disc::Owner => {
            let give = if forget {
                String::new()
            } else {
                format!("{i}own := -1;\n")
            };
            format!("{i}atomic {{ await own == -1; own := self; }}\n{ops}{give}")
        }
        Disc::Handoff if t == 1 => format!("{i}await at({}, L1);\n{ops}", w.thread_name(0)),
        // SemPc sections are placed by `sem_section`; Fixed and Handoff
        // need nothing taken (and are wrong outside their owner).
        _ => ops,
    }
}

/// A top-level or nested statement (or short sequence of them).
fn block(c: &mut Choices, w: &World, t: usize, depth: usize) -> String {
    let i = "  ".repeat(depth);
    if let Some(k) = w.chan
        && c.chance(25)
    {
        return format!("{i}{}\n", chan_op(c, w, t, k));
    }
    let kinds = if depth >= 3 { 9 } else { 15 };
    match c.below(kinds) {
        0 => format!("{i}skip;\n"),
        1..=3 => {
            let p = &w.prots[c.below(w.prots.len())];
            if p.disc == Disc::SemPc {
                // Outside its section: a likely violation, sometimes tolerated.
                let e = elem(c, p);
                format!("{i}{}\n", prot_op_inline(c, p, &e))
            } else {
                section(c, w, t, p, depth)
            }
        }
        4 => format!("{i}await {};\n", cond(c, w, t, false, 1)),
        5 => format!("{i}assert {};\n", cond(c, w, t, true, 1)),
        6 => format!("{i}r := any 0..{};\n", 1 + c.below(2)),
        7 => format!("{i}r := {};\n", int_expr(c, 1)),
        8 => {
            if c.chance(50) {
                format!("{i}down s;\n")
            } else {
                format!("{i}up s;\n")
            }
        }
        9 | 10 => {
            let cnd = cond(c, w, t, true, 1);
            let a = block(c, w, t, depth + 1);
            if c.chance(50) {
                let b = block(c, w, t, depth + 1);
                format!("{i}if {cnd} {{\n{a}{i}}} else {{\n{b}{i}}}\n")
            } else {
                format!("{i}if {cnd} {{\n{a}{i}}}\n")
            }
        }
        11 => {
            let a = block(c, w, t, depth + 1);
            let b = block(c, w, t, depth + 1);
            format!("{i}either {{\n{a}{i}}} or {{\n{b}{i}}}\n")
        }
        12 => {
            let inner = block(c, w, t, depth + 1);
            let test = ["r < 2", "r < 2 && y != 2", "r < 1 || d == 0"][c.below(3)];
            format!("{i}while {test} {{\n{inner}{i}  r := r + 1;\n{i}}}\n")
        }
        13 => {
            let g = if c.chance(40) {
                format!("await {}; ", cond(c, w, t, false, 0))
            } else {
                String::new()
            };
            let extra = match w.prots.get(c.below(w.prots.len())) {
                Some(p) if c.chance(40) => {
                    let e = elem(c, p);
                    format!(" {}", prot_op_inline(c, p, &e))
                }
                _ => String::new(),
            };
            format!("{i}atomic {{ {g}{}{extra} }}\n", shared_write(c))
        }
        _ => format!("{i}{}\n", shared_write(c)),
    }
}

/// A send or receive on `q`, at an index that may be out of range (`y`
/// reaches 2), receiving into `r`, matching a value, or dropping it; on a
/// buffered channel sometimes a receive that keeps the message, and
/// sometimes inside an `atomic` that goes on.
fn chan_op(c: &mut Choices, w: &World, t: usize, capacity: usize) -> String {
    let index = ["0", "1", "r", "k[0]", "y"][c.below(5)];
    let op = if c.chance(50) {
        let value = ["0", "1", "r", "y", "(r + 1) % 3"][c.below(5)];
        format!("q[{index}] ! {value};")
    } else {
        let arg = ["r", "r", "1", "_", "eval(y)"][c.below(5)];
        if capacity > 0 && c.chance(30) {
            format!("q[{index}] ?<{arg}>;")
        } else {
            format!("q[{index}] ? {arg};")
        }
    };
    if capacity > 0 && c.chance(25) {
        let g = if c.chance(50) {
            format!("await {}; ", cond(c, w, t, false, 0))
        } else {
            String::new()
        };
        return format!("atomic {{ {g}{op} {} }}", shared_write(c));
    }
    op
}

fn shared_write(c: &mut Choices) -> String {
    match c.below(12) {
        0..=2 => "y := (y + 1) % 3;".to_string(),
        3 => "y := any 0..2;".to_string(),
        4 => format!("y := {};", int_expr(c, 1)),
        5 => "k[0], k[1] := k[1], k[0];".to_string(),
        6 => format!(
            "k[{}] := {};",
            ["0", "1", "r"][c.below(3)],
            ["y", "r", "1 - k[0]"][c.below(3)]
        ),
        7 => "d := 1 - d;".to_string(),
        8 => "own := self;".to_string(),
        9 => "own := -1;".to_string(),
        10 => "k[r] := any 0..1;".to_string(),
        _ => "d := 1;".to_string(),
    }
}

/// An integer expression over `y`, `d`, `k` and `r` that may fault.
fn int_expr(c: &mut Choices, depth: usize) -> String {
    if depth == 0 || c.chance(30) {
        return ["0", "1", "2", "y", "r", "d", "k[0]", "k[r]", "k[y]"][c.below(9)].to_string();
    }
    let (a, b) = (int_expr(c, depth - 1), int_expr(c, depth - 1));
    match c.below(6) {
        0 => format!("({a} + {b}) % 3"),
        1 => format!("{a} / ({b} + d)"),
        2 => format!("{a} % ({b} + 1)"),
        3 => format!("({a} * {b}) % 3"),
        4 => format!("{a} / {b}"),
        _ => format!("2 - {a}"),
    }
}

/// A condition over shared variables and locals (and protected variables
/// when `prot`: guards may not read them).
fn cond(c: &mut Choices, w: &World, t: usize, prot: bool, depth: usize) -> String {
    if w.chan.is_some() && c.chance(10) {
        let q = [
            "len(q[0]) > 0",
            "empty(q[1])",
            "nfull(q[r])",
            "full(q[0])",
            "len(q[y]) < 2",
        ];
        return q[c.below(q.len())].to_string();
    }
    // Polls, of buffered channels only (a rendezvous holds no message).
    if w.chan.is_some_and(|k| k > 0) && c.chance(10) {
        let polls = ["q[0]?[1]", "!q[1]?[r]", "q[r]?[eval(y)]", "q[y]?[_]"];
        return polls[c.below(polls.len())].to_string();
    }
    if depth == 0 || c.chance(40) {
        let other = w.thread_name((t + 1 + c.below(w.nthreads - 1)) % w.nthreads);
        return match c.below(if prot { 11 } else { 9 }) {
            0 => "y != 1".to_string(),
            1 => "r == 0".to_string(),
            2 => format!("{} < {}", int_expr(c, 1), int_expr(c, 0)),
            3 => format!("at({other}, L{})", c.below(2)),
            4 => "exists v in 0..y: k[v] == r".to_string(),
            5 => "forall v in 0..1: k[v] <= y".to_string(),
            6 => "own == -1 || own == self".to_string(),
            7 => "s > 0".to_string(),
            8 => "d == 0".to_string(),
            _ => {
                let p = &w.prots[c.below(w.prots.len())];
                let e = elem(c, p);
                format!("{} == {}", place(p, &e), c.below(3))
            }
        };
    }
    let (a, b) = (
        cond(c, w, t, prot, depth - 1),
        cond(c, w, t, prot, depth - 1),
    );
    match c.below(3) {
        0 => format!("({a} && {b})"),
        1 => format!("({a} || {b})"),
        _ => format!("!({a})"),
    }
}
