//! One query as the measures see it (`QueryView`) and the measures of trec_eval.

use std::cell::OnceCell;

use super::gains::*;
use super::*;
use crate::ties::Tie;

/// One query's ranking as the measures see it: its judged ranked documents and its length.
#[derive(Clone, Copy)]
pub(super) struct Ranked<'a> {
    pub(super) hits: &'a [Hit],
    pub(super) num_ret: usize,
}

impl<'a> Ranked<'a> {
    /// With `judged_only`, documents absent from the judgments or judged with a negative grade
    /// are removed before ranks are counted (trec_eval `-J`, which cuts at `-M` first).
    pub(super) fn new(
        hits: &'a [Hit],
        num_ret: usize,
        judged_only: bool,
        scratch: &'a mut Vec<Hit>,
    ) -> Self {
        if !judged_only {
            return Ranked { hits, num_ret };
        }
        scratch.clear();
        scratch.extend(hits.iter().filter(|h| h.grade >= 0.0));
        for (i, h) in scratch.iter_mut().enumerate() {
            h.rank = (i + 1) as u32;
        }
        Ranked {
            num_ret: scratch.len(),
            hits: scratch,
        }
    }

    /// trec_eval's `results_rel_list`: the relevance value of each rank.
    pub(super) fn fill_relevance(&self, out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.num_ret, NONPOOL);
        for h in self.hits {
            if let Some(slot) = out.get_mut(h.rank as usize - 1) {
                *slot = if h.grade < 0.0 { UNJUDGED } else { h.grade };
            }
        }
    }
}

/// One query's judgments: the positive grades, sorted in decreasing order (the ideal ranking
/// of the linear-gain nDCG), and the counts of the other judged documents.
pub(super) struct Judgments<'a> {
    pub(super) ideal: &'a [f64],
    pub(super) n_zero: usize,
}

impl<'a> Judgments<'a> {
    pub(super) fn new(
        positive: &'a [f64],
        n_judged: usize,
        n_negative: usize,
        scratch: &'a mut Vec<f64>,
    ) -> Self {
        let n_zero = n_judged.saturating_sub(positive.len() + n_negative);
        // `Prepared` keeps them sorted; others are sorted here.
        if positive
            .windows(2)
            .all(|w| w[0].total_cmp(&w[1]) != std::cmp::Ordering::Less)
        {
            return Judgments {
                ideal: positive,
                n_zero,
            };
        }
        scratch.clear();
        scratch.extend_from_slice(positive);
        scratch.sort_unstable_by(|a, b| b.total_cmp(a));
        Judgments {
            ideal: scratch,
            n_zero,
        }
    }

    /// R: judged documents with a grade >= threshold.
    pub(super) fn n_relevant(&self, threshold: f64) -> usize {
        self.ideal.partition_point(|g| *g >= threshold)
    }

    /// Judged documents with 0 <= grade < threshold.
    pub(super) fn n_nonrelevant(&self, threshold: f64) -> usize {
        self.n_zero + self.ideal.len() - self.n_relevant(threshold)
    }

    /// trec_eval's `rel_levels`: (level, number of judged documents at it), levels ascending.
    /// Integer grades give every level from 0 to the highest (as trec_eval's array); other
    /// grades give 0 and each distinct grade.
    pub(super) fn levels(&self) -> Vec<(f64, usize)> {
        let mut counts: Vec<(f64, usize)> = Vec::new();
        for &g in self.ideal.iter().rev() {
            match counts.last_mut() {
                Some(last) if last.0 == g => last.1 += 1,
                _ => counts.push((g, 1)),
            }
        }
        let integral = counts
            .iter()
            .all(|&(g, _)| g.fract() == 0.0 && g < MAX_INTEGER_LEVELS as f64);
        if integral {
            let top = counts.last().map_or(0, |&(g, _)| g as usize);
            let mut levels: Vec<(f64, usize)> = (0..=top).map(|l| (l as f64, 0)).collect();
            levels[0].1 = self.n_zero;
            for (g, n) in counts {
                levels[g as usize].1 = n;
            }
            levels
        } else {
            let mut levels = vec![(0.0, self.n_zero)];
            levels.extend(counts);
            levels
        }
    }
}

/// Integer grades up to this many levels are expanded to trec_eval's array of levels.
pub(super) const MAX_INTEGER_LEVELS: usize = 1 << 16;
/// Sums start from +0.0: `Iterator::sum` of f64 starts from -0.0, and an empty sum must not
/// print as "-0.0000".
pub(super) fn add(a: f64, b: f64) -> f64 {
    a + b
}

pub(super) struct QueryView<'a> {
    pub(super) ranked: Ranked<'a>,
    pub(super) judged: Judgments<'a>,
    /// The relevance list (filled only when a measure reads it).
    pub(super) relevance: &'a [f64],
    pub(super) threshold: f64,
    /// Computed once per query, when first needed: the relevance levels, the default gain
    /// table, and the interpolated precisions at the evaluation's threshold.
    pub(super) levels: OnceCell<Vec<(f64, usize)>>,
    pub(super) default_gains: OnceCell<Vec<LevelGain>>,
    pub(super) iprec: OnceCell<Vec<f64>>,
    /// The ranks of the relevant documents at the evaluation's threshold, ascending: the
    /// count within a cutoff, which many measures read (P, recall, success at every cutoff),
    /// is then a binary search, not a walk of the hits per measure.
    pub(super) relevant: OnceCell<Vec<u32>>,
    /// Diversity judgments (empty without them).
    pub(super) subtopics: &'a [SubtopicGrade],
    /// Judged documents of the query.
    pub(super) n_judged: usize,
    /// The group of tied scores of each hit (empty unless a tie-aware measure is evaluated).
    pub(super) ties: &'a [Tie],
}

impl QueryView<'_> {
    pub(super) fn relevant_ranks(&self, t: f64) -> impl Iterator<Item = usize> + '_ {
        self.ranked
            .hits
            .iter()
            .filter(move |h| h.grade >= t)
            .map(|h| h.rank as usize)
    }

    pub(super) fn relevant_within(&self, t: f64, k: usize) -> usize {
        if t == self.threshold {
            let ranks = self.relevant.get_or_init(|| {
                let relevant = self.ranked.hits.iter().filter(|h| h.grade >= t);
                relevant.map(|h| h.rank).collect()
            });
            // Hits are in rank order, so the ranks are ascending.
            return ranks.partition_point(|&r| (r as usize) <= k);
        }
        self.relevant_ranks(t).take_while(|&r| r <= k).count()
    }

    pub(super) fn value(&self, measure: &Measure) -> f64 {
        let t = measure.threshold.unwrap_or(self.threshold);
        let k = measure.cutoff.unwrap_or(usize::MAX);
        let r = self.judged.n_relevant(t);
        let num_ret = self.ranked.num_ret;
        let per_relevant = |x: f64| if r == 0 { f64::NAN } else { x / r as f64 };
        match &measure.kind {
            Kind::NumRet => num_ret as f64,
            Kind::NumRel => r as f64,
            Kind::NumRelRet => self.relevant_within(t, usize::MAX) as f64,
            Kind::NumNonrelJudgedRet => self
                .ranked
                .hits
                .iter()
                .filter(|h| h.grade >= 0.0 && h.grade < t)
                .count() as f64,
            Kind::NumJudgedPositive => self.judged.ideal.len() as f64,
            Kind::Precision => self.relevant_within(t, k) as f64 / k as f64,
            Kind::Recall => per_relevant(self.relevant_within(t, k) as f64),
            Kind::Success => f64::from(u8::from(self.relevant_within(t, k) > 0)),
            Kind::Hits => self.relevant_within(t, k) as f64,
            Kind::RelativePrecision => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.relevant_within(t, k) as f64 / k.min(r) as f64
                }
            }
            Kind::Unjudged => {
                let judged = self
                    .ranked
                    .hits
                    .iter()
                    .take_while(|h| h.rank as usize <= k)
                    .filter(|h| h.grade >= 0.0)
                    .count();
                (k.min(num_ret) - judged) as f64 / k as f64
            }
            Kind::Hole => {
                // Every judged document is a hit (the kernel reads all of them).
                let judged = self
                    .ranked
                    .hits
                    .iter()
                    .take_while(|h| h.rank as usize <= k)
                    .count();
                (k.min(num_ret) - judged) as f64 / k as f64
            }
            Kind::ReciprocalRank => match self.relevant_ranks(t).next() {
                Some(rank) if rank <= k => 1.0 / rank as f64,
                _ => 0.0,
            },
            Kind::AveragePrecision => {
                let sum = self
                    .relevant_ranks(t)
                    .take_while(|&rank| rank <= k)
                    .enumerate()
                    .map(|(i, rank)| (i + 1) as f64 / rank as f64)
                    .fold(0.0, add);
                per_relevant(sum)
            }
            Kind::RPrecision => per_relevant(self.relevant_within(t, r) as f64),
            Kind::RPrecisionMult(multiple) => self.r_precision_mult(t, r, *multiple),
            Kind::IPrecAtRecall(level) => {
                let cutoff = (level * r as f64).round() as i64;
                let at = |profile: &[f64]| {
                    usize::try_from(cutoff)
                        .ok()
                        .and_then(|c| profile.get(c).copied())
                        .unwrap_or(0.0)
                };
                if t == self.threshold {
                    at(self.iprec.get_or_init(|| self.iprec_profile(t)))
                } else {
                    at(&self.iprec_profile(t))
                }
            }
            Kind::ElevenPointAverage(levels) => {
                // trec_eval adds the interpolated precisions from the last level down.
                let values = self.interpolated_precision(t, r, levels);
                values.iter().rev().copied().fold(0.0, add) / levels.len() as f64
            }
            Kind::Bpref => self.bpref(t, r),
            Kind::InfAp => self.inf_ap(t, r),
            Kind::BinG => self.bin_g(t, r),
            Kind::G(pairs) => self.g(pairs),
            Kind::Ndcg(None) => self.ndcg_linear(k),
            Kind::Ndcg(Some(pairs)) => self.dcg_family(pairs, k, DcgOutput::Normalized),
            Kind::Dcg(pairs) => self.dcg_family(pairs, k, DcgOutput::Dcg),
            Kind::IdealDcg(pairs) => self.dcg_family(pairs, k, DcgOutput::Ideal),
            Kind::NdcgRel(pairs) => self.ndcg_rel(pairs),
            Kind::Rndcg(pairs) => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.rndcg(pairs)
                }
            }
            Kind::SetPrecision | Kind::SetRelativePrecision | Kind::SetMap if num_ret == 0 => {
                f64::NAN
            }
            Kind::SetPrecision => self.relevant_within(t, usize::MAX) as f64 / num_ret as f64,
            Kind::SetRecall => per_relevant(self.relevant_within(t, usize::MAX) as f64),
            Kind::SetRelativePrecision => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.relevant_within(t, usize::MAX) as f64 / num_ret.min(r) as f64
                }
            }
            Kind::SetMap => {
                if r == 0 {
                    f64::NAN
                } else {
                    let rel_ret = self.relevant_within(t, usize::MAX) as f64;
                    (rel_ret * rel_ret) / (num_ret as f64 * r as f64)
                }
            }
            Kind::SetF(beta) => {
                if r == 0 {
                    return f64::NAN;
                }
                let rel_ret = self.relevant_within(t, usize::MAX);
                if rel_ret == 0 {
                    return 0.0;
                }
                let p = rel_ret as f64 / num_ret as f64;
                let recall = rel_ret as f64 / r as f64;
                (beta + 1.0) * p * recall / (beta * p + recall)
            }
            Kind::Utility(c, n_docs) => {
                let rel_ret = self.relevant_within(t, usize::MAX) as i64;
                let (num_ret, r) = (num_ret as i64, r as i64);
                c[0] * rel_ret as f64
                    + c[1] * (num_ret - rel_ret) as f64
                    + c[2] * (r - rel_ret) as f64
                    + c[3] * (*n_docs as i64 + rel_ret - num_ret - r) as f64
            }
            Kind::Rbp(p, pairs) => self.rbp(*p, pairs),
            Kind::RbpResidual(p) => {
                let mut unjudged = 0usize;
                let mut sum = 0.0;
                let mut weight = 1.0;
                for &rel in self.relevance {
                    if rel < 0.0 {
                        unjudged += 1;
                        sum += weight;
                    }
                    weight *= p;
                }
                if unjudged > 0 {
                    weight + (1.0 - p) * sum
                } else {
                    0.0
                }
            }
            Kind::Err => self.err(k),
            Kind::NdcgExp => self.ndcg_exp(k),
            // The measure's own threshold is ranx's -lN (rbp.95-l2); ir_measures' has none.
            Kind::RbpGraded(p) => self
                .ranked
                .hits
                .iter()
                .take_while(|h| h.rank as usize <= k)
                .filter(|h| h.grade > 0.0 && measure.threshold.is_none_or(|t| h.grade >= t))
                .map(|h| (1.0 - p) * p.powf(f64::from(h.rank - 1)) * h.grade)
                .fold(0.0, add),
            Kind::RbpGradedResidual(p) => {
                // Unjudged: absent from the judgments (a negative grade is a judgment).
                let depth = if measure.cutoff.is_some() { k } else { num_ret };
                let mut judged = self.ranked.hits.iter().map(|h| h.rank as usize).peekable();
                let mut unjudged_weight = 0.0;
                for rank in 1..=depth.min(num_ret) {
                    if judged.next_if_eq(&rank).is_none() {
                        unjudged_weight += (1.0 - p) * p.powf((rank - 1) as f64);
                    }
                }
                unjudged_weight + p.powf(depth as f64)
            }
            Kind::Judged => {
                let depth = k.min(num_ret);
                if depth == 0 {
                    return f64::NAN;
                }
                let judged = self
                    .ranked
                    .hits
                    .iter()
                    .take_while(|h| h.rank as usize <= depth)
                    .count();
                judged as f64 / depth as f64
            }
            Kind::Accuracy => {
                let depth = k.min(num_ret);
                let (mut rel_ret, mut nonrel_above_sum) = (0usize, 0usize);
                for rank in self.relevant_ranks(t).take_while(|&r| r <= depth) {
                    nonrel_above_sum += rank - 1 - rel_ret;
                    rel_ret += 1;
                }
                let nonrel = depth - rel_ret;
                if rel_ret == 0 || nonrel == 0 {
                    return f64::NAN;
                }
                1.0 - nonrel_above_sum as f64 / (nonrel as f64 * rel_ret as f64)
            }
            Kind::Cwl(model, gains) => self.cwl(*model, *gains, t, measure.cutoff),
            Kind::Compat(p, normalize) => self.compat(*p, *normalize),
            Kind::F1 => {
                if r == 0 {
                    return f64::NAN;
                }
                let depth = measure.cutoff.unwrap_or(num_ret);
                if depth == 0 {
                    return 0.0;
                }
                let hits = self.relevant_within(t, depth) as f64;
                let precision = hits / depth as f64;
                let recall = hits / r as f64;
                if precision + recall == 0.0 {
                    0.0
                } else {
                    2.0 * ((precision * recall) / (precision + recall))
                }
            }
            Kind::Diversity(which, alpha, beta) => {
                self.diversity(*which, *alpha, *beta, t, measure.cutoff)
            }
            Kind::TieAware(which) => self.tie_aware(measure, *which),
            Kind::DcgBurges => self.dcg_burges(t, k),
            Kind::NdcgBurges => {
                let ideal = self.ideal_dcg_burges(t, k);
                if ideal > 0.0 {
                    self.dcg_burges(t, k) / ideal
                } else {
                    f64::NAN
                }
            }
        }
    }
}

impl QueryView<'_> {
    /// trec_eval's `ndcg_cut` (and `ndcg` with its default gains): linear gains, an ideal
    /// ranking of all judged positive grades, both cut at k.
    pub(super) fn ndcg_linear(&self, k: usize) -> f64 {
        let dcg = self
            .ranked
            .hits
            .iter()
            .take_while(|h| (h.rank as usize) <= k)
            .filter(|h| h.grade > 0.0)
            .map(|h| h.grade / (h.rank as f64 + 1.0).log2())
            .fold(0.0, add);
        let idcg = self.ideal_dcg_linear(k);
        if idcg > 0.0 { dcg / idcg } else { f64::NAN }
    }

    /// The ideal DCG@k of the linear gains: all judged positive grades by decreasing grade.
    pub(super) fn ideal_dcg_linear(&self, k: usize) -> f64 {
        self.judged
            .ideal
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, g)| g / (i as f64 + 2.0).log2())
            .fold(0.0, add)
    }

    /// trec_eval's `Rprec_mult`: precision at `(long) (multiple * R + 0.9)` documents.
    pub(super) fn r_precision_mult(&self, t: f64, r: usize, multiple: f64) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let cutoff = (multiple * r as f64 + 0.9) as i64;
        if cutoff <= 0 {
            return 0.0;
        }
        let cutoff = cutoff as usize;
        self.relevant_within(t, cutoff) as f64 / cutoff as f64
    }

    /// trec_eval's interpolated precision by number of relevant documents: entry c (1 to the
    /// relevant retrieved) is the value trec_eval's `iprec_at_recall` loop gives a recall
    /// level that rounds to c documents (the highest precision at or below the rank of the
    /// c-th relevant document), entry 0 its value after the loop; levels above the relevant
    /// retrieved get 0. Read off the relevant ranks: precision only falls between them.
    pub(super) fn iprec_profile(&self, t: f64) -> Vec<f64> {
        let ranks: Vec<usize> = self.relevant_ranks(t).collect();
        let num_ret = self.ranked.num_ret;
        let mut profile = vec![0.0; ranks.len() + 1];
        // Nothing retrieved: 0 / 0, NaN (undefined; trec_eval prints -nan).
        let mut int_precis = ranks.len() as f64 / num_ret as f64;
        for (c, &rank) in ranks.iter().enumerate().rev() {
            let precis = (c + 1) as f64 / rank as f64;
            if int_precis < precis {
                int_precis = precis;
            }
            profile[c + 1] = int_precis;
        }
        profile[0] = int_precis;
        profile
    }

    /// trec_eval's `iprec_at_recall` loop for the given recall levels (in any order, as
    /// trec_eval receives them): the values in the order of the levels.
    pub(super) fn interpolated_precision(&self, t: f64, r: usize, levels: &[f64]) -> Vec<f64> {
        let rel = self.relevance;
        let num_ret = rel.len();
        let cutoffs: Vec<i64> = levels
            .iter()
            .map(|l| (l * r as f64).round() as i64)
            .collect();
        let num_rel_ret = rel.iter().filter(|&&g| g >= t).count() as i64;
        let mut values = vec![0.0; levels.len()];
        let mut current = cutoffs.len() as isize - 1;
        while current >= 0 && cutoffs[current as usize] > num_rel_ret {
            current -= 1;
        }
        // Nothing retrieved: 0 / 0, NaN (undefined; trec_eval prints -nan) at the levels that
        // round to 0 relevant documents, 0 at the others, as in trec_eval.
        let mut int_precis = num_rel_ret as f64 / num_ret as f64;
        let mut rel_so_far = num_rel_ret;
        let mut i = num_ret;
        while i > 0 && rel_so_far > 0 {
            let precis = rel_so_far as f64 / i as f64;
            if int_precis < precis {
                int_precis = precis;
            }
            if rel[i - 1] >= t {
                while current >= 0 && rel_so_far == cutoffs[current as usize] {
                    values[current as usize] = int_precis;
                    current -= 1;
                }
                rel_so_far -= 1;
            }
            i -= 1;
        }
        while current >= 0 {
            values[current as usize] = int_precis;
            current -= 1;
        }
        values
    }

    pub(super) fn bpref(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let num_nonrel = self.judged.n_nonrelevant(t);
        let mut nonrel_so_far = 0usize;
        let mut bpref = 0.0;
        for h in self.ranked.hits {
            if h.grade < 0.0 {
                continue;
            }
            if h.grade < t {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                bpref += 1.0 - (nonrel_so_far.min(r) as f64) / (num_nonrel.min(r) as f64);
            } else {
                bpref += 1.0;
            }
        }
        bpref / r as f64
    }

    pub(super) fn inf_ap(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let (mut rel_so_far, mut nonrel_so_far, mut unjudged_so_far) = (0i64, 0i64, 0i64);
        let mut inf_ap = 0.0;
        for h in self.ranked.hits {
            if h.grade < 0.0 {
                unjudged_so_far += 1;
                continue;
            }
            if h.grade < t {
                nonrel_so_far += 1;
                continue;
            }
            rel_so_far += 1;
            let j = h.rank as usize - 1;
            if j == 0 {
                inf_ap += 1.0;
            } else {
                let fj = j as f64;
                inf_ap += 1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * ((rel_so_far - 1 + nonrel_so_far + unjudged_so_far) as f64 / fj)
                        * (((rel_so_far - 1) as f64 + INFAP_EPSILON)
                            / ((rel_so_far - 1 + nonrel_so_far) as f64 + 2.0 * INFAP_EPSILON));
            }
        }
        inf_ap / r as f64
    }

    pub(super) fn bin_g(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let mut rel_so_far = 0usize;
        let mut sum = 0.0;
        for rank in self.relevant_ranks(t) {
            rel_so_far += 1;
            let i = rank - 1;
            sum += 1.0 / ((3 + i - rel_so_far) as f64).log2();
        }
        sum / r as f64
    }

    pub(super) fn gains(&self, pairs: &[(i64, f64)]) -> std::borrow::Cow<'_, [LevelGain]> {
        let levels = self.levels.get_or_init(|| self.judged.levels());
        if pairs.is_empty() {
            std::borrow::Cow::Borrowed(self.default_gains.get_or_init(|| gain_table(&[], levels)))
        } else {
            std::borrow::Cow::Owned(gain_table(pairs, levels))
        }
    }

    /// trec_eval's `G`.
    pub(super) fn g(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
        let min_cost = 1.0;
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            sum_results += results_gain;
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                sum_ideal += ideal_gain;
            }
            if ideal_gain >= min_cost {
                sum_cost += ideal_gain;
            } else {
                sum_cost += min_cost;
            }
            if results_gain != 0.0 {
                results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            sum_results += results_gain;
            sum_cost += min_cost;
            if results_gain != 0.0 {
                results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                sum_ideal += ideal_gain;
            }
        }
        if sum_ideal > 0.0 {
            results_g / sum_ideal
        } else {
            f64::NAN
        }
    }

    /// trec_eval's `ndcg` with a gain table (also `dcg` and `ideal_dcg`), cut at k if given.
    pub(super) fn dcg_family(&self, pairs: &[(i64, f64)], k: usize, output: DcgOutput) -> f64 {
        let table = self.gains(pairs);
        let rel = &self.relevance[..self.relevance.len().min(k)];
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_dcg, mut ideal_dcg) = (0.0, 0.0);
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while ideal_gain > 0.0 && i < k {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        match output {
            DcgOutput::Dcg => results_dcg,
            DcgOutput::Ideal => ideal_dcg,
            DcgOutput::Normalized if ideal_dcg > 0.0 => results_dcg / ideal_dcg,
            DcgOutput::Normalized => f64::NAN,
        }
    }

    /// trec_eval's `ndcg_rel`.
    pub(super) fn ndcg_rel(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let (mut num_rel_ret, mut num_rel) = (0i64, 0i64);
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                num_rel += 1;
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            if results_gain > 0.0 {
                sum += results_dcg / ideal_dcg;
                num_rel_ret += 1;
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            if results_gain > 0.0 {
                sum += results_dcg / ideal_dcg;
                num_rel_ret += 1;
            }
            i += 1;
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                num_rel += 1;
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if ideal_dcg <= 0.0 {
            return f64::NAN;
        }
        sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
        if sum > 0.0 { sum / num_rel as f64 } else { 0.0 }
    }

    /// trec_eval's `Rndcg` (the caller checks R > 0).
    pub(super) fn rndcg(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let mut old_ideal_gain = ideal_gain;
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let mut changes = 0i64;
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            ideal_gain = ideal.advance();
            if old_ideal_gain != ideal_gain {
                if ideal_dcg > 0.0 {
                    sum += results_dcg / ideal_dcg;
                    changes += 1;
                }
                old_ideal_gain = ideal_gain;
            }
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if i < rel.len() {
            while i < rel.len() {
                let results_gain = gain_of(rel[i], &table);
                if results_gain != 0.0 {
                    results_dcg += results_gain / ((i + 2) as f64).log2();
                }
                i += 1;
            }
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if old_ideal_gain != ideal_gain {
                if ideal_dcg > 0.0 {
                    sum += results_dcg / ideal_dcg;
                    changes += 1;
                }
                old_ideal_gain = ideal_gain;
            }
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if changes == 0 {
            f64::NAN
        } else {
            sum / changes as f64
        }
    }

    /// trec_eval's `rbp`. Gains outside [0, 1] are rescaled to it with the smallest and
    /// largest gain of the table (trec_eval reads those two from uninitialised variables, so
    /// its graded values vary from one build to another; with binary grades no rescaling).
    pub(super) fn rbp(&self, p: f64, pairs: &[(i64, f64)]) -> f64 {
        let mut table = self.gains(pairs).into_owned();
        let min = table.iter().map(|g| g.gain).fold(f64::INFINITY, f64::min);
        let max = table
            .iter()
            .map(|g| g.gain)
            .fold(f64::NEG_INFINITY, f64::max);
        if min < 0.0 || max > 1.0 {
            for g in &mut table {
                g.gain = (g.gain - min) / (max - min);
            }
        }
        let mut sum = 0.0;
        let mut weight = 1.0;
        for &rel in self.relevance {
            let gain = gain_of(rel, &table);
            if gain != 0.0 {
                sum += gain * weight;
            }
            weight *= p;
        }
        (1.0 - p) * sum
    }
}

#[derive(Clone, Copy)]
pub(super) enum DcgOutput {
    Normalized,
    Dcg,
    Ideal,
}
