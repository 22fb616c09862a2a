//! Diagnostics: the errors `optimist check` would report, at the same
//! places, with the same messages and hints, published on every change.

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri,
};

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
                range: lines.range(p.span),
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
