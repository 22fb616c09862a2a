//! Mutation testing of proofs: corrupted versions of each step, to be
//! checked in the step's context. A sound kernel rejects every mutant that
//! is false; a mutant it accepts must be valid for a documented reason.

use crate::script::{Hint, Item, Proof, Script, Step};
use crate::term::{Formula, Rel, Term};

/// How a step was corrupted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mutation {
    /// `a <= b` became `b <= a`.
    Reversed,
    /// The hint at this position was removed.
    DroppedHint(usize),
    /// The leftmost operand of the step's new term was replaced (by `0`, or `1` if it was `0`).
    ChangedOperand,
}

/// A corrupted step.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutant {
    /// The lemma.
    pub lemma: String,
    /// The case split it is in: `(i, j, equal)`.
    pub case: Option<(String, String, bool)>,
    /// The step's position in its chain.
    pub number: usize,
    /// The corruption.
    pub mutation: Mutation,
    /// What the mutant claims.
    pub goal: Formula,
    /// The hints it gives.
    pub hints: Vec<Hint>,
    /// A short description (`reversed`, `without hint (12)`, ...).
    pub description: String,
}

/// The verdict on a mutant.
#[derive(Clone, Debug, PartialEq)]
pub struct MutantOutcome {
    /// The mutant.
    pub mutant: Mutant,
    /// Whether the kernel rejected it.
    pub rejected: bool,
    /// Why (the failure), or how it was shown if accepted.
    pub detail: String,
    /// Whether a counter-model was found.
    pub refuted: bool,
}

fn hint_name(h: &Hint) -> String {
    match h {
        Hint::Cite(c) => c.label.clone(),
        Hint::Fact { formula, .. } => formula.to_string(),
    }
}

/// Replaces the leftmost leaf of a term.
fn change_leftmost(t: &Term) -> Term {
    match t {
        Term::Zero => Term::One,
        Term::One | Term::Const(_) | Term::Var(_) => Term::Zero,
        Term::Not(_) => Term::Zero,
        Term::Add(a, b) => Term::Add(Box::new(change_leftmost(a)), b.clone()),
        Term::Seq(a, b) => Term::Seq(Box::new(change_leftmost(a)), b.clone()),
        Term::OmegaStar(a, b) => Term::OmegaStar(Box::new(change_leftmost(a)), b.clone()),
        Term::Star(a) => Term::Star(Box::new(change_leftmost(a))),
        Term::Omega(a) => Term::Omega(Box::new(change_leftmost(a))),
        Term::Bracket(a) => Term::Bracket(Box::new(change_leftmost(a))),
        Term::Sum(k, a) => Term::Sum(k.clone(), Box::new(change_leftmost(a))),
        Term::Prod(_, _) => Term::Zero,
    }
}

fn step_mutants(
    lemma: &str,
    case: Option<(String, String, bool)>,
    number: usize,
    goal: &Formula,
    hints: &[Hint],
    out: &mut Vec<Mutant>,
) {
    let mk = |mutation: Mutation, goal: Formula, hints: Vec<Hint>, description: String| Mutant {
        lemma: lemma.to_string(),
        case: case.clone(),
        number,
        mutation,
        goal,
        hints,
        description,
    };
    if goal.rel == Rel::Le {
        out.push(mk(
            Mutation::Reversed,
            Formula::new(goal.rhs.clone(), Rel::Le, goal.lhs.clone()),
            hints.to_vec(),
            "reversed".into(),
        ));
    }
    for k in 0..hints.len() {
        let mut hs = hints.to_vec();
        let removed = hs.remove(k);
        out.push(mk(
            Mutation::DroppedHint(k),
            goal.clone(),
            hs,
            format!("without hint {}", hint_name(&removed)),
        ));
    }
    let changed = change_leftmost(&goal.rhs);
    out.push(mk(
        Mutation::ChangedOperand,
        Formula::new(goal.lhs.clone(), goal.rel, changed.clone()),
        hints.to_vec(),
        format!("right side changed to {changed}"),
    ));
}

fn chain_mutants(
    lemma: &str,
    case: Option<(String, String, bool)>,
    start: &Term,
    steps: &[Step],
    out: &mut Vec<Mutant>,
) {
    let mut prev = start.clone();
    for (n, s) in steps.iter().enumerate() {
        let goal = Formula::new(prev.clone(), s.rel, s.term.clone());
        step_mutants(lemma, case.clone(), n + 1, &goal, &s.hints, out);
        prev = s.term.clone();
    }
}

/// The mutants of every step of a script, in order.
pub fn mutants(script: &Script) -> Vec<Mutant> {
    let mut out = Vec::new();
    for item in &script.items {
        let Item::Lemma(l) = item else { continue };
        let goal = &l.statement.conclusions[0];
        match &l.proof {
            Proof::By(hints, _, _) => step_mutants(&l.label, None, 1, goal, hints, &mut out),
            Proof::Chain(c) => chain_mutants(&l.label, None, &c.start, &c.steps, &mut out),
            Proof::Cases(cases) => {
                for c in cases {
                    let case = Some((c.indices.0.clone(), c.indices.1.clone(), c.equal));
                    chain_mutants(&l.label, case, &c.chain.start, &c.chain.steps, &mut out);
                }
            }
        }
    }
    out
}
