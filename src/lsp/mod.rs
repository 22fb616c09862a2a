//! `optimist lsp`: a language server for models, over standard input and
//! output, built on the `lsp-server` transport (docs/src/editors.md).
//!
//! The server keeps every open document parsed and compiled, with full
//! text sync (models are small; a full reparse is what `check` does too):
//! diagnostics are published on each change, and requests are answered
//! from that state in the order they arrive.

mod actions;
mod complete;
mod diagnostics;
mod document;
mod hover;
mod names;
mod navigate;
mod position;
mod symbols;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, References,
    Request as _,
};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, DocumentSymbolResponse,
    GotoDefinitionResponse, HoverProviderCapability, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};

use document::Document;

/// Why the server stopped other than by the protocol's `shutdown` and `exit`.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client broke the protocol (or went away mid-way).
    #[error("language server protocol: {0}")]
    Protocol(#[from] lsp_server::ProtocolError),
    /// Standard input or output failed.
    #[error("language server input or output: {0}")]
    Io(#[from] std::io::Error),
    /// A message could not be encoded.
    #[error("language server message: {0}")]
    Json(#[from] serde_json::Error),
}

/// Serves the language server protocol on standard input and output until
/// the client sends `shutdown` and `exit`.
pub fn serve() -> Result<(), ServeError> {
    let (connection, io) = Connection::stdio();
    serve_on(&connection)?;
    drop(connection);
    io.join()?;
    Ok(())
}

/// Serves on `connection` (standard input and output, or one in memory
/// for tests) until the client sends `shutdown` and `exit`.
pub fn serve_on(connection: &Connection) -> Result<(), ServeError> {
    let init = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "optimist".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    let (id, _params) = connection.initialize_start()?;
    connection.initialize_finish(id, init)?;
    let mut server = Server {
        connection,
        docs: HashMap::new(),
    };
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req)? {
                    return Ok(());
                }
                // A bug in one answer must not take the editor's session
                // down with it: the client gets an error, and the next
                // request is answered as usual.
                let id = req.id.clone();
                let resp = std::panic::catch_unwind(AssertUnwindSafe(|| server.request(req)))
                    .unwrap_or_else(|_| {
                        let message = "the server failed on this request".to_string();
                        Response::new_err(id, ErrorCode::InternalError as i32, message)
                    });
                server.send(resp.into());
            }
            Message::Notification(n) => server.notification(n)?,
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions::default()),
        ..ServerCapabilities::default()
    }
}

struct Server<'c> {
    connection: &'c Connection,
    docs: HashMap<Uri, Document>,
}

impl Server<'_> {
    fn send(&self, msg: Message) {
        // The writer has gone only when the client has: the next receive ends the loop.
        let _ = self.connection.sender.send(msg);
    }

    fn notification(&mut self, n: Notification) -> Result<(), ServeError> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p: lsp_types::DidOpenTextDocumentParams = serde_json::from_value(n.params)?;
                self.update(p.text_document.uri, p.text_document.text);
            }
            DidChangeTextDocument::METHOD => {
                let p: lsp_types::DidChangeTextDocumentParams = serde_json::from_value(n.params)?;
                // Full sync: the last change is the whole text.
                if let Some(change) = p.content_changes.into_iter().last() {
                    self.update(p.text_document.uri, change.text);
                }
            }
            DidCloseTextDocument::METHOD => {
                let p: lsp_types::DidCloseTextDocumentParams = serde_json::from_value(n.params)?;
                self.docs.remove(&p.text_document.uri);
                self.publish(p.text_document.uri, Vec::new());
            }
            _ => {}
        }
        Ok(())
    }

    /// Analyses the new text of a document and publishes its diagnostics.
    fn update(&mut self, uri: Uri, text: String) {
        let name = file_name(&uri);
        let previous = self.docs.remove(&uri).and_then(|d| d.names.or(d.previous));
        let doc = Document::new(name, text, previous);
        self.publish(uri.clone(), diagnostics::of(&uri, &doc));
        self.docs.insert(uri, doc);
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>) {
        let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
        self.send(Notification::new(PublishDiagnostics::METHOD.into(), params).into());
    }

    fn request(&self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            HoverRequest::METHOD => self.answer::<HoverRequest>(req, |s, p| {
                let at = p.text_document_position_params;
                s.doc(&at.text_document.uri)
                    .and_then(|d| hover::at(d, at.position))
            }),
            GotoDefinition::METHOD => self.answer::<GotoDefinition>(req, |s, p| {
                let at = p.text_document_position_params;
                let doc = s.doc(&at.text_document.uri)?;
                navigate::definition(&at.text_document.uri, doc, at.position)
                    .map(GotoDefinitionResponse::Scalar)
            }),
            References::METHOD => self.answer::<References>(req, |s, p| {
                let at = p.text_document_position;
                let doc = s.doc(&at.text_document.uri)?;
                let with = p.context.include_declaration;
                Some(navigate::references(
                    &at.text_document.uri,
                    doc,
                    at.position,
                    with,
                ))
            }),
            Completion::METHOD => self.answer::<Completion>(req, |s, p| {
                let at = p.text_document_position;
                let doc = s.doc(&at.text_document.uri)?;
                Some(complete::at(doc, at.position).into())
            }),
            DocumentSymbolRequest::METHOD => self.answer::<DocumentSymbolRequest>(req, |s, p| {
                let doc = s.doc(&p.text_document.uri)?;
                Some(DocumentSymbolResponse::Nested(symbols::outline(doc)))
            }),
            CodeActionRequest::METHOD => self.answer::<CodeActionRequest>(req, |s, p| {
                let doc = s.doc(&p.text_document.uri)?;
                Some(actions::fixes(doc, &p))
            }),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("unknown method {}", req.method),
            )),
        };
        match result {
            Ok(value) => Response {
                id,
                result: Some(value),
                error: None,
            },
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }
    }

    /// The answer to a request of type `R`, by `f` on its parameters.
    fn answer<R: lsp_types::request::Request>(
        &self,
        req: Request,
        f: impl FnOnce(&Self, R::Params) -> R::Result,
    ) -> Result<serde_json::Value, (ErrorCode, String)> {
        let params = serde_json::from_value(req.params)
            .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
        serde_json::to_value(f(self, params)).map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    fn doc(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri)
    }
}

/// The file name at the end of a document's URI: the model's name when it
/// has no `system` line, and its language by extension.
fn file_name(uri: &Uri) -> String {
    let path = uri.as_str();
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path.rsplit('/').next().unwrap_or(path).to_string()
}
