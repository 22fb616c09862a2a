//! Errors in the user's input: reading, parsing and compiling a model.
//!
//! Every variant that has a place in the source carries the source text and
//! a span, so the binary can render `file:line:col`, the line and a caret.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use miette::{Diagnostic, LabeledSpan, SourceSpan};

use crate::model::CompileError;
use crate::syntax::excerpt::Excerpt;
use crate::syntax::parser::SyntaxError;
use crate::syntax::span::{LineIndex, Span, line_col};

/// A model's source text and the name it is shown under.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path as the user gave it.
    pub name: String,
    /// The text.
    pub text: Arc<str>,
    /// Where its lines start, built on first use.
    lines: Arc<OnceLock<LineIndex>>,
}

impl Source {
    /// Reads a model file, rejecting missing, unreadable, non-UTF-8 and empty files.
    ///
    /// The path `-` reads standard input, shown as `<stdin>`.
    pub fn read(path: &Path) -> Result<Source, Error> {
        let stdin = path == Path::new("-");
        let name = if stdin {
            "<stdin>".to_string()
        } else {
            path.display().to_string()
        };
        let bytes = if stdin {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map(|_| bytes)
        } else {
            std::fs::read(path)
        };
        let bytes = bytes.map_err(|source| Error::Io {
            path: name.clone(),
            reason: io_reason(&source),
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let good = e.utf8_error().valid_up_to();
                let prefix = String::from_utf8_lossy(&e.as_bytes()[..good]);
                let (line, col) = line_col(&prefix, good);
                let (what, help) = not_utf8(e.as_bytes(), good);
                return Err(Error::NotUtf8 {
                    path: name,
                    line,
                    col,
                    what,
                    help,
                });
            }
        };
        Source::new(name, text)
    }

    /// A source from text already in memory (rejected when empty).
    ///
    /// A UTF-8 byte-order mark at the start, which some editors write, is
    /// dropped, as compilers do; anywhere else it is a syntax error.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Result<Source, Error> {
        let (name, mut text) = (name.into(), text.into());
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if text.trim().is_empty() {
            return Err(Error::Empty { path: name });
        }
        Ok(Source {
            name,
            text: text.into(),
            lines: Arc::default(),
        })
    }

    /// `file:line:col` of a byte offset.
    pub fn location(&self, offset: usize) -> String {
        let (line, col) = self.line_index().line_col(&self.text, offset);
        format!("{}:{line}:{col}", self.name)
    }

    /// The line index of the text.
    pub fn line_index(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// The file stem, used as the model's name when it has no `system` line.
    pub fn stem(&self) -> String {
        Path::new(&self.name)
            .file_stem()
            .map_or("model".to_string(), |s| s.to_string_lossy().into_owned())
    }
}

/// What the first byte that is not UTF-8 (at `at`) says of the file, and
/// how to convert it.
fn not_utf8(bytes: &[u8], at: usize) -> (String, String) {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return (
            "it begins with a UTF-16 byte-order mark".into(),
            "the file is UTF-16; convert it to UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`)".into(),
        );
    }
    let head = &bytes[..bytes.len().min(4096)];
    if head.contains(&0) {
        return (
            format!("byte 0x{:02X}, and NUL bytes: is it text?", bytes[at]),
            "models are UTF-8 text; check that this is the model file".into(),
        );
    }
    (
        format!("byte 0x{:02X}", bytes[at]),
        "models are UTF-8 text; a file saved as Latin-1 or Windows-1252 can be converted (e.g. `iconv -f WINDOWS-1252 -t UTF-8`)".into(),
    )
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => e.to_string(),
    }
}

/// An error in the user's input. All of them exit with code 2.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The path given.
        path: String,
        /// Why not.
        reason: String,
    },
    /// The file is not UTF-8.
    #[error("{path}:{line}:{col}: the file is not valid UTF-8 ({what})")]
    NotUtf8 {
        /// The path given.
        path: String,
        /// Line of the first invalid byte.
        line: usize,
        /// Column of the first invalid byte.
        col: usize,
        /// The byte, or what the file seems to be.
        what: String,
        /// How to convert it.
        #[help]
        help: String,
    },
    /// The file holds nothing but whitespace.
    #[error("{path}: the model is empty")]
    #[diagnostic(help("a model needs at least one thread; see the examples in models/"))]
    Empty {
        /// The path given.
        path: String,
    },
    /// A syntax or static error at a place in the source.
    #[error("{location}: {message}")]
    Input {
        /// `file:line:col`.
        location: String,
        /// The same place, in parts, with its source line (for JSON).
        place: ErrorPlace,
        /// What is wrong.
        message: String,
        /// The lines of the source around the labels, for the snippet.
        #[source_code]
        src: Excerpt,
        /// The place and any related places.
        #[label(collection)]
        labels: Vec<LabeledSpan>,
        /// How to fix it.
        #[help]
        help: Option<String>,
    },
    /// A static error with no place in the source (such as a bad `-D`).
    #[error("{file}: {message}")]
    Usage {
        /// The model file.
        file: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        #[help]
        help: Option<String>,
    },
    /// Command-line usage that is wrong whatever the model.
    #[error("{0}")]
    Refused(String),
}

/// Where an input error is: what `file:line:col` and the snippet show,
/// as data for `--format json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ErrorPlace {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// The source line; a long one cut to a window around the column.
    pub source_line: String,
}

impl ErrorPlace {
    fn of(src: &Source, offset: usize) -> ErrorPlace {
        // As in the rendered snippet: a line of any length costs little.
        const WINDOW: usize = 80;
        let index = src.line_index();
        let (line, col) = index.line_col(&src.text, offset);
        let text = &src.text[index.line_range(line)];
        let source_line = if text.chars().count() <= 2 * WINDOW {
            text.to_string()
        } else {
            let from = col.saturating_sub(WINDOW);
            let cut: String = text.chars().skip(from).take(2 * WINDOW).collect();
            format!("{}{cut}...", if from > 0 { "..." } else { "" })
        };
        ErrorPlace {
            file: src.name.clone(),
            line,
            col,
            source_line,
        }
    }
}

impl Error {
    /// Where the error is in the source, when it has a place.
    pub fn place(&self) -> Option<&ErrorPlace> {
        match self {
            Error::Input { place, .. } => Some(place),
            _ => None,
        }
    }

    /// A syntax error in `src`.
    pub fn syntax(src: &Source, e: SyntaxError) -> Error {
        Error::at(src, e.span, e.message, e.help, Vec::new())
    }

    /// A static error in `src`.
    pub fn compile(src: &Source, e: CompileError) -> Error {
        match e.span {
            Some(span) => Error::at(src, span, e.message, e.help, e.related),
            None => Error::Usage {
                file: src.name.clone(),
                message: e.message,
                help: e.help,
            },
        }
    }

    /// An error at `span`, with related places.
    ///
    /// Any span renders, whatever its offsets: past the end of the text, in
    /// a column past 65,535, or over thousands of lines (see [`Excerpt`]).
    pub fn at(
        src: &Source,
        span: Span,
        message: String,
        help: Option<String>,
        related: Vec<(Span, String)>,
    ) -> Error {
        let spans: Vec<Span> = std::iter::once(span)
            .chain(related.iter().map(|r| r.0))
            .collect();
        let (excerpt, shown) = Excerpt::new(&src.name, &src.text, src.line_index(), &spans);
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some("here".into()),
            SourceSpan::from(shown[0]),
        )];
        labels.extend(
            related
                .into_iter()
                .zip(&shown[1..])
                .map(|((_, what), &s)| LabeledSpan::new_with_span(Some(what), SourceSpan::from(s))),
        );
        Error::Input {
            location: src.location(span.start),
            place: ErrorPlace::of(src, span.start),
            message: shorten(message),
            src: excerpt,
            labels,
            help,
        }
    }
}

/// `message`, with its middle left out when it is very long: messages quote
/// names from the source, and a name can be any length.
fn shorten(message: String) -> String {
    const MAX: usize = 300;
    if message.len() <= MAX {
        return message;
    }
    let head = crate::syntax::span::floor_char_boundary(&message, MAX * 2 / 3);
    let mut tail = message.len() - MAX / 3;
    while !message.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{} ... {}", &message[..head], &message[tail..])
}
