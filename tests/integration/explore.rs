//! `optimist explore`: the JSON API behind the page, driven over HTTP, and
//! the page itself in a headless Chromium.

use std::io::{BufRead, Read, Write};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::tools::{present, scratch};

/// `optimist explore MODEL --port 0`, stopped when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    addr: String,
}

impl Server {
    fn start(model: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_optimist"))
            .args(["explore", model, "--port", "0", "--format", "json"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).expect("a JSON start line");
        let url = v["url"].as_str().unwrap();
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Server { child, addr }
    }

    fn url(&self, rest: &str) -> String {
        format!("http://{}/{rest}", self.addr)
    }

    /// One request: the status and the body.
    fn raw(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut s = std::net::TcpStream::connect(&self.addr).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, body.to_string())
    }

    fn call(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let (status, body) = self.raw(method, path, body);
        (status, serde_json::from_str(&body).expect("a JSON answer"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn counterexample() -> String {
    crate::common::racy_counterexample()
}

#[test]
fn explore_api_steps_undoes_and_follows_a_counterexample() {
    let server = Server::start("models/racy-counter.gc");
    let (status, page) = server.raw("GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("optimist explore"));
    let (status, v) = server.call("GET", "/state", "");
    assert_eq!(status, 200);
    assert_eq!(v["position"], 0);
    assert_eq!(v["state"]["c"], 0);
    let t0 = &v["threads"][0];
    assert_eq!(t0["name"], "T0");
    assert_eq!(t0["point"], "R");
    assert_eq!(t0["transitions"][0]["statement"], "t := c");
    assert_eq!(t0["transitions"][0]["visibility"], "visible");
    assert_eq!(t0["transitions"][0]["effect"], "ok");
    let k = t0["transitions"][0]["id"].as_u64().unwrap();
    // A step, then one that is not at the thread's point, then undo.
    let (status, v) = server.call("POST", "/step", &json!({"transition": k}).to_string());
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["position"], 1);
    assert_eq!(v["path"][0]["thread"], "T0");
    assert_eq!(v["path"][0]["statement"], "t := c");
    assert_eq!(v["threads"][0]["point"], "W");
    // The state laid out as `check` lays out a final state, the step's
    // changes marked: T0 moved to W and read c into its local t.
    let layout: Vec<&str> = v["layout"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(layout[0].starts_with("shared: "), "{layout:?}");
    assert!(layout[1].starts_with("T0: W*"), "{layout:?}");
    assert!(!layout[2].contains('*'), "{layout:?}");
    let (status, v) = server.call("POST", "/step", &json!({"transition": k}).to_string());
    assert_eq!(status, 400);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("not at T0's current point")
    );
    let (status, v) = server.call("POST", "/undo", "");
    assert_eq!((status, v["position"].as_u64()), (200, Some(0)));
    let (status, v) = server.call("POST", "/undo", "");
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("nothing to undo"));
    // Load the counterexample and follow it to the violation.
    let (status, v) = server.call("POST", "/load", &counterexample());
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["script"]["steps"], 8);
    for n in 1..=8 {
        let (status, v) = server.call("POST", "/next", "");
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["position"], n);
    }
    let (_, v) = server.call("GET", "/state", "");
    assert_eq!(v["violation"]["kind"], "assertion");
    assert!(v["script"]["next"].is_null());
    let (status, _) = server.call("POST", "/next", "");
    assert_eq!(status, 400);
    // Malformed requests are answered, not fatal.
    let (status, v) = server.call("POST", "/load", "{not json");
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("not JSON"));
    let (status, _) = server.call("POST", "/step", "{}");
    assert_eq!(status, 400);
    let (status, _) = server.call("GET", "/nowhere", "");
    assert_eq!(status, 404);
    let (status, v) = server.call("POST", "/reset", "");
    assert_eq!((status, v["position"].as_u64()), (200, Some(0)));
}

#[test]
fn explore_refuses_a_counterexample_of_another_model() {
    let server = Server::start("models/barrier.gc");
    let (status, v) = server.call("POST", "/load", &counterexample());
    assert_eq!(status, 400);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("does not replay: step 1"),
        "{v}"
    );
}

/// The page in a real browser: a loaded counterexample followed to its
/// violation through the page's own buttons' actions (`?do=...`), then
/// what the page shows read back from the DOM. The screenshot is kept in
/// Cargo's test directory (target/tmp/explore_browser/explore.png).
#[test]
fn explore_page_in_headless_chromium() {
    if !present(
        "explore_page_in_headless_chromium",
        &[("chromium", "--version")],
    ) {
        return;
    }
    let dir = scratch("explore_browser");
    let server = Server::start("models/racy-counter.gc");
    let (status, _) = server.call("POST", "/load", &counterexample());
    assert_eq!(status, 200);
    let chromium = |extra: &[&str], url: &str| {
        let out = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--virtual-time-budget=10000",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .args(extra)
            .arg(url)
            .current_dir(&dir)
            .output()
            .expect("chromium runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Seven steps of the counterexample, a step of T1 off it (its await,
    // transition 8) undone, the eighth.
    let dom = chromium(
        &["--dump-dom"],
        &server.url("?do=next,next,next,next,next,next,next,step:8,undo,next"),
    );
    assert!(dom.contains("data-ready=\"1\""), "{dom}");
    assert!(dom.contains("<span id=\"position\">8</span>"), "{dom}");
    assert!(
        dom.contains("Violation (assertion): T0 at line 20: assertion `c == 2` fails: c = 1"),
        "{dom}"
    );
    assert!(dom.contains("Counterexample loaded: 8 steps"), "{dom}");
    // The path table: eight rows, the lost update at row 5.
    assert_eq!(dom.matches("<tr><td>").count(), 8, "{dom}");
    assert!(dom.contains("<td>5</td><td>T1</td><td>W</td><td>17</td><td>c := t + 1</td>"));
    // Both threads, their transitions marked visible.
    assert!(dom.contains("data-thread=\"T0\"") && dom.contains("data-thread=\"T1\""));
    assert!(dom.contains("class=\"transition visible"), "{dom}");
    // Back at the start after reset, and a screenshot of the page there
    // after two steps.
    let screenshot = dir.join("explore.png");
    chromium(
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1200,900",
        ],
        &server.url("?do=reset,next,next"),
    );
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 2_000,
        "{} bytes",
        png.len()
    );
    let (_, v) = server.call("GET", "/state", "");
    assert_eq!(v["position"], 2);
}

/// The report of `optimist check FILE ARGS --format json` (a violation).
fn report(file: &str, args: &[&str]) -> String {
    let mut all = vec!["check", file];
    all.extend(args);
    all.extend(["--format", "json"]);
    let run = crate::common::optimist(all);
    assert_eq!(run.code, 1, "{}", run.stdout);
    run.stdout
}

/// A lasso repeats its cycle for ever: past its end, Next goes round the
/// cycle again, and undo steps back, without an error.
#[test]
fn explore_follows_a_lasso_round_its_cycle() {
    let server = Server::start("models/peterson-live.gc");
    let saved = report("models/peterson-live.gc", &["--fairness", "none"]);
    let (status, v) = server.call("POST", "/load", &saved);
    assert_eq!(status, 200, "{v}");
    let steps = v["script"]["steps"].as_u64().unwrap();
    let from = v["script"]["cycle_from"].as_u64().expect("a cycle") as usize;
    let cycle = steps as usize + 1 - from;
    let mut taken = Vec::new();
    for n in 1..=steps as usize + cycle + 1 {
        let next = v_next(&server);
        assert_eq!(next["position"], n, "{next}");
        taken.push(next["path"][n - 1]["statement"].clone());
    }
    // Once round the cycle again: the same steps as the first time.
    for n in steps as usize..steps as usize + cycle {
        assert_eq!(taken[n], taken[n - cycle], "step {}", n + 1);
    }
    let (status, v) = server.call("POST", "/undo", "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["position"], steps + cycle as u64);
    assert!(!v["script"]["next"].is_null(), "{v}");
    let next = v_next(&server);
    assert_eq!(next["position"], steps + cycle as u64 + 1);
}

fn v_next(server: &Server) -> Value {
    let (status, v) = server.call("POST", "/next", "");
    assert_eq!(status, 200, "{v}");
    v
}

/// A deadlock shows what `check` reports for it: the cycle of waits, and
/// who waits for what, in the view's JSON and on the page.
#[test]
fn explore_shows_the_cycle_of_waits_of_a_deadlock() {
    let server = Server::start("models/deadlock.gc");
    let (status, v) = server.call("POST", "/load", &report("models/deadlock.gc", &[]));
    assert_eq!(status, 200, "{v}");
    assert!(v["deadlock_report"].is_null(), "{v}");
    v_next(&server);
    let v = v_next(&server);
    assert_eq!(v["deadlock"], true, "{v}");
    let d = &v["deadlock_report"];
    assert_eq!(
        d["message"],
        "deadlock: no thread can move; a cycle of waits: left holds a, waits for b; right holds b, waits for a"
    );
    assert_eq!(d["deadlock"]["cycle"][0]["thread"], "left", "{d}");
    assert_eq!(d["deadlock"]["blocked"][1]["waits"][0]["holder"], "left");
    let (_, v) = server.call("POST", "/undo", "");
    assert!(v["deadlock_report"].is_null(), "{v}");
}

/// The page: a lasso followed past its end and back without an error, a
/// deadlock's cycle of waits, and transitions described in words first.
#[test]
fn explore_page_lasso_and_deadlock_in_headless_chromium() {
    if !present(
        "explore_page_lasso_and_deadlock_in_headless_chromium",
        &[("chromium", "--version")],
    ) {
        return;
    }
    let dir = scratch("explore_browser_lasso");
    let dom = |server: &Server, actions: &str| {
        let out = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--virtual-time-budget=10000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(server.url(&format!("?do={actions}")))
            .current_dir(&dir)
            .output()
            .expect("chromium runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let server = Server::start("models/peterson-live.gc");
    let saved = report("models/peterson-live.gc", &["--fairness", "none"]);
    let (_, v) = server.call("POST", "/load", &saved);
    let steps = v["script"]["steps"].as_u64().unwrap() as usize;
    // Past the end by two, back one, on one.
    let mut actions = vec!["next"; steps + 2];
    actions.extend(["undo", "next"]);
    let page = dom(&server, &actions.join(","));
    assert!(page.contains("data-ready=\"1\""), "{page}");
    assert!(page.contains("<p id=\"error\"></p>"), "{page}");
    assert!(
        page.contains(&format!("<span id=\"position\">{}</span>", steps + 2)),
        "{page}"
    );
    assert!(
        page.contains("repeat for ever, so Next goes round them again"),
        "{page}"
    );
    assert!(
        page.contains("(visible)") || page.contains("(invisible)"),
        "{page}"
    );
    let server = Server::start("models/deadlock.gc");
    server.call("POST", "/load", &report("models/deadlock.gc", &[]));
    let page = dom(&server, "next,next");
    assert!(page.contains("<p id=\"error\"></p>"), "{page}");
    assert!(
        page.contains("a cycle of waits: left holds a, waits for b; right holds b, waits for a"),
        "{page}"
    );
    assert!(
        page.contains("left: `acquire b` (line 17) waits for lock b, held by right; holds a"),
        "{page}"
    );
    assert!(
        page.contains("other threads can see this step") || page.contains("private to the thread")
    );
}
