//! The peer benchmark's families, each in three encodings whose full state
//! spaces are the same state for state: the gcl model (a file next to this
//! one, parameterised by its `const`s), and Promela and Murphi written here
//! from the same parameters.
//!
//! The peers are written by hand, the way a SPIN or Rumur user would write
//! them, not taken from `optimist export`: the export keeps optimist's
//! control points as variables and runs each thread as one loop over guarded
//! `d_step`s (Promela) so that every model translates exactly, which costs
//! SPIN a scan of every guard at every step. Here a Promela thread is a
//! `proctype` with ordinary sequential control flow, and a Murphi thread is
//! a `ruleset` with one rule per statement over a program-counter array
//! (Murphi has no other control flow).
//!
//! Matching the counts takes two rules, both cheap for the peers:
//! - every gcl statement is one atomic step in the peers: a lock operation
//!   or a semaphore's `down` is a `d_step { guard -> effect }`;
//! - SPIN translates with two of its model optimisations off: statement
//!   merging (`-o3`), which folds a thread's local assignments into its
//!   neighbours, and dead-variable elimination (`-o2`), which drops the
//!   variables a model only writes (the philosophers' `used`, the readers'
//!   `seen`); both change the state space rather than the speed of
//!   exploring it, and optimist has neither;
//! - gcl's `goto L` is a step of its own (it is a control point), so the
//!   Promela loops end in an explicit `skip` and the Murphi rulesets have a
//!   "loop" rule.

/// One member of a family: the `-D` values of its gcl file.
pub type Params = &'static [(&'static str, i64)];

pub struct Family {
    pub name: &'static str,
    /// The gcl model, relative to the package root.
    pub gcl: &'static str,
    /// Three sizes, about 10^5, 10^6 and 10^7 states; the first is the
    /// quick run's and the test's.
    pub sizes: &'static [Params],
    pub promela: fn(Params) -> String,
    pub murphi: fn(Params) -> String,
}

pub const FAMILIES: &[Family] = &[
    Family {
        name: "lock",
        gcl: "tests/benches/lock-family.gc",
        sizes: &[
            &[("N", 8), ("K", 3)],
            &[("N", 10), ("K", 3)],
            &[("N", 11), ("K", 3)],
        ],
        promela: lock_promela,
        murphi: lock_murphi,
    },
    Family {
        name: "philosophers",
        gcl: "tests/benches/peers/philosophers.gc",
        sizes: &[&[("N", 5)], &[("N", 6)], &[("N", 7)]],
        promela: philosophers_promela,
        murphi: philosophers_murphi,
    },
    Family {
        name: "prodcons",
        gcl: "tests/benches/peers/prodcons.gc",
        sizes: &[
            &[("P", 2), ("C", 1), ("B", 2)],
            &[("P", 2), ("C", 2), ("B", 2)],
            &[("P", 3), ("C", 2), ("B", 2)],
        ],
        promela: prodcons_promela,
        murphi: prodcons_murphi,
    },
    Family {
        name: "filter",
        gcl: "tests/benches/peers/filter.gc",
        sizes: &[&[("N", 3)], &[("N", 4)], &[("N", 5)]],
        promela: filter_promela,
        murphi: filter_murphi,
    },
    Family {
        name: "readers-writers",
        gcl: "tests/benches/peers/readers-writers.gc",
        sizes: &[
            &[("R", 4), ("W", 2)],
            &[("R", 5), ("W", 2)],
            &[("R", 6), ("W", 2)],
        ],
        promela: rw_promela,
        murphi: rw_murphi,
    },
];

/// The value of `name` in `p`, or the gcl file's default.
fn get(p: Params, name: &str, default: i64) -> i64 {
    p.iter()
        .find(|(n, _)| *n == name)
        .map_or(default, |(_, v)| *v)
}

/// `N=10 K=3`: how a row names its size.
pub fn label(p: Params) -> String {
    p.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

// A lock is a byte, 255 when free, else its owner's _pid (gcl: `free` or
// the owner's id); acquire and release are one guarded d_step each.
const PML_LOCK: &str = "#define acquire(m) d_step { m == 255 -> m = _pid }\n\
                        #define release(m) d_step { m == _pid -> m = 255 }\n\
                        #define down(s) d_step { s > 0 -> s-- }\n";

fn lock_promela(p: Params) -> String {
    let (n, k) = (get(p, "N", 3), get(p, "K", 2));
    let updates = "       x = (x + 1) % (K + 1);\n".repeat(k as usize);
    format!(
        "#define N {n}\n#define K {k}\n#define Y 4\n{PML_LOCK}\
         byte m = 255;\nbyte x = 0;\nbyte y = 0;\n\n\
         active [N] proctype T() {{\n    do\n    :: acquire(m);\n{updates}       \
         release(m);\n       y = (y + 1) % Y;\n       skip\n    od\n}}\n"
    )
}

// In Murphi a lock holds its owner's id, or the number of threads when free.
fn lock_murphi(p: Params) -> String {
    let (n, k) = (get(p, "N", 3), get(p, "K", 2));
    format!(
        "const N: {n}; K: {k}; Y: 4;\n\
         type pid: 0..N-1;\n\
         var m: 0..N; x: 0..K; y: 0..Y-1; pc: array[pid] of 0..K+3;\n\n\
         startstate begin m := N; x := 0; y := 0; for p: pid do pc[p] := 0; end; end;\n\n\
         ruleset p: pid do\n\
         \x20 rule \"acquire\" pc[p] = 0 & m = N ==> begin m := p; pc[p] := 1; end;\n\
         \x20 rule \"update\" pc[p] >= 1 & pc[p] <= K ==> begin x := (x + 1) % (K + 1); pc[p] := pc[p] + 1; end;\n\
         \x20 rule \"release\" pc[p] = K + 1 & m = p ==> begin m := N; pc[p] := K + 2; end;\n\
         \x20 rule \"count\" pc[p] = K + 2 ==> begin y := (y + 1) % Y; pc[p] := K + 3; end;\n\
         \x20 rule \"loop\" pc[p] = K + 3 ==> begin pc[p] := 0; end;\n\
         end;\n"
    )
}

fn philosophers_promela(p: Params) -> String {
    let n = get(p, "N", 3);
    format!(
        "#define N {n}\n{PML_LOCK}\
         #define FIRST (_pid % (N - 1))\n#define SECOND (_pid + 1 - (_pid + 1) / N)\n\
         byte fork[N] = 255;\nbyte used[N] = N;\n\n\
         active [N] proctype P() {{\n    do\n    :: acquire(fork[FIRST]);\n       \
         acquire(fork[SECOND]);\n       used[_pid] = _pid;\n       \
         used[(_pid + 1) % N] = _pid;\n       release(fork[_pid]);\n       \
         release(fork[(_pid + 1) % N]);\n       skip\n    od\n}}\n"
    )
}

fn philosophers_murphi(p: Params) -> String {
    let n = get(p, "N", 3);
    format!(
        "const N: {n};\n\
         type pid: 0..N-1;\n\
         var fork: array[pid] of 0..N; used: array[pid] of 0..N; pc: array[pid] of 0..6;\n\n\
         startstate begin for p: pid do fork[p] := N; used[p] := N; pc[p] := 0; end; end;\n\n\
         ruleset p: pid do\n\
         \x20 rule \"first\" pc[p] = 0 & fork[p % (N - 1)] = N ==> begin fork[p % (N - 1)] := p; pc[p] := 1; end;\n\
         \x20 rule \"second\" pc[p] = 1 & fork[p + 1 - (p + 1) / N] = N ==> begin fork[p + 1 - (p + 1) / N] := p; pc[p] := 2; end;\n\
         \x20 rule \"use left\" pc[p] = 2 ==> begin used[p] := p; pc[p] := 3; end;\n\
         \x20 rule \"use right\" pc[p] = 3 ==> begin used[(p + 1) % N] := p; pc[p] := 4; end;\n\
         \x20 rule \"put left\" pc[p] = 4 & fork[p] = p ==> begin fork[p] := N; pc[p] := 5; end;\n\
         \x20 rule \"put right\" pc[p] = 5 & fork[(p + 1) % N] = p ==> begin fork[(p + 1) % N] := N; pc[p] := 6; end;\n\
         \x20 rule \"loop\" pc[p] = 6 ==> begin pc[p] := 0; end;\n\
         end;\n"
    )
}

fn prodcons_promela(p: Params) -> String {
    let (np, nc, b) = (get(p, "P", 1), get(p, "C", 1), get(p, "B", 2));
    format!(
        "#define P {np}\n#define C {nc}\n#define B {b}\n{PML_LOCK}\
         byte slots = B;\nbyte items = 0;\nbyte m = 255;\nbyte buf[B];\nbyte head = 0;\nbyte tail = 0;\n\n\
         active [P] proctype producer() {{\n    byte item = 1;\n    do\n    :: down(slots);\n       \
         acquire(m);\n       buf[tail] = item;\n       tail = (tail + 1) % B;\n       \
         release(m);\n       items++;\n       item = item % 3 + 1;\n       skip\n    od\n}}\n\n\
         active [C] proctype consumer() {{\n    byte got = 0;\n    do\n    :: down(items);\n       \
         acquire(m);\n       got = buf[head];\n       buf[head] = 0;\n       \
         head = (head + 1) % B;\n       release(m);\n       slots++;\n       skip\n    od\n}}\n"
    )
}

// Producers are threads 0..P-1, consumers P..P+C-1, as in gcl.
fn prodcons_murphi(p: Params) -> String {
    let (np, nc, b) = (get(p, "P", 1), get(p, "C", 1), get(p, "B", 2));
    format!(
        "const P: {np}; C: {nc}; B: {b};\n\
         type prod: 0..P-1; cons: 0..C-1;\n\
         var empty: 0..B; full: 0..B; m: 0..P+C; buf: array[0..B-1] of 0..3;\n\
         \x20   head: 0..B-1; tail: 0..B-1;\n\
         \x20   item: array[prod] of 1..3; got: array[cons] of 0..3;\n\
         \x20   ppc: array[prod] of 0..7; cpc: array[cons] of 0..7;\n\n\
         startstate begin\n\
         \x20 empty := B; full := 0; m := P + C; head := 0; tail := 0;\n\
         \x20 for i: 0..B-1 do buf[i] := 0; end;\n\
         \x20 for i: prod do item[i] := 1; ppc[i] := 0; end;\n\
         \x20 for i: cons do got[i] := 0; cpc[i] := 0; end;\n\
         end;\n\n\
         ruleset i: prod do\n\
         \x20 rule \"down empty\" ppc[i] = 0 & empty > 0 ==> begin empty := empty - 1; ppc[i] := 1; end;\n\
         \x20 rule \"acquire\" ppc[i] = 1 & m = P + C ==> begin m := i; ppc[i] := 2; end;\n\
         \x20 rule \"put\" ppc[i] = 2 ==> begin buf[tail] := item[i]; ppc[i] := 3; end;\n\
         \x20 rule \"tail\" ppc[i] = 3 ==> begin tail := (tail + 1) % B; ppc[i] := 4; end;\n\
         \x20 rule \"release\" ppc[i] = 4 & m = i ==> begin m := P + C; ppc[i] := 5; end;\n\
         \x20 rule \"up full\" ppc[i] = 5 ==> begin full := full + 1; ppc[i] := 6; end;\n\
         \x20 rule \"next item\" ppc[i] = 6 ==> begin item[i] := item[i] % 3 + 1; ppc[i] := 7; end;\n\
         \x20 rule \"loop\" ppc[i] = 7 ==> begin ppc[i] := 0; end;\n\
         end;\n\n\
         ruleset i: cons do\n\
         \x20 rule \"down full\" cpc[i] = 0 & full > 0 ==> begin full := full - 1; cpc[i] := 1; end;\n\
         \x20 rule \"acquire\" cpc[i] = 1 & m = P + C ==> begin m := P + i; cpc[i] := 2; end;\n\
         \x20 rule \"get\" cpc[i] = 2 ==> begin got[i] := buf[head]; cpc[i] := 3; end;\n\
         \x20 rule \"clear\" cpc[i] = 3 ==> begin buf[head] := 0; cpc[i] := 4; end;\n\
         \x20 rule \"head\" cpc[i] = 4 ==> begin head := (head + 1) % B; cpc[i] := 5; end;\n\
         \x20 rule \"release\" cpc[i] = 5 & m = P + i ==> begin m := P + C; cpc[i] := 6; end;\n\
         \x20 rule \"up empty\" cpc[i] = 6 ==> begin empty := empty + 1; cpc[i] := 7; end;\n\
         \x20 rule \"loop\" cpc[i] = 7 ==> begin cpc[i] := 0; end;\n\
         end;\n"
    )
}

/// The filter lock's wait: `(forall k: k == me || level[k] < l) || victim[l] != me`,
/// unrolled for Promela, which has no quantifiers.
fn filter_wait(n: i64) -> String {
    let all: Vec<String> = (0..n)
        .map(|k| format!("({k} == _pid || level[{k}] < l)"))
        .collect();
    format!("(({}) || victim[l] != _pid)", all.join(" && "))
}

fn filter_promela(p: Params) -> String {
    let n = get(p, "N", 3);
    let wait = filter_wait(n);
    format!(
        "#define N {n}\nbyte level[N];\nbyte victim[N];\nbyte inside = 0;\n\n\
         active [N] proctype P() {{\n    byte l = 1;\n\
         L:  do\n    :: l < N ->\n       level[_pid] = l;\n       victim[l] = _pid;\n       \
         {wait};\n       l++\n    :: else -> break\n    od;\n    \
         inside++;\n    assert(inside == 1);\n    inside--;\n    level[_pid] = 0;\n    \
         l = 1;\n    skip;\n    goto L\n}}\n"
    )
}

fn filter_murphi(p: Params) -> String {
    let n = get(p, "N", 3);
    format!(
        "const N: {n};\n\
         type pid: 0..N-1;\n\
         var level: array[pid] of 0..N-1; victim: array[pid] of 0..N-1; inside: 0..N;\n\
         \x20   l: array[pid] of 1..N; pc: array[pid] of 0..10;\n\n\
         startstate begin inside := 0;\n\
         \x20 for p: pid do level[p] := 0; victim[p] := 0; l[p] := 1; pc[p] := 0; end;\n\
         end;\n\n\
         ruleset p: pid do\n\
         \x20 rule \"climb\" pc[p] = 0 & l[p] < N ==> begin pc[p] := 1; end;\n\
         \x20 rule \"enter\" pc[p] = 0 & l[p] >= N ==> begin pc[p] := 5; end;\n\
         \x20 rule \"level\" pc[p] = 1 ==> begin level[p] := l[p]; pc[p] := 2; end;\n\
         \x20 rule \"victim\" pc[p] = 2 ==> begin victim[l[p]] := p; pc[p] := 3; end;\n\
         \x20 rule \"wait\" pc[p] = 3\n\
         \x20     & ((forall k: pid do k = p | level[k] < l[p] endforall) | victim[l[p]] != p)\n\
         \x20     ==> begin pc[p] := 4; end;\n\
         \x20 rule \"next level\" pc[p] = 4 ==> begin l[p] := l[p] + 1; pc[p] := 0; end;\n\
         \x20 rule \"in\" pc[p] = 5 ==> begin inside := inside + 1; pc[p] := 6; end;\n\
         \x20 rule \"check\" pc[p] = 6 ==> begin assert inside = 1; pc[p] := 7; end;\n\
         \x20 rule \"out\" pc[p] = 7 ==> begin inside := inside - 1; pc[p] := 8; end;\n\
         \x20 rule \"leave\" pc[p] = 8 ==> begin level[p] := 0; pc[p] := 9; end;\n\
         \x20 rule \"reset\" pc[p] = 9 ==> begin l[p] := 1; pc[p] := 10; end;\n\
         \x20 rule \"loop\" pc[p] = 10 ==> begin pc[p] := 0; end;\n\
         end;\n"
    )
}

fn rw_promela(p: Params) -> String {
    let (r, w, d) = (get(p, "R", 2), get(p, "W", 1), get(p, "D", 2));
    format!(
        "#define R {r}\n#define W {w}\n#define D {d}\n{PML_LOCK}\
         byte w = 1;\nbyte m = 255;\nbyte readers = 0;\nbyte data = 0;\nbyte seen[R];\n\n\
         active [R] proctype reader() {{\n    do\n    :: acquire(m);\n       \
         if\n       :: readers == 0 -> down(w)\n       :: else\n       fi;\n       \
         readers++;\n       release(m);\n       seen[_pid] = data;\n       \
         acquire(m);\n       readers--;\n       \
         if\n       :: readers == 0 -> w++\n       :: else\n       fi;\n       \
         release(m);\n       skip\n    od\n}}\n\n\
         active [W] proctype writer() {{\n    do\n    :: down(w);\n       \
         data = (data + 1) % D;\n       w++;\n       skip\n    od\n}}\n"
    )
}

// Readers are threads 0..R-1, writers R..R+W-1, as in gcl.
fn rw_murphi(p: Params) -> String {
    let (r, w, d) = (get(p, "R", 2), get(p, "W", 1), get(p, "D", 2));
    format!(
        "const R: {r}; W: {w}; D: {d};\n\
         type rd: 0..R-1; wr: 0..W-1;\n\
         var w: 0..1; m: 0..R+W; readers: 0..R; data: 0..D-1; seen: array[rd] of 0..D-1;\n\
         \x20   rpc: array[rd] of 0..11; wpc: array[wr] of 0..3;\n\n\
         startstate begin w := 1; m := R + W; readers := 0; data := 0;\n\
         \x20 for i: rd do seen[i] := 0; rpc[i] := 0; end;\n\
         \x20 for i: wr do wpc[i] := 0; end;\n\
         end;\n\n\
         ruleset i: rd do\n\
         \x20 rule \"acquire in\" rpc[i] = 0 & m = R + W ==> begin m := i; rpc[i] := 1; end;\n\
         \x20 rule \"first?\" rpc[i] = 1 ==> begin if readers = 0 then rpc[i] := 2; else rpc[i] := 3; end; end;\n\
         \x20 rule \"down w\" rpc[i] = 2 & w > 0 ==> begin w := w - 1; rpc[i] := 3; end;\n\
         \x20 rule \"count in\" rpc[i] = 3 ==> begin readers := readers + 1; rpc[i] := 4; end;\n\
         \x20 rule \"release in\" rpc[i] = 4 & m = i ==> begin m := R + W; rpc[i] := 5; end;\n\
         \x20 rule \"read\" rpc[i] = 5 ==> begin seen[i] := data; rpc[i] := 6; end;\n\
         \x20 rule \"acquire out\" rpc[i] = 6 & m = R + W ==> begin m := i; rpc[i] := 7; end;\n\
         \x20 rule \"count out\" rpc[i] = 7 ==> begin readers := readers - 1; rpc[i] := 8; end;\n\
         \x20 rule \"last?\" rpc[i] = 8 ==> begin if readers = 0 then rpc[i] := 9; else rpc[i] := 10; end; end;\n\
         \x20 rule \"up w\" rpc[i] = 9 ==> begin w := w + 1; rpc[i] := 10; end;\n\
         \x20 rule \"release out\" rpc[i] = 10 & m = i ==> begin m := R + W; rpc[i] := 11; end;\n\
         \x20 rule \"loop\" rpc[i] = 11 ==> begin rpc[i] := 0; end;\n\
         end;\n\n\
         ruleset i: wr do\n\
         \x20 rule \"down w\" wpc[i] = 0 & w > 0 ==> begin w := w - 1; wpc[i] := 1; end;\n\
         \x20 rule \"write\" wpc[i] = 1 ==> begin data := (data + 1) % D; wpc[i] := 2; end;\n\
         \x20 rule \"up w\" wpc[i] = 2 ==> begin w := w + 1; wpc[i] := 3; end;\n\
         \x20 rule \"loop\" wpc[i] = 3 ==> begin wpc[i] := 0; end;\n\
         end;\n"
    )
}
