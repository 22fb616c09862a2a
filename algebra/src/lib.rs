//! The omega-algebra proof kernel of optimist.
//!
//! It checks calculational proofs written in the notation of the digest of
//! Stoller & Cohen's paper. Each `=` or `<=` step is shown by equality
//! saturation ([egg]) over the axioms of omega algebra plus exactly the
//! facts the step cites (`a <= b` is `a + b = b`). Star and omega induction,
//! and lemmas with premises, are Horn rules whose premises are proved in
//! turn; sums over threads are eliminated and introduced by explicit rules;
//! a relational-model refuter screens each step and explains a failed one
//! with a counter-model. A run can record a [`Certificate`] that
//! [`recheck`] replays without search.
//!
//! See `algebra/README.md` for the design and `proofs/README.md` for the
//! script language.
//!
//! # Example
//!
//! ```
//! use omega_algebra::{CheckOptions, Status, check, parse_script};
//!
//! let script = parse_script("example.proof", "
//!     var x, y, z
//!     lemma sim: x y <= y z => x* y <= y z*
//!     proof
//!          x* y
//!       <= x* y z*    {}
//!       <= y z*       { x y z* <= y z* by premise; star-ind-l }
//!     qed
//! ").unwrap();
//! let report = check(&script, &CheckOptions::default()).report;
//! assert_eq!(report.status, Status::Proved);
//! assert_eq!(report.steps, 2);
//! assert!(report.trusted.is_empty());
//!
//! // The same step without the premise does not follow, and the refuter
//! // finds a relational model that shows it.
//! let bad = parse_script("bad.proof", "
//!     var x, y, z
//!     lemma sim: x* y <= y z* by {}
//! ").unwrap();
//! let report = check(&bad, &CheckOptions::default()).report;
//! assert_eq!(report.status, Status::Failed);
//! assert!(report.failed[0].counter_model.is_some());
//! ```
#![warn(missing_docs)]

mod axioms;
mod bridge;
mod certificate;
mod display;
mod error;
mod facts;
mod kernel;
mod lang;
mod lexer;
mod matching;
mod model;
mod mutation;
pub mod necessity;
mod parser;
mod proof;
mod proofterm;
mod prover;
mod recheck;
mod refute;
mod replay;
mod report;
mod rules;
mod saturate;
mod script;
mod term;
pub mod trusted;

pub use axioms::{AXIOM_SOURCE, Axiom, axioms};

pub use certificate::{
    AtomCert, CERTIFICATE_FORMAT, Certificate, DefinitionCert, FormulaCert, LemmaCert,
    StatementCert, StepCert, TheoryCert,
};
pub use error::{CertificateError, ParseError};
pub use kernel::{CheckOptions, Checked, check, check_mutants, hypothesis_label};
pub use model::{Evaluator, MAX_STATES, Model, Relation, Uninterpreted};
pub use mutation::{Mutant, MutantOutcome, Mutation, mutants};
pub use parser::{parse_script, parse_term, premise_labels};
pub use proofterm::{Node, NodeError, T, read_term, run, write_term};
pub use prover::Settings;
pub use recheck::{Accepted, pinned_theorem, recheck, recheck_declared, recheck_pinned};
pub use refute::{
    Assumption, CounterModel, MAX_VALUATIONS, Signature, assumption_holds, max_states_for, refute,
    seed_of,
};
pub use report::{FailedStep, LemmaReport, Report, Status, StepFailure, StepReport, Without};
pub use saturate::Limits;
pub use script::{
    AtomDecl, Case, Chain, Citation, DefHead, Definition, Hint, Hypothesis, Item, Lemma, Proof,
    Script, Sort, SourceKind, Span, Statement, Step, line_col,
};
pub use term::{Atom, Formula, Rel, Term};
