//! What an error message shows of the source: the lines around its labels,
//! each line cut to a window around the places it points at.
//!
//! The renderer (miette) is handed this excerpt rather than the whole file,
//! for three reasons. It formats a caret's column as a padding width, which
//! must fit in a `u16`: a label past column 65,535 would panic it. It prints
//! whole lines, so an error in a 100,000-character line would print all of
//! it. And it finds a span's line by scanning the text from the start, for
//! every label. The excerpt keeps each label's real line number and column,
//! so the rendered `file:line:col` is the one of the source.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::span::{LineIndex, Span, floor_char_boundary};

/// Lines shown before and after a label's lines (miette's default).
const CONTEXT: usize = 1;
/// Longest line, in bytes, shown whole; longer ones are cut to windows.
const MAX_LINE: usize = 160;
/// Bytes kept on each side of a place a label points at, in a long line.
const WINDOW: usize = 40;
/// A label covering more lines than this is shown by its first line, so
/// that a span over a whole thread body does not print the body.
const MAX_LABEL_LINES: usize = 8;
/// Marks text left out of a long line.
const ELLIPSIS: &str = "...";

/// An excerpt of a source file, for rendering labels in it.
#[derive(Clone, Debug)]
pub struct Excerpt {
    name: String,
    text: String,
    lines: Vec<Line>,
}

/// One source line as it appears in the excerpt.
#[derive(Clone, Debug)]
struct Line {
    /// Offset of the line in the excerpt text.
    at: usize,
    /// Its length in the excerpt (without the `\n`).
    len: usize,
    /// 0-based line number in the source.
    number: usize,
    /// Runs of consecutive source lines share a group; a read never
    /// crosses groups, since the lines between them are not here.
    group: usize,
    /// The pieces of the source line kept, in order.
    pieces: Vec<Piece>,
}

/// A piece of a source line copied into the excerpt.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// Source byte range.
    from: usize,
    to: usize,
    /// Where it starts in the excerpt.
    at: usize,
    /// 0-based column (in characters) of `from` in its source line.
    col: usize,
}

impl Excerpt {
    /// The excerpt of `text` (indexed by `index`) that shows `spans`, and
    /// the spans translated into it.
    pub fn new(name: &str, text: &str, index: &LineIndex, spans: &[Span]) -> (Excerpt, Vec<Span>) {
        let spans: Vec<Span> = spans.iter().map(|&s| clamp(text, index, s)).collect();
        // The places each line must show: where labels start and end.
        let mut wanted: Vec<(usize, Option<usize>)> = Vec::new();
        // The empty "line" after a final `\n` is shown only when a label
        // points there, as the renderer does with a whole text.
        let shown = if index.line_range(index.lines()).is_empty() {
            index.lines() - 1
        } else {
            index.lines()
        };
        for s in &spans {
            let (first, last) = (index.line(s.start), index.line(s.end));
            for line in first.saturating_sub(CONTEXT).max(1)..=(last + CONTEXT).min(shown) {
                wanted.push((line, None));
            }
            wanted.push((first, Some(s.start)));
            wanted.push((last, Some(s.end)));
        }
        wanted.sort_unstable();
        wanted.dedup();
        let mut excerpt = Excerpt {
            name: name.to_string(),
            text: String::new(),
            lines: Vec::new(),
        };
        let mut k = 0;
        while k < wanted.len() {
            let line = wanted[k].0;
            let places: Vec<usize> = wanted[k..]
                .iter()
                .take_while(|w| w.0 == line)
                .filter_map(|w| w.1)
                .collect();
            k += wanted[k..].iter().take_while(|w| w.0 == line).count();
            excerpt.push_line(text, index, line, &places);
        }
        let spans = spans
            .iter()
            .map(|s| {
                let start = excerpt.map(index.line(s.start), s.start);
                let end = excerpt.map(index.line(s.end), s.end).max(start);
                Span::new(start, end)
            })
            .collect();
        (excerpt, spans)
    }

    /// Appends 1-based source line `line`, cut to windows around `places`
    /// when it is long.
    fn push_line(&mut self, text: &str, index: &LineIndex, line: usize, places: &[usize]) {
        let range = index.line_range(line);
        let end = if text[range.clone()].ends_with('\r') {
            range.end - 1
        } else {
            range.end
        };
        let start = range.start;
        let mut windows: Vec<(usize, usize)> = Vec::new();
        if end - start <= MAX_LINE {
            windows.push((start, end));
        } else if places.is_empty() {
            windows.push((start, start + 2 * WINDOW));
        } else {
            for &p in places {
                let (from, to) = (p.saturating_sub(WINDOW).max(start), (p + WINDOW).min(end));
                match windows.last_mut() {
                    Some(last) if from <= last.1 => last.1 = last.1.max(to),
                    _ => windows.push((from, to)),
                }
            }
        }
        let group = match self.lines.last() {
            Some(prev) if prev.number + 2 == line => prev.group,
            Some(prev) => prev.group + 1,
            None => 0,
        };
        let at = self.text.len();
        let mut pieces = Vec::new();
        for (from, to) in windows {
            let from = floor_char_boundary(text, from);
            let to = ceil_char_boundary(text, to.min(end));
            if from > start || !pieces.is_empty() {
                self.text.push_str(ELLIPSIS);
            }
            pieces.push(Piece {
                from,
                to,
                at: self.text.len(),
                col: text[start..from].chars().count(),
            });
            // Control characters would act on the terminal; they are shown
            // as spaces (one byte for one, so offsets stay the same).
            self.text.extend(text[from..to].chars().map(|c| {
                if c.is_ascii_control() && c != '\t' {
                    ' '
                } else {
                    c
                }
            }));
        }
        if pieces.last().is_some_and(|p| p.to < end) {
            self.text.push_str(ELLIPSIS);
        }
        self.lines.push(Line {
            at,
            len: self.text.len() - at,
            number: line - 1,
            group,
            pieces,
        });
        // Every line keeps its `\n`: the renderer draws a label only over
        // a line's bytes, so a label at the end of the last line needs it.
        self.text.push('\n');
    }

    /// The excerpt offset of source offset `p` on 1-based source line `line`.
    fn map(&self, line: usize, p: usize) -> usize {
        let Some(l) = self.lines.iter().find(|l| l.number + 1 == line) else {
            return self.text.len();
        };
        // The piece that holds p (every place a label points at is in one);
        // an offset past the kept text (a `\r`, the `\n`) is the line's end.
        match l.pieces.iter().rev().find(|piece| piece.from <= p) {
            Some(piece) => piece.at + (p.min(piece.to) - piece.from),
            None => l.at,
        }
    }

    /// The index of the excerpt line holding excerpt offset `p`.
    fn line_of(&self, p: usize) -> usize {
        self.lines.partition_point(|l| l.at <= p).saturating_sub(1)
    }

    /// 0-based source column of excerpt offset `p`, on excerpt line `k`.
    fn column(&self, k: usize, p: usize) -> usize {
        let line = &self.lines[k];
        match line.pieces.iter().rev().find(|piece| piece.at <= p) {
            Some(piece) => {
                let inside = p.min(piece.at + (piece.to - piece.from));
                piece.col + self.text[piece.at..inside].chars().count()
            }
            None => 0,
        }
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if self.lines.is_empty() || span.offset() + span.len() > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = self.line_of(span.offset());
        let last = self.line_of(
            (span.offset() + span.len())
                .saturating_sub(1)
                .max(span.offset()),
        );
        let group = self.lines[first].group;
        if self.lines[last].group != group {
            // The lines between are not in the excerpt: show the spans apart.
            return Err(MietteError::OutOfBounds);
        }
        let mut from = first;
        while from > 0 && first - from < before && self.lines[from - 1].group == group {
            from -= 1;
        }
        let mut to = last;
        while to + 1 < self.lines.len() && to - last < after && self.lines[to + 1].group == group {
            to += 1;
        }
        // Just the span (for the `[file:line:col]` header), or whole lines.
        let exact = before == 0 && after == 0;
        let (start, end, line, column) = if exact {
            let (start, end) = (span.offset(), span.offset() + span.len());
            (start, end, first, self.column(first, start))
        } else {
            let end = self.lines[to].at + self.lines[to].len + 1;
            (self.lines[from].at, end, from, 0)
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[start..end],
            (start, end - start).into(),
            self.lines[line].number,
            column,
            if exact { last - first } else { to - from },
        )))
    }
}

/// `s` within `text`, on char boundaries, and cut to its first line when it
/// covers many.
fn clamp(text: &str, index: &LineIndex, s: Span) -> Span {
    let start = floor_char_boundary(text, s.start.min(text.len()));
    let mut end = ceil_char_boundary(text, s.end.clamp(start, text.len()));
    let line = index.line(start);
    if index.line(end) > line + MAX_LABEL_LINES {
        end = index.line_range(line).end;
    }
    Span::new(start, end)
}

/// The smallest char boundary of `text` at or after `i` (`i <= text.len()`).
fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, spans: &[Span]) -> (Excerpt, Vec<Span>) {
        Excerpt::new("f.gc", text, &LineIndex::new(text), spans)
    }

    /// The line and column of `len` bytes at `start` of an excerpt, as
    /// miette reads them.
    fn line_column(e: &Excerpt, start: usize, len: usize) -> (usize, usize) {
        let c = e.read_span(&SourceSpan::from((start, len)), 0, 0).unwrap();
        (c.line(), c.column())
    }

    #[test]
    fn short_lines_are_copied_whole() {
        let text = "a\nbb\ncc\ndd\nee\n";
        let (e, spans) = excerpt(text, &[Span::new(6, 7)]);
        assert_eq!(e.text, "bb\ncc\ndd\n");
        assert_eq!(&e.text[spans[0].start..spans[0].end], "c");
        assert_eq!(line_column(&e, spans[0].start, 1), (2, 1));
    }

    #[test]
    fn long_lines_are_cut_around_the_label() {
        let text = format!("x\n{}HERE{}\ny", "a".repeat(100_000), "b".repeat(100_000));
        let at = 2 + 100_000;
        let (e, spans) = excerpt(&text, &[Span::new(at, at + 4)]);
        assert!(e.text.len() < 300, "{}", e.text);
        assert_eq!(&e.text[spans[0].start..spans[0].end], "HERE");
        assert_eq!(line_column(&e, spans[0].start, 4), (1, 100_000));
    }

    #[test]
    fn spans_at_the_end_of_the_text() {
        for text in ["a", "a\n", "a\r\n", "\n\n"] {
            let (e, spans) = excerpt(text, &[Span::new(text.len(), text.len() + 5)]);
            assert!(spans[0].start <= e.text.len(), "{text:?}");
            e.read_span(&SourceSpan::from((spans[0].start, 0)), 1, 1)
                .unwrap();
        }
    }

    proptest::proptest! {
        /// Whatever the text and the spans, the error renders.
        #[test]
        fn any_span_renders(
            text in "[a-c \\t\\r\\né\\u{1b}]{1,300}",
            long in 0usize..3,
            spans in proptest::collection::vec((0usize..400, 0usize..400), 1..4),
        ) {
            // Some texts get a line past column 65,535.
            let text = format!("{text}{}", "x".repeat(long * 40_000));
            let Ok(src) = crate::Source::new("f.gc", text) else { return Ok(()) };
            let scale = |k: usize| k * src.text.len() / 300;
            let spans: Vec<Span> = spans.iter().map(|&(a, b)| Span::new(scale(a), scale(a) + b)).collect();
            let related = spans[1..].iter().map(|&s| (s, "there".to_string())).collect();
            let err = crate::Error::at(&src, spans[0], "message".into(), None, related);
            let mut out = String::new();
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
                .render_report(&mut out, &err)
                .unwrap();
            proptest::prop_assert!(out.contains("f.gc:"));
            proptest::prop_assert!(out.len() < 5_000, "{}", out.len());
        }
    }

    #[test]
    fn far_apart_labels_do_not_read_across() {
        let text = (0..100).map(|i| format!("line {i}\n")).collect::<String>();
        let (e, spans) = excerpt(
            &text,
            &[Span::new(0, 4), Span::new(text.len() - 8, text.len() - 1)],
        );
        assert_eq!(e.lines.len(), 4);
        let across = SourceSpan::from((spans[0].start, spans[1].end - spans[0].start));
        assert!(e.read_span(&across, 1, 1).is_err());
    }
}
