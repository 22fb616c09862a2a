//! The grammar-driven differential test, longer, on every core:
//!
//! ```text
//! cargo run --release --example soak -- --seed S --count N [--threads T] [--from K]
//!     [--strict] [--shrink-seconds S]
//! ```
//!
//! Generates systems `K..K+N` of seed S (`tests/grammar`), compares every
//! mode and option combination with full exploration on each, prints
//! progress, the coverage table, the options table and the disagreements,
//! shrinks the disagreements (a few of each kind) into
//! `tests/integration/inputs/soundness/pending/grammar-<hash>.gc`, and
//! exits 1 when one is not a known open bug (`KNOWN_OPEN` in
//! `tests/grammar/compare.rs`; with `--strict`, on any), 0 otherwise.
//!
//! The systems run in child processes (this program with `--child`), so
//! that one which crashes the checker (a stack overflow, memory exhausted,
//! a hang) is a finding rather than the end of the run: the parent starts
//! a new child after it, and finds the configuration that crashes by
//! running each alone (`--probe`).

#[path = "grammar/mod.rs"]
mod grammar;

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use grammar::compare::{
    Config, Disagreement, SystemResult, Tally, Wrong, all_configs, check_system, config_index,
    configs_for, probe, secs, shrink_and_keep_with, still_wrong,
};
use grammar::generator::{Rng, system};

/// A child that says nothing for this long is taken to hang.
const HANG: Duration = Duration::from_secs(300);

/// Address space of a child process: a runaway allocation fails there
/// rather than exhausting the machine.
const CHILD_MEMORY: u64 = 2 << 30;

fn usage() -> ExitCode {
    eprintln!(
        "usage: soak --seed S --count N [--threads T] [--from K] [--strict] [--shrink-seconds S]"
    );
    ExitCode::from(2)
}

#[derive(Default)]
struct Args {
    seed: u64,
    count: u64,
    from: u64,
    workers: usize,
    strict: bool,
    shrink_secs: u64,
    mode: Mode,
    system: u64,
    config: usize,
    file: Option<String>,
    wrong: Option<String>,
    known: Option<String>,
}

#[derive(Default, PartialEq)]
enum Mode {
    #[default]
    Run,
    Child,
    Probe,
    Shrink,
    Show,
}

fn parse() -> Option<Args> {
    let mut a = Args {
        seed: 1,
        count: 1000,
        workers: std::thread::available_parallelism().map_or(1, usize::from),
        shrink_secs: 60,
        ..Args::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut num = || args.next().and_then(|v| v.parse::<u64>().ok());
        match flag.as_str() {
            "--seed" => a.seed = num()?,
            "--count" => a.count = num()?,
            "--from" => a.from = num()?,
            "--threads" => a.workers = (num()? as usize).max(1),
            "--shrink-seconds" => a.shrink_secs = num()?,
            "--strict" => a.strict = true,
            // The parent's helpers.
            "--child" => a.mode = Mode::Child,
            "--probe" => a.mode = Mode::Probe,
            "--shrink" => a.mode = Mode::Shrink,
            "--system" => a.system = num()?,
            "--config" => a.config = num()? as usize,
            "--file" => a.file = Some(args.next()?),
            "--wrong" => a.wrong = Some(args.next()?),
            "--known" => a.known = Some(args.next()?),
            // Debugging: print system K and its outcomes.
            "--show" => {
                a.mode = Mode::Show;
                a.system = num()?;
            }
            _ => return None,
        }
    }
    Some(a)
}

fn main() -> ExitCode {
    let Some(args) = parse() else {
        return usage();
    };
    match args.mode {
        Mode::Run => supervise(&args),
        Mode::Child => big_stack(move || child(&args)),
        Mode::Probe => big_stack(move || {
            let text = match &args.file {
                Some(f) => std::fs::read_to_string(f).unwrap_or_default(),
                None => grammar::ast::print(&system(&mut Rng::for_system(args.seed, args.system))),
            };
            probe(&text, &all_configs()[args.config]);
            ExitCode::SUCCESS
        }),
        Mode::Shrink => big_stack(move || shrink_one(&args)),
        Mode::Show => big_stack(move || {
            let (seed, k) = (args.seed, args.system);
            println!(
                "{}",
                grammar::ast::print(&system(&mut Rng::for_system(seed, k)))
            );
            let r = check_system(seed, k);
            println!("compile error: {:?}\nfull: {:?}", r.compile_error, r.full);
            for (c, seen) in &r.runs {
                println!("{}: {seen:?}", c.flags());
            }
            for d in &r.disagreements {
                println!("{}: {}: {}", d.config.flags(), d.wrong.name(), d.detail);
            }
            ExitCode::SUCCESS
        }),
    }
}

/// Runs `f` on a thread with the command line's stack
/// (`src/bin/optimist/main.rs`), in at most [`CHILD_MEMORY`].
fn big_stack(f: impl FnOnce() -> ExitCode + Send + 'static) -> ExitCode {
    #[cfg(target_os = "linux")]
    // SAFETY: setrlimit with a valid struct only lowers this process's limit.
    unsafe {
        let lim = libc::rlimit {
            rlim_cur: CHILD_MEMORY,
            rlim_max: CHILD_MEMORY,
        };
        libc::setrlimit(libc::RLIMIT_AS, &lim);
    }
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or(ExitCode::FAILURE)
}

/// A child: systems `from..from+count`, each announced, then its result,
/// one JSON line each.
fn child(args: &Args) -> ExitCode {
    let out = std::io::stdout();
    for k in args.from..args.from + args.count {
        {
            let mut o = out.lock();
            let _ = writeln!(o, "{{\"start\":{k}}}");
            let _ = o.flush();
        }
        let r = check_system(args.seed, k);
        let mut o = out.lock();
        let _ = writeln!(o, "{}", r.to_json());
        let _ = o.flush();
    }
    ExitCode::SUCCESS
}

/// What a child process did: its exit (None: killed as hanging), the
/// tail of its stderr.
struct Exit {
    ok: bool,
    why: String,
}

/// Runs this program with `args`, passing each stdout line to `line`;
/// kills it when it says nothing for [`HANG`].
fn run_child(args: &[String], line: &mut dyn FnMut(&str)) -> Exit {
    let exe = std::env::current_exe().expect("the soak executable");
    let mut child = match Command::new(exe)
        .args(args)
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
    // The interesting part of stderr: what the process said last, without
    // the panics that the comparison caught and reported itself.
    let tail: String = err
        .lines()
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(3)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(" / ");
    match status {
        Ok(s) if s.success() && !hung => Exit {
            ok: true,
            why: String::new(),
        },
        Ok(s) => Exit {
            ok: false,
            why: if hung {
                format!("no output for {} s: killed", HANG.as_secs())
            } else {
                format!("{s}: {tail}")
            },
        },
        Err(e) => Exit {
            ok: false,
            why: e.to_string(),
        },
    }
}

/// Whether configuration `config` crashes on `text` (in a child).
fn crashes_on(text: &str, config: usize) -> bool {
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let n = PROBES.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("soak-probe-{}-{n}.gc", std::process::id()));
    if std::fs::write(&path, text).is_err() {
        return false;
    }
    let args = vec![
        "--probe".to_string(),
        "--file".to_string(),
        path.display().to_string(),
        "--config".to_string(),
        config.to_string(),
    ];
    let exit = run_child(&args, &mut |_| {});
    let _ = std::fs::remove_file(&path);
    !exit.ok
}

/// The configurations of system `k` that crash a process alone (full
/// exploration first: when it crashes, every configuration would).
fn crashing(seed: u64, k: u64) -> Vec<Config> {
    let text = grammar::ast::print(&system(&mut Rng::for_system(seed, k)));
    let configs = all_configs();
    let mut out = vec![];
    for deadlock in [false, true] {
        let full = usize::from(deadlock);
        if crashes_on(&text, full) {
            out.push(configs[full]);
        }
    }
    if !out.is_empty() {
        return out;
    }
    for c in configs_for(k) {
        if crashes_on(&text, config_index(&c)) {
            out.push(c);
        }
    }
    out
}

/// The parent: children over chunks of systems, on `workers` threads.
fn supervise(args: &Args) -> ExitCode {
    let (seed, from, count) = (args.seed, args.from, args.count);
    println!(
        "soak: seed {seed}, systems {from}..{}, {} workers",
        from + count,
        args.workers
    );
    let start = Instant::now();
    let chunk = (count / (args.workers as u64 * 8)).clamp(1, 500);
    let queue: Mutex<VecDeque<(u64, u64)>> = Mutex::new(
        (from..from + count)
            .step_by(chunk as usize)
            .map(|a| (a, (a + chunk).min(from + count)))
            .collect(),
    );
    let results: Mutex<Vec<SystemResult>> = Mutex::new(Vec::new());
    let shown = Mutex::new((0u64, 0u64, Instant::now()));
    let progress = |r: &SystemResult| {
        let mut d = shown.lock().unwrap();
        d.0 += 1;
        d.1 += r.disagreements.len() as u64;
        if d.2.elapsed() > Duration::from_secs(10) || d.0 == count {
            d.2 = Instant::now();
            let t = secs(start);
            println!(
                "  {} / {count} systems, {} disagreements, {t:.0} s, {:.1} systems/s",
                d.0,
                d.1,
                d.0 as f64 / t
            );
        }
    };
    std::thread::scope(|s| {
        for _ in 0..args.workers {
            s.spawn(|| {
                loop {
                    let Some((a, b)) = queue.lock().unwrap().pop_front() else {
                        break;
                    };
                    let mut next = a;
                    while next < b {
                        let child_args: Vec<String> = [
                            "--child",
                            "--seed",
                            &seed.to_string(),
                            "--from",
                            &next.to_string(),
                            "--count",
                            &(b - next).to_string(),
                        ]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                        let mut current = None;
                        let exit = run_child(&child_args, &mut |l| {
                            let Ok(v) = serde_json::from_str::<serde_json::Value>(l) else {
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
                        let mut configs = crashing(seed, k);
                        if configs.is_empty() {
                            // Only in company (or not again): blame the
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
    let elapsed = secs(start);
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    let mut tally = Tally::default();
    for r in results {
        tally.add(r);
    }
    shrink_some(args, &mut tally.disagreements);

    println!(
        "\n## Coverage (seed {seed}, systems {from}..{})\n",
        from + count
    );
    println!("{}", tally.table());
    println!("## Modes and options\n\n{}", tally.options_table());
    if !tally.compile_errors.is_empty() {
        println!("## Systems that did not compile\n");
        for (k, e) in tally.compile_errors.iter().take(5) {
            println!("system {k}: {}", e.lines().next().unwrap_or(""));
        }
        println!();
    }
    println!("## Disagreements\n\n{}", tally.disagreement_report());
    println!(
        "{}\n{elapsed:.1} s, {:.1} systems/s",
        tally.summary(),
        tally.systems as f64 / elapsed
    );
    let empty = tally.empty_cells();
    if !empty.is_empty() {
        println!(
            "{} empty cells, first: {:?}",
            empty.len(),
            &empty[..empty.len().min(10)]
        );
    }
    let failing = tally
        .disagreements
        .iter()
        .filter(|d| args.strict || d.known.is_none())
        .count();
    if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Shrinks a few disagreements of each kind, in child processes (a
/// shrinking step may crash the checker too), on the workers.
fn shrink_some(args: &Args, ds: &mut [Disagreement]) {
    let mut per_kind: BTreeMap<(Option<&str>, String, &str), usize> = BTreeMap::new();
    let mut jobs = vec![];
    for (i, d) in ds.iter().enumerate() {
        let key = (d.known, d.wrong.name(), d.config.column_name());
        let n = per_kind.entry(key).or_default();
        let most = if d.known.is_some() { 1 } else { 3 };
        if *n < most {
            *n += 1;
            jobs.push(i);
        }
    }
    if jobs.is_empty() {
        return;
    }
    println!("\nshrinking {} disagreements", jobs.len());
    let queue = Mutex::new(jobs);
    let done: Mutex<Vec<(usize, String)>> = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..args.workers {
            s.spawn(|| {
                loop {
                    let Some(i) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    let d = &ds[i];
                    let mut a: Vec<String> = vec![
                        "--shrink".into(),
                        "--seed".into(),
                        args.seed.to_string(),
                        "--system".into(),
                        d.system.to_string(),
                        "--config".into(),
                        config_index(&d.config).to_string(),
                        "--wrong".into(),
                        d.wrong.code(),
                        "--shrink-seconds".into(),
                        args.shrink_secs.to_string(),
                    ];
                    if let Some(k) = d.known {
                        a.push("--known".into());
                        a.push(k.into());
                    }
                    let mut path = None;
                    let exit = run_child(&a, &mut |l| path = Some(l.to_string()));
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

/// A child that shrinks one disagreement and prints the file it wrote.
fn shrink_one(args: &Args) -> ExitCode {
    let c = all_configs()[args.config];
    let Some(w) = args.wrong.as_deref().and_then(Wrong::from_code) else {
        return ExitCode::from(2);
    };
    let known = args.known.as_deref().and_then(|n| {
        grammar::compare::KNOWN_OPEN
            .iter()
            .find(|k| k.name == n)
            .map(|k| k.name)
    });
    let mut d = Disagreement {
        system: args.system,
        config: c,
        wrong: w.clone(),
        detail: if w == Wrong::Crash {
            "the process dies: a stack overflow or memory exhausted (run it with `ulimit -v`)"
                .into()
        } else {
            String::new()
        },
        known,
        text: String::new(),
        shrunk: None,
    };
    let budget = Duration::from_secs(args.shrink_secs);
    let index = config_index(&c);
    if w == Wrong::Crash {
        shrink_and_keep_with(args.seed, &mut d, budget, &mut |s| {
            crashes_on(&grammar::ast::print(s), index)
        });
    } else {
        shrink_and_keep_with(args.seed, &mut d, budget, &mut |s| {
            still_wrong(s, &c, &w, known)
        });
    }
    if let Some((_, path)) = &d.shrunk {
        println!("{path}");
    }
    ExitCode::SUCCESS
}
