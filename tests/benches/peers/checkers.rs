//! Building and running SPIN's and Rumur's verifiers and optimist on one
//! family member, measuring each run as a whole process: wall time, and peak
//! resident memory from `wait4`'s rusage (the largest of the process and
//! the children it waited for, which covers SPIN's multi-core workers).

// The bench and the test each use part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One measured run.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub states: u64,
    pub secs: f64,
    /// Peak resident set, bytes.
    pub rss: u64,
}

/// How hard gcc optimises a verifier: the benchmark wants the peers at their
/// fastest, the test wants them compiled quickly.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Fast,
    Quick,
}

/// Runs `program args` in `dir` to completion, its output into files (a
/// pipe could fill and stall it): (stdout, wall seconds, peak RSS bytes), or
/// its output when it exits other than 0.
fn measure(dir: &Path, program: &Path, args: &[String]) -> Result<(String, f64, u64), String> {
    let out_path = dir.join("run.out");
    let err_path = dir.join("run.err");
    let out = std::fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child, which
    // std never waits for (the Child is dropped without wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = start.elapsed().as_secs_f64();
    if got != pid {
        return Err(format!(
            "wait4 on {}: {}",
            program.display(),
            std::io::Error::last_os_error()
        ));
    }
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    if code != 0 {
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        return Err(format!(
            "{} {} exited {code}:\n{stdout}{stderr}",
            program.display(),
            args.join(" ")
        ));
    }
    Ok((stdout, secs, usage.ru_maxrss as u64 * 1024))
}

/// Runs a build step, failing with its output.
fn build(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{program} {} failed:\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The number before `what` on the first line that has it.
pub fn number_before(text: &str, what: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.contains(what))?;
    let head = &line[..line.find(what)?];
    head.split_whitespace().last()?.parse().ok()
}

/// A compiled SPIN verifier for one model.
pub struct Spin {
    dir: PathBuf,
    /// log2 of the hash table's slots: at least the expected states, so that
    /// SPIN's chains stay short (its default, 2^24, is too small for the
    /// largest sizes and needlessly large for the smallest).
    w: u32,
    depth: u64,
}

/// Compiles `promela` with `-DNOREDUCE -DSAFETY`, for `cores` cores (SPIN's
/// multi-core mode, `-DNCORE`, when above 1). `expected` sizes the hash
/// table and the depth-first stack.
pub fn spin(
    dir: &Path,
    promela: &str,
    cores: usize,
    expected: u64,
    opt: Opt,
) -> Result<Spin, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("model.pml"), promela).map_err(|e| e.to_string())?;
    // -o2 -o3: no dead-variable elimination or statement merging, which
    // change the state space (see families.rs).
    build(dir, "spin", &["-a", "-o2", "-o3", "model.pml"])?;
    let memlim = format!("-DMEMLIM={}", 16 * 1024);
    let ncore = format!("-DNCORE={cores}");
    let mut args = vec![
        if opt == Opt::Fast { "-O3" } else { "-O0" },
        "-w",
        "-DNOREDUCE",
        "-DSAFETY",
        "-DVECTORSZ=4096",
        memlim.as_str(),
    ];
    if cores > 1 {
        args.push(ncore.as_str());
    }
    args.extend(["-o", "pan", "pan.c"]);
    build(dir, "gcc", &args)?;
    let w = (64 - expected.max(1).leading_zeros()).clamp(16, 30);
    Ok(Spin {
        dir: dir.to_path_buf(),
        w,
        depth: expected.clamp(10_000, 100_000_000),
    })
}

impl Spin {
    pub fn run(&self) -> Result<Run, String> {
        let args = vec![format!("-m{}", self.depth), format!("-w{}", self.w)];
        let (out, secs, rss) = measure(&self.dir, &self.dir.join("pan"), &args)?;
        if out.contains("max search depth too small") {
            return Err(format!("SPIN's depth bound was too small:\n{out}"));
        }
        if !out.contains("errors: 0") {
            return Err(format!("SPIN found an error:\n{out}"));
        }
        // Multi-core pan prints each core's count, then the sum on a line of
        // its own ("cpu0: ... states, stored" lines, then the total).
        let states = total_spin_states(&out).ok_or(format!("no state count from SPIN:\n{out}"))?;
        Ok(Run { states, secs, rss })
    }
}

/// SPIN's count: the one-core report's "N states, stored", or in multi-core
/// mode the last such line (the summary after the workers' own).
fn total_spin_states(out: &str) -> Option<u64> {
    out.lines()
        .filter(|l| l.contains("states, stored"))
        .filter_map(|l| number_before(l, "states, stored"))
        .last()
}

/// A compiled Rumur verifier.
pub struct Rumur {
    dir: PathBuf,
}

/// Generates C for `threads` threads (Rumur fixes the count at generation)
/// and compiles it as Rumur's manual recommends.
pub fn rumur(dir: &Path, murphi: &str, threads: usize, opt: Opt) -> Result<Rumur, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("model.m"), murphi).map_err(|e| e.to_string())?;
    let threads = threads.to_string();
    build(
        dir,
        "rumur",
        &[
            "--threads",
            &threads,
            "--symmetry-reduction",
            "off",
            "--deadlock-detection",
            "off",
            "--colour",
            "off",
            "--output",
            "model.c",
            "model.m",
        ],
    )?;
    let flags: &[&str] = if opt == Opt::Fast {
        &["-std=c11", "-O3", "-march=native", "-mcx16"]
    } else {
        &["-std=c11", "-O0", "-mcx16"]
    };
    let mut args = flags.to_vec();
    args.extend(["-o", "model", "model.c", "-lpthread"]);
    build(dir, "gcc", &args)?;
    Ok(Rumur {
        dir: dir.to_path_buf(),
    })
}

impl Rumur {
    pub fn run(&self) -> Result<Run, String> {
        let (out, secs, rss) = measure(&self.dir, &self.dir.join("model"), &[])?;
        if !out.contains("No error found") {
            return Err(format!("Rumur found an error:\n{out}"));
        }
        let states =
            number_before(&out, "states,").ok_or(format!("no state count from Rumur:\n{out}"))?;
        Ok(Run { states, secs, rss })
    }
}

/// One optimist run of `gcl` (relative to `root`) with `-D` values and extra
/// flags (`--reduction`, `--threads`), as a process like the peers.
pub fn optimist(
    bin: &Path,
    root: &Path,
    scratch: &Path,
    gcl: &str,
    params: &[(&str, i64)],
    flags: &[&str],
) -> Result<Run, String> {
    std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    let mut args = vec!["check".to_string(), root.join(gcl).display().to_string()];
    for (k, v) in params {
        args.push("-D".into());
        args.push(format!("{k}={v}"));
    }
    args.extend(flags.iter().map(|f| f.to_string()));
    // SPIN and Rumur here store every state, so optimist does too (the
    // command line's default stores one per orbit where it can).
    args.extend(["--symmetry", "off", "--format", "json"].map(String::from));
    let (out, secs, rss) = measure(scratch, bin, &args)?;
    let json: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| format!("optimist's JSON: {e}: {out}"))?;
    if json["verdict"] != "holds" {
        return Err(format!("optimist: {}", json["verdict"]));
    }
    let states = json["states"]
        .as_u64()
        .ok_or("optimist's JSON has no states")?;
    Ok(Run { states, secs, rss })
}
