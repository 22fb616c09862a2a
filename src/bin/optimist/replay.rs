//! `optimist replay`: re-run a saved counterexample against a model.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use optimist::{ReplayReport, Source, Span};

use crate::common::{Format, ModelArgs, fail, print, refuse, set_format};

/// Arguments of `optimist replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The saved report: the output of `optimist check --format json`
    /// (or `simulate --format json`) with a counterexample.
    #[arg(value_name = "TRACE.json")]
    trace: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: ReplayArgs) -> ExitCode {
    set_format(args.format);
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let saved = match read_json(&args.trace) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let name = args.trace.display().to_string();
    match ReplayReport::new(&model, &src.name, &name, &saved.1) {
        Ok(report) => {
            print(&report, args.format);
            ExitCode::from(report.exit_code())
        }
        Err(e) => refuse(&format!("{name}: {}", e.0)),
    }
}

/// Reads a JSON file; a syntax error is reported at its line and column
/// with a caret (exit 2).
pub fn read_json(path: &std::path::Path) -> Result<(Source, serde_json::Value), ExitCode> {
    let src = Source::read(path).map_err(fail)?;
    match serde_json::from_str(&src.text) {
        Ok(v) => Ok((src, v)),
        Err(e) => {
            let offset = offset_of(&src.text, e.line(), e.column());
            let message = format!("this is not a JSON report: {e}");
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.clone(), |(m, _)| m.to_string());
            Err(fail(optimist::Error::at(
                &src,
                Span::new(offset, offset + 1),
                message,
                Some(
                    "save a counterexample with `optimist check --format json MODEL > TRACE.json`"
                        .into(),
                ),
                Vec::new(),
            )))
        }
    }
}

/// The byte offset of 1-based `line` and `column` (serde_json's, which
/// points at the character it stopped on).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}
