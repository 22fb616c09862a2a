//! Options and rendering shared by the subcommands.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// The model file and its constant overrides.
#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The model file.
    pub file: PathBuf,
    /// Override a `const` declaration: `-D NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, String)>,
}

impl ModelArgs {
    /// Reads and compiles the model, or renders the error and gives exit code 2.
    pub fn load(&self) -> Result<(optimist::Source, optimist::Model), ExitCode> {
        optimist::load(&self.file, &self.define).map_err(fail)
    }
}

fn parse_define(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
}

/// The resource limits, one definition for `check`, `certify` and `refine`.
///
/// Every limit ends the run with verdict inconclusive (exit 3) and the
/// statistics of what was done; zero means zero (the run stops at once).
/// Values that are not numbers, negative, not finite or too large are usage
/// errors (exit 2).
#[derive(Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// Stop rather than hold more than N states. check, refine: the stored
    /// states plus the intermediate states of the reduced step under way
    /// (refine: per check). certify --exhaustive: states of the full system
    /// (default 1000000). certify: valuations tried, over all obligations.
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop after S seconds (a decimal number, at most 1e9). refine: over all
    /// its checks together.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub max_time: Option<Duration>,
    /// Stop rather than let the process's memory (resident set) grow past
    /// MB mebibytes.
    #[arg(long, value_name = "MB", value_parser = parse_megabytes)]
    pub max_memory: Option<u64>,
}

/// Most seconds accepted by `--max-time`: about 31 years, far beyond any
/// run, and far inside what a `Duration` holds.
pub const MAX_SECONDS: f64 = 1e9;

impl LimitArgs {
    /// The limits, for the library.
    pub fn limits(&self) -> optimist::Limits {
        optimist::Limits {
            max_states: self.max_states,
            max_time: self.max_time,
            max_memory: self.max_memory,
        }
    }
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, such as 10 or 0.5, not `{s}`"))?;
    if !t.is_finite() {
        return Err(format!("needs a finite number of seconds, not `{s}`"));
    }
    if t < 0.0 {
        return Err(format!(
            "needs a number of seconds that is not negative, not `{s}`"
        ));
    }
    if t > MAX_SECONDS {
        return Err(format!(
            "accepts at most {MAX_SECONDS:e} seconds (about 31 years), not `{s}`"
        ));
    }
    Duration::try_from_secs_f64(t).map_err(|e| format!("`{s}`: {e}"))
}

/// Megabytes (MiB) to bytes.
fn parse_megabytes(s: &str) -> Result<u64, String> {
    let mb: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a whole number of megabytes, not `{s}`"))?;
    mb.checked_mul(1 << 20)
        .ok_or_else(|| format!("accepts at most {} megabytes, not `{s}`", u64::MAX >> 20))
}

/// Output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For scripts: one JSON object on stdout.
    Json,
}

/// Renders an input error on stderr; returns exit code 2.
pub fn fail(e: impl miette::Diagnostic + Send + Sync + 'static) -> ExitCode {
    eprintln!("{:?}", miette::Report::new(e));
    ExitCode::from(2)
}

/// Colour and Unicode only on a terminal, so piped output is plain ASCII
/// with a caret under the error.
pub fn install_diagnostics() {
    let fancy = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = miette::set_hook(Box::new(move |_| {
        let opts = miette::MietteHandlerOpts::new()
            .terminal_links(false)
            .width(100);
        let opts = if fancy {
            opts
        } else {
            opts.color(false)
                .unicode(false)
                .graphical_theme(miette::GraphicalTheme::none())
        };
        Box::new(opts.build())
    }));
}

/// Prints a report in the chosen format on stdout. A closed pipe (as in
/// `optimist ... | head`) is not an error, as for any Unix filter.
pub fn print<T: serde::Serialize + std::fmt::Display>(report: &T, format: Format) {
    use std::io::Write;
    let text = match format {
        Format::Text => report.to_string(),
        Format::Json => serde_json::to_string_pretty(report).expect("reports serialise") + "\n",
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
