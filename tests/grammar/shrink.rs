//! Greedy shrinking of a generated system: drop threads, statements,
//! declarations (channels included), labels, else branches, a receive's
//! arguments (to `_`), a procedure's channel parameter (its uses naming
//! the channel's first channel instead); shrink buffers; unwrap compound statements;
//! replace expressions by a subexpression or a literal; keep each change
//! while the system still compiles and still disagrees.

use std::time::{Duration, Instant};

use super::ast::*;

/// Whether some procedure reads `self` or `index`, in its code or its
/// locals' initial values.
pub fn procs_read_identity(sys: &System) -> bool {
    fn expr(e: &E) -> bool {
        matches!(e, E::SelfId | E::Name(Ref::Index, _)) || e.children().into_iter().any(expr)
    }
    let mut found = false;
    for p in &sys.procs {
        for l in &p.locals {
            match &l.init {
                Some(Init::One(e)) => found |= expr(e),
                Some(Init::List(es)) => found |= es.iter().any(expr),
                None => {}
            }
        }
        each_stmt(&p.body, &mut |st| {
            stmt_exprs(st, &mut |e| found |= expr(e));
        });
    }
    found
}

fn each_stmt(body: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for st in body {
        f(st);
        for b in st.blocks() {
            each_stmt(b, f);
        }
    }
}

/// The expressions of a statement itself (not of its blocks).
fn stmt_exprs(st: &Stmt, f: &mut dyn FnMut(&E)) {
    let lv = |l: &Lv, f: &mut dyn FnMut(&E)| {
        if let Some(i) = &l.idx {
            f(i);
        }
    };
    match &st.s {
        S::Assign(lvs, rhs) => {
            for l in lvs {
                lv(l, f);
            }
            for r in rhs {
                if let Rhs::E(e) = r {
                    f(e);
                }
            }
        }
        S::Call(t, _, args) => {
            if let Some(t) = t {
                lv(t, f);
            }
            for a in args {
                f(a);
            }
        }
        S::Return(Some(e)) | S::Await(e) | S::Assert(e) => f(e),
        S::Acquire(l) | S::Release(l) | S::Down(l) | S::Up(l) => lv(l, f),
        S::Atomic(Some(g), _) => f(g),
        S::If(c, ..) | S::While(c, _) => f(c),
        S::Send(c, es) => {
            lv(c, f);
            for e in es {
                f(e);
            }
        }
        S::Receive(c, args, _) => {
            lv(c, f);
            for a in args {
                match a {
                    Recv::Var(l) => lv(l, f),
                    Recv::Lit(e) | Recv::Eval(e) => f(e),
                    Recv::Const(..) | Recv::Skip => {}
                }
            }
        }
        _ => {}
    }
}

fn stmt_exprs_mut(st: &mut Stmt, f: &mut dyn FnMut(&mut E)) {
    fn lv(l: &mut Lv, f: &mut dyn FnMut(&mut E)) {
        if let Some(i) = &mut l.idx {
            f(i);
        }
    }
    match &mut st.s {
        S::Assign(lvs, rhs) => {
            for l in lvs {
                lv(l, f);
            }
            for r in rhs {
                if let Rhs::E(e) = r {
                    f(e);
                }
            }
        }
        S::Call(t, _, args) => {
            if let Some(t) = t {
                lv(t, f);
            }
            for a in args {
                f(a);
            }
        }
        S::Return(Some(e)) | S::Await(e) | S::Assert(e) => f(e),
        S::Acquire(l) | S::Release(l) | S::Down(l) | S::Up(l) => lv(l, f),
        S::Atomic(Some(g), _) => f(g),
        S::If(c, ..) | S::While(c, _) => f(c),
        S::Send(c, es) => {
            lv(c, f);
            for e in es {
                f(e);
            }
        }
        S::Receive(c, args, _) => {
            lv(c, f);
            for a in args {
                match a {
                    Recv::Var(l) => lv(l, f),
                    Recv::Lit(e) | Recv::Eval(e) => f(e),
                    Recv::Const(..) | Recv::Skip => {}
                }
            }
        }
        _ => {}
    }
}

fn each_stmt_mut(body: &mut [Stmt], f: &mut dyn FnMut(&mut Stmt)) {
    for st in body.iter_mut() {
        f(st);
        for b in st.blocks_mut() {
            each_stmt_mut(b, f);
        }
    }
}

/// Every root expression of the system.
fn roots_mut(sys: &mut System, f: &mut dyn FnMut(&mut E)) {
    for (_, v) in &mut sys.consts {
        f(v);
    }
    let init = |i: &mut Option<Init>, f: &mut dyn FnMut(&mut E)| match i {
        Some(Init::One(e)) => f(e),
        Some(Init::List(es)) => es.iter_mut().for_each(f),
        None => {}
    };
    for v in &mut sys.vars {
        init(&mut v.init, f);
        if let Class::Protected(Excl::Pred(_, body), _) = &mut v.class {
            f(body);
        }
    }
    for p in &mut sys.procs {
        for l in &mut p.locals {
            init(&mut l.init, f);
        }
        each_stmt_mut(&mut p.body, &mut |st| stmt_exprs_mut(st, f));
    }
    for t in &mut sys.threads {
        for l in &mut t.locals {
            init(&mut l.init, f);
        }
        each_stmt_mut(&mut t.body, &mut |st| stmt_exprs_mut(st, f));
    }
    for i in &mut sys.invariants {
        f(i);
    }
}

/// Every block (statement list) of the system, bodies first.
fn blocks_mut(sys: &mut System, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    fn rec(b: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
        f(b);
        for st in b.iter_mut() {
            for inner in st.blocks_mut() {
                rec(inner, f);
            }
        }
    }
    for t in &mut sys.threads {
        rec(&mut t.body, f);
    }
    for p in &mut sys.procs {
        rec(&mut p.body, f);
    }
}

/// Applies the `n`-th expression node (pre-order) to `f`; true when there
/// was one.
fn at_node(sys: &mut System, n: usize, f: &mut dyn FnMut(&mut E)) -> bool {
    fn rec(e: &mut E, n: &mut usize, f: &mut dyn FnMut(&mut E)) -> bool {
        if *n == 0 {
            f(e);
            return true;
        }
        *n -= 1;
        for c in e.children_mut() {
            if rec(c, n, f) {
                return true;
            }
        }
        false
    }
    let mut left = n;
    let mut done = false;
    roots_mut(sys, &mut |e| {
        if !done && rec(e, &mut left, f) {
            done = true;
        }
    });
    done
}

/// Applies `f` to the `n`-th statement list; true when there was one.
fn at_block(sys: &mut System, n: usize, f: &mut dyn FnMut(&mut Vec<Stmt>)) -> bool {
    let mut k = 0;
    let mut done = false;
    blocks_mut(sys, &mut |b| {
        if k == n && !done {
            f(b);
            done = true;
        }
        k += 1;
    });
    done
}

/// `sys` without channel parameter `j` of procedure `k`: its calls pass
/// one argument less, and its code names channel 0 of the parameter's
/// channel (the channel itself when it is one) instead; None when the
/// channel is gone.
fn drop_chan_param(sys: &System, k: usize, j: usize) -> Option<System> {
    let mut s = sys.clone();
    let (n, q) = s.procs[k].cparams.remove(j);
    let chan = sys.chans.iter().find(|c| c.name == q)?;
    let idx = chan.size.map(|_| E::Int(0));
    fn expr(e: &mut E, n: &str, q: &str, idx: &Option<E>) {
        match e {
            E::Name(Ref::ChanParam, p) if p == n => {
                *e = match idx {
                    Some(i) => E::Elem(Ref::Chan, q.to_string(), Box::new(i.clone())),
                    None => E::Name(Ref::Chan, q.to_string()),
                };
                return;
            }
            E::Chan(_, c, i) | E::Poll(c, i, _) if c == n => {
                *c = q.to_string();
                *i = idx.clone().map(Box::new);
            }
            _ => {}
        }
        for c in e.children_mut() {
            expr(c, n, q, idx);
        }
    }
    each_stmt_mut(&mut s.procs[k].body, &mut |st| {
        if let S::Send(c, _) | S::Receive(c, ..) = &mut st.s
            && c.r == Ref::ChanParam
            && c.name == n
        {
            *c = Lv {
                r: Ref::Chan,
                name: q.clone(),
                idx: idx.clone(),
            };
        }
        stmt_exprs_mut(st, &mut |e| expr(e, &n, &q, &idx));
    });
    let f = s.procs[k].name.clone();
    let nth = |st: &mut Stmt| {
        if let S::Call(_, g, args) = &mut st.s
            && *g == f
            && j < args.len()
        {
            args.remove(j);
        }
    };
    blocks_mut(&mut s, &mut |b| {
        for st in b.iter_mut() {
            nth(st);
        }
    });
    Some(s)
}

/// The one-step simplifications of `sys`, biggest first.
fn candidates(sys: &System) -> Vec<System> {
    let mut out = vec![];
    // Threads: fewer declarations, fewer copies.
    if sys.threads.len() > 1 {
        for k in 0..sys.threads.len() {
            let mut s = sys.clone();
            s.threads.remove(k);
            out.push(s);
        }
    }
    if let Some(n) = sys.threads_n.filter(|n| *n > 1) {
        let mut s = sys.clone();
        s.threads_n = Some(n - 1);
        out.push(s);
    }
    for k in 0..sys.threads.len() {
        if let Some(n) = sys.threads[k].copies.filter(|n| *n > 1) {
            let mut s = sys.clone();
            s.threads[k].copies = Some(n - 1);
            out.push(s);
        }
    }
    // Declarations.
    for k in 0..sys.procs.len() {
        let mut s = sys.clone();
        s.procs.remove(k);
        out.push(s);
    }
    for k in 0..sys.procs.len() {
        for j in 0..sys.procs[k].cparams.len() {
            out.extend(drop_chan_param(sys, k, j));
        }
    }
    for k in 0..sys.invariants.len() {
        let mut s = sys.clone();
        s.invariants.remove(k);
        out.push(s);
    }
    for k in 0..sys.vars.len() {
        let mut s = sys.clone();
        s.vars.remove(k);
        out.push(s);
    }
    for k in 0..sys.consts.len() {
        let mut s = sys.clone();
        s.consts.remove(k);
        out.push(s);
    }
    for k in 0..sys.chans.len() {
        let mut s = sys.clone();
        s.chans.remove(k);
        out.push(s);
        // A smaller buffer (a rendezvous stays one: it is refused).
        if sys.chans[k].capacity > 1 {
            let mut s = sys.clone();
            s.chans[k].capacity -= 1;
            out.push(s);
        }
    }
    // Statements: drop one, or replace a compound one by a block of it.
    let mut nblocks = 0;
    blocks_mut(&mut sys.clone(), &mut |_| nblocks += 1);
    for b in 0..nblocks {
        let mut len = 0;
        at_block(&mut sys.clone(), b, &mut |bl| len = bl.len());
        for i in 0..len {
            let mut s = sys.clone();
            at_block(&mut s, b, &mut |bl| {
                bl.remove(i);
            });
            out.push(s);
            let mut inner = 0;
            at_block(&mut sys.clone(), b, &mut |bl| inner = bl[i].blocks().len());
            for j in 0..inner {
                let mut s = sys.clone();
                at_block(&mut s, b, &mut |bl| {
                    let st = bl.remove(i);
                    let label = st.label.clone();
                    let mut body = st.blocks()[j].clone();
                    if let (Some(l), Some(first)) = (label, body.first_mut())
                        && first.label.is_none()
                    {
                        first.label = Some(l);
                    }
                    for (k, x) in body.into_iter().enumerate() {
                        bl.insert(i + k, x);
                    }
                });
                out.push(s);
            }
            // Drop an else branch, a label.
            let mut s = sys.clone();
            let mut changed = false;
            at_block(&mut s, b, &mut |bl| {
                if let S::If(_, _, e @ Some(_)) = &mut bl[i].s {
                    *e = None;
                    changed = true;
                }
            });
            if changed {
                out.push(s);
            }
            let mut s = sys.clone();
            let mut changed = false;
            at_block(&mut s, b, &mut |bl| {
                if bl[i].label.take().is_some() {
                    changed = true;
                }
            });
            if changed {
                out.push(s);
            }
            // A receive's argument dropped (`_`), one at a time.
            let mut nargs = 0;
            at_block(&mut sys.clone(), b, &mut |bl| {
                if let S::Receive(_, args, _) = &bl[i].s {
                    nargs = args.len();
                }
            });
            for a in 0..nargs {
                let mut s = sys.clone();
                let mut changed = false;
                at_block(&mut s, b, &mut |bl| {
                    if let S::Receive(_, args, _) = &mut bl[i].s
                        && args[a] != Recv::Skip
                    {
                        args[a] = Recv::Skip;
                        changed = true;
                    }
                });
                if changed {
                    out.push(s);
                }
            }
        }
    }
    // Locals.
    for t in 0..sys.threads.len() {
        for l in 0..sys.threads[t].locals.len() {
            let mut s = sys.clone();
            s.threads[t].locals.remove(l);
            out.push(s);
        }
    }
    for p in 0..sys.procs.len() {
        for l in 0..sys.procs[p].locals.len() {
            let mut s = sys.clone();
            s.procs[p].locals.remove(l);
            out.push(s);
        }
    }
    // Expressions: a subexpression, or a literal.
    let mut nodes = 0;
    roots_mut(&mut sys.clone(), &mut |e| {
        fn count(e: &E) -> usize {
            1 + e.children().into_iter().map(count).sum::<usize>()
        }
        nodes += count(e);
    });
    for n in 0..nodes {
        let mut node = None;
        at_node(&mut sys.clone(), n, &mut |e| node = Some(e.clone()));
        let Some(node) = node else { continue };
        let mut repl: Vec<E> = node.children().into_iter().cloned().collect();
        for lit in [E::Bool(true), E::Bool(false), E::Int(0), E::Int(1)] {
            if lit != node {
                repl.push(lit);
            }
        }
        if matches!(node, E::Int(_) | E::Bool(_)) {
            repl.retain(|r| matches!(r, E::Int(0) | E::Bool(true)) && *r != node);
        }
        for r in repl {
            let mut s = sys.clone();
            at_node(&mut s, n, &mut |e| *e = r.clone());
            out.push(s);
        }
    }
    out
}

/// Shrinks `sys` while `still` holds, within `budget`.
pub fn shrink(sys: &System, budget: Duration, still: &mut dyn FnMut(&System) -> bool) -> System {
    let start = Instant::now();
    let mut best = sys.clone();
    'outer: loop {
        for c in candidates(&best) {
            if start.elapsed() > budget {
                break 'outer;
            }
            if c != best && still(&c) {
                best = c;
                continue 'outer;
            }
        }
        break;
    }
    best
}
