//! Where models come from and where reports go: stdin, several files,
//! errors as JSON, colour, the progress line, a reader that stops early,
//! completions, the man page, and the help of every subcommand.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{json, optimist};

/// `optimist args...` with `input` on stdin.
fn with_stdin(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_model_on_stdin_is_checked_like_a_file() {
    let text = std::fs::read_to_string("models/racy-counter.gc").unwrap();
    let (code, stdout, _) = with_stdin(&["check", "-", "--reduction", "none"], &text);
    let file = optimist(["check", "models/racy-counter.gc", "--reduction", "none"]);
    assert_eq!(code, file.code);
    assert!(stdout.contains("(<stdin>)"), "{stdout}");
    // Everything but the name and the time is the same.
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("model") && !l.starts_with("time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&stdout), strip(&file.stdout));
    // An error in a model read from stdin names it.
    let (code, _, stderr) = with_stdin(&["check", "-"], "thread A { x := ; }\n");
    assert_eq!(code, 2);
    assert!(stderr.contains("<stdin>:1:"), "{stderr}");
}

#[test]
fn several_files_give_one_report_each_and_the_most_serious_exit_code() {
    let models = ["models/barrier.gc", "models/racy-counter.gc"];
    let (run, v) = json(
        ["check", "--format", "json"]
            .iter()
            .chain(&models)
            .collect::<Vec<_>>(),
    );
    assert_eq!(run.code, 1, "a violation in one of them");
    let reports = v.as_array().expect("an array, one report per file");
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["verdict"], "holds");
    assert_eq!(reports[1]["verdict"], "violated");
    // Each is the report the file alone gives.
    for (model, report) in models.iter().zip(reports) {
        let (_, alone) = json(["check", model, "--format", "json"]);
        assert_eq!(report["states"], alone["states"]);
        assert_eq!(report["trace"], alone["trace"]);
    }
    // An input error outranks a violation, which outranks a limit.
    let bad = std::env::temp_dir().join("optimist-cli-io-bad.gc");
    std::fs::write(&bad, "thread A { x := ; }\n").unwrap();
    let bad = bad.to_str().unwrap();
    let (run, v) = json(["check", "--format", "json", "models/racy-counter.gc", bad]);
    assert_eq!(run.code, 2);
    assert_eq!(v[1]["status"], "error");
    let limited = ["check", "--max-states", "5", "models/barrier.gc"];
    assert_eq!(optimist(limited).code, 3);
    let both = [
        "check",
        "--max-states",
        "5",
        "models/barrier.gc",
        "models/handoff-bug.gc",
    ];
    assert_eq!(optimist(both).code, 1);
    // Text reports follow one another, in order.
    let text = optimist(["classify", "models/barrier.gc", "models/counter.gc"]).stdout;
    let (a, b) = (
        text.find("model barrier").unwrap(),
        text.find("model counter").unwrap(),
    );
    assert!(a < b, "{text}");
}

#[test]
fn input_errors_come_out_as_json_too() {
    let bad = std::env::temp_dir().join("optimist-cli-io-json.gc");
    std::fs::write(&bad, "shared x : 0..1 = 0;\nthread A { x := 3 +; }\n").unwrap();
    for command in ["check", "classify", "certify"] {
        let (run, v) = json([command, bad.to_str().unwrap(), "--format", "json"]);
        assert_eq!(run.code, 2);
        assert_eq!(v["status"], "error");
        let place = &v["error"]["place"];
        assert_eq!(place["line"], 2);
        assert_eq!(place["col"], 20);
        assert_eq!(place["source_line"], "thread A { x := 3 +; }");
        assert!(v["error"]["message"].as_str().unwrap().contains("expected"));
        // The human rendering still goes to stderr.
        assert!(run.stderr.contains('^') || run.stderr.contains("here"));
    }
    // A usage error that no model causes, and a missing file.
    let (run, v) = json([
        "check",
        "models/barrier.gc",
        "--reduction",
        "stubborn",
        "--summaries",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--summaries")
    );
    let (run, v) = json(["classify", "no/such/file.gc", "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(v["error"]["place"], Value::Null);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no/such/file.gc")
    );
}

#[test]
fn color_is_asked_for_or_refused_whatever_the_output() {
    let bad = std::env::temp_dir().join("optimist-cli-io-color.gc");
    std::fs::write(&bad, "thread A { x := ; }\n").unwrap();
    let bad = bad.to_str().unwrap();
    let always = optimist(["check", bad, "--color", "always"]).stderr;
    assert!(
        always.contains('\u{1b}'),
        "escape codes into a pipe: {always}"
    );
    let never = optimist(["check", bad, "--color", "never"]).stderr;
    assert!(never.is_ascii() && !never.contains('\u{1b}'), "{never}");
    assert_eq!(optimist(["check", bad, "--color", "sometimes"]).code, 2);
}

#[test]
fn progress_is_logged_when_asked_for() {
    // 208,770 states: the search reports every 65,536.
    let args = [
        "check",
        "models/philosophers.gc",
        "-D",
        "N=5",
        "--reduction",
        "none",
        "--progress",
    ];
    let run = optimist(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with("progress: ") && l.contains("states")),
        "{}",
        run.stderr
    );
    // Without the flag, a pipe gets no progress at all.
    let quiet = optimist(&args[..args.len() - 1]);
    assert!(!quiet.stderr.contains("progress"), "{}", quiet.stderr);
    assert_eq!(quiet.stdout.lines().nth(3), run.stdout.lines().nth(3));
}

#[test]
fn completions_and_the_man_page_come_from_the_command_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let run = optimist(["completions", shell]);
        assert_eq!(run.code, 0);
        for word in ["check", "certify", "reduction", "max-states"] {
            assert!(run.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    assert_eq!(optimist(["completions", "tcsh"]).code, 2);
    let man = optimist(["man"]);
    assert_eq!(man.code, 0);
    assert!(man.stdout.starts_with(".ie") || man.stdout.contains(".TH optimist 1"));
    assert!(man.stdout.contains("check"));
}

#[test]
fn every_subcommand_has_examples_and_exit_codes_in_its_help() {
    // `replay`'s examples save a report with `check` first.
    for command in [
        "check", "certify", "classify", "refine", "prove", "export", "graph", "simulate", "explore",
    ] {
        let help = optimist([command, "--help"]);
        assert_eq!(help.code, 0);
        assert!(help.stdout.contains("Examples:"), "{command}");
        assert!(help.stdout.contains("Exit codes:"), "{command}");
        // Every example runs the subcommand it documents.
        for line in help
            .stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("optimist "))
        {
            assert!(
                line.contains(&format!("optimist {command}")),
                "{command}: {line}"
            );
        }
    }
    assert!(optimist(["--help"]).stdout.contains("Exit codes:"));
}

/// Which of the binary's outputs a reader closes after one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closed {
    Stdout,
    Stderr,
    /// Both streams into one pipe: `optimist ... 2>&1 | head -1`.
    Both,
}

/// Runs `optimist args...`, reads one line of the `closed` stream and
/// closes it, as `| head -1` does. Returns the exit code and all that the
/// other stream said (nothing for [`Closed::Both`]).
fn closed_early(args: &[String], closed: Closed) -> (i32, String) {
    use std::io::{BufRead, BufReader, Read};
    type Reader = Box<dyn Read + Send>;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_optimist"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    let (mut child, head, other): (_, Reader, Option<Reader>) = if closed == Closed::Both {
        let (reader, writer) = std::io::pipe().unwrap();
        cmd.stdout(writer.try_clone().unwrap()).stderr(writer);
        (
            cmd.spawn().expect("the binary runs"),
            Box::new(reader),
            None,
        )
    } else {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("the binary runs");
        let out: Reader = Box::new(child.stdout.take().unwrap());
        let err: Reader = Box::new(child.stderr.take().unwrap());
        let (head, other) = if closed == Closed::Stdout {
            (out, err)
        } else {
            (err, out)
        };
        (child, head, Some(other))
    };
    drop(cmd);
    // The other stream is read to its end meanwhile, so that the binary
    // never waits on it.
    let drain = other.map(|mut r| {
        std::thread::spawn(move || {
            let mut s = String::new();
            r.read_to_string(&mut s).unwrap();
            s
        })
    });
    let mut first = String::new();
    BufReader::new(head).read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "{closed:?}: the binary wrote nothing");
    // The reader is gone: the binary's next write meets a closed pipe.
    let status = child.wait().unwrap();
    let other = drain.map_or(String::new(), |d| d.join().unwrap());
    (status.code().unwrap_or(-1), other)
}

/// A reader that stops early (`optimist check bad.gc 2>&1 | head -1`) ends
/// the output quietly, not with a panic (exit 101): the run finishes and
/// exits with its own code, as when the reader reads all. The output is
/// far bigger than a pipe holds, so the binary does meet the closed pipe.
#[test]
fn a_reader_that_stops_early_ends_the_output_not_the_run() {
    let dir = crate::tools::scratch("closed_pipe");
    let bad = dir.join("bad.gc");
    std::fs::write(&bad, "thread A {\n  x := ;\n}\n").unwrap();
    // 1,500 errors: some 400 kB on stderr, and as much JSON on stdout.
    const N: usize = 1_500;
    let mut args = vec!["check".to_string(), "--format".into(), "json".into()];
    args.extend(std::iter::repeat_n(bad.to_string_lossy().into_owned(), N));
    for closed in [Closed::Both, Closed::Stderr, Closed::Stdout] {
        let (code, other) = closed_early(&args, closed);
        assert_eq!(code, 2, "{closed:?}: {other}");
        assert!(!other.contains("panicked"), "{closed:?}: {other}");
        match closed {
            Closed::Both => {}
            // The errors, all of them, on stderr.
            Closed::Stdout => assert_eq!(
                other.matches("expected an expression, found `;`").count(),
                N,
                "{other}"
            ),
            // The JSON array, whole.
            Closed::Stderr => {
                let v: Value = serde_json::from_str(&other).unwrap();
                assert_eq!(v.as_array().map(Vec::len), Some(N));
            }
        }
    }
}
