//! Frames of the movers obligations: a frame of the model's slots and q
//! ([`Frame`]), crossed with the phase bits of the threads involved.

use super::system::{MState, MSys};
use crate::certify::frame::Frame;

/// A frame with phase bits.
#[derive(Clone, Debug)]
pub struct MFrame {
    /// The model's slots and q.
    pub frame: Frame,
    /// The threads whose phase bit is enumerated, with the values it takes.
    /// Other threads' phase bits are clear.
    pub phases: Vec<(usize, Vec<bool>)>,
}

/// Both values of a phase bit.
pub const BOTH: [bool; 2] = [false, true];

impl MFrame {
    /// Valuations, phase bits and q included (saturating).
    pub fn size(&self) -> u128 {
        self.phases.iter().fold(self.frame.size(), |n, (_, v)| {
            n.saturating_mul(v.len() as u128)
        })
    }

    /// The state of valuation `index` (below [`MFrame::size`], which must
    /// fit in a `u64`), written into `m`.
    pub fn state_into(&self, msys: &MSys, index: u64, m: &mut MState) {
        let size = self.frame.size() as u64;
        self.frame
            .state_into(&msys.sys.model.init, index % size, &mut m.st);
        let mut rest = index / size;
        m.ph.clear();
        m.ph.resize(msys.threads(), false);
        for (t, values) in &self.phases {
            let n = values.len() as u64;
            m.ph[*t] = values[(rest % n) as usize];
            rest /= n;
        }
    }

    /// The index of the valuation `m` projects to, if it lies in the frame.
    pub fn index(&self, m: &MState) -> Option<u64> {
        let mut index = self.frame.index(&m.st)?;
        let mut weight = self.frame.size() as u64;
        for (t, values) in &self.phases {
            let pos = values.iter().position(|&b| b == m.ph[*t])? as u64;
            index += pos * weight;
            weight *= values.len() as u64;
        }
        // Phase bits outside the frame are clear in its valuations.
        let listed = |t: usize| self.phases.iter().any(|(u, _)| *u == t);
        if (0..m.ph.len()).any(|t| m.ph[t] && !listed(t)) {
            return None;
        }
        Some(index)
    }

    /// Whether the instance of this frame applies at `m`: its slots, q and
    /// listed phase bits take values of the frame (phase bits not listed
    /// may be anything: they influence nothing the instance checks).
    pub fn covers(&self, m: &MState) -> bool {
        self.frame.index(&m.st).is_some() && self.phases.iter().all(|(t, v)| v.contains(&m.ph[*t]))
    }

    /// The projection of `m` onto the frame, as a key, written into `key`.
    pub fn project_into(&self, m: &MState, key: &mut Vec<i64>) {
        self.frame.project_into(&m.st, key);
        key.extend(self.phases.iter().map(|(t, _)| i64::from(m.ph[*t])));
    }

    /// Whether valuation `m` stands for a state that may occur: what
    /// [`Frame::admits`] requires of its slots and q (the locksets, and
    /// normalisation).
    pub fn admits(&self, msys: &MSys, m: &mut MState) -> bool {
        self.frame.admits(msys.sys, &mut m.st)
    }
}
