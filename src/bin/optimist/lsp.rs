//! `optimist lsp`: the language server, for editors (docs/src/editors.md).

use std::process::ExitCode;

use clap::Args;

use crate::common::refuse;

/// Arguments of `optimist lsp`: none; the editor speaks on standard input
/// and output.
#[derive(Args, Debug)]
pub struct LspArgs {}

pub fn run(_: LspArgs) -> ExitCode {
    match optimist::serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => refuse(&e.to_string()),
    }
}
