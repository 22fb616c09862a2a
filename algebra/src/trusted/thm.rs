//! Theorems and the primitive rules: the only way to make a [`Thm`].
//!
//! A theorem `Γ ⊢ φ` holds in every system, whatever its number of threads
//! n (none included: a sum over threads is then 0 and a product 1), for
//! every assignment of its indices ([`Thm::indices`]) to threads and every
//! value of its variables (predicates for `Sort::Pred`) under which its
//! assumptions Γ hold: index disequalities `i != j` and premise formulas.
//! Every rule below maps valid theorems to a valid theorem; the comment on
//! each says why. `a <= b` abbreviates `a + b = b`.
//!
//! A theorem with an index says nothing of a system without threads, which
//! has no thread to assign. So the indices a theorem is quantified over are
//! kept even where its conclusion loses them (the middle of a
//! transitivity, a summand taken at a thread), and a lemma is closed only
//! if its statement mentions every one: `1 <= (+k : 1)`, true in every
//! system with a thread and false in one without, is refused, though
//! `sum_intro` gives it for every thread `t`. Only `sum_least` and
//! rewriting under a binder drop an index, the one they bind.
//!
//! Every rule's result goes through [`Theory::conclude`]: its terms must
//! have at most [`MAX_SIZE`] operators and leaves and nest at most
//! [`MAX_DEPTH`] deep, and the rule is charged the sizes it handled against
//! the theory's work limit. So no derivation, however written, makes the
//! core build a term beyond the bounds or work without end: it is refused
//! with a [`CoreError`] whose `limit` says which bound.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::term::{Ix, Limit, Sort, Subst, Term, matches};

/// `=` or `<=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rel {
    /// `=`
    Eq,
    /// `<=`, that is `lhs + rhs = rhs`.
    Le,
}

/// `lhs rel rhs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formula {
    /// Left side.
    pub lhs: Term,
    /// Relation.
    pub rel: Rel,
    /// Right side.
    pub rhs: Term,
}

impl Formula {
    /// Builds a formula.
    pub fn new(lhs: Term, rel: Rel, rhs: Term) -> Formula {
        Formula { lhs, rel, rhs }
    }
    fn map(&self, f: impl Fn(&Term) -> Term) -> Formula {
        Formula::new(f(&self.lhs), self.rel, f(&self.rhs))
    }
    fn free_ixs(&self, out: &mut BTreeSet<String>) {
        self.lhs.free_ixs(out);
        self.rhs.free_ixs(out);
    }
}

/// `i != j and ... and P and ... => C and ...`: a hypothesis or a lemma.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Index disequalities assumed.
    pub distinct: Vec<(String, String)>,
    /// Formulas assumed.
    pub premises: Vec<Formula>,
    /// What it states.
    pub conclusions: Vec<Formula>,
}

/// A rule refused to apply: which rule, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule `{rule}`: {reason}")]
pub struct CoreError {
    /// The primitive rule.
    pub rule: &'static str,
    /// Why it does not apply.
    pub reason: String,
    /// The bound exceeded, when the rule was refused for that: the
    /// inference may be valid, but the core does not check it.
    pub limit: Option<Limit>,
}

impl CoreError {
    /// The rule does not apply.
    pub fn new(rule: &'static str, reason: impl Into<String>) -> CoreError {
        CoreError {
            rule,
            reason: reason.into(),
            limit: None,
        }
    }
}

/// Returns a [`CoreError`] from the enclosing rule.
macro_rules! bail {
    ($rule:expr, $($msg:tt)*) => {
        return Err(CoreError::new($rule, format!($($msg)*)))
    };
}

type R<T> = Result<T, CoreError>;

/// Terms of theorems nest at most this deep, the terms a rule is given as
/// well as those it derives: every recursive function of the core then
/// stays on the stack.
pub const MAX_DEPTH: usize = 2048;

/// Terms of theorems have at most this many operators and leaves (a shared
/// subterm counted at every occurrence), the terms a rule is given as well
/// as those it derives: a rule that would exceed it (an instance that
/// doubles a term, again and again) is refused before its result is
/// used. No term of the proof of (19) has 200.
pub const MAX_SIZE: usize = 20_000;

/// The default [`Theory::work_limit`]: the operators and leaves that the
/// rules of one theory may visit in all. Checking the proof of (19), or
/// re-checking its certificate, visits about 1.9x10^6.
pub const DEFAULT_WORK_LIMIT: u64 = 100_000_000;

/// A theorem. Its fields are private: only the rules of [`Theory`] make one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thm {
    distinct: BTreeSet<(String, String)>,
    premises: BTreeSet<Formula>,
    concl: Formula,
    hyps: BTreeSet<String>,
    admitted: BTreeSet<String>,
    /// The thread indices it is quantified over (see [`Thm::indices`]).
    ixs: BTreeSet<String>,
    /// The sizes of its conclusion and premises, set by [`Theory::conclude`].
    weight: usize,
}

impl Thm {
    /// What it states.
    pub fn concl(&self) -> &Formula {
        &self.concl
    }
    /// Index disequalities it assumes.
    pub fn distinct(&self) -> &BTreeSet<(String, String)> {
        &self.distinct
    }
    /// Premises it assumes.
    pub fn premises(&self) -> &BTreeSet<Formula> {
        &self.premises
    }
    /// Hypotheses of the theory it rests on.
    pub fn hyps(&self) -> &BTreeSet<String> {
        &self.hyps
    }
    /// Lemmas admitted without proof that it rests on (see [`Theory::admit`]).
    pub fn admitted(&self) -> &BTreeSet<String> {
        &self.admitted
    }
    /// The thread indices it is quantified over: those free in its
    /// conclusion and assumptions, and those that a rule used on the way
    /// (the middle of a transitivity, the thread a summand was taken at).
    /// It holds for every assignment of them to threads, which says
    /// nothing of a system without threads unless there are none.
    pub fn indices(&self) -> &BTreeSet<String> {
        &self.ixs
    }
    fn plain(concl: Formula) -> Thm {
        Thm {
            distinct: BTreeSet::new(),
            premises: BTreeSet::new(),
            concl,
            hyps: BTreeSet::new(),
            admitted: BTreeSet::new(),
            ixs: BTreeSet::new(),
            weight: 0,
        }
    }
    /// The same assumptions and provenance, with another conclusion.
    fn with(&self, concl: Formula) -> Thm {
        let mut t = self.clone();
        t.concl = concl;
        t
    }
    /// The assumptions and provenance of `self` and `o`, with `concl`.
    fn join(&self, o: &Thm, concl: Formula) -> Thm {
        let mut t = self.clone();
        t.concl = concl;
        t.distinct.extend(o.distinct.iter().cloned());
        t.premises.extend(o.premises.iter().cloned());
        t.hyps.extend(o.hyps.iter().cloned());
        t.admitted.extend(o.admitted.iter().cloned());
        t.ixs.extend(o.ixs.iter().cloned());
        t
    }
    fn assumption_ixs(&self) -> BTreeSet<String> {
        let mut s: BTreeSet<String> = self
            .distinct
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        self.premises.iter().for_each(|p| p.free_ixs(&mut s));
        s
    }
    fn eq_sides(&self, rule: &'static str) -> R<(&Term, &Term)> {
        match self.concl.rel {
            Rel::Eq => Ok((&self.concl.lhs, &self.concl.rhs)),
            Rel::Le => bail!(rule, "needs an equation, not `{}`", self.concl),
        }
    }
}

fn rc(t: Term) -> Rc<Term> {
    Rc::new(t)
}
fn eq(l: &Term, r: &Term) -> Formula {
    Formula::new(l.clone(), Rel::Eq, r.clone())
}
fn le(l: &Term, r: &Term) -> Formula {
    Formula::new(l.clone(), Rel::Le, r.clone())
}

/// The indices free in a statement: its conditions, premises and conclusions.
fn statement_ixs(st: &Statement) -> BTreeSet<String> {
    let mut s: BTreeSet<String> = st
        .distinct
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    st.premises
        .iter()
        .chain(&st.conclusions)
        .for_each(|f| f.free_ixs(&mut s));
    s
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// The equational axioms of omega algebra, schematic in `?x`, `?y`, `?z` and
/// the predicate `?a`. The Horn axioms are the rules `star_ind_l`,
/// `star_ind_r` and `omega_ind` below.
#[rustfmt::skip]
fn axiom(name: &str) -> Option<(Term, Term)> {
    let v = |n: &str, s| Term::Var(n.into(), s);
    let (x, y, z, a) = (&v("?x", Sort::Elem), &v("?y", Sort::Elem), &v("?z", Sort::Elem), &v("?a", Sort::Pred));
    let p = |l: &Term, r: &Term| Term::plus(l.clone(), r.clone());
    let q = |l: &Term, r: &Term| Term::seq(l.clone(), r.clone());
    let (star, omega, not) = (|t: &Term| Term::Star(Rc::new(t.clone())), |t: &Term| Term::Omega(Rc::new(t.clone())), Term::Not(Rc::new(a.clone())));
    let (zero, one) = (&Term::Zero, &Term::One);
    Some(match name {
        "add-assoc" =>    (p(&p(x, y), z), p(x, &p(y, z))),
        "add-comm" =>     (p(x, y), p(y, x)),
        "add-idem" =>     (p(x, x), x.clone()),
        "add-zero" =>     (p(zero, x), x.clone()),
        "seq-assoc" =>    (q(x, &q(y, z)), q(&q(x, y), z)),
        "seq-zero-l" =>   (q(zero, x), Term::Zero),
        "seq-zero-r" =>   (q(x, zero), Term::Zero),
        "seq-one-l" =>    (q(one, x), x.clone()),
        "seq-one-r" =>    (q(x, one), x.clone()),
        "dist-l" =>       (q(x, &p(y, z)), p(&q(x, y), &q(x, z))),
        "dist-r" =>       (q(&p(x, y), z), p(&q(x, z), &q(y, z))),
        "star-unfold" =>  (star(x), p(one, &p(x, &q(&star(x), &star(x))))),
        "omega-star" =>   (Term::OStar(Rc::new(x.clone()), Rc::new(y.clone())), p(&omega(x), &q(&star(x), y))),
        "omega-unfold" => (omega(x), q(x, &omega(x))),
        "compl-l" =>      (q(a, &not), Term::Zero),
        "compl-r" =>      (q(&not, a), Term::Zero),
        "compl-sum" =>    (p(a, &not), Term::One),
        _ => return None,
    })
}

/// What a defined name stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefHead {
    /// `c = body`
    Const(String),
    /// `c_i = body`, with its index parameter.
    Family(String, String),
    /// `[x] = body`, with its element parameter.
    Bracket(String),
}

#[derive(Clone, Debug)]
struct Lemma {
    st: Statement,
    hyps: BTreeSet<String>,
    admitted: BTreeSet<String>,
}

/// Declarations, definitions, hypotheses and proved lemmas, and the work
/// its rules have done.
#[derive(Clone, Debug)]
pub struct Theory {
    /// (name, family) to sort.
    atoms: BTreeMap<(String, bool), Sort>,
    /// Defined (name, family), and the labels of definitions.
    defined: BTreeSet<(String, bool)>,
    defs: BTreeMap<String, (DefHead, Term)>,
    bracket: bool,
    hyps: BTreeMap<String, Statement>,
    lemmas: BTreeMap<String, Lemma>,
    /// Operators and leaves visited by the rules so far, and the limit.
    work: Cell<u64>,
    work_limit: u64,
}

impl Default for Theory {
    fn default() -> Theory {
        Theory {
            atoms: BTreeMap::new(),
            defined: BTreeSet::new(),
            defs: BTreeMap::new(),
            bracket: false,
            hyps: BTreeMap::new(),
            lemmas: BTreeMap::new(),
            work: Cell::new(0),
            work_limit: DEFAULT_WORK_LIMIT,
        }
    }
}

impl Theory {
    /// The same theory with another limit on the work of its rules, counted
    /// in operators and leaves visited ([`DEFAULT_WORK_LIMIT`] by default).
    /// A rule that would go past it is refused with [`Limit::Work`], so any
    /// derivation, however long, ends within a bounded time.
    #[must_use = "the limit applies to the theory returned"]
    pub fn with_work_limit(mut self, limit: u64) -> Theory {
        self.work_limit = limit;
        self
    }

    /// The limit on the work of the rules.
    pub fn work_limit(&self) -> u64 {
        self.work_limit
    }

    /// The work done by the rules so far, in operators and leaves visited.
    pub fn work(&self) -> u64 {
        self.work.get()
    }

    /// Counts `units` of work, refusing the rule when the limit is passed.
    fn charge(&self, rule: &'static str, units: usize) -> R<()> {
        let total = self.work.get().saturating_add(units as u64);
        self.work.set(total);
        if total > self.work_limit {
            return Err(CoreError {
                rule,
                reason: format!(
                    "the work limit of {} operators and leaves visited is exhausted",
                    self.work_limit
                ),
                limit: Some(Limit::Work),
            });
        }
        Ok(())
    }

    /// The size of a term within [`MAX_SIZE`] and [`MAX_DEPTH`], charged as
    /// work (the measuring stops at the bound, so it costs at most that).
    fn measure(&self, t: &Term, rule: &'static str) -> R<usize> {
        let bound = |limit, reason: String| {
            Err(CoreError {
                rule,
                reason,
                limit: Some(limit),
            })
        };
        match t.measure(MAX_SIZE, MAX_DEPTH) {
            Ok(n) => {
                self.charge(rule, n)?;
                Ok(n)
            }
            Err(Limit::TermDepth) => {
                self.charge(rule, MAX_SIZE)?;
                bound(
                    Limit::TermDepth,
                    format!("a term nests deeper than {MAX_DEPTH}"),
                )
            }
            Err(l) => {
                self.charge(rule, MAX_SIZE)?;
                bound(
                    l,
                    format!("a term has more than {MAX_SIZE} operators and leaves"),
                )
            }
        }
    }

    /// Every rule's result passes here: each term of its conclusion and
    /// premises must be within the bounds, and the rule is charged their
    /// sizes and those of the theorems it was given.
    fn conclude(&self, rule: &'static str, given: &[&Thm], mut t: Thm) -> R<Thm> {
        let mut weight = 0;
        for f in std::iter::once(&t.concl).chain(&t.premises) {
            weight += self.measure(&f.lhs, rule)? + self.measure(&f.rhs, rule)?;
        }
        self.charge(rule, given.iter().map(|g| g.weight).sum::<usize>() + 1)?;
        t.weight = weight;
        let mut free = t.assumption_ixs();
        t.concl.free_ixs(&mut free);
        t.ixs.extend(free);
        Ok(t)
    }

    /// Declares an atom (`pred q`, `elem u_i`). Names are fresh.
    pub fn declare(&mut self, name: &str, family: bool, sort: Sort) -> R<()> {
        let key = (name.to_string(), family);
        if self.atoms.contains_key(&key) || self.defined.contains(&key) {
            bail!("declare", "`{name}` is already declared or defined");
        }
        self.atoms.insert(key, sort);
        Ok(())
    }

    /// Defines a name by a term over what is already declared or defined,
    /// so definitions are not circular; a constant's body has no free index
    /// or variable, a family's only its parameter, a bracket's only `x`.
    /// Then the definition only names a term: it is conservative.
    pub fn define(&mut self, label: &str, head: DefHead, body: Term) -> R<()> {
        let rule = "define";
        if self.defs.contains_key(label) {
            bail!(rule, "label {label} is already a definition");
        }
        self.wf(&body, rule)?;
        let (mut ixs, mut vars) = (BTreeSet::new(), BTreeSet::new());
        body.free_ixs(&mut ixs);
        body.vars(&mut vars);
        let (ok_ix, ok_var, key) = match &head {
            DefHead::Const(n) => (ixs.is_empty(), vars.is_empty(), Some((n.clone(), false))),
            DefHead::Family(n, p) => (
                ixs.iter().all(|i| i == p),
                vars.is_empty(),
                Some((n.clone(), true)),
            ),
            DefHead::Bracket(x) => (
                ixs.is_empty(),
                vars.iter().all(|(v, s)| v == x && *s == Sort::Elem),
                None,
            ),
        };
        if !ok_ix || !ok_var {
            bail!(
                rule,
                "{label}: the body mentions an index or variable that is not a parameter"
            );
        }
        match key {
            Some(k) if self.atoms.contains_key(&k) || self.defined.contains(&k) => {
                bail!(rule, "{label}: `{}` is already declared or defined", k.0);
            }
            Some(k) => {
                self.defined.insert(k);
            }
            None if self.bracket => bail!(rule, "the bracket is already defined"),
            None => self.bracket = true,
        }
        self.defs.insert(label.to_string(), (head, body));
        Ok(())
    }

    /// Assumes a hypothesis.
    pub fn assume(&mut self, label: &str, st: Statement) -> R<()> {
        if self.hyps.contains_key(label) {
            bail!("assume", "hypothesis {label} is already assumed");
        }
        self.wf_statement(&st, "assume")?;
        self.hyps.insert(label.to_string(), st);
        Ok(())
    }

    /// Declared atoms: ((name, family), sort).
    pub fn atoms(&self) -> &BTreeMap<(String, bool), Sort> {
        &self.atoms
    }
    /// Definitions by label.
    pub fn definitions(&self) -> &BTreeMap<String, (DefHead, Term)> {
        &self.defs
    }
    /// Hypotheses by label.
    pub fn hypotheses(&self) -> &BTreeMap<String, Statement> {
        &self.hyps
    }
    /// A proved (or admitted) lemma: its statement, hypotheses and admitted lemmas.
    pub fn lemma(&self, label: &str) -> Option<(&Statement, &BTreeSet<String>, &BTreeSet<String>)> {
        self.lemmas
            .get(label)
            .map(|l| (&l.st, &l.hyps, &l.admitted))
    }

    fn is_pred_atom(&self, t: &Term) -> bool {
        match t {
            Term::Atom(n, i) => self.atoms.get(&(n.clone(), i.is_some())) == Some(&Sort::Pred),
            Term::Var(_, s) => *s == Sort::Pred,
            _ => false,
        }
    }

    /// A predicate literal: a predicate atom or variable, or its complement.
    pub fn is_literal(&self, t: &Term) -> bool {
        match t {
            Term::Not(a) => self.is_pred_atom(a),
            _ => self.is_pred_atom(t),
        }
    }

    /// Built from predicate literals, `0`, `1`, `+`, `·` and products.
    fn is_pred_term(&self, t: &Term) -> bool {
        match t {
            Term::Zero | Term::One => true,
            Term::Add(a, b) | Term::Seq(a, b) => self.is_pred_term(a) && self.is_pred_term(b),
            Term::Prod(b) => self.is_pred_term(b),
            _ => self.is_literal(t),
        }
    }

    /// Well-formed: closed, atoms declared or defined with the right arity,
    /// `~` only of predicate atoms and variables, products only of predicates.
    pub fn wf(&self, t: &Term, rule: &'static str) -> R<()> {
        // Bounded depth keeps every recursive function below on the stack;
        // bounded size keeps them from unfolding a shared term.
        self.measure(t, rule)?;
        if !t.is_closed() {
            bail!(rule, "`{t}` has a bound index outside its binder");
        }
        let mut bad = None;
        self.wf_go(t, &mut bad);
        match bad {
            Some(why) => bail!(rule, "`{t}` is not well formed: {why}"),
            None => Ok(()),
        }
    }

    fn wf_go(&self, t: &Term, bad: &mut Option<String>) {
        let why = match t {
            Term::Atom(n, i) => {
                let k = (n.clone(), i.is_some());
                (!self.atoms.contains_key(&k) && !self.defined.contains(&k))
                    .then(|| format!("`{n}` is not declared with this arity"))
            }
            Term::Not(a) if !self.is_pred_atom(a) => {
                Some(format!("`~{a}` complements a non-predicate"))
            }
            Term::Prod(b) if !self.is_pred_term(b) => {
                Some("a product of non-predicates".to_string())
            }
            Term::Bracket(_) if !self.bracket => Some("the bracket is not defined".to_string()),
            _ => None,
        };
        if why.is_some() {
            *bad = why;
            return;
        }
        t.children().iter().for_each(|c| self.wf_go(c, bad));
    }

    fn wf_formula(&self, f: &Formula, rule: &'static str) -> R<()> {
        self.wf(&f.lhs, rule)?;
        self.wf(&f.rhs, rule)
    }

    fn wf_statement(&self, st: &Statement, rule: &'static str) -> R<()> {
        st.premises
            .iter()
            .chain(&st.conclusions)
            .try_for_each(|f| self.wf_formula(f, rule))
    }

    // ---------------------------------------------------------------- rules

    /// An equational axiom, with its variables free (hence schematic).
    pub fn axiom(&self, name: &str) -> R<Thm> {
        match axiom(name) {
            Some((l, r)) => self.conclude("axiom", &[], Thm::plain(eq(&l, &r))),
            None => bail!("axiom", "no equational axiom `{name}`"),
        }
    }

    /// Conclusion `k` of a hypothesis; its index conditions become
    /// assumptions. It is quantified over every index of the hypothesis,
    /// even one that conclusion `k` does not mention: the hypothesis holds
    /// for every assignment of them, which is nothing without threads.
    pub fn hyp(&self, label: &str, k: usize) -> R<Thm> {
        let Some(st) = self.hyps.get(label) else {
            bail!("hypothesis", "the theory has no hypothesis {label}");
        };
        let Some(c) = st.conclusions.get(k) else {
            bail!("hypothesis", "{label} has no conclusion {}", k + 1);
        };
        let mut t = Thm::plain(c.clone());
        t.distinct = st.distinct.iter().map(|(a, b)| pair(a, b)).collect();
        t.premises = st.premises.iter().cloned().collect();
        t.hyps.insert(label.to_string());
        t.ixs = statement_ixs(st);
        self.conclude("hypothesis", &[], t)
    }

    /// A definition as an equation `name = body`, over the family's index
    /// or the bracket's variable.
    pub fn def(&self, label: &str) -> R<Thm> {
        let Some((head, body)) = self.defs.get(label) else {
            bail!("definition", "the theory has no definition {label}");
        };
        let lhs = match head {
            DefHead::Const(n) => Term::Atom(n.clone(), None),
            DefHead::Family(n, p) => Term::Atom(n.clone(), Some(Ix::Free(p.clone()))),
            DefHead::Bracket(x) => Term::Bracket(Rc::new(Term::Var(x.clone(), Sort::Elem))),
        };
        self.conclude("definition", &[], Thm::plain(eq(&lhs, body)))
    }

    /// A proved lemma, with its conditions and premises as assumptions
    /// (discharge them with [`Theory::cut`]).
    pub fn lemma_thm(&self, label: &str) -> R<Thm> {
        let Some(l) = self.lemmas.get(label) else {
            bail!("lemma", "no proved lemma {label}");
        };
        let mut t = Thm::plain(l.st.conclusions[0].clone());
        t.distinct = l.st.distinct.iter().map(|(a, b)| pair(a, b)).collect();
        t.premises = l.st.premises.iter().cloned().collect();
        t.hyps = l.hyps.clone();
        t.admitted = l.admitted.clone();
        self.conclude("lemma", &[], t)
    }

    /// `{f} ⊢ f`: a premise of the lemma being proved.
    pub fn assume_premise(&self, f: Formula) -> R<Thm> {
        self.wf_formula(&f, "premise")?;
        let mut t = Thm::plain(f.clone());
        t.premises.insert(f);
        self.conclude("premise", &[], t)
    }

    /// Instantiates variables (a predicate variable only by a predicate
    /// literal) and renames free indices, in the conclusion and the
    /// assumptions alike. Sound: the theorem holds for all values.
    pub fn inst(&self, th: &Thm, s: &Subst) -> R<Thm> {
        self.check_subst(th, s, "instance")?;
        let t = self.apply(th, s, th.concl.map(|t| t.subst(&s.vars, &s.ixs)));
        self.conclude("instance", &[th], t)
    }

    fn check_subst(&self, th: &Thm, s: &Subst, rule: &'static str) -> R<()> {
        let mut vars = BTreeSet::new();
        th.concl.lhs.vars(&mut vars);
        th.concl.rhs.vars(&mut vars);
        th.premises.iter().for_each(|p| {
            p.lhs.vars(&mut vars);
            p.rhs.vars(&mut vars)
        });
        for (v, t) in &s.vars {
            self.wf(t, rule)?;
            for (_, sort) in vars.iter().filter(|(n, _)| n == v) {
                if *sort == Sort::Pred && !self.is_literal(t) {
                    bail!(
                        rule,
                        "`{v}` is a predicate variable and `{t}` is not a predicate literal"
                    );
                }
            }
        }
        Ok(())
    }

    fn apply(&self, th: &Thm, s: &Subst, concl: Formula) -> Thm {
        let ix = |i: &String| s.ixs.get(i).cloned().unwrap_or_else(|| i.clone());
        let mut t = th.clone();
        t.concl = concl;
        t.distinct = th
            .distinct
            .iter()
            .map(|(a, b)| pair(&ix(a), &ix(b)))
            .collect();
        t.premises = th
            .premises
            .iter()
            .map(|p| p.map(|x| x.subst(&s.vars, &s.ixs)))
            .collect();
        t.ixs = th.ixs.iter().map(ix).collect();
        t
    }

    /// Discharges the premise `p.concl` of `th` by the theorem `p`.
    pub fn cut(&self, th: &Thm, p: &Thm) -> R<Thm> {
        if !th.premises.contains(&p.concl) {
            bail!("cut", "`{}` is not a premise of `{}`", p.concl, th.concl);
        }
        let mut t = th.join(p, th.concl.clone());
        t.premises = th
            .premises
            .iter()
            .filter(|q| **q != p.concl)
            .cloned()
            .collect();
        t.premises.extend(p.premises.iter().cloned());
        self.conclude("cut", &[th, p], t)
    }

    /// `⊢ a = b` when `a` and `b` are equal modulo associativity,
    /// commutativity and idempotence of `+` with unit 0 and associativity of
    /// `·` with unit 1: each of these is an equational axiom, applied under
    /// congruence.
    pub fn aci(&self, a: &Term, b: &Term) -> R<Thm> {
        self.wf(a, "aci")?;
        self.wf(b, "aci")?;
        if a.aci_normal() != b.aci_normal() {
            bail!(
                "aci",
                "`{a}` and `{b}` differ beyond associativity, commutativity and units"
            );
        }
        self.conclude("aci", &[], Thm::plain(eq(a, b)))
    }

    /// Symmetry of `=`.
    pub fn sym(&self, th: &Thm) -> R<Thm> {
        let (a, b) = th.eq_sides("sym")?;
        self.conclude("sym", &[th], th.with(eq(b, a)))
    }

    /// Transitivity of `=`.
    pub fn trans(&self, x: &Thm, y: &Thm) -> R<Thm> {
        let (a, b) = x.eq_sides("trans")?;
        let (b2, c) = y.eq_sides("trans")?;
        if b != b2 {
            bail!("trans", "`{b}` is not `{b2}`");
        }
        let t = x.join(y, Formula::new(a.clone(), Rel::Eq, c.clone()));
        self.conclude("trans", &[x, y], t)
    }

    /// Rewrites `t` at `path` (child positions) with an instance of the
    /// equation `rule: l = r`, found by matching `l` there (instantiating
    /// its schematic variables and indices): `⊢ t = t'`.
    /// Congruence: every operator is a function of its children. Under a
    /// sum or product the body is opened at a fresh index `k`; the result
    /// holds for every k, so for the whole binder, provided the instance's
    /// assumptions do not mention k (then they would not hold for every k).
    pub fn rewrite(&self, rule: &Thm, t: &Term, path: &[usize]) -> R<Thm> {
        const RULE: &str = "rewrite";
        self.wf(t, RULE)?;
        // Each binder on the path opens and closes the term below it.
        let size = t.measure(MAX_SIZE, MAX_DEPTH).unwrap_or(MAX_SIZE);
        self.charge(RULE, size.saturating_mul(path.len()))?;
        let (l, r) = rule.eq_sides(RULE)?;
        let mut avoid = rule.assumption_ixs();
        rule.concl.free_ixs(&mut avoid);
        avoid.extend(rule.ixs.iter().cloned());
        t.free_ixs(&mut avoid);
        let mut fresh = Vec::new();
        let (new, inst) = self.rewrite_at(l, r, rule, t, path, &mut avoid, &mut fresh)?;
        self.wf(&new, RULE)?;
        let bad: Vec<&String> = fresh
            .iter()
            .filter(|k| inst.assumption_ixs().contains(*k))
            .collect();
        if let Some(k) = bad.first() {
            bail!(
                RULE,
                "under a binder, the instance of `{}` assumes something of the bound index (opened as {k})",
                rule.concl
            );
        }
        // The instance holds at every k, so the rewrite under the binder
        // holds; without threads the binder is empty on both sides.
        let mut out = inst.with(eq(t, &new));
        fresh.iter().for_each(|k| {
            out.ixs.remove(k);
        });
        self.conclude(RULE, &[rule], out)
    }

    #[allow(clippy::too_many_arguments)]
    fn rewrite_at(
        &self,
        l: &Term,
        r: &Term,
        rule: &Thm,
        t: &Term,
        path: &[usize],
        avoid: &mut BTreeSet<String>,
        fresh: &mut Vec<String>,
    ) -> R<(Term, Thm)> {
        let Some((&k, rest)) = path.split_first() else {
            let mut s = Subst::default();
            if !matches(l, t, &mut s) {
                bail!("rewrite", "`{l}` does not match `{t}`");
            }
            self.check_subst(rule, &s, "rewrite")?;
            let new = r.subst(&s.vars, &s.ixs);
            let inst = self.apply(rule, &s, Formula::new(t.clone(), Rel::Eq, new.clone()));
            return Ok((new, inst));
        };
        if matches!(t, Term::Not(_)) {
            // `~` is not monotone, and its argument must stay an atom.
            bail!("rewrite", "no rewriting inside `{t}`");
        }
        let children = t.children();
        let Some(child) = children.get(k) else {
            bail!("rewrite", "`{t}` has no child {k}");
        };
        let (new_child, inst) = if t.is_binder() {
            let name = (0..)
                .map(|n| format!("'b{n}"))
                .find(|c| !avoid.contains(c))
                .unwrap_or_default();
            avoid.insert(name.clone());
            fresh.push(name.clone());
            let (body, inst) =
                self.rewrite_at(l, r, rule, &Term::open(child, &name), rest, avoid, fresh)?;
            (Term::close(&body, &name), inst)
        } else {
            self.rewrite_at(l, r, rule, child, rest, avoid, fresh)?
        };
        let mut c: Vec<Rc<Term>> = children.into_iter().cloned().collect();
        c[k] = Rc::new(new_child);
        Ok((t.with_children(c), inst))
    }

    /// `a + b = b` gives `a <= b` (the definition of `<=`).
    pub fn le_fold(&self, th: &Thm) -> R<Thm> {
        let (s, b) = th.eq_sides("le-fold")?;
        match s {
            Term::Add(a, b2) if **b2 == *b => self.conclude("le-fold", &[th], th.with(le(a, b))),
            _ => bail!("le-fold", "`{}` is not of the form `a + b = b`", th.concl),
        }
    }

    /// `a <= b` gives `a + b = b` (the definition of `<=`).
    pub fn le_unfold(&self, th: &Thm) -> R<Thm> {
        let c = &th.concl;
        if c.rel != Rel::Le {
            bail!("le-unfold", "`{c}` is not an inequation");
        }
        let t = th.with(eq(&Term::plus(c.lhs.clone(), c.rhs.clone()), &c.rhs));
        self.conclude("le-unfold", &[th], t)
    }

    /// Star induction (left): `x y <= y` gives `x* y = y`.
    pub fn star_ind_l(&self, th: &Thm) -> R<Thm> {
        match (&th.concl.lhs, th.concl.rel) {
            (Term::Seq(x, y), Rel::Le) if **y == th.concl.rhs => {
                let t = th.with(eq(&Term::Seq(rc(Term::Star(x.clone())), y.clone()), y));
                self.conclude("star-ind-l", &[th], t)
            }
            _ => bail!("star-ind-l", "`{}` is not of the form `x y <= y`", th.concl),
        }
    }

    /// Star induction (right): `x y <= x` gives `x y* = x`.
    pub fn star_ind_r(&self, th: &Thm) -> R<Thm> {
        match (&th.concl.lhs, th.concl.rel) {
            (Term::Seq(x, y), Rel::Le) if **x == th.concl.rhs => {
                let t = th.with(eq(&Term::Seq(x.clone(), rc(Term::Star(y.clone()))), x));
                self.conclude("star-ind-r", &[th], t)
            }
            _ => bail!("star-ind-r", "`{}` is not of the form `x y <= x`", th.concl),
        }
    }

    /// Omega induction: `x <= y x + z` gives `x <= y <w> z`.
    pub fn omega_ind(&self, th: &Thm) -> R<Thm> {
        let c = &th.concl;
        if let (Rel::Le, Term::Add(yx, z)) = (c.rel, &c.rhs)
            && let Term::Seq(y, x) = &**yx
            && **x == c.lhs
        {
            let t = th.with(le(&c.lhs, &Term::OStar(y.clone(), z.clone())));
            return self.conclude("omega-ind", &[th], t);
        }
        bail!("omega-ind", "`{c}` is not of the form `x <= y x + z`")
    }

    /// Case split on indices `i`, `j`: from `φ[j := i]` (the case i = j) and
    /// `φ` under `i != j`, `φ`. Every assignment has i = j or i != j.
    pub fn cases(&self, i: &str, j: &str, same: &Thm, differ: &Thm) -> R<Thm> {
        let m: BTreeMap<String, String> = [(j.to_string(), i.to_string())].into();
        let want = differ.concl.map(|t| t.subst(&BTreeMap::new(), &m));
        if i == j || same.concl != want {
            bail!(
                "cases",
                "the case {i} = {j} proves `{}`, not `{want}`",
                same.concl
            );
        }
        let mut t = same.join(differ, differ.concl.clone());
        t.distinct = same.distinct.clone();
        let ij = pair(i, j);
        t.distinct
            .extend(differ.distinct.iter().filter(|p| **p != ij).cloned());
        self.conclude("cases", &[same, differ], t)
    }

    fn binder_body<'t>(&self, t: &'t Term, sum: bool, rule: &'static str) -> R<&'t Term> {
        self.wf(t, rule)?;
        match (t, sum) {
            (Term::Sum(b), true) | (Term::Prod(b), false) => Ok(b),
            _ => bail!(
                rule,
                "`{t}` is not a {}",
                if sum { "sum" } else { "product" }
            ),
        }
    }

    /// `f(t) <= (+k : f(k))`: a summand is below the (finite) sum. It is
    /// quantified over `t` even when `f` does not mention it: `1 <= (+k :
    /// 1)` holds for every thread `t`, and a system without threads has
    /// none (its sum is 0).
    pub fn sum_intro(&self, sum: &Term, at: &str) -> R<Thm> {
        let b = self.binder_body(sum, true, "sum-intro")?;
        let mut t = Thm::plain(le(&Term::open(b, at), sum));
        t.ixs.insert(at.to_string());
        self.conclude("sum-intro", &[], t)
    }

    /// From `f(k) <= b` for a fresh `k` (not in b, not assumed anything of),
    /// `(+k : f(k)) <= b`: the sum is the least upper bound of its summands.
    pub fn sum_least(&self, th: &Thm, k: &str) -> R<Thm> {
        let mut used = th.assumption_ixs();
        th.concl.rhs.free_ixs(&mut used);
        if th.concl.rel != Rel::Le || used.contains(k) {
            bail!(
                "sum-least",
                "`{}`: not `f({k}) <= b` with {k} fresh",
                th.concl
            );
        }
        let sum = Term::Sum(rc(Term::close(&th.concl.lhs, k)));
        // Without threads the sum is 0, below anything.
        let mut t = th.with(le(&sum, &th.concl.rhs));
        t.ixs.remove(k);
        self.conclude("sum-least", &[th], t)
    }

    /// `c (+k : f(k)) = (+k : c f(k))` when `left`, else `(+k : f(k)) c =
    /// (+k : f(k) c)`: finite distributivity (c is closed, so it does not
    /// depend on k).
    pub fn sum_dist(&self, c: &Term, sum: &Term, left: bool) -> R<Thm> {
        self.wf(c, "sum-dist")?;
        let b = self.binder_body(sum, true, "sum-dist")?;
        let (c, s, b) = (c.clone(), sum.clone(), b.clone());
        let t = Thm::plain(match left {
            true => eq(&Term::seq(c.clone(), s), &Term::Sum(rc(Term::seq(c, b)))),
            false => eq(&Term::seq(s, c.clone()), &Term::Sum(rc(Term::seq(b, c)))),
        });
        self.conclude("sum-dist", &[], t)
    }

    /// `(.k : f(k)) <= f(t)`: predicates are below 1 and commute, so a
    /// product of predicates is below each factor. It is quantified over
    /// `t` even when `f` does not mention it: `(.k : 0) <= 0` holds for
    /// every thread `t`, and a system without threads has none (its
    /// product is 1).
    pub fn prod_elim(&self, prod: &Term, at: &str) -> R<Thm> {
        let b = self.binder_body(prod, false, "prod-elim")?;
        let mut t = Thm::plain(le(prod, &Term::open(b, at)));
        t.ixs.insert(at.to_string());
        self.conclude("prod-elim", &[], t)
    }

    /// `(.k : f(k)) <= 1`: a product of predicates is a predicate.
    pub fn prod_test(&self, prod: &Term) -> R<Thm> {
        self.binder_body(prod, false, "prod-test")?;
        self.conclude("prod-test", &[], Thm::plain(le(prod, &Term::One)))
    }

    // --------------------------------------------------------------- lemmas

    /// Records a lemma proved by `th`: `th` must state its conclusion and
    /// assume no more than its conditions and premises.
    pub fn close_lemma(&mut self, label: &str, st: Statement, th: &Thm) -> R<()> {
        const RULE: &str = "lemma";
        if self.lemmas.contains_key(label) {
            bail!(RULE, "lemma {label} is already proved");
        }
        self.wf_statement(&st, RULE)?;
        let [c] = st.conclusions.as_slice() else {
            bail!(RULE, "lemma {label} must state exactly one formula");
        };
        if th.concl != *c {
            bail!(RULE, "the proof of {label} shows `{}`, not `{c}`", th.concl);
        }
        let allowed: BTreeSet<(String, String)> =
            st.distinct.iter().map(|(a, b)| pair(a, b)).collect();
        if let Some((a, b)) = th.distinct.iter().find(|p| !allowed.contains(*p)) {
            bail!(
                RULE,
                "the proof of {label} assumes {a} != {b}, which the lemma does not"
            );
        }
        if let Some(p) = th.premises.iter().find(|p| !st.premises.contains(p)) {
            bail!(
                RULE,
                "the proof of {label} assumes `{p}`, which is not a premise"
            );
        }
        let own = statement_ixs(&st);
        if let Some(k) = th.ixs.iter().find(|k| !own.contains(*k)) {
            bail!(
                RULE,
                "the proof of {label} holds for every thread {k}, which the lemma does not mention: it says nothing of a system without threads"
            );
        }
        let (hyps, admitted) = (th.hyps.clone(), th.admitted.clone());
        self.lemmas
            .insert(label.to_string(), Lemma { st, hyps, admitted });
        Ok(())
    }

    /// Records a lemma without proof, so that the checker can go on after a
    /// failure; every theorem that uses it lists it in [`Thm::admitted`].
    pub fn admit(&mut self, label: &str, st: Statement) -> R<()> {
        self.wf_statement(&st, "admit")?;
        if st.conclusions.len() != 1 || self.lemmas.contains_key(label) {
            bail!("admit", "lemma {label}: one conclusion, not yet proved");
        }
        let (hyps, admitted) = (BTreeSet::new(), [label.to_string()].into());
        self.lemmas
            .insert(label.into(), Lemma { st, hyps, admitted });
        Ok(())
    }
}
