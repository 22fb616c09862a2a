//! Facts: the instances of cited statements that a step may use, each with
//! its provenance, and how the refuter may test it in a model.
//!
//! Index quantifiers are instantiated against the indices in scope: a
//! statement with a side condition `i != j` only at index pairs known to be
//! different, and a statement without one schematically (`?i`), since it then
//! holds for every thread. Predicate variables are instantiated with the
//! predicate literals of the goal, because a schematic `?a` would also match
//! non-predicates.

use std::collections::{BTreeMap, BTreeSet};

use crate::matching::Inst;
use crate::proof::GoalProof;
use crate::refute::Assumption;
use crate::script::{Citation, Definition, Sort, SourceKind, Statement};
use crate::term::{Atom, Formula, Rel, Term};

/// Where a fact comes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Source {
    /// An instance of a conclusion of a hypothesis, definition, lemma or premise.
    Cited {
        kind: SourceKind,
        label: String,
        conclusion: usize,
        inst: Inst,
    },
    /// A formula proved on the spot from other citations.
    Proved(std::rc::Rc<GoalProof>),
    /// The conclusion of a Horn rule whose premises were proved.
    Horn {
        kind: SourceKind,
        label: String,
        inst: Inst,
        premises: std::rc::Rc<Vec<GoalProof>>,
    },
    /// `f(t) <= (+k : f(k))`, for a sum written out or defined.
    SumIntro {
        sum: Term,
        defined: Option<String>,
        at: Vec<String>,
    },
    /// `(.k : f(k)) <= f(t)` for a product of predicates.
    ProdElim {
        prod: Term,
        defined: Option<String>,
        at: String,
    },
    /// `(.k : f(k)) <= 1` for a product of predicates.
    ProdTest { prod: Term, defined: Option<String> },
}

/// How the refuter treats a fact.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Check {
    /// The model must satisfy it.
    Assume(Assumption),
    /// It holds in every model (an axiom-only lemma, a definition, a sum law).
    Valid,
}

/// A usable fact.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fact {
    /// Display name, such as `(12)[i:=j, j:=i]`.
    pub label: String,
    /// The formula; `?x` and `?i` are schematic.
    pub formula: Formula,
    /// Where it comes from.
    pub source: Source,
    /// How the refuter treats it.
    pub check: Check,
    /// Hypotheses it rests on.
    pub hyps: BTreeSet<String>,
    /// Lemmas it rests on.
    pub lemmas: BTreeSet<String>,
}

/// A resolved hint, before instantiation at the indices in scope.
#[derive(Clone, Debug, PartialEq)]
// A handful per step, moved rarely: boxing the large variant buys nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Citable {
    /// A fixed fact (premise, proved fact, Horn conclusion).
    Ground(Fact),
    /// A cited statement.
    Statement {
        citation: Citation,
        statement: Statement,
        /// Whether it rests on the axioms alone (then it holds in every model).
        pure: bool,
        hyps: BTreeSet<String>,
        lemmas: BTreeSet<String>,
    },
    /// A cited definition of a sum or product over threads: also unfoldable
    /// on the left of a step, and it brings its introduction facts.
    Family(Definition),
}

/// The indices, known disequalities and schematic constants of a goal.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Scope {
    pub indices: BTreeSet<String>,
    pub distinct: BTreeSet<(String, String)>,
    /// The lemma's schematic variables, constants inside its proof.
    pub vars: BTreeMap<String, Sort>,
}

impl Scope {
    pub fn knows_distinct(&self, a: &str, b: &str) -> bool {
        self.distinct.contains(&(a.to_string(), b.to_string()))
            || self.distinct.contains(&(b.to_string(), a.to_string()))
    }

    pub fn add_distinct(&mut self, a: &str, b: &str) {
        self.distinct.insert((a.to_string(), b.to_string()));
        self.distinct.insert((b.to_string(), a.to_string()));
    }

    /// The scope with more (fresh) indices.
    pub fn with_indices(&self, more: &[String]) -> Scope {
        let mut s = self.clone();
        s.indices.extend(more.iter().cloned());
        s
    }
}

/// Renders an instantiation as `[x := t, i := j]`.
pub(crate) fn render_inst(inst: &Inst) -> String {
    let mut parts: Vec<String> = inst
        .terms
        .iter()
        .map(|(k, v)| format!("{k} := {v}"))
        .collect();
    parts.extend(inst.indices.iter().map(|(k, v)| format!("{k} := {v}")));
    if parts.is_empty() {
        String::new()
    } else {
        format!("[{}]", parts.join(", "))
    }
}

/// Predicate literals (atoms and complements) that may instantiate a
/// predicate variable in a goal: the predicate atoms occurring in it.
pub(crate) fn predicate_literals(goal: &Formula, is_pred: &dyn Fn(&Term) -> bool) -> Vec<Term> {
    let mut atoms: BTreeSet<Term> = BTreeSet::new();
    for t in [&goal.lhs, &goal.rhs] {
        t.visit(&mut |s| {
            if matches!(s, Term::Const(_) | Term::Var(_)) && is_pred(s) {
                atoms.insert(s.clone());
            }
        });
    }
    let mut out = Vec::new();
    for a in atoms {
        // Bound indices would escape their sum.
        if a.free_indices().iter().any(|i| i.starts_with('#')) {
            continue;
        }
        out.push(a.clone());
        out.push(Term::Not(Box::new(a)));
    }
    out
}

/// Instances of a cited statement's conclusions at the scope.
pub(crate) fn instantiate(
    citation: &Citation,
    st: &Statement,
    scope: &Scope,
    literals: &[Term],
) -> Result<Vec<(usize, Inst, Formula)>, String> {
    let base = Inst {
        terms: citation.terms.clone(),
        indices: citation.indices.clone(),
    };
    // Index assignments: explicit, else enumerated over the scope for indices
    // under a side condition, else schematic.
    let constrained: BTreeSet<String> = st
        .distinct
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .filter(|i| !base.indices.contains_key(i))
        .collect();
    let free: Vec<String> = st
        .indices()
        .into_iter()
        .filter(|i| !base.indices.contains_key(i) && !constrained.contains(i))
        .collect();
    let mut index_insts = vec![base.clone()];
    for i in &constrained {
        let mut next = Vec::new();
        for inst in &index_insts {
            for t in &scope.indices {
                let mut n = inst.clone();
                n.indices.insert(i.clone(), t.clone());
                next.push(n);
            }
        }
        index_insts = next;
    }
    index_insts.retain(|inst| {
        st.distinct.iter().all(|(a, b)| {
            let ia = inst.indices.get(a).map(String::as_str).unwrap_or(a);
            let ib = inst.indices.get(b).map(String::as_str).unwrap_or(b);
            scope.knows_distinct(ia, ib)
        })
    });
    if index_insts.is_empty() {
        let conds: Vec<String> = st
            .distinct
            .iter()
            .map(|(a, b)| format!("{a} != {b}"))
            .collect();
        return Err(format!(
            "`{}` assumes {}, which is not known for the indices in scope",
            citation.label,
            conds.join(" and ")
        ));
    }
    for inst in &mut index_insts {
        for i in &free {
            inst.indices.insert(i.clone(), format!("?_{i}"));
        }
    }
    // Variables: explicit, predicates enumerated over the literals, elements schematic.
    let mut insts = index_insts;
    for (v, sort) in &st.vars {
        if base.terms.contains_key(v) {
            continue;
        }
        match sort {
            Sort::Elem => {
                for inst in &mut insts {
                    inst.terms.insert(v.clone(), Term::Var(format!("?{v}")));
                }
            }
            Sort::Pred => {
                let mut next = Vec::new();
                for inst in &insts {
                    for lit in literals {
                        let mut n = inst.clone();
                        n.terms.insert(v.clone(), lit.clone());
                        next.push(n);
                    }
                }
                insts = next;
            }
        }
    }
    let mut out = Vec::new();
    for inst in insts {
        for (k, c) in st.conclusions.iter().enumerate() {
            let f = c.map(|t| inst.apply(t));
            if f.lhs == f.rhs && f.rel == Rel::Eq {
                continue;
            }
            out.push((k, inst.clone(), f));
        }
    }
    Ok(out)
}

/// The assumption the refuter checks for a formula: for all threads of its
/// `?i` indices and all values of its `?x` variables (a schematic fact
/// holds for every instance, so the model must satisfy every instance).
pub(crate) fn assumption_of(f: &Formula, sorts: &BTreeMap<String, Sort>) -> Assumption {
    let forall: Vec<String> = f
        .free_indices()
        .into_iter()
        .filter(|i| i.starts_with('?'))
        .collect();
    let vars = f
        .vars()
        .into_iter()
        .filter(|v| v.starts_with('?'))
        .map(|v| {
            let sort = sorts.get(&v[1..]).copied().unwrap_or(Sort::Elem);
            (v, sort)
        })
        .collect();
    Assumption {
        formula: f.clone(),
        forall,
        distinct: vec![],
        vars,
    }
}

/// `f(t) <= (+k : f(k))` for every sum in `t` not under a binder, at the scope's indices.
pub(crate) fn sum_intro_facts(t: &Term, scope: &Scope, out: &mut Vec<Fact>) {
    let mut sums = Vec::new();
    collect_outer(t, &mut sums);
    for s in sums {
        match &s {
            Term::Sum(..) => {
                let (binders, body) = binders_of(&s);
                for tuple in tuples(&scope.indices, binders.len()) {
                    let mut inst = body.clone();
                    for (k, v) in binders.iter().zip(&tuple) {
                        inst = inst.subst_index(k, v);
                    }
                    out.push(Fact {
                        label: format!("sum-intro at {}", tuple.join(",")),
                        formula: Formula::new(inst.canon(), Rel::Le, s.clone()),
                        source: Source::SumIntro {
                            sum: s.clone(),
                            defined: None,
                            at: tuple.clone(),
                        },
                        check: Check::Valid,
                        hyps: BTreeSet::new(),
                        lemmas: BTreeSet::new(),
                    });
                }
            }
            Term::Prod(k, body) => {
                for t in &scope.indices {
                    out.push(Fact {
                        label: format!("prod-elim at {t}"),
                        formula: Formula::new(s.clone(), Rel::Le, body.subst_index(k, t).canon()),
                        source: Source::ProdElim {
                            prod: s.clone(),
                            defined: None,
                            at: t.clone(),
                        },
                        check: Check::Valid,
                        hyps: BTreeSet::new(),
                        lemmas: BTreeSet::new(),
                    });
                }
                out.push(Fact {
                    label: "prod-test".into(),
                    formula: Formula::new(s.clone(), Rel::Le, Term::One),
                    source: Source::ProdTest {
                        prod: s.clone(),
                        defined: None,
                    },
                    check: Check::Valid,
                    hyps: BTreeSet::new(),
                    lemmas: BTreeSet::new(),
                });
            }
            _ => {}
        }
    }
}

/// Introduction facts of a cited family definition `M = (+i : M_i)` or
/// `p = (.i : p_i)`, at the scope's indices.
pub(crate) fn family_def_facts(d: &Definition, scope: &Scope, out: &mut Vec<Fact>) {
    let Some(name) = d.name() else { return };
    let constant = Term::constant(name);
    let body = d.body.canon();
    match &body {
        Term::Sum(..) => {
            let (binders, inner) = binders_of(&body);
            for tuple in tuples(&scope.indices, binders.len()) {
                let mut inst = inner.clone();
                for (k, v) in binders.iter().zip(&tuple) {
                    inst = inst.subst_index(k, v);
                }
                out.push(Fact {
                    label: format!("{} sum-intro at {}", d.label, tuple.join(",")),
                    formula: Formula::new(inst.canon(), Rel::Le, constant.clone()),
                    source: Source::SumIntro {
                        sum: body.clone(),
                        defined: Some(d.label.clone()),
                        at: tuple.clone(),
                    },
                    check: Check::Valid,
                    hyps: BTreeSet::new(),
                    lemmas: BTreeSet::new(),
                });
            }
        }
        Term::Prod(k, inner) => {
            for t in &scope.indices {
                out.push(Fact {
                    label: format!("{} prod-elim at {t}", d.label),
                    formula: Formula::new(
                        constant.clone(),
                        Rel::Le,
                        inner.subst_index(k, t).canon(),
                    ),
                    source: Source::ProdElim {
                        prod: body.clone(),
                        defined: Some(d.label.clone()),
                        at: t.clone(),
                    },
                    check: Check::Valid,
                    hyps: BTreeSet::new(),
                    lemmas: BTreeSet::new(),
                });
            }
            out.push(Fact {
                label: format!("{} prod-test", d.label),
                formula: Formula::new(constant, Rel::Le, Term::One),
                source: Source::ProdTest {
                    prod: body.clone(),
                    defined: Some(d.label.clone()),
                },
                check: Check::Valid,
                hyps: BTreeSet::new(),
                lemmas: BTreeSet::new(),
            });
        }
        _ => {}
    }
}

/// The binders of directly nested sums (or products) and the body.
pub(crate) fn binders_of(t: &Term) -> (Vec<String>, Term) {
    let is_sum = matches!(t, Term::Sum(..));
    let mut binders = Vec::new();
    let mut cur = t;
    loop {
        match (cur, is_sum) {
            (Term::Sum(k, b), true) | (Term::Prod(k, b), false) => {
                binders.push(k.clone());
                cur = b;
            }
            _ => return (binders, cur.clone()),
        }
    }
}

fn collect_outer(t: &Term, out: &mut Vec<Term>) {
    match t {
        Term::Sum(..) | Term::Prod(..) => {
            if !out.contains(t) {
                out.push(t.clone());
            }
        }
        _ => {
            for c in t.children() {
                collect_outer(c, out);
            }
        }
    }
}

fn tuples(indices: &BTreeSet<String>, n: usize) -> Vec<Vec<String>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        let mut next = Vec::new();
        for prefix in &out {
            for i in indices {
                let mut p = prefix.clone();
                p.push(i.clone());
                next.push(p);
            }
        }
        out = next;
    }
    out
}

/// Whether a term is a predicate atom or variable of the script.
pub(crate) fn pred_atom_test<'a>(
    atoms: &'a [crate::script::AtomDecl],
    vars: &'a BTreeMap<String, Sort>,
) -> impl Fn(&Term) -> bool + 'a {
    move |t: &Term| match t {
        Term::Const(Atom { name, index }) => atoms
            .iter()
            .any(|a| a.name == *name && a.family == index.is_some() && a.sort == Sort::Pred),
        Term::Var(v) => vars.get(v) == Some(&Sort::Pred),
        _ => false,
    }
}
