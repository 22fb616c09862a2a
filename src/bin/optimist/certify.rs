//! `optimist certify`: does this model satisfy the reduction theorem's hypotheses?

use std::process::ExitCode;

use clap::Args;
use optimist::{CertifyLevel, CertifyOptions, CertifyReport, DEFAULT_MAX_STATES, certify};

use crate::common::{Format, LimitArgs, ModelArgs, ModelsArgs, fail, print, set_format};

/// Arguments of `optimist certify`.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    models: ModelsArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Check every obligation at the reachable states of the full system,
    /// instead of locally at every valuation of its frame.
    #[arg(long)]
    exhaustive: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

pub fn run(args: CertifyArgs) -> ExitCode {
    set_format(args.format);
    args.limits.watch(args.format);
    args.models.each(args.format, |model| one(&args, model))
}

fn one(args: &CertifyArgs, model: &ModelArgs) -> ExitCode {
    let (src, model) = match model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    crate::common::LimitArgs::disarm();
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
        // The exhaustive level stores states; the local level tries
        // valuations, and has no default limit.
        max_states: args.limits.max_states.unwrap_or(DEFAULT_MAX_STATES),
        max_valuations: args.limits.max_states,
        max_time: args.limits.max_time,
        max_memory: args.limits.max_memory,
        ..CertifyOptions::default()
    };
    let cert = certify(&model, &options);
    let report = CertifyReport::new(&model, &src.name, &cert);
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}
