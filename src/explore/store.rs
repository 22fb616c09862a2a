//! The set of visited states: packed states in one flat arena, interned by a
//! hash table of indices, with a parent link per state for shortest traces.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// Visited states, numbered in insertion (breadth-first) order.
pub struct Store {
    words: usize,
    arena: Vec<u64>,
    table: Table,
    hasher: DefaultHashBuilder,
    parents: Vec<u32>,
}

/// The search never needs the id of a state it meets again, only whether it
/// was seen, so a one-word state is kept in the table itself: one cache
/// miss per lookup instead of two (table, then arena).
enum Table {
    Narrow(HashTable<u64>),
    Wide(HashTable<u32>),
}

impl Store {
    /// An empty store for states of `words` words.
    pub fn new(words: usize) -> Store {
        Store {
            words,
            arena: Vec::new(),
            table: if words == 1 {
                Table::Narrow(HashTable::new())
            } else {
                Table::Wide(HashTable::new())
            },
            hasher: DefaultHashBuilder::default(),
            parents: Vec::new(),
        }
    }

    /// Inserts a packed state reached from `parent`; returns whether it is
    /// new. The first insertion is the root, state 0.
    pub fn insert(&mut self, packed: &[u64], parent: u32) -> bool {
        let hash = self.hasher.hash_one(packed);
        let (words, arena, hasher) = (self.words, &self.arena, &self.hasher);
        let new = match &mut self.table {
            Table::Narrow(t) => {
                let w = packed[0];
                if t.find(hash, |&k| k == w).is_some() {
                    false
                } else {
                    t.insert_unique(hash, w, |&k| hasher.hash_one([k].as_slice()));
                    true
                }
            }
            Table::Wide(t) => {
                let at = |id: u32| &arena[id as usize * words..(id as usize + 1) * words];
                if t.find(hash, |&id| at(id) == packed).is_some() {
                    false
                } else {
                    let id = self.parents.len() as u32;
                    t.insert_unique(hash, id, |&k| hasher.hash_one(at(k)));
                    true
                }
            }
        };
        if new {
            self.arena.extend_from_slice(packed);
            self.parents.push(parent);
        }
        new
    }

    /// True when the packed state is stored.
    pub fn contains(&self, packed: &[u64]) -> bool {
        let hash = self.hasher.hash_one(packed);
        match &self.table {
            Table::Narrow(t) => t.find(hash, |&k| k == packed[0]).is_some(),
            Table::Wide(t) => {
                let at =
                    |id: u32| &self.arena[id as usize * self.words..(id as usize + 1) * self.words];
                t.find(hash, |&id| at(id) == packed).is_some()
            }
        }
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

    /// Bytes allocated for the states, the table and the parent links.
    pub fn bytes(&self) -> usize {
        let table = match &self.table {
            Table::Narrow(t) => t.capacity() * (8 + 1),
            Table::Wide(t) => t.capacity() * (4 + 1),
        };
        self.arena.capacity() * 8 + table + self.parents.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_numbers_in_order() {
        for words in [1, 2] {
            let mut s = Store::new(words);
            let state = |a: u64, b: u64| {
                if words == 1 {
                    vec![a * 100 + b]
                } else {
                    vec![a, b]
                }
            };
            assert!(s.insert(&state(1, 2), 0));
            assert!(s.insert(&state(3, 4), 0));
            assert!(!s.insert(&state(1, 2), 1));
            for k in 0..10_000u64 {
                s.insert(&state(k + 5, k % 7), 1);
            }
            assert_eq!(s.len(), 10_000 + 2);
            assert_eq!(s.get(1), state(3, 4).as_slice());
            assert_eq!(s.parent(1), 0);
            assert!(s.contains(&state(9, 4)) && !s.contains(&state(2, 2)));
        }
    }
}
