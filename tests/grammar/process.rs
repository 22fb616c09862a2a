//! Systems checked in child processes, so that one that crashes the
//! checker (a stack overflow, memory exhausted, a hang) is a finding
//! rather than the end of the run, and cannot take the machine's memory.
//!
//! The child is the same program started again with
//! [`CHILD_ENV`] set to what it should do: the soak example, or the
//! integration test binary running only its `grammar_child_process` test.
//! A child prints one JSON line when it starts a system and one with the
//! system's result. When it dies, the parent records the crash, finds the
//! configuration that crashes by running each alone, and starts a new
//! child after the system.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use super::ast;
use super::compare::{
    Config, Disagreement, KNOWN_OPEN, SystemResult, Tally, Wrong, all_configs, check_system,
    config_index, configs_for, probe, shrink_and_keep_with, still_wrong,
};
use super::generator::{Rng, system};

/// What a child process is asked to do.
pub const CHILD_ENV: &str = "OPTIMIST_GRAMMAR_CHILD";

/// A child that says nothing for this long is taken to hang.
const HANG: Duration = Duration::from_secs(300);

/// Address space of a child: a runaway allocation fails there.
const CHILD_MEMORY: u64 = 2 << 30;

/// How to start a child: this program, with these arguments.
#[derive(Clone)]
pub struct Launcher {
    pub exe: PathBuf,
    pub args: Vec<String>,
}

impl Launcher {
    /// This program again, with `args`.
    pub fn this(args: &[&str]) -> Launcher {
        Launcher {
            exe: std::env::current_exe().expect("the current executable"),
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// In a child: does what `spec` says (from [`CHILD_ENV`]), on a thread with
/// the command line's stack, in at most [`CHILD_MEMORY`]. Returns the exit
/// code.
pub fn child_main(spec: &str) -> i32 {
    #[cfg(target_os = "linux")]
    // SAFETY: setrlimit with a valid struct only lowers this process's limit.
    unsafe {
        let lim = libc::rlimit {
            rlim_cur: CHILD_MEMORY,
            rlim_max: CHILD_MEMORY,
        };
        libc::setrlimit(libc::RLIMIT_AS, &lim);
    }
    let spec = spec.to_string();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || child(&spec))
        .expect("a thread")
        .join()
        .unwrap_or(1)
}

fn child(spec: &str) -> i32 {
    let w: Vec<&str> = spec.split('\t').collect();
    let num = |i: usize| w.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    match w[0] {
        // systems SEED FROM COUNT
        "systems" => {
            let out = std::io::stdout();
            for k in num(2)..num(2) + num(3) {
                {
                    let mut o = out.lock();
                    let _ = writeln!(o, "{{\"start\":{k}}}");
                    let _ = o.flush();
                }
                let r = check_system(num(1), k);
                let mut o = out.lock();
                let _ = writeln!(o, "{}", r.to_json());
                let _ = o.flush();
            }
            0
        }
        // probe FILE CONFIG
        "probe" => {
            let text = std::fs::read_to_string(w[1]).unwrap_or_default();
            probe(&text, &all_configs()[num(2) as usize]);
            0
        }
        // shrink SEED SYSTEM CONFIG WRONG KNOWN SECONDS, with a launcher
        // for the probes of a crash after it
        "shrink" => {
            let c = all_configs()[num(3) as usize];
            let Some(wrong) = Wrong::from_code(w[4]) else {
                return 2;
            };
            let known = KNOWN_OPEN.iter().find(|k| k.name == w[5]).map(|k| k.name);
            let launcher = Launcher {
                exe: PathBuf::from(w[7]),
                args: w[8..].iter().map(|s| s.to_string()).collect(),
            };
            let mut d = Disagreement {
                system: num(2),
                config: c,
                wrong: wrong.clone(),
                detail: if wrong == Wrong::Crash {
                    "the process dies: a stack overflow or memory exhausted (run it under \
                     `ulimit -v`)"
                        .into()
                } else {
                    String::new()
                },
                known,
                text: String::new(),
                shrunk: None,
            };
            let budget = Duration::from_secs(num(6));
            let index = config_index(&c);
            if wrong == Wrong::Crash {
                shrink_and_keep_with(num(1), &mut d, budget, &mut |s| {
                    crashes_on(&launcher, &ast::print(s), index)
                });
            } else {
                shrink_and_keep_with(num(1), &mut d, budget, &mut |s| {
                    still_wrong(s, &c, &wrong, known)
                });
            }
            if let Some((_, path)) = &d.shrunk {
                println!("shrunk: {path}");
            }
            0
        }
        _ => 2,
    }
}

/// How a child ended.
pub struct Exit {
    pub ok: bool,
    pub why: String,
}

/// Runs a child with `spec`, passing each stdout line to `line`; kills it
/// when it says nothing for [`HANG`].
pub fn run_child(l: &Launcher, spec: &str, line: &mut dyn FnMut(&str)) -> Exit {
    let mut child = match Command::new(&l.exe)
        .args(&l.args)
        .env(CHILD_ENV, spec)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Exit {
                ok: false,
                why: format!("cannot start a child: {e}"),
            };
        }
    };
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut hung = false;
    loop {
        match rx.recv_timeout(HANG) {
            Ok(l) => line(&l),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                hung = true;
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.wait();
    let _ = reader.join();
    let err = errs.join().unwrap_or_default();
    // What the process said last.
    let mut tail: Vec<&str> = err
        .lines()
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(3)
        .collect();
    tail.reverse();
    match status {
        Ok(s) if s.success() && !hung => Exit {
            ok: true,
            why: String::new(),
        },
        Ok(_) if hung => Exit {
            ok: false,
            why: format!("no output for {} s: killed", HANG.as_secs()),
        },
        Ok(s) => Exit {
            ok: false,
            why: format!("{s}: {}", tail.join(" / ")),
        },
        Err(e) => Exit {
            ok: false,
            why: e.to_string(),
        },
    }
}

/// Whether configuration `config` crashes on `text`, alone in a child.
pub fn crashes_on(l: &Launcher, text: &str, config: usize) -> bool {
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let n = PROBES.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("grammar-probe-{}-{n}.gc", std::process::id()));
    if std::fs::write(&path, text).is_err() {
        return false;
    }
    let exit = run_child(
        l,
        &format!("probe\t{}\t{config}", path.display()),
        &mut |_| {},
    );
    let _ = std::fs::remove_file(&path);
    !exit.ok
}

/// The configurations of system `k` that crash a child alone (full
/// exploration first: when it crashes, every configuration would).
fn crashing(l: &Launcher, seed: u64, k: u64) -> Vec<Config> {
    let text = ast::print(&system(&mut Rng::for_system(seed, k)));
    let configs = all_configs();
    let full: Vec<Config> = (0..2)
        .filter(|&i| crashes_on(l, &text, i))
        .map(|i| configs[i])
        .collect();
    if !full.is_empty() {
        return full;
    }
    configs_for(k)
        .into_iter()
        .filter(|c| crashes_on(l, &text, config_index(c)))
        .collect()
}

/// Checks systems `from..to` of `seed` in children, on `workers` threads;
/// `progress` sees every result as it comes. Tallied in system order.
pub fn check_isolated(
    l: &Launcher,
    seed: u64,
    from: u64,
    to: u64,
    workers: usize,
    progress: &(dyn Fn(&SystemResult) + Sync),
) -> Tally {
    let chunk = ((to - from) / (workers as u64 * 8)).clamp(1, 500);
    let queue: Mutex<VecDeque<(u64, u64)>> = Mutex::new(
        (from..to)
            .step_by(chunk as usize)
            .map(|a| (a, (a + chunk).min(to)))
            .collect(),
    );
    let results: Mutex<Vec<SystemResult>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| {
                // The lock is held only to take the next chunk.
                let take = || queue.lock().unwrap().pop_front();
                while let Some((a, b)) = take() {
                    let mut next = a;
                    while next < b {
                        let mut current = None;
                        let spec = format!("systems\t{seed}\t{next}\t{}", b - next);
                        let exit = run_child(l, &spec, &mut |line| {
                            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                                return;
                            };
                            if let Some(k) = v["start"].as_u64() {
                                current = Some(k);
                            } else if let Some(r) = SystemResult::from_json(seed, &v) {
                                next = r.index + 1;
                                current = None;
                                progress(&r);
                                results.lock().unwrap().push(r);
                            }
                        });
                        if exit.ok {
                            break;
                        }
                        // The child died at system `k`: record the crash,
                        // go on after it.
                        let k = current.unwrap_or(next);
                        let mut configs = crashing(l, seed, k);
                        if configs.is_empty() {
                            // Only in company, or not again: blame the
                            // system's first configuration.
                            configs.push(configs_for(k)[0]);
                        }
                        let r = SystemResult::crashed(seed, k, &configs, &exit.why);
                        progress(&r);
                        results.lock().unwrap().push(r);
                        next = k + 1;
                    }
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    let mut tally = Tally::default();
    for r in results {
        tally.add(r);
    }
    tally
}

/// Shrinks the first `known` disagreements of each kind of a known open
/// bug and the first `new` of each other kind, each in a child (a step of
/// shrinking may crash the checker too), on `workers` threads.
pub fn shrink_some(
    l: &Launcher,
    seed: u64,
    workers: usize,
    seconds: u64,
    (known, new): (usize, usize),
    ds: &mut [Disagreement],
) {
    let mut per_kind: BTreeMap<(Option<&str>, String, &str), usize> = BTreeMap::new();
    let mut jobs = vec![];
    for (i, d) in ds.iter().enumerate() {
        let n = per_kind
            .entry((d.known, d.wrong.name(), d.config.column_name()))
            .or_default();
        if *n < if d.known.is_some() { known } else { new } {
            *n += 1;
            jobs.push(i);
        }
    }
    let queue = Mutex::new(jobs);
    let done: Mutex<Vec<(usize, String)>> = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| {
                let take = || queue.lock().unwrap().pop();
                while let Some(i) = take() {
                    let d = &ds[i];
                    let mut spec = format!(
                        "shrink\t{seed}\t{}\t{}\t{}\t{}\t{seconds}\t{}",
                        d.system,
                        config_index(&d.config),
                        d.wrong.code(),
                        d.known.unwrap_or("-"),
                        l.exe.display()
                    );
                    for a in &l.args {
                        spec.push('\t');
                        spec.push_str(a);
                    }
                    let mut path = None;
                    let exit = run_child(l, &spec, &mut |line| {
                        if let Some(p) = line.strip_prefix("shrunk: ") {
                            path = Some(p.to_string());
                        }
                    });
                    let path = match (exit.ok, path) {
                        (true, Some(p)) => p,
                        _ => format!("(shrinking failed: {})", exit.why),
                    };
                    done.lock().unwrap().push((i, path));
                }
            });
        }
    });
    for (i, path) in done.into_inner().unwrap() {
        ds[i].shrunk = Some((String::new(), path));
    }
}
