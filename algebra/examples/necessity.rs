//! Searches, for each hypothesis (11)-(18), for a relational counter-model:
//! every other hypothesis holds and (19) fails. Prints what it finds, as the
//! table in algebra/README.md and as Rust for `necessity.rs`:
//!
//!     cargo run --release -p omega-algebra --example necessity [H...]
//!
//! With `--movers`, the same for the movers theorem (M) and its hypotheses
//! (R), (A2)-(A5r), (Q), (11), (17), (18) (`necessity/movers.rs`):
//!
//!     cargo run --release -p omega-algebra --example necessity --movers [--deep] [H...]

use std::time::Instant;

use omega_algebra::necessity::{HYPOTHESES, Search, minimize, search};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--deep`: also every model with 3 states and 2 threads, and more
    // random models with 4 states.
    let deep = args.iter().any(|a| a == "--deep");
    args.retain(|a| a != "--deep");
    if args.iter().any(|a| a == "--movers") {
        args.retain(|a| a != "--movers");
        return movers(&args, deep);
    }
    // `--model H JSON`: check and minimise a model given as JSON (for
    // counter-models built by hand).
    if args.first().map(String::as_str) == Some("--model") {
        let h = &args[1];
        let m: omega_algebra::necessity::PaperModel =
            serde_json::from_str(&args[2]).expect("a model as JSON");
        match m.check(h) {
            Ok(v) => {
                let small = minimize(&m, h);
                let w = small.check(h).expect("minimised still checks");
                println!(
                    "{h}: checks, violated at {:?}; minimised: {small}; violated at {:?}",
                    v.pair, w.pair
                );
                println!("    (\"{h}\", {}),", rust(&small));
            }
            Err(e) => println!("{h}: does not check: {e}"),
        }
        return;
    }
    let hs: Vec<&str> = if args.is_empty() {
        HYPOTHESES.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    let plan = [
        Search::Exhaustive {
            states: 1,
            threads: 1,
        },
        Search::Exhaustive {
            states: 2,
            threads: 1,
        },
        Search::Exhaustive {
            states: 2,
            threads: 2,
        },
        Search::Exhaustive {
            states: 3,
            threads: 1,
        },
        Search::Random {
            states: 3,
            threads: 2,
            samples: 4_000_000,
            seed: 11,
        },
        Search::Random {
            states: 3,
            threads: 3,
            samples: 2_000_000,
            seed: 13,
        },
        Search::Random {
            states: 4,
            threads: 2,
            samples: 4_000_000,
            seed: 17,
        },
        Search::Random {
            states: 4,
            threads: 3,
            samples: 2_000_000,
            seed: 19,
        },
    ];
    let deep_plan = [
        Search::Exhaustive {
            states: 3,
            threads: 2,
        },
        Search::Random {
            states: 4,
            threads: 2,
            samples: 40_000_000,
            seed: 23,
        },
        Search::Random {
            states: 4,
            threads: 3,
            samples: 20_000_000,
            seed: 29,
        },
        Search::Sampled {
            states: 5,
            threads: 2,
            samples: 20_000_000,
            seed: 31,
        },
        Search::Sampled {
            states: 5,
            threads: 3,
            samples: 10_000_000,
            seed: 37,
        },
        Search::Sampled {
            states: 6,
            threads: 2,
            samples: 10_000_000,
            seed: 41,
        },
        Search::Sampled {
            states: 6,
            threads: 3,
            samples: 10_000_000,
            seed: 43,
        },
    ];
    let plan: Vec<Search> = if deep {
        plan.iter().chain(&deep_plan).copied().collect()
    } else {
        plan.to_vec()
    };
    for h in hs {
        let start = Instant::now();
        let mut found = None;
        let mut examined = 0;
        for &how in &plan {
            let (cm, seen) = search(h, how);
            examined += seen;
            if let Some(cm) = cm {
                found = Some((cm, how));
                break;
            }
        }
        match found {
            Some((found, how)) => {
                let cm = minimize(&found, h);
                let v = cm.check(h).expect("a found counter-model checks");
                println!(
                    "{h}: counter-model ({how:?}), {examined} models, {:.1?}: {cm}; violated at {:?}",
                    start.elapsed(),
                    v.pair
                );
                println!("    (\"{h}\", {}),", rust(&cm));
            }
            None => println!(
                "{h}: none found, {examined} models, {:.1?}",
                start.elapsed()
            ),
        }
    }
}

fn rust(m: &omega_algebra::necessity::PaperModel) -> String {
    format!(
        "PaperModel {{ states: {}, q: vec!{:?}, p: vec!{:?}, u: vec!{:?}, v: vec!{:?} }}",
        m.states, m.q, m.p, m.u, m.v
    )
    .replace("[[", "vec![vec![")
    .replace("], [", "], vec![")
}

/// The search for the movers theorem: every model with at most 3 states and
/// 1 thread, and with at most 2 states and 2 or 3 threads (`--deep`: also
/// 3 states and 2 threads), then random and directly sampled models.
fn movers(args: &[String], deep: bool) {
    use omega_algebra::necessity::movers::{HYPOTHESES, MoversModel, minimize, search};
    if args.first().map(String::as_str) == Some("--model") {
        let h = &args[1];
        let m: MoversModel = serde_json::from_str(&args[2]).expect("a model as JSON");
        match m.check(h) {
            Ok(v) => {
                let small = minimize(&m, h);
                let w = small.check(h).expect("minimised still checks");
                println!(
                    "{h}: checks, violated at {:?}; minimised: {small}; violated at {:?}",
                    v.pair, w.pair
                );
                println!("    (\"{h}\", {}),", movers_rust(&small));
            }
            Err(e) => println!("{h}: does not check: {e}"),
        }
        return;
    }
    let hs: Vec<&str> = if args.is_empty() {
        HYPOTHESES.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    let ex = |states, threads| Search::Exhaustive { states, threads };
    let mut plan = vec![ex(1, 1), ex(2, 1), ex(2, 2), ex(3, 1), ex(2, 3)];
    if deep {
        plan.push(ex(3, 2));
    }
    plan.extend([
        Search::Random {
            states: 3,
            threads: 2,
            samples: 4_000_000,
            seed: 11,
        },
        Search::Random {
            states: 3,
            threads: 3,
            samples: 2_000_000,
            seed: 13,
        },
    ]);
    let sampled = |states, threads, samples, seed| Search::Sampled {
        states,
        threads,
        samples,
        seed,
    };
    let scale = if deep { 10 } else { 1 };
    for (n, seed) in [(4, 17), (5, 31), (6, 41), (8, 47)] {
        plan.push(sampled(n, 2, 2_000_000 * scale, seed));
        plan.push(sampled(n, 3, 1_000_000 * scale, seed + 2));
    }
    for h in hs {
        let start = Instant::now();
        let mut found = None;
        let mut examined = 0;
        for &how in &plan {
            let (cm, seen) = search(h, how);
            examined += seen;
            if let Some(cm) = cm {
                found = Some((cm, how));
                break;
            }
        }
        match found {
            Some((found, how)) => {
                let cm = minimize(&found, h);
                let v = cm.check(h).expect("a found counter-model checks");
                println!(
                    "{h}: counter-model ({how:?}), {examined} models, {:.1?}: {cm}; violated at {:?}",
                    start.elapsed(),
                    v.pair
                );
                println!("    (\"{h}\", {}),", movers_rust(&cm));
            }
            None => println!(
                "{h}: none found, {examined} models, {:.1?}",
                start.elapsed()
            ),
        }
    }
}

fn movers_rust(m: &omega_algebra::necessity::movers::MoversModel) -> String {
    fn list<T: std::fmt::Debug>(xs: &[Vec<T>]) -> String {
        let xs: Vec<String> = xs.iter().map(|x| format!("&{x:?}")).collect();
        format!("&[{}]", xs.join(", "))
    }
    format!(
        "m({}, &{:?}, {}, {}, {})",
        m.states,
        m.q,
        list(&m.p),
        list(&m.r),
        list(&m.s)
    )
}
