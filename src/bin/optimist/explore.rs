//! `optimist explore`: a local web page to step through a model's state
//! space, served by `tiny_http`, with a JSON API behind it.
//!
//! API (every answer is JSON, the session's view as `GET /state` gives it,
//! or `{"error": "..."}` with status 400):
//!
//! - `GET /`: the page; `GET /state`: the current view;
//! - `POST /step` with `{"transition": K}`: take transition K;
//! - `POST /undo`, `POST /reset`: take back the last transition, or all;
//! - `POST /load` with a JSON report of `optimist check --format json`:
//!   load its counterexample and go back to the initial state;
//! - `POST /next`: take the next transition of the loaded counterexample.

use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use optimist::Session;
use serde_json::{Value, json};

use crate::common::{Format, ModelArgs, refuse, set_format, write_out};

/// The page: one file, no external resources.
const PAGE: &str = include_str!("explore.html");

/// The largest request body read (a JSON report to load).
const MAX_BODY: u64 = 64 << 20;

/// Arguments of `optimist explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The port on 127.0.0.1 (0: any free port, printed at start).
    #[arg(long, value_name = "N", default_value_t = 7878)]
    port: u16,
    /// How the address is printed at start: a line, or `{"url": ...}`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: ExploreArgs) -> ExitCode {
    set_format(args.format);
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let server = match tiny_http::Server::http(("127.0.0.1", args.port)) {
        Ok(s) => s,
        Err(e) => return refuse(&format!("cannot listen on 127.0.0.1:{}: {e}", args.port)),
    };
    let port = server.server_addr().to_ip().map_or(args.port, |a| a.port());
    let url = format!("http://127.0.0.1:{port}/");
    match args.format {
        Format::Text => write_out(&format!(
            "optimist explore: {} ({}) at {url} (Ctrl-C stops)\n",
            model.name, src.name
        )),
        Format::Json => write_out(&format!(
            "{}\n",
            json!({"model": model.name, "file": src.name, "url": url})
        )),
    }
    let mut session = Session::new(model, &src.name);
    for mut request in server.incoming_requests() {
        let (status, content_type, body) = answer(&mut session, &mut request);
        let header =
            tiny_http::Header::from_bytes("Content-Type", content_type).expect("a valid header");
        let response = tiny_http::Response::from_string(body)
            .with_status_code(status)
            .with_header(header);
        let _ = request.respond(response);
    }
    ExitCode::SUCCESS
}

/// Handles one request: status, content type and body.
fn answer(session: &mut Session, request: &mut tiny_http::Request) -> (u16, &'static str, String) {
    use tiny_http::Method::{Get, Post};
    const JSON: &str = "application/json; charset=utf-8";
    let path = request.url().split('?').next().unwrap_or("/").to_string();
    let method = request.method().clone();
    let mut body = String::new();
    if method == Post
        && request
            .as_reader()
            .take(MAX_BODY)
            .read_to_string(&mut body)
            .is_err()
    {
        return (400, JSON, error("the request body is not UTF-8 text"));
    }
    let result = match (method, path.as_str()) {
        (Get, "/" | "/index.html") => return (200, "text/html; charset=utf-8", PAGE.to_string()),
        (Get, "/state") => Ok(()),
        (Post, "/step") => match serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v.get("transition").and_then(Value::as_u64))
        {
            Some(k) => session.step(k as usize),
            None => Err("POST /step needs a body {\"transition\": K}".to_string()),
        },
        (Post, "/undo") => session.undo(),
        (Post, "/reset") => {
            session.reset();
            Ok(())
        }
        (Post, "/next") => session.follow(),
        (Post, "/load") => match serde_json::from_str::<Value>(&body) {
            Ok(v) => session.load(&v),
            Err(e) => Err(format!("the report is not JSON: {e}")),
        },
        (_, p) => return (404, JSON, error(&format!("no such page or action: {p}"))),
    };
    match result {
        Ok(()) => (
            200,
            JSON,
            serde_json::to_string_pretty(&session.view()).expect("views serialise"),
        ),
        Err(e) => (400, JSON, error(&e)),
    }
}

fn error(message: &str) -> String {
    json!({ "error": message }).to_string()
}
