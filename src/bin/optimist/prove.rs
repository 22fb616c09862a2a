//! `optimist prove`: check a proof script with the omega-algebra kernel.

use std::process::ExitCode;

/// Arguments of `optimist prove`.
#[derive(clap::Args)]
pub struct ProveArgs {
    /// The proof script.
    #[arg(default_value = "proofs/reduction.proof")]
    pub file: std::path::PathBuf,
}

pub fn run(_args: ProveArgs) -> ExitCode {
    eprintln!("error: the proof kernel is not built yet");
    ExitCode::from(2)
}
