//! `optimist check`: explore a model and report the verdict.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use optimist::{CheckReport, Options, Reduction};

use crate::common::{Format, LimitArgs, ModelArgs, print};

/// Arguments of `optimist check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Which state space to explore.
    #[arg(long, value_enum, default_value_t = ReductionArg::Sc)]
    reduction: ReductionArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    limits: LimitArgs,
    /// Report a reachable deadlock as a violation.
    #[arg(long)]
    deadlock: bool,
    /// Also check the reduction theorem's hypotheses (as `optimist
    /// certify`) and conclude for the original system.
    #[arg(long)]
    certify: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReductionArg {
    /// Full exploration of the original system.
    None,
    /// Stoller-Cohen reduction.
    Sc,
}

pub fn run(args: CheckArgs) -> ExitCode {
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    if args.reduction == ReductionArg::Sc {
        if let Err(e) = optimist::check_reducible(&src, &model) {
            return crate::common::fail(e);
        }
    }
    let options = Options {
        reduction: match args.reduction {
            ReductionArg::None => Reduction::None,
            ReductionArg::Sc => Reduction::Sc,
        },
        limits: args.limits.limits(),
        deadlock: args.deadlock,
    };
    let started = Instant::now();
    let mut progress = Progress::new();
    let outcome = optimist::check(&model, &options, &mut |s| progress.update(s));
    progress.finish();
    let report = CheckReport::new(&model, &src.name, options.reduction, &outcome);
    if args.certify {
        // The certificate takes the same memory limit, and what is left of
        // the time limit: `--max-time` bounds the whole command.
        let cert = optimist::certify(
            &model,
            &optimist::CertifyOptions {
                max_time: options
                    .limits
                    .max_time
                    .map(|t| t.saturating_sub(started.elapsed())),
                max_memory: options.limits.max_memory,
                ..optimist::CertifyOptions::default()
            },
        );
        let cert = optimist::CertifyReport::new(&model, &src.name, &cert);
        let both = optimist::CertifiedCheck::new(report, cert, &options);
        print(&both, args.format);
        return ExitCode::from(both.exit_code());
    }
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}

/// A spinner on stderr, shown only on a terminal and only once a run has
/// lasted a second; stdout stays deterministic.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    enabled: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            bar: None,
            start: Instant::now(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn update(&mut self, s: &optimist::Stats) {
        if !self.enabled || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let rate = s.states as f64 / s.elapsed.as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "{} states, {} transitions, depth {}, {:.0} states/s, {:.0} MB",
            s.states,
            s.transitions,
            s.depth,
            rate,
            s.memory as f64 / (1 << 20) as f64
        ));
    }

    fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
