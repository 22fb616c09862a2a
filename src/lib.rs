//! optimist: a model checker for concurrent guarded-command systems, with the
//! optimistic synchronization-based reduction of Stoller and Cohen.
//!
//! The pipeline: [`Source`] text is parsed into an [`ast::Model`], compiled
//! into a [`Model`] of threads and atomic transitions, and explored by
//! [`check`] into an [`Outcome`]; [`CheckReport`] renders it as text or JSON.

#![warn(missing_docs)]

mod error;
mod explore;
mod model;
mod report;
mod syntax;

pub use error::{Error, Source};
pub use explore::{
    Kind, Limit, Limits, Options, Outcome, Problem, Reduction, Stats, Step, StepResult, Verdict,
    Violation, check, replay, step,
};
pub use model::{
    CExpr, Cmd, CompileError, Defines, FREE, Fault, Model, Next, Place, Point, Protected, Slot,
    SlotClass, SlotKind, Thread, Transition,
};
pub use report::CheckReport;
pub use syntax::parser::{MAX_EXPR_DEPTH, MAX_NESTING, SyntaxError, parse_expr};
pub use syntax::span::{Span, line_col};
pub use syntax::{ast, pretty};

/// Parses a model's source.
pub fn parse(src: &Source) -> Result<ast::Model, Error> {
    syntax::parser::parse(&src.text).map_err(|e| Error::syntax(src, e))
}

/// Parses and compiles a model's source, with `-D` overrides.
pub fn compile(src: &Source, defines: &Defines) -> Result<Model, Error> {
    let ast = parse(src)?;
    model::compile(&ast, &src.stem(), &src.text, defines).map_err(|e| Error::compile(src, e))
}

/// Reads, parses and compiles a model file.
pub fn load(path: &std::path::Path, defines: &Defines) -> Result<(Source, Model), Error> {
    let src = Source::read(path)?;
    let model = compile(&src, defines)?;
    Ok((src, model))
}
