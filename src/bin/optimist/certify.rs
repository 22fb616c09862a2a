//! `optimist certify`: does this model satisfy the reduction theorem's hypotheses?

use std::process::ExitCode;

use clap::Args;

use crate::common::{Format, ModelArgs};

/// Arguments of `optimist certify`.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: CertifyArgs) -> ExitCode {
    let _ = (&args.model, args.format);
    eprintln!("error: `optimist certify` is being built");
    ExitCode::from(2)
}
