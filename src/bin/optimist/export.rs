//! `optimist export`: the model in Promela or Murphi, for SPIN or Rumur.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use optimist::Target;
use serde::Serialize;

use crate::common::{DeadlockArgs, Format, ModelArgs};

/// Arguments of `optimist export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The language to write.
    #[arg(long, value_enum)]
    to: TargetArg,
    /// Write the translation to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<std::path::PathBuf>,
    #[command(flatten)]
    deadlock: DeadlockArgs,
    /// Keep the model's symmetry (Murphi only): the copies of a fully
    /// symmetric thread body become a scalarset, their program counters
    /// and locals arrays indexed by it, and each copy's rules one ruleset,
    /// so that `rumur --symmetry-reduction exhaustive` counts one state per
    /// orbit, as `check --symmetry on --reduction none` does. Refused for
    /// Promela, for a model without full symmetry (none, or rotations
    /// only), and for what a scalarset cannot express (arithmetic on
    /// identities, a copy named by number)
    #[arg(long)]
    symmetry: bool,
    /// Output format: the translation itself, or a JSON object holding it
    /// (or the refusal) with the command that checks it.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    /// Promela, for SPIN.
    Promela,
    /// Murphi, for Rumur or CMurphi.
    Murphi,
}

/// `--format json`: the translation, or why there is none.
#[derive(Serialize)]
struct ExportReport<'a> {
    model: &'a str,
    file: &'a str,
    target: &'static str,
    /// The command that checks the file (its name as `MODEL.pml`/`MODEL.m`
    /// unless `--output` names it).
    check_with: Option<String>,
    /// The translation; null when refused or written to `--output`.
    text: Option<&'a str>,
    refused: Option<RefusalReport>,
}

#[derive(Serialize)]
struct RefusalReport {
    kind: &'static str,
    message: String,
    /// `file:line:col` of the construct, when there is one.
    location: Option<String>,
}

pub fn run(args: ExportArgs) -> ExitCode {
    crate::common::set_format(args.format);
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let target = match args.to {
        TargetArg::Promela => Target::Promela,
        TargetArg::Murphi => Target::Murphi,
    };
    let json = args.format == Format::Json;
    let exported = match args.symmetry {
        true => optimist::export_symmetric(&model, target, args.deadlock.on()),
        false => optimist::export(&model, target, args.deadlock.on()),
    };
    let text = match exported {
        Ok(text) => text,
        Err(refusal) => {
            let how = match refusal.kind {
                optimist::RefusalKind::Symmetry => "keeping its symmetry",
                _ => "exactly",
            };
            let message = format!(
                "cannot translate this model to {} {how}: {}",
                target.name(),
                refusal.message
            );
            if json {
                let report = ExportReport {
                    model: &model.name,
                    file: &src.name,
                    target: target.name(),
                    check_with: None,
                    text: None,
                    refused: Some(RefusalReport {
                        kind: refusal.kind.name(),
                        message,
                        location: refusal.span.map(|s| src.location(s.start)),
                    }),
                };
                print_json(&report);
                return ExitCode::from(2);
            }
            let help = Some(match refusal.kind {
                optimist::RefusalKind::Symmetry => "`--symmetry` writes a fully symmetric group of copies as a Murphi scalarset; without it the export writes every copy and Rumur counts every state".to_string(),
                _ => format!(
                    "the export is exact or refused ({}); it refuses values that may leave 32 bits, quantifiers over more than {} values, more than 254 threads for SPIN, translations above {} expression nodes, and `timeout`",
                    refusal.kind.name(),
                    optimist::MAX_UNROLL,
                    optimist::MAX_NODES
                ),
            });
            let err = match refusal.span {
                Some(span) => optimist::Error::at(&src, span, message, help, Vec::new()),
                None => optimist::Error::Usage {
                    file: src.name.clone(),
                    message,
                    help,
                },
            };
            return crate::common::fail(err);
        }
    };
    if let Some(path) = &args.output
        && let Err(e) = std::fs::write(path, &text)
    {
        return crate::common::refuse(&format!("cannot write {}: {e}", path.display()));
    }
    let file = match &args.output {
        Some(path) => path.display().to_string(),
        None => format!("MODEL.{}", target.extension()),
    };
    if json {
        print_json(&ExportReport {
            model: &model.name,
            file: &src.name,
            target: target.name(),
            check_with: Some(optimist::how_to_run_with(target, &file, args.symmetry)),
            text: args.output.is_none().then_some(text.as_str()),
            refused: None,
        });
    } else if args.output.is_none() {
        crate::common::write_out(&text);
    }
    ExitCode::SUCCESS
}

fn print_json<T: Serialize>(report: &T) {
    let text = serde_json::to_string_pretty(report).expect("reports serialise") + "\n";
    crate::common::write_out(&text);
}
