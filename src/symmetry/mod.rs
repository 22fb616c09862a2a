//! Symmetry reduction: the copies of one thread body that refer to one
//! another only through their identities are interchangeable, and the
//! search stores one state per orbit of their permutations (Ip and Dill,
//! "Better verification through symmetry", 1996; Clarke, Enders, Filkorn
//! and Jha, "Exploiting symmetry in temporal logic model checking", 1996;
//! Emerson and Sistla, "Symmetry and model checking", 1996).
//!
//! A permutation σ of the copies acts on a state (see [`Symmetry::apply`]):
//! copy i's program counter and locals move to copy σ(i)'s, the element of
//! a shared array that belongs to copy i (`flag[self]`) moves to σ(i)'s,
//! and every slot that holds a copy's identity (a lock's owner, `turn`)
//! has its value renamed. The symmetry is found in two steps:
//!
//! - [`infer`]: which slots hold identities and which arrays are indexed by
//!   them, read off the code of the first two copies side by side (a
//!   constant that is 0 in one and 1 in the other is `self`);
//! - [`verify`]: that the generators of the group (a swap and a rotation
//!   of the copies, or the rotation alone) map the model onto itself:
//!   every transition onto its image's, every exclusive access predicate
//!   and every invariant onto itself. Inference is a guess; this is the
//!   check, and where it fails it names the line.
//!
//! [`canon`] computes one representative of a state's orbit.

mod canon;
mod infer;
mod types;
mod verify;

pub use canon::Scratch;
pub(crate) use types::Typing;

use crate::model::Model;
use crate::syntax::span::Span;

/// Which permutations of the copies map the model onto itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every permutation: the copies are fully interchangeable (Murphi's
    /// scalarsets).
    Full,
    /// The rotations only: copy i refers to copy i + 1 (a ring).
    Rotation,
}

impl Kind {
    /// The word used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Full => "full",
            Kind::Rotation => "rotation",
        }
    }
}

/// What a slot holds, as far as the copies' permutations go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A value that no permutation changes.
    Plain,
    /// A copy's identity: `o + i` stands for copy i (`o` is the first
    /// copy's thread id for `self`, 0 for `index`).
    Ids(i64),
}

/// The symmetry of a model: a group of copies of one thread body and how
/// its permutations act on states.
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// Full symmetry or rotations.
    pub kind: Kind,
    /// The first copy's thread id.
    pub first: usize,
    /// How many copies.
    pub n: usize,
    /// The copies, as `teller0..teller1`.
    pub threads: String,
    /// Whether every state's representative is the least of its orbit
    /// (else, past [`canon::TIES`] candidates, a heuristic that may keep
    /// more than one state per orbit: sound, not minimal).
    pub exact: bool,
    /// Per copy: the slots it owns (its program counter, then its locals
    /// and frames), aligned.
    pub(crate) blocks: Vec<Vec<u32>>,
    /// Shared arrays indexed by copies: `(base, len, o)`, element `o + i`
    /// belongs to copy i.
    pub(crate) arrays: Vec<(u32, u32, i64)>,
    /// Every slot that holds identities, with its `o`.
    pub(crate) ids: Vec<(u32, i64)>,
    /// Of `ids`, those neither owned by a copy nor an element of an
    /// indexed array, with its `o`.
    free: Vec<(u32, i64)>,
    /// Per slot of a block: its `o`, where it holds identities.
    block_ids: Vec<Option<i64>>,
    /// Per indexed array: its elements' `o`, where they hold identities.
    array_ids: Vec<Option<i64>>,
    /// Whether identities are held only in `free` slots: then sorting the
    /// copies is already the least representative.
    simple: bool,
    /// Whether each copy owns its element of the channel arrays with one
    /// per copy (they are in `blocks`).
    pub(crate) channels: bool,
    /// Per copy: its first transition; every copy has `per` of them.
    pub(crate) starts: Vec<usize>,
    pub(crate) per: usize,
}

/// Why a group of copies is not (fully) symmetric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The copies, as `teller0..teller1`.
    pub threads: String,
    /// The symmetry that is lost (full, or even rotation).
    pub lost: Kind,
    /// What breaks it, in words.
    pub why: String,
    /// The statement or declaration, with its 1-based line.
    pub place: Option<(Span, usize)>,
}

/// What symmetry detection found in a model.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The symmetry used, if any.
    pub symmetry: Option<Symmetry>,
    /// What breaks the symmetry of each group of copies: full symmetry
    /// where only rotations remain, or both.
    pub broken: Vec<Broken>,
    /// Per temporal property of the model (as `Model::ltl`), under the
    /// symmetry used: the atom that tells its copies apart, if one does.
    pub temporal: Vec<Option<Broken>>,
}

/// Finds the symmetry of `model`: the first group of copies of one body
/// that is fully symmetric or a ring, and what breaks the others.
pub fn detect(model: &Model) -> Analysis {
    let mut out = Analysis::default();
    for (first, n) in groups(model) {
        let names = format!(
            "{}..{}",
            model.threads[first].name,
            model.threads[first + n - 1].name
        );
        let broken = |lost, (why, place)| Broken {
            threads: names.clone(),
            lost,
            why,
            place,
        };
        if let Some(why) = unsupported(model) {
            out.broken.push(broken(Kind::Rotation, (why, None)));
            continue;
        }
        let shape = match group_shape(model, first, n) {
            Ok(shape) => shape,
            Err(e) => {
                out.broken.push(broken(Kind::Rotation, e));
                continue;
            }
        };
        let kind = match verify::generator(model, &shape, &swap(n), Kind::Full) {
            Ok(()) => Kind::Full,
            Err(e) => {
                out.broken.push(broken(Kind::Full, e));
                Kind::Rotation
            }
        };
        if out.symmetry.is_none() {
            out.temporal = (model.ltl.iter())
                .map(|p| {
                    temporal(model, &shape, kind, p)
                        .err()
                        .map(|e| broken(kind, e))
                })
                .collect();
            out.symmetry = Some(Symmetry {
                threads: names.clone(),
                ..shape.symmetry(kind)
            });
        }
    }
    out
}

/// The shape of the copies from `first` whose rotation maps the model
/// onto itself: with each copy owning its channels (`ring[index]`) where
/// the model has channels and that works, else without.
fn group_shape(model: &Model, first: usize, n: usize) -> Result<infer::Shape, infer::Why> {
    let mut why = None;
    for channels in [true, false] {
        if channels && model.channels.is_empty() {
            continue;
        }
        let shape = infer::Shape::of(model, first, n, channels)?;
        match verify::generator(model, &shape, &rotate(n), Kind::Rotation) {
            Ok(()) => return Ok(shape),
            Err(e) => why = why.or(Some(e)),
        }
    }
    Err(why.expect("one shape was tried"))
}

/// Whether the generators of `kind` map every atom of `p` onto itself.
fn temporal(
    model: &Model,
    shape: &infer::Shape,
    kind: Kind,
    p: &crate::model::LtlProperty,
) -> Result<(), infer::Why> {
    let n = shape.n;
    verify::atoms(model, shape, &rotate(n), Kind::Rotation, p)?;
    match kind {
        Kind::Full => verify::atoms(model, shape, &swap(n), Kind::Full, p),
        Kind::Rotation => Ok(()),
    }
}

/// Why no symmetry is looked for in `model`, if a feature keeps it out.
fn unsupported(model: &Model) -> Option<String> {
    let rendezvous =
        (model.transitions.iter()).any(|t| t.chan.as_ref().is_some_and(|c| c.partner.is_some()));
    let why = if rendezvous {
        "a rendezvous moves two threads in one step, which symmetry does not permute yet"
    } else if model.timeout.is_some() {
        "the model waits for `timeout`"
    } else if model.threads.iter().any(|t| t.dormant.is_some()) {
        "threads are created by `run`"
    } else {
        return None;
    };
    Some(why.into())
}

/// The groups of copies: runs of at least two threads that run one body.
fn groups(model: &Model) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut t = 0;
    while t < model.threads.len() {
        // Spans compare equal whatever their place: compare the places.
        let body = |th: &crate::model::Thread| (th.body.start, th.body.end);
        let n = model.threads[t..]
            .iter()
            .take_while(|th| body(th) == body(&model.threads[t]))
            .count();
        if n >= 2 {
            out.push((t, n));
        }
        t += n;
    }
    out
}

/// The rotation i -> i + 1 of n copies.
fn rotate(n: usize) -> Vec<usize> {
    (0..n).map(|i| (i + 1) % n).collect()
}

/// The swap of copies 0 and 1 (with the rotation, it generates every
/// permutation).
fn swap(n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    p.swap(0, 1);
    p
}

/// The symmetry a search used, as reports name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Used {
    /// Full symmetry or rotations.
    pub kind: Kind,
    /// The copies, as `teller0..teller1`.
    pub threads: String,
    /// How many copies.
    pub copies: usize,
    /// Whether each orbit is stored once (see [`Symmetry::exact`]).
    pub exact: bool,
}

impl Symmetry {
    /// What reports say of it.
    pub fn used(&self) -> Used {
        Used {
            kind: self.kind,
            threads: self.threads.clone(),
            copies: self.n,
            exact: self.exact,
        }
    }

    /// The thread that thread `t` becomes under σ (copies only move).
    pub fn thread(&self, sigma: &[usize], t: usize) -> usize {
        match t.checked_sub(self.first) {
            Some(i) if i < self.n => self.first + sigma[i],
            _ => t,
        }
    }

    /// The transition that transition `k` becomes under σ: the same of the
    /// copy it moves to.
    pub fn transition(&self, sigma: &[usize], k: usize) -> usize {
        let copy = self
            .starts
            .iter()
            .position(|&s| (s..s + self.per).contains(&k));
        match copy {
            Some(i) => k - self.starts[i] + self.starts[sigma[i]],
            None => k,
        }
    }

    /// The slot that `slot` moves to under σ.
    pub fn slot(&self, sigma: &[usize], slot: u32) -> u32 {
        for (i, block) in self.blocks.iter().enumerate() {
            if let Some(k) = block.iter().position(|&s| s == slot) {
                return self.blocks[sigma[i]][k];
            }
        }
        for &(base, len, o) in &self.arrays {
            let j = i64::from(slot) - i64::from(base) - o;
            if (base..base + len).contains(&slot) && (0..self.n as i64).contains(&j) {
                return (i64::from(base) + o + sigma[j as usize] as i64) as u32;
            }
        }
        slot
    }

    /// `out := σ(s)`: the copies' blocks and elements moved, identities
    /// renamed.
    pub fn apply(&self, sigma: &[usize], s: &[i64], out: &mut Vec<i64>) {
        out.clear();
        out.extend_from_slice(s);
        for (i, block) in self.blocks.iter().enumerate() {
            for (k, &slot) in block.iter().enumerate() {
                out[self.blocks[sigma[i]][k] as usize] = s[slot as usize];
            }
        }
        for &(base, len, o) in &self.arrays {
            for (i, &j) in sigma.iter().enumerate() {
                let (from, to) = (o + i as i64, o + j as i64);
                if from < i64::from(len) && to < i64::from(len) {
                    out[(i64::from(base) + to) as usize] = s[(i64::from(base) + from) as usize];
                }
            }
        }
        for &(slot, o) in &self.ids {
            let v = &mut out[slot as usize];
            if let Some(i) = v.checked_sub(o).filter(|i| (0..self.n as i64).contains(i)) {
                *v = o + sigma[i as usize] as i64;
            }
        }
    }

    /// The inverse of σ.
    pub fn inverse(sigma: &[usize]) -> Vec<usize> {
        let mut inv = vec![0; sigma.len()];
        for (i, &j) in sigma.iter().enumerate() {
            inv[j] = i;
        }
        inv
    }

    /// `a ∘ b`: first b, then a.
    pub fn compose(a: &[usize], b: &[usize]) -> Vec<usize> {
        b.iter().map(|&j| a[j]).collect()
    }
}

#[cfg(test)]
mod tests;
