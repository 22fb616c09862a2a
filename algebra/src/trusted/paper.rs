//! The claim, pinned: Stoller & Cohen's theory (declarations, definitions
//! (3)-(9) with T, p and the bracket, hypotheses (11)-(18)) and theorem
//! (19), built here term by term from the paper (digest, section 2), not
//! read from any script or certificate. `+` and `·` nest to the right, as
//! the script parser reads them: `a + b + c` is `a + (b + c)`.

use std::rc::Rc;

use super::term::{Ix, Sort, Term};
use super::thm::{CoreError, DefHead, Formula, Rel, Statement, Theory};

/// An atom, or a family member at a free index (`"u_i"`) or at the
/// innermost binder (`"u_#"`).
pub(super) fn a(s: &str) -> Term {
    match s.split_once('_') {
        None => Term::Atom(s.into(), None),
        Some((n, "#")) => Term::Atom(n.into(), Some(Ix::Bound(0))),
        Some((n, i)) => Term::Atom(n.into(), Some(Ix::Free(i.into()))),
    }
}
/// Right-nested product of the factors.
pub(super) fn sq(ts: &[Term]) -> Term {
    let (last, init) = ts.split_last().expect("a factor");
    init.iter()
        .rev()
        .fold(last.clone(), |acc, t| Term::seq(t.clone(), acc))
}
/// Right-nested sum of the summands.
pub(super) fn ad(ts: &[Term]) -> Term {
    let (last, init) = ts.split_last().expect("a summand");
    init.iter()
        .rev()
        .fold(last.clone(), |acc, t| Term::plus(t.clone(), acc))
}
pub(super) fn star(t: Term) -> Term {
    Term::Star(Rc::new(t))
}
pub(super) fn not(t: Term) -> Term {
    Term::Not(Rc::new(t))
}
pub(super) fn f(l: Term, rel: Rel, r: Term) -> Formula {
    Formula::new(l, rel, r)
}
/// A statement, under `i != j` when `distinct`.
pub(super) fn st(distinct: bool, conclusions: Vec<Formula>) -> Statement {
    let d = if distinct {
        vec![("i".into(), "j".into())]
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

/// (19) `p (u + v)* q <= N* R`, with no conditions or premises.
pub fn claim() -> Statement {
    let lhs = sq(&[a("p"), star(ad(&[a("u"), a("v")])), a("q")]);
    st(false, vec![f(lhs, Rel::Le, sq(&[star(a("N")), a("R")]))])
}

/// The paper's theory, without lemmas.
#[rustfmt::skip]
pub fn theory() -> Result<Theory, CoreError> {
    use Rel::{Eq, Le};
    let mut th = Theory::default();
    th.declare("q", false, Sort::Pred)?;
    th.declare("p", true, Sort::Pred)?;
    th.declare("u", true, Sort::Elem)?;
    th.declare("v", true, Sort::Elem)?;
    th.define("T", DefHead::Const("T".into()), Term::Omega(Rc::new(Term::One)))?; // T = 1^w
    reduced(&mut th)?;
    let qt = || sq(&[a("q"), a("T")]);
    // u_j p_i = p_i u_j, and the same with v_j
    let commute = |y: &str| f(sq(&[a(y), a("p_i")]), Eq, sq(&[a("p_i"), a(y)]));
    // u_j u_i <= u_i (q T + u_j + u_j q T), and the same with v_j
    let mover = |y: &str| f(sq(&[a(y), a("u_i")]), Le, sq(&[a("u_i"), ad(&[qt(), a(y), sq(&[a(y), a("q"), a("T")])])]));
    th.assume("(12)", st(true, vec![commute("u_j")]))?;
    th.assume("(13)", st(true, vec![commute("v_j")]))?;
    th.assume("(14)", st(true, vec![mover("u_j")]))?;
    th.assume("(15)", st(true, vec![mover("v_j")]))?;
    // ~p_i v_i = 0 = p_i u_i, that is ~p_i v_i = 0 and 0 = p_i u_i
    th.assume("(16)", st(false, vec![f(sq(&[not(a("p_i")), a("v_i")]), Eq, Term::Zero), f(Term::Zero, Eq, sq(&[a("p_i"), a("u_i")]))]))?;
    invisible(&mut th)?;
    Ok(th)
}

/// Definitions (3)-(9), p and the bracket: the reduced system N* R, built
/// from `u_i`, `v_i`, `p_i`, `q` and `T`, which must exist already.
#[rustfmt::skip]
pub(super) fn reduced(th: &mut Theory) -> Result<(), CoreError> {
    let (c, fam) = (|n: &str| DefHead::Const(n.into()), |n: &str| DefHead::Family(n.into(), "i".into()));
    let sum = |n: &str| Term::Sum(Rc::new(a(n)));
    let qt = || sq(&[a("q"), a("T")]);
    let x = Term::Var("x".into(), Sort::Elem);
    th.define("(3)", fam("M"), sq(&[a("v_i"), star(a("u_i"))]))?;                // M_i = v_i u_i*
    th.define("(4)", fam("N"), sq(&[a("M_i"), a("p_i"), not(a("q"))]))?;         // N_i = M_i p_i ~q
    th.define("(5)", c("u"), sum("u_#"))?;                                       // u = (+i : u_i)
    th.define("(6)", c("v"), sum("v_#"))?;                                       // v = (+i : v_i)
    th.define("(7)", c("M"), sum("M_#"))?;                                       // M = (+i : M_i)
    th.define("(8)", c("N"), sum("N_#"))?;                                       // N = (+i : N_i)
    th.define("(9)", c("R"), sq(&[ad(&[Term::One, a("M")]), a("q"), a("T")]))?;  // R = (1 + M) q T
    th.define("(p)", c("p"), Term::Prod(Rc::new(a("p_#"))))?;                   // p = (.i : p_i)
    th.define("(box)", DefHead::Bracket("x".into()), ad(&[x.clone(), sq(&[x, a("q"), a("T")]), qt()]))?; // [x] = x + x q T + q T
    Ok(())
}

/// Hypotheses (11), (17) and (18), on thread i's invisible steps `u_i`.
#[rustfmt::skip]
pub(super) fn invisible(th: &mut Theory) -> Result<(), CoreError> {
    use Rel::{Eq, Le};
    th.assume("(11)", st(false, vec![f(Term::Omega(Rc::new(sq(&[a("u_i"), not(a("q"))]))), Eq, Term::Zero)]))?;
    th.assume("(17)", st(false, vec![f(Term::One, Le, ad(&[a("p_i"), sq(&[a("u_i"), a("T")])]))]))?;
    th.assume("(18)", st(false, vec![f(sq(&[a("q"), a("u_i")]), Le, sq(&[a("u_i"), a("q")]))]))?;
    Ok(())
}
