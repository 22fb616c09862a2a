//! The claim, pinned: Stoller & Cohen's theory (declarations, definitions
//! (3)-(9) with T, p and the bracket, hypotheses (11)-(18)) and theorem
//! (19), built here term by term from the paper (digest, section 2), not
//! read from any script or certificate. `+` and `·` nest to the right, as
//! the script parser reads them, so that `a + b + c` is `a + (b + c)`.

use std::rc::Rc;

use super::term::{Ix, Sort, Term};
use super::thm::{CoreError, DefHead, Formula, Rel, Statement, Theory};

fn rc(t: Term) -> Rc<Term> {
    Rc::new(t)
}
fn c(n: &str) -> Term {
    Term::Atom(n.into(), None)
}
fn at(n: &str, i: &str) -> Term {
    Term::Atom(n.into(), Some(Ix::Free(i.into())))
}
fn bound(n: &str) -> Term {
    Term::Atom(n.into(), Some(Ix::Bound(0)))
}
/// Right-nested product.
fn sq(ts: Vec<Term>) -> Term {
    let mut it = ts.into_iter().rev();
    let last = it.next().expect("a factor");
    it.fold(last, |acc, t| Term::seq(t, acc))
}
/// Right-nested sum.
fn ad(ts: Vec<Term>) -> Term {
    let mut it = ts.into_iter().rev();
    let last = it.next().expect("a summand");
    it.fold(last, |acc, t| Term::plus(t, acc))
}
fn star(t: Term) -> Term {
    Term::Star(rc(t))
}
fn not(t: Term) -> Term {
    Term::Not(rc(t))
}
fn f(l: Term, rel: Rel, r: Term) -> Formula {
    Formula::new(l, rel, r)
}
fn st(distinct: bool, conclusions: Vec<Formula>) -> Statement {
    let d = if distinct {
        vec![("i".to_string(), "j".to_string())]
    } else {
        vec![]
    };
    Statement {
        distinct: d,
        premises: vec![],
        conclusions,
    }
}

/// The label of the theorem.
pub const CLAIM: &str = "(19)";

/// `p (u + v)* q <= N* R`, with no conditions or premises.
pub fn claim() -> Statement {
    let lhs = sq(vec![c("p"), star(ad(vec![c("u"), c("v")])), c("q")]);
    st(false, vec![f(lhs, Rel::Le, sq(vec![star(c("N")), c("R")]))])
}

/// The paper's theory, without lemmas.
pub fn theory() -> Result<Theory, CoreError> {
    let mut th = Theory::default();
    th.declare("q", false, Sort::Pred)?;
    th.declare("p", true, Sort::Pred)?;
    th.declare("u", true, Sort::Elem)?;
    th.declare("v", true, Sort::Elem)?;
    let (q, t) = (c("q"), c("T"));
    let (ui, uj, vj, pi) = (at("u", "i"), at("u", "j"), at("v", "j"), at("p", "i"));
    let cons = |n: &str| DefHead::Const(n.into());
    let fam = |n: &str| DefHead::Family(n.into(), "i".into());
    let sum = |n: &str| Term::Sum(rc(bound(n)));
    th.define("T", cons("T"), Term::Omega(rc(Term::One)))?;
    th.define("(3)", fam("M"), sq(vec![at("v", "i"), star(ui.clone())]))?;
    th.define(
        "(4)",
        fam("N"),
        sq(vec![at("M", "i"), pi.clone(), not(q.clone())]),
    )?;
    th.define("(5)", cons("u"), sum("u"))?;
    th.define("(6)", cons("v"), sum("v"))?;
    th.define("(7)", cons("M"), sum("M"))?;
    th.define("(8)", cons("N"), sum("N"))?;
    th.define(
        "(9)",
        cons("R"),
        sq(vec![ad(vec![Term::One, c("M")]), q.clone(), t.clone()]),
    )?;
    th.define("(p)", cons("p"), Term::Prod(rc(bound("p"))))?;
    let x = Term::Var("x".into(), Sort::Elem);
    let bx = ad(vec![
        x.clone(),
        sq(vec![x, q.clone(), t.clone()]),
        sq(vec![q.clone(), t.clone()]),
    ]);
    th.define("(box)", DefHead::Bracket("x".into()), bx)?;
    let qt = sq(vec![q.clone(), t.clone()]);
    // u_j p_i = p_i u_j and v_j p_i = p_i v_j
    let swap = |a: Term| {
        f(
            Term::seq(a.clone(), pi.clone()),
            Rel::Eq,
            Term::seq(pi.clone(), a),
        )
    };
    // u_j u_i <= u_i (q T + u_j + u_j q T), and the same with v_j
    let mover = |a: Term| {
        let rhs = Term::seq(
            ui.clone(),
            ad(vec![
                qt.clone(),
                a.clone(),
                sq(vec![a.clone(), q.clone(), t.clone()]),
            ]),
        );
        f(Term::seq(a, ui.clone()), Rel::Le, rhs)
    };
    let zero = Term::Zero;
    let hyps = [
        (
            "(11)",
            st(
                false,
                vec![f(
                    Term::Omega(rc(Term::seq(ui.clone(), not(q.clone())))),
                    Rel::Eq,
                    zero.clone(),
                )],
            ),
        ),
        ("(12)", st(true, vec![swap(uj.clone())])),
        ("(13)", st(true, vec![swap(vj.clone())])),
        ("(14)", st(true, vec![mover(uj)])),
        ("(15)", st(true, vec![mover(vj)])),
        (
            "(16)",
            st(
                false,
                vec![
                    f(
                        Term::seq(not(pi.clone()), at("v", "i")),
                        Rel::Eq,
                        zero.clone(),
                    ),
                    f(zero, Rel::Eq, Term::seq(pi.clone(), ui.clone())),
                ],
            ),
        ),
        (
            "(17)",
            st(
                false,
                vec![f(
                    Term::One,
                    Rel::Le,
                    ad(vec![pi, Term::seq(ui.clone(), t)]),
                )],
            ),
        ),
        (
            "(18)",
            st(
                false,
                vec![f(
                    Term::seq(q.clone(), ui.clone()),
                    Rel::Le,
                    Term::seq(ui, q),
                )],
            ),
        ),
    ];
    for (label, s) in hyps {
        th.assume(label, s)?;
    }
    Ok(th)
}
