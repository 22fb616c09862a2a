//! The physical limit of a state search on this machine: a bare,
//! insert-only, lock-free hash table of one-word keys (the packed size of
//! the lock family's states), filled by 1, 2, 4, ... threads up to the
//! cores, against optimist's own rate on the lock family
//! (`cargo bench --bench table`; `TABLE_KEYS=N` keys, default 2^25).
//!
//! The table is what the multi-core reachability literature builds on
//! (Laarman, van de Pol and Weber, "Boosting multi-core reachability
//! performance with shared hash tables", FMCAD 2010): open addressing,
//! linear probing, a compare-and-swap per empty slot claimed. Each key is
//! inserted twice (once new, once found), as a search looks up about one
//! successor per transition and stores a fraction of them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A mixer as good as the search's own hash for this purpose.
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Inserts `key` (non-zero); true when it was new.
fn insert(table: &[AtomicU64], key: u64) -> bool {
    let mask = table.len() - 1;
    let mut i = (mix(key) as usize) & mask;
    loop {
        let v = table[i].load(Ordering::Relaxed);
        if v == key {
            return false;
        }
        if v == 0 {
            match table[i].compare_exchange(0, key, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(now) if now == key => return false,
                Err(_) => {}
            }
        }
        i = (i + 1) & mask;
    }
}

/// Operations (lookups and inserts) per second with `threads` threads.
fn rate(keys: u64, threads: usize) -> f64 {
    // Load 0.5 at the end, as the search's table keeps it between 0.64 and 0.8.
    let table: Vec<AtomicU64> = (0..(keys * 2).next_power_of_two())
        .map(|_| AtomicU64::new(0))
        .collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads as u64 {
            let table = &table;
            s.spawn(move || {
                let per = keys / threads as u64;
                // New, then found; keys scattered, as successors come.
                for _ in 0..2 {
                    for k in t * per..(t + 1) * per {
                        insert(table, mix(k) | 1);
                    }
                }
            });
        }
    });
    (2 * keys) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let keys: u64 = std::env::var("TABLE_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 25);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("bare lock-free table, {keys} one-word keys, each inserted then found:");
    println!("| threads | million operations/s | speedup |");
    println!("| --- | --- | --- |");
    let mut threads = 1;
    let mut one = 0.0;
    while threads <= cores {
        let r = rate(keys, threads);
        if threads == 1 {
            one = r;
        }
        println!("| {threads} | {:.1} | {:.2}x |", r / 1e6, r / one);
        threads *= 2;
    }
}
