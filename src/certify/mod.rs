//! Certifying a model: the hypotheses (11)-(18) of the reduction theorem and
//! the well-formedness conditions, checked on the model itself.
//!
//! [`certify`] instantiates every obligation for the model's threads,
//! control points and predicates ([`Obligation`] lists them) and checks it at one of
//! two [`CertifyLevel`]s: locally, at every valuation of the slots the obligation
//! depends on (its *frame*), or exhaustively, at every reachable state of the
//! full system. [`CertifyReport`] renders the result as text or JSON, and
//! [`CertifiedCheck`] combines it with a reduced check into a conclusion
//! about the original system. [`CertifyCertificate`] records a run for
//! [`recheck_certificate`], which validates it with the local level alone.
//! `src/certify/README.md` documents what each obligation means concretely.

mod certificate;
mod copies;
mod cycle;
mod exhaustive;
mod frame;
mod law;
mod local;
mod lockset;
mod movers;
mod report;
mod sha256;
mod system;
#[cfg(test)]
mod tests;
mod theorem;

pub use certificate::{
    Agreement, CERTIFY_CERTIFICATE_FORMAT, CertifyCertificate, ClaimCheck, ClaimRecord,
    ModelIdentity, ObligationCheck, ObligationRecord, RecheckReport, RecheckStatus, model_hash,
    pinned_claim, proof_certificate, recheck_certificate,
};
pub use frame::FRAME_BOUND;
pub use law::Obligation;
pub use movers::{
    CertifyReduction, CertifyTheorem, MoverLaw, movers_proof_certificate, pinned_movers_claim,
    recheck_movers_proof,
};
pub use report::{CertificateNote, CertifiedCheck, CertifyReport, ProceduresReport};
pub use sha256::sha256_hex;

use std::time::Duration;

use law::Failure;
use local::{InstOutcome, Valuations};
use system::Sys;
use theorem::{Laws, Theorem};

use crate::explore::{Budget, Limit, Limits};
use crate::model::Model;

/// Default `--max-states` of the exhaustive level.
pub const DEFAULT_MAX_STATES: u64 = 1_000_000;

/// How the obligations are checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CertifyLevel {
    /// Each obligation instance at every valuation of its frame, reachable
    /// or not, within [`CertifyOptions::frame_bound`] valuations.
    #[default]
    Local,
    /// At every reachable state of the full system with q, within
    /// [`CertifyOptions::max_states`] states.
    Exhaustive,
    /// The local check restricted to the valuations that some reachable
    /// state projects onto: a cross-check of the two levels, which must
    /// then agree exactly.
    LocalOnReachable,
}

impl CertifyLevel {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            CertifyLevel::Local => "local",
            CertifyLevel::Exhaustive => "exhaustive",
            CertifyLevel::LocalOnReachable => "local on reachable states",
        }
    }
}

/// Options of [`certify`].
#[derive(Clone, Debug)]
#[must_use = "options do nothing until passed to `certify`"]
pub struct CertifyOptions {
    /// Which theorem's hypotheses: Stoller and Cohen's (19) or the movers
    /// theorem (M).
    pub reduction: CertifyTheorem,
    /// How to check.
    pub level: CertifyLevel,
    /// Most valuations per obligation instance at the local level.
    pub frame_bound: u64,
    /// Most states stored by the exhaustive level.
    pub max_states: u64,
    /// Most valuations the local level tries, over all instances.
    pub max_valuations: Option<u64>,
    /// Stop after this long (both levels).
    pub max_time: Option<Duration>,
    /// Stop rather than let the process's memory grow past this many bytes
    /// (both levels; see [`Limits::max_memory`]).
    pub max_memory: Option<u64>,
    /// Local level: check one copy of each procedure where the copies are
    /// alike, and only the values of return points that matter (see
    /// `src/certify/copies.rs`); otherwise every copy and every value. The
    /// two give the same result; the second pays for every level of the
    /// stack.
    pub one_copy: bool,
}

impl Default for CertifyOptions {
    fn default() -> CertifyOptions {
        CertifyOptions {
            reduction: CertifyTheorem::Sc,
            level: CertifyLevel::Local,
            frame_bound: FRAME_BOUND,
            max_states: DEFAULT_MAX_STATES,
            max_valuations: None,
            max_time: None,
            max_memory: None,
            one_copy: true,
        }
    }
}

/// Whether an obligation holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObligationStatus {
    /// It was checked and holds.
    Holds,
    /// It fails; the report has a witness.
    Fails,
    /// It could not be checked within the bounds (and no failure was found).
    NotChecked,
}

/// The outcome of one obligation.
#[derive(Clone, Debug)]
pub(crate) struct LawResult {
    pub law: Obligation,
    pub status: ObligationStatus,
    /// How it was checked, in words.
    pub checked: String,
    /// Instances checked.
    pub instances: u64,
    /// Instances that fail.
    pub failing: u64,
    /// The first failure.
    pub witness: Option<Failure>,
}

/// The outcome of [`certify`]: every obligation's status and witness.
#[derive(Clone, Debug)]
pub struct Certification {
    pub(crate) level: CertifyLevel,
    pub(crate) laws: Vec<LawResult>,
    /// Exhaustive levels: states stored.
    pub(crate) states: Option<u64>,
    /// The limit that left obligations not checked, if one did.
    pub(crate) limit: Option<Limit>,
    pub(crate) options: CertifyOptions,
    /// Local level, for a model with procedures: how their copies were
    /// checked.
    pub(crate) procedures: Option<ProceduresNote>,
}

/// How the local level checked the copies of procedures (one per stack
/// depth): one copy per procedure, or every copy and why.
#[derive(Clone, Debug)]
pub(crate) struct ProceduresNote {
    /// Whether one copy stood for the copies alike it.
    pub one_copy: bool,
    /// Control points in copies of procedures.
    pub points: u64,
    /// Of them, the points whose instances were checked.
    pub checked: u64,
    /// Why every copy was checked, if it was.
    pub every_copy: Option<&'static str>,
}

impl Certification {
    /// Holds when every obligation holds; fails when one fails; otherwise
    /// not checked.
    pub fn verdict(&self) -> ObligationStatus {
        let any = |s| self.laws.iter().any(|l| l.status == s);
        if any(ObligationStatus::Fails) {
            ObligationStatus::Fails
        } else if any(ObligationStatus::NotChecked) {
            ObligationStatus::NotChecked
        } else {
            ObligationStatus::Holds
        }
    }

    /// The status of one obligation.
    pub fn status(&self, law: Obligation) -> ObligationStatus {
        self.laws
            .iter()
            .find(|l| l.law == law)
            .map_or(ObligationStatus::NotChecked, |l| l.status)
    }

    /// The level used.
    pub fn level(&self) -> CertifyLevel {
        self.level
    }

    /// The limit that ended the run or left obligations not checked: a
    /// state limit of the exhaustive level, or any time or memory limit.
    pub fn limit(&self) -> Option<Limit> {
        self.limit
    }
}

/// Checks every obligation of `model` at the level the options ask for,
/// within the options' limits. Obligations a limit left unchecked are
/// [`ObligationStatus::NotChecked`], and [`Certification::limit`] says why.
/// The model must pass [`crate::check_certifiable`] first: the obligations
/// take every transition to move one thread, and the sc theorem covers
/// invariants over unprotected variables only.
pub fn certify(model: &Model, options: &CertifyOptions) -> Certification {
    let sys = Sys::new(model);
    match options.reduction {
        CertifyTheorem::Sc => certify_with(&sys, options),
        CertifyTheorem::Movers => movers::certify(&sys, options),
    }
}

/// [`certify`] for one theorem: both levels and the summary of their
/// outcomes are the same code for every theorem.
fn certify_with<T: Theorem>(sys: &T, options: &CertifyOptions) -> Certification {
    let mut budget = Budget::new(&Limits {
        max_states: None,
        max_time: options.max_time,
        max_memory: options.max_memory,
    });
    let mut valuations = Valuations {
        left: options.max_valuations.unwrap_or(u64::MAX),
        limit: options.max_valuations.unwrap_or(u64::MAX),
    };
    // A limit of zero stops before any work (the exhaustive level checks
    // this itself, as every search does).
    if options.level == CertifyLevel::Local {
        let _ = budget.check_start();
    }
    let (laws, states, complete) = levels(sys, options, &mut budget, &mut valuations);
    let limit = budget.hit.or_else(|| {
        (!complete && options.level != CertifyLevel::Local)
            .then_some(Limit::States(options.max_states))
    });
    Certification {
        level: options.level,
        laws,
        states,
        limit,
        options: options.clone(),
        procedures: procedures(sys, options),
    }
}

/// The outcomes of the level `options` ask for: the laws, the states
/// stored (exhaustive levels) and whether every reachable state was.
fn levels<T: Theorem>(
    sys: &T,
    options: &CertifyOptions,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> (Vec<LawResult>, Option<u64>, bool) {
    let check = options.level == CertifyLevel::Exhaustive;
    if options.level == CertifyLevel::Local {
        let local = local::run(
            sys,
            options.frame_bound,
            None,
            options.one_copy,
            budget,
            valuations,
        );
        return (from_local(sys, &local, options, budget.hit), None, true);
    }
    let ex = exhaustive::explore(sys, options.max_states, check, budget);
    let states = Some(ex.stored);
    let complete = ex.reached.complete;
    if check {
        return (
            from_exhaustive(sys, ex, options, budget.hit),
            states,
            complete,
        );
    }
    // LocalOnReachable: the local level on the reachable states, when
    // they were all stored and fit in memory once more.
    let model = sys.sys().model;
    let each = 48 + 8 * (model.slots.len() + sys.phases()) as u64;
    let fits = budget.afford(ex.reached.len() as u64 * each).is_ok();
    if ex.reached.complete && budget.hit.is_none() && fits {
        let reachable = ex.reached.states(sys);
        let local = local::run(
            sys,
            options.frame_bound,
            Some(&reachable),
            false,
            budget,
            valuations,
        );
        (
            from_local(sys, &local, options, budget.hit),
            states,
            complete,
        )
    } else {
        (
            from_exhaustive(sys, ex, options, budget.hit),
            states,
            complete,
        )
    }
}

/// Local level, for a model with procedures: how their copies were
/// checked.
fn procedures<T: Theorem>(sys: &T, options: &CertifyOptions) -> Option<ProceduresNote> {
    let copies = &sys.sys().copies;
    (options.level == CertifyLevel::Local && copies.points > 0).then(|| {
        let every_copy = if options.one_copy {
            sys.every_copy()
        } else {
            Some("one copy per procedure was not asked for")
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
    })
}

/// WFsep and WFacc, which are properties of how the model is compiled and
/// classified: checked structurally, the same at every level.
fn structural(sys: &Sys, law: Obligation) -> LawResult {
    let (status, checked) = if law == Obligation::Sep {
        let ok = sys.model.transitions.iter().enumerate().all(|(k, tr)| {
            sys.class.transitions[k].visible == sys.stops(tr.thread as usize, tr.from)
        });
        (
            if ok {
                ObligationStatus::Holds
            } else {
                ObligationStatus::Fails
            },
            "structural: per control point".to_string(),
        )
    } else {
        (ObligationStatus::Holds, "by construction".to_string())
    };
    LawResult {
        law,
        status,
        checked,
        instances: 0,
        failing: 0,
        witness: None,
    }
}

/// What it means that an obligation has no instances.
fn vacuous(law: Obligation) -> &'static str {
    match law {
        Obligation::H11 | Obligation::FiniteInvis => {
            "structural: no loop of invisible control points"
        }
        Obligation::EndExcl => "structural: no transition writes what a predicate reads",
        Obligation::H18 => "structural: no invisible transition",
        _ => "structural: no instances (no invisible transition, or one thread)",
    }
}

fn from_local<T: Theorem>(
    sys: &T,
    local: &local::Local<T::Inst>,
    options: &CertifyOptions,
    limit: Option<Limit>,
) -> Vec<LawResult> {
    T::Law::EVERY
        .iter()
        .map(|&law| {
            if let Some(r) = sys.structural(law) {
                return r;
            }
            let t = Tally::of(local.outcomes.iter().filter(|(i, _)| T::law(i) == law));
            let init = T::Law::INIT.contains(&law);
            // Cut short, an obligation may have instances never made.
            let cut = local.cut && !init;
            let status = if t.failing > 0 {
                ObligationStatus::Fails
            } else if t.unchecked + t.stopped > 0 || cut {
                ObligationStatus::NotChecked
            } else {
                ObligationStatus::Holds
            };
            let (instances, unchecked) = (t.instances, t.unchecked);
            let checked = if let (true, Some(l)) = (t.stopped > 0 || cut, limit) {
                format!("not checked ({l}): {instances} instances done")
            } else if init {
                "at the initial state".to_string()
            } else if instances + unchecked == 0 {
                law.vacuous().to_string()
            } else if unchecked > 0 {
                format!(
                    "not checked (frame of {} valuations): {unchecked} of {} instances above the bound of {}",
                    t.largest,
                    instances + unchecked,
                    options.frame_bound
                )
            } else {
                let s = if instances == 1 { "" } else { "s" };
                format!("local: {instances} instance{s}, {} valuations", t.valuations)
            };
            LawResult {
                law: law.obligation(),
                status,
                checked,
                instances,
                failing: t.failing,
                witness: t.witness,
            }
        })
        .collect()
}

/// The outcomes of one law's instances at the local level, counted.
#[derive(Default)]
struct Tally {
    instances: u64,
    failing: u64,
    unchecked: u64,
    stopped: u64,
    valuations: u64,
    /// The largest frame above the bound.
    largest: u128,
    /// The first failure.
    witness: Option<Failure>,
}

impl Tally {
    fn of<'a, I: 'a>(outcomes: impl Iterator<Item = &'a (I, InstOutcome)>) -> Tally {
        let mut t = Tally::default();
        for (_, o) in outcomes {
            match o {
                InstOutcome::Holds { valuations: v } => {
                    t.instances += 1;
                    t.valuations += v;
                }
                InstOutcome::Fails {
                    failure,
                    valuations: v,
                } => {
                    t.instances += 1;
                    t.failing += 1;
                    t.valuations += v;
                    t.witness.get_or_insert_with(|| failure.clone());
                }
                InstOutcome::NotChecked { frame } => {
                    t.unchecked += 1;
                    t.largest = t.largest.max(*frame);
                }
                InstOutcome::Stopped => t.stopped += 1,
            }
        }
        t
    }
}

fn from_exhaustive<T: Theorem>(
    sys: &T,
    ex: exhaustive::Exhaustive<T>,
    options: &CertifyOptions,
    limit: Option<Limit>,
) -> Vec<LawResult> {
    let states = ex.reached.len();
    let mut findings = ex.findings;
    T::Law::EVERY
        .iter()
        .map(|&law| {
            if let Some(r) = sys.structural(law) {
                return r;
            }
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
            let loops = T::Law::LOOPS.contains(&law);
            let why = limit.unwrap_or(Limit::States(options.max_states));
            let checked = if !f.done && failing == 0 {
                format!("not checked ({why})")
            } else if T::Law::INIT.contains(&law) {
                "at the initial state".to_string()
            } else if loops && instances == 0 {
                law.vacuous().to_string()
            } else {
                let s = if states == 1 { "" } else { "s" };
                format!("exhaustive: {states} reachable state{s}")
            };
            LawResult {
                law: law.obligation(),
                status,
                checked,
                instances,
                failing,
                witness: f.witness,
            }
        })
        .collect()
}
