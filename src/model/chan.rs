//! Channels: message queues between threads, laid out in the state as
//! ordinary shared slots.
//!
//! A channel of capacity K with fields f1..fn is a length slot and, per
//! field, K slots holding that field of the first, second, ... message.
//! A send appends (it is enabled while the length is below K); a receive
//! takes the first message and shifts the rest forward, writing each freed
//! slot back to its field's lowest value, so two states with the same
//! messages are the same state. Both are ordinary transitions `g -> c` over
//! shared slots, so every reduction sees what they read and write with no
//! rule of its own: a send or receive is an access to an unprotected
//! shared variable, hence visible in Stoller and Cohen's sense.
//!
//! A rendezvous channel (capacity 0) has no buffer: a send and a matching
//! receive of another thread are one step of the two threads together,
//! made at compile time into one transition of the sender that also moves
//! the receiver ([`ChanOp::partner`]). Such a transition writes another
//! thread's program counter and locals, which no reduction's argument
//! covers, so every reduction refuses models that have one.

use std::ops::Range;

use super::expr::{CExpr, NoAccess};
use super::{Model, SlotKind};
use crate::syntax::span::Span;

/// One channel (one element of a `chan` array).
#[derive(Clone, Debug)]
pub struct Channel {
    /// `c`, or `c[2]` for an element of an array.
    pub name: String,
    /// How many messages it holds; 0 for a rendezvous channel.
    pub capacity: u32,
    /// The slot of its length (always 0 for a rendezvous channel).
    pub len: u32,
    /// Per field: the slot of that field of its first message; the k-th
    /// message's field is `k` slots further.
    pub fields: Vec<u32>,
    /// Per field: the kind of value it carries.
    pub kinds: Vec<SlotKind>,
    /// The declaration.
    pub span: Span,
}

impl Channel {
    /// The messages in `s`, first to last, each as its field values.
    pub fn messages(&self, s: &[i64]) -> Vec<Vec<i64>> {
        let n = s[self.len as usize].clamp(0, i64::from(self.capacity)) as u32;
        (0..n)
            .map(|k| self.fields.iter().map(|&f| s[(f + k) as usize]).collect())
            .collect()
    }

    /// Its contents as the user writes messages: `[1, true; 2, false]`,
    /// `[]` when empty.
    pub fn show(&self, s: &[i64]) -> String {
        let shown: Vec<String> = self
            .messages(s)
            .iter()
            .map(|m| self.show_message(m))
            .collect();
        format!("[{}]", shown.join("; "))
    }

    /// One message, its fields as the user writes them: `1, true`.
    pub fn show_message(&self, m: &[i64]) -> String {
        let fields: Vec<String> = m
            .iter()
            .zip(&self.kinds)
            .map(|(&v, &k)| match k {
                SlotKind::Bool => (v != 0).to_string(),
                _ => v.to_string(),
            })
            .collect();
        fields.join(", ")
    }

    /// Every slot it occupies: its length, then its buffer.
    pub fn slots(&self) -> Vec<u32> {
        let mut out = vec![self.len];
        for &f in &self.fields {
            out.extend(f..f + self.capacity);
        }
        out
    }
}

/// Which way a channel transition moves a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `c ! ...`
    Send,
    /// `c ? ...`
    Receive,
}

/// What a transition does to a channel: which channel (one of a
/// declaration's elements, chosen by `index` in the state it leaves), which
/// way, and for a rendezvous the thread that takes part in the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChanOp {
    /// The channels of the declaration, as indices into `Model::channels`.
    pub chans: Range<u32>,
    /// Which of them, counted from `chans.start`.
    pub index: CExpr,
    /// Send or receive.
    pub dir: Dir,
    /// For a rendezvous step: the receiving thread, moved by the sender's
    /// transition.
    pub partner: Option<u32>,
}

impl ChanOp {
    /// The channel this operation uses in `s`, when its index is valid.
    pub fn channel<'m>(&self, model: &'m Model, s: &[i64]) -> Option<&'m Channel> {
        Some(&model.channels[self.channel_index(s)?])
    }

    /// The index in `Model::channels` of the channel it uses in `s`.
    pub fn channel_index(&self, s: &[i64]) -> Option<usize> {
        let k = self.index.eval(s, &mut Vec::new(), &mut NoAccess).ok()?;
        let n = i64::from(self.chans.end - self.chans.start);
        (0..n)
            .contains(&k)
            .then(|| (i64::from(self.chans.start) + k) as usize)
    }
}

/// What a slot is to the channels, for reports that show a channel whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanSlot {
    /// Not a channel's.
    None,
    /// The length of channel `c` (index into `Model::channels`): reports
    /// show the channel's messages here.
    Len(usize),
    /// Part of a channel's buffer: reports show it with the length.
    Buffer,
}

impl Model {
    /// Per slot, what it is to the channels.
    pub fn chan_slots(&self) -> Vec<ChanSlot> {
        let mut out = vec![ChanSlot::None; self.slots.len()];
        for (c, ch) in self.channels.iter().enumerate() {
            for k in ch.slots() {
                out[k as usize] = ChanSlot::Buffer;
            }
            out[ch.len as usize] = ChanSlot::Len(c);
        }
        out
    }
}
