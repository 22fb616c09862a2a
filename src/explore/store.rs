//! The set of visited states: packed states in one flat arena, interned by a
//! hash table of indices, with a parent link per state for shortest traces.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// Visited states, numbered in insertion (breadth-first) order.
pub struct Store {
    words: usize,
    arena: Vec<u64>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
    parents: Vec<u32>,
}

impl Store {
    /// An empty store for states of `words` words.
    pub fn new(words: usize) -> Store {
        Store {
            words,
            arena: Vec::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            parents: Vec::new(),
        }
    }

    /// Inserts a packed state reached from `parent`; returns its id and
    /// whether it is new. The first insertion is the root.
    pub fn insert(&mut self, packed: &[u64], parent: u32) -> (u32, bool) {
        let hash = self.hasher.hash_one(packed);
        let (words, arena) = (self.words, &self.arena);
        let eq = |&id: &u32| &arena[id as usize * words..(id as usize + 1) * words] == packed;
        if let Some(&id) = self.table.find(hash, eq) {
            return (id, false);
        }
        let id = self.parents.len() as u32;
        self.arena.extend_from_slice(packed);
        self.parents.push(parent);
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table.insert_unique(hash, id, |&k| {
            hasher.hash_one(&arena[k as usize * words..(k as usize + 1) * words])
        });
        (id, true)
    }

    /// The id of a packed state, if it is stored.
    pub fn find(&self, packed: &[u64]) -> Option<u32> {
        let hash = self.hasher.hash_one(packed);
        let (words, arena) = (self.words, &self.arena);
        self.table
            .find(hash, |&id| &arena[id as usize * words..(id as usize + 1) * words] == packed)
            .copied()
    }

    /// The packed state `id`.
    pub fn get(&self, id: u32) -> &[u64] {
        &self.arena[id as usize * self.words..(id as usize + 1) * self.words]
    }

    /// The state `id` was first reached from (the root is its own parent).
    pub fn parent(&self, id: u32) -> u32 {
        self.parents[id as usize]
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// True when no state has been inserted.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Bytes allocated for the states, the table and the parent links.
    pub fn bytes(&self) -> usize {
        self.arena.capacity() * 8 + self.table.capacity() * (4 + 1) + self.parents.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_numbers_in_order() {
        let mut s = Store::new(2);
        assert_eq!(s.insert(&[1, 2], 0), (0, true));
        assert_eq!(s.insert(&[3, 4], 0), (1, true));
        assert_eq!(s.insert(&[1, 2], 1), (0, false));
        for k in 0..10_000u64 {
            s.insert(&[k, k * 7], 1);
        }
        assert_eq!(s.len(), 10_000 + 2);
        assert_eq!(s.get(1), &[3, 4]);
        assert_eq!(s.parent(1), 0);
    }
}
