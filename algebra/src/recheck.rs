//! An independent re-checker of certificates. It does not use egg, the
//! parser or the prover: it replays every recorded rewrite against its own
//! copy of the axioms and checks every other inference (instances of cited
//! statements, Horn rules, sums over threads, contexts, chains and case
//! splits) directly on s-expressions. It searches for nothing.

use std::collections::{BTreeMap, BTreeSet};

use crate::certificate::{
    Certificate, FactCert, FormulaCert, GoalCert, HowCert, LemmaCert, SourceCert, StatementCert,
    TreeCert,
};
use crate::error::CertificateError;
use crate::sexp::{Sexp, parse, right_nest};

/// The equational axioms, oriented as the kernel may use them; `-rev` names
/// the reverse direction. Kept separate from `axioms.rs` on purpose.
const EQUATIONS: &[(&str, &str, &str)] = &[
    ("add-assoc", "(+ (+ ?x ?y) ?z)", "(+ ?x (+ ?y ?z))"),
    ("add-comm", "(+ ?x ?y)", "(+ ?y ?x)"),
    ("add-idem", "(+ ?x ?x)", "?x"),
    ("add-zero", "(+ 0 ?x)", "?x"),
    ("seq-assoc", "(; ?x (; ?y ?z))", "(; (; ?x ?y) ?z)"),
    ("seq-zero-l", "(; 0 ?x)", "0"),
    ("seq-zero-r", "(; ?x 0)", "0"),
    ("seq-one-l", "(; 1 ?x)", "?x"),
    ("seq-one-r", "(; ?x 1)", "?x"),
    ("dist-l", "(; ?x (+ ?y ?z))", "(+ (; ?x ?y) (; ?x ?z))"),
    ("dist-r", "(; (+ ?x ?y) ?z)", "(+ (; ?x ?z) (; ?y ?z))"),
    ("star-unfold", "(* ?x)", "(+ 1 (+ ?x (; (* ?x) (* ?x))))"),
    (
        "omega-star",
        "(ostar ?x ?y)",
        "(+ (omega ?x) (; (* ?x) ?y))",
    ),
    ("omega-unfold", "(omega ?x)", "(; ?x (omega ?x))"),
    ("compl-l", "(; ?a (~ ?a))", "0"),
    ("compl-r", "(; (~ ?a) ?a)", "0"),
    ("compl-sum", "(+ ?a (~ ?a))", "1"),
];

/// Derived rules with their derivations from the equations: each list is a
/// rewrite sequence from the rule's right side to its left side, every link
/// being one equation (either way) at one position.
const DERIVED: &[(&str, &str, &str, &[&str])] = &[
    (
        "factor-l",
        "(+ (; ?x ?y) ?x)",
        "(; ?x (+ ?y 1))",
        &[
            "(; ?x (+ ?y 1))",
            "(+ (; ?x ?y) (; ?x 1))",
            "(+ (; ?x ?y) ?x)",
        ],
    ),
    (
        "factor-r",
        "(+ (; ?y ?x) ?x)",
        "(; (+ ?y 1) ?x)",
        &[
            "(; (+ ?y 1) ?x)",
            "(+ (; ?y ?x) (; 1 ?x))",
            "(+ (; ?y ?x) ?x)",
        ],
    ),
];

/// A formula as three strings: left side, relation, right side.
type RawFormula = (&'static str, &'static str, &'static str);

/// Horn axioms: premises and conclusion, schematic in `?x ?y ?z`.
const HORN: &[(&str, &[RawFormula], RawFormula)] = &[
    (
        "star-ind-r",
        &[("(; ?x ?y)", "<=", "?x")],
        ("(; ?x (* ?y))", "=", "?x"),
    ),
    (
        "star-ind-l",
        &[("(; ?x ?y)", "<=", "?y")],
        ("(; (* ?x) ?y)", "=", "?y"),
    ),
    (
        "omega-ind",
        &[("?x", "<=", "(+ (; ?y ?x) ?z)")],
        ("?x", "<=", "(ostar ?y ?z)"),
    ),
];

/// Explanation trees nest at most this deep.
const MAX_TREE_DEPTH: usize = 1024;

/// A case of a split: `(i, j, equal)`.
type CaseKey = (String, String, bool);

/// What a successful re-check covered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RecheckSummary {
    /// Lemmas re-checked.
    pub lemmas: usize,
    /// Steps re-checked.
    pub steps: usize,
    /// Single rewrites replayed.
    pub rewrites: usize,
    /// Other inferences checked (instances, contexts, splits, ...).
    pub inferences: usize,
    /// Hypotheses the certificate rests on.
    pub hypotheses: Vec<String>,
}

#[derive(Clone, Debug)]
struct Rule {
    lhs: Sexp,
    rhs: Sexp,
}

#[derive(Clone, Debug)]
struct Stmt {
    vars: BTreeMap<String, String>,
    distinct: Vec<(String, String)>,
    premises: Vec<F>,
    conclusions: Vec<F>,
}

#[derive(Clone, Debug, PartialEq)]
struct F {
    lhs: Sexp,
    rel: String,
    rhs: Sexp,
}

impl F {
    fn alpha_eq(&self, o: &F) -> bool {
        self.rel == o.rel && self.lhs.alpha_eq(&o.lhs) && self.rhs.alpha_eq(&o.rhs)
    }
}

impl std::fmt::Display for F {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.lhs, self.rel, self.rhs)
    }
}

fn term(s: &str) -> Result<Sexp, String> {
    parse(s).map_err(|e| format!("malformed term `{s}`: {e}"))
}

fn formula(f: &FormulaCert) -> Result<F, String> {
    if f.rel != "=" && f.rel != "<=" {
        return Err(format!("unknown relation `{}`", f.rel));
    }
    Ok(F {
        lhs: term(&f.lhs)?,
        rel: f.rel.clone(),
        rhs: term(&f.rhs)?,
    })
}

fn stmt(s: &StatementCert) -> Result<Stmt, String> {
    Ok(Stmt {
        vars: s.vars.clone(),
        distinct: s.distinct.clone(),
        premises: s.premises.iter().map(formula).collect::<Result<_, _>>()?,
        conclusions: s
            .conclusions
            .iter()
            .map(formula)
            .collect::<Result<_, _>>()?,
    })
}

fn leaf(i: &str) -> String {
    if i.starts_with('?') {
        i.to_string()
    } else {
        format!("_{i}")
    }
}

struct Checker<'c> {
    _cert: std::marker::PhantomData<&'c Certificate>,
    equations: BTreeMap<String, Rule>,
    hyps: BTreeMap<String, Stmt>,
    defs: BTreeMap<String, (Option<String>, bool, Stmt)>,
    lemmas: BTreeMap<String, Stmt>,
    pred_atoms: BTreeSet<String>,
    pred_families: BTreeSet<String>,
    rewrites: usize,
    inferences: usize,
    used_hyps: BTreeSet<String>,
}

/// The scope of a goal: the lemma, its premises and predicate variables,
/// and which indices are known to differ.
#[derive(Clone)]
struct Ctx<'l> {
    lemma: &'l str,
    premises: BTreeMap<String, F>,
    pred_vars: BTreeSet<String>,
    indices: BTreeSet<String>,
    distinct: BTreeSet<(String, String)>,
}

impl Ctx<'_> {
    fn knows_distinct(&self, a: &str, b: &str) -> bool {
        self.distinct.contains(&(a.to_string(), b.to_string()))
            || self.distinct.contains(&(b.to_string(), a.to_string()))
    }
}

/// Re-checks a certificate.
pub fn recheck(cert: &Certificate) -> Result<RecheckSummary, CertificateError> {
    let mut c = Checker::new(cert).map_err(|reason| CertificateError::Rejected {
        lemma: "-".into(),
        location: "header".into(),
        reason,
    })?;
    let mut steps = 0;
    for l in &cert.lemmas {
        steps += l.steps.len();
        c.lemma(l)
            .map_err(|(location, reason)| CertificateError::Rejected {
                lemma: l.statement.label.clone(),
                location,
                reason,
            })?;
    }
    Ok(RecheckSummary {
        lemmas: cert.lemmas.len(),
        steps,
        rewrites: c.rewrites,
        inferences: c.inferences,
        hypotheses: cert
            .hypotheses
            .iter()
            .filter(|h| c.used_hyps.contains(&h.label))
            .map(|h| h.label.clone())
            .collect(),
    })
}

impl<'c> Checker<'c> {
    fn new(cert: &'c Certificate) -> Result<Checker<'c>, String> {
        let mut equations = BTreeMap::new();
        let reversible = [
            "add-assoc",
            "seq-assoc",
            "dist-l",
            "dist-r",
            "star-unfold",
            "omega-star",
            "omega-unfold",
        ];
        for (name, l, r) in EQUATIONS {
            let (l, r) = (term(l)?, term(r)?);
            if reversible.contains(name) {
                equations.insert(
                    format!("{name}-rev"),
                    Rule {
                        lhs: r.clone(),
                        rhs: l.clone(),
                    },
                );
            }
            equations.insert(name.to_string(), Rule { lhs: l, rhs: r });
        }
        let mut c = Checker {
            _cert: std::marker::PhantomData,
            equations,
            hyps: BTreeMap::new(),
            defs: BTreeMap::new(),
            lemmas: BTreeMap::new(),
            pred_atoms: BTreeSet::new(),
            pred_families: BTreeSet::new(),
            rewrites: 0,
            inferences: 0,
            used_hyps: BTreeSet::new(),
        };
        // Derived rules count only once their derivation replays.
        for (name, l, r, chain) in DERIVED {
            let terms: Vec<Sexp> = chain.iter().map(|t| term(t)).collect::<Result<_, _>>()?;
            for w in terms.windows(2) {
                if !c.one_equation_apart(&w[0], &w[1]) {
                    return Err(format!(
                        "derived rule {name}: `{}` and `{}` are not one axiom apart",
                        w[0], w[1]
                    ));
                }
            }
            let (l, r) = (term(l)?, term(r)?);
            if terms.first() != Some(&r) || terms.last() != Some(&l) {
                return Err(format!(
                    "derived rule {name}: the derivation does not connect its sides"
                ));
            }
            c.equations
                .insert(name.to_string(), Rule { lhs: l, rhs: r });
        }
        for a in &cert.atoms {
            if a.pred {
                if a.family {
                    c.pred_families.insert(a.name.clone());
                } else {
                    c.pred_atoms.insert(a.name.clone());
                }
            }
        }
        let mut defined: BTreeSet<(String, bool)> = BTreeSet::new();
        for d in &cert.definitions {
            let st = stmt(&d.statement)?;
            let [f] = st.conclusions.as_slice() else {
                return Err(format!(
                    "definition {} has not exactly one equation",
                    d.label
                ));
            };
            if f.rel != "=" {
                return Err(format!("definition {} is not an equation", d.label));
            }
            // A definition names a term built from what came before: the name
            // is new and does not occur in its body.
            if let Some(n) = &d.name {
                if defined.contains(&(n.clone(), d.family)) || mentions(&f.rhs, n, d.family) {
                    return Err(format!("definition {} is circular or repeated", d.label));
                }
                if cert
                    .atoms
                    .iter()
                    .any(|a| &a.name == n && a.family == d.family)
                {
                    return Err(format!("definition {} redefines an atom", d.label));
                }
                defined.insert((n.clone(), d.family));
            }
            c.defs
                .insert(d.label.clone(), (d.name.clone(), d.family, st));
        }
        for h in &cert.hypotheses {
            c.hyps.insert(h.label.clone(), stmt(h)?);
        }
        Ok(c)
    }

    fn one_equation_apart(&self, a: &Sexp, b: &Sexp) -> bool {
        fn at(a: &Sexp, b: &Sexp, rules: &BTreeMap<String, Rule>) -> bool {
            for r in rules.values() {
                for (l, rr) in [(&r.lhs, &r.rhs), (&r.rhs, &r.lhs)] {
                    let mut s = BTreeMap::new();
                    if l.matches(a, &mut s) && rr.subst_plain(&s) == *b {
                        return true;
                    }
                }
            }
            match (a, b) {
                (Sexp::List(xs), Sexp::List(ys)) if xs.len() == ys.len() => {
                    let diff: Vec<usize> = (0..xs.len()).filter(|&k| xs[k] != ys[k]).collect();
                    diff.len() == 1 && at(&xs[diff[0]], &ys[diff[0]], rules)
                }
                _ => false,
            }
        }
        at(a, b, &self.equations)
    }

    // ----- lemmas and chains -----

    fn lemma(&mut self, l: &LemmaCert) -> Result<(), (String, String)> {
        let label = l.statement.label.clone();
        let st = stmt(&l.statement).map_err(|e| ("statement".to_string(), e))?;
        if !l.proved {
            return Err((
                "statement".into(),
                "the kernel did not prove this lemma".into(),
            ));
        }
        let [concl] = st.conclusions.as_slice() else {
            return Err((
                "statement".into(),
                "a lemma states exactly one formula".into(),
            ));
        };
        let premises: BTreeMap<String, F> = crate::parser::premise_labels(st.premises.len())
            .into_iter()
            .zip(st.premises.iter().cloned())
            .collect();
        let mut indices: BTreeSet<String> = BTreeSet::new();
        for f in st.premises.iter().chain(&st.conclusions) {
            for i in f.lhs.free_indices().into_iter().chain(f.rhs.free_indices()) {
                indices.insert(i.trim_start_matches('_').to_string());
            }
        }
        let mut base = Ctx {
            lemma: &label,
            premises,
            pred_vars: st
                .vars
                .iter()
                .filter(|(_, s)| *s == "pred")
                .map(|(k, _)| k.clone())
                .collect(),
            indices: indices.clone(),
            distinct: BTreeSet::new(),
        };
        for (a, b) in &st.distinct {
            base.distinct.insert((a.clone(), b.clone()));
            indices.insert(a.clone());
            indices.insert(b.clone());
        }
        base.indices = indices;
        let mut groups: Vec<(Option<CaseKey>, Vec<&crate::certificate::StepCert>)> = Vec::new();
        for s in &l.steps {
            match groups.last_mut() {
                Some((c, v)) if *c == s.case => v.push(s),
                _ => groups.push((s.case.clone(), vec![s])),
            }
        }
        let cased: Vec<_> = groups.iter().filter_map(|(c, _)| c.clone()).collect();
        if !cased.is_empty() {
            let ok = groups.len() == 2
                && cased.len() == 2
                && cased[0].0 == cased[1].0
                && cased[0].1 == cased[1].1
                && cased[0].2 != cased[1].2;
            if !ok {
                return Err((
                    "cases".into(),
                    "a case split needs exactly `i = j` and `i != j`".into(),
                ));
            }
        }
        for (case, steps) in &groups {
            let (goal, ctx) = match case {
                None => (concl.clone(), base.clone()),
                Some((a, b, equal)) => {
                    if !base.indices.contains(a) || !base.indices.contains(b) || a == b {
                        return Err((
                            "cases".into(),
                            format!("case on {a}, {b}: not two indices of the statement"),
                        ));
                    }
                    let mut ctx = base.clone();
                    if *equal {
                        if base.knows_distinct(a, b) {
                            return Err((
                                "cases".into(),
                                format!("case {a} = {b} contradicts {a} != {b}"),
                            ));
                        }
                        let m: BTreeMap<String, String> =
                            [(leaf(b), leaf(a))].into_iter().collect();
                        ctx.indices.remove(b);
                        ctx.premises = ctx
                            .premises
                            .iter()
                            .map(|(k, f)| {
                                (
                                    k.clone(),
                                    F {
                                        lhs: f.lhs.rename_indices(&m),
                                        rel: f.rel.clone(),
                                        rhs: f.rhs.rename_indices(&m),
                                    },
                                )
                            })
                            .collect();
                        (
                            F {
                                lhs: concl.lhs.rename_indices(&m),
                                rel: concl.rel.clone(),
                                rhs: concl.rhs.rename_indices(&m),
                            },
                            ctx,
                        )
                    } else {
                        ctx.distinct.insert((a.clone(), b.clone()));
                        (concl.clone(), ctx)
                    }
                }
            };
            self.chain(&goal, steps, &ctx)?;
        }
        self.lemmas.insert(label, st);
        Ok(())
    }

    fn chain(
        &mut self,
        goal: &F,
        steps: &[&crate::certificate::StepCert],
        ctx: &Ctx<'_>,
    ) -> Result<(), (String, String)> {
        let loc = |n: usize| format!("step {n}");
        let mut prev: Option<F> = None;
        let mut all_eq = true;
        for s in steps {
            let g = formula(&s.goal).map_err(|e| (loc(s.number), e))?;
            match &prev {
                None => {
                    if !g.lhs.assoc_normal().alpha_eq(&goal.lhs.assoc_normal()) {
                        return Err((
                            loc(s.number),
                            format!("the chain starts with {}, not {}", g.lhs, goal.lhs),
                        ));
                    }
                }
                Some(p) => {
                    if !g.lhs.alpha_eq(&p.rhs) {
                        return Err((
                            loc(s.number),
                            "the step does not start where the previous one ended".into(),
                        ));
                    }
                }
            }
            all_eq &= g.rel == "=";
            let proof = s
                .proof
                .as_ref()
                .ok_or_else(|| (loc(s.number), "the step has no proof".to_string()))?;
            self.goal(proof, &g, ctx).map_err(|e| (loc(s.number), e))?;
            prev = Some(g);
        }
        let last = prev.ok_or_else(|| ("chain".to_string(), "empty chain".to_string()))?;
        if !last.rhs.assoc_normal().alpha_eq(&goal.rhs.assoc_normal()) {
            return Err((
                "chain".into(),
                format!("the chain ends with {}, not {}", last.rhs, goal.rhs),
            ));
        }
        if goal.rel == "=" && !all_eq {
            return Err((
                "chain".into(),
                "the chain shows <= but the lemma states =".into(),
            ));
        }
        Ok(())
    }

    // ----- goals -----

    fn goal(&mut self, g: &GoalCert, expected: &F, ctx: &Ctx<'_>) -> Result<(), String> {
        let stated = formula(&g.goal)?;
        if !stated.alpha_eq(expected) {
            return Err(format!("proves `{stated}` instead of `{expected}`"));
        }
        self.well_formed(&stated.lhs, ctx)?;
        self.well_formed(&stated.rhs, ctx)?;
        self.inferences += 1;
        match &g.how {
            HowCert::Identical => {
                let l = stated.lhs.assoc_normal();
                let r = stated.rhs.assoc_normal();
                let ok = l.alpha_eq(&r)
                    || (stated.rel == "<=" && r.flatten("+").iter().any(|s| s.alpha_eq(&l)));
                if ok {
                    Ok(())
                } else {
                    Err(format!("`{stated}` is not an identity"))
                }
            }
            HowCert::Saturation {
                lhs,
                rhs,
                facts,
                proof,
            } => {
                let (l, r) = (term(lhs)?, term(rhs)?);
                let (el, er) = if stated.rel == "=" {
                    (stated.lhs.clone(), stated.rhs.clone())
                } else {
                    (
                        Sexp::bin("+", stated.lhs.clone(), stated.rhs.clone()),
                        stated.rhs.clone(),
                    )
                };
                if !l.alpha_eq(&el) || !r.alpha_eq(&er) {
                    return Err("the rewrite sequence is not about this goal".into());
                }
                let mut rules = Vec::new();
                for (n, f) in facts.iter().enumerate() {
                    let ff = self.fact(f, ctx).map_err(|e| format!("fact f{n}: {e}"))?;
                    rules.push(ff);
                }
                self.replay(&l, &r, proof, &rules, ctx)
            }
            HowCert::Context {
                prefix,
                suffix,
                inner,
            } => {
                let pre: Vec<Sexp> = prefix.iter().map(|t| term(t)).collect::<Result<_, _>>()?;
                let suf: Vec<Sexp> = suffix.iter().map(|t| term(t)).collect::<Result<_, _>>()?;
                let ig = formula(&inner.goal)?;
                if ig.rel != stated.rel {
                    return Err("the context changes the relation".into());
                }
                let wrap = |t: &Sexp| {
                    let mut fs = pre.clone();
                    fs.push(t.clone());
                    fs.extend(suf.iter().cloned());
                    unit_normal(&right_nest(";", fs))
                };
                if !wrap(&ig.lhs).alpha_eq(&unit_normal(&stated.lhs))
                    || !wrap(&ig.rhs).alpha_eq(&unit_normal(&stated.rhs))
                {
                    return Err("the inner goal in its context is not the goal".into());
                }
                self.goal(inner, &ig, ctx)
            }
            HowCert::Antisymmetry { le, ge } => {
                if stated.rel != "=" {
                    return Err("antisymmetry proves an equation".into());
                }
                let a = F {
                    lhs: stated.lhs.clone(),
                    rel: "<=".into(),
                    rhs: stated.rhs.clone(),
                };
                let b = F {
                    lhs: stated.rhs.clone(),
                    rel: "<=".into(),
                    rhs: stated.lhs.clone(),
                };
                self.goal(le, &a, ctx)?;
                self.goal(ge, &b, ctx)
            }
            HowCert::Factors { factors } => {
                let lf = stated.lhs.flatten(";");
                let rf = stated.rhs.flatten(";");
                if lf.len() != rf.len() || lf.len() != factors.len() {
                    return Err("factor counts differ".into());
                }
                for ((a, b), p) in lf.iter().zip(&rf).zip(factors) {
                    let f = F {
                        lhs: a.clone(),
                        rel: stated.rel.clone(),
                        rhs: b.clone(),
                    };
                    self.goal(p, &f, ctx)?;
                }
                Ok(())
            }
            HowCert::Split { parts } => self.split(&stated, parts, ctx),
        }
    }

    fn split(
        &mut self,
        stated: &F,
        parts: &[crate::certificate::PartCert],
        ctx: &Ctx<'_>,
    ) -> Result<(), String> {
        if stated.rel != "<=" {
            return Err("a split proves an inequation".into());
        }
        let mut supply: Vec<String> = Vec::new();
        let mut labels: BTreeSet<String> = BTreeSet::new();
        for p in parts {
            for f in &p.fresh {
                if !supply.contains(f) {
                    supply.push(f.clone());
                }
            }
            labels.extend(p.unfolded.iter().cloned());
        }
        // Fresh indices are fresh: not in the goal, not in the scope.
        let mentioned: BTreeSet<String> = stated
            .lhs
            .free_indices()
            .into_iter()
            .chain(stated.rhs.free_indices())
            .collect();
        for f in &supply {
            if mentioned.contains(&leaf(f)) || ctx.indices.contains(f) || f.starts_with('?') {
                return Err(format!("index {f} is not fresh"));
            }
        }
        let mut unfold = BTreeMap::new();
        for lbl in &labels {
            match self.defs.get(lbl) {
                Some((Some(name), false, st)) if st.conclusions[0].rhs.head() == "sum" => {
                    unfold.insert(name.clone(), (lbl.clone(), st.conclusions[0].rhs.clone()));
                }
                _ => return Err(format!("{lbl} is not a definition of a sum over threads")),
            }
        }
        let mut replayed = Vec::new();
        let mut supply_iter = supply.into_iter();
        spine(
            &stated.lhs,
            &unfold,
            &mut supply_iter,
            &[],
            &[],
            &mut replayed,
        )?;
        if supply_iter.next().is_some() || replayed.len() != parts.len() {
            return Err("the parts are not the summands of the left side".into());
        }
        let mut ctx2 = ctx.clone();
        for (p, (t, fresh, unf)) in parts.iter().zip(replayed) {
            let s = term(&p.summand)?;
            if !s.alpha_eq(&t) || fresh != p.fresh || unf != p.unfolded {
                return Err(format!("part `{s}` is not the replayed summand `{t}`"));
            }
            ctx2.indices.extend(p.fresh.iter().cloned());
            let f = F {
                lhs: s,
                rel: "<=".into(),
                rhs: stated.rhs.clone(),
            };
            self.goal(&p.proof, &f, &ctx2)?;
        }
        Ok(())
    }

    // ----- rewrites -----

    /// Checks an egg tree explanation of `first = last`: every link between
    /// consecutive nodes of every sequence is one rule application.
    fn replay(
        &mut self,
        first: &Sexp,
        last: &Sexp,
        tree: &TreeCert,
        facts: &[F],
        ctx: &Ctx<'_>,
    ) -> Result<(), String> {
        let n = tree.nodes.len();
        let mut t = Tree {
            nodes: &tree.nodes,
            terms: vec![None; n],
            anns: vec![None; n],
            checked: vec![false; n],
        };
        // Children come before parents, so the tree has no cycles; and it is
        // shallow enough to check recursively.
        let mut depth = vec![0usize; n];
        for (id, node) in tree.nodes.iter().enumerate() {
            if node.children.iter().flatten().any(|&c| c >= id)
                || node.children.iter().any(|s| s.is_empty())
            {
                return Err(format!("explanation node {id} is malformed"));
            }
            depth[id] = 1 + node
                .children
                .iter()
                .flatten()
                .map(|&c| depth[c])
                .max()
                .unwrap_or(0);
            if depth[id] > MAX_TREE_DEPTH {
                return Err(format!(
                    "explanation node {id} is nested deeper than {MAX_TREE_DEPTH}"
                ));
            }
        }
        if tree.root.is_empty() || tree.root.iter().any(|&r| r >= n) {
            return Err("the explanation has no root sequence".into());
        }
        if !t.anns(tree.root[0]).is_empty() {
            return Err("the explanation starts with a rewrite".into());
        }
        let (init, _) = t.terms(tree.root[0]);
        let (_, fin) = t.terms(tree.root[tree.root.len() - 1]);
        if init != *first {
            return Err("the explanation does not start at the goal".into());
        }
        if fin != *last {
            return Err("the explanation does not end at the goal".into());
        }
        self.check_seq(&mut t, &tree.root, facts, ctx)
    }

    fn check_seq(
        &mut self,
        t: &mut Tree<'_>,
        seq: &[usize],
        facts: &[F],
        ctx: &Ctx<'_>,
    ) -> Result<(), String> {
        for k in 0..seq.len() {
            if k > 0 {
                let (_, prev) = t.terms(seq[k - 1]);
                let (cur, _) = t.terms(seq[k]);
                let anns = t.anns(seq[k]);
                match anns.as_slice() {
                    [] => {
                        if prev != cur {
                            return Err(format!("`{prev}` and `{cur}` are linked by no rewrite"));
                        }
                    }
                    [(path, forward, rule)] => {
                        self.well_formed(&cur, ctx)?;
                        let before = at_path(&prev, path).ok_or("bad rewrite position")?;
                        let after = at_path(&cur, path).ok_or("bad rewrite position")?;
                        if !equal_except(&prev, &cur, path) {
                            return Err(format!(
                                "`{prev}` and `{cur}` differ elsewhere than the rewrite"
                            ));
                        }
                        let r = self.rule(rule, facts)?;
                        let (from, to) = if *forward {
                            (before, after)
                        } else {
                            (after, before)
                        };
                        let mut s = BTreeMap::new();
                        if !r.lhs.matches(from, &mut s) || r.rhs.subst_plain(&s) != *to {
                            return Err(format!("`{from}` does not rewrite to `{to}` by {rule}"));
                        }
                        self.rewrites += 1;
                    }
                    _ => return Err("two rewrites in one link".into()),
                }
            }
            if !t.checked[seq[k]] {
                t.checked[seq[k]] = true;
                let children = t.nodes[seq[k]].children.clone();
                for c in &children {
                    self.check_seq(t, c, facts, ctx)?;
                }
            }
        }
        Ok(())
    }

    fn rule(&self, name: &str, facts: &[F]) -> Result<Rule, String> {
        if let Some(r) = self.equations.get(name) {
            return Ok(r.clone());
        }
        let rest = name
            .strip_prefix('f')
            .ok_or_else(|| format!("unknown rule {name}"))?;
        let (num, dir) = match rest.split_once('-') {
            Some((n, d)) => (n, d),
            None => (rest, ""),
        };
        let n: usize = num.parse().map_err(|_| format!("unknown rule {name}"))?;
        let f = facts
            .get(n)
            .ok_or_else(|| format!("rule {name} names no fact"))?;
        let sum = Sexp::bin("+", f.lhs.clone(), f.rhs.clone());
        match (f.rel.as_str(), dir) {
            ("=", "") => Ok(Rule {
                lhs: f.lhs.clone(),
                rhs: f.rhs.clone(),
            }),
            ("=", "rev") => Ok(Rule {
                lhs: f.rhs.clone(),
                rhs: f.lhs.clone(),
            }),
            ("<=", "absorb") => Ok(Rule {
                lhs: sum,
                rhs: f.rhs.clone(),
            }),
            ("<=", "expand") => Ok(Rule {
                lhs: f.rhs.clone(),
                rhs: sum,
            }),
            _ => Err(format!("rule {name} does not fit fact f{n}")),
        }
    }

    // ----- facts -----

    fn fact(&mut self, f: &FactCert, ctx: &Ctx<'_>) -> Result<F, String> {
        let stated = formula(&f.formula)?;
        self.inferences += 1;
        match &f.source {
            SourceCert::Cited {
                kind,
                label,
                conclusion,
                terms,
                indices,
            } => {
                if kind == "premise" {
                    let p = ctx
                        .premises
                        .get(label)
                        .ok_or_else(|| format!("no premise {label}"))?;
                    if !p.alpha_eq(&stated) {
                        return Err(format!("`{stated}` is not premise {label}"));
                    }
                    return Ok(stated);
                }
                let st = match kind.as_str() {
                    "hypothesis" => {
                        self.used_hyps.insert(label.clone());
                        self.hyps.get(label)
                    }
                    "definition" => self.defs.get(label).map(|d| &d.2),
                    "lemma" => self.lemmas.get(label),
                    _ => None,
                }
                .ok_or_else(|| format!("no {kind} {label} before {}", ctx.lemma))?
                .clone();
                let c = st
                    .conclusions
                    .get(*conclusion)
                    .ok_or("no such conclusion")?;
                let inst = self.instance(&st, c, terms, indices, ctx, true)?;
                if !inst.alpha_eq(&stated) {
                    return Err(format!(
                        "`{stated}` is not an instance of {label} (expected `{inst}`)"
                    ));
                }
                Ok(stated)
            }
            SourceCert::Proved { proof } => {
                self.goal(proof, &stated, ctx)?;
                Ok(stated)
            }
            SourceCert::Horn {
                kind,
                label,
                terms,
                indices,
                premises,
            } => {
                let st = match kind.as_str() {
                    "axiom" => {
                        let (_, ps, c) = HORN
                            .iter()
                            .find(|h| h.0 == label)
                            .ok_or_else(|| format!("no Horn axiom {label}"))?;
                        let f3 = |(l, r, rr): &(&str, &str, &str)| -> Result<F, String> {
                            Ok(F {
                                lhs: term(l)?.subst_plain(&devar()),
                                rel: r.to_string(),
                                rhs: term(rr)?.subst_plain(&devar()),
                            })
                        };
                        let all = ps
                            .iter()
                            .chain(std::iter::once(c))
                            .flat_map(|(l, _, r)| [*l, *r])
                            .collect::<Vec<_>>()
                            .join(" ");
                        Stmt {
                            vars: ["x", "y", "z"]
                                .iter()
                                .filter(|v| all.contains(&format!("?{v}")))
                                .map(|v| (v.to_string(), "elem".to_string()))
                                .collect(),
                            distinct: vec![],
                            premises: ps.iter().map(f3).collect::<Result<_, _>>()?,
                            conclusions: vec![f3(c)?],
                        }
                    }
                    "lemma" => self
                        .lemmas
                        .get(label)
                        .cloned()
                        .ok_or_else(|| format!("no lemma {label} before {}", ctx.lemma))?,
                    _ => return Err(format!("unknown rule kind {kind}")),
                };
                if st.premises.len() != premises.len() {
                    return Err(format!(
                        "{label} has {} premises, {} proved",
                        st.premises.len(),
                        premises.len()
                    ));
                }
                for (p, proof) in st.premises.iter().zip(premises) {
                    let pi = self.instance(&st, p, terms, indices, ctx, false)?;
                    self.goal(proof, &pi, ctx)?;
                }
                let c = self.instance(&st, &st.conclusions[0], terms, indices, ctx, false)?;
                if !c.alpha_eq(&stated) {
                    return Err(format!("`{stated}` is not the conclusion of {label}"));
                }
                Ok(stated)
            }
            SourceCert::SumIntro { sum, defined, at } => {
                let s = term(sum)?;
                let mut body = s.clone();
                for t in at {
                    if body.head() != "sum" || body.args().len() != 2 {
                        return Err("not a sum".into());
                    }
                    let b = body.args()[0].head().to_string();
                    let m: BTreeMap<String, String> = [(b, leaf(t))].into_iter().collect();
                    body = body.args()[1].rename_indices(&m);
                }
                if body.head() == "sum" {
                    return Err("a sum introduced at too few indices".into());
                }
                let rhs = self.named(&s, defined)?;
                let expect = F {
                    lhs: body,
                    rel: "<=".into(),
                    rhs,
                };
                if !expect.alpha_eq(&stated) {
                    return Err(format!("`{stated}` is not a summand of its sum"));
                }
                Ok(stated)
            }
            SourceCert::ProdElim { prod, defined, at } => {
                let p = term(prod)?;
                let body = self.prod_body(&p)?;
                let b = p.args()[0].head().to_string();
                let m: BTreeMap<String, String> = [(b, leaf(at))].into_iter().collect();
                let lhs = self.named(&p, defined)?;
                let expect = F {
                    lhs,
                    rel: "<=".into(),
                    rhs: body.rename_indices(&m),
                };
                if !expect.alpha_eq(&stated) {
                    return Err(format!("`{stated}` is not a factor of its product"));
                }
                Ok(stated)
            }
            SourceCert::ProdTest { prod, defined } => {
                let p = term(prod)?;
                self.prod_body(&p)?;
                let lhs = self.named(&p, defined)?;
                let expect = F {
                    lhs,
                    rel: "<=".into(),
                    rhs: Sexp::atom("1"),
                };
                if !expect.alpha_eq(&stated) {
                    return Err(format!("`{stated}` is not `product <= 1`"));
                }
                Ok(stated)
            }
        }
    }

    /// The term itself, or the constant a definition names it by.
    fn named(&self, t: &Sexp, defined: &Option<String>) -> Result<Sexp, String> {
        match defined {
            None => Ok(t.clone()),
            Some(lbl) => match self.defs.get(lbl) {
                Some((Some(name), false, st)) if st.conclusions[0].rhs.alpha_eq(t) => {
                    Ok(Sexp::atom(name))
                }
                _ => Err(format!("{lbl} does not define `{t}`")),
            },
        }
    }

    fn prod_body<'t>(&self, p: &'t Sexp) -> Result<&'t Sexp, String> {
        if p.head() != "prod" || p.args().len() != 2 {
            return Err("not a product".into());
        }
        let body = &p.args()[1];
        if !self.is_pred_term(body) {
            return Err(format!("`{body}` is not a predicate"));
        }
        Ok(body)
    }

    fn is_pred_term(&self, t: &Sexp) -> bool {
        match t.head() {
            "0" | "1" if t.args().is_empty() => true,
            "+" | ";" => t.args().len() == 2 && t.args().iter().all(|a| self.is_pred_term(a)),
            "~" => t.args().len() == 1 && self.is_pred_atom(&t.args()[0], &BTreeSet::new()),
            "prod" => t.args().len() == 2 && self.is_pred_term(&t.args()[1]),
            _ => self.is_pred_atom(t, &BTreeSet::new()),
        }
    }

    fn is_pred_atom(&self, t: &Sexp, pred_vars: &BTreeSet<String>) -> bool {
        match t {
            Sexp::Atom(a) => self.pred_atoms.contains(a) || pred_vars.contains(a),
            Sexp::List(items) => {
                items.len() == 2
                    && self.pred_families.contains(t.head())
                    && items[1].head().starts_with('_')
            }
        }
    }

    fn is_pred_literal(&self, t: &Sexp, ctx: &Ctx<'_>) -> bool {
        if t.head() == "~" && t.args().len() == 1 {
            return self.is_pred_atom(&t.args()[0], &ctx.pred_vars);
        }
        self.is_pred_atom(t, &ctx.pred_vars)
    }

    /// `~` only of predicates, products only of predicates.
    fn well_formed(&self, t: &Sexp, ctx: &Ctx<'_>) -> Result<(), String> {
        match t {
            Sexp::Atom(_) => Ok(()),
            Sexp::List(items) => {
                if t.head() == "~"
                    && !(items.len() == 2 && self.is_pred_atom(&items[1], &ctx.pred_vars))
                {
                    return Err(format!("`{t}`: complement of a non-predicate"));
                }
                if t.head() == "prod" && !(items.len() == 3 && self.is_pred_term(&items[2])) {
                    return Err(format!("`{t}`: product of non-predicates"));
                }
                items[1..].iter().try_for_each(|i| self.well_formed(i, ctx))
            }
        }
    }

    /// A statement's formula under an instantiation, checking that the
    /// instantiation is admissible in the scope.
    fn instance(
        &self,
        st: &Stmt,
        f: &F,
        terms: &BTreeMap<String, String>,
        indices: &BTreeMap<String, String>,
        ctx: &Ctx<'_>,
        schematic_ok: bool,
    ) -> Result<F, String> {
        let mut st_indices: BTreeSet<String> = BTreeSet::new();
        for g in st.premises.iter().chain(&st.conclusions) {
            for i in g.lhs.free_indices().into_iter().chain(g.rhs.free_indices()) {
                st_indices.insert(i.trim_start_matches('_').to_string());
            }
        }
        for (a, b) in &st.distinct {
            st_indices.insert(a.clone());
            st_indices.insert(b.clone());
        }
        let mut imap = BTreeMap::new();
        for i in &st_indices {
            let v = indices
                .get(i)
                .ok_or_else(|| format!("index {i} is not instantiated"))?;
            if v.starts_with('?') && !schematic_ok {
                return Err(format!("index {i} must be instantiated"));
            }
            imap.insert(leaf(i), leaf(v));
        }
        for (a, b) in &st.distinct {
            let (va, vb) = (&indices[a], &indices[b]);
            if !ctx.knows_distinct(va, vb) {
                return Err(format!("needs {va} != {vb}"));
            }
        }
        let mut vmap = BTreeMap::new();
        for (v, sort) in &st.vars {
            let t = term(
                terms
                    .get(v)
                    .ok_or_else(|| format!("variable {v} is not instantiated"))?,
            )?;
            if !schematic_ok && t.to_string().contains('?') {
                return Err(format!("variable {v} must be instantiated"));
            }
            if sort == "pred" && !self.is_pred_literal(&t, ctx) {
                return Err(format!("`{t}` is not a predicate literal"));
            }
            if sort != "pred" && t.to_string().starts_with('?') && t != Sexp::atom(&format!("?{v}"))
            {
                return Err(format!("variable {v} instantiated with another variable"));
            }
            vmap.insert(v.clone(), t);
        }
        let go = |t: &Sexp| t.rename_indices(&imap).subst(&vmap);
        Ok(F {
            lhs: go(&f.lhs),
            rel: f.rel.clone(),
            rhs: go(&f.rhs),
        })
    }
}

fn devar() -> BTreeMap<String, Sexp> {
    ["x", "y", "z"]
        .iter()
        .map(|v| (format!("?{v}"), Sexp::atom(v)))
        .collect()
}

fn mentions(t: &Sexp, name: &str, family: bool) -> bool {
    match t {
        Sexp::Atom(a) => !family && a == name,
        Sexp::List(items) => {
            (family && items.len() == 2 && t.head() == name)
                || items[1..].iter().any(|i| mentions(i, name, family))
        }
    }
}

/// `x 1` and `1 x` are `x`: contexts may leave an empty side.
fn unit_normal(t: &Sexp) -> Sexp {
    let fs: Vec<Sexp> = t
        .flatten(";")
        .into_iter()
        .filter(|f| *f != Sexp::atom("1"))
        .collect();
    right_nest(";", fs).assoc_normal()
}

/// A rewrite's position (path of child positions), direction and rule.
type Annotation = (Vec<usize>, bool, String);

/// Memoised views of a tree explanation.
struct Tree<'t> {
    nodes: &'t [crate::certificate::NodeCert],
    terms: Vec<Option<(Sexp, Sexp)>>,
    anns: Vec<Option<Vec<Annotation>>>,
    checked: Vec<bool>,
}

impl Tree<'_> {
    /// The initial and final terms of a node.
    fn terms(&mut self, id: usize) -> (Sexp, Sexp) {
        if let Some(t) = &self.terms[id] {
            return t.clone();
        }
        let node = &self.nodes[id];
        let result = if node.children.is_empty() {
            let a = Sexp::atom(&node.op);
            (a.clone(), a)
        } else {
            let mut init = vec![Sexp::atom(&node.op)];
            let mut fin = vec![Sexp::atom(&node.op)];
            let children = node.children.clone();
            for seq in &children {
                init.push(self.terms(seq[0]).0);
                fin.push(self.terms(seq[seq.len() - 1]).1);
            }
            (Sexp::List(init), Sexp::List(fin))
        };
        self.terms[id] = Some(result.clone());
        result
    }

    /// The rewrites annotating a node's initial term: its own, and those of
    /// the first node of each child sequence.
    fn anns(&mut self, id: usize) -> Vec<Annotation> {
        if let Some(a) = &self.anns[id] {
            return a.clone();
        }
        let node = &self.nodes[id];
        let mut out = Vec::new();
        if let Some(r) = &node.forward {
            out.push((vec![], true, r.clone()));
        }
        if let Some(r) = &node.backward {
            out.push((vec![], false, r.clone()));
        }
        let firsts: Vec<usize> = node.children.iter().map(|s| s[0]).collect();
        for (c, first) in firsts.into_iter().enumerate() {
            for (mut path, f, r) in self.anns(first) {
                path.insert(0, c + 1);
                out.push((path, f, r));
            }
        }
        self.anns[id] = Some(out.clone());
        out
    }
}

fn at_path<'t>(t: &'t Sexp, path: &[usize]) -> Option<&'t Sexp> {
    match path.split_first() {
        None => Some(t),
        Some((k, rest)) => match t {
            Sexp::List(items) => items.get(*k).and_then(|i| at_path(i, rest)),
            Sexp::Atom(_) => None,
        },
    }
}

/// Whether two terms are equal except at the given position.
fn equal_except(a: &Sexp, b: &Sexp, path: &[usize]) -> bool {
    match path.split_first() {
        None => true,
        Some((k, rest)) => match (a, b) {
            (Sexp::List(xs), Sexp::List(ys)) if xs.len() == ys.len() && *k < xs.len() => {
                xs.iter().zip(ys).enumerate().all(|(n, (x, y))| {
                    if n == *k {
                        equal_except(x, y, rest)
                    } else {
                        x == y
                    }
                })
            }
            _ => false,
        },
    }
}

/// Replays the kernel's decomposition of a left side into summands:
/// depth first, left to right; the first factor that is a sum over threads
/// (or a constant defined as one) is replaced by its body at the next fresh
/// index (or by its definition).
fn spine(
    t: &Sexp,
    unfold: &BTreeMap<String, (String, Sexp)>,
    supply: &mut impl Iterator<Item = String>,
    fresh: &[String],
    unfolded: &[String],
    out: &mut Vec<(Sexp, Vec<String>, Vec<String>)>,
) -> Result<(), String> {
    for s in t.flatten("+") {
        let mut factors = s.flatten(";");
        let pos = factors.iter().position(|f| {
            f.head() == "sum" && f.args().len() == 2
                || matches!(f, Sexp::Atom(a) if unfold.contains_key(a))
        });
        let Some(k) = pos else {
            out.push((s.clone(), fresh.to_vec(), unfolded.to_vec()));
            continue;
        };
        let mut fresh2 = fresh.to_vec();
        let mut unfolded2 = unfolded.to_vec();
        if factors[k].head() == "sum" {
            let f = supply
                .next()
                .ok_or("more sums eliminated than fresh indices recorded")?;
            let b = factors[k].args()[0].head().to_string();
            let m: BTreeMap<String, String> = [(b, leaf(&f))].into_iter().collect();
            factors[k] = factors[k].args()[1].rename_indices(&m);
            fresh2.push(f);
        } else {
            let (lbl, body) = &unfold[factors[k].head()];
            factors[k] = body.clone();
            unfolded2.push(lbl.clone());
        }
        spine(
            &right_nest(";", factors),
            unfold,
            supply,
            &fresh2,
            &unfolded2,
            out,
        )?;
    }
    Ok(())
}

impl Sexp {
    /// Substitution without simplification (rewrites are replayed literally).
    pub(crate) fn subst_plain(&self, s: &BTreeMap<String, Sexp>) -> Sexp {
        match self {
            Sexp::Atom(v) => s.get(v).cloned().unwrap_or_else(|| self.clone()),
            Sexp::List(items) => Sexp::List(items.iter().map(|i| i.subst_plain(s)).collect()),
        }
    }
}
