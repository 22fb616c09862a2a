//! optimist: a model checker for concurrent guarded-command systems, with the
//! optimistic synchronization-based reduction of Stoller and Cohen.
//!
//! The pipeline: [`Source`] text is parsed into an [`ast::Model`], compiled
//! into a [`Model`] of threads and atomic transitions, and explored by
//! [`check`] into an [`Outcome`]; [`CheckReport`] renders it as text or JSON.

#![warn(missing_docs)]
// Input errors carry their source text for rendering; they end a run, so
// their size never matters on a hot path.
#![allow(clippy::result_large_err)]

mod certify;
use explore::sc::classify;
mod error;
mod explore;
mod export;
mod graph;
mod lsp;
mod ltl;
mod model;
mod promela;
mod refine;
mod report;
mod stepping;
mod symmetry;
pub use symmetry::{
    Analysis as SymmetryAnalysis, Broken as SymmetryBroken, Kind as SymmetryKind,
    Used as SymmetryUsed, detect as detect_symmetry,
};
mod syntax;

pub use certify::{
    Agreement, CERTIFY_CERTIFICATE_FORMAT, CertificateNote, Certification, CertifiedCheck,
    CertifyCertificate, CertifyLevel, CertifyOptions, CertifyReport, ClaimCheck, ClaimRecord,
    DEFAULT_MAX_STATES, FRAME_BOUND, ModelIdentity, Obligation, ObligationCheck, ObligationRecord,
    ObligationStatus, ProceduresReport, RecheckReport, RecheckStatus, certify, model_hash,
    pinned_claim, proof_certificate, recheck_certificate, sha256_hex,
};
pub use certify::{
    CertifyReduction, CertifyTheorem, MoverLaw, movers_proof_certificate, pinned_movers_claim,
    recheck_movers_proof,
};
pub use classify::{Class, Classification, ENUMERATION_BOUND, Reason, WORK_BOUND, classify};
pub use error::{Error, ErrorPlace, Source};
pub use explore::{
    Assessment, Condition, Contract, Finding, Judgement, LockReader, MoverPlan, Preserved,
    Property, Remedy, Status, Unsupported, assess, contract, validate,
};
pub use explore::{
    Cluster, Coverage, GraphEdge, GraphTooLarge, GraphViolation, Ignoring, Inapplicable,
    Interference, Kept, Kind, LevelProfile, Limit, Limits, Options, Outcome, Overlay, Problem,
    Profile, ReducedStep, Reduction, StateGraph, Stats, Step, StepResult, SummaryStats,
    SymmetryUse, Verdict, Violation, WorkerTimes, check, replay, resident_bytes, state_graph, step,
};
pub use explore::{
    Effect, Mismatch, SavedStep, SplitMix, Walk, WalkEnd, choices, effect, initial_problem,
    match_path, match_step, simulate,
};
pub use explore::{
    LassoTrace, LtlOptions, LtlOutcome, PropertyOutcome, check_ltl, check_temporal, ltl_refusal,
    reductions_refusal,
};
pub use export::{
    MAX_NODES, MAX_UNROLL, Refusal, RefusalKind, Target, export, export_batch, export_symmetric,
    how_to_run, how_to_run_with,
};
pub use graph::{
    DEADLOCK_LABEL, GraphReport, TraceDrawing, chart_svg, deadlocked, dot_to_svg, graph_dot,
    graph_svg, graph_title, trace_dot,
};
pub use lsp::{ServeError, serve, serve_on};
pub use ltl::{Automaton, Fairness, Ltl, Node as AutomatonNode};
pub use model::{
    CExpr, ChanOp, ChanSlot, Channel, Cmd, CompileError, CompileOptions, DEFAULT_MAX_STACK,
    Defines, Dir, ExclFault, FREE, Fault, Frame, LtlProperty, MAX_ARRAY, MAX_CHOICES, MAX_COMPILED,
    MAX_QUANTIFIED, MAX_SLOTS, MAX_STACK, MAX_STATEMENTS, MAX_THREADS, Model, Next, Place, Point,
    Proc, Protected, Slot, SlotClass, SlotKind, StackOp, Thread, Transition,
};
pub use refine::{
    Access as RefineAccess, GuessFrom, Iteration, Racy, RefineOptions, RefineReport, refine,
};
pub use report::{
    Blocked, BrokenRow, CheckReport, ClassRow, ClassifyReport, ConditionRow, ContractReport,
    Deadlock, FindingRow, LassoReport, LevelRow, Link, LoopRow, LtlReport, PreservedRow,
    PropertyReport, RegionRow, SitOut, StateLayout, Statement, StatsReport, StepReport,
    SymmetryReport, SymmetryRow, TemporalRow, ThreadState, TimesRow, ViolationReport, Wait,
};
pub use stepping::{
    ChoiceView, Difference, Divergence, NotATrace, ReplayReport, ScriptView, Session, SessionView,
    SimulateReport, ThreadView,
};
pub use syntax::parser::{MAX_EXPR_DEPTH, MAX_NESTING, SyntaxError, parse_expr};
pub use syntax::span::{LineIndex, Span, line_col};
pub use syntax::{ast, pretty};

/// Parses a model's source.
///
/// A file named `*.pml`, `*.prom` or `*.promela` is read as Promela (see
/// [`Language`]); anything else as optimist's own language.
pub fn parse(src: &Source) -> Result<ast::Model, Error> {
    parse_as(src, Language::of(&src.name), &[])
}

/// The language a model is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// optimist's guarded-command language (`docs/src/language.md`).
    Gcl,
    /// The subset of SPIN's Promela that `docs/src/promela.md` describes.
    Promela,
}

impl Language {
    /// The language of a file, by its extension: `.pml`, `.prom` and
    /// `.promela` are Promela, anything else optimist's language.
    pub fn of(name: &str) -> Language {
        if promela::is_promela(name) {
            Language::Promela
        } else {
            Language::Gcl
        }
    }
}

/// Parses a model's source in `lang`. For Promela, `defines` are
/// preprocessor macros (`-DNAME=VALUE`, as `spin -D` passes them to cpp).
pub fn parse_as(src: &Source, lang: Language, defines: &Defines) -> Result<ast::Model, Error> {
    parse_with(src, lang, defines, &CompileOptions::default())
}

/// [`parse_as`] with options: a Promela model's process pools are as large
/// as the stack bound.
fn parse_with(
    src: &Source,
    lang: Language,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<ast::Model, Error> {
    match lang {
        Language::Gcl => syntax::parser::parse(&src.text).map_err(|e| Error::syntax(src, e)),
        Language::Promela => promela::parse(src, defines, options.max_stack),
    }
}

/// Parses and compiles a model's source, with `-D` overrides.
pub fn compile(src: &Source, defines: &Defines) -> Result<Model, Error> {
    compile_with(src, defines, &CompileOptions::default())
}

/// [`compile`] with options (the stack bound).
pub fn compile_with(
    src: &Source,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<Model, Error> {
    compile_as(src, Language::of(&src.name), defines, options)
}

/// [`compile_with`] in a given language. A Promela model takes `defines`
/// as preprocessor macros, before its own `#define`s.
pub fn compile_as(
    src: &Source,
    lang: Language,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<Model, Error> {
    let ast = parse_with(src, lang, defines, options)?;
    let consts: &Defines = if lang == Language::Promela {
        &[]
    } else {
        defines
    };
    model::compile_with(&ast, &src.stem(), &src.text, consts, options)
        .map_err(|e| Error::compile(src, e))
}

/// Reads, parses and compiles a model file.
pub fn load(path: &std::path::Path, defines: &Defines) -> Result<(Source, Model), Error> {
    load_with(path, defines, &CompileOptions::default())
}

/// [`load`] with options (the stack bound).
pub fn load_with(
    path: &std::path::Path,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<(Source, Model), Error> {
    let src = Source::read(path)?;
    let model = compile_with(&src, defines, options)?;
    Ok((src, model))
}

/// [`load_with`] in a given language (`None`: by the file's extension).
pub fn load_as(
    path: &std::path::Path,
    lang: Option<Language>,
    defines: &Defines,
    options: &CompileOptions,
) -> Result<(Source, Model), Error> {
    let src = Source::read(path)?;
    let lang = lang.unwrap_or_else(|| Language::of(&src.name));
    let model = compile_as(&src, lang, defines, options)?;
    Ok((src, model))
}

/// Checks that no reduction refuses this model for what it is: a
/// rendezvous (a step of two threads) or `timeout` (a guard on what every
/// thread can do), which no reduction's argument covers. `check` refuses
/// such a model under a reduction as inconclusive; `certify` and a reduced
/// `simulate` use this error.
pub fn check_reductions_apply(src: &Source, model: &Model) -> Result<(), Error> {
    let Some(why) = explore::reductions_refusal(model) else {
        return Ok(());
    };
    let message = format!("{}: no reduction covers it", why.message);
    let help = format!(
        "every reduction refuses such a model (side condition `{}`); `--reduction none` explores the original system",
        why.condition
    );
    Err(match why.place {
        Some((span, _)) => Error::at(src, span, message, Some(help), Vec::new()),
        None => Error::Usage {
            file: src.name.clone(),
            message,
            help: Some(help),
        },
    })
}

/// Checks that `certify` can conclude for this model under `theorem`: a
/// model every reduction applies to ([`check_reductions_apply`]), and
/// for Stoller and Cohen's theorem, invariants it covers
/// ([`check_reducible`]).
pub fn check_certifiable(
    src: &Source,
    model: &Model,
    theorem: CertifyTheorem,
) -> Result<(), Error> {
    check_reductions_apply(src, model)?;
    match theorem {
        CertifyTheorem::Sc => check_reducible(src, model),
        CertifyTheorem::Movers => Ok(()),
    }
}

/// Checks that `certify` can conclude for this model's invariants.
///
/// The certified theorem covers a predicate I only when invisible steps
/// cannot hide its violation (`I u_i <= u_i I`), and the obligations
/// `certify` checks assume invariants over unprotected shared variables
/// only (`check` itself makes every transition that writes what an
/// invariant reads visible, and so needs nothing). Any other invariant is
/// rejected here, with the reason, rather than certified unsoundly.
pub fn check_reducible(src: &Source, model: &Model) -> Result<(), Error> {
    for inv in &model.invariants {
        let mut bad = None;
        inv.expr.for_each_slot(&mut |s| {
            if bad.is_none() && model.slots[s as usize].class != SlotClass::Shared {
                bad = Some(s as usize);
            }
        });
        if let Some(s) = bad {
            let slot = &model.slots[s];
            let what = match slot.kind {
                SlotKind::Pc => format!("the control point of {}", slot.name),
                _ if slot.class == SlotClass::Protected => {
                    format!("protected variable {}", slot.name)
                }
                _ => format!("local variable {}", slot.name),
            };
            return Err(Error::at(
                src,
                inv.span,
                format!("this invariant reads {what}, which invisible steps may change, so the certified theorem does not cover it"),
                Some("`certify` covers invariants over unprotected shared variables only; `check` checks this one".into()),
                Vec::new(),
            ));
        }
    }
    Ok(())
}
