//! Generated models for the front-end benchmark and the tests that check
//! big legal inputs are accepted (shared by both, by path).

use std::fmt::Write as _;

/// A model of about `lines` lines: eight threads whose bodies repeat a
/// block of lock-protected updates, array reads, branches, loops and
/// `await`s on other threads' control points, with protected arrays, a
/// quantified predicate and a quantified invariant.
pub fn scaling_model(lines: usize) -> String {
    const THREADS: usize = 8;
    const LOCKS: usize = 16;
    let mut out = String::new();
    let _ = writeln!(out, "system scaling;");
    let _ = writeln!(out, "const N = {THREADS};");
    let _ = writeln!(out, "lock m[{LOCKS}];");
    let _ = writeln!(out, "shared flag[{LOCKS}] : 0..3 = 0;");
    let _ = writeln!(
        out,
        "protected data[{}] : 0..7 = 0 excl(t, j) = m[j % {LOCKS}] == t;",
        LOCKS * 4
    );
    let _ = writeln!(
        out,
        "protected sum : 0..7 = 0 excl(t) = exists i in 0..{}: m[i] == t && i == 0;",
        LOCKS - 1
    );
    let _ = writeln!(out, "invariant forall i in 0..{}: flag[i] <= 3;", LOCKS - 1);
    let per_thread = lines.saturating_sub(7) / THREADS;
    for t in 0..THREADS {
        let _ = writeln!(out, "thread T{t} {{");
        let _ = writeln!(out, "  local r : 0..7 = 0;");
        let mut body = 0;
        let mut block = 0;
        while body + 7 <= per_thread.saturating_sub(3) {
            let j = (block * 7 + t) % LOCKS;
            let other = (t + 1) % THREADS;
            let _ = write!(
                out,
                "  L{block}: acquire m[{j}];\n  data[{j}] := (data[{j}] + 1) % 8;\n  r := data[{j} + {}];\n  \
                 if r > 3 {{ r := r - 1; }} else {{ skip; }}\n  release m[{j}];\n  \
                 while flag[{j}] < 2 {{ flag[{j}] := flag[{j}] + 1; }}\n  \
                 await at(T{other}, L{block}) || flag[{j}] == 0;\n",
                LOCKS * (block % 3)
            );
            body += 7;
            block += 1;
        }
        let _ = writeln!(out, "  goto L0;\n}}");
    }
    out
}

/// One protected array of 65,536 elements, its predicate over a lock
/// array, written at constant and computed indices.
pub fn big_array_model() -> String {
    "system big_array;\nconst N = 65536;\nthreads 2;\nlock m[16];\n\
     protected a[N] : 0..3 = 0 excl(t, j) = m[j % 16] == t;\n\
     thread T {\n  local i : 0..N - 1 = 0;\n  L: acquire m[0];\n  a[0] := (a[0] + 1) % 4;\n  \
     a[i] := 1;\n  release m[0];\n  i := (i + 16) % N;\n  goto L;\n}\n"
        .to_string()
}

/// 1,000 copies of one body: a lock, an element of an array each thread
/// owns, a global lock-protected counter and a wait on a neighbour.
pub fn many_threads_model() -> String {
    "system many_threads;\nconst N = 1000;\nthreads N;\nlock m;\nshared turn : 0..N - 1 = 0;\n\
     protected count : 0..9 = 0 by m;\nprotected mine[N] : 0..3 = 0 excl(t, j) = j == t;\n\
     thread T {\n  local r : 0..3 = 0;\n  L: acquire m;\n  count := (count + 1) % 10;\n  \
     release m;\n  mine[self] := (mine[self] + 1) % 4;\n  r := mine[self];\n  \
     if r == 0 { turn := (self + 1) % N; }\n  await turn == self || r != 0;\n  goto L;\n}\n"
        .to_string()
}
