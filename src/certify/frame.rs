//! Frames: the slots an obligation instance depends on, with the values
//! each may take, enumerated as a mixed-radix odometer.
//!
//! Slots outside the frame keep their initial values. They cannot change
//! the outcome: the frame holds every slot the transitions involved read or
//! write, every predicate the discipline evaluates for them, and every
//! predicate and invariant they may change.

use std::collections::BTreeSet;

use super::system::{QState, Sys};

/// Most valuations enumerated for one obligation instance (q included).
/// Above it the instance is reported as not checked.
pub const FRAME_BOUND: u64 = 1 << 20;

/// Whether q is part of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QMode {
    /// The obligation does not depend on q (it is false in the states tried).
    Absent,
    /// Only states with this value of q matter.
    Only(bool),
    /// Both values.
    Both,
}

/// The values a slot of a frame takes, ascending.
#[derive(Clone, Debug)]
pub enum Values {
    /// Every value of a range (not materialised: ranges may be huge).
    Range(i64, i64),
    /// The values listed.
    List(Vec<i64>),
}

impl Values {
    /// How many values (saturating).
    pub fn len(&self) -> u128 {
        match self {
            Values::Range(lo, hi) if hi < lo => 0,
            Values::Range(lo, hi) => (i128::from(*hi) - i128::from(*lo) + 1) as u128,
            Values::List(v) => v.len() as u128,
        }
    }

    /// The value at position `i`.
    fn get(&self, i: u64) -> i64 {
        match self {
            Values::Range(lo, _) => lo + i as i64,
            Values::List(v) => v[i as usize],
        }
    }

    /// The position of value `x`, if it is one.
    fn position(&self, x: i64) -> Option<u64> {
        match self {
            Values::Range(lo, hi) => (*lo..=*hi).contains(&x).then(|| (x - lo) as u64),
            Values::List(v) => v.binary_search(&x).ok().map(|p| p as u64),
        }
    }
}

/// The slots of an obligation instance and the values each takes.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The slots, ascending.
    pub slots: Vec<u32>,
    /// The values of each slot.
    pub values: Vec<Values>,
    /// Whether q is enumerated.
    pub q: QMode,
}

impl Frame {
    /// A frame over `slots`, where the slots in `fixed` take only the
    /// values listed (ascending) and every other slot its whole range.
    pub fn new(sys: &Sys, slots: BTreeSet<u32>, fixed: &[(u32, Vec<i64>)], q: QMode) -> Frame {
        let model = sys.model;
        let mut all = slots;
        all.extend(fixed.iter().map(|(s, _)| *s));
        let slots: Vec<u32> = all.into_iter().collect();
        let values = slots
            .iter()
            .map(|&s| match fixed.iter().find(|(f, _)| *f == s) {
                Some((_, v)) => Values::List(v.clone()),
                None if (s as usize) < model.threads.len() => {
                    Values::Range(0, model.threads[s as usize].end())
                }
                None => {
                    let (lo, hi) = model.bounds[s as usize];
                    Values::Range(lo, hi)
                }
            })
            .collect();
        Frame { slots, values, q }
    }

    /// Valuations of the frame, q included (saturating).
    pub fn size(&self) -> u128 {
        let q = if self.q == QMode::Both { 2 } else { 1 };
        self.values.iter().fold(q, |n, v| n.saturating_mul(v.len()))
    }

    /// The state of valuation `index` (below [`Frame::size`], which must fit
    /// in a `u64`), written into `st`: `base` with the frame's slots set
    /// (the enumeration of a frame's valuations reuses one state rather
    /// than allocate one per index).
    pub fn state_into(&self, base: &[i64], mut index: u64, st: &mut QState) {
        st.s.clear();
        st.s.extend_from_slice(base);
        for (k, &slot) in self.slots.iter().enumerate() {
            let n = self.values[k].len() as u64;
            st.s[slot as usize] = self.values[k].get(index % n);
            index /= n;
        }
        st.q = match self.q {
            QMode::Absent => false,
            QMode::Only(q) => q,
            QMode::Both => index % 2 == 1,
        };
    }

    /// The index of the valuation `st` projects to, if it lies in the frame
    /// (whose size must fit in a `u64`).
    pub fn index(&self, st: &QState) -> Option<u64> {
        let mut index = 0u64;
        let mut weight = 1u64;
        for (k, &slot) in self.slots.iter().enumerate() {
            let pos = self.values[k].position(st.s[slot as usize])?;
            index += pos * weight;
            weight *= self.values[k].len() as u64;
        }
        match self.q {
            QMode::Absent => {}
            QMode::Only(q) if q != st.q => return None,
            QMode::Only(_) => {}
            QMode::Both => index += u64::from(st.q) * weight,
        }
        Some(index)
    }

    /// The projection of `st` onto the frame, as a key, written into `key`.
    pub fn project_into(&self, st: &QState, key: &mut Vec<i64>) {
        key.clear();
        key.extend(self.slots.iter().map(|&s| st.s[s as usize]));
        if self.q != QMode::Absent {
            key.push(i64::from(st.q));
        }
    }
}

impl Frame {
    /// Whether the valuation `st` of the frame stands for a state that may
    /// occur: it agrees with the locksets, and it is normalised (q holds
    /// where the frame alone breaks `disjoint(ex)` or an invariant). Locks
    /// outside the frame are set to the owner the locksets require.
    /// Whether a reachable state projects onto it is the local level's
    /// business, the same for every theorem.
    pub fn admits(&self, sys: &Sys, st: &mut QState) -> bool {
        if !sys.locks.consistent(&mut st.s, &self.slots, sys.threads()) {
            return false;
        }
        !(self.q != QMode::Absent && !st.q && sys.bad_within(&st.s, &self.slots))
    }
}
