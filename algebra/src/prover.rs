//! Proving one goal from the axioms and a step's facts: screening with the
//! refuter, splitting the left side into summands and eliminating sums over
//! threads, removing a common context, and equality saturation.

use std::collections::BTreeSet;

use egg::Rewrite;

use crate::facts::{
    Check, Citable, Fact, Scope, Source, assumption_of, family_def_facts, instantiate,
    pred_atom_test, predicate_literals, render_inst, sum_intro_facts,
};
use crate::lang::Op;
use crate::model::Evaluator;
use crate::proof::{GoalProof, How, Part};
use crate::refute::{CounterModel, Signature, refute, seed_of};
use crate::rules::{build, fact_specs};
use crate::saturate::{Limits, Saturation, saturate};
use crate::script::{Script, SourceKind};
use crate::term::{Formula, Rel, Term};

/// Tunable effort.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Limits of each saturation.
    pub limits: Limits,
    /// Random models tried before saturating a step.
    pub screen_budget: usize,
    /// Random models tried before saturating a derived sub-goal.
    pub subgoal_budget: usize,
    /// Random models tried to explain a failed step.
    pub explain_budget: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limits: Limits::default(),
            screen_budget: 60,
            subgoal_budget: 25,
            explain_budget: 600,
        }
    }
}

/// Why a goal was not shown.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Failure {
    pub reason: String,
    pub counter_model: Option<Box<CounterModel>>,
}

impl Failure {
    pub fn new(reason: impl Into<String>) -> Failure {
        Failure {
            reason: reason.into(),
            counter_model: None,
        }
    }
}

pub(crate) struct Prover<'a> {
    pub script: &'a Script,
    pub evaluator: &'a Evaluator,
    pub axiom_rules: &'a [Rewrite<Op, ()>],
    pub settings: &'a Settings,
    pub fresh: usize,
    pub saturations: usize,
}

struct PartSpec {
    term: Term,
    fresh: Vec<String>,
    unfolded: Vec<String>,
}

impl<'a> Prover<'a> {
    /// The facts of the citations at a scope, plus the introduction facts
    /// of the sums and products written in the goal.
    pub fn facts(
        &self,
        cits: &[Citable],
        scope: &Scope,
        goal: &Formula,
    ) -> Result<Vec<Fact>, Failure> {
        let is_pred = pred_atom_test(&self.script.atoms, &scope.vars);
        // Predicate variables range over the literals of the goal and of the
        // other cited facts (their schematic indices taken in scope).
        let mut literal_sources = vec![goal.clone()];
        for c in cits {
            let st = match c {
                Citable::Ground(f) => {
                    literal_sources.push(f.formula.clone());
                    continue;
                }
                Citable::Family(d) => {
                    literal_sources.push(d.formula());
                    continue;
                }
                Citable::Statement { statement, .. } => statement,
            };
            if st.vars.values().any(|s| *s == crate::script::Sort::Pred) {
                continue;
            }
            for f in &st.conclusions {
                for i in &scope.indices {
                    let mut g = f.clone();
                    for k in st.indices() {
                        g = g.map(|t| t.subst_index(&k, i));
                    }
                    literal_sources.push(g);
                }
                if st.indices().is_empty() {
                    literal_sources.push(f.clone());
                }
            }
        }
        let mut literals: Vec<Term> = Vec::new();
        for f in &literal_sources {
            for l in predicate_literals(f, &is_pred) {
                if !literals.contains(&l) {
                    literals.push(l);
                }
            }
        }
        let mut out: Vec<Fact> = Vec::new();
        for c in cits {
            match c {
                Citable::Ground(f) => out.push(f.clone()),
                Citable::Statement {
                    citation,
                    statement,
                    pure,
                    hyps,
                    lemmas,
                } => {
                    let mut insts =
                        instantiate(citation, statement, scope, &literals).map_err(Failure::new)?;
                    insts.extend(ground_instances(&insts, scope));
                    for (k, inst, formula) in insts {
                        let formula = formula.map(|t| t.canon());
                        let check = match citation.kind {
                            SourceKind::Axiom | SourceKind::Definition => Check::Valid,
                            SourceKind::Lemma if *pure => Check::Valid,
                            _ => Check::Assume(assumption_of(&formula, &self.script.vars)),
                        };
                        let label = if statement.conclusions.len() > 1 {
                            format!("{}.{}{}", citation.label, k + 1, render_inst(&inst))
                        } else {
                            format!("{}{}", citation.label, render_inst(&inst))
                        };
                        out.push(Fact {
                            label,
                            formula,
                            source: Source::Cited {
                                kind: citation.kind,
                                label: citation.label.clone(),
                                conclusion: k,
                                inst,
                            },
                            check,
                            hyps: hyps.clone(),
                            lemmas: lemmas.clone(),
                        });
                    }
                }
                Citable::Family(d) => {
                    out.push(Fact {
                        label: d.label.clone(),
                        formula: d.formula().map(|t| t.canon()),
                        source: Source::Cited {
                            kind: SourceKind::Definition,
                            label: d.label.clone(),
                            conclusion: 0,
                            inst: Default::default(),
                        },
                        check: Check::Valid,
                        hyps: BTreeSet::new(),
                        lemmas: BTreeSet::new(),
                    });
                    family_def_facts(d, scope, &mut out);
                }
            }
        }
        sum_intro_facts(&goal.lhs, scope, &mut out);
        sum_intro_facts(&goal.rhs, scope, &mut out);
        // The same formula twice would only duplicate rules.
        let mut seen = BTreeSet::new();
        out.retain(|f| seen.insert(f.formula.clone()));
        Ok(out)
    }

    /// Looks for a model of the facts in which the goal fails.
    pub fn screen(
        &self,
        goal: &Formula,
        facts: &[Fact],
        scope: &Scope,
        budget: usize,
    ) -> Option<CounterModel> {
        if budget == 0 {
            return None;
        }
        let assumptions: Vec<_> = facts
            .iter()
            .filter_map(|f| match &f.check {
                Check::Assume(a) => Some(a.clone()),
                _ => None,
            })
            .collect();
        let mut indices: BTreeSet<String> = scope.indices.clone();
        indices.extend(goal.free_indices());
        for a in &assumptions {
            indices.extend(
                a.formula
                    .free_indices()
                    .into_iter()
                    .filter(|i| !i.starts_with('?')),
            );
        }
        let sig = Signature {
            atoms: &self.script.atoms,
            vars: scope.vars.clone(),
            indices: indices.into_iter().collect(),
            distinct: scope
                .distinct
                .iter()
                .filter(|(a, b)| a < b)
                .cloned()
                .collect(),
        };
        refute(
            self.evaluator,
            &sig,
            goal,
            &assumptions,
            budget,
            seed_of(&goal.to_string()),
        )
        .ok()
        .flatten()
    }

    /// Proves a goal from the citations.
    pub fn prove(
        &mut self,
        goal: &Formula,
        cits: &[Citable],
        scope: &Scope,
    ) -> Result<GoalProof, Failure> {
        let goal = goal.map(|t| t.canon());
        let facts = self.facts(cits, scope, &goal)?;
        if let Some(cm) = self.screen(&goal, &facts, scope, self.settings.screen_budget) {
            return Err(Failure {
                reason: "the step is false in a model of the cited facts".into(),
                counter_model: Some(Box::new(cm)),
            });
        }
        let result = match goal.rel {
            Rel::Eq => self.prove_eq(&goal, cits, scope, &facts),
            Rel::Le => self.prove_le(&goal.lhs, &goal.rhs, cits, scope, &facts),
        };
        result.map_err(|mut f| {
            if f.counter_model.is_none() {
                f.counter_model = self
                    .screen(&goal, &facts, scope, self.settings.explain_budget)
                    .map(Box::new);
                if f.counter_model.is_some() {
                    f.reason = format!(
                        "{}; the step is false in a model of the cited facts",
                        f.reason
                    );
                }
            }
            f
        })
    }

    fn prove_eq(
        &mut self,
        goal: &Formula,
        cits: &[Citable],
        scope: &Scope,
        facts: &[Fact],
    ) -> Result<GoalProof, Failure> {
        if goal.lhs.assoc_normal() == goal.rhs.assoc_normal() {
            return Ok(GoalProof {
                goal: goal.clone(),
                how: How::Identical,
            });
        }
        let direct = self.core(&goal.lhs, &goal.rhs, Rel::Eq, facts, scope);
        if direct.is_ok() {
            return direct;
        }
        let sums = cits.iter().any(|c| matches!(c, Citable::Family(_)))
            || contains_sum(&goal.lhs)
            || contains_sum(&goal.rhs);
        if sums {
            let a = self.prove_le(&goal.lhs, &goal.rhs, cits, scope, facts);
            let b = self.prove_le(&goal.rhs, &goal.lhs, cits, scope, facts);
            if let (Ok(a), Ok(b)) = (a, b) {
                return Ok(GoalProof {
                    goal: goal.clone(),
                    how: How::Antisymmetry(Box::new(a), Box::new(b)),
                });
            }
        }
        direct
    }

    fn prove_le(
        &mut self,
        a: &Term,
        b: &Term,
        cits: &[Citable],
        scope: &Scope,
        facts: &[Fact],
    ) -> Result<GoalProof, Failure> {
        let goal = Formula::new(a.clone(), Rel::Le, b.clone());
        let parts = self.spine(a, cits);
        if parts.len() == 1 && parts[0].fresh.is_empty() && parts[0].unfolded.is_empty() {
            return self.le_core(a, b, facts, scope);
        }
        let mut done = Vec::new();
        for p in parts {
            let sub_scope = scope.with_indices(&p.fresh);
            let sub_goal = Formula::new(p.term.clone(), Rel::Le, b.clone());
            let sub_facts = if p.fresh.is_empty() {
                facts.to_vec()
            } else {
                self.facts(cits, &sub_scope, &sub_goal)?
            };
            let proof = self
                .le_core(&p.term, b, &sub_facts, &sub_scope)
                .map_err(|f| Failure {
                    reason: format!("summand `{}`: {}", p.term, f.reason),
                    counter_model: f.counter_model,
                })?;
            done.push(Part {
                summand: p.term,
                fresh: p.fresh,
                unfolded: p.unfolded,
                proof,
            });
        }
        Ok(GoalProof {
            goal,
            how: How::Split { parts: done },
        })
    }

    /// The summands of `a`, with cited family sums unfolded and sums over
    /// threads in product position replaced by a member at a fresh index;
    /// depth first, left to right, so that a certificate can replay it.
    fn spine(&mut self, a: &Term, cits: &[Citable]) -> Vec<PartSpec> {
        let sum_defs: Vec<crate::script::Definition> = cits
            .iter()
            .filter_map(|c| match c {
                Citable::Family(d) if matches!(d.body, Term::Sum(..)) => Some(d.clone()),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        self.spine_rec(a, &[], &[], &sum_defs, &mut out);
        out
    }

    fn spine_rec(
        &mut self,
        term: &Term,
        fresh: &[String],
        unfolded: &[String],
        sum_defs: &[crate::script::Definition],
        out: &mut Vec<PartSpec>,
    ) {
        for s in term.summands() {
            let mut factors = s.factors();
            let pos = factors.iter().position(|f| match f {
                Term::Sum(..) => true,
                Term::Const(at) if at.index.is_none() => {
                    sum_defs.iter().any(|d| d.name() == Some(at.name.as_str()))
                }
                _ => false,
            });
            let Some(k) = pos else {
                out.push(PartSpec {
                    term: s.canon(),
                    fresh: fresh.to_vec(),
                    unfolded: unfolded.to_vec(),
                });
                continue;
            };
            let mut fresh2 = fresh.to_vec();
            let mut unfolded2 = unfolded.to_vec();
            match &factors[k] {
                Term::Sum(b, body) => {
                    self.fresh += 1;
                    let f = format!("'k{}", self.fresh);
                    factors[k] = body.subst_index(b, &f);
                    fresh2.push(f);
                }
                Term::Const(at) => {
                    let d = sum_defs
                        .iter()
                        .find(|d| d.name() == Some(at.name.as_str()))
                        .expect("position found a cited family definition");
                    factors[k] = d.body.canon();
                    unfolded2.push(d.label.clone());
                }
                _ => unreachable!("position only finds sums and constants"),
            }
            let next = Term::seq_of(factors).canon();
            self.spine_rec(&next, &fresh2, &unfolded2, sum_defs, out);
        }
    }

    fn le_core(
        &mut self,
        s: &Term,
        b: &Term,
        facts: &[Fact],
        scope: &Scope,
    ) -> Result<GoalProof, Failure> {
        let goal = Formula::new(s.clone(), Rel::Le, b.clone());
        let norm = s.assoc_normal();
        if b.summands().iter().any(|t| t.assoc_normal() == norm) {
            return Ok(GoalProof {
                goal,
                how: How::Identical,
            });
        }
        self.core(s, b, Rel::Le, facts, scope)
    }

    /// Saturation, first of the goal without its common context (when that
    /// smaller goal is not refuted), then of the goal itself.
    fn core(
        &mut self,
        l: &Term,
        r: &Term,
        rel: Rel,
        facts: &[Fact],
        scope: &Scope,
    ) -> Result<GoalProof, Failure> {
        let goal = Formula::new(l.clone(), rel, r.clone());
        for (pre, suf) in strip_options(l, r) {
            let lf = l.factors();
            let rf = r.factors();
            let l2 = Term::seq_of(lf[pre..lf.len() - suf].to_vec());
            let r2 = Term::seq_of(rf[pre..rf.len() - suf].to_vec());
            if l2 == r2 {
                return Ok(GoalProof {
                    goal,
                    how: How::Context {
                        prefix: lf[..pre].to_vec(),
                        suffix: lf[lf.len() - suf..].to_vec(),
                        inner: Box::new(GoalProof {
                            goal: Formula::new(l2, rel, r2),
                            how: How::Identical,
                        }),
                    },
                });
            }
            let inner_goal = Formula::new(l2.clone(), rel, r2.clone());
            if self
                .screen(&inner_goal, facts, scope, self.settings.subgoal_budget)
                .is_some()
            {
                continue;
            }
            let inner = if rel == Rel::Le
                && r2
                    .summands()
                    .iter()
                    .any(|t| t.assoc_normal() == l2.assoc_normal())
            {
                Some(GoalProof {
                    goal: inner_goal.clone(),
                    how: How::Identical,
                })
            } else {
                let sat = self.run(&l2, &r2, rel, facts);
                sat.proved
                    .then(|| saturation_proof(&inner_goal, &l2, &r2, rel, facts, sat))
            };
            if let Some(inner) = inner {
                return Ok(GoalProof {
                    goal,
                    how: How::Context {
                        prefix: lf[..pre].to_vec(),
                        suffix: lf[lf.len() - suf..].to_vec(),
                        inner: Box::new(inner),
                    },
                });
            }
        }
        if let Some(p) = self.factorwise(l, r, rel, facts, scope) {
            return Ok(p);
        }
        let sat = self.run(l, r, rel, facts);
        if sat.proved {
            Ok(saturation_proof(&goal, l, r, rel, facts, sat))
        } else {
            Err(Failure::new(format!(
                "saturation did not reach it ({} after {} iterations, {} nodes)",
                sat.stop, sat.iterations, sat.nodes
            )))
        }
    }

    /// `a_1 ... a_n rel b_1 ... b_n` factor by factor, when no factor pair is refuted.
    fn factorwise(
        &mut self,
        l: &Term,
        r: &Term,
        rel: Rel,
        facts: &[Fact],
        scope: &Scope,
    ) -> Option<GoalProof> {
        let lf = l.factors();
        let rf = r.factors();
        if lf.len() != rf.len() || lf.len() < 2 {
            return None;
        }
        let differing = lf.iter().zip(&rf).filter(|(a, b)| a != b).count();
        if differing < 2 {
            return None;
        }
        let pairs: Vec<Formula> = lf
            .iter()
            .zip(&rf)
            .map(|(a, b)| Formula::new(a.clone(), rel, b.clone()))
            .collect();
        for g in &pairs {
            if g.lhs != g.rhs
                && self
                    .screen(g, facts, scope, self.settings.subgoal_budget)
                    .is_some()
            {
                return None;
            }
        }
        let mut proofs = Vec::new();
        for g in pairs {
            if g.lhs == g.rhs {
                proofs.push(GoalProof {
                    goal: g,
                    how: How::Identical,
                });
                continue;
            }
            if rel == Rel::Le
                && g.rhs
                    .summands()
                    .iter()
                    .any(|t| t.assoc_normal() == g.lhs.assoc_normal())
            {
                proofs.push(GoalProof {
                    goal: g,
                    how: How::Identical,
                });
                continue;
            }
            let sat = self.run(&g.lhs, &g.rhs, rel, facts);
            if !sat.proved {
                return None;
            }
            proofs.push(saturation_proof(&g, &g.lhs, &g.rhs, rel, facts, sat));
        }
        Some(GoalProof {
            goal: Formula::new(l.clone(), rel, r.clone()),
            how: How::Factors(proofs),
        })
    }

    fn run(&mut self, l: &Term, r: &Term, rel: Rel, facts: &[Fact]) -> Saturation {
        let (lhs, rhs) = match rel {
            Rel::Eq => (l.clone(), r.clone()),
            Rel::Le => (l.clone().plus(r.clone()), r.clone()),
        };
        let mut specs = Vec::new();
        for (n, f) in facts.iter().enumerate() {
            specs.extend(fact_specs(&format!("f{n}"), &f.formula));
        }
        let protect: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
        let mut rules: Vec<Rewrite<Op, ()>> = self.axiom_rules.to_vec();
        rules.extend(build(&specs));
        self.saturations += 1;
        saturate(&lhs, &rhs, &rules, &self.settings.limits, true, &protect)
    }
}

fn saturation_proof(
    goal: &Formula,
    l: &Term,
    r: &Term,
    rel: Rel,
    facts: &[Fact],
    sat: Saturation,
) -> GoalProof {
    let (lhs, rhs) = match rel {
        Rel::Eq => (l.clone(), r.clone()),
        Rel::Le => (l.clone().plus(r.clone()), r.clone()),
    };
    GoalProof {
        goal: goal.clone(),
        how: How::Saturation {
            lhs,
            rhs,
            facts: std::rc::Rc::new(facts.to_vec()),
            iterations: sat.iterations,
            nodes: sat.nodes,
            sequence: sat.explanation,
        },
    }
}

/// Prefix and suffix lengths of common factors to try removing, largest
/// first. What remains of a side may be empty, that is `1`.
fn strip_options(l: &Term, r: &Term) -> Vec<(usize, usize)> {
    let lf = l.factors();
    let rf = r.factors();
    if lf.len() == 1 && rf.len() == 1 {
        return vec![];
    }
    let mut pre = 0;
    while pre < lf.len() && pre < rf.len() && lf[pre] == rf[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < lf.len() - pre
        && suf < rf.len() - pre
        && lf[lf.len() - 1 - suf] == rf[rf.len() - 1 - suf]
    {
        suf += 1;
    }
    let mut out = Vec::new();
    for o in [(pre, suf), (pre, 0), (0, suf)] {
        if o.0 + o.1 > 0 && !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// Instances at the indices in scope of facts quantified over an index
/// that only one side mentions (such as `p_i u_i = 0`): the schematic rule
/// cannot be used from the side without the index.
fn ground_instances(
    insts: &[(usize, crate::matching::Inst, Formula)],
    scope: &Scope,
) -> Vec<(usize, crate::matching::Inst, Formula)> {
    let mut out = Vec::new();
    for (k, inst, f) in insts {
        let l: BTreeSet<String> = f
            .lhs
            .free_indices()
            .into_iter()
            .filter(|i| i.starts_with('?'))
            .collect();
        let r: BTreeSet<String> = f
            .rhs
            .free_indices()
            .into_iter()
            .filter(|i| i.starts_with('?'))
            .collect();
        if l == r {
            continue;
        }
        let qs: Vec<String> = l.union(&r).cloned().collect();
        let mut assigns: Vec<Vec<(String, String)>> = vec![vec![]];
        for q in &qs {
            let mut next = Vec::new();
            for a in &assigns {
                for t in &scope.indices {
                    let mut a2 = a.clone();
                    a2.push((q.clone(), t.clone()));
                    next.push(a2);
                }
            }
            assigns = next;
        }
        for a in assigns {
            let map: std::collections::BTreeMap<String, String> = a.iter().cloned().collect();
            let mut inst2 = inst.clone();
            for v in inst2.indices.values_mut() {
                if let Some(t) = map.get(v.as_str()) {
                    *v = t.clone();
                }
            }
            out.push((*k, inst2, f.map(|t| t.subst_indices(&map))));
        }
    }
    out
}

fn contains_sum(t: &Term) -> bool {
    let mut found = false;
    t.visit(&mut |s| {
        if matches!(s, Term::Sum(..)) {
            found = true;
        }
    });
    found
}
