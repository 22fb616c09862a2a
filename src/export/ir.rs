//! The translation's intermediate form, shared by both targets: target
//! variables, rules (one per transition) made of fault-free expressions and
//! explicit checks, and the state checks.
//!
//! Every expression here is *pure and fault-free where it is evaluated*:
//! wherever optimist could fault (an index out of bounds, a division by
//! zero) or see a forbidden access, the rule first asserts the condition
//! under which it does not, computed by [`Builder::ok`] in optimist's order
//! of evaluation.

use std::collections::{BTreeMap, BTreeSet};

use super::{MAX_NODES, MAX_UNROLL, Refusal, RefusalKind, Target};
use crate::model::{Array, CExpr, Cmd, Model, Next, Place, Quantified, SlotKind};
use crate::symmetry::Ty;
use crate::syntax::ast::BinOp;
use crate::syntax::span::Span;

/// An expression of the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum X {
    /// An integer (a boolean is 0 or 1).
    Int(i64),
    /// A scalar variable; `true` when reading it is an access to a
    /// protected variable (the discipline looks at it).
    Var(usize, bool),
    /// An element of an array variable; the index is known to be in range
    /// where this is evaluated.
    Elem(usize, Box<X>, bool),
    /// A temporary of the rule.
    Temp(usize),
    /// `!a`
    Not(Box<X>),
    /// `-a`
    Neg(Box<X>),
    /// `a op b`
    Bin(BinOp, Box<X>, Box<X>),
    /// `c ? a : b`, fault-free (made by the translation only).
    Ite(Box<X>, Box<X>, Box<X>),
    /// The value of the last; the others are evaluated first, for their
    /// faults only (as optimist evaluates a quantifier's bounds).
    Seq(Vec<X>, Box<X>),
    /// The identity `o + i` of copy i of the symmetric group, where copy
    /// variable `cv` stands for copy i (the symmetric export only: see
    /// [`super::scalarset`]).
    Copy(usize, i64),
    /// `forall` (`true`) or `exists` copy variable `cv` among the copies:
    /// the body (the symmetric export only).
    Quant(bool, usize, Box<X>),
}

impl X {
    /// Its operands, in order.
    pub fn children(&self) -> Vec<&X> {
        match self {
            X::Int(_) | X::Var(..) | X::Temp(_) | X::Copy(..) => Vec::new(),
            X::Elem(_, i, _) | X::Not(i) | X::Neg(i) | X::Quant(_, _, i) => vec![i],
            X::Bin(_, a, b) => vec![a, b],
            X::Ite(c, a, b) => vec![c, a, b],
            X::Seq(pre, v) => pre.iter().chain(std::iter::once(&**v)).collect(),
        }
    }
}

/// Builds `a op b`.
pub fn bin(op: BinOp, a: X, b: X) -> X {
    X::Bin(op, Box::new(a), Box::new(b))
}

/// `a && b` where `None` is true.
pub(super) fn and(a: Option<X>, b: Option<X>) -> Option<X> {
    match (a, b) {
        (None, b) => b,
        (a, None) => a,
        (Some(a), Some(b)) => Some(bin(BinOp::And, a, b)),
    }
}

/// The quantified variables in scope: each one's value (a constant, or in
/// the symmetric export a copy variable) and what it holds.
#[derive(Default)]
pub(super) struct Env {
    pub vals: Vec<X>,
    pub tys: Vec<Option<Ty>>,
}

impl Env {
    pub fn new() -> Env {
        Env::default()
    }

    /// Binds variable `k`.
    pub fn set(&mut self, k: usize, x: X, ty: Option<Ty>) {
        if self.vals.len() <= k {
            self.vals.resize(k + 1, X::Int(0));
            self.tys.resize(k + 1, None);
        }
        self.vals[k] = x;
        self.tys[k] = ty;
    }
}

/// What a target variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A thread's control point.
    Pc,
    /// A boolean (0 or 1).
    Bool,
    /// An integer, a lock (`free` is -1) or a semaphore.
    Int,
}

/// A variable of the target: a program counter, a scalar, or an array.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name in the target.
    pub name: String,
    /// What it holds.
    pub kind: VarKind,
    /// Its range.
    pub lo: i64,
    /// Its range.
    pub hi: i64,
    /// The array length, for arrays.
    pub len: Option<usize>,
    /// Initial values, one per element.
    pub init: Vec<i64>,
    /// The first slot of the model it holds.
    pub slot: usize,
    /// The model's name for it, for comments.
    pub source: String,
}

/// A temporary of a rule.
#[derive(Clone, Copy, Debug)]
pub struct Temp {
    /// Range of the values it takes.
    pub lo: i64,
    /// Range of the values it takes.
    pub hi: i64,
    /// Holds a boolean.
    pub bool: bool,
    /// Holds identities of the symmetric group's copies, `o + i` for copy
    /// i (the symmetric export only).
    pub ids: Option<i64>,
}

/// Where a statement writes.
#[derive(Clone, Debug)]
pub enum Lhs {
    /// A scalar variable.
    Var(usize),
    /// An array element (the index is in range).
    Elem(usize, X),
    /// A temporary.
    Temp(usize),
}

/// A statement of a rule.
#[derive(Clone, Debug)]
pub enum St {
    /// A check; its message says what optimist would report.
    Assert(X, String),
    /// An assignment.
    Set(Lhs, X),
    /// A branch.
    If(X, Vec<St>, Vec<St>),
}

/// One transition of the model as a rule of the target.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The thread.
    pub thread: usize,
    /// Thread, point and statement, for names and comments.
    pub title: String,
    /// Enabled when (the control point and the guard, or a guard that
    /// cannot be evaluated).
    pub guard: X,
    /// The rule's temporaries.
    pub temps: Vec<Temp>,
    /// The command, its checks, and the jump.
    pub body: Vec<St>,
}

/// A predicate every reachable state must satisfy.
#[derive(Clone, Debug)]
pub struct Check {
    /// The predicate.
    pub cond: X,
    /// What it says.
    pub message: String,
    /// The deadlock check: in Promela, SPIN's invalid end state rather
    /// than an assertion.
    pub deadlock: bool,
}

/// A thread, for names and comments.
#[derive(Clone, Debug)]
pub struct ThreadInfo {
    /// The model's name.
    pub name: String,
    /// Its name in the target (for a process).
    pub ident: String,
    /// Its program counter variable.
    pub pc: usize,
    /// `point names[k]` for every control point k, with its line.
    pub points: Vec<String>,
}

/// A whole translation.
#[derive(Clone, Debug)]
pub struct Program {
    /// The model's name.
    pub name: String,
    /// Target variables: program counters first, then the model's variables.
    pub vars: Vec<Var>,
    /// The threads.
    pub threads: Vec<ThreadInfo>,
    /// One rule per transition, in the model's order.
    pub rules: Vec<Rule>,
    /// The state checks.
    pub checks: Vec<Check>,
    /// Names of the temporaries (as many as the largest rule needs).
    pub temp_names: Vec<String>,
    /// A name for the monitor process (Promela).
    pub monitor: String,
    /// For a batch ([`Program::union`]): the variable that says which of
    /// its models runs, and how many there are.
    pub choice: Option<(usize, i64)>,
    /// Promela: the model's `ltl` properties.
    pub ltl: Vec<LtlBlock>,
    /// The symmetric export: the scalarset and how variables use it.
    pub sym: Option<super::scalarset::SymInfo>,
}

/// An `ltl` property for SPIN: the formula over boolean variables, one per
/// atom, that every rule sets to the atom's value in the state it enters.
/// SPIN reads a formula's expressions with its own grammar, in which `->`
/// is implication, so an atom written out (whose translation may hold a
/// conditional expression `(c -> a : b)`) could be misread; a variable
/// cannot. A variable that is a function of the state adds no state.
#[derive(Clone, Debug)]
pub struct LtlBlock {
    /// Its name in the target.
    pub name: String,
    /// The formula; atom k is the variable `atoms[k]`.
    pub formula: crate::Ltl,
    /// The atoms' variables.
    pub atoms: Vec<usize>,
    /// Variables that say whether an atom that may fault can be evaluated:
    /// the property asks that they always hold.
    pub oks: Vec<usize>,
    /// The formula as written, for a comment.
    pub text: String,
}

/// Names no target variable may take: keywords of Promela and Murphi
/// (Murphi's are case-insensitive, so they are compared in lower case), and
/// the prefixes the translation uses.
const RESERVED: &[&str] = &[
    // Promela
    "active",
    "assert",
    "atomic",
    "bit",
    "bool",
    "break",
    "byte",
    "chan",
    "d_step",
    "d_proctype",
    "do",
    "else",
    "empty",
    "enabled",
    "eval",
    "false",
    "fi",
    "full",
    "get_priority",
    "goto",
    "hidden",
    "if",
    "init",
    "inline",
    "int",
    "len",
    "local",
    "mtype",
    "nempty",
    "never",
    "nfull",
    "notrace",
    "np_",
    "od",
    "of",
    "pc_value",
    "pid",
    "printf",
    "printm",
    "priority",
    "proctype",
    "provided",
    "run",
    "select",
    "set_priority",
    "short",
    "show",
    "skip",
    "timeout",
    "trace",
    "true",
    "typedef",
    "unless",
    "unsigned",
    "xr",
    "xs",
    "for",
    "in",
    "c_code",
    "c_decl",
    "c_expr",
    "c_state",
    "c_track",
    "ltl",
    "always",
    "eventually",
    "until",
    "weakuntil",
    "stronguntil",
    "implies",
    "equivalent",
    "release",
    "_",
    "_pid",
    "_nr_pr",
    "_last",
    "_priority",
    // Murphi (and Rumur)
    "alias",
    "array",
    "assume",
    "begin",
    "boolean",
    "by",
    "case",
    "clear",
    "const",
    "cover",
    "elsif",
    "end",
    "endalias",
    "endexists",
    "endfor",
    "endforall",
    "endfunction",
    "endif",
    "endprocedure",
    "endrecord",
    "endrule",
    "endruleset",
    "endstartstate",
    "endswitch",
    "endwhile",
    "enum",
    "error",
    "exists",
    "forall",
    "function",
    "invariant",
    "isundefined",
    "liveness",
    "procedure",
    "process",
    "program",
    "put",
    "record",
    "return",
    "rule",
    "ruleset",
    "scalarset",
    "startstate",
    "switch",
    "then",
    "to",
    "type",
    "undefine",
    "undefined",
    "union",
    "var",
    "while",
    "ismember",
    "multiset",
    "multisetadd",
    "multisetcount",
    "multisetremove",
    "multisetremovepred",
    "real",
    "traceuntil",
    "with",
    // C, for the generated verifiers
    "auto",
    "char",
    "continue",
    "default",
    "double",
    "enum",
    "extern",
    "float",
    "long",
    "main",
    "register",
    "signed",
    "sizeof",
    "static",
    "struct",
    "volatile",
    "now",
    "state",
];

/// Hands out target names: sanitised, unique, never reserved.
#[derive(Default)]
pub(super) struct Names {
    taken: BTreeSet<String>,
}

impl Names {
    pub(super) fn fresh(&mut self, wanted: &str) -> String {
        let mut base: String = wanted
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        while base.contains("__") {
            base = base.replace("__", "_");
        }
        let mut base = base.trim_matches('_').to_string();
        if base.is_empty() || !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base = format!("v{base}");
        }
        let mut name = base.clone();
        let mut n = 1;
        while RESERVED.contains(&name.to_ascii_lowercase().as_str())
            || self.taken.contains(&name.to_ascii_lowercase())
        {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.taken.insert(name.to_ascii_lowercase());
        name
    }
}

/// Turns the model into a [`Program`].
pub struct Builder<'m> {
    pub(super) model: &'m Model,
    pub(super) vars: Vec<Var>,
    /// For each slot: its variable and its element.
    pub(super) slot_var: Vec<(usize, Option<usize>)>,
    /// The program counter variable of each thread.
    pub(super) pc_var: Vec<usize>,
    nodes: usize,
    /// The symmetric export: the group of copies and how it is laid out.
    pub(super) sym: Option<super::scalarset::Ctx<'m>>,
}

/// Where a rule is, for refusals.
pub(super) struct Here {
    pub(super) span: Span,
    pub(super) what: String,
}

/// The discipline of one transition: its thread, and the protected slots
/// whose `excl` was saved in a temporary before the command ran.
pub(super) struct Disc {
    pub(super) thread: usize,
    saved: BTreeMap<u32, usize>,
}

/// The check that a state is no deadlock: some thread can move (a rule's
/// guard holds: a `d_step`'s, a rule's, exactly where optimist's
/// transition is enabled), or every thread has ended as
/// [`Model::all_ended`] says: at its end, at a point labelled `end...`, or
/// not started (at its first point, its dormant flag 0).
fn no_deadlock(
    model: &Model,
    threads: &[ThreadInfo],
    rules: &[Rule],
    read: &dyn Fn(u32) -> X,
) -> Check {
    let ended = threads
        .iter()
        .zip(&model.threads)
        .map(|(info, th)| {
            let at = |k: i64| bin(BinOp::Eq, X::Var(info.pc, false), X::Int(k));
            let ends = (0..=th.end()).filter(|&k| th.valid_end(k)).map(at);
            let dormant = th
                .dormant
                .map(|slot| bin(BinOp::And, at(0), bin(BinOp::Eq, read(slot), X::Int(0))));
            ends.chain(dormant)
                .reduce(|a, b| bin(BinOp::Or, a, b))
                .expect("the end")
        })
        .reduce(|a, b| bin(BinOp::And, a, b))
        .unwrap_or(X::Int(1));
    deadlock_check(rules.iter().map(|rule| rule.guard.clone()), ended)
}

/// The deadlock check: some rule is enabled (`guards`), or every thread
/// has ended.
pub(super) fn deadlock_check(guards: impl Iterator<Item = X>, ended: X) -> Check {
    let cond = guards
        .chain(std::iter::once(ended))
        .reduce(|a, b| bin(BinOp::Or, a, b))
        .expect("at least the ended test");
    Check {
        cond,
        message: "deadlock: no thread can move, and not every thread has ended".into(),
        deadlock: true,
    }
}

impl Program {
    /// The control points that program-counter variable `v` takes, as
    /// `0 = name, 1 = name, ...`, for a comment beside its declaration.
    pub fn points_of(&self, v: usize) -> String {
        let t = self
            .threads
            .iter()
            .find(|t| t.pc == v)
            .expect("a pc has a thread");
        let points: Vec<String> = t
            .points
            .iter()
            .enumerate()
            .map(|(k, name)| format!("{k} = {name}"))
            .collect();
        points.join(", ")
    }

    /// The translation of `model` for `target`; with `deadlock`, a state
    /// where no thread can move and not every thread has ended breaks a
    /// check, as `check` reports it (without, as `check --no-deadlock`).
    pub fn new(model: &Model, target: Target, deadlock: bool) -> Result<Program, Refusal> {
        Program::build(model, target, deadlock, None)
    }

    /// The translation of `model` for Murphi that keeps the symmetry `sym`
    /// (full): one scalarset for the copies, their variables indexed by it,
    /// and copy 0's rules once for every copy (see [`super::scalarset`]).
    pub fn symmetric(
        model: &Model,
        deadlock: bool,
        sym: &crate::symmetry::Symmetry,
    ) -> Result<Program, Refusal> {
        Program::build(model, Target::Murphi, deadlock, Some(sym))
    }

    fn build(
        model: &Model,
        target: Target,
        deadlock: bool,
        sym: Option<&crate::symmetry::Symmetry>,
    ) -> Result<Program, Refusal> {
        if let Some(tr) = model.transitions.iter().find(|tr| tr.timeout) {
            return Err(Refusal {
                kind: RefusalKind::Timeout,
                message: format!(
                    "`{}` (line {}) waits for `timeout`, which the export does not translate: Murphi has no such guard, and SPIN's would also wait for the monitor process the translation adds",
                    tr.text, tr.line
                ),
                span: Some(tr.span),
            });
        }
        let mut names = Names::default();
        let mut b = Builder {
            model,
            vars: Vec::new(),
            slot_var: vec![(0, None); model.slots.len()],
            pc_var: Vec::new(),
            nodes: 0,
            sym: sym
                .map(|s| super::scalarset::Ctx::new(model, s))
                .transpose()?,
        };
        b.declare(&mut names)?;
        let threads = b.thread_infos(&mut names);
        if target == Target::Promela {
            let procs = model
                .threads
                .iter()
                .filter(|th| th.points.iter().any(|p| !p.transitions.is_empty()))
                .count();
            spin_processes(procs, "model")?;
        }
        let mut rules = Vec::new();
        for k in 0..model.transitions.len() {
            if b.rule_of_its_own(k) {
                rules.push(b.rule(k)?);
            }
        }
        let mut checks = b.checks()?;
        if deadlock && b.sym.is_some() {
            checks.push(b.no_deadlock_copies(&rules));
        } else if deadlock {
            checks.push(no_deadlock(model, &threads, &rules, &|slot| {
                b.read_slot(slot, false)
            }));
        }
        let ltl = if target == Target::Promela {
            b.ltl(&mut names, &mut rules)?
        } else {
            Vec::new()
        };
        let temps = rules.iter().map(|r| r.temps.len()).max().unwrap_or(0);
        let temp_names = (0..temps)
            .map(|k| names.fresh(&format!("tmp{k}")))
            .collect();
        let sym = b.finish_copies(&mut names, &rules, &checks, temps)?;
        let monitor = names.fresh("monitor");
        Ok(Program {
            name: model.name.clone(),
            vars: b.vars,
            threads,
            rules,
            checks,
            temp_names,
            monitor,
            choice: None,
            ltl,
            sym,
        })
    }

    /// The disjoint union of `parts`: a variable `which` (0 at first) says
    /// which part runs, each part's rules and checks apply only to it, and
    /// the renderers choose the part in the first step (Promela: one more
    /// state, `which = 0`) or in the start state (Murphi). Its state count is
    /// therefore the sum of the parts' (plus one in SPIN).
    pub fn union(parts: Vec<Program>) -> Program {
        let mut names = Names::default();
        let count = parts.len() as i64;
        let mut vars = vec![Var {
            name: names.fresh("which"),
            kind: VarKind::Int,
            lo: 0,
            hi: count,
            len: None,
            init: vec![0],
            slot: 0,
            source: "the model that runs (0: not chosen yet)".to_string(),
        }];
        let (mut threads, mut rules, mut checks) = (Vec::new(), Vec::new(), Vec::new());
        let mut temps = 0;
        let mut all = Vec::new();
        for (j, part) in parts.into_iter().enumerate() {
            let id = j as i64 + 1;
            let which = |op| bin(op, X::Var(0, false), X::Int(id));
            all.push(part.name.clone());
            let off = vars.len();
            let rename = |names: &mut Names, n: &str| names.fresh(&format!("m{id}_{n}"));
            for var in part.vars {
                vars.push(Var {
                    name: rename(&mut names, &var.name),
                    source: format!("{}: {}", part.name, var.source),
                    ..var
                });
            }
            let toff = threads.len();
            for th in part.threads {
                threads.push(ThreadInfo {
                    ident: rename(&mut names, &th.ident),
                    pc: th.pc + off,
                    name: format!("{}: {}", part.name, th.name),
                    points: th.points,
                });
            }
            for mut rule in part.rules {
                rule.thread += toff;
                shift(&mut rule.guard, off);
                rule.guard = bin(BinOp::And, which(BinOp::Eq), rule.guard);
                rule.body.iter_mut().for_each(|st| shift_st(st, off));
                rule.title = format!("{}: {}", part.name, rule.title);
                rules.push(rule);
            }
            for mut check in part.checks {
                shift(&mut check.cond, off);
                check.cond = bin(BinOp::Or, which(BinOp::Ne), check.cond);
                check.message = format!("{}: {}", part.name, check.message);
                checks.push(check);
            }
            temps = temps.max(part.temp_names.len());
        }
        let temp_names = (0..temps)
            .map(|k| names.fresh(&format!("tmp{k}")))
            .collect();
        Program {
            name: format!("batch of {count}: {}", all.join(", ")),
            vars,
            threads,
            rules,
            checks,
            temp_names,
            monitor: names.fresh("monitor"),
            choice: Some((0, count)),
            // A batch counts states; its parts' properties are not its own.
            ltl: Vec::new(),
            sym: None,
        }
    }
}

/// Moves every variable of `x` by `off` (for [`Program::union`]).
fn shift(x: &mut X, off: usize) {
    match x {
        X::Int(_) | X::Temp(_) | X::Copy(..) => {}
        X::Quant(_, _, body) => shift(body, off),
        X::Var(v, _) => *v += off,
        X::Elem(v, i, _) => {
            *v += off;
            shift(i, off);
        }
        X::Not(a) | X::Neg(a) => shift(a, off),
        X::Bin(_, a, b) => {
            shift(a, off);
            shift(b, off);
        }
        X::Ite(c, a, b) => {
            shift(c, off);
            shift(a, off);
            shift(b, off);
        }
        X::Seq(pre, v) => {
            pre.iter_mut().for_each(|p| shift(p, off));
            shift(v, off);
        }
    }
}

fn shift_st(st: &mut St, off: usize) {
    match st {
        St::Assert(x, _) => shift(x, off),
        St::Set(lhs, x) => {
            match lhs {
                Lhs::Var(v) => *v += off,
                Lhs::Elem(v, i) => {
                    *v += off;
                    shift(i, off);
                }
                Lhs::Temp(_) => {}
            }
            shift(x, off);
        }
        St::If(c, a, b) => {
            shift(c, off);
            a.iter_mut()
                .chain(b.iter_mut())
                .for_each(|st| shift_st(st, off));
        }
    }
}

/// `name[k]` -> (`name`, k).
pub(super) fn split_index(name: &str) -> Option<(&str, usize)> {
    let inner = name.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    Some((&inner[..open], inner[open + 1..].parse().ok()?))
}

/// Every array `(base, len)` the model indexes with a computed index.
fn indexed_arrays(model: &Model) -> BTreeSet<(u32, u32)> {
    fn expr(e: &CExpr, out: &mut BTreeSet<(u32, u32)>) {
        match e {
            CExpr::Const(_) | CExpr::Var { .. } | CExpr::Bound(_) => {}
            CExpr::Elem { array, index } => {
                out.insert((array.base, array.len));
                expr(index, out);
            }
            CExpr::At { thread, .. } | CExpr::LocalOf { thread, .. } => expr(thread, out),
            CExpr::Not(a) | CExpr::Neg(a) => expr(a, out),
            CExpr::Bin(_, a, b) => {
                expr(a, out);
                expr(b, out);
            }
            CExpr::Quant(q) => q.parts().into_iter().for_each(|e| expr(e, out)),
        }
    }
    fn cmd(c: &Cmd, out: &mut BTreeSet<(u32, u32)>) {
        match c {
            Cmd::Assign(parts) => {
                for (p, e) in parts {
                    expr(e, out);
                    if let Place::Elem { array, index } = p {
                        out.insert((array.base, array.len));
                        expr(index, out);
                    }
                }
            }
            Cmd::Assert(e) => expr(e, out),
            Cmd::If(c, a, b) => {
                expr(c, out);
                a.iter().chain(b).for_each(|x| cmd(x, out));
            }
        }
    }
    let mut out = BTreeSet::new();
    for tr in &model.transitions {
        if let Some(g) = &tr.guard {
            expr(g, &mut out);
        }
        tr.body.iter().for_each(|c| cmd(c, &mut out));
        if let Next::Branch(c, _, _) = &tr.next {
            expr(c, &mut out);
        }
    }
    for p in &model.protected {
        p.excl.iter().for_each(|e| expr(e, &mut out));
    }
    for inv in &model.invariants {
        expr(&inv.expr, &mut out);
    }
    out
}

fn unsupported(message: String) -> Refusal {
    Refusal {
        kind: RefusalKind::Width,
        message,
        span: None,
    }
}

/// A closed interval of values, wide enough to hold any sum or product of
/// two 64-bit values.
#[derive(Clone, Copy, Debug)]
pub(super) struct Iv(pub(super) i128, pub(super) i128);

const I32: Iv = Iv(i32::MIN as i128, i32::MAX as i128);

impl Iv {
    fn within(self, o: Iv) -> bool {
        self.0 >= o.0 && self.1 <= o.1
    }
    fn abs_max(self) -> i128 {
        self.0.abs().max(self.1.abs())
    }
    fn union(self, o: Iv) -> Iv {
        Iv(self.0.min(o.0), self.1.max(o.1))
    }
}

impl Builder<'_> {
    /// Declares the program counters and the variables, grouping the slots
    /// of an array into one array variable.
    fn declare(&mut self, names: &mut Names) -> Result<(), Refusal> {
        let model = self.model;
        self.pc_var = vec![0; model.threads.len()];
        self.declare_copies(names)?;
        for (t, th) in model.threads.iter().enumerate() {
            if self.owned_by_copy(t as u32) {
                continue;
            }
            self.pc_var[t] = self.vars.len();
            self.slot_var[t] = (self.vars.len(), None);
            self.vars.push(Var {
                name: names.fresh(&format!("pc_{}", th.name)),
                kind: VarKind::Pc,
                lo: 0,
                hi: th.end(),
                len: None,
                init: vec![model.init[t]],
                slot: t,
                source: format!("control point of {}", th.name),
            });
        }
        let indexed = indexed_arrays(model);
        let mut s = model.first_var();
        while s < model.slots.len() {
            if self.owned_by_copy(s as u32) {
                s += 1;
                continue;
            }
            let slot = &model.slots[s];
            let (lo, hi) = model.bounds[s];
            self.width(s)?;
            // An array: `a[0]`, `a[1]`, ... of one kind and range.
            let mut len = 0;
            if let Some((base, 0)) = split_index(&slot.name) {
                while s + len < model.slots.len()
                    && split_index(&model.slots[s + len].name) == Some((base, len))
                    && model.slots[s + len].kind == slot.kind
                    && model.bounds[s + len] == (lo, hi)
                {
                    len += 1;
                }
            }
            let kind = if slot.kind == SlotKind::Bool {
                VarKind::Bool
            } else {
                VarKind::Int
            };
            let v = self.vars.len();
            if len > 0 {
                let base = split_index(&slot.name).map_or("", |b| b.0).to_string();
                for k in 0..len {
                    self.slot_var[s + k] = (v, Some(k));
                }
                self.vars.push(Var {
                    name: names.fresh(&base),
                    kind,
                    lo,
                    hi,
                    len: Some(len),
                    init: model.init[s..s + len].to_vec(),
                    slot: s,
                    source: base,
                });
                s += len;
            } else {
                self.slot_var[s] = (v, None);
                self.vars.push(Var {
                    name: names.fresh(&slot.name),
                    kind,
                    lo,
                    hi,
                    len: None,
                    init: vec![model.init[s]],
                    slot: s,
                    source: slot.name.clone(),
                });
                s += 1;
            }
        }
        for &(base, len) in &indexed {
            let (v, k) = self.slot_var[base as usize];
            if k != Some(0) || self.vars[v].len != Some(len as usize) {
                return Err(unsupported(format!(
                    "the slots {base}..{} are indexed as an array but are not declared as one",
                    base + len
                )));
            }
        }
        self.lay_out_copies(names)
    }

    /// The threads, for names and comments.
    fn thread_infos(&self, names: &mut Names) -> Vec<ThreadInfo> {
        let point = |p: &crate::model::Point| match &p.label {
            Some(l) => format!("{l} (line {})", p.line),
            None if p.transitions.is_empty() => format!("end (line {})", p.line),
            None => format!("line {}", p.line),
        };
        (self.model.threads.iter().enumerate())
            .map(|(t, th)| ThreadInfo {
                name: th.name.clone(),
                ident: names.fresh(&format!("proc_{}", th.name)),
                pc: self.pc_var[t],
                points: th.points.iter().map(point).collect(),
            })
            .collect()
    }

    /// Refuses slot `s` where its range leaves 32 bits.
    pub(super) fn width(&self, s: usize) -> Result<(), Refusal> {
        let slot = &self.model.slots[s];
        let (lo, hi) = self.model.bounds[s];
        if lo < i64::from(i32::MIN) || hi > i64::from(i32::MAX) {
            return Err(Refusal {
                kind: RefusalKind::Width,
                message: format!(
                    "{} ranges over {lo}..{hi}, beyond the 32-bit integers of SPIN and Rumur",
                    slot.name
                ),
                span: Some(slot.span),
            });
        }
        Ok(())
    }

    /// The value range of a variable or temporary.
    fn var_iv(&self, v: usize) -> Iv {
        Iv(self.vars[v].lo as i128, self.vars[v].hi as i128)
    }

    /// The values `x` may take, given the ranges of the variables.
    pub(super) fn iv(&self, x: &X, temps: &[Temp]) -> Iv {
        match x {
            X::Int(c) => Iv(*c as i128, *c as i128),
            X::Var(v, _) | X::Elem(v, _, _) => self.var_iv(*v),
            X::Temp(t) => Iv(temps[*t].lo as i128, temps[*t].hi as i128),
            X::Not(_) => Iv(0, 1),
            X::Neg(a) => {
                let a = self.iv(a, temps);
                Iv(-a.1, -a.0)
            }
            X::Bin(op, a, b) => {
                use BinOp::*;
                let (a, b) = (self.iv(a, temps), self.iv(b, temps));
                match op {
                    Or | And | Eq | Ne | Lt | Le | Gt | Ge => Iv(0, 1),
                    Add => Iv(a.0 + b.0, a.1 + b.1),
                    Sub => Iv(a.0 - b.1, a.1 - b.0),
                    Mul => {
                        let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
                        Iv(*p.iter().min().unwrap(), *p.iter().max().unwrap())
                    }
                    // |a / b| <= |a| and |a % b| <= |a|; a % b has a's sign.
                    Div => Iv(-a.abs_max(), a.abs_max()),
                    Mod if a.0 >= 0 => Iv(0, a.1.min((b.abs_max() - 1).max(0))),
                    Mod => Iv(-a.abs_max(), a.abs_max()),
                }
            }
            X::Ite(_, a, b) => self.iv(a, temps).union(self.iv(b, temps)),
            X::Seq(_, v) => self.iv(v, temps),
            X::Copy(_, o) => {
                let n = self.sym.as_ref().map_or(1, |c| c.n()) as i128;
                Iv(*o as i128, *o as i128 + n - 1)
            }
            X::Quant(..) => Iv(0, 1),
        }
    }

    /// Refuses when some subexpression of `x` may leave the 32-bit range.
    fn check_width(&mut self, x: &X, temps: &[Temp], here: &Here) -> Result<(), Refusal> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Refusal {
                kind: RefusalKind::Size,
                message: format!(
                    "the translation would hold more than {MAX_NODES} expression nodes (at {})",
                    here.what
                ),
                span: Some(here.span),
            });
        }
        let iv = self.iv(x, temps);
        if !iv.within(I32) {
            return Err(Refusal {
                kind: RefusalKind::Width,
                message: format!(
                    "{}: an intermediate value may range over {}..{}, beyond the 32-bit integers of SPIN and Rumur, where optimist computes in 64 bits",
                    here.what, iv.0, iv.1
                ),
                span: Some(here.span),
            });
        }
        for c in x.children() {
            self.check_width(c, temps, here)?;
        }
        Ok(())
    }

    fn check_stmts(&mut self, body: &[St], temps: &[Temp], here: &Here) -> Result<(), Refusal> {
        for st in body {
            match st {
                St::Assert(x, _) => self.check_width(x, temps, here)?,
                St::Set(lhs, x) => {
                    if let Lhs::Elem(_, i) = lhs {
                        self.check_width(i, temps, here)?;
                    }
                    self.check_width(x, temps, here)?;
                }
                St::If(c, a, b) => {
                    self.check_width(c, temps, here)?;
                    self.check_stmts(a, temps, here)?;
                    self.check_stmts(b, temps, here)?;
                }
            }
        }
        Ok(())
    }

    /// The target expression for a read of `slot`.
    pub(super) fn read_slot(&self, slot: u32, access: bool) -> X {
        let (v, k) = self.slot_var[slot as usize];
        let access = access && self.model.protected_index[slot as usize].is_some();
        match (k, self.copy_index(slot)) {
            (Some(_), Some(i)) => X::Elem(v, Box::new(i), access),
            (None, _) => X::Var(v, access),
            (Some(k), None) => X::Elem(v, Box::new(X::Int(k as i64)), access),
        }
    }

    /// Where a write to `slot` goes.
    fn slot_lhs(&self, slot: u32) -> Lhs {
        let (v, k) = self.slot_var[slot as usize];
        match (k, self.copy_index(slot)) {
            (Some(_), Some(i)) => Lhs::Elem(v, i),
            (None, _) => Lhs::Var(v),
            (Some(k), None) => Lhs::Elem(v, X::Int(k as i64)),
        }
    }

    /// Lowers a compiled expression that holds a plain value; `env` holds
    /// the quantified variables in scope.
    pub(super) fn lower(&self, e: &CExpr, env: &mut Env, here: &Here) -> Result<X, Refusal> {
        self.lower_as(e, Some(Ty::Plain), env, here)
    }

    /// Lowers a compiled expression that holds what `want` says: in the
    /// symmetric export, a constant where a copy's identity is wanted is
    /// that copy (see [`super::scalarset`]); elsewhere types do not matter.
    fn lower_as(
        &self,
        e: &CExpr,
        want: Option<Ty>,
        env: &mut Env,
        here: &Here,
    ) -> Result<X, Refusal> {
        Ok(match e {
            CExpr::Const(c) => self.constant(*c, want),
            CExpr::Var { slot, shared } => self.read_slot(*slot, *shared),
            CExpr::Elem { array, index } => self.lower_elem(array, index, env, here)?,
            CExpr::At { thread, pcs } => {
                let t = self.lower_as(thread, self.thread_ty(), env, here)?;
                self.lower_at(t, pcs)?
            }
            CExpr::LocalOf { thread, slots } => {
                let t = self.lower_as(thread, self.thread_ty(), env, here)?;
                self.lower_local_of(t, slots)?
            }
            CExpr::Bound(k) => env.vals[*k as usize].clone(),
            CExpr::Not(a) => X::Not(Box::new(self.lower(a, env, here)?)),
            CExpr::Neg(a) => X::Neg(Box::new(self.lower(a, env, here)?)),
            CExpr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
                let t = self.ty_of(a, env).or_else(|| self.ty_of(b, env));
                let (a, b) = (
                    self.lower_as(a, t, env, here)?,
                    self.lower_as(b, t, env, here)?,
                );
                bin(*op, a, b)
            }
            CExpr::Bin(op, a, b) => bin(*op, self.lower(a, env, here)?, self.lower(b, env, here)?),
            CExpr::Quant(q) => self.lower_quant(q, env, here)?,
        })
    }

    /// `x[i]`: the element's own variable where i is known, else an
    /// indexed read (an access if any element is protected).
    fn lower_elem(
        &self,
        array: &Array,
        index: &CExpr,
        env: &mut Env,
        here: &Here,
    ) -> Result<X, Refusal> {
        let (v, _) = self.slot_var[array.base as usize];
        let access = array.shared
            && array
                .slots()
                .any(|s| self.model.protected_index[s as usize].is_some());
        let i = self.lower_as(index, Some(self.index_ty(array.base)), env, here)?;
        if let X::Int(k) = i
            && let Ok(slot) = array.slot(k)
        {
            return Ok(self.read_slot(slot, array.shared));
        }
        Ok(X::Elem(v, Box::new(i), access))
    }

    /// `at(t, L)`: a comparison of thread t's pc, or of every thread's
    /// where t (lowered already) is known only at run time.
    fn lower_at(&self, t: X, pcs: &[Option<i64>]) -> Result<X, Refusal> {
        if self.sym.is_some() {
            return self.lower_at_copies(t, pcs);
        }
        Ok(self.lower_at_threads(t, pcs))
    }

    /// `at(t, L)` over threads numbered by constants.
    pub(super) fn lower_at_threads(&self, t: X, pcs: &[Option<i64>]) -> X {
        let at = |k: usize, pc: i64| bin(BinOp::Eq, self.read_slot(k as u32, false), X::Int(pc));
        if let X::Int(k) = t {
            match usize::try_from(k)
                .ok()
                .and_then(|k| pcs.get(k).map(|p| (k, p)))
            {
                Some((k, Some(pc))) => at(k, *pc),
                _ => X::Int(0),
            }
        } else {
            let mut alts = pcs
                .iter()
                .enumerate()
                .filter_map(|(k, p)| p.map(|pc| (k, pc)))
                .map(|(k, pc)| {
                    bin(
                        BinOp::And,
                        bin(BinOp::Eq, t.clone(), X::Int(k as i64)),
                        at(k, pc),
                    )
                })
                .collect::<Vec<_>>();
            match alts.len() {
                0 => X::Seq(vec![t], Box::new(X::Int(0))),
                _ => {
                    let first = alts.remove(0);
                    alts.into_iter().fold(first, |a, b| bin(BinOp::Or, a, b))
                }
            }
        }
    }

    /// `t.r`: thread t's local r, chosen at run time where t (lowered
    /// already) is not known.
    fn lower_local_of(&self, t: X, slots: &[Option<u32>]) -> Result<X, Refusal> {
        if self.sym.is_some() {
            return self.lower_local_of_copies(t, slots);
        }
        Ok(self.lower_local_of_threads(t, slots))
    }

    /// `t.r` over threads numbered by constants.
    pub(super) fn lower_local_of_threads(&self, t: X, slots: &[Option<u32>]) -> X {
        let owners: Vec<(usize, u32)> = slots
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect();
        if let X::Int(k) = t {
            match usize::try_from(k)
                .ok()
                .and_then(|k| slots.get(k).copied().flatten())
            {
                Some(slot) => self.read_slot(slot, false),
                // optimist faults here; `1 / 0` makes the rule
                // assert false first, as it does.
                None => X::Seq(
                    vec![bin(BinOp::Div, X::Int(1), X::Int(0))],
                    Box::new(X::Int(0)),
                ),
            }
        } else {
            // `t == k0 ? r0 : t == k1 ? r1 : ... : rn`, evaluated only
            // where t is one of the threads with a local r: `1 / ok`
            // is there for its fault condition only (see `ok`).
            let is = |k: usize| bin(BinOp::Eq, t.clone(), X::Int(k as i64));
            let valid = owners
                .iter()
                .map(|&(k, _)| is(k))
                .reduce(|a, b| bin(BinOp::Or, a, b))
                .unwrap_or(X::Int(0));
            let mut rest = owners.iter().rev();
            let last = rest
                .next()
                .map_or(X::Int(0), |&(_, s)| self.read_slot(s, false));
            let value = rest.fold(last, |acc, &(k, s)| {
                X::Ite(
                    Box::new(is(k)),
                    Box::new(self.read_slot(s, false)),
                    Box::new(acc),
                )
            });
            X::Seq(
                vec![t.clone(), bin(BinOp::Div, X::Int(1), valid)],
                Box::new(value),
            )
        }
    }

    /// A quantifier, unrolled over its range (at most `MAX_UNROLL` values).
    fn lower_quant(&self, q: &Quantified, env: &mut Env, here: &Here) -> Result<X, Refusal> {
        if let Some(x) = self.lower_quant_copies(q, env, here)? {
            return Ok(x);
        }
        let forall = q.forall;
        let (l, h) = (self.lower(&q.lo, env, here)?, self.lower(&q.hi, env, here)?);
        let (li, hi_) = (self.iv(&l, &[]), self.iv(&h, &[]));
        let (first, last) = (li.0, hi_.1);
        if last - first + 1 > MAX_UNROLL as i128 {
            return Err(Refusal {
                kind: RefusalKind::Quantifier,
                message: format!(
                    "{}: a quantifier may range over {} values, more than the {MAX_UNROLL} the translation unrolls",
                    here.what,
                    last - first + 1
                ),
                span: Some(here.span),
            });
        }
        let constant = matches!((&l, &h), (X::Int(_), X::Int(_)));
        let k = q.var as usize;
        let mut terms = Vec::new();
        for v in first..=last {
            env.set(k, X::Int(v as i64), Some(Ty::Plain));
            let b = self.lower(&q.body, env, here)?;
            let v = X::Int(v as i64);
            terms.push(if constant {
                b
            } else {
                let inside = bin(
                    BinOp::And,
                    bin(BinOp::Le, l.clone(), v.clone()),
                    bin(BinOp::Le, v, h.clone()),
                );
                if forall {
                    bin(BinOp::Or, X::Not(Box::new(inside)), b)
                } else {
                    bin(BinOp::And, inside, b)
                }
            });
        }
        let op = if forall { BinOp::And } else { BinOp::Or };
        let value = if terms.is_empty() {
            X::Int(i64::from(forall))
        } else {
            let first = terms.remove(0);
            terms.into_iter().fold(first, |a, b| bin(op, a, b))
        };
        Ok(if constant {
            value
        } else {
            // optimist evaluates both bounds first.
            X::Seq(vec![l, h], Box::new(value))
        })
    }

    /// The condition under which evaluating `x` neither faults nor, with a
    /// discipline, makes a forbidden access; `None` when it always holds.
    /// It is itself fault-free, and follows optimist's order of evaluation.
    pub(super) fn ok(
        &self,
        x: &X,
        disc: Option<&Disc>,
        temps: &[Temp],
    ) -> Result<Option<X>, Refusal> {
        Ok(match x {
            X::Int(_) | X::Temp(_) | X::Copy(..) => None,
            X::Quant(_, _, body) => self.ok_quant(body, disc, temps)?,
            X::Var(v, access) => match disc {
                Some(d) if *access => Some(self.allowed(d, self.vars[*v].slot as u32)?),
                _ => None,
            },
            X::Elem(v, i, access) => {
                let len = self.vars[*v].len.unwrap_or(1) as i64;
                let inside = if self.iv(i, temps).within(Iv(0, len as i128 - 1)) {
                    None
                } else {
                    Some(bin(
                        BinOp::And,
                        bin(BinOp::Le, X::Int(0), (**i).clone()),
                        bin(BinOp::Lt, (**i).clone(), X::Int(len)),
                    ))
                };
                let acc = match disc {
                    Some(d) if *access => Some(self.allowed_elem(d, *v, i)?),
                    _ => None,
                };
                and(and(self.ok(i, disc, temps)?, inside), acc)
            }
            X::Not(a) | X::Neg(a) => self.ok(a, disc, temps)?,
            X::Bin(BinOp::And, a, b) => match self.ok(b, disc, temps)? {
                None => self.ok(a, disc, temps)?,
                Some(ob) => and(
                    self.ok(a, disc, temps)?,
                    Some(bin(BinOp::Or, X::Not(a.clone()), ob)),
                ),
            },
            X::Bin(BinOp::Or, a, b) => match self.ok(b, disc, temps)? {
                None => self.ok(a, disc, temps)?,
                Some(ob) => and(
                    self.ok(a, disc, temps)?,
                    Some(bin(BinOp::Or, (**a).clone(), ob)),
                ),
            },
            X::Bin(BinOp::Div | BinOp::Mod, a, b) => {
                let bi = self.iv(b, temps);
                let nonzero = if bi.0 > 0 || bi.1 < 0 {
                    None
                } else {
                    Some(bin(BinOp::Ne, (**b).clone(), X::Int(0)))
                };
                and(
                    and(self.ok(a, disc, temps)?, self.ok(b, disc, temps)?),
                    nonzero,
                )
            }
            X::Bin(_, a, b) => and(self.ok(a, disc, temps)?, self.ok(b, disc, temps)?),
            X::Ite(c, a, b) => {
                let (oa, ob) = (self.ok(a, disc, temps)?, self.ok(b, disc, temps)?);
                let branch = match (oa, ob) {
                    (None, None) => None,
                    (oa, ob) => Some(X::Ite(
                        c.clone(),
                        Box::new(oa.unwrap_or(X::Int(1))),
                        Box::new(ob.unwrap_or(X::Int(1))),
                    )),
                };
                and(self.ok(c, disc, temps)?, branch)
            }
            X::Seq(pre, v) => {
                let mut all = None;
                for p in pre {
                    all = and(all, self.ok(p, disc, temps)?);
                }
                and(all, self.ok(v, disc, temps)?)
            }
        })
    }

    /// `excl(thread, slot)` holds, and can be evaluated, in the state the
    /// transition started from: a saved temporary, or the predicate itself.
    pub(super) fn allowed(&self, d: &Disc, slot: u32) -> Result<X, Refusal> {
        let Some(p) = self.model.protected_index[slot as usize] else {
            return Ok(X::Int(1));
        };
        if let Some(&t) = d.saved.get(&slot) {
            return Ok(X::Temp(t));
        }
        self.excl_ok(p as usize, d.thread)
    }

    /// `excl(t, x)` can be evaluated and holds (in the current state).
    pub(super) fn excl_ok(&self, p: usize, t: usize) -> Result<X, Refusal> {
        let pr = &self.model.protected[p];
        let here = Here {
            span: pr.span,
            what: format!(
                "the exclusive access predicate of {}",
                self.model.slots[pr.slot as usize].name
            ),
        };
        let e = self.lower(&pr.excl[t], &mut Env::new(), &here)?;
        Ok(match self.ok(&e, None, &[])? {
            None => e,
            Some(ok) => bin(BinOp::And, ok, e),
        })
    }

    /// The discipline's condition for an access to element `i` (in range)
    /// of array variable `v`.
    fn allowed_elem(&self, d: &Disc, v: usize, i: &X) -> Result<X, Refusal> {
        if let Some(allowed) = self.allowed_copy_elem(d, v, i)? {
            return Ok(allowed);
        }
        let (base, len) = (self.vars[v].slot as u32, self.vars[v].len.unwrap_or(1));
        if let X::Int(k) = i {
            // Out of bounds, the access fails its range check first.
            let k = if (0..len as i64).contains(k) {
                *k as u32
            } else {
                0
            };
            return self.allowed(d, base + k);
        }
        let mut out = self.allowed(d, base + len as u32 - 1)?;
        for k in (0..len - 1).rev() {
            let here = self.allowed(d, base + k as u32)?;
            out = X::Ite(
                Box::new(bin(BinOp::Eq, i.clone(), X::Int(k as i64))),
                Box::new(here),
                Box::new(out),
            );
        }
        Ok(out)
    }

    /// Transition `k` as a rule.
    fn rule(&mut self, k: usize) -> Result<Rule, Refusal> {
        let model = self.model;
        let tr = &model.transitions[k];
        let t = tr.thread as usize;
        let th = &model.threads[t];
        let point = &th.points[tr.from as usize];
        let title = match &point.label {
            Some(l) => format!("{} {l} (line {}): {}", th.name, tr.line, tr.text),
            None => format!("{} line {}: {}", th.name, tr.line, tr.text),
        };
        let here = Here {
            span: tr.span,
            what: format!("{} at line {}", th.name, tr.line),
        };
        let mut temps = Vec::new();
        let mut body = Vec::new();
        let at = bin(BinOp::Eq, self.read_slot(t as u32, false), X::Int(tr.from));
        let guard = match &tr.guard {
            None => at,
            Some(g) => {
                let g = self.lower(g, &mut Env::new(), &here)?;
                match self.ok(&g, None, &temps)? {
                    None => bin(BinOp::And, at, g),
                    Some(ok) => {
                        body.push(St::Assert(
                            ok.clone(),
                            format!("{}: range (the guard cannot be evaluated)", title),
                        ));
                        bin(BinOp::And, at, bin(BinOp::Or, X::Not(Box::new(ok)), g))
                    }
                }
            }
        };
        // The protected slots this transition may access whose predicate
        // reads a slot its command writes: their predicate is saved first,
        // since the discipline asks about the state the transition left.
        let (mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new());
        for c in &tr.body {
            c.for_each_slot(
                &mut |s| {
                    reads.insert(s);
                },
                &mut |s| {
                    writes.insert(s);
                },
            );
        }
        if let Next::Branch(c, _, _) = &tr.next {
            c.for_each_slot(&mut |s| {
                reads.insert(s);
            });
        }
        let mut disc = Disc {
            thread: t,
            saved: BTreeMap::new(),
        };
        for &s in reads.iter().chain(&writes).collect::<BTreeSet<_>>() {
            let Some(p) = model.protected_index[s as usize] else {
                continue;
            };
            let mut stale = false;
            model.protected[p as usize].excl[t]
                .for_each_slot(&mut |r| stale |= writes.contains(&r));
            if stale {
                let x = self.excl_ok(p as usize, t)?;
                temps.push(Temp {
                    lo: 0,
                    hi: 1,
                    bool: true,
                    ids: None,
                });
                disc.saved.insert(s, temps.len() - 1);
                body.push(St::Set(Lhs::Temp(temps.len() - 1), x));
            }
        }
        self.cmds(&tr.body, &disc, &title, &here, &mut temps, &mut body)?;
        let pc = || self.slot_lhs(t as u32);
        match &tr.next {
            Next::To(p) => body.push(St::Set(pc(), X::Int(*p))),
            Next::Branch(c, yes, no) => {
                let c = self.lower(c, &mut Env::new(), &here)?;
                self.assert_ok(&c, &disc, &title, &temps, &mut body)?;
                body.push(St::If(
                    c,
                    vec![St::Set(pc(), X::Int(*yes))],
                    vec![St::Set(pc(), X::Int(*no))],
                ));
            }
        }
        self.check_width(&guard, &temps, &here)?;
        self.check_stmts(&body, &temps, &here)?;
        Ok(Rule {
            thread: t,
            title,
            guard,
            temps,
            body,
        })
    }

    /// Asserts that evaluating `x` is fine, if it may not be.
    fn assert_ok(
        &self,
        x: &X,
        disc: &Disc,
        title: &str,
        temps: &[Temp],
        out: &mut Vec<St>,
    ) -> Result<(), Refusal> {
        if let Some(ok) = self.ok(x, Some(disc), temps)? {
            let what = if self.ok(x, None, temps)?.is_none() {
                "discipline"
            } else {
                "discipline or range"
            };
            out.push(St::Assert(ok, format!("{title}: {what}")));
        }
        Ok(())
    }

    /// Where `place` writes: its target and the checks before the write
    /// (the index's evaluation); the write's own checks come later.
    /// `stage` keeps a computed index in a temporary, for a simultaneous
    /// assignment whose writes come after every right-hand side.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &self,
        place: &Place,
        disc: &Disc,
        title: &str,
        here: &Here,
        temps: &mut Vec<Temp>,
        out: &mut Vec<St>,
        stage: bool,
    ) -> Result<(Lhs, u32), Refusal> {
        match place {
            Place::Slot { slot, .. } => Ok((self.slot_lhs(*slot), *slot)),
            Place::Elem { array, index } => {
                let (v, _) = self.slot_var[array.base as usize];
                let len = array.len;
                let want = Some(self.index_ty(array.base));
                let i = self.lower_as(index, want, &mut Env::new(), here)?;
                self.assert_ok(&i, disc, title, temps, out)?;
                if !self.iv(&i, temps).within(Iv(0, i128::from(len) - 1)) {
                    out.push(St::Assert(
                        bin(
                            BinOp::And,
                            bin(BinOp::Le, X::Int(0), i.clone()),
                            bin(BinOp::Lt, i.clone(), X::Int(i64::from(len))),
                        ),
                        format!("{title}: range (index out of bounds)"),
                    ));
                }
                let i = match i {
                    X::Int(k) => X::Int(k),
                    X::Copy(c, o) => X::Copy(c, o),
                    // A pair's two parts are written one after the other:
                    // its index is kept, lest the first write change it.
                    i if stage || self.sym.is_some() => {
                        let iv = self.iv(&i, temps);
                        temps.push(Temp {
                            lo: iv.0.max(0) as i64,
                            hi: iv.1.min(i128::from(len) - 1) as i64,
                            bool: false,
                            ids: self.ids_of(&i, temps),
                        });
                        out.push(St::Set(Lhs::Temp(temps.len() - 1), i));
                        X::Temp(temps.len() - 1)
                    }
                    i => i,
                };
                // A constant index out of bounds fails the check above
                // before the write; its slot is the array's first.
                if let X::Int(k) = i
                    && let Ok(slot) = array.slot(k)
                {
                    return Ok((Lhs::Elem(v, X::Int(k)), slot));
                }
                Ok((Lhs::Elem(v, i), array.base))
            }
        }
    }

    /// The write of `value` to `lhs`: the discipline, the range, the write.
    fn write(
        &self,
        lhs: Lhs,
        value: X,
        disc: &Disc,
        title: &str,
        temps: &[Temp],
        out: &mut Vec<St>,
    ) -> Result<(), Refusal> {
        let v = match &lhs {
            Lhs::Var(v) | Lhs::Elem(v, _) => *v,
            Lhs::Temp(_) => unreachable!("only variables are written by commands"),
        };
        let allowed = match &lhs {
            Lhs::Var(v) => self.allowed(disc, self.vars[*v].slot as u32)?,
            Lhs::Elem(v, i) => self.allowed_elem(disc, *v, i)?,
            Lhs::Temp(_) => X::Int(1),
        };
        if allowed != X::Int(1) {
            out.push(St::Assert(allowed, format!("{title}: discipline (write)")));
        }
        let (lo, hi) = (self.vars[v].lo, self.vars[v].hi);
        if !self.iv(&value, temps).within(Iv(lo as i128, hi as i128)) {
            out.push(St::Assert(
                bin(
                    BinOp::And,
                    bin(BinOp::Le, X::Int(lo), value.clone()),
                    bin(BinOp::Le, value.clone(), X::Int(hi)),
                ),
                format!("{title}: range (value out of {lo}..{hi})"),
            ));
        }
        out.push(St::Set(lhs, value));
        Ok(())
    }

    fn cmds(
        &self,
        cmds: &[Cmd],
        disc: &Disc,
        title: &str,
        here: &Here,
        temps: &mut Vec<Temp>,
        out: &mut Vec<St>,
    ) -> Result<(), Refusal> {
        for c in cmds {
            match c {
                Cmd::Assign(parts) if parts.len() == 1 => {
                    let (place, e) = &parts[0];
                    let x = self.lower_as(e, self.place_ty(place), &mut Env::new(), here)?;
                    self.assert_ok(&x, disc, title, temps, out)?;
                    let x = self.keep_pair(x, temps, out);
                    let (lhs, _) = self.place(place, disc, title, here, temps, out, false)?;
                    self.write(lhs, x, disc, title, temps, out)?;
                }
                Cmd::Assign(parts) => {
                    // Every right-hand side and index first, then the writes.
                    let mut staged = Vec::new();
                    for (place, e) in parts {
                        let x = self.lower_as(e, self.place_ty(place), &mut Env::new(), here)?;
                        self.assert_ok(&x, disc, title, temps, out)?;
                        let iv = self.iv(&x, temps);
                        let value = match x {
                            X::Int(c) => X::Int(c),
                            x => {
                                let ids = self.ids_of(&x, temps);
                                temps.push(Temp {
                                    lo: iv.0.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                                    hi: iv.1.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                                    bool: false,
                                    ids,
                                });
                                out.push(St::Set(Lhs::Temp(temps.len() - 1), x));
                                X::Temp(temps.len() - 1)
                            }
                        };
                        let (lhs, _) = self.place(place, disc, title, here, temps, out, true)?;
                        staged.push((lhs, value));
                    }
                    for (lhs, value) in staged {
                        self.write(lhs, value, disc, title, temps, out)?;
                    }
                }
                Cmd::Assert(e) => {
                    let x = self.lower(e, &mut Env::new(), here)?;
                    self.assert_ok(&x, disc, title, temps, out)?;
                    out.push(St::Assert(x, format!("{title}: assertion")));
                }
                Cmd::If(c, a, b) => {
                    let x = self.lower(c, &mut Env::new(), here)?;
                    self.assert_ok(&x, disc, title, temps, out)?;
                    let (mut ya, mut yb) = (Vec::new(), Vec::new());
                    self.cmds(a, disc, title, here, temps, &mut ya)?;
                    self.cmds(b, disc, title, here, temps, &mut yb)?;
                    out.push(St::If(x, ya, yb));
                }
            }
        }
        Ok(())
    }

    /// The `ltl` properties: a boolean variable per atom, set at the end of
    /// every rule, and the formulas over those variables. An atom that may
    /// not be evaluable (an index out of bounds) gets a second variable,
    /// whether it is, and its property asks that it always is: optimist
    /// reports such a state as a violation of that property alone.
    fn ltl(&mut self, names: &mut Names, rules: &mut [Rule]) -> Result<Vec<LtlBlock>, Refusal> {
        let model = self.model;
        let mut out = Vec::new();
        let mut sets = Vec::new();
        for p in &model.ltl {
            let here = Here {
                span: p.span,
                what: format!("ltl {}", p.name),
            };
            let (mut atoms, mut oks) = (Vec::new(), Vec::new());
            for (a, e) in p.atoms.iter().enumerate() {
                let x = self.lower(e, &mut Env::new(), &here)?;
                self.check_width(&x, &[], &here)?;
                let value = e.holds(&model.init, &mut crate::model::NoAccess);
                let source = format!("ltl {}: {}", p.name, p.atom_text[a]);
                let x = match self.ok(&x, None, &[])? {
                    None => x,
                    Some(ok) => {
                        oks.push(self.vars.len());
                        let init = i64::from(value.is_ok());
                        self.bool_var(names, &format!("{}_ok{a}", p.name), init, &source);
                        sets.push((self.vars.len() - 1, ok.clone()));
                        X::Ite(Box::new(ok), Box::new(x), Box::new(X::Int(0)))
                    }
                };
                atoms.push(self.vars.len());
                let init = i64::from(value == Ok(true));
                self.bool_var(names, &format!("{}_{a}", p.name), init, &source);
                sets.push((self.vars.len() - 1, x));
            }
            // `U`, `V`, `W` and `X` are operators in SPIN's formulas.
            let name = match p.name.as_str() {
                "U" | "V" | "W" | "X" => format!("{}_ltl", p.name),
                n => n.to_string(),
            };
            out.push(LtlBlock {
                name: names.fresh(&name),
                formula: p.formula.clone(),
                atoms,
                oks,
                text: p.text.clone(),
            });
        }
        for rule in rules.iter_mut() {
            for (v, x) in &sets {
                rule.body.push(St::Set(Lhs::Var(*v), x.clone()));
            }
        }
        Ok(out)
    }

    fn bool_var(&mut self, names: &mut Names, name: &str, init: i64, source: &str) {
        self.vars.push(Var {
            name: names.fresh(name),
            kind: VarKind::Bool,
            lo: 0,
            hi: 1,
            len: None,
            init: vec![init],
            slot: 0,
            source: source.to_string(),
        });
    }

    /// Disjointness of the exclusive access predicates, and the invariants.
    fn checks(&mut self) -> Result<Vec<Check>, Refusal> {
        let model = self.model;
        let mut out = Vec::new();
        for pr in &model.protected {
            let name = &model.slots[pr.slot as usize].name;
            let here = Here {
                span: pr.span,
                what: format!("the exclusive access predicate of {name}"),
            };
            let n = model.threads.len();
            let mut oks = None;
            let mut preds = Vec::new();
            for t in 0..n {
                let e = self.lower(&pr.excl[t], &mut Env::new(), &here)?;
                oks = and(oks, self.ok(&e, None, &[])?);
                preds.push(e);
            }
            // Two threads never both hold it.
            let disjoint = if n <= 1 {
                None
            } else if n <= 4 {
                let mut all = None;
                for i in 0..n {
                    for j in i + 1..n {
                        all = and(
                            all,
                            Some(X::Not(Box::new(bin(
                                BinOp::And,
                                preds[i].clone(),
                                preds[j].clone(),
                            )))),
                        );
                    }
                }
                all
            } else {
                let count = preds
                    .iter()
                    .map(|e| {
                        X::Ite(
                            Box::new(e.clone()),
                            Box::new(X::Int(1)),
                            Box::new(X::Int(0)),
                        )
                    })
                    .reduce(|a, b| bin(BinOp::Add, a, b))
                    .expect("n > 4");
                Some(bin(BinOp::Le, count, X::Int(1)))
            };
            if let Some(cond) = and(oks, disjoint) {
                self.check_width(&cond, &[], &here)?;
                out.push(Check {
                    cond,
                    message: format!(
                        "discipline: at most one thread satisfies excl for {name} (excl {})",
                        pr.text
                    ),
                    deadlock: false,
                });
            }
        }
        for inv in &model.invariants {
            let here = Here {
                span: inv.span,
                what: format!("invariant {}", inv.text),
            };
            let e = self.lower(&inv.expr, &mut Env::new(), &here)?;
            let cond = match self.ok(&e, None, &[])? {
                None => e,
                Some(ok) => bin(BinOp::And, ok, e),
            };
            self.check_width(&cond, &[], &here)?;
            out.push(Check {
                cond,
                message: format!("invariant {}", inv.text),
                deadlock: false,
            });
        }
        Ok(out)
    }
}

/// Whether `x` is naturally a boolean (for typed targets).
pub fn is_bool(x: &X, vars: &[Var], temps: &[Temp]) -> bool {
    match x {
        X::Int(_) | X::Neg(_) => false,
        X::Var(v, _) | X::Elem(v, _, _) => vars[*v].kind == VarKind::Bool,
        X::Temp(t) => temps[*t].bool,
        X::Not(_) => true,
        X::Bin(op, _, _) => match op {
            BinOp::Or | BinOp::And | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => true,
            BinOp::Eq | BinOp::Ne => true,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => false,
        },
        X::Ite(_, a, b) => is_bool(a, vars, temps) && is_bool(b, vars, temps),
        X::Seq(_, v) => is_bool(v, vars, temps),
        X::Copy(..) => false,
        X::Quant(..) => true,
    }
}

/// Refuses a Promela translation of `procs` threads (of a `what`: model or
/// batch) past SPIN's limit: it numbers at most 255 processes, the monitor
/// included.
pub(super) fn spin_processes(procs: usize, what: &str) -> Result<(), Refusal> {
    if procs + 1 > 255 {
        return Err(Refusal {
            kind: RefusalKind::Processes,
            message: format!(
                "SPIN runs at most 255 processes, and this {what} has {procs} threads besides the monitor"
            ),
            span: None,
        });
    }
    Ok(())
}
