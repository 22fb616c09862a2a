//! Integration tests: one binary, one module per concern.

mod certify;
mod cli;
mod cli_io;
mod common;
mod crosscheck;
mod differential;
mod errors;
mod explore;
mod export;
mod generate;
mod graph;
mod models;
mod procs;
mod properties;
mod refine;
mod stepping;
mod tools;
