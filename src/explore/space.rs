//! What the search core explores: a state space of fixed-width states,
//! after LTSmin's separation of the language from the algorithms. A
//! model's states are one space; certify's states of the system with q
//! and phase bits (see `certify::exhaustive`) are another, searched by the
//! same core.

use super::search::{Expand, replay};
use super::{Problem, Step};
use crate::model::{Layout, LockMisuse, Model};

/// A state space: its initial state, how its states pack into words, and
/// what the safety search asks of a model's states besides its visitor.
pub trait Space: Sync {
    /// How states pack into words.
    fn layout(&self) -> &Layout;
    /// Slots of an unpacked state.
    fn slots(&self) -> usize {
        self.init().len()
    }
    /// The initial state.
    fn init(&self) -> &[i64];
    /// Whether a state without successors is a final state, not a deadlock.
    fn ended(&self, s: &[i64]) -> bool;
    /// Misuses of locks in `s`, which the search counts and goes on.
    fn misuses(&self, _s: &[i64], _out: &mut Vec<(LockMisuse, String)>) {}
    /// The steps from the initial state that take, at each state, the
    /// successor `exp` emits at index `seqs[i]`, then the transitions
    /// `tail`: a counterexample's trace, of the system, and its `problem`
    /// as the system has it (where the space's states are not the
    /// system's, see `symmetric.rs`).
    fn trace<E: Expand>(
        &self,
        exp: &mut E,
        seqs: &[u32],
        tail: Vec<u32>,
        problem: &mut Problem,
    ) -> Vec<Step>;
}

/// A space whose states are a model's: the model itself, or the
/// representatives of its orbits (see `symmetric.rs`). The safety check's
/// visitors judge the model's initial state.
pub(crate) trait Modelled: Space {
    /// The model.
    fn model(&self) -> &Model;
}

impl Modelled for Model {
    fn model(&self) -> &Model {
        self
    }
}

impl Space for Model {
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn init(&self) -> &[i64] {
        &self.init
    }
    fn ended(&self, s: &[i64]) -> bool {
        self.all_ended(s)
    }
    fn misuses(&self, s: &[i64], out: &mut Vec<(LockMisuse, String)>) {
        self.lock_misuses(s, out);
    }
    fn trace<E: Expand>(
        &self,
        exp: &mut E,
        seqs: &[u32],
        tail: Vec<u32>,
        _: &mut Problem,
    ) -> Vec<Step> {
        let (_, mut segments) = super::parallel::follow(self, exp, seqs);
        if !tail.is_empty() {
            segments.push(tail);
        }
        replay(self, &segments)
    }
}
