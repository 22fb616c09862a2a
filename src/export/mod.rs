//! Exporting a model to another checker's language, so that the checker a
//! reader already trusts can confirm optimist's full state count and verdict:
//! Promela for SPIN and Murphi for Rumur.
//!
//! # The translation
//!
//! The export is of the *full* semantics (`--reduction none`), one optimist
//! transition per atomic step of the target:
//!
//! - every thread's control point is an explicit variable `pc_T`, so the
//!   target's own control flow never adds or merges states. In Promela each
//!   thread is one process looping over `d_step`s (one per transition,
//!   guarded by its control point), and SPIN's end-state, `goto` and
//!   statement-merging rules have nothing to act on; in Murphi each
//!   transition is a rule;
//! - a state of the target is exactly a state of optimist: the control
//!   points and the variables, nothing more (temporaries are `hidden` in
//!   Promela and rule-local in Murphi);
//! - everything optimist reports as a violation is an assertion there: the
//!   discipline (each access to a protected variable checks its exclusive
//!   access predicate in the state the transition started from), `assert`,
//!   a write out of range, an index out of bounds, a division by zero, and
//!   in every state the disjointness of the predicates and the invariants
//!   (a Murphi `invariant`; in Promela a monitor process whose only step is
//!   enabled in a bad state). Faults are tested before the expression that
//!   would fault is evaluated, in optimist's order of evaluation, so
//!   short-circuit operators and quantifiers fault exactly where optimist's
//!   do;
//! - quantifiers are unrolled over their static range;
//! - SPIN's own optimisations change nothing: statement merging and
//!   dead-variable resets have nothing to act on, and a step of the monitor
//!   that is never enabled reads every variable, so none is left out of
//!   the state as write-only. `spin -a` and `spin -a -o1 -o2 -o3` count
//!   the same.
//!
//! A deadlock (no thread can move, and not every thread has ended) is a
//! violation as `check` reports it by default: the export asks the same
//! question with one more check, that some transition is enabled or every
//! thread has ended. In Promela the monitor leaves its loop where that
//! check fails, for a statement that never runs outside any `end` label,
//! so SPIN reports the deadlocked state as an invalid end state (its own
//! deadlock question, asked only there: each thread's loop has an `end`
//! label, since a run where every thread has ended is no error); in Murphi
//! it is an `invariant`, and Rumur runs with `--deadlock-detection off`. Exported without deadlocks, the file asks what `check
//! --no-deadlock` asks.
//!
//! What cannot be translated exactly is refused with a [`Refusal`] rather
//! than approximated: values (of variables, constants, or any intermediate
//! result) that may leave the 32-bit range both targets compute in, a
//! quantifier over more than [`MAX_UNROLL`] values, more threads than SPIN
//! has processes, models whose translation would be larger than
//! [`MAX_NODES`] expression nodes, and `timeout` (Murphi has no such
//! guard, and SPIN's would also wait for the monitor).

mod ir;
mod murphi;
mod promela;
mod scalarset;

use crate::model::Model;
use crate::syntax::span::Span;

/// The most values one quantifier is unrolled over.
pub const MAX_UNROLL: i64 = 256;

/// The most expression nodes a translation may hold.
pub const MAX_NODES: usize = 4_000_000;

/// A checker whose input language optimist can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Promela, for SPIN.
    Promela,
    /// Murphi, for Rumur (or CMurphi).
    Murphi,
}

impl Target {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Promela => "promela",
            Target::Murphi => "murphi",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Target::Promela => "pml",
            Target::Murphi => "m",
        }
    }
}

/// Why a model cannot be translated exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefusalKind {
    /// A value may leave the 32-bit range the targets compute in.
    Width,
    /// A quantifier ranges over more than [`MAX_UNROLL`] values.
    Quantifier,
    /// More threads than the target has processes (SPIN: 255).
    Processes,
    /// The translation would exceed [`MAX_NODES`] expression nodes.
    Size,
    /// A guard reads `timeout`.
    Timeout,
    /// The symmetric export (`export --symmetry`): no full symmetry, or a
    /// construct that a scalarset cannot express.
    Symmetry,
}

impl RefusalKind {
    /// A short name, for counting refusals.
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::Width => "width",
            RefusalKind::Quantifier => "quantifier",
            RefusalKind::Processes => "processes",
            RefusalKind::Size => "size",
            RefusalKind::Timeout => "timeout",
            RefusalKind::Symmetry => "symmetry",
        }
    }
}

/// A construct that cannot be translated exactly, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What kind of construct.
    pub kind: RefusalKind,
    /// One sentence saying what and why.
    pub message: String,
    /// The statement or declaration, when there is one.
    pub span: Option<Span>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Translates `model` into `target`'s language, or says why it cannot be
/// done exactly; a deadlock is a violation there where `deadlock` says so.
/// The text is deterministic: the same model gives the same text.
pub fn export(model: &Model, target: Target, deadlock: bool) -> Result<String, Refusal> {
    let program = ir::Program::new(model, target, deadlock)?;
    Ok(match target {
        Target::Promela => promela::render(&program),
        Target::Murphi => murphi::render(&program),
    })
}

/// Translates `model` into `target`'s language keeping its symmetry: the
/// copies of a fully symmetric group become a Murphi scalarset, so that
/// Rumur's symmetry reduction (`--symmetry-reduction exhaustive`) stores
/// one state per orbit, as `check --symmetry on` does (see
/// [`scalarset`]). Refused for Promela (SPIN has no scalarsets), for a
/// model without full symmetry, and for a construct the scalarset cannot
/// express.
pub fn export_symmetric(model: &Model, target: Target, deadlock: bool) -> Result<String, Refusal> {
    if target == Target::Promela {
        return Err(scalarset::refuse(
            "Promela has no scalarsets, and SPIN no symmetry reduction to hand them to: export to Murphi for Rumur".into(),
        ));
    }
    let sym = scalarset::full_symmetry(model)?;
    let program = ir::Program::symmetric(model, deadlock, &sym)?;
    Ok(murphi::render(&program))
}

/// Several models as one file, for checking many small models with one
/// compiled verifier: a variable `which` chooses the model that runs, in the
/// first step (Promela) or the start state (Murphi). SPIN counts one state
/// more than the sum of the models' counts (the state before the choice),
/// Rumur exactly the sum. A violation in any model is a violation of the
/// batch (a deadlock too, where `deadlock` says so). Refused as a whole
/// if one model is.
pub fn export_batch(models: &[&Model], target: Target, deadlock: bool) -> Result<String, Refusal> {
    let mut parts = Vec::new();
    for model in models {
        parts.push(ir::Program::new(model, target, deadlock)?);
    }
    let program = ir::Program::union(parts);
    if target == Target::Promela {
        let procs = (0..program.threads.len())
            .filter(|t| program.rules.iter().any(|r| r.thread == *t))
            .count();
        ir::spin_processes(procs, "batch")?;
    }
    Ok(match target {
        Target::Promela => promela::render(&program),
        Target::Murphi => murphi::render(&program),
    })
}

/// The command that checks an exported file, as the file's header gives it.
pub fn how_to_run(target: Target, file: &str) -> String {
    how_to_run_with(target, file, false)
}

/// The command that checks an exported file; `symmetric` for a file of
/// [`export_symmetric`], which Rumur checks with its symmetry reduction.
pub fn how_to_run_with(target: Target, file: &str, symmetric: bool) -> String {
    match target {
        Target::Promela => format!(
            "spin -a {file} && gcc -O2 -DNOREDUCE -DSAFETY -DNOCLAIM -DVECTORSZ=65536 -o pan pan.c && ./pan -m100000000"
        ),
        Target::Murphi => format!(
            "rumur --symmetry-reduction {} --deadlock-detection off --value-type int32_t {file} -o model.c && cc -std=c11 -O2 -march=native -o model model.c -lpthread && ./model",
            if symmetric { "exhaustive" } else { "off" }
        ),
    }
}
