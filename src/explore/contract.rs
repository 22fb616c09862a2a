//! What each reduction promises: its contract.
//!
//! A reduction explores a smaller state space than the original system and
//! concludes for the original one only under side conditions. Each
//! reduction is a value ([`Mode`]) that states
//!
//! - which kinds of property it **preserves** ([`Property`], [`Preserved`]);
//! - its **side conditions** ([`Condition`]), and for each what it does
//!   where a model breaks it ([`Remedy`]): adapt (make the offending
//!   transitions visible, not movers, or not shared: the run still
//!   answers), report it as a violation that full exploration reports too,
//!   or refuse the model (exit 3, [`Verdict::DoesNotApply`]), never a
//!   verdict it cannot stand by;
//! - how it **judges** those conditions on a compiled model
//!   ([`Judgement`]), statically, naming the line and the construct;
//! - and it builds its expander behind the search's `Expand` seam.
//!
//! `check`, `graph`, `certify`, `refine` and `classify` all read the same
//! value, made by [`mode`] from the reduction's layer (`registry.rs`): no
//! side condition is decided anywhere else.

use std::fmt;

use super::graph::{Overlay, StateGraph};
use super::outcome::{Inapplicable, Outcome, Stats, Verdict};
use super::search::Watch;
use super::{Ignoring, Kept, Options, Reduction};
use crate::model::Model;
use crate::syntax::span::Span;

/// A kind of property a check decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// `assert` statements, and the `range` faults of every transition
    /// (values out of range, indices out of bounds, division by zero).
    Assertions,
    /// `invariant` declarations, checked in every state.
    Invariants,
    /// The synchronization discipline: every access to a protected variable
    /// under its exclusive access predicate, no two threads satisfying one,
    /// and the well-formedness of the predicates (WFinitExcl, WFendExcl).
    Discipline,
    /// Unless `--no-deadlock`: a state where no thread can move and some
    /// thread has not ended (a thread that ended is not deadlocked).
    Deadlocks,
    /// Lock misuse warnings (`ended-holding-lock`, `release-not-owner`).
    LockWarnings,
    /// `ltl` properties: linear temporal logic without next (LTL-X), under
    /// the fairness asked for.
    Ltl,
}

impl Property {
    /// Every kind, in the order of the tables.
    pub const ALL: [Property; 6] = [
        Property::Assertions,
        Property::Invariants,
        Property::Discipline,
        Property::Deadlocks,
        Property::LockWarnings,
        Property::Ltl,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Property::Assertions => "assertions",
            Property::Invariants => "invariants",
            Property::Discipline => "discipline",
            Property::Deadlocks => "deadlocks",
            Property::LockWarnings => "lock warnings",
            Property::Ltl => "LTL-X",
        }
    }
}

/// How a reduction treats a kind of property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserved {
    /// A violation is reported exactly when the original system has one
    /// (under the side conditions, which the reduction enforces).
    Yes,
    /// Found in the states the search stores; one met only inside a
    /// reduced step can be missed.
    Stored,
    /// Preserved without fairness (`--fairness none`); with fairness the
    /// reduction refuses (exit 3).
    Unfair,
    /// Not preserved.
    No,
}

impl Preserved {
    /// The word used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Preserved::Yes => "yes",
            Preserved::Stored => "in stored states",
            Preserved::Unfair => "without fairness",
            Preserved::No => "no",
        }
    }
}

/// What a reduction does where a model breaks one of its side conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// It adapts: the offending transitions are made visible, not movers,
    /// or not shared, and the run still answers.
    Adapt,
    /// It reports the breach as a violation, with a trace; full
    /// exploration reports the same violation.
    Report,
    /// It checks the condition as the search runs, and a breach it meets
    /// refuses the model (exit 3) with the trace to it.
    Check,
    /// It refuses the model: exit 3, the reduction does not apply.
    Refuse,
    /// Nothing (`--ignoring unsound`, for measurement): a `holds` is no
    /// proof.
    Nothing,
}

impl Remedy {
    /// The word used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Remedy::Adapt => "adapts",
            Remedy::Report => "reports",
            Remedy::Check => "refuses where the search meets a breach",
            Remedy::Refuse => "refuses",
            Remedy::Nothing => "nothing (unsound)",
        }
    }
}

/// A side condition of a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    /// A short name, as `classify --reduction R` lists it.
    pub name: &'static str,
    /// What the reduction needs of a model.
    pub needs: &'static str,
    /// What it does where a model breaks it.
    pub remedy: Remedy,
    /// How, in words.
    pub how: &'static str,
}

/// What a reduction promises, whatever the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    /// The reduction's name, with its options (`sc`, `movers --summaries`).
    pub name: String,
    /// Where it comes from: authors, title, year.
    pub source: &'static str,
    /// Per kind of property, in the order of [`Property::ALL`].
    pub preserves: Vec<(Property, Preserved)>,
    /// Its side conditions.
    pub conditions: Vec<Condition>,
    /// What the store adds (`--hash-compact`, `--bitstate`), when it is not
    /// exact.
    pub store: Option<&'static str>,
    /// How `--symmetry` stacks on it.
    pub symmetry: &'static str,
}

/// How `--symmetry` stacks on every reduction: a permutation of the copies
/// maps each reduction's steps from a state onto its steps from the
/// permuted state (the model is checked to be symmetric, and so is every
/// reduction's judgement of it), so the search may store one state per
/// orbit (Emerson, Jha and Peled, "Combining partial order and symmetry
/// reductions", 1997, for stubborn sets). Temporal properties keep their
/// verdicts on orbits where every atom is symmetric, without fairness
/// (Emerson and Sistla, "Symmetry and model checking", 1996); fairness
/// is per thread, and orbits forget which copy is which.
pub(crate) const SYMMETRY: &str = "composes: one state per orbit, for every kind above; LTL-X only without fairness and with atoms that no permutation changes (every state otherwise)";

impl Contract {
    /// How it treats `property`.
    pub fn preserves(&self, property: Property) -> Preserved {
        self.preserves
            .iter()
            .find(|(p, _)| *p == property)
            .map_or(Preserved::No, |&(_, how)| how)
    }

    /// Says that it treats temporal properties as `how`.
    pub(crate) fn ltl(&mut self, how: Preserved) {
        for (p, h) in &mut self.preserves {
            if *p == Property::Ltl {
                *h = how;
            }
        }
    }
}

/// One finding of a side condition on a model: what breaks it, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What breaks the condition and what the reduction does about it,
    /// naming the construct.
    pub message: String,
    /// The statement or declaration, with its 1-based line.
    pub place: Option<(Span, usize)>,
}

/// How a model fares against one side condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The model meets it.
    Met,
    /// The model breaks it and the reduction adapts.
    Adapted,
    /// The model may break it, and a run reports it as a violation, or
    /// refuses where it meets a breach.
    Reported,
    /// The model may break it and nothing is done (`--ignoring unsound`).
    Unsound,
    /// The model breaks it and the reduction refuses the model.
    Refused,
}

impl Status {
    /// The word used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Status::Met => "met",
            Status::Adapted => "adapted",
            Status::Reported => "checked",
            Status::Unsound => "UNSOUND",
            Status::Refused => "refused",
        }
    }
}

/// One side condition judged on one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The condition.
    pub condition: Condition,
    /// How the model fares.
    pub status: Status,
    /// What breaks it (empty when met).
    pub findings: Vec<Finding>,
}

impl Judgement {
    /// `condition` judged from `findings`: met when there are none, and
    /// otherwise what the condition's remedy does.
    pub fn of(condition: Condition, findings: Vec<Finding>) -> Judgement {
        let status = match (findings.is_empty(), condition.remedy) {
            (true, _) => Status::Met,
            (false, Remedy::Adapt) => Status::Adapted,
            (false, Remedy::Report | Remedy::Check) => Status::Reported,
            (false, Remedy::Refuse) => Status::Refused,
            (false, Remedy::Nothing) => Status::Unsound,
        };
        Judgement {
            condition,
            status,
            findings,
        }
    }
}

/// A reduction's contract and its judgement of one model.
#[derive(Clone, Debug)]
pub struct Assessment {
    /// The contract.
    pub contract: Contract,
    /// Each side condition, judged.
    pub judgements: Vec<Judgement>,
}

impl Assessment {
    /// Why the reduction does not apply, if a condition refuses the model.
    pub fn refusal(&self) -> Option<Inapplicable> {
        refusal(&self.judgements)
    }
}

/// The first condition of `judgements` that refuses the model, as a
/// refusal.
pub(crate) fn refusal(judgements: &[Judgement]) -> Option<Inapplicable> {
    let j = judgements.iter().find(|j| j.status == Status::Refused)?;
    let first = j.findings.first();
    Some(Inapplicable {
        condition: j.condition.name,
        message: first.map_or_else(|| j.condition.needs.to_string(), |f| f.message.clone()),
        place: first.and_then(|f| f.place),
    })
}

/// At most this many findings are listed per condition.
pub(crate) const FINDINGS: usize = 8;

/// A reduction applied to one model: its judgement of the model, and its
/// search. Made by [`mode`]; each reduction's module implements it, next
/// to the function that states its contract (read by [`contract`]).
pub(crate) trait Mode: Explore {
    /// Its side conditions, judged on the model.
    fn judge(&self) -> Vec<Judgement>;
    /// A fresh copy of its transactions, where it is made of transactions
    /// that stubborn sets can be stacked on (see `registry.rs`).
    fn steps(&self) -> Option<Box<super::stubborn::Steps<'_>>> {
        None
    }
    /// The expander of the graph that `ltl` properties are checked on,
    /// where the atoms observe `visible`; `None` where the contract does
    /// not preserve them.
    fn liveness(
        &self,
        _visible: &super::visible::Visible,
    ) -> Option<Box<dyn super::search::Expand + Send + '_>> {
        None
    }
    /// Why it cannot check temporal properties whose atoms observe
    /// `visible` on this model, although its contract keeps them.
    fn liveness_refusal(&self, _visible: &super::visible::Visible) -> Option<Inapplicable> {
        None
    }
    /// Whether the safety search explores the very graph of `liveness`
    /// for atoms that observe `visible`, so that it can record it.
    fn searches_liveness_graph(&self, _visible: &super::visible::Visible) -> bool {
        false
    }
}

/// What a reduction explores: its search, and its stored states and steps
/// over the full graph. A reduction that is one expander has both from
/// [`super::expanding`].
pub(crate) trait Explore {
    /// The search of `model` (the one the mode was made for), with
    /// `options` (limits, workers, store); recording the graph of every
    /// transition in `graph` when given (full exploration only); over the
    /// orbits of `quotient` when given.
    fn search(
        &self,
        model: &Model,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
        graph: Option<&mut super::ltlgraph::Recorder>,
        quotient: Option<&crate::symmetry::Symmetry>,
    ) -> Outcome;
    /// Its stored states and steps drawn over the full state graph, as
    /// `reduction`'s.
    fn overlay(&self, model: &Model, graph: &StateGraph, reduction: Reduction) -> Overlay;
}

/// Why a combination of options is not a reduction at all: a usage error,
/// whatever the model (exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// Checks that `options` name a reduction: `--summaries` needs the
/// transactions of `sc` or `movers` and commit point completion.
pub fn validate(options: &Options) -> Result<(), Unsupported> {
    if options.summaries && !options.reduction.supports_summaries() {
        return Err(Unsupported(
            "`--summaries` works with `--reduction sc` or `--reduction movers`: summaries are made of their transactions".into(),
        ));
    }
    if options.summaries && options.ignoring != Ignoring::Cpc {
        return Err(Unsupported(
            "`--summaries` ends transactions that cannot complete by commit point completion; `--ignoring` must be `cpc`".into(),
        ));
    }
    if let Some(c) = &options.cluster {
        if options.summaries {
            return Err(Unsupported(
                "`--summaries` runs in one process: every expansion shares the summaries made so far, so an expansion is not a function of its state alone".into(),
            ));
        }
        if matches!(options.kept, Kept::Bitstate { .. }) {
            return Err(Unsupported(
                "`--bitstate` runs in one process: its bit array is one table for the whole state space; `--hash-compact` spreads over processes".into(),
            ));
        }
        if c.workers == 0 || c.process >= c.processes() {
            return Err(Unsupported(format!(
                "process {} of a run of {} process{}: `--process` counts from 0",
                c.process,
                c.processes(),
                if c.processes() == 1 { "" } else { "es" }
            )));
        }
    }
    Ok(())
}

/// The reduction `options` name, applied to `model`: under `--summaries`,
/// its transactions read off procedure summaries.
pub(crate) fn mode<'m>(model: &'m Model, options: &Options) -> Box<dyn Mode + 'm> {
    let layer = options.reduction.layer();
    let base = match layer.summarized() {
        Some(base) if options.summaries => {
            super::summarized::mode(model, base, !options.summaries_per_thread)
        }
        _ => layer.mode(model, options),
    };
    if layer.is_full() {
        return base;
    }
    let refusals = super::refusing::refusals(model);
    if refusals.is_empty() {
        return base;
    }
    Box::new(super::refusing::Refusing { base, refusals })
}

/// The contract of the reduction `options` name, whatever the model.
pub fn contract(options: &Options) -> Result<Contract, Unsupported> {
    validate(options)?;
    let layer = options.reduction.layer();
    let c = match layer.summarized() {
        Some(base) if options.summaries => {
            super::summarized::contract(base, !options.summaries_per_thread)
        }
        _ => layer.contract(options),
    };
    let mut conditions = c.conditions.clone();
    if !layer.is_full() {
        conditions.splice(0..0, super::refusing::CONDITIONS);
    }
    Ok(Contract {
        conditions,
        store: match options.kept {
            Kept::Exact => None,
            Kept::HashCompact | Kept::Bitstate { .. } => Some(
                "the store keeps a fingerprint or bits of each state: every violation it reports is real and its trace replays, but a state may be missed, so `holds` is probabilistic (the report gives the bound)",
            ),
        },
        ..c
    })
}

/// The contract of the reduction `options` name and its judgement of
/// `model`, as `classify --reduction R` prints it.
pub fn assess(model: &Model, options: &Options) -> Result<Assessment, Unsupported> {
    Ok(Assessment {
        contract: contract(options)?,
        judgements: mode(model, options).judge(),
    })
}

/// The run: judge the model, refuse it where a condition says so, and
/// otherwise search (over the orbits of `orbits`' symmetry, where it has
/// one; the graph recorded, where given, is over them too).
pub(crate) fn run(
    model: &Model,
    options: &Options,
    watch: &mut Option<Watch>,
    progress: &mut dyn FnMut(&Stats),
    graph: Option<&mut super::ltlgraph::Recorder>,
    orbits: &super::symmetric::Orbits,
) -> Outcome {
    let mode = mode(model, options);
    if let Some(why) = refusal(&mode.judge()) {
        return Outcome::new(Verdict::DoesNotApply(why), Stats::default(), None);
    }
    let quotient = orbits.symmetry();
    let mut o = mode.search(model, options, watch, progress, graph, quotient);
    o.symmetry = quotient.map(crate::symmetry::Symmetry::used);
    if options.symmetry == super::SymmetryUse::On {
        o.caveats.extend(orbits.unused());
    }
    if o.violation
        .as_ref()
        .is_some_and(|v| super::confirm::confirm(model, v).is_err())
    {
        o.verdict = Verdict::Inconclusive(super::Limit::Internal(
            "the counterexample found does not replay in the original system",
        ));
        o.violation = None;
    }
    if let Some(why) = o.violation.as_ref().and_then(|v| breach(model, v)) {
        // Kept: the trace shows where the model breaks the condition.
        o.verdict = Verdict::DoesNotApply(why);
    }
    if options.deadlock
        && matches!(o.verdict, Verdict::Holds)
        && let Ok(c) = contract(options)
        && c.preserves(Property::Deadlocks) != Preserved::Yes
    {
        // Deadlocks are checked by default: a mode that cannot rule them
        // out must not answer `holds`.
        o.verdict = Verdict::Inconclusive(super::Limit::Deadlocks);
        o.caveats.push(format!(
            "`{}` finds deadlocks only in the states it stores, and one inside a reduced step can be missed: `--no-deadlock` gives the safety verdict, `--reduction sc` or `none` checks deadlocks",
            c.name
        ));
    }
    o
}

/// A side condition that the search found broken as it ran: a
/// well-formedness violation that full exploration would not report (a
/// transition that falsifies another thread's exclusive access predicate,
/// WFendExcl, and an endless transaction under `--ignoring forbid`). The
/// reduction does not apply there; the system itself may hold.
fn breach(model: &Model, v: &super::Violation) -> Option<Inapplicable> {
    use super::Problem;
    let last = v.trace.last().map(|st| st.transition);
    let place = last.map(|k| (model.transitions[k].span, model.transitions[k].line));
    let (condition, message) = match &v.problem {
        Problem::EndExcl { protected, victim } => (
            END_EXCL.name,
            format!(
                "{} falsifies excl({}, {}), the exclusive access predicate of another thread (WFendExcl); only its holder may give exclusive access up. The trace shows where",
                last.map_or("a transition".into(), |k| named(model, k)),
                model.threads[*victim].name,
                model.slots[model.protected[*protected].slot as usize].name
            ),
        ),
        Problem::InvisibleCycle { thread, length } => (
            FINITE,
            format!(
                "{} can run a loop of {length} transition{} inside one transaction for ever (WFfiniteInvis, reported as `--ignoring forbid` asks). The trace shows the loop",
                model.threads[*thread].name,
                if *length == 1 { "" } else { "s" }
            ),
        ),
        _ => return None,
    };
    Some(Inapplicable {
        condition,
        message,
        place,
    })
}

/// The findings of `(transition, message)` pairs, at most [`FINDINGS`].
pub(crate) fn at_transitions(
    model: &Model,
    found: impl IntoIterator<Item = (usize, String)>,
) -> Vec<Finding> {
    found
        .into_iter()
        .take(FINDINGS)
        .map(|(k, message)| {
            let tr = &model.transitions[k];
            Finding {
                message,
                place: Some((tr.span, tr.line)),
            }
        })
        .collect()
}

/// How a transition is named in a finding: its statement and thread (the
/// finding gives the line).
pub(crate) fn named(model: &Model, k: usize) -> String {
    let tr = &model.transitions[k];
    format!(
        "`{}` of {}",
        tr.text, model.threads[tr.thread as usize].name
    )
}

/// The discipline, which every mode checks as full exploration does.
pub(crate) const DISCIPLINE: Condition = Condition {
    name: "the discipline",
    needs: "every access to a protected variable is made under its exclusive access predicate, and no two threads satisfy one (WFinitExcl in the initial state)",
    remedy: Remedy::Report,
    how: "checked at every transition the search fires and reported as a `discipline` or `well-formedness` violation with its trace, as full exploration reports it",
};

/// WFendExcl, which transactions need and full exploration does not.
pub(crate) const END_EXCL: Condition = Condition {
    name: "exclusive access kept",
    needs: "no transition of one thread falsifies another thread's exclusive access predicate (WFendExcl): only its holder gives exclusive access up",
    remedy: Remedy::Check,
    how: "checked after every transition the search fires; a breach ends the run inconclusive (exit 3) with the trace to it, since the system itself may hold",
};

/// [`END_EXCL`] judged on `model`: the transitions that write what
/// another thread's predicate reads.
pub(crate) fn end_excl(model: &Model) -> Judgement {
    let found = (0..model.transitions.len())
        .filter(|&k| !model.transitions[k].touches_excl.is_empty() && model.threads.len() > 1)
        .map(|k| {
            let tr = &model.transitions[k];
            let names: Vec<&str> = tr
                .touches_excl
                .iter()
                .map(|&p| {
                    model.slots[model.protected[p as usize].slot as usize]
                        .name
                        .as_str()
                })
                .collect();
            (
                k,
                format!(
                    "{} writes what the predicate of {} reads: checked at every step",
                    named(model, k),
                    names.join(", ")
                ),
            )
        });
    Judgement::of(END_EXCL, at_transitions(model, found))
}

/// [`DISCIPLINE`] judged on `model`: checked wherever it has protected
/// variables.
pub(crate) fn discipline(model: &Model) -> Judgement {
    let found = model.protected.iter().take(FINDINGS).map(|p| Finding {
        message: format!(
            "{} is protected: {}",
            model.slots[p.slot as usize].name, p.text
        ),
        place: Some((p.span, p.line)),
    });
    Judgement::of(DISCIPLINE, found.collect())
}

/// The name of the condition [`ignoring`] states.
const FINITE: &str = "finite transactions";

/// What a run of one thread's transaction that can go on forever is
/// handled by: the `--ignoring` policy.
pub(crate) fn ignoring(ignoring: Ignoring) -> Condition {
    let (remedy, how) = match ignoring {
        Ignoring::Cpc => (
            Remedy::Adapt,
            "commit point completion (Levin, Palmer, Qadeer and Rajamani, \"Sound transaction-based reduction without cycle detection\", 2005): a transaction that cannot complete is ended by force at a commit point, where every thread is scheduled",
        ),
        Ignoring::Cycles => (
            Remedy::Adapt,
            "cycle detection: a transaction is ended by force where its run closes a cycle, and every thread is scheduled there",
        ),
        Ignoring::Forbid => (
            Remedy::Check,
            "where the search meets an endless run (WFfiniteInvis), the run ends inconclusive (exit 3) with the loop as its trace",
        ),
        Ignoring::Unsound => (
            Remedy::Nothing,
            "the loop is cut and nothing is scheduled: a violation can be missed (for measurement only)",
        ),
    };
    Condition {
        name: FINITE,
        needs: "every run of one thread's transaction ends (WFfiniteInvis; Flanagan and Qadeer's condition C)",
        remedy,
        how,
    }
}

/// [`ignoring`] judged from the loops a transaction may run round: per
/// loop, its thread and its points.
pub(crate) fn loops(model: &Model, policy: Ignoring, loops: &[(usize, Vec<i64>)]) -> Judgement {
    let found = loops.iter().take(FINDINGS).map(|(t, pcs)| {
        let th = &model.threads[*t];
        let place = loop_place(model, *t, pcs);
        Finding {
            message: format!(
                "{} can run round a loop of {} control point{} inside one transaction{}",
                th.name,
                pcs.len(),
                if pcs.len() == 1 { "" } else { "s" },
                place.map_or(String::new(), |(_, l)| format!(" from line {l}"))
            ),
            place,
        }
    });
    Judgement::of(ignoring(policy), found.collect())
}

/// The contract of a reduction to transactions (`movers`, `sc`): LTL-X is
/// not preserved (a layer that keeps it says so), and after its own side
/// conditions `own` come those of
/// every such reduction: the discipline, WFendExcl and finite transactions
/// under `policy`.
pub(crate) fn transactions(
    name: &str,
    source: &'static str,
    own: &[Condition],
    policy: Ignoring,
) -> Contract {
    let mut conditions = own.to_vec();
    conditions.extend([DISCIPLINE, END_EXCL, ignoring(policy)]);
    Contract {
        name: name.into(),
        source,
        preserves: super::full::reduced_preserves(Preserved::No),
        conditions,
        store: None,
        symmetry: super::contract::SYMMETRY,
    }
}

/// The side conditions of a [`transactions`] contract judged on `model`:
/// `own`, the judgements of its own, then those every such reduction has,
/// where a transaction may run round `loops` under `policy`.
pub(crate) fn transactions_judged(
    model: &Model,
    own: Vec<Judgement>,
    policy: Ignoring,
    loops: &[(usize, Vec<i64>)],
) -> Vec<Judgement> {
    let mut all = own;
    all.extend([
        discipline(model),
        end_excl(model),
        self::loops(model, policy, loops),
    ]);
    all
}

/// Where a loop of thread `t` through points `pcs` is shown: the first
/// statement on it.
pub(crate) fn loop_place(model: &Model, t: usize, pcs: &[i64]) -> Option<(Span, usize)> {
    let th = &model.threads[t];
    let k = pcs
        .iter()
        .find_map(|&pc| th.points[pc as usize].transitions.clone().next())?;
    Some((model.transitions[k].span, model.transitions[k].line))
}

/// The loops of each thread's control flow among the points `inside`
/// (per thread, per point): where a transaction may run round for ever.
pub(crate) fn control_loops(
    model: &Model,
    inside: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, Vec<i64>)> {
    let mut out = Vec::new();
    for (t, th) in model.threads.iter().enumerate() {
        let succ = |pc: usize| -> Vec<usize> {
            if !inside(t, pc) {
                return Vec::new();
            }
            th.points[pc]
                .transitions
                .clone()
                .flat_map(|k| model.transitions[k].next.targets())
                .map(|p| p as usize)
                .filter(|&p| inside(t, p))
                .collect()
        };
        for scc in crate::classify::components(th.points.len(), succ) {
            if scc.len() > 1 || succ(scc[0]).contains(&scc[0]) {
                let mut pcs: Vec<i64> = scc.iter().map(|&p| p as i64).collect();
                pcs.sort_unstable();
                out.push((t, pcs));
            }
        }
    }
    out.sort();
    out
}
