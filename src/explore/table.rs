//! The visited set of the level-synchronous search ([`super::parallel`]):
//! packed states kept once, in an open-addressing table split into shards
//! by hash, plus the states found for the next level while it is being
//! discovered, and a parent link per state for traces.
//!
//! Why this shape:
//! - While a level is expanded, the settled table (every state of the
//!   levels before) is only read, so workers look states up without locks
//!   or atomics; a successor not found there goes to the shard's
//!   [`Pending`] set, behind that shard's lock, with the smallest
//!   `(parent id, emit index)` that reached it. Between levels the pending
//!   states are moved into the table (shard by shard, in parallel) and
//!   numbered in the order of those keys, which is the order a sequential
//!   breadth-first search would number them: ids, parent links and traces
//!   do not depend on the number of threads or on timing.
//! - The table keeps the packed words themselves (no id, no arena of
//!   states): per state it costs `8 * words / load` bytes, load kept
//!   between 0.64 and 0.8 by growing a shard by a quarter (positions are
//!   taken by multiply-shift, so any capacity works). A shard is small (one
//!   of [`SHARDS`]), so growing one holds its old and new copy only.
//! - A state's id is never looked up: traces re-expand each ancestor and
//!   take the successor with the recorded emit index, so the store needs no
//!   state-to-id or id-to-state map; the link is a 32-bit parent and an
//!   emit index, two bytes together (see [`Links`]).
//! - The all-zero state is kept as a flag, so an all-zero slot means empty.

use std::collections::HashMap;

use super::store::hash;

/// Shards of the table, as bits of the hash (its top bits pick the shard).
pub const SHARD_BITS: u32 = 6;
/// Shards of the table.
pub const SHARDS: usize = 1 << SHARD_BITS;

/// The shard of a hash.
#[inline]
pub fn shard_of(h: u64) -> usize {
    (h >> (64 - SHARD_BITS)) as usize
}

/// The slot a hash starts probing at, in a shard of `cap` slots: the low
/// 32 bits scaled to the capacity (independent of the shard's bits).
#[inline]
fn home(h: u64, cap: usize) -> usize {
    ((u64::from(h as u32) * cap as u64) >> 32) as usize
}

/// A hint to fetch `x`'s cache line; nothing where there is no such hint.
#[inline]
fn prefetch(x: &u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it reads nothing and cannot
        // fault, and SSE is part of every x86_64 processor.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const u64).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Whether two packed states are equal: a plain loop, since states are a
/// few words and a call to `memcmp` (what `==` on slices becomes) costs
/// more than the comparison.
#[inline]
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// How far ahead of a lookup the slot of a later one is fetched: about the
/// misses a core keeps in flight (more only wait for a free buffer).
pub const AHEAD: usize = 24;

/// Words per segment of a shard, at most.
const SEGMENT_WORDS: usize = 1 << 13;

/// One shard of settled states: linear probing over inline packed states.
///
/// The slots live in segments of one size (a power of two of slots), so
/// that the segments a regrown shard frees are the very blocks the next
/// regrowth of any shard asks for: the allocator reuses them instead of
/// keeping holes of every size (which the resident set would show).
#[derive(Default)]
pub struct Shard {
    segments: Vec<Box<[u64]>>,
    /// Slots per full segment, as a power of two.
    shift: u32,
    cap: usize,
    len: usize,
    zero: bool,
}

/// Slots per segment for states of `words` words, as a power of two.
fn segment_shift(words: usize) -> u32 {
    let per = (SEGMENT_WORDS / words).max(1);
    usize::BITS - 1 - per.leading_zeros()
}

impl Shard {
    /// The slot `i`.
    #[inline]
    fn slot(&self, i: usize, words: usize) -> &[u64] {
        let seg = &self.segments[i >> self.shift];
        let o = (i & ((1 << self.shift) - 1)) * words;
        &seg[o..o + words]
    }

    /// Asks the processor to fetch the slot where a lookup of hash `h`
    /// starts, so that the cache misses of many lookups overlap (a lookup
    /// is a miss to memory on a large table, and a search does little else).
    #[inline]
    pub fn prefetch(&self, h: u64, words: usize) {
        if self.cap > 0
            && let Some(x) = self.slot(home(h, self.cap), words).first()
        {
            prefetch(x);
        }
    }

    /// Whether packed state `w` (with hash `h`) is in the shard.
    #[inline]
    pub fn contains(&self, h: u64, w: &[u64]) -> bool {
        let words = w.len();
        if (words == 1 && w[0] == 0) || (words > 1 && w.iter().all(|&x| x == 0)) {
            return self.zero;
        }
        if self.cap == 0 {
            return false;
        }
        let mut i = home(h, self.cap);
        if words == 1 {
            let (x, mask) = (w[0], (1 << self.shift) - 1);
            loop {
                let y = self.segments[i >> self.shift][i & mask];
                if y == x {
                    return true;
                }
                if y == 0 {
                    return false;
                }
                i += 1;
                if i == self.cap {
                    i = 0;
                }
            }
        }
        loop {
            let s = self.slot(i, words);
            if same(s, w) {
                return true;
            }
            if s.iter().all(|&x| x == 0) {
                return false;
            }
            i += 1;
            if i == self.cap {
                i = 0;
            }
        }
    }

    /// Inserts a state known to be absent, with room for it.
    fn put(&mut self, h: u64, w: &[u64]) {
        let words = w.len();
        self.len += 1;
        if w.iter().all(|&x| x == 0) {
            self.zero = true;
            return;
        }
        let mut i = home(h, self.cap);
        while self.slot(i, words).iter().any(|&x| x != 0) {
            i += 1;
            if i == self.cap {
                i = 0;
            }
        }
        let seg = &mut self.segments[i >> self.shift];
        let o = (i & ((1 << self.shift) - 1)) * words;
        seg[o..o + words].copy_from_slice(w);
    }

    /// The capacity that holds `n` states at a load of at most 0.8:
    /// the current one, or a quarter more until it does.
    fn cap_for(&self, n: usize) -> usize {
        let mut cap = self.cap;
        while n * 5 > cap * 4 {
            cap = (cap + cap / 4).max(16);
        }
        cap
    }

    /// Bytes of the shard's slots.
    fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.len() * 8).sum::<usize>() as u64
    }

    /// Bytes of `cap` slots.
    fn bytes_for(cap: usize, words: usize) -> u64 {
        (cap * words * 8) as u64
    }

    /// Regrows to `cap` slots, moving every state.
    fn regrow(&mut self, cap: usize, words: usize) {
        if cap == self.cap {
            return;
        }
        let shift = segment_shift(words);
        let per = 1usize << shift;
        let mut segments = Vec::with_capacity(cap.div_ceil(per));
        let mut left = cap;
        while left > 0 {
            let n = left.min(per);
            segments.push(vec![0u64; n * words].into_boxed_slice());
            left -= n;
        }
        let old = std::mem::replace(&mut self.segments, segments);
        self.shift = shift;
        self.cap = cap;
        let (len, zero) = (self.len, self.zero);
        for seg in old {
            for w in seg.chunks_exact(words) {
                if w.iter().any(|&x| x != 0) {
                    self.put(hash(w), w);
                }
            }
        }
        (self.len, self.zero) = (len, zero);
    }
}

/// The states found for the next level in one shard, each with the
/// smallest key (`parent id << 32 | emit index`) that reached it.
///
/// Linear probing over slots of what the visited set keeps of a state
/// (its packed words, or under `--hash-compact` its fingerprint), then its
/// key, then the state itself where that differs (the payload, for the
/// next level's frontier). An offer touches one place in memory (a lookup
/// is the search's other cache miss besides the settled table), and that
/// place can be fetched ahead ([`Pending::prefetch`]).
#[derive(Default)]
pub struct Pending {
    slots: Vec<u64>,
    cap: usize,
    /// Words of what is kept, and of the payload.
    fw: usize,
    pw: usize,
    /// The slots in use, so that a level's states are read and forgotten
    /// in the time of their number, not of the table's size.
    used: Vec<u32>,
    /// The key and payload of the all-zero kept words, which an empty slot
    /// cannot hold.
    zero: Option<u64>,
    zeros: Vec<u64>,
}

impl Pending {
    /// A set of states kept as `fw` words, with `pw` words of payload.
    pub fn new(fw: usize, pw: usize) -> Pending {
        Pending {
            fw,
            pw,
            ..Pending::default()
        }
    }

    fn stride(&self) -> usize {
        self.fw + 1 + self.pw
    }

    /// See [`Shard::prefetch`].
    #[inline]
    pub fn prefetch(&self, h: u64) {
        if self.cap > 0 {
            prefetch(&self.slots[home(h, self.cap) * self.stride()]);
        }
    }

    /// Offers kept words `w` (hash `h`) reached with `key`, with its
    /// payload; returns the bytes the set grew by when it is new to it,
    /// else `None`.
    #[inline]
    pub fn offer(&mut self, h: u64, w: &[u64], key: u64, payload: &[u64]) -> Option<u64> {
        let (fw, stride) = (self.fw, self.stride());
        if w.iter().all(|&x| x == 0) {
            return match &mut self.zero {
                Some(k) => {
                    *k = (*k).min(key);
                    None
                }
                None => {
                    self.zero = Some(key);
                    self.zeros = w.iter().chain(payload).copied().collect();
                    Some(0)
                }
            };
        }
        let before = self.bytes();
        if (self.used.len() + 1) * 4 > self.cap * 3 {
            self.regrow();
        }
        let mut i = home(h, self.cap);
        loop {
            let slot = &mut self.slots[i * stride..(i + 1) * stride];
            let (kept, rest) = slot.split_at_mut(fw);
            if same(kept, w) {
                rest[0] = rest[0].min(key);
                return None;
            }
            if kept.iter().all(|&x| x == 0) {
                kept.copy_from_slice(w);
                rest[0] = key;
                rest[1..].copy_from_slice(payload);
                self.used.push(i as u32);
                return Some(self.bytes() - before);
            }
            i += 1;
            if i == self.cap {
                i = 0;
            }
        }
    }

    /// The key kept with words `w` (hash `h`), if they are held. A set that
    /// is offered each state once with its id as the key is the search's
    /// map from states to ids, where a visitor asks for one
    /// (`parallel::Visit::EDGES`).
    #[inline]
    pub fn get(&self, h: u64, w: &[u64]) -> Option<u64> {
        if w.iter().all(|&x| x == 0) {
            return self.zero;
        }
        if self.cap == 0 {
            return None;
        }
        let (fw, stride) = (self.fw, self.stride());
        let mut i = home(h, self.cap);
        loop {
            let slot = &self.slots[i * stride..(i + 1) * stride];
            if same(&slot[..fw], w) {
                return Some(slot[fw]);
            }
            if slot[..fw].iter().all(|&x| x == 0) {
                return None;
            }
            i += 1;
            if i == self.cap {
                i = 0;
            }
        }
    }

    /// Doubles the slots.
    #[cold]
    fn regrow(&mut self) {
        let (fw, stride) = (self.fw, self.stride());
        let cap = (self.cap * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![0; cap * stride]);
        self.cap = cap;
        for u in &mut self.used {
            let slot = &old[*u as usize * stride..(*u as usize + 1) * stride];
            let mut i = home(hash(&slot[..fw]), cap);
            while self.slots[i * stride..i * stride + fw]
                .iter()
                .any(|&x| x != 0)
            {
                i += 1;
                if i == cap {
                    i = 0;
                }
            }
            self.slots[i * stride..(i + 1) * stride].copy_from_slice(slot);
            *u = i as u32;
        }
    }

    /// States held.
    pub fn len(&self) -> usize {
        self.used.len() + usize::from(self.zero.is_some())
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> u64 {
        (self.slots.capacity() * 8 + self.used.capacity() * 4) as u64
    }

    /// The states held: what is kept of each, its key, and the state.
    ///
    /// A set that fills a good part of its slots is read in slot order,
    /// which the processor fetches ahead by itself; a sparse one through
    /// its list of slots in use.
    pub fn iter(&self) -> impl Iterator<Item = (&[u64], u64, &[u64])> {
        let (fw, stride) = (self.fw, self.stride());
        let zero = self.zero.map(|k| (&self.zeros[..fw], k, &self.zeros[fw..]));
        let dense = self.used.len() * 4 >= self.cap;
        let in_order = self
            .slots
            .chunks_exact(stride)
            .take(if dense { self.cap } else { 0 })
            .filter(move |s| s[..fw].iter().any(|&x| x != 0))
            .map(move |s| (&s[..fw], s[fw], &s[fw + 1..]));
        let by_list = self
            .used
            .iter()
            .take(if dense { 0 } else { self.used.len() })
            .map(move |&i| &self.slots[i as usize * stride..(i as usize + 1) * stride])
            .map(move |s| (&s[..fw], s[fw], &s[fw + 1..]));
        in_order.chain(by_list).chain(zero)
    }

    /// Forgets every state, keeping the memory for the next level.
    pub fn clear(&mut self) {
        let stride = self.stride();
        for &i in &self.used {
            self.slots[i as usize * stride..(i as usize + 1) * stride].fill(0);
        }
        self.used.clear();
        self.zero = None;
    }
}

/// A 64-bit fingerprint of a packed state, independent of [`hash`] (other
/// constants, every word mixed twice): what `--hash-compact` keeps of a
/// state, and the second hash of `--bitstate`.
pub fn fingerprint(w: &[u64]) -> u64 {
    #[inline]
    fn mix(a: u64, b: u64) -> u64 {
        let p = u128::from(a) * u128::from(b);
        (p as u64) ^ ((p >> 64) as u64)
    }
    let mut h = 0x9e37_79b9_7f4a_7c15_u64 ^ w.len() as u64;
    for &x in w {
        h = mix(h ^ x, 0xd6e8_feb8_6659_fd93);
        h = mix(h, 0xa076_1d64_78bd_642f);
    }
    h
}

/// The bit array of `--bitstate`: a state counts as visited when its `k`
/// bits are set (double hashing: bit `h1 + i * h2` for `i < k`).
pub struct Bits {
    words: Vec<std::sync::atomic::AtomicU64>,
    mask: u64,
    k: u32,
}

impl Bits {
    /// `2^log2` bits, `k` of them per state; `None` when the array is
    /// larger than the memory the system has available, or cannot be
    /// allocated.
    pub fn new(log2: u32, k: u32) -> Option<Bits> {
        let n = usize::try_from((1u64 << log2).div_ceil(64)).ok()?;
        if super::budget::available_bytes().is_some_and(|a| n as u64 * 8 > a) {
            return None;
        }
        let mut words = Vec::new();
        words.try_reserve_exact(n).ok()?;
        words.extend((0..n).map(|_| std::sync::atomic::AtomicU64::new(0)));
        Some(Bits {
            words,
            mask: (1u64 << log2) - 1,
            k,
        })
    }

    /// Bytes of an array of `2^log2` bits.
    pub fn bytes_for(log2: u32) -> u64 {
        (1u64 << log2).div_ceil(64) * 8
    }

    fn bits(&self, h: u64, w: &[u64]) -> impl Iterator<Item = u64> + use<'_> {
        let h2 = fingerprint(w) | 1;
        (0..u64::from(self.k)).map(move |i| h.wrapping_add(i.wrapping_mul(h2)) & self.mask)
    }

    /// Whether every bit of state `w` (hash `h`) is set.
    pub fn test(&self, h: u64, w: &[u64]) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.bits(h, w)
            .all(|b| self.words[(b / 64) as usize].load(Relaxed) & (1 << (b % 64)) != 0)
    }

    /// Sets the bits of state `w` (hash `h`).
    pub fn set(&self, h: u64, w: &[u64]) {
        use std::sync::atomic::Ordering::Relaxed;
        for b in self.bits(h, w) {
            self.words[(b / 64) as usize].fetch_or(1 << (b % 64), Relaxed);
        }
    }

    /// Bytes of the array.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }
}

/// Moves the pending states of a shard into the visited set: into the
/// shard, or into the bit array when there is one (or nowhere: where the
/// search keeps a map from states to ids instead, `shard` is `None`);
/// appends `(key, index)` of each to `keys` and the state to `states`. The
/// shard must have room (see [`Shard::cap_for`]).
pub fn settle(
    shard: Option<&mut Shard>,
    bits: Option<&Bits>,
    pending: &mut Pending,
    words: usize,
    keys: &mut Vec<(u64, u32)>,
    states: &mut Vec<u64>,
) {
    if pending.len() == 0 {
        // Most shards of a narrow level (a deep, thin state space) have
        // nothing to settle.
        return;
    }
    let (fw, compact) = (pending.fw, pending.pw > 0);
    let first = keys.len();
    let mut kept = Vec::new();
    for (f, key, payload) in pending.iter() {
        keys.push((key, (states.len() / words.max(1)) as u32));
        states.extend_from_slice(if compact { payload } else { f });
        if compact {
            kept.extend_from_slice(f);
        }
    }
    pending.clear();
    let n = keys.len() - first;
    let new = &states[states.len() - n * words..];
    let Some(shard) = shard else { return };
    if let Some(bits) = bits {
        for j in 0..n {
            let w = &new[j * words..(j + 1) * words];
            bits.set(hash(w), w);
        }
        return;
    }
    let cap = shard.cap_for(shard.len + n);
    shard.regrow(cap, fw);
    // The states are put from their new copy, read in order, each one's
    // slot fetched ahead.
    let from: &[u64] = if compact { &kept } else { new };
    let state = |j: usize| &from[j * fw..(j + 1) * fw];
    for j in 0..n {
        if j + AHEAD < n {
            let w = state(j + AHEAD);
            shard.prefetch(hash(w), fw);
        }
        let w = state(j);
        shard.put(hash(w), w);
    }
}

/// Bytes the table must add to take `extra[i]` more states in shard `i`,
/// and the largest single regrowth (old and new copy live at once).
pub fn growth(shards: &[Shard], extra: &[usize], words: usize) -> (u64, u64) {
    let (mut total, mut peak) = (0u64, 0u64);
    for (s, &n) in shards.iter().zip(extra) {
        let cap = s.cap_for(s.len + n);
        if cap != s.cap {
            let add = Shard::bytes_for(cap - s.cap, words);
            total += add;
            peak = peak.max(s.bytes());
        }
    }
    (total, peak)
}

/// Bytes of every shard's slots.
pub fn table_bytes(shards: &[Shard]) -> u64 {
    shards.iter().map(Shard::bytes).sum()
}

/// Links per chunk of [`Links`].
const LINK_CHUNK: usize = 1 << 16;

/// Links between two checkpoints of [`Links`].
const CHECK: usize = 64;

/// Per state: its parent's id and the index of the emit of the parent's
/// expansion that reached it.
///
/// States are numbered by (parent, emit index), so parents never decrease
/// along the ids: a link keeps the parent as the difference from the
/// previous state's parent, in a byte, with the parent itself every
/// [`CHECK`] states; and the emit index in a byte. Values of 255 and more
/// (rare) go to side maps. Two bytes a state, plus 4 per [`CHECK`].
#[derive(Default)]
pub struct Links {
    deltas: Vec<Vec<u8>>,
    seqs: Vec<Vec<u8>>,
    checks: Vec<u32>,
    /// Parent differences of 255 and more.
    over_delta: HashMap<u32, u32>,
    /// Emit indices of 255 and more.
    over_seq: HashMap<u32, u32>,
    last: u32,
    len: usize,
}

impl Links {
    /// Appends the link of the next state; `parent` is at least that of
    /// the state before.
    pub fn push(&mut self, parent: u32, seq: u32) {
        let c = self.len / LINK_CHUNK;
        if c == self.deltas.len() {
            self.deltas.push(Vec::new());
            self.seqs.push(Vec::new());
        }
        let (d, s) = (&mut self.deltas[c], &mut self.seqs[c]);
        if d.len() == d.capacity() {
            // The first chunk grows by doubling, so a small search stays
            // small; later chunks are allocated whole and never move.
            let want = if c == 0 {
                (d.capacity() * 2).clamp(16, LINK_CHUNK)
            } else {
                LINK_CHUNK
            };
            d.reserve_exact(want - d.len());
            s.reserve_exact(want - s.len());
        }
        let id = self.len as u32;
        if self.len % CHECK == 0 {
            self.checks.push(parent);
        }
        let delta = parent - self.last;
        self.last = parent;
        for (v, bytes, over) in [
            (delta, &mut *d, &mut self.over_delta),
            (seq, &mut *s, &mut self.over_seq),
        ] {
            if v >= 255 {
                bytes.push(255);
                over.insert(id, v);
            } else {
                bytes.push(v as u8);
            }
        }
        self.len += 1;
    }

    fn byte(&self, which: &[Vec<u8>], over: &HashMap<u32, u32>, id: usize) -> u32 {
        match which[id / LINK_CHUNK][id % LINK_CHUNK] {
            255 => over[&(id as u32)],
            v => u32::from(v),
        }
    }

    /// The parent and emit index of state `id`.
    pub fn get(&self, id: u32) -> (u32, u32) {
        let id = id as usize;
        let base = id - id % CHECK;
        let mut parent = self.checks[id / CHECK];
        for i in base + 1..=id {
            parent += self.byte(&self.deltas, &self.over_delta, i);
        }
        (parent, self.byte(&self.seqs, &self.over_seq, id))
    }

    /// Bytes allocated (the side maps at their entries' size).
    pub fn bytes(&self) -> u64 {
        let chunks: usize = self.deltas.iter().map(|p| p.capacity() * 2).sum();
        let side = (self.over_delta.len() + self.over_seq.len()) * 16;
        (chunks + side + self.checks.capacity() * 4) as u64
    }

    /// Bytes the next `n` links may add (and the checkpoints' copy).
    pub fn growth(&self, n: usize) -> u64 {
        let have: usize = self.deltas.iter().map(Vec::capacity).sum();
        let need = self.len + n;
        let checks = (need.div_ceil(CHECK) * 4 * 2) as u64;
        checks
            + if need <= have {
                0
            } else {
                ((need - have).next_multiple_of(LINK_CHUNK) * 2) as u64
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settles_and_finds_every_state() {
        for words in [1usize, 2] {
            let mut shards: Vec<Shard> = (0..SHARDS).map(|_| Shard::default()).collect();
            let mut pending: Vec<Pending> = (0..SHARDS).map(|_| Pending::new(words, 0)).collect();
            let state = |k: u64| -> Vec<u64> { (0..words as u64).map(|j| k * (j + 3)).collect() };
            for k in 0..50_000u64 {
                let w = state(k);
                let h = hash(&w);
                pending[shard_of(h)].offer(h, &w, k + 10, &[]);
                // A second offer keeps the smaller key.
                pending[shard_of(h)].offer(h, &w, k + 5, &[]);
            }
            let (mut keys, mut states) = (Vec::new(), Vec::new());
            for (s, p) in shards.iter_mut().zip(&mut pending) {
                settle(Some(s), None, p, words, &mut keys, &mut states);
            }
            assert_eq!(keys.len(), 50_000);
            keys.sort_unstable();
            assert_eq!(keys[0].0, 5);
            for k in 0..60_000u64 {
                let w = state(k);
                let h = hash(&w);
                assert_eq!(shards[shard_of(h)].contains(h, &w), k < 50_000, "{k}");
            }
            let bytes = table_bytes(&shards);
            assert!(bytes <= 50_000 * 8 * words as u64 * 2, "{bytes}");
        }
    }

    #[test]
    fn links_round_trip() {
        let mut l = Links::default();
        let parent = |i: u32| {
            if i < 1000 {
                i / 3
            } else {
                i / 3 + 700 * (i / 1000)
            }
        };
        for i in 0..200_000u32 {
            l.push(parent(i), i % 300);
        }
        for i in [0, 1, 63, 64, 65, 299, 999, 1000, 1001, 150_001, 199_999] {
            assert_eq!(l.get(i), (parent(i), i % 300), "{i}");
        }
        assert_eq!(l.len, 200_000);
    }
}
