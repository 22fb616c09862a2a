//! The trusted core: everything a reader must audit to believe a result.
//!
//! - `term.rs`: locally nameless terms, substitution, matching, the
//!   associativity-commutativity normal form.
//! - `thm.rs`: theorems and the primitive rules, the only constructors of
//!   [`Thm`]; declarations, conservative definitions, hypotheses, lemmas.
//! - `paper.rs`: the theory and the claim of the paper, built in Rust.
//! - `movers.rs`: the theory and the claim of the movers theorem, built
//!   in Rust from the same pieces.
//! - [`Pinned`]: the two claims, each with its theory.
//!
//! Nothing here depends on the rest of the crate. The prover (egg, the
//! script conveniences, the refuter), the proof-term interpreter and the
//! certificate reader are untrusted: they can only call these rules, so a
//! bug in them can make a proof fail, never make a false one pass.

pub mod movers;
pub mod paper;
pub mod term;
pub mod thm;

pub use term::{Ix, Limit, Sort, Subst, Term, matches, schematic};
pub use thm::{
    CoreError, DEFAULT_WORK_LIMIT, DefHead, Formula, MAX_DEPTH, MAX_SIZE, Rel, Statement, Theory,
    Thm,
};

/// A theorem the core knows by heart: its claim and theory are built in
/// Rust (`paper.rs`, `movers.rs`), so a run or a certificate is compared
/// with them, never with what a script or certificate declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pinned {
    /// Stoller & Cohen's reduction theorem (19).
    Reduction,
    /// Flanagan and Qadeer's movers theorem (M).
    Movers,
}

impl Pinned {
    /// Every pinned theorem.
    pub const ALL: [Pinned; 2] = [Pinned::Reduction, Pinned::Movers];

    /// The claim's lemma label.
    pub fn label(self) -> &'static str {
        match self {
            Pinned::Reduction => paper::CLAIM,
            Pinned::Movers => movers::CLAIM,
        }
    }

    /// The claim.
    pub fn claim(self) -> Statement {
        match self {
            Pinned::Reduction => paper::claim(),
            Pinned::Movers => movers::claim(),
        }
    }

    /// The theory the claim is proved in.
    pub fn theory(self) -> Result<Theory, CoreError> {
        match self {
            Pinned::Reduction => paper::theory(),
            Pinned::Movers => movers::theory(),
        }
    }
}
