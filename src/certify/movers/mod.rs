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

mod exhaustive;
mod frame;
mod law;
mod local;
mod system;
#[cfg(test)]
mod tests;

pub use law::MoverLaw;

use super::certificate::ClaimRecord;
use super::law::Obligation;
use super::local::{InstOutcome, Valuations};
use super::system::Sys;
use super::{
    Certification, CertifyLevel, CertifyOptions, LawResult, ObligationStatus, ProceduresNote,
};
use crate::explore::movers::Plan;
use crate::explore::{Budget, Limit, Limits};
use crate::model::Model;
use system::MSys;

/// Which reduction theorem `certify` checks the hypotheses of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CertifyReduction {
    /// Stoller and Cohen's reduction theorem (19), the hypotheses of
    /// `check --reduction sc`.
    #[default]
    Sc,
    /// Flanagan and Qadeer's movers theorem (M), the hypotheses of `check
    /// --reduction movers`.
    Movers,
}

impl CertifyReduction {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            CertifyReduction::Sc => "sc",
            CertifyReduction::Movers => "movers",
        }
    }
}

/// The proof of the movers theorem that `optimist prove --theorem movers`
/// checks.
pub(crate) const PROOF: &str = "proofs/movers.proof";

/// The proof script, as built into the binary.
const PROOF_SCRIPT: &str = include_str!("../../../proofs/movers.proof");

/// Where the theorem comes from and where it is proved, for reports.
pub(crate) const THEOREM: &str = "Flanagan and Qadeer's reduction (\"Transactions for software model checking\", 2003), proved in the kernel as `proofs/movers.proof`, checked by `optimist prove --theorem movers`";

/// Checks every obligation of the movers theorem on `model` at the level
/// `options` ask for, within their limits.
pub(crate) fn certify(model: &Model, options: &CertifyOptions) -> Certification {
    let sys = Sys::new(model);
    let plan = Plan::new(model);
    let msys = MSys::new(&sys, &plan);
    let mut budget = Budget::new(&Limits {
        max_states: None,
        max_time: options.max_time,
        max_memory: options.max_memory,
    });
    let mut valuations = Valuations {
        left: options.max_valuations.unwrap_or(u64::MAX),
        limit: options.max_valuations.unwrap_or(u64::MAX),
    };
    let mut complete = true;
    if options.level == CertifyLevel::Local {
        let _ = budget.check_start();
    }
    let (laws, states) = match options.level {
        CertifyLevel::Local => {
            let local = local::run(
                &msys,
                options.frame_bound,
                None,
                options.one_copy,
                &mut budget,
                &mut valuations,
            );
            (from_local(&local, options, budget.hit), None)
        }
        CertifyLevel::Exhaustive => {
            let ex = exhaustive::explore(&msys, options.max_states, true, &mut budget);
            let states = ex.reached.len() as u64;
            complete = ex.reached.complete;
            (from_exhaustive(ex, options, budget.hit), Some(states))
        }
        CertifyLevel::LocalOnReachable => {
            let ex = exhaustive::explore(&msys, options.max_states, false, &mut budget);
            let states = ex.reached.len() as u64;
            complete = ex.reached.complete;
            let each = 48 + 8 * (model.slots.len() + model.threads.len()) as u64;
            let fits = budget.afford(ex.reached.len() as u64 * each).is_ok();
            if ex.reached.complete && budget.hit.is_none() && fits {
                let reachable = ex.reached.states(&msys);
                let local = local::run(
                    &msys,
                    options.frame_bound,
                    Some(&reachable),
                    false,
                    &mut budget,
                    &mut valuations,
                );
                (from_local(&local, options, budget.hit), Some(states))
            } else {
                (from_exhaustive(ex, options, budget.hit), Some(states))
            }
        }
    };
    let limit = budget.hit.or_else(|| {
        (!complete && options.level != CertifyLevel::Local)
            .then_some(Limit::States(options.max_states))
    });
    let copies = &sys.copies;
    let procedures = (options.level == CertifyLevel::Local && copies.points > 0).then(|| {
        let every_copy =
            if !options.one_copy {
                Some("one copy per procedure was not asked for")
            } else if msys.copies().is_none() {
                Some(copies.every_copy.unwrap_or(
                    "the mover search judges alike transitions of two copies differently",
                ))
            } else {
                None
            };
        ProceduresNote {
            one_copy: every_copy.is_none(),
            points: copies.points,
            checked: if every_copy.is_none() {
                copies.checked
            } else {
                copies.points
            },
            every_copy,
        }
    });
    Certification {
        level: options.level,
        laws,
        states,
        limit,
        options: options.clone(),
        procedures,
    }
}

fn from_local(
    local: &local::Local,
    options: &CertifyOptions,
    limit: Option<Limit>,
) -> Vec<LawResult> {
    MoverLaw::ALL
        .iter()
        .map(|&law| {
            let (mut instances, mut failing, mut unchecked, mut stopped) = (0u64, 0u64, 0u64, 0u64);
            let (mut valuations, mut largest) = (0u64, 0u128);
            let mut witness = None;
            for (_, o) in local.outcomes.iter().filter(|(i, _)| i.law() == law) {
                match o {
                    InstOutcome::Holds { valuations: v } => {
                        instances += 1;
                        valuations += v;
                    }
                    InstOutcome::Fails {
                        failure,
                        valuations: v,
                    } => {
                        instances += 1;
                        failing += 1;
                        valuations += v;
                        witness.get_or_insert_with(|| failure.clone());
                    }
                    InstOutcome::NotChecked { frame } => {
                        unchecked += 1;
                        largest = largest.max(*frame);
                    }
                    InstOutcome::Stopped => stopped += 1,
                }
            }
            let init = law == MoverLaw::InitN;
            let cut = local.cut && !init;
            let status = if failing > 0 {
                ObligationStatus::Fails
            } else if unchecked + stopped > 0 || cut {
                ObligationStatus::NotChecked
            } else {
                ObligationStatus::Holds
            };
            let checked = if let (true, Some(l)) = (stopped > 0 || cut, limit) {
                format!("not checked ({l}): {instances} instances done")
            } else if init {
                "at the initial state".to_string()
            } else if instances + unchecked == 0 {
                law.vacuous().to_string()
            } else if unchecked > 0 {
                format!(
                    "not checked (frame of {largest} valuations): {unchecked} of {} instances above the bound of {}",
                    instances + unchecked,
                    options.frame_bound
                )
            } else {
                let s = if instances == 1 { "" } else { "s" };
                format!("local: {instances} instance{s}, {valuations} valuations")
            };
            LawResult {
                law: Obligation::Movers(law),
                status,
                checked,
                instances,
                failing,
                witness,
            }
        })
        .collect()
}

fn from_exhaustive(
    ex: exhaustive::Exhaustive,
    options: &CertifyOptions,
    limit: Option<Limit>,
) -> Vec<LawResult> {
    let states = ex.reached.len();
    let mut findings = ex.findings;
    MoverLaw::ALL
        .iter()
        .map(|&law| {
            let f = std::mem::take(
                &mut findings
                    .iter_mut()
                    .find(|(l, _)| *l == law)
                    .expect("every law")
                    .1,
            );
            let failing = f.failing.len() as u64;
            let instances = f.instances.len() as u64;
            let status = if failing > 0 {
                ObligationStatus::Fails
            } else if !f.done {
                ObligationStatus::NotChecked
            } else {
                ObligationStatus::Holds
            };
            let why = limit.unwrap_or(Limit::States(options.max_states));
            let checked = if !f.done && failing == 0 {
                format!("not checked ({why})")
            } else if law == MoverLaw::InitN {
                "at the initial state".to_string()
            } else if law == MoverLaw::H11 && instances == 0 {
                law.vacuous().to_string()
            } else {
                let s = if states == 1 { "" } else { "s" };
                format!("exhaustive: {states} reachable state{s}")
            };
            LawResult {
                law: Obligation::Movers(law),
                status,
                checked,
                instances,
                failing,
                witness: f.witness,
            }
        })
        .collect()
}

/// Labels of obligations, joined: "(A3) and (11)".
fn list(laws: &[MoverLaw]) -> String {
    let names: Vec<String> = laws
        .iter()
        .map(|&l| {
            if l.is_hypothesis() {
                format!("({})", l.key())
            } else {
                l.key().to_string()
            }
        })
        .collect();
    match names.as_slice() {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What follows from a movers certification, for the report's
/// `conclusion` line.
pub(crate) fn conclusion(cert: &Certification) -> String {
    let with = |s: ObligationStatus| -> Vec<MoverLaw> {
        cert.laws
            .iter()
            .filter(|r| r.status == s)
            .filter_map(|r| match r.law {
                Obligation::Movers(l) => Some(l),
                _ => None,
            })
            .collect()
    };
    let local = cert.level == CertifyLevel::Local;
    match cert.verdict() {
        ObligationStatus::Holds => format!(
            "the movers theorem (M) applies{}: a violation reachable in the original system is reachable by the movers search, which runs whole transactions from states where no thread is inside one ({THEOREM}); deadlocks are not preserved",
            if local {
                ""
            } else {
                " to the reachable states, which is all it needs from the initial state"
            }
        ),
        ObligationStatus::Fails => {
            let failing = with(ObligationStatus::Fails);
            let verb = if failing.len() == 1 { "fails" } else { "fail" };
            let cpc = if failing == [MoverLaw::H11] {
                ": a post-commit run can go on forever, which the movers search ends by commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005), a theorem `optimist prove` does not check"
            } else {
                ""
            };
            format!(
                "the movers theorem does not apply: {} {verb}{cpc}, so a movers check that holds says nothing about the original system; check it with `--reduction none`{}",
                list(&failing),
                if local {
                    " (the local level tries every valuation, reachable or not; `--exhaustive` checks the reachable states only)"
                } else {
                    ""
                }
            )
        }
        ObligationStatus::NotChecked => format!(
            "the movers theorem may not apply: {} could not be checked; {}",
            list(&with(ObligationStatus::NotChecked)),
            match cert.limit {
                Some(Limit::States(_)) => "raise `--max-states`",
                Some(Limit::Time(_)) => "raise `--max-time`",
                Some(Limit::Memory(_)) => "raise `--max-memory`",
                Some(Limit::Stack(_)) => "raise `--max-stack`",
                Some(Limit::Internal(_)) => "this is a bug in optimist; please report it",
                Some(Limit::Lost(_) | Limit::Unjoined(_)) => "run it again",
                Some(Limit::Deadlocks) => "check with `--no-deadlock`",
                None => "try `--exhaustive`",
            }
        ),
    }
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
    let script = omega_algebra::parse_script(PROOF, PROOF_SCRIPT).map_err(|e| e.to_string())?;
    let checked = omega_algebra::check(&script, &omega_algebra::CheckOptions::default());
    if !checked.report.paper_claim {
        return Err(format!(
            "the built-in {PROOF} does not prove the movers theorem (M)"
        ));
    }
    checked
        .certificate(&script)
        .map(|c| c.to_json())
        .map_err(|e| e.to_string())
}

/// Whether the trusted core re-derives (M) from the proof certificate
/// `bytes` (its JSON).
pub fn recheck_movers_proof(bytes: &str) -> Result<(), String> {
    let c = omega_algebra::Certificate::from_json(bytes).map_err(|e| e.to_string())?;
    omega_algebra::recheck_pinned(&c, omega_algebra::trusted::Pinned::Movers)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
