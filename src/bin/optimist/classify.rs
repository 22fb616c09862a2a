//! `optimist classify`: which transitions are visible, and why.

use std::process::ExitCode;

use clap::Args;
use optimist::ClassifyReport;

use crate::common::{Format, ModelsArgs, print, set_format};

/// Arguments of `optimist classify`.
#[derive(Args, Debug)]
pub struct ClassifyArgs {
    #[command(flatten)]
    models: ModelsArgs,
    /// `movers` adds each transition's mover type (right, left, both, non).
    #[arg(long, value_enum, default_value_t = ClassifyFor::Sc)]
    reduction: ClassifyFor,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ClassifyFor {
    /// Visible and invisible transitions (Stoller-Cohen).
    Sc,
    /// Also right, left, both and non movers (Flanagan-Qadeer).
    Movers,
}

pub fn run(args: ClassifyArgs) -> ExitCode {
    set_format(args.format);
    args.models.each(args.format, |model| {
        let (_, model) = match model.load() {
            Ok(m) => m,
            Err(code) => return code,
        };
        let movers = args.reduction == ClassifyFor::Movers;
        print(&ClassifyReport::with_movers(&model, movers), args.format);
        ExitCode::SUCCESS
    })
}
