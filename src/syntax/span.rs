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
///
/// This scans the text up to `offset`: for one position. Code that converts
/// many positions builds a [`LineIndex`] once instead.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    LineIndex::new(text).line_col(text, offset)
}

/// The start of every line of a text, so that a byte offset becomes a line
/// number by binary search instead of a scan from the start of the file:
/// compiling a model converts a span for every statement, and rescanning
/// made that quadratic in the file's length.
///
/// Lines end at `\n` (a `\r` before it belongs to the line), as in the
/// `file:line:col` locations of every message.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of the first byte of each line; `starts[0] == 0`.
    starts: Vec<usize>,
    /// Length of the text.
    len: usize,
}

impl LineIndex {
    /// Indexes `text`, in one pass.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Number of lines (a text ending in `\n` has an empty last line).
    pub fn lines(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line of a byte offset (offsets past the end count as the end).
    pub fn line(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset)
    }

    /// Byte range of 1-based line `line`, without its `\n`.
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let k = line.clamp(1, self.starts.len()) - 1;
        let start = self.starts[k];
        let end = self.starts.get(k + 1).map_or(self.len, |&next| next - 1);
        start..end
    }

    /// 1-based line and column (in characters) of a byte offset into
    /// `text`, the text this index was built from.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line(offset);
        let start = self.line_range(line).start;
        (line, text[start..offset].chars().count() + 1)
    }
}

/// The largest char boundary of `text` at or before `i` (`i <= text.len()`).
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition the index must agree with: count what comes before.
    fn by_scanning(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..floor_char_boundary(text, offset.min(text.len()))];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    #[test]
    fn agrees_with_scanning_at_every_offset() {
        for text in [
            "",
            "\n",
            "a",
            "ab\ncd",
            "ab\ncd\n",
            "\n\nx\n",
            "é\nüx\r\ny",
            "no newline at the end",
        ] {
            let index = LineIndex::new(text);
            for offset in 0..=text.len() + 2 {
                assert_eq!(
                    index.line_col(text, offset),
                    by_scanning(text, offset),
                    "{text:?} at {offset}"
                );
            }
        }
    }

    #[test]
    fn line_ranges() {
        let text = "ab\n\ncd";
        let index = LineIndex::new(text);
        assert_eq!(index.lines(), 3);
        assert_eq!(
            (1..=3).map(|l| index.line_range(l)).collect::<Vec<_>>(),
            [0..2, 3..3, 4..6]
        );
        assert_eq!(LineIndex::new("").line_range(1), 0..0);
        assert_eq!(LineIndex::new("x\n").line_range(2), 2..2);
    }
}
