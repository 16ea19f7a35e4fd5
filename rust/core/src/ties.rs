//! Groups of tied scores, for the tie-aware measures (McSherry and Najork, "Computing
//! Information Retrieval Performance Measures Efficiently in the Presence of Tied Scores",
//! ECIR 2008).
//!
//! trec_eval orders documents with equal scores by id (byte-wise descending), so a measure
//! depends on how the documents happen to be named. A tie-aware measure is instead the mean
//! of the measure over every order of the tied documents; what it needs of a ranked document
//! is the group of tied documents it belongs to: how many documents rank above the group, and
//! how many the group holds. The ranking is cut at `max_docs` first (trec_eval `-M`, in
//! trec_eval's order), then the ties among the retrieved documents are averaged: a group that
//! the cut crosses holds only its retrieved documents.
//!
//! This module is a leaf: it reads scores and ranks, not the core's input types.

/// The group of tied documents a ranked document belongs to: `above` documents rank before
/// the group (they have higher scores) and it holds `size` retrieved documents (its own
/// included), so it spans the 0-based positions `above..above + size`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tie {
    pub above: u32,
    pub size: u32,
}

impl Tie {
    /// The group of a document alone at a 1-based rank (a ranking given in order has no ties).
    pub fn alone(rank: u32) -> Tie {
        Tie {
            above: rank.saturating_sub(1),
            size: 1,
        }
    }
}

/// -0.0 and 0.0 are one score (as trec_eval compares them): the canonical value.
fn canonical(score: f64) -> f64 {
    if score == 0.0 { 0.0 } else { score }
}

/// The tie group of the document at each of `ranks` (1-based ranks in trec_eval's order, each
/// at most the number of scores) among the documents scored `scores` (every ranked document
/// once, in any order, no NaN), the ranking cut at `limit` documents. `scores` is sorted in
/// place (it is the caller's scratch).
pub fn tie_groups(
    scores: &mut [f64],
    ranks: impl Iterator<Item = u32>,
    limit: usize,
) -> Result<Vec<Tie>, String> {
    for s in scores.iter_mut() {
        *s = canonical(*s);
    }
    scores.sort_unstable_by(|a, b| b.total_cmp(a));
    let to_u32 = |n: usize| {
        u32::try_from(n).map_err(|_| "a ranking is longer than 2^32 documents".to_string())
    };
    ranks
        .map(|rank| {
            let Some(&score) = (rank as usize).checked_sub(1).and_then(|i| scores.get(i)) else {
                return Err(format!(
                    "internal: rank {rank} of {} documents",
                    scores.len()
                ));
            };
            // In decreasing order, the group of `score` is where the scores equal it.
            let above = scores.partition_point(|&s| s > score);
            let end = scores.partition_point(|&s| s >= score).min(limit);
            Ok(Tie {
                above: to_u32(above)?,
                size: to_u32(end.saturating_sub(above))?,
            })
        })
        .collect()
}

/// The tie groups of the documents left when the unjudged documents are removed (trec_eval
/// `-J`): `kept` says which of the documents whose groups are `ties` (in rank order) are
/// kept; those that remain of one group form its group, the groups in the same order.
pub fn ties_of_kept(ties: &[Tie], kept: impl Iterator<Item = bool>, out: &mut Vec<Tie>) {
    out.clear();
    let mut above = 0u32;
    let mut current: Option<u32> = None;
    let mut start = 0usize;
    for (tie, keep) in ties.iter().zip(kept) {
        if !keep {
            continue;
        }
        if current != Some(tie.above) {
            // A new group: the previous one is complete.
            let size = (out.len() - start) as u32;
            for t in &mut out[start..] {
                t.size = size;
            }
            above += size;
            start = out.len();
            current = Some(tie.above);
        }
        out.push(Tie { above, size: 0 });
    }
    let size = (out.len() - start) as u32;
    for t in &mut out[start..] {
        t.size = size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_ranks() {
        // Scores 3, 2, 2, 2, 1 (trec order): ranks 2..4 are one group.
        let mut scores = vec![2.0, 1.0, 2.0, 3.0, 2.0];
        let ties = tie_groups(&mut scores, [1, 3, 5].into_iter(), usize::MAX).unwrap();
        assert_eq!(
            ties,
            vec![
                Tie { above: 0, size: 1 },
                Tie { above: 1, size: 3 },
                Tie { above: 4, size: 1 }
            ]
        );
        // Cut at 3 documents: the group of rank 2 keeps 2 of its 3.
        let ties = tie_groups(&mut scores, [2].into_iter(), 3).unwrap();
        assert_eq!(ties, vec![Tie { above: 1, size: 2 }]);
        // -0.0 and 0.0 tie.
        let mut scores = vec![0.0, -0.0, 1.0];
        let ties = tie_groups(&mut scores, [2].into_iter(), usize::MAX).unwrap();
        assert_eq!(ties, vec![Tie { above: 1, size: 2 }]);
        assert!(tie_groups(&mut scores, [4].into_iter(), usize::MAX).is_err());
        assert!(tie_groups(&mut scores, [0].into_iter(), usize::MAX).is_err());
    }

    #[test]
    fn groups_of_kept_documents() {
        let ties = [
            Tie { above: 0, size: 3 },
            Tie { above: 0, size: 3 },
            Tie { above: 0, size: 3 },
            Tie { above: 3, size: 1 },
            Tie { above: 4, size: 2 },
            Tie { above: 4, size: 2 },
        ];
        let mut out = Vec::new();
        let kept = [true, false, true, false, true, true];
        ties_of_kept(&ties, kept.into_iter(), &mut out);
        assert_eq!(
            out,
            vec![
                Tie { above: 0, size: 2 },
                Tie { above: 0, size: 2 },
                Tie { above: 2, size: 2 },
                Tie { above: 2, size: 2 }
            ]
        );
        ties_of_kept(&[], [].into_iter(), &mut out);
        assert!(out.is_empty());
    }
}
