//! The fused score of every candidate of one query, method by method.

use super::*;

/// `value`: the normalised score, for SegFuse).
fn positional_score(method: &Method, run: usize, p: usize, n: usize, value: f64) -> f64 {
    match method {
        Method::Rrf { k } => 1.0 / (k + p as f64 + 1.0),
        Method::Isr | Method::LogIsr | Method::LognIsr { .. } => {
            1.0 / ((p as f64 + 1.0) * (p as f64 + 1.0))
        }
        Method::Rbc { phi } => (1.0 - phi) * phi.powf(p as f64),
        Method::PosFuse { probs } => probs[run].get(p).copied().unwrap_or(0.0),
        Method::ProbFuse { probs } => {
            let segments = probs[run].len();
            let size = n.div_ceil(segments);
            let k = p / size;
            probs[run][k] / (k as f64 + 1.0)
        }
        Method::SegFuse { probs } => {
            let k = SEGFUSE_BOUNDS.partition_point(|&b| b <= p) - 1;
            let prob = probs[run].get(k).copied().unwrap_or(0.0);
            prob * (value + 1.0)
        }
        Method::SlideFuse { probs, w } => {
            let probs = &probs[run];
            let a = p.saturating_sub(*w);
            let b = p.saturating_add(*w).min(n - 1);
            // ranx slices probs[a..b+1]: positions past the trained ones add nothing.
            let end = (b + 1).min(probs.len());
            let sum: f64 = if a < end {
                probs[a..end].iter().sum()
            } else {
                0.0
            };
            sum / (b - a + 1) as f64
        }
        Method::MapFuse { map_scores } => map_scores[run] / (p as f64 + 1.0),
        Method::BayesFuse { log_odds } => {
            log_odds[run].get(p).copied().unwrap_or_else(bayes_min_odd)
        }
        _ => 0.0,
    }
}

fn bayes_min_odd() -> f64 {
    (BAYESFUSE_FLOOR / (1.0 - BAYESFUSE_FLOOR)).ln()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Pairwise-majority order of the candidates (Condorcet fusion, Montague & Aslam 2002, as ranx
/// compares: x before y when the runs ranking x above y weigh at least as much as the others),
/// into `order`. The candidates start in doc id descending order and are merge-sorted with that
/// comparison: when the majority relation is a total order every correct sort gives it; when it
/// has cycles the order is this merge sort's (ranx's depends on Python's set order).
fn condorcet_order(
    query: &FusionQuery,
    n_runs: usize,
    positions: &[u32],
    weights: Option<&[f64]>,
    order: &mut Vec<usize>,
    buffer: &mut Vec<usize>,
) -> CoreResult<()> {
    let n = query.n_candidates();
    let before = |x: usize, y: usize| -> bool {
        let (mut x_votes, mut y_votes) = (0.0, 0.0);
        for r in 0..n_runs {
            let w = weights.map_or(1.0, |w| w[r]);
            if positions[r * n + x] < positions[r * n + y] {
                x_votes += w;
            } else {
                y_votes += w;
            }
        }
        x_votes >= y_votes
    };
    let what = "one query's candidates";
    order.clear();
    reserve(order, n, what)?;
    order.extend(0..n);
    order.sort_unstable_by(|&a, &b| query.id(b as u32).cmp(query.id(a as u32)));
    refill(buffer, n, 0, what)?;
    merge_sort(order, buffer, &before);
    Ok(())
}

/// Stable top-down merge sort taking the left element when `before(left, right)`; unlike the
/// standard library's sorts it is defined (and never panics) for a comparison that is not a
/// total order.
pub(super) fn merge_sort(
    items: &mut [usize],
    buffer: &mut [usize],
    before: &dyn Fn(usize, usize) -> bool,
) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let mid = n / 2;
    {
        let (left, right) = items.split_at_mut(mid);
        let (bl, br) = buffer.split_at_mut(mid);
        merge_sort(left, bl, before);
        merge_sort(right, br, before);
    }
    buffer[..n].copy_from_slice(items);
    let (left, right) = buffer[..n].split_at(mid);
    let (mut i, mut j) = (0, 0);
    for slot in items.iter_mut() {
        if j >= right.len() || (i < left.len() && before(left[i], right[j])) {
            *slot = left[i];
            i += 1;
        } else {
            *slot = right[j];
            j += 1;
        }
    }
}

/// Fused score of every candidate of one query (after [`view`]), into `s.fused`.
pub(super) fn fuse_query(
    query: &FusionQuery,
    n_runs: usize,
    method: &Method,
    s: &mut Scratch,
) -> CoreResult<()> {
    let n = query.n_candidates();
    let what = "one query's candidates";
    let Scratch {
        values,
        positions,
        lengths,
        fused,
        counts,
        median_values,
        order,
        buffer,
        ..
    } = s;
    let (values, positions, lengths) = (&*values, &*positions, &*lengths);
    let value = |r: usize, c: usize| values[r * n + c];
    let present = |c: usize| (0..n_runs).filter(move |&r| !value(r, c).is_nan());
    fused.clear();
    reserve(fused, n, what)?;
    match method {
        Method::CombSum
        | Method::CombMnz
        | Method::CombAnz
        | Method::CombGmnz { .. }
        | Method::CombMax
        | Method::CombMin
        | Method::CombMed
        | Method::Wsum { .. }
        | Method::Wmnz { .. }
        | Method::Mixed { .. } => {
            if matches!(method, Method::CombMed) {
                median_values.clear();
                reserve(median_values, n_runs, what)?;
            }
            for c in 0..n {
                let count = present(c).count() as f64;
                let sum: f64 = present(c).map(|r| value(r, c)).sum();
                fused.push(match method {
                    Method::CombSum => sum,
                    Method::CombMnz => sum * count,
                    Method::CombAnz => sum / count,
                    Method::CombGmnz { gamma } => sum * count.powf(*gamma),
                    Method::CombMax => (0..n_runs)
                        .map(|r| absent_as(value(r, c), COMB_MAX_ABSENT))
                        .fold(f64::NEG_INFINITY, f64::max),
                    Method::CombMin => (0..n_runs)
                        .map(|r| absent_as(value(r, c), COMB_MIN_ABSENT))
                        .fold(f64::INFINITY, f64::min),
                    Method::CombMed => {
                        median_values.clear();
                        median_values.extend(present(c).map(|r| value(r, c)));
                        median(median_values)
                    }
                    Method::Wsum { weights } => (0..n_runs)
                        .map(|r| weights[r] * absent_as(value(r, c), 0.0))
                        .sum(),
                    Method::Wmnz { weights } => sum * present(c).map(|r| weights[r]).sum::<f64>(),
                    Method::Mixed { weights } => {
                        present(c).map(|r| value(r, c) * weights[r]).sum::<f64>() * count.sqrt()
                    }
                    _ => unreachable!("a score-combining method"),
                });
            }
        }
        Method::BordaFuse | Method::WeightedBordaFuse { .. } => {
            let weights = match method {
                Method::WeightedBordaFuse { weights } => Some(weights.as_slice()),
                _ => None,
            };
            let max_points = n as f64;
            fused.extend((0..n).map(|c| {
                (0..n_runs)
                    .map(|r| {
                        let p = positions[r * n + c];
                        let points = if p == NOT_RANKED {
                            (max_points - lengths[r] as f64 + 1.0) / 2.0
                        } else {
                            max_points - f64::from(p)
                        };
                        weights.map_or(1.0, |w| w[r]) * points
                    })
                    .sum::<f64>()
            }));
        }
        Method::Condorcet | Method::WeightedCondorcet { .. } => {
            let weights = match method {
                Method::WeightedCondorcet { weights } => Some(weights.as_slice()),
                _ => None,
            };
            condorcet_order(query, n_runs, positions, weights, order, buffer)?;
            fused.resize(n, 0.0);
            for (i, &c) in order.iter().enumerate() {
                fused[c] = (n - i) as f64;
            }
        }
        _ => {
            // Rank-based: each run scores its documents by position, then the scores combine.
            fused.resize(n, 0.0);
            counts.clear();
            reserve(counts, n, what)?;
            counts.resize(n, 0);
            for r in 0..n_runs {
                for c in 0..n {
                    let p = positions[r * n + c];
                    if p != NOT_RANKED {
                        fused[c] +=
                            positional_score(method, r, p as usize, lengths[r], value(r, c));
                        counts[c] += 1;
                    }
                }
            }
            let combine = |f: &dyn Fn(f64, usize) -> f64, fused: &mut Vec<f64>| {
                fused
                    .iter_mut()
                    .zip(counts.iter())
                    .for_each(|(s, &k)| *s = f(*s, k));
            };
            match method {
                Method::Isr => combine(&|s, k| s * k as f64, fused),
                Method::LogIsr => combine(&|s, k| s * (k as f64).ln(), fused),
                Method::LognIsr { sigma } => combine(&|s, k| s * (k as f64 + sigma).ln(), fused),
                Method::BayesFuse { .. } => {
                    // A run that does not rank a document contributes the smallest log odds.
                    let min_odd = bayes_min_odd();
                    combine(&|s, k| s + (n_runs - k) as f64 * min_odd, fused);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn absent_as(value: f64, absent: f64) -> f64 {
    if value.is_nan() { absent } else { value }
}
