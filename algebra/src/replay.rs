//! Replays what the prover found as primitive rules of the trusted core,
//! recording the proof terms. Derived rules (transitivity of `<=`,
//! monotonicity, joins, antisymmetry, sum elimination) are expanded here
//! into primitive ones. Untrusted: it only calls the core through
//! [`Builder::add`], so whatever it gets wrong is refused there.

use std::collections::HashMap;

use crate::bridge::{self, Sorts};
use crate::facts::{Fact, Source};
use crate::proof::{GoalProof, How, Part};
use crate::proofterm::{Builder, Node, T};
use std::rc::Rc;

use egg::TreeTerm;

use crate::lang::Op;
use crate::script::{Definition, Script, SourceKind};
use crate::term::{Rel as KRel, Term as K};
use crate::trusted::{CoreError, Formula, Term};

/// Why a replay failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ReplayError {
    /// The core refused a rule.
    #[error("the core refuses it: {0}")]
    Core(#[from] CoreError),
    /// The proof object does not fit together.
    #[error("the proof does not replay: {0}")]
    Mismatch(String),
}

type R<T> = Result<T, ReplayError>;

fn mismatch<T>(m: impl Into<String>) -> R<T> {
    Err(ReplayError::Mismatch(m.into()))
}

/// `p (x s)`, leaving out an absent context.
pub(crate) fn wrap(p: Option<&Term>, x: Term, s: Option<&Term>) -> Term {
    let xs = match s {
        Some(s) => Term::seq(x, s.clone()),
        None => x,
    };
    match p {
        Some(p) => Term::seq(p.clone(), xs),
        None => xs,
    }
}

/// The path to `x` in [`wrap`].
fn wrap_path(p: Option<&Term>, s: Option<&Term>) -> Vec<usize> {
    let mut path = Vec::new();
    if p.is_some() {
        path.push(1);
    }
    if s.is_some() {
        path.push(0);
    }
    path
}

fn seq_of(ts: Vec<Term>) -> Option<Term> {
    let mut it = ts.into_iter().rev();
    let last = it.next()?;
    Some(it.fold(last, |acc, t| Term::seq(t, acc)))
}

/// Derived rules over a builder.
pub(crate) struct Derive<'b, 't> {
    pub b: &'b mut Builder<'t>,
}

impl Derive<'_, '_> {
    pub fn add(&mut self, n: Node) -> R<usize> {
        Ok(self.b.add(n)?)
    }

    fn lhs(&self, k: usize) -> Term {
        self.b.concl(k).lhs.clone()
    }
    fn rhs(&self, k: usize) -> Term {
        self.b.concl(k).rhs.clone()
    }

    pub fn axiom(&mut self, name: &str) -> R<usize> {
        self.add(Node::Axiom(name.into()))
    }

    pub fn chain(&mut self, start: Term, steps: Vec<(usize, Vec<usize>)>) -> R<usize> {
        self.add(Node::Chain {
            start: T(start),
            steps,
        })
    }

    pub fn trans(&mut self, a: usize, b: usize) -> R<usize> {
        self.add(Node::Trans(a, b))
    }

    /// `a = b` from a proof of `a2 = b2` and ACI-equal sides.
    pub fn eq_conv(&mut self, n: usize, a: &Term, b: &Term) -> R<usize> {
        let mut k = n;
        if self.lhs(k) != *a {
            let c = self.add(Node::Aci(T(a.clone()), T(self.lhs(k))))?;
            k = self.trans(c, k)?;
        }
        if self.rhs(k) != *b {
            let c = self.add(Node::Aci(T(self.rhs(k)), T(b.clone())))?;
            k = self.trans(k, c)?;
        }
        Ok(k)
    }

    /// `a <= b` from a proof of `a2 <= b2` and ACI-equal sides.
    pub fn le_conv(&mut self, n: usize, a: &Term, b: &Term) -> R<usize> {
        if self.lhs(n) == *a && self.rhs(n) == *b {
            return Ok(n);
        }
        let u = self.add(Node::LeUnfold(n))?;
        let start = Term::plus(a.clone(), b.clone());
        let e = self.eq_conv(u, &start, b)?;
        self.add(Node::LeFold(e))
    }

    /// `a <= c` from `a <= b` and `b <= c`.
    pub fn le_trans(&mut self, ab: usize, bc: usize) -> R<usize> {
        let (a, c) = (self.lhs(ab), self.rhs(bc));
        let ub = self.add(Node::LeUnfold(ab))?;
        let uc = self.add(Node::LeUnfold(bc))?;
        let suc = self.add(Node::Sym(uc))?;
        let assoc = self.axiom("add-assoc")?;
        let sassoc = self.add(Node::Sym(assoc))?;
        // a + c = a + (b + c) = (a + b) + c = b + c = c
        let e = self.chain(
            Term::plus(a, c),
            vec![
                (suc, vec![1]),
                (sassoc, vec![]),
                (ub, vec![0]),
                (uc, vec![]),
            ],
        )?;
        self.add(Node::LeFold(e))
    }

    /// `a <= b` from `a = b`.
    pub fn eq_le(&mut self, ab: usize) -> R<usize> {
        let (a, b) = (self.lhs(ab), self.rhs(ab));
        let idem = self.axiom("add-idem")?;
        let e = self.chain(Term::plus(a, b), vec![(ab, vec![0]), (idem, vec![])])?;
        self.add(Node::LeFold(e))
    }

    /// `a <= b` from `a = a2` and `a2 <= b`.
    pub fn le_via_eq(&mut self, eq: usize, le: usize) -> R<usize> {
        let (a, b) = (self.lhs(eq), self.rhs(le));
        let u = self.add(Node::LeUnfold(le))?;
        let e = self.chain(Term::plus(a, b), vec![(eq, vec![0]), (u, vec![])])?;
        self.add(Node::LeFold(e))
    }

    /// `a <= b` from `a <= b2` and `b = b2`.
    pub fn le_rhs_via_eq(&mut self, le: usize, eq: usize) -> R<usize> {
        let (a, b) = (self.lhs(le), self.lhs(eq));
        let u = self.add(Node::LeUnfold(le))?;
        let back = self.add(Node::Sym(eq))?;
        // a + b = a + b2 = b2 = b
        let e = self.chain(
            Term::plus(a, b),
            vec![(eq, vec![1]), (u, vec![]), (back, vec![])],
        )?;
        self.add(Node::LeFold(e))
    }

    /// `p x s <= p y s` from `x <= y` (monotonicity of `·`, by distributivity).
    pub fn mono(&mut self, xy: usize, p: Option<&Term>, s: Option<&Term>) -> R<usize> {
        if p.is_none() && s.is_none() {
            return Ok(xy);
        }
        let (x, y) = (self.lhs(xy), self.rhs(xy));
        let u = self.add(Node::LeUnfold(xy))?;
        let mid = wrap_path(p, s);
        let start = wrap(p, Term::plus(x, y.clone()), s);
        // p (x + y) s = p y s
        let collapse = self.chain(start.clone(), vec![(u, mid)])?;
        // p (x + y) s = p x s + p y s
        let mut steps = Vec::new();
        if s.is_some() {
            let d = self.axiom("dist-r")?;
            steps.push((d, if p.is_some() { vec![1] } else { vec![] }));
        }
        if p.is_some() {
            let d = self.axiom("dist-l")?;
            steps.push((d, vec![]));
        }
        let spread = self.chain(start, steps)?;
        let back = self.add(Node::Sym(spread))?;
        let e = self.trans(back, collapse)?;
        self.add(Node::LeFold(e))
    }

    /// `a + b <= c` from `a <= c` and `b <= c`.
    pub fn le_join(&mut self, ac: usize, bc: usize) -> R<usize> {
        let (a, b, c) = (self.lhs(ac), self.lhs(bc), self.rhs(ac));
        let ua = self.add(Node::LeUnfold(ac))?;
        let ub = self.add(Node::LeUnfold(bc))?;
        let assoc = self.axiom("add-assoc")?;
        // (a + b) + c = a + (b + c) = a + c = c
        let e = self.chain(
            Term::plus(Term::plus(a, b), c),
            vec![(assoc, vec![]), (ub, vec![1]), (ua, vec![])],
        )?;
        self.add(Node::LeFold(e))
    }

    /// `a = b` from `a <= b` and `b <= a`.
    pub fn antisym(&mut self, ab: usize, ba: usize) -> R<usize> {
        let a = self.lhs(ab);
        let ua = self.add(Node::LeUnfold(ab))?;
        let ub = self.add(Node::LeUnfold(ba))?;
        let sb = self.add(Node::Sym(ub))?;
        let comm = self.axiom("add-comm")?;
        // a = b + a = a + b = b
        self.chain(a, vec![(sb, vec![]), (comm, vec![]), (ua, vec![])])
    }
}

/// Replays proof objects of one step.
pub(crate) struct Replay<'b, 't> {
    pub d: Derive<'b, 't>,
    pub sorts: &'b Sorts,
    pub script: &'b Script,
    proved: HashMap<*const GoalProof, usize>,
    facts: HashMap<*const Fact, usize>,
    /// Per explanation tree node: its initial and final terms, and the
    /// node proving one equal to the other (None when they are the same).
    trees: HashMap<*const TreeTerm<Op>, (Term, Term, Option<usize>)>,
    /// The rules of the saturation being replayed, by (name, forward).
    rules: HashMap<(String, bool), usize>,
}

impl<'b, 't> Replay<'b, 't> {
    pub fn new(b: &'b mut Builder<'t>, sorts: &'b Sorts, script: &'b Script) -> Self {
        Replay {
            d: Derive { b },
            sorts,
            script,
            proved: HashMap::new(),
            facts: HashMap::new(),
            trees: HashMap::new(),
            rules: HashMap::new(),
        }
    }

    fn core(&self, t: &K) -> Term {
        bridge::term(t, self.sorts)
    }

    fn check(&self, n: usize, want: &Formula, what: &str) -> R<usize> {
        let got = self.d.b.concl(n);
        if got != want {
            return mismatch(format!("{what} replays as `{got}`, not `{want}`"));
        }
        Ok(n)
    }

    /// A node proving the goal of `p`.
    pub fn goal(&mut self, p: &GoalProof) -> R<usize> {
        if let Some(&n) = self.proved.get(&(p as *const GoalProof)) {
            return Ok(n);
        }
        let (l, r) = (self.core(&p.goal.lhs), self.core(&p.goal.rhs));
        let le = p.goal.rel == KRel::Le;
        let n = match &p.how {
            How::Identical if le => {
                let e = self
                    .d
                    .add(Node::Aci(T(Term::plus(l.clone(), r.clone())), T(r.clone())))?;
                self.d.add(Node::LeFold(e))?
            }
            How::Identical => self.d.add(Node::Aci(T(l.clone()), T(r.clone())))?,
            How::Saturation {
                lhs,
                rhs,
                facts,
                sequence,
                ..
            } => {
                let Some(seq) = sequence else {
                    return mismatch("a saturation without its rewrites");
                };
                let e = self.saturation(&self.core(lhs), &self.core(rhs), facts, &seq.0)?;
                if le { self.d.add(Node::LeFold(e))? } else { e }
            }
            How::Context {
                prefix,
                suffix,
                inner,
            } => {
                let i = self.goal(inner)?;
                let cp = seq_of(prefix.iter().map(|t| self.core(t)).collect());
                let cs = seq_of(suffix.iter().map(|t| self.core(t)).collect());
                if le {
                    let m = self.d.mono(i, cp.as_ref(), cs.as_ref())?;
                    self.d.le_conv(m, &l, &r)?
                } else {
                    let start = wrap(cp.as_ref(), self.d.lhs(i), cs.as_ref());
                    let e = self
                        .d
                        .chain(start, vec![(i, wrap_path(cp.as_ref(), cs.as_ref()))])?;
                    self.d.eq_conv(e, &l, &r)?
                }
            }
            How::Antisymmetry(a, b) => {
                let (na, nb) = (self.goal(a)?, self.goal(b)?);
                let e = self.d.antisym(na, nb)?;
                self.d.eq_conv(e, &l, &r)?
            }
            How::Factors(ps) => {
                let nodes: Vec<usize> = ps.iter().map(|q| self.goal(q)).collect::<R<_>>()?;
                let n = self.factors(&nodes, le)?;
                if le {
                    self.d.le_conv(n, &l, &r)?
                } else {
                    self.d.eq_conv(n, &l, &r)?
                }
            }
            How::Split { parts } => {
                let mut cursor = 0;
                let n = self.split(&p.goal.lhs, &r, parts, &mut cursor, &mut Vec::new())?;
                if cursor != parts.len() {
                    return mismatch("the split has parts that are not summands of the left side");
                }
                self.d.le_conv(n, &l, &r)?
            }
        };
        let want = Formula::new(l, bridge::rel(p.goal.rel), r);
        let n = self.check(n, &want, "the goal")?;
        self.proved.insert(p as *const GoalProof, n);
        Ok(n)
    }

    /// `a_1 ... a_n rel b_1 ... b_n` from the factor proofs (right-nested).
    fn factors(&mut self, nodes: &[usize], le: bool) -> R<usize> {
        let lf: Vec<Term> = nodes.iter().map(|&n| self.d.lhs(n)).collect();
        let rf: Vec<Term> = nodes.iter().map(|&n| self.d.rhs(n)).collect();
        let k = nodes.len();
        let path = |i: usize| {
            let mut p = vec![1; i];
            if i + 1 < k {
                p.push(0);
            }
            p
        };
        if !le {
            let start = seq_of(lf).ok_or(ReplayError::Mismatch("no factors".into()))?;
            let steps = nodes
                .iter()
                .enumerate()
                .map(|(i, &n)| (n, path(i)))
                .collect();
            return self.d.chain(start, steps);
        }
        // b_1 .. b_(i-1) a_i a_(i+1) .. <= b_1 .. b_i a_(i+1) .., each side
        // right-nested, so that consecutive steps meet exactly.
        let mut acc: Option<usize> = None;
        for (i, &n) in nodes.iter().enumerate() {
            let p = seq_of(rf[..i].to_vec());
            let s = seq_of(lf[i + 1..].to_vec());
            let m = self.d.mono(n, p.as_ref(), s.as_ref())?;
            let mix = |mid: &[Term], rest: &[Term]| seq_of([&rf[..i], mid, rest].concat());
            let (a, b) = (
                mix(&lf[i..i + 1], &lf[i + 1..]),
                mix(&rf[i..i + 1], &lf[i + 1..]),
            );
            let m = match (a, b) {
                (Some(a), Some(b)) => self.d.le_conv(m, &a, &b)?,
                _ => m,
            };
            acc = Some(match acc {
                None => m,
                Some(a) => self.d.le_trans(a, m)?,
            });
        }
        acc.ok_or(ReplayError::Mismatch("no factors".into()))
    }

    /// `t <= b`, following the prover's decomposition of `t` into summands
    /// with sums over threads eliminated (depth first, left to right).
    fn split(
        &mut self,
        t: &K,
        b: &Term,
        parts: &[Part],
        cursor: &mut usize,
        fresh: &mut Vec<String>,
    ) -> R<usize> {
        let mut nodes = Vec::new();
        for s in t.summands() {
            nodes.push(self.split_summand(&s, b, parts, cursor, fresh)?);
        }
        let mut acc = nodes
            .pop()
            .ok_or(ReplayError::Mismatch("no summands".into()))?;
        while let Some(n) = nodes.pop() {
            acc = self.d.le_join(n, acc)?;
        }
        let ct = self.core(t);
        self.d.le_conv(acc, &ct, b)
    }

    fn split_summand(
        &mut self,
        s: &K,
        b: &Term,
        parts: &[Part],
        cursor: &mut usize,
        fresh: &mut Vec<String>,
    ) -> R<usize> {
        let mut factors = s.factors();
        let sum_defs: Vec<&Definition> = parts
            .iter()
            .flat_map(|p| p.unfolded.iter())
            .filter_map(|lbl| self.script.definitions().find(|d| &d.label == lbl))
            .collect();
        let pos = factors.iter().position(|f| match f {
            K::Sum(..) => true,
            K::Const(at) if at.index.is_none() => {
                sum_defs.iter().any(|d| d.name() == Some(at.name.as_str()))
            }
            _ => false,
        });
        let Some(k) = pos else {
            let Some(part) = parts.get(*cursor) else {
                return mismatch("more summands than parts");
            };
            *cursor += 1;
            if part.summand != s.canon() || part.fresh != *fresh {
                return mismatch(format!("part `{}` is not the summand `{s}`", part.summand));
            }
            return self.goal(&part.proof);
        };
        let cf: Vec<Term> = factors.iter().map(|f| self.core(f)).collect();
        let (c, d) = (seq_of(cf[..k].to_vec()), seq_of(cf[k + 1..].to_vec()));
        let whole = wrap(c.as_ref(), cf[k].clone(), d.as_ref());
        match factors[k].clone() {
            K::Sum(bk, body) => {
                let Some(f) = parts
                    .get(*cursor)
                    .and_then(|p| p.fresh.get(fresh.len()))
                    .cloned()
                else {
                    return mismatch("a sum eliminated without a fresh index");
                };
                factors[k] = body.subst_index(&bk, &f);
                let sub = K::seq_of(factors.clone()).canon();
                fresh.push(f.clone());
                let n = self.split(&sub, b, parts, cursor, fresh)?;
                fresh.pop();
                let Term::Sum(cbody) = &cf[k] else {
                    return mismatch("not a sum");
                };
                let opened = Term::open(cbody, &f);
                let n = self
                    .d
                    .le_conv(n, &wrap(c.as_ref(), opened, d.as_ref()), b)?;
                let least = self.d.add(Node::SumLeast { of: n, index: f })?;
                // c (+k : f) d = c (+k : f d) = (+k : c f d)
                let mut steps = Vec::new();
                let mut inner = cf[k].clone();
                if let Some(d) = &d {
                    let r = self.d.add(Node::SumDistR(T(inner.clone()), T(d.clone())))?;
                    inner = self.d.rhs(r);
                    steps.push((r, if c.is_some() { vec![1] } else { vec![] }));
                }
                if let Some(c) = &c {
                    let r = self.d.add(Node::SumDistL(T(c.clone()), T(inner)))?;
                    steps.push((r, vec![]));
                }
                let out = if steps.is_empty() {
                    least
                } else {
                    let e = self.d.chain(whole.clone(), steps)?;
                    self.d.le_via_eq(e, least)?
                };
                let cs = self.core(s);
                self.d.le_conv(out, &cs, b)
            }
            K::Const(at) => {
                let Some(def) = sum_defs.iter().find(|d| d.name() == Some(at.name.as_str())) else {
                    return mismatch("no definition to unfold");
                };
                let label = def.label.clone();
                factors[k] = def.body.canon();
                let sub = K::seq_of(factors).canon();
                let n = self.split(&sub, b, parts, cursor, fresh)?;
                let dn = self.d.add(Node::Def(label))?;
                let e = self
                    .d
                    .chain(whole, vec![(dn, wrap_path(c.as_ref(), d.as_ref()))])?;
                let target = self.d.rhs(e);
                let n = self.d.le_conv(n, &target, b)?;
                let out = self.d.le_via_eq(e, n)?;
                let cs = self.core(s);
                self.d.le_conv(out, &cs, b)
            }
            _ => mismatch("unreachable factor"),
        }
    }

    /// `lhs = rhs` by egg's explanation.
    fn saturation(
        &mut self,
        lhs: &Term,
        rhs: &Term,
        facts: &[Fact],
        seq: &[Rc<TreeTerm<Op>>],
    ) -> R<usize> {
        // Facts proved on the spot replay their own saturations while this
        // one resolves its rules: each saturation has its own rule table.
        let saved = (
            std::mem::take(&mut self.rules),
            std::mem::take(&mut self.trees),
        );
        let res = self.tree_seq(seq, facts);
        (self.rules, self.trees) = saved;
        let (first, last, n) = res?;
        if first != *lhs || last != *rhs {
            return mismatch(format!(
                "the explanation shows `{first} = {last}`, not `{lhs} = {rhs}`"
            ));
        }
        match n {
            Some(n) => Ok(n),
            None => Ok(self.d.add(Node::Aci(T(lhs.clone()), T(rhs.clone())))?),
        }
    }

    /// A sequence of tree terms: the first's initial term equals the last's
    /// final term, by congruence inside each and a rewrite between them.
    fn tree_seq(
        &mut self,
        seq: &[Rc<TreeTerm<Op>>],
        facts: &[Fact],
    ) -> R<(Term, Term, Option<usize>)> {
        let Some(head) = seq.first() else {
            return mismatch("an empty explanation");
        };
        let (first, mut cur, mut acc) = self.tree(head, facts)?;
        for t in &seq[1..] {
            let (init, fin, inner) = self.tree(t, facts)?;
            if t.forward_rule.is_none() && t.backward_rule.is_none() {
                // Congruence: the same node, its children proved equal.
                if init != cur {
                    return mismatch(format!("a congruence step starts at `{init}`, not `{cur}`"));
                }
            } else {
                let step = self.link(&cur, &init, t, facts)?;
                acc = Some(match acc {
                    None => step,
                    Some(a) => self.d.trans(a, step)?,
                });
            }
            if let Some(i) = inner {
                acc = Some(match acc {
                    None => i,
                    Some(a) => self.d.trans(a, i)?,
                });
            }
            cur = fin;
        }
        Ok((first, cur, acc))
    }

    /// `from = to` by the rule annotating `t` at the root.
    fn link(&mut self, from: &Term, to: &Term, t: &TreeTerm<Op>, facts: &[Fact]) -> R<usize> {
        let (name, forward) = match (t.forward_rule, t.backward_rule) {
            (Some(r), _) => (r.to_string(), true),
            (None, Some(r)) => (r.to_string(), false),
            (None, None) => return mismatch("a link without a rule"),
        };
        let key = (name.clone(), forward);
        let rule = match self.rules.get(&key) {
            Some(&n) => n,
            None => {
                let n = self.rule(&name, facts)?;
                let n = if forward {
                    n
                } else {
                    self.d.add(Node::Sym(n))?
                };
                self.rules.insert(key, n);
                n
            }
        };
        // A rule used right to left may have variables only its left side
        // binds (`1 = ?a + ~?a`): instantiate them from the target term.
        let f = self.d.b.concl(rule);
        let (mut lv, mut rv) = (Default::default(), Default::default());
        f.lhs.vars(&mut lv);
        f.rhs.vars(&mut rv);
        let rule = if rv.iter().any(|v| !lv.contains(v)) {
            let mut s = crate::trusted::Subst::default();
            if !crate::trusted::matches(&f.rhs, to, &mut s) {
                return mismatch(format!("`{}` does not match `{to}`", f.rhs));
            }
            let vars = s.vars.into_iter().map(|(k, v)| (k, T(v))).collect();
            self.d.add(Node::Inst {
                of: rule,
                vars,
                ixs: s.ixs,
            })?
        } else {
            rule
        };
        let n = self.d.chain(from.clone(), vec![(rule, vec![])])?;
        if self.d.rhs(n) != *to {
            return mismatch(format!(
                "rule {name} rewrites `{from}` to `{}`, not `{to}`",
                self.d.rhs(n)
            ));
        }
        Ok(n)
    }

    /// A tree term's initial and final terms, and a congruence proof of
    /// their equality from its children's sequences.
    fn tree(&mut self, t: &Rc<TreeTerm<Op>>, facts: &[Fact]) -> R<(Term, Term, Option<usize>)> {
        let key = Rc::as_ptr(t);
        if let Some(v) = self.trees.get(&key) {
            return Ok(v.clone());
        }
        let mut inits = Vec::new();
        let mut fins = Vec::new();
        let mut proofs = Vec::new();
        let binder = matches!(t.node, Op::Sum(_) | Op::Prod(_));
        for (k, seq) in t.child_proofs.iter().enumerate() {
            if binder && k == 0 || matches!(t.node, Op::Member(..)) {
                // Index leaves: never rewritten.
                inits.push(None);
                fins.push(None);
                continue;
            }
            let (i, f, p) = self.tree_seq(seq, facts)?;
            inits.push(Some(i));
            fins.push(Some(f));
            proofs.push((if binder { k - 1 } else { k }, p));
        }
        let init = self.op_term(t, &inits)?;
        let fin = self.op_term(t, &fins)?;
        let steps: Vec<(usize, Vec<usize>)> = proofs
            .into_iter()
            .filter_map(|(k, p)| p.map(|p| (p, vec![k])))
            .collect();
        let n = if steps.is_empty() {
            None
        } else {
            Some(self.d.chain(init.clone(), steps)?)
        };
        if let Some(n) = n
            && self.d.rhs(n) != fin
        {
            return mismatch(format!("congruence gives `{}`, not `{fin}`", self.d.rhs(n)));
        }
        let v = (init, fin, n);
        self.trees.insert(key, v.clone());
        Ok(v)
    }

    /// The core term of an e-graph node with the given child terms. An
    /// index leaf `_#n` of an enclosing binder becomes the schematic index
    /// `?#n`, so that a proof about a binder's body applies under it.
    fn op_term(&self, t: &TreeTerm<Op>, ch: &[Option<Term>]) -> R<Term> {
        let leaf = |k: usize| -> R<String> {
            let node = t
                .child_proofs
                .get(k)
                .and_then(|s| s.first())
                .map(|c| &c.node);
            match node {
                Some(Op::Leaf(n)) => match n.to_string().strip_prefix('_') {
                    Some(i) if i.starts_with('#') => Ok(format!("?{i}")),
                    Some(i) => Ok(i.to_string()),
                    None => mismatch(format!("`{n}` is not an index")),
                },
                _ => mismatch("an index that is not a leaf"),
            }
        };
        let c = |k: usize| -> R<Rc<Term>> {
            ch.get(k)
                .cloned()
                .flatten()
                .map(Rc::new)
                .ok_or(ReplayError::Mismatch("a missing child".into()))
        };
        Ok(match &t.node {
            Op::Zero => Term::Zero,
            Op::One => Term::One,
            Op::Add(_) => Term::Add(c(0)?, c(1)?),
            Op::Seq(_) => Term::Seq(c(0)?, c(1)?),
            Op::Star(_) => Term::Star(c(0)?),
            Op::Omega(_) => Term::Omega(c(0)?),
            Op::OmegaStar(_) => Term::OStar(c(0)?, c(1)?),
            Op::Not(_) => Term::Not(c(0)?),
            Op::Bracket(_) => Term::Bracket(c(0)?),
            Op::Sum(_) | Op::Prod(_) => {
                let body = Term::close(c(1)?.as_ref(), &leaf(0)?);
                if matches!(t.node, Op::Sum(_)) {
                    Term::Sum(Rc::new(body))
                } else {
                    Term::Prod(Rc::new(body))
                }
            }
            Op::Leaf(n) => {
                let n = n.to_string();
                match (n.strip_prefix('@'), n.strip_prefix('%')) {
                    (Some(a), _) => Term::Atom(a.to_string(), None),
                    (_, Some(v)) => Term::Var(v.to_string(), self.sorts.of(v)),
                    _ => return mismatch(format!("unknown leaf `{n}`")),
                }
            }
            Op::Member(n, _) => {
                let n = n.to_string();
                let Some(a) = n.strip_prefix('@') else {
                    return mismatch(format!("unknown family `{n}`"));
                };
                Term::Atom(a.to_string(), Some(crate::trusted::Ix::Free(leaf(0)?)))
            }
        })
    }

    /// The equation an egg rule name stands for, left to right.
    fn rule(&mut self, name: &str, facts: &[Fact]) -> R<usize> {
        if let Some(n) = name.strip_prefix('f') {
            let (num, suffix) =
                n.split_at(n.find(|c: char| !c.is_ascii_digit()).unwrap_or(n.len()));
            if let Ok(k) = num.parse::<usize>() {
                let fact = facts
                    .get(k)
                    .ok_or(ReplayError::Mismatch(format!("no fact {k}")))?;
                let f = self.fact(fact)?;
                return match suffix {
                    "" => Ok(f),
                    "-rev" => Ok(self.d.add(Node::Sym(f))?),
                    "-absorb" => Ok(self.d.add(Node::LeUnfold(f))?),
                    "-expand" => {
                        let u = self.d.add(Node::LeUnfold(f))?;
                        Ok(self.d.add(Node::Sym(u))?)
                    }
                    _ => mismatch(format!("unknown rule `{name}`")),
                };
            }
        }
        match name {
            // x y + x = x (y + 1), and its mirror image
            "factor-l" | "factor-r" => {
                let v = |n: &str| Term::Var(n.into(), crate::trusted::Sort::Elem);
                let (x, y, one) = (v("?x"), v("?y"), Term::One);
                let (start, unit) = if name == "factor-l" {
                    (Term::seq(x, Term::plus(y, one)), ("dist-l", "seq-one-r"))
                } else {
                    (Term::seq(Term::plus(y, one), x), ("dist-r", "seq-one-l"))
                };
                let a = self.d.axiom(unit.0)?;
                let b = self.d.axiom(unit.1)?;
                let e = self.d.chain(start, vec![(a, vec![]), (b, vec![1])])?;
                Ok(self.d.add(Node::Sym(e))?)
            }
            _ => match name.strip_suffix("-rev") {
                Some(ax) => {
                    let a = self.d.axiom(ax)?;
                    Ok(self.d.add(Node::Sym(a))?)
                }
                None => self.d.axiom(name),
            },
        }
    }

    /// A node proving a fact's formula, from its provenance.
    pub fn fact(&mut self, f: &Fact) -> R<usize> {
        if let Some(&n) = self.facts.get(&(f as *const Fact)) {
            return Ok(n);
        }
        let want = bridge::formula(&f.formula, self.sorts);
        let n = match &f.source {
            Source::Cited {
                kind,
                label,
                conclusion,
                inst,
            } => {
                let base = match kind {
                    SourceKind::Hypothesis => Node::Hyp {
                        label: label.clone(),
                        conclusion: *conclusion,
                    },
                    SourceKind::Definition => Node::Def(label.clone()),
                    SourceKind::Lemma => Node::Lemma(label.clone()),
                    SourceKind::Premise => {
                        Node::Premise(T(want.lhs.clone()), want.rel, T(want.rhs.clone()))
                    }
                    SourceKind::Axiom => Node::Axiom(label.clone()),
                };
                let base = self.d.add(base)?;
                self.inst(base, inst)?
            }
            Source::Proved(p) => self.goal(p)?,
            Source::Horn {
                kind,
                label,
                inst,
                premises,
            } => {
                let ps: Vec<usize> = premises.iter().map(|p| self.goal(p)).collect::<R<_>>()?;
                match kind {
                    SourceKind::Axiom => {
                        let [p] = ps.as_slice() else {
                            return mismatch("an induction rule has one premise");
                        };
                        let node = match label.as_str() {
                            "star-ind-l" => Node::StarIndL(*p),
                            "star-ind-r" => Node::StarIndR(*p),
                            "omega-ind" => Node::OmegaInd(*p),
                            o => return mismatch(format!("`{o}` is not an induction rule")),
                        };
                        self.d.add(node)?
                    }
                    _ => {
                        let base = self.d.add(Node::Lemma(label.clone()))?;
                        let mut acc = self.inst(base, inst)?;
                        for p in ps {
                            acc = self.d.add(Node::Cut {
                                of: acc,
                                premise: p,
                            })?;
                        }
                        acc
                    }
                }
            }
            Source::SumIntro { sum, defined, at } => {
                let whole = self.core(sum);
                let mut cur = whole.clone();
                let mut acc: Option<usize> = None;
                for t in at {
                    let n = self.d.add(Node::SumIntro {
                        sum: T(cur.clone()),
                        at: t.clone(),
                    })?;
                    cur = self.d.lhs(n);
                    acc = Some(match acc {
                        None => n,
                        Some(a) => self.d.le_trans(n, a)?,
                    });
                }
                let n = acc.ok_or(ReplayError::Mismatch("a sum introduced at no index".into()))?;
                match defined {
                    Some(d) => {
                        let dn = self.d.add(Node::Def(d.clone()))?;
                        self.d.le_rhs_via_eq(n, dn)?
                    }
                    None => n,
                }
            }
            Source::ProdElim { prod, defined, at } => {
                let n = self.d.add(Node::ProdElim {
                    prod: T(self.core(prod)),
                    at: at.clone(),
                })?;
                self.defined_lhs(n, defined)?
            }
            Source::ProdTest { prod, defined } => {
                let n = self.d.add(Node::ProdTest(T(self.core(prod))))?;
                self.defined_lhs(n, defined)?
            }
        };
        let n = self.check(n, &want, &format!("fact `{}`", f.label))?;
        self.facts.insert(f as *const Fact, n);
        Ok(n)
    }

    fn defined_lhs(&mut self, n: usize, defined: &Option<String>) -> R<usize> {
        match defined {
            Some(d) => {
                let dn = self.d.add(Node::Def(d.clone()))?;
                self.d.le_via_eq(dn, n)
            }
            None => Ok(n),
        }
    }

    fn inst(&mut self, base: usize, inst: &crate::matching::Inst) -> R<usize> {
        if inst.terms.is_empty() && inst.indices.is_empty() {
            return Ok(base);
        }
        let vars = inst
            .terms
            .iter()
            .map(|(k, v)| (k.clone(), T(self.core(&v.canon()))))
            .collect();
        self.d.add(Node::Inst {
            of: base,
            vars,
            ixs: inst.indices.clone(),
        })
    }
}
