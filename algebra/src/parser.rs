//! A recursive-descent parser for proof scripts, resolving names as it goes.
//!
//! Term precedences follow the digest: `+` lowest; `·` (juxtaposition) and
//! `<w>` share the next level and associate to the right; postfix `*` and
//! `^w` bind tightest. `+` also associates to the right.

use std::collections::BTreeMap;

use crate::axioms::{AXIOM_SOURCE, Axiom};
use crate::error::ParseError;
use crate::lexer::{Tok, Token, lex};
use crate::script::{
    AtomDecl, Case, Chain, Citation, DefHead, Definition, Hint, Hypothesis, Item, Lemma, Proof,
    Script, Sort, SourceKind, Span, Statement, Step, line_col,
};
use crate::term::{Atom, Formula, Rel, Term};

const KEYWORDS: &[&str] = &[
    "pred", "elem", "var", "def", "hyp", "lemma", "proof", "qed", "case", "by", "and", "axiom",
];

/// Parses a proof script. Names are resolved against the declarations above
/// their use and against the axioms.
// The error carries the source for rendering; it is returned once per parse.
#[allow(clippy::result_large_err)]
pub fn parse_script(file: &str, source: &str) -> Result<Script, ParseError> {
    let axioms = crate::axioms::axioms();
    let mut p = Parser::new(file, source, false).map_err(|e| *e)?;
    for ax in axioms {
        p.labels
            .insert(ax.label.clone(), (SourceKind::Axiom, ax.statement.clone()));
    }
    p.script().map_err(|e| *e)?;
    let expect = source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// expect:"))
        .map(|s| s.trim().to_string());
    Ok(Script {
        file: file.to_string(),
        source: source.to_string(),
        atoms: p.atoms,
        vars: p.vars,
        items: p.items,
        expect,
    })
}

/// Parses the built-in axiom list.
#[allow(clippy::result_large_err)]
pub(crate) fn parse_axiom_source() -> Result<Vec<Axiom>, ParseError> {
    let mut p = Parser::new("<axioms>", AXIOM_SOURCE, true).map_err(|e| *e)?;
    p.script().map_err(|e| *e)?;
    Ok(p.axioms)
}

/// Parses a single term against a script's declarations (for tests and tools).
#[allow(clippy::result_large_err)]
pub fn parse_term(script: &Script, text: &str) -> Result<Term, ParseError> {
    let mut p = Parser::new("<term>", text, false).map_err(|e| *e)?;
    p.atoms = script.atoms.clone();
    for d in script.definitions() {
        p.register_def(d);
    }
    p.vars = script.vars.clone();
    let t = p.term().map_err(|e| *e)?;
    p.expect(Tok::Eof, "end of term").map_err(|e| *e)?;
    Ok(t)
}

struct Parser<'a> {
    file: &'a str,
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    atoms: Vec<AtomDecl>,
    /// Defined names: (name, is_family).
    defs: Vec<(String, bool)>,
    bracket_defined: bool,
    vars: BTreeMap<String, Sort>,
    labels: BTreeMap<String, (SourceKind, Statement)>,
    items: Vec<Item>,
    axioms: Vec<Axiom>,
    allow_axioms: bool,
    /// Parameter of the bracket definition being parsed.
    bracket_param: Option<String>,
    /// Index parameter of the family definition being parsed.
    def_index: Option<String>,
    /// Whether schematic variables may occur in the current term.
    vars_allowed: bool,
    /// The lemma being parsed (it may not cite itself).
    current: Option<String>,
    /// Nesting depth of the term being parsed.
    depth: usize,
}

/// Terms are at most this deep, so that checking never runs out of stack.
const MAX_DEPTH: usize = 256;

/// Parentheses, brackets and sums nest at most this deep, so that parsing
/// never runs out of stack on any input, even on a small thread stack.
const MAX_NESTING: usize = 32;

type PResult<T> = Result<T, Box<ParseError>>;

impl<'a> Parser<'a> {
    fn new(file: &'a str, src: &'a str, allow_axioms: bool) -> PResult<Self> {
        let toks = lex(src).map_err(|e| {
            ParseError::new(
                file,
                src,
                e.span,
                format!("unexpected character `{}`", e.found),
            )
        })?;
        Ok(Parser {
            file,
            src,
            toks,
            pos: 0,
            atoms: Vec::new(),
            defs: Vec::new(),
            bracket_defined: false,
            vars: BTreeMap::new(),
            labels: BTreeMap::new(),
            items: Vec::new(),
            axioms: Vec::new(),
            allow_axioms,
            bracket_param: None,
            def_index: None,
            vars_allowed: true,
            current: None,
            depth: 0,
        })
    }

    fn err(&self, span: Span, msg: impl Into<String>) -> Box<ParseError> {
        // At the end of the file, point at the last token instead of past it.
        let span = if span.start >= self.src.len() && self.pos > 0 {
            self.toks[self.pos - 1].span
        } else {
            span
        };
        Box::new(ParseError::new(self.file, self.src, span, msg))
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: Tok, what: &str) -> PResult<Span> {
        if self.peek() == &tok {
            Ok(self.bump().span)
        } else {
            Err(self
                .err(
                    self.span(),
                    format!("expected {what}, found {}", self.peek().describe()),
                )
                .with_label(format!("expected {}", tok.describe())))
        }
    }

    fn is_keyword(&self, k: usize, kw: &str) -> bool {
        matches!(self.peek_at(k), Tok::Ident(s) if s == kw)
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let sp = self.bump().span;
                Ok((s, sp))
            }
            other => Err(self.err(
                self.span(),
                format!("expected {what}, found {}", other.describe()),
            )),
        }
    }

    fn line_of(&self, span: Span) -> usize {
        line_col(self.src, span.start).0
    }

    // ----- items -----

    fn script(&mut self) -> PResult<()> {
        loop {
            let start = self.span();
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Ident(kw) => match kw.as_str() {
                    "pred" | "elem" => self.atom_decl()?,
                    "var" => self.var_decl()?,
                    "def" => self.definition()?,
                    "hyp" => self.hypothesis()?,
                    "lemma" => self.lemma()?,
                    "axiom" if self.allow_axioms => self.axiom()?,
                    _ => return Err(self.item_expected(start)),
                },
                _ => return Err(self.item_expected(start)),
            }
        }
    }

    fn item_expected(&self, at: Span) -> Box<ParseError> {
        self.err(
            at,
            format!(
                "expected `pred`, `elem`, `var`, `def`, `hyp` or `lemma`, found {}",
                self.peek().describe()
            ),
        )
        .with_help("each item of a proof script starts with one of these keywords")
    }

    fn atom_decl(&mut self) -> PResult<()> {
        let kw = self.bump();
        let sort = if kw.tok == Tok::Ident("pred".into()) {
            Sort::Pred
        } else {
            Sort::Elem
        };
        loop {
            let (name, sp) = self.ident("an atom name")?;
            let (base, index) = split_index(&name);
            if index.as_deref().is_some_and(|i| i.contains('_')) {
                return Err(self.err(sp, "an atom name has at most one index"));
            }
            let family = index.is_some();
            self.check_fresh_name(base, family, sp)?;
            self.atoms.push(AtomDecl {
                name: base.to_string(),
                family,
                sort,
            });
            if !self.eat(&Tok::Comma) {
                return Ok(());
            }
        }
    }

    fn check_fresh_name(&self, base: &str, family: bool, sp: Span) -> PResult<()> {
        if base.contains('-') || base.contains('\'') {
            return Err(self.err(sp, format!("`{base}` is not a valid atom name")));
        }
        if self
            .atoms
            .iter()
            .any(|a| a.name == base && a.family == family)
            || self.defs.iter().any(|(n, f)| n == base && *f == family)
            || (!family && self.vars.contains_key(base))
        {
            return Err(self.err(sp, format!("`{base}` is already declared")));
        }
        Ok(())
    }

    fn var_decl(&mut self) -> PResult<()> {
        self.bump();
        let sort = if self.is_keyword(0, "pred") {
            self.bump();
            Sort::Pred
        } else {
            if self.is_keyword(0, "elem") {
                self.bump();
            }
            Sort::Elem
        };
        loop {
            let (name, sp) = self.ident("a variable name")?;
            if name.contains('_') || name.contains('-') {
                return Err(self.err(sp, "a variable name has no index"));
            }
            if self.atoms.iter().any(|a| a.name == name && !a.family)
                || self.defs.iter().any(|(n, f)| *n == name && !f)
            {
                return Err(self.err(sp, format!("`{name}` is already declared as a constant")));
            }
            self.vars.insert(name, sort);
            if !self.eat(&Tok::Comma) {
                return Ok(());
            }
        }
    }

    fn label(&mut self) -> PResult<Option<(String, Span)>> {
        match (
            self.peek().clone(),
            self.peek_at(1).clone(),
            self.peek_at(2).clone(),
        ) {
            (Tok::LParen, Tok::Number(n), Tok::RParen)
            | (Tok::LParen, Tok::Ident(n), Tok::RParen) => {
                let a = self.bump().span;
                self.bump();
                let b = self.bump().span;
                Ok(Some((format!("({n})"), a.to(b))))
            }
            _ => Ok(None),
        }
    }

    fn register_label(
        &mut self,
        label: &str,
        sp: Span,
        kind: SourceKind,
        st: Statement,
    ) -> PResult<()> {
        if self.labels.contains_key(label) {
            return Err(self.err(sp, format!("`{label}` is already used as a label")));
        }
        self.labels.insert(label.to_string(), (kind, st));
        Ok(())
    }

    fn register_def(&mut self, d: &Definition) {
        match &d.head {
            DefHead::Const(n) => self.defs.push((n.clone(), false)),
            DefHead::Family(n, _) => self.defs.push((n.clone(), true)),
            DefHead::Bracket(_) => self.bracket_defined = true,
        }
    }

    fn definition(&mut self) -> PResult<()> {
        let start = self.bump().span;
        let label = self.label()?;
        self.eat(&Tok::Colon);
        let head_span = self.span();
        let head = if self.eat(&Tok::LBracket) {
            let (x, sp) = self.ident("the parameter of the bracket")?;
            if x.contains('_') {
                return Err(self.err(sp, "the bracket parameter is a plain name"));
            }
            self.expect(Tok::RBracket, "`]`")?;
            if self.bracket_defined {
                return Err(self.err(head_span, "the bracket `[x]` is already defined"));
            }
            DefHead::Bracket(x)
        } else {
            let (name, sp) = self.ident("the defined name")?;
            let (base, index) = split_index(&name);
            self.check_fresh_name(base, index.is_some(), sp)?;
            match index {
                Some(i) => DefHead::Family(base.to_string(), i),
                None => DefHead::Const(base.to_string()),
            }
        };
        self.expect(Tok::Eq, "`=`")?;
        let saved_vars = std::mem::take(&mut self.vars_allowed);
        match &head {
            DefHead::Bracket(x) => self.bracket_param = Some(x.clone()),
            DefHead::Family(_, i) => self.def_index = Some(i.clone()),
            DefHead::Const(_) => {}
        }
        let body_start = self.span();
        let body = self.term();
        self.bracket_param = None;
        self.def_index = None;
        self.vars_allowed = saved_vars;
        let body = body?;
        let body_span = body_start.to(self.prev_span());
        let allowed: Vec<String> = match &head {
            DefHead::Family(_, i) => vec![i.clone()],
            _ => vec![],
        };
        if let Some(stray) = body
            .free_indices()
            .into_iter()
            .find(|i| !allowed.contains(i))
        {
            return Err(self.err(
                body_span,
                format!("index `{stray}` is not a parameter of this definition"),
            ));
        }
        let span = start.to(self.prev_span());
        let label_str = match (&label, &head) {
            (Some((l, _)), _) => l.clone(),
            (None, DefHead::Const(n)) | (None, DefHead::Family(n, _)) => n.clone(),
            (None, DefHead::Bracket(_)) => {
                return Err(self.err(
                    head_span,
                    "the bracket definition needs a label, as in `def (box) [x] = ...`",
                ));
            }
        };
        let d = Definition {
            label: label_str.clone(),
            head,
            body,
            span,
        };
        let mut st = Statement {
            conclusions: vec![d.formula()],
            ..Default::default()
        };
        if let DefHead::Bracket(x) = &d.head {
            st.vars.insert(x.clone(), Sort::Elem);
        }
        self.register_label(
            &label_str,
            label.map(|l| l.1).unwrap_or(head_span),
            SourceKind::Definition,
            st,
        )?;
        self.register_def(&d);
        self.items.push(Item::Def(d));
        Ok(())
    }

    fn hypothesis(&mut self) -> PResult<()> {
        let start = self.bump().span;
        let (label, lsp) = self.required_label()?;
        self.eat(&Tok::Colon);
        let saved = std::mem::replace(&mut self.vars_allowed, false);
        let st = self.statement();
        self.vars_allowed = saved;
        let st = st?;
        if !st.premises.is_empty() {
            return Err(self.err(
                start.to(self.prev_span()),
                "a hypothesis may assume index disequalities only",
            ));
        }
        self.register_label(&label, lsp, SourceKind::Hypothesis, st.clone())?;
        self.items.push(Item::Hyp(Hypothesis {
            label,
            statement: st,
            span: start.to(self.prev_span()),
        }));
        Ok(())
    }

    fn axiom(&mut self) -> PResult<()> {
        self.bump();
        let (label, _) = self.required_label()?;
        self.eat(&Tok::Colon);
        let st = self.statement()?;
        self.labels
            .insert(label.clone(), (SourceKind::Axiom, st.clone()));
        self.axioms.push(Axiom {
            label,
            statement: st,
        });
        Ok(())
    }

    fn required_label(&mut self) -> PResult<(String, Span)> {
        if let Some(l) = self.label()? {
            return Ok(l);
        }
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let sp = self.bump().span;
                Ok((s, sp))
            }
            other => Err(self
                .err(self.span(), format!("expected a label, found {}", other.describe()))
                .with_help("a label is a name such as `star_idem` or a number in parentheses such as `(20)`")),
        }
    }

    fn lemma(&mut self) -> PResult<()> {
        let start = self.bump().span;
        let line = self.line_of(start);
        let (label, lsp) = self.required_label()?;
        if self.labels.contains_key(&label) {
            return Err(self.err(lsp, format!("`{label}` is already used as a label")));
        }
        self.expect(Tok::Colon, "`:` after the lemma's label")?;
        let st_start = self.span();
        let st = self.statement()?;
        if st.conclusions.len() != 1 {
            return Err(self.err(
                st_start.to(self.prev_span()),
                "a lemma states exactly one formula",
            ));
        }
        // Premises are citable inside the proof only.
        let premise_labels = premise_labels(st.premises.len());
        for (l, f) in premise_labels.iter().zip(&st.premises) {
            let pst = Statement {
                conclusions: vec![f.clone()],
                ..Default::default()
            };
            self.labels.insert(l.clone(), (SourceKind::Premise, pst));
        }
        self.current = Some(label.clone());
        let proof = self.proof();
        self.current = None;
        for l in &premise_labels {
            self.labels.remove(l);
        }
        let proof = proof?;
        self.register_label(&label, lsp, SourceKind::Lemma, st.clone())?;
        self.items.push(Item::Lemma(Lemma {
            label,
            statement: st,
            proof,
            span: start.to(self.prev_span()),
            line,
        }));
        Ok(())
    }

    fn statement(&mut self) -> PResult<Statement> {
        let mut st = Statement::default();
        let mut parts: Vec<Result<(String, String), Vec<Formula>>> = Vec::new();
        loop {
            let is_distinct = matches!(
                (self.peek(), self.peek_at(1), self.peek_at(2)),
                (Tok::Ident(_), Tok::Ne, Tok::Ident(_))
            );
            if is_distinct {
                let (a, asp) = self.ident("an index")?;
                self.bump();
                let (b, bsp) = self.ident("an index")?;
                if a.contains('_') || b.contains('_') {
                    return Err(self.err(asp.to(bsp), "`!=` relates two indices"));
                }
                if a == b {
                    return Err(self.err(asp.to(bsp), "an index is never distinct from itself"));
                }
                parts.push(Ok((a, b)));
            } else {
                parts.push(Err(self.formula_chain()?));
            }
            if self.is_keyword(0, "and") {
                self.bump();
                continue;
            }
            if self.eat(&Tok::Implies) {
                for p in parts.drain(..) {
                    match p {
                        Ok(d) => st.distinct.push(d),
                        Err(fs) => st.premises.extend(fs),
                    }
                }
                continue;
            }
            break;
        }
        for p in parts {
            match p {
                Ok(_) => {
                    return Err(self.err(
                        self.prev_span(),
                        "an index disequality can only be assumed, before `=>`",
                    ));
                }
                Err(fs) => st.conclusions.extend(fs),
            }
        }
        if st.conclusions.is_empty() {
            return Err(self.err(
                self.prev_span(),
                "a statement needs a conclusion after `=>`",
            ));
        }
        for f in st.premises.iter().chain(&st.conclusions) {
            for v in f.vars() {
                if let Some(s) = self.vars.get(&v) {
                    st.vars.insert(v, *s);
                }
            }
        }
        Ok(st)
    }

    /// `a = b <= c` gives `a = b` and `b <= c`.
    fn formula_chain(&mut self) -> PResult<Vec<Formula>> {
        let mut out = Vec::new();
        let mut lhs = self.term()?;
        loop {
            let rel = match self.peek() {
                Tok::Eq => Rel::Eq,
                Tok::Le => Rel::Le,
                _ if out.is_empty() => {
                    return Err(self
                        .err(
                            self.span(),
                            format!("expected `=` or `<=`, found {}", self.peek().describe()),
                        )
                        .with_label("a formula relates two terms"));
                }
                _ => return Ok(out),
            };
            self.bump();
            let rhs = self.term()?;
            out.push(Formula::new(lhs, rel, rhs.clone()));
            lhs = rhs;
        }
    }

    fn proof(&mut self) -> PResult<Proof> {
        if self.is_keyword(0, "by") {
            let sp = self.bump().span;
            let line = self.line_of(sp);
            let hints = self.hints()?;
            return Ok(Proof::By(hints, sp.to(self.prev_span()), line));
        }
        if !self.is_keyword(0, "proof") {
            return Err(self
                .err(
                    self.span(),
                    format!("expected `proof` or `by`, found {}", self.peek().describe()),
                )
                .with_help("a lemma is followed by `proof ... qed` or `by { hints }`"));
        }
        self.bump();
        let result = if self.is_keyword(0, "case") {
            let mut cases = Vec::new();
            while self.is_keyword(0, "case") {
                let start = self.bump().span;
                let (a, _) = self.ident("an index")?;
                let equal = match self.peek() {
                    Tok::Eq => true,
                    Tok::Ne => false,
                    _ => return Err(self.err(self.span(), "expected `=` or `!=` in a case split")),
                };
                self.bump();
                let (b, bsp) = self.ident("an index")?;
                if a == b || a.contains('_') || b.contains('_') {
                    return Err(self.err(start.to(bsp), "a case splits on two different indices"));
                }
                self.expect(Tok::Colon, "`:` after the case")?;
                let chain = self.chain()?;
                cases.push(Case {
                    indices: (a, b),
                    equal,
                    chain,
                    span: start.to(self.prev_span()),
                });
            }
            Proof::Cases(cases)
        } else {
            Proof::Chain(self.chain()?)
        };
        if !self.is_keyword(0, "qed") {
            return Err(self
                .err(
                    self.span(),
                    format!(
                        "expected a step (`=` or `<=`), `case` or `qed`, found {}",
                        self.peek().describe()
                    ),
                )
                .with_label("the chain stops here"));
        }
        self.bump();
        Ok(result)
    }

    fn chain(&mut self) -> PResult<Chain> {
        let start = self.span();
        let first = self.term()?;
        let mut steps = Vec::new();
        loop {
            let rel = match self.peek() {
                Tok::Eq => Rel::Eq,
                Tok::Le => Rel::Le,
                _ => break,
            };
            let sp = self.bump().span;
            let term = self.term()?;
            let hints = if self.peek() == &Tok::LBrace {
                self.hints()?
            } else {
                Vec::new()
            };
            steps.push(Step {
                rel,
                term,
                hints,
                span: sp.to(self.prev_span()),
                line: self.line_of(sp),
            });
        }
        if steps.is_empty() {
            return Err(self
                .err(
                    self.span(),
                    format!(
                        "expected `=` or `<=` after the first term, found {}",
                        self.peek().describe()
                    ),
                )
                .with_help("a chain is `t0 <= t1 { hints } = t2 { hints } ...`"));
        }
        Ok(Chain {
            start: first,
            steps,
            span: start.to(self.prev_span()),
        })
    }

    // ----- hints -----

    fn hints(&mut self) -> PResult<Vec<Hint>> {
        self.expect(Tok::LBrace, "`{` to open the hints")?;
        let mut out = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            if self.starts_citation() {
                loop {
                    out.push(Hint::Cite(self.citation()?));
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    if self.starts_citation() && matches!(self.peek(), Tok::LParen) {
                        // `(12)(14)`, as the paper writes it.
                        continue;
                    }
                    break;
                }
            } else {
                let start = self.span();
                let fs = self.formula_chain()?;
                let mut by = Vec::new();
                if self.is_keyword(0, "by") {
                    self.bump();
                    loop {
                        by.push(self.citation()?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                let span = start.to(self.prev_span());
                for formula in fs {
                    out.push(Hint::Fact {
                        formula,
                        by: by.clone(),
                        span,
                    });
                }
            }
            match self.peek() {
                Tok::Semi => {
                    self.bump();
                }
                Tok::RBrace => {
                    self.bump();
                    return Ok(out);
                }
                other => {
                    return Err(self
                        .err(self.span(), format!("expected `;` or `}}` in the hints, found {}", other.describe()))
                        .with_help("hints are separated by `;`; a proved fact is written `formula by label, label`"));
                }
            }
        }
    }

    fn starts_citation(&self) -> bool {
        let follow = |t: &Tok| {
            matches!(
                t,
                Tok::Comma | Tok::Semi | Tok::RBrace | Tok::LParen | Tok::Eof
            )
        };
        match (
            self.peek(),
            self.peek_at(1),
            self.peek_at(2),
            self.peek_at(3),
        ) {
            (Tok::LParen, Tok::Number(n), Tok::RParen, next) => {
                (n != "0" && n != "1") || follow(next) || matches!(next, Tok::LBracket)
            }
            (Tok::LParen, Tok::Ident(n), Tok::RParen, next) => {
                self.labels.contains_key(&format!("({n})"))
                    && (follow(next) || matches!(next, Tok::LBracket))
            }
            (Tok::Ident(_), next, after, after2) => {
                follow(next) && !matches!(next, Tok::LParen)
                    || (matches!(next, Tok::LBracket)
                        && matches!(after, Tok::Ident(_))
                        && matches!(after2, Tok::Assign))
            }
            _ => false,
        }
    }

    fn citation(&mut self) -> PResult<Citation> {
        let start = self.span();
        let label = match self.label()? {
            Some((l, _)) => l,
            None => self.required_label()?.0,
        };
        let span0 = start.to(self.prev_span());
        let (kind, st) = match self.labels.get(&label) {
            Some(x) => x.clone(),
            None => {
                let msg = if self.current.as_deref() == Some(label.as_str()) {
                    format!("lemma `{label}` cannot cite itself")
                } else {
                    format!("unknown label `{label}`")
                };
                return Err(self
                    .err(span0, msg)
                    .with_help("a hint cites an axiom, a definition, a hypothesis, a premise, or a lemma proved above"));
            }
        };
        let mut terms = BTreeMap::new();
        let mut indices = BTreeMap::new();
        if self.eat(&Tok::LBracket) {
            let st_indices = st.indices();
            loop {
                let (key, ksp) = self.ident("a variable or index to instantiate")?;
                self.expect(Tok::Assign, "`:=`")?;
                if st_indices.contains(&key) {
                    let (val, vsp) = self.ident("an index")?;
                    if val.contains('_') {
                        return Err(self.err(vsp, "an index is a plain name"));
                    }
                    indices.insert(key, val);
                } else if let Some(sort) = st.vars.get(&key) {
                    let vstart = self.span();
                    let val = self.term()?;
                    if *sort == Sort::Pred && !self.is_pred_literal(&val) {
                        return Err(self
                            .err(vstart.to(self.prev_span()), format!("`{key}` is a predicate variable; instantiate it with a predicate atom, variable or complement"))
                            .with_label("not a predicate literal"));
                    }
                    terms.insert(key, val);
                } else {
                    return Err(
                        self.err(ksp, format!("`{label}` has no variable or index `{key}`"))
                    );
                }
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RBracket, "`]` to close the instantiation")?;
        }
        Ok(Citation {
            label,
            kind,
            terms,
            indices,
            span: start.to(self.prev_span()),
        })
    }

    fn is_pred_literal(&self, t: &Term) -> bool {
        match t {
            Term::Not(a) => self.is_pred_atom(a),
            other => self.is_pred_atom(other),
        }
    }

    fn is_pred_atom(&self, t: &Term) -> bool {
        match t {
            Term::Const(Atom { name, index }) => self
                .atoms
                .iter()
                .any(|a| a.name == *name && a.family == index.is_some() && a.sort == Sort::Pred),
            Term::Var(v) => self.vars.get(v) == Some(&Sort::Pred),
            _ => false,
        }
    }

    // ----- terms -----

    /// term := seq ('+' seq)*, right-nested.
    fn term(&mut self) -> PResult<Term> {
        self.term_d().map(|(t, _)| t)
    }

    /// A term and its depth; parentheses nest at most [`MAX_NESTING`] deep.
    fn term_d(&mut self) -> PResult<(Term, usize)> {
        if self.depth >= MAX_NESTING {
            return Err(self
                .err(
                    self.span(),
                    format!("parentheses nest deeper than {MAX_NESTING} levels"),
                )
                .with_help("split the term with definitions"));
        }
        self.depth += 1;
        let t = self.term_inner();
        self.depth -= 1;
        t
    }

    fn term_inner(&mut self) -> PResult<(Term, usize)> {
        let start = self.span();
        let mut items = vec![self.seq()?];
        while self.eat(&Tok::Plus) {
            items.push(self.seq()?);
        }
        self.nest(items, start, |a, b| Term::Add(Box::new(a), Box::new(b)))
    }

    /// Right-nests `items` with `join`, refusing terms deeper than
    /// [`MAX_DEPTH`] before building them.
    fn nest(
        &self,
        items: Vec<(Term, usize)>,
        start: Span,
        join: impl Fn(Term, Term) -> Term,
    ) -> PResult<(Term, usize)> {
        let mut it = items.into_iter().rev();
        let (mut acc, mut depth) = it.next().expect("at least one item");
        for (t, d) in it {
            depth = depth.max(d) + 1;
            if depth > MAX_DEPTH {
                return Err(self
                    .err(
                        start.to(self.prev_span()),
                        format!("terms nest deeper than {MAX_DEPTH} levels"),
                    )
                    .with_help("split the term with definitions"));
            }
            acc = join(t, acc);
        }
        Ok((acc, depth))
    }

    fn starts_primary(&self) -> bool {
        match self.peek() {
            Tok::Number(n) => n == "0" || n == "1",
            Tok::Ident(s) => !KEYWORDS.contains(&s.as_str()),
            Tok::Tilde | Tok::LParen | Tok::LBracket => true,
            _ => false,
        }
    }

    /// seq := postfix (('·' | '<w>') postfix)*, right-nested; juxtaposition is `·`.
    fn seq(&mut self) -> PResult<(Term, usize)> {
        let start = self.span();
        let mut items = vec![self.postfix()?];
        let mut ops = Vec::new();
        loop {
            if self.eat(&Tok::OmegaStar) {
                ops.push(true);
            } else if self.starts_primary() {
                ops.push(false);
            } else {
                break;
            }
            items.push(self.postfix()?);
        }
        // Fold from the right: a op1 (b op2 c).
        let mut it = items.into_iter().rev();
        let (mut acc, mut depth) = it.next().expect("at least one item");
        for ((t, d), omega) in it.zip(ops.into_iter().rev()) {
            depth = depth.max(d) + 1;
            if depth > MAX_DEPTH {
                return Err(self
                    .err(
                        start.to(self.prev_span()),
                        format!("terms nest deeper than {MAX_DEPTH} levels"),
                    )
                    .with_help("split the term with definitions"));
            }
            acc = if omega {
                Term::OmegaStar(Box::new(t), Box::new(acc))
            } else {
                Term::Seq(Box::new(t), Box::new(acc))
            };
        }
        Ok((acc, depth))
    }

    fn postfix(&mut self) -> PResult<(Term, usize)> {
        let start = self.span();
        let (mut t, mut depth) = self.primary()?;
        loop {
            let wrap: fn(Box<Term>) -> Term = if self.eat(&Tok::Star) {
                Term::Star
            } else if self.eat(&Tok::Omega) {
                Term::Omega
            } else {
                return Ok((t, depth));
            };
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(self
                    .err(
                        start.to(self.prev_span()),
                        format!("terms nest deeper than {MAX_DEPTH} levels"),
                    )
                    .with_help("split the term with definitions"));
            }
            t = wrap(Box::new(t));
        }
    }

    fn primary(&mut self) -> PResult<(Term, usize)> {
        let sp = self.span();
        match self.peek().clone() {
            Tok::Number(n) if n == "0" => {
                self.bump();
                Ok((Term::Zero, 1))
            }
            Tok::Number(n) if n == "1" => {
                self.bump();
                Ok((Term::One, 1))
            }
            Tok::Tilde => {
                self.bump();
                let inner_sp = self.span();
                let (inner, _) = self.primary()?;
                if matches!(inner, Term::Not(_)) {
                    return Err(self
                        .err(sp.to(self.prev_span()), "write `a` instead of `~~a`")
                        .with_label("double complement"));
                }
                if !self.is_pred_atom(&inner) {
                    return Err(self
                        .err(
                            inner_sp.to(self.prev_span()),
                            "`~` applies to a predicate atom or predicate variable",
                        )
                        .with_help(
                            "declare the atom with `pred`, or the variable with `var pred`",
                        ));
                }
                Ok((Term::Not(Box::new(inner)), 2))
            }
            Tok::LBracket => {
                self.bump();
                if !self.bracket_defined {
                    return Err(self
                        .err(sp, "`[x]` is used before the bracket is defined")
                        .with_help("define it first, as in `def (box) [x] = x + x q T + q T`"));
                }
                let (inner, d) = self.term_d()?;
                self.expect(Tok::RBracket, "`]`")?;
                Ok((Term::Bracket(Box::new(inner)), d + 1))
            }
            Tok::LParen => {
                self.bump();
                let binder = match self.peek() {
                    Tok::Plus => Some(true),
                    Tok::Dot => Some(false),
                    _ => None,
                };
                if let Some(is_sum) = binder {
                    self.bump();
                    let mut names = Vec::new();
                    loop {
                        let (k, ksp) = self.ident("an index to bind")?;
                        if k.contains('_') || k.contains('-') {
                            return Err(self.err(ksp, "a bound index is a plain name"));
                        }
                        names.push(k);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::Colon, "`:` after the bound indices")?;
                    let body_sp = self.span();
                    let (body, d) = self.term_d()?;
                    self.expect(Tok::RParen, "`)` to close the sum")?;
                    let depth = d + names.len();
                    if depth > MAX_DEPTH {
                        return Err(self.err(
                            body_sp,
                            format!("terms nest deeper than {MAX_DEPTH} levels"),
                        ));
                    }
                    if !is_sum {
                        let is_pred = |t: &Term| self.is_pred_atom(t);
                        if !body.is_predicate(&is_pred) {
                            return Err(self
                                .err(body_sp.to(self.prev_span()), "a product over threads must be of predicates")
                                .with_help("products `(.i : t)` are meets of predicates; t may use predicate atoms, complements, 0, 1, + and ·"));
                        }
                    }
                    let mut t = body;
                    for k in names.into_iter().rev() {
                        t = if is_sum {
                            Term::Sum(k, Box::new(t))
                        } else {
                            Term::Prod(k, Box::new(t))
                        };
                    }
                    return Ok((t, depth));
                }
                let (t, d) = self.term_d()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok((t, d))
            }
            Tok::Ident(name) if !KEYWORDS.contains(&name.as_str()) => {
                self.bump();
                self.resolve(&name, sp).map(|t| (t, 1))
            }
            other => Err(self
                .err(sp, format!("expected a term, found {}", other.describe()))
                .with_label("a term starts with 0, 1, an atom, `~`, `(` or `[`")),
        }
    }

    fn resolve(&self, name: &str, sp: Span) -> PResult<Term> {
        let (base, index) = split_index(name);
        match index {
            Some(i) => {
                if i.contains('_') || i.contains('-') || i.contains('\'') || i.is_empty() {
                    return Err(self.err(sp, format!("`{name}`: an index is a single plain name")));
                }
                let known = self.atoms.iter().any(|a| a.name == base && a.family)
                    || self.defs.iter().any(|(n, f)| n == base && *f)
                    || self.def_family_self(base);
                if !known {
                    return Err(self.err(sp, format!("unknown family `{base}`")).with_help(
                        format!("declare it, as in `elem {base}_i`, or define it with `def`"),
                    ));
                }
                Ok(Term::member(base, &i))
            }
            None => {
                if self.bracket_param.as_deref() == Some(name) {
                    return Ok(Term::Var(name.to_string()));
                }
                if self.atoms.iter().any(|a| a.name == name && !a.family)
                    || self.defs.iter().any(|(n, f)| n == name && !f)
                {
                    return Ok(Term::constant(name));
                }
                if let Some(_sort) = self.vars.get(name) {
                    if !self.vars_allowed {
                        return Err(self.err(sp, format!("schematic variable `{name}` cannot occur in a definition or hypothesis")));
                    }
                    return Ok(Term::Var(name.to_string()));
                }
                if self.atoms.iter().any(|a| a.name == name && a.family)
                    || self.defs.iter().any(|(n, f)| n == name && *f)
                {
                    return Err(self.err(
                        sp,
                        format!("`{name}` is a family; give it an index, as in `{name}_i`"),
                    ));
                }
                Err(self
                    .err(sp, format!("unknown name `{name}`"))
                    .with_help("declare atoms with `pred`/`elem`, schematic variables with `var`, and constants with `def`"))
            }
        }
    }

    fn def_family_self(&self, _base: &str) -> bool {
        // Family definitions are not recursive.
        false
    }
}

/// `u_i` is `("u", Some("i"))`; `q` is `("q", None)`.
pub(crate) fn split_index(name: &str) -> (&str, Option<String>) {
    match name.split_once('_') {
        Some((b, i)) => (b, Some(i.to_string())),
        None => (name, None),
    }
}

/// How the premises of a lemma are cited inside its proof.
pub fn premise_labels(n: usize) -> Vec<String> {
    if n == 1 {
        vec!["premise".to_string()]
    } else {
        (1..=n).map(|k| format!("premise{k}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLS: &str = "pred q, p_i\nelem u_i, v_i\nvar x, y, z\nvar pred a\ndef T = 1^w\n";

    #[allow(clippy::result_large_err)]
    fn script(body: &str) -> Result<Script, ParseError> {
        parse_script("t.proof", &format!("{DECLS}{body}"))
    }

    fn term(s: &str) -> String {
        let sc = script("").unwrap();
        parse_term(&sc, s).unwrap().to_string()
    }

    #[test]
    fn precedences_follow_the_digest() {
        let sc = script("").unwrap();
        let t = parse_term(&sc, "u_i v_i <w> x <w> y").unwrap();
        match &t {
            Term::Seq(a, b) => {
                assert_eq!(a.to_string(), "u_i");
                assert!(matches!(**b, Term::OmegaStar(..)));
            }
            other => panic!("unexpected parse {other:?}"),
        }
        assert_eq!(term("x + y z* + ~q"), "x + y z* + ~q");
        assert_eq!(term("(x + y) z"), "(x + y) z");
        assert_eq!(term("(u_i ~q)^w"), "(u_i ~q)^w");
        assert_eq!(term("(+i,j : u_i v_j)"), "(+i,j : u_i v_j)");
        assert_eq!(term("(.i : p_i)"), "(.i : p_i)");
    }

    #[test]
    fn parses_lemmas_chains_and_hints() {
        let s = script(
            "lemma one: 1 <= x* by { star-unfold }\n\
             lemma two: x y <= y z => x* y <= y z*\n\
             proof\n  x* y\n <= x* y z* { one }\n <= y z* { x y z* <= y z* by premise; star-ind-l[x := x, y := y z*] }\nqed\n",
        )
        .unwrap();
        let lemmas: Vec<_> = s.lemmas().collect();
        assert_eq!(lemmas.len(), 2);
        let Proof::Chain(c) = &lemmas[1].proof else {
            panic!("expected a chain")
        };
        assert_eq!(c.steps.len(), 2);
        assert_eq!(c.steps[1].hints.len(), 2);
        assert!(matches!(&c.steps[1].hints[0], Hint::Fact { by, .. } if by[0].label == "premise"));
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        let e = script("lemma bad: x <= y +\nproof qed").unwrap_err();
        assert_eq!((e.line, e.col), (7, 1));
        assert!(e.message.contains("expected a term"), "{}", e.message);
        let e = script("lemma bad: x <= w by {}").unwrap_err();
        assert!(e.message.contains("unknown name `w`"));
        assert_eq!(e.col, 17);
        assert!(e.snippet().contains("^"));
        let e = script("lemma bad: ~u_i <= 1 by {}").unwrap_err();
        assert!(e.message.contains("predicate"));
        let e = script("lemma bad: x <= x by { nothing }").unwrap_err();
        assert!(e.message.contains("unknown label"));
    }

    #[test]
    fn deep_or_long_terms_are_refused_not_overflowed() {
        let deep = format!(
            "lemma d: {}x{} <= x by {{}}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(script(&deep).unwrap_err().message.contains("nest deeper"));
        let ok = format!(
            "lemma d: {}x{} <= x by {{}}",
            "(".repeat(30),
            ")".repeat(30)
        );
        assert!(script(&ok).is_ok());
        let long = format!("lemma l: {} <= x by {{}}", vec!["x"; 100_000].join(" "));
        assert!(script(&long).unwrap_err().message.contains("nest deeper"));
        let sum = format!("lemma s: {} <= x by {{}}", vec!["x"; 100_000].join(" + "));
        assert!(script(&sum).unwrap_err().message.contains("nest deeper"));
        let stars = format!("lemma t: x{} <= x by {{}}", "*".repeat(100_000));
        assert!(script(&stars).unwrap_err().message.contains("nest deeper"));
        let ok = format!("lemma o: {} <= x by {{}}", vec!["x"; 100].join(" "));
        assert!(script(&ok).is_ok());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// No input makes the parser panic.
        #[test]
        fn parsing_never_panics(src in "[a-z_0-9 ()\\[\\]{}+*~=<>!.,;:^w\\n-]{0,120}") {
            let _ = parse_script("fuzz.proof", &src);
            let _ = script(&src);
        }

        /// Nor do well-formed pieces in random order.
        #[test]
        fn parsing_token_soup_never_panics(parts in proptest::collection::vec(proptest::sample::select(vec![
            "lemma", "l:", "x", "y", "u_i", "p_i", "~p_i", "q", "~q", "(", ")", "+", "*", "^w", "<w>",
            "<=", "=", "=>", "{", "}", ";", "by", "proof", "qed", "case", "i", "!=", "j", ":", "(+i :",
            "(.i :", "[", "]", "(1)", "[x := y]", "premise", "hyp", "(12):", "def", "T", "1", "0",
        ]), 0..40)) {
            let _ = script(&parts.join(" "));
        }
    }

    #[test]
    fn hypotheses_may_not_use_schematic_variables() {
        let e = script("hyp (1): x <= 1").unwrap_err();
        assert!(e.message.contains("schematic"));
    }
}
