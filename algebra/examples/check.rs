//! Checks a proof script and prints the report: `cargo run --release -p omega-algebra --example check -- proofs/reduction.proof`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "proofs/reduction.proof".into());
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
    let drop: Vec<String> = std::env::args().skip(2).collect();
    let opts = omega_algebra::CheckOptions {
        drop,
        ..Default::default()
    };
    let checked = omega_algebra::check(&script, &opts);
    print!("{}", checked.report.to_text());
    if checked.report.status == omega_algebra::Status::Proved {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
