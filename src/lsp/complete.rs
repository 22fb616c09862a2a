//! Completion: the language's keywords and the names declared where the
//! cursor is (a thread's locals and labels only inside that thread).

use lsp_types::{CompletionItem, CompletionItemKind, Position};

use crate::ast::KEYWORDS;

use super::document::Document;
use super::names::Kind;

/// The completions at `pos`; the client filters them by what is typed.
pub(crate) fn at(doc: &Document, pos: Position) -> Vec<CompletionItem> {
    let offset = doc.lines().offset(pos);
    let mut out: Vec<CompletionItem> = Vec::new();
    if let Some(names) = doc.names.as_ref().or(doc.previous.as_ref()) {
        out.extend(names.in_scope(offset).into_iter().map(|d| CompletionItem {
            label: d.name.clone(),
            kind: Some(kind(d.kind)),
            detail: Some(d.kind.word().to_string()),
            ..CompletionItem::default()
        }));
    }
    out.extend(KEYWORDS.iter().map(|k| CompletionItem {
        label: k.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        ..CompletionItem::default()
    }));
    out
}

fn kind(k: Kind) -> CompletionItemKind {
    match k {
        Kind::Variable | Kind::Local | Kind::Parameter => CompletionItemKind::VARIABLE,
        Kind::Lock | Kind::Semaphore | Kind::Channel => CompletionItemKind::VARIABLE,
        Kind::Constant => CompletionItemKind::CONSTANT,
        Kind::Thread => CompletionItemKind::CLASS,
        Kind::Procedure => CompletionItemKind::FUNCTION,
        Kind::Label => CompletionItemKind::REFERENCE,
        Kind::Property => CompletionItemKind::PROPERTY,
    }
}
