//! The omega-algebra proof kernel of optimist.
//!
//! It checks calculational proofs written in the notation of the digest of
//! Stoller & Cohen's paper: every `=` or `<=` step is justified by equality
//! saturation ([egg]) over the axioms plus exactly the facts the step cites;
//! induction and sums over threads are explicit inference rules whose side
//! conditions are checked in turn; a relational-model refuter screens each
//! step and explains failures with a counter-model.
#![warn(missing_docs)]

mod axioms;
mod error;
mod lexer;
mod model;
mod parser;
mod refute;
mod script;
mod term;

pub use axioms::{AXIOM_SOURCE, Axiom, axioms};
pub use error::{CertificateError, ParseError};
pub use model::{Evaluator, MAX_STATES, Model, Relation, Uninterpreted};
pub use parser::{parse_script, parse_term, premise_labels};
pub use refute::{Assumption, CounterModel, Signature, assumption_holds, refute, seed_of};
pub use script::{
    AtomDecl, Case, Chain, Citation, DefHead, Definition, Hint, Hypothesis, Item, Lemma, Proof,
    Script, Sort, SourceKind, Span, Statement, Step, line_col,
};
pub use term::{Atom, Formula, Rel, Term};
