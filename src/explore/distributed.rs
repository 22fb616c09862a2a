//! Breadth-first search over the workers of several processes (or
//! machines), exchanging states through timely dataflow ([`super::cluster`]),
//! with the same counts, verdict and counterexample as [`super::parallel`].
//!
//! Each worker owns the states whose hash it is given (bits of the hash
//! that neither the table's shard nor its home slot uses), keeps them in
//! its own visited set, and expands the ones of the current level. A level
//! takes these rounds:
//! 1. **expand**: every worker expands its states of the level in id
//!    order and sends each successor, with its key `(parent id, emit
//!    index)`, to its owner, which keeps the new ones with their smallest
//!    key (as the single-process search's pending sets do). Then every
//!    worker says where its expansion ended early, if it did.
//! 2. **rank**: ids follow the single-process numbering, the order of the
//!    keys. Each owner sends the keys of its new states to the worker that
//!    ranks the parents' id range they fall in; that worker sorts them, the
//!    counts are gathered, and each range's states get consecutive ids.
//!    The ranking worker keeps their parent links (so the links of a range
//!    of ids live with one worker), and sends each id back to the owner.
//! 3. the owners order their new states by id: the next level.
//!
//! The search ends when a level adds nothing. A violation, a deadlock
//! reported as one, or a limit inside an expansion ends it at the smallest
//! parent id where a worker's expansion ended, and the state limit at the
//! block of the parent of the first state that does not fit: the counts are
//! those of what lies before that point, as in [`super::parallel`]. The
//! counterexample is rebuilt from the links, one round per step (the
//! worker that holds a link sends it to all), and replayed by every worker
//! (process 0 reports it).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::Kept;
use super::budget::{Budget, TICK};
use super::cluster::{self, Cluster, Failure, Net};
use super::engine::{self, Backend, End, Expanded};
use super::outcome::{Limit, Outcome, Problem, Stats, Verdict, Violation};
use super::search::{Expand, Findings, Found, Limits, Stop};
use super::space::Space;
use super::store::{Full, Room, Store, hash};
use super::table::{self, AHEAD, Links, Pending, SHARDS, Shard, fingerprint, shard_of};
use super::visit::Visit;
use crate::model::LockMisuse;

/// Parents expanded between two looks at what has arrived.
const POLL: usize = 64;

/// How a worker's expansion of a level ended early.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Found = 1,
    Deadlock = 2,
    Stack = 3,
    Halt = 4,
}

impl Kind {
    fn from(code: u64) -> Kind {
        match code {
            1 => Kind::Found,
            2 => Kind::Deadlock,
            3 => Kind::Stack,
            _ => Kind::Halt,
        }
    }
}

/// What expanding one parent found besides successors.
#[derive(Default, Clone, Copy)]
struct Counts {
    transitions: u64,
    fired: u64,
    deadlock: bool,
}

/// One worker's share of the search.
struct Part<'a, S> {
    space: &'a S,
    words: usize,
    compact: bool,
    peers: usize,
    settled: Vec<Shard>,
    pending: Vec<Pending>,
    /// This worker's states of the level, in id order, and their ids.
    frontier: Vec<u64>,
    ids: Vec<u32>,
    /// The parent links of the id ranges this worker ranked: (first id,
    /// states, index of the first link).
    links: Links,
    ranges: Vec<(u32, u32, u32)>,
    /// Every ranked range of every worker: (first id, worker), by id.
    owners: Vec<(u32, u32)>,
    /// Per parent of the level: its counts; misuses (parent, kind, text).
    counts: Vec<Counts>,
    misuses: Vec<(u32, LockMisuse, String)>,
    /// What expansions found besides successors, per parent of the level,
    /// and kept from the levels before.
    level_findings: Vec<(u32, Findings)>,
    findings: Findings,
    /// Bytes of this worker's structures held against the process's limit.
    held: u64,
    /// Where this worker's expansion was halted by a limit inside a
    /// reduced step: the parent, and the step's states and thread.
    halted: [u64; 3],
}

/// The worker that owns a state of hash `h`: bits 32 to 57, which pick
/// neither a table shard (the top six) nor a home slot (the low 32).
fn owner(h: u64, peers: usize) -> usize {
    (((h >> 32) & ((1 << 26) - 1)) % peers as u64) as usize
}

impl<S: Space> Part<'_, S> {
    /// What the visited set keeps of packed state `w`, and its hash.
    fn kept<'w>(&self, w: &'w [u64], f: &'w mut [u64; 1]) -> (&'w [u64], u64) {
        if self.compact {
            f[0] = fingerprint(w);
            (&f[..], hash(&f[..]))
        } else {
            (w, hash(w))
        }
    }

    /// Takes candidate successors `[state words.., key]` into the pending
    /// sets.
    ///
    /// Each state's slot is fetched [`AHEAD`] states before it is looked
    /// up, so that the cache misses of many lookups overlap (as the
    /// single-process search's batches do).
    fn offer(&mut self, records: &[u64]) {
        let words = self.words;
        let fw = if self.compact { 1 } else { words };
        let hashes: Vec<u64> = records
            .chunks_exact(words + 1)
            .map(|r| {
                let mut f = [0u64; 1];
                self.kept(&r[..words], &mut f).1
            })
            .collect();
        let fetch = |part: &Part<S>, j: usize| {
            if let Some(&h) = hashes.get(j) {
                part.settled[shard_of(h)].prefetch(h, fw);
                part.pending[shard_of(h)].prefetch(h);
            }
        };
        (0..AHEAD).for_each(|j| fetch(self, j));
        for (j, r) in records.chunks_exact(words + 1).enumerate() {
            fetch(self, j + AHEAD);
            let (w, key, h) = (&r[..words], r[words], hashes[j]);
            let mut f = [0u64; 1];
            let (k, _) = self.kept(w, &mut f);
            let shard = shard_of(h);
            if self.settled[shard].contains(h, k) {
                continue;
            }
            let payload = if self.compact { w } else { &[][..] };
            self.pending[shard].offer(h, k, key, payload);
        }
    }

    /// The worker that ranked the range holding id `id`.
    fn ranker(&self, id: u32) -> usize {
        let i = self.owners.partition_point(|&(first, _)| first <= id);
        self.owners[i - 1].1 as usize
    }

    /// The link of id `id`, ranked by this worker.
    fn link(&self, id: u32) -> (u32, u32) {
        let i = self.ranges.partition_point(|&(first, _, _)| first <= id);
        let (first, _, at) = self.ranges[i - 1];
        self.links.get(at + (id - first))
    }

    fn store_bytes(&self) -> u64 {
        table::table_bytes(&self.settled) + self.links.bytes()
    }
}

/// Breadth-first search from the initial state over every worker of the
/// run `cluster` describes, with one expander per worker of this process
/// in `exps`; `fingerprint` identifies the model and options (processes
/// that check something else are refused). Every process returns the same
/// verdict, counts and counterexample.
#[allow(clippy::too_many_arguments)]
pub fn search<S: Space, E: Expand + Send>(
    space: &S,
    exps: &mut [E],
    cluster: &Cluster,
    fingerprint: u64,
    limits: &Limits,
    deadlock: bool,
    block: usize,
    kept: Kept,
) -> Outcome
where
    (): Visit<S>,
{
    let block = if block == 0 {
        super::parallel::BLOCK
    } else {
        block
    };
    if exps.len() != cluster.workers {
        // A mode that shares one expander (summaries, a watch) cannot be
        // spread; `validate` refuses it before a search starts.
        let why = "a search over several workers needs an expander per worker";
        return Outcome::new(
            Verdict::Inconclusive(Limit::Internal(why)),
            Stats::default(),
            None,
        );
    }
    let exps: Vec<Mutex<&mut E>> = exps.iter_mut().map(Mutex::new).collect();
    // What this process's workers hold, against its memory limit.
    let held = AtomicU64::new(0);
    let first = cluster.process * cluster.workers;
    let body = |net: &mut Net| {
        let mut exp = exps[net.index - first]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        work(space, &mut **exp, net, limits, deadlock, block, kept, &held)
    };
    match cluster::run(cluster, fingerprint, &body) {
        Ok(mut outs) => outs.swap_remove(0),
        Err(f) => {
            let (limit, why) = match f {
                Failure::Start(e) => (Limit::Unjoined(e.process()), e.to_string()),
                Failure::Lost(l) => {
                    let why = match l.process.and_then(|p| cluster.hosts.get(p).map(|h| (p, h))) {
                        Some((p, host)) => format!(
                            "process {p} ({host}) closed its connection during the run: it stopped, was killed, or its network failed ({})",
                            l.message
                        ),
                        None => format!("a worker stopped: {}", l.message),
                    };
                    (Limit::Lost(l.process), why)
                }
            };
            let mut o = Outcome::new(Verdict::Inconclusive(limit), Stats::default(), None);
            o.caveats.push(why);
            o
        }
    }
}

/// The last parent id of the block that the state limit cuts: the block
/// of the parent of the first new state that does not fit (`mine`, this
/// worker's, if it holds it), agreed by every worker.
fn last_of_cut(net: &mut Net, mine: Option<u64>, first: u32, block: usize) -> u64 {
    let k = net
        .gather(&[mine.unwrap_or(u64::MAX)])
        .iter()
        .map(|v| v[0])
        .min()
        .unwrap_or(u64::MAX);
    let cut = ((k >> 32) as u32 - first) as u64 / block as u64;
    u64::from(first) + (cut + 1) * block as u64 - 1
}

/// One worker's search.
#[allow(clippy::too_many_arguments)]
fn work<S: Space, E: Expand>(
    space: &S,
    exp: &mut E,
    net: &mut Net,
    limits: &Limits,
    deadlock: bool,
    block: usize,
    kept: Kept,
    process_held: &AtomicU64,
) -> Outcome
where
    (): Visit<S>,
{
    let words = space.layout().words();
    let compact = kept == Kept::HashCompact;
    let (fw, pw) = if compact { (1, words) } else { (words, 0) };
    let part = Part {
        space,
        words,
        compact,
        peers: net.peers,
        settled: (0..SHARDS).map(|_| Shard::default()).collect(),
        pending: (0..SHARDS).map(|_| Pending::new(fw, pw)).collect(),
        frontier: Vec::new(),
        ids: Vec::new(),
        links: Links::default(),
        ranges: Vec::new(),
        owners: vec![(0, 0)],
        counts: Vec::new(),
        misuses: Vec::new(),
        level_findings: Vec::new(),
        findings: Findings::default(),
        held: 0,
        halted: [u64::MAX, 0, 0],
    };
    let worker = Worker {
        p: part,
        exp,
        net,
        budget: Budget::new(limits),
        stats: Stats::default(),
        process_held,
        block,
        first: 0,
        n: 1,
        level: 0,
        ranked: None,
    };
    engine::run(space, worker, &mut (), deadlock, &mut |_| {})
}

/// The search core's back end on one timely worker.
struct Worker<'a, 'n, S, E> {
    p: Part<'a, S>,
    exp: &'a mut E,
    net: &'a mut Net<'n>,
    budget: Budget,
    stats: Stats,
    /// What this process's workers hold, against its memory limit.
    process_held: &'a AtomicU64,
    /// States per block.
    block: usize,
    /// The level's first id, its states, and its number.
    first: u32,
    n: u64,
    level: u64,
    /// The level's new states that this worker ranked, with the counts of
    /// every worker and the states this worker owns; none where a limit
    /// ended the level.
    ranked: Option<Ranked>,
}

/// See [`Worker::ranked`].
struct Ranked {
    counts: Vec<Vec<u64>>,
    mine: Vec<(u64, u32, u32)>,
    states: Vec<u64>,
}

impl<S: Space, E: Expand> Backend<S, ()> for Worker<'_, '_, S, E>
where
    (): Visit<S>,
{
    type Exp = E;

    /// Processes may be given different memory limits, and hold different
    /// amounts at the start: they agree before anything is explored.
    fn seed(&mut self) -> Result<(), Limit> {
        let started = self.budget.check_start().is_ok();
        let all = self.net.gather(&[u64::from(!started)]);
        if all.iter().any(|v| v[0] != 0) {
            return Err(agreed_limit(self.net, &self.budget));
        }
        self.p.seed_initial(self.net);
        self.stats.states = 1;
        Ok(())
    }

    fn stats(&mut self) -> &mut Stats {
        &mut self.stats
    }

    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn expand(&mut self, _: &(), deadlock: bool) -> Expanded {
        let (p, net) = (&mut self.p, &mut *self.net);
        // A reduced step holds its intermediate states against the limit
        // on top of every state stored so far, in all processes: the same
        // room as one process gives it, so the run is cut at the same step.
        self.budget.stored = self.stats.states;
        // 1. Expand, and send each successor to its owner.
        let end = expand(p, self.exp, net, &mut self.budget, deadlock);
        let end = agreed_end(p, net, end);
        // 2. Rank the new states before the bound.
        let bound = end.as_ref().map_or(u64::MAX, |(id, _)| {
            (u64::from(*id) << 32) | u64::from(u32::MAX)
        });
        let (mut keys, mut states) = (Vec::new(), Vec::new());
        let memory = settle(
            p,
            &mut self.budget,
            self.process_held,
            &mut keys,
            &mut states,
        );
        let (first, n) = (self.first, self.n);
        for &(key, at) in keys.iter().filter(|k| k.0 <= bound) {
            let parent = (key >> 32) as u32;
            let r = ((u64::from(parent - first) * net.peers as u64) / n) as usize;
            net.send(r, &[key, u64::from(at)]);
        }
        let mut mine: Vec<(u64, u32, u32)> = Vec::new();
        for (from, records) in net.finish() {
            for r in records.chunks_exact(2) {
                mine.push((r[0], from, r[1] as u32));
            }
        }
        mine.sort_unstable();
        let memory = memory && self.budget.check_time().is_ok();
        let counts = net.gather(&[mine.len() as u64, u64::from(!memory)]);
        let total: u64 = counts.iter().map(|c| c[0]).sum();
        let offset: u64 = counts[..net.index].iter().map(|c| c[0]).sum();
        let room = self.budget.max_states().saturating_sub(self.stats.states);
        let halted = counts.iter().any(|c| c[1] != 0);
        let upto = if total > room {
            let first_out = room.checked_sub(offset).and_then(|i| mine.get(i as usize));
            let last = last_of_cut(net, first_out.map(|m| m.0), first, self.block);
            end.as_ref()
                .map_or(last, |(id, _)| last.min(u64::from(*id)))
        } else {
            end.as_ref().map_or(u64::MAX, |(id, _)| u64::from(*id))
        };
        level_counts(p, net, &mut self.stats, upto);
        self.ranked = (!halted).then_some(Ranked {
            counts,
            mine,
            states,
        });
        Expanded { count: total, end }
    }

    fn grow(&mut self, new: u64, added: u64) {
        self.stats.states += added;
        if new > 0 {
            self.stats.depth = self.level + 1;
        }
    }

    /// Numbers the new states (the level's third round), keeps the links
    /// of this worker's range, and tells each owner its states' ids.
    fn next(&mut self, _: &mut ()) -> Result<bool, Limit> {
        let Some(r) = self.ranked.take() else {
            return Err(agreed_limit(self.net, &self.budget));
        };
        let total: u64 = r.counts.iter().map(|c| c[0]).sum();
        let next = self.first + self.n as u32;
        self.p.number(self.net, &r.counts, &r.mine, &r.states, next);
        self.grow(total, total);
        self.first = next;
        self.n = total;
        self.level += 1;
        Ok(total > 0)
    }

    fn limit(&mut self) -> Limit {
        agreed_limit(self.net, &self.budget)
    }

    /// The links back to the initial state, fetched one round each (the
    /// worker that holds a link sends it to all).
    fn seqs(&mut self, id: u32) -> Vec<u32> {
        let (p, net) = (&self.p, &mut *self.net);
        let mut seqs = Vec::new();
        let mut cur = id;
        while cur != 0 {
            if p.ranker(cur) == net.index {
                let (parent, seq) = p.link(cur);
                for to in 0..net.peers {
                    net.send(to, &[u64::from(parent), u64::from(seq)]);
                }
            }
            let got = net.finish();
            let r = &got
                .iter()
                .find(|(_, w)| w.len() == 2)
                .expect("the holder sends the link")
                .1;
            seqs.push(r[1] as u32);
            cur = r[0] as u32;
        }
        seqs.reverse();
        seqs
    }

    fn exp(&mut self) -> &mut E {
        self.exp
    }

    /// Every worker replays a counterexample (expansion is deterministic);
    /// worker 0's is the one reported, with the findings of all.
    fn end(mut self, verdict: Verdict, violation: Option<Violation>) -> Outcome {
        self.stats.elapsed = self.budget.elapsed();
        let o = Outcome::new(verdict, self.stats, violation);
        close(&mut self.p, self.net, o)
    }
}

/// The first early end of the level by parent id, as every worker agrees,
/// once what was sent in the expansion has arrived; a limit anywhere ends
/// every worker, with the reduced step under way where it was cut.
fn agreed_end<S: Space>(
    p: &mut Part<S>,
    net: &mut Net,
    end: Option<(u32, Kind)>,
) -> Option<(u32, End)> {
    for (_, records) in &net.finish() {
        p.offer(records);
    }
    let ends = net.gather(&match end {
        Some((id, e)) => [u64::from(id), e as u64],
        None => [u64::MAX, 0],
    });
    let (id, kind) = ends
        .iter()
        .filter(|e| e[0] != u64::MAX)
        .map(|e| (e[0] as u32, Kind::from(e[1])))
        .min_by_key(|e| e.0)?;
    let end = match kind {
        Kind::Found => End::Found(None),
        Kind::Deadlock => End::Deadlock,
        Kind::Stack => End::Stack(None),
        Kind::Halt => {
            let at = net.gather(&p.halted);
            match at.iter().find(|h| h[0] == u64::from(id) && h[1] > 0) {
                Some(h) => End::Halt(h[1], h[2] as usize),
                None => End::Halt(0, 0),
            }
        }
    };
    Some((id, end))
}

impl<S: Space> Part<'_, S> {
    /// Stores the initial state at its owner, as the first level.
    fn seed_initial(&mut self, net: &Net) {
        let words = self.words;
        let mut init = vec![0u64; words];
        self.space.layout().pack(self.space.init(), &mut init);
        let mut f = [0u64; 1];
        let (k, h) = self.kept(&init, &mut f);
        if owner(h, net.peers) != net.index {
            return;
        }
        let payload = if self.compact { &init[..] } else { &[][..] };
        let k = k.to_vec();
        self.pending[shard_of(h)].offer(h, &k, 0, payload);
        let (mut keys, mut states) = (Vec::new(), Vec::new());
        table::settle(
            Some(&mut self.settled[shard_of(h)]),
            None,
            &mut self.pending[shard_of(h)],
            words,
            &mut keys,
            &mut states,
        );
        self.frontier = states;
        self.ids = vec![0];
    }

    /// Numbers this worker's ranked new states `mine` (of `counts` per
    /// worker, the level's new states starting at id `next`), keeps their
    /// links, tells each owner its states' ids, and makes the owned ones
    /// (`states`, by their index) the next frontier.
    fn number(
        &mut self,
        net: &mut Net,
        counts: &[Vec<u64>],
        mine: &[(u64, u32, u32)],
        states: &[u64],
        next: u32,
    ) {
        let words = self.words;
        let offset: u64 = counts[..net.index].iter().map(|c| c[0]).sum();
        let mut owners: Vec<(u32, u32)> = Vec::new();
        let mut at = u64::from(next);
        for (w, c) in counts.iter().enumerate() {
            if c[0] > 0 {
                owners.push((at as u32, w as u32));
            }
            at += c[0];
        }
        if !mine.is_empty() {
            let start = next + offset as u32;
            self.ranges
                .push((start, mine.len() as u32, self.links_len()));
            for (i, &(key, from, at)) in mine.iter().enumerate() {
                self.links.push((key >> 32) as u32, key as u32);
                net.send(from as usize, &[u64::from(at), u64::from(start + i as u32)]);
            }
        }
        self.owners.extend(owners);
        let mut ids: Vec<(u32, u32)> = Vec::new();
        for (_, records) in net.finish() {
            for r in records.chunks_exact(2) {
                ids.push((r[1] as u32, r[0] as u32));
            }
        }
        ids.sort_unstable();
        self.frontier.clear();
        self.ids.clear();
        for &(id, at) in &ids {
            let at = at as usize * words;
            self.frontier.extend_from_slice(&states[at..at + words]);
            self.ids.push(id);
        }
    }
}

impl<S: Space> Part<'_, S> {
    fn links_len(&self) -> u32 {
        self.ranges.iter().map(|r| r.1).sum::<u32>()
    }
}

/// Expands this worker's states of the level in id order, sending every
/// successor to its owner; where the expansion ended early, at which
/// parent and why.
fn expand<S: Space, E: Expand>(
    p: &mut Part<S>,
    exp: &mut E,
    net: &mut Net,
    budget: &mut Budget,
    deadlock: bool,
) -> Option<(u32, Kind)> {
    let (space, words, peers) = (p.space, p.words, p.peers);
    let mut s = vec![0i64; space.slots()];
    let mut packed = vec![0u64; words + 1];
    let mut misuses = Vec::new();
    p.counts.clear();
    p.misuses.clear();
    p.level_findings.clear();
    let frontier = std::mem::take(&mut p.frontier);
    let mut end = None;
    for (i, w) in frontier.chunks_exact(words).enumerate() {
        let id = p.ids[i];
        if i % POLL == POLL - 1 {
            for (_, records) in net.arrived() {
                p.offer(&records);
            }
        }
        if budget.tick().is_err() {
            end = Some((id, Kind::Halt));
            break;
        }
        space.layout().unpack(w, &mut s);
        let mut c = Counts::default();
        let mut seq = 0u32;
        let compact = p.compact;
        let result = exp.expand(&s, budget, &mut |succ, path, budget| {
            c.transitions += 1;
            c.fired += path.len() as u64;
            if c.transitions % u64::from(TICK) == 0 {
                budget.check_time()?;
            }
            space.layout().pack(succ, &mut packed[..words]);
            packed[words] = (u64::from(id) << 32) | u64::from(seq);
            seq += 1;
            let h = if compact {
                hash(&[fingerprint(&packed[..words])])
            } else {
                hash(&packed[..words])
            };
            net.send(owner(h, peers), &packed);
            Ok(())
        });
        let mut f = Findings::default();
        exp.take_findings(&mut f);
        if !f.starts.is_empty() || !f.forced.is_empty() {
            p.level_findings.push((id, f));
        }
        misuses.clear();
        space.misuses(&s, &mut misuses);
        misuses.sort_by_key(|m| m.0);
        misuses.dedup_by_key(|m| m.0);
        p.misuses.extend(misuses.drain(..).map(|(k, t)| (id, k, t)));
        let stop = match result {
            Err(Stop::Found(Found {
                problem: Problem::Fault(crate::model::Fault::StackBound { .. }),
                ..
            })) => Some(Kind::Stack),
            Err(Stop::Found(_)) => Some(Kind::Found),
            Err(Stop::Halt) => {
                p.halted = [u64::from(id), budget.run_states, budget.run_thread as u64];
                budget.run_states = 0;
                Some(Kind::Halt)
            }
            Ok(false) if !space.ended(&s) => {
                c.deadlock = true;
                deadlock.then_some(Kind::Deadlock)
            }
            Ok(_) => None,
        };
        p.counts.push(c);
        if let Some(e) = stop {
            end = Some((id, e));
            break;
        }
    }
    p.frontier = frontier;
    end
}

/// Moves the pending states into the table (within the memory limit):
/// their keys (key, index) sorted, and their states. False when the
/// memory limit forbids it.
fn settle<S: Space>(
    p: &mut Part<S>,
    budget: &mut Budget,
    process_held: &AtomicU64,
    keys: &mut Vec<(u64, u32)>,
    states: &mut Vec<u64>,
) -> bool {
    let words = p.words;
    let extra: Vec<usize> = p.pending.iter().map(Pending::len).collect();
    let total: usize = extra.iter().sum();
    let fw = if p.compact { 1 } else { words };
    let (grow, peak) = table::growth(&p.settled, &extra, fw);
    let need = grow + peak + p.links.growth(total) + (total * (16 + 2 * words * 8)) as u64;
    // The process's workers share its limit: the others' holdings, this
    // worker's, and what settling needs.
    let pending: u64 = p.pending.iter().map(Pending::bytes).sum();
    let mine = p.store_bytes() + pending + (p.frontier.capacity() * 8) as u64;
    let all = process_held.fetch_add(mine, Relaxed) + mine - p.held;
    process_held.fetch_sub(p.held, Relaxed);
    p.held = mine;
    budget.store_bytes = all + need + need / 16;
    if budget.room().bytes == 0 {
        budget.full(Full::Memory);
        return false;
    }
    keys.reserve_exact(total);
    states.reserve_exact(total * words);
    for (s, pend) in p.settled.iter_mut().zip(p.pending.iter_mut()) {
        table::settle(Some(s), None, pend, words, keys, states);
    }
    keys.sort_unstable();
    true
}

/// Adds the level's counts of the parents with id up to `upto` (of every
/// worker) to `stats`, and keeps their findings.
fn level_counts<S: Space>(p: &mut Part<S>, net: &mut Net, stats: &mut Stats, upto: u64) {
    let (mut transitions, mut fired, mut deadlocks) = (0u64, 0u64, 0u64);
    for (c, &id) in p.counts.iter().zip(&p.ids) {
        if u64::from(id) <= upto {
            transitions += c.transitions;
            fired += c.fired;
            deadlocks += u64::from(c.deadlock);
        }
    }
    for (id, f) in p.level_findings.drain(..) {
        if u64::from(id) <= upto {
            p.findings.starts.extend(f.starts);
            p.findings.forced.extend(f.forced);
        }
    }
    // Misuses: per kind, the count and the first (by parent id) described.
    let mut mine: Vec<u64> = vec![transitions, fired, deadlocks, p.store_bytes()];
    for kind in [LockMisuse::EndedHolding, LockMisuse::ReleaseNotOwner] {
        let of = p
            .misuses
            .iter()
            .filter(|m| m.1 == kind && u64::from(m.0) <= upto);
        let count = of.clone().count() as u64;
        let first = of.min_by_key(|m| m.0);
        mine.push(count);
        mine.push(first.map_or(u64::MAX, |m| u64::from(m.0)));
        let text = first.map_or(&[][..], |m| m.2.as_bytes());
        mine.push(text.len() as u64);
        mine.extend(text.chunks(8).map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        }));
    }
    let all = net.gather(&mine);
    stats.memory = 0;
    let mut firsts: Vec<(u64, LockMisuse, u64, String)> = Vec::new();
    for v in &all {
        stats.transitions += v[0];
        stats.fired += v[1];
        stats.deadlocks += v[2];
        stats.memory += v[3];
        let mut at = 4;
        for kind in [LockMisuse::EndedHolding, LockMisuse::ReleaseNotOwner] {
            let (count, first, len) = (v[at], v[at + 1], v[at + 2] as usize);
            let bytes: Vec<u8> = v[at + 3..at + 3 + len.div_ceil(8)]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(len)
                .collect();
            at += 3 + len.div_ceil(8);
            if count > 0 {
                firsts.push((
                    first,
                    kind,
                    count,
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    firsts.sort_by_key(|f| f.0);
    super::parallel::merge_misuses(
        &mut stats.lock_misuses,
        firsts
            .into_iter()
            .map(|(_, kind, count, text)| (kind, count, text)),
    );
}

/// The limit that stopped the run, as every worker agrees: the first
/// worker's that hit one (a time or memory limit is hit by one process,
/// and ends them all).
fn agreed_limit(net: &mut Net, budget: &Budget) -> Limit {
    let mine = match budget.hit {
        Some(Limit::Time(d)) => [1, d.as_nanos() as u64],
        Some(Limit::Memory(b)) => [2, b],
        Some(Limit::States(n)) => [3, n],
        _ => [0, 0],
    };
    let all = net.gather(&mine);
    match all
        .iter()
        .find(|h| h[0] != 0)
        .map_or([0, 0], |h| [h[0], h[1]])
    {
        [1, ns] => Limit::Time(std::time::Duration::from_nanos(ns)),
        [2, b] => Limit::Memory(b),
        [3, n] => Limit::States(n),
        _ => Limit::Internal("a worker stopped on a limit it cannot name"),
    }
}

/// Gathers the findings at worker 0 and completes the outcome with them.
fn close<S: Space>(p: &mut Part<S>, net: &mut Net, o: Outcome) -> Outcome {
    let words = p.words;
    let f = std::mem::take(&mut p.findings);
    let mut record: Vec<u64> = Vec::new();
    record.push(f.starts.len() as u64);
    for (t, point) in &f.starts {
        record.push(*t as u64);
        record.push(*point as u64);
    }
    record.extend_from_slice(&f.forced);
    net.send(0, &[record.len() as u64]);
    net.send(0, &record);
    let got = net.finish();
    let mut starts = Vec::new();
    let mut forced: Store<u8> = Store::new(words);
    for (_, w) in got {
        let mut at = 0;
        while at < w.len() {
            let len = w[at] as usize;
            let r = &w[at + 1..at + 1 + len];
            at += 1 + len;
            let n = r[0] as usize;
            for i in 0..n {
                starts.push((r[1 + 2 * i] as usize, r[2 + 2 * i] as i64));
            }
            for s in r[1 + 2 * n..].chunks_exact(words) {
                let _ = forced.insert(s, 0, || Room {
                    states: u64::MAX,
                    bytes: u64::MAX,
                });
            }
        }
    }
    let mut found = Findings {
        starts,
        forced: Vec::new(),
    };
    super::parallel::done(&mut found, &forced, o)
}
