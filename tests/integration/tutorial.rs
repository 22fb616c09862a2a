//! The README's tutorial is produced by the binary: every fenced block
//! after a marker `<!-- tutorial: optimist ARGS... (exit N) -->` must be
//! `$ optimist ARGS...` followed by exactly what that command prints, and
//! the command must exit with N. No transcript is edited by hand:
//! `UPDATE_README=1 cargo test --test integration tutorial` rewrites the
//! blocks from the binary's output (review the diff before committing).
//!
//! A marker `<!-- tutorial: model FILE -->` instead asks for the model
//! FILE without its header (the leading comments, blank lines and
//! `system` line), so the listing cannot drift from the file either.
//!
//! The `time` and `memory` lines of a check report are measurements, not
//! results; they are compared by their names only, and a rewrite keeps
//! whatever the run measured.

use crate::common::optimist;

const README: &str = "README.md";
const MARKER: &str = "<!-- tutorial: ";

/// One marked command and where its block is in the README's lines.
struct Step {
    command: String,
    exit: i32,
    /// The lines of the block, fences excluded.
    body: std::ops::Range<usize>,
}

fn steps(lines: &[&str]) -> Vec<Step> {
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix(MARKER) else {
            continue;
        };
        let rest = rest
            .strip_suffix(" -->")
            .unwrap_or_else(|| panic!("README line {}: a marker ends with ` -->`", k + 1));
        if let Some(file) = rest.strip_prefix("model ") {
            out.push(Step {
                command: format!("model {file}"),
                exit: 0,
                body: k + 2..block_end(lines, k),
            });
            continue;
        }
        let (command, exit) = rest
            .rsplit_once(" (exit ")
            .and_then(|(c, e)| Some((c, e.strip_suffix(')')?.parse().ok()?)))
            .unwrap_or_else(|| panic!("README line {}: a marker ends with `(exit N) -->`", k + 1));
        out.push(Step {
            command: command.to_string(),
            exit,
            body: k + 2..block_end(lines, k),
        });
    }
    out
}

/// The line that closes the fenced block after the marker at line `k`.
fn block_end(lines: &[&str], k: usize) -> usize {
    assert!(
        lines.get(k + 1).is_some_and(|l| l.starts_with("```")),
        "README line {}: a fenced block must follow the marker",
        k + 2
    );
    (k + 2..lines.len())
        .find(|&j| lines[j] == "```")
        .unwrap_or_else(|| panic!("README line {}: the block is not closed", k + 2))
}

/// The model in `file` without its header.
fn listing(file: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with("//") || l.starts_with("system ")
        })
        .collect();
    let mut out = body.join("\n");
    out.push('\n');
    out
}

/// What the block of `step` must hold: the command, then its output.
fn transcript(step: &Step) -> String {
    if let Some(file) = step.command.strip_prefix("model ") {
        return listing(file);
    }
    let args: Vec<&str> = step.command.split_whitespace().collect();
    assert_eq!(
        args.first(),
        Some(&"optimist"),
        "a tutorial command runs optimist"
    );
    let run = optimist(&args[1..]);
    assert_eq!(
        run.code, step.exit,
        "`{}` exits {}, not {}:\n{}{}",
        step.command, run.code, step.exit, run.stdout, run.stderr
    );
    assert!(
        run.stderr.is_empty(),
        "`{}` wrote to stderr: {}",
        step.command,
        run.stderr
    );
    format!("$ {}\n{}", step.command, run.stdout)
}

/// A line with its measured value left out.
fn comparable(line: &str) -> &str {
    for key in ["time ", "memory "] {
        if line.starts_with(key) {
            return key;
        }
    }
    line
}

#[test]
fn the_readme_tutorial_is_the_binarys_output() {
    let text = std::fs::read_to_string(README).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let steps = steps(&lines);
    // The tutorial walks one bug through check, refine and certify.
    for sub in ["check", "refine", "certify"] {
        assert!(
            steps
                .iter()
                .any(|s| s.command.starts_with(&format!("optimist {sub} "))),
            "the tutorial has no `optimist {sub}` step"
        );
    }
    let update = std::env::var_os("UPDATE_README").is_some();
    let mut rewritten: Vec<String> = Vec::new();
    let mut from = 0;
    for step in &steps {
        let want = transcript(step);
        let have = &lines[step.body.clone()];
        let same = want.lines().count() == have.len()
            && want
                .lines()
                .zip(have)
                .all(|(w, h)| comparable(w) == comparable(h));
        if !update {
            assert!(
                same,
                "the README's block for `{}` is not what the binary prints (UPDATE_README=1 rewrites it):\n--- README\n{}\n--- binary\n{}",
                step.command,
                have.join("\n"),
                want
            );
        }
        rewritten.extend(lines[from..step.body.start].iter().map(|l| l.to_string()));
        if same {
            rewritten.extend(have.iter().map(|l| l.to_string()));
        } else {
            rewritten.extend(want.lines().map(str::to_string));
        }
        from = step.body.end;
    }
    if update {
        rewritten.extend(lines[from..].iter().map(|l| l.to_string()));
        let mut out = rewritten.join("\n");
        out.push('\n');
        if out != text {
            std::fs::write(README, out).unwrap();
        }
    }
}
