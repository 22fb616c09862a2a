//! Temporal properties side by side with SPIN: `cargo bench --bench
//! liveness`.
//!
//! Each shipped model with `ltl` properties, at three sizes (its `const`
//! set with `-D`), one property each: optimist with full exploration under
//! no fairness and under weak fairness, optimist with stubborn sets (no
//! fairness), optimist with sc under weak fairness, and SPIN
//! on optimist's Promela export, `pan -a` without and with `-f` (weak
//! fairness). Every run is a whole process, best of `LIVENESS_RUNS` (3 by
//! default), timed from outside; SPIN's verifier is compiled before the
//! clock starts (`gcc -O2`, SPIN's own partial-order reduction left on, as
//! `spin -a` gives it). States: optimist's graph (the product's size is in
//! its JSON), SPIN's `states, stored` (of its product with the never
//! claim; with `-f`, of its fairness construction too). A row whose
//! verdicts differ is marked. The table goes to stdout in Markdown.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A model, its `const`, the sizes, the property, extra flags.
type Row = (
    &'static str,
    &'static str,
    [u32; 3],
    &'static str,
    &'static [&'static str],
);

const MODELS: &[Row] = &[
    ("peterson-live", "K", [2, 20, 200], "enters", &[]),
    ("spinlock-live", "N", [2, 4, 6], "gets", &[]),
    (
        "philosophers-live",
        "N",
        [3, 5, 7],
        "eats",
        &["--no-deadlock"],
    ),
    ("philosophers-ordered-live", "N", [3, 5, 7], "eats", &[]),
    ("readers-writers-live", "R", [2, 4, 6], "writes", &[]),
    ("finish-live", "K", [3, 300, 30000], "finishes", &[]),
];

struct Measured {
    verdict: String,
    states: u64,
    secs: f64,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn best<F: FnMut() -> Result<Measured, String>>(runs: usize, mut f: F) -> Result<Measured, String> {
    let mut out: Option<Measured> = None;
    for _ in 0..runs {
        let m = f()?;
        if out.as_ref().is_none_or(|o| m.secs < o.secs) {
            out = Some(m);
        }
    }
    out.ok_or_else(|| "no run".into())
}

fn optimist(
    bin: &Path,
    file: &str,
    define: &str,
    prop: &str,
    extra: &[&str],
) -> Result<Measured, String> {
    let start = Instant::now();
    let out = Command::new(bin)
        .args([
            "check", file, "-D", define, "--ltl", prop, "--format", "json",
        ])
        .args(extra)
        .current_dir(root())
        .output()
        .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "{file} {extra:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let p = &v["ltl"]["properties"][0];
    Ok(Measured {
        verdict: p["verdict"].as_str().unwrap_or("?").to_string(),
        states: v["ltl"]["states"].as_u64().unwrap_or(0),
        secs,
    })
}

fn sh(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// SPIN's verifier for the export of `file` at `define`, compiled in `dir`.
fn pan(bin: &Path, dir: &Path, file: &str, define: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let pml = dir.join("model.pml");
    let out = Command::new(bin)
        .args(["export", "--to", "promela", "-D", define, file, "-o"])
        .arg(&pml)
        .current_dir(root())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    sh(dir, "spin", &["-a", "model.pml"])?;
    // NFAIR=4: weak fairness for up to 30 processes (the default, 6).
    sh(dir, "gcc", &["-O2", "-DNFAIR=4", "-o", "pan", "pan.c"])?;
    Ok(())
}

fn spin(dir: &Path, prop: &str, fair: bool) -> Result<Measured, String> {
    let mut args = vec!["-a", "-m1000000", "-N", prop];
    if fair {
        args.insert(1, "-f");
    }
    let start = Instant::now();
    let text = sh(dir, &dir.join("pan").display().to_string(), &args)?;
    let secs = start.elapsed().as_secs_f64();
    let number = |what: &str| -> u64 {
        text.lines()
            .find(|l| l.contains(what))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let errors = text
        .lines()
        .find_map(|l| l.split("errors: ").nth(1))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or(0);
    Ok(Measured {
        verdict: if errors > 0 { "violated" } else { "holds" }.into(),
        states: number("states, stored"),
        secs,
    })
}

fn cell(m: &Result<Measured, String>) -> String {
    match m {
        Ok(m) => format!("{} / {:.3} s", m.states, m.secs),
        Err(_) => "error".into(),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let runs: usize = std::env::var("LIVENESS_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let bin = root().join("target/release/optimist");
    let build = Command::new("cargo")
        .args(["build", "--release", "--bin", "optimist"])
        .current_dir(root())
        .status()
        .expect("cargo");
    assert!(build.success(), "the release build failed");
    let scratch = root().join("target/bench/liveness");
    println!(
        "| model | size | property | verdict none / weak | optimist full, none | optimist full, weak | optimist stubborn, none | optimist sc, weak | SPIN `-a` | SPIN `-a -f` |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for &(model, name, sizes, prop, extra) in MODELS {
        let file = format!("models/{model}.gc");
        for size in sizes {
            let define = format!("{name}={size}");
            let with = |fairness: &str, reduction: &str| {
                let mut args: Vec<&str> = extra.to_vec();
                args.extend(["--fairness", fairness, "--reduction", reduction]);
                best(runs, || optimist(&bin, &file, &define, prop, &args))
            };
            let full_none = with("none", "none");
            let full_weak = with("weak", "none");
            let stubborn = with("none", "stubborn");
            let sc = with("weak", "sc");
            let dir = scratch.join(format!("{model}-{size}"));
            let (spin_none, spin_weak) = match pan(&bin, &dir, &file, &define) {
                Ok(()) => (
                    best(runs, || spin(&dir, prop, false)),
                    best(runs, || spin(&dir, prop, true)),
                ),
                Err(e) => (Err(e.clone()), Err(e)),
            };
            let verdict = |m: &Result<Measured, String>| {
                m.as_ref().map_or("?".to_string(), |m| m.verdict.clone())
            };
            let agree = verdict(&full_none) == verdict(&spin_none)
                && verdict(&full_weak) == verdict(&spin_weak)
                && verdict(&full_none) == verdict(&stubborn)
                && verdict(&full_weak) == verdict(&sc);
            for (what, m) in [("SPIN", &spin_none), ("SPIN -f", &spin_weak)] {
                if let Err(e) = m {
                    eprintln!("{model} {define} {what}: {e}");
                }
            }
            println!(
                "| {model} | {define} | {prop} | {} / {}{} | {} | {} | {} | {} | {} | {} |",
                verdict(&full_none),
                verdict(&full_weak),
                if agree { "" } else { " (the verdicts differ)" },
                cell(&full_none),
                cell(&full_weak),
                cell(&stubborn),
                cell(&sc),
                cell(&spin_none),
                cell(&spin_weak)
            );
        }
    }
}
