//! Paired randomisation tests over per-query differences, for many metrics at once.
//!
//! The input is a row-major matrix of differences `d[m][i]` (metric `m`, query pair `i`), the
//! per-query score of the candidate minus that of the baseline. Under the null hypothesis that
//! the two systems are exchangeable on every query, each difference is as likely to have the
//! opposite sign, so the observed sum `T = sum_i d_i` is compared with `T* = sum_i s_i d_i`
//! over sign vectors `s` in {-1, +1}^n (Fisher's randomisation test; Smucker, Allan and
//! Carterette, CIKM 2007). The same sign vectors serve every metric, which makes one pass
//! answer all of them. The alternative (`Alternative`, as scipy's `alternative=`) says which
//! sign vectors are at least as extreme: `|T*| >= |T|` (two-sided), `T* >= T` (greater: the
//! candidate is better) or `T* <= T` (less).
//!
//! * `exact`: every one of the 2^n sign vectors, the identity included; p = count / 2^n.
//! * `sampled`: `n_resamples` random sign vectors; p = (count + 1) / (n_resamples + 1), which
//!   counts the observed assignment once and so never returns 0 (Phipson and Smyth 2010).
//!
//! A resampled statistic counts as at least as extreme when
//! `|T*| >= |T| - 1e-9 * sum_i |d_i|` (two-sided; `T* >= T - 1e-9 sum |d_i|` greater,
//! `T* <= T + 1e-9 sum |d_i|` less): the tolerance absorbs floating-point rounding between
//! sums that are equal in exact arithmetic (so ties count, as they must for a valid test), and
//! is far below any difference of means that could matter. The identity is always counted, so
//! an exact p-value is at least `1 / 2^n` (one-sided) or `2 / 2^n` (two-sided).
//!
//! Determinism: sampled sign vectors come in fixed batches of `BATCH` resamples, batch `b`
//! seeded with `seed_from_u64(seed ^ b * 0x9E37_79B9_7F4A_7C15)`, signs taken from the raw
//! `next_u64` words of rand's portable Xoshiro256++ (bit `i` of the pattern set means `s_i =
//! +1`). Counts are integers summed over batches, so the p-values do not depend on the number
//! of threads or on how rayon schedules the batches.
//!
//! Speed: the differences are grouped by 8 pairs and every group gets a table of its 256
//! partial sums per metric, so one resample costs n/8 table lookups per metric instead of n
//! multiply-adds.

use std::borrow::Cow;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::{CoreError, CoreResult};

/// Largest number of pairs the exact test enumerates (2^24 sign vectors).
pub const MAX_EXACT_PAIRS: usize = 24;

/// Resamples per independently seeded batch (part of the reproducibility contract: changing
/// it changes the p-values drawn for a given seed).
pub const BATCH: u64 = 1024;

/// Relative tolerance of the "at least as extreme" comparison, times `sum_i |d_i|`.
pub const TIE_TOLERANCE: f64 = 1e-9;

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
pub(crate) const GROUP_BITS: usize = 8;
pub(crate) const GROUP_PATTERNS: usize = 1 << GROUP_BITS;
pub(crate) const GROUPS_PER_WORD: usize = 64 / GROUP_BITS;
/// Upper bound on the bytes of partial-sum tables built at once; more metrics are processed in
/// chunks that each replay the same sign vectors.
const TABLE_BUDGET_BYTES: usize = 32 << 20;

/// Which resampled statistics count as at least as extreme as the observed one (the
/// alternative hypothesis, as scipy's `alternative=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alternative {
    /// `|T*| >= |T|`: the systems differ.
    TwoSided,
    /// `T* >= T`: the candidate is better (the mean difference is greater than 0).
    Greater,
    /// `T* <= T`: the candidate is worse (the mean difference is less than 0).
    Less,
}

impl Alternative {
    /// The alternative named as scipy names it (`"two-sided"`, `"greater"`, `"less"`).
    pub fn parse(name: &str) -> CoreResult<Alternative> {
        match name {
            "two-sided" => Ok(Alternative::TwoSided),
            "greater" => Ok(Alternative::Greater),
            "less" => Ok(Alternative::Less),
            other => Err(CoreError::argument(
                "alternative",
                format!("must be 'two-sided', 'greater' or 'less', got {other:?}"),
            )),
        }
    }

    /// Whether the resampled statistic `resampled` is at least as extreme as `observed`, with
    /// the tie tolerance `tolerance` (>= 0) in the same units. Generic over the float sums of
    /// `sign_flip_test` and the integer sums of `sign_flip_pairs`.
    #[inline]
    pub fn at_least_as_extreme<T>(self, resampled: T, observed: T, tolerance: T) -> bool
    where
        T: Copy
            + PartialOrd
            + std::ops::Sub<Output = T>
            + std::ops::Add<Output = T>
            + std::ops::Neg<Output = T>
            + Default,
    {
        let abs = |x: T| if x < T::default() { -x } else { x };
        match self {
            Alternative::TwoSided => abs(resampled) >= abs(observed) - tolerance,
            Alternative::Greater => resampled >= observed - tolerance,
            Alternative::Less => resampled <= observed + tolerance,
        }
    }
}

/// How the sign vectors are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignFlipMethod {
    /// All 2^n sign vectors (n <= `MAX_EXACT_PAIRS`).
    Exact,
    /// `n_resamples` seeded random sign vectors.
    Sampled { n_resamples: u64, seed: u64 },
}

/// p-values of one test per metric.
#[derive(Clone, Debug, PartialEq)]
pub struct SignFlipResult {
    /// p-value per metric (of the test's alternative).
    pub p_values: Vec<f64>,
    /// Sign vectors whose statistic was at least as extreme as the observed one, per metric
    /// (the identity included when exact).
    pub counts: Vec<u64>,
    /// Sign vectors examined: 2^n when exact, `n_resamples` when sampled.
    pub n_patterns: u64,
    pub exact: bool,
}

/// 2^k, exactly (|k| < 1023).
fn power_of_two(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// A validated `n_metrics x n_pairs` matrix of differences, each row scaled when its sums
/// would overflow (see `overflow_safe_rows`).
pub(crate) struct Differences<'a> {
    values: Cow<'a, [f64]>,
    n_pairs: usize,
}

/// `values` (rows of `n_pairs`) with every row in which a sum of `n_pairs` values could
/// overflow float64 (`n_pairs * max |d|` is not finite: a signed sum of the sign-flip test,
/// or a bootstrap resample drawing the largest value every time) multiplied by a power of two
/// that keeps every such sum finite, and the exponent per row (0 for rows left as they are).
/// Scaling by a power of two is exact (values that become subnormal lose bits, but they are
/// below 2^-1000 of the row's largest value, far under the tie tolerance), and the test
/// statistic and the sign of every comparison are the same for a row and its multiple: the
/// exact p-value of huge differences is computed, not turned into 0 (an overflowing sum is
/// infinite, and inf - inf is NaN).
fn overflow_safe_rows(values: &[f64], n_pairs: usize) -> (Cow<'_, [f64]>, Vec<i32>) {
    let n_rows = values.len() / n_pairs.max(1);
    let shift = |row: &[f64]| {
        let largest = row
            .iter()
            .filter(|d| !d.is_nan())
            .fold(0.0f64, |m, d| m.max(d.abs()));
        if (largest * n_pairs as f64).is_finite() {
            0
        } else {
            // |d| < 2^1024, so n * |d| * 2^-(log2(n) + 2) < 2^1022.
            (usize::BITS - n_pairs.leading_zeros()) as i32 + 2
        }
    };
    let shifts: Vec<i32> = values.chunks(n_pairs.max(1)).map(shift).collect();
    if shifts.iter().all(|&k| k == 0) {
        return (Cow::Borrowed(values), vec![0; n_rows]);
    }
    let mut scaled = values.to_vec();
    for (row, &k) in scaled.chunks_mut(n_pairs).zip(&shifts) {
        let factor = power_of_two(-k);
        row.iter_mut().for_each(|d| *d *= factor);
    }
    (Cow::Owned(scaled), shifts)
}

impl<'a> Differences<'a> {
    pub(crate) fn new(values: &'a [f64], n_metrics: usize, n_pairs: usize) -> CoreResult<Self> {
        if n_pairs == 0 {
            return Err(CoreError::argument(
                "differences",
                "a paired test needs at least one pair of per-query values, got none",
            ));
        }
        if n_metrics == 0 {
            return Err(CoreError::argument(
                "differences",
                "needs at least one metric (one row of differences), got none",
            ));
        }
        if n_metrics.checked_mul(n_pairs) != Some(values.len()) {
            return Err(CoreError::argument(
                "differences",
                format!(
                    "expected {n_metrics} metrics x {n_pairs} pairs = {} values, got {}",
                    n_metrics.saturating_mul(n_pairs),
                    values.len()
                ),
            ));
        }
        if let Some(pos) = values.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::argument(
                "differences",
                format!(
                    "metric row {} pair {} is {}; drop undefined pairs before testing",
                    pos / n_pairs,
                    pos % n_pairs,
                    values[pos]
                ),
            ));
        }
        let (values, _) = overflow_safe_rows(values, n_pairs);
        Ok(Differences { values, n_pairs })
    }

    pub(crate) fn row(&self, metric: usize) -> &[f64] {
        &self.values[metric * self.n_pairs..(metric + 1) * self.n_pairs]
    }
}

/// What the resampled sums of a chunk of metrics are compared with (`Tables::observed`).
struct Observed {
    thresholds: Vec<f64>,
    alternative: Alternative,
}

/// Partial sums of 8 pairs at a time for a chunk of metrics, laid out
/// `[group][pattern][metric]` so that one lookup reads the values of every metric in a row.
pub(crate) struct Tables {
    n_groups: usize,
    n_metrics: usize,
    values: Vec<f64>,
}

impl Tables {
    pub(crate) fn build(diffs: &Differences<'_>, metrics: std::ops::Range<usize>) -> Tables {
        let n_groups = diffs.n_pairs.div_ceil(GROUP_BITS);
        let n_metrics = metrics.len();
        let mut values = vec![0.0; n_groups * GROUP_PATTERNS * n_metrics];
        for (slot, metric) in metrics.enumerate() {
            let row = diffs.row(metric);
            for group in 0..n_groups {
                let members = &row[group * GROUP_BITS..((group + 1) * GROUP_BITS).min(row.len())];
                for pattern in 0..GROUP_PATTERNS {
                    // Summed in pair order from +0.0, so the table of the complementary pattern
                    // holds exactly the negated value (IEEE rounding is sign-symmetric).
                    let mut sum = 0.0;
                    for (bit, &d) in members.iter().enumerate() {
                        if pattern >> bit & 1 == 1 {
                            sum += d;
                        } else {
                            sum -= d;
                        }
                    }
                    values[(group * GROUP_PATTERNS + pattern) * n_metrics + slot] = sum;
                }
            }
        }
        Tables {
            n_groups,
            n_metrics,
            values,
        }
    }

    /// Add the statistic of the sign vector whose group `g` has pattern `byte(g)` to `acc`.
    #[inline]
    pub(crate) fn accumulate(&self, acc: &mut [f64], byte: impl Fn(usize) -> usize) {
        acc.fill(0.0);
        for group in 0..self.n_groups {
            let start = (group * GROUP_PATTERNS + byte(group)) * self.n_metrics;
            for (a, t) in acc
                .iter_mut()
                .zip(&self.values[start..start + self.n_metrics])
            {
                *a += t;
            }
        }
    }

    /// Count, per metric, whether the resampled sums `acc` are at least as extreme as the
    /// observed ones (see `Observed`).
    fn count_extreme(&self, acc: &[f64], observed: &Observed, counts: &mut [u64]) {
        // The comparison of each alternative in its own loop (no branch per metric).
        match observed.alternative {
            Alternative::TwoSided => {
                for ((count, a), threshold) in counts.iter_mut().zip(acc).zip(&observed.thresholds)
                {
                    *count += u64::from(a.abs() >= *threshold);
                }
            }
            Alternative::Greater => {
                for ((count, a), threshold) in counts.iter_mut().zip(acc).zip(&observed.thresholds)
                {
                    *count += u64::from(*a >= *threshold);
                }
            }
            Alternative::Less => {
                for ((count, a), threshold) in counts.iter_mut().zip(acc).zip(&observed.thresholds)
                {
                    *count += u64::from(*a <= *threshold);
                }
            }
        }
    }

    /// `|T| - tolerance` per metric, with `T` the observed statistic (every sign +1) computed
    /// through the same tables as the resamples, so that the identity matches itself exactly.
    pub(crate) fn thresholds(
        &self,
        diffs: &Differences<'_>,
        metrics: std::ops::Range<usize>,
    ) -> Vec<f64> {
        self.observed(diffs, metrics, Alternative::TwoSided)
            .thresholds
    }

    /// The observed statistics of `metrics` and the thresholds the resampled sums are compared
    /// with under `alternative`: `|T| - tol` (two-sided: `|T*| >= |T| - tol`), `T - tol`
    /// (greater: `T* >= T - tol`) or `T + tol` (less: `T* <= T + tol`), `tol = 1e-9 sum |d_i|`.
    fn observed(
        &self,
        diffs: &Differences<'_>,
        metrics: std::ops::Range<usize>,
        alternative: Alternative,
    ) -> Observed {
        let mut observed = vec![0.0; self.n_metrics];
        self.accumulate(&mut observed, |_| GROUP_PATTERNS - 1);
        let thresholds = observed
            .iter()
            .zip(metrics)
            .map(|(&t, metric)| {
                let scale: f64 = diffs.row(metric).iter().map(|d| d.abs()).sum();
                let tolerance = TIE_TOLERANCE * scale;
                match alternative {
                    Alternative::TwoSided => t.abs() - tolerance,
                    Alternative::Greater => t - tolerance,
                    Alternative::Less => t + tolerance,
                }
            })
            .collect();
        Observed {
            thresholds,
            alternative,
        }
    }
}

/// Paired sign-flip test of every row of `differences` (row-major, `n_metrics` rows of
/// `n_pairs` values) under `alternative`, with the same sign vectors for every row.
pub fn sign_flip_test(
    differences: &[f64],
    n_metrics: usize,
    n_pairs: usize,
    method: SignFlipMethod,
    alternative: Alternative,
) -> CoreResult<SignFlipResult> {
    let diffs = Differences::new(differences, n_metrics, n_pairs)?;
    match method {
        SignFlipMethod::Exact if n_pairs > MAX_EXACT_PAIRS => Err(CoreError::argument(
            "method",
            format!(
                "the exact test enumerates 2^n sign vectors and is limited to \
                 {MAX_EXACT_PAIRS} pairs, got {n_pairs}; use sampling"
            ),
        )),
        SignFlipMethod::Sampled { n_resamples: 0, .. } => Err(CoreError::argument(
            "n_resamples",
            "must be a positive number of random sign vectors, got 0",
        )),
        _ => {
            let bytes_per_metric = n_pairs.div_ceil(GROUP_BITS) * GROUP_PATTERNS * 8;
            let chunk = (TABLE_BUDGET_BYTES / bytes_per_metric).clamp(1, n_metrics);
            let mut counts = Vec::with_capacity(n_metrics);
            for start in (0..n_metrics).step_by(chunk) {
                let metrics = start..(start + chunk).min(n_metrics);
                let tables = Tables::build(&diffs, metrics.clone());
                let observed = tables.observed(&diffs, metrics, alternative);
                counts.extend(match method {
                    SignFlipMethod::Exact => count_exact(&tables, &observed, n_pairs),
                    SignFlipMethod::Sampled { n_resamples, seed } => {
                        count_sampled(&tables, &observed, n_pairs, n_resamples, seed)
                    }
                });
            }
            let (n_patterns, p_values) = match method {
                SignFlipMethod::Exact => {
                    let total = 1u64 << n_pairs;
                    (
                        total,
                        counts.iter().map(|&c| c as f64 / total as f64).collect(),
                    )
                }
                SignFlipMethod::Sampled { n_resamples, .. } => (
                    n_resamples,
                    counts
                        .iter()
                        .map(|&c| (c + 1) as f64 / (n_resamples + 1) as f64)
                        .collect(),
                ),
            };
            Ok(SignFlipResult {
                p_values,
                counts,
                n_patterns,
                exact: matches!(method, SignFlipMethod::Exact),
            })
        }
    }
}

fn sum_counts(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.into_iter().zip(b).map(|(x, y)| x + y).collect()
}

fn count_exact(tables: &Tables, observed: &Observed, n_pairs: usize) -> Vec<u64> {
    const PATTERNS_PER_TASK: u64 = 1 << 12;
    let total = 1u64 << n_pairs;
    let n_metrics = tables.n_metrics;
    (0..total.div_ceil(PATTERNS_PER_TASK))
        .into_par_iter()
        .map(|task| {
            let mut acc = vec![0.0; n_metrics];
            let mut counts = vec![0u64; n_metrics];
            let end = ((task + 1) * PATTERNS_PER_TASK).min(total);
            for pattern in task * PATTERNS_PER_TASK..end {
                tables.accumulate(&mut acc, |g| {
                    (pattern >> (g * GROUP_BITS)) as usize & (GROUP_PATTERNS - 1)
                });
                tables.count_extreme(&acc, observed, &mut counts);
            }
            counts
        })
        .reduce(|| vec![0u64; n_metrics], sum_counts)
}

/// The generator of batch `batch` for `seed`.
pub fn batch_rng(seed: u64, batch: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ batch.wrapping_mul(GOLDEN_GAMMA))
}

fn count_sampled(
    tables: &Tables,
    observed: &Observed,
    n_pairs: usize,
    n_resamples: u64,
    seed: u64,
) -> Vec<u64> {
    let n_metrics = tables.n_metrics;
    let n_words = n_pairs.div_ceil(64);
    (0..n_resamples.div_ceil(BATCH))
        .into_par_iter()
        .map(|batch| {
            let mut rng = batch_rng(seed, batch);
            let mut words = vec![0u64; n_words];
            let mut acc = vec![0.0; n_metrics];
            let mut counts = vec![0u64; n_metrics];
            let size = BATCH.min(n_resamples - batch * BATCH);
            for _ in 0..size {
                for word in words.iter_mut() {
                    *word = rng.next_u64();
                }
                tables.accumulate(&mut acc, |g| {
                    (words[g / GROUPS_PER_WORD] >> (g % GROUPS_PER_WORD * GROUP_BITS)) as usize
                        & (GROUP_PATTERNS - 1)
                });
                tables.count_extreme(&acc, observed, &mut counts);
            }
            counts
        })
        .reduce(|| vec![0u64; n_metrics], sum_counts)
}

/// Uniform integer in `0..bound` from raw words (Lemire's multiply-shift with rejection, so
/// unbiased and independent of rand's distribution code).
pub(crate) fn uniform_below(rng: &mut Xoshiro256PlusPlus, bound: u64) -> u64 {
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(bound);
        if (product as u64) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

/// Bootstrap distribution of the mean difference of every metric: `n_resamples` resamples of
/// the pairs drawn with replacement (the same pairs for every metric), each giving the mean of
/// the defined (non-NaN) differences it drew, NaN when it drew none. Returns a row-major
/// `n_metrics x n_resamples` matrix. Batches are seeded like the sign-flip test, from
/// `seed`, so the result does not depend on the thread count.
pub fn bootstrap_mean_differences(
    differences: &[f64],
    n_metrics: usize,
    n_pairs: usize,
    n_resamples: u64,
    seed: u64,
) -> CoreResult<Vec<f64>> {
    if n_pairs == 0 || n_metrics == 0 {
        return Err(CoreError::argument(
            "differences",
            format!("needs at least one metric and one pair, got {n_metrics} x {n_pairs}"),
        ));
    }
    if n_metrics.checked_mul(n_pairs) != Some(differences.len()) {
        return Err(CoreError::argument(
            "differences",
            format!(
                "expected {n_metrics} metrics x {n_pairs} pairs = {} values, got {}",
                n_metrics.saturating_mul(n_pairs),
                differences.len()
            ),
        ));
    }
    if let Some(pos) = differences.iter().position(|v| v.is_infinite()) {
        return Err(CoreError::argument(
            "differences",
            format!(
                "metric row {} pair {} is infinite",
                pos / n_pairs,
                pos % n_pairs
            ),
        ));
    }
    let n_resamples_usize = usize::try_from(n_resamples)
        .map_err(|_| CoreError::argument("n_resamples", "too large for this platform"))?;
    // Rows whose sums would overflow are resampled scaled down by 2^k and their means scaled
    // back up (exactly: a mean is never larger than the largest |d|).
    let (differences, shifts) = overflow_safe_rows(differences, n_pairs);
    let differences = &differences[..];
    let factors: Vec<f64> = shifts.iter().map(|&k| power_of_two(k)).collect();
    let batches: Vec<Vec<f64>> = (0..n_resamples.div_ceil(BATCH))
        .into_par_iter()
        .map(|batch| {
            let mut rng = batch_rng(seed, batch);
            let size = BATCH.min(n_resamples - batch * BATCH) as usize;
            // [resample][metric] for this batch
            let mut means = vec![0.0; size * n_metrics];
            let mut sums = vec![0.0; n_metrics];
            let mut counts = vec![0u64; n_metrics];
            for resample in 0..size {
                sums.fill(0.0);
                counts.fill(0);
                for _ in 0..n_pairs {
                    let pair = uniform_below(&mut rng, n_pairs as u64) as usize;
                    for metric in 0..n_metrics {
                        let d = differences[metric * n_pairs + pair];
                        if !d.is_nan() {
                            sums[metric] += d;
                            counts[metric] += 1;
                        }
                    }
                }
                for metric in 0..n_metrics {
                    means[resample * n_metrics + metric] = if counts[metric] == 0 {
                        f64::NAN
                    } else {
                        sums[metric] / counts[metric] as f64 * factors[metric]
                    };
                }
            }
            means
        })
        .collect();
    let mut out = vec![0.0; n_metrics * n_resamples_usize];
    let mut resample = 0;
    for means in batches {
        for row in means.chunks_exact(n_metrics) {
            for (metric, &mean) in row.iter().enumerate() {
                out[metric * n_resamples_usize + resample] = mean;
            }
            resample += 1;
        }
    }
    Ok(out)
}

// -- Many systems at once ---------------------------------------------------------------------
//
// A campaign compares many systems on the same queries (all pairs, or every system against a
// baseline). Testing each pair on its own differences costs pairs x queries per resample; with
// the same sign vectors for every pair, `sum_i s_i (a_i - b_i) = S_a - S_b` with
// `S_x = sum_i s_i x_i`, so one pass per resample over each *system* answers every pair.
//
// Exactness: `S_a - S_b` in floating point would round differently from `sum_i s_i d_i`, and
// sums that are equal in exact arithmetic (the identity, and every sign vector that only flips
// queries where both systems score the same) must compare as equal. So each metric's values
// are first rounded to integer multiples of `2^-k`, with `k` as large as the sums allow
// (`k >= 40` for values in [0, 1] and up to 2^20 queries); from there every sum is exact. The
// tie tolerance of the single-pair test is kept (`|T*| >= |T| - 1e-9 * sum_i |d_i|`, now in
// units of `2^-k`), so the two agree wherever rounding to `2^-k` changes nothing, which is every
// case where the differences are not below `2^-k` of the metric's largest value.
//
// Undefined values (NaN) are left out pair by pair: a query counts for a pair when both systems
// have a value there. A query where only one of the two has a value enters `S_a - S_b` through
// the system sums and is taken out again by a correction term (usually there is none: a value is
// undefined for every system at once when the query has no relevant document).

/// Resamples whose sign vectors are built and summed at once (a multiple of `BATCH`).
const SUPER_BATCH: usize = 16 * BATCH as usize;
/// Systems' columns (system x metric) summed together: one table row is one cache line.
const BLOCK: usize = 8;
/// Bootstrap resamples whose draws are counted before they are summed.
const DRAW_BLOCK: usize = 64;
/// Groups of 8 queries whose tables are built at once (`GROUP_CHUNK * 256 * BLOCK * 8` bytes).
const GROUP_CHUNK: usize = 32;

/// Per-query values of several systems on the same queries, laid out `[system][metric][query]`
/// (NaN where a value is undefined).
#[derive(Clone, Copy, Debug)]
pub struct SystemValues<'a> {
    pub values: &'a [f64],
    pub n_systems: usize,
    pub n_metrics: usize,
    pub n_queries: usize,
}

/// One per-pair, per-metric result: row-major `pairs x metrics`.
#[derive(Clone, Debug, PartialEq)]
pub struct PairsResult {
    /// Two-sided p-value per (pair, metric): count / 2^n (exact) or (count + 1) /
    /// (n_resamples + 1) (sampled).
    pub p_values: Vec<f64>,
    /// Sign vectors at least as extreme as the observed one.
    pub counts: Vec<u64>,
    /// Sign vectors examined.
    pub n_patterns: u64,
    pub exact: bool,
}

/// Percentile bootstrap intervals and bootstrap test counts per (pair, metric).
#[derive(Clone, Debug, PartialEq)]
pub struct BootstrapResult {
    /// Lower and upper percentile of the resampled mean differences (NaN without any).
    pub low: Vec<f64>,
    pub high: Vec<f64>,
    /// Resamples whose mean difference lies at least as far from the observed mean as the
    /// observed mean lies from 0 (the shift test: under the null hypothesis the resampled mean
    /// minus the observed one is distributed as the observed mean).
    pub counts: Vec<u64>,
    /// Resamples that drew at least one query where both systems have a value.
    pub n_valid: Vec<u64>,
}

/// `x * 2^k`, exact unless the result is subnormal.
fn ldexp(mut x: f64, mut k: i32) -> f64 {
    while k > 1000 {
        x *= power_of_two(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= power_of_two(-1000);
        k += 1000;
    }
    x * power_of_two(k)
}

/// The smallest `e` with `|x| < 2^e` (x finite and non-zero).
fn binary_exponent(x: f64) -> i32 {
    let x = x.abs();
    let mut e = x.log2().floor() as i32 + 1;
    while ldexp(x, -e) >= 1.0 {
        e += 1;
    }
    while e > -1100 && ldexp(x, 1 - e) < 1.0 {
        e -= 1;
    }
    e
}

/// Per-query values of several systems rounded to integers, and what the pairs need.
struct Campaign {
    n_metrics: usize,
    n_queries: usize,
    /// `[column][query]`, column = system * n_metrics + metric; 0 where undefined.
    values: Vec<i64>,
    defined: Vec<bool>,
    /// Whether the column has an undefined value.
    has_undefined: Vec<bool>,
    /// Per metric: values were multiplied by 2^scale before rounding.
    scales: Vec<i32>,
    /// Per (pair, metric): columns of the candidate and of the baseline.
    columns: Vec<(usize, usize)>,
    /// Per (pair, metric): sum of the differences over queries where both have a value.
    observed: Vec<i64>,
    /// Per (pair, metric): sum of |differences| (for the tie tolerance).
    absolute: Vec<f64>,
    /// Per (pair, metric): queries where both have a value.
    n_defined: Vec<u64>,
    /// Per (pair, metric): queries where exactly one has a value, with the term `S_a - S_b`
    /// holds for it (`a_i` or `-b_i`).
    mismatches: Vec<Vec<(usize, i64)>>,
}

impl Campaign {
    fn new(systems: SystemValues<'_>, pairs: &[(usize, usize)]) -> CoreResult<Campaign> {
        let SystemValues {
            values,
            n_systems,
            n_metrics,
            n_queries,
        } = systems;
        if n_systems < 2 || n_metrics == 0 || n_queries == 0 {
            return Err(CoreError::argument(
                "values",
                format!(
                    "a comparison needs at least 2 systems, 1 metric and 1 query, got \
                     {n_systems} x {n_metrics} x {n_queries}"
                ),
            ));
        }
        let expected = n_systems
            .checked_mul(n_metrics)
            .and_then(|c| c.checked_mul(n_queries));
        if expected != Some(values.len()) {
            return Err(CoreError::argument(
                "values",
                format!(
                    "expected {n_systems} systems x {n_metrics} metrics x {n_queries} queries, \
                     got {} values",
                    values.len()
                ),
            ));
        }
        if let Some(pos) = values.iter().position(|v| v.is_infinite()) {
            return Err(CoreError::argument(
                "values",
                format!(
                    "system {} metric {} query {} is infinite",
                    pos / (n_metrics * n_queries),
                    pos / n_queries % n_metrics,
                    pos % n_queries
                ),
            ));
        }
        if pairs.is_empty() {
            return Err(CoreError::argument(
                "pairs",
                "needs at least one pair of systems",
            ));
        }
        if let Some(&(a, b)) = pairs
            .iter()
            .find(|&&(a, b)| a >= n_systems || b >= n_systems || a == b)
        {
            return Err(CoreError::argument(
                "pairs",
                format!("({a}, {b}) is not a pair of two of the {n_systems} systems"),
            ));
        }
        let n_columns = n_systems * n_metrics;
        // |S_a - S_b - correction| <= 3 n 2^bits: keep it below 2^63.
        let bits = 62 - (u64::BITS - (3 * n_queries as u64 + 1).leading_zeros()) as i32;
        let mut scales = vec![0; n_metrics];
        for (metric, scale) in scales.iter_mut().enumerate() {
            let largest = (0..n_systems)
                .flat_map(|s| {
                    let start = (s * n_metrics + metric) * n_queries;
                    values[start..start + n_queries].iter()
                })
                .filter(|v| !v.is_nan())
                .fold(0.0f64, |m, v| m.max(v.abs()));
            if largest > 0.0 {
                *scale = bits - binary_exponent(largest);
            }
        }
        let mut quantized = vec![0i64; values.len()];
        let mut defined = vec![false; values.len()];
        let mut has_undefined = vec![false; n_columns];
        for (column, undefined) in has_undefined.iter_mut().enumerate() {
            let scale = scales[column % n_metrics];
            let range = column * n_queries..(column + 1) * n_queries;
            for i in range {
                let v = values[i];
                if v.is_nan() {
                    *undefined = true;
                } else {
                    defined[i] = true;
                    quantized[i] = ldexp(v, scale).round() as i64;
                }
            }
        }
        let mut campaign = Campaign {
            n_metrics,
            n_queries,
            values: quantized,
            defined,
            has_undefined,
            scales,
            columns: Vec::with_capacity(pairs.len() * n_metrics),
            observed: Vec::with_capacity(pairs.len() * n_metrics),
            absolute: Vec::with_capacity(pairs.len() * n_metrics),
            n_defined: Vec::with_capacity(pairs.len() * n_metrics),
            mismatches: Vec::with_capacity(pairs.len() * n_metrics),
        };
        type PairSummary = ((usize, usize), i64, f64, u64, Vec<(usize, i64)>);
        let summaries: Vec<PairSummary> = pairs
            .par_iter()
            .flat_map_iter(|&(a, b)| (0..n_metrics).map(move |metric| (a, b, metric)))
            .map(|(a, b, metric)| {
                let (ca, cb) = (a * n_metrics + metric, b * n_metrics + metric);
                let (qa, qb) = (campaign.column(ca), campaign.column(cb));
                let (da, db) = (campaign.defined_in(ca), campaign.defined_in(cb));
                let (mut observed, mut absolute, mut n_defined) = (0i64, 0.0f64, 0u64);
                let mut mismatches = Vec::new();
                for i in 0..n_queries {
                    match (da[i], db[i]) {
                        (true, true) => {
                            let d = qa[i] - qb[i];
                            observed += d;
                            absolute += d.unsigned_abs() as f64;
                            n_defined += 1;
                        }
                        (true, false) => mismatches.push((i, qa[i])),
                        (false, true) => mismatches.push((i, -qb[i])),
                        (false, false) => {}
                    }
                }
                ((ca, cb), observed, absolute, n_defined, mismatches)
            })
            .collect();
        for (columns, observed, absolute, n_defined, mismatches) in summaries {
            campaign.columns.push(columns);
            campaign.observed.push(observed);
            campaign.absolute.push(absolute);
            campaign.n_defined.push(n_defined);
            campaign.mismatches.push(mismatches);
        }
        Ok(campaign)
    }

    fn column(&self, column: usize) -> &[i64] {
        &self.values[column * self.n_queries..(column + 1) * self.n_queries]
    }

    fn defined_in(&self, column: usize) -> &[bool] {
        &self.defined[column * self.n_queries..(column + 1) * self.n_queries]
    }

    fn n_columns(&self) -> usize {
        self.values.len() / self.n_queries
    }
}

/// The sign words of resamples `start..start + count`, word-major (`words[w * count + j]` is
/// word `w` of resample `start + j`): the enumeration of patterns when exact, else the words
/// `count_sampled` draws (batch `b` from `batch_rng(seed, b)`, one resample's words in a row).
fn sign_words(method: SignFlipMethod, n_words: usize, start: u64, count: usize) -> Vec<u64> {
    let mut words = vec![0u64; n_words * count];
    match method {
        SignFlipMethod::Exact => {
            for (j, word) in words[..count].iter_mut().enumerate() {
                *word = start + j as u64;
            }
        }
        SignFlipMethod::Sampled { seed, .. } => {
            let first_batch = start / BATCH;
            let n_batches = (count as u64).div_ceil(BATCH);
            let batches: Vec<Vec<u64>> = (0..n_batches)
                .into_par_iter()
                .map(|b| {
                    let mut rng = batch_rng(seed, first_batch + b);
                    let size = BATCH.min(count as u64 - b * BATCH) as usize;
                    (0..size * n_words).map(|_| rng.next_u64()).collect()
                })
                .collect();
            for (b, batch) in batches.iter().enumerate() {
                for (r, resample) in batch.chunks_exact(n_words).enumerate() {
                    let j = b * BATCH as usize + r;
                    for (w, &word) in resample.iter().enumerate() {
                        words[w * count + j] = word;
                    }
                }
            }
        }
    }
    words
}

/// `S_c = sum_i s_i values[c][i]` for every column `c` and every resample of `words`:
/// `[column][resample]`.
fn system_sums(campaign: &Campaign, words: &[u64], count: usize) -> Vec<i64> {
    let n = campaign.n_queries;
    let n_columns = campaign.n_columns();
    let n_groups = n.div_ceil(GROUP_BITS);
    let n_blocks = n_columns.div_ceil(BLOCK);
    // Enough tasks for every thread: split the resamples when there are few column blocks.
    let splits = rayon::current_num_threads()
        .div_ceil(n_blocks)
        .clamp(1, count.div_ceil(1024).max(1));
    let span = count.div_ceil(splits);
    let tasks: Vec<(usize, usize)> = (0..n_blocks)
        .flat_map(|block| (0..splits).map(move |s| (block, s)))
        .filter(|&(_, s)| s * span < count)
        .collect();
    let parts: Vec<(usize, usize, Vec<[i64; BLOCK]>)> = tasks
        .into_par_iter()
        .map(|(block, split)| {
            let resamples = split * span..((split + 1) * span).min(count);
            let first_column = block * BLOCK;
            let width = BLOCK.min(n_columns - first_column);
            let mut acc = vec![[0i64; BLOCK]; resamples.len()];
            let mut table = vec![[0i64; BLOCK]; GROUP_CHUNK * GROUP_PATTERNS];
            for chunk_start in (0..n_groups).step_by(GROUP_CHUNK) {
                let groups = chunk_start..(chunk_start + GROUP_CHUNK).min(n_groups);
                for (slot, group) in groups.clone().enumerate() {
                    let members = group * GROUP_BITS..((group + 1) * GROUP_BITS).min(n);
                    let rows = &mut table[slot * GROUP_PATTERNS..(slot + 1) * GROUP_PATTERNS];
                    // Pattern 0 (every sign -1), then each pattern from the one without its
                    // highest bit: flipping query j from -1 to +1 adds 2 * x_j.
                    let mut base = [0i64; BLOCK];
                    for (lane, value) in base.iter_mut().enumerate().take(width) {
                        let column = campaign.column(first_column + lane);
                        *value = -column[members.clone()].iter().sum::<i64>();
                    }
                    rows[0] = base;
                    for pattern in 1..GROUP_PATTERNS {
                        let bit = usize::BITS - 1 - pattern.leading_zeros();
                        let previous = rows[pattern ^ (1 << bit)];
                        let query = members.start + bit as usize;
                        let mut row = previous;
                        if query < members.end {
                            for (lane, value) in row.iter_mut().enumerate().take(width) {
                                *value += 2 * campaign.column(first_column + lane)[query];
                            }
                        }
                        rows[pattern] = row;
                    }
                }
                // GROUP_CHUNK is a multiple of GROUPS_PER_WORD: the chunk's groups are the
                // bytes of whole words.
                let first_word = chunk_start / GROUPS_PER_WORD;
                let n_chunk_words = groups.len().div_ceil(GROUPS_PER_WORD);
                for (sum, j) in acc.iter_mut().zip(resamples.clone()) {
                    let mut total = *sum;
                    let mut rows =
                        table[..groups.len() * GROUP_PATTERNS].chunks_exact(GROUP_PATTERNS);
                    for w in first_word..first_word + n_chunk_words {
                        let mut word = words[w * count + j];
                        for group_rows in rows.by_ref().take(GROUPS_PER_WORD) {
                            let row = &group_rows[word as usize & (GROUP_PATTERNS - 1)];
                            for (t, r) in total.iter_mut().zip(row) {
                                *t += r;
                            }
                            word >>= GROUP_BITS;
                        }
                    }
                    *sum = total;
                }
            }
            (block, resamples.start, acc)
        })
        .collect();
    let mut sums = vec![0i64; n_columns * count];
    for (block, start, acc) in parts {
        for (local, row) in acc.iter().enumerate() {
            for (lane, &value) in row.iter().enumerate() {
                let column = block * BLOCK + lane;
                if column < n_columns {
                    sums[column * count + start + local] = value;
                }
            }
        }
    }
    sums
}

/// Paired sign-flip tests of many pairs of systems at once under `alternative`, with the
/// same sign vectors for every pair and metric (the sign vectors of `sign_flip_test` for the
/// same method and seed).
///
/// Each pair `(a, b)` of `systems` tests the differences `a - b` over the queries where both
/// have a value. Returns `pairs x metrics` p-values and counts (row-major).
pub fn sign_flip_pairs(
    systems: SystemValues<'_>,
    pairs: &[(usize, usize)],
    method: SignFlipMethod,
    alternative: Alternative,
) -> CoreResult<PairsResult> {
    let campaign = Campaign::new(systems, pairs)?;
    let n_queries = systems.n_queries;
    let total = match method {
        SignFlipMethod::Exact if n_queries > MAX_EXACT_PAIRS => {
            return Err(CoreError::argument(
                "method",
                format!(
                    "the exact test enumerates 2^n sign vectors and is limited to \
                     {MAX_EXACT_PAIRS} queries, got {n_queries}; use sampling"
                ),
            ));
        }
        SignFlipMethod::Exact => 1u64 << n_queries,
        SignFlipMethod::Sampled { n_resamples: 0, .. } => {
            return Err(CoreError::argument(
                "n_resamples",
                "must be a positive number of random sign vectors, got 0",
            ));
        }
        SignFlipMethod::Sampled { n_resamples, .. } => n_resamples,
    };
    let n_words = n_queries.div_ceil(64);
    // (observed sum, tie tolerance) per pair and metric, in the integer units of the campaign.
    let observed: Vec<(i64, i64)> = campaign
        .observed
        .iter()
        .zip(&campaign.absolute)
        .map(|(&t, &absolute)| (t, (TIE_TOLERANCE * absolute).floor() as i64))
        .collect();
    let mut counts = vec![0u64; observed.len()];
    let mut start = 0u64;
    while start < total {
        let count = (total - start).min(SUPER_BATCH as u64) as usize;
        let words = sign_words(method, n_words, start, count);
        let sums = system_sums(&campaign, &words, count);
        let batch: Vec<u64> = (0..observed.len())
            .into_par_iter()
            .map(|item| {
                let (ca, cb) = campaign.columns[item];
                let (sa, sb) = (
                    &sums[ca * count..(ca + 1) * count],
                    &sums[cb * count..(cb + 1) * count],
                );
                let mismatches = &campaign.mismatches[item];
                let (observed, tolerance) = observed[item];
                (0..count)
                    .filter(|&j| {
                        let mut t = sa[j] - sb[j];
                        for &(query, term) in mismatches {
                            let word = words[query / 64 * count + j];
                            t -= if word >> (query % 64) & 1 == 1 {
                                term
                            } else {
                                -term
                            };
                        }
                        alternative.at_least_as_extreme(t, observed, tolerance)
                    })
                    .count() as u64
            })
            .collect();
        for (c, b) in counts.iter_mut().zip(batch) {
            *c += b;
        }
        start += count as u64;
    }
    let exact = matches!(method, SignFlipMethod::Exact);
    let p_values = counts
        .iter()
        .map(|&c| {
            if exact {
                c as f64 / total as f64
            } else {
                (c + 1) as f64 / (total + 1) as f64
            }
        })
        .collect();
    Ok(PairsResult {
        p_values,
        counts,
        n_patterns: total,
        exact,
    })
}

/// The `q`-quantile of `values` (not empty) by linear interpolation between order statistics,
/// as `numpy.quantile(values, q)` computes it.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    let n = values.len();
    let position = q * (n - 1) as f64;
    let below = (position.floor() as usize).min(n - 1);
    let gamma = position - below as f64;
    let (_, &mut low, upper) = values.select_nth_unstable_by(below, f64::total_cmp);
    let high = upper.iter().copied().fold(f64::INFINITY, f64::min);
    if below + 1 >= n || gamma == 0.0 {
        return low;
    }
    // numpy's _lerp: a + (b - a) t, computed from b's side for t >= 0.5.
    let difference = high - low;
    if gamma >= 0.5 {
        high - difference * (1.0 - gamma)
    } else {
        low + difference * gamma
    }
}

/// Paired bootstrap of many pairs of systems at once: `n_resamples` resamples of the queries
/// drawn with replacement (the same resamples for every pair and metric, drawn as
/// `bootstrap_mean_differences` draws them for the same seed). For each (pair, metric), each
/// resample's mean difference is taken over the drawn queries where both systems have a value
/// (a resample without any is left out); the result holds the `(1 - confidence_level) / 2` and
/// `(1 + confidence_level) / 2` quantiles of those means (numpy's linear interpolation) and
/// how many of them lie at least as far from the observed mean difference as that lies from 0
/// in the direction of `alternative` (the shift method: two-sided `|m* - m| >= |m|`, greater
/// `m* - m >= m`, less `m* - m <= m`), compared in the integer units of the sign-flip test
/// with its tie tolerance (`1e-9` of the mean absolute difference), so that resampled means
/// equal to the bound in exact arithmetic count however the values are written in floating
/// point.
pub fn bootstrap_pairs(
    systems: SystemValues<'_>,
    pairs: &[(usize, usize)],
    n_resamples: u64,
    seed: u64,
    confidence_level: f64,
    alternative: Alternative,
) -> CoreResult<BootstrapResult> {
    let campaign = Campaign::new(systems, pairs)?;
    let n_queries = systems.n_queries;
    if n_resamples == 0 {
        return Err(CoreError::argument(
            "n_resamples",
            "must be a positive number of resamples, got 0",
        ));
    }
    if !(confidence_level > 0.0 && confidence_level < 1.0) {
        return Err(CoreError::argument(
            "confidence_level",
            format!("must lie strictly between 0 and 1, got {confidence_level}"),
        ));
    }
    let n_resamples = usize::try_from(n_resamples)
        .map_err(|_| CoreError::argument("n_resamples", "too large for this platform"))?;
    let n = n_queries;
    let n_columns = campaign.n_columns();
    // Rows of every column's value at one query, so that one draw adds one contiguous row.
    let mut rows = vec![0i64; n * n_columns];
    let mut row_defined = vec![0i64; n * n_columns];
    for column in 0..n_columns {
        let (q, d) = (campaign.column(column), campaign.defined_in(column));
        for i in 0..n {
            rows[i * n_columns + column] = q[i];
            row_defined[i * n_columns + column] = i64::from(d[i]);
        }
    }
    let any_undefined = campaign.has_undefined.iter().any(|&u| u);
    // Queries some pair needs the draw counts of.
    let mut watched: Vec<usize> = campaign
        .mismatches
        .iter()
        .flat_map(|m| m.iter().map(|&(i, _)| i))
        .collect();
    watched.sort_unstable();
    watched.dedup();
    let mut watch_slot = vec![usize::MAX; if watched.is_empty() { 0 } else { n }];
    for (slot, &i) in watched.iter().enumerate() {
        watch_slot[i] = slot;
    }
    // Per batch: [resample][column] sums, defined counts, and draw counts of watched queries.
    type BatchSums = (Vec<i64>, Vec<i64>, Vec<u32>);
    let batches: Vec<BatchSums> = (0..(n_resamples as u64).div_ceil(BATCH))
        .into_par_iter()
        .map(|batch| {
            let mut rng = batch_rng(seed, batch);
            let size = BATCH.min(n_resamples as u64 - batch * BATCH) as usize;
            let mut sums = vec![0i64; size * n_columns];
            let mut counts = if any_undefined {
                vec![0i64; size * n_columns]
            } else {
                Vec::new()
            };
            let mut draws = vec![0u32; size * watched.len()];
            // Resamples in blocks: first how often each query was drawn ([query][resample],
            // the draws of `bootstrap_mean_differences`, in its order), then one pass over the
            // queries adds each query's row to the sums of the resamples that drew it (the
            // rows are read in order, the block's sums stay in cache; integer sums do not
            // depend on the order of the draws).
            let mut drawn = vec![0u32; n * DRAW_BLOCK];
            for block_start in (0..size).step_by(DRAW_BLOCK) {
                let width = DRAW_BLOCK.min(size - block_start);
                drawn.fill(0);
                for r in 0..width {
                    for _ in 0..n {
                        let i = uniform_below(&mut rng, n as u64) as usize;
                        drawn[i * DRAW_BLOCK + r] += 1;
                    }
                }
                for i in 0..n {
                    let times = &drawn[i * DRAW_BLOCK..i * DRAW_BLOCK + width];
                    let row = &rows[i * n_columns..(i + 1) * n_columns];
                    let defined = &row_defined[i * n_columns..(i + 1) * n_columns];
                    for (r, &c) in times.iter().enumerate() {
                        if c == 0 {
                            continue;
                        }
                        let at = (block_start + r) * n_columns;
                        let sum = &mut sums[at..at + n_columns];
                        if c == 1 {
                            for (s, v) in sum.iter_mut().zip(row) {
                                *s += v;
                            }
                        } else {
                            let c = i64::from(c);
                            for (s, v) in sum.iter_mut().zip(row) {
                                *s += c * v;
                            }
                        }
                        if any_undefined {
                            let count = &mut counts[at..at + n_columns];
                            let c = i64::from(c);
                            for (k, d) in count.iter_mut().zip(defined) {
                                *k += c * d;
                            }
                        }
                    }
                    if let Some(&slot) = watch_slot.get(i).filter(|&&s| s != usize::MAX) {
                        for (r, &c) in times.iter().enumerate() {
                            draws[(block_start + r) * watched.len() + slot] = c;
                        }
                    }
                }
            }
            (sums, counts, draws)
        })
        .collect();
    let resample = |r: usize| (r / BATCH as usize, r % BATCH as usize);
    let tail = (1.0 - confidence_level) / 2.0;
    type Item = (f64, f64, u64, u64);
    let items: Vec<Item> = (0..campaign.columns.len())
        .into_par_iter()
        .map(|item| {
            let (ca, cb) = campaign.columns[item];
            let n_defined = campaign.n_defined[item];
            if n_defined == 0 {
                return (f64::NAN, f64::NAN, 0, 0);
            }
            let observed = i128::from(campaign.observed[item]);
            // The sign-flip test's tolerance on sums, 1e-9 sum |d|, in units of a mean times
            // n_defined (the units of `gap` divided by `drawn`).
            let tolerance = (TIE_TOLERANCE * campaign.absolute[item]).floor() as i128;
            let factor = ldexp(1.0, -campaign.scales[item % campaign.n_metrics]);
            // (draw-count slot, term, whether the query counts in the candidate's draws)
            let mismatches: Vec<(usize, i64, bool)> = campaign.mismatches[item]
                .iter()
                .map(|&(query, term)| (watch_slot[query], term, campaign.defined_in(ca)[query]))
                .collect();
            let undefined = campaign.has_undefined[ca] || campaign.has_undefined[cb];
            let mut means = Vec::with_capacity(n_resamples);
            let mut extreme = 0u64;
            for r in 0..n_resamples {
                let (b, j) = resample(r);
                let (sums, counts, draws) = &batches[b];
                let mut difference = sums[j * n_columns + ca] - sums[j * n_columns + cb];
                let mut drawn = n as i64;
                if undefined {
                    drawn = counts[j * n_columns + ca];
                    for &(slot, term, in_candidate) in &mismatches {
                        let c = i64::from(draws[j * watched.len() + slot]);
                        difference -= c * term;
                        if in_candidate {
                            drawn -= c;
                        }
                    }
                }
                if drawn <= 0 {
                    continue;
                }
                means.push(difference as f64 / drawn as f64 * factor);
                let drawn = i128::from(drawn);
                // (m* - m) n_defined drawn, compared with m n_defined drawn.
                let gap = i128::from(difference) * i128::from(n_defined) - observed * drawn;
                extreme += u64::from(alternative.at_least_as_extreme(
                    gap,
                    observed * drawn,
                    tolerance * drawn,
                ));
            }
            if means.is_empty() {
                return (f64::NAN, f64::NAN, 0, 0);
            }
            let valid = means.len() as u64;
            let low = quantile(&mut means, tail);
            let high = quantile(&mut means, 1.0 - tail);
            (low, high, extreme, valid)
        })
        .collect();
    Ok(BootstrapResult {
        low: items.iter().map(|i| i.0).collect(),
        high: items.iter().map(|i| i.1).collect(),
        counts: items.iter().map(|i| i.2).collect(),
        n_valid: items.iter().map(|i| i.3).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // The two-sided forms, which most tests below exercise (the one-sided ones are named).
    fn sign_flip_test(
        differences: &[f64],
        n_metrics: usize,
        n_pairs: usize,
        method: SignFlipMethod,
    ) -> CoreResult<SignFlipResult> {
        super::sign_flip_test(
            differences,
            n_metrics,
            n_pairs,
            method,
            Alternative::TwoSided,
        )
    }

    fn sign_flip_pairs(
        systems: SystemValues<'_>,
        pairs: &[(usize, usize)],
        method: SignFlipMethod,
    ) -> CoreResult<PairsResult> {
        super::sign_flip_pairs(systems, pairs, method, Alternative::TwoSided)
    }

    fn bootstrap_pairs(
        systems: SystemValues<'_>,
        pairs: &[(usize, usize)],
        n_resamples: u64,
        seed: u64,
        confidence_level: f64,
    ) -> CoreResult<BootstrapResult> {
        super::bootstrap_pairs(
            systems,
            pairs,
            n_resamples,
            seed,
            confidence_level,
            Alternative::TwoSided,
        )
    }

    /// Brute force: every sign vector, statistic summed directly in pair order, compared with
    /// the observed sum as the alternative says (written out here, not through the kernel's
    /// `Alternative::at_least_as_extreme`).
    fn brute_force_counts_of(rows: &[Vec<f64>], alternative: Alternative) -> Vec<u64> {
        rows.iter()
            .map(|row| {
                let n = row.len();
                let observed: f64 = row.iter().sum::<f64>();
                let tolerance = TIE_TOLERANCE * row.iter().map(|d| d.abs()).sum::<f64>();
                (0..1u64 << n)
                    .filter(|pattern| {
                        let t: f64 = row
                            .iter()
                            .enumerate()
                            .map(|(i, d)| if pattern >> i & 1 == 1 { *d } else { -d })
                            .sum();
                        match alternative {
                            Alternative::TwoSided => t.abs() >= observed.abs() - tolerance,
                            Alternative::Greater => t >= observed - tolerance,
                            Alternative::Less => t <= observed + tolerance,
                        }
                    })
                    .count() as u64
            })
            .collect()
    }

    fn brute_force_counts(rows: &[Vec<f64>]) -> Vec<u64> {
        brute_force_counts_of(rows, Alternative::TwoSided)
    }

    #[test]
    fn one_sided_exact_p_values_match_the_hand_count() {
        // d = [0.5, 0.25, 0.125]: T = 0.875 is the largest of the 8 signed sums, so p = 1/8
        // greater and 8/8 less; two-sided the identity and its mirror: 2/8.
        let row = [0.5, 0.25, 0.125];
        let p = |alternative| {
            super::sign_flip_test(&row, 1, 3, SignFlipMethod::Exact, alternative)
                .unwrap()
                .p_values[0]
        };
        assert_eq!(p(Alternative::Greater), 1.0 / 8.0);
        assert_eq!(p(Alternative::Less), 1.0);
        assert_eq!(p(Alternative::TwoSided), 2.0 / 8.0);
        // Equal differences (rounded as 0.505 - 0.51 and 0.305 - 0.31 round them): the
        // smallest one-sided p-value of 2 pairs is 1/4, never less.
        let equal = [0.505 - 0.51 + 0.01, 0.305 - 0.31 + 0.01];
        assert_eq!(
            super::sign_flip_test(&equal, 1, 2, SignFlipMethod::Exact, Alternative::Greater)
                .unwrap()
                .p_values[0],
            0.25
        );
    }

    #[test]
    fn alternatives_are_parsed_by_their_scipy_names() {
        assert_eq!(
            Alternative::parse("two-sided").unwrap(),
            Alternative::TwoSided
        );
        assert_eq!(Alternative::parse("greater").unwrap(), Alternative::Greater);
        assert_eq!(Alternative::parse("less").unwrap(), Alternative::Less);
        assert!(Alternative::parse("larger").is_err());
    }

    #[test]
    fn bootstrap_counts_do_not_depend_on_how_the_values_are_written() {
        // The same differences as d, 10 d and round(10 d) / 10 (binary fractions that differ
        // in their last bits): resampled means tied with the bound in exact arithmetic count
        // the same with the tie tolerance.
        let d: Vec<f64> = [2, -1, 3, 0, 1, 2, -2, 1, 1, 0, 3, -1]
            .iter()
            .map(|&k| f64::from(k) / 10.0)
            .collect();
        let counts = |scale: f64| {
            let candidate: Vec<f64> = d.iter().map(|x| x * scale).collect();
            let baseline = vec![0.0; d.len()];
            let values = [candidate, baseline].concat();
            let systems = SystemValues {
                values: &values,
                n_systems: 2,
                n_metrics: 1,
                n_queries: d.len(),
            };
            [
                Alternative::TwoSided,
                Alternative::Greater,
                Alternative::Less,
            ]
            .map(|alternative| {
                super::bootstrap_pairs(systems, &[(0, 1)], 4000, 5, 0.95, alternative)
                    .unwrap()
                    .counts[0]
            })
        };
        let plain = counts(1.0);
        assert_eq!(plain, counts(10.0));
        assert_eq!(plain, counts(1.0 / 3.0));
        // Greater and less split the two-sided count (the shift bootstrap is symmetric around
        // m only in distribution, but every two-sided extreme is one of the two).
        assert!(plain[1] + plain[2] >= plain[0]);
    }

    fn flatten(rows: &[Vec<f64>]) -> Vec<f64> {
        rows.iter().flatten().copied().collect()
    }

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    #[test]
    fn two_pairs_match_the_hand_count() {
        // recall@1 [-1, 0]: |±1 ± 0| = 1 always -> 4/4; mrr [-1, -1/3]: 2 of 4 reach 4/3.
        let rows = vec![vec![-1.0, 0.0], vec![-1.0, -1.0 / 3.0], vec![-1.0, -0.5]];
        let result = sign_flip_test(&flatten(&rows), 3, 2, SignFlipMethod::Exact).unwrap();
        assert_eq!(result.p_values, vec![1.0, 0.5, 0.5]);
        assert_eq!(result.counts, vec![4, 2, 2]);
        assert_eq!(result.n_patterns, 4);
        assert!(result.exact);
    }

    #[test]
    fn all_zero_differences_give_p_one() {
        let zeros = vec![0.0; 20];
        let exact = sign_flip_test(&zeros, 1, 20, SignFlipMethod::Exact).unwrap();
        assert_eq!(exact.p_values, vec![1.0]);
        let sampled = sign_flip_test(
            &zeros,
            1,
            20,
            SignFlipMethod::Sampled {
                n_resamples: 999,
                seed: 3,
            },
        )
        .unwrap();
        assert_eq!(sampled.p_values, vec![1.0]);
    }

    #[test]
    fn smallest_exact_p_is_two_over_two_to_the_n() {
        let ones = vec![1.0; 10];
        let result = sign_flip_test(&ones, 1, 10, SignFlipMethod::Exact).unwrap();
        assert_eq!(result.p_values, vec![2.0 / 1024.0]);
    }

    #[test]
    fn sampled_matches_exact_within_monte_carlo_error_at_16_pairs() {
        let row: Vec<f64> = (0..16)
            .map(|i| ((i * 7919 % 13) as f64 - 4.0) / 10.0)
            .collect();
        let exact = sign_flip_test(&row, 1, 16, SignFlipMethod::Exact)
            .unwrap()
            .p_values[0];
        let n = 200_000u64;
        let sampled = sign_flip_test(
            &row,
            1,
            16,
            SignFlipMethod::Sampled {
                n_resamples: n,
                seed: 42,
            },
        )
        .unwrap()
        .p_values[0];
        let sigma = (exact * (1.0 - exact) / n as f64).sqrt();
        assert!(exact > 0.01 && exact < 0.99, "exact p {exact}");
        assert!(
            (sampled - exact).abs() < 5.0 * sigma + 1.0 / n as f64,
            "sampled {sampled} exact {exact} sigma {sigma}"
        );
    }

    #[test]
    fn sampled_is_identical_for_any_thread_count_and_metric_chunking() {
        let n_pairs = 300;
        let rows: Vec<Vec<f64>> = (0..5)
            .map(|m| {
                (0..n_pairs)
                    .map(|i| (((i * 31 + m * 17) % 23) as f64 - 11.2) / 50.0)
                    .collect()
            })
            .collect();
        let flat = flatten(&rows);
        let method = SignFlipMethod::Sampled {
            n_resamples: 5_000,
            seed: 7,
        };
        let one = in_pool(1, || sign_flip_test(&flat, 5, n_pairs, method).unwrap());
        let three = in_pool(3, || sign_flip_test(&flat, 5, n_pairs, method).unwrap());
        assert_eq!(one, three);
        // Each metric alone sees the same sign vectors as within the batch of five.
        for (m, row) in rows.iter().enumerate() {
            let alone = sign_flip_test(row, 1, n_pairs, method).unwrap();
            assert_eq!(alone.counts[0], one.counts[m]);
        }
        let other_seed = sign_flip_test(
            &flat,
            5,
            n_pairs,
            SignFlipMethod::Sampled {
                n_resamples: 5_000,
                seed: 8,
            },
        )
        .unwrap();
        assert_ne!(one.counts, other_seed.counts);
    }

    #[test]
    fn rejects_bad_shapes_and_values() {
        assert!(sign_flip_test(&[], 1, 0, SignFlipMethod::Exact).is_err());
        assert!(sign_flip_test(&[1.0, 2.0, 3.0], 2, 2, SignFlipMethod::Exact).is_err());
        assert!(sign_flip_test(&[1.0, f64::NAN], 1, 2, SignFlipMethod::Exact).is_err());
        assert!(sign_flip_test(&[1.0; 25], 1, 25, SignFlipMethod::Exact).is_err());
        let zero = SignFlipMethod::Sampled {
            n_resamples: 0,
            seed: 0,
        };
        assert!(sign_flip_test(&[1.0; 3], 1, 3, zero).is_err());
    }

    #[test]
    fn bootstrap_is_deterministic_and_resamples_with_replacement() {
        let rows = vec![vec![1.0, 2.0, 3.0, f64::NAN], vec![0.5; 4]];
        let flat = flatten(&rows);
        let one = in_pool(1, || {
            bootstrap_mean_differences(&flat, 2, 4, 3000, 5).unwrap()
        });
        let two = in_pool(2, || {
            bootstrap_mean_differences(&flat, 2, 4, 3000, 5).unwrap()
        });
        assert_eq!(one.len(), 6000);
        assert!(
            one.iter()
                .zip(&two)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        // Every mean of the first row lies in [1, 3] (or NaN when only the NaN pair was drawn);
        // the constant row always has mean 0.5.
        assert!(
            one[..3000]
                .iter()
                .all(|m| m.is_nan() || (1.0..=3.0).contains(m))
        );
        assert!(one[3000..].iter().all(|&m| m == 0.5));
        let mean: f64 = one[..3000].iter().filter(|m| !m.is_nan()).sum::<f64>()
            / one[..3000].iter().filter(|m| !m.is_nan()).count() as f64;
        assert!((mean - 2.0).abs() < 0.05, "bootstrap mean {mean}");
    }

    #[test]
    fn differences_whose_sums_overflow_are_tested_as_their_scaled_copies() {
        // 2^1023 times a row: the sum of the large row overflows float64.
        let row = [0.5, -0.25, 0.75, 1.0, -0.125, 0.375];
        let big: Vec<f64> = row.iter().map(|d| d * power_of_two(1023)).collect();
        assert!(big.iter().sum::<f64>().is_infinite());
        let exact = sign_flip_test(&row, 1, 6, SignFlipMethod::Exact).unwrap();
        let huge = sign_flip_test(&big, 1, 6, SignFlipMethod::Exact).unwrap();
        assert_eq!(huge.counts, exact.counts);
        assert_eq!(huge.counts, brute_force_counts(&[row.to_vec()]));
        assert!(huge.p_values[0] >= 2.0 / 64.0);
        let sampled = SignFlipMethod::Sampled {
            n_resamples: 999,
            seed: 1,
        };
        assert_eq!(
            sign_flip_test(&big, 1, 6, sampled).unwrap().counts,
            sign_flip_test(&row, 1, 6, sampled).unwrap().counts
        );
        // Bootstrap means of the large row are those of the row, times 2^1023, exactly; a
        // row without overflow next to it is left as it is, NaN included.
        let with_nan = [1.0, f64::NAN, 3.0, 0.5, 2.0, -1.0];
        let rows: Vec<f64> = big.iter().chain(&with_nan).copied().collect();
        let means = bootstrap_mean_differences(&rows, 2, 6, 500, 9).unwrap();
        let small = bootstrap_mean_differences(&row, 1, 6, 500, 9).unwrap();
        let plain = bootstrap_mean_differences(&with_nan, 1, 6, 500, 9).unwrap();
        for (m, s) in means[..500].iter().zip(&small) {
            assert_eq!(m.to_bits(), (s * power_of_two(1023)).to_bits());
        }
        for (m, p) in means[500..].iter().zip(&plain) {
            assert_eq!(m.to_bits(), p.to_bits());
        }
        // The sum of the row is finite, but a resample drawing 1e308 three times is not.
        let means = bootstrap_mean_differences(&[1e308, 0.0, 0.0], 1, 3, 2000, 3).unwrap();
        assert!(
            means
                .iter()
                .all(|m| m.is_finite() && (0.0..=1.0000000000000002e308).contains(m))
        );
        assert!(means.iter().any(|&m| m > 0.99e308));
    }

    /// Systems on a grid of 1/64 (every sum exact in floating point) with undefined values.
    fn grid_systems(n_systems: usize, n_metrics: usize, n_queries: usize, seed: u64) -> Vec<f64> {
        let mut rng = batch_rng(seed, 0);
        (0..n_systems * n_metrics * n_queries)
            .map(|_| {
                let word = rng.next_u64();
                if word.is_multiple_of(11) {
                    f64::NAN
                } else {
                    ((word >> 8) % 65) as f64 / 64.0
                }
            })
            .collect()
    }

    fn all_pairs(n_systems: usize) -> Vec<(usize, usize)> {
        (0..n_systems)
            .flat_map(|a| (0..n_systems).filter(move |&b| b != a).map(move |b| (a, b)))
            .collect()
    }

    /// The differences of a pair's metric, undefined pairs as 0 (the same test as dropping them).
    fn pair_row(
        values: &[f64],
        n_metrics: usize,
        n: usize,
        a: usize,
        b: usize,
        m: usize,
    ) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let d = values[(a * n_metrics + m) * n + i] - values[(b * n_metrics + m) * n + i];
                if d.is_nan() { 0.0 } else { d }
            })
            .collect()
    }

    fn check_pairs_against_single_pair_test(
        n_systems: usize,
        n_metrics: usize,
        n: usize,
        method: SignFlipMethod,
        seed: u64,
    ) {
        let values = grid_systems(n_systems, n_metrics, n, seed);
        let systems = SystemValues {
            values: &values,
            n_systems,
            n_metrics,
            n_queries: n,
        };
        let pairs = all_pairs(n_systems);
        let result = sign_flip_pairs(systems, &pairs, method).unwrap();
        for (p, &(a, b)) in pairs.iter().enumerate() {
            for m in 0..n_metrics {
                let row = pair_row(&values, n_metrics, n, a, b, m);
                let single = sign_flip_test(&row, 1, n, method).unwrap();
                assert_eq!(
                    result.counts[p * n_metrics + m],
                    single.counts[0],
                    "pair {p} metric {m}"
                );
                assert_eq!(result.p_values[p * n_metrics + m], single.p_values[0]);
                assert_eq!(result.n_patterns, single.n_patterns);
            }
        }
    }

    #[test]
    fn pairs_of_systems_match_the_single_pair_test_on_the_same_sign_vectors() {
        // Exact (2^11 patterns), sampled over several super-batches, many column blocks.
        check_pairs_against_single_pair_test(4, 3, 11, SignFlipMethod::Exact, 1);
        let sampled = SignFlipMethod::Sampled {
            n_resamples: 2 * SUPER_BATCH as u64 + 777,
            seed: 5,
        };
        check_pairs_against_single_pair_test(5, 2, 150, sampled, 2);
        check_pairs_against_single_pair_test(2, 1, 70, sampled, 3);
    }

    #[test]
    fn pairs_are_thread_independent_and_rounding_does_not_break_ties() {
        let n = 300;
        let values: Vec<f64> = (0..3 * 2 * n)
            .map(|i| ((i * 7919) % 1000) as f64 / 997.0)
            .collect();
        let mut values = values;
        // System 2 equals system 0 on metric 0 except at three queries: every sign vector that
        // only flips the other queries is a tie, and must count.
        for i in 0..n {
            values[(2 * 2) * n + i] = values[i];
        }
        values[4 * n] += 0.1;
        values[4 * n + 1] += 0.2;
        values[4 * n + 2] -= 0.3;
        let systems = SystemValues {
            values: &values,
            n_systems: 3,
            n_metrics: 2,
            n_queries: n,
        };
        let pairs = [(2, 0), (1, 0), (1, 2)];
        let method = SignFlipMethod::Sampled {
            n_resamples: 4000,
            seed: 11,
        };
        let one = in_pool(1, || sign_flip_pairs(systems, &pairs, method).unwrap());
        let three = in_pool(3, || sign_flip_pairs(systems, &pairs, method).unwrap());
        assert_eq!(one, three);
        // 0.1 + 0.2 - 0.3 is not 0 in binary, but the tolerance counts it as a tie: the
        // statistic is |±0.1 ± 0.2 ∓ 0.3| >= |0|, true for every sign vector.
        assert_eq!(one.counts[0], 4000);
        let exact_row: Vec<f64> = (0..n).map(|i| values[4 * n + i] - values[i]).collect();
        assert_eq!(
            sign_flip_test(&exact_row, 1, n, method).unwrap().counts[0],
            one.counts[0]
        );
    }

    #[test]
    fn pairs_refuse_bad_input() {
        let values = vec![0.5; 2 * 3];
        let systems = SystemValues {
            values: &values,
            n_systems: 2,
            n_metrics: 1,
            n_queries: 3,
        };
        let exact = SignFlipMethod::Exact;
        assert!(sign_flip_pairs(systems, &[], exact).is_err());
        assert!(sign_flip_pairs(systems, &[(0, 0)], exact).is_err());
        assert!(sign_flip_pairs(systems, &[(0, 2)], exact).is_err());
        let short = SystemValues {
            values: &values[..5],
            ..systems
        };
        assert!(sign_flip_pairs(short, &[(0, 1)], exact).is_err());
        let infinite = [0.5, f64::INFINITY, 0.5, 0.5, 0.5, 0.5];
        let bad = SystemValues {
            values: &infinite,
            ..systems
        };
        assert!(sign_flip_pairs(bad, &[(0, 1)], exact).is_err());
        assert!(bootstrap_pairs(systems, &[(0, 1)], 0, 1, 0.95).is_err());
        assert!(bootstrap_pairs(systems, &[(0, 1)], 10, 1, 1.0).is_err());
        // Identical systems: p = 1; a pair without any query defined in both: p = 1, NaN CI.
        let same = sign_flip_pairs(systems, &[(0, 1)], exact).unwrap();
        assert_eq!(same.p_values, vec![1.0]);
        let undefined = [0.5, 0.5, 0.5, f64::NAN, f64::NAN, f64::NAN];
        let none = SystemValues {
            values: &undefined,
            ..systems
        };
        assert_eq!(
            sign_flip_pairs(none, &[(0, 1)], exact).unwrap().p_values,
            vec![1.0]
        );
        let boot = bootstrap_pairs(none, &[(0, 1)], 50, 1, 0.9).unwrap();
        assert!(boot.low[0].is_nan() && boot.n_valid[0] == 0);
    }

    #[test]
    fn bootstrap_pairs_match_the_single_pair_bootstrap_on_the_same_draws() {
        let (n_systems, n_metrics, n) = (4, 2, 37);
        let values = grid_systems(n_systems, n_metrics, n, 9);
        let systems = SystemValues {
            values: &values,
            n_systems,
            n_metrics,
            n_queries: n,
        };
        let pairs = all_pairs(n_systems);
        let n_resamples = 2500u64;
        let level = 0.9;
        let result = in_pool(2, || {
            bootstrap_pairs(systems, &pairs, n_resamples, 17, level).unwrap()
        });
        for (p, &(a, b)) in pairs.iter().enumerate() {
            for m in 0..n_metrics {
                let item = p * n_metrics + m;
                let row: Vec<f64> = (0..n)
                    .map(|i| {
                        values[(a * n_metrics + m) * n + i] - values[(b * n_metrics + m) * n + i]
                    })
                    .collect();
                let means = bootstrap_mean_differences(&row, 1, n, n_resamples, 17).unwrap();
                let mut defined: Vec<f64> = means.iter().copied().filter(|x| !x.is_nan()).collect();
                assert_eq!(result.n_valid[item], defined.len() as u64);
                let observed: Vec<f64> = row.iter().copied().filter(|d| !d.is_nan()).collect();
                if observed.is_empty() {
                    assert!(result.low[item].is_nan());
                    continue;
                }
                let mean = observed.iter().sum::<f64>() / observed.len() as f64;
                // Counted exactly: every value is a multiple of 1/64.
                let extreme = defined
                    .iter()
                    .filter(|&&x| (x - mean).abs() >= mean.abs())
                    .count() as u64;
                assert_eq!(result.counts[item], extreme, "pair {p} metric {m}");
                let tail = (1.0 - level) / 2.0;
                let low = quantile(&mut defined, tail);
                let high = quantile(&mut defined, 1.0 - tail);
                assert_eq!(result.low[item].to_bits(), low.to_bits());
                assert_eq!(result.high[item].to_bits(), high.to_bits());
            }
        }
    }

    #[test]
    fn quantile_interpolates_as_numpy() {
        // numpy.quantile([3, 1, 4, 1, 5], [0, 0.1, 0.5, 0.75, 0.9, 1]) = 1, 1, 3, 4, 4.6, 5
        let data = [3.0, 1.0, 4.0, 1.0, 5.0];
        for (q, expected) in [
            (0.0, 1.0),
            (0.1, 1.0),
            (0.5, 3.0),
            (0.75, 4.0),
            (0.9, 4.6),
            (1.0, 5.0),
        ] {
            let mut copy = data;
            assert!((quantile(&mut copy, q) - expected).abs() < 1e-15, "q {q}");
        }
        assert_eq!(quantile(&mut [2.5], 0.3), 2.5);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn exact_pairs_equal_brute_force(
            n in 1usize..=10,
            n_systems in 2usize..=4,
            seed in any::<u64>(),
        ) {
            let values = grid_systems(n_systems, 2, n, seed);
            let systems = SystemValues { values: &values, n_systems, n_metrics: 2, n_queries: n };
            let pairs = all_pairs(n_systems);
            let result = sign_flip_pairs(systems, &pairs, SignFlipMethod::Exact).unwrap();
            for (p, &(a, b)) in pairs.iter().enumerate() {
                for m in 0..2 {
                    let row = pair_row(&values, 2, n, a, b, m);
                    prop_assert_eq!(
                        result.counts[p * 2 + m],
                        brute_force_counts(&[row])[0]
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn exact_equals_brute_force(
            rows in (1usize..=12).prop_flat_map(|n| proptest::collection::vec(
                proptest::collection::vec(prop_oneof![
                    (-8i32..=8).prop_map(|k| f64::from(k) / 8.0),
                    -1.0f64..1.0,
                ], n),
                1..4,
            ))
        ) {
            let n_pairs = rows[0].len();
            let result = sign_flip_test(&flatten(&rows), rows.len(), n_pairs, SignFlipMethod::Exact)
                .unwrap();
            prop_assert_eq!(&result.counts, &brute_force_counts(&rows));
            let negated: Vec<f64> = flatten(&rows).iter().map(|d| -d).collect();
            let mirrored = sign_flip_test(&negated, rows.len(), n_pairs, SignFlipMethod::Exact)
                .unwrap();
            prop_assert_eq!(&result.counts, &mirrored.counts);
            for p in &result.p_values {
                prop_assert!(*p >= 2.0 / (1u64 << n_pairs) as f64 && *p <= 1.0);
            }
        }

        #[test]
        fn one_sided_exact_equals_brute_force(
            rows in (1usize..=12).prop_flat_map(|n| proptest::collection::vec(
                proptest::collection::vec(prop_oneof![
                    (-8i32..=8).prop_map(|k| f64::from(k) / 8.0),
                    -1.0f64..1.0,
                ], n),
                1..4,
            ))
        ) {
            let n_pairs = rows[0].len();
            let flat = flatten(&rows);
            let total = (1u64 << n_pairs) as f64;
            for alternative in [Alternative::Greater, Alternative::Less] {
                let result = super::sign_flip_test(
                    &flat, rows.len(), n_pairs, SignFlipMethod::Exact, alternative,
                ).unwrap();
                prop_assert_eq!(&result.counts, &brute_force_counts_of(&rows, alternative));
                for p in &result.p_values {
                    // The identity always counts: never below 1 / 2^n.
                    prop_assert!(*p >= 1.0 / total && *p <= 1.0);
                }
            }
            // Greater for d is less for -d.
            let negated: Vec<f64> = flat.iter().map(|d| -d).collect();
            let greater = super::sign_flip_test(
                &flat, rows.len(), n_pairs, SignFlipMethod::Exact, Alternative::Greater,
            ).unwrap();
            let less = super::sign_flip_test(
                &negated, rows.len(), n_pairs, SignFlipMethod::Exact, Alternative::Less,
            ).unwrap();
            prop_assert_eq!(greater.counts, less.counts);
        }

        #[test]
        fn one_sided_pairs_equal_brute_force(
            n in 1usize..=9,
            seed in any::<u64>(),
        ) {
            let values = grid_systems(3, 2, n, seed);
            let systems = SystemValues { values: &values, n_systems: 3, n_metrics: 2, n_queries: n };
            let pairs = all_pairs(3);
            for alternative in [Alternative::Greater, Alternative::Less] {
                let result = super::sign_flip_pairs(
                    systems, &pairs, SignFlipMethod::Exact, alternative,
                ).unwrap();
                for (p, &(a, b)) in pairs.iter().enumerate() {
                    for m in 0..2 {
                        let row = pair_row(&values, 2, n, a, b, m);
                        prop_assert_eq!(
                            result.counts[p * 2 + m],
                            brute_force_counts_of(&[row], alternative)[0]
                        );
                    }
                }
            }
        }

        #[test]
        fn sampled_p_values_are_valid(
            row in proptest::collection::vec(-1.0f64..1.0, 17..200),
            seed in any::<u64>(),
        ) {
            let n = row.len();
            let method = SignFlipMethod::Sampled { n_resamples: 2_000, seed };
            let result = sign_flip_test(&row, 1, n, method).unwrap();
            let p = result.p_values[0];
            prop_assert!(p > 0.0 && p <= 1.0);
            prop_assert_eq!(p, (result.counts[0] + 1) as f64 / 2_001.0);
            prop_assert_eq!(sign_flip_test(&row, 1, n, method).unwrap(), result);
        }
    }
}
