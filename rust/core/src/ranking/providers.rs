//! The measures of ir_measures' other providers (gdeval, cwl_eval, compat) and of ranx.

use super::query::*;
use super::*;

impl QueryView<'_> {
    /// gdeval's `err`: ranks up to k, grades above gdeval's maximum 4 count as 4.
    pub(super) fn err(&self, k: usize) -> f64 {
        if self.judged.ideal.is_empty() {
            // gdeval leaves out a topic without a positive judgment.
            return f64::NAN;
        }
        let max = ERR_MAX_GRADE.exp2();
        let (mut score, mut decay) = (0.0, 1.0);
        // Ranks without a positive grade have r = 0: they change neither sum.
        for h in self.ranked.hits.iter().filter(|h| h.grade > 0.0) {
            let rank = h.rank as usize;
            if rank > k {
                break;
            }
            let r = (h.grade.min(ERR_MAX_GRADE).exp2() - 1.0) / max;
            score += r * decay / rank as f64;
            decay *= 1.0 - r;
        }
        score
    }

    /// gdeval's nDCG: `sum (2^g - 1) / ln(i + 1)` over the ranking and over the positive
    /// grades in decreasing order, both cut at k.
    pub(super) fn ndcg_exp(&self, k: usize) -> f64 {
        let dcg = self
            .ranked
            .hits
            .iter()
            .take_while(|h| h.rank as usize <= k)
            .filter(|h| h.grade > 0.0)
            .map(|h| (h.grade.exp2() - 1.0) / (h.rank as f64 + 1.0).ln())
            .fold(0.0, add);
        let ideal = self
            .judged
            .ideal
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, g)| (g.exp2() - 1.0) / (i as f64 + 2.0).ln())
            .fold(0.0, add);
        if ideal > 0.0 { dcg / ideal } else { f64::NAN }
    }

    /// ranx's `dcg_burges`: `sum (2^g - 1) / log2(i + 1)` over the top k, grades below the
    /// threshold gain nothing.
    pub(super) fn dcg_burges(&self, t: f64, k: usize) -> f64 {
        self.ranked
            .hits
            .iter()
            .take_while(|h| h.rank as usize <= k)
            .filter(|h| h.grade >= t)
            .map(|h| (h.grade.exp2() - 1.0) / (h.rank as f64 + 1.0).log2())
            .fold(0.0, add)
    }

    pub(super) fn ideal_dcg_burges(&self, t: f64, k: usize) -> f64 {
        self.judged
            .ideal
            .iter()
            .take_while(|g| **g >= t)
            .take(k)
            .enumerate()
            .map(|(i, g)| (g.exp2() - 1.0) / (i as f64 + 2.0).log2())
            .fold(0.0, add)
    }

    /// A C/W/L measure as cwl_eval computes it: over `CWL_DEPTH` ranks (gains 0 past the
    /// ranking and for unjudged documents), the expected utility
    /// `sum_i W_i g_i` with `W_i = C_i / sum_m C_m` and `C_i` the product of the
    /// continuation probabilities of the ranks above i.
    pub(super) fn cwl(
        &self,
        model: CwlModel,
        gains: CwlGains,
        t: f64,
        cutoff: Option<usize>,
    ) -> f64 {
        let gain_of_grade = |grade: f64| match gains {
            CwlGains::Binary => f64::from(u8::from(grade >= t)),
            CwlGains::Scaled { min_rel, max_rel } => {
                (grade.max(0.0).clamp(min_rel, max_rel) - min_rel) / (max_rel - min_rel)
            }
        };
        // Gains of the ranks with a judgment the ranking was prepared with; 0 elsewhere
        // (unjudged, and judged with a grade that gains nothing unless min_rel < 0).
        let mut g = vec![0.0; CWL_DEPTH];
        for h in self.ranked.hits {
            let rank = h.rank as usize;
            if rank > CWL_DEPTH {
                break;
            }
            g[rank - 1] = gain_of_grade(h.grade);
        }
        let k = cutoff.unwrap_or(CWL_DEPTH) as f64;
        let (mut utility, mut mass, mut reach) = (0.0, 0.0, 1.0);
        let mut cumulative_gain = 0.0;
        for (i, &gain) in g.iter().enumerate() {
            utility += reach * gain;
            mass += reach;
            cumulative_gain += gain;
            let rank = (i + 1) as f64;
            let c = match model {
                CwlModel::Rbp(p) => p,
                CwlModel::Sdcg => {
                    if rank < k {
                        (rank + 1.0).log2() / (rank + 2.0).log2()
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr8 => {
                    if rank < k {
                        1.0 - gain
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr9 => {
                    if rank < k {
                        (rank / (rank + 1.0)) * (1.0 - gain)
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr10(phi) => phi * (1.0 - gain),
                CwlModel::Nerr11(goal) => {
                    ((rank + 2.0 * goal - 1.0) / (rank + 2.0 * goal)).powi(2) * (1.0 - gain)
                }
                CwlModel::Inst(goal) => {
                    let remaining = goal - cumulative_gain;
                    ((rank + goal + remaining - 1.0) / (rank + goal + remaining)).powi(2)
                }
                CwlModel::Insq(goal) => ((rank + 2.0 * goal - 1.0) / (rank + 2.0 * goal)).powi(2),
                CwlModel::Bpm(goal) => f64::from(u8::from(cumulative_gain < goal && rank < k)),
            };
            reach *= c;
        }
        utility / mass
    }

    /// ir_measures' `Compat`: rank-biased overlap of the ranking with an ideal ranking of the
    /// documents with a positive grade (by grade, ties in the order of the ranking, those not
    /// retrieved last), to the depth of the longer of the two.
    pub(super) fn compat(&self, p: f64, normalize: bool) -> f64 {
        let ideal = self.judged.ideal;
        let n_ideal = ideal.len();
        let depth = self.ranked.num_ret.max(n_ideal);
        // Position in the ideal ranking of each retrieved document with a positive grade:
        // the documents with a higher grade, then those of its grade ranked above it.
        let mut retrieved: Vec<(f64, usize)> = self
            .ranked
            .hits
            .iter()
            .filter(|h| h.grade > 0.0)
            .map(|h| (h.grade, h.rank as usize))
            .collect();
        retrieved.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // `joins[d]`: documents in both prefixes from depth d on.
        let mut joins = vec![0usize; depth + 1];
        let mut i = 0;
        while i < retrieved.len() {
            let grade = retrieved[i].0;
            let above = ideal.partition_point(|g| *g > grade);
            let mut j = i;
            while j < retrieved.len() && retrieved[j].0 == grade {
                let position = above + (j - i) + 1;
                let rank = retrieved[j].1;
                if let Some(slot) = joins.get_mut(rank.max(position)) {
                    *slot += 1;
                }
                j += 1;
            }
            i = j;
        }
        let (mut score, mut normalizer, mut best, mut weight) = (0.0, 0.0, 0.0, 1.0);
        let mut overlap = 0usize;
        for (d, joined) in joins.iter().enumerate().skip(1) {
            overlap += joined;
            score += weight * overlap as f64 / d as f64;
            best += weight * d.min(n_ideal) as f64 / d as f64;
            normalizer += weight;
            weight *= p;
        }
        if depth == 0 {
            return 0.0;
        }
        let value = score / normalizer;
        let best = best / normalizer;
        if normalize && best > 0.0 {
            value / best
        } else {
            value
        }
    }
}
