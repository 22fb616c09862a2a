//! "Did you mean ...?": the word nearest to a misspelt one, by edit
//! distance, for unknown names (the compiler) and misspelt keywords (the
//! parser).

/// The candidate nearest to `name` by edit distance, if it is near enough.
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    candidates
        .into_iter()
        .filter_map(|c| Some((near(name.as_bytes(), c.as_bytes())?, c)))
        .filter(|&(d, c)| d < c.len().max(name.len()))
        .min()
        .map(|(_, c)| c)
}

/// The edit distance between `a` and `b` when it is at most 2. Only cells
/// within 2 of the diagonal can lead to such a distance, so the work is
/// linear in the length of the names, however long a user makes them.
pub(crate) fn near(a: &[u8], b: &[u8]) -> Option<usize> {
    const K: usize = 2;
    if a.len().abs_diff(b.len()) > K {
        return None;
    }
    // Values above K are all "too far": capping keeps the rows small.
    let far = K + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(far)).collect();
    let mut cur = vec![far; b.len() + 1];
    for i in 1..=a.len() {
        let (lo, hi) = (i.saturating_sub(K), (i + K).min(b.len()));
        for j in lo..=hi {
            cur[j] = if j == 0 {
                i.min(far)
            } else {
                let replace = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
                let delete = if j < i + K { prev[j] + 1 } else { far };
                let insert = if j > lo { cur[j - 1] + 1 } else { far };
                replace.min(delete).min(insert).min(far)
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= K).then_some(d)
}

/// Longest word that is checked against the keywords. No keyword has more
/// than 11 letters, so a longer word misspells none of them; the bound also
/// keeps the check cheap whatever the input.
pub(crate) const MAX_TYPO: usize = 20;

/// The keyword of `keywords` that `word` most likely misspells: the same
/// word in other letter case, or, for a word of three letters or more, one
/// edit away (two when both have five letters or more: `fi` is not taken
/// for `if`, nor `goo` for `goto`).
pub(crate) fn keyword<'k>(word: &str, keywords: &[&'k str]) -> Option<&'k str> {
    if word.len() > MAX_TYPO || keywords.contains(&word) {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    if let Some(k) = keywords.iter().find(|k| **k == lower) {
        return Some(k);
    }
    // One or two letters are one edit from too many words (`f` from `if`).
    if word.len() < 3 {
        return None;
    }
    let best = closest(word, keywords.iter().copied())?;
    let d = near(word.as_bytes(), best.as_bytes())?;
    let most = if word.len().min(best.len()) <= 4 {
        1
    } else {
        2
    };
    (d <= most).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_is_the_edit_distance_up_to_two() {
        fn full(a: &[u8], b: &[u8]) -> usize {
            let mut row: Vec<usize> = (0..=b.len()).collect();
            for (i, &ca) in a.iter().enumerate() {
                let mut prev = row[0];
                row[0] = i + 1;
                for (j, &cb) in b.iter().enumerate() {
                    let cur = row[j + 1];
                    row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
                    prev = cur;
                }
            }
            row[b.len()]
        }
        let words = [
            "", "a", "ab", "ba", "abc", "acb", "count", "cuont", "conut", "counter", "x", "xyzzy",
            "lock", "block", "clock",
        ];
        for a in words {
            for b in words {
                let d = full(a.as_bytes(), b.as_bytes());
                assert_eq!(
                    near(a.as_bytes(), b.as_bytes()),
                    (d <= 2).then_some(d),
                    "{a} {b}"
                );
            }
        }
        // Linear, not quadratic, in the length of a long name.
        let long = "a".repeat(1_000_000);
        assert_eq!(near(long.as_bytes(), long.as_bytes()), Some(0));
        assert_eq!(closest("cuont", ["count", "other"]), Some("count"));
    }

    #[test]
    fn misspelt_keywords() {
        let stmts = [
            "assert", "await", "acquire", "release", "while", "skip", "up", "if",
        ];
        assert_eq!(keyword("asert", &stmts), Some("assert"));
        assert_eq!(keyword("aquire", &stmts), Some("acquire"));
        assert_eq!(keyword("acquier", &stmts), Some("acquire"));
        assert_eq!(keyword("relase", &stmts), Some("release"));
        assert_eq!(keyword("whle", &stmts), Some("while"));
        assert_eq!(keyword("While", &stmts), Some("while"));
        assert_eq!(keyword("skp", &stmts), Some("skip"));
        // Short words are taken for a keyword only one edit away.
        assert_eq!(keyword("fi", &stmts), None);
        assert_eq!(keyword("x", &stmts), None);
        assert_eq!(keyword("f", &stmts), None);
        assert_eq!(keyword("IF", &stmts), Some("if"));
        assert_eq!(keyword("count", &stmts), None);
        // A keyword is no misspelling; a long word is not looked at.
        assert_eq!(keyword("assert", &stmts), None);
        assert_eq!(keyword(&"a".repeat(MAX_TYPO + 1), &stmts), None);
    }
}
