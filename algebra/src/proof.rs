//! Proof objects: how each goal was shown. They are what the report
//! summarises and what a certificate records for the re-checker.

use crate::facts::Fact;
use crate::term::{Formula, Term};

/// A proof of one goal.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GoalProof {
    /// The goal, with bound indices in canonical form.
    pub goal: Formula,
    /// How it was shown.
    pub how: How,
}

/// The inference at the root of a goal's proof.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum How {
    /// Both sides are the same up to associativity, or the left side is a
    /// summand of the right side.
    Identical,
    /// Equality saturation showed `lhs = rhs` (for `a <= b`, `a + b = b`)
    /// with the axioms and these facts.
    Saturation {
        lhs: Term,
        rhs: Term,
        facts: std::rc::Rc<Vec<Fact>>,
        iterations: usize,
        nodes: usize,
        /// egg's explanation of `lhs = rhs`.
        sequence: Option<crate::saturate::Explained>,
    },
    /// Monotonicity of `·`: the goal with a common prefix and suffix of
    /// factors removed.
    Context {
        prefix: Vec<Term>,
        suffix: Vec<Term>,
        inner: Box<GoalProof>,
    },
    /// `a_1 + ... + a_n <= b` from each `a_k <= b`, where sums over threads
    /// on the left (written out, or cited definitions unfolded) are
    /// eliminated: `c (+k : f(k)) d <= b` from `c f(t) d <= b` for a fresh t.
    Split { parts: Vec<Part> },
    /// `a = b` from `a <= b` and `b <= a`.
    Antisymmetry(Box<GoalProof>, Box<GoalProof>),
    /// Monotonicity of `·` in every factor: `a_1 ... a_n rel b_1 ... b_n`
    /// from `a_k rel b_k` for each k.
    Factors(Vec<GoalProof>),
}

/// One summand of a [`How::Split`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Part {
    /// The summand after unfolding and eliminating sums.
    pub summand: Term,
    /// Fresh indices introduced for eliminated sums.
    pub fresh: Vec<String>,
    /// Definitions unfolded to expose sums.
    pub unfolded: Vec<String>,
    /// Its proof.
    pub proof: GoalProof,
}

impl GoalProof {
    /// Saturation runs, iterations and e-nodes in this proof.
    pub fn stats(&self) -> (usize, usize, usize) {
        match &self.how {
            How::Identical => (0, 0, 0),
            How::Saturation {
                iterations, nodes, ..
            } => (1, *iterations, *nodes),
            How::Context { inner, .. } => inner.stats(),
            How::Split { parts } => parts.iter().fold((0, 0, 0), |acc, p| {
                let s = p.proof.stats();
                (acc.0 + s.0, acc.1 + s.1, acc.2.max(s.2))
            }),
            How::Antisymmetry(a, b) => {
                let (x, y) = (a.stats(), b.stats());
                (x.0 + y.0, x.1 + y.1, x.2.max(y.2))
            }
            How::Factors(ps) => ps.iter().fold((0, 0, 0), |acc, p| {
                let s = p.stats();
                (acc.0 + s.0, acc.1 + s.1, acc.2.max(s.2))
            }),
        }
    }

    /// A one-line summary of the inferences used.
    pub fn summary(&self) -> String {
        match &self.how {
            How::Identical => "identical up to associativity".into(),
            How::Saturation {
                iterations, nodes, ..
            } => format!("saturation ({iterations} iterations, {nodes} nodes)"),
            How::Context { inner, .. } => format!("monotonicity, then {}", inner.summary()),
            How::Split { parts } => {
                let fresh: usize = parts.iter().map(|p| p.fresh.len()).sum();
                let (runs, _, nodes) = self.stats();
                if fresh > 0 {
                    format!(
                        "{} summands, {fresh} sums eliminated, {runs} saturations (max {nodes} nodes)",
                        parts.len()
                    )
                } else {
                    format!(
                        "{} summands, {runs} saturations (max {nodes} nodes)",
                        parts.len()
                    )
                }
            }
            How::Antisymmetry(a, b) => format!("both ways: {}; {}", a.summary(), b.summary()),
            How::Factors(ps) => {
                let (runs, _, nodes) = self.stats();
                format!(
                    "monotonicity in {} factors, {runs} saturations (max {nodes} nodes)",
                    ps.len()
                )
            }
        }
    }
}
