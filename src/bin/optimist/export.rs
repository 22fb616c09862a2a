//! `optimist export`: the model in Promela or Murphi, for SPIN or Rumur.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use optimist::Target;

use crate::common::ModelArgs;

/// Arguments of `optimist export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The language to write.
    #[arg(long, value_enum)]
    to: TargetArg,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    /// Promela, for SPIN.
    Promela,
    /// Murphi, for Rumur or CMurphi.
    Murphi,
}

pub fn run(args: ExportArgs) -> ExitCode {
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let target = match args.to {
        TargetArg::Promela => Target::Promela,
        TargetArg::Murphi => Target::Murphi,
    };
    let text = match optimist::export(&model, target) {
        Ok(text) => text,
        Err(refusal) => {
            let message = format!(
                "cannot translate this model to {} exactly: {}",
                target.name(),
                refusal.message
            );
            let help = Some(format!(
                "the export is exact or refused ({}); it refuses values that may leave 32 bits, quantifiers over more than {} values, more than 254 threads for SPIN, and translations above {} expression nodes",
                refusal.kind.name(),
                optimist::MAX_UNROLL,
                optimist::MAX_NODES
            ));
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
    match &args.output {
        None => {
            use std::io::Write;
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
