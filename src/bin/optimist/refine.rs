//! `optimist refine`: guess, check, refine, and keep the final guesses.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use optimist::{GuessFrom, RefineOptions};

use crate::common::{Format, LimitArgs, ModelArgs, print, refuse, set_format};

/// Arguments of `optimist refine`.
#[derive(Args, Debug)]
pub struct RefineArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Where the first guesses come from.
    #[arg(long, value_enum, default_value_t = GuessArg::Annotated)]
    guess: GuessArg,
    /// Most check-and-revise iterations; 0 checks the first guesses only.
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_iterations: usize,
    /// Revise lock guesses during one exploration where that is sound.
    #[arg(long)]
    incremental: bool,
    /// The reduced system each check explores.
    #[arg(long, value_enum, default_value_t = Refined::Sc)]
    reduction: Refined,
    /// Write the model with the final guesses as declarations to this file
    /// (the report still goes to standard output).
    #[arg(short, long, value_name = "OUT", alias = "write")]
    output: Option<PathBuf>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Writes `text` to `out` through a temporary file, so that a failed write
/// leaves nothing half-written.
fn write_new(out: &std::path::Path, text: &str) -> Result<(), String> {
    let tmp = out.with_extension("gc.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, out))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The reductions refine checks with: each value is named as the
/// reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Refined {
    /// Stoller-Cohen reduction.
    Sc,
    /// Flanagan-Qadeer transactions with movers.
    Movers,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GuessArg {
    /// The model's own `protected` declarations.
    Annotated,
    /// Ignore the declarations: every shared variable that is not a lock,
    /// a semaphore or a channel, and that no guard or invariant reads, is
    /// guessed protected by a lock a lockset pass finds held at all its
    /// accesses; it stays unprotected when no lock is (the report says
    /// why each variable is unprotected).
    Locks,
}

pub fn run(args: RefineArgs) -> ExitCode {
    set_format(args.format);
    args.limits.watch(args.format);
    if let Some(out) = &args.output {
        if same_file(&args.model.file, out) {
            return refuse(&format!(
                "--output {} would overwrite the model itself; choose another file",
                out.display()
            ));
        }
    }
    let src = match optimist::Source::read(&args.model.file) {
        Ok(s) => s,
        Err(e) => return crate::common::fail(e),
    };
    let options = RefineOptions {
        guess: match args.guess {
            GuessArg::Annotated => GuessFrom::Annotated,
            GuessArg::Locks => GuessFrom::Locks,
        },
        max_iterations: args.max_iterations,
        incremental: args.incremental,
        limits: args.limits.limits(),
        reduction: crate::common::registered(args.reduction),
    };
    let report = match optimist::refine(&src, &args.model.define, &options) {
        Ok(r) => r,
        Err(e) => return crate::common::fail(e),
    };
    if let Some(out) = &args.output {
        let text = format!(
            "// Written by `optimist refine` from {} (guesses from {}):\n// the final guesses are declared below; it checks as it is.\n\n{}",
            src.name, report.guess, report.text
        );
        if let Err(e) = write_new(out, &text) {
            return refuse(&e);
        }
    }
    print(&report, args.format);
    ExitCode::from(report.exit_code())
}
