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
mod certificate;
mod error;
mod facts;
mod kernel;
mod lang;
mod lexer;
mod matching;
mod model;
mod mutation;
mod parser;
mod proof;
mod prover;
mod recheck;
mod refute;
mod report;
mod rules;
mod saturate;
mod script;
mod sexp;
mod term;

pub use axioms::{AXIOM_SOURCE, Axiom, axioms};
pub use certificate::{
    AtomCert, CERTIFICATE_FORMAT, Certificate, DefinitionCert, FactCert, FormulaCert, GoalCert,
    HowCert, LemmaCert, PartCert, SourceCert, StatementCert, StepCert,
};
pub use error::{CertificateError, ParseError};
pub use kernel::{CheckOptions, Checked, check, check_mutants, hypothesis_label};
pub use model::{Evaluator, MAX_STATES, Model, Relation, Uninterpreted};
pub use mutation::{Mutant, MutantOutcome, Mutation, mutants};
pub use parser::{parse_script, parse_term, premise_labels};
pub use prover::Settings;
pub use recheck::{RecheckSummary, recheck};
pub use refute::{Assumption, CounterModel, Signature, assumption_holds, refute, seed_of};
pub use report::{FailedStep, LemmaReport, Report, Status, StepFailure, StepReport};
pub use saturate::Limits;
pub use script::{
    AtomDecl, Case, Chain, Citation, DefHead, Definition, Hint, Hypothesis, Item, Lemma, Proof,
    Script, Sort, SourceKind, Span, Statement, Step, line_col,
};
pub use term::{Atom, Formula, Rel, Term};
