//! An open document and what the server knows of it: its text, its syntax
//! tree and names when it parses, its compiled model when it compiles, and
//! the problems that stop either, as the command line reports them.

use std::sync::OnceLock;

use crate::model::{CompileOptions, Model};
use crate::syntax::span::{LineIndex, Span};
use crate::{Classification, Language, Source, ast};

use super::names::Names;
use super::position::Text;

/// A problem in a document: a syntax or compile error.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// Where.
    pub span: Span,
    /// What is wrong, as `check` says it.
    pub message: String,
    /// How to fix it, when there is an obvious way.
    pub help: Option<String>,
    /// Other places involved.
    pub related: Vec<(Span, String)>,
}

/// An open document.
pub(crate) struct Document {
    /// The file name, for the model's name and its language.
    pub name: String,
    /// The text as the editor has it.
    pub text: String,
    /// Where its lines start.
    pub index: LineIndex,
    /// The syntax tree, when the text parses.
    pub ast: Option<ast::Model>,
    /// Its names, when the text parses.
    pub names: Option<Names>,
    /// The names of the last text that parsed, while this one does not:
    /// completion still offers them while a statement is half typed.
    pub previous: Option<Names>,
    /// The compiled model, when the text compiles.
    pub model: Option<Model>,
    /// What stops it from parsing or compiling.
    pub problems: Vec<Problem>,
    /// The default reduction's classification, computed on the first
    /// hover that needs it (it enumerates valuations, which can take a
    /// while on a large model, and most edits are never hovered).
    class: OnceLock<Classification>,
}

impl Document {
    /// Parses and compiles `text`.
    pub fn new(name: String, text: String, previous: Option<Names>) -> Document {
        let index = LineIndex::new(&text);
        let mut doc = Document {
            name,
            text,
            index,
            ast: None,
            names: None,
            previous: None,
            model: None,
            problems: Vec::new(),
            class: OnceLock::new(),
        };
        doc.analyse();
        if doc.names.is_none() {
            doc.previous = previous;
        }
        doc
    }

    /// The text with its index, for converting positions.
    pub fn lines(&self) -> Text<'_> {
        Text {
            text: &self.text,
            index: &self.index,
        }
    }

    /// The classification of the compiled model.
    pub fn classification(&self) -> Option<&Classification> {
        let model = self.model.as_ref()?;
        Some(self.class.get_or_init(|| crate::classify(model)))
    }

    fn analyse(&mut self) {
        let src = match Source::new(self.name.clone(), self.text.clone()) {
            Ok(src) => src,
            Err(e) => return self.problems.push(whole(e)),
        };
        if Language::of(&self.name) == Language::Promela {
            // Promela goes through its preprocessor: only the library's
            // rendered error says where, in line and column.
            match crate::compile(&src, &[]) {
                Ok(model) => self.model = Some(model),
                Err(e) => self.problems.push(self.placed(e)),
            }
            return;
        }
        let ast = match crate::syntax::parser::parse(&self.text) {
            Ok(ast) => ast,
            Err(e) => {
                return self.problems.push(Problem {
                    span: e.span,
                    message: e.message,
                    help: e.help,
                    related: Vec::new(),
                });
            }
        };
        self.names = Some(Names::new(&ast, &self.text));
        let options = CompileOptions::default();
        match crate::model::compile_with(&ast, &src.stem(), &self.text, &[], &options) {
            Ok(model) => self.model = Some(model),
            Err(e) => self.problems.push(Problem {
                span: e.span.unwrap_or_default(),
                message: e.message,
                help: e.help,
                related: e.related,
            }),
        }
        self.ast = Some(ast);
    }

    /// An error of the library placed by its line and column: the word there.
    fn placed(&self, e: crate::Error) -> Problem {
        let Some(place) = e.place() else {
            return whole(e);
        };
        let range = self.index.line_range(place.line);
        let line = &self.text[range.clone()];
        let start = range.start
            + line
                .char_indices()
                .nth(place.col - 1)
                .map_or(line.len(), |(i, _)| i);
        let word = self.text[start..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(self.text.len() - start);
        let message = match &e {
            crate::Error::Input { message, help, .. } => (message.clone(), help.clone()),
            _ => (e.to_string(), None),
        };
        Problem {
            span: Span::new(start, start + word.max(1)),
            message: message.0,
            help: message.1,
            related: Vec::new(),
        }
    }
}

/// An error with no place: shown at the start of the file.
fn whole(e: crate::Error) -> Problem {
    use miette::Diagnostic;
    Problem {
        span: Span::new(0, 0),
        help: e.help().map(|h| h.to_string()),
        message: e.to_string(),
        related: Vec::new(),
    }
}
