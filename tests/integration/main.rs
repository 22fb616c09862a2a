//! Integration tests: one binary, one module per concern.

mod certify;
mod cli;
mod common;
mod differential;
mod differential2;
mod errors;
mod fuzz;
mod generate;
mod generate2;
mod hostile;
mod models;
mod properties;
mod refine;
mod watchdog;
