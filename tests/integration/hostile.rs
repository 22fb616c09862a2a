//! Hostile inputs, run through the binary under a watchdog: deep nesting of
//! every form at depth 100,000, `repeat` nesting that unrolls to 10^12
//! statements, quantifier ranges of 10^12, 50,000-line files, a column
//! past 65,535, extreme flag values, an invisible run through 10^9
//! states, and big models under `--max-memory 100`.
//!
//! Every run must end cleanly: exit 0, 1, 2 or 3, no panic, no abort, and
//! no hang (the watchdog kills a run after 60 s, and that fails the test).
//! Bad input exits 2 with a `file:line:col` error; a limit exits 3; a run
//! given `--max-memory M` peaks within M + 10%, plus [`ALLOWANCE_MB`] for
//! the binary itself. The table of every run (input, exit, seconds, peak
//! MB) is printed (`cargo test --test integration hostile -- --nocapture`)
//! and written to `target/tmp/hostile/table.md`. No time is asserted:
//! only the watchdog catches hangs.
//!
//! The inputs are generated at test time into `target/tmp/hostile/`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::watchdog::{self, Finished};

/// The depth of every deep-nesting input.
const DEPTH: usize = 100_000;

/// Memory the binary needs whatever its limits: code, libraries, the
/// touched pages of the worker's stack, buffers. A small model (`check
/// models/barrier.gc` and every flag case below) peaks at 5 to 8 MB in a
/// debug build; twice that leaves room without hiding a store that
/// overshoots its limit (the hash table doubling past 100 MB reached 154).
pub const ALLOWANCE_MB: f64 = 16.0;

/// The `--max-memory` of the cases that fill the state store: 24 MB takes
/// the store through the same growth steps as 100 MB, and a test build
/// (what `cargo test` runs, optimised at level 1 without debug assertions:
/// see Cargo.toml) needs about a minute on a loaded 2-core machine to store
/// 100 MB of states one state per level.
const STORE_MB: &str = "24";

/// What a case must end with.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Exit 2 with an error at a place in the input.
    Input(Loc),
    /// Exit 2 (a usage error: a flag, a `-D`), with any message.
    Usage,
    /// Exit 3: a limit ended the run.
    Limit,
    /// Exit 2 with an error at a place, or 3: a limit ended the run.
    InputOrLimit,
    /// Exit 2 (any message), or 3.
    UsageOrLimit,
    /// A legal input that must be decided: exit 0 or 1.
    Decided,
    /// A legal input: decided, or stopped by a limit.
    DecidedOrLimit,
    /// `classify` on an input it may reject: exit 0, or 2 with a place.
    ClassifiedOrInput,
}

/// Where a bad input's error must point.
#[derive(Clone, Copy, Debug)]
enum Loc {
    /// Anywhere in the input.
    Any,
    /// This line and column (1-based).
    At(usize, usize),
}

struct Case {
    name: String,
    args: Vec<String>,
    want: Want,
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> String {
    let path = dir().join(format!("{name}.gc"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// `n` copies of `s`.
fn rep(s: &str, n: usize) -> String {
    s.repeat(n)
}

/// A model whose thread body is `stmt` (at line 5).
fn in_body(stmt: &str) -> String {
    format!(
        "shared y : 0..1 = 0;\nshared a[2] : 0..1 = [0, 0];\nlock m;\nthread T {{\n  L: {stmt}\n}}\n"
    )
}

/// The deep-nesting inputs: every nested form, `DEPTH` levels deep.
fn deep_cases(cases: &mut Vec<Case>) {
    let d = DEPTH;
    let forms: Vec<(&str, String)> = vec![
        (
            "parens",
            in_body(&format!("y := {}0{};", rep("(", d), rep(")", d))),
        ),
        (
            "index",
            in_body(&format!("y := {}0{};", rep("a[", d), rep("]", d))),
        ),
        (
            "at",
            in_body(&format!("await {}0{};", rep("at(", d), rep(", L)", d))),
        ),
        (
            "init",
            in_body(&format!("await {}0{};", rep("init(", d), rep(", y)", d))),
        ),
        ("not", in_body(&format!("await {}true;", rep("!", d)))),
        ("neg", in_body(&format!("y := {}0;", rep("-", d)))),
        (
            "neg-parens",
            in_body(&format!("y := {}0{};", rep("-(", d), rep(")", d))),
        ),
        ("plus-chain", in_body(&format!("y := 0{};", rep(" + 0", d)))),
        (
            "and-chain",
            in_body(&format!("await true{};", rep(" && true", d))),
        ),
        (
            "compare-chain",
            in_body(&format!("await (0{}) == 0;", rep(" - 0", d))),
        ),
        (
            "exists",
            in_body(&format!("await {}true;", rep("exists v in 0..1: ", d))),
        ),
        (
            "mixed",
            in_body(&format!("y := {}0{};", rep("-a[(", d), rep(")]", d))),
        ),
        (
            "if",
            in_body(&format!("{}skip;{}", rep("if true { ", d), rep(" }", d))),
        ),
        (
            "while",
            in_body(&format!(
                "{}skip;{}",
                rep("while false { ", d),
                rep(" }", d)
            )),
        ),
        (
            "atomic",
            in_body(&format!("{}y := 0;{}", rep("atomic { ", d), rep(" }", d))),
        ),
        (
            "either",
            in_body(&format!(
                "{}skip;{}",
                rep("either { ", d),
                rep(" } or { skip; }", d)
            )),
        ),
        (
            "repeat",
            in_body(&format!("{}skip;{}", rep("repeat 1 { ", d), rep(" }", d))),
        ),
        (
            "init-block",
            in_body(&format!("{}y := 0;{}", rep("init y { ", d), rep(" }", d))),
        ),
        (
            "excl",
            format!(
                "lock m;\nprotected x : 0..1 = 0 excl(t) = {}m == t{};\nthread T {{ skip; }}\n",
                rep("(", d),
                rep(")", d)
            ),
        ),
        (
            "type",
            format!(
                "shared y : 0..{}1{} = 0;\nthread T {{ skip; }}\n",
                rep("(", d),
                rep(")", d)
            ),
        ),
    ];
    for (form, text) in forms {
        let name = format!("deep-{form}");
        let file = write(&name, &text);
        cases.push(Case {
            name,
            args: vec!["check".into(), file],
            want: Want::Input(Loc::Any),
        });
    }
    // Unclosed: the input ends inside the nesting.
    let name = "deep-parens-unclosed".to_string();
    let file = write(&name, &in_body(&format!("y := {}0", rep("(", d))));
    cases.push(Case {
        name,
        args: vec!["check".into(), file],
        want: Want::Input(Loc::Any),
    });
}

fn repeat_cases(cases: &mut Vec<Case>) {
    let mut push = |name: &str, text: String, extra: &[&str], want: Want| {
        let file = write(name, &text);
        let mut a = args(&["check", &file]);
        a.extend(args(extra));
        cases.push(Case {
            name: name.into(),
            args: a,
            want,
        });
    };
    push(
        "repeat-nest-1e12",
        in_body(&format!(
            "{}y := 1 - y;{}",
            rep("repeat 1000 { ", 4),
            rep(" }", 4)
        )),
        &[],
        Want::Input(Loc::Any),
    );
    push(
        "repeat-nest-65536-cubed",
        in_body(&format!(
            "{}y := 1 - y;{}",
            rep("repeat 65536 { ", 3),
            rep(" }", 3)
        )),
        &[],
        Want::Input(Loc::Any),
    );
    push(
        "repeat-count-1e12",
        in_body("repeat 1000000000000 { skip; }"),
        &[],
        Want::Input(Loc::Any),
    );
    push(
        "repeat-define-1e12",
        format!(
            "const K = 1;\n{}",
            in_body(&format!(
                "{}y := 1 - y;{}",
                rep("repeat K { ", 3),
                rep(" }", 3)
            ))
        ),
        &["-D", "K=10000"],
        Want::Usage,
    );
    // Legal: 10^5 statements, without and with a memory limit.
    push(
        "repeat-1e5-legal",
        in_body("repeat 100 { repeat 1000 { y := 1 - y; } }"),
        &[],
        Want::Decided,
    );
    push(
        "repeat-1e5-legal-max-memory",
        in_body("repeat 100 { repeat 1000 { y := 1 - y; } }"),
        &["--max-memory", "100"],
        Want::DecidedOrLimit,
    );
    // With a memory limit the unrolling must respect it or be refused.
    push(
        "repeat-nest-1e12-max-memory",
        in_body(&format!(
            "{}y := 1 - y;{}",
            rep("repeat 1000 { ", 4),
            rep(" }", 4)
        )),
        &["--max-memory", "100"],
        Want::Input(Loc::Any),
    );
}

fn quantifier_cases(cases: &mut Vec<Case>) {
    let big = "1000000000000";
    let models = [
        (
            "quant-invariant",
            format!(
                "shared y : 0..1 = 0;\ninvariant !(exists v in 0..{big}: v == y - 1);\nthread T {{ y := 1; y := 0; }}\n"
            ),
        ),
        (
            "quant-assert",
            format!("shared y : 0..1 = 0;\nthread T {{ y := 1; assert forall v in 0..{big}: v >= y - 1; }}\n"),
        ),
        (
            "quant-guard",
            format!("shared y : 0..1 = 0;\nthread T {{ await !(exists v in 0..{big}: v < 0); y := 1; }}\n"),
        ),
        (
            "quant-nested",
            "shared y : 0..1 = 0;\nthread T { y := 1; assert forall v in 0..1000000: forall w in 0..1000000: v + w >= 0; }\n"
                .to_string(),
        ),
        (
            "quant-excl",
            format!(
                "shared y : 0..1 = 0;\nlock m;\nprotected x : 0..1 = 0 excl(t) = m == t && (forall v in 0..{big}: v >= y - 1);\nthread T {{ acquire m; x := 1; release m; y := 1; }}\nthread U {{ acquire m; x := 0; release m; }}\n"
            ),
        ),
    ];
    for (name, text) in models {
        let file = write(name, &text);
        for (mode, reduction) in [("sc", "sc"), ("full", "none")] {
            cases.push(Case {
                name: format!("{name}-{mode}"),
                args: args(&[
                    "check",
                    &file,
                    "--reduction",
                    reduction,
                    "--max-time",
                    "5",
                    "--max-memory",
                    "100",
                ]),
                want: Want::InputOrLimit,
            });
        }
    }
    let file = dir().join("quant-excl.gc").display().to_string();
    cases.push(Case {
        name: "quant-excl-classify".into(),
        args: args(&["classify", &file]),
        want: Want::ClassifiedOrInput,
    });
    cases.push(Case {
        name: "quant-excl-certify".into(),
        args: args(&["certify", &file, "--max-time", "5", "--max-memory", "100"]),
        want: Want::InputOrLimit,
    });
}

/// A legal model of `lines` lines: one thread flipping `y` on each line.
fn long_model(lines: usize) -> String {
    let mut s = String::from("shared y : 0..1 = 0;\nthread T {\n");
    for _ in 0..lines.saturating_sub(3) {
        s += "  y := 1 - y;\n";
    }
    s += "}\n";
    s
}

fn size_cases(cases: &mut Vec<Case>) {
    for k in [10, 20, 40, 50] {
        let name = format!("lines-{k}k");
        let file = write(&name, &long_model(k * 1000));
        cases.push(Case {
            name,
            args: args(&["check", &file]),
            want: Want::Decided,
        });
    }
    // An error on line 50,001, after 50,000 lines.
    let mut text = String::from("shared y : 0..1 = 0;\n");
    for _ in 1..50_000 {
        text += "// filler\n";
    }
    text += "thread T { y := @; }\n";
    let file = write("lines-50k-error-at-end", &text);
    cases.push(Case {
        name: "lines-50k-error-at-end".into(),
        args: args(&["check", &file]),
        want: Want::Input(Loc::At(50_001, 17)),
    });
    // Columns past 65,535.
    let pad = 70_000;
    let line1 = format!("shared y : 0..1 = 0;{}@", rep(" ", pad));
    let file = write("column-70k", &format!("{line1}\nthread T {{ skip; }}\n"));
    cases.push(Case {
        name: "column-70k".into(),
        args: args(&["check", &file]),
        want: Want::Input(Loc::At(1, 20 + pad + 1)),
    });
    let file = write(
        "column-70k-name",
        &format!(
            "shared y : 0..1 = 0;\nthread T {{ y := {}; }}\n",
            rep("q", pad)
        ),
    );
    cases.push(Case {
        name: "column-70k-name".into(),
        args: args(&["check", &file]),
        want: Want::Input(Loc::At(2, 17)),
    });
    let file = write(
        "column-70k-unicode",
        &format!(
            "shared y : 0..1 = 0; /* {} */ @\nthread T {{ skip; }}\n",
            rep("é\u{200b}\u{202e}", pad / 3)
        ),
    );
    cases.push(Case {
        name: "column-70k-unicode".into(),
        args: args(&["check", &file]),
        want: Want::Input(Loc::Any),
    });
    // Scale: many threads, a large protected array.
    let threads = write(
        "threads-1000",
        "threads 1000;\nlock m;\nshared y : 0..1 = 0;\nprotected x : 0..1 = 0 by m;\nthread T { acquire m; x := 1 - x; release m; y := 1 - y; }\n",
    );
    cases.push(Case {
        name: "threads-1000-classify".into(),
        args: args(&["classify", &threads]),
        want: Want::Decided,
    });
    cases.push(Case {
        name: "threads-1000-check".into(),
        args: args(&["check", &threads, "--max-time", "5", "--max-memory", "100"]),
        want: Want::DecidedOrLimit,
    });
    let array = write(
        "array-65536",
        "lock m;\nprotected x[65536] : 0..1 = 0 excl(t, j) = m == t;\nthread T { acquire m; x[65535] := 1; release m; }\nthread U { acquire m; x[0] := 1; release m; }\n",
    );
    cases.push(Case {
        name: "array-65536".into(),
        args: args(&["check", &array, "--max-memory", "100"]),
        want: Want::DecidedOrLimit,
    });
}

fn flag_cases(cases: &mut Vec<Case>) {
    let barrier = "models/barrier.gc";
    let mut push = |name: &str, a: &[&str], want: Want| {
        cases.push(Case {
            name: name.into(),
            args: args(a),
            want,
        });
    };
    push(
        "flag-max-time-1e20",
        &["check", barrier, "--max-time", "1e20"],
        Want::Usage,
    );
    push(
        "flag-max-time-negative",
        &["check", barrier, "--max-time=-1"],
        Want::Usage,
    );
    push(
        "flag-max-time-nan",
        &["check", barrier, "--max-time", "NaN"],
        Want::Usage,
    );
    push(
        "flag-max-time-inf",
        &["check", barrier, "--max-time", "inf"],
        Want::Usage,
    );
    push(
        "flag-max-time-1e9",
        &["check", barrier, "--max-time", "1e9"],
        Want::Decided,
    );
    push(
        "flag-max-states-0",
        &["check", barrier, "--max-states", "0", "--format", "json"],
        Want::UsageOrLimit,
    );
    push(
        "flag-max-memory-0",
        &["check", barrier, "--max-memory", "0"],
        Want::UsageOrLimit,
    );
    push(
        "flag-max-states-u64max",
        &["check", barrier, "--max-states", "18446744073709551615"],
        Want::Decided,
    );
    push(
        "flag-max-memory-u64max",
        &["check", barrier, "--max-memory", "18446744073709551615"],
        // More mebibytes than a u64 holds bytes: refused, with the maximum.
        Want::Usage,
    );
    push(
        "flag-max-states-2^64",
        &["check", barrier, "--max-states", "18446744073709551616"],
        Want::Usage,
    );
    push(
        "flag-max-memory-fraction",
        &["check", barrier, "--max-memory", "0.5"],
        Want::Usage,
    );
    let phil = "models/philosophers.gc";
    push(
        "flag-define-huge",
        &["check", phil, "-D", "N=99999999999999999999"],
        Want::Usage,
    );
    push(
        "flag-define-i64max",
        &["check", phil, "-D", "N=9223372036854775807"],
        Want::Usage,
    );
    push(
        "flag-define-i64min",
        &["check", phil, "-D", "N=-9223372036854775808"],
        Want::Usage,
    );
    push(
        "flag-define-zero-threads",
        &["check", phil, "-D", "N=0"],
        Want::Usage,
    );
    let bk = "models/barrier-k.gc";
    push(
        "flag-define-repeat-1e12",
        &["check", bk, "-D", "K=1000000000000"],
        Want::Usage,
    );
    push(
        "flag-define-repeat-negative",
        &["check", bk, "-D", "K=-1"],
        Want::Usage,
    );
    push(
        "flag-define-repeat-65536",
        &[
            "check",
            bk,
            "-D",
            "K=65536",
            "--max-time",
            "5",
            "--max-memory",
            "100",
        ],
        Want::DecidedOrLimit,
    );
    push(
        "flag-certify-max-states-0",
        &[
            "certify",
            barrier,
            "--exhaustive",
            "--max-states",
            "0",
            "--format",
            "json",
        ],
        Want::UsageOrLimit,
    );
    push(
        "flag-certify-max-time-1e20",
        &["certify", barrier, "--max-time", "1e20"],
        Want::Usage,
    );
    push(
        "flag-refine-max-states-0",
        &["refine", barrier, "--max-states", "0", "--format", "json"],
        Want::UsageOrLimit,
    );
    push(
        "flag-refine-max-time-1e20",
        &["refine", barrier, "--max-time", "1e20"],
        Want::Usage,
    );
    push(
        "flag-check-certify-max-time-1e20",
        &["check", barrier, "--certify", "--max-time", "1e20"],
        Want::Usage,
    );
}

/// A thread-local loop through 10^9 states without a visible point: one
/// invisible run of the reduced system.
const INVISIBLE: &str = "shared go : 0..1 = 0;
thread T {
  local a : 0..1000 = 0;
  local b : 0..1000 = 0;
  local c : 0..1000 = 0;
  go := 1;
  while a < 1000 {
    b := 0;
    while b < 1000 {
      c := 0;
      while c < 1000 {
        c := c + 1;
      }
      b := b + 1;
    }
    a := a + 1;
  }
  go := 0;
}
";

/// Eight threads, each picking values and updating a protected variable
/// under a lock: far more states than fit in 100 MB, in either mode.
const BIG: &str = "threads 8;
lock m;
shared y : 0..7 = 0;
protected x : 0..7 = 0 by m;
thread T {
  local a : 0..7 = 0;
  L: a := any 0..7;
  acquire m;
  x := (x + a) % 8;
  release m;
  y := (y + 1) % 8;
  goto L;
}
";

/// Two threads of 20,000 invisible control points each.
const WIDE: &str = "lock m;
protected g : 0..1 = 0 by m;
thread A { local r : 0..1 = 0; acquire m; repeat 20000 { r := 1 - r; } g := 1; release m; }
thread B { local r : 0..1 = 0; acquire m; repeat 20000 { r := 1 - r; } g := 0; release m; }
";

fn limit_cases(cases: &mut Vec<Case>) {
    let inv = write("invisible-1e9", INVISIBLE);
    let big = write("big", BIG);
    let wide = write("wide-pairs", WIDE);
    let mut push = |name: &str, a: &[&str]| {
        cases.push(Case {
            name: name.into(),
            args: a
                .iter()
                .map(|w| if *w == "MB" { STORE_MB } else { w }.to_string())
                .collect(),
            want: Want::Limit,
        });
    };
    push(
        "invisible-1e9-max-states",
        &["check", &inv, "--max-states", "100000"],
    );
    push(
        "invisible-1e9-max-time",
        &["check", &inv, "--max-time", "2"],
    );
    push(
        "invisible-1e9-max-memory",
        &["check", &inv, "--max-memory", "MB"],
    );
    push(
        "invisible-1e9-full-max-memory",
        &["check", &inv, "--reduction", "none", "--max-memory", "MB"],
    );
    push(
        "invisible-1e9-check-certify",
        &["check", &inv, "--certify", "--max-states", "100000"],
    );
    push("invisible-1e9-certify", &["certify", &inv]);
    // 4x10^8 pairs of control points: certify's local level stops making
    // instances at the limit (it once made them all first).
    push(
        "wide-pairs-certify-max-time",
        &["certify", &wide, "--max-time", "2"],
    );
    push(
        "wide-pairs-certify-max-memory",
        &["certify", &wide, "--max-memory", "MB"],
    );
    push(
        "invisible-1e9-certify-exhaustive",
        &["certify", &inv, "--exhaustive", "--max-states", "100000"],
    );
    push(
        "invisible-1e9-certify-exhaustive-max-memory",
        &["certify", &inv, "--exhaustive", "--max-memory", "MB"],
    );
    push(
        "invisible-1e9-refine",
        &["refine", &inv, "--max-states", "100000"],
    );
    push(
        "invisible-1e9-refine-max-memory",
        &["refine", &inv, "--max-memory", "MB"],
    );
    push(
        "big-full-max-memory",
        &["check", &big, "--reduction", "none", "--max-memory", "MB"],
    );
    push("big-sc-max-memory", &["check", &big, "--max-memory", "MB"]);
    push(
        "big-deadlock-max-memory",
        &["check", &big, "--deadlock", "--max-memory", "MB"],
    );
    push(
        "big-check-certify-max-memory",
        &["check", &big, "--certify", "--max-memory", "MB"],
    );
    push(
        "big-certify-exhaustive-max-memory",
        &["certify", &big, "--exhaustive", "--max-memory", "MB"],
    );
    push(
        "big-refine-max-memory",
        &["refine", &big, "--max-memory", "MB"],
    );
    push(
        "big-refine-locks-max-memory",
        &["refine", &big, "--guess", "locks", "--max-memory", "MB"],
    );
    push(
        "big-full-max-time",
        &["check", &big, "--reduction", "none", "--max-time", "3"],
    );
}

/// Every case, with its inputs written (once per test process).
fn all_cases() -> &'static [Case] {
    static CASES: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
    CASES.get_or_init(build_cases)
}

fn build_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    deep_cases(&mut cases);
    repeat_cases(&mut cases);
    quantifier_cases(&mut cases);
    size_cases(&mut cases);
    flag_cases(&mut cases);
    limit_cases(&mut cases);
    cases
}

/// The `--max-memory` of a command line, in MB.
fn max_memory(args: &[String]) -> Option<f64> {
    let k = args.iter().position(|a| a == "--max-memory")?;
    args.get(k + 1)?.parse::<f64>().ok().filter(|m| *m > 0.0)
}

/// Whether stderr has an error at `file:line:col` of the case's input.
fn location(stderr: &str, file: Option<&str>, loc: Loc) -> Result<(), String> {
    let Some(file) = file else {
        return Err("no input file".into());
    };
    let name = Path::new(file).file_name().unwrap().to_string_lossy();
    let found = stderr.lines().find_map(|l| {
        let at = l.find(&format!("{name}:"))?;
        let rest = &l[at + name.len() + 1..];
        let mut parts = rest.splitn(3, ':');
        let line: usize = parts.next()?.parse().ok()?;
        let col: usize = parts.next()?.trim().parse().ok()?;
        Some((line, col))
    });
    match (found, loc) {
        (None, _) => Err(format!("no `{name}:line:col` in the error")),
        (Some(_), Loc::Any) => Ok(()),
        (Some(got), Loc::At(l, c)) if got == (l, c) => Ok(()),
        (Some((gl, gc)), Loc::At(l, c)) => {
            Err(format!("the error is at {gl}:{gc}, not at {l}:{c}"))
        }
    }
}

/// What is wrong with how a case ended, if anything.
fn judge(case: &Case, run: &Finished) -> Option<String> {
    if let Some(why) = run.unclean() {
        return Some(why);
    }
    let code = run.code.unwrap_or(-1);
    let file = case
        .args
        .get(1)
        .filter(|a| a.ends_with(".gc"))
        .map(String::as_str);
    let input = |loc| {
        location(&run.stderr, file, loc)
            .err()
            .map(|e| format!("{e}: {}", watchdog::tail(&run.stderr)))
    };
    let bad_code = |want: &str| {
        Some(format!(
            "exit {code}, expected {want}: {}",
            watchdog::tail(&run.stderr)
        ))
    };
    let verdict = match case.want {
        Want::Input(loc) if code == 2 => input(loc),
        Want::Input(_) => bad_code("2 with file:line:col"),
        Want::Usage if code == 2 => None,
        Want::Usage => bad_code("2"),
        Want::Limit if code == 3 => None,
        Want::Limit => bad_code("3 (a limit)"),
        Want::InputOrLimit if code == 2 => input(Loc::Any),
        Want::InputOrLimit if code == 3 => None,
        Want::InputOrLimit => bad_code("2 with file:line:col, or 3"),
        Want::UsageOrLimit if code == 2 => None,
        Want::UsageOrLimit if code == 3 => {
            // A limit of zero means zero: nothing stored.
            let stored = serde_json::from_str::<serde_json::Value>(&run.stdout)
                .ok()
                .and_then(|v| v["states"].as_u64().or(v["explored_states"].as_u64()));
            match stored {
                Some(n) if n > 0 => Some(format!("a limit of 0 stored {n} states")),
                _ => None,
            }
        }
        Want::UsageOrLimit => bad_code("2 or 3"),
        Want::Decided if code <= 1 => None,
        Want::Decided => bad_code("0 or 1"),
        Want::DecidedOrLimit if code != 2 => None,
        Want::DecidedOrLimit => bad_code("0, 1 or 3"),
        Want::ClassifiedOrInput if code == 0 => None,
        Want::ClassifiedOrInput if code == 2 => input(Loc::Any),
        Want::ClassifiedOrInput => bad_code("0, or 2 with file:line:col"),
    };
    if verdict.is_some() {
        return verdict;
    }
    if let Some(limit) = max_memory(&case.args) {
        let bound = limit * 1.1 + ALLOWANCE_MB;
        if run.peak_mb() > bound {
            return Some(format!(
                "peak {:.1} MB with --max-memory {limit}: above {bound:.1} MB",
                run.peak_mb()
            ));
        }
    }
    None
}

fn table(rows: &[(String, Option<i32>, f64, f64, Option<String>)]) -> String {
    let mut t =
        String::from("| input | exit | seconds | peak MB | result |\n|---|---:|---:|---:|---|\n");
    for (name, code, secs, mb, fail) in rows {
        let code = code.map_or("-".to_string(), |c| c.to_string());
        let result = fail.as_deref().map_or("ok".to_string(), |f| {
            format!(
                "FAIL: {}",
                f.replace('\n', " ").chars().take(160).collect::<String>()
            )
        });
        let _ = writeln!(t, "| {name} | {code} | {secs:.2} | {mb:.1} | {result} |");
    }
    t
}

#[test]
fn hostile_inputs_end_cleanly() {
    let only = std::env::var("OPTIMIST_HOSTILE_ONLY").ok();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for case in all_cases() {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        let run = watchdog::run(&case.args);
        let fail = judge(case, &run);
        eprintln!(
            "{:<45} exit {:>2} {:>7.2} s {:>8.1} MB {}",
            case.name,
            run.code.map_or("-".into(), |c| c.to_string()),
            run.seconds,
            run.peak_mb(),
            fail.as_deref().unwrap_or("ok")
        );
        if let Some(f) = &fail {
            failures.push(format!("{}: {f}", case.name));
        }
        rows.push((
            case.name.clone(),
            run.code,
            run.seconds,
            run.peak_mb(),
            fail,
        ));
    }
    let t = table(&rows);
    println!("{t}");
    let _ = std::fs::write(dir().join("table.md"), &t);
    assert!(
        failures.is_empty(),
        "{} hostile cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn hostile_case_names_are_unique() {
    let names: Vec<&str> = all_cases().iter().map(|c| c.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "hostile case names are unique");
}
