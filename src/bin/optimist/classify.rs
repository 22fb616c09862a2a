//! `optimist classify`: which transitions are visible, and why, and the
//! contract of a reduction judged on the model.

use std::process::ExitCode;

use clap::Args;
use optimist::{ClassifyReport, Options};

use crate::check::{IgnoringArg, ReductionArg};
use crate::common::{Format, ModelsArgs, print, refuse, set_format};

/// Arguments of `optimist classify`.
#[derive(Args, Debug)]
pub struct ClassifyArgs {
    #[command(flatten)]
    models: ModelsArgs,
    /// The reduction whose contract is judged on the model; `movers` and
    /// `movers+stubborn` add each transition's mover type (right, left,
    /// both, non).
    #[arg(long, value_enum, default_value = "sc")]
    reduction: ReductionArg,
    /// As for `check`: what a transaction does where it can run forever.
    #[arg(long, value_enum, default_value_t = IgnoringArg::Cpc)]
    ignoring: IgnoringArg,
    /// As for `check`: the contract with `--summaries`.
    #[arg(long)]
    summaries: bool,
    /// As for `check`: the contract with `--summaries-per-thread`.
    #[arg(long, requires = "summaries")]
    summaries_per_thread: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: ClassifyArgs) -> ExitCode {
    set_format(args.format);
    let options = Options {
        reduction: args.reduction.0,
        ignoring: args.ignoring.ignoring(),
        summaries: args.summaries,
        summaries_per_thread: args.summaries_per_thread,
        ..Options::default()
    };
    if let Err(e) = optimist::validate(&options) {
        return refuse(&e.to_string());
    }
    args.models.each(args.format, |model| {
        let (_, model) = match model.load() {
            Ok(m) => m,
            Err(code) => return code,
        };
        let assessment = match optimist::assess(&model, &options) {
            Ok(a) => a,
            Err(e) => return refuse(&e.to_string()),
        };
        let report = ClassifyReport::with(&model, &assessment);
        print(&report, args.format);
        ExitCode::from(report.exit_code())
    })
}
