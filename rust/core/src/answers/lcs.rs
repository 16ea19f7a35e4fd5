//! Longest common subsequences of token id sequences, bit-parallel (Allison and Dix, 1986;
//! Crochemore et al., 2001; Hyyrö, 2004): with one bit per position of `columns`, the vector
//! `V` after reading the first `i` tokens of `rows` has a 0 at bit `j` exactly where row `i` of
//! the dynamic programming table steps up (`t[i][j + 1] = t[i][j] + 1`), so `t[i][j]` is the
//! number of 0 bits of `V_i` below bit `j`. Each token of `rows` costs one pass over
//! `ceil(|columns| / 64)` words:
//!
//! ```text
//! U = V & M[token];  V = (V + U) | (V - U)      (V - U = V & !U, as U is a subset of V)
//! ```
//!
//! `lcs_indices` keeps every row's vector (`|rows| * |columns| / 64` words instead of the full
//! table of `rouge-score`) and reads the one longest common subsequence that `rouge-score`'s
//! `_backtrack_norec` reads from the table.

/// Reusable buffers: the match masks of each token id over the columns, and the vectors.
#[derive(Default)]
pub(crate) struct LcsScratch {
    masks: Vec<u64>,
    rows: Vec<u64>,
}

fn words_for(n: usize) -> usize {
    n.div_ceil(64)
}

impl LcsScratch {
    /// Set the match masks of `columns` (ids below `vocabulary`), `words` words per id.
    fn set_masks(&mut self, columns: &[u32], vocabulary: usize, words: usize) {
        self.masks.clear();
        self.masks.resize(vocabulary * words, 0);
        for (j, &id) in columns.iter().enumerate() {
            self.masks[id as usize * words + j / 64] |= 1 << (j % 64);
        }
    }

    /// `V` advanced by one token: `V = (V + U) | (V & !U)` with `U = V & M[token]`, the
    /// addition carried across words.
    fn advance(masks: &[u64], v: &mut [u64], token: u32, words: usize) {
        let mask = &masks[token as usize * words..(token as usize + 1) * words];
        let mut carry = 0u64;
        for (v, &m) in v.iter_mut().zip(mask) {
            let u = *v & m;
            let (sum, c1) = v.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry);
            carry = u64::from(c1 || c2);
            *v = sum | (*v & !u);
        }
    }
}

/// The 0 bits of the lowest `len` bits of `v`.
fn zeros_below(v: &[u64], len: usize) -> usize {
    let full = len / 64;
    let mut zeros: usize = v[..full].iter().map(|w| w.count_zeros() as usize).sum();
    let rest = len % 64;
    if rest > 0 {
        let low = v[full] | !((1u64 << rest) - 1);
        zeros += low.count_zeros() as usize;
    }
    zeros
}

/// The length of a longest common subsequence of `a` and `b` (token ids below `vocabulary`).
pub(crate) fn lcs_length(
    scratch: &mut LcsScratch,
    a: &[u32],
    b: &[u32],
    vocabulary: usize,
) -> usize {
    let (rows, columns) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if columns.is_empty() {
        return 0;
    }
    let words = words_for(columns.len());
    scratch.set_masks(columns, vocabulary, words);
    scratch.rows.clear();
    scratch.rows.resize(words, !0);
    for &token in rows {
        LcsScratch::advance(&scratch.masks, &mut scratch.rows, token, words);
    }
    zeros_below(&scratch.rows, columns.len())
}

/// The positions in `reference` of the longest common subsequence of `reference` and
/// `candidate` that `rouge-score`'s `lcs_ind` returns, in increasing order, into `out`.
///
/// `rouge-score` fills the table `t[i][j]` (i over `reference`, j over `candidate`) and walks
/// back from the end: on equal tokens it takes the reference position and moves diagonally,
/// else it moves left if `t[i][j - 1] > t[i - 1][j]` and up otherwise.
pub(crate) fn lcs_indices(
    scratch: &mut LcsScratch,
    reference: &[u32],
    candidate: &[u32],
    vocabulary: usize,
    out: &mut Vec<usize>,
) {
    out.clear();
    let (n, m) = (reference.len(), candidate.len());
    if n == 0 || m == 0 {
        return;
    }
    let words = words_for(m);
    scratch.set_masks(candidate, vocabulary, words);
    // Row i (0..=n) of the table as its vector; row 0 is all ones (t[0][j] = 0).
    scratch.rows.clear();
    scratch.rows.resize((n + 1) * words, !0);
    for (i, &token) in reference.iter().enumerate() {
        let (done, next) = scratch.rows.split_at_mut((i + 1) * words);
        next[..words].copy_from_slice(&done[i * words..]);
        LcsScratch::advance(&scratch.masks, &mut next[..words], token, words);
    }
    let table = |i: usize, j: usize| zeros_below(&scratch.rows[i * words..(i + 1) * words], j);
    let (mut i, mut j) = (n, m);
    while i > 0 && j > 0 {
        if reference[i - 1] == candidate[j - 1] {
            out.push(i - 1);
            i -= 1;
            j -= 1;
        } else if table(i, j - 1) > table(i - 1, j) {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    out.reverse();
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `rouge-score`'s `_lcs_table`.
    fn table(a: &[u32], b: &[u32]) -> Vec<Vec<usize>> {
        let mut t = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                t[i][j] = if a[i - 1] == b[j - 1] {
                    t[i - 1][j - 1] + 1
                } else {
                    t[i - 1][j].max(t[i][j - 1])
                };
            }
        }
        t
    }

    /// `rouge-score`'s `_backtrack_norec` over the full table.
    fn backtrack(a: &[u32], b: &[u32]) -> Vec<usize> {
        let t = table(a, b);
        let (mut i, mut j) = (a.len(), b.len());
        let mut lcs = Vec::new();
        while i > 0 && j > 0 {
            if a[i - 1] == b[j - 1] {
                lcs.insert(0, i - 1);
                i -= 1;
                j -= 1;
            } else if t[i][j - 1] > t[i - 1][j] {
                j -= 1;
            } else {
                i -= 1;
            }
        }
        lcs
    }

    fn sequences() -> impl Strategy<Value = (Vec<u32>, Vec<u32>)> {
        // Small alphabets (many matches) and lengths across the 64-bit word boundary.
        (1u32..6).prop_flat_map(|v| {
            (
                prop::collection::vec(0..v, 0..150),
                prop::collection::vec(0..v, 0..150),
            )
        })
    }

    proptest! {
        #[test]
        fn length_and_indices_equal_the_table((a, b) in sequences()) {
            let mut scratch = LcsScratch::default();
            let expected = table(&a, &b)[a.len()][b.len()];
            prop_assert_eq!(lcs_length(&mut scratch, &a, &b, 6), expected);
            prop_assert_eq!(lcs_length(&mut scratch, &b, &a, 6), expected);
            let mut out = Vec::new();
            lcs_indices(&mut scratch, &a, &b, 6, &mut out);
            prop_assert_eq!(out, backtrack(&a, &b));
        }
    }

    #[test]
    fn small_cases() {
        let mut scratch = LcsScratch::default();
        assert_eq!(lcs_length(&mut scratch, &[], &[1, 2], 3), 0);
        assert_eq!(lcs_length(&mut scratch, &[0, 1, 2], &[0, 2], 3), 2);
        let mut out = Vec::new();
        lcs_indices(&mut scratch, &[0, 1, 2, 1], &[1, 2], 3, &mut out);
        assert_eq!(out, backtrack(&[0, 1, 2, 1], &[1, 2]));
    }
}
