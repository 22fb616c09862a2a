//! The `optimist` command line: argument parsing, dispatch and rendering only.
//!
//! Exit codes: 0 holds / proved, 1 violation / failed proof, 2 input or usage
//! error, 3 inconclusive (no verdict: see `EXIT_CODES`).
//!
//! All output goes through `common::write_out` and `common::write_err`:
//! `print!` and `eprint!` panic when the reader has gone.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod certify;
mod check;
mod classify;
mod common;
mod explore;
mod export;
mod graph;
mod lsp;
mod prove;
mod refine;
mod replay;
mod simulate;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::common::Color;

const EXIT_CODES: &str = "\
Exit codes:
  0  holds (check, certify, refine) or proved (prove)
  1  a violation was found, a hypothesis fails, or a proof step fails
  2  an error in the input or the command line
  3  inconclusive, no verdict either way: a limit was hit (--max-states,
     --max-time, --max-memory), the reduction does not apply to the model,
     a property was not decided, a certificate does not cover the question
     (check --certify), or a trace diverges from the model (replay)";

/// A model checker for concurrent guarded-command systems, with the
/// optimistic synchronization-based reduction of Stoller & Cohen.
#[derive(Parser)]
#[command(name = "optimist", version, about, long_about = None, after_help = EXIT_CODES)]
struct Cli {
    /// Colour and Unicode in error messages.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore a model and report whether a violation is reachable.
    #[command(after_help = concat!("\
Examples:
  optimist check models/barrier.gc                     reduced (sc) exploration
  optimist check models/barrier.gc --reduction none    the full state space
  optimist check models/counter-bug.gc --format json   the trace as JSON
  optimist check models/*.gc --max-states 1000000      several models, limited
  optimist check models/barrier.gc --certify           and conclude for the original
  cat model.gc | optimist check -                      the model from stdin

", "Exit codes:
  0  holds   1  violation   2  input or usage error
  3  inconclusive: a limit was hit, the reduction does not apply to the model,
     a property was not decided, or --certify's certificate does not cover it"))]
    Check(check::CheckArgs),
    /// Check that a model satisfies the hypotheses of a reduction theorem (sc or movers).
    #[command(after_help = "\
Examples:
  optimist certify models/barrier.gc                   every obligation, locally
  optimist certify models/barrier.gc --exhaustive      at the reachable states
  optimist certify models/counter.gc --reduction movers  the movers theorem's
  optimist certify models/barrier.gc --certificate-out barrier.cert.json
  optimist certify --recheck barrier.cert.json models/barrier.gc --proof-certificate proof.json

Exit codes:
  0  every hypothesis holds (--recheck: confirmed)   1  one fails (rejected)
  2  input or usage error   3  inconclusive")]
    Certify(certify::CertifyArgs),
    /// Show which transitions the reduction treats as visible, and why.
    #[command(after_help = "\
Examples:
  optimist classify models/barrier.gc
  optimist classify models/counter.gc --reduction movers

Exit codes:
  0  classified   2  input or usage error")]
    Classify(classify::ClassifyArgs),
    /// Guess which variables are protected and by what, check, refine.
    #[command(after_help = "\
Examples:
  optimist refine models/refine-locks.gc --guess locks
  optimist refine models/refine-init.gc -o refined.gc

Exit codes:
  0  the final guesses hold   1  a violation remains   2  input or usage error
  3  inconclusive (a limit, or --max-iterations reached)")]
    Refine(refine::RefineArgs),
    /// Check an omega-algebra proof: the reduction theorem, or the movers theorem.
    #[command(after_help = "\
Examples:
  optimist prove                                       the built-in proof
  optimist prove --theorem movers                      Flanagan and Qadeer's movers theorem
  optimist prove --drop 16                             without hypothesis (16): fails
  optimist prove --emit-certificate cert.json
  optimist prove --check-certificate cert.json

Exit codes:
  0  proved: the pinned theorem in its pinned theory (or certificate accepted)
  1  a step fails (or rejected)   2  input or usage error
  3  proved, but not the pinned theorem in its theory (or the check hit a bound)")]
    Prove(prove::ProveArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "\
Examples:
  optimist completions bash > ~/.local/share/bash-completion/completions/optimist
  optimist completions zsh > ~/.zfunc/_optimist")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `optimist man | man -l -`.
    Man,
    /// Translate a model to Promela (SPIN) or Murphi (Rumur), exactly or not at all.
    ///
    /// The translation is of the full semantics: one transition is one
    /// atomic step (a d_step, a rule), the control points are variables, and
    /// every violation optimist reports is an assertion. When the model
    /// holds, SPIN (-DNOREDUCE) and Rumur (no symmetry) count exactly
    /// `optimist check --reduction none`'s states, and a deadlock is an
    /// error as `check` reports it (not with --no-deadlock). Refused (exit
    /// 2): values that may
    /// leave 32 bits, quantifiers over more than 256 values, more than 254
    /// threads for SPIN.
    #[command(after_help = "\
Examples:
  optimist export models/barrier.gc --to promela                 Promela on stdout
  optimist export models/barrier.gc --to murphi -o barrier.m     Murphi, to a file
  optimist export models/account.gc --to murphi --symmetry       with a scalarset
  optimist export models/barrier.gc --to promela --format json   with its command

Exit codes:
  0  translated exactly   2  refused (not exactly translatable), or an input
                             or usage error")]
    Export(export::ExportArgs),
    /// Draw the state graph of a small model, with a reduced search over it.
    ///
    /// States are boxes labelled with every thread's control point and the
    /// variables that changed; edges are transitions. With --reduction, the
    /// states the reduced search stores are filled and its steps are red.
    /// Above --max-states states it refuses (exit 3).
    #[command(after_help = "\
Examples:
  optimist graph models/racy-counter.gc > racy.dot       the full graph (Graphviz)
  optimist graph models/racy-counter.gc --reduction sc   with sc's steps in red
  optimist graph models/racy-counter.gc --format svg -o racy.svg
  optimist graph models/deadlock.gc --trace               the deadlock, marked
  optimist graph models/counter-bug.gc --trace --format svg -o trace.svg

Exit codes:
  0  drawn   2  input or usage error
  3  too many states to draw (--max-states); --trace: no counterexample, and
     the check's own code (0 holds, 3 inconclusive)")]
    Graph(graph::GraphArgs),
    /// Walk the model at random from the initial state, printed as a trace.
    ///
    /// The same seed gives the same walk. It stops at a violation or a
    /// deadlock (exit 1; a deadlock exits 0 with --no-deadlock), at the end
    /// of every thread (exit 0), or after --steps steps (exit 0, saying so).
    #[command(after_help = "\
Examples:
  optimist simulate models/racy-counter.gc --seed 3
  optimist simulate models/barrier.gc --steps 20 --reduction sc --format json

Exit codes:
  0  no violation on the walk   1  a violation   2  input or usage error
  3  inconclusive (a call past --max-stack)")]
    Simulate(simulate::SimulateArgs),
    /// Re-run a saved counterexample against a model, step by step.
    ///
    /// Each saved step is matched by thread and statement, and the state
    /// after it is compared. Reports whether the violation reproduces, or
    /// where the model diverges from the trace.
    #[command(after_help = "\
Examples:
  optimist check models/counter-bug.gc --format json > trace.json
  optimist replay models/counter-bug.gc trace.json

Exit codes:
  1  the violation reproduces   3  the trace diverges from the model
  2  input or usage error (the report is not JSON, or has no counterexample)")]
    Replay(replay::ReplayArgs),
    /// Serve a local web page to step through the state space.
    ///
    /// The page shows each thread's transitions at its current point
    /// (visible or invisible), the state, the path so far, with undo, and
    /// can load a counterexample from a JSON report and follow it. A JSON
    /// API is behind it: GET /state, POST /step {"transition": K}, /undo,
    /// /reset, /load (a report), /next.
    #[command(after_help = "\
Examples:
  optimist explore models/barrier.gc                 then open http://127.0.0.1:7878/
  optimist explore models/counter-bug.gc --port 0    any free port, printed

Exit codes:
  2  input or usage error (or the port cannot be opened)")]
    Explore(explore::ExploreArgs),
    /// Run the language server for editors, on standard input and output.
    ///
    /// Diagnostics as you type (with quick fixes for misspellings), hover
    /// (a variable's range and protection, a statement's visibility under
    /// the reduction), go to definition, references, completion and the
    /// outline of a model. An editor starts it; see the book's "Editors".
    #[command(after_help = "\
Examples:
  optimist lsp          started by an editor's LSP client (VS Code: editors/vscode)

Exit codes:
  0  the client shut the server down   2  the client broke the protocol")]
    Lsp(lsp::LspArgs),
}

/// One malloc arena per core, not glibc's eight. The search starts its
/// workers anew for every level, and a worker frees what others allocated
/// (a table shard regrown by whoever settles it, a pending set grown by
/// whoever found its state): with eight arenas a core, each new thread
/// takes a fresh arena that keeps the others' freed blocks, and the
/// resident set grew by a third with two threads. One arena for all
/// threads kept it down but made the workers queue on its lock wherever
/// expansions allocate (a stubborn search with two threads ran at 0.85x
/// the speed of one). An arena per core does neither (lock family N=10
/// K=3, two threads: 59 MB as with one arena; philosophers N=6 stubborn:
/// 0.87 s on two threads against 1.25 s on one).
fn arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let cores = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets a tunable of the allocator; it is
        // called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, cores);
        }
    }
}

fn main() -> ExitCode {
    arenas();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap uses 2 for usage errors already; help and version are not errors.
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    common::install_diagnostics(cli.color);
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
            Command::Completions { shell } => {
                let mut out = Vec::new();
                clap_complete::generate(shell, &mut Cli::command(), "optimist", &mut out);
                common::write_out(&String::from_utf8_lossy(&out));
                ExitCode::SUCCESS
            }
            Command::Man => {
                let mut out = Vec::new();
                match clap_mangen::Man::new(Cli::command()).render(&mut out) {
                    Ok(()) => {
                        common::write_out(&String::from_utf8_lossy(&out));
                        ExitCode::SUCCESS
                    }
                    Err(e) => common::refuse(&format!("cannot render the man page: {e}")),
                }
            }
            Command::Export(args) => export::run(args),
            Command::Graph(args) => graph::run(args),
            Command::Simulate(args) => simulate::run(args),
            Command::Replay(args) => replay::run(args),
            Command::Explore(args) => explore::run(args),
            Command::Lsp(args) => lsp::run(args),
        });
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        _ => ExitCode::from(101),
    }
}
