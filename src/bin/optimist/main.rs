//! The `optimist` command line: argument parsing, dispatch and rendering only.
//!
//! Exit codes: 0 holds / proved, 1 violation / failed proof, 2 input or usage
//! error, 3 inconclusive (a resource limit was hit).

mod prove;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A model checker for concurrent guarded-command systems, with the
/// optimistic synchronization-based reduction of Stoller & Cohen.
#[derive(Parser)]
#[command(name = "optimist", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the omega-algebra proof of the reduction theorem.
    Prove(prove::ProveArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Prove(args) => prove::run(args),
    }
}
