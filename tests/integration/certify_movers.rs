//! `optimist certify --reduction movers`: the hypotheses of the movers
//! theorem (M) on the shipped models, witnesses, certificates and their
//! re-check, `check --certify` under the mover reductions, and the
//! refusals.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{optimist, rel, settings};

/// The keys of the movers obligations, in report order.
const HYPOTHESES: [&str; 10] = ["R", "A2", "A3", "A4", "A5", "A5r", "Q", "11", "17", "18"];
const WF: [&str; 1] = ["WFinitN"];

/// The shipped models `check --reduction movers` accepts (it refuses the
/// model where a thread falsifies another's exclusive access predicate).
fn accepted() -> Vec<PathBuf> {
    crate::common::models()
        .into_iter()
        .filter(|path| {
            let file = rel(path);
            let run = optimist([
                "check",
                &file,
                "--reduction",
                "movers",
                "--no-ltl",
                "--format",
                "json",
            ]);
            let v: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
            !v["limit"]
                .as_str()
                .is_some_and(|l| l.starts_with("the reduction does not apply"))
        })
        .collect()
}

/// The flags a model names for certify (`// certify: --max-stack 3`).
fn flags(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .find_map(|l| l.trim().strip_prefix("// certify:"))
        .map(|f| f.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

fn certify(file: &str, extra: &[&str]) -> crate::common::Run {
    let mut args = vec![
        "certify".to_string(),
        file.to_string(),
        "--reduction".into(),
        "movers".into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(flags(std::path::Path::new(&format!(
        "{}/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))));
    optimist(args)
}

/// The movers report's JSON: every obligation, in report order, with its
/// result and a witness exactly where it fails.
fn assert_schema(text: &str, v: &Value) {
    assert_eq!(v["reduction"], "movers", "{v}");
    assert!(v["conclusion"].is_string());
    let at = |key: &str| text.find(&format!("\"{key}\": {{")).unwrap_or(usize::MAX);
    for (group, keys) in [("hypotheses", &HYPOTHESES[..]), ("wf", &WF[..])] {
        let obj = v[group].as_object().unwrap();
        let got: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut sorted = keys.to_vec();
        let mut got_sorted = got.clone();
        sorted.sort_unstable();
        got_sorted.sort_unstable();
        assert_eq!(got_sorted, sorted, "{group}");
        assert!(
            keys.windows(2).all(|w| at(w[0]) < at(w[1])),
            "{group} in report order"
        );
        for o in obj.values() {
            assert!(o["holds"].is_boolean() || o["holds"].is_null(), "{o}");
            assert_eq!(o["witness"].is_object(), o["holds"] == false, "{o}");
            if let Some(w) = o["witness"].as_object() {
                // Every state of a movers witness shows the phase bits.
                for s in w["states"].as_array().unwrap() {
                    assert!(s["phase"].is_object(), "{s}");
                }
            }
        }
    }
}

#[test]
fn certify_movers_outputs() {
    // JSON for a few models, whose witnesses differ in kind.
    let json = [
        "models/account-bug.gc",
        "models/barrier.gc",
        "models/counter.gc",
        "models/handoff-bug.gc",
        "models/spin-forever.gc",
    ];
    settings().bind(|| {
        for path in accepted() {
            let file = rel(&path);
            let name = file.trim_start_matches("models/");
            let text = certify(&file, &[]);
            assert!(text.stderr.is_empty(), "{file}: {}", text.stderr);
            assert!(matches!(text.code, 0 | 1), "{file}: {}", text.stdout);
            insta::assert_snapshot!(format!("certify_movers@{name}"), text.stdout);
            let exhaustive = certify(&file, &["--exhaustive"]);
            assert!(
                exhaustive.stderr.is_empty(),
                "{file}: {}",
                exhaustive.stderr
            );
            insta::assert_snapshot!(
                format!("certify_movers_exhaustive@{name}"),
                exhaustive.stdout
            );
            // Local holds at every valuation, so at every reachable state.
            if text.code == 0 {
                assert_eq!(exhaustive.code, 0, "{file}");
            }
            if json.contains(&file.as_str()) {
                let run = certify(&file, &["--format", "json"]);
                assert_eq!(run.code, text.code, "{file}");
                let v: Value = serde_json::from_str(&run.stdout).unwrap();
                assert_schema(&run.stdout, &v);
                insta::assert_snapshot!(format!("certify_movers_json@{name}"), run.stdout);
            }
        }
    });
}

#[test]
fn a_discipline_breach_fails_a3_with_the_pair_and_the_valuation() {
    let run = certify(
        "models/account-bug.gc",
        &["--exhaustive", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_schema(&run.stdout, &v);
    let a3 = &v["hypotheses"]["A3"];
    assert_eq!(a3["holds"], false);
    let w = &a3["witness"];
    let names: Vec<&str> = w["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["s", "s1", "s2", "s'", "s''"]);
    let steps = w["transitions"].as_array().unwrap();
    // The right mover of one teller, then the other teller's racy write,
    // and the two tried the other way round.
    assert_eq!(steps[0]["statement"], "b := balance");
    assert_eq!(steps[1]["statement"], "balance := b + 1");
    assert_ne!(steps[0]["thread"], steps[1]["thread"]);
    // The right mover's thread is in its pre-commit phase at s.
    let mover = steps[0]["thread"].as_str().unwrap();
    assert_eq!(w["states"][0]["phase"][mover], true, "{w}");
    assert!(w["reached_by"].is_array());
    let message = w["message"].as_str().unwrap();
    assert!(message.contains("a right mover"), "{message}");
}

#[test]
fn unsupported_reductions_are_refused() {
    for r in ["none", "stubborn", "sc+stubborn", "movers+stubborn"] {
        let run = optimist(["certify", "models/barrier.gc", "--reduction", r]);
        assert_eq!(run.code, 2, "{r}: {}", run.stdout);
        assert!(
            run.stderr.contains("`--reduction sc`") && run.stderr.contains("`--reduction movers`"),
            "{r}: {}",
            run.stderr
        );
    }
    // `sc`, named, is the default.
    assert_eq!(
        optimist(["certify", "models/barrier.gc", "--reduction", "sc"]).stdout,
        optimist(["certify", "models/barrier.gc"]).stdout
    );
    // `check --certify` has no theorem for stubborn sets alone.
    let run = optimist([
        "check",
        "models/barrier.gc",
        "--reduction",
        "stubborn",
        "--certify",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("stubborn-set argument"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_movers_theorem_covers_every_invariant() {
    // certify (sc) refuses an invariant over a protected variable; the
    // movers theorem covers it: a transition that writes what an invariant
    // reads is no mover.
    let run = optimist(["certify", "models/bounded-counter.gc"]);
    assert_eq!(run.code, 3);
    let run = certify("models/bounded-counter.gc", &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

fn check_certify(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--certify", "--format", "json"];
    all.extend_from_slice(args);
    let run = optimist(&all);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    (run.code, v)
}

#[test]
fn check_certify_under_movers_rests_on_the_movers_theorem() {
    // Holds, and the movers theorem applies: holds for the original system.
    let (code, v) = check_certify(&["models/counter.gc", "--reduction", "movers"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("holds")), "{v}");
    assert_eq!(v["certify"]["reduction"], "movers");
    let conclusion = v["conclusion"].as_str().unwrap();
    assert!(
        conclusion.contains("movers theorem (M) applies"),
        "{conclusion}"
    );
    assert!(conclusion.contains("proofs/movers.proof"), "{conclusion}");
    assert!(
        conclusion.contains("optimist prove --theorem movers"),
        "{conclusion}"
    );
    // A post-commit loop: (11) fails, and commit point completion is not
    // part of the movers theorem: inconclusive, where sc concludes.
    let (code, v) = check_certify(&["models/spin-forever.gc", "--reduction", "movers"]);
    assert_eq!(
        (code, v["verdict"].as_str()),
        (3, Some("inconclusive")),
        "{v}"
    );
    assert_eq!(v["certify"]["hypotheses"]["11"]["holds"], false);
    // Stubborn sets over transactions: the certificate covers the mover
    // part, and says what the rest rests on.
    let (code, v) = check_certify(&["models/counter.gc", "--reduction", "movers+stubborn"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("holds")), "{v}");
    let conclusion = v["conclusion"].as_str().unwrap();
    assert!(
        conclusion.contains("covers the mover transactions only"),
        "{conclusion}"
    );
    assert!(conclusion.contains("Godefroid, 1996"), "{conclusion}");
    // A violation found is one, whatever the certificate.
    let (code, v) = check_certify(&["models/account-bug.gc", "--reduction", "movers"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("violated")), "{v}");
    // The text report ends with the verdict for the original system.
    let run = optimist([
        "check",
        "models/counter.gc",
        "--reduction",
        "movers",
        "--certify",
    ]);
    assert_eq!(run.code, 0);
    let last = run.stdout.lines().last().unwrap();
    assert!(
        last.starts_with("original    holds: no violation is reachable in the original system"),
        "{last}"
    );
}

// ------------------------------------------------------- certificates

fn scratch(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("certify-movers");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

fn recheck(cert: &str, model: &str, proof: Option<&str>) -> (i32, Value) {
    let mut args = vec!["certify", "--recheck", cert, model, "--format", "json"];
    if let Some(p) = proof {
        args.extend(["--proof-certificate", p]);
    }
    let run = optimist(&args);
    let v = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}{}", run.stdout, run.stderr));
    (run.code, v)
}

#[test]
fn a_movers_certificate_records_the_reduction_and_re_checks() {
    let proof = scratch("movers.proof.cert.json");
    let run = optimist(["prove", "--theorem", "movers", "--emit-certificate", &proof]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let proof_sha = optimist::sha256_hex(&std::fs::read(&proof).unwrap());
    let cert = scratch("counter.movers.cert.json");
    let run = optimist([
        "certify",
        "models/counter.gc",
        "--reduction",
        "movers",
        "--certificate-out",
        &cert,
        "--proof-certificate",
        &proof,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&cert).unwrap()).unwrap();
    assert_eq!(v["reduction"], "movers");
    assert_eq!(v["claim"]["theorem"], "(M)");
    assert_eq!(v["claim"]["proof"], "proofs/movers.proof");
    assert_eq!(v["claim"]["proof_certificate_sha256"], proof_sha.as_str());
    let keys: Vec<&str> = v["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["key"].as_str().unwrap())
        .collect();
    let mut want = HYPOTHESES.to_vec();
    want.extend(WF);
    assert_eq!(keys, want);
    // Without --proof-certificate, the built-in proof's certificate: the
    // same bytes as `optimist prove --theorem movers --emit-certificate`.
    let again = scratch("counter-again.movers.cert.json");
    let run = optimist([
        "certify",
        "models/counter.gc",
        "--reduction",
        "movers",
        "--certificate-out",
        &again,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&cert).unwrap()
    );
    // Re-checked with the proof certificate: confirmed.
    let (code, r) = recheck(&cert, "models/counter.gc", Some(&proof));
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["status"], "confirmed");
    assert_eq!(r["claim"]["theorem"], "(M)");
    assert_eq!(r["claim"]["proof_certificate"], "accepted");
    assert_eq!(r["obligations"].as_array().unwrap().len(), 11);
    // Without it: inconclusive.
    let (code, r) = recheck(&cert, "models/counter.gc", None);
    assert_eq!((code, r["status"].as_str()), (3, Some("inconclusive")));
    // The proof of (19) is no proof of (M): refused when recording, and
    // rejected when re-checking (its hash differs, and the core holds it
    // to (M)).
    let sc_proof = scratch("reduction.proof.cert.json");
    assert_eq!(optimist(["prove", "--emit-certificate", &sc_proof]).code, 0);
    let run = optimist([
        "certify",
        "models/counter.gc",
        "--reduction",
        "movers",
        "--certificate-out",
        &scratch("wrong-proof.cert.json"),
        "--proof-certificate",
        &sc_proof,
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("not accepted as a proof of (M)"),
        "{}",
        run.stderr
    );
    let (code, r) = recheck(&cert, "models/counter.gc", Some(&sc_proof));
    assert_eq!((code, r["status"].as_str()), (1, Some("rejected")), "{r}");
    // A certificate turned into Stoller and Cohen's lists the wrong
    // obligations and the wrong claim: rejected.
    let mut tampered = v.clone();
    tampered.as_object_mut().unwrap().remove("reduction");
    let path = scratch("counter-as-sc.cert.json");
    std::fs::write(&path, serde_json::to_string_pretty(&tampered).unwrap()).unwrap();
    let (code, r) = recheck(&path, "models/counter.gc", Some(&proof));
    assert_eq!((code, r["status"].as_str()), (1, Some("rejected")), "{r}");
    // A result changed: contradicted by the local re-check.
    let mut tampered = v.clone();
    tampered["obligations"][2]["result"] = "fails".into();
    tampered["obligations"][2]["failing"] = 1.into();
    tampered["verdict"] = "fails".into();
    let path = scratch("counter-a3-fails.cert.json");
    std::fs::write(&path, serde_json::to_string_pretty(&tampered).unwrap()).unwrap();
    let (code, r) = recheck(&path, "models/counter.gc", Some(&proof));
    assert_eq!((code, r["status"].as_str()), (1, Some("rejected")), "{r}");
    // An unknown reduction is a malformed certificate.
    let mut tampered = v.clone();
    tampered["reduction"] = "stubborn".into();
    let path = scratch("counter-stubborn.cert.json");
    std::fs::write(&path, serde_json::to_string_pretty(&tampered).unwrap()).unwrap();
    let run = optimist(["certify", "--recheck", &path, "models/counter.gc"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
}
