//! The tie-aware measures: the mean of P@k, recall@k, RR, AP and nDCG over every order of the
//! documents with tied scores, in closed form (McSherry and Najork, "Computing Information
//! Retrieval Performance Measures Efficiently in the Presence of Tied Scores", ECIR 2008).
//!
//! A query's ranked judged documents come in groups of tied scores (`ties::Tie`): a group
//! starts after `a` documents and holds `n`, of which the hits of the group are the judged ones.
//! Over the `n!` orders of a group every document is equally likely at each of its positions,
//! so (by linearity) the expected number of relevant documents in the top k and the expected
//! DCG are sums over groups of the group's share of the positions within k. RR and AP are not
//! linear in the positions, but their expectations are short sums over the positions of a
//! group, from the probability that the first relevant document of a group with r relevant
//! of n sits at its j-th position, C(n - j, r - 1) / C(n, r), and that two positions of a
//! group both hold relevant documents, r (r - 1) / (n (n - 1)).
//!
//! Without ties (groups of one) each value is the value of the measure itself.

use super::query::{QueryView, add};
use super::{Hit, Measure};
use crate::ties::Tie;

/// One group of tied documents: where it starts (0-based), how many documents it holds, and
/// its hits (the judged documents in it).
#[derive(Clone, Copy)]
struct Group<'a> {
    above: usize,
    size: usize,
    hits: &'a [Hit],
}

impl Group<'_> {
    /// The positions of the group within the top `k`.
    fn within(&self, k: usize) -> usize {
        k.saturating_sub(self.above).min(self.size)
    }

    fn relevant(&self, t: f64) -> usize {
        self.hits.iter().filter(|h| h.grade >= t).count()
    }
}

/// The groups of the hits, in rank order (hits are in rank order, and a group's hits are
/// consecutive).
fn groups<'a>(hits: &'a [Hit], ties: &'a [Tie]) -> impl Iterator<Item = Group<'a>> + 'a {
    let mut start = 0;
    std::iter::from_fn(move || {
        let first = ties.get(start)?;
        let len = ties[start..]
            .iter()
            .take_while(|t| t.above == first.above)
            .count();
        let group = Group {
            above: first.above as usize,
            size: first.size as usize,
            hits: &hits[start..start + len],
        };
        start += len;
        Some(group)
    })
}

/// 1 / log2(i + 1), trec_eval's discount of the 1-based rank i.
fn discount(rank: usize) -> f64 {
    1.0 / (rank as f64 + 1.0).log2()
}

impl QueryView<'_> {
    fn tied_groups(&self) -> impl Iterator<Item = Group<'_>> + '_ {
        groups(self.ranked.hits, self.ties)
    }

    /// The expected number of relevant documents in the top k.
    pub(super) fn expected_relevant_within(&self, t: f64, k: usize) -> f64 {
        self.tied_groups()
            .take_while(|g| g.above < k)
            .map(|g| {
                let r = g.relevant(t);
                let within = g.within(k);
                if within == g.size {
                    r as f64
                } else {
                    r as f64 * within as f64 / g.size as f64
                }
            })
            .fold(0.0, add)
    }

    /// The expected reciprocal rank of the first relevant document within the top k (0 when
    /// there is none).
    pub(super) fn expected_reciprocal_rank(&self, t: f64, k: usize) -> f64 {
        let Some((g, r)) = self
            .tied_groups()
            .map(|g| (g, g.relevant(t)))
            .find(|&(_, r)| r > 0)
        else {
            return 0.0;
        };
        let n = g.size;
        // P(the first relevant document is at the group's position j), j = 1, 2, ...:
        // C(n - j, r - 1) / C(n, r), each from the one before.
        let mut p = r as f64 / n as f64;
        let mut sum = 0.0;
        for j in 1..=g.within(k).min(n - r + 1) {
            sum += p / (g.above + j) as f64;
            if j < n {
                p *= (n - j + 1 - r) as f64 / (n - j) as f64;
            }
        }
        sum
    }

    /// The expected average precision within the top k, times R (the caller divides).
    pub(super) fn expected_precision_sum(&self, t: f64, k: usize) -> f64 {
        let mut above_relevant = 0usize;
        let mut sum = 0.0;
        for g in self.tied_groups() {
            let r = g.relevant(t);
            if r == 0 {
                continue;
            }
            if g.above >= k {
                break;
            }
            let (n, c) = (g.size, above_relevant as f64);
            let share = r as f64 / n as f64;
            // At the group's position i (rank a + i): P(relevant) (c + 1 + (i - 1) P(another
            // position relevant too | this one)) / (a + i).
            let pair = if n > 1 {
                (r - 1) as f64 / (n - 1) as f64
            } else {
                0.0
            };
            for i in 1..=g.within(k) {
                sum += share * (c + 1.0 + (i - 1) as f64 * pair) / (g.above + i) as f64;
            }
            above_relevant += r;
        }
        sum
    }

    /// The expected DCG within the top k with the grades as gains (grades <= 0 gain nothing).
    pub(super) fn expected_dcg(&self, k: usize) -> f64 {
        self.tied_groups()
            .take_while(|g| g.above < k)
            .map(|g| {
                let gains = g
                    .hits
                    .iter()
                    .filter(|h| h.grade > 0.0)
                    .map(|h| h.grade)
                    .fold(0.0, add);
                if gains == 0.0 {
                    return 0.0;
                }
                if g.size == 1 {
                    // As the linear nDCG adds a rank's gain.
                    return gains / (g.above as f64 + 2.0).log2();
                }
                let discounts = (1..=g.within(k))
                    .map(|i| discount(g.above + i))
                    .fold(0.0, add);
                gains / g.size as f64 * discounts
            })
            .fold(0.0, add)
    }

    /// The tie-aware value of `measure` (its kind is one of the tie-aware kinds).
    pub(super) fn tie_aware(&self, measure: &Measure, which: TieAware) -> f64 {
        let t = measure.threshold.unwrap_or(self.threshold);
        let k = measure.cutoff.unwrap_or(usize::MAX);
        let r = self.judged.n_relevant(t);
        match which {
            TieAware::Precision => self.expected_relevant_within(t, k) / k as f64,
            TieAware::Recall if r == 0 => f64::NAN,
            TieAware::Recall => self.expected_relevant_within(t, k) / r as f64,
            TieAware::ReciprocalRank => self.expected_reciprocal_rank(t, k),
            TieAware::AveragePrecision if r == 0 => f64::NAN,
            TieAware::AveragePrecision => self.expected_precision_sum(t, k) / r as f64,
            TieAware::Ndcg => {
                let ideal = self.ideal_dcg_linear(k);
                if ideal > 0.0 {
                    self.expected_dcg(k) / ideal
                } else {
                    f64::NAN
                }
            }
        }
    }
}

/// The measures with a tie-aware kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieAware {
    Precision,
    Recall,
    ReciprocalRank,
    AveragePrecision,
    Ndcg,
}
