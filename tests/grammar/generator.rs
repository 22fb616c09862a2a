//! The grammar-driven generator: a random declaration set, then typed
//! random statements and expressions over it, in every position the
//! grammar allows (see the module documentation of `mod.rs`).
//!
//! Every choice comes from [`Rng`], so a seed gives one system. The
//! generator knows the static rules of the language (types, what guards
//! may read, where `self`, `index` and `t.r` are defined, which labels
//! `at(t, L)` may name for a thread known at compile time, which
//! procedures return a value), so nearly every system compiles.

use super::ast::*;

/// SplitMix64: small, fast, and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of system `k` of seed `seed`.
    pub fn for_system(seed: u64, k: u64) -> Rng {
        let mut r = Rng(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 for n = 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        (self.next() % 100) < u64::from(percent)
    }

    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// An index into `weights`, drawn in proportion to them.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut x = self.below(total as usize) as u32;
        for (k, w) in weights.iter().enumerate() {
            if x < *w {
                return k;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

#[derive(Clone, Debug)]
struct VarInfo {
    name: String,
    class: Ref,
    size: Option<usize>,
    ty: Ty,
    /// Protected by a lock: the lock's place.
    by: Option<Lv>,
}

#[derive(Clone, Debug)]
struct ChanInfo {
    name: String,
    size: Option<usize>,
    capacity: usize,
    fields: Vec<Ty>,
    /// A procedure's channel parameter (`cp : chan q`), standing for one
    /// channel of `q`: no index.
    param: bool,
}

#[derive(Clone, Debug)]
struct LocalInfo {
    name: String,
    ty: Ty,
    size: Option<usize>,
}

#[derive(Clone, Debug)]
struct BodyInfo {
    copies: Option<usize>,
    locals: Vec<LocalInfo>,
    /// Labels of the top-level statements, as planned.
    labels: Vec<String>,
    /// The ids of the threads that run this body.
    ids: Vec<usize>,
}

#[derive(Clone, Debug)]
struct ProcInfo {
    name: String,
    /// Channel parameters (name, channel), before the value parameters.
    cparams: Vec<(String, String)>,
    params: Vec<(String, Ty)>,
    ret: Option<Ty>,
    locals: Vec<LocalInfo>,
    labels: Vec<String>,
}

/// Where an expression or statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    /// Exclusive access predicates and invariants.
    Global,
    Thread(usize),
    Proc(usize),
}

/// The scope and the rules of one expression position.
#[derive(Clone, Debug)]
struct Cx {
    at: Where,
    /// A guard: no protected variable.
    guard: bool,
    /// A constant (initial values): no variables, `at`, `init` or `t.r`.
    consts_only: bool,
    self_ok: bool,
    index_ok: bool,
    /// `t.r` allowed (predicates and invariants).
    tr_ok: bool,
    /// In an exclusive access predicate: whether `j` is bound.
    excl: Option<bool>,
    /// Bound quantifier variables, with their ranges.
    q: Vec<(String, i64, i64)>,
}

impl Cx {
    fn global() -> Cx {
        Cx {
            at: Where::Global,
            guard: false,
            consts_only: false,
            self_ok: false,
            index_ok: false,
            tr_ok: true,
            excl: None,
            q: vec![],
        }
    }
}

/// Thread designators known at compile time: the ids they may be (for the
/// parameter of a predicate, every thread), or None when only the run
/// decides.
type Known = Option<Vec<usize>>;

struct Gen<'r> {
    r: &'r mut Rng,
    /// Constants: name, whether a bool, value.
    consts: Vec<(String, bool)>,
    const_vals: Vec<(String, i64)>,
    vars: Vec<VarInfo>,
    chans: Vec<ChanInfo>,
    bodies: Vec<BodyInfo>,
    names: Vec<String>,
    /// Body of each thread id.
    body_of: Vec<usize>,
    procs: Vec<ProcInfo>,
    /// Every thread is a copy of a `thread NAME[n]`, so procedures see `index`.
    index_in_procs: bool,
    /// How daring the system is, in percent: how often it reads or writes
    /// protected variables outside a critical section, computes values
    /// and indices that may fall out of range, asserts what may be false.
    /// Drawn per system: a system with many ways to fail almost always
    /// fails early, and then hides the disagreements that only a system
    /// with one way to fail can show.
    risk: u32,
    /// A symmetric system names no thread: no thread constants, no
    /// predicate for one thread. Only then can copies of one body share
    /// procedure summaries.
    symmetric: bool,
    /// Scalars the current body assigned last (place, whether a bool):
    /// reads prefer them, so that what is computed is used.
    recent: Vec<(Ref, String, bool)>,
}

/// A random system (see the module documentation).
pub fn system(r: &mut Rng) -> System {
    let mut g = Gen {
        r,
        consts: vec![],
        const_vals: vec![],
        vars: vec![],
        chans: vec![],
        bodies: vec![],
        names: vec![],
        body_of: vec![],
        procs: vec![],
        index_in_procs: false,
        risk: 0,
        symmetric: false,
        recent: vec![],
    };
    g.system()
}

const INT_LOCALS: [&str; 2] = ["r", "c"];
const BOOL_LOCALS: [&str; 1] = ["f"];

impl Gen<'_> {
    fn nthreads(&self) -> usize {
        self.names.len()
    }

    fn system(&mut self) -> System {
        self.risk = *self.r.pick(&[5, 15, 30, 60]);
        self.symmetric = self.r.chance(45);
        // Threads: `threads N`, named threads, or copies of bodies.
        // Copies of one body share procedure summaries: more of them.
        let form = self.r.weighted(&[40, 20, 40]);
        let mut threads_n = None;
        let mut decls: Vec<(String, Option<usize>)> = vec![];
        match form {
            0 => {
                let n = if self.r.chance(25) { 3 } else { 2 };
                threads_n = Some(n);
                decls.push(("T".into(), None));
                self.bodies.push(BodyInfo {
                    copies: None,
                    locals: vec![],
                    labels: vec![],
                    ids: (0..n).collect(),
                });
                for k in 0..n {
                    self.names.push(format!("T{k}"));
                    self.body_of.push(0);
                }
            }
            1 => {
                let n = if self.r.chance(25) { 3 } else { 2 };
                for k in 0..n {
                    let name = ["A", "B", "C"][k].to_string();
                    decls.push((name.clone(), None));
                    self.bodies.push(BodyInfo {
                        copies: None,
                        locals: vec![],
                        labels: vec![],
                        ids: vec![k],
                    });
                    self.names.push(name);
                    self.body_of.push(k);
                }
            }
            _ => {
                let shapes: &[&[(&str, Option<usize>)]] = &[
                    &[("A", Some(2))],
                    &[("A", Some(2)), ("B", None)],
                    &[("A", Some(2)), ("B", Some(1))],
                    &[("A", Some(1)), ("B", Some(1))],
                    &[("B", None), ("A", Some(2))],
                ];
                let shape = *self.r.pick(shapes);
                for (b, (name, copies)) in shape.iter().enumerate() {
                    decls.push((name.to_string(), *copies));
                    let first = self.names.len();
                    match copies {
                        Some(n) => {
                            for k in 0..*n {
                                self.names.push(format!("{name}{k}"));
                                self.body_of.push(b);
                            }
                        }
                        None => {
                            self.names.push(name.to_string());
                            self.body_of.push(b);
                        }
                    }
                    self.bodies.push(BodyInfo {
                        copies: *copies,
                        locals: vec![],
                        labels: vec![],
                        ids: (first..self.names.len()).collect(),
                    });
                }
                self.index_in_procs = shape.iter().all(|(_, c)| c.is_some());
            }
        }

        // Constants.
        let mut consts = vec![];
        if self.r.chance(50) {
            let k = self.r.int(0, 2);
            consts.push(("K".to_string(), E::Int(k)));
            self.consts.push(("K".into(), false));
            self.const_vals.push(("K".into(), k));
            if self.r.chance(40) {
                let v = E::bin(Op::Add, E::Name(Ref::Const, "K".into()), E::Int(1));
                consts.push(("K2".to_string(), v));
                self.consts.push(("K2".into(), false));
                self.const_vals.push(("K2".into(), k + 1));
            }
        }
        if self.r.chance(25) {
            let v = if self.r.chance(50) {
                E::Bool(self.r.chance(50))
            } else {
                let a = match self.consts.first() {
                    Some((k, false)) => E::Name(Ref::Const, k.clone()),
                    _ => E::Int(self.r.int(0, 2)),
                };
                E::bin(Op::Lt, a, E::Int(2))
            };
            let val = self.eval(&v, 0, 0).unwrap();
            consts.push(("KB".to_string(), v));
            self.consts.push(("KB".into(), true));
            self.const_vals.push(("KB".into(), val));
        }

        // Locks, semaphores, shared and protected variables.
        let mut vars = vec![];
        let lock = self.r.chance(75);
        let lock_array = self.r.chance(45) || !lock;
        if lock {
            vars.push(self.var("m", Class::Lock, None, Ty::Bool));
            if self.r.chance(20) {
                vars.push(self.var("m2", Class::Lock, None, Ty::Bool));
            }
        }
        if lock_array {
            vars.push(self.var("ml", Class::Lock, Some(2), Ty::Bool));
        }
        if self.r.chance(40) {
            let hi = self.r.int(1, 2);
            let size = self.r.chance(25).then_some(2);
            let init = E::Int(self.r.int(0, hi));
            let mut v = self.var("s", Class::Sem, size, Ty::Int(0, hi));
            v.init = Some(Init::One(init));
            vars.push(v);
        }
        let nshared = self.r.int(1, 2);
        for k in 0..nshared {
            let ty = self.int_ty();
            let name = if k == 0 { "y" } else { "w" };
            let init = self.init_in(&ty, None);
            let mut v = self.var(name, Class::Shared, None, ty);
            v.init = init;
            vars.push(v);
        }
        if self.r.chance(40) {
            let ty = self.int_ty();
            let init = self.init_in(&ty, Some(2));
            let mut v = self.var("a", Class::Shared, Some(2), ty);
            v.init = init;
            vars.push(v);
        }
        if self.r.chance(50) {
            let mut v = self.var("b", Class::Shared, None, Ty::Bool);
            v.init = self
                .r
                .chance(50)
                .then(|| Init::One(E::Bool(self.r.chance(50))));
            vars.push(v);
        }
        let nprot = self.r.weighted(&[10, 55, 35]);
        for k in 0..nprot {
            let array = self.r.chance(35);
            let ty = if self.r.chance(20) {
                Ty::Bool
            } else {
                self.int_ty()
            };
            let name = match (k, array) {
                (0, false) => "x",
                (_, false) => "x2",
                (0, true) => "z",
                (_, true) => "z2",
            };
            let size = array.then_some(2);
            let init = self.init_in(&ty, size);
            // The lock of `by`, or a predicate written once the bodies exist.
            let locks: Vec<Lv> = self.lock_places();
            let by = if !locks.is_empty() && self.r.chance(45) {
                Some(self.r.pick(&locks).clone())
            } else {
                None
            };
            let unprot = if array && self.r.chance(20) {
                vec![self.r.int(0, 1)]
            } else {
                vec![]
            };
            let excl = match &by {
                Some(l) => Excl::By(l.clone()),
                None => Excl::Pred(array.then(|| "j".to_string()), E::Bool(false)),
            };
            let mut v = self.var(name, Class::Protected(excl, unprot), size, ty);
            v.init = init;
            self.vars.last_mut().unwrap().by = by;
            vars.push(v);
        }

        // Channels: one or two, buffered (capacity 1 or 2) or, at times, a
        // rendezvous (which every reduction refuses), of one to three
        // fields.
        let mut chans = vec![];
        if self.r.chance(35) {
            let n = if self.r.chance(30) { 2 } else { 1 };
            for k in 0..n {
                let name = ["ch", "cd"][k].to_string();
                let size = self.r.chance(35).then_some(2);
                let capacity = [1, 2, 0][self.r.weighted(&[45, 40, 15])];
                let nfields = self.r.weighted(&[55, 30, 15]) + 1;
                let fields: Vec<Ty> = (0..nfields)
                    .map(|_| {
                        if self.r.chance(25) {
                            Ty::Bool
                        } else {
                            self.int_ty()
                        }
                    })
                    .collect();
                self.chans.push(ChanInfo {
                    name: name.clone(),
                    size,
                    capacity,
                    fields: fields.clone(),
                    param: false,
                });
                chans.push(Chan {
                    name,
                    size,
                    capacity,
                    fields,
                });
            }
        }

        // Locals, labels and procedures' signatures, before any body: a
        // body may name any of them.
        for (b, decl) in decls.iter().enumerate() {
            let mut locals = vec![];
            for name in INT_LOCALS {
                if self.r.chance(45) {
                    locals.push(LocalInfo {
                        name: name.into(),
                        ty: self.int_ty(),
                        size: None,
                    });
                }
            }
            if self.r.chance(30) {
                locals.push(LocalInfo {
                    name: BOOL_LOCALS[0].into(),
                    ty: Ty::Bool,
                    size: None,
                });
            }
            if self.r.chance(10) {
                locals.push(LocalInfo {
                    name: "la".into(),
                    ty: Ty::Int(0, 2),
                    size: Some(2),
                });
            }
            self.bodies[b].locals = locals;
            let nl = self.r.weighted(&[20, 45, 35]);
            let letter = &decl.0;
            self.bodies[b].labels = (0..nl).map(|k| format!("L{letter}{k}")).collect();
        }
        let nprocs = self.r.weighted(&[30, 25, 30, 15]);
        for k in 0..nprocs {
            let name = ["f", "g", "h"][k].to_string();
            let mut params = vec![];
            for p in ["p", "q"] {
                if self.r.chance(45) {
                    let ty = if self.r.chance(25) {
                        Ty::Bool
                    } else {
                        Ty::Int(0, self.r.int(1, 2))
                    };
                    params.push((p.to_string(), ty));
                }
            }
            let ret = match self.r.weighted(&[25, 60, 15]) {
                0 => None,
                1 => Some(Ty::Int(0, self.r.int(1, 3))),
                _ => Some(Ty::Bool),
            };
            let mut locals = vec![];
            if self.r.chance(50) {
                locals.push(LocalInfo {
                    name: "u".into(),
                    ty: Ty::Int(0, self.r.int(1, 3)),
                    size: None,
                });
            }
            if self.r.chance(15) {
                locals.push(LocalInfo {
                    name: "v".into(),
                    ty: Ty::Bool,
                    size: None,
                });
            }
            let nl = self.r.weighted(&[40, 40, 20]);
            let labels = (0..nl).map(|j| format!("P{name}{j}")).collect();
            // At times a channel parameter, `cp : chan q`, of one channel
            // of the system (drawn only where there are channels, so that
            // the other systems stay the same).
            let mut cparams = vec![];
            if !self.chans.is_empty() && self.r.chance(45) {
                let q = self.r.pick(&self.chans).name.clone();
                cparams.push(("cp".to_string(), q));
            }
            self.procs.push(ProcInfo {
                name,
                cparams,
                params,
                ret,
                locals,
                labels,
            });
        }

        // Bodies.
        let mut threads = vec![];
        for (b, (name, copies)) in decls.iter().enumerate() {
            let locals = self.locals_decl(Where::Thread(b));
            let body = self.body(Where::Thread(b));
            threads.push(Thread {
                name: name.clone(),
                copies: *copies,
                locals,
                body,
            });
        }
        let mut procs = vec![];
        for p in 0..self.procs.len() {
            let locals = self.locals_decl(Where::Proc(p));
            let body = self.body(Where::Proc(p));
            let info = &self.procs[p];
            procs.push(Proc {
                name: info.name.clone(),
                cparams: info.cparams.clone(),
                params: info.params.clone(),
                ret: info.ret.clone(),
                locals,
                body,
            });
        }

        // Every procedure is called (its labels exist only then): a thread
        // calls the ones nothing calls yet.
        for p in 0..procs.len() {
            if self.called(&threads, &procs, p) {
                continue;
            }
            let b = self.r.below(threads.len());
            self.recent.clear();
            let sx = Sx::top(b);
            let args = self.args(&sx, p);
            let at = self.r.below(threads[b].body.len() + 1);
            let call = Stmt::new(S::Call(None, self.procs[p].name.clone(), args));
            threads[b].body.insert(at, call);
        }

        // Every channel is sent to and received from (in some thread's
        // code, or a procedure's), so that messages pass: a thread does
        // what nothing does yet.
        for c in self.chans.clone() {
            for send in [true, false] {
                let found = threads
                    .iter()
                    .map(|t| &t.body)
                    .chain(procs.iter().map(|p| &p.body))
                    .any(|b| uses_chan(b, &c.name, send));
                if found {
                    continue;
                }
                let b = self.r.below(threads.len());
                self.recent.clear();
                let sx = Sx::top(b);
                let st = Stmt::new(self.chan_stmt_on(&sx, &c, send));
                let at = self.r.below(threads[b].body.len() + 1);
                threads[b].body.insert(at, st);
            }
        }

        // Exclusive access predicates, now that labels and locals exist.
        for v in vars.iter_mut() {
            if let Class::Protected(Excl::Pred(j, body), _) = &mut v.class {
                *body = self.predicate(j.is_some());
            }
        }

        // Invariants.
        let mut invariants = vec![];
        let ninv = self.r.weighted(&[55, 35, 10]);
        for _ in 0..ninv {
            let e = self.invariant();
            invariants.push(e);
        }

        System {
            consts,
            threads_n,
            vars,
            chans,
            procs,
            threads,
            invariants,
        }
    }

    /// Whether procedure `p` is called from a thread, directly or through
    /// other procedures (not from inside a `repeat 0`).
    fn called(&self, threads: &[Thread], procs: &[Proc], p: usize) -> bool {
        let zero = |n: &E| match n {
            E::Int(0) => true,
            E::Name(_, k) => self.const_vals.iter().any(|c| c.0 == *k && c.1 == 0),
            _ => false,
        };
        fn calls(body: &[Stmt], out: &mut Vec<String>, zero: &dyn Fn(&E) -> bool) {
            for st in body {
                match &st.s {
                    S::Call(_, f, _) => out.push(f.clone()),
                    S::Repeat(n, _) if zero(n) => continue,
                    _ => {}
                }
                for b in st.blocks() {
                    calls(b, out, zero);
                }
            }
        }
        let mut reached = vec![];
        for t in threads {
            calls(&t.body, &mut reached, &zero);
        }
        let mut k = 0;
        while k < reached.len() {
            if let Some(pr) = procs.iter().find(|pr| pr.name == reached[k]) {
                let mut more = vec![];
                calls(&pr.body, &mut more, &zero);
                for m in more {
                    if !reached.contains(&m) {
                        reached.push(m);
                    }
                }
            }
            k += 1;
        }
        reached.contains(&procs[p].name)
    }

    fn var(&mut self, name: &str, class: Class, size: Option<usize>, ty: Ty) -> Var {
        let r = match &class {
            Class::Shared => Ref::Shared,
            Class::Protected(..) => Ref::Protected,
            Class::Lock => Ref::Lock,
            Class::Sem => Ref::Sem,
        };
        self.vars.push(VarInfo {
            name: name.into(),
            class: r,
            size,
            ty: ty.clone(),
            by: None,
        });
        Var {
            name: name.into(),
            class,
            size,
            ty,
            init: None,
        }
    }

    fn int_ty(&mut self) -> Ty {
        match self.r.weighted(&[40, 45, 15]) {
            0 => Ty::Int(0, 1),
            1 => Ty::Int(0, 2),
            _ => Ty::Int(-1, 1),
        }
    }

    /// An initial value of a global (constants and literals only).
    fn init_in(&mut self, ty: &Ty, size: Option<usize>) -> Option<Init> {
        let one = |g: &mut Gen| match ty {
            Ty::Bool => E::Bool(g.r.chance(30)),
            Ty::Int(lo, hi) => {
                let v = if g.r.chance(70) {
                    0.max(*lo)
                } else {
                    g.r.int(*lo, *hi)
                };
                E::Int(v)
            }
        };
        match size {
            Some(n) if self.r.chance(40) => Some(Init::List((0..n).map(|_| one(self)).collect())),
            _ if self.r.chance(30) => None,
            _ => Some(Init::One(one(self))),
        }
    }

    /// The places of every lock: `m`, `ml[0]`, `ml[1]`.
    fn lock_places(&self) -> Vec<Lv> {
        let mut out = vec![];
        for v in &self.vars {
            if v.class != Ref::Lock {
                continue;
            }
            match v.size {
                None => out.push(Lv {
                    r: Ref::Lock,
                    name: v.name.clone(),
                    idx: None,
                }),
                Some(n) => {
                    for k in 0..n {
                        out.push(Lv {
                            r: Ref::Lock,
                            name: v.name.clone(),
                            idx: Some(E::Int(k as i64)),
                        });
                    }
                }
            }
        }
        out
    }

    // -----------------------------------------------------------------
    // Declarations of locals

    fn locals_decl(&mut self, w: Where) -> Vec<Local> {
        let (infos, copies) = match w {
            Where::Thread(b) => (self.bodies[b].locals.clone(), self.bodies[b].copies),
            Where::Proc(p) => (self.procs[p].locals.clone(), None),
            Where::Global => unreachable!(),
        };
        let cx = Cx {
            at: w,
            guard: false,
            consts_only: true,
            self_ok: true,
            index_ok: match w {
                Where::Thread(_) => copies.is_some(),
                _ => self.index_in_procs,
            },
            tr_ok: false,
            excl: None,
            q: vec![],
        };
        // (self, index) of every thread that may run this code.
        let who: Vec<(i64, i64)> = match w {
            Where::Thread(b) => self.bodies[b]
                .ids
                .iter()
                .enumerate()
                .map(|(i, &id)| (id as i64, i as i64))
                .collect(),
            _ => (0..self.nthreads())
                .map(|id| {
                    let b = &self.bodies[self.body_of[id]];
                    let i = b.ids.iter().position(|&k| k == id).unwrap();
                    (id as i64, i as i64)
                })
                .collect(),
        };
        infos
            .into_iter()
            .map(|l| {
                let init = if self.r.chance(20) {
                    None
                } else {
                    let e = self.const_in(&cx, &l.ty, &who);
                    match l.size {
                        Some(n) if self.r.chance(50) => {
                            let mut es = vec![e];
                            for _ in 1..n {
                                es.push(self.const_in(&cx, &l.ty, &who));
                            }
                            Some(Init::List(es))
                        }
                        _ => Some(Init::One(e)),
                    }
                };
                Local {
                    name: l.name,
                    ty: l.ty,
                    size: l.size,
                    init,
                }
            })
            .collect()
    }

    /// A constant expression whose value is in `ty` for every thread
    /// (`self`, `index`) in `who`.
    fn const_in(&mut self, cx: &Cx, ty: &Ty, who: &[(i64, i64)]) -> E {
        for _ in 0..12 {
            let e = match ty {
                Ty::Bool => self.bexp(cx, 2),
                Ty::Int(..) => self.iexp(cx, 2),
            };
            let ok = who.iter().all(|&(id, i)| match (self.eval(&e, id, i), ty) {
                (Some(v), Ty::Int(lo, hi)) => (*lo..=*hi).contains(&v),
                (Some(_), Ty::Bool) => true,
                (None, _) => false,
            });
            if ok {
                return e;
            }
        }
        match ty {
            Ty::Bool => E::Bool(self.r.chance(50)),
            Ty::Int(lo, hi) => E::Int(self.r.int(*lo, *hi)),
        }
    }

    /// The value of a constant expression for thread `id`, copy `index`;
    /// None when it faults or is no constant.
    fn eval(&self, e: &E, id: i64, index: i64) -> Option<i64> {
        Some(match e {
            E::Int(n) => *n,
            E::Bool(b) => i64::from(*b),
            E::SelfId => id,
            E::Name(Ref::Const, n) => self.const_vals.iter().find(|c| c.0 == *n)?.1,
            E::Name(Ref::Thread, n) => self.names.iter().position(|t| t == n)? as i64,
            E::Name(Ref::Index, _) => index,
            E::Neg(a) => self.eval(a, id, index)?.checked_neg()?,
            E::Not(a) => i64::from(self.eval(a, id, index)? == 0),
            E::Bin(op, a, b) => {
                let (x, y) = (self.eval(a, id, index)?, self.eval(b, id, index)?);
                match op {
                    Op::Add => x.checked_add(y)?,
                    Op::Sub => x.checked_sub(y)?,
                    Op::Mul => x.checked_mul(y)?,
                    Op::Div => x.checked_div(y)?,
                    Op::Mod => x.checked_rem(y)?,
                    Op::Eq => i64::from(x == y),
                    Op::Ne => i64::from(x != y),
                    Op::Lt => i64::from(x < y),
                    Op::Le => i64::from(x <= y),
                    Op::Gt => i64::from(x > y),
                    Op::Ge => i64::from(x >= y),
                    Op::And => i64::from(x != 0 && y != 0),
                    Op::Or => i64::from(x != 0 || y != 0),
                }
            }
            _ => return None,
        })
    }

    // -----------------------------------------------------------------
    // Expressions

    fn cx_body(&self, w: Where) -> Cx {
        Cx {
            at: w,
            guard: false,
            consts_only: false,
            self_ok: true,
            index_ok: match w {
                Where::Thread(b) => self.bodies[b].copies.is_some(),
                Where::Proc(_) => self.index_in_procs,
                Where::Global => false,
            },
            tr_ok: false,
            excl: None,
            q: vec![],
        }
    }

    /// Locals (or parameters and locals) in scope: (ref, name, type, size).
    fn scope_locals(&self, cx: &Cx) -> Vec<(Ref, String, Ty, Option<usize>)> {
        match cx.at {
            Where::Thread(b) => self.bodies[b]
                .locals
                .iter()
                .map(|l| (Ref::Local, l.name.clone(), l.ty.clone(), l.size))
                .collect(),
            Where::Proc(p) => {
                let pr = &self.procs[p];
                pr.params
                    .iter()
                    .map(|(n, t)| (Ref::Param, n.clone(), t.clone(), None))
                    .chain(
                        pr.locals
                            .iter()
                            .map(|l| (Ref::ProcLocal, l.name.clone(), l.ty.clone(), l.size)),
                    )
                    .collect()
            }
            Where::Global => vec![],
        }
    }

    /// Globals readable here of the given kind of type (Some(true): bool,
    /// Some(false): int; locks have their own generator).
    fn scope_globals(&self, cx: &Cx, want_bool: bool) -> Vec<VarInfo> {
        self.vars
            .iter()
            .filter(|v| match v.class {
                Ref::Shared => true,
                Ref::Protected => !cx.guard,
                Ref::Sem => !want_bool,
                _ => false,
            })
            .filter(|v| (v.ty == Ty::Bool) == want_bool)
            .cloned()
            .collect()
    }

    /// A read of a variable of the wanted type, if any is in scope.
    fn var_read(&mut self, cx: &Cx, want_bool: bool, d: u32) -> Option<E> {
        if cx.consts_only {
            return None;
        }
        // What the body computed last, at times.
        let recent: Vec<(Ref, String)> = self
            .recent
            .iter()
            .filter(|(r, _, b)| {
                *b == want_bool && (cx.at != Where::Global) && (!cx.guard || *r != Ref::Protected)
            })
            .map(|(r, n, _)| (*r, n.clone()))
            .collect();
        if !recent.is_empty() && self.r.chance(35) {
            let (r, n) = self.r.pick(&recent).clone();
            return Some(E::Name(r, n));
        }
        // Protected variables are read less often: most reads outside the
        // discipline break it, and the verdicts would all be `violated`.
        let prot = self.r.chance(self.risk);
        let mut cands: Vec<(Ref, String, Option<usize>)> = self
            .scope_globals(cx, want_bool)
            .into_iter()
            .filter(|v| prot || v.class != Ref::Protected || cx.excl.is_some())
            .map(|v| (v.class, v.name, v.size))
            .collect();
        for (r, n, t, size) in self.scope_locals(cx) {
            if (t == Ty::Bool) == want_bool {
                // Locals and parameters are twice as likely.
                cands.push((r, n.clone(), size));
                cands.push((r, n, size));
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (r, n, size) = self.r.pick(&cands).clone();
        Some(match size {
            None => E::Name(r, n),
            Some(len) => {
                let i = self.index_exp(cx, len, d);
                E::Elem(r, n, Box::new(i))
            }
        })
    }

    /// An array index: usually in bounds.
    fn index_exp(&mut self, cx: &Cx, len: usize, d: u32) -> E {
        let mut opts: Vec<E> = vec![E::Int(self.r.below(len) as i64)];
        if cx.self_ok && !cx.consts_only {
            opts.push(E::bin(Op::Mod, E::SelfId, E::Int(len as i64)));
            if self.nthreads() <= len {
                opts.push(E::SelfId);
            }
        }
        if cx.index_ok {
            opts.push(E::Name(Ref::Index, "index".into()));
        }
        if let Some(j) = cx.excl {
            if j {
                opts.push(E::Name(Ref::ExclJ, "j".into()));
            }
            if self.nthreads() <= len {
                opts.push(E::Name(Ref::ExclT, "t".into()));
            }
        }
        for (q, lo, hi) in &cx.q {
            if *lo >= 0 && (*hi as usize) < len {
                opts.push(E::Name(Ref::QVar, q.clone()));
            }
        }
        if !self.r.chance(self.risk / 2) || d == 0 {
            self.r.pick(&opts).clone()
        } else {
            self.iexp(cx, d - 1)
        }
    }

    /// An int in `lo..=hi` with probability about `safe`%, else any int
    /// expression.
    fn int_in(&mut self, cx: &Cx, lo: i64, hi: i64, safe: u32) -> E {
        if !self.r.chance(safe) {
            return self.iexp(cx, 2);
        }
        let mut opts = vec![E::Int(self.r.int(lo, hi))];
        let n = self.nthreads() as i64;
        if cx.self_ok && lo <= 0 && n - 1 <= hi {
            opts.push(E::SelfId);
        }
        if cx.self_ok && lo <= 0 && hi >= 1 {
            opts.push(E::bin(Op::Mod, E::SelfId, E::Int(hi + 1)));
        }
        if cx.index_ok && lo <= 0 && hi >= 1 {
            opts.push(E::Name(Ref::Index, "index".into()));
        }
        if !cx.consts_only {
            for (r, name, t, size) in self.scope_locals(cx) {
                if let (Ty::Int(l2, h2), None) = (&t, size)
                    && *l2 >= lo
                    && *h2 <= hi
                {
                    opts.push(E::Name(r, name));
                }
            }
            for v in self.scope_globals(cx, false) {
                if let (Ty::Int(l2, h2), None) = (&v.ty, v.size)
                    && *l2 >= lo
                    && *h2 <= hi
                {
                    opts.push(E::Name(v.class, v.name));
                }
            }
        }
        self.r.pick(&opts).clone()
    }

    /// A random int expression of depth at most `d`.
    fn iexp(&mut self, cx: &Cx, d: u32) -> E {
        // 0 literal, 1 const, 2 self, 3 index, 4 thread name, 5 variable,
        // 6 bound variable, 7 t, 8 j, 9 neg, 10 + - *, 11 / %, 12 t.r,
        // 13 len(c)
        let int_consts: Vec<String> = self
            .consts
            .iter()
            .filter(|c| !c.1)
            .map(|c| c.0.clone())
            .collect();
        let has_int_local = self.bodies.iter().any(|b| {
            b.locals
                .iter()
                .any(|l| l.size.is_none() && l.ty != Ty::Bool)
        });
        let w = [
            4,
            if int_consts.is_empty() { 0 } else { 2 },
            if cx.self_ok { 3 } else { 0 },
            if cx.index_ok { 3 } else { 0 },
            if self.symmetric { 0 } else { 1 },
            if cx.consts_only { 0 } else { 8 },
            if cx.q.is_empty() { 0 } else { 3 },
            if cx.excl.is_some() { 3 } else { 0 },
            if cx.excl == Some(true) { 3 } else { 0 },
            if d > 0 { 1 } else { 0 },
            if d > 0 { 4 } else { 0 },
            if d > 0 { 1 } else { 0 },
            if d > 0 && cx.tr_ok && has_int_local && !self.symmetric {
                2
            } else {
                0
            },
            if self.chans.is_empty() || cx.consts_only {
                0
            } else {
                2
            },
        ];
        match self.r.weighted(&w) {
            0 => E::Int(self.r.int(-1, 3)),
            1 => E::Name(Ref::Const, self.r.pick(&int_consts).clone()),
            2 => E::SelfId,
            3 => E::Name(Ref::Index, "index".into()),
            4 => E::Name(Ref::Thread, self.r.pick(&self.names).clone()),
            5 => match self.var_read(cx, false, d) {
                Some(e) => e,
                None => E::Int(self.r.int(0, 2)),
            },
            6 => E::Name(Ref::QVar, self.r.pick(&cx.q).0.clone()),
            7 => E::Name(Ref::ExclT, "t".into()),
            8 => E::Name(Ref::ExclJ, "j".into()),
            9 => E::Neg(Box::new(self.iexp(cx, d - 1))),
            10 => {
                let op = *self.r.pick(&[Op::Add, Op::Sub, Op::Mul]);
                E::bin(op, self.iexp(cx, d - 1), self.iexp(cx, d - 1))
            }
            11 => {
                let op = *self.r.pick(&[Op::Div, Op::Mod]);
                // The divisor is usually a nonzero literal.
                let b = if !self.r.chance(self.risk) {
                    E::Int(self.r.int(1, 3))
                } else {
                    self.iexp(cx, d - 1)
                };
                E::bin(op, self.iexp(cx, d - 1), b)
            }
            12 => match self.local_of(cx, false) {
                Some(e) => e,
                None => E::Int(0),
            },
            _ => self.chan_question(cx, Q::Len, d),
        }
    }

    /// `len(c)`, `empty(c)`, ... of a channel, its index computed at times.
    fn chan_question(&mut self, cx: &Cx, q: Q, d: u32) -> E {
        let c = self.r.pick(&self.chans_at(cx.at)).clone();
        let i = c.size.map(|n| Box::new(self.index_exp(cx, n, d.min(1))));
        E::Chan(q, c.name, i)
    }

    /// A question of a channel's state that is a bool.
    fn chan_test(&mut self, cx: &Cx, d: u32) -> E {
        if self.chans.iter().any(|c| c.capacity > 0) && self.r.chance(30) {
            return self.poll(cx, d);
        }
        let q = *self.r.pick(&[Q::Empty, Q::NEmpty, Q::Full, Q::NFull]);
        if self.r.chance(25) {
            // The length compared.
            let op = *self.r.pick(&[Op::Eq, Op::Ne, Op::Lt, Op::Ge]);
            let len = self.chan_question(cx, Q::Len, d);
            return E::bin(op, len, E::Int(self.r.int(0, 2)));
        }
        self.chan_question(cx, q, d)
    }

    /// A poll `c?[...]` of a buffered channel (a rendezvous has no message
    /// to poll), its index computed at times: per field a literal, a
    /// constant, `eval(e)`, a shared variable (which matches any value)
    /// or `_`.
    fn poll(&mut self, cx: &Cx, d: u32) -> E {
        let buffered: Vec<ChanInfo> = self
            .chans_at(cx.at)
            .into_iter()
            .filter(|c| c.capacity > 0)
            .collect();
        let c = self.r.pick(&buffered).clone();
        let i = c.size.map(|n| Box::new(self.index_exp(cx, n, d.min(1))));
        let mut args = vec![];
        for ty in &c.fields {
            let consts = self.match_consts(ty);
            let shared: Vec<VarInfo> = self
                .vars
                .iter()
                .filter(|v| v.class == Ref::Shared && v.size.is_none())
                .filter(|v| (v.ty == Ty::Bool) == (*ty == Ty::Bool))
                .cloned()
                .collect();
            let w = [
                if shared.is_empty() { 0 } else { 10 },
                35,
                if consts.is_empty() { 0 } else { 10 },
                20,
                25,
            ];
            args.push(match self.r.weighted(&w) {
                0 => Recv::Var(Lv {
                    r: Ref::Shared,
                    name: self.r.pick(&shared).name.clone(),
                    idx: None,
                }),
                k => self.recv_value(cx, ty, &consts, k),
            });
        }
        E::Poll(c.name, i, args)
    }

    /// A lock-valued expression: a lock or `free`.
    fn lexp(&mut self, cx: &Cx, d: u32) -> Option<E> {
        if cx.consts_only {
            return None;
        }
        let locks: Vec<VarInfo> = self
            .vars
            .iter()
            .filter(|v| v.class == Ref::Lock)
            .cloned()
            .collect();
        if locks.is_empty() {
            return None;
        }
        let v = self.r.pick(&locks).clone();
        Some(match v.size {
            None => E::Name(Ref::Lock, v.name),
            Some(n) => {
                let i = self.index_exp(cx, n, d);
                E::Elem(Ref::Lock, v.name, Box::new(i))
            }
        })
    }

    /// A thread designator for `at`, `init` or `t.r`, and the threads it
    /// may be when known at compile time. `lock_ok`: a lock may designate
    /// its owner (`t.r` only).
    fn texp(&mut self, cx: &Cx, lock_ok: bool) -> (E, Known) {
        let n = self.nthreads();
        // 0 name, 1 self, 2 t, 3 bound variable, 4 shared int, 5 lock
        let w = [
            if self.symmetric { 0 } else { 4 },
            if cx.self_ok { 3 } else { 0 },
            if cx.excl.is_some() { 4 } else { 0 },
            if cx.q.is_empty() { 0 } else { 3 },
            2,
            if lock_ok { 2 } else { 0 },
        ];
        match self.r.weighted(&w) {
            0 => {
                let k = self.r.below(n);
                (E::Name(Ref::Thread, self.names[k].clone()), Some(vec![k]))
            }
            1 => {
                let ids = match cx.at {
                    Where::Thread(b) => self.bodies[b].ids.clone(),
                    _ => (0..n).collect(),
                };
                (E::SelfId, Some(ids))
            }
            2 => (E::Name(Ref::ExclT, "t".into()), Some((0..n).collect())),
            3 => (E::Name(Ref::QVar, self.r.pick(&cx.q).0.clone()), None),
            4 => match self.var_read(cx, false, 0) {
                Some(e) => (e, None),
                None => (E::Name(Ref::Thread, self.names[0].clone()), Some(vec![0])),
            },
            _ => match self.lexp(cx, 0) {
                Some(e) => (e, None),
                None => (E::Name(Ref::Thread, self.names[0].clone()), Some(vec![0])),
            },
        }
    }

    /// `t.r` of the wanted type, if some thread has such a local.
    fn local_of(&mut self, cx: &Cx, want_bool: bool) -> Option<E> {
        let (t, known) = self.texp(cx, true);
        let has = |b: &BodyInfo, name: &str| {
            b.locals
                .iter()
                .any(|l| l.name == name && l.size.is_none() && (l.ty == Ty::Bool) == want_bool)
        };
        let pool: &[&str] = if want_bool { &BOOL_LOCALS } else { &INT_LOCALS };
        let names: Vec<&str> = pool
            .iter()
            .copied()
            .filter(|name| match &known {
                Some(ids) => ids
                    .iter()
                    .all(|&k| has(&self.bodies[self.body_of[k]], name)),
                None => self.bodies.iter().any(|b| has(b, name)),
            })
            .collect();
        if names.is_empty() {
            return None;
        }
        let r = self.r.pick(&names).to_string();
        Some(E::LocalOf(Box::new(t), r))
    }

    /// `at(t, L)`, if some label fits.
    fn at(&mut self, cx: &Cx) -> Option<E> {
        let (t, known) = self.texp(cx, false);
        let mut labels: Vec<String> = self.procs.iter().flat_map(|p| p.labels.clone()).collect();
        match &known {
            Some(ids) => {
                let first = &self.bodies[self.body_of[ids[0]]].labels;
                for l in first {
                    if ids
                        .iter()
                        .all(|&k| self.bodies[self.body_of[k]].labels.contains(l))
                    {
                        labels.push(l.clone());
                    }
                }
            }
            None => {
                for b in &self.bodies {
                    labels.extend(b.labels.iter().cloned());
                }
            }
        }
        if labels.is_empty() {
            return None;
        }
        let l = self.r.pick(&labels).clone();
        Some(E::At(Box::new(t), l))
    }

    /// A random bool expression of depth at most `d`.
    fn bexp(&mut self, cx: &Cx, d: u32) -> E {
        let bool_consts: Vec<String> = self
            .consts
            .iter()
            .filter(|c| c.1)
            .map(|c| c.0.clone())
            .collect();
        let locks = self.vars.iter().any(|v| v.class == Ref::Lock);
        // A symmetric system reads no thread's control point or local from
        // another: only then does every thread forget the others.
        let pcs = !cx.consts_only && !self.symmetric;
        // 0 literal, 1 const, 2 variable, 3 comparison, 4 lock comparison,
        // 5 !, 6 && ||, 7 at, 8 init(t, x), 9 init(x), 10 quantifier, 11 t.r,
        // 12 a channel's state
        let w = [
            1,
            if bool_consts.is_empty() { 0 } else { 1 },
            if cx.consts_only { 0 } else { 3 },
            6,
            if locks && !cx.consts_only { 4 } else { 0 },
            if d > 0 { 1 } else { 0 },
            if d > 0 { 4 } else { 0 },
            if pcs { 2 } else { 0 },
            if pcs { 1 } else { 0 },
            if pcs { 1 } else { 0 },
            if d > 0 && !cx.consts_only { 2 } else { 0 },
            if cx.tr_ok && !self.symmetric { 2 } else { 0 },
            if self.chans.is_empty() || cx.consts_only {
                0
            } else {
                3
            },
        ];
        let sub = d.saturating_sub(1);
        match self.r.weighted(&w) {
            0 => E::Bool(self.r.chance(60)),
            1 => E::Name(Ref::Const, self.r.pick(&bool_consts).clone()),
            2 => match self.var_read(cx, true, d) {
                Some(e) => e,
                None => self.compare(cx, sub),
            },
            3 => self.compare(cx, sub),
            4 => self.lock_compare(cx, sub),
            5 => E::Not(Box::new(self.bexp(cx, sub))),
            6 => {
                let op = if self.r.chance(50) { Op::And } else { Op::Or };
                E::bin(op, self.bexp(cx, sub), self.bexp(cx, sub))
            }
            7 => match self.at(cx) {
                Some(e) => e,
                None => self.compare(cx, sub),
            },
            8 => {
                let (t, _) = self.texp(cx, false);
                let x = self.r.pick(&self.vars).name.clone();
                E::InitOf(Some(Box::new(t)), x)
            }
            9 => {
                let x = self.r.pick(&self.vars).name.clone();
                E::InitOf(None, x)
            }
            10 => self.quant(cx, sub),
            11 => match self.local_of(cx, true) {
                Some(e) => e,
                None => match self.local_of(cx, false) {
                    Some(e) => E::bin(Op::Eq, e, E::Int(self.r.int(0, 1))),
                    None => self.compare(cx, sub),
                },
            },
            _ => self.chan_test(cx, sub),
        }
    }

    fn compare(&mut self, cx: &Cx, d: u32) -> E {
        // A variable against the thread's identity, at times: what a
        // thread computed for itself.
        if (cx.self_ok || cx.index_ok)
            && !cx.consts_only
            && self.r.chance(30)
            && let Some(v) = self.var_read(cx, false, d)
        {
            let me = if cx.index_ok && self.r.chance(60) {
                E::Name(Ref::Index, "index".into())
            } else {
                E::SelfId
            };
            let op = if self.r.chance(70) { Op::Eq } else { Op::Ne };
            return E::bin(op, v, me);
        }
        let op = *self
            .r
            .pick(&[Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge]);
        let a = self.iexp(cx, d);
        let b = if self.r.chance(50) {
            E::Int(self.r.int(0, 2))
        } else {
            self.iexp(cx, d)
        };
        E::bin(op, a, b)
    }

    /// A lock compared with `free`, a thread or another lock.
    fn lock_compare(&mut self, cx: &Cx, d: u32) -> E {
        let Some(l) = self.lexp(cx, d) else {
            return self.compare(cx, d);
        };
        let op = if self.r.chance(60) { Op::Eq } else { Op::Ne };
        let other = match self.r.weighted(&[4, 4, 1]) {
            0 => E::Free,
            1 => match (cx.self_ok, cx.excl.is_some()) {
                (_, true) if self.r.chance(70) => E::Name(Ref::ExclT, "t".into()),
                (true, _) if self.r.chance(70) => E::SelfId,
                _ => self.texp(cx, false).0,
            },
            _ => self.lexp(cx, d).unwrap(),
        };
        if self.r.chance(20) {
            E::bin(op, other, l)
        } else {
            E::bin(op, l, other)
        }
    }

    fn quant(&mut self, cx: &Cx, d: u32) -> E {
        let name = format!("q{}", cx.q.len());
        let n = self.nthreads() as i64;
        let (lo, hi, lo_e, hi_e) = match self.r.weighted(&[3, 3, 1]) {
            0 => (0, 1, E::Int(0), E::Int(1)),
            1 => (0, n - 1, E::Int(0), E::Int(n - 1)),
            _ => {
                // A bound read from a variable, bounded by its range.
                match self
                    .scope_globals(cx, false)
                    .into_iter()
                    .find(|v| v.size.is_none() && matches!(v.ty, Ty::Int(l, _) if l >= 0))
                {
                    Some(v) => {
                        let Ty::Int(_, h) = v.ty else { unreachable!() };
                        (0, h, E::Int(0), E::Name(v.class, v.name))
                    }
                    None => (0, 1, E::Int(0), E::Int(1)),
                }
            }
        };
        let mut inner = cx.clone();
        inner.q.push((name.clone(), lo, hi));
        let body = self.bexp(&inner, d);
        let forall = self.r.chance(40);
        E::Quant(forall, name, Box::new(lo_e), Box::new(hi_e), Box::new(body))
    }

    // -----------------------------------------------------------------
    // Predicates and invariants

    fn predicate(&mut self, array: bool) -> E {
        let cx = Cx {
            excl: Some(array),
            ..Cx::global()
        };
        let n = self.r.weighted(&[60, 40]) + 1;
        let mut out: Option<E> = None;
        for _ in 0..n {
            let g = self.grant(&cx, array);
            out = Some(match out {
                None => g,
                Some(e) => E::bin(Op::Or, e, g),
            });
        }
        out.unwrap()
    }

    /// One way a thread t may get exclusive access.
    fn grant(&mut self, cx: &Cx, array: bool) -> E {
        let t = || E::Name(Ref::ExclT, "t".into());
        let lock_places = self.lock_places();
        let arrays: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.class == Ref::Lock && v.size.is_some())
            .map(|v| v.name.clone())
            .collect();
        let g = match self.r.weighted(&[
            if lock_places.is_empty() { 0 } else { 6 },
            if self.symmetric { 0 } else { 6 },
            if self.symmetric { 0 } else { 2 },
            if self.symmetric { 0 } else { 2 },
            2,
            if arrays.is_empty() { 0 } else { 2 },
            1,
        ]) {
            0 => {
                // Lock ownership, the element's own lock for arrays.
                let lock = if array && !arrays.is_empty() && self.r.chance(50) {
                    E::Elem(
                        Ref::Lock,
                        arrays[0].clone(),
                        Box::new(E::Name(Ref::ExclJ, "j".into())),
                    )
                } else {
                    let l = self.r.pick(&lock_places).clone();
                    match l.idx {
                        None => E::Name(Ref::Lock, l.name),
                        Some(i) => E::Elem(Ref::Lock, l.name, Box::new(i)),
                    }
                };
                E::bin(Op::Eq, lock, t())
            }
            1 => {
                // A fixed thread, while some condition holds.
                let k = self.r.below(self.nthreads());
                let who = E::bin(Op::Eq, t(), E::Name(Ref::Thread, self.names[k].clone()));
                let cond = match self.r.weighted(&[3, 3, 3]) {
                    0 => self.bexp(cx, 2),
                    1 => {
                        let cx_k = cx.clone();
                        match self.at_of(&cx_k, k) {
                            Some(e) => e,
                            None => self.bexp(cx, 1),
                        }
                    }
                    _ => match self.local_of_thread(k) {
                        Some(e) => e,
                        None => self.bexp(cx, 1),
                    },
                };
                E::bin(Op::And, who, cond)
            }
            2 => {
                // The initialisation phase.
                let x = self.r.pick(&self.vars).name.clone();
                let init = E::InitOf(Some(Box::new(t())), x.clone());
                if self.r.chance(50) && !lock_places.is_empty() {
                    let l = self.r.pick(&lock_places).clone();
                    let lock = match l.idx {
                        None => E::Name(Ref::Lock, l.name),
                        Some(i) => E::Elem(Ref::Lock, l.name, Box::new(i)),
                    };
                    E::bin(
                        Op::Or,
                        init,
                        E::bin(
                            Op::And,
                            E::bin(Op::Eq, lock, t()),
                            E::Not(Box::new(E::InitOf(None, x))),
                        ),
                    )
                } else {
                    init
                }
            }
            3 => {
                // The thread's own control point or local.
                let e = if self.r.chance(50) {
                    self.at(cx)
                } else {
                    let want_bool = self.r.chance(50);
                    self.local_of(cx, want_bool).map(|e| {
                        if want_bool {
                            e
                        } else {
                            E::bin(Op::Eq, e, E::Int(self.r.int(0, 1)))
                        }
                    })
                };
                match e {
                    Some(e) => e,
                    None => self.bexp(cx, 2),
                }
            }
            4 => {
                // t compared with the element, or a shared variable.
                let other = if array && self.r.chance(60) {
                    E::Name(Ref::ExclJ, "j".into())
                } else {
                    self.iexp(cx, 1)
                };
                E::bin(Op::Eq, t(), other)
            }
            5 => {
                let name = format!("q{}", cx.q.len());
                let body = E::bin(
                    Op::Eq,
                    E::Elem(
                        Ref::Lock,
                        arrays[0].clone(),
                        Box::new(E::Name(Ref::QVar, name.clone())),
                    ),
                    t(),
                );
                E::Quant(
                    self.r.chance(30),
                    name,
                    Box::new(E::Int(0)),
                    Box::new(E::Int(1)),
                    Box::new(body),
                )
            }
            _ => self.bexp(cx, 2),
        };
        if self.r.chance(25) {
            let extra = self.bexp(cx, 2);
            E::bin(Op::And, g, extra)
        } else {
            g
        }
    }

    /// `at(K, L)` for thread k (named), if its body has labels.
    fn at_of(&mut self, _cx: &Cx, k: usize) -> Option<E> {
        let labels = &self.bodies[self.body_of[k]].labels;
        if labels.is_empty() {
            return None;
        }
        let l = self.r.pick(labels).clone();
        let e = E::At(Box::new(E::Name(Ref::Thread, self.names[k].clone())), l);
        Some(if self.r.chance(40) {
            E::Not(Box::new(e))
        } else {
            e
        })
    }

    /// `K.r == v` or `K.f` for thread k (named).
    fn local_of_thread(&mut self, k: usize) -> Option<E> {
        let locals: Vec<LocalInfo> = self.bodies[self.body_of[k]]
            .locals
            .iter()
            .filter(|l| l.size.is_none())
            .cloned()
            .collect();
        if locals.is_empty() {
            return None;
        }
        let l = self.r.pick(&locals).clone();
        let e = E::LocalOf(
            Box::new(E::Name(Ref::Thread, self.names[k].clone())),
            l.name,
        );
        Some(match l.ty {
            Ty::Bool => e,
            Ty::Int(lo, hi) => E::bin(Op::Eq, e, E::Int(self.r.int(lo, hi))),
        })
    }

    /// A condition for an assertion or invariant: a disjunction at times,
    /// so that not every one fails.
    fn likely(&mut self, cx: &Cx) -> E {
        let n = if self.r.chance(self.risk) {
            1
        } else {
            self.r.int(2, 3)
        };
        let mut e = self.bexp(cx, 3 - n.min(2) as u32);
        for _ in 1..n {
            let b = self.bexp(cx, 1);
            e = E::bin(Op::Or, e, b);
        }
        e
    }

    fn invariant(&mut self) -> E {
        let cx = Cx::global();
        match self.r.weighted(&[3, 2, 2, 2]) {
            0 => self.likely(&cx),
            // A lock read as a value.
            1 => {
                let a = self.lock_compare(&cx, 1);
                let b = self.bexp(&cx, 1);
                E::bin(Op::Or, a, b)
            }
            // A range the variables should keep.
            2 => {
                let e = self.iexp(&cx, 1);
                E::bin(Op::Le, e, E::Int(self.r.int(1, 3)))
            }
            _ => {
                let a = match self.symmetric {
                    true => self.bexp(&cx, 1),
                    false => self.at(&cx).unwrap_or(E::Bool(false)),
                };
                let b = self.bexp(&cx, 1);
                E::bin(Op::Or, a, b)
            }
        }
    }

    // -----------------------------------------------------------------
    // Statements

    /// A thread or procedure body, with its planned labels on top-level
    /// statements, and a final `return e` for a typed procedure.
    fn body(&mut self, w: Where) -> Vec<Stmt> {
        self.recent.clear();
        let labels = match w {
            Where::Thread(b) => self.bodies[b].labels.clone(),
            Where::Proc(p) => self.procs[p].labels.clone(),
            Where::Global => unreachable!(),
        };
        let n = match w {
            Where::Thread(_) => self.r.int(2, 4) as usize,
            _ => self.r.int(1, 4) as usize,
        }
        .max(labels.len());
        // Which top-level statements carry the labels: the first often.
        let mut at: Vec<usize> = (0..n).collect();
        for k in (1..at.len()).rev() {
            let j = self.r.below(k + 1);
            at.swap(k, j);
        }
        at.truncate(labels.len());
        if !at.is_empty() && self.r.chance(50) && !at.contains(&0) {
            at[0] = 0;
        }
        let sx = Sx {
            w,
            depth: 0,
            atomic: false,
            branch: false,
        };
        let mut out = vec![];
        for k in 0..n {
            let label = at.iter().position(|&p| p == k).map(|i| labels[i].clone());
            let mut stmts = self.stmt(&sx, label.is_some());
            if let Some(l) = label {
                stmts[0].label = Some(l);
            }
            out.extend(stmts);
        }
        if let Where::Proc(p) = w {
            match self.procs[p].ret.clone() {
                Some(ret) => {
                    let e = self.ret_value(&sx, &ret);
                    out.push(Stmt::new(S::Return(Some(e))));
                }
                None if self.r.chance(30) => out.push(Stmt::new(S::Return(None))),
                None => {}
            }
        }
        // Some labels move into the first statement of a block.
        for st in out.iter_mut() {
            if st.label.is_some()
                && matches!(st.s, S::If(..) | S::While(..) | S::Either(..) | S::Init(..))
                && self.r.chance(30)
            {
                let label = st.label.take();
                let first = &mut st.blocks_mut()[0][0];
                if first.label.is_none() && !matches!(first.s, S::Repeat(..) | S::Init(..)) {
                    first.label = label;
                } else {
                    st.label = label;
                }
            }
        }
        out
    }

    fn ret_value(&mut self, sx: &Sx, ret: &Ty) -> E {
        let cx = self.cx_body(sx.w);
        match ret {
            Ty::Bool => self.bexp(&cx, 2),
            Ty::Int(lo, hi) => {
                // Often the caller's identity, directly or through a local.
                let in_range: Vec<(Ref, String)> = self
                    .scope_locals(&cx)
                    .into_iter()
                    .filter(|(_, _, t, size)| {
                        size.is_none() && matches!(t, Ty::Int(l, h) if l >= lo && h <= hi)
                    })
                    .map(|(r, n, _, _)| (r, n))
                    .collect();
                // What the procedure computed last, if it fits.
                let recent: Vec<E> = self
                    .recent
                    .iter()
                    .filter(|(r, n, _)| in_range.contains(&(*r, n.clone())))
                    .map(|(r, n, _)| E::Name(*r, n.clone()))
                    .collect();
                let vars: Vec<E> = in_range.into_iter().map(|(r, n)| E::Name(r, n)).collect();
                if !recent.is_empty() && self.r.chance(60) {
                    self.r.pick(&recent).clone()
                } else if !vars.is_empty() && self.r.chance(50) {
                    // What the procedure computed (a local, a parameter).
                    self.r.pick(&vars).clone()
                } else if self.r.chance(40) {
                    let mut opts = vec![E::bin(Op::Mod, E::SelfId, E::Int(hi + 1))];
                    if cx.index_ok {
                        opts.push(E::Name(Ref::Index, "index".into()));
                        opts.push(E::bin(
                            Op::Add,
                            E::Name(Ref::Index, "index".into()),
                            E::Int(*lo),
                        ));
                    }
                    self.r.pick(&opts).clone()
                } else {
                    self.int_in(&cx, *lo, *hi, 60)
                }
            }
        }
    }

    fn block(&mut self, sx: &Sx, lo: i64, hi: i64) -> Vec<Stmt> {
        let inner = Sx {
            depth: sx.depth + 1,
            branch: false,
            ..sx.clone()
        };
        self.block_in(&inner, lo, hi)
    }

    fn block_in(&mut self, inner: &Sx, lo: i64, hi: i64) -> Vec<Stmt> {
        let n = self.r.int(lo, hi);
        let mut out = vec![];
        for _ in 0..n {
            out.extend(self.stmt(inner, false));
        }
        out
    }

    /// Assignable places here: (place, type).
    fn targets(&mut self, sx: &Sx) -> Vec<(Lv, Ty)> {
        let cx = self.cx_body(sx.w);
        let mut out = vec![];
        let prot = self.r.chance(self.risk);
        let globals: Vec<VarInfo> = self
            .vars
            .iter()
            .filter(|v| v.class == Ref::Shared || (prot && v.class == Ref::Protected))
            .cloned()
            .collect();
        for v in globals {
            let idx = v.size.map(|n| self.index_exp(&cx, n, 1));
            out.push((
                Lv {
                    r: v.class,
                    name: v.name.clone(),
                    idx,
                },
                v.ty.clone(),
            ));
        }
        for (r, n, t, size) in self.scope_locals(&cx) {
            let idx = size.map(|k| self.index_exp(&cx, k, 1));
            let lv = Lv { r, name: n, idx };
            out.push((lv.clone(), t.clone()));
            out.push((lv, t));
        }
        out
    }

    fn value_for(&mut self, sx: &Sx, ty: &Ty) -> E {
        let cx = self.cx_body(sx.w);
        match ty {
            Ty::Bool => self.bexp(&cx, 2),
            Ty::Int(lo, hi) => self.int_in(&cx, *lo, *hi, 100 - self.risk / 2),
        }
    }

    /// Procedures callable here (in a procedure: later ones, and itself
    /// under a decreasing argument).
    fn callable(&self, sx: &Sx) -> Vec<usize> {
        match sx.w {
            Where::Proc(p) => (p + 1..self.procs.len()).collect(),
            _ => (0..self.procs.len()).collect(),
        }
    }

    /// The arguments of a call of procedure `p`: its channels first.
    fn args(&mut self, sx: &Sx, p: usize) -> Vec<E> {
        let cparams = self.procs[p].cparams.clone();
        let params = self.procs[p].params.clone();
        let mut out: Vec<E> = cparams.iter().map(|(_, q)| self.chan_arg(sx, q)).collect();
        out.extend(params.iter().map(|(_, t)| self.value_for(sx, t)));
        out
    }

    /// A channel of `q` passed to a `chan q` parameter: `q[i]`, its index
    /// a constant or computed (and then at times out of range), `q` when
    /// it is one channel, or a channel parameter of the caller's own of
    /// type `chan q`, passed on.
    fn chan_arg(&mut self, sx: &Sx, q: &str) -> E {
        if let Where::Proc(p) = sx.w
            && let Some((n, _)) = self.procs[p].cparams.iter().find(|(_, c)| c == q)
            && self.r.chance(50)
        {
            return E::Name(Ref::ChanParam, n.clone());
        }
        let c = self.chans.iter().find(|c| c.name == q).unwrap().clone();
        match c.size {
            None => E::Name(Ref::Chan, c.name),
            Some(n) => {
                let cx = self.cx_body(sx.w);
                let i = self.index_exp(&cx, n, 2);
                E::Elem(Ref::Chan, c.name, Box::new(i))
            }
        }
    }

    /// The channels code at `w` may name: the system's, and in a
    /// procedure its channel parameters (twice: they are what it is for).
    fn chans_at(&self, w: Where) -> Vec<ChanInfo> {
        let mut out = self.chans.clone();
        if let Where::Proc(p) = w {
            for (n, q) in &self.procs[p].cparams {
                let c = self.chans.iter().find(|c| c.name == *q).unwrap();
                let param = ChanInfo {
                    name: n.clone(),
                    size: None,
                    param: true,
                    ..c.clone()
                };
                out.push(param.clone());
                out.push(param);
            }
        }
        out
    }

    /// One statement (several for a critical section), never a `repeat`
    /// or `init` block when it carries a label.
    fn stmt(&mut self, sx: &Sx, labelled: bool) -> Vec<Stmt> {
        let out = self.stmt_kind(sx, labelled);
        for st in &out {
            let targets: Vec<&Lv> = match &st.s {
                S::Assign(lvs, _) => lvs.iter().collect(),
                S::Call(Some(lv), ..) => vec![lv],
                S::Receive(_, args, _) => args
                    .iter()
                    .filter_map(|a| match a {
                        Recv::Var(lv) => Some(lv),
                        _ => None,
                    })
                    .collect(),
                _ => vec![],
            };
            for lv in targets {
                if lv.idx.is_none() {
                    let bool_ty = self.is_bool(sx.w, lv);
                    self.recent.retain(|(_, n, _)| *n != lv.name);
                    self.recent.push((lv.r, lv.name.clone(), bool_ty));
                    if self.recent.len() > 3 {
                        self.recent.remove(0);
                    }
                }
            }
        }
        out
    }

    /// Whether a scalar place holds a bool.
    fn is_bool(&self, w: Where, lv: &Lv) -> bool {
        let cx = self.cx_body(w);
        self.scope_locals(&cx)
            .into_iter()
            .find(|l| l.1 == lv.name)
            .map(|l| l.2 == Ty::Bool)
            .or_else(|| {
                self.vars
                    .iter()
                    .find(|v| v.name == lv.name)
                    .map(|v| v.ty == Ty::Bool)
            })
            .unwrap_or(false)
    }

    fn stmt_kind(&mut self, sx: &Sx, labelled: bool) -> Vec<Stmt> {
        let cx = self.cx_body(sx.w);
        let guard = Cx {
            guard: true,
            ..cx.clone()
        };
        let proc = matches!(sx.w, Where::Proc(_));
        let deep = sx.depth >= 2;
        let sems: Vec<VarInfo> = self
            .vars
            .iter()
            .filter(|v| v.class == Ref::Sem)
            .cloned()
            .collect();
        let locks = self.vars.iter().any(|v| v.class == Ref::Lock);
        let crit: Vec<VarInfo> = self
            .vars
            .iter()
            .filter(|v| v.by.is_some())
            .cloned()
            .collect();
        let callable = self.callable(sx);
        let typed: Vec<usize> = callable
            .iter()
            .copied()
            .filter(|&p| self.procs[p].ret.is_some())
            .collect();
        let recursive = match sx.w {
            Where::Proc(p) => self.procs[p]
                .params
                .iter()
                .any(|(_, t)| matches!(t, Ty::Int(0, _))),
            _ => false,
        };
        let labels = match sx.w {
            Where::Thread(b) => self.bodies[b].labels.clone(),
            Where::Proc(p) => self.procs[p].labels.clone(),
            Where::Global => vec![],
        };
        if sx.atomic {
            return vec![self.atomic_part(sx)];
        }
        // 0 assign, 1 multiple, 2 any, 3 await, 4 assert, 5 critical
        // section, 6 acquire, 7 release, 8 down, 9 up, 10 skip, 11 goto,
        // 12 atomic, 13 if, 14 while, 15 either, 16 repeat, 17 init,
        // 18 call, 19 x := call, 20 return, 21 recursion, 22 send, 23
        // receive
        let chans = !self.chans.is_empty();
        let w = [
            6,
            2,
            2,
            2,
            3,
            if crit.is_empty() { 0 } else { 4 },
            if locks { 2 } else { 0 },
            if locks { 2 } else { 0 },
            if sems.is_empty() { 0 } else { 2 },
            if sems.is_empty() { 0 } else { 2 },
            1,
            if labels.is_empty() { 0 } else { 1 },
            2,
            if deep { 0 } else { 3 },
            if deep { 0 } else { 1 },
            if deep { 0 } else { 2 },
            if deep || labelled { 0 } else { 1 },
            if deep || labelled { 0 } else { 1 },
            if callable.is_empty() { 0 } else { 3 },
            match (typed.is_empty(), proc) {
                (true, _) => 0,
                (false, false) => 5,
                // Nested calls whose value comes back.
                (false, true) => 14,
            },
            if proc && sx.depth > 0 { 2 } else { 0 },
            if recursive && !deep { 2 } else { 0 },
            match (chans, sx.branch) {
                (false, _) => 0,
                (true, false) => 3,
                (true, true) => 5,
            },
            match (chans, sx.branch) {
                (false, _) => 0,
                (true, false) => 3,
                (true, true) => 5,
            },
        ];
        let one = |s: S| vec![Stmt::new(s)];
        match self.r.weighted(&w) {
            0 => {
                let ts = self.targets(sx);
                let (lv, ty) = self.r.pick(&ts).clone();
                let v = self.value_for(sx, &ty);
                one(S::Assign(vec![lv], vec![Rhs::E(v)]))
            }
            1 => {
                let ts = self.targets(sx);
                let (a, ta) = self.r.pick(&ts).clone();
                let others: Vec<(Lv, Ty)> = ts.into_iter().filter(|t| t.0.name != a.name).collect();
                if others.is_empty() {
                    let v = self.value_for(sx, &ta);
                    return one(S::Assign(vec![a], vec![Rhs::E(v)]));
                }
                let (b, tb) = self.r.pick(&others).clone();
                let va = self.rhs(sx, &ta);
                let vb = self.rhs(sx, &tb);
                one(S::Assign(vec![a, b], vec![va, vb]))
            }
            2 => {
                let ts: Vec<(Lv, Ty)> = self
                    .targets(sx)
                    .into_iter()
                    .filter(|t| t.1 != Ty::Bool)
                    .collect();
                if ts.is_empty() {
                    return one(S::Skip);
                }
                let (lv, ty) = self.r.pick(&ts).clone();
                let Ty::Int(lo, hi) = ty else { unreachable!() };
                let (a, b) = if !self.r.chance(self.risk / 4) {
                    let a = self.r.int(lo, hi);
                    (a, self.r.int(a, hi))
                } else {
                    (lo, hi + 1)
                };
                one(S::Assign(vec![lv], vec![Rhs::Any(a, b)]))
            }
            3 if chans && self.r.chance(35) => {
                // Waiting on a channel's state.
                let t = self.chan_test(&guard, 1);
                let g = if self.r.chance(30) {
                    E::bin(Op::And, t, self.bexp(&guard, 1))
                } else {
                    t
                };
                one(S::Await(g))
            }
            3 => one(S::Await(self.bexp(&guard, 2))),
            4 => one(S::Assert(self.likely(&cx))),
            5 => {
                // A critical section of a variable protected by a lock.
                let v = self.r.pick(&crit).clone();
                let lock = v.by.clone().unwrap();
                let idx = v.size.map(|n| self.index_exp(&cx, n, 1));
                let x = Lv {
                    r: Ref::Protected,
                    name: v.name.clone(),
                    idx,
                };
                let val = self.value_for(sx, &v.ty);
                let mut out = vec![Stmt::new(S::Acquire(lock.clone()))];
                if self.r.chance(40) {
                    out.extend(self.block(sx, 0, 1));
                }
                out.push(Stmt::new(S::Assign(vec![x], vec![Rhs::E(val)])));
                if self.r.chance(30) {
                    out.extend(self.block(sx, 0, 1));
                }
                if !self.r.chance(self.risk / 6) {
                    out.push(Stmt::new(S::Release(lock)));
                }
                out
            }
            6 => one(S::Acquire(self.lock_place(&guard))),
            7 => one(S::Release(self.lock_place(&guard))),
            8 | 9 => {
                // The index of `down` and `up` is read by their guards.
                let v = self.r.pick(&sems).clone();
                let down = self.r.chance(50);
                let idx = v.size.map(|n| self.index_exp(&guard, n, 2));
                let lv = Lv {
                    r: Ref::Sem,
                    name: v.name,
                    idx,
                };
                if down {
                    one(S::Down(lv))
                } else {
                    one(S::Up(lv))
                }
            }
            10 => one(S::Skip),
            11 => one(S::Goto(self.r.pick(&labels).clone())),
            12 => {
                let g = self.r.chance(40).then(|| self.bexp(&guard, 1));
                let inner = Sx {
                    atomic: true,
                    depth: sx.depth + 1,
                    ..sx.clone()
                };
                // Led, at times, by a send or receive on a buffered channel.
                let buffered = self.chans.iter().any(|c| c.capacity > 0);
                let mut parts = vec![];
                if buffered && self.r.chance(45) {
                    let send = self.r.chance(50);
                    parts.push(Stmt::new(self.chan_stmt(sx, send, true)));
                }
                let n = self.r.int(1 - parts.len() as i64, 3 - parts.len() as i64);
                parts.extend((0..n).map(|_| self.atomic_part(&inner)));
                one(S::Atomic(g, parts))
            }
            13 => {
                let c = self.bexp(&cx, 2);
                let a = self.block(sx, 1, 2);
                let b = match self.r.weighted(&[4, 3, 2]) {
                    0 => None,
                    1 => Some(self.block(sx, 1, 2)),
                    _ => {
                        // `else if`
                        let c2 = self.bexp(&cx, 2);
                        let a2 = self.block(sx, 1, 2);
                        let b2 = self.r.chance(50).then(|| self.block(sx, 1, 1));
                        Some(vec![Stmt::new(S::If(c2, a2, b2))])
                    }
                };
                one(S::If(c, a, b))
            }
            14 => {
                let c = self.bexp(&cx, 2);
                let body = self.block(sx, 1, 2);
                one(S::While(c, body))
            }
            15 => {
                let n = self.r.int(2, 3);
                let inner = Sx {
                    depth: sx.depth + 1,
                    branch: true,
                    ..sx.clone()
                };
                let bs = (0..n).map(|_| self.block_in(&inner, 1, 2)).collect();
                one(S::Either(bs))
            }
            16 => {
                let ints: Vec<String> = self
                    .consts
                    .iter()
                    .filter(|c| !c.1)
                    .map(|c| c.0.clone())
                    .collect();
                // In an `either` branch, at least once: a branch may not
                // end up empty.
                let n = if !ints.is_empty() && self.r.chance(40) && !sx.branch {
                    E::Name(Ref::Const, self.r.pick(&ints).clone())
                } else {
                    E::Int(self.r.int(i64::from(sx.branch), 2))
                };
                let body = self.block(sx, 1, 2);
                one(S::Repeat(n, body))
            }
            17 => {
                let mut xs = vec![self.r.pick(&self.vars).name.clone()];
                if self.r.chance(25) {
                    let y = self.r.pick(&self.vars).name.clone();
                    if !xs.contains(&y) {
                        xs.push(y);
                    }
                }
                let inner = Sx {
                    depth: sx.depth + 1,
                    branch: true,
                    ..sx.clone()
                };
                let body = self.block_in(&inner, 1, 2);
                one(S::Init(xs, body))
            }
            18 => {
                let p = *self.r.pick(&callable);
                let args = self.args(sx, p);
                one(S::Call(None, self.procs[p].name.clone(), args))
            }
            19 => {
                let p = *self.r.pick(&typed);
                let ret = self.procs[p].ret.clone().unwrap();
                let ts: Vec<(Lv, Ty)> = self
                    .targets(sx)
                    .into_iter()
                    .filter(|t| (t.1 == Ty::Bool) == (ret == Ty::Bool))
                    .collect();
                let args = self.args(sx, p);
                let name = self.procs[p].name.clone();
                if ts.is_empty() {
                    return one(S::Call(None, name, args));
                }
                let (lv, _) = self.r.pick(&ts).clone();
                one(S::Call(Some(lv), name, args))
            }
            20 => {
                let Where::Proc(p) = sx.w else { unreachable!() };
                let v = self.procs[p].ret.clone().map(|t| self.ret_value(sx, &t));
                one(S::Return(v))
            }
            22 => one(self.chan_stmt(sx, true, false)),
            23 => one(self.chan_stmt(sx, false, false)),
            _ => {
                // Recursion, bounded by a decreasing argument.
                let Where::Proc(p) = sx.w else { unreachable!() };
                let info = self.procs[p].clone();
                let k = info
                    .params
                    .iter()
                    .position(|(_, t)| matches!(t, Ty::Int(0, _)))
                    .unwrap();
                let pname = info.params[k].0.clone();
                let mut args = self.args(sx, p);
                args[info.cparams.len() + k] =
                    E::bin(Op::Sub, E::Name(Ref::Param, pname.clone()), E::Int(1));
                let target = match &info.ret {
                    Some(ret) => {
                        let ts: Vec<(Lv, Ty)> = self
                            .targets(sx)
                            .into_iter()
                            .filter(|t| (t.1 == Ty::Bool) == (*ret == Ty::Bool))
                            .collect();
                        (!ts.is_empty()).then(|| self.r.pick(&ts).0.clone())
                    }
                    None => None,
                };
                let call = Stmt::new(S::Call(target, info.name, args));
                let test = E::bin(Op::Gt, E::Name(Ref::Param, pname), E::Int(0));
                one(S::If(test, vec![call], None))
            }
        }
    }

    /// A send or a receive on some channel (a buffered one when
    /// `buffered`: a rendezvous cannot be part of an `atomic`). Its index
    /// (read by its guard) may be out of range, its values out of their
    /// fields' ranges, its matches may never match.
    fn chan_stmt(&mut self, sx: &Sx, send: bool, buffered: bool) -> S {
        let cands: Vec<ChanInfo> = self
            .chans_at(sx.w)
            .into_iter()
            .filter(|c| !buffered || c.capacity > 0)
            .collect();
        let c = self.r.pick(&cands).clone();
        self.chan_stmt_on(sx, &c, send)
    }

    /// A send or a receive on channel `c`.
    fn chan_stmt_on(&mut self, sx: &Sx, c: &ChanInfo, send: bool) -> S {
        let cx = self.cx_body(sx.w);
        let guard = Cx {
            guard: true,
            ..cx.clone()
        };
        let idx = c.size.map(|n| self.index_exp(&guard, n, 2));
        let lv = Lv {
            r: if c.param { Ref::ChanParam } else { Ref::Chan },
            name: c.name.clone(),
            idx,
        };
        if send {
            let es = c.fields.iter().map(|t| self.value_for(sx, t)).collect();
            return S::Send(lv, es);
        }
        let mut used: Vec<String> = vec![];
        let args = c
            .fields
            .iter()
            .map(|t| self.recv_arg(sx, &guard, t, &mut used))
            .collect();
        // At times one that keeps the message (a rendezvous has none).
        let keep = c.capacity > 0 && self.r.chance(30);
        S::Receive(lv, args, keep)
    }

    /// One argument of a receive, for a field of type `ty`: a place of that
    /// type (a local mostly; not one of `used`), a value to match (a
    /// literal, a constant, `eval(e)`), or `_`.
    fn recv_arg(&mut self, sx: &Sx, guard: &Cx, ty: &Ty, used: &mut Vec<String>) -> Recv {
        let want_bool = *ty == Ty::Bool;
        let consts = self.match_consts(ty);
        match self
            .r
            .weighted(&[55, 12, if consts.is_empty() { 0 } else { 6 }, 12, 15])
        {
            0 => {
                let all: Vec<(Lv, Ty)> = self
                    .targets(sx)
                    .into_iter()
                    .filter(|(l, t)| (*t == Ty::Bool) == want_bool && !used.contains(&l.name))
                    .collect();
                let locals: Vec<(Lv, Ty)> = all
                    .iter()
                    .filter(|(l, _)| matches!(l.r, Ref::Local | Ref::Param | Ref::ProcLocal))
                    .cloned()
                    .collect();
                let pool = if !locals.is_empty() && self.r.chance(70) {
                    locals
                } else {
                    all
                };
                if pool.is_empty() {
                    return Recv::Skip;
                }
                let (lv, _) = self.r.pick(&pool).clone();
                used.push(lv.name.clone());
                Recv::Var(lv)
            }
            k => self.recv_value(guard, ty, &consts, k),
        }
    }

    /// The constants (and thread names) a field of type `ty` may match.
    fn match_consts(&self, ty: &Ty) -> Vec<(Ref, String)> {
        let want_bool = *ty == Ty::Bool;
        self.consts
            .iter()
            .filter(|c| c.1 == want_bool)
            .map(|c| (Ref::Const, c.0.clone()))
            .chain(
                self.names
                    .iter()
                    .filter(|_| !want_bool && !self.symmetric)
                    .map(|n| (Ref::Thread, n.clone())),
            )
            .collect()
    }

    /// A receive's or poll's argument that is no place: `k` 1 a literal
    /// (at times one the field never holds), 2 one of `consts`, 3
    /// `eval(e)` (of an expression of `cx`), else `_`.
    fn recv_value(&mut self, cx: &Cx, ty: &Ty, consts: &[(Ref, String)], k: usize) -> Recv {
        match k {
            1 => match ty {
                Ty::Bool => Recv::Lit(E::Bool(self.r.chance(50))),
                Ty::Int(lo, hi) => {
                    // At times a value the field never holds.
                    let v = if self.r.chance(self.risk / 2) {
                        hi + 1
                    } else {
                        self.r.int(*lo, *hi)
                    };
                    if v < 0 {
                        Recv::Eval(E::Int(v))
                    } else {
                        Recv::Lit(E::Int(v))
                    }
                }
            },
            2 => {
                let (r, n) = self.r.pick(consts).clone();
                Recv::Const(r, n)
            }
            3 => Recv::Eval(match ty {
                Ty::Bool => self.bexp(cx, 1),
                Ty::Int(lo, hi) => self.int_in(cx, *lo, *hi, 80),
            }),
            _ => Recv::Skip,
        }
    }

    fn rhs(&mut self, sx: &Sx, ty: &Ty) -> Rhs {
        match ty {
            Ty::Int(lo, hi) if self.r.chance(25) => {
                let a = self.r.int(*lo, *hi);
                Rhs::Any(a, self.r.int(a, *hi))
            }
            _ => Rhs::E(self.value_for(sx, ty)),
        }
    }

    /// A lock for `acquire` or `release`, its index computed at times.
    fn lock_place(&mut self, guard: &Cx) -> Lv {
        let locks: Vec<VarInfo> = self
            .vars
            .iter()
            .filter(|v| v.class == Ref::Lock)
            .cloned()
            .collect();
        let v = self.r.pick(&locks).clone();
        let idx = v.size.map(|n| self.index_exp(guard, n, 2));
        Lv {
            r: Ref::Lock,
            name: v.name,
            idx,
        }
    }

    /// A part of an `atomic` block: an assignment, `if`, `assert` or `skip`.
    fn atomic_part(&mut self, sx: &Sx) -> Stmt {
        let cx = self.cx_body(sx.w);
        match self
            .r
            .weighted(&[6, 2, if sx.depth < 3 { 2 } else { 0 }, 2, 1])
        {
            0 => {
                let ts = self.targets(sx);
                let (lv, ty) = self.r.pick(&ts).clone();
                let v = self.rhs(sx, &ty);
                Stmt::new(S::Assign(vec![lv], vec![v]))
            }
            1 => {
                let ts = self.targets(sx);
                let (a, ta) = self.r.pick(&ts).clone();
                let others: Vec<(Lv, Ty)> = ts.into_iter().filter(|t| t.0.name != a.name).collect();
                if others.is_empty() {
                    return Stmt::new(S::Skip);
                }
                let (b, tb) = self.r.pick(&others).clone();
                let va = self.rhs(sx, &ta);
                let vb = self.rhs(sx, &tb);
                Stmt::new(S::Assign(vec![a, b], vec![va, vb]))
            }
            2 => {
                let c = self.bexp(&cx, 2);
                let inner = Sx {
                    depth: sx.depth + 1,
                    ..sx.clone()
                };
                let a = vec![self.atomic_part(&inner)];
                let b = self.r.chance(50).then(|| vec![self.atomic_part(&inner)]);
                Stmt::new(S::If(c, a, b))
            }
            3 => Stmt::new(S::Assert(self.likely(&cx))),
            _ => Stmt::new(S::Skip),
        }
    }
}

/// Whether `body` sends (`send`) or receives on channel `name`.
fn uses_chan(body: &[Stmt], name: &str, send: bool) -> bool {
    body.iter().any(|st| {
        match &st.s {
            S::Send(c, _) if send && c.name == name => return true,
            S::Receive(c, ..) if !send && c.name == name => return true,
            _ => {}
        }
        st.blocks().into_iter().any(|b| uses_chan(b, name, send))
    })
}

#[derive(Clone, Debug)]
struct Sx {
    w: Where,
    depth: u32,
    atomic: bool,
    /// A branch of `either`, which may not end up empty.
    branch: bool,
}

impl Sx {
    /// The top level of thread `b`'s body.
    fn top(b: usize) -> Sx {
        Sx {
            w: Where::Thread(b),
            depth: 0,
            atomic: false,
            branch: false,
        }
    }
}
