//! The Promela front end: hand-written models whose headers give SPIN's
//! verdict and `-DNOREDUCE` state count, refusals with their place, and
//! SPIN's example corpus (`inputs/promela/spin-examples/`) against the
//! verdicts SPIN gave (`spin-results.tsv`), with its table in
//! `docs/src/promela.md` (`UPDATE_DOCS=1` rewrites it).

use std::path::Path;

use crate::common::optimist;

const DIR: &str = "tests/integration/inputs/promela";
const TABLE: &str = "<!-- promela corpus table: written by tests/integration/promela.rs -->";
const TABLE_END: &str = "<!-- end of promela corpus table -->";
/// States past which a corpus model counts as too large for the test.
const MAX_STATES: &str = "1000000";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `// spin: holds 12` or `// spin: violated` in a model's first lines.
fn header(text: &str) -> Option<(String, Option<u64>)> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("// spin:"))?;
    let mut words = line.split_whitespace();
    let verdict = words.next()?.to_string();
    let states = words.next().and_then(|w| w.parse().ok());
    Some((verdict, states))
}

/// Verdict and state count of `optimist check --reduction none`, or the
/// exit code and first error line.
fn check(path: &str) -> Result<(String, u64), (i32, String)> {
    check_with(path, "none")
}

/// [`check`] under another reduction.
fn check_with(path: &str, reduction: &str) -> Result<(String, u64), (i32, String)> {
    let run = optimist([
        "check",
        "--reduction",
        reduction,
        "--no-ltl",
        "--max-states",
        MAX_STATES,
        "--format",
        "json",
        path,
    ]);
    assert_ne!(run.code, 101, "{path} panicked: {}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{path}: {e}: {}{}", run.stdout, run.stderr));
    if let Some(message) = v["error"]["message"].as_str() {
        return Err((run.code, message.to_string()));
    }
    if run.code == 3 {
        return Err((3, "a limit".into()));
    }
    let verdict = v["verdict"].as_str().unwrap_or("?").to_string();
    let states = v["states"].as_u64().unwrap_or(0);
    Ok((verdict, states))
}

#[test]
fn promela_hand_written_models_match_spin() {
    let mut files: Vec<_> = std::fs::read_dir(root().join(DIR))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        let rel = format!("{DIR}/{}", p.file_name().unwrap().to_string_lossy());
        let Some((want, states)) = header(&text) else {
            panic!("{rel}: no `// spin:` header")
        };
        let (got, n) = check(&rel).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
        assert_eq!(got, want, "{rel}: verdict");
        if let Some(s) = states {
            assert_eq!(n, s, "{rel}: states (SPIN -DNOREDUCE)");
        }
    }
}

/// A `run` in a loop makes a pool of `--max-stack` processes; a `run` when
/// all of them are running ends the search inconclusive, never a block.
#[test]
fn promela_run_past_the_pool_is_inconclusive() {
    let file = format!("{DIR}/run-forever.txt");
    for (bound, states) in [("2", 3), ("3", 4)] {
        let run = optimist([
            "check",
            "--lang",
            "promela",
            "--reduction",
            "none",
            "--max-stack",
            bound,
            "--format",
            "json",
            &file,
        ]);
        assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            v["limit"],
            format!("stack bound {bound} reached"),
            "{}",
            run.stdout
        );
        assert_eq!(v["states"], states, "{}", run.stdout);
    }
}

#[test]
fn promela_refusals_name_the_construct() {
    let dir = root().join(DIR).join("errors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        let rel = format!("{DIR}/errors/{}", p.file_name().unwrap().to_string_lossy());
        // `// error: LINE:COL TEXT` gives the place and a part of the message.
        let want = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("// error:"))
            .unwrap_or_else(|| panic!("{rel}: no `// error:` header"))
            .trim();
        let (place, msg) = want.split_once(' ').unwrap();
        let run = optimist(["check", &rel]);
        assert_eq!(run.code, 2, "{rel}: {}{}", run.stdout, run.stderr);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(
            all.contains(&format!("{rel}:{place}")),
            "{rel}: want {place}: {all}"
        );
        assert!(all.contains(msg), "{rel}: want {msg:?}: {all}");
    }
}

#[test]
fn promela_garbage_never_panics() {
    let samples = [
        "",
        "proctype",
        "active proctype P() {",
        "init { do :: od }",
        "#if 1",
        "#define f(x) f(x)\nf(1)",
        "init { x = }",
        "chan c = [",
        "mtype = {",
        "init { if :: fi }",
        "ltl { [] }",
        "\u{0}",
        "init { c ! }",
        "typedef T { T x }",
        "inline f() { f() }\ninit { f() }",
        "active [300] proctype P() { skip }",
        "init { run P() }",
        "proctype P() { run P() }\ninit { run P() }",
        "init { goto L }",
        "byte a[0];",
        "init { atomic { } }",
        "init { (1 -> 2 : 3) }",
        "int x = 1/0;",
    ];
    let dir = std::env::temp_dir().join(format!("optimist-pml-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, s) in samples.iter().enumerate() {
        let p = dir.join(format!("g{k}.pml"));
        std::fs::write(&p, s).unwrap();
        let run = optimist(["check", "--max-states", "10000", p.to_str().unwrap()]);
        assert!(
            matches!(run.code, 0..=3),
            "{s:?} exits {}: {}",
            run.code,
            run.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One corpus model's line of `spin-results.tsv`.
struct Spin {
    model: String,
    verdict: String,
    states: String,
    por: String,
    /// (ltl name, SPIN's verdict without fairness)
    ltl: Vec<(String, String)>,
}

/// SPIN's verdict of every corpus model, from `spin-results.tsv`.
fn spin_results() -> Vec<Spin> {
    let text =
        std::fs::read_to_string(root().join(DIR).join("spin-examples/spin-results.tsv")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 7 {
            continue;
        }
        let ltl = match (f[5], f[6]) {
            ("-", _) | ("never", _) => Vec::new(),
            (names, verdicts) => names
                .split(',')
                .zip(verdicts.split(','))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        };
        // The statement-for-statement run's verdict where the notes give
        // one apart (cambridge: only the partial-order run stops, on its
        // own `xs` check).
        let verdict = match f.get(7) {
            Some(n) if n.contains("nr: holds") => "holds",
            _ => f[2],
        };
        out.push(Spin {
            model: f[0].to_string(),
            verdict: verdict.to_string(),
            states: f[4].to_string(),
            por: f[3].to_string(),
            ltl,
        });
    }
    out
}

/// The reductions the table compares with SPIN's partial-order reduction.
const REDUCTIONS: [&str; 5] = ["sc", "movers", "stubborn", "sc+stubborn", "movers+stubborn"];

/// A reduced search's cell: its states when the model holds, its verdict
/// otherwise; a verdict other than full exploration's is a mismatch.
fn reduced_cell(path: &str, r: &str, full: &str, mismatched: &mut Vec<String>) -> String {
    match check_with(path, r) {
        Ok((v, k)) => {
            if v != full && matches!(v.as_str(), "holds" | "violated") {
                mismatched.push(format!(
                    "{path}: --reduction {r} gives {v}, full exploration {full}"
                ));
            }
            if v == "holds" { k.to_string() } else { v }
        }
        Err((3, _)) => "inconclusive".to_string(),
        Err((c, e)) => format!("error {c}: {e}"),
    }
}

/// `refine --guess locks` from no annotation: the variables it protects
/// and the states of its final reduced check.
fn refine_cell(path: &str) -> String {
    let run = optimist([
        "refine",
        "--guess",
        "locks",
        "--max-states",
        MAX_STATES,
        "--format",
        "json",
        path,
    ]);
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&run.stdout) else {
        return format!("error {}", run.code);
    };
    if run.code == 3 || v["check"]["states"].is_null() {
        return "inconclusive".into();
    }
    let protected = v["protected"].as_object().map_or(0, |m| m.len());
    match v["verdict"].as_str() {
        Some("holds") => format!("{protected} protected, {}", v["check"]["states"]),
        other => other.unwrap_or("?").to_string(),
    }
}

/// The `ltl` properties SPIN checked, without fairness and end states as
/// `pan -a`: each with SPIN's verdict and optimist's (`--fairness none
/// --no-deadlock`).
fn ltl_cell(path: &str, spin: &[(String, String)], mismatched: &mut Vec<String>) -> String {
    let mut cells = Vec::new();
    for (name, want) in spin {
        let run = optimist([
            "check",
            "--reduction",
            "none",
            "--fairness",
            "none",
            "--no-deadlock",
            "--ltl",
            name,
            "--max-states",
            MAX_STATES,
            "--format",
            "json",
            path,
        ]);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_default();
        // `pan -a` reports an assertion too (and no invalid end state):
        // a safety violation first leaves the property unchecked.
        let got = match v["ltl"]["properties"][0]["verdict"].as_str() {
            Some("not checked") if v["verdict"] == "violated" => "violated",
            Some(g) => g,
            None => "inconclusive",
        }
        .to_string();
        if got != *want && got != "inconclusive" {
            mismatched.push(format!("{path}: ltl {name}: SPIN {want}, optimist {got}"));
        }
        cells.push(if got == *want {
            format!("{name} {got}")
        } else {
            format!("{name}: SPIN {want}, optimist {got}")
        });
    }
    cells.join("; ")
}

/// The table's row of one corpus model, and whether it checks.
fn corpus_row(m: &Spin, same_count: &mut usize, mismatched: &mut Vec<String>) -> (String, bool) {
    let (model, verdict, states, por) = (&m.model, &m.verdict, &m.states, &m.por);
    let path = format!("{DIR}/spin-examples/{model}");
    match check(&path) {
        Ok((got, n)) => {
            if got != *verdict {
                mismatched.push(format!("{model}: SPIN {verdict}, optimist {got}"));
            }
            // SPIN stops at its first error (depth-first): compare counts of models that hold.
            if verdict == "holds" && *states == n.to_string() {
                *same_count += 1;
            }
            let reduced: Vec<String> = REDUCTIONS
                .iter()
                .map(|r| reduced_cell(&path, r, &got, mismatched))
                .collect();
            let refine = refine_cell(&path);
            let ltl = ltl_cell(&path, &m.ltl, mismatched);
            let row = format!(
                "| {model} | {verdict} | {states} | {got} | {n} | {por} | {} | {refine} | {ltl} |",
                reduced.join(" | ")
            );
            (row, true)
        }
        Err((code, why)) => {
            let why = why
                .strip_prefix(&format!("{path}:"))
                .unwrap_or(&why)
                .replace('|', "\\|");
            let what = if code == 3 {
                "too large".to_string()
            } else {
                format!("refused: {why}")
            };
            let row =
                format!("| {model} | {verdict} | {states} | {what} | | {por} | | | | | | | |");
            (row, false)
        }
    }
}

#[test]
fn promela_spin_corpus() {
    let mut rows = vec![
        "| model | SPIN | SPIN states (NOREDUCE) | optimist | optimist states | SPIN states (POR) | sc | movers | stubborn | sc+stubborn | movers+stubborn | refine from locks | ltl (no fairness) |".to_string(),
        "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |".to_string(),
    ];
    let (mut checked, mut refused, mut same_count, mut mismatched) = (0, 0, 0, Vec::new());
    for m in spin_results() {
        let (row, ok) = corpus_row(&m, &mut same_count, &mut mismatched);
        if ok {
            checked += 1;
        } else {
            refused += 1;
        }
        rows.push(row);
    }
    rows.push(String::new());
    rows.push(format!(
        "{checked} checked (state counts equal to SPIN's on {same_count} of those that hold), {refused} refused or too large."
    ));
    let table = rows.join("\n");
    let page = root().join("docs/src/promela.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let (head, rest) = text.split_once(TABLE).expect("the table marker");
    let (_, tail) = rest.split_once(TABLE_END).expect("the table end marker");
    let want = format!("{head}{TABLE}\n{table}\n{TABLE_END}{tail}");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&page, want).unwrap();
    } else {
        assert!(
            text == want,
            "docs/src/promela.md's corpus table is stale: run UPDATE_DOCS=1 cargo test --test integration promela"
        );
    }
    assert!(
        mismatched.is_empty(),
        "verdicts differ from SPIN's: {mismatched:#?}"
    );
}
