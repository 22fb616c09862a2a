//! The reductions on other people's models: SPIN's own examples (vendored
//! under `inputs/promela/spin-examples`, with SPIN's verdicts and counts
//! in `spin-results.tsv`). For every example optimist reads whose full
//! state space fits a debug test, the states each reduction keeps, against
//! full exploration and against SPIN's partial-order reduction (its
//! default build), and what `refine --guess locks` concludes from no
//! annotation. Every reduction that answers gives full exploration's
//! verdict. The table in `docs/src/reductions.md` is this test's output
//! (`UPDATE_DOCS=1` rewrites it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::json;

const MODES: [&str; 6] = ["none", "sc", "movers", "stubborn", "sc+stubborn", "movers+stubborn"];

/// Examples whose state space SPIN counts above this (without reduction)
/// are left to the corpus test, which checks their verdicts.
const LIMIT: u64 = 60_000;

const TABLE: &str = "<!-- corpus table: written by tests/integration/corpus.rs -->";

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/integration/inputs/promela/spin-examples")
}

/// SPIN's row of each example: its columns by name.
fn spin_results() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir().join("spin-results.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            let cells = l.split('\t');
            let row: BTreeMap<String, String> =
                header.iter().map(|h| h.to_string()).zip(cells.map(String::from)).collect();
            (row["model"].clone(), row)
        })
        .collect()
}

/// One mode's cell: the states, or why there is no count.
fn cell(v: &Value) -> String {
    let states = v["states"].as_u64().unwrap_or(0);
    match v["verdict"].as_str() {
        Some("holds") | Some("violated") => format!("{states}"),
        _ => match v["limit"].as_str() {
            Some(l) if l.contains("one step of two threads") || l.contains("rendezvous") => {
                "refused: rendezvous".into()
            }
            Some(l) if l.starts_with("the reduction does not apply") => "refused".into(),
            _ => "inconclusive".into(),
        },
    }
}

fn check(file: &str, mode: &str) -> Value {
    let (_, v) = json([
        "check",
        file,
        "--reduction",
        mode,
        "--max-states",
        "400000",
        "--format",
        "json",
    ]);
    v
}

/// The table's row for `name`, or `None` where optimist refuses the
/// example (the corpus test names the construct).
fn row(name: &str, spin: &BTreeMap<String, String>) -> Option<String> {
    let file = format!("tests/integration/inputs/promela/spin-examples/{name}");
    let full = check(&file, "none");
    if full["status"] == "error" || full["verdict"].is_null() {
        return None;
    }
    let verdict = full["verdict"].as_str().unwrap_or_default().to_string();
    let mut cells = vec![cell(&full)];
    for mode in &MODES[1..] {
        let v = check(&file, mode);
        if matches!(v["verdict"].as_str(), Some("holds" | "violated")) {
            assert_eq!(v["verdict"].as_str(), Some(verdict.as_str()), "{name}: --reduction {mode}");
        }
        cells.push(cell(&v));
    }
    let (_, refine) = json(["refine", &file, "--guess", "locks", "--format", "json"]);
    let refined = match refine["protected"].as_object() {
        Some(p) if !p.is_empty() => format!("{} protected", p.len()),
        Some(_) => "none protected".into(),
        None => "-".into(),
    };
    let shown = if verdict == "violated" {
        let kind = full["violation"]["kind"].as_str().unwrap_or_default();
        format!("violated ({kind})")
    } else {
        verdict
    };
    Some(format!(
        "| {name} | {shown} | {} | {} | {refined} |",
        cells.join(" | "),
        spin["states_por"]
    ))
}

#[test]
fn reductions_on_spins_examples() {
    let spin = spin_results();
    let mut want = format!(
        "| example | verdict | {} | SPIN (partial-order reduction) | refine from no annotation |\n| --- | --- |{} ---: | --- |\n",
        MODES.map(|m| if m == "none" { "full" } else { m }).join(" | "),
        " ---: |".repeat(MODES.len())
    );
    let (mut rows, mut large) = (0, Vec::new());
    for (name, s) in &spin {
        let Ok(n) = s["states_noreduce"].parse::<u64>() else {
            continue;
        };
        if n > LIMIT {
            large.push(name.clone());
            continue;
        }
        if let Some(r) = row(name, s) {
            want.push_str(&r);
            want.push('\n');
            rows += 1;
        }
    }
    want.push_str(&format!(
        "\nLeft out (more than {LIMIT} states without reduction): {}.\n",
        large.join(", ")
    ));
    assert!(rows > 0, "no example of SPIN's was checked");
    let page = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/src/reductions.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let start = text.find(TABLE).expect("docs/src/reductions.md has the corpus table") + TABLE.len() + 1;
    let end = start + text[start..].find("<!-- end -->").expect("the corpus table ends");
    if text[start..end] != want {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&page, format!("{}{want}{}", &text[..start], &text[end..])).unwrap();
        } else {
            panic!("docs/src/reductions.md: the corpus table is not this run's (UPDATE_DOCS=1 rewrites it):\n{want}");
        }
    }
}
