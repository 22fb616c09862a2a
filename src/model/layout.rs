//! Packing states into words: each slot takes just the bits its range needs.

/// Where each slot lives in a packed state.
#[derive(Clone, Debug)]
pub struct Layout {
    fields: Vec<Field>,
    words: usize,
    bits: usize,
}

#[derive(Clone, Copy, Debug)]
struct Field {
    word: usize,
    shift: u32,
    mask: u64,
    lo: i64,
}

impl Layout {
    /// A layout for slots with these `(lo, hi)` ranges. A slot never straddles
    /// two words, so unpacking is one shift and one mask.
    pub fn new(bounds: &[(i64, i64)]) -> Layout {
        let mut fields = Vec::with_capacity(bounds.len());
        let (mut word, mut used, mut bits) = (0usize, 0u32, 0usize);
        for &(lo, hi) in bounds {
            let span = hi.abs_diff(lo);
            let width = 64 - span.leading_zeros();
            if used + width > 64 {
                word += 1;
                used = 0;
            }
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            // A slot of one value takes no bits; its shift stays in range
            // when the word before it is full (`<< 64` overflows).
            fields.push(Field {
                word,
                shift: if width == 0 { 0 } else { used },
                mask,
                lo,
            });
            used += width;
            bits += width as usize;
        }
        let words = if used == 0 { word.max(1) } else { word + 1 };
        Layout {
            fields,
            words,
            bits,
        }
    }

    /// Words per packed state.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Bits of information per state (before rounding up to words).
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Packs `s` into `out` (`out.len() == self.words()`).
    pub fn pack(&self, s: &[i64], out: &mut [u64]) {
        out.fill(0);
        // Fields come in word order: each word is built in a register and
        // written once (an `|=` into memory per field makes every field
        // wait for the store of the one before).
        let (mut word, mut acc) = (0, 0u64);
        for (f, &v) in self.fields.iter().zip(s) {
            if f.word != word {
                out[word] = acc;
                (word, acc) = (f.word, 0);
            }
            acc |= (v.wrapping_sub(f.lo) as u64 & f.mask) << f.shift;
        }
        if let Some(w) = out.get_mut(word) {
            *w = acc;
        }
    }

    /// Unpacks `w` into `out` (`out.len()` is the number of slots).
    pub fn unpack(&self, w: &[u64], out: &mut [i64]) {
        for (f, v) in self.fields.iter().zip(out.iter_mut()) {
            *v = ((w[f.word] >> f.shift) & f.mask) as i64 + f.lo;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let bounds = [
            (0, 9),
            (-3, 3),
            (-1, 1),
            (0, 0),
            (i64::MIN / 2, i64::MAX / 2),
            (0, 1),
        ];
        let l = Layout::new(&bounds);
        assert_eq!(l.words(), 2);
        let s = [7, -3, -1, 0, 12345, 1];
        let mut w = vec![0; l.words()];
        l.pack(&s, &mut w);
        let mut back = [0; 6];
        l.unpack(&w, &mut back);
        assert_eq!(back, s);
    }

    #[test]
    fn a_slot_of_one_value_after_a_full_word() {
        // 64 bits, then a slot of one value (a parameter `c : chan q` of a
        // single channel q is one).
        let mut bounds = vec![(0, 255); 8];
        bounds.push((0, 0));
        bounds.push((3, 3));
        let l = Layout::new(&bounds);
        assert_eq!((l.words(), l.bits()), (1, 64));
        let mut s = vec![200; 8];
        s.extend([0, 3]);
        let mut w = vec![0; l.words()];
        l.pack(&s, &mut w);
        let mut back = vec![0; s.len()];
        l.unpack(&w, &mut back);
        assert_eq!(back, s);
    }

    #[test]
    fn small_states_fit_one_word() {
        let l = Layout::new(&[(0, 9); 16]);
        assert_eq!((l.words(), l.bits()), (1, 64));
    }
}
