//! Document symbols: the outline of a model, with each thread's and
//! procedure's locals and labels inside it.

use lsp_types::{DocumentSymbol, SymbolKind};

use crate::ast::Item;
use crate::syntax::span::Span;

use super::document::Document;
use super::names::{Decl, Kind};

/// The outline of a document that parses.
pub(crate) fn outline(doc: &Document) -> Vec<DocumentSymbol> {
    let (Some(ast), Some(names)) = (&doc.ast, &doc.names) else {
        return Vec::new();
    };
    let symbol = |d: &Decl, children: Vec<DocumentSymbol>| make(doc, d, children);
    let inside = |span: Span| -> Vec<DocumentSymbol> {
        names
            .decls
            .iter()
            .filter(|d| d.scope.is_some_and(|s| s.start == span.start))
            .map(|d| symbol(d, Vec::new()))
            .collect()
    };
    let mut out = Vec::new();
    for d in names.decls.iter().filter(|d| d.scope.is_none()) {
        let children = match d.kind {
            Kind::Thread | Kind::Procedure => inside(d.whole),
            _ => Vec::new(),
        };
        out.push(symbol(d, children));
    }
    for item in &ast.items {
        if let Item::Invariant(e, span) = item {
            let text = doc.text.get(e.span.start..e.span.end).unwrap_or("");
            out.push(plain(
                doc,
                format!("invariant {}", one_line(text)),
                *span,
                *span,
            ));
        }
    }
    out.sort_by_key(|s| (s.range.start.line, s.range.start.character));
    out
}

fn make(doc: &Document, d: &Decl, children: Vec<DocumentSymbol>) -> DocumentSymbol {
    let mut s = plain(doc, d.name.clone(), d.whole, d.span);
    s.kind = kind(d.kind);
    s.detail = Some(d.kind.word().to_string());
    s.children = (!children.is_empty()).then_some(children);
    s
}

#[allow(deprecated)] // `deprecated` is a field the protocol still requires
fn plain(doc: &Document, name: String, whole: Span, at: Span) -> DocumentSymbol {
    let lines = doc.lines();
    DocumentSymbol {
        name,
        detail: None,
        kind: SymbolKind::PROPERTY,
        tags: None,
        deprecated: None,
        range: lines.range(whole),
        selection_range: lines.range(at),
        children: None,
    }
}

fn kind(k: Kind) -> SymbolKind {
    match k {
        Kind::Variable | Kind::Local => SymbolKind::VARIABLE,
        Kind::Lock | Kind::Semaphore => SymbolKind::OBJECT,
        Kind::Channel => SymbolKind::EVENT,
        Kind::Constant => SymbolKind::CONSTANT,
        Kind::Thread => SymbolKind::CLASS,
        Kind::Procedure => SymbolKind::FUNCTION,
        Kind::Parameter => SymbolKind::TYPE_PARAMETER,
        Kind::Label => SymbolKind::ENUM_MEMBER,
        Kind::Property => SymbolKind::PROPERTY,
    }
}

/// A text on one line, its runs of whitespace as one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
