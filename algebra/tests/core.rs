//! The trusted core at its edges: systems without threads.
//!
//! A theorem holds for every number of threads, none included, so a rule
//! that takes a summand or a factor at a thread `t` gives a theorem about
//! every thread `t`, which says nothing when there are none. `1 <= (+k :
//! 1)` and `(.k : 0) <= 0` are true with a thread and false without one
//! (the sum is 0, the product 1): the core derives them at a thread and
//! refuses them as lemmas.

use std::rc::Rc;

use omega_algebra::trusted::{Formula, Rel, Sort, Statement, Term, Theory};

fn lemma(f: Formula) -> Statement {
    Statement {
        distinct: vec![],
        premises: vec![],
        conclusions: vec![f],
    }
}

fn theory() -> Theory {
    let mut th = Theory::default();
    th.declare("u", true, Sort::Elem).expect("declared");
    th
}

#[test]
fn a_summand_taken_at_a_thread_does_not_make_a_lemma_about_no_threads() {
    let mut th = theory();
    let sum = Term::Sum(Rc::new(Term::One));
    let t = th.sum_intro(&sum, "t").expect("1 <= (+k : 1) at t");
    assert_eq!(t.concl().to_string(), "1 <= (+k : 1)");
    assert!(t.indices().contains("t"), "{:?}", t.indices());
    let e = th
        .close_lemma("bad", lemma(t.concl().clone()), &t)
        .expect_err("false in a system without threads");
    assert_eq!(e.rule, "lemma");
    assert!(
        e.reason
            .contains("holds for every thread t, which the lemma does not mention"),
        "{e}"
    );
    // Summed over t, it says something of every system: (+t : 1) <= (+k : 1).
    let both = th.sum_least(&t, "t").expect("sum-least binds t");
    assert!(both.indices().is_empty());
    th.close_lemma("ok", lemma(both.concl().clone()), &both)
        .expect("true for every number of threads");
}

#[test]
fn a_factor_taken_at_a_thread_does_not_make_a_lemma_about_no_threads() {
    let mut th = theory();
    let prod = Term::Prod(Rc::new(Term::Zero));
    let t = th.prod_elim(&prod, "t").expect("(.k : 0) <= 0 at t");
    assert_eq!(t.concl().to_string(), "(.k : 0) <= 0");
    let e = th
        .close_lemma("bad", lemma(t.concl().clone()), &t)
        .expect_err("false in a system without threads");
    assert!(e.reason.contains("every thread t"), "{e}");
}

#[test]
fn an_index_used_only_in_the_middle_of_a_transitivity_is_kept() {
    // 0 = 0 u_t and 0 u_t = 0 give 0 = 0, a theorem about every thread t
    // although neither end mentions t.
    let mut th = theory();
    let ut = Term::Atom(
        "u".into(),
        Some(omega_algebra::trusted::Ix::Free("t".into())),
    );
    let zero_ut = Term::seq(Term::Zero, ut.clone());
    let a = th.aci(&Term::Zero, &Term::Zero).expect("0 = 0");
    assert!(a.indices().is_empty());
    let l = th
        .rewrite(&th.axiom("seq-zero-l").expect("0 x = 0"), &zero_ut, &[])
        .expect("0 u_t = 0");
    let r = th.sym(&l).expect("0 = 0 u_t");
    let zz = th.trans(&r, &l).expect("0 = 0 through 0 u_t");
    assert_eq!(zz.concl(), &Formula::new(Term::Zero, Rel::Eq, Term::Zero));
    assert!(zz.indices().contains("t"));
    // A true lemma, but this proof of it goes through a thread.
    let e = th
        .close_lemma("zz", lemma(zz.concl().clone()), &zz)
        .expect_err("the proof needs a thread");
    assert!(e.reason.contains("every thread t"), "{e}");
    th.close_lemma("zz", lemma(a.concl().clone()), &a)
        .expect("the proof that needs none");
}
