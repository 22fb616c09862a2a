//! Errors of the library: malformed scripts and unreadable certificates.

use miette::{NamedSource, SourceSpan};

use crate::script::{Span, line_col};

/// A malformed proof script: where, what, and the offending line.
///
/// `Display` gives `file:line:col: message`; [`ParseError::snippet`] adds the
/// source line with a caret, and the `miette::Diagnostic` implementation lets
/// a renderer draw the same.
#[derive(Debug, Clone, thiserror::Error, miette::Diagnostic)]
#[error("{file}:{line}:{col}: {message}")]
#[diagnostic(code(optimist::proof::syntax))]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// The file name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub col: usize,
    /// The text of the offending line.
    pub source_line: String,
    /// How to fix it, when known.
    #[help]
    pub help: Option<String>,
    #[source_code]
    source_code: NamedSource<String>,
    #[label("{label}")]
    span: SourceSpan,
    label: String,
}

impl ParseError {
    pub(crate) fn new(file: &str, source: &str, span: Span, message: impl Into<String>) -> Self {
        let (line, col) = line_col(source, span.start);
        let source_line = source.lines().nth(line - 1).unwrap_or("").to_string();
        let start = span.start.min(source.len());
        let end = span.end.clamp(start, source.len());
        ParseError {
            message: message.into(),
            file: file.to_string(),
            line,
            col,
            source_line,
            help: None,
            source_code: NamedSource::new(file, source.to_string()),
            span: (start, end - start).into(),
            label: "here".to_string(),
        }
    }

    pub(crate) fn with_help(mut self: Box<Self>, help: impl Into<String>) -> Box<Self> {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn with_label(mut self: Box<Self>, label: impl Into<String>) -> Box<Self> {
        self.label = label.into();
        self
    }

    /// `file:line:col: message`, the source line and a caret under the error.
    pub fn snippet(&self) -> String {
        let width = self.span.len().max(1);
        let pad: String = self
            .source_line
            .chars()
            .take(self.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let mut s = format!(
            "{self}\n  {}\n  {pad}{}",
            self.source_line,
            "^".repeat(
                width.min(
                    self.source_line
                        .chars()
                        .count()
                        .saturating_sub(self.col - 1)
                        .max(1)
                )
            )
        );
        if let Some(h) = &self.help {
            s.push_str(&format!("\n  help: {h}"));
        }
        s
    }
}

/// A certificate that cannot be read or does not check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    /// The file is not valid certificate JSON.
    #[error("malformed certificate: {0}")]
    Malformed(String),
    /// A recorded inference does not hold, or the certificate claims or
    /// assumes something other than the paper.
    #[error("{lemma}: {location}: {reason}")]
    Rejected {
        /// The lemma whose proof is wrong (`-` for the theory).
        lemma: String,
        /// Which step and node, or `theory`, `claim`, `statement`.
        location: String,
        /// What does not check, naming the core's rule.
        reason: String,
    },
    /// Replaying the certificate went past a bound of the core (term size,
    /// term depth or total work): it is neither accepted nor shown wrong.
    #[error("{lemma}: {location}: {reason}")]
    Limit {
        /// The lemma being replayed.
        lemma: String,
        /// Which step and node.
        location: String,
        /// Which bound, naming the core's rule.
        reason: String,
    },
}
