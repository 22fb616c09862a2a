//! Certify certificates: what `optimist certify --certificate-out` found,
//! in a form a second program can re-check without the search code.
//!
//! A [`CertifyCertificate`] names the model by a SHA-256 hash of its source
//! text, its `-D` defines and its `--max-stack`; lists every obligation
//! with the level and counts of its check and its result; and pins the
//! claim that the results feed: the paper's theorem (19) under (11)-(18),
//! with the SHA-256 hash of the proof certificate (`optimist prove
//! --emit-certificate`) that derives it.
//!
//! [`recheck_certificate`] validates one: it recomputes the model's hash,
//! checks every obligation again with the local level (each instance at
//! every valuation of its frame: no state-space exploration), compares the
//! claim with the one the trusted core pins, and, given the proof
//! certificate, compares its hash and has the core re-check it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::report::write_table;
use super::sha256::sha256_hex;
use super::{Certification, law::Obligation};
use super::{CertifyLevel, CertifyOptions, FRAME_BOUND, ObligationStatus, certify};
use super::{CertifyTheorem, MoverLaw, pinned_movers_claim, recheck_movers_proof};
use crate::model::Model;

/// The format this version writes and reads.
pub const CERTIFY_CERTIFICATE_FORMAT: &str = "optimist-certify-certificate/1";

/// The proof of (19), as built into the binary.
const PROOF_SCRIPT: &str = include_str!("../../proofs/reduction.proof");
const PROOF_NAME: &str = "proofs/reduction.proof";

/// Which model, exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelIdentity {
    /// The model's name.
    pub name: String,
    /// The file it was read from, as given.
    pub file: String,
    /// The `-D NAME=VALUE` overrides, in the order given.
    pub defines: Vec<String>,
    /// The `--max-stack` it was compiled with.
    pub max_stack: u32,
    /// SHA-256 of the source text, the defines and the stack bound
    /// ([`model_hash`]).
    pub sha256: String,
}

/// One obligation: how it was checked and what was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObligationRecord {
    /// `11` to `18`, or the condition's name (`WFendExcl`).
    pub key: String,
    /// The law, as the digest writes it.
    pub law: String,
    /// `local` or `exhaustive`.
    pub level: String,
    /// How it was checked, in words (instances, valuations or states).
    pub checked: String,
    /// Instances checked.
    pub instances: u64,
    /// Instances that fail.
    pub failing: u64,
    /// `holds`, `fails` or `not checked`.
    pub result: String,
}

/// The theorem the obligations are the hypotheses of, and its proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimRecord {
    /// `(19)`.
    pub theorem: String,
    /// The theorem as the trusted core pins it.
    pub statement: String,
    /// Its hypotheses, `(11)` to `(18)`.
    pub hypotheses: Vec<String>,
    /// The proof script.
    pub proof: String,
    /// The format of the proof certificate.
    pub proof_certificate_format: String,
    /// SHA-256 of the proof certificate's bytes.
    pub proof_certificate_sha256: String,
}

/// What `optimist certify --certificate-out` writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CertifyCertificate {
    /// [`CERTIFY_CERTIFICATE_FORMAT`].
    pub format: String,
    /// `movers` for the hypotheses of the movers theorem (M); absent for
    /// Stoller and Cohen's (19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<String>,
    /// The model.
    pub model: ModelIdentity,
    /// `local` or `exhaustive`.
    pub level: String,
    /// Local level: most valuations per instance.
    pub frame_bound: Option<u64>,
    /// Exhaustive level: states of the full system stored.
    pub states: Option<u64>,
    /// The limit that left obligations not checked, if one did.
    pub limit: Option<String>,
    /// `holds`, `fails` or `not checked`: what the obligations give.
    pub verdict: String,
    /// Every obligation, in report order.
    pub obligations: Vec<ObligationRecord>,
    /// The claim they feed.
    pub claim: ClaimRecord,
}

/// SHA-256 of a model: its source text, `-D` defines (in order) and stack
/// bound, each delimited so that no two inputs share an encoding.
pub fn model_hash(text: &str, defines: &[(String, String)], max_stack: u32) -> String {
    let mut b = format!("optimist model\nmax-stack {max_stack}\n");
    for (k, v) in defines {
        b.push_str(&format!("define {} {k} {} {v}\n", k.len(), v.len()));
    }
    b.push_str(&format!("source {}\n", text.len()));
    b.push_str(text);
    sha256_hex(b.as_bytes())
}

/// The proof certificate of the built-in proof of (19), as `optimist prove
/// --emit-certificate` writes it (the same bytes). This runs the prover.
pub fn proof_certificate() -> Result<String, String> {
    built_in_certificate(PROOF_NAME, PROOF_SCRIPT, "the paper's (19)")
}

/// The proof certificate of the built-in proof script `script` of
/// `theorem`, as `optimist prove --emit-certificate` writes it: both
/// theorems' certificates are made the same way. This runs the prover.
pub(crate) fn built_in_certificate(
    name: &str,
    script: &str,
    theorem: &str,
) -> Result<String, String> {
    let script = omega_algebra::parse_script(name, script).map_err(|e| e.to_string())?;
    let checked = omega_algebra::check(&script, &omega_algebra::CheckOptions::default());
    if !checked.report.paper_claim {
        return Err(format!("the built-in {name} does not prove {theorem}"));
    }
    checked
        .certificate(&script)
        .map(|c| c.to_json())
        .map_err(|e| e.to_string())
}

/// The claim the trusted core pins, with the hash of a proof certificate.
pub fn pinned_claim(proof_certificate_sha256: &str) -> ClaimRecord {
    use omega_algebra::trusted::paper;
    let hypotheses = paper::theory()
        .map(|t| t.hypotheses().keys().cloned().collect())
        .unwrap_or_default();
    let claim = paper::claim();
    ClaimRecord {
        theorem: paper::CLAIM.to_string(),
        statement: claim
            .conclusions
            .first()
            .map(|c| c.to_string())
            .unwrap_or_default(),
        hypotheses,
        proof: PROOF_NAME.to_string(),
        proof_certificate_format: omega_algebra::CERTIFICATE_FORMAT.to_string(),
        proof_certificate_sha256: proof_certificate_sha256.to_string(),
    }
}

fn result_name(s: ObligationStatus) -> &'static str {
    match s {
        ObligationStatus::Holds => "holds",
        ObligationStatus::Fails => "fails",
        ObligationStatus::NotChecked => "not checked",
    }
}

fn level_name(l: CertifyLevel) -> &'static str {
    match l {
        CertifyLevel::Local | CertifyLevel::LocalOnReachable => "local",
        CertifyLevel::Exhaustive => "exhaustive",
    }
}

fn records(cert: &Certification) -> Vec<ObligationRecord> {
    cert.laws
        .iter()
        .map(|r| ObligationRecord {
            key: r.law.key().to_string(),
            law: r.law.formula().to_string(),
            level: level_name(cert.level).to_string(),
            checked: r.checked.clone(),
            instances: r.instances,
            failing: r.failing,
            result: result_name(r.status).to_string(),
        })
        .collect()
}

/// The verdict the obligations give: `fails` if one fails, else `not
/// checked` if one was not checked, else `holds`.
fn verdict_of<'a>(results: impl Iterator<Item = &'a str> + Clone) -> &'static str {
    if results.clone().any(|r| r == "fails") {
        "fails"
    } else if results.into_iter().any(|r| r != "holds") {
        "not checked"
    } else {
        "holds"
    }
}

impl CertifyCertificate {
    /// The certificate of `cert` for `model`, read from `file` with
    /// `defines` and `max_stack` from `text`, resting on the proof
    /// certificate whose SHA-256 is `proof_sha256`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &Model,
        file: &str,
        text: &str,
        defines: &[(String, String)],
        max_stack: u32,
        cert: &Certification,
        proof_sha256: &str,
    ) -> CertifyCertificate {
        let obligations = records(cert);
        let verdict = verdict_of(obligations.iter().map(|o| o.result.as_str())).to_string();
        let movers = cert.options.reduction == CertifyTheorem::Movers;
        CertifyCertificate {
            format: CERTIFY_CERTIFICATE_FORMAT.to_string(),
            reduction: movers.then(|| "movers".to_string()),
            model: ModelIdentity {
                name: model.name.clone(),
                file: file.to_string(),
                defines: defines.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                max_stack,
                sha256: model_hash(text, defines, max_stack),
            },
            level: level_name(cert.level).to_string(),
            frame_bound: (cert.level != CertifyLevel::Exhaustive)
                .then_some(cert.options.frame_bound),
            states: cert.states,
            limit: cert.limit.map(|l| l.to_string()),
            verdict,
            obligations,
            claim: if movers {
                pinned_movers_claim(proof_sha256)
            } else {
                pinned_claim(proof_sha256)
            },
        }
    }

    /// The certificate as pretty JSON, fields in a fixed order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("certificates serialise") + "\n"
    }

    /// Reads a certificate; an error says why it is not one.
    pub fn from_json(s: &str) -> Result<CertifyCertificate, String> {
        let c: CertifyCertificate =
            serde_json::from_str(s).map_err(|e| format!("malformed certify certificate: {e}"))?;
        if c.format != CERTIFY_CERTIFICATE_FORMAT {
            return Err(format!(
                "malformed certify certificate: format `{}`, expected `{CERTIFY_CERTIFICATE_FORMAT}`",
                c.format
            ));
        }
        if let Some(r) = c.reduction.as_deref().filter(|&r| r != "movers") {
            return Err(format!(
                "malformed certify certificate: reduction `{r}`, expected `movers` or none (sc)"
            ));
        }
        Ok(c)
    }

    /// The defines as `(NAME, VALUE)` pairs, to compile the model again.
    pub fn defines(&self) -> Result<Vec<(String, String)>, String> {
        self.model
            .defines
            .iter()
            .map(|d| match d.split_once('=') {
                Some((k, v)) => Ok((k.to_string(), v.to_string())),
                None => Err(format!(
                    "malformed certify certificate: define `{d}` is not NAME=VALUE"
                )),
            })
            .collect()
    }
}

/// How a recorded obligation compares with the local re-check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// The re-check finds the same.
    Confirmed,
    /// The certificate records "not checked": it claims nothing.
    NothingClaimed,
    /// The re-check cannot confirm it: the local level, which also tries
    /// unreachable valuations, fails or could not check an obligation that
    /// the exhaustive level found to hold (or confirm an exhaustive
    /// failure, which may be at unreachable valuations only).
    NotConfirmed,
    /// The re-check finds otherwise: the certificate is wrong.
    Contradicted,
}

/// One obligation, recorded and re-checked.
#[derive(Clone, Debug, Serialize)]
pub struct ObligationCheck {
    /// Its key.
    pub key: String,
    /// The recorded result, and how it was checked.
    pub recorded: String,
    /// The recorded check.
    pub recorded_checked: String,
    /// The re-check's result (always at the local level).
    pub rechecked: String,
    /// How the re-check checked it.
    pub rechecked_checked: String,
    /// Whether they agree.
    pub agreement: Agreement,
}

/// The pinned claim and the proof certificate, re-checked.
#[derive(Clone, Debug, Serialize)]
pub struct ClaimCheck {
    /// The theorem, as pinned by the trusted core.
    pub theorem: String,
    /// Its statement.
    pub statement: String,
    /// Whether the certificate records exactly the pinned claim.
    pub matches_pinned: bool,
    /// `accepted` (hash equal, and the core re-derived (19) from it),
    /// `not given`, or why not.
    pub proof_certificate: String,
}

/// The verdict of a re-check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecheckStatus {
    /// Everything the certificate claims was re-checked and holds (exit 0).
    Confirmed,
    /// Something it claims is false: another model, a changed result or
    /// hash, a claim other than the pinned one (exit 1).
    Rejected,
    /// Nothing found false, but not everything could be confirmed (exit 3).
    Inconclusive,
}

/// What [`recheck_certificate`] found; serialises to JSON and displays as
/// text.
#[derive(Clone, Debug, Serialize)]
pub struct RecheckReport {
    /// The certificate file.
    pub certificate: String,
    /// The verdict.
    pub status: RecheckStatus,
    /// The model file given.
    pub model_file: String,
    /// The model's hash, recomputed.
    pub model_sha256: String,
    /// Whether it is the certificate's.
    pub model_matches: bool,
    /// Every obligation, when the model matches.
    pub obligations: Vec<ObligationCheck>,
    /// The claim.
    pub claim: ClaimCheck,
    /// Why the verdict is not `confirmed`, one line each.
    pub reasons: Vec<String>,
}

impl RecheckReport {
    /// The process exit code: 0 confirmed, 1 rejected, 3 inconclusive.
    pub fn exit_code(&self) -> u8 {
        match self.status {
            RecheckStatus::Confirmed => 0,
            RecheckStatus::Rejected => 1,
            RecheckStatus::Inconclusive => 3,
        }
    }
}

fn compare(rec: &ObligationRecord, local: &ObligationRecord) -> Agreement {
    let (r, l) = (rec.result.as_str(), local.result.as_str());
    match (rec.level.as_str(), r, l) {
        (_, "not checked", _) => Agreement::NothingClaimed,
        // Local against local: the check is deterministic, so everything
        // recorded must come out again.
        ("local", _, "not checked") => Agreement::NotConfirmed,
        ("local", _, _) if rec == local => Agreement::Confirmed,
        ("local", _, _) => Agreement::Contradicted,
        // Where the local level holds, the exhaustive level holds too.
        (_, "holds", "holds") => Agreement::Confirmed,
        (_, "fails", "holds") => Agreement::Contradicted,
        _ => Agreement::NotConfirmed,
    }
}

/// Why a re-check is not `confirmed`, in order, and whether something
/// recorded was found false (rejected) or only not confirmed.
#[derive(Default)]
struct Reasons {
    lines: Vec<String>,
    rejected: bool,
    inconclusive: bool,
}

impl Reasons {
    /// Something recorded is false.
    fn reject(&mut self, why: String) {
        self.rejected = true;
        self.lines.push(why);
    }

    /// Something recorded could not be confirmed.
    fn doubt(&mut self, why: String) {
        self.inconclusive = true;
        self.lines.push(why);
    }

    fn status(&self) -> RecheckStatus {
        if self.rejected {
            RecheckStatus::Rejected
        } else if self.inconclusive {
            RecheckStatus::Inconclusive
        } else {
            RecheckStatus::Confirmed
        }
    }
}

/// The theorem a certificate records the hypotheses of.
fn reduction_of(cert: &CertifyCertificate) -> CertifyTheorem {
    if cert.reduction.as_deref() == Some("movers") {
        CertifyTheorem::Movers
    } else {
        CertifyTheorem::Sc
    }
}

/// The keys of the theorem's obligations, in report order.
fn keys(reduction: CertifyTheorem) -> Vec<&'static str> {
    match reduction {
        CertifyTheorem::Movers => MoverLaw::ALL.iter().map(|o| o.key()).collect(),
        CertifyTheorem::Sc => Obligation::ALL.iter().map(|o| o.key()).collect(),
    }
}

/// The claim the trusted core pins for the theorem.
fn pinned(reduction: CertifyTheorem, proof_certificate_sha256: &str) -> ClaimRecord {
    match reduction {
        CertifyTheorem::Movers => pinned_movers_claim(proof_certificate_sha256),
        CertifyTheorem::Sc => pinned_claim(proof_certificate_sha256),
    }
}

/// Whether the trusted core re-derives the theorem from the proof
/// certificate `bytes`.
fn recheck_proof(reduction: CertifyTheorem, bytes: &str) -> Result<(), String> {
    match reduction {
        CertifyTheorem::Movers => recheck_movers_proof(bytes),
        CertifyTheorem::Sc => omega_algebra::Certificate::from_json(bytes)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                omega_algebra::recheck(&c)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }),
    }
}

/// Re-checks `cert` for the model `text` read from `file` and compiled as
/// `model` with the certificate's defines and stack bound, and, when given,
/// the proof certificate `proof` (its bytes). Uses the local level only:
/// no state-space exploration.
pub fn recheck_certificate(
    cert: &CertifyCertificate,
    certificate_file: &str,
    file: &str,
    text: &str,
    model: &Model,
    proof: Option<&str>,
) -> RecheckReport {
    let mut reasons = Reasons::default();
    let defines = cert.defines().unwrap_or_default();
    let sha = model_hash(text, &defines, cert.model.max_stack);
    let model_matches = sha == cert.model.sha256;
    if !model_matches {
        reasons.reject(format!(
            "the model differs: {file} with the certificate's defines and stack bound hashes to {sha}, the certificate records {}",
            cert.model.sha256
        ));
    }
    let obligations = recheck_obligations(cert, model, model_matches, &mut reasons);
    let claim = recheck_claim(cert, proof, &mut reasons);
    RecheckReport {
        certificate: certificate_file.to_string(),
        status: reasons.status(),
        model_file: file.to_string(),
        model_sha256: sha,
        model_matches,
        obligations,
        claim,
        reasons: reasons.lines,
    }
}

/// The recorded verdict and obligations against what they give and what
/// the local level finds again (where the model is the certificate's).
fn recheck_obligations(
    cert: &CertifyCertificate,
    model: &Model,
    model_matches: bool,
    reasons: &mut Reasons,
) -> Vec<ObligationCheck> {
    // The recorded verdict must be the one its obligations give.
    let verdict = verdict_of(cert.obligations.iter().map(|o| o.result.as_str()));
    if cert.verdict != verdict {
        reasons.reject(format!(
            "the certificate's verdict is `{}`, but its obligations give `{verdict}`",
            cert.verdict
        ));
    }
    let reduction = reduction_of(cert);
    let keys = keys(reduction);
    let recorded: Vec<&str> = cert.obligations.iter().map(|o| o.key.as_str()).collect();
    if recorded != keys {
        reasons.reject(format!(
            "the certificate lists the obligations {}, not {}",
            recorded.join(", "),
            keys.join(", ")
        ));
    }
    if !model_matches || recorded != keys {
        return Vec::new();
    }
    let options = CertifyOptions {
        reduction,
        level: CertifyLevel::Local,
        // The CLI's bound, whatever the certificate says, so that no
        // certificate can make the re-check enumerate more.
        frame_bound: FRAME_BOUND,
        ..CertifyOptions::default()
    };
    let local = records(&certify(model, &options));
    cert.obligations
        .iter()
        .zip(&local)
        .map(|(rec, loc)| recheck_obligation(rec, loc, reasons))
        .collect()
}

/// One recorded obligation against its local re-check.
fn recheck_obligation(
    rec: &ObligationRecord,
    loc: &ObligationRecord,
    reasons: &mut Reasons,
) -> ObligationCheck {
    let agreement = compare(rec, loc);
    match agreement {
        Agreement::Contradicted => reasons.reject(format!(
            "{}: the certificate records `{}` ({}, {} instances, {} failing), the local re-check finds `{}` ({}, {} instances, {} failing)",
            rec.key, rec.result, rec.checked, rec.instances, rec.failing,
            loc.result, loc.checked, loc.instances, loc.failing
        )),
        Agreement::NotConfirmed => reasons.doubt(format!(
            "{}: the certificate records `{}` at the {} level; the local re-check finds `{}` ({}), which does not confirm it",
            rec.key, rec.result, rec.level, loc.result, loc.checked
        )),
        Agreement::Confirmed | Agreement::NothingClaimed => {}
    }
    ObligationCheck {
        key: rec.key.clone(),
        recorded: rec.result.clone(),
        recorded_checked: rec.checked.clone(),
        rechecked: loc.result.clone(),
        rechecked_checked: loc.checked.clone(),
        agreement,
    }
}

/// The claim: exactly the pinned one, and its proof certificate.
fn recheck_claim(
    cert: &CertifyCertificate,
    proof: Option<&str>,
    reasons: &mut Reasons,
) -> ClaimCheck {
    let reduction = reduction_of(cert);
    let pinned = pinned(reduction, &cert.claim.proof_certificate_sha256);
    let matches_pinned = cert.claim == pinned;
    if !matches_pinned {
        reasons.reject(format!(
            "the claim is not the pinned one: the certificate records {} `{}` under {}, the trusted core pins {} `{}` under {} (proof {}, format {})",
            cert.claim.theorem,
            cert.claim.statement,
            cert.claim.hypotheses.join(", "),
            pinned.theorem,
            pinned.statement,
            pinned.hypotheses.join(", "),
            pinned.proof,
            pinned.proof_certificate_format
        ));
    }
    let proof_certificate = match proof {
        None => {
            reasons.doubt(format!(
                "the proof certificate was not given (--proof-certificate, written by `optimist prove{} --emit-certificate`): the claim's proof is not re-checked",
                if reduction == CertifyTheorem::Movers {
                    " --theorem movers"
                } else {
                    ""
                }
            ));
            "not given".to_string()
        }
        Some(bytes) => recheck_proof_certificate(cert, reduction, bytes, reasons),
    };
    ClaimCheck {
        theorem: pinned.theorem,
        statement: pinned.statement,
        matches_pinned,
        proof_certificate,
    }
}

/// The proof certificate given: its hash the recorded one, and the
/// trusted core re-deriving the theorem from it.
fn recheck_proof_certificate(
    cert: &CertifyCertificate,
    reduction: CertifyTheorem,
    bytes: &str,
    reasons: &mut Reasons,
) -> String {
    let sha = sha256_hex(bytes.as_bytes());
    let why = if sha != cert.claim.proof_certificate_sha256 {
        format!(
            "the proof certificate hashes to {sha}, the certificate records {}",
            cert.claim.proof_certificate_sha256
        )
    } else {
        match recheck_proof(reduction, bytes) {
            Ok(()) => return "accepted".to_string(),
            Err(e) => format!("the trusted core rejects the proof certificate: {e}"),
        }
    };
    reasons.reject(why.clone());
    why
}

fn agreement_name(a: Agreement) -> &'static str {
    match a {
        Agreement::Confirmed => "confirmed",
        Agreement::NothingClaimed => "nothing claimed",
        Agreement::NotConfirmed => "NOT CONFIRMED",
        Agreement::Contradicted => "CONTRADICTED",
    }
}

impl fmt::Display for RecheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = match self.status {
            RecheckStatus::Confirmed => "confirmed",
            RecheckStatus::Rejected => "REJECTED",
            RecheckStatus::Inconclusive => "inconclusive",
        };
        writeln!(f, "certificate {}", self.certificate)?;
        writeln!(
            f,
            "model       {} (sha256 {}): {}",
            self.model_file,
            self.model_sha256,
            if self.model_matches {
                "the certificate's"
            } else {
                "NOT the certificate's"
            }
        )?;
        if !self.obligations.is_empty() {
            writeln!(f)?;
            let mut rows = vec![
                ["obligation", "recorded", "re-checked (local)", "agreement"].map(String::from),
            ];
            for o in &self.obligations {
                rows.push([
                    o.key.clone(),
                    o.recorded.clone(),
                    format!("{} ({})", o.rechecked, o.rechecked_checked),
                    agreement_name(o.agreement).to_string(),
                ]);
            }
            write_table(f, &rows)?;
            writeln!(f)?;
        }
        writeln!(
            f,
            "claim       {} {}: {}; proof certificate: {}",
            self.claim.theorem,
            self.claim.statement,
            if self.claim.matches_pinned {
                "the one the trusted core pins"
            } else {
                "NOT the one the trusted core pins"
            },
            self.claim.proof_certificate
        )?;
        for r in &self.reasons {
            writeln!(f, "reason      {r}")?;
        }
        writeln!(f, "verdict     {status}")
    }
}
