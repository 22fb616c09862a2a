//! The pretty-printer: canonical source text for an AST.
//!
//! Parsing the printed text gives back an equal AST (tested by property
//! tests), so the printer is also how `refine --write` emits models.

use std::fmt::Write;

use super::ast::*;

/// The canonical text of a whole model.
pub fn model(m: &Model) -> String {
    let mut p = Printer::default();
    if let Some(n) = &m.name {
        p.line(&format!("system {};", n.name));
        p.blank();
    }
    let mut prev_thread = false;
    for (k, item) in m.items.iter().enumerate() {
        let is_thread = matches!(item, Item::Thread(_) | Item::Proc(_));
        if k > 0 && (is_thread || prev_thread) {
            p.blank();
        }
        prev_thread = is_thread;
        p.item(item);
    }
    p.out
}

/// One expression.
pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, 0);
    s
}

/// A temporal formula, its operands in parentheses where they are not
/// atoms or prefix forms.
pub fn formula(f: &Formula) -> String {
    let sub = |g: &Formula| match g {
        Formula::Atom(_) | Formula::Not(_) | Formula::Always(_) | Formula::Eventually(_) => {
            formula(g)
        }
        _ => format!("({})", formula(g)),
    };
    match f {
        Formula::Atom(e) => match &e.kind {
            ExprKind::Binary(BinOp::And | BinOp::Or, ..) => format!("({})", expr(e)),
            _ => expr(e),
        },
        Formula::Not(g) => format!("!{}", sub(g)),
        Formula::Always(g) => format!("[] {}", sub(g)),
        Formula::Eventually(g) => format!("<> {}", sub(g)),
        Formula::And(g, h) => format!("{} && {}", sub(g), sub(h)),
        Formula::Or(g, h) => format!("{} || {}", sub(g), sub(h)),
        Formula::Implies(g, h) => format!("{} -> {}", sub(g), sub(h)),
        Formula::Until(g, h) => format!("{} U {}", sub(g), sub(h)),
        Formula::WeakUntil(g, h) => format!("{} W {}", sub(g), sub(h)),
    }
}

/// The one-line text of a statement, as shown in traces: compound statements
/// show their head (`if c`, `while c`, `either`), `atomic` its whole body.
pub fn stmt_head(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::If(c, ..) => format!("if {}", expr(c)),
        StmtKind::While(c, _) => format!("while {}", expr(c)),
        StmtKind::Either(_) => "either".to_string(),
        StmtKind::Repeat(n, _) => format!("repeat {}", expr(n)),
        StmtKind::Init(vars, _) => format!(
            "init {}",
            vars.iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StmtKind::Atomic(body) => {
            let parts: Vec<String> = body.iter().map(stmt_inline).collect();
            // Labels inside `atomic` are rejected, so `body` prints as written.
            format!("atomic {{ {} }}", parts.join(" "))
        }
        _ => {
            let unlabelled = Stmt {
                label: None,
                ..s.clone()
            };
            stmt_inline(&unlabelled).trim_end_matches(';').to_string()
        }
    }
}

/// A statement on one line, including nested blocks.
fn stmt_inline(s: &Stmt) -> String {
    let mut p = Printer {
        inline: true,
        ..Printer::default()
    };
    p.stmt(s);
    p.out.trim().to_string()
}

/// The text of an assignable place.
pub fn lvalue(l: &LValue) -> String {
    match &l.index {
        Some(i) => format!("{}[{}]", l.name.name, expr(i)),
        None => l.name.name.clone(),
    }
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    inline: bool,
}

impl Printer {
    fn line(&mut self, s: &str) {
        if self.inline {
            self.out.push_str(s);
            self.out.push(' ');
            return;
        }
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn blank(&mut self) {
        if !self.inline {
            self.out.push('\n');
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) => self.line(&format!("const {} = {};", c.name.name, expr(&c.value))),
            Item::Threads(n, _) => self.line(&format!("threads {};", expr(n))),
            Item::Invariant(e, _) => self.line(&format!("invariant {};", expr(e))),
            Item::Ltl(d) => self.line(&format!("ltl {}: {};", d.name.name, formula(&d.formula))),
            Item::Var(d) => self.line(&var_decl(d)),
            Item::Chan(c) => self.line(&chan_decl(c)),
            Item::Proc(p) => {
                let params: Vec<String> = p
                    .params
                    .iter()
                    .map(|q| format!("{} : {}", q.name.name, value_type(&q.ty)))
                    .collect();
                let ret = p
                    .ret
                    .as_ref()
                    .map_or(String::new(), |t| format!(" : {}", value_type(t)));
                self.line(&format!(
                    "proc {}({}){ret} {{",
                    p.name.name,
                    params.join(", ")
                ));
                self.body(&p.body);
            }
            Item::Thread(t) => {
                let copies = t
                    .copies
                    .as_ref()
                    .map_or(String::new(), |n| format!("[{}]", expr(n)));
                self.line(&format!("thread {}{copies} {{", t.name.name));
                self.body(&t.body);
            }
        }
    }

    /// The inside of a procedure or thread, after its opening line: its
    /// locals and statements, indented, then the closing brace.
    fn body(&mut self, body: &Body) {
        self.indent += 1;
        for d in &body.locals {
            self.line(&var_decl(d));
        }
        self.stmts(&body.stmts);
        self.indent -= 1;
        self.line("}");
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn block(&mut self, head: String, body: &[Stmt], tail: &str) {
        self.line(&format!("{head}{{"));
        self.indent += 1;
        self.stmts(body);
        self.indent -= 1;
        self.line(&format!("}}{tail}"));
    }

    fn stmt(&mut self, s: &Stmt) {
        let label = s
            .label
            .as_ref()
            .map_or(String::new(), |l| format!("{}: ", l.name));
        let simple = match &s.kind {
            StmtKind::Assign(ls, rs) => Some(format!(
                "{} := {};",
                ls.iter().map(lvalue).collect::<Vec<_>>().join(", "),
                rs.iter().map(expr).collect::<Vec<_>>().join(", ")
            )),
            StmtKind::Await(e) => Some(format!("await {};", expr(e))),
            StmtKind::Assert(e) => Some(format!("assert {};", expr(e))),
            StmtKind::Acquire(l) => Some(format!("acquire {};", lvalue(l))),
            StmtKind::Release(l) => Some(format!("release {};", lvalue(l))),
            StmtKind::Down(l) => Some(format!("down {};", lvalue(l))),
            StmtKind::Up(l) => Some(format!("up {};", lvalue(l))),
            StmtKind::Skip => Some("skip;".to_string()),
            StmtKind::Goto(l) | StmtKind::Jump(l) => Some(format!("goto {};", l.name)),
            StmtKind::Bound(e) => Some(format!("await {}; /* past the bound */", expr(e))),
            StmtKind::Call(target, f, args) => {
                let target = target
                    .as_ref()
                    .map_or(String::new(), |t| format!("{} := ", lvalue(t)));
                Some(format!(
                    "{target}call {}({});",
                    f.name,
                    args.iter().map(expr).collect::<Vec<_>>().join(", ")
                ))
            }
            StmtKind::Send(c, values) => Some(format!(
                "{} ! {};",
                lvalue(c),
                values.iter().map(expr).collect::<Vec<_>>().join(", ")
            )),
            StmtKind::Receive(c, args, RecvMode::Take) => {
                Some(format!("{} ? {};", lvalue(c), recv_args(args)))
            }
            StmtKind::Receive(c, args, RecvMode::Keep) => {
                Some(format!("{} ?<{}>;", lvalue(c), recv_args(args)))
            }
            StmtKind::Return(None) => Some("return;".to_string()),
            StmtKind::Return(Some(e)) => Some(format!("return {};", expr(e))),
            _ => None,
        };
        if let Some(text) = simple {
            self.line(&format!("{label}{text}"));
            return;
        }
        match &s.kind {
            StmtKind::Atomic(body) => self.block(format!("{label}atomic "), body, ""),
            StmtKind::While(c, body) => self.block(format!("{label}while {} ", expr(c)), body, ""),
            StmtKind::Init(vars, body) => {
                let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
                self.block(format!("{label}init {} ", names.join(", ")), body, "")
            }
            StmtKind::Repeat(n, body) => {
                self.block(format!("{label}repeat {} ", expr(n)), body, "")
            }
            StmtKind::If(..) => self.if_chain(label, s),
            StmtKind::Either(branches) => {
                for (k, b) in branches.iter().enumerate() {
                    let head = if k == 0 {
                        format!("{label}either ")
                    } else {
                        "} or ".to_string()
                    };
                    self.line(&format!("{head}{{"));
                    self.indent += 1;
                    self.stmts(b);
                    self.indent -= 1;
                }
                self.line("}");
            }
            _ => unreachable!("simple statements are printed above"),
        }
    }

    /// `if a { } else if b { } else { }`: an else block holding exactly one
    /// unlabelled `if` prints as `else if`, which parses back to the same AST.
    fn if_chain(&mut self, label: String, s: &Stmt) {
        let mut head = format!("{label}if ");
        let mut cur = s;
        loop {
            let StmtKind::If(c, then, els) = &cur.kind else {
                unreachable!()
            };
            self.line(&format!("{head}{} {{", expr(c)));
            self.indent += 1;
            self.stmts(then);
            self.indent -= 1;
            match els.as_deref() {
                None => {
                    self.line("}");
                    return;
                }
                Some([inner])
                    if inner.label.is_none() && matches!(inner.kind, StmtKind::If(..)) =>
                {
                    head = "} else if ".to_string();
                    cur = inner;
                }
                Some(body) => {
                    self.line("} else {");
                    self.indent += 1;
                    self.stmts(body);
                    self.indent -= 1;
                    self.line("}");
                    return;
                }
            }
        }
    }
}

/// A parameter's or a returned value's type: `bool` or `lo..hi`.
fn value_type(t: &Type) -> String {
    match t {
        Type::Int(lo, hi) | Type::Sem(lo, hi) => format!("{}..{}", expr(lo), expr(hi)),
        Type::Bool => "bool".to_string(),
        Type::Lock => "lock".to_string(),
        Type::Chan(q) => format!("chan {}", q.name),
    }
}

/// The text of one variable declaration.
pub fn var_decl(d: &VarDecl) -> String {
    let mut s = String::new();
    let size = d
        .size
        .as_ref()
        .map_or(String::new(), |n| format!("[{}]", expr(n)));
    if d.ty == Type::Lock {
        return format!("lock {}{size};", d.name.name);
    }
    let kw = match (&d.class, &d.ty) {
        (_, Type::Sem(..)) => "sem",
        (Class::Shared, _) => "shared",
        (Class::Protected { .. }, _) => "protected",
        (Class::Local, _) => "local",
    };
    let ty = match &d.ty {
        Type::Int(lo, hi) | Type::Sem(lo, hi) => format!("{}..{}", expr(lo), expr(hi)),
        Type::Bool => "bool".to_string(),
        Type::Chan(q) => format!("chan {}", q.name),
        Type::Lock => unreachable!(),
    };
    let _ = write!(s, "{kw} {}{size} : {ty}", d.name.name);
    match &d.init {
        Some(Init::Value(e)) => {
            let _ = write!(s, " = {}", expr(e));
        }
        Some(Init::List(es, _)) => {
            let _ = write!(
                s,
                " = [{}]",
                es.iter().map(expr).collect::<Vec<_>>().join(", ")
            );
        }
        None => {}
    }
    if let Class::Protected {
        excl: x,
        unprotected,
    } = &d.class
    {
        match x {
            Excl::By(l) => {
                let _ = write!(s, " by {}", lvalue(l));
            }
            Excl::Pred { params, body } => {
                let ps: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                let _ = write!(s, "\n    excl({}) = {}", ps.join(", "), expr(body));
            }
        }
        if !unprotected.is_empty() {
            let _ = write!(
                s,
                " unprotected [{}]",
                unprotected.iter().map(expr).collect::<Vec<_>>().join(", ")
            );
        }
    }
    s.push(';');
    s
}

/// `chan c[n] : [K] of {T, ...};`
fn chan_decl(c: &ChanDecl) -> String {
    let size = c
        .size
        .as_ref()
        .map_or(String::new(), |n| format!("[{}]", expr(n)));
    let fields: Vec<String> = c.fields.iter().map(value_type).collect();
    format!(
        "chan {}{size} : [{}] of {{{}}};",
        c.name.name,
        expr(&c.capacity),
        fields.join(", ")
    )
}

/// The fields of a receive or poll, as written.
fn recv_args(args: &[RecvArg]) -> String {
    args.iter().map(recv_arg).collect::<Vec<_>>().join(", ")
}

/// One field of a receive, as written.
fn recv_arg(a: &RecvArg) -> String {
    match a {
        RecvArg::Var(l) => lvalue(l),
        RecvArg::Skip(_) => "_".to_string(),
        RecvArg::Match(e) if matches!(e.kind, ExprKind::Int(_) | ExprKind::Bool(_)) => expr(e),
        RecvArg::Match(e) => format!("eval({})", expr(e)),
    }
}

/// Writes `e`, parenthesised when its precedence is below `min`.
fn write_expr(out: &mut String, e: &Expr, min: u8) {
    match &e.kind {
        ExprKind::Int(n) => {
            let _ = write!(out, "{n}");
        }
        ExprKind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ExprKind::SelfId => out.push_str("self"),
        ExprKind::Free => out.push_str("free"),
        ExprKind::Timeout => out.push_str("timeout"),
        ExprKind::Name(n) => out.push_str(&n.name),
        ExprKind::Index(n, i) => {
            out.push_str(&n.name);
            out.push('[');
            write_expr(out, i, 0);
            out.push(']');
        }
        ExprKind::Unary(op, a) => {
            out.push(if *op == UnOp::Neg { '-' } else { '!' });
            write_expr(out, a, 6);
        }
        ExprKind::Binary(op, a, b) => {
            let p = op.precedence();
            let paren = p < min;
            if paren {
                out.push('(');
            }
            // `a && b || c` reads better as `(a && b) || c`; both parse the same.
            let operand = |out: &mut String, e: &Expr, min: u8| {
                if *op == BinOp::Or && matches!(e.kind, ExprKind::Binary(BinOp::And, ..)) {
                    out.push('(');
                    write_expr(out, e, 0);
                    out.push(')');
                } else {
                    write_expr(out, e, min);
                }
            };
            operand(out, a, p);
            let _ = write!(out, " {} ", op.symbol());
            operand(out, b, p + 1);
            if paren {
                out.push(')');
            }
        }
        ExprKind::At(t, l) => {
            out.push_str("at(");
            write_expr(out, t, 0);
            let _ = write!(out, ", {})", l.name);
        }
        ExprKind::Quant(q, v, lo, hi, body) => {
            // A quantifier's body extends to the right as far as it can, so it
            // needs parentheses whenever it is an operand.
            let paren = min > 0;
            if paren {
                out.push('(');
            }
            let kw = if *q == Quant::Exists {
                "exists"
            } else {
                "forall"
            };
            let _ = write!(out, "{kw} {} in ", v.name);
            write_expr(out, lo, 0);
            out.push_str("..");
            write_expr(out, hi, 0);
            out.push_str(": ");
            write_expr(out, body, 0);
            if paren {
                out.push(')');
            }
        }
        ExprKind::InitPhase(t, x) => {
            out.push_str("init(");
            if let Some(t) = t {
                write_expr(out, t, 0);
                out.push_str(", ");
            }
            let _ = write!(out, "{})", x.name);
        }
        ExprKind::Local(t, r) => {
            if matches!(t.kind, ExprKind::Name(_) | ExprKind::SelfId) {
                write_expr(out, t, 0);
            } else {
                out.push('(');
                write_expr(out, t, 0);
                out.push(')');
            }
            let _ = write!(out, ".{}", r.name);
        }
        ExprKind::Chan(q, c) => {
            let _ = write!(out, "{}({})", q.word(), lvalue(c));
        }
        ExprKind::Poll(c, args) => {
            let _ = write!(out, "{}?[{}]", lvalue(c), recv_args(args));
        }
        ExprKind::Any(lo, hi) => {
            out.push_str("any ");
            write_expr(out, lo, 0);
            out.push_str("..");
            write_expr(out, hi, 0);
        }
    }
}
