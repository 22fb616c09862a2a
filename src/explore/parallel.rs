//! Level-synchronous breadth-first search on any number of threads, with
//! the same output for every number.
//!
//! Each level is expanded in blocks of [`BLOCK`] consecutive states, taken
//! by the workers in increasing order; each worker has its own expander
//! (expanders keep per-run scratch and caches). A successor that is not in
//! the settled table goes to the pending set of the next level with the
//! smallest `(parent id, emit index)` that reached it (see
//! [`super::table`]). Between levels the pending states are numbered in
//! that order: exactly the ids, parent links and shortest traces a
//! sequential breadth-first search gives.
//!
//! Where a block ends early (a violation, a deadlock reported as one, a
//! limit inside an expansion) or the next level would pass the state limit,
//! the block is a *cut*: every block before it is finished, blocks after it
//! are skipped, and the report counts what lies at or before the cut only,
//! so it does not depend on which worker got there first:
//! - a violation at parent `p`: the states numbered before `p`'s expansion
//!   ended, as a sequential search would have stored them;
//! - the state limit: exactly `max_states` states, and the transitions of
//!   the blocks up to the one whose successors passed the limit;
//! - the time limit, and the memory limit inside an expansion, depend on
//!   timing by nature: the verdict (inconclusive, which limit) is the same,
//!   the partial counts may differ from run to run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use super::Kept;
use super::budget::{Budget, Halt, TICK};
use super::engine::{self, Backend, End, Expanded};
use super::outcome::{Limit, Outcome, Problem, Stats, Verdict, Violation};
use super::profile::{self, Profile, Work};
use super::search::{Expand, Findings, Found, Stop};
use super::space::Space;
use super::store::{Full, Room, Store, hash};
use super::table::{self, AHEAD, Bits, Links, Pending, SHARDS, Shard, fingerprint, shard_of};
use super::visit::{Edges, Ids, Visit};
use crate::model::LockMisuse;

/// States per block of work.
pub const BLOCK: usize = 256;

/// Successors looked up together: enough to keep many table misses in
/// flight at once, few enough to stay in the first-level cache.
const BATCH: usize = 512;

/// Successors held at most.
const BATCH_MAX: usize = 1 << 12;

/// Levels of fewer blocks than this are expanded on the calling thread
/// alone: handing them to the pool would cost more than it saves.
const SMALL_LEVEL: usize = 4;

/// What expanding a block found, and what the visitor recorded of it.
#[derive(Default)]
struct Block<R> {
    transitions: u64,
    fired: u64,
    deadlocks: u64,
    misuses: Vec<(LockMisuse, u64, String)>,
    end: Option<(u32, End)>,
    /// The block's successors took the pending states past the state limit.
    over: bool,
    /// What its expansions found besides successors.
    findings: Findings,
    /// Time spent storing successors (the rest was expanding).
    store: Duration,
    record: R,
    edges: Edges,
}

/// What the workers of a level share.
struct Level<'a, S: Space, V: Visit<S>> {
    space: &'a S,
    visit: &'a V,
    /// Where the visitor asks for edges: the id of every state numbered,
    /// which stands for the settled table.
    ids: &'a Ids,
    words: usize,
    frontier: &'a [u64],
    first: u32,
    settled: &'a [Shard],
    /// `--bitstate`: the bit array, which stands for the settled table.
    bits: Option<&'a Bits>,
    /// `--hash-compact`: the table keeps fingerprints.
    compact: bool,
    pending: &'a [Mutex<Pending>],
    blocks: Vec<Mutex<Option<Block<V::Record>>>>,
    next: AtomicUsize,
    stop_at: AtomicUsize,
    pending_states: AtomicU64,
    pending_bytes: AtomicU64,
    /// New states the state limit allows.
    room: u64,
    /// Bytes held by the store when the level began.
    store_bytes: u64,
    deadlock: bool,
    /// States per block.
    block: usize,
    /// Per worker, where its time went (`check --stats`).
    times: Vec<Mutex<Work>>,
    /// The time the passes took where the level is split among workers.
    split_wall: Mutex<Duration>,
}

impl<S: Space, V: Visit<S>> Level<'_, S, V> {
    fn len(&self) -> usize {
        self.frontier.len() / self.words
    }

    /// Whether the level is large enough to split among the workers (the
    /// same test whatever their number).
    fn split(&self) -> bool {
        self.len() >= SMALL_LEVEL * self.block
    }

    /// Takes blocks until none is left before the cut; `w` is the worker.
    fn work<E: Expand>(&self, w: usize, exp: &mut E, budget: &mut Budget) {
        let n = self.len().div_ceil(self.block);
        let mut times = Work::default();
        loop {
            let b = self.next.fetch_add(1, Relaxed);
            if b >= n || b > self.stop_at.load(Relaxed) {
                let mut t = lock(&self.times[w]);
                t.expand += times.expand;
                t.store += times.store;
                return;
            }
            if lock(&self.blocks[b]).is_some() {
                continue;
            }
            let start = Instant::now();
            let mut block = self.block(b, exp, budget);
            times.store += block.store;
            times.expand += start.elapsed().saturating_sub(block.store);
            exp.take_findings(&mut block.findings);
            if block.end.is_some() || block.over {
                self.stop_at.fetch_min(b, Relaxed);
            }
            *lock(&self.blocks[b]) = Some(block);
        }
    }

    fn block<E: Expand>(&self, b: usize, exp: &mut E, budget: &mut Budget) -> Block<V::Record> {
        let space = self.space;
        let words = self.words;
        let mut blk = Block::default();
        let mut s = vec![0i64; space.slots()];
        let mut packed = vec![0u64; words];
        let mut batch = Batch::default();
        let mut misuses = Vec::new();
        let end = ((b + 1) * self.block).min(self.len());
        for i in b * self.block..end {
            let p = self.first + i as u32;
            if budget.tick().is_err() {
                // Successors already emitted are offered, as if each had
                // been offered when emitted.
                let _ = self.flush(
                    &mut batch,
                    budget,
                    &mut blk.over,
                    &mut blk.store,
                    &mut blk.edges,
                );
                blk.end = Some((p, halt(budget)));
                return blk;
            }
            space
                .layout()
                .unpack(&self.frontier[i * words..(i + 1) * words], &mut s);
            self.visit.state(p, &s, &mut blk.record);
            let edges_before = if V::EDGES { blk.edges.bytes() } else { 0 };
            let mut seq = 0u32;
            let (transitions, fired, over, store, edges) = (
                &mut blk.transitions,
                &mut blk.fired,
                &mut blk.over,
                &mut blk.store,
                &mut blk.edges,
            );
            let mut result = exp.expand(&s, budget, &mut |succ, path, budget| {
                *transitions += 1;
                *fired += path.len() as u64;
                if *transitions % u64::from(TICK) == 0 {
                    budget.check_time()?;
                }
                space.layout().pack(succ, &mut packed);
                batch.push(&packed, (u64::from(p) << 32) | u64::from(seq), self.compact);
                if V::EDGES {
                    edges.push(path, V::PATHS);
                }
                seq += 1;
                // A state may have any number of successors.
                if batch.len() == BATCH_MAX {
                    self.flush(&mut batch, budget, over, store, edges)?;
                }
                Ok(())
            });
            if V::EDGES {
                blk.edges.degree.push(seq);
                let grew = blk.edges.bytes() - edges_before;
                self.pending_bytes.fetch_add(grew, Relaxed);
            }
            let last = i + 1 == end || !matches!(result, Ok(true));
            if (last || batch.len() >= BATCH)
                && self
                    .flush(
                        &mut batch,
                        budget,
                        &mut blk.over,
                        &mut blk.store,
                        &mut blk.edges,
                    )
                    .is_err()
                && result.is_ok()
            {
                result = Err(Stop::Halt);
            }
            misuses.clear();
            space.misuses(&s, &mut misuses);
            // Counted once per state and kind; the first description is kept.
            misuses.sort_by_key(|m| m.0);
            misuses.dedup_by_key(|m| m.0);
            merge_misuses(
                &mut blk.misuses,
                misuses.drain(..).map(|(k, text)| (k, 1, text)),
            );
            let stop = match result {
                Err(Stop::Found(Found {
                    problem: Problem::Fault(crate::model::Fault::StackBound { bound }),
                    ..
                })) => End::Stack(Some((bound, budget.run_states, budget.run_thread))),
                Err(Stop::Found(found)) => End::Found(Some(found)),
                Err(Stop::Halt) => halt(budget),
                Ok(false) if !space.ended(&s) => {
                    blk.deadlocks += 1;
                    if !self.deadlock {
                        continue;
                    }
                    End::Deadlock
                }
                Ok(_) => continue,
            };
            blk.end = Some((p, stop));
            return blk;
        }
        blk
    }

    /// Looks the batch's successors up in the settled table, and offers
    /// those not there to the next level, shard by shard (one lock each);
    /// every place a lookup or an offer goes to is fetched first, so that
    /// the cache misses overlap. Empties the batch. Adds the time it took
    /// to `took`.
    fn flush(
        &self,
        batch: &mut Batch,
        budget: &mut Budget,
        over: &mut bool,
        took: &mut Duration,
        edges: &mut Edges,
    ) -> Result<(), Halt> {
        let start = Instant::now();
        let result = self.offer(batch, budget, over, edges);
        *took += start.elapsed();
        result
    }

    fn offer(
        &self,
        batch: &mut Batch,
        budget: &mut Budget,
        over: &mut bool,
        edges: &mut Edges,
    ) -> Result<(), Halt> {
        let words = self.words;
        let Batch {
            words: packed,
            kept,
            found,
            misses,
            order,
        } = batch;
        // What the visited set keeps of a state: the state, or its
        // fingerprint (then the state is the payload).
        let fw = if self.compact { 1 } else { words };
        let state = |j: usize| &packed[j * words..(j + 1) * words];
        let key_words = |j: usize| {
            if self.compact {
                &kept[j..j + 1]
            } else {
                state(j)
            }
        };
        let payload = |j: usize| if self.compact { state(j) } else { &[][..] };
        let fetch = |j: usize| match (found.get(j), self.bits) {
            (Some(&(h, _)), None) if V::EDGES => self.ids.prefetch(h),
            (Some(&(h, _)), None) => self.settled[shard_of(h)].prefetch(h, fw),
            _ => {}
        };
        // With edges, the batch's successors are the block's last edges.
        let base = if V::EDGES {
            edges.target.len() - found.len()
        } else {
            0
        };
        (0..AHEAD).for_each(fetch);
        // The misses, then grouped by shard (a counting sort).
        let mut first = [0u32; SHARDS + 1];
        for (j, &(h, _)) in found.iter().enumerate() {
            fetch(j + AHEAD);
            let seen = match self.bits {
                Some(bits) => bits.test(h, state(j)),
                None if V::EDGES => match self.ids.get(h, key_words(j)) {
                    Some(id) => {
                        edges.target[base + j] = id;
                        true
                    }
                    None => {
                        edges.later(base + j, h, key_words(j));
                        false
                    }
                },
                None => self.settled[shard_of(h)].contains(h, key_words(j)),
            };
            if !seen {
                misses.push(j as u32);
                first[shard_of(h) + 1] += 1;
            }
        }
        for i in 0..SHARDS {
            first[i + 1] += first[i];
        }
        order.resize(misses.len(), 0);
        let mut at = first;
        for &j in misses.iter() {
            let shard = shard_of(found[j as usize].0);
            order[at[shard] as usize] = j;
            at[shard] += 1;
        }
        let (mut new, mut bytes) = (0u64, 0u64);
        for shard in 0..SHARDS {
            let run = &order[first[shard] as usize..first[shard + 1] as usize];
            if run.is_empty() {
                continue;
            }
            let mut pending = lock(&self.pending[shard]);
            for &j in run {
                pending.prefetch(found[j as usize].0);
            }
            for &j in run {
                let j = j as usize;
                let (h, key) = found[j];
                if let Some(grew) = pending.offer(h, key_words(j), key, payload(j)) {
                    new += 1;
                    bytes += grew;
                }
            }
        }
        found.clear();
        packed.clear();
        kept.clear();
        misses.clear();
        if new == 0 {
            return Ok(());
        }
        if self.pending_states.fetch_add(new, Relaxed) + new > self.room {
            *over = true;
        }
        let held = self.pending_bytes.fetch_add(bytes, Relaxed) + bytes;
        budget.store_bytes = slack(self.store_bytes + held);
        if budget.room().bytes == 0 {
            return Err(budget.full(Full::Memory));
        }
        Ok(())
    }
}

/// Successors waiting to be looked up, packed, with their hashes and keys.
#[derive(Default)]
struct Batch {
    words: Vec<u64>,
    /// `--hash-compact`: the states' fingerprints.
    kept: Vec<u64>,
    /// Per state: the hash of what the visited set keeps of it, and its key.
    found: Vec<(u64, u64)>,
    /// The successors not in the settled table, by index.
    misses: Vec<u32>,
    /// The same grouped by shard.
    order: Vec<u32>,
}

impl Batch {
    fn push(&mut self, w: &[u64], key: u64, compact: bool) {
        self.words.extend_from_slice(w);
        let h = if compact {
            let f = fingerprint(w);
            self.kept.push(f);
            hash(&[f])
        } else {
            hash(w)
        };
        self.found.push((h, key));
    }

    fn len(&self) -> usize {
        self.found.len()
    }
}

impl<S: Space, V: Visit<S>> Level<'_, S, V> {
    /// Passes until the level is done or cut: a pass stops at the first
    /// block that went past the state limit, and that may turn out to be
    /// no cut once the blocks before it are done (their states, not those
    /// of later blocks, count). Returns the cut block, if any, and the
    /// pending states up to it.
    fn passes<E: Expand + Send>(
        &self,
        exps: &mut [E],
        budgets: &mut [Budget],
        pending: &[Mutex<Pending>],
    ) -> (Option<usize>, u64) {
        let (n, block, first) = (self.len(), self.block, self.first);
        let split = self.split();
        loop {
            let workers = if split { exps.len() } else { 1 };
            let mut both: Vec<(&mut E, &mut Budget)> = exps
                .iter_mut()
                .zip(budgets.iter_mut())
                .take(workers)
                .collect();
            let start = Instant::now();
            each(&mut both, |w, (exp, budget)| self.work(w, *exp, budget));
            if split {
                *lock(&self.split_wall) += start.elapsed();
            }
            let stop = self.stop_at.load(Relaxed);
            if stop == usize::MAX {
                return (None, self.pending_states.load(Relaxed));
            }
            let blk = lock(&self.blocks[stop]);
            let blk = blk.as_ref().expect("blocks up to the cut are done");
            let last = match &blk.end {
                Some((p, _)) => *p,
                None => first + (((stop + 1) * block).min(n) - 1) as u32,
            };
            let key = (u64::from(last) << 32) | u64::from(u32::MAX);
            let count: u64 = pending
                .iter()
                .map(|p| lock(p).iter().filter(|&(_, k, _)| k <= key).count() as u64)
                .sum();
            if count > self.room {
                // The first block whose successors pass the limit: the one
                // of the parent of the first state that does not fit (the
                // block that saw the pending count pass it may be later).
                let mut keys: Vec<u64> = pending
                    .iter()
                    .flat_map(|p| {
                        lock(p)
                            .iter()
                            .map(|(_, k, _)| k)
                            .filter(|&k| k <= key)
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let (_, &mut k, _) = keys.select_nth_unstable(self.room as usize);
                let cut = ((k >> 32) as u32 - first) as usize / block;
                return (Some(cut), count);
            }
            if blk.end.is_some() {
                return (Some(stop), count);
            }
            // No cut here after all: go on from the next block, keeping as
            // the cut any later block that ended early in this pass.
            let ended = self.blocks[stop + 1..]
                .iter()
                .position(|b| lock(b).as_ref().is_some_and(|b| b.end.is_some()))
                .map_or(usize::MAX, |i| stop + 1 + i);
            self.stop_at.store(ended, Relaxed);
            self.next.store(stop, Relaxed);
        }
    }
}

/// Moves the level's pending states into the table (on several threads
/// where there are many) and numbers them by key, from `base`: their parent
/// links, their ids in `ids` where it is kept, and the next frontier in id
/// order.
#[allow(clippy::too_many_arguments)]
fn settle_level(
    settled: &mut [Shard],
    pending: &mut [Mutex<Pending>],
    ids: &mut Ids,
    base: u32,
    extra: &[usize],
    bits: Option<&Bits>,
    links: &mut Links,
    workers_max: usize,
    block: usize,
    words: usize,
) -> (Vec<u64>, Numbering) {
    let total: usize = extra.iter().sum();
    let split = total >= SMALL_LEVEL * block;
    let workers = if split { workers_max } else { 1 };
    let per = SHARDS.div_ceil(workers);
    let (compact, numbered) = (ids.compact, ids.on());
    let mut parts: Vec<Part> = settled
        .chunks_mut(per)
        .zip(pending.chunks_mut(per))
        .zip(extra.chunks(per))
        .zip(ids.chunks(per))
        .map(|(((s, p), e), i)| {
            // Exact sizes: no doubling past what was planned.
            let n: usize = e.iter().sum();
            let took = Duration::ZERO;
            (
                s,
                p,
                Vec::with_capacity(n),
                Vec::with_capacity(n * words),
                took,
                i,
            )
        })
        .collect();
    let start = Instant::now();
    each(&mut parts, |_, (shards, pend, keys, states, took, _)| {
        let start = Instant::now();
        for (s, p) in shards.iter_mut().zip(pend.iter_mut()) {
            let p = p
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            table::settle((!numbered).then_some(s), bits, p, words, keys, states);
        }
        keys.sort_unstable();
        *took = start.elapsed();
    });
    let mut took: Vec<Duration> = parts.iter().map(|p| p.4).collect();
    let sorted: Vec<Sorted> = parts.iter().map(|p| (&p.2[..], &p.3[..])).collect();
    let (next, order, merging) = merge(&sorted, total, words, workers);
    took.resize(took.len().max(merging.len()), Duration::ZERO);
    for (t, m) in took.iter_mut().zip(merging) {
        *t += m;
    }
    if numbered {
        let first = |i: usize| i * per;
        each(&mut parts, |i, (_, _, keys, states, took, ids)| {
            let start = Instant::now();
            number(ids, first(i), keys, states, &order, base, words, compact);
            *took = start.elapsed();
        });
        for (t, p) in took.iter_mut().zip(&parts) {
            *t += p.4;
        }
    }
    let numbering = Numbering {
        split: split.then(|| start.elapsed()),
        parts: took,
    };
    drop(parts);
    for key in order {
        links.push((key >> 32) as u32, key as u32);
    }
    (next, numbering)
}

/// Puts a part's states into its shards of the map from states to ids
/// (the shards from `first` on): each state's id is `base` plus the rank
/// of its key among the level's keys, `order`.
#[allow(clippy::too_many_arguments)]
fn number(
    ids: &mut [Pending],
    first: usize,
    keys: &[(u64, u32)],
    states: &[u64],
    order: &[u64],
    base: u32,
    words: usize,
    compact: bool,
) {
    for &(key, at) in keys {
        let rank = order
            .binary_search(&key)
            .expect("the part's keys are the level's");
        let state = &states[at as usize * words..(at as usize + 1) * words];
        let f = [fingerprint(state)];
        let kept = if compact { &f[..] } else { state };
        let h = hash(kept);
        ids[shard_of(h) - first].offer(h, kept, u64::from(base) + rank as u64, &[]);
    }
}

/// A part's keys, sorted, each with where its state is in the part's copies.
type Sorted<'a> = (&'a [(u64, u32)], &'a [u64]);

/// Merges the parts' sorted keys, on `workers` threads that each take a
/// range of keys: the next frontier in key order, the keys in that order,
/// and each worker's time.
fn merge(
    parts: &[Sorted],
    total: usize,
    words: usize,
    workers: usize,
) -> (Vec<u64>, Vec<u64>, Vec<Duration>) {
    // Where each range of keys begins in each part, and where it ends.
    let bounds = splitters(parts, workers);
    let starts: Vec<Vec<usize>> = (0..=bounds.len() + 1)
        .map(|r| {
            let below = |keys: &[(u64, u32)]| match r {
                0 => 0,
                r if r > bounds.len() => keys.len(),
                r => keys.partition_point(|k| k.0 < bounds[r - 1]),
            };
            parts.iter().map(|(keys, _)| below(keys)).collect()
        })
        .collect();
    let mut next = vec![0u64; total * words];
    let mut order = vec![0u64; total];
    let (mut states, mut keys) = (&mut next[..], &mut order[..]);
    let mut jobs = Vec::new();
    for r in 0..starts.len() - 1 {
        let len: usize = (0..parts.len())
            .map(|p| starts[r + 1][p] - starts[r][p])
            .sum();
        let (s, rest) = std::mem::take(&mut states).split_at_mut(len * words);
        states = rest;
        let (k, rest) = std::mem::take(&mut keys).split_at_mut(len);
        keys = rest;
        jobs.push((r, s, k, Duration::ZERO));
    }
    each(&mut jobs, |_, (r, out, keys, took)| {
        let start = Instant::now();
        let (mut heads, ends) = (starts[*r].clone(), &starts[*r + 1]);
        for (i, slot) in keys.iter_mut().enumerate() {
            let p = (0..parts.len())
                .filter(|&p| heads[p] < ends[p])
                .min_by_key(|&p| parts[p].0[heads[p]].0)
                .expect("as many keys as states");
            let (key, at) = parts[p].0[heads[p]];
            heads[p] += 1;
            *slot = key;
            let at = at as usize * words;
            out[i * words..(i + 1) * words].copy_from_slice(&parts[p].1[at..at + words]);
        }
        *took = start.elapsed();
    });
    let took = jobs.iter().map(|j| j.3).collect();
    (next, order, took)
}

/// Keys that cut the parts' keys into `workers` ranges of about the same
/// size, from a sample of each part (keys are distinct).
fn splitters(parts: &[Sorted], workers: usize) -> Vec<u64> {
    let mut sample: Vec<u64> = parts
        .iter()
        .flat_map(|(keys, _)| {
            let step = (keys.len() / (16 * workers)).max(1);
            keys.iter().step_by(step).map(|k| k.0)
        })
        .collect();
    sample.sort_unstable();
    let mut bounds: Vec<u64> = (1..workers)
        .filter_map(|i| sample.get(i * sample.len() / workers).copied())
        .collect();
    bounds.dedup();
    bounds
}

fn halt(budget: &mut Budget) -> End {
    let end = End::Halt(budget.run_states, budget.run_thread);
    budget.run_states = 0;
    end
}

/// What `m` holds, where no worker runs (between levels): no lock to take.
fn owned<T>(m: &mut Mutex<T>) -> &mut T {
    m.get_mut()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked has already ended the search; its data is
    // not read again.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Adds misuse counts, keeping the first description of each kind.
pub(super) fn merge_misuses(
    into: &mut Vec<(LockMisuse, u64, String)>,
    from: impl IntoIterator<Item = (LockMisuse, u64, String)>,
) {
    for (kind, n, text) in from {
        match into.iter_mut().find(|m| m.0 == kind) {
            Some(m) => m.1 += n,
            None => into.push((kind, n, text)),
        }
    }
}

/// Bytes counted against the memory limit for `bytes` of the search's own
/// structures: a sixteenth more for the allocator's overhead on them (its
/// headers, the free space its per-thread arenas keep), which the resident
/// set shows and the capacities do not.
fn slack(bytes: u64) -> u64 {
    bytes + bytes / 16
}

/// The outcome with what the counted blocks found: the control points
/// where transactions began, and the distinct states ended by force.
pub(super) fn done(found: &mut Findings, forced: &Store<u8>, mut o: Outcome) -> Outcome {
    let mut starts = std::mem::take(&mut found.starts);
    starts.sort_unstable();
    starts.dedup();
    o.boundaries = starts;
    o.stats.forced = forced.len() as u64;
    o
}

/// A worker's share of the settling: its shards, their pending states,
/// the keys and copies of the states it moved, the time it took, and its
/// shards of the map from states to ids (where it is kept).
type Part<'a> = (
    &'a mut [Shard],
    &'a mut [Mutex<Pending>],
    Vec<(u64, u32)>,
    Vec<u64>,
    Duration,
    &'a mut [Pending],
);

/// The time numbering a level took: the wall time of its split part (none
/// where it ran on one thread) and each worker's part.
struct Numbering {
    split: Option<Duration>,
    parts: Vec<Duration>,
}

/// A level's profile while the level runs.
struct Timing {
    level: profile::Level,
    /// The wall time of the parts split among the workers so far.
    split_wall: Duration,
    start: Instant,
}

impl Timing {
    fn numbered(&mut self, n: &Numbering) {
        for (w, &took) in self.level.workers.iter_mut().zip(&n.parts) {
            w.number += took;
            if let Some(wall) = n.split {
                w.wait += wall.saturating_sub(took);
                self.level.split += took;
            }
        }
        self.split_wall += n.split.unwrap_or_default();
    }

    fn level(mut self) -> profile::Level {
        self.level.wall = self.start.elapsed();
        self.level.serial = self.level.wall.saturating_sub(self.split_wall);
        self.level
    }
}

impl<S: Space, V: Visit<S>> Level<'_, S, V> {
    /// The profile of the level's expansion, begun at `start`.
    fn timing(&self, start: Instant) -> Timing {
        let split_wall = *lock(&self.split_wall);
        let split = self.split();
        let workers: Vec<Work> = self.times.iter().map(|t| *lock(t)).collect();
        let mut level = profile::Level {
            states: self.len() as u64,
            ..profile::Level::default()
        };
        for mut w in workers {
            if split {
                level.split += w.busy();
                w.wait = split_wall.saturating_sub(w.busy());
            }
            level.workers.push(w);
        }
        Timing {
            level,
            split_wall,
            start,
        }
    }
}

/// Runs `f(i, &mut items[i])` for every item, as a job each on the
/// process's pool of threads when there is more than one. The items never
/// wait for one another (a worker takes blocks from a shared counter), so
/// a pool smaller than the items, on a machine with fewer cores than
/// `--threads`, only runs them in turn; what each computes is the same.
fn each<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    if items.len() == 1 {
        f(0, &mut items[0]);
        return;
    }
    rayon::scope(|scope| {
        for (i, item) in items.iter_mut().enumerate() {
            let f = &f;
            scope.spawn(move |_| f(i, item));
        }
    });
}

/// Breadth-first search from the initial state with one worker per
/// expander in `exps` (at least one), in blocks of `block` states (0 for
/// [`BLOCK`]), within `budget`, showing every state (and edge) to `visit`.
#[allow(clippy::too_many_arguments)]
pub fn search<S: Space, E: Expand + Send, V: Visit<S>>(
    space: &S,
    exps: &mut [E],
    budget: Budget,
    deadlock: bool,
    block: usize,
    kept: Kept,
    stats: bool,
    progress: &mut dyn FnMut(&Stats),
    visit: &mut V,
) -> Outcome {
    let mut run = match Run::new(space, budget, kept, exps.len(), V::EDGES) {
        Ok(run) => run,
        Err(o) => return o,
    };
    run.profiled = stats;
    let threads = Threads {
        run,
        exps,
        budgets: Vec::new(),
        block: if block == 0 { BLOCK } else { block },
        frontier: Vec::new(),
        first: 0,
        level: None,
    };
    engine::run(space, threads, visit, deadlock, progress)
}

/// The search core's back end on the threads of this process: one worker
/// per expander, sharing the table.
struct Threads<'a, S: Space, E, V: Visit<S>> {
    run: Run<'a, S>,
    exps: &'a mut [E],
    /// Each worker's limits.
    budgets: Vec<Budget>,
    /// States per block.
    block: usize,
    /// The level's states, packed, and the id of the first.
    frontier: Vec<u64>,
    first: u32,
    /// What the level's expansion leaves for storing the next.
    level: Option<Expansion<V::Record>>,
}

/// What the blocks up to a level's cut recorded, where the level's time
/// went, and the bytes held while it was expanded (the run's, and the
/// pending states').
struct Expansion<R> {
    visited: Vec<(R, Edges)>,
    timing: Timing,
    held: u64,
    pending_bytes: u64,
}

impl<S: Space, E: Expand + Send, V: Visit<S>> Backend<S, V> for Threads<'_, S, E, V> {
    type Exp = E;

    fn seed(&mut self) -> Result<(), Limit> {
        self.frontier = self.run.seed()?;
        self.budgets = vec![self.run.budget.clone(); self.exps.len()];
        Ok(())
    }

    fn stats(&mut self) -> &mut Stats {
        &mut self.run.stats
    }

    fn budget(&self) -> &Budget {
        &self.run.budget
    }

    fn expand(&mut self, visit: &V, deadlock: bool) -> Expanded {
        let (run, block) = (&mut self.run, self.block);
        let start = Instant::now();
        let n = self.frontier.len() / run.words;
        // What the run holds against the memory limit: the store, and the
        // level being expanded (the frontier and the blocks' results).
        let held = run.stats.memory
            + run
                .pending
                .iter_mut()
                .map(|p| owned(p).bytes())
                .sum::<u64>()
            + (self.frontier.capacity() * 8) as u64
            + (n.div_ceil(block) * std::mem::size_of::<Mutex<Option<Block<V::Record>>>>()) as u64;
        let lv = run.level(visit, &self.frontier, self.first, held, deadlock, block);
        for b in &mut self.budgets {
            b.stored = run.stats.states;
            b.store_bytes = slack(held);
        }
        let (cut, count) = lv.passes(self.exps, &mut self.budgets, &run.pending);
        // The blocks up to the cut, in order.
        let mut blocks: Vec<Block<V::Record>> = lv.blocks[..cut.map_or(lv.blocks.len(), |c| c + 1)]
            .iter()
            .map(|b| lock(b).take().expect("blocks up to the cut are done"))
            .collect();
        let visited = blocks
            .iter_mut()
            .map(|b| (std::mem::take(&mut b.record), std::mem::take(&mut b.edges)))
            .collect();
        let timing = lv.timing(start);
        let pending_bytes = lv.pending_bytes.load(Relaxed);
        drop(lv);
        let end = run.count(blocks);
        self.level = Some(Expansion {
            visited,
            timing,
            held,
            pending_bytes,
        });
        Expanded { count, end }
    }

    fn grow(&mut self, new: u64, added: u64) {
        self.run.grow(new, added);
    }

    fn next(&mut self, visit: &mut V) -> Result<bool, Limit> {
        let lv = self.level.take().expect("the level was expanded");
        let (run, workers) = (&mut self.run, self.exps.len());
        let n = self.frontier.len() / run.words;
        let Some(next) = run.settle(lv.held, lv.pending_bytes, workers, self.block, lv.timing)
        else {
            return Err(Limit::Memory(run.max_memory.unwrap_or(0)));
        };
        self.first += n as u32;
        self.frontier = next;
        if run.absorb(visit, lv.visited, workers).is_err() || run.budget.check_time().is_err() {
            return Err(run.budget.hit());
        }
        Ok(!self.frontier.is_empty())
    }

    fn limit(&mut self) -> Limit {
        let max = Limit::States(self.budgets[0].max_states());
        self.budgets.iter().find_map(|b| b.hit).unwrap_or(max)
    }

    fn seqs(&mut self, id: u32) -> Vec<u32> {
        let mut seqs = Vec::new();
        let mut cur = id;
        while cur != 0 {
            let (parent, seq) = self.run.links.get(cur);
            seqs.push(seq);
            cur = parent;
        }
        seqs.reverse();
        seqs
    }

    fn exp(&mut self) -> &mut E {
        &mut self.exps[0]
    }

    fn end(self, verdict: Verdict, violation: Option<Violation>) -> Outcome {
        self.run.end(verdict, violation)
    }
}

/// The search's state from level to level.
struct Run<'a, S: Space> {
    space: &'a S,
    words: usize,
    /// `--hash-compact`: the table keeps fingerprints.
    compact: bool,
    /// What the table and the pending sets keep of a state (words), and
    /// the payload beside it.
    fw: usize,
    pw: usize,
    budget: Budget,
    max_memory: Option<u64>,
    bits: Option<Bits>,
    settled: Vec<Shard>,
    pending: Vec<Mutex<Pending>>,
    /// Where a visitor asks for edges: the id of every state.
    ids: Ids,
    links: Links,
    stats: Stats,
    /// The findings of the blocks counted so far (none past a cut).
    found: Findings,
    forced: Store<u8>,
    /// Levels settled so far.
    levels: u64,
    /// `--stats`: the profile is kept (and reported).
    profiled: bool,
    profile: Profile,
    start: Instant,
}

impl<'a, S: Space> Run<'a, S> {
    /// The empty store; the outcome instead where the `--bitstate` array
    /// cannot be had.
    fn new(
        space: &'a S,
        budget: Budget,
        kept: Kept,
        threads: usize,
        ids: bool,
    ) -> Result<Self, Outcome> {
        let words = space.layout().words();
        let compact = kept == Kept::HashCompact;
        // What the table and the pending sets keep of a state, and the payload.
        let (fw, pw) = if compact { (1, words) } else { (words, 0) };
        let mut run = Run {
            space,
            words,
            compact,
            fw,
            pw,
            max_memory: budget.max_memory(),
            budget,
            bits: None,
            settled: Vec::new(),
            pending: Vec::new(),
            ids: Ids::new(fw, compact, ids),
            links: Links::default(),
            stats: Stats::default(),
            found: Findings::default(),
            forced: Store::new(words),
            levels: 0,
            profiled: false,
            profile: Profile {
                threads,
                ..Profile::default()
            },
            start: Instant::now(),
        };
        if let Kept::Bitstate { log2, hashes } = kept {
            // The array is allocated whole, before the search: one larger
            // than the memory limit or than the system can give ends the
            // run at once.
            let bytes = Bits::bytes_for(log2);
            run.bits = run
                .max_memory
                .is_none_or(|m| bytes <= m)
                .then(|| Bits::new(log2, hashes))
                .flatten();
            if run.bits.is_none() {
                let l = Limit::Memory(run.max_memory.unwrap_or(bytes));
                return Err(run.end(Verdict::Inconclusive(l), None));
            }
        }
        run.settled = (0..SHARDS).map(|_| Shard::default()).collect();
        run.pending = (0..SHARDS)
            .map(|_| Mutex::new(Pending::new(fw, pw)))
            .collect();
        Ok(run)
    }

    /// Stores the initial state and returns the first frontier; the ending
    /// instead where the run ends there.
    fn seed(&mut self) -> Result<Vec<u64>, Limit> {
        let (space, words, compact) = (self.space, self.words, self.compact);
        let mut frontier = vec![0u64; words];
        space.layout().pack(space.init(), &mut frontier);
        if self.budget.check_start().is_err() {
            return Err(self.budget.hit());
        }
        let mut batch = Batch::default();
        batch.push(&frontier, 0, compact);
        let h = batch.found[0].0;
        let key_words = if compact {
            &batch.kept[..]
        } else {
            &frontier[..]
        };
        let mut p = Pending::new(self.fw, self.pw);
        p.offer(h, key_words, 0, if compact { &frontier } else { &[] });
        let (mut keys, mut states) = (Vec::new(), Vec::new());
        let shard = &mut self.settled[shard_of(h)];
        table::settle(
            (!self.ids.on()).then_some(shard),
            self.bits.as_ref(),
            &mut p,
            words,
            &mut keys,
            &mut states,
        );
        if self.ids.on() {
            self.ids.insert(h, key_words, 0);
        }
        self.links.push(0, 0);
        self.stats.states = 1;
        self.stats.memory = self.store_bytes();
        self.budget.stored = 1;
        self.budget.store_bytes = self.stats.memory;
        if self.budget.room().bytes == 0 {
            return Err(Limit::Memory(self.max_memory.unwrap_or(0)));
        }
        Ok(frontier)
    }

    /// The shared state of the workers expanding `frontier`.
    fn level<'l, V: Visit<S>>(
        &'l self,
        visit: &'l V,
        frontier: &'l [u64],
        first: u32,
        held: u64,
        deadlock: bool,
        block: usize,
    ) -> Level<'l, S, V> {
        let n = frontier.len() / self.words;
        Level {
            space: self.space,
            visit,
            ids: &self.ids,
            words: self.words,
            frontier,
            first,
            settled: &self.settled,
            bits: self.bits.as_ref(),
            compact: self.compact,
            pending: &self.pending,
            blocks: (0..n.div_ceil(block)).map(|_| Mutex::default()).collect(),
            next: AtomicUsize::new(0),
            stop_at: AtomicUsize::new(usize::MAX),
            pending_states: AtomicU64::new(0),
            pending_bytes: AtomicU64::new(0),
            room: self.budget.max_states().saturating_sub(self.stats.states),
            store_bytes: held,
            deadlock,
            block,
            times: (0..self.profile.threads)
                .map(|_| Mutex::default())
                .collect(),
            split_wall: Mutex::default(),
        }
    }

    /// Adds the counts of the level's blocks up to the cut, in order, and
    /// returns the first early end among them.
    fn count<R>(&mut self, blocks: Vec<Block<R>>) -> Option<(u32, End)> {
        let mut end = None;
        for blk in blocks {
            self.found.starts.extend(blk.findings.starts);
            for w in blk.findings.forced.chunks_exact(self.words) {
                let _ = self.forced.insert(w, 0, || Room {
                    states: u64::MAX,
                    bytes: u64::MAX,
                });
            }
            let stats = &mut self.stats;
            stats.transitions += blk.transitions;
            stats.fired += blk.fired;
            stats.deadlocks += blk.deadlocks;
            merge_misuses(&mut stats.lock_misuses, blk.misuses);
            if end.is_none() {
                end = blk.end;
            }
        }
        end
    }

    /// Counts `added` states of the next level (`new` of them new).
    fn grow(&mut self, new: u64, added: u64) {
        self.stats.states += added;
        if new > 0 {
            self.stats.depth = self.levels + 1;
        }
    }

    /// Settles the level: grows the table within the memory limit, moves
    /// the pending states in, numbers them by key. The next frontier, or
    /// none where the memory limit does not allow it.
    fn settle(
        &mut self,
        held: u64,
        pending_bytes: u64,
        workers: usize,
        block: usize,
        mut timing: Timing,
    ) -> Option<Vec<u64>> {
        let words = self.words;
        let extra: Vec<usize> = self.pending.iter_mut().map(|p| owned(p).len()).collect();
        let total: usize = extra.iter().sum();
        let (grow, peak) = match self.bits {
            Some(_) => (0, 0),
            None if self.ids.on() => (0, 0),
            None => table::growth(&self.settled, &extra, self.fw),
        };
        // The new table and links, and the numbering: each new state's key
        // and copy, sorted, then copied into the next frontier.
        let ids = if self.ids.on() {
            total * (self.fw + 1) * 8 * 3
        } else {
            0
        };
        let need =
            grow + peak + self.links.growth(total) + (total * (16 + 2 * words * 8) + ids) as u64;
        self.budget.store_bytes = slack(held + pending_bytes);
        if slack(need) > self.budget.room().bytes {
            return None;
        }
        let (next, numbering) = settle_level(
            &mut self.settled,
            &mut self.pending,
            &mut self.ids,
            self.stats.states as u32,
            &extra,
            self.bits.as_ref(),
            &mut self.links,
            workers,
            block,
            words,
        );
        timing.numbered(&numbering);
        self.grow(total as u64, total as u64);
        self.stats.memory = self.store_bytes();
        self.budget.stored = self.stats.states;
        self.budget.store_bytes = self.stats.memory;
        self.levels += 1;
        if self.profiled {
            self.profile.push(timing.level());
        }
        Some(next)
    }

    fn store_bytes(&self) -> u64 {
        let bits = self.bits.as_ref().map_or(0, Bits::bytes);
        table::table_bytes(&self.settled) + self.links.bytes() + bits + self.ids.bytes()
    }

    /// Resolves the targets of the level's edges (on every worker, where
    /// there are many) and hands what the blocks recorded to the visitor,
    /// in id order, within the memory limit.
    fn absorb<V: Visit<S>>(
        &mut self,
        visit: &mut V,
        mut visited: Vec<(V::Record, Edges)>,
        workers: usize,
    ) -> Result<(), Halt> {
        if V::EDGES {
            let ids = &self.ids;
            let per = visited.len().div_ceil(workers).max(SMALL_LEVEL);
            let mut parts: Vec<_> = visited.chunks_mut(per).collect();
            each(&mut parts, |_, part| {
                part.iter_mut().for_each(|(_, e)| e.resolve(ids));
            });
        }
        // The visitor counts what it holds beside the store, whose bytes
        // `settle` has just counted (a run of millions of one-state levels
        // must not add up the table again per level).
        // The level's edges are held until their block is absorbed.
        let store = self.stats.memory;
        let mut level: u64 = visited.iter().map(|(_, e)| e.bytes()).sum();
        self.budget.other_bytes = visit.bytes();
        let result = visited.into_iter().try_for_each(|(r, e)| {
            self.budget.store_bytes = store + level;
            let absorbed = visit.absorb(r, &e, &mut self.budget);
            level -= e.bytes();
            absorbed
        });
        self.budget.other_bytes = 0;
        self.stats.memory = store + visit.bytes();
        self.budget.store_bytes = self.stats.memory;
        result
    }

    /// The outcome, with what the counted blocks found and the profile.
    fn end(mut self, verdict: Verdict, violation: Option<Violation>) -> Outcome {
        self.stats.elapsed = self.budget.elapsed();
        self.profile.wall = self.start.elapsed();
        let mut o = Outcome::new(verdict, self.stats, violation);
        o.profile = self.profiled.then_some(self.profile);
        done(&mut self.found, &self.forced, o)
    }
}

/// The state reached from the initial one by taking, at each step, the
/// successor with the recorded emit index, and the transitions of each
/// step: each step is found again by re-expanding its parent (expansion is
/// deterministic).
pub(super) fn follow<S: Space, E: Expand>(
    space: &S,
    exp: &mut E,
    seqs: &[u32],
) -> (Vec<i64>, Vec<Vec<u32>>) {
    if let Some(w) = exp.watch() {
        w.tracing = true;
    }
    let mut s = space.init().to_vec();
    let mut segments = Vec::new();
    for &seq in seqs {
        let mut found = None;
        let mut at = 0u32;
        // The search took this step within its limits, and re-expansion
        // retraces it exactly, so it needs no limit of its own.
        let _ = exp.expand(&s, &mut Budget::unlimited(), &mut |succ, path, _| {
            if at == seq {
                found = Some((succ.to_vec(), path.to_vec()));
            }
            at += 1;
            Ok(())
        });
        let Some((next, path)) = found else {
            break;
        };
        segments.push(path);
        s = next;
    }
    if let Some(w) = exp.watch() {
        w.tracing = false;
    }
    (s, segments)
}
