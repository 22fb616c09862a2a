//! `optimist certify`: does this model satisfy the reduction theorem's
//! hypotheses? With `--certificate-out`, write what was found as a
//! certificate; with `--recheck`, validate one without the search code.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use optimist::{
    CertificateNote, CertifyCertificate, CertifyLevel, CertifyOptions, CertifyReport,
    CertifyTheorem, DEFAULT_MAX_STATES, certify,
};

use crate::check::ReductionArg;

use crate::common::{
    Format, LimitArgs, ModelArgs, ModelsArgs, StackArgs, print, refuse, set_format,
};

/// Arguments of `optimist certify`.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    models: ModelsArgs,
    /// Whose hypotheses to check: those of Stoller and Cohen's reduction
    /// theorem (19), under `check --reduction sc`, or of Flanagan and
    /// Qadeer's movers theorem (M), under `check --reduction movers`
    /// [default: sc]. With --recheck, the certificate says which.
    #[arg(long, value_enum, conflicts_with = "recheck")]
    reduction: Option<ReductionArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Check every obligation at the reachable states of the full system,
    /// instead of locally at every valuation of its frame.
    #[arg(long)]
    exhaustive: bool,
    #[command(flatten)]
    limits: LimitArgs,
    /// Write a certificate to OUT: the model's hash (source text, -D
    /// defines, --max-stack), every obligation with how it was checked and
    /// its result, and the pinned claim (19) with the hash of its proof
    /// certificate. One model only. (`-o`/`--output`, as in `refine`,
    /// `graph` and `export`, name it too.)
    #[arg(
        long,
        short = 'o',
        visible_alias = "output",
        value_name = "OUT",
        conflicts_with = "recheck"
    )]
    certificate_out: Option<PathBuf>,
    /// Instead of certifying, re-check the certificate CERT for the model
    /// FILE (compiled with the certificate's defines and stack bound): its
    /// hash, every obligation again at the local level (no exploration),
    /// the claim, and with --proof-certificate the proof's hash and
    /// derivation.
    #[arg(long, value_name = "CERT", conflicts_with_all = ["exhaustive", "max_states", "max_time", "max_memory"])]
    recheck: Option<PathBuf>,
    /// The proof certificate of (19) (`optimist prove --emit-certificate`),
    /// or of (M) with `--reduction movers` (`optimist prove --theorem movers
    /// --emit-certificate`):
    /// with --certificate-out, the one to record (re-checked first; by
    /// default the built-in proof's, made by the prover); with --recheck,
    /// the one to compare and re-check.
    #[arg(long, value_name = "PROOF")]
    proof_certificate: Option<PathBuf>,
}

pub fn run(args: CertifyArgs) -> ExitCode {
    set_format(args.format);
    if let Some(cert) = &args.recheck {
        return recheck(&args, cert);
    }
    if args.proof_certificate.is_some() && args.certificate_out.is_none() {
        return refuse("--proof-certificate goes with --certificate-out or --recheck");
    }
    if args.certificate_out.is_some() && args.models.files.len() != 1 {
        return refuse("--certificate-out certifies one model at a time");
    }
    let reduction = match certified(args.reduction) {
        Ok(r) => r,
        Err(msg) => return refuse(&msg),
    };
    args.limits.watch(args.format);
    args.models
        .each(args.format, |model| one(&args, reduction, model))
}

/// The theorem whose hypotheses `--reduction` names, or why certify has
/// none for it.
pub(crate) fn certified(reduction: Option<ReductionArg>) -> Result<CertifyTheorem, String> {
    let Some(ReductionArg(reduction)) = reduction else {
        return Ok(CertifyTheorem::Sc);
    };
    // Stubborn sets stacked on transactions rest on more than the theorem.
    match reduction.theorem() {
        Some(theorem) if !reduction.stubborn() => Ok(theorem),
        _ => Err(format!(
            "certify checks the hypotheses of `--reduction sc` (Stoller and Cohen's reduction theorem) and `--reduction movers` (Flanagan and Qadeer's movers theorem), not of `{}`",
            reduction.name()
        )),
    }
}

fn one(args: &CertifyArgs, reduction: CertifyTheorem, model: &ModelArgs) -> ExitCode {
    let (src, model_c) = match model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    crate::common::LimitArgs::disarm();
    // The reduction, and so the theorem, covers only invariants over
    // unprotected shared variables. The movers theorem covers every
    // invariant: a transition that writes what one reads is no mover.
    if let Err(e) = optimist::check_certifiable(&src, &model_c, reduction) {
        return crate::common::not_covered(e);
    }
    let options = CertifyOptions {
        reduction,
        level: if args.exhaustive {
            CertifyLevel::Exhaustive
        } else {
            CertifyLevel::Local
        },
        // The exhaustive level stores states; the local level tries
        // valuations, and has no default limit.
        max_states: args.limits.max_states.unwrap_or(DEFAULT_MAX_STATES),
        max_valuations: args.limits.max_states,
        max_time: args.limits.max_time,
        max_memory: args.limits.max_memory,
        ..CertifyOptions::default()
    };
    let cert = certify(&model_c, &options);
    let mut report = CertifyReport::new(&model_c, &src.name, &cert);
    if let Some(out) = &args.certificate_out {
        let proof_sha = match proof_sha256(args.proof_certificate.as_ref(), reduction) {
            Ok(h) => h,
            Err(msg) => return refuse(&msg),
        };
        let c = CertifyCertificate::new(
            &model_c,
            &src.name,
            &src.text,
            &model.define,
            model.stack.max_stack,
            &cert,
            &proof_sha,
        );
        if let Err(e) = std::fs::write(out, c.to_json()) {
            return refuse(&format!("cannot write {}: {e}", out.display()));
        }
        report.certificate = Some(CertificateNote {
            file: out.display().to_string(),
            model_sha256: c.model.sha256.clone(),
            proof_certificate_sha256: proof_sha,
        });
    }
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}

/// The hash of the proof certificate to record: the given file's, once the
/// trusted core accepts it as a proof of the theorem of `reduction`, or the
/// built-in proof's.
fn proof_sha256(given: Option<&PathBuf>, reduction: CertifyTheorem) -> Result<String, String> {
    let movers = reduction == CertifyTheorem::Movers;
    let text = match given {
        Some(p) => {
            let name = p.display();
            let text =
                std::fs::read_to_string(p).map_err(|e| format!("cannot read {name}: {e}"))?;
            let c =
                omega_algebra::Certificate::from_json(&text).map_err(|e| format!("{name}: {e}"))?;
            let pinned = if movers {
                omega_algebra::trusted::Pinned::Movers
            } else {
                omega_algebra::trusted::Pinned::Reduction
            };
            omega_algebra::recheck_pinned(&c, pinned).map_err(|e| {
                format!(
                    "the proof certificate {name} is not accepted as a proof of {}: {e}",
                    pinned.label()
                )
            })?;
            text
        }
        None if movers => optimist::movers_proof_certificate()?,
        None => optimist::proof_certificate()?,
    };
    Ok(optimist::sha256_hex(text.as_bytes()))
}

fn recheck(args: &CertifyArgs, cert_path: &PathBuf) -> ExitCode {
    let [file] = args.models.files.as_slice() else {
        return refuse("--recheck CERT takes one model FILE");
    };
    if !args.models.define.is_empty() {
        return refuse("--recheck compiles the model with the certificate's -D defines; give none");
    }
    let name = cert_path.display().to_string();
    let cert = match std::fs::read_to_string(cert_path) {
        Ok(t) => match CertifyCertificate::from_json(&t) {
            Ok(c) => c,
            Err(e) => return refuse(&format!("{name}: {e}")),
        },
        Err(e) => return refuse(&format!("cannot read {name}: {e}")),
    };
    let defines = match cert.defines() {
        Ok(d) => d,
        Err(e) => return refuse(&format!("{name}: {e}")),
    };
    let model = ModelArgs {
        file: file.clone(),
        define: defines,
        stack: StackArgs {
            max_stack: cert.model.max_stack,
        },
        lang: None,
    };
    if !(1..=optimist::MAX_STACK).contains(&model.stack.max_stack) {
        return refuse(&format!(
            "{name}: malformed certify certificate: max_stack {} is not between 1 and {}",
            model.stack.max_stack,
            optimist::MAX_STACK
        ));
    }
    let (src, model_c) = match model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let theorem = match cert.reduction {
        None => CertifyTheorem::Sc,
        Some(_) => CertifyTheorem::Movers,
    };
    if let Err(e) = optimist::check_certifiable(&src, &model_c, theorem) {
        return crate::common::not_covered(e);
    }
    let proof = match &args.proof_certificate {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => Some(t),
            Err(e) => return refuse(&format!("cannot read {}: {e}", p.display())),
        },
    };
    let report = optimist::recheck_certificate(
        &cert,
        &name,
        &src.name,
        &src.text,
        &model_c,
        proof.as_deref(),
    );
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}
