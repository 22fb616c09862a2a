//! `optimist certify`: does this model satisfy the reduction theorem's hypotheses?

use std::process::ExitCode;

use clap::Args;
use optimist::{CertifyLevel, CertifyOptions, CertifyReport, DEFAULT_MAX_STATES, certify};

use crate::common::{Format, ModelArgs, fail, print};

/// Arguments of `optimist certify`.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Check every obligation at the reachable states of the full system,
    /// instead of locally at every valuation of its frame.
    #[arg(long)]
    exhaustive: bool,
    /// With --exhaustive: store at most this many states; beyond it the
    /// obligations are not checked (exit 3).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STATES)]
    max_states: u64,
}

pub fn run(args: CertifyArgs) -> ExitCode {
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    // The reduction, and so the theorem, covers only invariants over
    // unprotected shared variables.
    if let Err(e) = optimist::check_reducible(&src, &model) {
        return fail(e);
    }
    let options = CertifyOptions {
        level: if args.exhaustive {
            CertifyLevel::Exhaustive
        } else {
            CertifyLevel::Local
        },
        max_states: args.max_states.max(1),
        ..CertifyOptions::default()
    };
    let cert = certify(&model, &options);
    let report = CertifyReport::new(&model, &src.name, &cert);
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}
