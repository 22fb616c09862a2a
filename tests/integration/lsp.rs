//! `optimist lsp`: the language server, driven over its standard input
//! and output as an editor would, with the protocol's framing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// Longest wait for one message: a server that does not answer fails the
/// test instead of hanging it.
const WAIT: Duration = Duration::from_secs(30);

const URI: &str = "file:///tmp/mutex.gc";

/// A model with a misspelt keyword on its sixth line (line 5 from 0).
const MISSPELT: &str = "\
system mutex;
threads 2;
lock m;
protected count : 0..2 = 0 by m;
thread T {
  A: aquire m;
  B: count := count + 1;
  C: release m;
  D: goto A;
}
";

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_optimist"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut out) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 0,
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response's result.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.next();
            if msg["id"] == json!(id) {
                assert!(msg.get("error").is_none(), "{method} failed: {msg}");
                return msg["result"].clone();
            }
        }
    }

    /// Waits for the next `publishDiagnostics`, and returns its list.
    fn diagnostics(&mut self) -> Vec<Value> {
        loop {
            let msg = self.next();
            if msg["method"] == "textDocument/publishDiagnostics" {
                assert_eq!(msg["params"]["uri"], URI);
                return msg["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(WAIT)
            .expect("the server answers in time")
    }
}

/// One message, framed by its `Content-Length` header; `None` at the end.
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            len = Some(n.parse::<usize>().ok()?);
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
}

#[test]
fn diagnoses_fixes_hovers_and_navigates() {
    let mut s = Server::start();
    let init = s.request("initialize", json!({"capabilities": {}}));
    assert_eq!(init["capabilities"]["hoverProvider"], true, "{init}");
    s.notify("initialized", json!({}));

    // The misspelling, underlined where it is, with the CLI's message.
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "optimist", "version": 1, "text": MISSPELT}}),
    );
    let diags = s.diagnostics();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(
        d["range"]["start"],
        json!({"line": 5, "character": 5}),
        "{d}"
    );
    assert_eq!(
        d["range"]["end"],
        json!({"line": 5, "character": 11}),
        "{d}"
    );
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("aquire") && message.contains("`acquire`"),
        "{message}"
    );

    // The quick fix puts the suggestion in its place.
    let actions = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let edits = &actions[0]["edit"]["changes"][URI];
    assert_eq!(edits[0]["newText"], "acquire", "{actions}");
    assert_eq!(edits[0]["range"], d["range"], "{actions}");

    // Fixed: the diagnostics are cleared.
    let fixed = MISSPELT.replace("aquire", "acquire");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(s.diagnostics(), Vec::<Value>::new());

    // Hover on `count` in `count := count + 1`: its range and its lock.
    let hover = s.request("textDocument/hover", at(6, 6));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("0..2"), "{text}");
    assert!(text.contains("protected by `m`"), "{text}");
    // On the acquire: visible, for it touches the lock.
    let hover = s.request("textDocument/hover", at(5, 8));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("**visible**: it takes or releases lock m"),
        "{text}"
    );
    // On the protected write: invisible.
    let hover = s.request("textDocument/hover", at(6, 12));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("**invisible**"), "{text}");

    // Definitions: the label of `goto A`, the variable `count`.
    let def = s.request("textDocument/definition", at(8, 10));
    assert_eq!(def["uri"], URI);
    assert_eq!(
        def["range"],
        json!({"start": {"line": 5, "character": 2}, "end": {"line": 5, "character": 3}})
    );
    let def = s.request("textDocument/definition", at(6, 15));
    assert_eq!(
        def["range"],
        json!({"start": {"line": 3, "character": 10}, "end": {"line": 3, "character": 15}})
    );

    // References of the lock: its declaration, `by m`, acquire, release.
    let refs = s.request(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": 5},
               "context": {"includeDeclaration": true}}),
    );
    let lines: Vec<u64> = (refs.as_array().unwrap().iter())
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 3, 5, 7]);

    // Completion inside the thread offers its label and the keywords.
    let items = s.request("textDocument/completion", at(7, 2));
    let labels: Vec<&str> = (items.as_array().unwrap().iter())
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for want in ["A", "count", "m", "acquire", "while"] {
        assert!(labels.contains(&want), "{want} not in {labels:?}");
    }

    // The outline: the lock, the variable, the thread with its labels.
    let symbols = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let names: Vec<&str> = (symbols.as_array().unwrap().iter())
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["m", "count", "T"]);
    assert_eq!(symbols[2]["children"].as_array().unwrap().len(), 4);

    // Shutdown, exit, and the process ends with 0.
    assert_eq!(s.request("shutdown", Value::Null), Value::Null);
    s.notify("exit", Value::Null);
    drop(s.stdin);
    let deadline = std::time::Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = s.child.kill();
            panic!("the server did not exit after `exit`");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn positions_count_utf16_units_names_are_fixed_and_closing_clears() {
    let mut s = Server::start();
    s.request("initialize", json!({"capabilities": {}}));
    s.notify("initialized", json!({}));
    // `é` and `😀` before the name: 2 and 4 bytes, 1 and 2 UTF-16 units.
    let text = "threads 1;\nthread T {\n  /*é😀*/ skp;\n}\n";
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "optimist", "version": 1, "text": text}}),
    );
    let diags = s.diagnostics();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 13}})
    );
    // A misspelt name, found by the compiler: the fix names the variable.
    let text = "shared count : 0..3 = 0;\nthreads 1;\nthread T {\n  cuont := 1;\n}\n";
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    let diags = s.diagnostics();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0]["range"]["start"],
        json!({"line": 3, "character": 2})
    );
    let actions = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": diags[0]["range"],
               "context": {"diagnostics": diags}}),
    );
    assert_eq!(
        actions[0]["edit"]["changes"][URI][0]["newText"], "count",
        "{actions}"
    );
    s.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(s.diagnostics(), Vec::<Value>::new());
    s.request("shutdown", Value::Null);
    s.notify("exit", Value::Null);
    assert_eq!(s.child.wait().unwrap().code(), Some(0));
}
