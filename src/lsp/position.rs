//! Byte offsets into a document and the protocol's positions: a 0-based
//! line and a column counted in UTF-16 code units (what LSP clients use
//! unless they negotiate otherwise), so a name after an `é` or an emoji in
//! a comment is still underlined in the right place.

use lsp_types::{Position, Range};

use crate::syntax::span::{LineIndex, Span, floor_char_boundary};

/// A document's text with its line index, for converting positions.
pub(crate) struct Text<'a> {
    /// The text.
    pub text: &'a str,
    /// Where its lines start.
    pub index: &'a LineIndex,
}

impl Text<'_> {
    /// The position of byte offset `offset` (clamped to the text).
    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self.index.line(offset);
        let start = self.index.line_range(line).start;
        let col = self.text[start..offset].encode_utf16().count();
        Position::new(to_u32(line - 1), to_u32(col))
    }

    /// The byte offset of `pos`: a column past the end of its line is the
    /// end of the line, a line past the end of the text is the text's end,
    /// and a column inside a surrogate pair is the character's start.
    pub fn offset(&self, pos: Position) -> usize {
        let line = pos.line as usize + 1;
        if line > self.index.lines() {
            return self.text.len();
        }
        let range = self.index.line_range(line);
        let mut units = 0;
        for (i, c) in self.text[range.clone()].char_indices() {
            units += c.len_utf16();
            if units > pos.character as usize {
                return range.start + i;
            }
        }
        range.end
    }

    /// The range of a span.
    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<R>(text: &str, f: impl FnOnce(Text) -> R) -> R {
        let index = LineIndex::new(text);
        f(Text {
            text,
            index: &index,
        })
    }

    #[test]
    fn ascii_lines() {
        with("ab\ncd\n", |t| {
            assert_eq!(t.position(0), Position::new(0, 0));
            assert_eq!(t.position(2), Position::new(0, 2));
            assert_eq!(t.position(3), Position::new(1, 0));
            assert_eq!(t.position(5), Position::new(1, 2));
            assert_eq!(t.position(6), Position::new(2, 0));
            assert_eq!(t.position(99), Position::new(2, 0));
            assert_eq!(t.offset(Position::new(1, 1)), 4);
            assert_eq!(t.offset(Position::new(0, 99)), 2);
            assert_eq!(t.offset(Position::new(9, 0)), 6);
        });
    }

    #[test]
    fn utf16_columns() {
        // `é` is 2 bytes and 1 unit; `😀` is 4 bytes and 2 units.
        let text = "é😀x\n// ü\ny";
        with(text, |t| {
            let x = text.find('x').unwrap();
            assert_eq!(t.position(x), Position::new(0, 3));
            assert_eq!(t.offset(Position::new(0, 3)), x);
            // Inside the surrogate pair: the emoji's start.
            assert_eq!(t.offset(Position::new(0, 2)), 2);
            // An offset inside a character counts from its start.
            assert_eq!(t.position(1), Position::new(0, 0));
            let y = text.find('y').unwrap();
            assert_eq!(t.position(y), Position::new(2, 0));
            let span = Span::new(x, x + 1);
            assert_eq!(
                t.range(span),
                Range::new(Position::new(0, 3), Position::new(0, 4))
            );
        });
    }

    #[test]
    fn round_trip_at_every_boundary() {
        let text = "a\r\nbé\n😀😀 z\n\nend";
        with(text, |t| {
            for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
                assert_eq!(t.offset(t.position(i)), i, "offset {i}");
            }
        });
    }
}
