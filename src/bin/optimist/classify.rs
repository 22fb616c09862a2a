//! `optimist classify`: which transitions are visible, and why.

use std::process::ExitCode;

use clap::Args;
use optimist::ClassifyReport;

use crate::common::{Format, ModelArgs, print};

/// Arguments of `optimist classify`.
#[derive(Args, Debug)]
pub struct ClassifyArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: ClassifyArgs) -> ExitCode {
    let (_, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    print(&ClassifyReport::new(&model), args.format);
    ExitCode::SUCCESS
}
