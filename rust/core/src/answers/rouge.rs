//! ROUGE as `rouge-score` 0.1.2 computes it (Lin, 2004, "ROUGE: A Package for Automatic
//! Evaluation of Summaries"; Google Research's re-implementation of ROUGE-1.5.5), the
//! reference the target and the answer the prediction:
//!
//! * Tokens (`rouge_score.tokenize`): the text lower-cased (Python's `str.lower`), every run of
//!   characters other than `a-z0-9` a separator, so only ASCII letters and digits survive;
//!   with `use_stemmer`, tokens longer than three letters are replaced by their Porter stem
//!   (`porter`, NLTK's).
//! * ROUGE-N: `c` = the n-grams the two share (as multisets), `P = c / max(|answer n-grams|, 1)`,
//!   `R = c / max(|reference n-grams|, 1)`.
//! * ROUGE-L: `l` = the length of a longest common subsequence of the tokens, `P = l /
//!   |answer|`, `R = l / |reference|`, all 0 when either side has no token.
//! * ROUGE-Lsum: the texts split into sentences at `\n` (empty lines dropped); the hits are the
//!   tokens of the union of each reference sentence's longest common subsequences with the
//!   answer's sentences, each token counted at most as often as it occurs on both sides
//!   (ROUGE-1.5.5's rule), `P = hits / |answer|`, `R = hits / |reference|`.
//! * `F = 2PR / (P + R)`, 0 when `P + R = 0`; with several references, the one with the
//!   highest F counts for P, R and F alike (`score_multi`: the first on a tie).
//!
//! Tokens are compared as ids: the tokens of an answer and its references sorted once and
//! numbered, so each comparison is of integers.

use super::lcs::{LcsScratch, lcs_indices, lcs_length};
use super::porter::stem_into;
use super::rows::answer_rows;
use crate::{CoreError, CoreResult};

/// One ROUGE variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RougeType {
    /// ROUGE-N over n-grams, `1 <= n <= 9` (`rouge1` ... `rouge9`).
    N(usize),
    /// ROUGE-L over the whole texts.
    L,
    /// ROUGE-Lsum, summary-level LCS over sentences split at `\n`.
    LSum,
}

impl RougeType {
    /// `rouge-score`'s names: `rouge1` to `rouge9`, `rougeL`, `rougeLsum`.
    pub fn from_name(name: &str) -> CoreResult<Self> {
        match name {
            "rougeL" => Ok(RougeType::L),
            "rougeLsum" => Ok(RougeType::LSum),
            _ => match name.strip_prefix("rouge").map(str::as_bytes) {
                Some(&[digit]) if (b'1'..=b'9').contains(&digit) => {
                    Ok(RougeType::N(usize::from(digit - b'0')))
                }
                _ => Err(CoreError::argument(
                    "rouge_types",
                    format!(
                        "unknown ROUGE type {name:?}; use \"rouge1\" to \"rouge9\", \"rougeL\" or \
                         \"rougeLsum\" (rouge-score's names)"
                    ),
                )),
            },
        }
    }
}

/// Precision, recall and F-measure, as `rouge_score.scoring.Score`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RougeScore {
    pub precision: f64,
    pub recall: f64,
    pub fmeasure: f64,
}

impl RougeScore {
    /// `P` and `R` as `rouge-score` divides them, with its F-measure.
    fn new(precision: f64, recall: f64) -> Self {
        let fmeasure = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        RougeScore {
            precision,
            recall,
            fmeasure,
        }
    }
}

/// Buffers of one batch. The tokens of an answer and its references are byte ranges into
/// one arena, text after text; each text's sentences end where `ends` says.
#[derive(Default)]
struct Scratch {
    arena: String,
    word: Vec<u8>,
    stemmed: Vec<u8>,
    ranges: Vec<(usize, usize)>,
    /// Per text (the answer, then its references): its tokens and its sentence ends.
    texts: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    ends: Vec<usize>,
    order: Vec<u32>,
    ids: Vec<u32>,
    lcs: LcsScratch,
    counts: Vec<[u32; 2]>,
    ngrams: [Vec<u32>; 2],
    union: Vec<usize>,
    indices: Vec<usize>,
}

/// Appends `word` (lower-case ASCII letters and digits) to the arena as one token, stemmed
/// when asked and longer than three letters, as `rouge_score.tokenize`.
fn push_token(
    word: &[u8],
    use_stemmer: bool,
    stemmed: &mut Vec<u8>,
    arena: &mut String,
    ranges: &mut Vec<(usize, usize)>,
) {
    let word = if use_stemmer && word.len() > 3 {
        // Only ASCII letters and digits are ever pushed: valid UTF-8.
        let text = std::str::from_utf8(word).unwrap_or_default();
        stem_into(text, stemmed);
        &stemmed[..]
    } else {
        word
    };
    if word.is_empty() {
        return;
    }
    let start = arena.len();
    arena.extend(word.iter().map(|&b| char::from(b)));
    ranges.push((start, arena.len()));
}

/// `rouge_score.tokenize.tokenize(text, stemmer)`: the tokens of `text` appended to the
/// scratch's ranges.
fn tokenize(text: &str, use_stemmer: bool, scratch: &mut Scratch) {
    let Scratch {
        arena,
        word,
        stemmed,
        ranges,
        ..
    } = scratch;
    word.clear();
    let mut take = |c: char, word: &mut Vec<u8>| {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            word.push(c as u8);
        } else if !word.is_empty() {
            push_token(word, use_stemmer, stemmed, arena, ranges);
            word.clear();
        }
    };
    if text.is_ascii() {
        for byte in text.bytes() {
            take(char::from(byte.to_ascii_lowercase()), word);
        }
    } else {
        // Python lower-cases the whole text: "İ" becomes "i̇", the Kelvin sign "k". The lower
        // case of a letter depends on its neighbours only for the Greek capital sigma, whose
        // lower cases are not ASCII, so a letter-by-letter mapping gives the same tokens.
        for c in text.chars().flat_map(char::to_lowercase) {
            take(c, word);
        }
    }
    if !word.is_empty() {
        push_token(word, use_stemmer, stemmed, arena, ranges);
        word.clear();
    }
}

/// Tokenizes `text` sentence by sentence (split at `\n`, empty sentences dropped, as
/// ROUGE-Lsum reads it) and records its tokens and sentence ends. The tokens of the whole
/// text are the sentences' one after the other: a line break is a separator anyway.
fn add_text(text: &str, use_stemmer: bool, scratch: &mut Scratch) {
    let (first_token, first_end) = (scratch.ranges.len(), scratch.ends.len());
    for sentence in text.split('\n').filter(|s| !s.is_empty()) {
        tokenize(sentence, use_stemmer, scratch);
        scratch.ends.push(scratch.ranges.len());
    }
    scratch.texts.push((
        first_token..scratch.ranges.len(),
        first_end..scratch.ends.len(),
    ));
}

/// Numbers every token of the arena: equal texts get equal ids, from 0. Returns how many
/// distinct tokens there are.
fn intern(
    arena: &str,
    ranges: &[(usize, usize)],
    order: &mut Vec<u32>,
    ids: &mut Vec<u32>,
) -> usize {
    let text = |k: u32| {
        let (start, end) = ranges[k as usize];
        &arena[start..end]
    };
    order.clear();
    order.extend(0..ranges.len() as u32);
    order.sort_unstable_by(|&x, &y| text(x).cmp(text(y)));
    ids.clear();
    ids.resize(ranges.len(), 0);
    let mut next = 0u32;
    for (k, &token) in order.iter().enumerate() {
        if k > 0 && text(order[k - 1]) != text(token) {
            next += 1;
        }
        ids[token as usize] = next;
    }
    if ranges.is_empty() {
        0
    } else {
        next as usize + 1
    }
}

/// The size of the multiset intersection of the n-grams of `a` and `b`.
fn shared_ngrams(
    a: &[u32],
    b: &[u32],
    n: usize,
    counts: &mut Vec<[u32; 2]>,
    ngrams: &mut [Vec<u32>; 2],
    vocabulary: usize,
) -> usize {
    if n == 1 {
        counts.clear();
        counts.resize(vocabulary, [0, 0]);
        for &id in a {
            counts[id as usize][0] += 1;
        }
        for &id in b {
            counts[id as usize][1] += 1;
        }
        return counts.iter().map(|c| c[0].min(c[1]) as usize).sum();
    }
    // n-grams as start positions, sorted by their tokens, then merged.
    let sides = [a, b];
    for (side, starts) in sides.iter().zip(ngrams.iter_mut()) {
        starts.clear();
        if side.len() >= n {
            starts.extend(0..(side.len() - n + 1) as u32);
            starts.sort_unstable_by(|&x, &y| {
                side[x as usize..x as usize + n].cmp(&side[y as usize..y as usize + n])
            });
        }
    }
    let gram = |side: usize, k: usize| {
        let start = ngrams[side][k] as usize;
        &sides[side][start..start + n]
    };
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < ngrams[0].len() && j < ngrams[1].len() {
        match gram(0, i).cmp(gram(1, j)) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// ROUGE-N of `answer` against `reference` (token ids).
fn rouge_n(
    scratch: &mut Scratch,
    answer: &[u32],
    reference: &[u32],
    n: usize,
    vocabulary: usize,
) -> RougeScore {
    let shared = shared_ngrams(
        answer,
        reference,
        n,
        &mut scratch.counts,
        &mut scratch.ngrams,
        vocabulary,
    );
    let count = |side: &[u32]| (side.len() + 1).saturating_sub(n).max(1);
    RougeScore::new(
        shared as f64 / count(answer) as f64,
        shared as f64 / count(reference) as f64,
    )
}

/// ROUGE-L of `answer` against `reference` (token ids).
fn rouge_l(
    scratch: &mut Scratch,
    answer: &[u32],
    reference: &[u32],
    vocabulary: usize,
) -> RougeScore {
    if answer.is_empty() || reference.is_empty() {
        return RougeScore::default();
    }
    let lcs = lcs_length(&mut scratch.lcs, reference, answer, vocabulary);
    RougeScore::new(
        lcs as f64 / answer.len() as f64,
        lcs as f64 / reference.len() as f64,
    )
}

/// The sentences of a text as slices of the ids: `ends` are positions in `ids` (absolute),
/// the first sentence starting at `start`.
fn sentences<'a>(
    ids: &'a [u32],
    start: usize,
    ends: &'a [usize],
) -> impl Iterator<Item = &'a [u32]> + 'a {
    ends.iter().scan(start, move |from, &end| {
        let sentence = &ids[*from..end];
        *from = end;
        Some(sentence)
    })
}

/// ROUGE-Lsum of text `answer` against text `reference` (`_summary_level_lcs`).
fn rouge_lsum(
    scratch: &mut Scratch,
    ids: &[u32],
    answer: usize,
    reference: usize,
    vocabulary: usize,
) -> RougeScore {
    let (answer_tokens, answer_ends) = scratch.texts[answer].clone();
    let (reference_tokens, reference_ends) = scratch.texts[reference].clone();
    let (n, m) = (answer_tokens.len(), reference_tokens.len());
    if n == 0 || m == 0 {
        return RougeScore::default();
    }
    // Token counts on both sides, spent as hits are counted (no token counted twice).
    let counts = &mut scratch.counts;
    counts.clear();
    counts.resize(vocabulary, [0, 0]);
    for &id in &ids[reference_tokens.clone()] {
        counts[id as usize][0] += 1;
    }
    for &id in &ids[answer_tokens.clone()] {
        counts[id as usize][1] += 1;
    }
    let mut hits = 0usize;
    let answer_ends = &scratch.ends[answer_ends];
    for sentence in sentences(ids, reference_tokens.start, &scratch.ends[reference_ends]) {
        // The union of the positions of this sentence's LCS with each answer sentence.
        scratch.union.clear();
        for candidate in sentences(ids, answer_tokens.start, answer_ends) {
            lcs_indices(
                &mut scratch.lcs,
                sentence,
                candidate,
                vocabulary,
                &mut scratch.indices,
            );
            scratch.union.extend_from_slice(&scratch.indices);
        }
        scratch.union.sort_unstable();
        scratch.union.dedup();
        for &position in &scratch.union {
            let count = &mut scratch.counts[sentence[position] as usize];
            if count[0] > 0 && count[1] > 0 {
                hits += 1;
                count[0] -= 1;
                count[1] -= 1;
            }
        }
    }
    RougeScore::new(hits as f64 / n as f64, hits as f64 / m as f64)
}

/// One answer against its references: the best reference's score for each type, appended to
/// `out` (one score per type, in order).
fn score_answer(
    scratch: &mut Scratch,
    answer: &str,
    references: &[&str],
    types: &[RougeType],
    use_stemmer: bool,
    out: &mut Vec<RougeScore>,
) {
    scratch.arena.clear();
    scratch.ranges.clear();
    scratch.texts.clear();
    scratch.ends.clear();
    add_text(answer, use_stemmer, scratch);
    for reference in references {
        add_text(reference, use_stemmer, scratch);
    }
    let vocabulary = intern(
        &scratch.arena,
        &scratch.ranges,
        &mut scratch.order,
        &mut scratch.ids,
    );
    let ids = std::mem::take(&mut scratch.ids);
    let first = out.len();
    for r in 1..=references.len() {
        for (k, &kind) in types.iter().enumerate() {
            let answer_ids = &ids[scratch.texts[0].0.clone()];
            let reference_ids = &ids[scratch.texts[r].0.clone()];
            let score = match kind {
                RougeType::N(n) => rouge_n(scratch, answer_ids, reference_ids, n, vocabulary),
                RougeType::L => rouge_l(scratch, answer_ids, reference_ids, vocabulary),
                RougeType::LSum => rouge_lsum(scratch, &ids, 0, r, vocabulary),
            };
            if r == 1 {
                out.push(score);
            } else if score.fmeasure > out[first + k].fmeasure {
                // np.argmax: the first reference with the highest F-measure.
                out[first + k] = score;
            }
        }
    }
    scratch.ids = ids;
}

/// ROUGE of each answer against its references: `types.len()` scores per answer, answer by
/// answer.
pub fn rouge_scores(
    reference_offsets: &[usize],
    references: &[&str],
    answers: &[&str],
    types: &[RougeType],
    use_stemmer: bool,
) -> CoreResult<Vec<RougeScore>> {
    let rows = answer_rows(
        "references",
        reference_offsets,
        references,
        answers.len(),
        false,
        "reference",
    )?;
    if types.is_empty() {
        return Err(CoreError::argument(
            "rouge_types",
            "give at least one ROUGE type",
        ));
    }
    let mut scratch = Scratch::default();
    let mut out = Vec::with_capacity(answers.len() * types.len());
    for (i, answer) in answers.iter().enumerate() {
        score_answer(
            &mut scratch,
            answer,
            rows.row(i),
            types,
            use_stemmer,
            &mut out,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(reference: &str, answer: &str, kind: RougeType, stem: bool) -> RougeScore {
        rouge_scores(&[0, 1], &[reference], &[answer], &[kind], stem).unwrap()[0]
    }

    #[test]
    fn rouge_scores_readme_example() {
        // rouge-score's README: scorer.score('The quick brown fox jumps over the lazy dog',
        // 'The quick brown dog jumps on the log.') with rouge1 and rougeL, use_stemmer=True.
        let target = "The quick brown fox jumps over the lazy dog";
        let prediction = "The quick brown dog jumps on the log.";
        let r1 = one(target, prediction, RougeType::N(1), true);
        assert_eq!((r1.precision, r1.recall), (6.0 / 8.0, 6.0 / 9.0));
        let rl = one(target, prediction, RougeType::L, true);
        assert_eq!((rl.precision, rl.recall), (5.0 / 8.0, 5.0 / 9.0));
    }

    #[test]
    fn tokens_are_ascii_letters_and_digits() {
        // "İ" lower-cases to "i" and a combining dot, which separates: "i", "stanbul", "caf".
        let s = one("İstanbul café", "I STANBUL-caf", RougeType::N(1), false);
        assert_eq!(s.fmeasure, 1.0);
        assert_eq!(one("", "x", RougeType::L, false), RougeScore::default());
        assert_eq!(
            one("東京", "東京", RougeType::N(1), false),
            RougeScore::default()
        );
    }

    #[test]
    fn names() {
        assert_eq!(RougeType::from_name("rouge2").unwrap(), RougeType::N(2));
        assert_eq!(RougeType::from_name("rougeLsum").unwrap(), RougeType::LSum);
        assert!(RougeType::from_name("rouge0").is_err());
        assert!(RougeType::from_name("rouge10").is_err());
        assert!(RougeType::from_name("ROUGE-L").is_err());
    }
}
