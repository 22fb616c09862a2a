//! The trusted core: everything a reader must audit to believe a result.
//!
//! - `term.rs`: locally nameless terms, substitution, matching, the
//!   associativity-commutativity normal form.
//! - `thm.rs`: theorems and the primitive rules, the only constructors of
//!   [`Thm`]; declarations, conservative definitions, hypotheses, lemmas.
//! - `paper.rs`: the theory and the claim of the paper, built in Rust.
//!
//! Nothing here depends on the rest of the crate. The prover (egg, the
//! script conveniences, the refuter), the proof-term interpreter and the
//! certificate reader are untrusted: they can only call these rules, so a
//! bug in them can make a proof fail, never make a false one pass.

pub mod paper;
pub mod term;
pub mod thm;

pub use term::{Ix, Limit, Sort, Subst, Term, matches, schematic};
pub use thm::{
    CoreError, DEFAULT_WORK_LIMIT, DefHead, Formula, MAX_DEPTH, MAX_SIZE, Rel, Statement, Theory,
    Thm,
};
