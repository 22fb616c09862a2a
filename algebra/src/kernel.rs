//! Checking a whole script: lemmas in order, their chains and case splits,
//! each step from exactly the facts it cites.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use egg::Rewrite;

use crate::axioms::axioms;
use crate::bridge::{self, Sorts};
use crate::error::CertificateError;
use crate::facts::{
    Check, Citable, Fact, Scope, Source, assumption_of, pred_atom_test, render_inst,
};
use crate::lang::Op;
use crate::matching::{Inst, Schema, contexts, match_term};
use crate::model::Evaluator;
use crate::mutation::{Mutant, MutantOutcome};
use crate::parser::premise_labels;
use crate::proof::GoalProof;
use crate::proofterm::{Builder, Node};
use crate::prover::{Failure, Prover, Settings};
use crate::replay::{Derive, Replay, ReplayError};
use crate::report::{FailedStep, LemmaReport, Report, Status, StepFailure, StepReport};
use crate::rules::{axiom_specs, build};
use crate::script::{
    Chain, Citation, DefHead, Hint, Item, Lemma, Proof, Script, SourceKind, Statement,
};
use crate::term::{Formula as KFormula, Rel, Term};
use crate::trusted::Pinned;
use crate::trusted::{Formula, Rel as CRel, Theory, Thm};

/// What to check and how hard to try.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckOptions {
    /// Hypotheses to remove from the context (`16` or `(16)`).
    pub drop: Vec<String>,
    /// Effort and limits.
    pub settings: Settings,
}

/// The proof of one step, kept for certificates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StepRecord {
    /// The case split it belongs to: `(i, j, equal)`.
    pub case: Option<(String, String, bool)>,
    pub number: usize,
    pub goal: KFormula,
    pub proof: Option<GoalProof>,
}

/// The proofs of one lemma, kept for certificates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LemmaRecord {
    pub label: String,
    pub statement: Statement,
    pub proved: bool,
    pub steps: Vec<StepRecord>,
    /// The lemma's derivation in primitive rules; its last node proves the
    /// lemma when `proved`.
    pub nodes: Vec<Node>,
    /// The node proving each step, when it replayed.
    pub roots: Vec<Option<usize>>,
}

/// The result of [`check`]: the report, and what a certificate is built from.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The report.
    pub report: Report,
    pub(crate) records: Vec<LemmaRecord>,
}

struct LemmaInfo {
    statement: Statement,
    ok: bool,
    hyps: BTreeSet<String>,
    lemmas: BTreeSet<String>,
}

#[derive(Default, Clone)]
struct Deps {
    hyps: BTreeSet<String>,
    lemmas: BTreeSet<String>,
    defs: BTreeSet<String>,
}

impl Deps {
    fn extend(&mut self, o: &Deps) {
        self.hyps.extend(o.hyps.iter().cloned());
        self.lemmas.extend(o.lemmas.iter().cloned());
        self.defs.extend(o.defs.iter().cloned());
    }
}

struct StepFail {
    reason: String,
    counter_model: Option<String>,
}

impl From<Failure> for StepFail {
    fn from(f: Failure) -> Self {
        StepFail {
            reason: f.reason,
            counter_model: f.counter_model.map(|c| c.to_string()),
        }
    }
}

struct Kernel<'a> {
    script: &'a Script,
    /// The core theory: the script's declarations, definitions and
    /// hypotheses (without the dropped ones), and the lemmas closed so far.
    core: Theory,
    sorts: Sorts,
    prover: Prover<'a>,
    dropped: BTreeSet<String>,
    lemmas: BTreeMap<String, LemmaInfo>,
    premises: BTreeMap<String, KFormula>,
    /// Mutants to check in their step's context, and their verdicts.
    mutants: Vec<Mutant>,
    outcomes: Vec<MutantOutcome>,
    current: String,
}

/// Normalises `16` to `(16)`.
pub fn hypothesis_label(s: &str) -> String {
    if s.starts_with('(') {
        s.to_string()
    } else {
        format!("({s})")
    }
}

/// Checks every lemma of a script.
pub fn check(script: &Script, opts: &CheckOptions) -> Checked {
    check_with(script, opts, Vec::new()).0
}

/// Checks a script and, in the context of each step, the given mutants
/// of that step (see [`mutants`](crate::mutants)).
pub fn check_mutants(
    script: &Script,
    mutants: &[Mutant],
    opts: &CheckOptions,
) -> Vec<MutantOutcome> {
    check_with(script, opts, mutants.to_vec()).1
}

fn check_with(
    script: &Script,
    opts: &CheckOptions,
    mutants: Vec<Mutant>,
) -> (Checked, Vec<MutantOutcome>) {
    let start = Instant::now();
    let evaluator = Evaluator::new(script.definitions());
    let axiom_rules: Vec<Rewrite<Op, ()>> = build(&axiom_specs());
    let prover = Prover {
        script,
        evaluator: &evaluator,
        axiom_rules: &axiom_rules,
        settings: &opts.settings,
        fresh: 0,
        saturations: 0,
    };
    let dropped: BTreeSet<String> = opts.drop.iter().map(|d| hypothesis_label(d)).collect();
    let (core, core_error) = match bridge::theory(script, &dropped) {
        Ok(t) => (t, None),
        Err(e) => (Theory::default(), Some(e)),
    };
    let mut k = Kernel {
        script,
        core,
        sorts: Sorts(script.vars.clone()),
        prover,
        dropped,
        lemmas: BTreeMap::new(),
        premises: BTreeMap::new(),
        mutants,
        outcomes: Vec::new(),
        current: String::new(),
    };
    let mut reports = Vec::new();
    let mut records = Vec::new();
    let mut all = Deps::default();
    for item in &script.items {
        if let Item::Lemma(l) = item {
            let (rep, rec, deps) = k.check_lemma(l);
            all.extend(&deps);
            reports.push(rep);
            records.push(rec);
        }
    }
    let mut failed = Vec::new();
    if let Some(e) = core_error {
        failed.push(FailedStep {
            lemma: "-".into(),
            step: "theory".into(),
            line: 0,
            goal: String::new(),
            hints: vec![],
            reason: format!("the core refuses the script's theory: {e}"),
            counter_model: None,
        });
    }
    let mut steps = 0;
    for l in &reports {
        for e in &l.errors {
            failed.push(FailedStep {
                lemma: l.label.clone(),
                step: "chain".into(),
                line: l.line,
                goal: l.statement.clone(),
                hints: vec![],
                reason: e.clone(),
                counter_model: None,
            });
        }
        for s in &l.steps {
            steps += 1;
            if let Some(f) = &s.failure {
                let step = match &s.case {
                    Some(c) => format!("case {c}, step {}", s.number),
                    None => format!("step {}", s.number),
                };
                failed.push(FailedStep {
                    lemma: l.label.clone(),
                    step,
                    line: s.line,
                    goal: s.goal.clone(),
                    hints: s.hints.clone(),
                    reason: f.reason.clone(),
                    counter_model: f.counter_model.clone(),
                });
            }
        }
    }
    let failed_lemmas: BTreeSet<&str> = reports
        .iter()
        .filter(|l| l.status == Status::Failed)
        .map(|l| l.label.as_str())
        .collect();
    let trusted: Vec<String> = all
        .lemmas
        .iter()
        .filter(|l| failed_lemmas.contains(l.as_str()))
        .cloned()
        .collect();
    let mut assumptions: Vec<String> = axioms().iter().map(|a| a.label.clone()).collect();
    // Hypotheses in script order.
    for h in script.hypotheses() {
        if all.hyps.contains(&h.label) {
            assumptions.push(h.label.clone());
        }
    }
    let definitions: Vec<String> = script
        .definitions()
        .filter(|d| all.defs.contains(&d.label))
        .map(|d| d.label.clone())
        .collect();
    let status = if failed.is_empty() && reports.iter().all(|l| l.status == Status::Proved) {
        Status::Proved
    } else {
        Status::Failed
    };
    let paper = paper_comparison(pinned_of(script), &k.core, &k.dropped);
    let report = Report {
        file: script.file.clone(),
        status,
        steps,
        trusted,
        assumptions,
        definitions,
        dropped: k.dropped.iter().cloned().collect(),
        failed,
        elapsed_ms: start.elapsed().as_millis(),
        saturations: k.prover.saturations,
        lemmas: reports,
        without: without(script, &k.dropped),
        theorem: paper.theorem,
        paper_theory: paper.theory,
        paper_claim: status == Status::Proved && paper.difference.is_none(),
        paper_difference: paper.difference,
    };
    (Checked { report, records }, k.outcomes)
}

impl<'a> Kernel<'a> {
    fn base_scope(&self, st: &Statement) -> Scope {
        let mut scope = Scope {
            indices: st.indices(),
            distinct: BTreeSet::new(),
            vars: self.script.vars.clone(),
        };
        for (a, b) in &st.distinct {
            scope.add_distinct(a, b);
        }
        scope
    }

    fn check_lemma(&mut self, l: &Lemma) -> (LemmaReport, LemmaRecord, Deps) {
        self.current = l.label.clone();
        let st = &l.statement;
        let goal = st.conclusions[0].clone();
        self.premises = premise_labels(st.premises.len())
            .into_iter()
            .zip(st.premises.iter().cloned())
            .collect();
        let scope = self.base_scope(st);
        let mut errors = Vec::new();
        let mut steps = Vec::new();
        let mut records = Vec::new();
        let mut deps = Deps::default();
        match &l.proof {
            Proof::By(hints, _, line) => {
                let (rep, rec) = self.check_step(&goal, hints, &scope, None, 1, *line, &mut deps);
                steps.push(rep);
                records.push(rec);
            }
            Proof::Chain(c) => {
                self.check_chain(
                    c,
                    &goal,
                    &scope,
                    None,
                    &mut errors,
                    &mut steps,
                    &mut records,
                    &mut deps,
                );
            }
            Proof::Cases(cases) => {
                let pairs: BTreeSet<(String, String)> = cases
                    .iter()
                    .map(|c| {
                        let (a, b) = &c.indices;
                        if a < b {
                            (a.clone(), b.clone())
                        } else {
                            (b.clone(), a.clone())
                        }
                    })
                    .collect();
                let kinds: BTreeSet<bool> = cases.iter().map(|c| c.equal).collect();
                if cases.len() != 2 || pairs.len() != 1 || kinds.len() != 2 {
                    errors.push("a case split needs exactly the two cases `i = j` and `i != j` on the same indices".into());
                }
                for c in cases {
                    let (a, b) = &c.indices;
                    if !scope.indices.contains(a) || !scope.indices.contains(b) {
                        errors.push(format!(
                            "case {a} {} {b}: both indices must occur in the statement",
                            if c.equal { "=" } else { "!=" }
                        ));
                        continue;
                    }
                    if c.equal {
                        if scope.knows_distinct(a, b) {
                            errors.push(format!(
                                "case {a} = {b} contradicts the assumption {a} != {b}"
                            ));
                            continue;
                        }
                        let g = goal.map(|t| t.subst_index(b, a));
                        let saved = self.premises.clone();
                        self.premises = saved
                            .iter()
                            .map(|(k, f)| (k.clone(), f.map(|t| t.subst_index(b, a))))
                            .collect();
                        let mut sc = scope.clone();
                        sc.indices.remove(b);
                        let pairs: Vec<(String, String)> = sc.distinct.iter().cloned().collect();
                        sc.distinct = pairs
                            .into_iter()
                            .map(|(x, y)| {
                                (
                                    if &x == b { a.clone() } else { x },
                                    if &y == b { a.clone() } else { y },
                                )
                            })
                            .collect();
                        self.check_chain(
                            &c.chain,
                            &g,
                            &sc,
                            Some((a.clone(), b.clone(), true)),
                            &mut errors,
                            &mut steps,
                            &mut records,
                            &mut deps,
                        );
                        self.premises = saved;
                    } else {
                        let mut sc = scope.clone();
                        sc.add_distinct(a, b);
                        self.check_chain(
                            &c.chain,
                            &goal,
                            &sc,
                            Some((a.clone(), b.clone(), false)),
                            &mut errors,
                            &mut steps,
                            &mut records,
                            &mut deps,
                        );
                    }
                }
            }
        }
        // Every step found by the search is replayed through the core, and
        // the lemma is closed there: the core's verdict is the kernel's.
        let (roots, nodes, closing) = self.replay_lemma(l, &records);
        for (rep, root) in steps.iter_mut().zip(&roots) {
            if let (Status::Proved, Err(e)) = (rep.status, root) {
                rep.status = Status::Failed;
                rep.how = String::new();
                rep.failure = Some(StepFailure {
                    reason: e.clone(),
                    counter_model: None,
                });
            }
        }
        let searched_ok = errors.is_empty() && steps.iter().all(|s| s.status == Status::Proved);
        let core_st = bridge::statement(st, &self.sorts);
        let closed = match closing {
            Some(thm) if searched_ok => {
                match self.core.close_lemma(&l.label, core_st.clone(), &thm) {
                    Ok(()) => true,
                    Err(e) => {
                        errors.push(format!("the core does not accept the lemma: {e}"));
                        false
                    }
                }
            }
            Some(_) => false,
            None => {
                if searched_ok {
                    errors.push("the core could not assemble the lemma from its steps".into());
                }
                false
            }
        };
        if !closed {
            // Later lemmas may still cite it; what rests on it says so.
            let _ = self.core.admit(&l.label, core_st);
        }
        let roots: Vec<Option<usize>> = roots.into_iter().map(|r| r.ok()).collect();
        // Transitive dependencies through cited lemmas.
        let mut hyps = deps.hyps.clone();
        let mut lemmas = deps.lemmas.clone();
        for c in &deps.lemmas {
            if let Some(info) = self.lemmas.get(c) {
                hyps.extend(info.hyps.iter().cloned());
                lemmas.extend(info.lemmas.iter().cloned());
            }
        }
        let own_ok = errors.is_empty() && steps.iter().all(|s| s.status == Status::Proved);
        let depends_on_failed: Vec<String> = lemmas
            .iter()
            .filter(|c| self.lemmas.get(*c).is_some_and(|i| !i.ok))
            .cloned()
            .collect();
        self.lemmas.insert(
            l.label.clone(),
            LemmaInfo {
                statement: st.clone(),
                ok: own_ok,
                hyps: hyps.clone(),
                lemmas: lemmas.clone(),
            },
        );
        self.premises.clear();
        let uses: Vec<String> = self
            .script
            .lemmas()
            .filter(|x| lemmas.contains(&x.label))
            .map(|x| x.label.clone())
            .collect();
        let mut all_deps = deps;
        all_deps.hyps = hyps.clone();
        all_deps.lemmas = lemmas;
        let report = LemmaReport {
            label: l.label.clone(),
            statement: render_statement(st),
            line: l.line,
            status: if own_ok {
                Status::Proved
            } else {
                Status::Failed
            },
            errors,
            steps,
            hypotheses: self
                .script
                .hypotheses()
                .filter(|h| hyps.contains(&h.label))
                .map(|h| h.label.clone())
                .collect(),
            depends_on_failed,
            uses,
        };
        let record = LemmaRecord {
            label: l.label.clone(),
            statement: st.clone(),
            proved: own_ok,
            steps: records,
            nodes,
            roots,
        };
        (report, record, all_deps)
    }

    /// Replays one goal's proof through the core (for mutants).
    fn replay_one(&self, goal: &KFormula, proof: &GoalProof) -> Result<(), String> {
        let mut b = Builder::new(&self.core);
        let mut rp = Replay::new(&mut b, &self.sorts, self.script);
        let want = bridge::formula(goal, &self.sorts);
        match rp.goal(proof) {
            Ok(n) if *rp.d.b.concl(n) == want => Ok(()),
            Ok(n) => Err(format!(
                "the core proves `{}`, not `{want}`",
                rp.d.b.concl(n)
            )),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Replays the steps' proofs through the core in one derivation, then
    /// assembles the lemma (chains by transitivity, the case split).
    fn replay_lemma(
        &self,
        l: &Lemma,
        records: &[StepRecord],
    ) -> (Vec<Result<usize, String>>, Vec<Node>, Option<Thm>) {
        let mut b = Builder::new(&self.core);
        let mut roots = Vec::new();
        for r in records {
            let res = match &r.proof {
                None => Err("not shown".to_string()),
                Some(p) => {
                    let mut rp = Replay::new(&mut b, &self.sorts, self.script);
                    let want = bridge::formula(&r.goal, &self.sorts);
                    match rp.goal(p) {
                        Ok(n) if *rp.d.b.concl(n) == want => Ok(n),
                        Ok(n) => Err(format!(
                            "the core proves `{}`, not the step `{want}`",
                            rp.d.b.concl(n)
                        )),
                        Err(e) => Err(e.to_string()),
                    }
                }
            };
            roots.push(res);
        }
        if roots.iter().any(|r| r.is_err()) {
            return (roots, Vec::new(), None);
        }
        let ok: Vec<usize> = roots.iter().filter_map(|r| r.clone().ok()).collect();
        let st = bridge::statement(&l.statement, &self.sorts);
        let goal = st.conclusions[0].clone();
        let mut d = Derive { b: &mut b };
        let fin = match &l.proof {
            Proof::Cases(cases) => (|| {
                let mut same = None;
                let mut differ = None;
                let mut ij = None;
                for c in cases {
                    let (a, bb) = &c.indices;
                    let key = Some((a.clone(), bb.clone(), c.equal));
                    let nodes: Vec<usize> = records
                        .iter()
                        .zip(&ok)
                        .filter(|(r, _)| r.case == key)
                        .map(|(_, n)| *n)
                        .collect();
                    let g = if c.equal {
                        let m = [(bb.clone(), a.clone())].into_iter().collect();
                        let f = Formula::new(goal.lhs.clone(), goal.rel, goal.rhs.clone());
                        subst_ix(&f, &m)
                    } else {
                        goal.clone()
                    };
                    let n = compose(&mut d, &nodes, &g).ok()?;
                    if c.equal {
                        same = Some(n);
                    } else {
                        differ = Some(n);
                    }
                    ij = Some((a.clone(), bb.clone()));
                }
                let (i, j) = ij?;
                d.add(Node::Cases {
                    i,
                    j,
                    same: same?,
                    differ: differ?,
                })
                .ok()
            })(),
            _ => compose(&mut d, &ok, &goal).ok(),
        };
        match fin {
            Some(n) => {
                let thm = b.thm(n).clone();
                (roots, b.finish(n), Some(thm))
            }
            None => (roots, Vec::new(), None),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_chain(
        &mut self,
        c: &Chain,
        goal: &KFormula,
        scope: &Scope,
        case: Option<(String, String, bool)>,
        errors: &mut Vec<String>,
        steps: &mut Vec<StepReport>,
        records: &mut Vec<StepRecord>,
        deps: &mut Deps,
    ) {
        let prefix = case
            .as_ref()
            .map(|c| format!("case {}: ", case_text(c)))
            .unwrap_or_default();
        if c.start.assoc_normal() != goal.lhs.assoc_normal() {
            errors.push(format!(
                "{prefix}the chain starts with `{}`, not with the left side `{}`",
                c.start, goal.lhs
            ));
        }
        let last = &c.steps[c.steps.len() - 1].term;
        if last.assoc_normal() != goal.rhs.assoc_normal() {
            errors.push(format!(
                "{prefix}the chain ends with `{last}`, not with the right side `{}`",
                goal.rhs
            ));
        }
        let rel = c.steps.iter().fold(Rel::Eq, |acc, s| acc.then(s.rel));
        if !rel.implies(goal.rel) {
            errors.push(format!(
                "{prefix}the chain shows `<=` but the statement claims `=`"
            ));
        }
        let mut prev = c.start.clone();
        for (n, s) in c.steps.iter().enumerate() {
            let g = KFormula::new(prev.clone(), s.rel, s.term.clone());
            let (rep, rec) =
                self.check_step(&g, &s.hints, scope, case.clone(), n + 1, s.line, deps);
            steps.push(rep);
            records.push(rec);
            prev = s.term.clone();
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_step(
        &mut self,
        goal: &KFormula,
        hints: &[Hint],
        scope: &Scope,
        case: Option<(String, String, bool)>,
        number: usize,
        line: usize,
        deps: &mut Deps,
    ) -> (StepReport, StepRecord) {
        let labels = hint_labels(hints, &self.dropped);
        let (status, how, failure, proof) = match self.check_goal(goal, hints, scope) {
            Ok((proof, d)) => {
                deps.extend(&d);
                (Status::Proved, proof.summary(), None, Some(proof))
            }
            Err(f) => (
                Status::Failed,
                String::new(),
                Some(StepFailure {
                    reason: f.reason,
                    counter_model: f.counter_model,
                }),
                None,
            ),
        };
        // A failed step still cites what it cites.
        if status == Status::Failed {
            for h in hints {
                collect_cited(h, &self.dropped, deps);
            }
        }
        self.check_mutants_at(&case, number, scope);
        (
            StepReport {
                number,
                case: case.as_ref().map(case_text),
                line,
                goal: goal.to_string(),
                status,
                how,
                hints: labels,
                failure,
            },
            StepRecord {
                case,
                number,
                goal: goal.clone(),
                proof,
            },
        )
    }

    fn check_mutants_at(
        &mut self,
        case: &Option<(String, String, bool)>,
        number: usize,
        scope: &Scope,
    ) {
        let here: Vec<Mutant> = self
            .mutants
            .iter()
            .filter(|m| m.lemma == self.current && m.case == *case && m.number == number)
            .cloned()
            .collect();
        for m in here {
            let found = self.check_goal(&m.goal, &m.hints, scope);
            let outcome = match found.map(|(proof, _)| (self.replay_one(&m.goal, &proof), proof)) {
                Ok((Ok(()), proof)) => MutantOutcome {
                    mutant: m,
                    rejected: false,
                    detail: proof.summary(),
                    refuted: false,
                },
                Ok((Err(e), _)) => MutantOutcome {
                    mutant: m,
                    rejected: true,
                    refuted: false,
                    detail: e,
                },
                Err(f) => MutantOutcome {
                    mutant: m,
                    rejected: true,
                    refuted: f.counter_model.is_some(),
                    detail: f.reason,
                },
            };
            self.outcomes.push(outcome);
        }
    }

    /// Proves a goal from hints: resolves citations, proves inline facts and
    /// the premises of Horn rules, then the goal.
    fn check_goal(
        &mut self,
        goal: &KFormula,
        hints: &[Hint],
        scope: &Scope,
    ) -> Result<(GoalProof, Deps), StepFail> {
        let mut cits: Vec<Citable> = Vec::new();
        let mut horns: Vec<&Citation> = Vec::new();
        let mut deps = Deps::default();
        for h in hints {
            match h {
                Hint::Cite(c) => {
                    if c.kind == SourceKind::Hypothesis && self.dropped.contains(&c.label) {
                        continue;
                    }
                    if self.is_horn(c) {
                        horns.push(c);
                        continue;
                    }
                    if let Some(x) = self.citable(c, &mut deps) {
                        cits.push(x);
                    }
                }
                Hint::Fact { formula, by, .. } => {
                    let sub: Vec<Hint> = by.iter().cloned().map(Hint::Cite).collect();
                    match self.check_goal(formula, &sub, scope) {
                        Ok((proof, d)) => {
                            let f = formula.map(|t| t.canon());
                            let check = Check::Assume(assumption_of(&f, &self.script.vars));
                            cits.push(Citable::Ground(Fact {
                                label: formula.to_string(),
                                formula: f,
                                source: Source::Proved(std::rc::Rc::new(proof)),
                                check,
                                hyps: d.hyps.clone(),
                                lemmas: d.lemmas.clone(),
                            }));
                            deps.extend(&d);
                        }
                        Err(e) => {
                            return Err(StepFail {
                                reason: format!("hint `{formula}` does not follow: {}", e.reason),
                                counter_model: e.counter_model,
                            });
                        }
                    }
                }
            }
        }
        for c in horns {
            let fact = self.horn_fact(c, goal, &cits, scope, &mut deps)?;
            cits.push(Citable::Ground(fact));
        }
        let proof = self
            .prover
            .prove(goal, &cits, scope)
            .map_err(StepFail::from)?;
        Ok((proof, deps))
    }

    fn is_horn(&self, c: &Citation) -> bool {
        match c.kind {
            SourceKind::Axiom => axioms()
                .iter()
                .any(|a| a.label == c.label && a.statement.is_horn()),
            SourceKind::Lemma => self
                .lemmas
                .get(&c.label)
                .is_some_and(|i| i.statement.is_horn()),
            _ => false,
        }
    }

    fn citable(&self, c: &Citation, deps: &mut Deps) -> Option<Citable> {
        match c.kind {
            // Equational axioms are always available.
            SourceKind::Axiom => None,
            SourceKind::Definition => {
                let d = self.script.definitions().find(|d| d.label == c.label)?;
                deps.defs.insert(d.label.clone());
                let family = matches!(d.head, DefHead::Const(_))
                    && matches!(d.body, Term::Sum(..) | Term::Prod(..));
                if family {
                    return Some(Citable::Family(d.clone()));
                }
                let mut st = Statement {
                    conclusions: vec![d.formula()],
                    ..Default::default()
                };
                if let DefHead::Bracket(x) = &d.head {
                    st.vars.insert(x.clone(), crate::script::Sort::Elem);
                }
                Some(Citable::Statement {
                    citation: c.clone(),
                    statement: st,
                    pure: true,
                    hyps: BTreeSet::new(),
                    lemmas: BTreeSet::new(),
                })
            }
            SourceKind::Hypothesis => {
                let h = self.script.hypotheses().find(|h| h.label == c.label)?;
                deps.hyps.insert(h.label.clone());
                Some(Citable::Statement {
                    citation: c.clone(),
                    statement: h.statement.clone(),
                    pure: false,
                    hyps: [h.label.clone()].into_iter().collect(),
                    lemmas: BTreeSet::new(),
                })
            }
            SourceKind::Lemma => {
                let info = self.lemmas.get(&c.label)?;
                deps.lemmas.insert(c.label.clone());
                deps.hyps.extend(info.hyps.iter().cloned());
                let mut lemmas = info.lemmas.clone();
                lemmas.insert(c.label.clone());
                Some(Citable::Statement {
                    citation: c.clone(),
                    statement: info.statement.clone(),
                    // Only a proved, hypothesis-free lemma holds in every model.
                    pure: info.ok && info.hyps.is_empty(),
                    hyps: info.hyps.clone(),
                    lemmas,
                })
            }
            SourceKind::Premise => {
                let f = self.premises.get(&c.label)?.clone();
                let f = f.map(|t| t.canon());
                Some(Citable::Ground(Fact {
                    label: c.label.clone(),
                    formula: f.clone(),
                    source: Source::Cited {
                        kind: SourceKind::Premise,
                        label: c.label.clone(),
                        conclusion: 0,
                        inst: Inst::default(),
                    },
                    check: Check::Assume(assumption_of(&f, &self.script.vars)),
                    hyps: BTreeSet::new(),
                    lemmas: BTreeSet::new(),
                }))
            }
        }
    }

    /// Instantiates a Horn rule (explicitly, or by matching its conclusion
    /// against the step), proves its premises, and returns its conclusion.
    fn horn_fact(
        &mut self,
        c: &Citation,
        goal: &KFormula,
        cits: &[Citable],
        scope: &Scope,
        deps: &mut Deps,
    ) -> Result<Fact, StepFail> {
        let (st, hyps, lemmas) = match c.kind {
            SourceKind::Axiom => {
                let ax = axioms()
                    .iter()
                    .find(|a| a.label == c.label)
                    .expect("is_horn found it");
                (ax.statement.clone(), BTreeSet::new(), BTreeSet::new())
            }
            _ => {
                let info = self.lemmas.get(&c.label).expect("is_horn found it");
                deps.lemmas.insert(c.label.clone());
                deps.hyps.extend(info.hyps.iter().cloned());
                let mut lemmas = info.lemmas.clone();
                lemmas.insert(c.label.clone());
                (info.statement.clone(), info.hyps.clone(), lemmas)
            }
        };
        let vars: BTreeSet<String> = st.vars.keys().cloned().collect();
        let indices = st.indices();
        let schema = Schema {
            vars: &vars,
            indices: &indices,
        };
        let base = Inst {
            terms: c.terms.clone(),
            indices: c.indices.clone(),
        };
        let complete = |i: &Inst| {
            vars.iter().all(|v| i.terms.contains_key(v))
                && indices.iter().all(|k| i.indices.contains_key(k))
        };
        // A predicate variable takes only a predicate literal, however the
        // instance was found (explicitly or by matching).
        let is_pred = pred_atom_test(&self.script.atoms, &scope.vars);
        let bad_sort = |i: &Inst| {
            st.vars.iter().find_map(|(v, sort)| {
                let t = i.terms.get(v)?;
                let literal = match t {
                    Term::Not(a) => is_pred(a),
                    other => is_pred(other),
                };
                (*sort == crate::script::Sort::Pred && !literal).then(|| (v.clone(), t.clone()))
            })
        };
        let mut refused = None;
        let concl = &st.conclusions[0];
        let mut inst = None;
        if complete(&base) {
            inst = Some(base.clone());
        } else {
            'search: for (a, b) in contexts(&goal.lhs, &goal.rhs) {
                let mut orders = vec![(&concl.lhs, &concl.rhs)];
                if concl.rel == Rel::Eq {
                    orders.push((&concl.rhs, &concl.lhs));
                }
                for (pl, pr) in orders {
                    let mut i = base.clone();
                    if match_term(&schema, pl, &a, &mut i)
                        && match_term(&schema, pr, &b, &mut i)
                        && complete(&i)
                    {
                        if let Some(bad) = bad_sort(&i) {
                            refused = Some(bad);
                            continue;
                        }
                        inst = Some(i);
                        break 'search;
                    }
                }
            }
        }
        if let Some((v, t)) =
            inst.as_ref()
                .and_then(&bad_sort)
                .or(if inst.is_none() { refused } else { None })
        {
            return Err(StepFail {
                reason: format!(
                    "`{}` cannot be instantiated with `{v} := {t}`: `{v}` is a predicate variable and `{t}` is not a predicate literal",
                    c.label
                ),
                counter_model: None,
            });
        }
        let Some(inst) = inst else {
            let missing: Vec<&String> = vars
                .iter()
                .filter(|v| !base.terms.contains_key(*v))
                .collect();
            return Err(StepFail {
                reason: format!(
                    "cannot infer how `{}` is instantiated (its conclusion `{}` does not match the step); give {} explicitly, as in `{}[{} := ...]`",
                    c.label,
                    concl,
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    c.label,
                    missing.first().map(|s| s.as_str()).unwrap_or("x")
                ),
                counter_model: None,
            });
        };
        for (a, b) in &st.distinct {
            let ia = inst.indices.get(a).cloned().unwrap_or_else(|| a.clone());
            let ib = inst.indices.get(b).cloned().unwrap_or_else(|| b.clone());
            if !scope.knows_distinct(&ia, &ib) {
                return Err(StepFail {
                    reason: format!("`{}` needs {ia} != {ib}, which is not known here", c.label),
                    counter_model: None,
                });
            }
        }
        let mut premises = Vec::new();
        for p in &st.premises {
            let pi = p.map(|t| inst.apply(t));
            match self.prover.prove(&pi, cits, scope) {
                Ok(proof) => premises.push(proof),
                Err(f) => {
                    return Err(StepFail {
                        reason: format!(
                            "premise `{pi}` of `{}{}` does not follow: {}",
                            c.label,
                            render_inst(&inst),
                            f.reason
                        ),
                        counter_model: f.counter_model.map(|c| c.to_string()),
                    });
                }
            }
        }
        let formula = concl.map(|t| inst.apply(t)).map(|t| t.canon());
        let check = Check::Assume(assumption_of(&formula, &self.script.vars));
        Ok(Fact {
            label: format!("{}{}", c.label, render_inst(&inst)),
            formula,
            source: Source::Horn {
                kind: c.kind,
                label: c.label.clone(),
                inst,
                premises: std::rc::Rc::new(premises),
            },
            check,
            hyps,
            lemmas,
        })
    }
}

fn case_text(c: &(String, String, bool)) -> String {
    format!("{} {} {}", c.0, if c.2 { "=" } else { "!=" }, c.1)
}

fn collect_cited(h: &Hint, dropped: &BTreeSet<String>, deps: &mut Deps) {
    let mut one = |c: &Citation| match c.kind {
        SourceKind::Hypothesis if !dropped.contains(&c.label) => {
            deps.hyps.insert(c.label.clone());
        }
        SourceKind::Lemma => {
            deps.lemmas.insert(c.label.clone());
        }
        SourceKind::Definition => {
            deps.defs.insert(c.label.clone());
        }
        _ => {}
    };
    match h {
        Hint::Cite(c) => one(c),
        Hint::Fact { by, .. } => by.iter().for_each(one),
    }
}

fn render_citation(c: &Citation, dropped: &BTreeSet<String>) -> String {
    let inst = Inst {
        terms: c.terms.clone(),
        indices: c.indices.clone(),
    };
    let s = format!("{}{}", c.label, render_inst(&inst));
    if c.kind == SourceKind::Hypothesis && dropped.contains(&c.label) {
        format!("{s} (dropped)")
    } else {
        s
    }
}

fn hint_labels(hints: &[Hint], dropped: &BTreeSet<String>) -> Vec<String> {
    hints
        .iter()
        .map(|h| match h {
            Hint::Cite(c) => render_citation(c, dropped),
            Hint::Fact { formula, by, .. } => {
                if by.is_empty() {
                    formula.to_string()
                } else {
                    let b: Vec<String> = by.iter().map(|c| render_citation(c, dropped)).collect();
                    format!("{formula} by {}", b.join(", "))
                }
            }
        })
        .collect()
}

/// `i != j and x <= y => a <= b`
pub(crate) fn render_statement(st: &Statement) -> String {
    let mut conds: Vec<String> = st
        .distinct
        .iter()
        .map(|(a, b)| format!("{a} != {b}"))
        .collect();
    conds.extend(st.premises.iter().map(|p| p.to_string()));
    let concl: Vec<String> = st.conclusions.iter().map(|c| c.to_string()).collect();
    if conds.is_empty() {
        concl.join(" and ")
    } else {
        format!("{} => {}", conds.join(" and "), concl.join(" and "))
    }
}

/// A chain of step proofs `t0 rel t1, t1 rel t2, ...` composed into `goal`
/// (whose sides equal the chain's ends up to associativity).
fn compose(d: &mut Derive<'_, '_>, nodes: &[usize], goal: &Formula) -> Result<usize, ReplayError> {
    let all_eq = nodes.iter().all(|&n| d.b.concl(n).rel == CRel::Eq);
    let mut acc: Option<usize> = None;
    for &n in nodes {
        let n = if all_eq || d.b.concl(n).rel == CRel::Le {
            n
        } else {
            d.eq_le(n)?
        };
        acc = Some(match acc {
            None => n,
            Some(a) if all_eq => d.trans(a, n)?,
            Some(a) => d.le_trans(a, n)?,
        });
    }
    let mut n = acc.ok_or(ReplayError::Mismatch("an empty chain".into()))?;
    if goal.rel == CRel::Le && d.b.concl(n).rel == CRel::Eq {
        n = d.eq_le(n)?;
    }
    match goal.rel {
        CRel::Eq => d.eq_conv(n, &goal.lhs, &goal.rhs),
        CRel::Le => d.le_conv(n, &goal.lhs, &goal.rhs),
    }
}

fn subst_ix(f: &Formula, m: &BTreeMap<String, String>) -> Formula {
    let none = BTreeMap::new();
    Formula::new(f.lhs.subst(&none, m), f.rel, f.rhs.subst(&none, m))
}

/// With a pinned theorem's theory ((19)'s or (M)'s) and one hypothesis
/// dropped: the known counter-model of the theorem without it, re-checked,
/// or how far it was sought, or why the theorem holds without it.
fn without(script: &Script, dropped: &BTreeSet<String>) -> Option<crate::report::Without> {
    use crate::necessity::{AnyModel, movers};
    let [h] = dropped.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let theory = bridge::theory(script, &BTreeSet::new()).ok()?;
    let theorem = Pinned::ALL.into_iter().find(|p| {
        p.theory()
            .is_ok_and(|t| crate::recheck::same_theory(&theory, &t).is_ok())
    })?;
    let mut w = crate::report::Without {
        theorem,
        hypothesis: h.clone(),
        counter_model: None,
        violation: None,
        check_error: None,
        found: None,
        redundant: None,
    };
    let known = match theorem {
        Pinned::Reduction => {
            crate::necessity::known(h).map(|(m, how)| (m.check(h), AnyModel::Paper(m), how))
        }
        Pinned::Movers => {
            w.redundant = movers::redundant(h).map(str::to_string);
            movers::known(h).map(|(m, how)| (m.check(h), AnyModel::Movers(m), how))
        }
    };
    match known {
        Some((checked, m, how)) => {
            match checked {
                Ok(v) => w.violation = Some(v),
                Err(e) => w.check_error = Some(e),
            }
            w.counter_model = Some(m);
            w.found = Some(how.to_string());
        }
        None if w.redundant.is_none() => w.found = Some("no counter-model known".into()),
        None => {}
    }
    Some(w)
}

/// How a run compares with the pinned theorem its script is about: whether
/// its theory is that theorem's, and what keeps it from being that
/// theorem's claim in that theory, if anything.
struct PaperComparison {
    theorem: Pinned,
    theory: bool,
    difference: Option<String>,
}

/// The pinned theorem whose theory the script declares (hypotheses it
/// drops included), or, when it declares neither, the paper's (19), with
/// which the report then says how it differs.
fn pinned_of(script: &Script) -> Pinned {
    let Ok(declared) = bridge::theory(script, &BTreeSet::new()) else {
        return Pinned::Reduction;
    };
    Pinned::ALL
        .into_iter()
        .find(|p| {
            p.theory()
                .is_ok_and(|t| crate::recheck::same_theory(&declared, &t).is_ok())
        })
        .unwrap_or(Pinned::Reduction)
}

/// Compares the core's theory with the pinned theory (`trusted/paper.rs`
/// or `trusted/movers.rs`) and its lemma with the pinned claim, with no
/// admitted lemma under it.
fn paper_comparison(theorem: Pinned, core: &Theory, dropped: &BTreeSet<String>) -> PaperComparison {
    let differs = |theory, why: String| PaperComparison {
        theorem,
        theory,
        difference: Some(why),
    };
    let p = match theorem.theory() {
        Ok(p) => p,
        Err(e) => return differs(false, format!("the pinned theory does not build: {e}")),
    };
    if !dropped.is_empty() {
        let d: Vec<&str> = dropped.iter().map(String::as_str).collect();
        return differs(false, format!("hypotheses dropped: {}", d.join(", ")));
    }
    if let Err(e) = crate::recheck::same_theory(core, &p) {
        let why = match e {
            CertificateError::Rejected { reason, .. } => reason,
            other => other.to_string(),
        };
        return differs(false, format!("the theory differs: {why}"));
    }
    let (label, claim) = (theorem.label(), theorem.claim());
    let difference = match core.lemma(label) {
        None => Some(format!("the script does not prove {label}")),
        Some((st, _, _)) if *st != claim => Some(format!(
            "{label} is stated as `{st}`, the pinned claim is `{claim}`"
        )),
        Some((_, _, admitted)) if !admitted.is_empty() => {
            Some(format!("{label} rests on lemmas without proof"))
        }
        Some(_) => None,
    };
    PaperComparison {
        theorem,
        theory: true,
        difference,
    }
}
