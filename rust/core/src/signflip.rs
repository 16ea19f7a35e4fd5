//! Paired randomisation tests over per-query differences, for many metrics at once.
//!
//! The input is a row-major matrix of differences `d[m][i]` (metric `m`, query pair `i`), the
//! per-query score of the candidate minus that of the baseline. Under the null hypothesis that
//! the two systems are exchangeable on every query, each difference is as likely to have the
//! opposite sign, so the observed statistic `T = |sum_i d_i|` is compared with `|sum_i s_i d_i|`
//! over sign vectors `s` in {-1, +1}^n (Fisher's randomisation test, two-sided; Smucker, Allan
//! and Carterette, CIKM 2007). The same sign vectors serve every metric, which makes one pass
//! answer all of them.
//!
//! * `exact`: every one of the 2^n sign vectors, the identity included; p = count / 2^n.
//! * `sampled`: `n_resamples` random sign vectors; p = (count + 1) / (n_resamples + 1), which
//!   counts the observed assignment once and so never returns 0 (Phipson and Smyth 2010).
//!
//! A resampled statistic counts as at least as extreme when
//! `|T*| >= |T| - 1e-9 * sum_i |d_i|`: the tolerance absorbs floating-point rounding between
//! sums that are equal in exact arithmetic (so ties count, as they must for a valid test), and
//! is far below any difference of means that could matter.
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
const GROUP_BITS: usize = 8;
const GROUP_PATTERNS: usize = 1 << GROUP_BITS;
const GROUPS_PER_WORD: usize = 64 / GROUP_BITS;
/// Upper bound on the bytes of partial-sum tables built at once; more metrics are processed in
/// chunks that each replay the same sign vectors.
const TABLE_BUDGET_BYTES: usize = 32 << 20;

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
    /// Two-sided p-value per metric.
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
struct Differences<'a> {
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
    fn new(values: &'a [f64], n_metrics: usize, n_pairs: usize) -> CoreResult<Self> {
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

    fn row(&self, metric: usize) -> &[f64] {
        &self.values[metric * self.n_pairs..(metric + 1) * self.n_pairs]
    }
}

/// Partial sums of 8 pairs at a time for a chunk of metrics, laid out
/// `[group][pattern][metric]` so that one lookup reads the values of every metric in a row.
struct Tables {
    n_groups: usize,
    n_metrics: usize,
    values: Vec<f64>,
}

impl Tables {
    fn build(diffs: &Differences<'_>, metrics: std::ops::Range<usize>) -> Tables {
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
    fn accumulate(&self, acc: &mut [f64], byte: impl Fn(usize) -> usize) {
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

    fn count_extreme(&self, acc: &[f64], thresholds: &[f64], counts: &mut [u64]) {
        for ((count, a), threshold) in counts.iter_mut().zip(acc).zip(thresholds) {
            *count += u64::from(a.abs() >= *threshold);
        }
    }

    /// `|T| - tolerance` per metric, with `T` the observed statistic (every sign +1) computed
    /// through the same tables as the resamples, so that the identity matches itself exactly.
    fn thresholds(&self, diffs: &Differences<'_>, metrics: std::ops::Range<usize>) -> Vec<f64> {
        let mut observed = vec![0.0; self.n_metrics];
        self.accumulate(&mut observed, |_| GROUP_PATTERNS - 1);
        observed
            .iter()
            .zip(metrics)
            .map(|(t, metric)| {
                let scale: f64 = diffs.row(metric).iter().map(|d| d.abs()).sum();
                t.abs() - TIE_TOLERANCE * scale
            })
            .collect()
    }
}

/// Two-sided paired sign-flip test of every row of `differences` (row-major, `n_metrics` rows
/// of `n_pairs` values), with the same sign vectors for every row.
pub fn sign_flip_test(
    differences: &[f64],
    n_metrics: usize,
    n_pairs: usize,
    method: SignFlipMethod,
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
                let thresholds = tables.thresholds(&diffs, metrics);
                counts.extend(match method {
                    SignFlipMethod::Exact => count_exact(&tables, &thresholds, n_pairs),
                    SignFlipMethod::Sampled { n_resamples, seed } => {
                        count_sampled(&tables, &thresholds, n_pairs, n_resamples, seed)
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

fn count_exact(tables: &Tables, thresholds: &[f64], n_pairs: usize) -> Vec<u64> {
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
                tables.count_extreme(&acc, thresholds, &mut counts);
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
    thresholds: &[f64],
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
                tables.count_extreme(&acc, thresholds, &mut counts);
            }
            counts
        })
        .reduce(|| vec![0u64; n_metrics], sum_counts)
}

/// Uniform integer in `0..bound` from raw words (Lemire's multiply-shift with rejection, so
/// unbiased and independent of rand's distribution code).
fn uniform_below(rng: &mut Xoshiro256PlusPlus, bound: u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute force: every sign vector, statistic summed directly in pair order.
    fn brute_force_counts(rows: &[Vec<f64>]) -> Vec<u64> {
        rows.iter()
            .map(|row| {
                let n = row.len();
                let observed: f64 = row.iter().sum::<f64>().abs();
                let scale: f64 = row.iter().map(|d| d.abs()).sum();
                (0..1u64 << n)
                    .filter(|pattern| {
                        let t: f64 = row
                            .iter()
                            .enumerate()
                            .map(|(i, d)| if pattern >> i & 1 == 1 { *d } else { -d })
                            .sum();
                        t.abs() >= observed - TIE_TOLERANCE * scale
                    })
                    .count() as u64
            })
            .collect()
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
