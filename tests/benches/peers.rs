//! optimist side by side with SPIN and Rumur: `cargo bench --bench peers`.
//!
//! Five families (lock counter, dining philosophers, producer-consumer,
//! filter lock, readers-writers), each at three sizes, each written in gcl,
//! Promela and Murphi so that the full state spaces are the same
//! (peers/families.rs says how). Every run is a whole process, timed from
//! outside and measured with `wait4` (peak RSS); the peers' verifiers are
//! compiled before the clock starts. A row is reported only when all three
//! checkers count the same states; otherwise the bench prints the counts
//! and says so.
//!
//! Columns: optimist full (`--reduction none`) on one thread and on all
//! (when the binary has `--threads`), SPIN's pan (`-DNOREDUCE -DSAFETY`) on
//! one core and with `-DNCORE=2`, Rumur's verifier with 1 and 2 threads,
//! and optimist's reduced search (sc) for interest.
//!
//! Then a scaling table: on the largest size measured of each family named
//! in `PEERS_SCALING` (default `lock`; `none` for no table), optimist with
//! 1, 2, 4, ... threads up to the cores, the same numbers of timely
//! dataflow workers in one process (`--workers`), SPIN with `-DNCORE=` each
//! number, and Rumur with each number of threads.
//!
//! Environment: `PEERS_QUICK=1` (or `--quick`) runs the smallest size only;
//! `PEERS_RUNS=R` runs each configuration R times (default 3) and reports
//! the best and the median; `PEERS_FAMILIES=lock,filter` picks families;
//! `PEERS_SIZES=0,1` picks sizes (0 smallest). It writes the table to
//! stdout and everything measured to `target/bench/peers.json`.

#[path = "peers/checkers.rs"]
mod checkers;
#[path = "peers/families.rs"]
mod families;

use std::path::{Path, PathBuf};
use std::process::Command;

use checkers::{Opt, Run};
use families::{FAMILIES, Family, Params, label};
use serde_json::{Value, json};

/// One configuration's runs: the best and median wall time, the peak RSS of
/// the best run, or why there are none.
type Outcome = Result<Vec<Run>, String>;

struct Settings {
    runs: usize,
    sizes: Vec<usize>,
    families: Option<Vec<String>>,
    threads: Option<usize>,
    bin: PathBuf,
    root: PathBuf,
    scratch: PathBuf,
}

fn settings() -> Settings {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("PEERS_QUICK").is_ok_and(|v| v != "0");
    let runs = std::env::var("PEERS_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3usize)
        .max(1);
    let sizes = match std::env::var("PEERS_SIZES") {
        Ok(v) => v.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) if quick => vec![0],
        Err(_) => vec![0, 1, 2],
    };
    let families = std::env::var("PEERS_FAMILIES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_optimist"));
    // `--threads` lands with the parallel engine; before it, the all-threads
    // column is n/a.
    let help = Command::new(&bin)
        .args(["check", "--help"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let threads = help
        .contains("--threads")
        .then(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The target directory this bench was built in (CARGO_TARGET_TMPDIR is
    // its tmp/), whether or not CARGO_TARGET_DIR is set when it runs.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| root.join("target"), Path::to_path_buf);
    Settings {
        runs,
        sizes,
        families,
        threads,
        bin,
        root,
        scratch: target.join("bench").join("peers"),
    }
}

/// Runs `f` R times; stops at the first failure.
fn repeat(runs: usize, mut f: impl FnMut() -> Result<Run, String>) -> Outcome {
    (0..runs).map(|_| f()).collect()
}

fn best(runs: &[Run]) -> Run {
    *runs
        .iter()
        .min_by(|a, b| a.secs.total_cmp(&b.secs))
        .expect("at least one run")
}

fn median(runs: &[Run]) -> f64 {
    let mut t: Vec<f64> = runs.iter().map(|r| r.secs).collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// The columns of one row, in table order.
const COLUMNS: &[&str] = &[
    "optimist 1 thread",
    "optimist all threads",
    "SPIN 1 core",
    "SPIN 2 cores",
    "Rumur 1 thread",
    "Rumur 2 threads",
];

struct Row {
    family: &'static str,
    size: String,
    states: Option<u64>,
    /// The full-search columns, COLUMNS' order.
    full: Vec<Outcome>,
    sc: Outcome,
    /// Why the row is not reported (counts differ), if it is not.
    mismatch: Option<String>,
}

fn measure_row(s: &Settings, family: &'static Family, params: Params) -> Row {
    let size = label(params);
    let dir = s
        .scratch
        .join(format!("{}-{}", family.name, size.replace([' ', '='], "")));
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{} {size}", family.name);
    let opt = |flags: &[&str]| {
        repeat(s.runs, || {
            checkers::optimist(&s.bin, &s.root, &dir, family.gcl, params, flags)
        })
    };
    let one: &[&str] = if s.threads.is_some() {
        &["--reduction", "none", "--threads", "1"]
    } else {
        &["--reduction", "none"]
    };
    let mut full = vec![opt(one)];
    full.push(match s.threads {
        Some(n) => opt(&["--reduction", "none", "--threads", &n.to_string()]),
        None => Err("n/a: no --threads".into()),
    });
    let states = full[0].as_ref().ok().map(|r| r[0].states);
    let expected = states.unwrap_or(1 << 20);
    let promela = (family.promela)(params);
    let murphi = (family.murphi)(params);
    for cores in [1, 2] {
        full.push(
            checkers::spin(
                &dir.join(format!("spin{cores}")),
                &promela,
                cores,
                expected,
                Opt::Fast,
            )
            .and_then(|v| repeat(s.runs, || v.run())),
        );
    }
    for threads in [1, 2] {
        full.push(
            checkers::rumur(
                &dir.join(format!("rumur{threads}")),
                &murphi,
                threads,
                Opt::Fast,
            )
            .and_then(|v| repeat(s.runs, || v.run())),
        );
    }
    let sc = opt(&["--reduction", "sc"]);
    let counts: Vec<(&str, u64)> = COLUMNS
        .iter()
        .zip(&full)
        .filter_map(|(c, o)| o.as_ref().ok().map(|r| (*c, r[0].states)))
        .collect();
    let mismatch = counts.iter().any(|(_, n)| Some(*n) != states).then(|| {
        counts
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    });
    if let Some(m) = &mismatch {
        eprintln!(
            "{} {size}: the counts differ, row not reported: {m}",
            family.name
        );
    } else {
        // The tables come at the end; a long run shows each row as it ends.
        let times: Vec<String> = COLUMNS
            .iter()
            .zip(&full)
            .map(|(c, o)| format!("{c}: {}", cell_time(o)))
            .collect();
        eprintln!("  {} states; {}", states.unwrap_or(0), times.join("; "));
    }
    Row {
        family: family.name,
        size,
        states,
        full,
        sc,
        mismatch,
    }
}

fn secs(t: f64) -> String {
    if t < 1.0 {
        format!("{:.0} ms", t * 1e3)
    } else {
        format!("{t:.2} s")
    }
}

fn cell_time(o: &Outcome) -> String {
    match o {
        Ok(r) => {
            let b = best(r);
            format!(
                "{} ({:.2} M/s)",
                secs(b.secs),
                b.states as f64 / b.secs / 1e6
            )
        }
        Err(e) => e.lines().next().unwrap_or("").chars().take(40).collect(),
    }
}

fn cell_memory(o: &Outcome) -> String {
    match o {
        Ok(r) => {
            let b = best(r);
            format!(
                "{:.0} MB ({:.0} B)",
                b.rss as f64 / 1e6,
                b.rss as f64 / b.states.max(1) as f64
            )
        }
        Err(_) => "".into(),
    }
}

/// `theirs / ours` on best wall times, or blank.
fn ratio(theirs: &Outcome, ours: &Outcome) -> String {
    match (theirs, ours) {
        (Ok(t), Ok(o)) => format!("{:.2}x", best(t).secs / best(o).secs),
        _ => "".into(),
    }
}

/// The fastest of a set of columns.
fn fastest<'a>(os: &[&'a Outcome]) -> &'a Outcome {
    os.iter()
        .copied()
        .filter(|o| o.is_ok())
        .min_by(|a, b| {
            let t = |o: &Outcome| o.as_ref().map_or(f64::MAX, |r| best(r).secs);
            t(a).total_cmp(&t(b))
        })
        .unwrap_or(os[0])
}

fn print_tables(s: &Settings, rows: &[Row]) {
    println!(
        "\nWall time, best of {} (states per second); ratios are the peer's best time over optimist's.\n",
        s.runs
    );
    println!(
        "| family | size | states | {} | SPIN / optimist (1 core) | SPIN / optimist (best) | Rumur / optimist (1 thread) | Rumur / optimist (best) | optimist sc |",
        COLUMNS.join(" | ")
    );
    println!(
        "|---|---|---:|{}---:|---:|---:|---:|---:|",
        "---:|".repeat(COLUMNS.len())
    );
    for r in rows {
        let Some(states) = r.states.filter(|_| r.mismatch.is_none()) else {
            println!(
                "| {} | {} | counts differ: {} |",
                r.family,
                r.size,
                r.mismatch.as_deref().unwrap_or("optimist failed")
            );
            continue;
        };
        let f = &r.full;
        let opt_best = fastest(&[&f[0], &f[1]]);
        let cells: Vec<String> = f.iter().map(cell_time).collect();
        let sc = match &r.sc {
            Ok(runs) => format!("{} states, {}", best(runs).states, secs(best(runs).secs)),
            Err(e) => e.clone(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.family,
            r.size,
            states,
            cells.join(" | "),
            ratio(&f[2], &f[0]),
            ratio(fastest(&[&f[2], &f[3]]), opt_best),
            ratio(&f[4], &f[0]),
            ratio(fastest(&[&f[4], &f[5]]), opt_best),
            sc
        );
    }
    println!("\nPeak resident memory of the best run (bytes per state).\n");
    println!("| family | size | states | {} |", COLUMNS.join(" | "));
    println!("|---|---|---:|{}", "---:|".repeat(COLUMNS.len()));
    for r in rows.iter().filter(|r| r.mismatch.is_none()) {
        let Some(states) = r.states else { continue };
        let cells: Vec<String> = r.full.iter().map(cell_memory).collect();
        println!(
            "| {} | {} | {} | {} |",
            r.family,
            r.size,
            states,
            cells.join(" | ")
        );
    }
}

fn outcome_json(o: &Outcome) -> Value {
    match o {
        Ok(runs) => {
            let b = best(runs);
            json!({
                "states": b.states,
                "best_secs": b.secs,
                "median_secs": median(runs),
                "runs_secs": runs.iter().map(|r| r.secs).collect::<Vec<_>>(),
                "peak_rss_bytes": b.rss,
                "states_per_sec": b.states as f64 / b.secs,
                "bytes_per_state": b.rss as f64 / b.states.max(1) as f64,
                "error": null,
            })
        }
        Err(e) => json!({ "error": e }),
    }
}

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_default();
    let mem_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| checkers::number_before(&t, "kB"));
    let version = |p: &str, a: &str| {
        Command::new(p)
            .arg(a)
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .unwrap_or_else(|_| "not installed".into())
    };
    json!({
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "cpu": cpu,
        "ram_bytes": mem_kb.map(|k| k * 1024),
        "spin": version("spin", "-V"),
        "rumur": version("rumur", "--version"),
        "gcc": version("gcc", "--version"),
    })
}

fn write_json(s: &Settings, rows: &[Row]) -> PathBuf {
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut cols = serde_json::Map::new();
            for (c, o) in COLUMNS.iter().zip(&r.full) {
                cols.insert(c.to_string(), outcome_json(o));
            }
            cols.insert("optimist sc".into(), outcome_json(&r.sc));
            json!({
                "family": r.family,
                "size": r.size,
                "states": r.states,
                "counts_agree": r.mismatch.is_none(),
                "mismatch": r.mismatch,
                "runs": cols,
            })
        })
        .collect();
    let doc = json!({ "machine": machine(), "runs_per_configuration": s.runs, "rows": rows });
    let path = s
        .scratch
        .parent()
        .unwrap_or(Path::new("."))
        .join("peers.json");
    let _ = std::fs::create_dir_all(path.parent().unwrap());
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n")
        .expect("writing peers.json");
    path
}

/// 1, 2, 4, ... up to the cores (and the cores, if not a power of two).
fn core_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts: Vec<usize> = std::iter::successors(Some(1), |&n| Some(n * 2))
        .take_while(|&n| n <= cores)
        .collect();
    if counts.last() != Some(&cores) {
        counts.push(cores);
    }
    counts
}

/// The scaling table: per family of `PEERS_SCALING`, at its largest size
/// measured, every checker at every core count, with its speedup over its
/// own one-core run.
fn scaling(s: &Settings) {
    let names = std::env::var("PEERS_SCALING").unwrap_or_else(|_| "lock".into());
    let counts = core_counts();
    println!(
        "\nScaling: wall time, best of {} runs, and speedup over the same checker on one core.\n",
        s.runs
    );
    println!(
        "| family | size | states | cores | optimist threads | optimist dataflow workers | SPIN NCORE | Rumur threads |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for family in FAMILIES
        .iter()
        .filter(|f| names.split(',').any(|n| n.trim() == f.name))
    {
        let Some(&params) = s.sizes.iter().filter_map(|&i| family.sizes.get(i)).last() else {
            continue;
        };
        let size = label(params);
        let dir = s.scratch.join(format!("scaling-{}", family.name));
        let _ = std::fs::remove_dir_all(&dir);
        let (promela, murphi) = ((family.promela)(params), (family.murphi)(params));
        let mut ones: [Option<f64>; 4] = [None; 4];
        for &n in &counts {
            let n_s = n.to_string();
            let opt = |flags: &[&str]| {
                repeat(s.runs, || {
                    checkers::optimist(&s.bin, &s.root, &dir, family.gcl, params, flags)
                })
            };
            let threads = opt(&["--reduction", "none", "--threads", &n_s]);
            let states = threads.as_ref().ok().map_or(0, |r| r[0].states);
            let workers = opt(&["--reduction", "none", "--workers", &n_s]);
            let spin = checkers::spin(
                &dir.join(format!("spin{n}")),
                &promela,
                n,
                states.max(1),
                Opt::Fast,
            )
            .and_then(|v| repeat(s.runs, || v.run()));
            let rumur = checkers::rumur(&dir.join(format!("rumur{n}")), &murphi, n, Opt::Fast)
                .and_then(|v| repeat(s.runs, || v.run()));
            let cells: Vec<String> = [&threads, &workers, &spin, &rumur]
                .iter()
                .zip(ones.iter_mut())
                .map(|(o, one)| match o {
                    Ok(runs) if runs[0].states == states => {
                        let t = best(runs).secs;
                        let base = *one.get_or_insert(t);
                        format!("{} ({:.2}x)", secs(t), base / t)
                    }
                    Ok(runs) => format!("{} states", runs[0].states),
                    Err(e) => e.clone(),
                })
                .collect();
            println!(
                "| {} | {size} | {states} | {n} | {} |",
                family.name,
                cells.join(" | ")
            );
        }
    }
}

fn main() {
    let s = settings();
    let m = machine();
    println!(
        "machine: {} cores, {}, {:.1} GB RAM; {}; {}; {}",
        m["cores"],
        m["cpu"].as_str().unwrap_or(""),
        m["ram_bytes"].as_u64().unwrap_or(0) as f64 / 1e9,
        m["spin"].as_str().unwrap_or(""),
        m["rumur"].as_str().unwrap_or(""),
        m["gcc"].as_str().unwrap_or("")
    );
    let mut rows = Vec::new();
    for family in FAMILIES {
        if s.families
            .as_ref()
            .is_some_and(|f| !f.iter().any(|n| n == family.name))
        {
            continue;
        }
        for &i in &s.sizes {
            if let Some(&params) = family.sizes.get(i) {
                rows.push(measure_row(&s, family, params));
            }
        }
    }
    print_tables(&s, &rows);
    scaling(&s);
    let path = write_json(&s, &rows);
    println!("\n{}", path.display());
    if rows
        .iter()
        .any(|r| r.mismatch.is_some() || r.states.is_none())
    {
        std::process::exit(1);
    }
}
