//! `optimist certify --reduction movers`: the hypotheses of the movers
//! theorem (M), Flanagan and Qadeer's reduction ("Transactions for software
//! model checking", 2003) as `proofs/movers.proof` states and proves it,
//! checked on the model itself.
//!
//! The theorem speaks of an *instrumented* system ([`system`]): the model's
//! states with the violation flag q (as certify's [`Sys`] fires them) and
//! one phase bit per thread, set by each step exactly as the mover search
//! sets it, with the search's own [`Plan`] and judgements. Its hypotheses
//! ([`MoverLaw`]) are split into instances per thread and control point or
//! per pair of threads and control points ([`law`]) and checked at the same
//! two levels as Stoller and Cohen's: every valuation of each instance's
//! frame ([`local`]), or every reachable state ([`exhaustive`]). The
//! results are a [`Certification`] like any other, which the report,
//! certificates and `check --certify` take as they are.

mod frame;
mod law;
mod system;
#[cfg(test)]
mod tests;
mod theorem;

pub use law::MoverLaw;

use super::certificate::{ClaimRecord, built_in_certificate};
use super::system::Sys;
use super::{Certification, CertifyOptions};
use crate::explore::movers::Plan;
use system::MSys;

/// Which reduction theorem `certify` checks the hypotheses of (a
/// reduction's layer names its own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CertifyTheorem {
    /// Stoller and Cohen's reduction theorem (19), the hypotheses of
    /// `check --reduction sc`.
    #[default]
    Sc,
    /// Flanagan and Qadeer's movers theorem (M), the hypotheses of `check
    /// --reduction movers`.
    Movers,
}

impl CertifyTheorem {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            CertifyTheorem::Sc => "sc",
            CertifyTheorem::Movers => "movers",
        }
    }
}

/// The former name of [`CertifyTheorem`].
pub type CertifyReduction = CertifyTheorem;

/// The proof of the movers theorem that `optimist prove --theorem movers`
/// checks.
pub(crate) const PROOF: &str = "proofs/movers.proof";

/// The proof script, as built into the binary.
const PROOF_SCRIPT: &str = include_str!("../../../proofs/movers.proof");

/// Where the theorem comes from and where it is proved, for reports.
pub(crate) const THEOREM: &str = "Flanagan and Qadeer's reduction (\"Transactions for software model checking\", 2003), proved in the kernel as `proofs/movers.proof`, checked by `optimist prove --theorem movers`";

/// Checks every obligation of the movers theorem on the model of `sys`
/// at the level `options` ask for, within their limits.
pub(crate) fn certify(sys: &Sys, options: &CertifyOptions) -> Certification {
    let plan = Plan::new(sys.model);
    super::certify_with(&MSys::new(sys, &plan), options)
}

/// The claim the movers obligations feed, as the trusted core pins it
/// (`omega_algebra::trusted::movers`), with the hash of a proof
/// certificate. This is the single place that names it.
pub fn pinned_movers_claim(proof_certificate_sha256: &str) -> ClaimRecord {
    use omega_algebra::trusted::movers;
    let hypotheses = movers::theory()
        .map(|t| t.hypotheses().keys().cloned().collect())
        .unwrap_or_default();
    ClaimRecord {
        theorem: movers::CLAIM.to_string(),
        statement: movers::claim()
            .conclusions
            .first()
            .map(|c| c.to_string())
            .unwrap_or_default(),
        hypotheses,
        proof: PROOF.to_string(),
        proof_certificate_format: omega_algebra::CERTIFICATE_FORMAT.to_string(),
        proof_certificate_sha256: proof_certificate_sha256.to_string(),
    }
}

/// The proof certificate of the built-in proof of (M), as `optimist prove
/// --theorem movers --emit-certificate` writes it (the same bytes). This
/// runs the prover.
pub fn movers_proof_certificate() -> Result<String, String> {
    built_in_certificate(PROOF, PROOF_SCRIPT, "the movers theorem (M)")
}

/// Whether the trusted core re-derives (M) from the proof certificate
/// `bytes` (its JSON).
pub fn recheck_movers_proof(bytes: &str) -> Result<(), String> {
    let c = omega_algebra::Certificate::from_json(bytes).map_err(|e| e.to_string())?;
    omega_algebra::recheck_pinned(&c, omega_algebra::trusted::Pinned::Movers)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
