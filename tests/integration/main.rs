//! Integration tests: one binary, one module per concern.

mod certify;
mod cli;
mod common;
mod crosscheck;
mod differential;
mod errors;
mod export;
mod generate;
mod graph;
mod models;
mod properties;
mod refine;
mod tools;
