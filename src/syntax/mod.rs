//! The system language: AST, parser and pretty-printer.

pub mod ast;
pub mod excerpt;
pub mod parser;
pub mod pretty;
pub mod span;
pub mod suggest;
