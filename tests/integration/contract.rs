//! Every reduction's contract: the book's table is the library's, the
//! classes of model that once made a reduction say `holds` where the
//! system fails give the full verdict or a refusal that names the line,
//! and `classify --reduction R` prints the judgement of each side
//! condition.

use optimist::{Ignoring, Options, Preserved, Property, Reduction, Remedy};

use crate::common::{json, optimist};

/// The reductions of the table, with the options that make them: every
/// layer of the registry, then those that read their transactions off
/// procedure summaries.
fn modes() -> Vec<(String, Options)> {
    let with = |reduction, summaries| Options {
        reduction,
        summaries,
        ..Options::default()
    };
    let all = Reduction::all();
    let plain = all.iter().map(|&r| (r.name().to_string(), with(r, false)));
    let summarized = all
        .iter()
        .filter(|r| r.supports_summaries())
        .map(|&r| (format!("{} --summaries", r.name()), with(r, true)));
    plain.chain(summarized).collect()
}

/// The contract table, as the book shows it (docs/src/reductions.md).
fn table() -> String {
    let mut out = String::from(
        "| reduction | assertions | invariants | discipline | deadlocks | lock warnings | LTL-X | symmetry | side conditions: what it does where a model breaks one |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (name, options) in modes() {
        let c = optimist::contract(&options).expect("a reduction");
        let cells: Vec<&str> = Property::ALL
            .iter()
            .map(|&p| match c.preserves(p) {
                Preserved::Yes => "yes",
                Preserved::Stored => "stored states",
                Preserved::Unfair => "without fairness",
                Preserved::No => "no: refused",
            })
            .collect();
        let conditions: Vec<String> = c
            .conditions
            .iter()
            .map(|k| {
                let what = match k.remedy {
                    Remedy::Adapt => "adapts",
                    Remedy::Report => "reports",
                    Remedy::Check => "checks (exit 3 if broken)",
                    Remedy::Refuse => "refuses (exit 3)",
                    Remedy::Nothing => "nothing",
                };
                format!("{}: {what}", k.name)
            })
            .collect();
        let symmetry = c.symmetry.split(':').next().unwrap_or_default();
        out.push_str(&format!(
            "| `{name}` | {} | {symmetry} | {} |\n",
            cells.join(" | "),
            conditions.join("; ")
        ));
    }
    out
}

/// The page of the book that shows the contract table.
const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/reductions.md");

/// The README shows the same table.
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

#[test]
fn the_books_contract_table_is_the_librarys() {
    for page_path in [PAGE, README] {
        let page = std::fs::read_to_string(page_path).expect("the page");
        let start = "<!-- contract table: written by tests/integration/contract.rs -->\n";
        let from = page
            .find(start)
            .unwrap_or_else(|| panic!("{page_path} has the contract table"))
            + start.len();
        let to = from + page[from..].find("<!-- end -->").expect("the table ends");
        let want = table();
        if page[from..to] != want {
            if std::env::var_os("UPDATE_DOCS").is_some() {
                let out = format!("{}{}{}", &page[..from], want, &page[to..]);
                std::fs::write(page_path, out).unwrap();
                continue;
            }
            let out = concat!(env!("CARGO_MANIFEST_DIR"), "/target/contract-table.md");
            let _ = std::fs::write(out, &want);
            panic!(
                "the contract table of {page_path} differs from the library's contracts \
                 (UPDATE_DOCS=1 rewrites it); the table is in {out}"
            );
        }
    }
}

#[test]
fn every_reduction_states_a_source_and_what_it_preserves() {
    for (name, options) in modes() {
        let c = optimist::contract(&options).unwrap();
        assert!(!c.source.is_empty(), "{name}");
        assert_eq!(c.preserves.len(), Property::ALL.len(), "{name}");
        assert!(!c.source.contains("seed"), "{name}: {}", c.source);
        for k in &c.conditions {
            assert!(
                !k.needs.contains("seed") && !k.how.contains("seed"),
                "{name}"
            );
        }
    }
    // Movers end a transaction before a statement that may block, so they
    // preserve deadlocks; summaries keep transactions whole, and say that
    // they find deadlocks in stored states only.
    let movers = |summaries| {
        optimist::contract(&Options {
            reduction: Reduction::MOVERS,
            summaries,
            ..Options::default()
        })
        .unwrap()
    };
    assert_eq!(movers(false).preserves(Property::Deadlocks), Preserved::Yes);
    assert_eq!(
        movers(true).preserves(Property::Deadlocks),
        Preserved::Stored
    );
    // `--ignoring unsound` promises nothing about endless transactions.
    let unsound = optimist::contract(&Options {
        ignoring: Ignoring::Unsound,
        ..Options::default()
    })
    .unwrap();
    assert!(
        unsound
            .conditions
            .iter()
            .any(|k| k.remedy == Remedy::Nothing)
    );
    // Summaries need the transactions of sc or movers.
    assert!(
        optimist::contract(&Options {
            reduction: Reduction::STUBBORN,
            summaries: true,
            ..Options::default()
        })
        .is_err()
    );
}

/// The model of the report: a lock that another thread reads as a value.
const LOCK_READ: &str = "tests/integration/inputs/soundness/lock-read-by-other.gc";

#[test]
fn every_mode_gives_the_full_verdict_on_a_lock_read_as_a_value() {
    for mode in [
        "none",
        "sc",
        "movers",
        "stubborn",
        "sc+stubborn",
        "movers+stubborn",
    ] {
        let (run, v) = json(["check", LOCK_READ, "--reduction", mode, "--format", "json"]);
        assert_eq!(run.code, 1, "{mode}: {}", run.stdout);
        assert_eq!(v["violation"]["kind"], "assertion", "{mode}");
    }
    for mode in ["sc", "movers"] {
        let run = optimist(["check", LOCK_READ, "--reduction", mode, "--summaries"]);
        assert_eq!(run.code, 1, "{mode} --summaries: {}", run.stdout);
    }
}

#[test]
fn classify_names_the_line_that_breaks_a_side_condition() {
    let (run, v) = json([
        "classify",
        LOCK_READ,
        "--reduction",
        "movers",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conditions = v["contract"]["conditions"].as_array().unwrap();
    let locks = conditions
        .iter()
        .find(|c| c["name"] == "locks read as values")
        .expect("the condition is listed");
    assert_eq!(locks["status"], "adapted");
    assert_eq!(locks["findings"][0]["line"], 9);
    assert!(
        locks["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("`assert m == free` of B")
    );
    assert_eq!(v["contract"]["applies"], true);
    // Under sc the same lock is an unprotected variable: nothing to adapt.
    let (_, v) = json(["classify", LOCK_READ, "--format", "json"]);
    assert!(
        v["contract"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "met")
    );
    // Movers on a model that deadlocks: no refusal, and the contract says
    // deadlocks are preserved; with summaries, where they are found.
    let run = optimist(["classify", "models/deadlock.gc", "--reduction", "movers"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("deadlocks yes"), "{}", run.stdout);
    let run = optimist([
        "classify",
        "models/summaries-fig2.gc",
        "--reduction",
        "movers",
        "--summaries",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("deadlocks in stored states"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_breach_found_while_searching_refuses_with_its_trace() {
    // WFendExcl: the system holds, the reduction does not apply. Exit 3,
    // never 1, and the trace shows the transition that breaks it.
    let (run, v) = json([
        "check",
        "models/endexcl.gc",
        "--reduction",
        "sc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(v["verdict"], "inconclusive");
    let limit = v["limit"].as_str().unwrap();
    assert!(
        limit.starts_with("the reduction does not apply: line ") && limit.contains("WFendExcl"),
        "{limit}"
    );
    assert_eq!(v["violation"]["kind"], "well-formedness");
    assert!(!v["trace"].as_array().unwrap().is_empty());
    let full = optimist(["check", "models/endexcl.gc", "--reduction", "none"]);
    assert_eq!(full.code, 0);
}
