//! What the search does with each state and edge besides storing it: a
//! visitor, in the manner of stateright's checker. The safety check needs
//! none (`()`); the temporal properties' graph ([`super::liveness`]) records
//! what its atoms say of every state and every edge with the id of its
//! target, so the graph is built by the same search, on every worker.
//!
//! The search numbers states exactly as a sequential breadth-first search
//! does (see [`super::parallel`]), so the graph does not depend on the
//! number of workers. Where a visitor asks for edges, the search keeps a
//! map from states to ids in place of its visited set: a successor found
//! there gives its edge's target at once; one that is not (it is new, or
//! pending for the next level) is kept as the search keeps states (its
//! words, or its fingerprint under `--hash-compact`) and resolved once the
//! next level is numbered.

use super::Problem;
use super::budget::{Budget, Halt};
use super::space::Modelled;
use super::table::{Pending, SHARDS, shard_of};
use crate::model::Model;

/// What a search of space `S` does with each expanded state (and each
/// edge, where [`Visit::EDGES`]).
pub trait Visit<S: ?Sized = Model>: Sync {
    /// Whether every edge is recorded with its target's id. The search
    /// then numbers states in a map, which `--bitstate` does not keep: its
    /// callers refuse that store first (see `liveness::ltl_refusal`).
    const EDGES: bool;
    /// Whether every edge is recorded with its whole path of transitions
    /// (a reduced step's), not only the first (with [`Visit::EDGES`]).
    const PATHS: bool = false;
    /// What it records of a block's states, in id order.
    type Record: Default + Send;
    /// What is wrong with the initial state `s`, before anything is
    /// expanded (the safety check's invariants and exclusive access).
    fn initial(&self, space: &S, s: &[i64]) -> Option<Problem>;
    /// Records state `s`, numbered `id`, before it is expanded.
    fn state(&self, id: u32, s: &[i64], record: &mut Self::Record);
    /// Takes a block's records and edges; blocks come in id order, each
    /// once the next level is numbered.
    fn absorb(
        &mut self,
        record: Self::Record,
        edges: &Edges,
        budget: &mut Budget,
    ) -> Result<(), Halt>;
    /// Bytes it holds.
    fn bytes(&self) -> u64;
}

/// The safety check: nothing besides the visited set.
impl<S: Modelled> Visit<S> for () {
    const EDGES: bool = false;
    type Record = ();
    fn initial(&self, space: &S, _: &[i64]) -> Option<Problem> {
        let model = space.model();
        super::search::check_state(model, &model.init)
    }
    fn state(&self, _: u32, _: &[i64], _: &mut ()) {}
    fn absorb(&mut self, _: (), _: &Edges, _: &mut Budget) -> Result<(), Halt> {
        Ok(())
    }
    fn bytes(&self) -> u64 {
        0
    }
}

/// A block's edges: per state, how many it has; per edge, the transition
/// it begins with and its target's id.
#[derive(Default)]
pub struct Edges {
    /// Per state of the block, in order: its number of edges.
    pub degree: Vec<u32>,
    /// Per edge: the first transition of its path.
    pub transition: Vec<u32>,
    /// Per edge: the id of its target (once resolved).
    pub target: Vec<u32>,
    /// Where [`Visit::PATHS`]: the transitions of every edge whose path
    /// takes more than one, one path after another, and per such edge, by
    /// edge: the edge and where its path ends (see [`Edges::path`]).
    steps: Vec<u32>,
    long: Vec<(u32, u32)>,
    /// The edges whose target was not numbered when it was looked up, with
    /// the hash of what the search keeps of the target, and those words.
    unresolved: Vec<u32>,
    hashes: Vec<u64>,
    kept: Vec<u64>,
}

impl Edges {
    /// An edge by `path`, its target to be looked up; its whole path kept
    /// where `whole`.
    #[inline]
    pub(super) fn push(&mut self, path: &[u32], whole: bool) {
        if whole && path.len() > 1 {
            self.steps.extend_from_slice(path);
            self.long
                .push((self.transition.len() as u32, self.steps.len() as u32));
        }
        self.transition.push(path[0]);
        self.target.push(u32::MAX);
    }

    /// The transitions of edge `e`'s path (where [`Visit::PATHS`]; else
    /// its first).
    pub fn path(&self, e: usize) -> &[u32] {
        match self.long.binary_search_by_key(&(e as u32), |l| l.0) {
            Ok(i) => {
                let start = if i == 0 { 0 } else { self.long[i - 1].1 };
                &self.steps[start as usize..self.long[i].1 as usize]
            }
            Err(_) => std::slice::from_ref(&self.transition[e]),
        }
    }

    /// The edges whose path takes more than one transition, by edge.
    pub fn long_paths(&self) -> impl Iterator<Item = (usize, &[u32])> {
        self.long
            .iter()
            .map(|&(e, _)| (e as usize, self.path(e as usize)))
    }

    /// Edge `e` leads to a state not numbered yet, kept as `kept` (hash `h`).
    #[inline]
    pub(super) fn later(&mut self, e: usize, h: u64, kept: &[u64]) {
        self.unresolved.push(e as u32);
        self.hashes.push(h);
        self.kept.extend_from_slice(kept);
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        let fours = self.degree.capacity()
            + self.transition.capacity()
            + self.target.capacity()
            + self.steps.capacity()
            + 2 * self.long.capacity()
            + self.unresolved.capacity();
        (fours * 4 + (self.hashes.capacity() + self.kept.capacity()) * 8) as u64
    }

    /// The ids of the targets not numbered when they were looked up, from
    /// the map of states to ids, which holds them all once the next level
    /// is numbered.
    pub(super) fn resolve(&mut self, ids: &Ids) {
        let fw = self.kept.len() / self.hashes.len().max(1);
        let words = self.kept.chunks_exact(fw.max(1));
        for ((&e, &h), w) in self.unresolved.iter().zip(&self.hashes).zip(words) {
            self.target[e as usize] = ids.get(h, w).expect("every target is numbered");
        }
        self.unresolved = Vec::new();
        self.hashes = Vec::new();
        self.kept = Vec::new();
    }
}

/// The map from states (what the search keeps of them) to ids, in the
/// search's shards: the workers that number a level each fill their own
/// shards, and the edges are resolved by reading it on every worker.
pub(super) struct Ids {
    shards: Vec<Pending>,
    /// `--hash-compact`: states are kept as their fingerprints.
    pub(super) compact: bool,
}

impl Ids {
    /// An empty map of states kept as `fw` words (fingerprints where
    /// `compact`); none where `on` is false.
    pub(super) fn new(fw: usize, compact: bool, on: bool) -> Ids {
        let n = if on { SHARDS } else { 0 };
        Ids {
            shards: (0..n).map(|_| Pending::new(fw, 0)).collect(),
            compact,
        }
    }

    /// Whether the map is kept.
    pub(super) fn on(&self) -> bool {
        !self.shards.is_empty()
    }

    /// Numbers state `kept` (hash `h`) `id`.
    pub(super) fn insert(&mut self, h: u64, kept: &[u64], id: u32) {
        self.shards[shard_of(h)].offer(h, kept, u64::from(id), &[]);
    }

    /// The shards, `per` to a worker (as the search's shards are).
    pub(super) fn chunks(&mut self, per: usize) -> impl Iterator<Item = &mut [Pending]> {
        let empty = self.shards.is_empty();
        let mut chunks = self.shards.chunks_mut(per.max(1));
        std::iter::from_fn(move || match empty {
            true => Some(&mut [][..]),
            false => chunks.next(),
        })
    }

    /// The id of state `kept` (hash `h`), if it is numbered.
    #[inline]
    pub(super) fn get(&self, h: u64, kept: &[u64]) -> Option<u32> {
        self.shards[shard_of(h)].get(h, kept).map(|id| id as u32)
    }

    /// See [`Pending::prefetch`].
    #[inline]
    pub(super) fn prefetch(&self, h: u64) {
        self.shards[shard_of(h)].prefetch(h);
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        self.shards.iter().map(Pending::bytes).sum()
    }
}
