//! Running the `optimist` binary under a watchdog, measuring its peak memory.
//!
//! [`run`] starts the binary with stdout and stderr going to files (so a
//! child that writes a lot never blocks on a pipe), polls it, kills it
//! once it has run for longer than the timeout, and reports its exit, its
//! duration and its peak resident set size.
//!
//! The peak is the larger of two measurements:
//! - `VmHWM` from `/proc/<pid>/status`, polled every millisecond or so
//!   while the child runs: the high-water mark of the child's own address
//!   space, which starts afresh at `exec`;
//! - `ru_maxrss` from `wait4`, but only when it exceeds this process's own
//!   high-water mark. The kernel folds the parent's resident set into a
//!   child's `ru_maxrss` at `exec` (the child starts as a copy of, or in
//!   vfork shares, the parent's address space), so a value below the
//!   parent's mark may be the parent's, while a value above it can only be
//!   the child's.
//!
//! Together they catch a child that grows and exits between two polls,
//! unless it stays below the test process's own size.
//!
//! The child also runs with an address-space limit ([`ADDRESS_SPACE_LIMIT`])
//! so that a runaway allocation ends as an abort, which the tests report,
//! instead of pushing other work on the machine out of memory.

use std::ffi::OsStr;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a child may run before it counts as hung.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The address space a child may map: far above any limit a test gives,
/// well below the machine's memory.
pub const ADDRESS_SPACE_LIMIT: u64 = 2 << 30;

/// How a watched run ended.
#[derive(Debug)]
pub struct Finished {
    /// The exit code, when the child exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The watchdog killed it.
    pub killed: bool,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock time until it ended.
    pub seconds: f64,
    /// Peak resident set, in bytes.
    pub peak: u64,
}

impl Finished {
    /// Peak resident set in megabytes.
    pub fn peak_mb(&self) -> f64 {
        self.peak as f64 / (1 << 20) as f64
    }

    /// Why this run is not a clean end of the program (exit 0 to 3, no
    /// panic, no abort, no hang), if it is not.
    pub fn unclean(&self) -> Option<String> {
        if self.killed {
            return Some(format!("hung: killed after {} s", TIMEOUT.as_secs()));
        }
        if let Some(s) = self.signal {
            let name = match s {
                libc::SIGABRT => " (SIGABRT: abort, e.g. stack overflow or allocation failure)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGKILL => " (SIGKILL: out of memory?)",
                _ => "",
            };
            return Some(format!(
                "killed by signal {s}{name}: {}",
                tail(&self.stderr)
            ));
        }
        for marker in [
            "panicked",
            "stack overflow",
            "RUST_BACKTRACE",
            "memory allocation of",
        ] {
            if self.stderr.contains(marker) || self.stdout.contains(marker) {
                return Some(format!("`{marker}` in the output: {}", tail(&self.stderr)));
            }
        }
        match self.code {
            Some(0..=3) => None,
            Some(c) => Some(format!("exit {c}: {}", tail(&self.stderr))),
            None => Some("no exit code".into()),
        }
    }
}

/// The last lines of an output, for messages.
pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines.len().saturating_sub(6);
    let mut t = lines[from..].join("\n");
    if t.len() > 600 {
        let mut k = t.len() - 600;
        while !t.is_char_boundary(k) {
            k += 1;
        }
        t = t[k..].to_string();
    }
    t
}

/// `VmHWM` of a process, in bytes.
fn vm_hwm(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn scratch() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("watchdog");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Runs `optimist args...` from the repository root under the watchdog.
pub fn run<I, S>(args: I) -> Finished
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let base = scratch();
    let (out_path, err_path) = (base.with_extension("out"), base.with_extension("err"));
    let out = std::fs::File::create(&out_path).unwrap();
    let err = std::fs::File::create(&err_path).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_optimist"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE_LIMIT,
                rlim_max: ADDRESS_SPACE_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let child = cmd.spawn().expect("the binary starts");
    let pid = child.id() as libc::pid_t;
    let pid_text = pid.to_string();
    let mut polled = 0u64;
    let mut killed = false;
    let mut status = 0;
    // SAFETY: rusage is plain data, filled in by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut pause = Duration::from_micros(200);
    loop {
        // SAFETY: the child is ours and not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4: {}", std::io::Error::last_os_error());
        if let Some(b) = vm_hwm(&pid_text) {
            polled = polled.max(b);
        }
        if !killed && start.elapsed() > TIMEOUT {
            // SAFETY: not reaped yet, so the pid is still this child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(2));
    }
    let seconds = start.elapsed().as_secs_f64();
    let reported = usage.ru_maxrss as u64 * 1024;
    let own = vm_hwm("self").unwrap_or(u64::MAX);
    let peak = if reported > own {
        polled.max(reported)
    } else {
        polled
    };
    let exit = std::process::ExitStatus::from_raw(status);
    // The child is reaped; do not let `Child` wait for it again.
    drop(child);
    let read = |p: &PathBuf| {
        let bytes = std::fs::read(p).unwrap_or_default();
        let _ = std::fs::remove_file(p);
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Finished {
        code: exit.code(),
        signal: exit.signal(),
        killed,
        stdout: read(&out_path),
        stderr: read(&err_path),
        seconds,
        peak,
    }
}
