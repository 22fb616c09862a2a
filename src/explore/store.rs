//! The set of visited states: packed states in chunks, interned by a
//! sharded hash table, with a note per state (a parent link for shortest
//! traces, an on-path flag for the depth-first run of a reduced step).
//!
//! Growth is planned: an insertion that needs more memory first asks
//! whether the grown size fits the room it was given, and stores nothing
//! when it does not, so a memory limit is never overshot by a doubling.
//! Two choices keep each growth step small, so that a run can use most of
//! its limit before it must stop:
//! - the table is split into [`SHARDS`] shards by hash, so one growth step
//!   doubles one shard, and its rehash holds the old and the new copy of
//!   that shard only;
//! - states live in fixed-size chunks that never move, so the arena grows
//!   by one chunk at a time, with no copy.

use hashbrown::HashTable;

/// Shards of the hash table.
pub const SHARDS: usize = 16;

/// The bits of a hash that pick its shard: above the bits hashbrown uses to
/// pick a bucket (the low ones, for any table below 2^40 buckets) and below
/// those of its control bytes (the top 7).
const SHARD_SHIFT: u32 = 40;

/// Bytes of states per chunk, at most: 2^16 one-word states.
const CHUNK_BYTES: usize = 8 << 16;

/// States in the first allocation of the first chunk, which grows by
/// doubling until it is full size, so that a small search stays small.
const FIRST_CHUNK: usize = 16;

/// What an insertion may add: states, and bytes of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    /// New states it may store.
    pub states: u64,
    /// Bytes it may allocate, counting old and new copies while they coexist.
    pub bytes: u64,
}

#[cfg(test)]
impl Room {
    /// No limit.
    pub const UNLIMITED: Room = Room {
        states: u64::MAX,
        bytes: u64::MAX,
    };
}

/// Why a new state was not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// No room for one more state.
    States,
    /// Storing it would grow the store past the bytes allowed.
    Memory,
}

/// What an insertion found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The state is new, and now has this id.
    New(u32),
    /// The state was stored already; its id, when the store is indexed.
    Old(Option<u32>),
}

/// Visited states, numbered in insertion order, with a note of type `N`
/// per state.
pub struct Store<N: Copy = u32> {
    words: usize,
    /// States per chunk, as a power of two.
    shift: u32,
    chunks: Vec<Chunk<N>>,
    len: usize,
    table: Table,
    /// Bytes allocated: chunks and table shards.
    bytes: u64,
}

struct Chunk<N> {
    states: Vec<u64>,
    notes: Vec<N>,
}

/// A search never needs the id of a state it meets again, only whether it
/// was seen, so a one-word state is kept in the table itself: one cache
/// miss per lookup instead of two (table, then arena). An indexed store
/// (which must answer with ids) keeps ids.
enum Table {
    Narrow([HashTable<u64>; SHARDS]),
    Wide([HashTable<u32>; SHARDS]),
}

/// The hash of a packed state. It is fixed, not seeded per process, so that
/// the shards fill the same way in every run: a memory limit then stops a
/// run at the same state every time, and the memory reported is the same.
/// (Models are the user's own input, so there is no attacker to choose
/// colliding states.) Two words at a time go through one folded multiply,
/// as in foldhash, and a last one spreads every input bit over the high
/// bits, which pick the shard and the control byte, and the low bits,
/// which pick the bucket.
#[inline]
pub(super) fn hash(words: &[u64]) -> u64 {
    const SEED: [u64; 4] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    #[inline]
    fn fold(a: u64, b: u64) -> u64 {
        let p = u128::from(a) * u128::from(b);
        (p as u64) ^ ((p >> 64) as u64)
    }
    let h = match words {
        [a] => fold(a ^ SEED[0], SEED[1]),
        [a, b] => fold(a ^ SEED[0], b ^ SEED[1]),
        _ => {
            let mut h = SEED[0];
            let mut pairs = words.chunks_exact(2);
            for p in &mut pairs {
                h = fold(p[0] ^ h, p[1] ^ SEED[1]);
            }
            if let [w] = pairs.remainder() {
                h = fold(w ^ h, SEED[2]);
            }
            h
        }
    };
    fold(h, SEED[3])
}

/// The packed state `id` among `chunks`.
#[inline]
fn at<N>(chunks: &[Chunk<N>], shift: u32, words: usize, id: u32) -> &[u64] {
    let id = id as usize;
    let i = (id & ((1 << shift) - 1)) * words;
    &chunks[id >> shift].states[i..i + words]
}

impl<N: Copy> Store<N> {
    /// An empty store for states of `words` words.
    pub fn new(words: usize) -> Store<N> {
        Store::build(words, words != 1)
    }

    /// An empty store that answers lookups with ids.
    pub fn indexed(words: usize) -> Store<N> {
        Store::build(words, true)
    }

    fn build(words: usize, indexed: bool) -> Store<N> {
        // The largest power of two of states whose words fit CHUNK_BYTES.
        let per_chunk = (CHUNK_BYTES / (8 * words.max(1))).max(1);
        let shift = usize::BITS - 1 - per_chunk.leading_zeros();
        Store {
            words,
            shift,
            chunks: Vec::new(),
            len: 0,
            table: if indexed {
                Table::Wide(std::array::from_fn(|_| HashTable::new()))
            } else {
                Table::Narrow(std::array::from_fn(|_| HashTable::new()))
            },
            bytes: 0,
        }
    }

    /// Inserts a packed state with its note, unless it is stored already or
    /// does not fit the room that `room` gives (asked only for a new state).
    #[inline]
    pub fn insert(
        &mut self,
        packed: &[u64],
        note: N,
        room: impl FnOnce() -> Room,
    ) -> Result<Insert, Full> {
        let h = hash(packed);
        let shard = (h >> SHARD_SHIFT) as usize % SHARDS;
        let (words, shift, chunks) = (self.words, self.shift, &self.chunks);
        let known = match &self.table {
            Table::Narrow(t) => t[shard].find(h, |&k| k == packed[0]).map(|_| None),
            Table::Wide(t) => t[shard]
                .find(h, |&id| at(chunks, shift, words, id) == packed)
                .map(|&id| Some(id)),
        };
        match known {
            Some(id) => Ok(Insert::Old(id)),
            None => self.insert_new(h, shard, packed, note, room()),
        }
    }

    /// Stores a state known to be new; out of line, so that the lookup
    /// which most calls end with stays small.
    #[inline(never)]
    fn insert_new(
        &mut self,
        h: u64,
        shard: usize,
        packed: &[u64],
        note: N,
        room: Room,
    ) -> Result<Insert, Full> {
        if room.states == 0 {
            return Err(Full::States);
        }
        if self.len >= u32::MAX as usize {
            // Ids are 32 bits: more states could not be told apart.
            return Err(Full::Memory);
        }
        let c = self.len >> self.shift;
        let slot = matches!(self.chunks.get(c), Some(ch) if ch.notes.len() < ch.notes.capacity());
        let entry = match &self.table {
            Table::Narrow(t) => t[shard].len() < t[shard].capacity(),
            Table::Wide(t) => t[shard].len() < t[shard].capacity(),
        };
        if !(slot && entry) {
            self.grow(shard, room.bytes)?;
        }
        let id = self.len as u32;
        let (words, shift, chunks) = (self.words, self.shift, &self.chunks);
        match &mut self.table {
            Table::Narrow(t) => {
                t[shard].insert_unique(h, packed[0], |&k| hash(&[k]));
            }
            Table::Wide(t) => {
                t[shard].insert_unique(h, id, |&k| hash(at(chunks, shift, words, k)));
            }
        }
        let chunk = &mut self.chunks[self.len >> self.shift];
        chunk.states.extend_from_slice(packed);
        chunk.notes.push(note);
        self.len += 1;
        Ok(Insert::New(id))
    }

    /// Makes room for one more state in the chunks and in `shard` of the
    /// table, within `room` bytes.
    #[cold]
    fn grow(&mut self, shard: usize, room: u64) -> Result<(), Full> {
        let grown = self.make_slot(room)?;
        self.make_table_room(shard, room.saturating_sub(grown))
    }

    /// Makes room in the chunks for one more state, within `room` bytes;
    /// returns the bytes added.
    fn make_slot(&mut self, room: u64) -> Result<u64, Full> {
        let unit = (self.words * 8 + std::mem::size_of::<N>()) as u64;
        let per_chunk = 1usize << self.shift;
        let c = self.len >> self.shift;
        let (old, new) = match self.chunks.get(c) {
            Some(ch) if ch.notes.len() < ch.notes.capacity() => return Ok(0),
            // Only the first chunk grows in place; the copy may briefly
            // hold the old and the new allocation.
            Some(ch) => {
                let old = ch.notes.capacity();
                (old, (old * 2).clamp(FIRST_CHUNK, per_chunk))
            }
            None => (
                0,
                if c == 0 {
                    FIRST_CHUNK.min(per_chunk)
                } else {
                    per_chunk
                },
            ),
        };
        if new as u64 * unit > room {
            return Err(Full::Memory);
        }
        if c == self.chunks.len() {
            self.chunks.push(Chunk {
                states: Vec::new(),
                notes: Vec::new(),
            });
        }
        let ch = &mut self.chunks[c];
        let more = new - ch.notes.len();
        ch.states
            .try_reserve_exact(more * self.words)
            .map_err(|_| Full::Memory)?;
        ch.notes.try_reserve_exact(more).map_err(|_| Full::Memory)?;
        let added = (new - old) as u64 * unit;
        self.bytes += added;
        Ok(added)
    }

    /// Makes room in `shard` of the table for one more entry, within `room`
    /// bytes. Growing allocates a table of twice the buckets while the old
    /// one is still live, so the new allocation must fit the room.
    fn make_table_room(&mut self, shard: usize, room: u64) -> Result<(), Full> {
        fn grow<T>(
            t: &mut HashTable<T>,
            room: u64,
            hasher: impl Fn(&T) -> u64,
        ) -> Result<(u64, u64), Full> {
            if t.len() < t.capacity() {
                return Ok((0, 0));
            }
            let old = t.allocation_size() as u64;
            // Twice the buckets: twice the allocation, or a first small one.
            let planned = (2 * old).max(64);
            if planned > room {
                return Err(Full::Memory);
            }
            t.try_reserve(1, hasher).map_err(|_| Full::Memory)?;
            Ok((old, t.allocation_size() as u64))
        }
        let (words, shift, chunks) = (self.words, self.shift, &self.chunks);
        let (old, new) = match &mut self.table {
            Table::Narrow(t) => grow(&mut t[shard], room, |&k| hash(&[k]))?,
            Table::Wide(t) => grow(&mut t[shard], room, |&k| hash(at(chunks, shift, words, k)))?,
        };
        self.bytes = self.bytes + new - old;
        Ok(())
    }

    /// The id of a stored state, in an indexed store.
    pub fn find(&self, packed: &[u64]) -> Option<u32> {
        let hash = hash(packed);
        let shard = (hash >> SHARD_SHIFT) as usize % SHARDS;
        match &self.table {
            Table::Narrow(_) => None,
            Table::Wide(t) => t[shard].find(hash, |&id| self.get(id) == packed).copied(),
        }
    }

    /// The packed state `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &[u64] {
        at(&self.chunks, self.shift, self.words, id)
    }

    /// The note of state `id`.
    pub fn note(&self, id: u32) -> N {
        let id = id as usize;
        self.chunks[id >> self.shift].notes[id & ((1 << self.shift) - 1)]
    }

    /// The note of state `id`, to change in place.
    pub fn note_mut(&mut self, id: u32) -> &mut N {
        let id = id as usize;
        let mask = (1 << self.shift) - 1;
        &mut self.chunks[id >> self.shift].notes[id & mask]
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes allocated for the states, their notes and the table.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Forgets every state but keeps the memory, for the next use.
    pub fn clear(&mut self) {
        for c in &mut self.chunks {
            c.states.clear();
            c.notes.clear();
        }
        match &mut self.table {
            Table::Narrow(t) => t
                .iter_mut()
                .filter(|s| !s.is_empty())
                .for_each(HashTable::clear),
            Table::Wide(t) => t
                .iter_mut()
                .filter(|s| !s.is_empty())
                .for_each(HashTable::clear),
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_numbers_in_order() {
        for words in [1, 2] {
            for indexed in [false, true] {
                let mut s: Store = Store::build(words, indexed);
                let state = |a: u64, b: u64| {
                    if words == 1 {
                        vec![a * 100 + b]
                    } else {
                        vec![a, b]
                    }
                };
                let r = Room::UNLIMITED;
                assert_eq!(s.insert(&state(1, 2), 0, || r), Ok(Insert::New(0)));
                assert_eq!(s.insert(&state(3, 4), 0, || r), Ok(Insert::New(1)));
                let again = s.insert(&state(1, 2), 1, || r);
                assert_eq!(again, Ok(Insert::Old(indexed.then_some(0))));
                for k in 0..200_000u64 {
                    s.insert(&state(k + 5, k % 7), 1, || r).unwrap();
                }
                assert_eq!(s.len(), 200_000 + 2);
                assert_eq!(s.get(1), state(3, 4).as_slice());
                assert_eq!(s.note(1), 0);
                assert_eq!(s.note(150_000), 1);
                *s.note_mut(150_000) = 7;
                assert_eq!(s.note(150_000), 7);
                assert_eq!(
                    s.get(150_000),
                    state(150_000 - 2 + 5, 149_998 % 7).as_slice()
                );
                if indexed {
                    assert_eq!(s.find(&state(3, 4)), Some(1));
                    assert_eq!(s.find(&state(2, 2)), None);
                }
            }
        }
    }

    #[test]
    fn accounts_every_allocation_and_plans_growth() {
        let mut s: Store = Store::new(2);
        let mut room = Room {
            states: u64::MAX,
            bytes: 3 << 20,
        };
        let mut n = 0u64;
        let full = loop {
            room.bytes = (3u64 << 20).saturating_sub(s.bytes());
            match s.insert(&[n, n * 3], 0, || room) {
                Ok(Insert::New(_)) => n += 1,
                Ok(Insert::Old(_)) => unreachable!("every state is new"),
                Err(f) => break f,
            }
        };
        assert_eq!(full, Full::Memory);
        // The store stopped within its room, and near it: one shard or
        // one chunk short at most.
        assert!(s.bytes() <= 3 << 20, "{}", s.bytes());
        assert!(s.bytes() > 2 << 20, "{}", s.bytes());
        // What it counts is what it holds.
        let chunks: usize = s
            .chunks
            .iter()
            .map(|c| c.states.capacity() * 8 + c.notes.capacity() * 4)
            .sum();
        let table: usize = match &s.table {
            Table::Narrow(t) => t.iter().map(HashTable::allocation_size).sum(),
            Table::Wide(t) => t.iter().map(HashTable::allocation_size).sum(),
        };
        assert_eq!(s.bytes(), (chunks + table) as u64);
        assert_eq!(s.len() as u64, n);
        // A state limit stops a new state, never a known one.
        let none = Room {
            states: 0,
            bytes: u64::MAX,
        };
        assert_eq!(s.insert(&[0, 0], 0, || none), Ok(Insert::Old(Some(0))));
        assert_eq!(s.insert(&[0, 1], 0, || none), Err(Full::States));
    }

    #[test]
    fn clear_keeps_the_memory() {
        let mut s: Store<bool> = Store::indexed(1);
        for k in 0..100_000u64 {
            s.insert(&[k], true, || Room::UNLIMITED).unwrap();
        }
        let bytes = s.bytes();
        s.clear();
        assert_eq!((s.len(), s.bytes()), (0, bytes));
        assert_eq!(
            s.insert(&[5], false, || Room::UNLIMITED),
            Ok(Insert::New(0))
        );
        assert!(!s.note(0));
        for k in 0..100_000u64 {
            s.insert(&[k], true, || Room::UNLIMITED).unwrap();
        }
        assert_eq!(s.bytes(), bytes, "refilling reuses what was kept");
    }
}
