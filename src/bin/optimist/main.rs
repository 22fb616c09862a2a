//! The `optimist` command line: argument parsing, dispatch and rendering only.
//!
//! Exit codes: 0 holds / proved, 1 violation / failed proof, 2 input or usage
//! error, 3 inconclusive (a resource limit was hit).

mod certify;
mod check;
mod classify;
mod common;
mod export;
mod graph;
mod prove;
mod refine;

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
    /// Explore a model and report whether a violation is reachable.
    Check(check::CheckArgs),
    /// Check that a model satisfies the hypotheses of the reduction theorem.
    Certify(certify::CertifyArgs),
    /// Show which transitions the reduction treats as visible, and why.
    Classify(classify::ClassifyArgs),
    /// Guess which variables are protected and by what, check, refine.
    Refine(refine::RefineArgs),
    /// Check the omega-algebra proof of the reduction theorem.
    Prove(prove::ProveArgs),
    /// Translate a model to Promela (SPIN) or Murphi (Rumur), exactly or not at all.
    ///
    /// The translation is of the full semantics: one transition is one
    /// atomic step (a d_step, a rule), the control points are variables, and
    /// every violation optimist reports is an assertion. When the model
    /// holds, SPIN (-DNOREDUCE) and Rumur (no symmetry) count exactly
    /// `optimist check --reduction none`'s states. Deadlocks are not
    /// errors, as without `--deadlock`. Refused (exit 2): values that may
    /// leave 32 bits, quantifiers over more than 256 values, more than 254
    /// threads for SPIN.
    Export(export::ExportArgs),
    /// Draw the state graph of a small model, with a reduced search over it.
    ///
    /// States are boxes labelled with every thread's control point and the
    /// variables that changed; edges are transitions. With --reduction, the
    /// states the reduced search stores are filled and its steps are red.
    /// Above --max-states states it refuses (exit 3).
    Graph(graph::GraphArgs),
}

fn main() -> ExitCode {
    common::install_diagnostics();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap uses 2 for usage errors already; help and version are not errors.
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Parsing and compiling bound their recursion; the large stack is a
    // second line of defence so that no input can overflow it.
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || match cli.command {
            Command::Check(args) => check::run(args),
            Command::Classify(args) => classify::run(args),
            Command::Refine(args) => refine::run(args),
            Command::Certify(args) => certify::run(args),
            Command::Prove(args) => prove::run(args),
            Command::Export(args) => export::run(args),
            Command::Graph(args) => graph::run(args),
        });
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        _ => ExitCode::from(101),
    }
}
