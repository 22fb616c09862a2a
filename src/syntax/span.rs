//! Byte spans into the source text.

/// A byte range `start..end` into a model's source text.
///
/// Spans never take part in AST equality: two ASTs that differ only in where
/// their nodes came from are equal, which is what the pretty-printer
/// round-trip test needs (the same choice `syn` makes for its spans).
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The number of bytes covered.
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers nothing.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> miette::SourceSpan {
        (s.start, s.len()).into()
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
