//! `optimist simulate`: a seeded random walk, printed as a trace.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use optimist::SimulateReport;

use crate::common::{DeadlockArgs, Format, ModelArgs, print, set_format};

/// Arguments of `optimist simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The seed of the walk: the same seed gives the same walk.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Stop after K steps (transitions; under `sc` a private run counts as one).
    #[arg(long, value_name = "K", default_value_t = 1000)]
    steps: usize,
    /// Walk the original system (one transition at a time, the default: a
    /// walk shows the interleavings a reduction skips) or the reduced one
    /// (one reduced step at a time).
    #[arg(long, value_enum, default_value_t = Walked::None)]
    reduction: Walked,
    #[command(flatten)]
    deadlock: DeadlockArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// The systems a walk can take: each value is named as the reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Walked {
    /// The original system: a random enabled transition at each step.
    None,
    /// Stoller-Cohen: a random reduced step at each step.
    Sc,
}

pub fn run(args: SimulateArgs) -> ExitCode {
    set_format(args.format);
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let reduction = crate::common::registered(args.reduction);
    // A reduced walk takes reduced steps, which a model every reduction
    // refuses has none of.
    if !reduction.is_full()
        && let Err(e) = optimist::check_reductions_apply(&src, &model)
    {
        return crate::common::not_covered(e);
    }
    let walk = optimist::simulate(&model, reduction, args.seed, args.steps);
    let mut report =
        SimulateReport::new(&model, &src.name, reduction, args.seed, args.steps, &walk);
    report.deadlock_is_violation = args.deadlock.on();
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}
