//! Integration tests: one binary, one module per concern.

mod certify;
mod cli;
mod cli_io;
mod common;
mod crosscheck;
mod differential;
mod differential2;
mod errors;
mod explore;
mod export;
mod fuzz;
mod generate;
mod generate2;
mod graph;
mod hostile;
mod lang;
mod models;
mod peers;
mod procs;
mod properties;
mod refine;
mod stepping;
mod threads;
mod tools;
mod tutorial;
mod watchdog;
