//! Options and rendering shared by the subcommands.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

/// The model file and its constant overrides.
#[derive(Args, Clone, Debug)]
pub struct ModelArgs {
    /// The model file (`-` reads standard input).
    pub file: PathBuf,
    /// Override a `const` declaration: `-D NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, String)>,
    #[command(flatten)]
    pub stack: StackArgs,
    /// The model's language: optimist's own (gcl) or SPIN's Promela
    /// [default: by extension, `.pml`, `.prom` and `.promela` are Promela].
    /// For Promela, `-D NAME=VALUE` defines a preprocessor macro.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

/// The languages `--lang` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// optimist's guarded-command language.
    Gcl,
    /// The subset of SPIN's Promela in docs/src/promela.md.
    Promela,
}

impl LangArg {
    fn language(self) -> optimist::Language {
        match self {
            LangArg::Gcl => optimist::Language::Gcl,
            LangArg::Promela => optimist::Language::Promela,
        }
    }
}

impl ModelArgs {
    /// Reads and compiles the model, or renders the error and gives exit code 2.
    pub fn load(&self) -> Result<(optimist::Source, optimist::Model), ExitCode> {
        let options = optimist::CompileOptions {
            max_stack: self.stack.max_stack,
        };
        let lang = self.lang.map(LangArg::language);
        optimist::load_as(&self.file, lang, &self.define, &options).map_err(fail)
    }
}

/// How deep calls may go, one option for `ModelArgs` and `ModelsArgs`.
#[derive(Args, Clone, Copy, Debug)]
pub struct StackArgs {
    /// The deepest call stack a thread may have: a deeper call ends the
    /// run inconclusive (exit 3). Procedures are copied once per depth. In
    /// a Promela model, also the processes of a proctype `run` in a loop
    /// or recursion: one more `run` ends the run inconclusive.
    #[arg(long, value_name = "N", default_value_t = optimist::DEFAULT_MAX_STACK,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(optimist::MAX_STACK)))]
    pub max_stack: u32,
}

/// One or more model files, each handled in turn with the same options.
#[derive(Args, Debug)]
pub struct ModelsArgs {
    /// The model files (`-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Override a `const` declaration in every model: `-D NAME=VALUE`
    /// (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, String)>,
    #[command(flatten)]
    pub stack: StackArgs,
    /// The models' language [default: by extension].
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

impl ModelsArgs {
    /// Runs `one` on each file. With several files, text reports follow one
    /// another and JSON reports (and errors) form one array. The exit code
    /// is the most serious one: 2, then 1, then 3, then 0.
    pub fn each(&self, format: Format, mut one: impl FnMut(&ModelArgs) -> ExitCode) -> ExitCode {
        let several = self.files.len() > 1;
        if several && format == Format::Json {
            OUTPUT.lock().unwrap_or_else(|e| e.into_inner()).array = Some(Vec::new());
        }
        let mut codes = Vec::new();
        for (k, file) in self.files.iter().enumerate() {
            if several && format == Format::Text && k > 0 {
                write_out("\n");
            }
            codes.push(one(&ModelArgs {
                file: file.clone(),
                define: self.define.clone(),
                stack: self.stack,
                lang: self.lang,
            }));
        }
        let array = OUTPUT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .array
            .take();
        if let Some(items) = array {
            let items: Vec<String> = items.iter().map(|i| i.replace('\n', "\n  ")).collect();
            write_out(&format!("[\n  {}\n]\n", items.join(",\n  ")));
        }
        [2, 1, 3]
            .map(ExitCode::from)
            .into_iter()
            .find(|c| codes.contains(c))
            .unwrap_or(ExitCode::SUCCESS)
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

/// Whether a deadlock is a violation: by default it is, as in SPIN (invalid
/// end states) and TLC.
#[derive(Args, Clone, Debug, Default)]
pub struct DeadlockArgs {
    /// Do not report a deadlock as a violation, only count it. A deadlock
    /// is a state where no thread can move and some thread has not ended
    /// (a thread that ended is not deadlocked).
    #[arg(long)]
    no_deadlock: bool,
    /// Report a deadlock as a violation: the default.
    #[arg(long, hide = true, overrides_with = "no_deadlock")]
    deadlock: bool,
}

impl DeadlockArgs {
    /// Whether deadlocks are violations.
    pub fn on(&self) -> bool {
        !self.no_deadlock
    }
}

/// Most seconds accepted by `--max-time`: about 31 years, far beyond any
/// run, and far inside what a `Duration` holds.
pub const MAX_SECONDS: f64 = 1e9;

impl LimitArgs {
    /// Starts the backstop that holds `--max-memory` and `--max-time` in
    /// every phase of the run, also where the library has no budget to
    /// consult (reading, parsing, compiling and classifying a huge model).
    ///
    /// The library stops its searches itself, a little below the memory
    /// limit and at the time limit, with the statistics of what was done;
    /// this thread only acts when that did not happen: past the memory
    /// limit, or half a second past the time limit. It then prints the
    /// inconclusive verdict (text or JSON) and exits with code 3.
    pub fn watch(&self, format: Format) {
        if self.max_memory.is_none() && self.max_time.is_none() {
            return;
        }
        // A limit the process is already past when it starts (such as
        // zero) is the library's to report, at once and with its
        // statistics; watching it here would race with that report.
        let memory = self
            .max_memory
            .filter(|&max| optimist::resident_bytes().is_some_and(|b| b <= max));
        let time = self.max_time;
        let started = std::time::Instant::now();
        let _ = std::thread::Builder::new()
            .name("limits".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_millis(2));
                    let limit = if let Some(max) = memory
                        && optimist::resident_bytes().is_some_and(|b| b > max)
                    {
                        format!("memory limit of {} MB reached", max >> 20)
                    } else if let Some(max) = time
                        && started.elapsed() > max + Duration::from_millis(500)
                    {
                        format!("time limit of {} s reached", max.as_secs_f64())
                    } else {
                        continue;
                    };
                    // Holding the lock until exit: once the command has
                    // disarmed the backstop, nothing more is printed here.
                    let armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
                    if !*armed {
                        return;
                    }
                    let limit = format!(
                        "{limit} outside the search (reading, compiling or classifying the model)"
                    );
                    match format {
                        Format::Text => write_out(&format!(
                            "verdict      inconclusive\nlimit        {limit}\n"
                        )),
                        Format::Json => write_out(
                            &(serde_json::to_string_pretty(
                                &json!({"verdict": "inconclusive", "limit": limit}),
                            )
                            .expect("JSON values serialise")
                                + "\n"),
                        ),
                    }
                    std::process::exit(3);
                }
            });
    }

    /// Ends the backstop's watch: the library's budget takes over from
    /// here, and reports a limit itself with its statistics.
    pub fn disarm() {
        *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }

    /// The limits, for the library.
    pub fn limits(&self) -> optimist::Limits {
        optimist::Limits {
            max_states: self.max_states,
            max_time: self.max_time,
            max_memory: self.max_memory,
        }
    }
}

/// Whether the limits backstop may still end the run (see [`LimitArgs::watch`]).
static ARMED: Mutex<bool> = Mutex::new(true);

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

/// Where reports go: set once by the subcommand, since an input error must
/// come out in the format its command asked for.
struct Output {
    format: Format,
    /// With several files under `--format json`: the reports so far,
    /// each already as JSON text (keeping its fields in declared order).
    array: Option<Vec<String>>,
}

static OUTPUT: Mutex<Output> = Mutex::new(Output {
    format: Format::Text,
    array: None,
});

/// Sets the format errors are reported in (reports take theirs explicitly).
/// The registered reduction a command's own choice of values names: each
/// value is called as the reduction it stands for.
pub fn registered(value: impl ValueEnum) -> optimist::Reduction {
    let value = value.to_possible_value().expect("no value is skipped");
    value.get_name().parse().expect("a registered reduction")
}

pub fn set_format(format: Format) {
    OUTPUT.lock().unwrap_or_else(|e| e.into_inner()).format = format;
}

/// Renders an input error on stderr and, under `--format json`, as
/// `{"status": "error", "error": {...}}` on stdout; returns exit code 2.
pub fn fail(e: optimist::Error) -> ExitCode {
    diagnose(e, "error", 2, None)
}

/// A model the certified theorem does not cover (`check_reducible`): not
/// an error in the model, so inconclusive (exit 3), with the same
/// diagnostic and its JSON twin.
pub fn not_covered(e: optimist::Error) -> ExitCode {
    diagnose(e, "inconclusive", 3, None)
}

/// `check --certify` where the certified theorem does not cover the model:
/// the check's own report first (a violation it found replays in the
/// original system and stands without a certificate), then why there is
/// no certificate; in JSON one document with both. Exit 1 for a
/// violation, else 3.
pub fn not_covered_after(e: optimist::Error, check: &optimist::CheckReport) -> ExitCode {
    let (status, code) = match check.exit_code() {
        1 => ("violated", 1),
        _ => ("inconclusive", 3),
    };
    let json = OUTPUT.lock().unwrap_or_else(|e| e.into_inner()).format == Format::Json;
    if !json {
        write_out(&check.to_string());
    }
    let check = serde_json::to_value(check).expect("reports serialise");
    diagnose(e, status, code, Some(check))
}

/// `e` rendered on stderr, and its JSON twin with `status` (and the
/// check's report, where there is one); exit `code`.
fn diagnose(e: optimist::Error, status: &str, code: u8, check: Option<Value>) -> ExitCode {
    let place = e.place().cloned();
    let mut value = json!({"status": status, "error": {
        "message": e.to_string(),
        "place": place,
        "help": miette::Diagnostic::help(&e).map(|h| h.to_string()),
    }});
    if let Some(check) = check {
        value["check"] = check;
    }
    write_err(&format!("{:?}\n", miette::Report::new(e)));
    emit_error(value);
    ExitCode::from(code)
}

/// A usage error that depends on no model: `error: MESSAGE` on stderr,
/// and its JSON twin; exit code 2.
pub fn refuse(message: &str) -> ExitCode {
    write_err(&format!("error: {message}\n"));
    emit_error(json!({"status": "error", "error": {"message": message}}));
    ExitCode::from(2)
}

fn emit_error(value: Value) {
    let format = OUTPUT.lock().unwrap_or_else(|e| e.into_inner()).format;
    if format == Format::Json {
        emit_json(serde_json::to_string_pretty(&value).expect("JSON values serialise"));
    }
}

/// Prints one JSON document, or adds it to the array of several files.
fn emit_json(text: String) {
    let mut out = OUTPUT.lock().unwrap_or_else(|e| e.into_inner());
    match &mut out.array {
        Some(items) => items.push(text),
        None => write_out(&(text + "\n")),
    }
}

/// When colour is used in error messages and the progress line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    /// Always (Unicode and colour, also into a pipe or file).
    Always,
    /// Never: plain ASCII with a caret under the error.
    Never,
}

/// Colour and Unicode only on a terminal (or when asked), so piped output
/// is plain ASCII with a caret under the error.
pub fn install_diagnostics(color: Color) {
    let fancy = match color {
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        Color::Always => true,
        Color::Never => false,
    };
    let _ = miette::set_hook(Box::new(move |_| {
        let opts = miette::MietteHandlerOpts::new()
            .terminal_links(false)
            .width(100);
        let opts = if fancy {
            opts.color(true).unicode(true)
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
    match format {
        Format::Text => write_out(&report.to_string()),
        Format::Json => emit_json(serde_json::to_string_pretty(report).expect("reports serialise")),
    }
}

/// Whether the reader of stdout, and of stderr, has gone.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
static STDERR_GONE: AtomicBool = AtomicBool::new(false);

/// Writes to stdout. Every output of the binary goes through here or
/// [`write_err`], never through `print!` or `eprint!`, which panic when
/// the reader has gone (`optimist check bad.gc 2>&1 | head -1`).
pub fn write_out(s: &str) {
    write_to(&mut std::io::stdout().lock(), &STDOUT_GONE, s);
}

/// Writes to stderr, like [`write_out`].
pub fn write_err(s: &str) {
    write_to(&mut std::io::stderr().lock(), &STDERR_GONE, s);
}

/// Writes `s` unless the stream's reader has gone. A closed pipe quietly
/// ends that stream's output (no message, no panic) but not the run.
/// ripgrep exits 0 at once; here the command finishes and exits with its
/// own code, the verdict, which is then the same whether or not the
/// reader left before the report was written (a short report fits in the
/// pipe and never meets the closed end). Other write errors (a full disk)
/// are ignored as before: the exit code still tells the verdict.
fn write_to(w: &mut impl Write, gone: &AtomicBool, s: &str) {
    if gone.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = w.write_all(s.as_bytes()).and_then(|()| w.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        gone.store(true, Ordering::Relaxed);
    }
}

/// The `ltl` part of a check: the properties `selected` decided under
/// `fairness` once the safety check (`outcome`) holds, else reported as
/// not checked; with the library's outcome when they ran.
pub fn temporal(
    model: &optimist::Model,
    options: &optimist::Options,
    outcome: &optimist::Outcome,
    selected: &[usize],
    fairness: optimist::Fairness,
) -> (optimist::LtlReport, Option<optimist::LtlOutcome>) {
    if !matches!(outcome.verdict, optimist::Verdict::Holds) {
        let r = optimist::LtlReport::after_safety(model, selected, fairness, &outcome.verdict);
        return (r, None);
    }
    let ltl = optimist::LtlOptions {
        fairness,
        properties: selected.to_vec(),
    };
    let o = optimist::check_ltl(model, options, &ltl);
    (
        optimist::LtlReport::new(model, selected, fairness, Some(&o), None),
        Some(o),
    )
}
