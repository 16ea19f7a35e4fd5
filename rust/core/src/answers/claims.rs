//! Claim recall: the share of an answer's reference claims that the answer covers, by a
//! stated token rule (no language model).
//!
//! The claim and the answer are normalised (SQuAD's normalisation by default) and split into
//! words; a claim's coverage is the share of its words found in the answer, as multisets (the
//! recall of SQuAD's token F1): `|claim ∩ answer| / |claim|`. A claim is covered when its
//! coverage is at least `threshold` (1.0: every word of the claim is in the answer); a claim
//! with no word left after normalisation is covered. The value of an answer is the number of
//! covered claims over the number of claims, undefined (NaN) for an answer without claims.

use super::pairs::{TokenBuffers, common_tokens};
use super::rows::answer_rows;
use crate::batch::map_items;
use crate::normalize::{Normalization, normalized};
use crate::{CoreError, CoreResult};

#[derive(Default)]
struct Scratch {
    answer: String,
    claim: String,
    tokens: TokenBuffers,
}

/// Claim recall of each answer against its claims (NaN for an answer with none).
pub fn claim_recall_scores(
    claim_offsets: &[usize],
    claims: &[&str],
    answers: &[&str],
    how: Normalization,
    threshold: f64,
) -> CoreResult<Vec<f64>> {
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(CoreError::argument(
            "threshold",
            format!(
                "must lie in (0, 1] (the share of a claim's words the answer must hold), got {threshold}"
            ),
        ));
    }
    let rows = answer_rows(
        "claims",
        claim_offsets,
        claims,
        answers.len(),
        true,
        "claim",
    )?;
    Ok(map_items(answers, |scratch: &mut Scratch, i, answer| {
        let row = rows.row(i);
        if row.is_empty() {
            return f64::NAN;
        }
        let Scratch {
            answer: answer_buffer,
            claim: claim_buffer,
            tokens,
        } = scratch;
        let answer = normalized(answer, how, answer_buffer);
        let covered = row
            .iter()
            .filter(|claim| {
                let claim = normalized(claim, how, claim_buffer);
                let (common, claim_len, _) = common_tokens(tokens, claim, answer);
                claim_len == 0 || common as f64 / claim_len as f64 >= threshold
            })
            .count();
        covered as f64 / row.len() as f64
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_claims_over_all_claims() {
        let claims = [
            "Paris is the capital of France.",
            "The Eiffel Tower was completed in 1889.",
            "It is 330 metres tall.",
        ];
        let answer = "The capital of France is Paris; its tower was completed in 1889.";
        let all =
            claim_recall_scores(&[0, 3], &claims, &[answer], Normalization::Squad, 1.0).unwrap();
        // The second claim misses "eiffel" (4 of its 5 words), the third misses all but "is".
        assert_eq!(all, vec![1.0 / 3.0]);
        let most =
            claim_recall_scores(&[0, 3], &claims, &[answer], Normalization::Squad, 0.8).unwrap();
        assert_eq!(most, vec![2.0 / 3.0]);
        let none = claim_recall_scores(&[0, 0], &[], &["x"], Normalization::Squad, 1.0).unwrap();
        assert!(none[0].is_nan());
        assert!(claim_recall_scores(&[0, 0], &[], &["x"], Normalization::Squad, 0.0).is_err());
    }
}
