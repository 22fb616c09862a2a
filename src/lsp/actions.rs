//! Quick fixes: for each "did you mean" in a diagnostic, replace the
//! misspelt word it underlines by the suggestion.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit, WorkspaceEdit,
};

use super::diagnostics::suggestion;
use super::document::Document;

/// The quick fixes for the diagnostics the client sends back.
pub(crate) fn fixes(doc: &Document, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let lines = doc.lines();
    let uri = &params.text_document.uri;
    params
        .context
        .diagnostics
        .iter()
        .filter_map(|d| {
            let word = suggestion(&d.message)?;
            // Only a diagnostic that underlines one name: the misspelling.
            let (from, to) = (lines.offset(d.range.start), lines.offset(d.range.end));
            let old = doc.text.get(from..to)?;
            let is_name = !old.is_empty() && old.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !is_name || old == word {
                return None;
            }
            let edit = TextEdit::new(d.range, word.to_string());
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Replace `{old}` with `{word}`"),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(WorkspaceEdit::new(HashMap::from([(
                    uri.clone(),
                    vec![edit],
                )]))),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect()
}
