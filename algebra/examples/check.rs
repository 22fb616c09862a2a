//! Checks a proof script and prints the report, as a benchmark of the
//! kernel: `cargo run --release -p omega-algebra --example check -- [FILE] [--certificate OUT] [--drop H]...`.
//! With `--certificate`, the certificate is written and then re-checked.

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut path = "proofs/reduction.proof".to_string();
    let mut cert_out = None;
    let mut drop = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--certificate" => cert_out = args.next(),
            "--drop" => drop.extend(args.next()),
            _ => path = a,
        }
    }
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let script = match omega_algebra::parse_script(&path, &source) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}", e.snippet());
            return ExitCode::from(2);
        }
    };
    let opts = omega_algebra::CheckOptions {
        drop,
        ..Default::default()
    };
    let checked = omega_algebra::check(&script, &opts);
    print!("{}", checked.report.to_text());
    if let Some(out) = cert_out {
        let cert = match checked.certificate(&script) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        let json = cert.to_json();
        if let Err(e) = std::fs::write(&out, &json) {
            eprintln!("{out}: {e}");
            return ExitCode::from(2);
        }
        let start = Instant::now();
        let parsed = match omega_algebra::Certificate::from_json(&json) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        match omega_algebra::recheck(&parsed) {
            Ok(s) => println!(
                "re-checked {}: {} lemmas, {} steps, {} inferences ({} rewrites) in {} ms; hypotheses: {}",
                s.claim,
                s.lemmas,
                s.steps,
                s.inferences,
                s.rewrites,
                start.elapsed().as_millis(),
                s.hypotheses
                    .iter()
                    .map(|(l, _)| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => {
                println!("re-check failed: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if checked.report.status == omega_algebra::Status::Proved {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
