//! The movers theorem, pinned: Flanagan and Qadeer's reduction
//! ("Transactions for software model checking", 2003, theorem A.1) in the
//! omega algebra of Stoller & Cohen. Thread i's steps are `s_i`; the
//! predicates `r_i` (thread i is in its pre-commit phase R(i)) and `p_i`
//! (it is not in its post-commit phase L(i)) partition the states with
//! N(i) = `p_i ~r_i`. Built here term by term, not read from any script
//! or certificate; the reduced system N* R is the paper's, from
//! `paper::reduced`, over `u_i = ~p_i s_i` (the left movers) and
//! `v_i = rm_i* p_i s_i ~r_i` (right movers `rm_i = s_i r_i`, then the
//! commit).

use std::rc::Rc;

use super::paper::{a, f, invisible, not, reduced, sq, st, star};
use super::term::{Sort, Term};
use super::thm::{CoreError, DefHead, Rel, Statement, Theory};

/// The label of the theorem.
pub const CLAIM: &str = "(M)";

/// (M) `p s* q <= N* R`, with no conditions or premises.
pub fn claim() -> Statement {
    let lhs = sq(&[a("p"), star(a("s")), a("q")]);
    st(false, vec![f(lhs, Rel::Le, sq(&[star(a("N")), a("R")]))])
}

/// The theory of the movers theorem, without lemmas.
#[rustfmt::skip]
pub fn theory() -> Result<Theory, CoreError> {
    use Rel::{Eq, Le};
    let mut th = Theory::default();
    th.declare("q", false, Sort::Pred)?;
    th.declare("p", true, Sort::Pred)?;
    th.declare("r", true, Sort::Pred)?;
    th.declare("s", true, Sort::Elem)?;
    let (c, fam) = (|n: &str| DefHead::Const(n.into()), |n: &str| DefHead::Family(n.into(), "i".into()));
    let sum = |n: &str| Term::Sum(Rc::new(a(n)));
    th.define("T", c("T"), Term::Omega(Rc::new(Term::One)))?;                                // T = 1^w
    th.define("(u)", fam("u"), sq(&[not(a("p_i")), a("s_i")]))?;                              // u_i = ~p_i s_i
    th.define("(rm)", fam("rm"), sq(&[a("s_i"), a("r_i")]))?;                                 // rm_i = s_i r_i
    th.define("(v)", fam("v"), sq(&[star(a("rm_i")), a("p_i"), a("s_i"), not(a("r_i"))]))?;  // v_i = rm_i* p_i s_i ~r_i
    th.define("(s)", c("s"), sum("s_#"))?;                                                    // s = (+i : s_i)
    th.define("(Rm)", c("rm"), sum("rm_#"))?;                                                 // rm = (+i : rm_i)
    reduced(&mut th)?;
    th.assume("(R)", st(false, vec![f(a("r_i"), Le, a("p_i"))]))?;                                            // r_i <= p_i
    th.assume("(A2)", st(false, vec![f(sq(&[not(a("p_i")), a("rm_i")]), Eq, Term::Zero)]))?;                 // ~p_i rm_i = 0
    th.assume("(A3)", st(true, vec![f(sq(&[a("rm_i"), a("s_j")]), Le, sq(&[a("s_j"), a("rm_i")]))]))?;      // rm_i s_j <= s_j rm_i
    th.assume("(A4)", st(true, vec![f(sq(&[a("s_j"), a("u_i")]), Le, sq(&[a("u_i"), a("s_j")]))]))?;        // s_j u_i <= u_i s_j
    th.assume("(A5)", st(true, vec![f(sq(&[a("s_j"), a("p_i")]), Eq, sq(&[a("p_i"), a("s_j")]))]))?;        // s_j p_i = p_i s_j
    th.assume("(A5r)", st(true, vec![f(sq(&[a("s_j"), a("r_i")]), Eq, sq(&[a("r_i"), a("s_j")]))]))?;       // s_j r_i = r_i s_j
    th.assume("(Q)", st(false, vec![f(sq(&[a("rm_i"), a("q")]), Le, sq(&[a("q"), a("rm_i")]))]))?;          // rm_i q <= q rm_i
    invisible(&mut th)?;                                                                                     // (11), (17), (18)
    Ok(th)
}
