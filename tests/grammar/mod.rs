//! A grammar-driven generator of systems and the comparison of every
//! reduction with full exploration on them, shared by the integration test
//! (`tests/integration/grammar.rs`) and the soak example
//! (`cargo run --release --example soak`).
//!
//! The other generators (`generate.rs`, `generate2.rs`) write the shapes
//! their authors had in mind. This one draws from the whole language
//! reference (`docs/src/language.md`, procedures included): a
//! random declaration set (constants, shared ints, bools and arrays, locks
//! and lock arrays, semaphores, protected variables `by m`, `by m[k]`,
//! `excl(t) = ...` and `excl(t, j) = ...` with `unprotected [k]`; `threads
//! N` bodies, named threads and `thread NAME[n]` copies; locals starting at
//! `self` or `index`; procedures with parameters, typed returns, nested
//! calls and recursion, at times a channel parameter `cp : chan q` of one
//! of the system's channels, passed `q[i]` (its index a constant or
//! computed), `q`, or the caller's own parameter, and used in sends,
//! receives, polls and `len(cp)`; channels, buffered or rendezvous, single
//! or arrays, of one to three fields; invariants), then typed random
//! statements (every statement form) and expressions (every expression form: `at()`, `t.r`,
//! `init(t, x)`, quantifiers, locks read as values, `len(c)` and the other
//! questions of channels, polls `c?[...]` of buffered ones, ...) in every
//! position
//! the grammar allows: guards, lock operations, assertions, conditions,
//! assignments, call arguments, returns, initial values, exclusive access
//! predicates and invariants. Sends and receives (a receive assigns places,
//! matches literals, constants and `eval(e)`, drops fields with `_`, and
//! on a buffered channel at times keeps the message, `c ?<...>`) go
//! wherever statements go, and lead `atomic` blocks on buffered channels;
//! their channel indices may be out of range, their values out of a field's
//! range, their matches may never match. A model with a rendezvous is
//! refused by every reduction, and full exploration checks it.
//!
//! - `generator.rs`: the generator (seeded, deterministic).
//! - `ast.rs`: its syntax tree and printer.
//! - `cover.rs`: which (construct, position) pairs a system exercises, and
//!   the pairs the grammar allows (the rows of the coverage table).
//! - `compare.rs`: every mode and option combination against full
//!   exploration, the known open bugs, and the tally (the coverage table).
//! - `shrink.rs`: greedy shrinking of a disagreement.
//! - `process.rs`: systems checked in child processes, so that a crash of
//!   the checker is a finding.

#![allow(dead_code)]

pub mod ast;
pub mod compare;
pub mod cover;
pub mod generator;
pub mod process;
pub mod shrink;
