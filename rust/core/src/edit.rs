//! Levenshtein distance over Unicode code points (unit costs), one pair at a time or in
//! batches (which the bindings share out between threads), and the ranking of choices by
//! normalised similarity.
//!
//! The kernel strips the common prefix and suffix, then runs Hyyrö's (2003) bit-parallel
//! variant of Myers' algorithm with the shorter side as the pattern: one 64-bit word per
//! column when the pattern has at most 64 code points (every short answer), the `rapidfuzz`
//! crate's blocked version of the same algorithm (pinned to 0.5.0) beyond that. ASCII pairs are
//! compared as bytes (identical results, no UTF-8 decoding); any other pair as `char`s, i.e.
//! code points, which is what Python's `len` and `rapidfuzz` count. The tests check every path
//! against a plain Wagner-Fischer table.

use rapidfuzz::distance::levenshtein;

use crate::batch::map_items;
use crate::normalize::{Normalization, normalized};
use crate::{CoreError, CoreResult};

/// The version of the `rapidfuzz` crate pinned in the workspace `Cargo.toml` (reported by
/// `ragmeter.levenshtein.backend_info()`; a Python test checks that the two agree).
pub const RAPIDFUZZ_CRATE_VERSION: &str = "0.5.0";

/// How distances are computed, for `backend_info()`.
pub const KERNEL: &str = "Hyyrö (2003) bit-parallel Levenshtein over Unicode code points with \
                          unit costs, in Rust (one 64-bit word up to 64 code points, the \
                          rapidfuzz crate's blocks beyond), batches in parallel with rayon";

/// The edit distance of a pair and the length (in code points) of its longer side, from which
/// every derived measure follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditCount {
    pub distance: usize,
    pub max_len: usize,
}

impl EditCount {
    /// `max_len - distance`: how many code points did not need an edit.
    pub fn similarity(&self) -> usize {
        self.max_len - self.distance
    }

    /// `distance / max_len`, and 0.0 for two empty strings (they are identical).
    pub fn normalized_distance(&self) -> f64 {
        if self.max_len == 0 {
            0.0
        } else {
            self.distance as f64 / self.max_len as f64
        }
    }

    /// `1 - normalized_distance`.
    pub fn normalized_similarity(&self) -> f64 {
        1.0 - self.normalized_distance()
    }
}

/// Which number a batch call returns for each pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Distance,
    Similarity,
    NormalizedDistance,
    NormalizedSimilarity,
}

impl Measure {
    pub fn from_name(name: &str) -> CoreResult<Self> {
        match name {
            "distance" => Ok(Measure::Distance),
            "similarity" => Ok(Measure::Similarity),
            "normalized_distance" => Ok(Measure::NormalizedDistance),
            "normalized_similarity" => Ok(Measure::NormalizedSimilarity),
            other => Err(CoreError::argument(
                "measure",
                format!(
                    "unknown measure {other:?}; use \"distance\", \"similarity\", \
                     \"normalized_distance\" or \"normalized_similarity\""
                ),
            )),
        }
    }

    /// Distance and similarity are counts of code points; the normalised measures are ratios.
    pub fn is_count(&self) -> bool {
        matches!(self, Measure::Distance | Measure::Similarity)
    }

    pub fn count(&self, edit: EditCount) -> usize {
        match self {
            Measure::Similarity => edit.similarity(),
            _ => edit.distance,
        }
    }

    pub fn ratio(&self, edit: EditCount) -> f64 {
        match self {
            Measure::Distance => edit.distance as f64,
            Measure::Similarity => edit.similarity() as f64,
            Measure::NormalizedDistance => edit.normalized_distance(),
            Measure::NormalizedSimilarity => edit.normalized_similarity(),
        }
    }
}

/// Reusable state of the distance kernel: the pattern bit-vectors of the shorter string, kept
/// all-zero between calls (a table for code points below 256, a sorted list for the others).
pub struct Levenshtein {
    low_pattern: [u64; 256],
    high_pattern: Vec<(char, u64)>,
}

impl Default for Levenshtein {
    fn default() -> Self {
        Levenshtein {
            low_pattern: [0; 256],
            high_pattern: Vec::new(),
        }
    }
}

/// `(a, b)` without their common prefix and suffix (they never change the distance).
fn strip_common_affix<'x>(a: &'x [u8], b: &'x [u8]) -> (&'x [u8], &'x [u8]) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// The same on UTF-8 text, cutting only between code points. Equal bytes are equal code
/// points, so the byte-wise affixes, shortened to a code point boundary, are the common ones.
fn strip_common_affix_str<'x>(a: &'x str, b: &'x str) -> (&'x str, &'x str) {
    let mut prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Valid UTF-8 with equal first `prefix` bytes: `prefix` is a boundary in both or in neither.
    while !a.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let mut suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// Hyyrö's (2003) bit-parallel Levenshtein distance for a pattern of 1 to 64 symbols, given
/// `pattern_bits(symbol)`: bit `i` set where `pattern[i] == symbol`.
fn hyyro_one_word<T>(
    pattern_len: usize,
    text: impl Iterator<Item = T>,
    pattern_bits: impl Fn(T) -> u64,
) -> usize {
    debug_assert!((1..=64).contains(&pattern_len));
    let mut vp: u64 = !0;
    let mut vn: u64 = 0;
    let mut dist = pattern_len;
    let last = 1u64 << (pattern_len - 1);
    for symbol in text {
        let x = pattern_bits(symbol);
        let d0 = ((x & vp).wrapping_add(vp) ^ vp) | x | vn;
        let mut hp = vn | !(d0 | vp);
        let mut hn = d0 & vp;
        dist += usize::from(hp & last != 0);
        dist -= usize::from(hn & last != 0);
        hp = (hp << 1) | 1;
        hn <<= 1;
        vp = hn | !(d0 | hp);
        vn = hp & d0;
    }
    dist
}

impl Levenshtein {
    /// Distance and longer length of `a` and `b`, in code points.
    pub fn edit_count(&mut self, a: &str, b: &str) -> EditCount {
        if a.is_ascii() && b.is_ascii() {
            let max_len = a.len().max(b.len());
            let (a, b) = strip_common_affix(a.as_bytes(), b.as_bytes());
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            let distance = match short.len() {
                0 => long.len(),
                1..=64 => {
                    for (i, &byte) in short.iter().enumerate() {
                        self.low_pattern[usize::from(byte)] |= 1 << i;
                    }
                    let table = &self.low_pattern;
                    let d =
                        hyyro_one_word(short.len(), long.iter(), |&byte| table[usize::from(byte)]);
                    for &byte in short {
                        self.low_pattern[usize::from(byte)] = 0;
                    }
                    d
                }
                _ => levenshtein::distance(short.iter().copied(), long.iter().copied()),
            };
            return EditCount { distance, max_len };
        }
        let max_len = a.chars().count().max(b.chars().count());
        let (a, b) = strip_common_affix_str(a, b);
        let (len_a, len_b) = (a.chars().count(), b.chars().count());
        let (short, long, short_len, long_len) = if len_a <= len_b {
            (a, b, len_a, len_b)
        } else {
            (b, a, len_b, len_a)
        };
        let distance = match short_len {
            0 => long_len,
            1..=64 => self.wide_one_word(short, short_len, long),
            _ => levenshtein::distance(short.chars(), long.chars()),
        };
        EditCount { distance, max_len }
    }

    fn wide_one_word(&mut self, short: &str, short_len: usize, long: &str) -> usize {
        self.high_pattern.clear();
        for (i, c) in short.chars().enumerate() {
            match u8::try_from(c) {
                Ok(low) => self.low_pattern[usize::from(low)] |= 1 << i,
                Err(_) => self.high_pattern.push((c, 1 << i)),
            }
        }
        // Merge the bits of repeated characters, then look them up by binary search.
        self.high_pattern.sort_unstable_by_key(|&(c, _)| c);
        self.high_pattern.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 |= later.1;
                true
            } else {
                false
            }
        });
        let (low, high) = (&self.low_pattern, &self.high_pattern);
        let d = hyyro_one_word(short_len, long.chars(), |c: char| match u8::try_from(c) {
            Ok(byte) => low[usize::from(byte)],
            Err(_) => high
                .binary_search_by_key(&c, |&(h, _)| h)
                .map_or(0, |found| high[found].1),
        });
        for c in short.chars() {
            if let Ok(byte) = u8::try_from(c) {
                self.low_pattern[usize::from(byte)] = 0;
            }
        }
        d
    }
}

/// Levenshtein distance of `a` and `b` in code points, with unit costs.
pub fn distance(a: &str, b: &str) -> usize {
    Levenshtein::default().edit_count(a, b).distance
}

/// Distance and longer length of `a` and `b`.
pub fn edit_count(a: &str, b: &str) -> EditCount {
    Levenshtein::default().edit_count(a, b)
}

/// State of a batch of edit distances: the kernel and buffers for the normalised texts, so a
/// batch allocates once.
#[derive(Default)]
struct Scratch {
    kernel: Levenshtein,
    left: String,
    right: String,
}

/// Edit counts of `a[i]` against `b[i]` for every `i`.
pub fn pairwise(a: &[&str], b: &[&str], how: Normalization) -> CoreResult<Vec<EditCount>> {
    if a.len() != b.len() {
        return Err(CoreError::argument(
            "b",
            format!(
                "a and b must have the same length to be compared pair by pair, got {} and {}",
                a.len(),
                b.len()
            ),
        ));
    }
    Ok(map_items(a, |scratch: &mut Scratch, i, x| {
        let x = normalized(x, how, &mut scratch.left);
        let y = normalized(b[i], how, &mut scratch.right);
        scratch.kernel.edit_count(x, y)
    }))
}

/// Edit counts of `query` against each choice.
pub fn one_to_many(query: &str, choices: &[&str], how: Normalization) -> Vec<EditCount> {
    let mut query_buffer = String::new();
    let query = normalized(query, how, &mut query_buffer);
    map_items(choices, |scratch: &mut Scratch, _, choice| {
        let choice = normalized(choice, how, &mut scratch.right);
        scratch.kernel.edit_count(query, choice)
    })
}

/// One ranked choice: its position in the input and its edit count against the query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranked {
    pub index: usize,
    pub edit: EditCount,
}

/// Choices ordered by (normalised similarity descending, distance ascending, index ascending),
/// keeping those with normalised similarity >= `score_cutoff`, at most `limit` of them.
pub fn rank(
    query: &str,
    choices: &[&str],
    how: Normalization,
    limit: Option<usize>,
    score_cutoff: f64,
) -> CoreResult<Vec<Ranked>> {
    check_score_cutoff(score_cutoff)?;
    if limit == Some(0) {
        return Ok(Vec::new());
    }
    rank_edits(&one_to_many(query, choices, how), limit, score_cutoff)
}

fn check_score_cutoff(score_cutoff: f64) -> CoreResult<()> {
    if (0.0..=1.0).contains(&score_cutoff) {
        Ok(())
    } else {
        Err(CoreError::argument(
            "score_cutoff",
            format!(
                "must lie in [0, 1] (it is compared with the normalised similarity), \
                 got {score_cutoff}"
            ),
        ))
    }
}

/// The ranking of `rank`, from the edit counts of the query against each choice.
pub fn rank_edits(
    edits: &[EditCount],
    limit: Option<usize>,
    score_cutoff: f64,
) -> CoreResult<Vec<Ranked>> {
    check_score_cutoff(score_cutoff)?;
    if limit == Some(0) {
        return Ok(Vec::new());
    }
    let mut ranked: Vec<Ranked> = edits
        .iter()
        .enumerate()
        .filter(|(_, edit)| edit.normalized_similarity() >= score_cutoff)
        .map(|(index, &edit)| Ranked { index, edit })
        .collect();
    let order = |x: &Ranked, y: &Ranked| {
        y.edit
            .normalized_similarity()
            .total_cmp(&x.edit.normalized_similarity())
            .then(x.edit.distance.cmp(&y.edit.distance))
            .then(x.index.cmp(&y.index))
    };
    if let Some(limit) = limit
        && limit < ranked.len()
    {
        ranked.select_nth_unstable_by(limit - 1, order);
        ranked.truncate(limit);
    }
    ranked.sort_unstable_by(order);
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The textbook dynamic programme over code points (Wagner and Fischer, 1974).
    fn wagner_fischer(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut previous: Vec<usize> = (0..=b.len()).collect();
        let mut current = vec![0; b.len() + 1];
        for (i, ca) in a.iter().enumerate() {
            current[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let substitution = previous[j] + usize::from(ca != cb);
                current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            }
            std::mem::swap(&mut previous, &mut current);
        }
        previous[b.len()]
    }

    /// Short strings over a small alphabet (many matches) mixing ASCII, Latin-1, CJK and
    /// astral-plane characters.
    fn mixed_text(max_len: usize) -> impl Strategy<Value = String> {
        let alphabet = prop::sample::select(vec![
            'a',
            'b',
            'c',
            ' ',
            'é',
            'ß',
            '中',
            '文',
            '😀',
            '𝔸',
            '\u{10FFFF}',
            '\u{0}',
        ]);
        prop::collection::vec(alphabet, 0..max_len).prop_map(|chars| chars.into_iter().collect())
    }

    fn any_short_text() -> impl Strategy<Value = String> {
        prop_oneof![ascii_text(70), mixed_text(70)]
    }

    fn ascii_text(max_len: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'd']), 0..max_len)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn matches_wagner_fischer_on_mixed_text(a in mixed_text(80), b in mixed_text(80)) {
            prop_assert_eq!(distance(&a, &b), wagner_fischer(&a, &b));
        }

        #[test]
        fn matches_wagner_fischer_on_ascii(a in ascii_text(150), b in ascii_text(150)) {
            prop_assert_eq!(distance(&a, &b), wagner_fischer(&a, &b));
        }

        #[test]
        fn matches_wagner_fischer_on_any_ascii(a in "[\\x00-\\x7f]{0,100}", b in "[\\x00-\\x7f]{0,100}") {
            prop_assert_eq!(distance(&a, &b), wagner_fischer(&a, &b));
        }

        #[test]
        fn matches_wagner_fischer_on_any_text(a in any::<String>(), b in any::<String>()) {
            prop_assert_eq!(distance(&a, &b), wagner_fischer(&a, &b));
        }

    }

    proptest! {
        // Wagner-Fischer on strings of hundreds of code points is slow in debug builds.
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn long_strings_use_several_blocks(
            a in mixed_text(300).prop_filter("longer than one 64-bit block", |s| s.chars().count() > 64),
            b in mixed_text(300).prop_filter("longer than one 64-bit block", |s| s.chars().count() > 64),
            suffix in mixed_text(10),
        ) {
            prop_assert_eq!(distance(&a, &b), wagner_fischer(&a, &b));
            prop_assert_eq!(distance(&b, &a), wagner_fischer(&a, &b));
            // Shared prefixes and suffixes are stripped before the kernel sees the rest.
            let (a2, b2) = (format!("{suffix}{a}{suffix}"), format!("{suffix}{b}{suffix}"));
            prop_assert_eq!(distance(&a2, &b2), wagner_fischer(&a, &b));
        }

        #[test]
        fn one_kernel_reused_over_many_pairs_stays_exact(
            pairs in prop::collection::vec((any_short_text(), any_short_text()), 1..20),
        ) {
            // The pattern tables must be left clean after every pair.
            let mut kernel = Levenshtein::default();
            for (a, b) in &pairs {
                let edit = kernel.edit_count(a, b);
                prop_assert_eq!(edit.distance, wagner_fischer(a, b));
                prop_assert_eq!(edit.max_len, a.chars().count().max(b.chars().count()));
            }
        }

        #[test]
        fn metric_laws(a in mixed_text(40), b in mixed_text(40), c in mixed_text(40)) {
            prop_assert_eq!(distance(&a, &b), distance(&b, &a));
            prop_assert!(distance(&a, &c) <= distance(&a, &b) + distance(&b, &c));
            prop_assert_eq!(distance(&a, &a), 0);
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("", "😀😀"), 2);
        assert_eq!(distance("😀", "😁"), 1);
        assert_eq!(distance("café", "cafe"), 1);
        // "é" is C3 A9 and "ß" C3 9F in UTF-8: a shared first byte is not a shared character.
        assert_eq!(distance("aé", "aß"), 1);
        assert_eq!(distance("éa", "ßa"), 1);
        assert_eq!(distance("xéy", "xßy"), 1);
        let edit = edit_count("the eiffel tower", "eiffel tower.");
        assert_eq!(
            edit,
            EditCount {
                distance: 5,
                max_len: 16
            }
        );
        assert_eq!(edit.normalized_distance(), 5.0 / 16.0);
        assert_eq!(edit_count("", "").normalized_distance(), 0.0);
        assert_eq!(edit_count("", "").normalized_similarity(), 1.0);
    }

    #[test]
    fn batches_agree_with_single_pairs() {
        let a = ["kitten", "", "Ab", "😀x"];
        let b = ["sitting", "x", "ab", "😀"];
        let counts = pairwise(&a, &b, Normalization::Identity).unwrap();
        let single: Vec<EditCount> = a.iter().zip(&b).map(|(x, y)| edit_count(x, y)).collect();
        assert_eq!(counts, single);
        let lowered = pairwise(&a, &b, Normalization::Basic).unwrap();
        assert_eq!(lowered[2].distance, 0);
        assert!(pairwise(&a, &b[..2], Normalization::Identity).is_err());
        assert_eq!(
            one_to_many("kitten", &b, Normalization::Identity)[0],
            edit_count("kitten", "sitting")
        );
    }

    #[test]
    fn rank_orders_by_similarity_then_distance_then_index() {
        // "ab" vs "ab": 1.0; "abcd" (d=2, m=4) and "a" (d=1, m=2) tie at 0.5, "a" has the
        // smaller distance; "xy" and "yx" tie completely and keep input order.
        let choices = ["xy", "abcd", "a", "ab", "yx"];
        let ranked = rank("ab", &choices, Normalization::Identity, None, 0.0).unwrap();
        let order: Vec<usize> = ranked.iter().map(|r| r.index).collect();
        assert_eq!(order, vec![3, 2, 1, 0, 4]);
        let top = rank("ab", &choices, Normalization::Identity, Some(2), 0.0).unwrap();
        assert_eq!(top.iter().map(|r| r.index).collect::<Vec<_>>(), vec![3, 2]);
        let cut = rank("ab", &choices, Normalization::Identity, None, 0.5).unwrap();
        assert_eq!(
            cut.iter().map(|r| r.index).collect::<Vec<_>>(),
            vec![3, 2, 1]
        );
        assert!(rank("ab", &choices, Normalization::Identity, None, 1.5).is_err());
        assert!(rank("ab", &choices, Normalization::Identity, None, f64::NAN).is_err());
        assert!(
            rank("ab", &choices, Normalization::Identity, Some(0), 0.0)
                .unwrap()
                .is_empty()
        );
    }
}
