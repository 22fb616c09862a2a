//! One representative per orbit: the least state, in the order of the
//! state vector, among the images of a state under the group.
//!
//! Rotations: the least of the n rotations. Full symmetry: the copies are
//! sorted by a key that no permutation changes (a copy's own slots and
//! elements, with identities written as "me" or "another", and which of
//! the other slots of identities name it); the least image puts the keys in
//! order, so only the orders of copies with equal keys remain to try. Where
//! identities are held only outside the copies' slots and elements, copies
//! with equal keys are interchangeable and sorting alone is the least
//! image (Ip and Dill's normalisation is exact there). Elsewhere the ties
//! are tried, up to [`TIES`] orders; past that the sorted order is kept, a
//! representative that is not always the same for the whole orbit (sound:
//! an orbit may be stored more than once).

use super::{Kind, Symmetry};

/// The most orders of tied copies tried per state.
pub const TIES: usize = 5040;

/// Whether every order of ties among `n` copies is tried (there are at
/// most n! of them).
pub fn all_tried(n: usize) -> bool {
    (1..=n)
        .try_fold(1usize, |p, f| p.checked_mul(f))
        .is_some_and(|orders| orders <= TIES)
}

/// Buffers reused from state to state.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    keys: Vec<i64>,
    order: Vec<usize>,
    sigma: Vec<usize>,
    best_sigma: Vec<usize>,
    cand: Vec<i64>,
}

/// `v`, an identity of type `o`, as copy `i` sees it: itself, another
/// copy, or a value no permutation changes.
fn relative(v: i64, o: i64, i: usize, n: usize) -> i64 {
    match v.checked_sub(o) {
        Some(j) if j == i as i64 => i64::MIN,
        Some(j) if (0..n as i64).contains(&j) => i64::MIN + 1,
        _ => v,
    }
}

impl Symmetry {
    /// Writes the representative of `s`'s orbit to `out` and returns the
    /// permutation σ with `out = σ(s)`.
    pub fn canonical<'x>(&self, s: &[i64], out: &mut Vec<i64>, x: &'x mut Scratch) -> &'x [usize] {
        match self.kind {
            Kind::Rotation => self.least_rotation(s, out, x),
            Kind::Full => self.least_sorted(s, out, x),
        }
        &x.best_sigma
    }

    fn least_rotation(&self, s: &[i64], out: &mut Vec<i64>, x: &mut Scratch) {
        let n = self.n;
        x.best_sigma.clear();
        for r in 0..n {
            x.sigma.clear();
            x.sigma.extend((0..n).map(|i| (i + r) % n));
            self.apply(&x.sigma, s, &mut x.cand);
            if r == 0 || x.cand < *out {
                std::mem::swap(out, &mut x.cand);
                x.best_sigma.clone_from(&x.sigma);
            }
        }
    }

    /// Fills `x.keys` with each copy's key, `k` words apiece.
    fn keys(&self, s: &[i64], x: &mut Scratch) -> usize {
        let n = self.n;
        x.keys.clear();
        for i in 0..n {
            for (k, &slot) in self.blocks[i].iter().enumerate() {
                let v = s[slot as usize];
                x.keys.push(match self.block_ids[k] {
                    Some(o) => relative(v, o, i, n),
                    None => v,
                });
            }
            for (a, &(base, _, o)) in self.arrays.iter().enumerate() {
                let v = s[(i64::from(base) + o + i as i64) as usize];
                x.keys.push(match self.array_ids[a] {
                    Some(eo) => relative(v, eo, i, n),
                    None => v,
                });
            }
            for &(slot, o) in &self.free {
                x.keys.push(i64::from(s[slot as usize] == o + i as i64));
            }
        }
        x.keys.len() / n
    }

    fn least_sorted(&self, s: &[i64], out: &mut Vec<i64>, x: &mut Scratch) {
        let n = self.n;
        let k = self.keys(s, x);
        x.order.clear();
        x.order.extend(0..n);
        let keys = std::mem::take(&mut x.keys);
        let key = |i: usize| &keys[i * k..(i + 1) * k];
        x.order.sort_by(|&a, &b| key(a).cmp(key(b)));
        let runs: Vec<(usize, usize)> = match self.simple {
            true => Vec::new(),
            false => ties(&x.order, key),
        };
        x.keys = keys;
        let tries = runs
            .iter()
            .try_fold(1usize, |acc, &(a, b)| {
                (1..=b - a).try_fold(acc, |p, f| p.checked_mul(f))
            })
            .filter(|&t| t <= TIES);
        x.best_sigma.clear();
        let mut first = true;
        loop {
            x.sigma.resize(n, 0);
            for (pos, &i) in x.order.iter().enumerate() {
                x.sigma[i] = pos;
            }
            self.apply(&x.sigma, s, &mut x.cand);
            if first || x.cand < *out {
                std::mem::swap(out, &mut x.cand);
                x.best_sigma.clone_from(&x.sigma);
            }
            first = false;
            if tries.is_none() || !advance(&mut x.order, &runs) {
                break;
            }
        }
    }
}

/// The runs of equal keys in `order`, as `(start, end)` of two or more.
fn ties<'k>(order: &[usize], key: impl Fn(usize) -> &'k [i64]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut a = 0;
    while a < order.len() {
        let mut b = a + 1;
        while b < order.len() && key(order[b]) == key(order[a]) {
            b += 1;
        }
        if b - a > 1 {
            runs.push((a, b));
        }
        a = b;
    }
    runs
}

/// The next order of the copies within the runs, as an odometer of
/// lexicographic permutations; false after the last.
fn advance(order: &mut [usize], runs: &[(usize, usize)]) -> bool {
    for &(a, b) in runs {
        if next_permutation(&mut order[a..b]) {
            return true;
        }
    }
    false
}

/// The next permutation in lexicographic order; false (and the slice
/// sorted again) after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        v.reverse();
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap_or(i);
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_come_in_order_and_wrap() {
        let mut v = vec![0, 1, 2];
        let mut seen = vec![v.clone()];
        while next_permutation(&mut v) {
            seen.push(v.clone());
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(v, vec![0, 1, 2]);
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
    }
}
