//! Inputs at the limits of the parser are checked without crashing.

use omega_algebra::{CheckOptions, check, parse_script};

#[test]
fn long_and_deeply_nested_steps_are_checked_without_crashing() {
    let long = vec!["x"; 200].join(" ");
    let nested = format!("{}x{}", "(x ".repeat(30), ")".repeat(30));
    let src = format!(
        "var x\nlemma long: {long} <= {long} + x by {{}}\nlemma nested: {nested} <= x* by {{}}\nlemma chain: x <= x*\nproof\n  x\n  <= {long} + x {{}}\n  <= x* {{}}\nqed\n"
    );
    let script = parse_script("limits.proof", &src).expect("within the limits");
    let report = check(&script, &CheckOptions::default()).report;
    assert_eq!(report.steps, 4);
    // The first is a summand of the right side; the rest need saturation
    // of large terms and may or may not be found, but never crash.
    assert_eq!(report.lemmas[0].status, omega_algebra::Status::Proved);
}
