//! Integration tests: one binary, one module per concern.

mod certify;
mod cli;
mod cli_io;
mod common;
mod differential;
mod errors;
mod generate;
mod models;
mod procs;
mod properties;
mod refine;
