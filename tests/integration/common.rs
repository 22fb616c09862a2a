//! Running the `optimist` binary and reading model headers.

use std::path::Path;
use std::process::Command;

/// Exit code, stdout and stderr of `optimist args...`.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn optimist<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `optimist args...`, with its stdout parsed as JSON.
pub fn json<I, S>(args: I) -> (Run, serde_json::Value)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let run = optimist(args);
    let v = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    (run, v)
}

/// The shipped models (`models/*.gc`), sorted.
/// The counterexample of `models/racy-counter.gc` as `check --format
/// json` prints it, every state stored (`--symmetry off`), so that tests
/// that follow it know which thread takes each step.
pub fn racy_counterexample() -> String {
    let run = optimist([
        "check",
        "models/racy-counter.gc",
        "--symmetry",
        "off",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1);
    run.stdout
}

pub fn models() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gc"))
        .collect();
    paths.sort();
    paths
}

/// The path of a file relative to the repository root, with `/` separators,
/// so that outputs are the same on every machine.
pub fn rel(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Insta settings that blank out what changes from run to run (times).
pub fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"time         [0-9.]+ ms", "time         [time] ms");
    s.add_filter(r#""elapsed_ms": [0-9.e+-]+"#, r#""elapsed_ms": "[time]""#);
    s.set_prepend_module_to_snapshot(false);
    s
}

/// One `// expect[ FLAGS]: VERDICT [KIND][, full N][, sc N][, movers N][, stubborn N][, sc+stubborn N][, movers+stubborn N]`
/// header line.
#[derive(Clone, Debug)]
pub struct Expect {
    pub flags: Vec<String>,
    pub verdict: String,
    pub kind: Option<String>,
    pub full: Option<u64>,
    pub sc: Option<u64>,
    pub movers: Option<u64>,
    pub stubborn: Option<u64>,
    pub sc_stubborn: Option<u64>,
    pub movers_stubborn: Option<u64>,
}

pub fn expectations(text: &str) -> Vec<Expect> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("// expect") else {
            continue;
        };
        let (flags, spec) = rest.split_once(':').expect("`// expect ...: ...`");
        let mut parts = spec.split(',').map(str::trim);
        let mut head = parts.next().unwrap().split_whitespace();
        let verdict = head.next().expect("a verdict").to_string();
        let kind = head.next().map(str::to_string);
        let (mut full, mut sc, mut movers) = (None, None, None);
        let (mut stubborn, mut sc_stubborn, mut movers_stubborn) = (None, None, None);
        for p in parts {
            match p.split_once(' ') {
                Some(("full", n)) => full = Some(n.trim().parse().expect("a count")),
                Some(("sc", n)) => sc = Some(n.trim().parse().expect("a count")),
                Some(("movers", n)) => movers = Some(n.trim().parse().expect("a count")),
                Some(("stubborn", n)) => stubborn = Some(n.trim().parse().expect("a count")),
                Some(("sc+stubborn", n)) => sc_stubborn = Some(n.trim().parse().expect("a count")),
                Some(("movers+stubborn", n)) => {
                    movers_stubborn = Some(n.trim().parse().expect("a count"))
                }
                _ => panic!("unknown expectation `{p}`"),
            }
        }
        out.push(Expect {
            flags: flags.split_whitespace().map(str::to_string).collect(),
            verdict,
            kind,
            full,
            sc,
            movers,
            stubborn,
            sc_stubborn,
            movers_stubborn,
        });
    }
    out
}
