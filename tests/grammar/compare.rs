//! Every mode and option combination against full exploration, on one
//! generated system, and the tally of many systems (the coverage table).

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use optimist::{
    CompileOptions, Ignoring, Interference, Kept, Kind, Limits, Model, Options, Outcome, Problem,
    Reduction, Source, Step, StepResult, Verdict, compile_with,
};

use super::ast::{self, System};
use super::cover::{self, Feature};
use super::generator::{Rng, system};
use super::shrink;

/// Most states stored per check: above it a comparison is skipped.
pub const MAX_STATES: u64 = 20_000;

/// The stack bound the systems are compiled with (`--max-stack`).
pub const MAX_STACK: u32 = 4;

/// The columns of the coverage table: the reductions.
pub const COLUMNS: [&str; 8] = [
    "sc",
    "movers",
    "stubborn",
    "sc+stubborn",
    "movers+stubborn",
    "summaries sc",
    "summaries movers",
    "symmetry",
];

/// One way of running the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub reduction: Reduction,
    pub ignoring: Ignoring,
    pub interference: Interference,
    pub summaries: bool,
    pub per_thread: bool,
    pub deadlock: bool,
    pub kept: Kept,
    pub threads: usize,
    /// Over the orbits of the system's symmetry (`--symmetry on`).
    pub symmetry: bool,
}

impl Config {
    fn base(reduction: Reduction) -> Config {
        Config {
            reduction,
            ignoring: Ignoring::Cpc,
            interference: Interference::Semantic,
            summaries: false,
            per_thread: false,
            deadlock: false,
            kept: Kept::Exact,
            threads: 1,
            symmetry: false,
        }
    }

    /// Its column in the coverage table.
    pub fn column(&self) -> usize {
        match (self.reduction.name(), self.summaries) {
            _ if self.symmetry => 7,
            ("sc", true) => 5,
            ("movers", true) => 6,
            ("sc", _) => 0,
            ("movers", _) => 1,
            ("stubborn", _) => 2,
            ("sc+stubborn", _) => 3,
            ("movers+stubborn", _) => 4,
            (name, _) => unreachable!("{name}: full exploration is the reference"),
        }
    }

    /// Its column's name ("full" for full exploration itself).
    pub fn column_name(&self) -> &'static str {
        if self.reduction.is_full() && !self.symmetry {
            "full"
        } else {
            COLUMNS[self.column()]
        }
    }

    fn transactions(&self) -> bool {
        self.reduction.theorem().is_some()
    }

    fn stubborn(&self) -> bool {
        self.reduction.stubborn()
    }

    pub fn movers(&self) -> bool {
        self.reduction.theorem() == Some(optimist::CertifyTheorem::Movers)
    }

    /// The command-line flags that run it.
    pub fn flags(&self) -> String {
        let mut s = format!("--reduction {}", self.reduction.name());
        if self.transactions() {
            s += &format!(" --ignoring {}", self.ignoring.name());
        }
        if self.stubborn() {
            s += &format!(" --interference {}", self.interference.name());
        }
        if self.summaries {
            s += " --summaries";
            if self.per_thread {
                s += " --summaries-per-thread";
            }
        }
        if self.deadlock {
            s += " --deadlock";
        }
        match self.kept {
            Kept::Exact => {}
            Kept::HashCompact => s += " --hash-compact",
            Kept::Bitstate { log2, hashes } => s += &format!(" --bitstate {log2}:{hashes}"),
        }
        if self.threads != 1 {
            s += &format!(" --threads {}", self.threads);
        }
        if self.symmetry {
            s += " --symmetry on";
        }
        s
    }

    fn options(&self) -> Options {
        Options {
            reduction: self.reduction,
            limits: Limits {
                max_states: Some(MAX_STATES),
                max_time: Some(Duration::from_secs(60)),
                max_memory: None,
            },
            deadlock: self.deadlock,
            ignoring: self.ignoring,
            summaries: self.summaries,
            summaries_per_thread: self.per_thread,
            interference: self.interference,
            threads: self.threads,
            // Blocks of one state: two workers share even tiny levels.
            block: if self.threads > 1 { 1 } else { 0 },
            kept: self.kept,
            stats: false,
            cluster: None,
            fingerprint: 0,
            symmetry: match self.symmetry {
                true => optimist::SymmetryUse::On,
                false => optimist::SymmetryUse::Off,
            },
        }
    }
}

/// Every base combination, per column: the ways of handling loops
/// (transactions), of judging interference (stubborn sets), shared or
/// per-thread summaries, with and without `--deadlock` (not under movers,
/// which do not preserve deadlocks).
pub fn base_configs() -> Vec<Vec<Config>> {
    let ignorings = [Ignoring::Cpc, Ignoring::Cycles, Ignoring::Forbid];
    let interferences = [
        Interference::Static,
        Interference::State,
        Interference::Semantic,
    ];
    let mut cols: Vec<Vec<Config>> = vec![vec![]; COLUMNS.len()];
    for deadlock in [false, true] {
        for ignoring in ignorings {
            cols[0].push(Config {
                ignoring,
                deadlock,
                ..Config::base(Reduction::SC)
            });
            if !deadlock {
                cols[1].push(Config {
                    ignoring,
                    ..Config::base(Reduction::MOVERS)
                });
            }
        }
        for interference in interferences {
            cols[2].push(Config {
                interference,
                deadlock,
                ..Config::base(Reduction::STUBBORN)
            });
            for ignoring in ignorings {
                cols[3].push(Config {
                    interference,
                    ignoring,
                    deadlock,
                    ..Config::base(Reduction::SC_STUBBORN)
                });
                if !deadlock {
                    cols[4].push(Config {
                        interference,
                        ignoring,
                        ..Config::base(Reduction::MOVERS_STUBBORN)
                    });
                }
            }
        }
        for per_thread in [false, true] {
            cols[5].push(Config {
                summaries: true,
                per_thread,
                deadlock,
                ..Config::base(Reduction::SC)
            });
            if !deadlock {
                cols[6].push(Config {
                    summaries: true,
                    per_thread,
                    ..Config::base(Reduction::MOVERS)
                });
            }
        }
    }
    // Symmetry, over full exploration and every reduction.
    let over: Vec<Config> = std::iter::once(Config::base(Reduction::NONE))
        .chain(cols.iter().take(7).map(|c| c[0]))
        .flat_map(|c| {
            let mut d = Config {
                deadlock: true,
                ..c
            };
            // Movers do not preserve deadlocks.
            if c.movers() {
                d = c;
            }
            [c, d]
        })
        .map(|c| Config {
            symmetry: true,
            ..c
        })
        .collect();
    cols[7] = over;
    cols[7].dedup();
    cols
}

/// Every configuration a system may run, full exploration first: the
/// numbering the soak's child processes use.
pub fn all_configs() -> Vec<Config> {
    let mut out = vec![
        Config::base(Reduction::NONE),
        Config {
            deadlock: true,
            ..Config::base(Reduction::NONE)
        },
    ];
    for c in base_configs().into_iter().flatten() {
        for kept in [
            Kept::Exact,
            Kept::HashCompact,
            Kept::Bitstate {
                log2: 20,
                hashes: 3,
            },
        ] {
            for threads in [1, 2] {
                out.push(Config { kept, threads, ..c });
            }
        }
    }
    out
}

pub fn config_index(c: &Config) -> usize {
    all_configs()
        .iter()
        .position(|x| x == c)
        .expect("a configuration of all_configs()")
}

/// What one comparison concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seen {
    Holds,
    Violated,
    /// The reduction refused the model: `DoesNotApply`, an invariant the
    /// reduction cannot check (the command line refuses it), or a loop
    /// reported under `--ignoring forbid`.
    Refused,
    /// Inconclusive (a limit) on either side.
    Skipped,
}

/// The kind of a disagreement, which shrinking preserves.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wrong {
    /// Full exploration finds a violation (of this kind), the reduction
    /// says holds.
    Missed(&'static str),
    /// The reduction reports a violation (not of well-formedness) where
    /// full exploration finds none.
    FalseViolation,
    /// A well-formedness violation where full exploration finds none
    /// (the problem's name).
    FalseWellFormedness(&'static str),
    /// A counterexample that does not replay in the full semantics:
    /// "fault-elsewhere" when its last step faults, but not where the
    /// checker said; "path" when it goes astray before.
    NoReplay(&'static str),
    /// The full counterexample does not replay.
    FullNoReplay,
    /// More states than full exploration.
    MoreStates,
    /// Two workers give another outcome than one.
    Threads,
    /// The checker panicked.
    Panic,
    /// The run ended with an internal error (a check of the library's own
    /// results failed): no wrong verdict, but a bug.
    Internal,
    /// The process died (a stack overflow, memory exhausted, a hang):
    /// found by the soak example, which runs systems in child processes.
    Crash,
}

const KINDS: [&str; 6] = [
    "discipline",
    "assertion",
    "invariant",
    "range",
    "well-formedness",
    "deadlock",
];

const PROBLEMS: [&str; 8] = [
    "Fault",
    "Overlap",
    "ExclFault",
    "Invariant",
    "Deadlock",
    "InvisibleCycle",
    "GiveExcl",
    "EndExcl",
];

impl Wrong {
    /// A short code, for the soak's child processes.
    pub fn code(&self) -> String {
        match self {
            Wrong::Missed(k) => format!("missed:{k}"),
            Wrong::FalseViolation => "false-violation".into(),
            Wrong::FalseWellFormedness(p) => format!("false-wf:{p}"),
            Wrong::NoReplay(t) => format!("no-replay:{t}"),
            Wrong::FullNoReplay => "full-no-replay".into(),
            Wrong::MoreStates => "more-states".into(),
            Wrong::Threads => "threads".into(),
            Wrong::Panic => "panic".into(),
            Wrong::Internal => "internal".into(),
            Wrong::Crash => "crash".into(),
        }
    }

    pub fn from_code(s: &str) -> Option<Wrong> {
        Some(match s {
            "false-violation" => Wrong::FalseViolation,

            "full-no-replay" => Wrong::FullNoReplay,
            "more-states" => Wrong::MoreStates,
            "threads" => Wrong::Threads,
            "panic" => Wrong::Panic,
            "internal" => Wrong::Internal,
            "crash" => Wrong::Crash,
            _ => {
                if let Some(k) = s.strip_prefix("missed:") {
                    return Some(Wrong::Missed(KINDS.iter().find(|q| **q == k)?));
                }
                if let Some(t) = s.strip_prefix("no-replay:") {
                    let tags = ["fault-elsewhere", "path"];
                    return Some(Wrong::NoReplay(tags.iter().find(|q| **q == t)?));
                }
                let p = s.strip_prefix("false-wf:")?;
                Wrong::FalseWellFormedness(PROBLEMS.iter().find(|q| **q == p)?)
            }
        })
    }

    pub fn name(&self) -> String {
        match self {
            Wrong::Missed(k) => format!("misses a violation ({k})"),
            Wrong::FalseViolation => "reports a violation full exploration does not reach".into(),
            Wrong::FalseWellFormedness(p) => format!("false well-formedness alarm ({p})"),
            Wrong::NoReplay("path") => "counterexample does not replay".into(),
            Wrong::NoReplay(_) => {
                "counterexample does not replay: its last step faults elsewhere".into()
            }
            Wrong::FullNoReplay => "full counterexample does not replay".into(),
            Wrong::MoreStates => "stores more states than full".into(),
            Wrong::Threads => "--threads 2 differs from --threads 1".into(),
            Wrong::Panic => "panics".into(),
            Wrong::Internal => "ends with an internal error".into(),
            Wrong::Crash => "crashes the process".into(),
        }
    }
}

/// A disagreement on one system.
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub system: u64,
    pub config: Config,
    pub wrong: Wrong,
    /// In words, with both outcomes.
    pub detail: String,
    /// The matching entry of [`KNOWN_OPEN`], if any.
    pub known: Option<&'static str>,
    pub text: String,
    /// The shrunk model and the file it was written to.
    pub shrunk: Option<(String, String)>,
}

/// What the known bugs are matched against.
#[derive(Clone)]
pub struct Facts {
    features: BTreeSet<Feature>,
    /// A procedure reads `self` or `index` (in its code or its locals'
    /// initial values).
    proc_identity: bool,
    /// For a disagreement of shared summaries: whether per-thread
    /// summaries agree with full exploration there.
    per_thread_agrees: Option<bool>,
}

impl Facts {
    pub fn of(sys: &System) -> Facts {
        Facts {
            features: cover::features(sys),
            proc_identity: shrink::procs_read_identity(sys),
            per_thread_agrees: None,
        }
    }

    /// The facts of a disagreement under `c`: for shared summaries, whether
    /// per-thread summaries disagree too.
    fn under(&self, model: &Model, full: &Outcome, c: &Config) -> Facts {
        let mut f = self.clone();
        if c.summaries && !c.per_thread {
            let per = Config {
                per_thread: true,
                ..*c
            };
            f.per_thread_agrees = Some(compare(model, full, &per).2.is_none());
        }
        f
    }

    /// An `either` and procedures.
    fn either_and_calls(&self) -> bool {
        self.features.iter().any(|(c, _)| *c == "either")
            && self.features.iter().any(|(c, _)| *c == "proc")
    }

    /// A control point read by `at()` in thread code or an invariant.
    fn reads_pc(&self) -> bool {
        self.features.iter().any(|(c, p)| {
            *c == "at()"
                && matches!(
                    *p,
                    "guard" | "assert" | "cond" | "assign" | "call-arg" | "return" | "invariant"
                )
        })
    }

    /// A lock read as a value by thread code or an invariant (not by an
    /// exclusive access predicate or a lock operation).
    fn reads_lock(&self) -> bool {
        self.features.iter().any(|(c, p)| {
            matches!(*c, "lock" | "lock[i]")
                && matches!(
                    *p,
                    "guard" | "assert" | "cond" | "assign" | "call-arg" | "return" | "invariant"
                )
        })
    }
}

/// A bug found by this generator and being fixed elsewhere: its
/// disagreements are reported but do not fail the test. Empty this list
/// as the fixes land; keep each entry precise (the modes and the kind of
/// disagreement), so that anything else still fails.
pub struct KnownOpen {
    pub name: &'static str,
    pub description: &'static str,
    pub matches: fn(&Config, &Wrong, &Facts) -> bool,
}

pub const KNOWN_OPEN: &[KnownOpen] = &[];

fn problem_name(p: &Problem) -> &'static str {
    match p {
        Problem::Fault(_) => "Fault",
        Problem::Overlap { .. } => "Overlap",
        Problem::ExclFault(_) => "ExclFault",
        Problem::Invariant(_) => "Invariant",
        Problem::Deadlock => "Deadlock",
        Problem::InvisibleCycle { .. } => "InvisibleCycle",
        Problem::EndExcl { .. } => "EndExcl",
    }
}

pub fn describe(o: &Outcome) -> String {
    match (&o.verdict, &o.violation) {
        (_, Some(v)) => format!(
            "violated ({}, {}, {} states)",
            v.kind().name(),
            problem_name(&v.problem),
            o.stats.states
        ),
        (Verdict::Holds, None) => format!("holds ({} states)", o.stats.states),
        (Verdict::Inconclusive(l), None) => format!("inconclusive ({l})"),
        (Verdict::DoesNotApply(why), None) => format!("refused ({why})"),
        (Verdict::Violated, None) => "violated (no violation?)".into(),
    }
}

/// Compiles a generated system.
pub fn compile(text: &str) -> Result<Model, String> {
    let src = Source::new("generated.gc", text).map_err(|e| e.to_string())?;
    compile_with(
        &src,
        &[],
        &CompileOptions {
            max_stack: MAX_STACK,
        },
    )
    .map_err(|e| format!("{e:?}"))
}

/// Whether the reductions with transactions accept the invariants (the
/// command line refuses the model otherwise).

fn run(model: &Model, c: &Config) -> Result<Outcome, String> {
    let options = c.options();
    catch_unwind(AssertUnwindSafe(|| {
        optimist::check(model, &options, &mut |_| {})
    }))
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

fn conclusive(o: &Outcome) -> bool {
    matches!(o.verdict, Verdict::Holds | Verdict::Violated)
}

/// Compares one configuration with full exploration (`full`, run with the
/// same `--deadlock`). Returns what it concluded, or the disagreement.
pub fn compare(
    model: &Model,
    full: &Outcome,
    c: &Config,
) -> (Seen, Option<Outcome>, Option<(Wrong, String)>) {
    let red = match run(model, c) {
        Ok(o) => o,
        Err(p) => return (Seen::Skipped, None, Some((Wrong::Panic, p))),
    };
    let both = || format!("full: {}; reduced: {}", describe(full), describe(&red));
    let seen = |o: &Outcome| match o.verdict {
        Verdict::Holds => Seen::Holds,
        _ => Seen::Violated,
    };
    if let Verdict::DoesNotApply(_) = red.verdict {
        return (Seen::Refused, Some(red), None);
    }
    if let Verdict::Inconclusive(optimist::Limit::Internal(why)) = red.verdict {
        let d = format!("{}: {why}", both());
        return (Seen::Skipped, Some(red), Some((Wrong::Internal, d)));
    }
    if !conclusive(full) || !conclusive(&red) {
        return (Seen::Skipped, Some(red), None);
    }
    if let Some(v) = &red.violation {
        if c.ignoring == Ignoring::Forbid
            && c.transactions()
            && matches!(v.problem, Problem::InvisibleCycle { .. })
        {
            return (Seen::Refused, Some(red.clone()), None);
        }
        // Where full exploration holds, a reported violation is a false
        // alarm (and its trace cannot replay to a violation).
        if full.verdict == Verdict::Holds {
            let w = if v.kind() == Kind::WellFormedness && !v.initial {
                Wrong::FalseWellFormedness(problem_name(&v.problem))
            } else {
                Wrong::FalseViolation
            };
            let d = both();
            return (Seen::Holds, Some(red), Some((w, d)));
        }
        if let Err(e) = replays(model, &v.trace, &v.problem) {
            let tag = if e.starts_with("replay ends in") {
                "fault-elsewhere"
            } else {
                "path"
            };
            let d = format!("{}: {e}", both());
            return (seen(full), Some(red), Some((Wrong::NoReplay(tag), d)));
        }
        return (Seen::Violated, Some(red), None);
    }
    if let Some(v) = &full.violation {
        let d = both();
        let w = Wrong::Missed(v.kind().name());
        return (Seen::Violated, Some(red), Some((w, d)));
    }
    if red.stats.states > full.stats.states {
        let d = both();
        return (Seen::Holds, Some(red), Some((Wrong::MoreStates, d)));
    }
    (Seen::Holds, Some(red), None)
}

/// Whether two runs printed the same thing (all but time and memory).
fn same_output(a: &Outcome, b: &Outcome) -> bool {
    a.verdict == b.verdict
        && a.violation == b.violation
        && a.stats.states == b.stats.states
        && a.stats.transitions == b.stats.transitions
        && a.stats.fired == b.stats.fired
        && a.stats.depth == b.stats.depth
        && a.stats.deadlocks == b.stats.deadlocks
        && a.stats.forced == b.stats.forced
}

/// Replays a trace in the full semantics (`differential2.rs`'s `replays`,
/// here for the soak example, which cannot reach the integration tests;
/// a violation of the initial state is checked against
/// `optimist::initial_problem`):
/// every transition but the last completes and yields the recorded state;
/// the last yields the reported problem (for a deadlock, a state where no
/// thread can move; for a lasso, the state it started from).
pub fn replays(model: &Model, trace: &[Step], problem: &Problem) -> Result<(), String> {
    let mut s = model.init.clone();
    let mut out = Vec::new();
    let ends_in_state = matches!(
        problem,
        Problem::Deadlock | Problem::InvisibleCycle { .. } | Problem::EndExcl { .. }
    );
    for (n, st) in trace.iter().enumerate() {
        let tr = &model.transitions[st.transition];
        if tr.from != s[tr.thread as usize] {
            return Err(format!(
                "step {}: thread {} is not at the transition's point",
                n + 1,
                tr.thread
            ));
        }
        let last = n + 1 == trace.len();
        match optimist::step(model, st.transition, &s, &mut out) {
            StepResult::Disabled => return Err(format!("step {}: disabled", n + 1)),
            StepResult::Ok if !last || ends_in_state => {
                if st.state.as_deref() != Some(out.as_slice()) {
                    return Err(format!("step {}: a different state", n + 1));
                }
                s.clone_from(&out);
            }
            StepResult::Ok => return Err(format!("step {}: no violation at the end", n + 1)),
            StepResult::Bad(p) if last && !ends_in_state => {
                if &p != problem {
                    return Err(format!(
                        "replay ends in {p:?}, the checker said {problem:?}"
                    ));
                }
            }
            StepResult::Bad(p) => return Err(format!("step {}: unexpected {p:?}", n + 1)),
        }
    }
    match problem {
        Problem::Deadlock => {
            let moves = (0..model.transitions.len()).any(|k| {
                let tr = &model.transitions[k];
                tr.from == s[tr.thread as usize]
                    && !matches!(optimist::step(model, k, &s, &mut out), StepResult::Disabled)
            });
            let ended = model
                .threads
                .iter()
                .enumerate()
                .all(|(t, th)| s[t] == th.end());
            if moves || ended {
                return Err("the trace does not end in a deadlock".into());
            }
        }
        Problem::InvisibleCycle { length, .. } => {
            let start = trace
                .len()
                .checked_sub(*length)
                .ok_or("a lasso longer than its trace")?;
            let before = if start == 0 {
                model.init.clone()
            } else {
                trace[start - 1]
                    .state
                    .clone()
                    .ok_or("a lasso through a failed step")?
            };
            if trace.last().and_then(|s| s.state.as_ref()) != Some(&before) {
                return Err("the lasso does not close".into());
            }
        }
        // A violation of the initial state itself (two owners, a predicate
        // or an invariant that faults or is false there).
        _ if trace.is_empty() && optimist::initial_problem(model).as_ref() != Some(problem) => {
            return Err(format!("{problem:?} with an empty trace"));
        }
        Problem::Invariant(_) => {}
        _ => {}
    }
    Ok(())
}

/// The rows of the options table: every base combination, and per column
/// the other stores and two workers.
pub fn option_rows() -> Vec<Config> {
    let mut rows: Vec<Config> = base_configs().into_iter().flatten().collect();
    for col in base_configs() {
        let c = col[0];
        rows.push(Config {
            kept: Kept::HashCompact,
            ..c
        });
        rows.push(Config {
            kept: Kept::Bitstate {
                log2: 20,
                hashes: 3,
            },
            ..c
        });
        rows.push(Config { threads: 2, ..c });
    }
    rows
}

/// The option row a configuration is counted in.
fn option_row(c: &Config) -> Config {
    match (c.kept, c.threads) {
        (Kept::Exact, 1) => *c,
        _ => {
            let first = base_configs()[c.column()][0];
            Config {
                kept: c.kept,
                threads: c.threads,
                ..first
            }
        }
    }
}

/// The configurations system `k` runs: one per column, rotating through
/// the column's combinations; another store on every system and
/// two workers on every third, on rotating columns.
pub fn configs_for(k: u64) -> Vec<Config> {
    let cols = base_configs();
    let mut out = vec![];
    for (j, col) in cols.iter().enumerate() {
        let i = (k as usize + j * 5) % col.len();
        out.push(col[i]);
    }
    let n = cols.len();
    // Another store, on a rotating column.
    let mut c = out[(k as usize) % n];
    c.kept = if k % 3 == 2 {
        Kept::Bitstate {
            log2: 20,
            hashes: 3,
        }
    } else {
        Kept::HashCompact
    };
    out.push(c);
    if k.is_multiple_of(3) {
        let mut c = out[(k as usize / 3) % n];
        c.threads = 2;
        out.push(c);
    }
    out
}

/// The outcome of one system.
#[derive(Clone, Debug, Default)]
pub struct SystemResult {
    pub index: u64,
    pub text: String,
    pub compile_error: Option<String>,
    pub features: BTreeSet<Feature>,
    /// (configuration, conclusion).
    pub runs: Vec<(Config, Seen)>,
    pub disagreements: Vec<Disagreement>,
    /// Full exploration's verdicts: holds, violated, inconclusive.
    pub full: [u32; 3],
    /// The kinds of full exploration's violations.
    pub full_kinds: Vec<&'static str>,
    /// Whether a run under `--symmetry on` found a symmetry to use.
    pub symmetric: bool,
}

/// Generates system `k` of `seed` and compares every configuration it
/// runs with full exploration.
pub fn check_system(seed: u64, k: u64) -> SystemResult {
    let sys = system(&mut Rng::for_system(seed, k));
    let text = ast::print(&sys);
    let mut res = SystemResult {
        index: k,
        text: text.clone(),
        ..SystemResult::default()
    };
    let model = match compile(&text) {
        Ok(m) => m,
        Err(e) => {
            res.compile_error = Some(e);
            return res;
        }
    };
    res.features = cover::features(&sys);
    let facts = Facts::of(&sys);
    let mut fulls: [Option<Outcome>; 2] = [None, None];
    let mut singles: Vec<(Config, Outcome)> = vec![];
    for c in configs_for(k) {
        let d = usize::from(c.deadlock);
        if fulls[d].is_none() {
            let fc = Config {
                deadlock: c.deadlock,
                ..Config::base(Reduction::NONE)
            };
            let full = match run(&model, &fc) {
                Ok(o) => o,
                Err(p) => {
                    res.disagreements.push(Disagreement {
                        system: k,
                        config: fc,
                        wrong: Wrong::Panic,
                        detail: format!("full exploration panics: {p}"),
                        known: None,
                        text: text.clone(),
                        shrunk: None,
                    });
                    return res;
                }
            };
            res.full[match full.verdict {
                Verdict::Holds => 0,
                Verdict::Violated => 1,
                _ => 2,
            }] += 1;
            if let Some(v) = &full.violation {
                res.full_kinds.push(v.kind().name());
                if let Err(e) = replays(&model, &v.trace, &v.problem) {
                    res.disagreements.push(Disagreement {
                        system: k,
                        config: fc,
                        wrong: Wrong::FullNoReplay,
                        detail: format!("{}: {e}", describe(&full)),
                        known: None,
                        text: text.clone(),
                        shrunk: None,
                    });
                }
            }
            fulls[d] = Some(full);
        }
        let full = fulls[d].as_ref().unwrap();
        let (seen, red, wrong) = compare(&model, full, &c);
        let mut wrong = wrong;
        if c.threads > 1 && wrong.is_none() {
            let one = Config { threads: 1, ..c };
            let single = match singles.iter().find(|(s, _)| *s == one) {
                Some((_, o)) => Ok(o.clone()),
                None => run(&model, &one),
            };
            if let (Ok(single), Some(red)) = (single, &red)
                && conclusive(&single)
                && conclusive(red)
                && !same_output(&single, red)
            {
                wrong = Some((
                    Wrong::Threads,
                    format!(
                        "--threads 1: {}; --threads 2: {}",
                        describe(&single),
                        describe(red)
                    ),
                ));
            }
        }
        res.symmetric |= red.as_ref().is_some_and(|o| o.symmetry.is_some());
        if let Some(red) = red
            && c.threads == 1
        {
            singles.push((c, red));
        }
        res.runs.push((c, seen));
        if let Some((w, detail)) = wrong {
            let known = known(&c, &w, &facts.under(&model, full, &c));
            res.disagreements.push(Disagreement {
                system: k,
                config: c,
                wrong: w,
                detail,
                known,
                text: text.clone(),
                shrunk: None,
            });
        }
    }
    res
}

/// The known open bug a disagreement is an instance of.
pub fn known(c: &Config, w: &Wrong, facts: &Facts) -> Option<&'static str> {
    KNOWN_OPEN
        .iter()
        .find(|kn| (kn.matches)(c, w, facts))
        .map(|kn| kn.name)
}

/// Whether `sys` still shows disagreement `w` under `c`, as an instance of
/// the same known open bug (or of none): shrinking keeps the bug.
pub fn still_wrong(sys: &System, c: &Config, w: &Wrong, was: Option<&str>) -> bool {
    let facts = Facts::of(sys);
    still_wrong_text(&ast::print(sys), c, w, &mut |model, full| {
        known(c, w, &facts.under(model, full, c)) == was
    })
}

/// Whether `text` still shows disagreement `w` under `c`, and `same`
/// (which sees the model and full exploration's outcome) agrees.
pub fn still_wrong_text(
    text: &str,
    c: &Config,
    w: &Wrong,
    same: &mut dyn FnMut(&Model, &Outcome) -> bool,
) -> bool {
    let Ok(model) = compile(text) else {
        return false;
    };
    let fc = Config {
        deadlock: c.deadlock,
        ..Config::base(Reduction::NONE)
    };
    let Ok(full) = run(&model, &fc) else {
        return *w == Wrong::Panic;
    };
    if *w == Wrong::FullNoReplay {
        return full
            .violation
            .as_ref()
            .is_some_and(|v| replays(&model, &v.trace, &v.problem).is_err());
    }
    if !same(&model, &full) {
        return false;
    }
    let (_, red, wrong) = compare(&model, &full, c);
    match (w, wrong) {
        (Wrong::Threads, None) => {
            let Some(red) = red else { return false };
            let Ok(single) = run(&model, &Config { threads: 1, ..*c }) else {
                return false;
            };
            conclusive(&single) && conclusive(&red) && !same_output(&single, &red)
        }
        (w, Some((w2, _))) => *w == w2,
        _ => false,
    }
}

/// The shrunk model of a disagreement, written to
/// `tests/integration/inputs/soundness/pending/grammar-<hash>.gc`.
pub fn shrink_and_keep(seed: u64, d: &mut Disagreement, budget: Duration) {
    let (c, w, was) = (d.config, d.wrong.clone(), d.known);
    shrink_and_keep_with(seed, d, budget, &mut |s| still_wrong(s, &c, &w, was));
}

/// [`shrink_and_keep`] with the test that the disagreement persists (for
/// a crash, run in another process).
pub fn shrink_and_keep_with(
    seed: u64,
    d: &mut Disagreement,
    budget: Duration,
    still: &mut dyn FnMut(&System) -> bool,
) {
    let sys = system(&mut Rng::for_system(seed, d.system));
    let (c, w) = (d.config, d.wrong.clone());
    let small = shrink::shrink(&sys, budget, still);
    let text = ast::print(&small);
    // A crash is not run again here (it would end this process), unless
    // full exploration alone gives the expectation.
    let crash = w == Wrong::Crash;
    let model = compile(&text)
        .ok()
        .filter(|_| !crash || c.reduction != Reduction::NONE);
    let fc = Config {
        deadlock: c.deadlock,
        ..Config::base(Reduction::NONE)
    };
    let (expect, detail) = match model.as_ref().map(|m| (m, run(m, &fc))) {
        Some((m, Ok(full))) => {
            let expect = match &full.violation {
                Some(v) => format!("violated {}, full {}", v.kind().name(), full.stats.states),
                None => format!("holds, full {}", full.stats.states),
            };
            let detail = match crash {
                true => d.detail.clone(),
                false => compare(m, &full, &c)
                    .2
                    .map_or_else(|| d.detail.clone(), |(_, why)| why),
            };
            (expect, detail)
        }
        _ => ("FILL IN".to_string(), d.detail.clone()),
    };
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/inputs/soundness/pending");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("grammar-{:08x}.gc", hash as u32));
    let known = d
        .known
        .map(|k| format!("// Known open bug: {k} (KNOWN_OPEN in tests/grammar/compare.rs).\n"))
        .unwrap_or_default();
    let body = format!(
        "// Found by the grammar-driven generator (tests/grammar): seed {seed}, system {}, shrunk.\n\
         // Disagrees: `optimist check --max-stack {MAX_STACK} {}`: {}.\n\
         // {detail}\n{known}\
         // Add the reduced state count once the library is fixed.\n//\n\
         // expect: {expect}\n\n{text}",
        d.system,
        c.flags(),
        w.name(),
    );
    // The same shrunk model from another mode: name that mode too.
    let body = match std::fs::read_to_string(&path) {
        Ok(old) if old.ends_with(&text) => {
            let also = format!("// Also disagrees: `{}`: {}.\n", c.flags(), w.name());
            if old.contains(&also) {
                old
            } else {
                let first = old.find('\n').map_or(0, |k| k + 1);
                format!("{}{also}{}", &old[..first], &old[first..])
            }
        }
        _ => body,
    };
    let _ = std::fs::write(&path, body);
    d.shrunk = Some((text, path.display().to_string()));
}

/// The tally of many systems.
#[derive(Default)]
pub struct Tally {
    pub systems: u64,
    pub compile_errors: Vec<(u64, String)>,
    /// Full exploration: holds, violated, inconclusive (per deadlock flag run).
    pub full: [u64; 3],
    pub full_kinds: BTreeMap<&'static str, u64>,
    /// (row, column) -> (systems, [holds, violated, refused, skipped]).
    pub cells: BTreeMap<(Feature, usize), (u64, [u64; 4])>,
    /// option row (its flags) -> (systems, counts, disagreements).
    pub options: BTreeMap<String, (u64, [u64; 4], u64)>,
    pub disagreements: Vec<Disagreement>,
    pub checks: u64,
    /// Systems on which a run used a symmetry.
    pub symmetric: u64,
}

impl Tally {
    pub fn add(&mut self, r: SystemResult) {
        self.systems += 1;
        if let Some(e) = r.compile_error {
            self.compile_errors.push((r.index, e));
            return;
        }
        for (k, n) in r.full.iter().enumerate() {
            self.full[k] += u64::from(*n);
        }
        for k in &r.full_kinds {
            *self.full_kinds.entry(k).or_default() += 1;
        }
        self.symmetric += u64::from(r.symmetric);
        for (c, seen) in &r.runs {
            self.checks += 1;
            // The coverage table counts the base runs, one per column and
            // system; the options table every run.
            if c.kept == Kept::Exact && c.threads == 1 {
                for f in &r.features {
                    let cell = self.cells.entry((*f, c.column())).or_default();
                    cell.0 += 1;
                    cell.1[*seen as usize] += 1;
                }
            }
            let row = option_row(c).flags();
            let e = self.options.entry(row).or_default();
            e.0 += 1;
            e.1[*seen as usize] += 1;
        }
        for d in &r.disagreements {
            if d.config.reduction != Reduction::NONE {
                let row = option_row(&d.config).flags();
                self.options.entry(row).or_default().2 += 1;
            }
        }
        self.disagreements.extend(r.disagreements);
    }

    /// Rows of the coverage table with an empty cell: (row, column).
    pub fn empty_cells(&self) -> Vec<(Feature, &'static str)> {
        let mut out = vec![];
        for row in cover::rows() {
            for (col, name) in COLUMNS.iter().enumerate() {
                let full = self
                    .cells
                    .get(&(row, col))
                    .is_some_and(|(_, v)| v[0] + v[1] + v[2] > 0);
                if !full {
                    out.push((row, *name));
                }
            }
        }
        out
    }

    /// Option rows that no system reached a verdict in.
    pub fn empty_options(&self) -> Vec<String> {
        option_rows()
            .iter()
            .map(|c| c.flags())
            .filter(|f| {
                self.options
                    .get(f)
                    .is_none_or(|(_, v, _)| v[0] + v[1] + v[2] == 0)
            })
            .collect()
    }

    /// The coverage table, as Markdown.
    pub fn table(&self) -> String {
        let mut s = String::new();
        s += "Each cell: systems that exercised the construct at that position and ran \
              the column's reduction, then how many of them held / were violated / were \
              refused / were skipped.\n\n";
        s += "| construct | position |";
        for c in COLUMNS {
            s += &format!(" {c} |");
        }
        s += "\n|---|---|";
        for _ in COLUMNS {
            s += "---:|";
        }
        s += "\n";
        for row in cover::rows() {
            s += &format!("| `{}` | {} |", row.0, row.1);
            for col in 0..COLUMNS.len() {
                match self.cells.get(&(row, col)) {
                    Some((n, v)) => s += &format!(" {n}: {}/{}/{}/{} |", v[0], v[1], v[2], v[3]),
                    None => s += " **0** |",
                }
            }
            s += "\n";
        }
        s
    }

    /// The options table, as Markdown.
    pub fn options_table(&self) -> String {
        let mut s = String::from(
            "| mode and options | runs | holds | violated | refused | skipped | disagreements |\n\
             |---|---:|---:|---:|---:|---:|---:|\n",
        );
        for c in option_rows() {
            let f = c.flags();
            let (n, v, d) = self.options.get(&f).cloned().unwrap_or_default();
            s += &format!(
                "| `{f}` | {n} | {} | {} | {} | {} | {d} |\n",
                v[0], v[1], v[2], v[3]
            );
        }
        s
    }

    pub fn summary(&self) -> String {
        let new = self
            .disagreements
            .iter()
            .filter(|d| d.known.is_none())
            .count();
        format!(
            "{} systems ({} did not compile, {} searched over a symmetry's orbits), {} reduced checks; full exploration: {} holds, {} violated {:?}, {} inconclusive; {} disagreements ({} of known open bugs, {} new)",
            self.systems,
            self.compile_errors.len(),
            self.symmetric,
            self.checks,
            self.full[0],
            self.full[1],
            self.full_kinds,
            self.full[2],
            self.disagreements.len(),
            self.disagreements.len() - new,
            new
        )
    }

    /// The disagreements, grouped by known bug (or new) and kind.
    pub fn disagreement_report(&self) -> String {
        let mut groups: BTreeMap<(String, String, String), Vec<&Disagreement>> = BTreeMap::new();
        for d in &self.disagreements {
            let key = (
                d.known.unwrap_or("NEW").to_string(),
                d.wrong.name(),
                d.config.column_name().to_string(),
            );
            groups.entry(key).or_default().push(d);
        }
        let mut s = String::new();
        for ((known, wrong, col), ds) in &groups {
            s += &format!("{known}: {col}: {wrong}: {} runs\n", ds.len());
            for d in ds.iter().take(3) {
                s += &format!(
                    "  system {} `{}`: {}\n",
                    d.system,
                    d.config.flags(),
                    d.detail
                );
                if let Some((_, path)) = &d.shrunk {
                    s += &format!("    shrunk: {path}\n");
                }
            }
        }
        s
    }
}

/// Checks systems `from..to` of `seed` on `workers` threads; `progress`
/// sees every result as it comes (in any order). The results are tallied
/// in system order, so the tally does not depend on the workers.
pub fn check_many(
    seed: u64,
    from: u64,
    to: u64,
    workers: usize,
    progress: &(dyn Fn(&SystemResult) + Sync),
) -> Tally {
    let next = AtomicU64::new(from);
    // Debugging a crash: which systems started and ended.
    let trace = std::env::var_os("GRAMMAR_TRACE").is_some();
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            // The command line's stack (src/bin/optimist/main.rs).
            let b = std::thread::Builder::new().stack_size(256 << 20);
            b.spawn_scoped(s, || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= to {
                        break;
                    }
                    if trace {
                        eprintln!("system {k}: start");
                    }
                    let r = check_system(seed, k);
                    if trace {
                        eprintln!("system {k}: done");
                    }
                    progress(&r);
                    results.lock().unwrap().push(r);
                }
            })
            .expect("a worker thread");
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    let mut tally = Tally::default();
    for r in results {
        tally.add(r);
    }
    tally
}

/// Seconds since `start`, for reports.
pub fn secs(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

// ---------------------------------------------------------------------
// The soak's child processes: one system's result as a line of JSON, and
// single configurations run alone to find the one that crashes.

impl SystemResult {
    /// The result as one line of JSON (the text and features are not
    /// sent: the parent generates them again from the seed).
    pub fn to_json(&self) -> String {
        let runs: Vec<serde_json::Value> = self
            .runs
            .iter()
            .map(|(c, seen)| serde_json::json!([config_index(c), *seen as usize]))
            .collect();
        let dis: Vec<serde_json::Value> = self
            .disagreements
            .iter()
            .map(|d| {
                serde_json::json!({
                    "config": config_index(&d.config),
                    "wrong": d.wrong.code(),
                    "detail": d.detail,
                    "known": d.known,
                })
            })
            .collect();
        serde_json::json!({
            "system": self.index,
            "compile_error": self.compile_error,
            "full": self.full,
            "full_kinds": self.full_kinds,
            "symmetric": self.symmetric,
            "runs": runs,
            "disagreements": dis,
        })
        .to_string()
    }

    /// The result a child process sent, for system `k` of `seed`.
    pub fn from_json(seed: u64, v: &serde_json::Value) -> Option<SystemResult> {
        let k = v["system"].as_u64()?;
        let sys = system(&mut Rng::for_system(seed, k));
        let text = ast::print(&sys);
        let configs = all_configs();
        let kinds = [
            "assertion",
            "deadlock",
            "discipline",
            "invariant",
            "range",
            "well-formedness",
        ];
        let seen = [Seen::Holds, Seen::Violated, Seen::Refused, Seen::Skipped];
        let mut r = SystemResult {
            index: k,
            text: text.clone(),
            compile_error: v["compile_error"].as_str().map(String::from),
            ..SystemResult::default()
        };
        if r.compile_error.is_none() {
            r.features = cover::features(&sys);
        }
        for (i, n) in v["full"].as_array()?.iter().enumerate().take(3) {
            r.full[i] = n.as_u64()? as u32;
        }
        r.symmetric = v["symmetric"].as_bool()?;
        for kind in v["full_kinds"].as_array()? {
            let kind = kind.as_str()?;
            r.full_kinds.push(kinds.iter().find(|x| **x == kind)?);
        }
        for run in v["runs"].as_array()? {
            let c = configs[run[0].as_u64()? as usize];
            r.runs.push((c, seen[run[1].as_u64()? as usize]));
        }
        for d in v["disagreements"].as_array()? {
            let known = d["known"]
                .as_str()
                .and_then(|n| KNOWN_OPEN.iter().find(|kn| kn.name == n))
                .map(|kn| kn.name);
            r.disagreements.push(Disagreement {
                system: k,
                config: configs[d["config"].as_u64()? as usize],
                wrong: Wrong::from_code(d["wrong"].as_str()?)?,
                detail: d["detail"].as_str()?.to_string(),
                known,
                text: text.clone(),
                shrunk: None,
            });
        }
        Some(r)
    }

    /// System `k` of `seed`, which crashed the process under `configs`
    /// (full exploration's configuration when it crashed by itself).
    pub fn crashed(seed: u64, k: u64, configs: &[Config], why: &str) -> SystemResult {
        let sys = system(&mut Rng::for_system(seed, k));
        let text = ast::print(&sys);
        let facts = Facts::of(&sys);
        SystemResult {
            index: k,
            text: text.clone(),
            features: cover::features(&sys),
            disagreements: configs
                .iter()
                .map(|c| Disagreement {
                    system: k,
                    config: *c,
                    wrong: Wrong::Crash,
                    detail: why.to_string(),
                    known: known(c, &Wrong::Crash, &facts),
                    text: text.clone(),
                    shrunk: None,
                })
                .collect(),
            ..SystemResult::default()
        }
    }
}

/// Runs configuration `c` (and full exploration) on `text` alone, as a
/// probe for a crash: the process dies or returns.
pub fn probe(text: &str, c: &Config) {
    let Ok(model) = compile(text) else { return };
    let fc = Config {
        deadlock: c.deadlock,
        ..Config::base(Reduction::NONE)
    };
    let Ok(full) = run(&model, &fc) else { return };
    if c.reduction != Reduction::NONE {
        let _ = compare(&model, &full, c);
    }
}
