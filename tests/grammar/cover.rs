//! What a system exercises: (construct, position) pairs, read off the
//! generated tree, and the fixed list of pairs the grammar allows (the
//! rows of the coverage table).

use std::collections::BTreeSet;

use super::ast::*;

/// A (construct, position) pair.
pub type Feature = (&'static str, &'static str);

/// Expression positions.
pub const EXPR_POSITIONS: [&str; 11] = [
    "guard",
    "lock-op",
    "assert",
    "cond",
    "assign",
    "call-arg",
    "return",
    "local-init",
    "proc-local-init",
    "excl",
    "invariant",
];

/// Expression constructs. A channel's index counts as a `lock-op`
/// expression (an index read by a guard), the values a send sends as
/// `assign`, a receive's `eval(e)` as `guard`.
pub const EXPR_CONSTRUCTS: [&str; 40] = [
    "int",
    "true/false",
    "const",
    "free",
    "self",
    "index",
    "thread-name",
    "shared",
    "shared[i]",
    "protected",
    "protected[i]",
    "lock",
    "lock[i]",
    "sem",
    "local",
    "param",
    "proc-local",
    "excl-t",
    "excl-j",
    "bound-var",
    "neg",
    "+ - *",
    "/ %",
    "< <= > >=",
    "== !=",
    "!",
    "&& ||",
    "at()",
    "init(t,x)",
    "init(x)",
    "exists",
    "forall",
    "t.r",
    "len(c)",
    "empty(c) nempty(c)",
    "full(c) nfull(c)",
    "c?[...]",
    "chan arg q[e]",
    "chan arg param",
    "question of param",
];

/// Whether the grammar and the static rules allow `construct` at `pos`.
pub fn expr_allowed(construct: &str, pos: &str) -> bool {
    let constant = matches!(pos, "local-init" | "proc-local-init");
    let body = !matches!(pos, "excl" | "invariant") && !constant;
    let guard = matches!(pos, "guard" | "lock-op");
    match construct {
        // Everywhere.
        "int" | "const" | "thread-name" | "+ - *" | "/ %" => true,
        // Thread and procedure code, and the locals' initial values.
        "self" => !matches!(pos, "excl" | "invariant"),
        // Copies of `thread NAME[n]` and the procedures they call.
        "index" => !matches!(pos, "excl" | "invariant"),
        // Integer positions: an index is an int.
        "true/false" | "== !=" | "< <= > >=" | "!" | "&& ||" => pos != "lock-op",
        "neg" => true,
        "shared" | "shared[i]" | "sem" => !constant,
        // A lock's value is no int, so no index reads one.
        "lock" | "lock[i]" | "free" => !constant && pos != "lock-op",
        "protected" | "protected[i]" => !constant && !guard,
        "local" => body && pos != "return",
        "param" | "proc-local" => body,
        "excl-t" | "excl-j" => pos == "excl",
        "bound-var" | "exists" | "forall" | "at()" | "init(t,x)" | "init(x)" => {
            !constant && pos != "lock-op"
        }
        "t.r" => matches!(pos, "excl" | "invariant"),
        // A channel's length is an unprotected shared variable.
        "len(c)" => !constant,
        "empty(c) nempty(c)" | "full(c) nfull(c)" | "c?[...]" => !constant && pos != "lock-op",
        // A channel passed to a `chan q` parameter: `q[e]` (or `q`), or
        // the caller's own channel parameter passed on.
        "chan arg q[e]" | "chan arg param" => pos == "call-arg",
        // `len(cp)`, `empty(cp)`, ..., `cp?[...]` of a channel parameter:
        // procedure code.
        "question of param" => body && pos != "lock-op",
        _ => false,
    }
}

/// Statement positions: top level of a thread body, nested in a thread
/// body, anywhere in a procedure, inside `atomic`.
pub const STMT_POSITIONS: [&str; 4] = ["thread", "nested", "proc", "atomic"];

pub const STMT_CONSTRUCTS: [&str; 41] = [
    "x := e",
    "x, y := e, f",
    "any",
    "await",
    "assert",
    "acquire",
    "acquire m[e]",
    "release",
    "release m[e]",
    "down",
    "up",
    "skip",
    "goto",
    "label",
    "atomic",
    "atomic await",
    "if",
    "else",
    "else if",
    "while",
    "either",
    "repeat",
    "init x {}",
    "call",
    "x := call",
    "recursion",
    "return",
    "return e",
    "critical section",
    "send",
    "send c[e]",
    "receive",
    "receive c[e]",
    "receive match",
    "receive eval",
    "receive _",
    "receive shared",
    "receive protected",
    "receive ?<...>",
    "rendezvous",
    "send/receive param",
];

/// (A send or receive in `atomic` is its first part, after an optional
/// `await`, on a buffered channel.)
pub fn stmt_allowed(construct: &str, pos: &str) -> bool {
    match pos {
        "atomic" => matches!(
            construct,
            "x := e"
                | "x, y := e, f"
                | "any"
                | "assert"
                | "skip"
                | "if"
                | "else"
                | "else if"
                | "send"
                | "send c[e]"
                | "receive"
                | "receive c[e]"
                | "receive match"
                | "receive eval"
                | "receive _"
                | "receive shared"
                | "receive protected"
                | "receive ?<...>"
                | "send/receive param"
        ),
        "proc" => true,
        _ => !matches!(
            construct,
            "return" | "return e" | "recursion" | "send/receive param"
        ),
    }
}

pub const DECL_CONSTRUCTS: [&str; 38] = [
    "const int",
    "const bool",
    "threads N",
    "thread NAME",
    "thread NAME[n]",
    "lock",
    "lock[n]",
    "sem",
    "sem[n]",
    "shared int",
    "shared bool",
    "shared[n]",
    "list initialiser",
    "protected by m",
    "protected by m[k]",
    "excl(t)",
    "excl(t, j)",
    "protected[n]",
    "protected bool",
    "unprotected [k]",
    "local int",
    "local bool",
    "local[n]",
    "proc",
    "param int",
    "param bool",
    "param chan",
    "proc local",
    "typed return int",
    "typed return bool",
    "proc without value",
    "invariant",
    "chan",
    "chan[n]",
    "chan rendezvous",
    "chan capacity 2",
    "chan bool field",
    "chan several fields",
];

/// Every row of the coverage table, in order.
pub fn rows() -> Vec<Feature> {
    let mut out = vec![];
    for c in DECL_CONSTRUCTS {
        out.push((c, "decl"));
    }
    for c in STMT_CONSTRUCTS {
        for p in STMT_POSITIONS {
            if stmt_allowed(c, p) {
                out.push((c, p));
            }
        }
    }
    for c in EXPR_CONSTRUCTS {
        for p in EXPR_POSITIONS {
            if expr_allowed(c, p) {
                out.push((c, p));
            }
        }
    }
    out
}

/// The features of a system.
pub fn features(sys: &System) -> BTreeSet<Feature> {
    let mut w = Walk {
        out: BTreeSet::new(),
        rendezvous: vec![],
        cparams: vec![],
    };
    w.system(sys);
    w.out
}

struct Walk {
    out: BTreeSet<Feature>,
    /// The channels of capacity 0.
    rendezvous: Vec<String>,
    /// The channel parameters of the procedure walked (name, channel).
    cparams: Vec<(String, String)>,
}

impl Walk {
    fn add(&mut self, c: &'static str, p: &'static str) {
        self.out.insert((c, p));
    }

    fn system(&mut self, sys: &System) {
        for (_, v) in &sys.consts {
            let c = match v {
                E::Bool(_) | E::Bin(Op::Lt, ..) => "const bool",
                _ => "const int",
            };
            self.add(c, "decl");
        }
        if sys.threads_n.is_some() {
            self.add("threads N", "decl");
        }
        for v in &sys.vars {
            let array = v.size.is_some();
            match &v.class {
                Class::Lock => self.add(if array { "lock[n]" } else { "lock" }, "decl"),
                Class::Sem => self.add(if array { "sem[n]" } else { "sem" }, "decl"),
                Class::Shared => {
                    self.add(
                        match (&v.ty, array) {
                            (_, true) => "shared[n]",
                            (Ty::Bool, _) => "shared bool",
                            _ => "shared int",
                        },
                        "decl",
                    );
                }
                Class::Protected(excl, unprot) => {
                    if array {
                        self.add("protected[n]", "decl");
                    }
                    if v.ty == Ty::Bool {
                        self.add("protected bool", "decl");
                    }
                    if !unprot.is_empty() {
                        self.add("unprotected [k]", "decl");
                    }
                    match excl {
                        Excl::By(l) if l.idx.is_some() => self.add("protected by m[k]", "decl"),
                        Excl::By(_) => self.add("protected by m", "decl"),
                        Excl::Pred(j, body) => {
                            self.add(if j.is_some() { "excl(t, j)" } else { "excl(t)" }, "decl");
                            self.expr(body, "excl");
                        }
                    }
                }
            }
            if matches!(v.init, Some(Init::List(_))) {
                self.add("list initialiser", "decl");
            }
        }
        for c in &sys.chans {
            self.add(if c.size.is_some() { "chan[n]" } else { "chan" }, "decl");
            match c.capacity {
                0 => self.add("chan rendezvous", "decl"),
                2 => self.add("chan capacity 2", "decl"),
                _ => {}
            }
            if c.fields.contains(&Ty::Bool) {
                self.add("chan bool field", "decl");
            }
            if c.fields.len() > 1 {
                self.add("chan several fields", "decl");
            }
        }
        let rendezvous: Vec<String> = sys
            .chans
            .iter()
            .filter(|c| c.capacity == 0)
            .map(|c| c.name.clone())
            .collect();
        self.rendezvous = rendezvous;
        for p in &sys.procs {
            self.add("proc", "decl");
            if !p.cparams.is_empty() {
                self.add("param chan", "decl");
            }
            for (_, t) in &p.params {
                self.add(
                    if *t == Ty::Bool {
                        "param bool"
                    } else {
                        "param int"
                    },
                    "decl",
                );
            }
            self.add(
                match &p.ret {
                    None => "proc without value",
                    Some(Ty::Bool) => "typed return bool",
                    Some(_) => "typed return int",
                },
                "decl",
            );
            for l in &p.locals {
                self.add("proc local", "decl");
                if let Some(i) = &l.init {
                    self.init(i, "proc-local-init");
                }
            }
            self.cparams = p.cparams.clone();
            self.stmts(&p.body, "proc", Some(&p.name));
            self.cparams.clear();
        }
        for t in &sys.threads {
            if sys.threads_n.is_none() {
                self.add(
                    if t.copies.is_some() {
                        "thread NAME[n]"
                    } else {
                        "thread NAME"
                    },
                    "decl",
                );
            }
            for l in &t.locals {
                self.add(
                    match (&l.ty, l.size) {
                        (_, Some(_)) => "local[n]",
                        (Ty::Bool, _) => "local bool",
                        _ => "local int",
                    },
                    "decl",
                );
                if let Some(i) = &l.init {
                    self.init(i, "local-init");
                }
            }
            self.stmts(&t.body, "thread", None);
        }
        for i in &sys.invariants {
            self.add("invariant", "decl");
            self.expr(i, "invariant");
        }
    }

    fn init(&mut self, i: &Init, pos: &'static str) {
        match i {
            Init::One(e) => self.expr(e, pos),
            Init::List(es) => {
                self.add("list initialiser", "decl");
                for e in es {
                    self.expr(e, pos);
                }
            }
        }
    }

    fn stmts(&mut self, body: &[Stmt], pos: &'static str, proc: Option<&str>) {
        // A critical section: `acquire l; ...; release l` in one block.
        for (k, st) in body.iter().enumerate() {
            if let S::Acquire(l) = &st.s
                && body[k + 1..]
                    .iter()
                    .any(|s| matches!(&s.s, S::Release(r) if r == l))
            {
                self.add("critical section", pos);
            }
            self.stmt(st, pos, proc);
        }
    }

    fn stmt(&mut self, st: &Stmt, pos: &'static str, proc: Option<&str>) {
        if st.label.is_some() {
            self.add("label", pos);
        }
        let nested = if pos == "thread" { "nested" } else { pos };
        let lock_op =
            |w: &mut Walk, l: &Lv, plain: &'static str, computed: &'static str| match &l.idx {
                Some(i) if !matches!(i, E::Int(_)) => {
                    w.add(computed, pos);
                    w.expr(i, "lock-op");
                }
                Some(i) => {
                    w.add(plain, pos);
                    w.expr(i, "lock-op");
                }
                None => w.add(plain, pos),
            };
        match &st.s {
            S::Assign(lvs, rhs) => {
                self.add(
                    if lvs.len() > 1 {
                        "x, y := e, f"
                    } else {
                        "x := e"
                    },
                    pos,
                );
                for l in lvs {
                    if let Some(i) = &l.idx {
                        self.expr(i, "assign");
                    }
                }
                for r in rhs {
                    match r {
                        Rhs::E(e) => self.expr(e, "assign"),
                        Rhs::Any(..) => self.add("any", pos),
                    }
                }
            }
            S::Call(target, f, args) => {
                if proc == Some(f.as_str()) {
                    self.add("recursion", pos);
                }
                match target {
                    Some(l) => {
                        self.add("x := call", pos);
                        if let Some(i) = &l.idx {
                            self.expr(i, "assign");
                        }
                    }
                    None => self.add("call", pos),
                }
                for a in args {
                    self.expr(a, "call-arg");
                }
            }
            S::Return(None) => self.add("return", pos),
            S::Return(Some(e)) => {
                self.add("return e", pos);
                self.expr(e, "return");
            }
            S::Await(e) => {
                self.add("await", pos);
                self.expr(e, "guard");
            }
            S::Assert(e) => {
                self.add("assert", pos);
                self.expr(e, "assert");
            }
            S::Acquire(l) => lock_op(self, l, "acquire", "acquire m[e]"),
            S::Release(l) => lock_op(self, l, "release", "release m[e]"),
            S::Down(l) => {
                self.add("down", pos);
                if let Some(i) = &l.idx {
                    self.expr(i, "lock-op");
                }
            }
            S::Up(l) => {
                self.add("up", pos);
                if let Some(i) = &l.idx {
                    self.expr(i, "lock-op");
                }
            }
            S::Skip => self.add("skip", pos),
            S::Goto(_) => self.add("goto", pos),
            S::Atomic(g, body) => {
                self.add("atomic", pos);
                if let Some(g) = g {
                    self.add("atomic await", pos);
                    self.expr(g, "guard");
                }
                for s in body {
                    self.stmt(s, "atomic", proc);
                }
            }
            S::If(c, a, b) => {
                self.add("if", pos);
                self.expr(c, "cond");
                let inner = if pos == "atomic" { "atomic" } else { nested };
                self.stmts(a, inner, proc);
                if let Some(b) = b {
                    if is_else_if(b) {
                        self.add("else if", pos);
                    } else {
                        self.add("else", pos);
                    }
                    self.stmts(b, inner, proc);
                }
            }
            S::While(c, body) => {
                self.add("while", pos);
                self.expr(c, "cond");
                self.stmts(body, nested, proc);
            }
            S::Either(bs) => {
                self.add("either", pos);
                for b in bs {
                    self.stmts(b, nested, proc);
                }
            }
            S::Repeat(n, body) => {
                self.add("repeat", pos);
                let _ = n;
                self.stmts(body, nested, proc);
            }
            S::Init(_, body) => {
                self.add("init x {}", pos);
                self.stmts(body, nested, proc);
            }
            S::Send(c, es) => {
                self.chan_op(c, "send", "send c[e]", pos);
                for e in es {
                    self.expr(e, "assign");
                }
            }
            S::Receive(c, args, keep) => {
                self.chan_op(c, "receive", "receive c[e]", pos);
                if *keep {
                    self.add("receive ?<...>", pos);
                }
                for a in args {
                    match a {
                        Recv::Var(l) => {
                            match l.r {
                                Ref::Shared => self.add("receive shared", pos),
                                Ref::Protected => self.add("receive protected", pos),
                                _ => {}
                            }
                            if let Some(i) = &l.idx {
                                self.expr(i, "assign");
                            }
                        }
                        Recv::Lit(_) | Recv::Const(..) => self.add("receive match", pos),
                        Recv::Eval(e) => {
                            self.add("receive eval", pos);
                            self.expr(e, "guard");
                        }
                        Recv::Skip => self.add("receive _", pos),
                    }
                }
            }
        }
    }

    /// A send or receive on `c`: plain, or at a computed index (read as a
    /// `lock-op` expression), and whether `c` is a rendezvous.
    fn chan_op(&mut self, c: &Lv, plain: &'static str, computed: &'static str, pos: &'static str) {
        match &c.idx {
            Some(i) => {
                self.add(
                    if matches!(i, E::Int(_)) {
                        plain
                    } else {
                        computed
                    },
                    pos,
                );
                self.expr(i, "lock-op");
            }
            None => self.add(plain, pos),
        }
        let mut name = &c.name;
        if c.r == Ref::ChanParam {
            self.add("send/receive param", pos);
            if let Some((_, q)) = self.cparams.iter().find(|(n, _)| *n == c.name) {
                name = q;
            }
        }
        if self.rendezvous.contains(name) {
            self.add("rendezvous", pos);
        }
    }

    fn expr(&mut self, e: &E, pos: &'static str) {
        let c = match e {
            E::Int(_) => "int",
            E::Bool(_) => "true/false",
            E::Free => "free",
            E::SelfId => "self",
            E::Name(r, _) | E::Elem(r, _, _) => {
                let elem = matches!(e, E::Elem(..));
                match (r, elem) {
                    (Ref::Const, _) => "const",
                    (Ref::Shared, false) => "shared",
                    (Ref::Shared, true) => "shared[i]",
                    (Ref::Protected, false) => "protected",
                    (Ref::Protected, true) => "protected[i]",
                    (Ref::Lock, false) => "lock",
                    (Ref::Lock, true) => "lock[i]",
                    (Ref::Sem, _) => "sem",
                    (Ref::Local, _) => "local",
                    (Ref::Param, _) => "param",
                    (Ref::ProcLocal, _) => "proc-local",
                    (Ref::Thread, _) => "thread-name",
                    (Ref::Index, _) => "index",
                    (Ref::QVar, _) => "bound-var",
                    (Ref::ExclT, _) => "excl-t",
                    (Ref::ExclJ, _) => "excl-j",
                    // A channel is no value: only an argument names one.
                    (Ref::Chan, _) => "chan arg q[e]",
                    (Ref::ChanParam, _) => "chan arg param",
                }
            }
            E::Not(_) => "!",
            E::Neg(_) => "neg",
            E::Bin(op, ..) => match op {
                Op::Add | Op::Sub | Op::Mul => "+ - *",
                Op::Div | Op::Mod => "/ %",
                Op::Lt | Op::Le | Op::Gt | Op::Ge => "< <= > >=",
                Op::Eq | Op::Ne => "== !=",
                Op::And | Op::Or => "&& ||",
            },
            E::At(..) => "at()",
            E::InitOf(Some(_), _) => "init(t,x)",
            E::InitOf(None, _) => "init(x)",
            E::Quant(true, ..) => "forall",
            E::Quant(false, ..) => "exists",
            E::LocalOf(..) => "t.r",
            E::Chan(Q::Len, ..) => "len(c)",
            E::Chan(Q::Empty | Q::NEmpty, ..) => "empty(c) nempty(c)",
            E::Chan(Q::Full | Q::NFull, ..) => "full(c) nfull(c)",
            E::Poll(..) => "c?[...]",
        };
        self.add(c, pos);
        if let E::Chan(_, n, _) | E::Poll(n, ..) = e
            && self.cparams.iter().any(|(p, _)| p == n)
        {
            self.add("question of param", pos);
        }
        for ch in e.children() {
            self.expr(ch, pos);
        }
    }
}
