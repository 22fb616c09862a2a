//! The abstract syntax of proof scripts, after name resolution.

use std::collections::{BTreeMap, BTreeSet};

use crate::term::{Formula, Rel, Term};

/// A byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Whether an atom or variable is a predicate (has a complement) or a general element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sort {
    /// A general element.
    Elem,
    /// A predicate: an element with a complement `~a`.
    Pred,
}

/// A declared atom: `pred q`, `pred p_i`, `elem u_i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomDecl {
    /// The name.
    pub name: String,
    /// Whether it is a thread-indexed family.
    pub family: bool,
    /// Its sort.
    pub sort: Sort,
}

/// What a definition defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefHead {
    /// `u = ...`
    Const(String),
    /// `M_i = ...`, with its index parameter.
    Family(String, String),
    /// `[x] = ...`, with its parameter.
    Bracket(String),
}

/// `def (3) M_i = v_i u_i*`
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// How the definition is cited.
    pub label: String,
    /// The defined name and its parameter.
    pub head: DefHead,
    /// The defining term.
    pub body: Term,
    /// Where it is written.
    pub span: Span,
}

impl Definition {
    /// The definition as a formula `head = body`.
    pub fn formula(&self) -> Formula {
        let lhs = match &self.head {
            DefHead::Const(n) => Term::constant(n),
            DefHead::Family(n, i) => Term::member(n, i),
            DefHead::Bracket(x) => Term::Bracket(Box::new(Term::Var(x.clone()))),
        };
        Formula::new(lhs, Rel::Eq, self.body.clone())
    }

    /// The defined constant's name (`None` for the bracket).
    pub fn name(&self) -> Option<&str> {
        match &self.head {
            DefHead::Const(n) | DefHead::Family(n, _) => Some(n),
            DefHead::Bracket(_) => None,
        }
    }
}

/// A statement `conds => conclusions`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Statement {
    /// Index disequalities `i != j` it assumes.
    pub distinct: Vec<(String, String)>,
    /// Premises (formulas) it assumes.
    pub premises: Vec<Formula>,
    /// What it states.
    pub conclusions: Vec<Formula>,
    /// Sorts of its schematic variables.
    pub vars: BTreeMap<String, Sort>,
}

impl Statement {
    /// Free indices of the statement (all universally quantified).
    pub fn indices(&self) -> BTreeSet<String> {
        let mut s = BTreeSet::new();
        for f in self.premises.iter().chain(&self.conclusions) {
            s.extend(f.free_indices());
        }
        for (a, b) in &self.distinct {
            s.insert(a.clone());
            s.insert(b.clone());
        }
        s
    }

    /// Whether it is a Horn clause with formula premises.
    pub fn is_horn(&self) -> bool {
        !self.premises.is_empty()
    }
}

/// The kinds of citable things.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    /// An axiom of omega algebra.
    Axiom,
    /// A definition (3)-(9), or an abbreviation.
    Definition,
    /// A hypothesis (11)-(18).
    Hypothesis,
    /// A lemma proved earlier in the script.
    Lemma,
    /// A premise of the lemma being proved.
    Premise,
}

/// `hyp (12): i != j => u_j p_i = p_i u_j`
#[derive(Clone, Debug, PartialEq)]
pub struct Hypothesis {
    /// How it is cited.
    pub label: String,
    /// What it assumes.
    pub statement: Statement,
    /// Where it is written.
    pub span: Span,
}

/// `lemma (25): ... proof ... qed`
#[derive(Clone, Debug, PartialEq)]
pub struct Lemma {
    /// How it is cited.
    pub label: String,
    /// What it states.
    pub statement: Statement,
    /// Its proof.
    pub proof: Proof,
    /// Where the lemma is written.
    pub span: Span,
    /// The line of the `lemma` keyword.
    pub line: usize,
}

/// A proof.
#[derive(Clone, Debug, PartialEq)]
pub enum Proof {
    /// `by { hints }`: one step from the statement's sides.
    By(Vec<Hint>, Span, usize),
    /// A calculational chain.
    Chain(Chain),
    /// A case split on two indices.
    Cases(Vec<Case>),
}

/// `case i = j:` or `case i != j:` followed by a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The two indices.
    pub indices: (String, String),
    /// Whether the case is `=` (otherwise `!=`).
    pub equal: bool,
    /// The proof of the case.
    pub chain: Chain,
    /// Where the case is written.
    pub span: Span,
}

/// `t0 rel t1 { hints } rel t2 { hints } ...`
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The first term.
    pub start: Term,
    /// The steps.
    pub steps: Vec<Step>,
    /// Where the chain is written.
    pub span: Span,
}

/// One step `rel term { hints }` of a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The relation to the previous term.
    pub rel: Rel,
    /// The new term.
    pub term: Term,
    /// The hints.
    pub hints: Vec<Hint>,
    /// Where the step is written.
    pub span: Span,
    /// Its line (1-based).
    pub line: usize,
}

/// A hint of a step.
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// A citation of an axiom, definition, hypothesis, lemma or premise.
    Cite(Citation),
    /// A formula proved on the spot from the cited facts (and the axioms).
    Fact {
        /// The formula.
        formula: Formula,
        /// The citations it is proved from.
        by: Vec<Citation>,
        /// Where it is written.
        span: Span,
    },
}

/// `(1)[x := u_j, y := p_i + u_i]`
#[derive(Clone, Debug, PartialEq)]
pub struct Citation {
    /// The cited label.
    pub label: String,
    /// What kind of thing it names.
    pub kind: SourceKind,
    /// Explicit instantiation of schematic variables.
    pub terms: BTreeMap<String, Term>,
    /// Explicit instantiation of indices.
    pub indices: BTreeMap<String, String>,
    /// Where it is written.
    pub span: Span,
}

/// A top-level item, in source order.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A definition.
    Def(Definition),
    /// A hypothesis.
    Hyp(Hypothesis),
    /// A lemma with its proof.
    Lemma(Lemma),
}

/// A parsed and resolved proof script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// The file name used in messages.
    pub file: String,
    /// The source text.
    pub source: String,
    /// Declared atoms.
    pub atoms: Vec<AtomDecl>,
    /// Declared schematic variables and their sorts.
    pub vars: BTreeMap<String, Sort>,
    /// Definitions, hypotheses and lemmas in order.
    pub items: Vec<Item>,
    /// The `// expect:` header, if any.
    pub expect: Option<String>,
}

impl Script {
    /// Looks up an atom declaration.
    pub fn atom(&self, name: &str, family: bool) -> Option<&AtomDecl> {
        self.atoms
            .iter()
            .find(|a| a.name == name && a.family == family)
    }

    /// All definitions.
    pub fn definitions(&self) -> impl Iterator<Item = &Definition> {
        self.items.iter().filter_map(|i| match i {
            Item::Def(d) => Some(d),
            _ => None,
        })
    }

    /// All hypotheses.
    pub fn hypotheses(&self) -> impl Iterator<Item = &Hypothesis> {
        self.items.iter().filter_map(|i| match i {
            Item::Hyp(h) => Some(h),
            _ => None,
        })
    }

    /// All lemmas.
    pub fn lemmas(&self) -> impl Iterator<Item = &Lemma> {
        self.items.iter().filter_map(|i| match i {
            Item::Lemma(l) => Some(l),
            _ => None,
        })
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.source, offset)
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|p| p + 1).unwrap_or(0);
    let col = source[line_start..offset].chars().count() + 1;
    (line, col)
}
