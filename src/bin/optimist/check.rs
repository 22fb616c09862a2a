//! `optimist check`: explore a model and report the verdict.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::LazyLock;

use optimist::{
    CheckReport, Cluster, Fairness, Ignoring, Interference, Kept, Options, Reduction, SymmetryUse,
};

use crate::common::{
    DeadlockArgs, Format, LimitArgs, ModelArgs, ModelsArgs, print, refuse, set_format,
};

/// Arguments of `optimist check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    models: ModelsArgs,
    /// Which state space to explore [default: sc, or none for a model
    /// whose `ltl` properties are checked: sc does not preserve them].
    #[arg(long, value_enum)]
    reduction: Option<ReductionArg>,
    /// Check only this `ltl` property (repeatable; default: all of them).
    #[arg(long, value_name = "NAME", conflicts_with = "no_ltl")]
    ltl: Vec<String>,
    /// Check safety only, not the model's `ltl` properties.
    #[arg(long)]
    no_ltl: bool,
    /// Which runs `ltl` properties are checked on: every run (none), runs
    /// where a thread that stays able to move eventually moves (weak), or
    /// where one able to move again and again eventually moves (strong).
    #[arg(long, value_enum, default_value_t = FairnessArg::Weak)]
    fairness: FairnessArg,
    /// What a reduced step does where a thread's run of private
    /// (invisible) steps can go on forever: cut it where it can no longer
    /// finish (commit point completion), cut it where it closes a loop,
    /// end the check inconclusive with the loop as its trace (the paper's
    /// hypothesis that such runs are finite), or cut it and schedule
    /// nothing (unsound, for measurement only).
    #[arg(long, value_enum, default_value_t = IgnoringArg::Cpc)]
    ignoring: IgnoringArg,
    /// How `stubborn` and `sc+stubborn` judge interference: footprints of
    /// whole transitions (static, the closest to Godefroid's conditional
    /// stubborn sets in the paper),
    /// footprints taken in the state, or those and then single threads
    /// checked against what the others can really do (semantic).
    #[arg(long, value_enum, default_value_t = InterferenceArg::Semantic)]
    interference: InterferenceArg,
    /// Store one state per orbit where threads are copies of one body that
    /// tell one another apart only by identity (symmetry reduction; Ip and
    /// Dill, 1996): `auto` where the model has such a symmetry and the
    /// question keeps it (`ltl` properties only without fairness, and
    /// only where no atom tells the copies apart), `on` the same but
    /// saying why where it cannot, `off` never.
    #[arg(long, value_enum, default_value_t = SymmetryArg::Auto)]
    symmetry: SymmetryArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    deadlock: DeadlockArgs,
    /// Show how many transactions (reduced steps) each labelled region of
    /// each thread is cut into (always in JSON).
    #[arg(long)]
    transactions: bool,
    /// Read each transaction off procedure summaries, computed once and
    /// reused across call sites and threads (Qadeer, Rajamani and Rehof, 2004); with `--reduction
    /// sc` or `movers`.
    #[arg(long)]
    summaries: bool,
    /// With `--summaries`: keep each thread's summaries its own, even
    /// where threads run the same code and could share them (to see what
    /// sharing saves).
    #[arg(long, requires = "summaries")]
    summaries_per_thread: bool,
    /// Also check the hypotheses of the reduction's theorem (as `optimist
    /// certify --reduction sc` or `movers`) and conclude for the original
    /// system.
    #[arg(long)]
    certify: bool,
    /// Worker threads of the search (default: the available cores). The
    /// output is the same for every number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Keep a 64-bit fingerprint of each state instead of the state: less
    /// memory for wide states, and a state may be missed (the report gives
    /// the probability; a `holds` is probabilistic).
    #[arg(long, conflicts_with = "bitstate")]
    hash_compact: bool,
    /// Keep only bits of each state in an array of 2^LOG2 bits (SPIN's
    /// supertrace; `--bitstate=LOG2`, default 2^30 bits, 128 MiB): the least memory, and states
    /// may be missed (the report gives the probability; a `holds` is
    /// probabilistic).
    #[arg(long, value_name = "LOG2", num_args = 0..=1, default_missing_value = "30",
          require_equals = true, value_parser = clap::value_parser!(u32).range(10..=40))]
    bitstate: Option<u32>,
    /// With `--bitstate`: bits set per state (SPIN's `-k`).
    #[arg(long, value_name = "K", default_value_t = 3, requires = "bitstate",
          value_parser = clap::value_parser!(u32).range(1..=16))]
    hash_functions: u32,
    /// Worker threads of this process in a run over several processes or
    /// machines (timely dataflow; default 1). The output is the same as
    /// one process's. See the book's "Distributed runs".
    #[arg(long, value_name = "N", conflicts_with = "threads", help_heading = "Distributed runs",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    workers: Option<u32>,
    /// Processes of the run (default: the lines of `--hostfile`, else 1).
    /// Without a host file they listen on localhost from port 2101.
    #[arg(long, value_name = "N", help_heading = "Distributed runs",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    processes: Option<u32>,
    /// This process's index, from 0. Process 0 prints the report; the
    /// others print nothing and exit with the same code.
    #[arg(long, value_name = "I", help_heading = "Distributed runs")]
    process: Option<u32>,
    /// A file naming every process's `host:port`, one per line, in process
    /// order (`#` starts a comment).
    #[arg(long, value_name = "FILE", help_heading = "Distributed runs")]
    hostfile: Option<PathBuf>,
    /// Seconds to wait for every process of the run to connect.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 60,
        help_heading = "Distributed runs"
    )]
    connect_timeout: u64,
    /// The run over several processes these flags describe.
    #[arg(skip)]
    cluster: Option<Cluster>,
    /// Show the progress line also when stderr is not a terminal (as a
    /// plain line every few seconds, for logs). Only `check` has one: the
    /// other commands' searches are small (graph, simulate) or report each
    /// step they take (refine, certify).
    #[arg(long)]
    progress: bool,
    /// Show where the search's time went: per level and per worker thread,
    /// the seconds spent expanding, storing, numbering and waiting, and
    /// the serial fraction of the run (also in JSON). Times vary from run
    /// to run; the verdict and counts do not.
    #[arg(long)]
    stats: bool,
}

/// A value of `--reduction`: one of the library's registered reductions,
/// with its name and help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReductionArg(pub(crate) Reduction);

impl ValueEnum for ReductionArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<ReductionArg>> =
            LazyLock::new(|| Reduction::all().iter().map(|&r| ReductionArg(r)).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.help()))
    }
}

/// The reduction when `--reduction` is not given: `sc`, or full
/// exploration where `ltl` properties are checked (`sc` does not preserve
/// them).
pub(crate) fn default_reduction(temporal: bool) -> Reduction {
    if temporal {
        Reduction::NONE
    } else {
        Reduction::SC
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FairnessArg {
    /// Every infinite run.
    None,
    /// A thread continuously able to move eventually moves (SPIN's `-f`).
    Weak,
    /// A thread able to move infinitely often moves infinitely often.
    Strong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SymmetryArg {
    /// Where the model has a symmetry and the question keeps it.
    Auto,
    /// As auto, and say why where it cannot be used.
    On,
    /// Store every state.
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum InterferenceArg {
    /// Every slot a transition or its checks may touch, whatever the state.
    Static,
    /// What a transition touches in the state: indices evaluated, `||` and
    /// `&&` read as far as they evaluate.
    State,
    /// `state`, then single threads checked against a bounded exploration
    /// of what the other threads can do.
    Semantic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum IgnoringArg {
    /// Commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005):
    /// schedule every thread only where a transaction cannot complete.
    Cpc,
    /// Cycle detection: end a transaction where its run closes a cycle.
    Cycles,
    /// End the check inconclusive at an endless run of private (invisible)
    /// steps, with the loop as its trace: the reduction does not apply.
    Forbid,
    /// Cut endless runs and schedule nothing: UNSOUND, a lower bound.
    Unsound,
}

impl IgnoringArg {
    /// The library's policy.
    pub(crate) fn ignoring(self) -> Ignoring {
        match self {
            IgnoringArg::Cpc => Ignoring::Cpc,
            IgnoringArg::Cycles => Ignoring::Cycles,
            IgnoringArg::Forbid => Ignoring::Forbid,
            IgnoringArg::Unsound => Ignoring::Unsound,
        }
    }
}

pub fn run(mut args: CheckArgs) -> ExitCode {
    set_format(args.format);
    args.cluster = match args.cluster() {
        Ok(c) => c,
        Err(e) => return refuse(&e),
    };
    args.limits.watch(args.format);
    if let Err(e) = optimist::validate(&args.options(false)) {
        return refuse(&e.to_string());
    }
    args.models.each(args.format, |model| one(&args, model))
}

impl CheckArgs {
    /// The library's options: what to explore, and how; `temporal` when
    /// `ltl` properties are to be checked.
    fn options(&self, temporal: bool) -> Options {
        Options {
            reduction: match self.reduction {
                Some(ReductionArg(r)) => r,
                None => default_reduction(temporal),
            },
            limits: self.limits.limits(),
            deadlock: self.deadlock.on(),
            ignoring: self.ignoring.ignoring(),
            summaries: self.summaries,
            summaries_per_thread: self.summaries_per_thread,
            interference: match self.interference {
                InterferenceArg::Static => Interference::Static,
                InterferenceArg::State => Interference::State,
                InterferenceArg::Semantic => Interference::Semantic,
            },
            threads: self.threads.map_or(0, |n| n as usize),
            // For tests only: blocks small enough that tiny models use every
            // worker (the output is the same for any block size that does not
            // stop at the state limit).
            block: std::env::var("OPTIMIST_BLOCK")
                .ok()
                .and_then(|b| b.parse().ok())
                .unwrap_or(0),
            kept: match (self.hash_compact, self.bitstate) {
                (_, Some(log2)) => Kept::Bitstate {
                    log2,
                    hashes: self.hash_functions,
                },
                (true, None) => Kept::HashCompact,
                (false, None) => Kept::Exact,
            },
            stats: self.stats,
            cluster: self.cluster.clone(),
            fingerprint: 0,
            symmetry: match self.symmetry {
                SymmetryArg::Auto => SymmetryUse::Auto,
                SymmetryArg::On => SymmetryUse::On,
                SymmetryArg::Off => SymmetryUse::Off,
            },
        }
    }

    /// The run over several processes the flags describe, if they describe
    /// one.
    fn cluster(&self) -> Result<Option<Cluster>, String> {
        if self.workers.is_none() && self.processes.is_none() && self.hostfile.is_none() {
            if self.process.is_some() {
                return Err("`--process` needs `--processes` or `--hostfile`".into());
            }
            return Ok(None);
        }
        let hosts = match &self.hostfile {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the host file {}: {e}", path.display()))?;
                let hosts: Vec<String> = text
                    .lines()
                    .map(|l| l.split('#').next().unwrap_or("").trim())
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect();
                if hosts.is_empty() {
                    return Err(format!("the host file {} names no process", path.display()));
                }
                if let Some(n) = self.processes
                    && n as usize != hosts.len()
                {
                    return Err(format!(
                        "`--processes {n}`, but the host file {} names {} process{}",
                        path.display(),
                        hosts.len(),
                        if hosts.len() == 1 { "" } else { "es" }
                    ));
                }
                hosts
            }
            None => match self.processes.unwrap_or(1) {
                1 => Vec::new(),
                n => Cluster::localhost(n as usize, 2101),
            },
        };
        let hosts = if hosts.len() == 1 { Vec::new() } else { hosts };
        let process = self.process.unwrap_or(0) as usize;
        let processes = hosts.len().max(1);
        if process >= processes {
            return Err(format!(
                "`--process {process}`, but the run has {processes} process{} (numbered from 0)",
                if processes == 1 { "" } else { "es" }
            ));
        }
        Ok(Some(Cluster {
            workers: self.workers.unwrap_or(1) as usize,
            process,
            hosts,
            connect_timeout: Duration::from_secs(self.connect_timeout),
        }))
    }
}

/// What a run checks, the same in every process of a run over several:
/// the model's text, the constants set on the command line, the options
/// but the process's own (its index, its limits of time and memory).
/// Workers per process are part of it: timely needs the same number in
/// every process.
fn fingerprint(text: &str, defines: &str, options: &Options) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut shared = options.clone();
    if let Some(c) = &mut shared.cluster {
        c.process = 0;
        c.connect_timeout = Duration::ZERO;
    }
    shared.limits.max_time = None;
    shared.limits.max_memory = None;
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    format!("{defines} {shared:?}").hash(&mut h);
    h.finish()
}

fn one(args: &CheckArgs, model: &ModelArgs) -> ExitCode {
    let defines = format!("{:?}", model.define);
    let (src, model) = match model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    crate::common::LimitArgs::disarm();
    let selected = match select(args, &model) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut options = args.options(!selected.is_empty());
    if options.cluster.is_some() {
        if !selected.is_empty() {
            return refuse(
                "temporal (`ltl`) properties are checked in one process; `--no-ltl` checks safety over several",
            );
        }
        if args.certify {
            return refuse("`--certify` runs in one process; check over several without it");
        }
        if args.stats {
            return refuse(
                "`--stats` profiles the search of one process (`--threads`); check over several without it",
            );
        }
        options.fingerprint = fingerprint(&src.text, &defines, &options);
    }
    let started = Instant::now();
    let mut progress = Progress::new(args.progress);
    let fairness = match args.fairness {
        FairnessArg::None => Fairness::None,
        FairnessArg::Weak => Fairness::Weak,
        FairnessArg::Strong => Fairness::Strong,
    };
    let ltl = optimist::LtlOptions {
        fairness,
        properties: selected.clone(),
    };
    // The safety check, then the temporal properties where it holds (the
    // library explores the states once for both where it can).
    let (outcome, temporal) = if selected.is_empty() {
        let o = optimist::check(&model, &options, &mut |s| progress.update(s));
        (o, None)
    } else {
        optimist::check_temporal(&model, &options, &ltl, &mut |s| progress.update(s))
    };
    progress.finish();
    let mut report = CheckReport::new(&model, &src.name, options.reduction, &outcome);
    report.show_transactions = args.transactions;
    if args.stats {
        report.stats = outcome.profile.as_ref().map(optimist::StatsReport::new);
    }
    if !selected.is_empty() {
        if args.reduction.is_none() {
            report.caveats.push(
                "reduction none, the default for `ltl` properties: `sc` does not preserve them"
                    .into(),
            );
        }
        report.with_ltl(match &temporal {
            Some(o) => optimist::LtlReport::new(&model, &selected, fairness, Some(o), None),
            None => {
                optimist::LtlReport::after_safety(&model, &selected, fairness, &outcome.verdict)
            }
        });
    }
    if args.certify {
        // The theorem of the reduction checked: movers (also under
        // `movers+stubborn`) rests on the movers theorem, `sc` (also under
        // `sc+stubborn`) on (19), and full exploration needs none (its
        // certificate is (19)'s); stubborn sets alone rest on neither.
        let reduction = match options.reduction.theorem() {
            Some(theorem) => theorem,
            None if options.reduction.is_full() => optimist::CertifyTheorem::Sc,
            None => {
                return refuse(
                    "`--certify` checks the theorems of the `sc` and `movers` transactions (also under `sc+stubborn` and `movers+stubborn`, the stubborn-set part uncertified); `--reduction stubborn` alone rests on the stubborn-set argument, which certify does not check",
                );
            }
        };
        // The certified theorem (19) covers fewer invariants than the check.
        if let Err(e) = optimist::check_certifiable(&src, &model, reduction) {
            return crate::common::not_covered_after(e, &report);
        }
        // The certificate takes the same memory limit, and what is left of
        // the time limit: `--max-time` bounds the whole command.
        let cert = optimist::certify(
            &model,
            &optimist::CertifyOptions {
                reduction,
                max_time: options
                    .limits
                    .max_time
                    .map(|t| t.saturating_sub(started.elapsed())),
                max_memory: options.limits.max_memory,
                ..optimist::CertifyOptions::default()
            },
        );
        let cert = optimist::CertifyReport::new(&model, &src.name, &cert);
        let both = optimist::CertifiedCheck::new(report, cert, &options);
        print(&both, args.format);
        return ExitCode::from(both.exit_code());
    }
    // In a run over several processes, process 0 speaks for all; the
    // others say on stderr how the run ended, for the cluster's logs.
    match &options.cluster {
        Some(c) if c.process > 0 => crate::common::write_err(&format!(
            "process {} of {}: {}\n",
            c.process,
            c.processes(),
            report.verdict_line()
        )),
        _ => print(&report, args.format),
    }
    ExitCode::from(report.exit_code())
}

/// The `ltl` properties to check: those `--ltl` names (each must exist),
/// all of them, or none with `--no-ltl`.
fn select(args: &CheckArgs, model: &optimist::Model) -> Result<Vec<usize>, ExitCode> {
    if args.no_ltl {
        return Ok(Vec::new());
    }
    if args.ltl.is_empty() {
        return Ok((0..model.ltl.len()).collect());
    }
    let mut out = Vec::new();
    for name in &args.ltl {
        match model.ltl.iter().position(|p| &p.name == name) {
            Some(k) if !out.contains(&k) => out.push(k),
            Some(_) => {}
            None => {
                let names: Vec<&str> = model.ltl.iter().map(|p| p.name.as_str()).collect();
                let known = if names.is_empty() {
                    "the model declares no `ltl` property".to_string()
                } else {
                    format!("its properties are: {}", names.join(", "))
                };
                return Err(refuse(&format!(
                    "`--ltl {name}`: {} has no property of that name; {known}",
                    model.name
                )));
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// The progress line on stderr: a spinner on a terminal once a run has
/// lasted a second; with `--progress` elsewhere, a plain line at the first
/// report and then every few seconds. stdout stays deterministic.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    terminal: bool,
    forced: bool,
    /// When the last plain line was written.
    logged: Option<Instant>,
}

/// How often `--progress` writes a line into a log.
const LOG_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    fn new(forced: bool) -> Progress {
        Progress {
            bar: None,
            start: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            forced,
            logged: None,
        }
    }

    fn update(&mut self, s: &optimist::Stats) {
        // A spinner only once a run has lasted a second; a log gets its
        // first line at the first report (every 65,536 states).
        if !(self.terminal || self.forced)
            || (self.terminal && self.start.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        let rate = s.states as f64 / s.elapsed.as_secs_f64().max(1e-9);
        let line = format!(
            "{} states, {} transitions, depth {}, {:.0} states/s, {:.0} MB",
            s.states,
            s.transitions,
            s.depth,
            rate,
            s.memory as f64 / (1 << 20) as f64
        );
        if !self.terminal {
            if self.logged.is_none_or(|t| t.elapsed() >= LOG_EVERY) {
                self.logged = Some(Instant::now());
                crate::common::write_err(&format!("progress: {line}\n"));
            }
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        bar.set_message(line);
    }

    fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
