//! `optimist prove` from the command line: exit codes (0 proved, 1 failed,
//! 2 input or usage error), text and JSON reports, `--drop`, certificates,
//! and errors in proof scripts.

use std::path::PathBuf;
use std::process::Command;

fn optimist(args: &[&str]) -> (i32, String, String) {
    optimist_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn optimist_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_optimist"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("optimist runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scratch file for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("optimist-prove-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"time: \d+ ms", "time: [elapsed] ms");
    s.add_filter(r#""elapsed_ms": \d+"#, r#""elapsed_ms": "[elapsed]""#);
    s.add_filter(r"/[^\s:]*optimist-prove-\d+/", "[tmp]/");
    s
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn the_reduction_proof_is_checked_step_by_step() {
    let (code, stdout, stderr) = optimist(&["prove"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("trusted: none"));
    settings().bind(|| insta::assert_snapshot!("reduction_text", stdout));
}

#[test]
fn the_built_in_proof_is_checked_from_any_directory() {
    let dir = scratch("anywhere");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let (code, stdout, stderr) = optimist_in(&dir, &["prove"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("checking proofs/reduction.proof (52 lemmas)"));
    assert!(stdout.contains("proved: 122 steps in 52 lemmas, 0 failed"));
    assert!(stdout.contains("trusted: none"));
    assert!(stdout.contains("claim: the paper's (19), in the paper's theory"));
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn dropping_a_hypothesis_shows_a_checked_counter_model_of_the_theorem() {
    let (code, stdout, _) = optimist(&["prove", "--drop", "13"]);
    assert_eq!(code, 1);
    let tail: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("(19) without"))
        .take(4)
        .collect();
    settings().bind(|| insta::assert_snapshot!("drop_13_counter_model", tail.join("\n")));
    let (code, stdout, _) = optimist(&["prove", "--drop", "13", "--format", "json"]);
    assert_eq!(code, 1);
    let v = json(&stdout);
    let w = &v["without"];
    assert_eq!(w["hypothesis"], "(13)");
    assert_eq!(w["counter_model"]["states"], 3);
    assert_eq!(w["check_error"], serde_json::Value::Null);
    let holding = w["violation"]["holding"].as_array().expect("holding");
    assert_eq!(holding.len(), 7);
    assert!(!holding.contains(&serde_json::json!("(13)")));
    // Nothing to say when nothing is dropped.
    let (_, stdout, _) = optimist(&["prove", "--format", "json"]);
    assert_eq!(json(&stdout)["without"], serde_json::Value::Null);
}

#[test]
fn the_json_report_has_the_documented_shape() {
    let (code, stdout, _) = optimist(&["prove", "proofs/reduction.proof", "--format", "json"]);
    assert_eq!(code, 0);
    let v = json(&stdout);
    assert_eq!(v["status"], "proved");
    assert!(v["steps"].as_u64().expect("steps") >= 40);
    assert_eq!(v["trusted"], serde_json::json!([]));
    assert_eq!(v["failed"], serde_json::json!([]));
    assert_eq!(v["paper_claim"], true);
    assert!(v["elapsed_ms"].is_u64());
    let assumptions: Vec<&str> = v["assumptions"]
        .as_array()
        .expect("assumptions")
        .iter()
        .map(|a| a.as_str().expect("a label"))
        .collect();
    let hyps: Vec<String> = (11..=18).map(|n| format!("({n})")).collect();
    assert_eq!(&assumptions[assumptions.len() - 8..], hyps.as_slice());
    assert!(assumptions.contains(&"star-ind-l") && assumptions.contains(&"omega-ind"));
    assert_eq!(
        assumptions.len(),
        20 + 8,
        "the axioms and (11)-(18), nothing else"
    );
}

#[test]
fn dropping_a_hypothesis_fails_at_a_named_step() {
    let (code, stdout, _) = optimist(&["prove", "--drop", "16", "--format", "json"]);
    assert_eq!(code, 1);
    let v = json(&stdout);
    assert_eq!(v["status"], "failed");
    assert_eq!(v["dropped"], serde_json::json!(["(16)"]));
    let failed = v["failed"].as_array().expect("failed");
    assert!(!failed.is_empty());
    for f in failed {
        assert!(f["lemma"].is_string() && f["step"].is_string() && f["reason"].is_string());
        let hints = f["hints"].to_string();
        assert!(hints.contains("(16) (dropped)"), "{f}");
    }
    assert!(
        failed
            .iter()
            .any(|f| f["lemma"] == "pu_comm" && f["step"] == "case i = j, step 1")
    );
}

#[test]
fn a_failed_step_is_explained_with_a_counter_model() {
    let (code, stdout, _) = optimist(&["prove", "--drop", "(17)"]);
    assert_eq!(code, 1);
    let failures: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("FAIL") || l.starts_with("       "))
        .collect();
    settings().bind(|| insta::assert_snapshot!("drop_17_failures", failures.join("\n")));
    assert!(stdout.contains("FAILED: "));
}

#[test]
fn an_unknown_hypothesis_is_a_usage_error() {
    let (code, _, stderr) = optimist(&["prove", "--drop", "19"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no hypothesis (19)"), "{stderr}");
    let (code, stdout, _) = optimist(&["prove", "--drop", "19", "--format", "json"]);
    assert_eq!(code, 2);
    assert_eq!(json(&stdout)["status"], "error");
}

#[test]
fn a_missing_file_is_a_usage_error() {
    let (code, _, stderr) = optimist(&["prove", "proofs/no-such-file.proof"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot read proofs/no-such-file.proof"),
        "{stderr}"
    );
}

#[test]
fn a_malformed_script_reports_where_with_the_line_and_a_caret() {
    let path = scratch("bad.proof");
    std::fs::write(&path, "pred q\nvar x\nlemma l: x <= x + ~x by {}\n").expect("write");
    // Run from the scratch directory so that the path in the message, and
    // so the wrapping of the rendered error, is the same on every run.
    let dir = path.parent().expect("a directory");
    let (code, stdout, stderr) = optimist_in(dir, &["prove", "bad.proof"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("bad.proof:3:20"), "{stderr}");
    assert!(stderr.contains("lemma l: x <= x + ~x by {}"), "{stderr}");
    settings().bind(|| insta::assert_snapshot!("malformed_script_stderr", stderr));
    let (code, stdout, _) = optimist_in(dir, &["prove", "bad.proof", "--format", "json"]);
    assert_eq!(code, 2);
    let v = json(&stdout);
    assert_eq!(v["status"], "error");
    assert_eq!(
        (v["error"]["line"].as_u64(), v["error"]["col"].as_u64()),
        (Some(3), Some(20))
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn certificates_are_emitted_accepted_and_corruptions_rejected() {
    let cert = scratch("reduction.cert.json");
    let c = cert.to_str().expect("utf-8 path");
    let (code, _, stderr) = optimist(&["prove", "--emit-certificate", c]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("accepted"), "{stdout}");
    assert!(
        stdout.contains("theorem (19): p (u + v)* q <= N* R"),
        "{stdout}"
    );
    for h in 11..=18 {
        assert!(stdout.contains(&format!("\n  ({h}): ")), "{stdout}");
    }
    // What it accepted, as it built it itself (the first line names the file).
    let accepted: Vec<&str> = stdout.lines().skip(1).collect();
    settings().bind(|| insta::assert_snapshot!("recheck_accepted", accepted.join("\n")));
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c, "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(json(&stdout)["status"], "accepted");

    // One axiom changed somewhere in the middle: rejected, exit 1.
    let text = std::fs::read_to_string(&cert).expect("certificate written");
    let at = text[text.len() / 2..]
        .find("{\"axiom\":\"add-comm\"}")
        .expect("an add-comm axiom")
        + text.len() / 2;
    let corrupted = format!(
        "{}{{\"axiom\":\"add-idem\"}}{}",
        &text[..at],
        &text[at + "{\"axiom\":\"add-comm\"}".len()..]
    );
    let bad = scratch("corrupted.cert.json");
    std::fs::write(&bad, corrupted).expect("write");
    let (code, stdout, _) =
        optimist(&["prove", "--check-certificate", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("rejected") && stdout.contains("rule `"),
        "{stdout}"
    );

    // Not a certificate at all: exit 2.
    std::fs::write(&bad, "{\"format\": 1}").expect("write");
    let (code, _, stderr) =
        optimist(&["prove", "--check-certificate", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("malformed certificate"), "{stderr}");
    let _ = std::fs::remove_file(&cert);
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn a_proof_in_another_theory_is_not_reported_as_the_papers_theorem() {
    // (14) without its condition i != j is stronger than the paper's: the
    // proof goes through, but it is not a proof of the paper's (19).
    let reduction = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("proofs/reduction.proof"),
    )
    .expect("the built-in proof");
    let strong = reduction.replace("hyp (14): i != j => ", "hyp (14): ");
    assert_ne!(strong, reduction);
    let path = scratch("strong14.proof");
    std::fs::write(&path, strong).expect("write");
    let dir = path.parent().expect("a directory");
    let (code, stdout, stderr) = optimist_in(dir, &["prove", "strong14.proof"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(!stdout.contains("\nproved:"), "{stdout}");
    let summary: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("proved") || l.starts_with("claim"))
        .collect();
    settings().bind(|| insta::assert_snapshot!("strengthened_14_summary", summary.join("\n")));
    let (code, stdout, _) = optimist_in(dir, &["prove", "strong14.proof", "--format", "json"]);
    assert_eq!(code, 3);
    let v = json(&stdout);
    assert_eq!(v["status"], "proved");
    assert_eq!(v["paper_theory"], false);
    assert_eq!(v["paper_claim"], false);
    let d = v["paper_difference"].as_str().expect("a difference");
    assert!(
        d.starts_with("the theory differs: hypothesis (14) is"),
        "{d}"
    );
    // The paper's own proof has no difference to report.
    let (code, stdout, _) = optimist(&["prove", "--format", "json"]);
    assert_eq!(code, 0);
    let v = json(&stdout);
    assert_eq!(
        (&v["paper_theory"], &v["paper_claim"]),
        (&true.into(), &true.into())
    );
    assert_eq!(v["paper_difference"], serde_json::Value::Null);

    // A script of other lemmas, proved, says so too.
    std::fs::write(&path, "var x\nlemma l: x <= x + 1 by {}\n").expect("write");
    let (code, stdout, _) = optimist_in(dir, &["prove", "strong14.proof"]);
    assert_eq!(code, 3, "{stdout}");
    assert!(
        stdout.contains("proved, but not the paper's theorem (19): 1 steps")
            && stdout.contains("claim: NOT the paper's theorem (19): the theory differs"),
        "{stdout}"
    );
    let _ = std::fs::remove_file(&path);
}

/// The paper's theory from a certificate the binary wrote, with `lemmas`
/// in place of the derivations.
fn paper_certificate_with(name: &str, lemmas: serde_json::Value) -> PathBuf {
    let cert = scratch(name);
    let c = cert.to_str().expect("utf-8 path");
    let (code, _, stderr) = optimist(&["prove", "--emit-certificate", c]);
    assert_eq!(code, 0, "{stderr}");
    let mut v = json(&std::fs::read_to_string(&cert).expect("written"));
    v["lemmas"] = lemmas;
    std::fs::write(&cert, v.to_string()).expect("write");
    cert
}

#[test]
fn a_certificate_that_doubles_a_term_forty_times_is_stopped_at_once() {
    // ?x + ?x = ?x, then 40 instances of ?x := ?x + ?x: a few kilobytes
    // that would make the core unfold 2^41 nodes.
    let mut nodes = vec![serde_json::json!({"axiom": "add-idem"})];
    for k in 0..40 {
        nodes.push(serde_json::json!({"inst": {
            "of": k, "vars": {"?x": "(+ (? ?x e) (? ?x e))"}, "ixs": {}
        }}));
    }
    let x = "(? ?x e)";
    let lemma = serde_json::json!([{
        "statement": {"label": "bomb", "distinct": [], "premises": [],
            "conclusions": [{"lhs": x, "rel": "=", "rhs": x}]},
        "steps": [],
        "nodes": nodes,
    }]);
    let cert = paper_certificate_with("bomb.cert.json", lemma);
    let size = std::fs::metadata(&cert).expect("written").len();
    assert!(size < 8_000, "{size} bytes");
    let c = cert.to_str().expect("utf-8");
    let start = std::time::Instant::now();
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c]);
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    assert_eq!(code, 3, "{stdout}");
    assert!(
        stdout.contains("not accepted: the check stopped at a bound of the core: bomb: assembly of the steps, node 13: rule `instance`: a term has more than 20000 operators and leaves"),
        "{stdout}"
    );
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c, "--format", "json"]);
    assert_eq!(code, 3);
    let v = json(&stdout);
    assert_eq!(v["status"], "limit");
    assert!(v["reason"].as_str().expect("a reason").contains("node 13"));
    let _ = std::fs::remove_file(&cert);
}

#[test]
fn a_certificate_whose_step_claims_1_eq_0_is_rejected() {
    let cert = scratch("goal.cert.json");
    let c = cert.to_str().expect("utf-8 path");
    let (code, _, stderr) = optimist(&["prove", "--emit-certificate", c]);
    assert_eq!(code, 0, "{stderr}");
    let mut v = json(&std::fs::read_to_string(&cert).expect("written"));
    let lemma = v["lemmas"]
        .as_array_mut()
        .expect("lemmas")
        .iter_mut()
        .find(|l| l["statement"]["label"] == "(19)")
        .expect("(19)");
    lemma["steps"][0]["goal"] = serde_json::json!({"lhs": "1", "rel": "=", "rhs": "0"});
    std::fs::write(&cert, v.to_string()).expect("write");
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("rejected: (19): step 1, node")
            && stdout.contains("the step's goal is `1 = 0`, but its node derives"),
        "{stdout}"
    );
    let _ = std::fs::remove_file(&cert);
}

#[test]
fn the_movers_theorem_is_checked_and_its_certificate_accepted_as_such() {
    let (code, stdout, stderr) = optimist(&["prove", "--theorem", "movers"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("checking proofs/movers.proof"),
        "{stdout}"
    );
    assert!(stdout.contains("trusted: none"), "{stdout}");
    settings().bind(|| insta::assert_snapshot!("movers_text", stdout));
    let (code, stdout, _) = optimist(&["prove", "--theorem", "movers", "--format", "json"]);
    assert_eq!(code, 0);
    let v = json(&stdout);
    assert_eq!(
        (&v["theorem"], &v["paper_claim"]),
        (&"movers".into(), &true.into())
    );

    let cert = scratch("movers.cert.json");
    let c = cert.to_str().expect("utf-8 path");
    let (code, _, stderr) = optimist(&["prove", "--theorem", "movers", "--emit-certificate", c]);
    assert_eq!(code, 0, "{stderr}");
    // The certificate declares the movers theory, so it is held to (M).
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("theorem (M): p s* q <= N* R"), "{stdout}");
    assert!(
        stdout.contains("\n  (A3): i != j => rm_i s_j <= s_j rm_i\n"),
        "{stdout}"
    );
    // Held to the paper's (19), it is rejected.
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", c, "--theorem", "sc"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("rejected: -: theory:"), "{stdout}");
    // And the paper's certificate is not one of (M).
    let paper = scratch("paper-for-movers.cert.json");
    let p = paper.to_str().expect("utf-8 path");
    let (code, _, _) = optimist(&["prove", "--emit-certificate", p]);
    assert_eq!(code, 0);
    let (code, stdout, _) = optimist(&["prove", "--check-certificate", p, "--theorem", "movers"]);
    assert_eq!(code, 1, "{stdout}");
    let _ = std::fs::remove_file(&cert);
    let _ = std::fs::remove_file(&paper);

    // Without a commutation the proof fails where it is needed.
    let (code, stdout, _) = optimist(&["prove", "--theorem", "movers", "--drop", "A3"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("rm_u case i != j, step 2: the step is false in a model"),
        "{stdout}"
    );
    // A file and --theorem together are a usage error.
    let (code, _, stderr) = optimist(&["prove", "proofs/movers.proof", "--theorem", "movers"]);
    assert_eq!(code, 2, "{stderr}");
}
