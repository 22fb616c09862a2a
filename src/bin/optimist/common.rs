//! Options and rendering shared by the subcommands.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

/// The model file and its constant overrides.
#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The model file.
    pub file: PathBuf,
    /// Override a `const` declaration: `-D NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, String)>,
    /// The deepest call stack a thread may have: a deeper call ends the
    /// run inconclusive (exit 3). Procedures are copied once per depth.
    #[arg(long, value_name = "N", default_value_t = optimist::DEFAULT_MAX_STACK,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(optimist::MAX_STACK)))]
    pub max_stack: u32,
}

impl ModelArgs {
    /// Reads and compiles the model, or renders the error and gives exit code 2.
    pub fn load(&self) -> Result<(optimist::Source, optimist::Model), ExitCode> {
        let options = optimist::CompileOptions {
            max_stack: self.max_stack,
        };
        optimist::load_with(&self.file, &self.define, &options).map_err(fail)
    }
}

fn parse_define(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
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
