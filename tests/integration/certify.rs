//! `optimist certify`: obligations, witnesses, exit codes, and agreement with
//! the checker.

use std::path::PathBuf;

use optimist::{
    CertifiedCheck, CertifyLevel, CertifyOptions, CertifyReport, CheckReport, Options, Reduction,
    certify,
};
use serde_json::Value;

use crate::common::{optimist, rel, settings};

const HYPOTHESES: [&str; 8] = ["11", "12", "13", "14", "15", "16", "17", "18"];
const WF: [&str; 6] = [
    "WFinitVis",
    "WFsep",
    "WFacc",
    "WFfiniteInvis",
    "WFinitExcl",
    "WFendExcl",
];

/// Writes an inline model to a file of its own.
fn model_file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("certify");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn certify_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["certify", "--format", "json"];
    all.extend_from_slice(args);
    let run = optimist(&all);
    assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
    let v = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.stdout));
    assert_schema(&run.stdout, &v);
    (run.code, v)
}

/// The JSON schema of the issue: every obligation with holds, checked and
/// witness, in report order, and a conclusion.
fn assert_schema(text: &str, v: &Value) {
    assert!(v["model"].is_string());
    assert!(v["conclusion"].is_string());
    let at = |key: &str| text.find(&format!("\"{key}\": {{")).unwrap_or(usize::MAX);
    for (group, keys) in [("hypotheses", &HYPOTHESES[..]), ("wf", &WF[..])] {
        let obj = v[group].as_object().unwrap();
        let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut want = keys.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{group}");
        assert!(
            keys.windows(2).all(|w| at(w[0]) < at(w[1])),
            "{group} in report order"
        );
        for o in obj.values() {
            assert!(o["holds"].is_boolean() || o["holds"].is_null(), "{o}");
            assert!(o["checked"].is_string(), "{o}");
            assert!(o.get("witness").is_some(), "{o}");
            // A failure has a witness; nothing else does.
            assert_eq!(o["witness"].is_object(), o["holds"] == false, "{o}");
        }
    }
}

#[test]
fn barrier_handoff_and_counter_certify() {
    for file in [
        "models/barrier.gc",
        "models/handoff.gc",
        "models/counter.gc",
    ] {
        let (code, v) = certify_json(&[file]);
        assert_eq!(code, 0, "{file}: {v}");
        assert_eq!(v["verdict"], "hypotheses hold");
        let conclusion = v["conclusion"].as_str().unwrap();
        assert!(
            conclusion.contains("reduction theorem (19) applies"),
            "{conclusion}"
        );
        assert!(
            conclusion.contains("proofs/reduction.proof"),
            "{conclusion}"
        );
    }
}

#[test]
fn the_ignoring_problem_fails_11_with_its_lasso() {
    for level in [&[][..], &["--exhaustive"][..]] {
        let mut args = vec!["models/spin-forever.gc"];
        args.extend_from_slice(level);
        let (code, v) = certify_json(&args);
        assert_eq!(code, 1, "{v}");
        let h11 = &v["hypotheses"]["11"];
        assert_eq!(h11["holds"], false);
        let w = &h11["witness"];
        // A lasso of the spinner's invisible transitions, back to s0.
        assert_eq!(w["loop_from"], 0);
        let steps = w["transitions"].as_array().unwrap();
        assert!(!steps.is_empty());
        assert_eq!(steps.last().unwrap()["to"], "s0");
        for s in steps {
            assert_eq!(s["thread"], "spinner");
            assert!(s["line"].as_u64().is_some() && s["statement"].is_string());
        }
        assert!(
            w["states"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["q"] == false)
        );
        assert_eq!(v["wf"]["WFfiniteInvis"]["holds"], false);
    }
    // Exhaustively, the stem of the lasso comes from the initial state.
    let (_, v) = certify_json(&["models/spin-forever.gc", "--exhaustive"]);
    let stem = v["hypotheses"]["11"]["witness"]["reached_by"]
        .as_array()
        .unwrap();
    assert_eq!(stem.len(), 1);
    assert_eq!(stem[0]["statement"], "go := true");
}

#[test]
fn a_thread_falsifying_another_threads_predicate_fails_wfendexcl() {
    let (code, v) = certify_json(&["models/endexcl.gc"]);
    assert_eq!(code, 1);
    let e = &v["wf"]["WFendExcl"];
    assert_eq!(e["holds"], false);
    let w = &e["witness"];
    assert_eq!(w["transitions"][0]["thread"], "thief");
    assert_eq!(w["transitions"][0]["statement"], "held := -1");
    assert_eq!(w["states"][0]["state"]["held"], 0);
    assert_eq!(w["states"][1]["state"]["held"], -1);
    let message = w["message"].as_str().unwrap();
    assert!(message.contains("falsifies excl(owner, buf)"), "{message}");
}

#[test]
fn releasing_a_semaphore_guarded_buffer_one_does_not_hold_fails_wfendexcl() {
    let file = model_file(
        "sem-steal.gc",
        "system sem_steal;
sem s : 0..1 = 1;
shared holder : -1..1 = -1;
protected x : 0..2 = 0 excl(t) = holder == t;

thread user {
  down s;
  holder := user;
  x := 1;
  x := 2;
  holder := -1;
  up s;
}

thread intruder {
  await holder == user;
  holder := -1;          // releases what only the user holds
}
",
    );
    for level in [&[][..], &["--exhaustive"][..]] {
        let mut args = vec![file.to_str().unwrap()];
        args.extend_from_slice(level);
        let (code, v) = certify_json(&args);
        assert_eq!(code, 1, "{v}");
        assert_eq!(v["wf"]["WFendExcl"]["holds"], false);
        assert_eq!(v["hypotheses"]["15"]["holds"], false);
    }
    // On the reachable states, the culprit is the intruder.
    let (_, v) = certify_json(&[file.to_str().unwrap(), "--exhaustive"]);
    let w = &v["wf"]["WFendExcl"]["witness"];
    assert_eq!(w["transitions"][0]["thread"], "intruder", "{w}");
    assert_eq!(w["transitions"][0]["statement"], "holder := -1", "{w}");
}

#[test]
fn exit_codes() {
    // 3: a state limit leaves obligations not checked (and never holding).
    let (code, v) = certify_json(&["models/counter.gc", "--exhaustive", "--max-states", "50"]);
    assert_eq!(code, 3);
    assert_eq!(v["verdict"], "not checked");
    assert!(v["hypotheses"]["14"]["holds"].is_null());
    assert!(
        v["hypotheses"]["14"]["checked"]
            .as_str()
            .unwrap()
            .starts_with("not checked")
    );
    // 2: input errors.
    assert_eq!(optimist(["certify", "models/no-such-model.gc"]).code, 2);
    let bad = model_file(
        "protected-invariant.gc",
        "lock m;
protected x : 0..1 = 0 by m;
thread T { acquire m; x := 1; release m; }
invariant x == 0 || x == 1;
",
    );
    // 3: an invariant the certified theorem does not cover is no error in
    // the model: certify cannot conclude, and says which invariant.
    let run = optimist(["certify", bad.to_str().unwrap()]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("does not cover"), "{}", run.stderr);
    let run = optimist(["certify", bad.to_str().unwrap(), "--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (run.code, v["status"].as_str()),
        (3, Some("inconclusive")),
        "{v}"
    );
    // `check --certify` shows the check's own verdict before saying why
    // there is no certificate; a violation it found stands (exit 1).
    let run = optimist(["check", bad.to_str().unwrap(), "--certify"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stdout.contains("verdict      holds"), "{}", run.stdout);
    assert!(run.stderr.contains("does not cover"), "{}", run.stderr);
    let run = optimist([
        "check",
        bad.to_str().unwrap(),
        "--certify",
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (v["status"].as_str(), v["check"]["verdict"].as_str()),
        (Some("inconclusive"), Some("holds")),
        "{v}"
    );
    let run = optimist(["check", "models/bounded-counter-bug.gc", "--certify"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("verdict      violated (invariant)"),
        "{}",
        run.stdout
    );
    assert_eq!(optimist(["certify"]).code, 2);
}

#[test]
fn output_is_deterministic() {
    for args in [
        vec!["certify", "models/master-worker.gc"],
        vec![
            "certify",
            "models/spin-forever.gc",
            "--exhaustive",
            "--format",
            "json",
        ],
    ] {
        assert_eq!(optimist(&args).stdout, optimist(&args).stdout, "{args:?}");
    }
}

/// `check --certify`: the conclusion for the original system, from the
/// library function the subcommand uses.
fn certified(file: &str, options: &Options, cert: &CertifyOptions) -> CertifiedCheck {
    let (src, model) = optimist::load(std::path::Path::new(file), &Vec::new()).unwrap();
    let outcome = optimist::check(&model, options, &mut |_| {});
    let check = CheckReport::new(&model, &src.name, options.reduction, &outcome);
    let certificate = CertifyReport::new(&model, &src.name, &certify(&model, cert));
    CertifiedCheck::new(check, certificate, options)
}

#[test]
fn check_with_certify_concludes_for_the_original_system() {
    let root = env!("CARGO_MANIFEST_DIR");
    let path = |f: &str| format!("{root}/{f}");
    let local = CertifyOptions::default();
    let sc = Options::default();

    let both = certified(&path("models/barrier.gc"), &sc, &local);
    assert_eq!(both.exit_code(), 0);
    assert!(
        both.conclusion
            .starts_with("no violation is reachable in the original system")
    );
    assert_eq!(both.verdict, "holds");
    assert!(
        both.to_string()
            .contains("original    holds: no violation is reachable")
    );

    // A violation found by the reduced check holds for the original system.
    let both = certified(&path("models/barrier-bug.gc"), &sc, &local);
    assert_eq!((both.exit_code(), both.verdict), (1, "violated"));
    assert!(both.conclusion.starts_with("a violation is reachable"));

    // An endless invisible run: (19) does not apply, commit point
    // completion does, and the conclusion says which theorem it rests on.
    let both = certified(&path("models/spin-forever.gc"), &sc, &local);
    assert_eq!((both.exit_code(), both.verdict), (0, "holds"));
    assert!(
        both.conclusion
            .contains("by the theorem of commit point completion (Levin, Palmer, Qadeer and Rajamani, 2005) rather than (19)"),
        "{}",
        both.conclusion
    );
    // Unsound cutting of such runs concludes nothing: inconclusive.
    let unsound = Options {
        ignoring: optimist::Ignoring::Unsound,
        ..Options::default()
    };
    let both = certified(&path("models/spin-forever.gc"), &unsound, &local);
    assert_eq!((both.exit_code(), both.verdict), (3, "inconclusive"));
    assert!(
        both.conclusion.starts_with("nothing follows"),
        "{}",
        both.conclusion
    );
    // Reporting it instead: the reduced check stops where WFfiniteInvis
    // breaks, so the reduction does not apply and nothing follows.
    let forbid = Options {
        ignoring: optimist::Ignoring::Forbid,
        ..Options::default()
    };
    let both = certified(&path("models/spin-forever.gc"), &forbid, &local);
    assert_eq!((both.exit_code(), both.verdict), (3, "inconclusive"));
    assert!(
        both.conclusion.contains("nothing follows"),
        "{}",
        both.conclusion
    );

    // master-worker: the reduced check holds; locally two obligations fail
    // at unreachable valuations, so nothing follows until --exhaustive.
    let both = certified(&path("models/master-worker.gc"), &sc, &local);
    assert_eq!((both.exit_code(), both.verdict), (3, "inconclusive"));
    assert!(
        both.conclusion.starts_with("nothing follows"),
        "{}",
        both.conclusion
    );
    let exhaustive = CertifyOptions {
        level: CertifyLevel::Exhaustive,
        ..CertifyOptions::default()
    };
    let both = certified(&path("models/master-worker.gc"), &sc, &exhaustive);
    assert_eq!(both.exit_code(), 0, "{}", both.conclusion);

    // Obligations left unchecked leave the conclusion open.
    let tiny = CertifyOptions {
        frame_bound: 10,
        ..CertifyOptions::default()
    };
    let both = certified(&path("models/counter.gc"), &sc, &tiny);
    assert_eq!(both.exit_code(), 3, "{}", both.conclusion);

    // Without the reduction there is nothing to certify.
    let none = Options {
        reduction: Reduction::NONE,
        ..Options::default()
    };
    let both = certified(&path("models/spin-forever.gc"), &none, &local);
    assert_eq!(both.exit_code(), 0);
    let json = serde_json::to_value(&both).unwrap();
    assert!(json["check"].is_object() && json["certify"].is_object());
    assert!(json["conclusion"].is_string());
    assert_eq!(json["verdict"], "holds");
}

/// Every obligation of a report, as (key, obligation).
fn obligations(v: &Value) -> Vec<(String, Value)> {
    ["hypotheses", "wf"]
        .iter()
        .flat_map(|g| v[g].as_object().unwrap().clone())
        .collect()
}

#[test]
fn limits_end_certify_with_the_obligations_done_so_far() {
    // Local: valuations count as states. Some obligations are done before
    // the limit; the rest say which limit left them.
    let (code, v) = certify_json(&["models/counter.gc", "--max-states", "300"]);
    assert_eq!(
        (code, v["verdict"].as_str()),
        (3, Some("not checked")),
        "{v}"
    );
    assert_eq!(v["limit"], "state limit of 300 reached");
    let all = obligations(&v);
    assert!(
        all.iter()
            .any(|(_, o)| o["holds"] == true && o["instances"].as_u64() > Some(0)),
        "{v}"
    );
    assert!(all.iter().any(|(_, o)| o["holds"].is_null()), "{v}");
    for (k, o) in &all {
        if o["holds"].is_null() {
            let checked = o["checked"].as_str().unwrap();
            assert!(
                checked.starts_with("not checked (state limit of 300 reached): "),
                "{k}: {checked}"
            );
        }
    }
    assert!(
        v["conclusion"]
            .as_str()
            .unwrap()
            .contains("raise `--max-states`")
    );
    let text = optimist(["certify", "models/counter.gc", "--max-states", "300"]);
    assert_eq!(text.code, 3);
    assert!(
        text.stdout
            .contains("; stopped: state limit of 300 reached"),
        "{}",
        text.stdout
    );

    // Time, at both levels: nothing is concluded, and nothing holds.
    for level in [&[][..], &["--exhaustive"][..]] {
        let mut args = vec!["models/counter.gc", "--max-time", "0"];
        args.extend_from_slice(level);
        let (code, v) = certify_json(&args);
        assert_eq!(code, 3, "{v}");
        assert_eq!(v["limit"], "time limit of 0 s reached", "{v}");
        for (k, o) in obligations(&v) {
            // Only what the model's structure decides is known.
            let checked = o["checked"].as_str().unwrap();
            if !checked.starts_with("structural") && !checked.starts_with("by construction") {
                assert!(o["holds"].is_null(), "{k}: {o}");
            }
        }
    }

    // Memory: a limit below what the process holds at the start stops it
    // at once.
    let (code, v) = certify_json(&["models/counter.gc", "--exhaustive", "--max-memory", "1"]);
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["limit"], "memory limit of 1 MB reached", "{v}");
    assert!(
        v["conclusion"]
            .as_str()
            .unwrap()
            .contains("raise `--max-memory`")
    );

    // Failures found before a limit are failures: the spinner's lasso lies
    // in the levels searched within 12 of its 13 states.
    let (code, v) = certify_json(&[
        "models/spin-forever.gc",
        "--exhaustive",
        "--max-states",
        "12",
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["limit"], "state limit of 12 reached", "{v}");
    assert_eq!(v["hypotheses"]["11"]["holds"], false, "{v}");

    // The same state limit gives the same partial report every time.
    let args = [
        "certify",
        "models/counter.gc",
        "--max-states",
        "300",
        "--format",
        "json",
    ];
    assert_eq!(optimist(args).stdout, optimist(args).stdout);
}

#[test]
fn check_certify_shares_the_time_limit() {
    // `--max-time` bounds the whole command: the certificate gets what the
    // check left, here nothing.
    let run = optimist([
        "check",
        "models/counter.gc",
        "--certify",
        "--max-time",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(v["check"]["limit"], "time limit of 0 s reached");
    assert_eq!(v["certify"]["limit"], "time limit of 0 s reached");
}

#[test]
fn certify_outputs() {
    settings().bind(|| {
        insta::glob!("../../models", "**/*.gc", |path| {
            let file = rel(path);
            // A model may name flags for certify (`// certify: FLAGS`); none
            // needs a smaller stack bound, as the local level checks one
            // copy per procedure (see the next test).
            let source = std::fs::read_to_string(path).unwrap();
            let flags: Vec<String> = source
                .lines()
                .find_map(|l| l.trim().strip_prefix("// certify:"))
                .map(|f| f.split_whitespace().map(String::from).collect())
                .unwrap_or_default();
            let with = |extra: &[&str]| {
                let mut args = vec!["certify".to_string(), file.clone()];
                args.extend(extra.iter().map(|a| a.to_string()));
                args.extend(flags.iter().cloned());
                optimist(args)
            };
            let text = with(&[]);
            // The certified theorem covers invariants over unprotected
            // variables only, and no model that every reduction refuses
            // (a rendezvous, `timeout`); certify says so.
            if text.code == 3 && text.stdout.is_empty() {
                assert!(
                    text.stderr.contains("does not cover")
                        || text.stderr.contains("help: every reduction refuses"),
                    "{file}: {}",
                    text.stderr
                );
                insta::assert_snapshot!("certify_refused", text.stderr);
                return;
            }
            assert!(text.stderr.is_empty(), "{file}: {}", text.stderr);
            insta::assert_snapshot!("certify", text.stdout);
            let json = with(&["--format", "json"]);
            assert_eq!(json.code, text.code, "{file}");
            let v: Value = serde_json::from_str(&json.stdout).unwrap();
            assert_schema(&json.stdout, &v);
            insta::assert_snapshot!("certify_json", json.stdout);
            let exhaustive = with(&["--exhaustive"]);
            insta::assert_snapshot!("certify_exhaustive", exhaustive.stdout);
            // Local holds at every valuation, so at every reachable state.
            if text.code == 0 {
                assert_eq!(exhaustive.code, 0, "{file}");
            }
        });
    });
}

/// The local level checks one copy per procedure (`src/certify/copies.rs`),
/// so its result does not depend on `--max-stack`: every shipped model with
/// procedures gives every obligation the same status at 4, 16 and 64, and
/// at 16 and 64 the same instances and valuations, as the copies beyond the
/// first few are alike and checked once.
#[test]
fn certify_does_not_depend_on_the_stack_bound() {
    let mut recursive = 0;
    for path in crate::common::models() {
        let file = rel(&path);
        let source = std::fs::read_to_string(&path).unwrap();
        if !source.contains("proc ") {
            continue;
        }
        let runs: Vec<(i32, Value)> = ["4", "16", "64"]
            .iter()
            .map(|b| certify_json(&[&file, "--max-stack", b]))
            .collect();
        let obligations = |v: &Value| -> Vec<(String, Value, Value, Value)> {
            ["hypotheses", "wf"]
                .iter()
                .flat_map(|g| v[g].as_object().unwrap().clone())
                .map(|(k, o)| {
                    (
                        k,
                        o["holds"].clone(),
                        o["checked"].clone(),
                        o["instances"].clone(),
                    )
                })
                .collect()
        };
        let statuses = |v: &Value| -> Vec<(String, Value)> {
            obligations(v)
                .into_iter()
                .map(|(k, h, _, _)| (k, h))
                .collect()
        };
        for (b, (code, v)) in ["4", "16", "64"].iter().zip(&runs) {
            assert_eq!(*code, runs[1].0, "{file} --max-stack {b}");
            assert_eq!(v["verdict"], runs[1].1["verdict"], "{file} --max-stack {b}");
            assert_eq!(statuses(v), statuses(&runs[1].1), "{file} --max-stack {b}");
            assert_eq!(
                v["procedures"]["copies"], "one per procedure",
                "{file}: {v}"
            );
        }
        assert_eq!(
            obligations(&runs[1].1),
            obligations(&runs[2].1),
            "{file}: the work done grows with the bound"
        );
        let p = |v: &Value| v["procedures"].clone();
        assert_eq!(p(&runs[1].1)["checked"], p(&runs[2].1)["checked"], "{file}");
        if p(&runs[2].1)["points"].as_u64() > p(&runs[1].1)["points"].as_u64() {
            recursive += 1;
            // Recursive models hold, at the default bound as at the others.
            assert_eq!(runs[1].0, 0, "{file}: {}", runs[1].1);
        }
    }
    // Figure 4 of Qadeer, Rajamani and Rehof, and recursive-lock.gc.
    assert!(recursive >= 2, "{recursive} recursive models");
}

// ------------------------------------------------------- certificates

/// A scratch file for the certificate tests.
fn scratch(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("certify-certificates");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

/// The proof certificate of (19), as `optimist prove` writes it, in a file
/// of the test's own (tests run in parallel).
fn proof_certificate(test: &str) -> String {
    let path = scratch(&format!("{test}.proof.cert.json"));
    let run = optimist(["prove", "--emit-certificate", &path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    path
}

fn edit(path: &str, to: &str, f: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    let out = scratch(to);
    std::fs::write(&out, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    out
}

fn recheck(cert: &str, model: &str, proof: Option<&str>) -> (i32, Value) {
    let mut args = vec!["certify", "--recheck", cert, model, "--format", "json"];
    if let Some(p) = proof {
        args.extend(["--proof-certificate", p]);
    }
    let run = optimist(&args);
    let v = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.stdout));
    (run.code, v)
}

fn certificate_settings() -> insta::Settings {
    let mut s = settings();
    s.add_filter(r"/[^\s]*/certify-certificates/", "[tmp]/");
    s.add_filter(
        r"proof certificate sha256 [0-9a-f]{64}",
        "proof certificate sha256 [proof]",
    );
    s.add_filter(
        r#""proof_certificate_sha256": "[0-9a-f]{64}""#,
        r#""proof_certificate_sha256": "[proof]""#,
    );
    s
}

#[test]
fn a_certificate_records_the_run_and_re_checks_without_the_search() {
    let proof = proof_certificate("records");
    let proof_sha = optimist::sha256_hex(&std::fs::read(&proof).unwrap());
    let cert = scratch("barrier.cert.json");
    let run = optimist([
        "certify",
        "models/barrier.gc",
        "--certificate-out",
        &cert,
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let note = run.stdout.lines().last().unwrap();
    assert!(
        note.starts_with(&format!("certificate {cert}: model sha256 "))
            && note.ends_with(&format!("proof certificate sha256 {proof_sha}")),
        "{note}"
    );
    let text = std::fs::read_to_string(&cert).unwrap();
    certificate_settings().bind(|| insta::assert_snapshot!("certificate_barrier", text));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["claim"]["proof_certificate_sha256"], proof_sha.as_str());
    // The same run writes the same bytes; without --proof-certificate the
    // prover makes the built-in proof's certificate, the same bytes as
    // `optimist prove --emit-certificate`.
    let again = scratch("barrier-again.cert.json");
    let (code, j) = certify_json(&["models/barrier.gc", "--certificate-out", &again]);
    assert_eq!(code, 0);
    assert_eq!(j["certificate"]["file"], again.as_str());
    assert_eq!(
        j["certificate"]["proof_certificate_sha256"],
        proof_sha.as_str()
    );
    assert_eq!(j["certificate"]["model_sha256"], v["model"]["sha256"]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);

    // Re-checked with the proof certificate: confirmed, exit 0.
    let run = optimist([
        "certify",
        "--recheck",
        &cert,
        "models/barrier.gc",
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    certificate_settings().bind(|| insta::assert_snapshot!("recheck_barrier", run.stdout));
    let (code, r) = recheck(&cert, "models/barrier.gc", Some(&proof));
    assert_eq!(code, 0);
    assert_eq!(r["status"], "confirmed");
    assert_eq!(r["model_matches"], true);
    assert_eq!(r["claim"]["proof_certificate"], "accepted");
    assert_eq!(r["obligations"].as_array().unwrap().len(), 14);
    // Without it, the claim's proof is not re-checked: inconclusive, exit 3.
    let (code, r) = recheck(&cert, "models/barrier.gc", None);
    assert_eq!(code, 3);
    assert_eq!(r["status"], "inconclusive");
    assert_eq!(r["claim"]["proof_certificate"], "not given");
}

#[test]
fn tampered_certify_certificates_are_rejected() {
    let proof = proof_certificate("tampered");
    let p = Some(proof.as_str());
    // endexcl: (15) and WFendExcl fail at the local level.
    let cert = scratch("endexcl.cert.json");
    let run = optimist([
        "certify",
        "models/endexcl.gc",
        "--certificate-out",
        &cert,
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(recheck(&cert, "models/endexcl.gc", p).0, 0);

    // A failing obligation recorded as holding (and the verdict with it).
    let forged = edit(&cert, "endexcl-holds.cert.json", |v| {
        for o in v["obligations"].as_array_mut().unwrap() {
            o["result"] = "holds".into();
            o["failing"] = 0.into();
        }
        v["verdict"] = "holds".into();
    });
    let (code, r) = recheck(&forged, "models/endexcl.gc", p);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["status"], "rejected");
    let contradicted: Vec<&str> = r["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["agreement"] == "contradicted")
        .map(|o| o["key"].as_str().unwrap())
        .collect();
    assert_eq!(contradicted, ["15", "WFendExcl"]);
    // A verdict that its obligations do not give.
    let forged = edit(&cert, "endexcl-verdict.cert.json", |v| {
        v["verdict"] = "holds".into();
    });
    let (code, r) = recheck(&forged, "models/endexcl.gc", p);
    assert_eq!(code, 1);
    assert!(
        r["reasons"][0]
            .as_str()
            .unwrap()
            .contains("its obligations give `fails`")
    );

    // Another model, or the same model changed by one character.
    let (code, r) = recheck(&cert, "models/barrier.gc", p);
    assert_eq!(code, 1);
    assert_eq!(r["model_matches"], false);
    assert!(
        r["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("the model differs")
    );
    let text = std::fs::read_to_string("models/endexcl.gc").unwrap();
    let changed = scratch("endexcl-changed.gc");
    std::fs::write(&changed, format!("{text}\n")).unwrap();
    assert_eq!(recheck(&cert, &changed, p).0, 1);
    // A changed define is another model too.
    let forged = edit(&cert, "endexcl-define.cert.json", |v| {
        v["model"]["max_stack"] = 8.into();
    });
    assert_eq!(recheck(&forged, "models/endexcl.gc", p).0, 1);

    // Changed hashes: of the model, of the proof certificate.
    let forged = edit(&cert, "endexcl-sha.cert.json", |v| {
        v["model"]["sha256"] = "0".repeat(64).into();
    });
    assert_eq!(recheck(&forged, "models/endexcl.gc", p).0, 1);
    let forged = edit(&cert, "endexcl-proof-sha.cert.json", |v| {
        v["claim"]["proof_certificate_sha256"] = "0".repeat(64).into();
    });
    let (code, r) = recheck(&forged, "models/endexcl.gc", p);
    assert_eq!(code, 1);
    assert!(
        r["claim"]["proof_certificate"]
            .as_str()
            .unwrap()
            .starts_with("the proof certificate hashes to")
    );
    // A proof certificate that is not the recorded one.
    let other = edit(&proof, "proof-other.cert.json", |_| {});
    assert_eq!(recheck(&cert, "models/endexcl.gc", Some(&other)).0, 1);
    // Another claim.
    let forged = edit(&cert, "endexcl-claim.cert.json", |v| {
        v["claim"]["hypotheses"].as_array_mut().unwrap().pop();
    });
    let (code, r) = recheck(&forged, "models/endexcl.gc", p);
    assert_eq!(code, 1);
    assert_eq!(r["claim"]["matches_pinned"], false);

    // Not a certificate: exit 2, with the error in JSON too.
    let bad = scratch("not-a.cert.json");
    std::fs::write(&bad, "{\"format\": \"optimist-certify-certificate/1\"}").unwrap();
    let run = optimist([
        "certify",
        "--recheck",
        &bad,
        "models/endexcl.gc",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["status"], "error");
    assert!(
        run.stderr.contains("malformed certify certificate"),
        "{}",
        run.stderr
    );
    let forged = edit(&cert, "endexcl-format.cert.json", |v| {
        v["format"] = "something/else".into();
    });
    assert_eq!(
        optimist(["certify", "--recheck", &forged, "models/endexcl.gc"]).code,
        2
    );
    // Usage: -D with --recheck, two models, a missing model.
    assert_eq!(
        optimist([
            "certify",
            "--recheck",
            &cert,
            "models/endexcl.gc",
            "-D",
            "N=2"
        ])
        .code,
        2
    );
    assert_eq!(
        optimist([
            "certify",
            "--recheck",
            &cert,
            "models/endexcl.gc",
            "models/barrier.gc"
        ])
        .code,
        2
    );
    assert_eq!(
        optimist(["certify", "--recheck", &cert, "models/none.gc"]).code,
        2
    );
    assert_eq!(
        optimist([
            "certify",
            "models/barrier.gc",
            "models/handoff.gc",
            "--certificate-out",
            &cert
        ])
        .code,
        2
    );
}

#[test]
fn an_exhaustive_certificate_is_confirmed_only_where_the_local_level_agrees() {
    let proof = proof_certificate("exhaustive");
    let p = Some(proof.as_str());
    // memreuse: (15) and WFendExcl hold at the reachable states and fail
    // at unreachable valuations, which the local re-check also tries.
    let cert = scratch("memreuse.cert.json");
    let run = optimist([
        "certify",
        "models/memreuse.gc",
        "--exhaustive",
        "--certificate-out",
        &cert,
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (code, r) = recheck(&cert, "models/memreuse.gc", p);
    assert_eq!(code, 3, "{r}");
    assert_eq!(r["status"], "inconclusive");
    let not_confirmed: Vec<&str> = r["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["agreement"] == "not_confirmed")
        .map(|o| o["key"].as_str().unwrap())
        .collect();
    assert_eq!(not_confirmed, ["15", "WFendExcl"]);
    // barrier: every obligation holds at both levels: confirmed.
    let cert = scratch("barrier-exhaustive.cert.json");
    let run = optimist([
        "certify",
        "models/barrier.gc",
        "--exhaustive",
        "--certificate-out",
        &cert,
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(recheck(&cert, "models/barrier.gc", p).0, 0);
}

/// `check --certify` on a model whose invariant reads a protected variable
/// (which the certified theorem does not cover) and is violated: the
/// check's report with its violation, then why there is no certificate;
/// the violation decides the exit code (1), in text and in JSON.
#[test]
fn check_certify_shows_a_violation_before_the_refusal() {
    let bad = model_file(
        "protected-invariant-bug.gc",
        "lock m;
protected x : 0..2 = 0 by m;
thread T[2] { local v : 0..2 = 0; acquire m; v := x; x := v + 1; release m; }
invariant x <= 1;
",
    );
    let file = bad.to_str().unwrap();
    let run = optimist(["check", file, "--certify"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("verdict      violated (invariant)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("trace ("), "{}", run.stdout);
    // The message is wrapped to the terminal's width: compare its words.
    let words: Vec<&str> = (run.stderr.split_whitespace())
        .filter(|w| *w != "|")
        .collect();
    assert!(words.join(" ").contains("does not cover"), "{}", run.stderr);
    let run = optimist(["check", file, "--certify", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (
            v["status"].as_str(),
            v["check"]["verdict"].as_str(),
            v["check"]["violation"]["kind"].as_str()
        ),
        (Some("violated"), Some("violated"), Some("invariant")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not cover")),
        "{v}"
    );
}
