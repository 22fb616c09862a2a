//! Proof terms: a derivation as a list of nodes, each one application of a
//! primitive rule of the trusted core to earlier nodes. The prover records
//! them while it replays what it found ([`Builder`]); certificates store
//! them; [`run`] replays them. Both go through [`step`], which only calls
//! the core, so this module is not trusted: a wrong node is refused.
//!
//! Terms are written as s-expressions in which an atom is `(@ name)` or
//! `(@ name index)` and a variable `(? name e)` or `(? name p)`, so a name
//! can never be read as an operator. A bound index is `#n` (de Bruijn).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::trusted::{CoreError, Formula, Ix, Rel, Sort, Subst, Term, Theory, Thm};

/// A core term, serialised in the certificate syntax.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct T(pub Term);

impl Serialize for T {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&write_term(&self.0))
    }
}

impl<'de> Deserialize<'de> for T {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let s = String::deserialize(d)?;
        read_term(&s).map(T).map_err(serde::de::Error::custom)
    }
}

/// One rule application; `usize` fields refer to earlier nodes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Node {
    /// An equational axiom.
    Axiom(String),
    /// Conclusion `conclusion` (0-based) of a hypothesis.
    Hyp {
        /// Its label.
        label: String,
        /// Which conclusion.
        conclusion: usize,
    },
    /// A definition as an equation.
    Def(String),
    /// A proved lemma.
    Lemma(String),
    /// A premise of the lemma being proved.
    Premise(T, Rel, T),
    /// An instance.
    Inst {
        /// The theorem.
        of: usize,
        /// Variables to terms.
        vars: BTreeMap<String, T>,
        /// Indices to indices.
        ixs: BTreeMap<String, String>,
    },
    /// Discharges premise `premise` of `of`.
    Cut {
        /// The theorem with the premise.
        of: usize,
        /// The proof of the premise.
        premise: usize,
    },
    /// Equal modulo associativity, commutativity and units.
    Aci(T, T),
    /// Symmetry.
    Sym(usize),
    /// Transitivity.
    Trans(usize, usize),
    /// Rewrites `start` with the equations `steps[k].0` at paths `steps[k].1`, in turn.
    Chain {
        /// The first term.
        start: T,
        /// (rule node, path) per rewrite.
        steps: Vec<(usize, Vec<usize>)>,
    },
    /// `a + b = b` to `a <= b`.
    LeFold(usize),
    /// `a <= b` to `a + b = b`.
    LeUnfold(usize),
    /// Star induction, left.
    StarIndL(usize),
    /// Star induction, right.
    StarIndR(usize),
    /// Omega induction.
    OmegaInd(usize),
    /// Case split.
    Cases {
        /// First index.
        i: String,
        /// Second index.
        j: String,
        /// The case `i = j`.
        same: usize,
        /// The case `i != j`.
        differ: usize,
    },
    /// A summand is below its sum.
    SumIntro {
        /// The sum.
        sum: T,
        /// The index.
        at: String,
    },
    /// A sum is below a bound of every summand.
    SumLeast {
        /// `f(k) <= b`.
        of: usize,
        /// The fresh index k.
        index: String,
    },
    /// `c (+k : f) = (+k : c f)`.
    SumDistL(T, T),
    /// `(+k : f) d = (+k : f d)`.
    SumDistR(T, T),
    /// A product of predicates is below each factor.
    ProdElim {
        /// The product.
        prod: T,
        /// The index.
        at: String,
    },
    /// A product of predicates is below 1.
    ProdTest(T),
}

impl Node {
    /// The rule's name, for messages.
    pub fn rule(&self) -> &'static str {
        match self {
            Node::Axiom(_) => "axiom",
            Node::Hyp { .. } => "hypothesis",
            Node::Def(_) => "definition",
            Node::Lemma(_) => "lemma",
            Node::Premise(..) => "premise",
            Node::Inst { .. } => "instance",
            Node::Cut { .. } => "cut",
            Node::Aci(..) => "aci",
            Node::Sym(_) => "sym",
            Node::Trans(..) => "trans",
            Node::Chain { .. } => "rewrite",
            Node::LeFold(_) => "le-fold",
            Node::LeUnfold(_) => "le-unfold",
            Node::StarIndL(_) => "star-ind-l",
            Node::StarIndR(_) => "star-ind-r",
            Node::OmegaInd(_) => "omega-ind",
            Node::Cases { .. } => "cases",
            Node::SumIntro { .. } => "sum-intro",
            Node::SumLeast { .. } => "sum-least",
            Node::SumDistL(..) => "sum-dist-l",
            Node::SumDistR(..) => "sum-dist-r",
            Node::ProdElim { .. } => "prod-elim",
            Node::ProdTest(_) => "prod-test",
        }
    }
}

/// A node that the core refused: which node, which rule, why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("node {node}: {error}")]
pub struct NodeError {
    /// Its position in the list.
    pub node: usize,
    /// The core's refusal.
    pub error: CoreError,
}

fn get<'a>(thms: &'a [Thm], k: usize, rule: &'static str) -> Result<&'a Thm, CoreError> {
    thms.get(k).ok_or_else(|| {
        CoreError::new(
            rule,
            format!("refers to node {k}, which does not come before it"),
        )
    })
}

/// Applies one node's rule to the theorems of the earlier nodes.
pub fn step(th: &Theory, n: &Node, thms: &[Thm]) -> Result<Thm, CoreError> {
    let r = n.rule();
    let g = |k: usize| get(thms, k, r);
    match n {
        Node::Axiom(a) => th.axiom(a),
        Node::Hyp { label, conclusion } => th.hyp(label, *conclusion),
        Node::Def(d) => th.def(d),
        Node::Lemma(l) => th.lemma_thm(l),
        Node::Premise(l, rel, rr) => {
            th.assume_premise(Formula::new(l.0.clone(), *rel, rr.0.clone()))
        }
        Node::Inst { of, vars, ixs } => {
            let s = Subst {
                vars: vars.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect(),
                ixs: ixs.clone(),
            };
            th.inst(g(*of)?, &s)
        }
        Node::Cut { of, premise } => th.cut(g(*of)?, g(*premise)?),
        Node::Aci(a, b) => th.aci(&a.0, &b.0),
        Node::Sym(a) => th.sym(g(*a)?),
        Node::Trans(a, b) => th.trans(g(*a)?, g(*b)?),
        Node::Chain { start, steps } => {
            let mut acc: Option<Thm> = None;
            let mut cur = start.0.clone();
            for (k, (rule, path)) in steps.iter().enumerate() {
                let one = th.rewrite(g(*rule)?, &cur, path).map_err(|e| CoreError {
                    reason: format!("rewrite {} of {}: {}", k + 1, steps.len(), e.reason),
                    ..e
                })?;
                cur = one.concl().rhs.clone();
                acc = Some(match acc {
                    None => one,
                    Some(a) => th.trans(&a, &one)?,
                });
            }
            acc.ok_or_else(|| CoreError::new(r, "no rewrites"))
        }
        Node::LeFold(a) => th.le_fold(g(*a)?),
        Node::LeUnfold(a) => th.le_unfold(g(*a)?),
        Node::StarIndL(a) => th.star_ind_l(g(*a)?),
        Node::StarIndR(a) => th.star_ind_r(g(*a)?),
        Node::OmegaInd(a) => th.omega_ind(g(*a)?),
        Node::Cases { i, j, same, differ } => th.cases(i, j, g(*same)?, g(*differ)?),
        Node::SumIntro { sum, at } => th.sum_intro(&sum.0, at),
        Node::SumLeast { of, index } => th.sum_least(g(*of)?, index),
        Node::SumDistL(c, s) => th.sum_dist(&c.0, &s.0, true),
        Node::SumDistR(s, d) => th.sum_dist(&d.0, &s.0, false),
        Node::ProdElim { prod, at } => th.prod_elim(&prod.0, at),
        Node::ProdTest(p) => th.prod_test(&p.0),
    }
}

/// Replays a node list; the theorem of its last node.
pub fn run(th: &Theory, nodes: &[Node]) -> Result<Thm, NodeError> {
    let mut thms = run_all(th, nodes)?;
    thms.pop().ok_or(NodeError {
        node: 0,
        error: CoreError::new("proof", "the derivation is empty"),
    })
}

/// Replays a node list; the theorem of every node, in order.
pub fn run_all(th: &Theory, nodes: &[Node]) -> Result<Vec<Thm>, NodeError> {
    let mut thms: Vec<Thm> = Vec::with_capacity(nodes.len());
    for (k, n) in nodes.iter().enumerate() {
        thms.push(step(th, n, &thms).map_err(|error| NodeError { node: k, error })?);
    }
    Ok(thms)
}

/// Records nodes while executing them, sharing identical ones.
pub struct Builder<'t> {
    /// The theory the rules refer to.
    pub theory: &'t Theory,
    nodes: Vec<Node>,
    thms: Vec<Thm>,
    memo: HashMap<Node, usize>,
}

impl<'t> Builder<'t> {
    /// An empty derivation.
    pub fn new(theory: &'t Theory) -> Builder<'t> {
        Builder {
            theory,
            nodes: Vec::new(),
            thms: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// Adds and executes a node.
    pub fn add(&mut self, n: Node) -> Result<usize, CoreError> {
        if let Some(&k) = self.memo.get(&n) {
            return Ok(k);
        }
        let thm = step(self.theory, &n, &self.thms)?;
        self.thms.push(thm);
        self.nodes.push(n.clone());
        self.memo.insert(n, self.nodes.len() - 1);
        Ok(self.nodes.len() - 1)
    }

    /// The theorem of a node.
    pub fn thm(&self, k: usize) -> &Thm {
        &self.thms[k]
    }

    /// The conclusion of a node.
    pub fn concl(&self, k: usize) -> &Formula {
        self.thms[k].concl()
    }

    /// The nodes up to and including `root`, `root` last.
    pub fn finish(mut self, root: usize) -> Vec<Node> {
        // Nodes after the root were recorded by attempts that did not
        // contribute; the root's own dependencies all come before it.
        self.nodes.truncate(root + 1);
        self.nodes
    }
}

// ---------------------------------------------------------------- syntax

/// Writes a term in the certificate syntax.
pub fn write_term(t: &Term) -> String {
    let mut s = String::new();
    write_to(t, &mut s);
    s
}

fn ix_text(i: &Ix) -> String {
    match i {
        Ix::Bound(n) => format!("#{n}"),
        Ix::Free(n) if n.starts_with('#') || n.starts_with('!') => format!("!{n}"),
        Ix::Free(n) => n.clone(),
    }
}

fn write_to(t: &Term, s: &mut String) {
    let op = match t {
        Term::Zero => return s.push('0'),
        Term::One => return s.push('1'),
        Term::Atom(n, None) => return s.push_str(&format!("(@ {n})")),
        Term::Atom(n, Some(i)) => return s.push_str(&format!("(@ {n} {})", ix_text(i))),
        Term::Var(v, sort) => {
            return s.push_str(&format!(
                "(? {v} {})",
                if *sort == Sort::Pred { "p" } else { "e" }
            ));
        }
        Term::Not(_) => "~",
        Term::Add(..) => "+",
        Term::Seq(..) => ";",
        Term::Star(_) => "*",
        Term::Omega(_) => "w",
        Term::OStar(..) => "<w>",
        Term::Bracket(_) => "box",
        Term::Sum(_) => "sum",
        Term::Prod(_) => "prod",
    };
    s.push('(');
    s.push_str(op);
    for c in t.children() {
        s.push(' ');
        write_to(c, s);
    }
    s.push(')');
}

/// Terms in certificates nest at most this deep.
pub const MAX_TERM_DEPTH: usize = 512;

/// Reads a term in the certificate syntax.
pub fn read_term(s: &str) -> Result<Term, String> {
    let toks: Vec<&str> = tokens(s);
    let mut pos = 0;
    let t = read(&toks, &mut pos, 0)?;
    if pos != toks.len() {
        return Err(format!("trailing text in `{s}`"));
    }
    Ok(t)
}

fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (k, c) in s.char_indices() {
        if c == '(' || c == ')' || c.is_whitespace() {
            if let Some(b) = start.take() {
                out.push(&s[b..k]);
            }
            if !c.is_whitespace() {
                out.push(&s[k..k + 1]);
            }
        } else if start.is_none() {
            start = Some(k);
        }
    }
    if let Some(b) = start {
        out.push(&s[b..]);
    }
    out
}

fn read(toks: &[&str], pos: &mut usize, depth: usize) -> Result<Term, String> {
    if depth > MAX_TERM_DEPTH {
        return Err(format!("nested deeper than {MAX_TERM_DEPTH}"));
    }
    let next = |pos: &mut usize| -> Result<&str, String> {
        let t = toks.get(*pos).copied().ok_or("unexpected end")?;
        *pos += 1;
        Ok(t)
    };
    match next(pos)? {
        "0" => return Ok(Term::Zero),
        "1" => return Ok(Term::One),
        "(" => {}
        t => return Err(format!("unexpected `{t}`")),
    }
    let head = next(pos)?;
    let name = |pos: &mut usize| -> Result<String, String> {
        match next(pos)? {
            "(" | ")" => Err("a name is missing".into()),
            n => Ok(n.to_string()),
        }
    };
    let t = match head {
        "@" => {
            let n = name(pos)?;
            if toks.get(*pos) == Some(&")") {
                Term::Atom(n, None)
            } else {
                let i = name(pos)?;
                let ix = match (i.strip_prefix('#'), i.strip_prefix('!')) {
                    (Some(k), _) => {
                        Ix::Bound(k.parse().map_err(|_| format!("bad bound index `{i}`"))?)
                    }
                    (_, Some(free)) => Ix::Free(free.to_string()),
                    _ => Ix::Free(i),
                };
                Term::Atom(n, Some(ix))
            }
        }
        "?" => {
            let n = name(pos)?;
            let sort = match name(pos)?.as_str() {
                "e" => Sort::Elem,
                "p" => Sort::Pred,
                o => return Err(format!("unknown sort `{o}`")),
            };
            Term::Var(n, sort)
        }
        op => {
            let arity = match op {
                "~" | "*" | "w" | "box" | "sum" | "prod" => 1,
                "+" | ";" | "<w>" => 2,
                o => return Err(format!("unknown operator `{o}`")),
            };
            let mut args = Vec::new();
            for _ in 0..arity {
                args.push(std::rc::Rc::new(read(toks, pos, depth + 1)?));
            }
            match op {
                "~" => Term::Not(args[0].clone()),
                "*" => Term::Star(args[0].clone()),
                "w" => Term::Omega(args[0].clone()),
                "box" => Term::Bracket(args[0].clone()),
                "sum" => Term::Sum(args[0].clone()),
                "prod" => Term::Prod(args[0].clone()),
                "+" => Term::Add(args[0].clone(), args[1].clone()),
                ";" => Term::Seq(args[0].clone(), args[1].clone()),
                _ => Term::OStar(args[0].clone(), args[1].clone()),
            }
        }
    };
    match next(pos)? {
        ")" => Ok(t),
        o => Err(format!("expected `)`, found `{o}`")),
    }
}

impl fmt::Display for T {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Rel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *self == Rel::Eq { "=" } else { "<=" })
    }
}

impl<'de> Deserialize<'de> for Rel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rel, D::Error> {
        match String::deserialize(d)?.as_str() {
            "=" => Ok(Rel::Eq),
            "<=" => Ok(Rel::Le),
            o => Err(serde::de::Error::custom(format!("unknown relation `{o}`"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_syntax_round_trips_and_keeps_names_apart_from_operators() {
        let t = Term::Sum(std::rc::Rc::new(Term::seq(
            Term::Atom("omega".into(), Some(Ix::Bound(0))),
            Term::Atom("box".into(), Some(Ix::Free("#0".into()))),
        )));
        let s = write_term(&t);
        assert_eq!(s, "(sum (; (@ omega #0) (@ box !#0)))");
        assert_eq!(read_term(&s).unwrap(), t);
        assert!(read_term("(w (@ x))").is_ok());
        assert!(read_term("(omega (@ x))").is_err());
        assert!(read_term(&"(* ".repeat(600)).is_err());
    }
}
