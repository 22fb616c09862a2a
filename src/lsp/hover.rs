//! Hover: what a name is, and, on a statement or its label, whether the
//! default reduction (Stoller and Cohen's, `sc`) treats its transition as
//! visible or invisible, and why.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use crate::model::{FREE, Model, SlotClass, SlotKind};
use crate::syntax::span::Span;

use super::document::Document;
use super::names::{Decl, Kind};
use super::symbols::one_line;

/// Most threads listed for one statement.
const MAX_THREADS: usize = 6;
/// Most lines of a declaration shown.
const MAX_LINES: usize = 6;
/// Most values listed for one array.
const MAX_VALUES: usize = 8;

/// The hover at `pos`, in Markdown.
pub(crate) fn at(doc: &Document, pos: Position) -> Option<Hover> {
    let offset = doc.lines().offset(pos);
    let decl = doc.names.as_ref().and_then(|n| {
        let k = n.decl_at(offset)?;
        Some(&n.decls[k])
    });
    let (text, span) = match decl {
        Some(d) if d.kind == Kind::Label => (label(doc, d)?, d.span),
        Some(d) => (name(doc, d), d.span),
        None => statement(doc, offset)?,
    };
    // The range of the word hovered, or of the statement.
    let range = match doc.names.as_ref().and_then(|n| n.token_at(offset)) {
        Some(t) if decl.is_some() => t.span,
        _ => span,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(doc.lines().range(range)),
    })
}

/// A declared name: its declaration and, for a variable, what the
/// compiled model says of it.
fn name(doc: &Document, d: &Decl) -> String {
    let declared = doc.text.get(d.whole.start..d.whole.end).unwrap_or("");
    // As written, comments and all (joined on one line, a `//` would hide
    // the rest), its first lines only.
    let mut head: Vec<&str> = declared.lines().take(MAX_LINES + 1).collect();
    if head.len() > MAX_LINES {
        head[MAX_LINES] = "...";
    }
    let head = head.join("\n");
    let mut out = format!("{} `{}`\n\n```optimist\n{head}\n```", d.kind.word(), d.name);
    let facts = match (&doc.model, d.kind) {
        (
            Some(m),
            Kind::Variable | Kind::Local | Kind::Lock | Kind::Semaphore | Kind::Parameter,
        ) => variable(m, d),
        (Some(m), Kind::Thread) => {
            let copies: Vec<&str> = (m.threads.iter())
                .filter(|t| t.body.start >= d.whole.start && t.body.start < d.whole.end)
                .map(|t| t.name.as_str())
                .collect();
            vec![format!("runs as {}", list(&copies))]
        }
        (None, _) => vec!["(the model does not compile yet: no more to say)".to_string()],
        _ => Vec::new(),
    };
    for f in facts {
        out += &format!("\n\n{f}");
    }
    out
}

/// What the model says of variable `d`.
fn variable(m: &Model, d: &Decl) -> Vec<String> {
    let slots: Vec<usize> = (0..m.slots.len())
        .filter(|&s| {
            let slot = &m.slots[s];
            slot.span.start == d.whole.start
                && !matches!(slot.kind, SlotKind::Pc | SlotKind::Ret)
                && names(&slot.name, &d.name)
        })
        .collect();
    let Some(&first) = slots.first() else {
        return Vec::new();
    };
    let slot = &m.slots[first];
    let (lo, hi) = m.bounds[first];
    let ty = match slot.kind {
        SlotKind::Bool => "type: `bool`".to_string(),
        SlotKind::Lock => "type: lock, `free` or the id of the thread that holds it".to_string(),
        SlotKind::Sem => format!("type: semaphore, range `{lo}..{hi}`"),
        _ => format!("type: integer, range `{lo}..{hi}`"),
    };
    let class = match slot.class {
        SlotClass::Shared => "shared and unprotected: every statement that reads or writes it is visible to the reduction".to_string(),
        SlotClass::Local(t) => {
            let owners = (slots.iter())
                .filter_map(|&s| match m.slots[s].class {
                    SlotClass::Local(t) => Some(t),
                    _ => None,
                })
                .collect::<std::collections::BTreeSet<u32>>()
                .len();
            match owners {
                1 => format!("local to thread `{}`: no other thread sees it", m.threads[t as usize].name),
                n => format!("local: each of the {n} threads that run this body has its own copy"),
            }
        }
        SlotClass::Protected => match m.protected.iter().find(|p| p.slot as usize == first) {
            Some(p) => {
                let text = one_line(&p.text);
                match text.strip_prefix("by ") {
                    Some(lock) => format!("protected by `{lock}`: the thread that holds it accesses it invisibly"),
                    None => format!("protected by `{text}`: a thread for which that predicate holds accesses it invisibly"),
                }
            }
            None => "protected".to_string(),
        },
    };
    let values: Vec<String> = slots
        .iter()
        .take(MAX_VALUES)
        .map(|&s| {
            let v = m.init[s];
            let shown = match m.slots[s].kind {
                SlotKind::Lock if v == FREE => "free".to_string(),
                SlotKind::Bool => (v != 0).to_string(),
                _ => v.to_string(),
            };
            match slots.len() {
                1 => format!("`{shown}`"),
                _ => format!("`{}` = `{shown}`", m.slots[s].name),
            }
        })
        .collect();
    let more = match slots.len() > MAX_VALUES {
        true => format!(" and {} more", slots.len() - MAX_VALUES),
        false => String::new(),
    };
    vec![
        ty,
        class,
        format!("initial value: {}{more}", values.join(", ")),
    ]
}

/// Whether slot `slot` (`x`, `x[1]`, `T0.x`, `T0.x[1]`) is of variable `var`:
/// one declaration can declare several (`lock mx, my;`).
fn names(slot: &str, var: &str) -> bool {
    let base = slot.split('[').next().unwrap_or(slot);
    base.rsplit('.').next() == Some(var)
}

/// A label: the statement it labels.
fn label(doc: &Document, d: &Decl) -> Option<String> {
    let m = doc.model.as_ref()?;
    let trs: Vec<usize> = (0..m.transitions.len())
        .filter(|&k| {
            let p = m.point_of(&m.transitions[k]);
            p.label.as_deref() == Some(d.name.as_str())
                && p.span.start >= d.whole.start
                && p.span.start <= d.whole.end
        })
        .collect();
    Some(format!(
        "label `{}`\n\n{}",
        d.name,
        transitions(doc, m, &trs)?
    ))
}

/// The statement at `offset`: the smallest whose transition covers it.
fn statement(doc: &Document, offset: usize) -> Option<(String, Span)> {
    let m = doc.model.as_ref()?;
    let inside = |s: Span| s.start <= offset && offset < s.end;
    let best = (m.transitions.iter())
        .filter(|t| inside(t.span))
        .min_by_key(|t| t.span.len())?
        .span;
    let trs: Vec<usize> = (0..m.transitions.len())
        .filter(|&k| {
            (m.transitions[k].span.start, m.transitions[k].span.end) == (best.start, best.end)
        })
        .collect();
    Some((transitions(doc, m, &trs)?, best))
}

/// Transitions of one statement, thread by thread, with their class.
fn transitions(doc: &Document, m: &Model, trs: &[usize]) -> Option<String> {
    let first = &m.transitions[*trs.first()?];
    let class = doc.classification()?;
    let mut out = format!(
        "statement `{}` (line {})\n\nUnder the default reduction (sc):",
        first.text, first.line
    );
    for &k in trs.iter().take(MAX_THREADS) {
        let (tr, c) = (&m.transitions[k], &class.transitions[k]);
        let thread = &m.threads[tr.thread as usize].name;
        let why = c.reason.describe(m);
        let verdict = match (c.own, c.visible) {
            (true, _) => format!("**visible**: it {why}"),
            (false, true) => format!(
                "**visible**, though by itself it {why}: another transition from its control point is visible, and a point's transitions are all visible or all invisible"
            ),
            (false, false) => format!(
                "**invisible**: it {why}, so the reduction runs it within its thread's step without storing the states in between"
            ),
        };
        out += &format!("\n\n- thread `{thread}`: {verdict}");
    }
    if trs.len() > MAX_THREADS {
        out += &format!("\n\n- and {} more", trs.len() - MAX_THREADS);
    }
    Some(out)
}

fn list(names: &[&str]) -> String {
    match names {
        [] => "no thread".to_string(),
        [one] => format!("thread `{one}`"),
        _ => format!("{} copies: `{}`", names.len(), names.join("`, `")),
    }
}
