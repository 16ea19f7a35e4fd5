//! Ranking metrics per query, all requested metrics in one pass over each query, queries in
//! parallel.
//!
//! The input is what `prepare` leaves of a ranking once it has been ordered and cut: the rank and
//! grade of every ranked document with a positive grade (`Hit`), and the positive grades of all
//! judged documents of the query. Every metric here depends on nothing else, which keeps the
//! prepared form about fifty times smaller than the ranking itself.
//!
//! Semantics are trec_eval's (see `reference/ir-metric-semantics.md`): relevant means
//! grade >= threshold; P@k divides by k; recall, AP and R-precision divide by R, the number of
//! relevant judged documents; nDCG uses the grade as a linear gain, a log2(rank + 1) discount
//! and an ideal ranking of all positive judged grades, cut at k, and its gains are not
//! thresholded. A value that divides by zero (R = 0, or an ideal DCG of 0) is NaN: the caller
//! decides what an undefined value becomes.

use rayon::prelude::*;

use crate::csr::Rows;
use crate::{CoreError, CoreResult};

/// A ranked document with a positive grade: its 1-based rank and its grade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub rank: u32,
    pub grade: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetricKind {
    /// relevant in the top k / k (trec_eval `P.k`)
    Precision,
    /// relevant in the top k / R (trec_eval `recall.k`)
    Recall,
    /// 1 if a relevant document is in the top k (trec_eval `success.k`)
    HitRate,
    /// 1 / rank of the first relevant document, within the top k if given (trec_eval `recip_rank`)
    ReciprocalRank,
    /// sum of precision at each relevant rank (within the top k if given) / R (trec_eval `map`, `map_cut.k`)
    AveragePrecision,
    /// relevant in the top R / R (trec_eval `Rprec`)
    RPrecision,
    /// DCG@k / IDCG@k with linear gains (trec_eval `ndcg_cut.k`; `ndcg` without k)
    Ndcg,
}

/// A metric and its cutoff (`None`: the whole ranking).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Metric {
    pub kind: MetricKind,
    pub cutoff: Option<usize>,
}

impl Metric {
    pub fn new(kind: MetricKind, cutoff: Option<usize>) -> CoreResult<Metric> {
        use MetricKind::*;
        match (kind, cutoff) {
            (_, Some(0)) => Err(CoreError::argument(
                "k",
                "a cutoff must be a positive integer, got 0",
            )),
            (Precision | Recall | HitRate, None) => Err(CoreError::argument(
                "k",
                format!("{kind:?} needs a cutoff k (a positive integer)"),
            )),
            (RPrecision, Some(k)) => Err(CoreError::argument(
                "k",
                format!("R-precision has no cutoff (it is precision at R), got k={k}"),
            )),
            _ => Ok(Metric { kind, cutoff }),
        }
    }

    /// True when the metric divides by R or by the ideal DCG, so it can be undefined.
    pub fn can_be_undefined(&self) -> bool {
        matches!(
            self.kind,
            MetricKind::Recall
                | MetricKind::AveragePrecision
                | MetricKind::RPrecision
                | MetricKind::Ndcg
        )
    }
}

/// Per-query values, row-major: `values[q * metrics.len() + m]`. NaN marks an undefined value.
pub fn evaluate(
    hits: Rows<'_, Hit>,
    judged_positive: Rows<'_, f64>,
    metrics: &[Metric],
    threshold: f64,
) -> CoreResult<Vec<f64>> {
    if hits.len() != judged_positive.len() {
        return Err(CoreError::argument(
            "judged",
            format!(
                "{} queries of rankings but {} of judgments",
                hits.len(),
                judged_positive.len()
            ),
        ));
    }
    if !(threshold.is_finite() && threshold > 0.0) {
        return Err(CoreError::argument(
            "relevance_threshold",
            format!("must be a finite number > 0, got {threshold}"),
        ));
    }
    let n_metrics = metrics.len();
    let mut values = vec![f64::NAN; hits.len() * n_metrics];
    if n_metrics == 0 {
        return Ok(values);
    }
    let needs_ideal = metrics.iter().any(|m| m.kind == MetricKind::Ndcg);
    values
        .par_chunks_mut(n_metrics)
        .with_min_len(64)
        .enumerate()
        .for_each_init(Vec::new, |ideal, (q, out)| {
            let judged = judged_positive.row(q);
            if needs_ideal {
                ideal.clear();
                ideal.extend(judged.iter().copied().filter(|g| *g > 0.0));
                ideal.sort_unstable_by(|a, b| b.total_cmp(a));
            }
            let query = QueryView {
                hits: hits.row(q),
                n_relevant: judged.iter().filter(|g| **g >= threshold).count(),
                ideal,
                threshold,
            };
            for (slot, metric) in out.iter_mut().zip(metrics) {
                *slot = query.value(metric);
            }
        });
    Ok(values)
}

/// Sums start from +0.0: `Iterator::sum` of f64 starts from -0.0, and an empty sum must not
/// print as "-0.0000".
fn add(a: f64, b: f64) -> f64 {
    a + b
}

struct QueryView<'a> {
    hits: &'a [Hit],
    n_relevant: usize,
    ideal: &'a [f64],
    threshold: f64,
}

impl QueryView<'_> {
    fn relevant_ranks(&self) -> impl Iterator<Item = usize> + '_ {
        self.hits
            .iter()
            .filter(|h| h.grade >= self.threshold)
            .map(|h| h.rank as usize)
    }

    fn relevant_within(&self, k: usize) -> usize {
        self.relevant_ranks().take_while(|&r| r <= k).count()
    }

    fn per_relevant(&self, numerator: f64) -> f64 {
        if self.n_relevant == 0 {
            f64::NAN
        } else {
            numerator / self.n_relevant as f64
        }
    }

    fn value(&self, metric: &Metric) -> f64 {
        let k = metric.cutoff.unwrap_or(usize::MAX);
        match metric.kind {
            MetricKind::Precision => self.relevant_within(k) as f64 / k as f64,
            MetricKind::Recall => self.per_relevant(self.relevant_within(k) as f64),
            MetricKind::HitRate => f64::from(u8::from(self.relevant_within(k) > 0)),
            MetricKind::ReciprocalRank => match self.relevant_ranks().next() {
                Some(r) if r <= k => 1.0 / r as f64,
                _ => 0.0,
            },
            MetricKind::AveragePrecision => {
                let sum = self
                    .relevant_ranks()
                    .take_while(|&r| r <= k)
                    .enumerate()
                    .map(|(i, r)| (i + 1) as f64 / r as f64)
                    .fold(0.0, add);
                self.per_relevant(sum)
            }
            MetricKind::RPrecision => {
                self.per_relevant(self.relevant_within(self.n_relevant) as f64)
            }
            MetricKind::Ndcg => {
                let dcg = self
                    .hits
                    .iter()
                    .take_while(|h| (h.rank as usize) <= k)
                    .map(|h| h.grade / (h.rank as f64 + 1.0).log2())
                    .fold(0.0, add);
                let idcg = self
                    .ideal
                    .iter()
                    .take(k)
                    .enumerate()
                    .map(|(i, g)| g / (i as f64 + 2.0).log2())
                    .fold(0.0, add);
                if idcg > 0.0 { dcg / idcg } else { f64::NAN }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::RowsBuf;
    use proptest::prelude::*;

    /// Straight from the definitions, over the full list of grades of the ranking.
    fn naive(ranked: &[f64], judged: &[f64], metric: Metric, t: f64) -> f64 {
        let r = judged.iter().filter(|g| **g >= t).count();
        let k = metric.cutoff.unwrap_or(ranked.len().max(1));
        let top = &ranked[..k.min(ranked.len())];
        let rel_in = |xs: &[f64]| xs.iter().filter(|g| **g >= t).count() as f64;
        let div_r = |x: f64| if r == 0 { f64::NAN } else { x / r as f64 };
        match metric.kind {
            MetricKind::Precision => rel_in(top) / k as f64,
            MetricKind::Recall => div_r(rel_in(top)),
            MetricKind::HitRate => (rel_in(top) > 0.0) as u8 as f64,
            MetricKind::ReciprocalRank => top
                .iter()
                .position(|g| *g >= t)
                .map_or(0.0, |i| 1.0 / (i + 1) as f64),
            MetricKind::AveragePrecision => {
                let mut s = 0.0;
                for i in 0..top.len() {
                    if top[i] >= t {
                        s += rel_in(&top[..=i]) / (i + 1) as f64;
                    }
                }
                div_r(s)
            }
            MetricKind::RPrecision => div_r(rel_in(&ranked[..r.min(ranked.len())])),
            MetricKind::Ndcg => {
                let dcg: f64 = top
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| **g > 0.0)
                    .map(|(i, g)| g / ((i + 2) as f64).log2())
                    .sum();
                let mut ideal: Vec<f64> = judged.iter().copied().filter(|g| *g > 0.0).collect();
                ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
                let kk = metric.cutoff.unwrap_or(ideal.len());
                let idcg: f64 = ideal
                    .iter()
                    .take(kk)
                    .enumerate()
                    .map(|(i, g)| g / ((i + 2) as f64).log2())
                    .sum();
                if idcg > 0.0 { dcg / idcg } else { f64::NAN }
            }
        }
    }

    fn hits_of(ranked: &[f64]) -> Vec<Hit> {
        ranked
            .iter()
            .enumerate()
            .filter(|(_, g)| **g > 0.0)
            .map(|(i, g)| Hit {
                rank: (i + 1) as u32,
                grade: *g,
            })
            .collect()
    }

    fn eval_one(ranked: &[f64], judged: &[f64], metric: Metric, t: f64) -> f64 {
        let mut h = RowsBuf::default();
        h.push_row(hits_of(ranked));
        let mut j = RowsBuf::default();
        j.push_row(judged.iter().copied().filter(|g| *g > 0.0));
        evaluate(h.view(), j.view(), &[metric], t).unwrap()[0]
    }

    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12
    }

    fn all_metrics(k: usize) -> Vec<Metric> {
        use MetricKind::*;
        let mut out = vec![];
        for kind in [
            Precision,
            Recall,
            HitRate,
            ReciprocalRank,
            AveragePrecision,
            Ndcg,
        ] {
            out.push(Metric::new(kind, Some(k)).unwrap());
        }
        for kind in [ReciprocalRank, AveragePrecision, RPrecision, Ndcg] {
            out.push(Metric::new(kind, None).unwrap());
        }
        out
    }

    #[test]
    fn hand_computed_values() {
        // E8: three relevant, run d1 > x, k = 10.
        let ranked = [1.0, 0.0];
        let judged = [1.0, 1.0, 1.0];
        let m = |kind, k| Metric::new(kind, k).unwrap();
        assert!(close(
            eval_one(&ranked, &judged, m(MetricKind::Precision, Some(10)), 1.0),
            0.1
        ));
        assert!(close(
            eval_one(&ranked, &judged, m(MetricKind::Recall, Some(10)), 1.0),
            1.0 / 3.0
        ));
        assert!(close(
            eval_one(&ranked, &judged, m(MetricKind::AveragePrecision, None), 1.0),
            1.0 / 3.0
        ));
        let ndcg = eval_one(&ranked, &judged, m(MetricKind::Ndcg, Some(10)), 1.0);
        assert!((ndcg - 0.4693).abs() < 5e-5, "{ndcg}");
        // E11: 4 relevant, run d1 > x > d2.
        let ap = eval_one(
            &[1.0, 0.0, 1.0],
            &[1.0; 4],
            m(MetricKind::AveragePrecision, None),
            1.0,
        );
        assert!(close(ap, (1.0 + 2.0 / 3.0) / 4.0));
        let ap2 = eval_one(
            &[1.0, 0.0, 1.0],
            &[1.0; 4],
            m(MetricKind::AveragePrecision, Some(2)),
            1.0,
        );
        assert!(close(ap2, 0.25));
        // E2: grades d1=1, d2=3, d3=2, run d1 > d2 > x: linear nDCG@3 = 0.6075.
        let ndcg = eval_one(
            &[1.0, 3.0, 0.0],
            &[1.0, 3.0, 2.0],
            m(MetricKind::Ndcg, Some(3)),
            1.0,
        );
        assert!((ndcg - 0.6075).abs() < 5e-5, "{ndcg}");
    }

    #[test]
    fn empty_sums_are_positive_zero() {
        for metric in all_metrics(5) {
            let v = eval_one(&[0.0, 0.0], &[1.0], metric, 1.0);
            assert!(v == 0.0 && v.is_sign_positive(), "{metric:?}: {v}");
        }
    }

    #[test]
    fn undefined_values_are_nan() {
        let v = eval_one(
            &[0.0],
            &[],
            Metric::new(MetricKind::Recall, Some(5)).unwrap(),
            1.0,
        );
        assert!(v.is_nan());
        let v = eval_one(
            &[0.0],
            &[],
            Metric::new(MetricKind::Precision, Some(5)).unwrap(),
            1.0,
        );
        assert_eq!(v, 0.0);
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(Metric::new(MetricKind::Precision, None).is_err());
        assert!(Metric::new(MetricKind::Ndcg, Some(0)).is_err());
        assert!(Metric::new(MetricKind::RPrecision, Some(3)).is_err());
        let h = RowsBuf::<Hit>::default();
        let j = RowsBuf::<f64>::default();
        let m = [Metric::new(MetricKind::Ndcg, None).unwrap()];
        assert!(evaluate(h.view(), j.view(), &m, 0.0).is_err());
        assert!(evaluate(h.view(), j.view(), &m, f64::NAN).is_err());
    }

    proptest! {
        #[test]
        fn matches_naive_definitions(
            ranked in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0), Just(-1.0)], 0..40),
            extra_judged in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0)], 0..10),
            k in 1usize..50,
            t in prop_oneof![Just(1.0), Just(2.0), Just(0.5)],
        ) {
            // Judged grades: every ranked document's grade (unjudged docs have grade 0) plus
            // documents that were not retrieved.
            let judged: Vec<f64> = ranked.iter().copied().chain(extra_judged.iter().copied()).collect();
            for metric in all_metrics(k) {
                let fast = eval_one(&ranked, &judged, metric, t);
                let slow = naive(&ranked, &judged, metric, t);
                prop_assert!(close(fast, slow), "{metric:?}: {fast} vs {slow}");
            }
        }
    }
}
