//! Randomisation tests of many systems at once: the randomised Tukey HSD test of all pairs of
//! systems, and Westfall and Young's max-T step-down adjustment of many candidates against
//! one baseline.
//!
//! **Randomised Tukey HSD** (Carterette, ACM TOIS 30(1), 2012; Sakai, "Laboratory Experiments
//! in Information Retrieval", 2018, ch. 5). The input is a `queries x systems` matrix of
//! per-query scores. Under the null hypothesis that the systems are exchangeable on every
//! query, each query's row of scores is as likely to come in any order, so each permutation
//! permutes every row independently and records the range of the system sums
//! `R* = max_s S*_s - min_s S*_s` (`n` times the largest difference of system means). The
//! p-value of the pair `(i, j)` is the share of permutations with
//! `R* >= |S_i - S_j| - 1e-9 * sum_q (max_s x_qs - min_s x_qs)` (the tolerance absorbs the
//! rounding between sums that are equal in exact arithmetic, so ties count).
//!
//! * `exact`: all `(m!)^n` permutations, the identity included; p = count / (m!)^n. Permuting
//!   every row by the same permutation only relabels the systems and keeps `R*`, so only the
//!   `(m!)^(n-1)` permutations that leave the first query in place are enumerated and every
//!   count is multiplied by `m!`.
//! * `sampled`: `n_resamples` random permutations; p = (count + 1) / (n_resamples + 1).
//!
//! **Westfall-Young max-T** (Westfall and Young, "Resampling-Based Multiple Testing", 1993,
//! algorithm 2.8; Boytsov, Belova and Westfall, SIGIR 2013). The input is a
//! `candidates x queries` matrix of differences (candidate minus baseline). Every sign vector
//! of the sign-flip test (`signflip`, the same vectors, exact or from the same seeded batches)
//! flips the same queries for every candidate. With the candidates sorted by decreasing
//! observed statistic `|T_(1)| >= ... >= |T_(k)|`, the adjusted p-value of the `j`-th is the
//! share of sign vectors whose `max_{l >= j} |T*_(l)|` reaches `|T_(j)|` (the successive
//! maxima of step-down), made monotone: `p~_(j) = max(p~_(j-1), p~_(j))`. The statistic is the
//! paired t statistic (`|sum d| / sqrt((n sum d^2 - (sum d)^2) / (n - 1))`, max-T) or the
//! absolute mean difference. Raw (unadjusted) p-values come from the same sign vectors.
//!
//! Determinism: sampled permutations and sign vectors come in fixed batches of
//! `signflip::BATCH`, batch `b` drawn from `signflip::batch_rng(seed, b)`; counts are integers
//! summed over batches, and each statistic is summed in query order, so every result is the
//! same for any number of threads.

use rayon::prelude::*;

use crate::signflip::{
    self, BATCH, Differences, GROUP_BITS, GROUP_PATTERNS, GROUPS_PER_WORD, SignFlipMethod,
    TIE_TOLERANCE, Tables,
};
use crate::{CoreError, CoreResult};

/// Largest number of permutations the exact randomised Tukey test enumerates (after fixing
/// the first query).
pub const MAX_EXACT_PERMUTATIONS: u64 = 1 << 24;

/// `n sum d^2 - (sum d)^2` at most this share of `n sum d^2` counts as zero variance: the
/// two sums round differently when every difference is the same non-exact value (0.1).
pub const ZERO_VARIANCE: f64 = 1e-10;

/// Most bytes of partial-sum tables the Westfall-Young test builds (every candidate's table
/// must be present at once, since each sign vector needs all candidates' statistics).
const WESTFALL_YOUNG_TABLE_BYTES: usize = 1 << 30;

/// p-values of every pair of systems.
#[derive(Clone, Debug, PartialEq)]
pub struct TukeyResult {
    /// Pairs `(i, j)`, `i < j`, in the order `(0,1), (0,2), ..., (1,2), ...`.
    pub p_values: Vec<f64>,
    /// Permutations whose range of system sums reached the pair's observed difference.
    pub counts: Vec<u64>,
    /// Permutations examined: `(m!)^n` when exact, `n_resamples` when sampled.
    pub n_permutations: u64,
    pub exact: bool,
}

/// Adjusted and raw p-values of many candidates against one baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct WestfallYoungResult {
    /// Step-down adjusted p-value per candidate (input order).
    pub adjusted: Vec<f64>,
    /// Unadjusted p-value per candidate from the same sign vectors.
    pub raw: Vec<f64>,
    /// Observed statistic per candidate (|t| or |mean difference|).
    pub statistics: Vec<f64>,
    /// Sign vectors examined.
    pub n_patterns: u64,
    pub exact: bool,
}

/// The statistic of the max-T procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxStatistic {
    /// The paired t statistic of the flipped differences.
    T,
    /// The absolute mean of the flipped differences.
    MeanDifference,
}

fn check_matrix(
    values: &[f64],
    rows: usize,
    columns: usize,
    argument: &'static str,
    what: &str,
) -> CoreResult<()> {
    if rows.checked_mul(columns) != Some(values.len()) {
        return Err(CoreError::argument(
            argument,
            format!(
                "expected {rows} x {columns} = {} values, got {}",
                rows.saturating_mul(columns),
                values.len()
            ),
        ));
    }
    if let Some(pos) = values.iter().position(|v| !v.is_finite()) {
        return Err(CoreError::argument(
            argument,
            format!(
                "{what} {} column {} is {}; drop queries with undefined values first",
                pos / columns.max(1),
                pos % columns.max(1),
                values[pos]
            ),
        ));
    }
    let largest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if !(largest * (rows.max(columns) as f64) * 2.0).is_finite() {
        return Err(CoreError::argument(
            argument,
            format!("values up to {largest:e} overflow their sums; rescale them first"),
        ));
    }
    Ok(())
}

/// Ranges of permuted system sums counted against the sorted thresholds: `hist[k]` counts the
/// permutations that reach exactly the `k` smallest thresholds.
struct RangeCounter<'a> {
    sorted_thresholds: &'a [f64],
    hist: Vec<u64>,
}

impl<'a> RangeCounter<'a> {
    fn new(sorted_thresholds: &'a [f64]) -> Self {
        RangeCounter {
            sorted_thresholds,
            hist: vec![0; sorted_thresholds.len() + 1],
        }
    }

    #[inline]
    fn add(&mut self, sums: &[f64]) {
        let (low, high) = sums
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                (lo.min(s), hi.max(s))
            });
        let range = high - low;
        self.hist[self.sorted_thresholds.partition_point(|&t| t <= range)] += 1;
    }
}

fn merge_hist(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.into_iter().zip(b).map(|(x, y)| x + y).collect()
}

/// All permutations of `0..m` in lexicographic order.
fn permutations(m: usize) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = (0..m).collect();
    let mut all = vec![current.clone()];
    loop {
        let Some(i) = (0..m.saturating_sub(1))
            .rev()
            .find(|&i| current[i] < current[i + 1])
        else {
            return all;
        };
        let j = (i + 1..m)
            .rev()
            .find(|&j| current[j] > current[i])
            .unwrap_or(i);
        current.swap(i, j);
        current[i + 1..].reverse();
        all.push(current.clone());
    }
}

/// Randomised Tukey HSD test of every pair of systems over `scores` (row-major
/// `n_queries x n_systems`, one row per query).
pub fn randomised_tukey(
    scores: &[f64],
    n_queries: usize,
    n_systems: usize,
    method: SignFlipMethod,
) -> CoreResult<TukeyResult> {
    if n_systems < 2 {
        return Err(CoreError::argument(
            "scores",
            format!("needs at least two systems (columns) to compare, got {n_systems}"),
        ));
    }
    if n_queries == 0 {
        return Err(CoreError::argument(
            "scores",
            "needs at least one query (row) where every system has a score, got none",
        ));
    }
    check_matrix(scores, n_queries, n_systems, "scores", "query row")?;
    let row = |q: usize| &scores[q * n_systems..(q + 1) * n_systems];
    let mut observed = vec![0.0; n_systems];
    for q in 0..n_queries {
        for (s, x) in observed.iter_mut().zip(row(q)) {
            *s += x;
        }
    }
    let scale: f64 = (0..n_queries)
        .map(|q| {
            let r = row(q);
            r.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b))
                - r.iter().fold(f64::INFINITY, |a, &b| a.min(b))
        })
        .sum();
    let pairs: Vec<(usize, usize)> = (0..n_systems)
        .flat_map(|i| (i + 1..n_systems).map(move |j| (i, j)))
        .collect();
    let thresholds: Vec<f64> = pairs
        .iter()
        .map(|&(i, j)| (observed[i] - observed[j]).abs() - TIE_TOLERANCE * scale)
        .collect();
    let mut sorted = thresholds.clone();
    sorted.sort_by(f64::total_cmp);

    let (hist, multiplier, n_permutations) = match method {
        SignFlipMethod::Exact => {
            let factorial = (1..=n_systems as u64).try_fold(1u64, |f, k| f.checked_mul(k));
            let reduced = factorial.and_then(|f| {
                (1..n_queries).try_fold(1u64, |acc, _| {
                    acc.checked_mul(f).filter(|&v| v <= MAX_EXACT_PERMUTATIONS)
                })
            });
            let (Some(factorial), Some(reduced)) = (factorial, reduced) else {
                return Err(CoreError::argument(
                    "method",
                    format!(
                        "the exact test enumerates (m!)^(n-1) permutations and is limited to \
                         {MAX_EXACT_PERMUTATIONS}; {n_systems} systems x {n_queries} queries are \
                         too many; use sampling"
                    ),
                ));
            };
            let total = reduced.checked_mul(factorial).ok_or_else(|| {
                CoreError::argument("method", "too many permutations to count; use sampling")
            })?;
            (
                count_exact(scores, n_queries, n_systems, &sorted, reduced),
                factorial,
                total,
            )
        }
        SignFlipMethod::Sampled { n_resamples: 0, .. } => {
            return Err(CoreError::argument(
                "n_resamples",
                "must be a positive number of random permutations, got 0",
            ));
        }
        SignFlipMethod::Sampled { n_resamples, seed } => (
            count_sampled(scores, n_queries, n_systems, &sorted, n_resamples, seed),
            1,
            n_resamples,
        ),
    };
    // reached[k]: permutations whose range reaches the k-th smallest threshold.
    let mut reached = vec![0u64; sorted.len()];
    let mut above = 0u64;
    for k in (0..sorted.len()).rev() {
        above += hist[k + 1];
        reached[k] = above;
    }
    let counts: Vec<u64> = thresholds
        .iter()
        .map(|t| reached[sorted.partition_point(|s| s < t)] * multiplier)
        .collect();
    let exact = matches!(method, SignFlipMethod::Exact);
    let p_values = counts
        .iter()
        .map(|&c| {
            if exact {
                c as f64 / n_permutations as f64
            } else {
                (c + 1) as f64 / (n_permutations + 1) as f64
            }
        })
        .collect();
    Ok(TukeyResult {
        p_values,
        counts,
        n_permutations,
        exact,
    })
}

fn count_exact(
    scores: &[f64],
    n_queries: usize,
    n_systems: usize,
    sorted: &[f64],
    reduced: u64,
) -> Vec<u64> {
    const PATTERNS_PER_TASK: u64 = 1 << 12;
    let perms = permutations(n_systems);
    let radix = perms.len() as u64;
    // Every query's row in every order, so that one pattern costs n x m additions.
    let permuted: Vec<Vec<f64>> = (0..n_queries)
        .map(|q| {
            let row = &scores[q * n_systems..(q + 1) * n_systems];
            perms
                .iter()
                .flat_map(|p| p.iter().map(|&s| row[s]))
                .collect()
        })
        .collect();
    (0..reduced.div_ceil(PATTERNS_PER_TASK))
        .into_par_iter()
        .map(|task| {
            let mut counter = RangeCounter::new(sorted);
            let start = task * PATTERNS_PER_TASK;
            let end = (start + PATTERNS_PER_TASK).min(reduced);
            // Digit q - 1 is the permutation of query q (query 0 stays in place).
            let mut digits = vec![0usize; n_queries.saturating_sub(1)];
            let mut rest = start;
            for digit in digits.iter_mut() {
                *digit = (rest % radix) as usize;
                rest /= radix;
            }
            let mut sums = vec![0.0; n_systems];
            for _ in start..end {
                sums.copy_from_slice(&permuted[0][..n_systems]);
                for (q, &digit) in digits.iter().enumerate() {
                    let values = &permuted[q + 1][digit * n_systems..(digit + 1) * n_systems];
                    for (s, x) in sums.iter_mut().zip(values) {
                        *s += x;
                    }
                }
                counter.add(&sums);
                for digit in digits.iter_mut() {
                    *digit += 1;
                    if *digit < radix as usize {
                        break;
                    }
                    *digit = 0;
                }
            }
            counter.hist
        })
        .reduce(|| vec![0u64; sorted.len() + 1], merge_hist)
}

fn count_sampled(
    scores: &[f64],
    n_queries: usize,
    n_systems: usize,
    sorted: &[f64],
    n_resamples: u64,
    seed: u64,
) -> Vec<u64> {
    (0..n_resamples.div_ceil(BATCH))
        .into_par_iter()
        .map(|batch| {
            let mut rng = signflip::batch_rng(seed, batch);
            let mut counter = RangeCounter::new(sorted);
            let mut sums = vec![0.0; n_systems];
            let mut shuffled = vec![0.0; n_systems];
            for _ in 0..BATCH.min(n_resamples - batch * BATCH) {
                sums.fill(0.0);
                for q in 0..n_queries {
                    shuffled.copy_from_slice(&scores[q * n_systems..(q + 1) * n_systems]);
                    // Fisher-Yates from the last position down, one draw per position.
                    for s in (1..n_systems).rev() {
                        let j = signflip::uniform_below(&mut rng, s as u64 + 1) as usize;
                        shuffled.swap(s, j);
                    }
                    for (sum, x) in sums.iter_mut().zip(&shuffled) {
                        *sum += x;
                    }
                }
                counter.add(&sums);
            }
            counter.hist
        })
        .reduce(|| vec![0u64; sorted.len() + 1], merge_hist)
}

/// The statistic of one candidate from its signed sum `acc`, its sum of squares and `n`.
#[inline]
fn statistic(kind: MaxStatistic, acc: f64, squares: f64, n: f64) -> f64 {
    match kind {
        MaxStatistic::MeanDifference => acc.abs() / n,
        MaxStatistic::T => {
            let centred = n * squares - acc * acc;
            if acc == 0.0 {
                0.0
            } else if centred <= ZERO_VARIANCE * n * squares {
                // Every flipped difference equal (up to the rounding of the two sums): no
                // variance, an infinitely large t.
                f64::INFINITY
            } else {
                acc.abs() / (centred / (n - 1.0)).sqrt()
            }
        }
    }
}

/// Westfall-Young max-T step-down test of every row of `differences` (row-major
/// `n_candidates x n_pairs`, candidate minus baseline per query) with the sign vectors of the
/// sign-flip test.
pub fn westfall_young(
    differences: &[f64],
    n_candidates: usize,
    n_pairs: usize,
    kind: MaxStatistic,
    method: SignFlipMethod,
) -> CoreResult<WestfallYoungResult> {
    if n_candidates == 0 || n_pairs == 0 {
        return Err(CoreError::argument(
            "differences",
            format!("needs at least one candidate and one query, got {n_candidates} x {n_pairs}"),
        ));
    }
    if kind == MaxStatistic::T && n_pairs < 2 {
        return Err(CoreError::argument(
            "differences",
            "the t statistic needs at least two queries, got 1; use the mean difference",
        ));
    }
    check_matrix(
        differences,
        n_candidates,
        n_pairs,
        "differences",
        "candidate row",
    )?;
    match method {
        SignFlipMethod::Exact if n_pairs > signflip::MAX_EXACT_PAIRS => {
            return Err(CoreError::argument(
                "method",
                format!(
                    "the exact test enumerates 2^n sign vectors and is limited to {} pairs, \
                     got {n_pairs}; use sampling",
                    signflip::MAX_EXACT_PAIRS
                ),
            ));
        }
        SignFlipMethod::Sampled { n_resamples: 0, .. } => {
            return Err(CoreError::argument(
                "n_resamples",
                "must be a positive number of random sign vectors, got 0",
            ));
        }
        _ => {}
    }
    let table_bytes = n_pairs
        .div_ceil(GROUP_BITS)
        .saturating_mul(GROUP_PATTERNS * 8)
        .saturating_mul(n_candidates);
    if table_bytes > WESTFALL_YOUNG_TABLE_BYTES {
        return Err(CoreError::argument(
            "differences",
            format!(
                "{n_candidates} candidates x {n_pairs} queries need {} MiB of tables, more than \
                 {} MiB; test fewer candidates at once",
                table_bytes >> 20,
                WESTFALL_YOUNG_TABLE_BYTES >> 20
            ),
        ));
    }
    // check_matrix refused values whose sums could overflow, so no row is rescaled.
    let diffs = Differences::new(differences, n_candidates, n_pairs)?;
    let tables = Tables::build(&diffs, 0..n_candidates);
    let squares: Vec<f64> = (0..n_candidates)
        .map(|c| diffs.row(c).iter().map(|d| d * d).sum())
        .collect();
    let n = n_pairs as f64;
    let mut observed_sums = vec![0.0; n_candidates];
    tables.accumulate(&mut observed_sums, |_| GROUP_PATTERNS - 1);
    let mean_thresholds = tables.thresholds(&diffs, 0..n_candidates);
    let statistics: Vec<f64> = observed_sums
        .iter()
        .zip(&squares)
        .map(|(&a, &q)| statistic(kind, a, q, n))
        .collect();
    // The comparison of the sign-flip test (|T*| >= |T| - 1e-9 sum |d|) for the mean; the same
    // relative tolerance for t.
    let thresholds: Vec<f64> = match kind {
        MaxStatistic::MeanDifference => mean_thresholds.iter().map(|t| t / n).collect(),
        // An infinite t (no variance) is reached only by an infinite t: inf - 1e-9 inf is NaN,
        // which nothing reaches, and would make the identity itself not count (p = 0).
        MaxStatistic::T => statistics
            .iter()
            .map(|&t| {
                if t.is_finite() {
                    t - TIE_TOLERANCE * t
                } else {
                    t
                }
            })
            .collect(),
    };
    let mut order: Vec<usize> = (0..n_candidates).collect();
    order.sort_by(|&a, &b| statistics[b].total_cmp(&statistics[a]).then(a.cmp(&b)));

    let count = |acc: &mut [f64], stats: &mut [f64], raw: &mut [u64], step: &mut [u64]| {
        for ((s, &a), &q) in stats.iter_mut().zip(acc.iter()).zip(&squares) {
            *s = statistic(kind, a, q, n);
        }
        for ((r, s), t) in raw.iter_mut().zip(stats.iter()).zip(&thresholds) {
            *r += u64::from(s >= t);
        }
        let mut running = f64::NEG_INFINITY;
        for (j, &c) in order.iter().enumerate().rev() {
            running = running.max(stats[c]);
            step[j] += u64::from(running >= thresholds[c]);
        }
    };
    let zero = || (vec![0u64; n_candidates], vec![0u64; n_candidates]);
    let merge = |(a, b): (Vec<u64>, Vec<u64>), (c, d): (Vec<u64>, Vec<u64>)| {
        (merge_hist(a, c), merge_hist(b, d))
    };
    let (raw_counts, step_counts, n_patterns) = match method {
        SignFlipMethod::Exact => {
            const PATTERNS_PER_TASK: u64 = 1 << 12;
            let total = 1u64 << n_pairs;
            let (raw, step) = (0..total.div_ceil(PATTERNS_PER_TASK))
                .into_par_iter()
                .map(|task| {
                    let (mut raw, mut step) = zero();
                    let mut acc = vec![0.0; n_candidates];
                    let mut stats = vec![0.0; n_candidates];
                    let end = ((task + 1) * PATTERNS_PER_TASK).min(total);
                    for pattern in task * PATTERNS_PER_TASK..end {
                        tables.accumulate(&mut acc, |g| {
                            (pattern >> (g * GROUP_BITS)) as usize & (GROUP_PATTERNS - 1)
                        });
                        count(&mut acc, &mut stats, &mut raw, &mut step);
                    }
                    (raw, step)
                })
                .reduce(zero, merge);
            (raw, step, total)
        }
        SignFlipMethod::Sampled { n_resamples, seed } => {
            let n_words = n_pairs.div_ceil(64);
            let (raw, step) = (0..n_resamples.div_ceil(BATCH))
                .into_par_iter()
                .map(|batch| {
                    // The sign vectors of signflip::sign_flip_test for this seed.
                    let mut rng = signflip::batch_rng(seed, batch);
                    let (mut raw, mut step) = zero();
                    let mut words = vec![0u64; n_words];
                    let mut acc = vec![0.0; n_candidates];
                    let mut stats = vec![0.0; n_candidates];
                    for _ in 0..BATCH.min(n_resamples - batch * BATCH) {
                        for word in words.iter_mut() {
                            *word = rand::Rng::next_u64(&mut rng);
                        }
                        tables.accumulate(&mut acc, |g| {
                            (words[g / GROUPS_PER_WORD] >> (g % GROUPS_PER_WORD * GROUP_BITS))
                                as usize
                                & (GROUP_PATTERNS - 1)
                        });
                        count(&mut acc, &mut stats, &mut raw, &mut step);
                    }
                    (raw, step)
                })
                .reduce(zero, merge);
            (raw, step, n_resamples)
        }
    };
    let exact = matches!(method, SignFlipMethod::Exact);
    let p = |c: u64| {
        if exact {
            c as f64 / n_patterns as f64
        } else {
            (c + 1) as f64 / (n_patterns + 1) as f64
        }
    };
    let raw: Vec<f64> = raw_counts.iter().map(|&c| p(c)).collect();
    let mut adjusted = vec![0.0; n_candidates];
    let mut previous = 0.0f64;
    for (j, &c) in order.iter().enumerate() {
        previous = previous.max(p(step_counts[j]));
        adjusted[c] = previous;
    }
    Ok(WestfallYoungResult {
        adjusted,
        raw,
        statistics,
        n_patterns,
        exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    /// Every one of the (m!)^n permutations, the first query included.
    fn brute_force_tukey(scores: &[f64], n: usize, m: usize) -> Vec<u64> {
        let perms = permutations(m);
        let total = perms.len().pow(n as u32);
        let observed: Vec<f64> = (0..m)
            .map(|s| (0..n).map(|q| scores[q * m + s]).sum())
            .collect();
        let mut counts = vec![0u64; m * (m - 1) / 2];
        for index in 0..total {
            let mut rest = index;
            let mut sums = vec![0.0; m];
            for q in 0..n {
                let p = &perms[rest % perms.len()];
                rest /= perms.len();
                for s in 0..m {
                    sums[s] += scores[q * m + p[s]];
                }
            }
            let range = sums.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                - sums.iter().cloned().fold(f64::INFINITY, f64::min);
            let mut k = 0;
            for i in 0..m {
                for j in i + 1..m {
                    counts[k] += u64::from(range >= (observed[i] - observed[j]).abs());
                    k += 1;
                }
            }
        }
        counts
    }

    #[test]
    fn permutations_are_all_distinct_and_lexicographic() {
        let p = permutations(4);
        assert_eq!(p.len(), 24);
        assert!(p.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(permutations(1), vec![vec![0]]);
    }

    #[test]
    fn identical_systems_give_p_one() {
        let scores = vec![0.25; 5 * 3];
        let r = randomised_tukey(&scores, 5, 3, SignFlipMethod::Exact).unwrap();
        assert_eq!(r.p_values, vec![1.0; 3]);
        assert_eq!(r.n_permutations, 6u64.pow(5));
    }

    #[test]
    fn tukey_refuses_bad_input() {
        let exact = SignFlipMethod::Exact;
        assert!(randomised_tukey(&[0.5; 3], 3, 1, exact).is_err());
        assert!(randomised_tukey(&[], 0, 2, exact).is_err());
        assert!(randomised_tukey(&[0.5; 5], 3, 2, exact).is_err());
        assert!(randomised_tukey(&[0.5, f64::NAN], 1, 2, exact).is_err());
        assert!(randomised_tukey(&[0.5; 40 * 4], 40, 4, exact).is_err());
        let none = SignFlipMethod::Sampled {
            n_resamples: 0,
            seed: 1,
        };
        assert!(randomised_tukey(&[0.5; 6], 3, 2, none).is_err());
        assert!(westfall_young(&[0.5; 6], 2, 3, MaxStatistic::T, none).is_err());
        assert!(westfall_young(&[0.5], 1, 1, MaxStatistic::T, exact).is_err());
        assert!(westfall_young(&[0.5; 30], 1, 30, MaxStatistic::T, exact).is_err());
        assert!(
            westfall_young(&[f64::INFINITY], 1, 1, MaxStatistic::MeanDifference, exact).is_err()
        );
    }

    #[test]
    fn sampled_tukey_is_thread_independent() {
        let (n, m) = (57, 5);
        let scores: Vec<f64> = (0..n * m)
            .map(|i| ((i * 7919) % 101) as f64 / 100.0)
            .collect();
        let method = SignFlipMethod::Sampled {
            n_resamples: 3 * BATCH + 5,
            seed: 42,
        };
        let one = in_pool(1, || randomised_tukey(&scores, n, m, method).unwrap());
        let three = in_pool(3, || randomised_tukey(&scores, n, m, method).unwrap());
        assert_eq!(one, three);
        assert!(one.p_values.iter().all(|&p| p > 0.0 && p <= 1.0));
    }

    /// Direct step-down over explicit sign vectors.
    fn brute_force_westfall_young(rows: &[Vec<f64>], kind: MaxStatistic) -> (Vec<f64>, Vec<f64>) {
        let n = rows[0].len();
        let k = rows.len();
        let stat = |row: &[f64], pattern: u64| {
            let acc: f64 = row
                .iter()
                .enumerate()
                .map(|(i, d)| if pattern >> i & 1 == 1 { *d } else { -d })
                .sum();
            let squares: f64 = row.iter().map(|d| d * d).sum();
            statistic(kind, acc, squares, n as f64)
        };
        let all = (1u64 << n) - 1;
        let observed: Vec<f64> = rows.iter().map(|r| stat(r, all)).collect();
        // The kernel's tolerance, so that sums equal in exact arithmetic count as ties.
        let threshold: Vec<f64> = rows
            .iter()
            .zip(&observed)
            .map(|(r, &t)| match kind {
                MaxStatistic::T => t - TIE_TOLERANCE * t,
                MaxStatistic::MeanDifference => {
                    (t * n as f64 - TIE_TOLERANCE * r.iter().map(|d| d.abs()).sum::<f64>())
                        / n as f64
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| observed[b].total_cmp(&observed[a]).then(a.cmp(&b)));
        let mut raw = vec![0u64; k];
        let mut step = vec![0u64; k];
        for pattern in 0..1u64 << n {
            let stats: Vec<f64> = rows.iter().map(|r| stat(r, pattern)).collect();
            for c in 0..k {
                raw[c] += u64::from(stats[c] >= threshold[c]);
            }
            for j in 0..k {
                let best = order[j..]
                    .iter()
                    .map(|&c| stats[c])
                    .fold(f64::NEG_INFINITY, f64::max);
                step[j] += u64::from(best >= threshold[order[j]]);
            }
        }
        let total = (1u64 << n) as f64;
        let mut adjusted = vec![0.0; k];
        let mut previous = 0.0f64;
        for j in 0..k {
            previous = previous.max(step[j] as f64 / total);
            adjusted[order[j]] = previous;
        }
        (adjusted, raw.iter().map(|&c| c as f64 / total).collect())
    }

    #[test]
    fn exact_westfall_young_never_goes_below_the_smallest_attainable_p() {
        // Equal differences give an infinite t (no variance); the identity and its mirror are
        // the only sign vectors that reach it: p = 2 / 2^n, never 0 (issue 44).
        for n in 2..=4usize {
            let rows = [vec![0.3; n], vec![0.3, -0.3].repeat(n).split_off(n)];
            let flat: Vec<f64> = rows.iter().flatten().copied().collect();
            let result =
                westfall_young(&flat, 2, n, MaxStatistic::T, SignFlipMethod::Exact).unwrap();
            let smallest = 2.0 / (1u64 << n) as f64;
            assert_eq!(result.raw[0], smallest, "n {n}");
            for p in result.raw.iter().chain(&result.adjusted) {
                assert!(*p >= smallest, "n {n}: p {p}");
            }
        }
    }

    #[test]
    fn westfall_young_raw_p_values_are_the_sign_flip_test() {
        let (k, n) = (4, 150);
        let values: Vec<f64> = (0..k * n)
            .map(|i| (((i * 7919) % 65) as f64 - 30.0) / 64.0)
            .collect();
        let method = SignFlipMethod::Sampled {
            n_resamples: 2 * BATCH + 17,
            seed: 9,
        };
        let wy = westfall_young(&values, k, n, MaxStatistic::MeanDifference, method).unwrap();
        let flips =
            signflip::sign_flip_test(&values, k, n, method, signflip::Alternative::TwoSided)
                .unwrap();
        assert_eq!(wy.raw, flips.p_values);
        let wy_t = in_pool(3, || {
            westfall_young(&values, k, n, MaxStatistic::T, method).unwrap()
        });
        assert_eq!(wy_t.raw, flips.p_values);
        assert_eq!(
            in_pool(1, || westfall_young(&values, k, n, MaxStatistic::T, method)
                .unwrap()),
            wy_t
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        #[test]
        fn exact_tukey_equals_brute_force(
            (n, m, cells) in (1usize..=4, 2usize..=3).prop_flat_map(|(n, m)| (
                Just(n), Just(m), proptest::collection::vec(0i32..=8, n * m)
            )),
        ) {
            let scores: Vec<f64> = cells.iter().map(|&c| f64::from(c) / 8.0).collect();
            let result = randomised_tukey(&scores, n, m, SignFlipMethod::Exact).unwrap();
            prop_assert_eq!(&result.counts, &brute_force_tukey(&scores, n, m));
            for p in &result.p_values {
                prop_assert!(*p > 0.0 && *p <= 1.0);
            }
        }

        #[test]
        fn exact_westfall_young_equals_brute_force(
            (k, n, cells, t) in (1usize..=4, 2usize..=9).prop_flat_map(|(k, n)| (
                Just(k), Just(n), proptest::collection::vec(-8i32..=8, k * n), any::<bool>()
            )),
        ) {
            let values: Vec<f64> = cells.iter().map(|&c| f64::from(c) / 8.0).collect();
            let rows: Vec<Vec<f64>> = values.chunks(n).map(|r| r.to_vec()).collect();
            let kind = if t { MaxStatistic::T } else { MaxStatistic::MeanDifference };
            let result = westfall_young(&values, k, n, kind, SignFlipMethod::Exact).unwrap();
            let (adjusted, raw) = brute_force_westfall_young(&rows, kind);
            prop_assert_eq!(&result.adjusted, &adjusted);
            prop_assert_eq!(&result.raw, &raw);
            for (a, r) in result.adjusted.iter().zip(&result.raw) {
                prop_assert!(a >= r);
            }
        }
    }
}
