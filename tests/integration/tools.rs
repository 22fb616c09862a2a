//! External tools that some tests need (SPIN, Rumur, gcc, Chromium).
//!
//! `.ci/run` installs them and sets `OPTIMIST_REQUIRE_TOOLS=1`, so in CI a
//! missing tool fails the test. Elsewhere a test whose tool is absent says
//! so and passes without checking anything.

use std::process::Command;

/// Whether `program` can be run (`program arg` starts at all).
fn runs(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().is_ok()
}

/// True when every tool in `tools` is present. When one is missing: panics
/// if `OPTIMIST_REQUIRE_TOOLS` is set, else prints a note for `test` and
/// returns false.
pub fn present(test: &str, tools: &[(&str, &str)]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .filter(|(program, arg)| !runs(program, arg))
        .map(|(program, _)| *program)
        .collect();
    if missing.is_empty() {
        return true;
    }
    let required = std::env::var_os("OPTIMIST_REQUIRE_TOOLS").is_some_and(|v| v != "0");
    assert!(
        !required,
        "{test}: {} not installed, and OPTIMIST_REQUIRE_TOOLS is set (.ci/run installs them)",
        missing.join(", ")
    );
    eprintln!(
        "note: {test} skipped: {} not installed (CI installs them; set OPTIMIST_REQUIRE_TOOLS=1 to make this an error)",
        missing.join(", ")
    );
    false
}

/// A fresh scratch directory under Cargo's temporary directory for tests.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}
