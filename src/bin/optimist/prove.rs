//! `optimist prove`: check a proof script with the omega-algebra kernel,
//! or re-check a certificate it wrote.
//!
//! Exit codes: 0 proved, and it is the pinned theorem (the paper's (19),
//! or the movers theorem (M)) in its pinned theory (or certificate
//! accepted), 1 a step failed (or the certificate was rejected), 2
//! unreadable input or bad usage, 3 proved, but not the pinned theorem in
//! its theory (or the certificate check stopped at a bound of the core).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use omega_algebra::{CheckOptions, Script};
use serde_json::json;

use crate::common::{Format, write_err, write_out};

/// The built-in proofs, so that `optimist prove` works from any directory.
const REDUCTION: &str = include_str!("../../../proofs/reduction.proof");
const MOVERS: &str = include_str!("../../../proofs/movers.proof");

/// Which built-in proof `optimist prove` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Theorem {
    /// Stoller & Cohen's reduction theorem (19), proofs/reduction.proof.
    #[value(alias = "sc")]
    Reduction,
    /// Flanagan and Qadeer's movers theorem (M), proofs/movers.proof.
    Movers,
}

impl Theorem {
    fn script(self) -> (&'static str, &'static str) {
        match self {
            Theorem::Reduction => ("proofs/reduction.proof", REDUCTION),
            Theorem::Movers => ("proofs/movers.proof", MOVERS),
        }
    }

    fn pinned(self) -> omega_algebra::trusted::Pinned {
        match self {
            Theorem::Reduction => omega_algebra::trusted::Pinned::Reduction,
            Theorem::Movers => omega_algebra::trusted::Pinned::Movers,
        }
    }
}

/// Arguments of `optimist prove`.
#[derive(Args, Debug)]
pub struct ProveArgs {
    /// The proof script [default: the built-in proof of --theorem].
    pub file: Option<PathBuf>,
    /// The built-in proof to check: the reduction theorem (19) of Stoller
    /// & Cohen (proofs/reduction.proof), or Flanagan and Qadeer's movers
    /// theorem (M) (proofs/movers.proof). With --check-certificate: the
    /// theorem the certificate must prove [default: the one whose theory
    /// it declares].
    #[arg(long, value_enum, conflicts_with = "file")]
    pub theorem: Option<Theorem>,
    /// Remove hypothesis H (`16` or `(16)`) from the context; the steps that
    /// cite it must then fail. Repeatable.
    #[arg(long = "drop", value_name = "H")]
    pub drop: Vec<String>,
    /// Write a certificate to OUT: every step's rewrite sequence (egg
    /// explanations) and every other inference, for the re-checker.
    #[arg(long, value_name = "OUT")]
    pub emit_certificate: Option<PathBuf>,
    /// Instead of proving, re-check the certificate CERT without search.
    #[arg(long, value_name = "CERT", conflicts_with_all = ["drop", "emit_certificate"])]
    pub check_certificate: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Runs `optimist prove`.
pub fn run(args: ProveArgs) -> ExitCode {
    if let Some(cert) = &args.check_certificate {
        return recheck(cert, args.theorem, args.format);
    }
    let (name, source) = match &args.file {
        None => {
            let (name, text) = args.theorem.unwrap_or(Theorem::Reduction).script();
            (name.to_string(), text.to_string())
        }
        Some(f) => {
            let name = f.display().to_string();
            match std::fs::read_to_string(f) {
                Ok(s) => (name, s),
                Err(e) => return usage_error(args.format, &format!("cannot read {name}: {e}")),
            }
        }
    };
    let script = match omega_algebra::parse_script(&name, &source) {
        Ok(s) => s,
        Err(e) => {
            if args.format == Format::Json {
                write_out(&format!(
                    "{}\n",
                    json!({"status": "error", "error": {
                        "file": e.file, "line": e.line, "col": e.col,
                        "message": e.message, "source_line": e.source_line, "help": e.help,
                    }})
                ));
            }
            write_err(&format!("{:?}\n", miette::Report::new(e)));
            return ExitCode::from(2);
        }
    };
    if let Err(msg) = check_drops(&script, &args.drop) {
        return usage_error(args.format, &msg);
    }
    let options = CheckOptions {
        drop: args.drop.clone(),
        ..Default::default()
    };
    let checked = omega_algebra::check(&script, &options);
    if let Some(out) = &args.emit_certificate {
        let written = checked
            .certificate(&script)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                std::fs::write(out, c.to_json())
                    .map_err(|e| format!("cannot write {}: {e}", out.display()))
            });
        if let Err(msg) = written {
            return usage_error(args.format, &msg);
        }
    }
    let report = &checked.report;
    match args.format {
        Format::Text => write_out(&report.to_text()),
        Format::Json => write_out(&format!("{}\n", report.to_json())),
    }
    ExitCode::from(report.exit_code())
}

/// Every `--drop` names a hypothesis of the script.
fn check_drops(script: &Script, drops: &[String]) -> Result<(), String> {
    for d in drops {
        let label = omega_algebra::hypothesis_label(d);
        if !script.hypotheses().any(|h| h.label == label) {
            let known: Vec<&str> = script.hypotheses().map(|h| h.label.as_str()).collect();
            return Err(format!(
                "--drop {d}: {} has no hypothesis {label}; its hypotheses are {}",
                script.file,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    Ok(())
}

fn recheck(path: &Path, theorem: Option<Theorem>, format: Format) -> ExitCode {
    let name = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return usage_error(format, &format!("cannot read {name}: {e}")),
    };
    let cert = match omega_algebra::Certificate::from_json(&text) {
        Ok(c) => c,
        Err(e) => return usage_error(format, &format!("{name}: {e}")),
    };
    let pinned = theorem
        .map(Theorem::pinned)
        .or_else(|| omega_algebra::pinned_theorem(&cert))
        .unwrap_or(omega_algebra::trusted::Pinned::Reduction);
    match omega_algebra::recheck_pinned(&cert, pinned) {
        Ok(s) => {
            match format {
                Format::Text => write_out(&accepted_text(&name, &s)),
                Format::Json => write_out(&format!(
                    "{:#}\n",
                    json!({"status": "accepted", "certificate": name, "summary": s})
                )),
            }
            ExitCode::SUCCESS
        }
        Err(e @ omega_algebra::CertificateError::Limit { .. }) => {
            // Neither accepted nor shown wrong: the core stopped at a bound.
            match format {
                Format::Text => write_out(&format!(
                    "certificate {name} not accepted: the check stopped at a bound of the core: {e}\n"
                )),
                Format::Json => write_out(&format!(
                    "{:#}\n",
                    json!({"status": "limit", "certificate": name, "reason": e.to_string()})
                )),
            }
            ExitCode::from(3)
        }
        Err(e) => {
            match format {
                Format::Text => write_out(&format!("certificate {name} rejected: {e}\n")),
                Format::Json => write_out(&format!(
                    "{:#}\n",
                    json!({"status": "rejected", "certificate": name, "reason": e.to_string()})
                )),
            }
            ExitCode::from(1)
        }
    }
}

/// What the re-checker accepted: the theorem, the hypotheses and the
/// definitions, as it built them itself.
fn accepted_text(name: &str, s: &omega_algebra::Accepted) -> String {
    let mut t = format!(
        "certificate {name} accepted\ntheorem {}: {}\nfrom the axioms of omega algebra and the hypotheses\n",
        s.claim, s.statement
    );
    for (l, h) in &s.hypotheses {
        t.push_str(&format!("  {l}: {h}\n"));
    }
    t.push_str("with the definitions\n");
    for (l, d) in &s.definitions {
        t.push_str(&format!("  {l}: {d}\n"));
    }
    t.push_str(&format!(
        "re-derived: {} lemmas, {} steps, {} primitive inferences ({} rewrites)\n",
        s.lemmas, s.steps, s.inferences, s.rewrites
    ));
    t
}

fn usage_error(format: Format, msg: &str) -> ExitCode {
    match format {
        Format::Text => write_err(&format!("error: {msg}\n")),
        Format::Json => write_out(&format!(
            "{}\n",
            json!({"status": "error", "error": {"message": msg}})
        )),
    }
    ExitCode::from(2)
}
