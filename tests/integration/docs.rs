//! The documentation cannot drift: README.md and every page of the book
//! (`docs/src/*.md`) are checked against the binary, the library and the
//! files they name.
//!
//! - **Marked blocks.** A fenced block after `<!-- run: optimist ARGS...
//!   (exit N) -->` must be `$ optimist ARGS...` followed by exactly what
//!   that command prints (stdout, then stderr), and the command must exit
//!   with N. `<!-- run: model FILE -->` asks for the model FILE without its
//!   header (the leading comments, blank lines and `system` line). The
//!   `time` and `memory` lines of a report are measurements: they are
//!   compared by their names only, and a rewrite keeps what the page has.
//! - **Links.** Every relative link resolves to a file or directory, every
//!   `#anchor` to a heading of the page it names (GitHub's and mdBook's
//!   slug), and `docs/src/SUMMARY.md` lists every page.
//! - **Models.** Every block fenced as ```` ```gcl ```` parses and compiles
//!   with the library; ```` ```gcl,error ```` must not.
//! - **The models table** (between `<!-- models table ... -->` and
//!   `<!-- end -->`) is written from the `// expect:` headers of
//!   `models/*.gc`; only its "what it shows" column is the page's own.
//! - **Pictures.** An image after `<!-- draw: optimist ARGS... -->` must be
//!   exactly what that command prints (the built-in SVG of `graph`).
//! - **No internal references** ("seed 003", "issue 16") in the docs, the
//!   models, the `--help` of every command, or the string literals of
//!   `src/`.
//!
//! `UPDATE_DOCS=1 cargo test --test integration docs` rewrites the marked
//! blocks (and the exit code in their markers) and the models table from
//! what the binary prints and the headers say; review the diff before
//! committing. The contract table (`contract.rs`) and the grammar coverage
//! table (`grammar.rs`) are the book's too, and rewrite themselves under
//! the same variable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{Run, expectations, models, optimist, rel};

const MARKER: &str = "<!-- run: ";
const MODELS_TABLE: &str = "<!-- models table: written by tests/integration/docs.rs -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn update() -> bool {
    std::env::var_os("UPDATE_DOCS").is_some()
}

/// README.md and the book's pages, as paths relative to the root.
fn pages() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    let mut book: Vec<String> = std::fs::read_dir(root().join("docs/src"))
        .expect("docs/src")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| rel(&p))
        .collect();
    book.sort();
    out.extend(book);
    out
}

fn read(page: &str) -> String {
    std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// One marked command and where its block is in the page's lines.
struct Step {
    command: String,
    exit: i32,
    /// The lines of the block, fences excluded.
    body: std::ops::Range<usize>,
}

fn steps(page: &str, lines: &[&str]) -> Vec<Step> {
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix(MARKER) else {
            continue;
        };
        let at = format!("{page}:{}", k + 1);
        let rest = rest
            .strip_suffix(" -->")
            .unwrap_or_else(|| panic!("{at}: a marker ends with ` -->`"));
        let body = k + 2..block_end(&at, lines, k);
        if let Some(file) = rest.strip_prefix("model ") {
            out.push(Step {
                command: format!("model {file}"),
                exit: 0,
                body,
            });
            continue;
        }
        let (command, exit) = rest
            .rsplit_once(" (exit ")
            .and_then(|(c, e)| Some((c, e.strip_suffix(')')?.parse().ok()?)))
            .unwrap_or_else(|| panic!("{at}: a marker ends with `(exit N) -->`"));
        out.push(Step {
            command: command.to_string(),
            exit,
            body,
        });
    }
    out
}

/// The line that closes the fenced block after the marker at line `k`.
fn block_end(at: &str, lines: &[&str], k: usize) -> usize {
    assert!(
        lines.get(k + 1).is_some_and(|l| l.starts_with("```")),
        "{at}: a fenced block must follow the marker"
    );
    (k + 2..lines.len())
        .find(|&j| lines[j] == "```")
        .unwrap_or_else(|| panic!("{at}: the block is not closed"))
}

/// The model in `file` without its header.
fn listing(file: &str) -> String {
    let text = read(file);
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

/// What the block of `step` must hold: the command, then its output; and
/// the command's exit code.
fn transcript(page: &str, step: &Step) -> (String, i32) {
    if let Some(file) = step.command.strip_prefix("model ") {
        return (listing(file), 0);
    }
    let run = run_marked(page, &step.command);
    let mut out = format!("$ {}\n{}", step.command, run.stdout);
    if !run.stderr.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&run.stderr);
    (out, run.code)
}

/// Runs the `optimist ...` command of a marker at `at`.
fn run_marked(at: &str, command: &str) -> Run {
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(
        args.first(),
        Some(&"optimist"),
        "{at}: a marked command runs optimist"
    );
    optimist(&args[1..])
}

/// A line with its measured value left out: the `time` and `memory` lines
/// of a text report, the `elapsed_ms` and `bytes_per_state` fields of a
/// JSON one.
fn comparable(line: &str) -> &str {
    for key in ["time ", "memory "] {
        if line.starts_with(key) {
            return key;
        }
    }
    let trimmed = line.trim_start();
    for key in ["\"elapsed_ms\":", "\"bytes_per_state\":"] {
        if trimmed.starts_with(key) {
            return key;
        }
    }
    line.trim_end()
}

/// Checks (or, under `UPDATE_DOCS`, rewrites) the marked blocks of one
/// page; returns the commands it ran.
fn check_marked_blocks(page: &str) -> Vec<String> {
    let text = read(page);
    let lines: Vec<&str> = text.lines().collect();
    let steps = steps(page, &lines);
    let mut rewritten: Vec<String> = Vec::new();
    let mut from = 0;
    let mut stale = Vec::new();
    for step in &steps {
        let (want, code) = transcript(page, step);
        let marker = step.body.start - 2;
        if code != step.exit {
            stale.push(format!(
                "{page}:{}: `{}` exits {code}, not {}:\n{want}",
                marker + 1,
                step.command,
                step.exit
            ));
        }
        let have = &lines[step.body.clone()];
        let same = want.lines().count() == have.len()
            && want
                .lines()
                .zip(have)
                .all(|(w, h)| comparable(w) == comparable(h));
        if !same {
            stale.push(format!(
                "{page}: the block for `{}` is not what it should be:\n--- page\n{}\n--- binary\n{}",
                step.command,
                have.join("\n"),
                want
            ));
        }
        rewritten.extend(lines[from..marker].iter().map(|l| l.to_string()));
        rewritten.push(if step.command.starts_with("model ") {
            lines[marker].to_string()
        } else {
            format!("{MARKER}{} (exit {code}) -->", step.command)
        });
        rewritten.push(lines[marker + 1].to_string());
        if same {
            rewritten.extend(have.iter().map(|l| l.to_string()));
        } else {
            rewritten.extend(want.lines().map(|l| l.trim_end().to_string()));
        }
        from = step.body.end;
    }
    if update() {
        rewritten.extend(lines[from..].iter().map(|l| l.to_string()));
        let mut out = rewritten.join("\n");
        out.push('\n');
        if out != text {
            std::fs::write(root().join(page), out).unwrap();
        }
    } else {
        assert!(
            stale.is_empty(),
            "{} (UPDATE_DOCS=1 cargo test --test integration docs rewrites them)",
            stale.join("\n\n")
        );
    }
    steps.into_iter().map(|s| s.command).collect()
}

#[test]
fn every_marked_block_is_the_binarys_output() {
    let mut n = 0;
    for page in pages() {
        n += check_marked_blocks(&page).len();
    }
    assert!(n >= 20, "only {n} marked blocks");
}

const DRAW: &str = "<!-- draw: ";

/// Checks (or, under `UPDATE_DOCS`, redraws) the pictures of one page: the
/// image after each draw marker is what its command prints. Returns how
/// many it checked.
fn check_pictures(page: &str) -> usize {
    let text = read(page);
    let lines: Vec<&str> = text.lines().collect();
    let (mut stale, mut n) = (Vec::new(), 0);
    for (k, line) in lines.iter().enumerate() {
        let Some(command) = line.strip_prefix(DRAW).and_then(|r| r.strip_suffix(" -->")) else {
            continue;
        };
        let at = format!("{page}:{}", k + 1);
        let image = lines[k + 1..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.strip_prefix("![").and_then(|l| l.split_once("](")))
            .and_then(|(_, target)| target.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{at}: an image must follow the draw marker"));
        let run = run_marked(&at, command);
        assert_eq!(
            run.code, 0,
            "{at}: `{command}` exits {}: {}",
            run.code, run.stderr
        );
        let file = root().join(page).parent().unwrap().join(image);
        n += 1;
        if std::fs::read_to_string(&file).ok().as_deref() == Some(run.stdout.as_str()) {
            continue;
        }
        if update() {
            std::fs::write(&file, &run.stdout).unwrap();
        } else {
            stale.push(format!("{at}: {image} is not what `{command}` draws"));
        }
    }
    assert!(
        stale.is_empty(),
        "{} (UPDATE_DOCS=1 cargo test --test integration docs redraws them)",
        stale.join("\n")
    );
    n
}

#[test]
fn every_picture_is_what_the_binary_draws() {
    let n: usize = pages().iter().map(|p| check_pictures(p)).sum();
    assert!(n >= 2, "only {n} pictures are checked");
}

/// The README's tutorial walks one bug through check, refine and certify.
#[test]
fn the_readme_tutorial_walks_check_refine_certify() {
    let text = read("README.md");
    let lines: Vec<&str> = text.lines().collect();
    let steps = steps("README.md", &lines);
    for sub in ["check", "refine", "certify"] {
        assert!(
            steps
                .iter()
                .any(|s| s.command.starts_with(&format!("optimist {sub} "))),
            "the tutorial has no `optimist {sub}` step"
        );
    }
    // Short: the tutorial, the contract table and the comparison of
    // temporal properties with SPIN; everything else is in the book.
    let lines = text.lines().count();
    assert!(
        lines <= 280,
        "README.md has {lines} lines: move text into the book"
    );
}

/// The lines of `text` outside fenced blocks, with their line numbers, and
/// the fenced blocks with their info strings.
fn split_fences(text: &str) -> (Vec<(usize, &str)>, Vec<(usize, String, String)>) {
    let mut prose = Vec::new();
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (k, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None if trimmed.starts_with("```") => {
                open = Some((k + 1, trimmed[3..].trim().to_string(), String::new()));
            }
            None => prose.push((k + 1, line)),
            Some(_) if trimmed == "```" => blocks.push(open.take().unwrap()),
            Some((_, _, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    (prose, blocks)
}

/// A heading's anchor, as GitHub and mdBook make it: lower case, letters,
/// digits, `-` and `_` kept, spaces to `-`, everything else dropped.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    // `[text](url)` in a heading contributes its text.
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap())
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (duplicates numbered `-1`,
/// `-2` as both renderers do).
fn anchors(text: &str) -> Vec<String> {
    let (prose, _) = split_fences(text);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (_, line) in prose {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let s = slug(&line[hashes..]);
        let n = seen.entry(s.clone()).or_insert(0);
        out.push(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of the Markdown links `[text](target)` on a line outside
/// inline code.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    let bytes = line.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'`' => in_code = !in_code,
            b']' if !in_code && bytes.get(k + 1) == Some(&b'(') => {
                if let Some(end) = line[k + 2..].find(')') {
                    let target = line[k + 2..k + 2 + end].trim();
                    // `[a](b "title")`
                    let target = target.split_whitespace().next().unwrap_or("");
                    out.push(target.to_string());
                    k += 2 + end;
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

#[test]
fn every_link_resolves() {
    let mut bad = Vec::new();
    let mut n = 0;
    for page in pages() {
        let text = read(&page);
        let dir = root().join(&page).parent().unwrap().to_path_buf();
        let (prose, _) = split_fences(&text);
        for (line_no, line) in prose {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                    continue;
                }
                n += 1;
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target.as_str(), None),
                };
                let path: PathBuf = if file.is_empty() {
                    root().join(&page)
                } else {
                    dir.join(file)
                };
                if !path.exists() {
                    bad.push(format!("{page}:{line_no}: `{target}`: no such file"));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let Ok(target_text) = std::fs::read_to_string(&path) else {
                        bad.push(format!("{page}:{line_no}: `{target}`: not a page"));
                        continue;
                    };
                    if !anchors(&target_text).iter().any(|a| a == anchor) {
                        bad.push(format!(
                            "{page}:{line_no}: `{target}`: no heading with anchor `{anchor}`"
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
    assert!(n >= 30, "only {n} links checked");
}

#[test]
fn the_summary_lists_every_page() {
    let summary = read("docs/src/SUMMARY.md");
    let listed: Vec<String> = summary.lines().flat_map(link_targets).collect();
    for page in pages().iter().filter(|p| p.starts_with("docs/src/")) {
        let name = page.trim_start_matches("docs/src/");
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            listed.iter().any(|l| l == name),
            "docs/src/SUMMARY.md does not list {name}"
        );
    }
    let book = read("docs/book.toml");
    assert!(book.contains("src = \"src\""), "docs/book.toml names src");
}

#[test]
fn every_gcl_block_compiles() {
    let mut n = 0;
    for page in pages() {
        let (_, blocks) = split_fences(&read(&page));
        for (line, info, body) in blocks {
            let must_fail = match info.as_str() {
                "gcl" => false,
                "gcl,error" => true,
                _ => continue,
            };
            n += 1;
            let name = format!("{page}:{line}");
            let result = optimist::Source::new(name.clone(), body.clone())
                .and_then(|src| optimist::compile(&src, &[]));
            match (result, must_fail) {
                (Ok(_), false) | (Err(_), true) => {}
                (Err(e), false) => panic!("{name}: the gcl block does not compile: {e}\n{body}"),
                (Ok(_), true) => panic!("{name}: the gcl,error block compiles:\n{body}"),
            }
        }
    }
    assert!(n >= 10, "only {n} gcl blocks");
}

// ---------------------------------------------------------------------------
// The models table

/// The columns of the models table after "model" and "what it shows".
const MODES: [&str; 6] = [
    "full",
    "sc",
    "movers",
    "stubborn",
    "sc+stubborn",
    "movers+stubborn",
];

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The rows of the models table, from the headers: (model with its `-D`
/// flags, verdict, one cell per mode).
fn model_rows() -> Vec<(String, String, Vec<String>)> {
    let mut rows = Vec::new();
    for path in models() {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        // Group the header lines by their `-D` flags; keep only lines whose
        // other flags are at most a `--reduction`.
        let mut groups: BTreeMap<String, Vec<(Option<String>, crate::common::Expect)>> =
            BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        for e in expectations(&text) {
            let mut defines = Vec::new();
            let mut reduction = None;
            let mut other = false;
            let mut flags = e.flags.iter();
            while let Some(f) = flags.next() {
                match f.as_str() {
                    "-D" => defines.push(format!("-D {}", flags.next().unwrap())),
                    "--reduction" => reduction = flags.next().cloned(),
                    _ => other = true,
                }
            }
            if other {
                continue;
            }
            let key = defines.join(" ");
            if !groups.contains_key(&key) {
                order.push(key.clone());
            }
            groups.entry(key).or_default().push((reduction, e));
        }
        for key in order {
            let lines = &groups[&key];
            let verdict_of = |e: &crate::common::Expect| match &e.kind {
                Some(k) if e.verdict == "violated" => format!("violated ({k})"),
                _ => e.verdict.clone(),
            };
            // The row's verdict: the line without `--reduction`, or full
            // exploration's.
            let main = lines
                .iter()
                .find(|(r, _)| r.is_none())
                .or_else(|| lines.iter().find(|(r, _)| r.as_deref() == Some("none")))
                .unwrap_or(&lines[0]);
            let verdict = verdict_of(&main.1);
            let mut cells = vec![String::new(); MODES.len()];
            for (_, e) in lines {
                let counts = [
                    e.full,
                    e.sc,
                    e.movers,
                    e.stubborn,
                    e.sc_stubborn,
                    e.movers_stubborn,
                ];
                for (k, c) in counts.iter().enumerate() {
                    let Some(c) = c else { continue };
                    let v = verdict_of(e);
                    cells[k] = if v == verdict {
                        thousands(*c)
                    } else {
                        format!("{v}: {}", thousands(*c))
                    };
                }
            }
            let model = if key.is_empty() {
                name.clone()
            } else {
                format!("{name} `{key}`")
            };
            rows.push((model, verdict, cells));
        }
    }
    rows
}

/// Checks (or rewrites) the models table of `page`, keeping its "what it
/// shows" column.
fn check_models_table(page: &str) {
    let text = read(page);
    let Some(start) = text.find(MODELS_TABLE) else {
        return;
    };
    let from = start + MODELS_TABLE.len() + 1;
    let to = from
        + text[from..]
            .find("<!-- end -->")
            .expect("the models table ends");
    let what: BTreeMap<String, String> = text[from..to]
        .lines()
        .skip(2)
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            Some((cells.first()?.to_string(), cells.get(1)?.to_string()))
        })
        .collect();
    let mut want = format!(
        "| model | what it shows | verdict | {} |\n| --- | --- | --- |{}\n",
        MODES.join(" | "),
        " ---: |".repeat(MODES.len())
    );
    let mut missing = Vec::new();
    for (model, verdict, cells) in model_rows() {
        let shows = what.get(&model).cloned().unwrap_or_default();
        if shows.is_empty() {
            missing.push(model.clone());
        }
        want.push_str(&format!(
            "| {model} | {shows} | {verdict} | {} |\n",
            cells.join(" | ")
        ));
    }
    if text[from..to] != want {
        if update() {
            let out = format!("{}{}{}", &text[..from], want, &text[to..]);
            std::fs::write(root().join(page), out).unwrap();
        } else {
            panic!(
                "{page}: the models table is not the models' headers' (UPDATE_DOCS=1 rewrites it):\n{want}"
            );
        }
    }
    assert!(
        missing.is_empty(),
        "{page}: the models table says nothing of what these show: {missing:?}"
    );
}

#[test]
fn the_models_table_is_the_headers() {
    let mut found = 0;
    for page in pages() {
        if read(&page).contains(MODELS_TABLE) {
            found += 1;
            check_models_table(&page);
        }
    }
    assert_eq!(found, 1, "one page has the models table");
}

// ---------------------------------------------------------------------------
// No internal references

/// The places in `text` where `(?i)\b(seed\s*0\d\d|seeds?/0\d\d|issue\s*#?\d+)`
/// matches, as the matched text.
fn internal_references(text: &str) -> Vec<String> {
    let lower: Vec<char> = text.to_lowercase().chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let digits =
        |k: usize, n: usize| (k..k + n).all(|j| lower.get(j).is_some_and(|c| c.is_ascii_digit()));
    let starts = |k: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(j, c)| lower.get(k + j) == Some(&c))
    };
    let mut out = Vec::new();
    for k in 0..lower.len() {
        if k > 0 && word(lower[k - 1]) {
            continue;
        }
        let end = if starts(k, "seed") {
            let mut j = k + 4;
            let mut slash = None;
            if lower.get(j) == Some(&'s') && lower.get(j + 1) == Some(&'/') {
                slash = Some(j + 2);
            } else if lower.get(j) == Some(&'/') {
                slash = Some(j + 1);
            }
            match slash {
                Some(s) if lower.get(s) == Some(&'0') && digits(s + 1, 2) => Some(s + 3),
                _ => {
                    while lower.get(j).is_some_and(|c| c.is_whitespace()) {
                        j += 1;
                    }
                    (lower.get(j) == Some(&'0') && digits(j + 1, 2)).then_some(j + 3)
                }
            }
        } else if starts(k, "issue") {
            let mut j = k + 5;
            while lower.get(j).is_some_and(|c| c.is_whitespace()) {
                j += 1;
            }
            if lower.get(j) == Some(&'#') {
                j += 1;
            }
            let n = (j..).take_while(|&d| digits(d, 1)).count();
            (n > 0).then_some(j + n)
        } else {
            None
        };
        if let Some(end) = end {
            out.push(lower[k..end].iter().collect());
        }
    }
    out
}

#[test]
fn the_reference_pattern_matches_what_it_should() {
    assert_eq!(internal_references("Seed 003, figure 1"), ["seed 003"]);
    assert_eq!(internal_references("(seeds/004_d6.txt)"), ["seeds/004"]);
    assert_eq!(internal_references("see Issue #16."), ["issue #16"]);
    assert_eq!(internal_references("issue\n17"), ["issue\n17"]);
    assert!(internal_references("--seed 20261126, seed 2026, reissue 3, an issue").is_empty());
}

/// The string literals of Rust source, comments skipped.
fn string_literals(src: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut k = 0;
    let count_lines = |from: usize, to: usize, chars: &[char]| {
        chars[from..to].iter().filter(|&&c| c == '\n').count()
    };
    while k < chars.len() {
        let c = chars[k];
        let next = chars.get(k + 1).copied();
        if c == '\n' {
            line += 1;
            k += 1;
        } else if c == '/' && next == Some('/') {
            while k < chars.len() && chars[k] != '\n' {
                k += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = k;
            k += 2;
            while k + 1 < chars.len() && !(chars[k] == '*' && chars[k + 1] == '/') {
                k += 1;
            }
            k = (k + 2).min(chars.len());
            line += count_lines(start, k, &chars);
        } else if c == '\'' {
            // A char literal or a lifetime.
            if next == Some('\\') {
                let start = k;
                k += 2;
                while k < chars.len() && chars[k] != '\'' {
                    k += 1;
                }
                k += 1;
                line += count_lines(start, k.min(chars.len()), &chars);
            } else if chars.get(k + 2) == Some(&'\'') {
                k += 3;
            } else {
                k += 1;
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (k == 0 || !(chars[k - 1].is_alphanumeric() || chars[k - 1] == '_'))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = k + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                k += 1;
                continue;
            }
            let start = j + 1;
            let mut e = start;
            loop {
                if e >= chars.len() {
                    break;
                }
                if chars[e] == '"' && (0..hashes).all(|h| chars.get(e + 1 + h) == Some(&'#')) {
                    break;
                }
                e += 1;
            }
            out.push((line, chars[start..e.min(chars.len())].iter().collect()));
            line += count_lines(k, e.min(chars.len()), &chars);
            k = e + 1 + hashes;
        } else if c == '"' {
            let start = k + 1;
            let mut e = start;
            while e < chars.len() && chars[e] != '"' {
                if chars[e] == '\\' {
                    e += 1;
                }
                e += 1;
            }
            let e = e.min(chars.len());
            out.push((line, chars[start..e].iter().collect()));
            line += count_lines(k, e, &chars);
            k = e + 1;
        } else {
            k += 1;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
}

/// The subcommands `optimist --help` lists.
fn subcommands() -> Vec<String> {
    let run = optimist(["--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn docs_models_and_help_name_no_seed_or_issue() {
    let mut found = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for page in pages() {
        texts.push((page.clone(), read(&page)));
    }
    texts.push(("docs/book.toml".into(), read("docs/book.toml")));
    for path in models() {
        texts.push((rel(&path), std::fs::read_to_string(&path).unwrap()));
    }
    let subs = subcommands();
    assert!(subs.len() >= 10, "subcommands: {subs:?}");
    let help = optimist(["--help"]);
    texts.push(("optimist --help".into(), help.stdout));
    for sub in &subs {
        let run = optimist([sub.as_str(), "--help"]);
        assert_eq!(run.code, 0, "optimist {sub} --help: {}", run.stderr);
        texts.push((format!("optimist {sub} --help"), run.stdout));
    }
    for (name, text) in &texts {
        for m in internal_references(text) {
            found.push(format!("{name}: `{m}`"));
        }
    }
    assert!(
        found.is_empty(),
        "internal references (name the paper's authors, not the seed; say what changed, not the issue):\n{}",
        found.join("\n")
    );
}

#[test]
fn src_strings_name_no_seed_or_issue() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, s) in string_literals(&text) {
            for m in internal_references(&s) {
                found.push(format!("{}:{line}: `{m}`", rel(&path)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "string literals of src/ name seeds or issues:\n{}",
        found.join("\n")
    );
}

#[test]
fn string_literals_are_found() {
    let src = "// \"seed 001\" in a comment\nlet a = 'x'; fn f<'a>() {}\nlet s = \"one \\\"two\\\"\";\nlet r = r#\"raw \"x\"\"#;\n/* \"no\" */ let t = \"l3\nl4\";\n";
    let got = string_literals(src);
    assert_eq!(
        got,
        vec![
            (3, "one \\\"two\\\"".to_string()),
            (4, "raw \"x\"".to_string()),
            (5, "l3\nl4".to_string()),
        ]
    );
}
