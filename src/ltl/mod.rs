//! Linear temporal logic without next (LTL-X), the first layer of liveness
//! checking: formulas over atomic propositions, their negation normal form,
//! their truth on a lasso (a stem, then a cycle repeated for ever), and
//! their translation to a generalised Büchi automaton ([`Automaton`]) by
//! the tableau of Gerth, Peled, Vardi and Wolper ("Simple on-the-fly
//! automatic verification of linear temporal logic", PSTV 1995).
//!
//! The lasso semantics is the reference the translation is tested
//! against: on random formulas and random lassos, the automaton accepts
//! the lasso exactly when the formula is true on it. Atoms are indices
//! into a table the caller keeps (compiled boolean expressions of a
//! model); a valuation is the set of atoms true in a state, as bits.
//!
//! The language's `ltl NAME: FORMULA;` declarations compile to these
//! formulas (`crate::model`); `crate::explore`'s liveness check builds the
//! product of a model's state graph with the automaton of a formula's
//! negation and looks for a fair accepting cycle ([`fair_lasso`]), under
//! the fairness asked for and the reduction's contract.

mod bfs;
mod buchi;
mod cycle;
mod emptiness;

pub(crate) use bfs::Bfs;
pub use buchi::{Automaton, Node};
#[cfg(test)]
use cycle::Lasso;
pub use cycle::{Fairness, Graph, STUTTER, fair_lasso};
pub use emptiness::{Explored, search as accepting_component};

/// An LTL-X formula. `[]p` is `false R p`, `<>p` is `true U p`, `p W q` is
/// `q R (p || q)`, `p -> q` is `!p || q` ([`Ltl::always`] and friends).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ltl {
    /// `true`
    True,
    /// `false`
    False,
    /// An atomic proposition: an index into the caller's table.
    Atom(usize),
    /// `!p`
    Not(Box<Ltl>),
    /// `p && q`
    And(Box<Ltl>, Box<Ltl>),
    /// `p || q`
    Or(Box<Ltl>, Box<Ltl>),
    /// `p U q`: q eventually holds, and p holds until then.
    Until(Box<Ltl>, Box<Ltl>),
    /// `p R q`: q holds until and including the first state where p holds,
    /// or for ever.
    Release(Box<Ltl>, Box<Ltl>),
}

impl Ltl {
    /// `[]p`
    pub fn always(p: Ltl) -> Ltl {
        Ltl::Release(Box::new(Ltl::False), Box::new(p))
    }

    /// `<>p`
    pub fn eventually(p: Ltl) -> Ltl {
        Ltl::Until(Box::new(Ltl::True), Box::new(p))
    }

    /// `p W q`: p holds until q does, or for ever.
    pub fn weak_until(p: Ltl, q: Ltl) -> Ltl {
        let either = Ltl::Or(Box::new(p), Box::new(q.clone()));
        Ltl::Release(Box::new(q), Box::new(either))
    }

    /// `p -> q`
    pub fn implies(p: Ltl, q: Ltl) -> Ltl {
        Ltl::Or(Box::new(Ltl::Not(Box::new(p))), Box::new(q))
    }

    /// The same formula with negations on atoms only.
    pub fn nnf(&self) -> Ltl {
        self.push(false)
    }

    /// `self`, negated if `neg`, in negation normal form.
    fn push(&self, neg: bool) -> Ltl {
        let b = |f: &Ltl, n: bool| Box::new(f.push(n));
        match (self, neg) {
            (Ltl::True, false) | (Ltl::False, true) => Ltl::True,
            (Ltl::True, true) | (Ltl::False, false) => Ltl::False,
            (Ltl::Atom(a), false) => Ltl::Atom(*a),
            (Ltl::Atom(a), true) => Ltl::Not(Box::new(Ltl::Atom(*a))),
            (Ltl::Not(p), n) => p.push(!n),
            (Ltl::And(p, q), false) => Ltl::And(b(p, false), b(q, false)),
            (Ltl::And(p, q), true) => Ltl::Or(b(p, true), b(q, true)),
            (Ltl::Or(p, q), false) => Ltl::Or(b(p, false), b(q, false)),
            (Ltl::Or(p, q), true) => Ltl::And(b(p, true), b(q, true)),
            (Ltl::Until(p, q), false) => Ltl::Until(b(p, false), b(q, false)),
            (Ltl::Until(p, q), true) => Ltl::Release(b(p, true), b(q, true)),
            (Ltl::Release(p, q), false) => Ltl::Release(b(p, false), b(q, false)),
            (Ltl::Release(p, q), true) => Ltl::Until(b(p, true), b(q, true)),
        }
    }

    /// Whether the formula is true at the start of the lasso whose
    /// positions hold `word[i]` (bits: atom a is true when bit a is set)
    /// and whose last position is followed by position `loop_start`.
    pub fn holds_on(&self, word: &[u64], loop_start: usize) -> bool {
        assert!(loop_start < word.len(), "a lasso has a cycle");
        self.values(word, loop_start)[0]
    }

    /// The formula's truth at every position of the lasso.
    fn values(&self, word: &[u64], loop_start: usize) -> Vec<bool> {
        let n = word.len();
        let next = |i: usize| if i + 1 == n { loop_start } else { i + 1 };
        match self {
            Ltl::True => vec![true; n],
            Ltl::False => vec![false; n],
            Ltl::Atom(a) => word.iter().map(|w| w >> a & 1 == 1).collect(),
            Ltl::Not(p) => p.values(word, loop_start).iter().map(|v| !v).collect(),
            Ltl::And(p, q) | Ltl::Or(p, q) => {
                let (p, q) = (p.values(word, loop_start), q.values(word, loop_start));
                let and = matches!(self, Ltl::And(..));
                (0..n)
                    .map(|i| if and { p[i] && q[i] } else { p[i] || q[i] })
                    .collect()
            }
            Ltl::Until(p, q) | Ltl::Release(p, q) => {
                let (p, q) = (p.values(word, loop_start), q.values(word, loop_start));
                // U is the least fixed point of v = q || (p && next v), R the
                // greatest of v = q && (p || next v); n rounds reach both.
                let until = matches!(self, Ltl::Until(..));
                let mut v = vec![!until; n];
                for _ in 0..=n {
                    for i in (0..n).rev() {
                        v[i] = if until {
                            q[i] || (p[i] && v[next(i)])
                        } else {
                            q[i] && (p[i] || v[next(i)])
                        };
                    }
                }
                v
            }
        }
    }
}

#[cfg(test)]
mod tests;
