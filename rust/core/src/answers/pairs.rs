//! Answer metrics of one answer against one reference at a time: one score per (answer,
//! acceptable references) item, the best reference counting.
//!
//! * Exact match and token F1 follow the official SQuAD v1.1 evaluation script (Rajpurkar et
//!   al., 2016), with SQuAD v2.0's rule for empty token lists (1 if both are empty, else 0).
//! * ANLS follows Biten et al. (2019), "Scene Text Visual Question Answering": with
//!   `NL = lev(a, r) / max(|a|, |r|)`, a reference scores `1 - NL` if `NL < threshold`, else 0.
//! * Edit similarity is `1 - NL` without a threshold.
//! * Substring match is 1 if the normalised reference occurs in the normalised answer
//!   (FlashRAG's `Sub_ExactMatch`, BERGEN's `Match`): code points in a row, not whole words,
//!   and an empty normalised reference occurs in every answer, as in both.

use super::rows::answer_rows;
use crate::batch::map_items;
use crate::edit::Levenshtein;
use crate::normalize::{Normalization, normalized};
use crate::{CoreError, CoreResult};

/// Which answer metric to compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AnswerMetric {
    ExactMatch,
    TokenF1,
    Anls { threshold: f64 },
    EditSimilarity,
    Substring,
}

impl AnswerMetric {
    /// Parse the metric name used by the bindings; `threshold` is read by `"anls"` only.
    pub fn from_name(name: &str, threshold: f64) -> CoreResult<Self> {
        match name {
            "exact_match" => Ok(AnswerMetric::ExactMatch),
            "token_f1" => Ok(AnswerMetric::TokenF1),
            "anls" => {
                if threshold > 0.0 && threshold <= 1.0 {
                    Ok(AnswerMetric::Anls { threshold })
                } else {
                    Err(CoreError::argument(
                        "threshold",
                        format!(
                            "must lie in (0, 1] (a normalised distance >= threshold scores 0), \
                             got {threshold}"
                        ),
                    ))
                }
            }
            "edit_similarity" => Ok(AnswerMetric::EditSimilarity),
            "substring_match" => Ok(AnswerMetric::Substring),
            other => Err(CoreError::argument(
                "metric",
                format!(
                    "unknown answer metric {other:?}; use \"exact_match\", \"token_f1\", \
                     \"anls\", \"edit_similarity\" or \"substring_match\""
                ),
            )),
        }
    }
}

/// SQuAD token F1 of two normalised texts (tokens are the space-separated words).
pub fn token_f1(answer: &str, reference: &str) -> f64 {
    token_f1_with(&mut TokenBuffers::default(), answer, reference)
}

/// Reusable buffers of `token_f1`: the byte ranges of each side's tokens.
#[derive(Default)]
pub(super) struct TokenBuffers {
    answer: Vec<(usize, usize)>,
    reference: Vec<(usize, usize)>,
}

/// The byte ranges of the space-separated words of `text`, sorted by their text.
fn sorted_tokens(text: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start = 0;
    for (i, byte) in text.bytes().enumerate() {
        if byte == b' ' {
            if start < i {
                out.push((start, i));
            }
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out.sort_unstable_by(|x, y| text[x.0..x.1].cmp(&text[y.0..y.1]));
}

/// The size of the multiset intersection of the space-separated words of `a` and `b`, and
/// how many words each has.
pub(super) fn common_tokens(buffers: &mut TokenBuffers, a: &str, b: &str) -> (usize, usize, usize) {
    sorted_tokens(a, &mut buffers.answer);
    sorted_tokens(b, &mut buffers.reference);
    let (a_tokens, b_tokens) = (&buffers.answer, &buffers.reference);
    // Merging the sorted token lists.
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a_tokens.len() && j < b_tokens.len() {
        let (x, y) = (a_tokens[i], b_tokens[j]);
        match a[x.0..x.1].cmp(&b[y.0..y.1]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (common, a_tokens.len(), b_tokens.len())
}

fn token_f1_with(buffers: &mut TokenBuffers, answer: &str, reference: &str) -> f64 {
    let (common, answer_len, reference_len) = common_tokens(buffers, answer, reference);
    if answer_len == 0 || reference_len == 0 {
        return f64::from(u8::from(answer_len == 0 && reference_len == 0));
    }
    if common == 0 {
        return 0.0;
    }
    // The official script's operations in its order, so the floats are identical.
    let precision = common as f64 / answer_len as f64;
    let recall = common as f64 / reference_len as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// State of a batch of answer scores: the distance kernel, buffers for the normalised texts
/// and their tokens, so a batch allocates once.
#[derive(Default)]
struct Scratch {
    kernel: Levenshtein,
    left: String,
    right: String,
    tokens: TokenBuffers,
}

/// Score of one normalised answer against one normalised reference.
fn score_pair(
    metric: AnswerMetric,
    kernel: &mut Levenshtein,
    tokens: &mut TokenBuffers,
    answer: &str,
    reference: &str,
) -> f64 {
    match metric {
        AnswerMetric::ExactMatch => f64::from(u8::from(answer == reference)),
        AnswerMetric::TokenF1 => token_f1_with(tokens, answer, reference),
        AnswerMetric::Anls { threshold } => {
            let nl = kernel.edit_count(answer, reference).normalized_distance();
            if nl < threshold { 1.0 - nl } else { 0.0 }
        }
        AnswerMetric::EditSimilarity => {
            kernel.edit_count(answer, reference).normalized_similarity()
        }
        AnswerMetric::Substring => f64::from(u8::from(answer.contains(reference))),
    }
}

/// One score per answer: the best score over its references, after normalising both sides.
pub fn answer_scores(
    reference_offsets: &[usize],
    references: &[&str],
    answers: &[&str],
    metric: AnswerMetric,
    how: Normalization,
) -> CoreResult<Vec<f64>> {
    let rows = answer_rows(
        "references",
        reference_offsets,
        references,
        answers.len(),
        false,
        "acceptable answer",
    )?;
    Ok(map_items(answers, |scratch: &mut Scratch, i, answer| {
        let Scratch {
            kernel,
            left,
            right,
            tokens,
        } = scratch;
        let answer = normalized(answer, how, left);
        let mut best = 0.0f64;
        for reference in rows.row(i) {
            let reference = normalized(reference, how, right);
            best = best.max(score_pair(metric, kernel, tokens, answer, reference));
            if best == 1.0 {
                break;
            }
        }
        best
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(values: &[f64]) -> f64 {
        values.iter().sum::<f64>() / values.len() as f64
    }

    /// The example of the spec's "Answer metrics" section.
    fn spec_example(metric: AnswerMetric, how: Normalization) -> Vec<f64> {
        let references = ["The Eiffel Tower", "Paris", "City of Paris"];
        let offsets = [0, 1, 3];
        let answers = ["eiffel tower.", "Paris, France"];
        answer_scores(&offsets, &references, &answers, metric, how).unwrap()
    }

    #[test]
    fn spec_examples() {
        let em = spec_example(AnswerMetric::ExactMatch, Normalization::Squad);
        assert_eq!(em, vec![1.0, 0.0]);
        let f1 = spec_example(AnswerMetric::TokenF1, Normalization::Squad);
        assert_eq!(f1, vec![1.0, 2.0 * 0.5 * 1.0 / 1.5]);
        assert_eq!((mean(&f1) * 1000.0).round() / 1000.0, 0.833);
        let anls = spec_example(AnswerMetric::Anls { threshold: 0.5 }, Normalization::Basic);
        // "the eiffel tower" vs "eiffel tower.": 5 edits over 16; "paris, france" is 8 edits
        // over 13 from "paris", above the threshold.
        assert_eq!(anls, vec![1.0 - 5.0 / 16.0, 0.0]);
        assert_eq!((mean(&anls) * 1000.0).round() / 1000.0, 0.344);
    }

    #[test]
    fn token_f1_edge_cases() {
        assert_eq!(token_f1("", ""), 1.0);
        assert_eq!(token_f1("", "x"), 0.0);
        assert_eq!(token_f1("x", ""), 0.0);
        assert_eq!(token_f1("a b", "c d"), 0.0);
        // Multisets: "a a b" vs "a b b" share {a, b}.
        assert_eq!(
            token_f1("a a b", "a b b"),
            2.0 * (2.0 / 3.0) * (2.0 / 3.0) / (4.0 / 3.0)
        );
    }

    #[test]
    fn anls_threshold_is_exclusive() {
        // "ab" vs "cd..." style: NL exactly 0.5 scores 0 (Biten et al.: 1 - NL if NL < 0.5).
        let scores = answer_scores(
            &[0, 1],
            &["ab"],
            &["ax"],
            AnswerMetric::Anls { threshold: 0.5 },
            Normalization::Identity,
        )
        .unwrap();
        assert_eq!(scores, vec![0.0]);
        assert!(AnswerMetric::from_name("anls", 0.0).is_err());
        assert!(AnswerMetric::from_name("anls", f64::NAN).is_err());
        assert!(AnswerMetric::from_name("anls", 1.0).is_ok());
    }

    #[test]
    fn substring_match_is_containment_of_code_points() {
        let offsets = [0, 1, 2, 4, 5];
        let references = ["Eiffel Tower", "the", "Rome", "cat", "é"];
        let answers = ["It is the Eiffel tower.", "a", "concatenate", "café"];
        let scores = answer_scores(
            &offsets,
            &references,
            &answers,
            AnswerMetric::Substring,
            Normalization::Squad,
        )
        .unwrap();
        // "the" normalises to "", which occurs in every answer (FlashRAG and BERGEN agree);
        // "cat" occurs inside "concatenate": not whole words.
        assert_eq!(scores, vec![1.0, 1.0, 1.0, 1.0]);
        let none = answer_scores(
            &[0, 1],
            &["Tower"],
            &["tower"],
            AnswerMetric::Substring,
            Normalization::Identity,
        )
        .unwrap();
        assert_eq!(none, vec![0.0]);
    }

    #[test]
    fn invalid_structure_is_an_error_not_a_panic() {
        let metric = AnswerMetric::ExactMatch;
        let how = Normalization::Identity;
        assert!(answer_scores(&[0, 1], &["a"], &["a", "b"], metric, how).is_err());
        assert!(answer_scores(&[0, 0], &[], &["a"], metric, how).is_err());
        assert!(answer_scores(&[0, 2], &["a"], &["a"], metric, how).is_err());
        assert!(answer_scores(&[], &[], &[], metric, how).is_err());
        assert_eq!(answer_scores(&[0], &[], &[], metric, how).unwrap(), vec![]);
    }
}
