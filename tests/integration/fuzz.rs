//! Fuzzing the front end and the checker, in process and deterministically.
//!
//! The toolchain is stable, so instead of cargo-fuzz this is a proptest
//! harness with a fixed seed and a fixed number of cases (set
//! `OPTIMIST_FUZZ_SEED` and `OPTIMIST_FUZZ_CASES` to explore further). Its
//! inputs are structured mutations of the shipped models, the soundness
//! regressions and the bad inputs of `inputs/errors`, of the two
//! generators' systems, and grammar-aware token soup: truncation,
//! deletion, duplication, splicing of two inputs, inserted tokens, extreme
//! numbers, odd Unicode and line endings, and nesting thousands deep.
//!
//! Every input goes through the whole pipeline as the binary would run
//! it: parse, pretty-print, compile (sometimes with extreme `-D` values),
//! classify (also for movers), check in every mode (full, sc with every
//! `--ignoring`, movers, stubborn, sc+stubborn; with and without
//! `--deadlock`; under small limits), certify at both levels, `check
//! --certify`, and refine in both guess modes and for movers, rendering every report as text and as JSON and
//! every error as the binary renders it. The property: nothing panics,
//! aborts or hangs, and every stage's exit code is 0, 1, 2 or 3.
//!
//! The cases run in a child process (proptest's fork mode: the test binary
//! re-runs itself), on a thread with the binary's 256 MB stack, under an
//! address-space limit and a per-case timeout. A stack overflow, a runaway
//! allocation or a hang then fails the one case, which shrinks like any
//! other, instead of taking the test process down.
//!
//! Inputs that ever broke are kept in `inputs/fuzz-corpus/` and replayed
//! through the binary, under the watchdog, by
//! [`fuzz_corpus_replays_through_the_binary`]. A shrunk failing input is
//! written to `inputs/fuzz-corpus/pending/` (not replayed) until the
//! library is fixed; then move it up.

use std::path::{Path, PathBuf};
use std::time::Duration;

use optimist::{
    CertifiedCheck, CertifyLevel, CertifyOptions, CertifyReport, CheckReport, ClassifyReport,
    GuessFrom, Ignoring, Limits, Options, Reduction, RefineOptions, Source, certify, classify,
    compile, parse, pretty,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use crate::differential2::{case_count, rng};

/// `-D` overrides.
type Defines = Vec<(String, String)>;
use crate::watchdog;

/// Renders an input error the way the binary does (plain, no colour).
fn render(e: &optimist::Error) -> String {
    let mut s = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::none())
        .with_width(100)
        .render_report(&mut s, e)
        .expect("rendering an error");
    s
}

fn limits() -> Limits {
    Limits {
        max_states: Some(300),
        max_time: Some(Duration::from_secs(5)),
        max_memory: Some(64 << 20),
    }
}

fn json<T: serde::Serialize>(v: &T) {
    serde_json::to_string(v).expect("reports serialise");
}

/// The exit code of every stage of the pipeline on `text`; panics propagate.
fn pipeline(text: &str, defines: &Defines) -> Vec<(&'static str, u8)> {
    let mut codes = Vec::new();
    let src = match Source::new("fuzz.gc", text) {
        Ok(s) => s,
        Err(e) => {
            render(&e);
            return vec![("source", 2)];
        }
    };
    match parse(&src) {
        Ok(ast) => {
            pretty::model(&ast);
        }
        Err(e) => {
            render(&e);
            return vec![("parse", 2)];
        }
    }
    let model = match compile(&src, defines) {
        Ok(m) => m,
        Err(e) => {
            render(&e);
            return vec![("compile", 2)];
        }
    };
    for reduction in [Reduction::SC, Reduction::MOVERS, Reduction::MOVERS_STUBBORN] {
        let options = Options {
            reduction,
            ..Options::default()
        };
        let a = optimist::assess(&model, &options).expect("valid options");
        let class = ClassifyReport::with(&model, &a);
        class.to_string();
        json(&class);
    }
    classify(&model);
    codes.push(("classify", 0));
    // Only certify refuses invariants it does not cover; every check mode
    // makes what an invariant reads visible.
    let reducible = match optimist::check_certifiable(&src, &model, optimist::CertifyTheorem::Sc) {
        Ok(()) => true,
        Err(e) => {
            render(&e);
            codes.push(("reducible", 2));
            false
        }
    };
    let mut reduced = None;
    let modes = [
        (Reduction::NONE, Ignoring::Cpc),
        (Reduction::SC, Ignoring::Cpc),
        (Reduction::SC, Ignoring::Cycles),
        (Reduction::SC, Ignoring::Forbid),
        (Reduction::SC, Ignoring::Unsound),
        (Reduction::MOVERS, Ignoring::Cpc),
        (Reduction::STUBBORN, Ignoring::Cpc),
        (Reduction::SC_STUBBORN, Ignoring::Cpc),
        (Reduction::MOVERS_STUBBORN, Ignoring::Cpc),
    ];
    // A model of thousands of transitions (`-D K=65536` unrolls 131,072)
    // takes seconds per check in a debug build, so it gets a lighter
    // pipeline, one run per reduction, to stay within the case timeout.
    let big = model.transitions.len() > BIG_MODEL;
    for (reduction, ignoring) in modes {
        if big && ignoring != Ignoring::Cpc {
            continue;
        }
        for deadlock in [false, true] {
            // Movers do not preserve deadlocks; the binary refuses the pair.
            if deadlock && (big || reduction.theorem() == Some(optimist::CertifyTheorem::Movers)) {
                continue;
            }
            let options = Options {
                reduction,
                limits: limits(),
                deadlock,
                ignoring,
                ..Options::default()
            };
            let outcome = optimist::check(&model, &options, &mut |_| {});
            let report = CheckReport::new(&model, "fuzz.gc", reduction, &outcome);
            report.to_string();
            json(&report);
            codes.push(("check", report.exit_code()));
            // Procedure summaries ride on sc with commit point completion.
            if (reduction, ignoring, deadlock) == (Reduction::SC, Ignoring::Cpc, false) {
                let summaries = Options {
                    summaries: true,
                    ..options.clone()
                };
                let outcome = optimist::check(&model, &summaries, &mut |_| {});
                let report = CheckReport::new(&model, "fuzz.gc", reduction, &outcome);
                report.to_string();
                json(&report);
                codes.push(("check --summaries", report.exit_code()));
            }
            if (reduction, ignoring, deadlock) == (Reduction::SC, Ignoring::Cpc, false) {
                reduced = Some((report, options));
            }
        }
    }
    if reducible {
        for level in [CertifyLevel::Local, CertifyLevel::Exhaustive] {
            let cert = certify(
                &model,
                &CertifyOptions {
                    level,
                    frame_bound: 1 << 10,
                    max_states: 300,
                    max_valuations: Some(100_000),
                    max_time: Some(Duration::from_secs(2)),
                    ..CertifyOptions::default()
                },
            );
            let report = CertifyReport::new(&model, "fuzz.gc", &cert);
            report.to_string();
            json(&report);
            codes.push(("certify", report.exit_code()));
            if let Some((check, options)) = &reduced {
                let both = CertifiedCheck::new(check.clone(), report, options);
                both.to_string();
                json(&both);
                codes.push(("check --certify", both.exit_code()));
            }
        }
    }
    for (guess, reduction) in [
        (GuessFrom::Annotated, Reduction::SC),
        (GuessFrom::Locks, Reduction::SC),
        (GuessFrom::Locks, Reduction::MOVERS),
    ] {
        if big && guess == GuessFrom::Locks {
            continue;
        }
        let options = RefineOptions {
            guess,
            max_iterations: 3,
            incremental: guess == GuessFrom::Locks,
            limits: limits(),
            reduction,
        };
        match optimist::refine(&src, defines, &options) {
            Ok(r) => {
                r.to_string();
                json(&r);
                codes.push(("refine", r.exit_code()));
            }
            Err(e) => {
                render(&e);
                codes.push(("refine", 2));
            }
        }
    }
    codes
}

/// Runs the pipeline and checks its exit codes.
fn run_pipeline(text: &str, defines: &Defines) -> Result<(), TestCaseError> {
    // To find a case that hangs: each case is written here before it runs.
    if let Some(path) = std::env::var_os("OPTIMIST_FUZZ_LAST") {
        let _ = std::fs::write(path, format!("// defines: {defines:?}\n{text}"));
    }
    for (stage, code) in pipeline(text, defines) {
        if code > 3 {
            return Err(TestCaseError::fail(format!("{stage}: exit code {code}")));
        }
    }
    Ok(())
}

/// Every token of the language, and some that are not.
const TOKENS: &[&str] = &[
    "system",
    "threads",
    "thread",
    "lock",
    "sem",
    "shared",
    "protected",
    "local",
    "const",
    "invariant",
    "excl",
    "by",
    "unprotected",
    "bool",
    "init",
    "repeat",
    "acquire",
    "release",
    "down",
    "up",
    "await",
    "assert",
    "atomic",
    "if",
    "else",
    "while",
    "either",
    "or",
    "goto",
    "skip",
    "any",
    "self",
    "free",
    "true",
    "false",
    "at",
    "exists",
    "forall",
    "in",
    "x",
    "y",
    "m",
    "s",
    "t",
    "j",
    "T",
    "L",
    "L0",
    "a",
    "N",
    "0",
    "1",
    "2",
    "-1",
    "65536",
    "99999999999",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    ";",
    ":",
    ",",
    ".",
    "..",
    "=",
    ":=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "&&",
    "||",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "//",
    "/*",
    "*/",
    "\n",
    "\t",
    "\r",
    "\"",
    "'",
    "#",
    "@",
    "$",
    "\u{0}",
    "\u{feff}",
    "\u{200b}",
    "\u{202e}",
    "é",
    "\u{301}",
    "ß",
    "𝕩",
    "😀",
    "\u{2028}",
    "\u{ff11}",
    "ℕ",
];

/// Strange text to insert: odd Unicode, control characters, line endings.
const WEIRD: &[&str] = &[
    "\u{0}",
    "\u{feff}",
    "\u{200b}",
    "\u{202e}",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\r",
    "\r\n",
    "\t",
    "\u{b}",
    "\u{c}",
    "é",
    "e\u{301}",
    "𝕩",
    "😀",
    "\u{ff11}",
    "\u{1f}",
    "\u{7f}",
    "\u{10ffff}",
    "ﬀ",
    "İ",
    "\\",
    "\"",
    "'''",
];

/// Extreme numbers to put where a number was.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "65535",
    "65536",
    "65537",
    "1048576",
    "4294967296",
    "1000000000000",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999999999",
    "00000000000000000000001",
];

/// The texts mutations start from: the shipped models, the soundness
/// regressions and the fuzz corpus; and apart, the bad inputs of
/// `inputs/errors`.
fn seeds() -> (&'static [String], &'static [String]) {
    static GOOD: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static BAD: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    (
        GOOD.get_or_init(|| {
            read_all(&[
                "models",
                "tests/integration/inputs/soundness",
                "tests/integration/inputs/fuzz-corpus",
            ])
        }),
        BAD.get_or_init(|| read_all(&["tests/integration/inputs/errors"])),
    )
}

/// The `.gc` files of some directories, in a fixed order.
fn read_all(dirs: &[&str]) -> Vec<String> {
    {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for d in dirs {
            if let Ok(entries) = std::fs::read_dir(root.join(d)) {
                files.extend(
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|e| e == "gc")),
                );
            }
        }
        files.sort();
        files
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect()
    }
}

/// The nearest char boundary at or below `k`.
fn floor(s: &str, k: usize) -> usize {
    let mut k = k.min(s.len());
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    k
}

/// Above this many transitions a model gets a lighter pipeline.
const BIG_MODEL: usize = 5_000;

/// One mutation, `op` selecting which and `a`, `b`, `c` its parameters.
fn mutate(text: &mut String, op: u8, a: u32, b: u32, c: u32, other: &str) {
    let len = text.len().max(1);
    let at = floor(text, a as usize % (len + 1));
    let to = floor(text, (at + b as usize % 64).min(text.len()));
    // Half the nestings stay within the parser's bounds, half go past them.
    let depth = if c % 2 == 0 {
        1 + c as usize % 60
    } else {
        1 + c as usize % 2000
    };
    // Mutations that keep the syntax (numbers, nesting, line endings) are
    // drawn more often, so that a good share of inputs reach the checker.
    let op = match op % 20 {
        13..=15 => 4,
        16 => 7,
        17 => 8,
        18 => 11,
        19 => 6,
        k => k,
    };
    match op {
        0 => text.truncate(at),
        1 => text.replace_range(at..to, ""),
        2 => {
            let piece = text[at..to].to_string();
            let k = floor(text, c as usize % (len + 1));
            text.insert_str(k, &piece);
        }
        3 => text.insert_str(at, &format!(" {} ", TOKENS[b as usize % TOKENS.len()])),
        4 => {
            // Replace the next number with an extreme one.
            if let Some(k) = text[at..].find(|ch: char| ch.is_ascii_digit()) {
                let s = at + k;
                let e = s + text[s..]
                    .find(|ch: char| !ch.is_ascii_digit())
                    .unwrap_or(text.len() - s);
                text.replace_range(s..e, NUMBERS[b as usize % NUMBERS.len()]);
            }
        }
        5 => {
            // Splice: this input's head, another's tail.
            let k = floor(other, b as usize % (other.len() + 1));
            text.truncate(at);
            text.push_str(&other[k..]);
        }
        6 => {
            let weird = WEIRD[b as usize % WEIRD.len()];
            if c % 2 == 0 {
                // In a comment of its own line.
                let s = text[..at].rfind('\n').map_or(0, |k| k + 1);
                text.insert_str(s, &format!("// {weird} {weird}\n"));
            } else {
                text.insert_str(at, weird);
            }
        }
        7 => {
            // Deep nesting around the next number or name.
            if let Some(k) = text[at..].find(|ch: char| ch.is_ascii_alphanumeric()) {
                let s = at + k;
                let e = s + text[s..]
                    .find(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
                    .unwrap_or(text.len() - s);
                let (open, close) = [
                    ("(", ")"),
                    ("a[", "]"),
                    ("-(", ")"),
                    ("!(", ")"),
                    ("at(", ", L)"),
                ][b as usize % 5];
                text.insert_str(e, &close.repeat(depth));
                text.insert_str(s, &open.repeat(depth));
            }
        }
        8 => {
            // Nested blocks around the line at `at`.
            let s = text[..at].rfind('\n').map_or(0, |k| k + 1);
            let e = text[at..].find('\n').map_or(text.len(), |k| at + k);
            let (open, close) = [
                ("if true { ", " }"),
                ("while false { ", " }"),
                ("atomic { ", " }"),
                ("either { ", " } or { skip; }"),
                ("repeat 2 { ", " }"),
            ][b as usize % 5];
            let d = 1 + depth % 200;
            text.insert_str(e, &close.repeat(d));
            text.insert_str(s, &open.repeat(d));
        }
        9 => {
            // Swap two lines.
            let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
            let n = lines.len();
            lines.swap(a as usize % n, b as usize % n);
            *text = lines.join("\n");
        }
        10 => {
            // Rename: replace a word with another word of the input.
            let words: Vec<&str> = text
                .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
                .filter(|w| !w.is_empty())
                .collect();
            if words.len() >= 2 {
                let (from, to) = (
                    words[a as usize % words.len()].to_string(),
                    words[b as usize % words.len()].to_string(),
                );
                *text = text.replacen(&from, &to, 1 + c as usize % 3);
            }
        }
        11 => {
            *text = match b % 3 {
                0 => text.replace('\n', "\r\n"),
                1 => text.replace('\n', "\r"),
                _ => text.replace('\n', " "),
            }
        }
        _ => {
            // A long line: pad to past column 65,535 at this point.
            if c % 8 == 0 {
                text.insert_str(at, &" ".repeat(65_536 + b as usize % 1000));
            } else {
                text.insert_str(at, &"x".repeat(1 + b as usize % 300));
            }
        }
    }
}

type Ops = Vec<(u8, u32, u32, u32)>;

fn ops() -> impl Strategy<Value = Ops> {
    prop::collection::vec(
        (any::<u8>(), any::<u32>(), any::<u32>(), any::<u32>()),
        0..4,
    )
}

fn apply(mut text: String, ops: &Ops, other: &str) -> String {
    for &(op, a, b, c) in ops {
        mutate(&mut text, op, a, b, c, other);
    }
    text
}

/// Writes a failing input to `inputs/fuzz-corpus/pending/`.
fn keep(name: &str, text: &str, defines: &Defines) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/inputs/fuzz-corpus/pending");
    let _ = std::fs::create_dir_all(&dir);
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("{name}-{:08x}.gc", hash as u32));
    let _ = std::fs::write(&path, text);
    if !defines.is_empty() {
        // Replay it with the defines (which `-D` may reject as a whole word).
        let d: String = defines
            .iter()
            .map(|(k, v)| format!(" -D {k}={v}"))
            .collect();
        let lines: Vec<String> = DEFAULT_COMMANDS.iter().map(|c| format!("{c}{d}")).collect();
        let _ = std::fs::write(path.with_extension("args"), lines.join("\n") + "\n");
    }
    path
}

/// The address space a fuzz child may map.
const CHILD_ADDRESS_SPACE: u64 = 2 << 30;

/// How long one case may take in the child. A case runs some twenty
/// stages, each classifying the model anew; classification is bounded
/// (2^30 expression nodes) but a model at that bound takes seconds per
/// stage in a test build on a loaded machine. A hang is still a hang.
const CASE_TIMEOUT_MS: u32 = 120_000;

/// Runs `cases` fuzz cases of `strategy` in a child process (see the module
/// documentation); a failure shrinks, is kept, and fails the test. `test`
/// is the calling test's name, which the child process is started with.
fn fuzz<S>(
    test: &'static str,
    name: &'static str,
    cases: u32,
    salt: u64,
    strategy: S,
    input: fn(&S::Value) -> (String, Defines),
) where
    S: Strategy + Send + 'static,
    S::Value: std::fmt::Debug,
{
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            if std::env::var_os("RUSTY_FORK_OCCURS").is_some() {
                // The child: cap its address space before running cases.
                let lim = libc::rlimit {
                    rlim_cur: CHILD_ADDRESS_SPACE,
                    rlim_max: CHILD_ADDRESS_SPACE,
                };
                // SAFETY: plain data, and lowering our own limit only.
                unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
            }
            let config = Config {
                cases: case_count(cases),
                failure_persistence: None,
                fork: true,
                timeout: CASE_TIMEOUT_MS,
                test_name: Some(test),
                max_shrink_iters: 512,
                max_shrink_time: 300_000,
                ..Config::default()
            };
            let result = TestRunner::new_with_rng(config, rng(salt)).run(&strategy, |v| {
                let (text, defines) = input(&v);
                run_pipeline(&text, &defines)
            });
            match result {
                Ok(()) => Ok(()),
                Err(TestError::Fail(why, v)) => {
                    let (text, defines) = input(&v);
                    let path = keep(name, &text, &defines);
                    Err(format!(
                        "{name}: {why}\nshrunk input kept in {}",
                        path.display()
                    ))
                }
                Err(e) => Err(format!("{name}: {e}")),
            }
        })
        .unwrap();
    if let Err(e) = worker.join().expect("the fuzz thread does not abort") {
        panic!("{e}");
    }
}

fn no_defines() -> Defines {
    Vec::new()
}

type SeedCase = (u8, prop::sample::Index, prop::sample::Index, Ops);

fn seed_strategy() -> impl Strategy<Value = SeedCase> {
    (
        any::<u8>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        ops(),
    )
}

/// Three times in four a model that compiles, else a bad input.
fn seed_input((bad, k, j, ops): &SeedCase) -> (String, Defines) {
    let (good, errors) = seeds();
    let from = if bad % 4 == 0 { errors } else { good };
    (
        apply(k.get(from).clone(), ops, j.get::<String>(good)),
        no_defines(),
    )
}

#[test]
fn fuzz_mutated_seed_inputs() {
    fuzz(
        concat!(module_path!(), "::fuzz_mutated_seed_inputs"),
        "seed",
        400,
        11,
        seed_strategy(),
        seed_input,
    );
}

type GeneratedCase = (bool, Vec<u16>, prop::sample::Index, Ops);

fn generated_strategy() -> impl Strategy<Value = GeneratedCase> {
    (
        any::<bool>(),
        crate::differential2::choices2(),
        any::<prop::sample::Index>(),
        ops(),
    )
}

fn generated_input((second, data, j, ops): &GeneratedCase) -> (String, Defines) {
    let text = if *second {
        crate::generate2::system2(&mut crate::generate2::Choices::new(data))
    } else {
        crate::generate::system(&mut crate::generate::Choices::new(data))
    };
    (apply(text, ops, j.get::<String>(seeds().0)), no_defines())
}

#[test]
fn fuzz_mutated_generated_systems() {
    fuzz(
        concat!(module_path!(), "::fuzz_mutated_generated_systems"),
        "generated",
        250,
        12,
        generated_strategy(),
        generated_input,
    );
}

fn soup_strategy() -> impl Strategy<Value = Vec<prop::sample::Index>> {
    prop::collection::vec(any::<prop::sample::Index>(), 0..200)
}

fn soup_input(tokens: &Vec<prop::sample::Index>) -> (String, Defines) {
    let text: Vec<&str> = tokens.iter().map(|k| *k.get(TOKENS)).collect();
    (text.join(" "), no_defines())
}

#[test]
fn fuzz_token_soup() {
    fuzz(
        concat!(module_path!(), "::fuzz_token_soup"),
        "soup",
        400,
        13,
        soup_strategy(),
        soup_input,
    );
}

type DefinesCase = (bool, prop::sample::Index, prop::sample::Index);

fn defines_strategy() -> impl Strategy<Value = DefinesCase> {
    (
        any::<bool>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
}

fn defines_input((which, name, value): &DefinesCase) -> (String, Defines) {
    let (file, constant) = if *which {
        ("models/philosophers.gc", "N")
    } else {
        ("models/barrier-k.gc", "K")
    };
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let names = [constant, constant, constant, "M", "", " ", "N=1", "self"];
    let values = [
        "0",
        "1",
        "2",
        "4",
        "-1",
        "1025",
        "65536",
        "1000000000000",
        "true",
        "",
        "9223372036854775807",
        "-9223372036854775808",
        "99999999999999999999",
        "1e3",
        "0x10",
        " 3 ",
    ];
    (
        text,
        vec![(name.get(&names).to_string(), value.get(&values).to_string())],
    )
}

#[test]
fn fuzz_extreme_defines() {
    fuzz(
        concat!(module_path!(), "::fuzz_extreme_defines"),
        "defines",
        150,
        14,
        defines_strategy(),
        defines_input,
    );
}

/// The harness reaches every stage: of the inputs each fuzz test draws, a
/// good share fail to parse, and a good share compile and so reach the
/// checker. (The fuzz tests run in a child process, so this counts on a
/// sample drawn here.)
#[test]
fn fuzz_inputs_reach_every_stage() {
    use proptest::strategy::ValueTree;
    fn sample<S: Strategy>(
        strategy: S,
        input: fn(&S::Value) -> (String, Defines),
    ) -> (u32, u32, u32) {
        let mut runner = TestRunner::new_with_rng(Config::default(), rng(99));
        let (mut bad_syntax, mut compiled, n) = (0, 0, 200);
        for _ in 0..n {
            let v = strategy.new_tree(&mut runner).unwrap().current();
            let (text, defines) = input(&v);
            let Ok(src) = Source::new("f.gc", text) else {
                bad_syntax += 1;
                continue;
            };
            if parse(&src).is_err() {
                bad_syntax += 1;
            } else if compile(&src, &defines).is_ok() {
                compiled += 1;
            }
        }
        (bad_syntax, compiled, n)
    }
    let shares = [
        ("seed", sample(seed_strategy(), seed_input)),
        ("generated", sample(generated_strategy(), generated_input)),
        ("soup", sample(soup_strategy(), soup_input)),
        ("defines", sample(defines_strategy(), defines_input)),
    ];
    // The share (in percent) that must compile, and that must not parse.
    let want = [
        ("seed", 25, 20),
        ("generated", 25, 20),
        ("soup", 0, 90),
        ("defines", 5, 0),
    ];
    for ((name, (bad, ok, n)), (_, ok_pct, bad_pct)) in shares.into_iter().zip(want) {
        eprintln!("{name}: {bad} of {n} fail to parse, {ok} compile");
        assert!(
            100 * ok >= ok_pct * n,
            "{name}: only {ok} of {n} inputs compile"
        );
        assert!(
            100 * bad >= bad_pct * n,
            "{name}: only {bad} of {n} inputs fail to parse"
        );
    }
}

/// The command lines a corpus input is replayed with, unless a `.args`
/// file next to it lists its own (one per line, `{}` for the file,
/// optionally `=> 0,3` for the exit codes it must end with).
pub const DEFAULT_COMMANDS: &[&str] = &[
    "check {} --max-states 20000 --max-time 10 --max-memory 200",
    "check {} --reduction none --max-states 20000 --max-time 10 --max-memory 200",
    "check {} --deadlock --certify --max-states 20000 --max-time 10",
    "check {} --ignoring cycles --deadlock --max-states 20000 --max-time 10",
    "check {} --ignoring forbid --max-states 20000 --max-time 10",
    "check {} --reduction movers --max-states 20000 --max-time 10",
    "check {} --reduction stubborn --deadlock --max-states 20000 --max-time 10",
    "check {} --reduction sc+stubborn --max-states 20000 --max-time 10",
    "classify {}",
    "classify {} --reduction movers",
    "check {} --summaries --max-states 20000 --max-time 10",
    "certify {} --max-time 10",
    "certify {} --exhaustive --max-states 20000 --max-time 10",
    "export {} --to promela",
    "export {} --to murphi --format json",
    "graph {} --reduction sc --max-states 200",
    "refine {} --max-states 20000",
    "refine {} --guess locks --incremental --max-states 20000",
    "refine {} --guess locks --incremental --reduction movers --max-states 20000",
];

#[test]
fn fuzz_corpus_replays_through_the_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/inputs/fuzz-corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "gc"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus is empty");
    let mut failures = Vec::new();
    for file in &files {
        let rel = crate::common::rel(file);
        let sidecar = file.with_extension("args");
        let lines: Vec<String> = match std::fs::read_to_string(&sidecar) {
            Ok(t) => t
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect(),
            Err(_) => DEFAULT_COMMANDS.iter().map(|s| s.to_string()).collect(),
        };
        for line in lines {
            let (command, codes) = match line.split_once("=>") {
                Some((c, k)) => (c.trim().to_string(), Some(k.trim().to_string())),
                None => (line.clone(), None),
            };
            let args: Vec<String> = command
                .split_whitespace()
                .map(|w| w.replace("{}", &rel))
                .collect();
            let run = watchdog::run(&args);
            let mut why = run.unclean();
            if why.is_none() {
                if let (Some(codes), Some(code)) = (&codes, run.code) {
                    if !codes.split(',').any(|k| k.trim() == code.to_string()) {
                        why = Some(format!(
                            "exit {code}, expected one of {codes}: {}",
                            watchdog::tail(&run.stderr)
                        ));
                    }
                }
            }
            if let Some(w) = why {
                failures.push(format!("optimist {}: {w}", args.join(" ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
