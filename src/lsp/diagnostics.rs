//! Diagnostics: the errors `optimist check` would report, at the same
//! places, with the same messages and hints, published on every change.

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri,
};

use crate::syntax::span::{Span, floor_char_boundary};

use super::document::Document;

/// The source name diagnostics carry, shown by editors beside the message.
const SOURCE: &str = "optimist";

/// The diagnostics of a document: empty when it compiles.
pub(crate) fn of(uri: &Uri, doc: &Document) -> Vec<Diagnostic> {
    let lines = doc.lines();
    doc.problems
        .iter()
        .map(|p| {
            let message = match &p.help {
                Some(help) => format!("{}\nhelp: {help}", p.message),
                None => p.message.clone(),
            };
            let related = p
                .related
                .iter()
                .map(|(span, what)| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), lines.range(*span)),
                    message: what.clone(),
                })
                .collect::<Vec<_>>();
            Diagnostic {
                range: lines.range(widen(&doc.text, p.span)),
                severity: Some(DiagnosticSeverity::ERROR),
                code: suggestion(&message).map(|_| NumberOrString::String("did-you-mean".into())),
                source: Some(SOURCE.into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                ..Diagnostic::default()
            }
        })
        .collect()
}

/// An empty span (the place where a parse stopped, shown by a caret on
/// the command line) widened to the word or character there: editors
/// underline nothing, or almost nothing, for an empty range.
fn widen(text: &str, span: Span) -> Span {
    let start = floor_char_boundary(text, span.start.min(text.len()));
    if !span.is_empty() {
        return span;
    }
    let rest = &text[start..];
    let word = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    match (word, rest.chars().next()) {
        (0, Some(c)) if c != '\n' && c != '\r' => Span::new(start, start + c.len_utf8()),
        // At the end of a line or of the text: the character before, if
        // the line has one.
        (0, _) => match text[..start].chars().next_back() {
            Some(c) if c != '\n' => Span::new(start - c.len_utf8(), start),
            _ => Span::new(start, start),
        },
        (n, _) => Span::new(start, start + n),
    }
}

/// The word a message suggests instead ("... did you mean `acquire`?").
pub(crate) fn suggestion(message: &str) -> Option<&str> {
    const CUE: &str = "did you mean `";
    let from = message.find(CUE)? + CUE.len();
    let len = message[from..].find('`')?;
    Some(&message[from..from + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_spans_cover_the_word_or_character_there() {
        let text = "ab cd;\né";
        let w = |s: usize| {
            let s = widen(text, Span::new(s, s));
            (s.start, s.end)
        };
        assert_eq!(w(3), (3, 5));
        assert_eq!(w(5), (5, 6));
        // At the end of a line: the character before.
        assert_eq!(w(6), (5, 6));
        assert_eq!(w(7), (7, 9));
        assert_eq!(w(99), (7, 9));
        assert_eq!(widen("\n", Span::new(1, 1)).len(), 0);
        let span = widen(text, Span::new(0, 1));
        assert_eq!((span.start, span.end), (0, 1));
    }

    #[test]
    fn suggestions_are_read_from_the_message() {
        assert_eq!(
            suggestion("unknown statement `aquire`; did you mean `acquire`?"),
            Some("acquire")
        );
        assert_eq!(
            suggestion("unknown name `cuont`\nhelp: did you mean `count`?"),
            Some("count")
        );
        assert_eq!(suggestion("unknown name `zz`"), None);
    }
}
