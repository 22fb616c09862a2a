//! Exploration benchmark: `cargo bench --bench explore`.
//!
//! Runs the scalable families at about 10^5 to 10^6 full states, in full and
//! reduced mode, and prints a Markdown table of what it measured (best of
//! three runs): states, transitions, time, states per second and bytes per
//! state. When `spin` and `gcc` are installed, the same families run under
//! SPIN (with its partial-order reduction, and with -DNOREDUCE), from
//! equivalent Promela written here. Speed targets live here, never in the
//! test suite.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use optimist::{Options, Reduction};

struct Case {
    file: &'static str,
    defines: &'static [(&'static str, &'static str)],
    promela: fn(&[(&str, &str)]) -> String,
}

/// Three sizes per family (issue 14): the smallest shows the trend where
/// every mode finishes in a blink.
const CASES: &[Case] = &[
    Case {
        file: "tests/benches/lock-family.gc",
        defines: &[("N", "5"), ("K", "4")],
        promela: lock_family,
    },
    Case {
        file: "tests/benches/lock-family.gc",
        defines: &[("N", "6"), ("K", "5")],
        promela: lock_family,
    },
    Case {
        file: "tests/benches/lock-family.gc",
        defines: &[("N", "7"), ("K", "6")],
        promela: lock_family,
    },
    Case {
        file: "models/philosophers.gc",
        defines: &[("N", "4")],
        promela: philosophers,
    },
    Case {
        file: "models/philosophers.gc",
        defines: &[("N", "5")],
        promela: philosophers,
    },
    Case {
        file: "models/philosophers.gc",
        defines: &[("N", "6")],
        promela: philosophers,
    },
];

fn get(defines: &[(&str, &str)], k: &str, default: usize) -> usize {
    defines
        .iter()
        .find(|(n, _)| *n == k)
        .map_or(default, |(_, v)| v.parse().unwrap())
}

/// The lock family in Promela. SPIN merges the `goto` into the statement
/// before it, so its state counts are lower than ours by that control point.
fn lock_family(d: &[(&str, &str)]) -> String {
    let (n, k) = (get(d, "N", 3), get(d, "K", 2));
    let updates = "    x = (x + 1) % (K + 1);\n".repeat(k);
    format!(
        "#define N {n}\n#define K {k}\n#define Y 4\nbyte m = 255;\nbyte x = 0;\nbyte y = 0;\n\
         active [N] proctype T() {{\nL:  atomic {{ m == 255 -> m = _pid }};\n{updates}    \
         atomic {{ m == _pid -> m = 255 }};\n    y = (y + 1) % Y;\n    goto L\n}}\n"
    )
}

/// Dining philosophers with ordered forks, in Promela.
fn philosophers(d: &[(&str, &str)]) -> String {
    let n = get(d, "N", 3);
    format!(
        "#define N {n}\nbyte fork[N];\nbyte used[N];\n\
         init {{ byte i; atomic {{ for (i : 0 .. N - 1) {{ fork[i] = 255; used[i] = N }}; \
         for (i : 0 .. N - 1) {{ run P(i) }} }} }}\n\
         proctype P(byte me) {{\n  byte a, b;\n\
         L: if :: me < N - 1 -> a = me; b = me + 1 :: else -> a = 0; b = me fi;\n\
         atomic {{ fork[a] == 255 -> fork[a] = me }};\n  atomic {{ fork[b] == 255 -> fork[b] = me }};\n\
         used[me] = me;\n  used[(me + 1) % N] = me;\n\
         atomic {{ fork[me] == me -> fork[me] = 255 }};\n  atomic {{ fork[(me + 1) % N] == me -> fork[(me + 1) % N] = 255 }};\n\
         goto L\n}}\n"
    )
}

/// Runs SPIN's safety verifier on `model`: (states stored, seconds), or why not.
fn spin(model: &str, reduce: bool) -> Result<(u64, f64), String> {
    let dir = std::env::temp_dir().join(format!("optimist-spin-{}-{reduce}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("m.pml"), model).map_err(|e| e.to_string())?;
    let ok = |c: &mut Command| {
        c.current_dir(&dir)
            .output()
            .map_err(|e| e.to_string())
            .and_then(|o| {
                if o.status.success() {
                    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
                } else {
                    Err(String::from_utf8_lossy(&o.stderr).into_owned())
                }
            })
    };
    ok(Command::new("spin").args(["-a", "m.pml"]))?;
    let mut args = vec!["-O2", "-DSAFETY", "-DMEMLIM=8192", "-o", "pan", "pan.c"];
    if !reduce {
        args.insert(0, "-DNOREDUCE");
    }
    ok(Command::new("gcc").args(&args))?;
    let start = Instant::now();
    let out = ok(Command::new("./pan").args(["-m10000000"]))?;
    let secs = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let states = out
        .lines()
        .find(|l| l.contains("states, stored"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or("no state count in SPIN's output")?;
    Ok((states, secs))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let have_spin = Command::new("spin").arg("-V").output().is_ok();
    println!(
        "| model | full | time | sc | time | movers | time | stubborn | time | sc+stubborn | time | movers+stubborn | time | SPIN (POR) | SPIN (no POR) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for case in CASES {
        let defines: Vec<(String, String)> = case
            .defines
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (_, model) =
            optimist::load(&root.join(case.file), &defines).expect("benchmark models compile");
        let mut row = Vec::new();
        for &reduction in Reduction::all() {
            let options = Options {
                reduction,
                ..Options::default()
            };
            let best = (0..3)
                .map(|_| optimist::check(&model, &options, &mut |_| {}))
                .min_by_key(|o| o.stats.elapsed)
                .unwrap();
            let s = &best.stats;
            let secs = s.elapsed.max(Duration::from_nanos(1)).as_secs_f64();
            row.push(format!(
                "{} | {:.0} ms ({:.2} M states/s, {:.1} B/state)",
                s.states,
                secs * 1e3,
                s.states as f64 / secs / 1e6,
                s.bytes_per_state()
            ));
        }
        for reduce in [true, false] {
            row.push(if have_spin {
                match spin(&(case.promela)(case.defines), reduce) {
                    Ok((n, secs)) => format!("{n} ({:.0} ms)", secs * 1e3),
                    Err(e) => format!("error: {}", e.lines().next().unwrap_or("")),
                }
            } else {
                "spin not installed".to_string()
            });
        }
        let name = format!(
            "{} {}",
            Path::new(case.file).file_stem().unwrap().to_string_lossy(),
            case.defines
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!("| {name} | {} |", row.join(" | "));
    }
}
