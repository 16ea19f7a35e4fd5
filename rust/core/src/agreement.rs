//! Agreement between two runs without judgments: rank-biased overlap and the overlap of
//! their top k, per query, in parallel over queries.
//!
//! A pair of rankings of one query is given by the length of the first ranking `A` and, for
//! every position `j` of the second ranking `B`, the position of the same document in `A`
//! (`NOT_IN_A` when `A` lacks it). The overlap at depth `d` is then
//! `X_d = |A[:d] ∩ B[:d]| = #{j : max(j, rank_A(B_j)) < d}` (0-based positions), where a
//! ranking shorter than `d` contributes all of its documents.
//!
//! Rank-biased overlap (Webber, Moffat and Zobel, "A similarity measure for indefinite
//! rankings", ACM TOIS 28(4), 2010), persistence `p`, with `s` and `l` the lengths of the
//! shorter and the longer ranking:
//!
//! * `RBO_ext` (eq. 32): `(1-p)/p (sum_{d=1}^{l} X_d/d p^d + sum_{d=s+1}^{l} X_s (d-s)/(s d) p^d)
//!   + ((X_l - X_s)/l + X_s/s) p^l`;
//! * `RBO_min`: every unseen document is disjoint: `(1-p)/p (sum_{d=1}^{l} X_d/d p^d
//!   + X_l (ln(1/(1-p)) - sum_{d=1}^{l} p^d/d))` (eq. 11 with the uneven lists of section 4.1);
//! * `RBO_max`: the shorter ranking continues with the longer one's documents it lacks, in
//!   their order, then both with the same new documents (agreement 1 from depth
//!   `f = l + s - X_l` on; eq. 30); `RBO_res = RBO_max - RBO_min`.
//!
//! These are the tie-free (strict) rankings of the paper; the Python layer orders scored runs
//! by trec_eval's rule before they get here. Undefined: both rankings empty (NaN). One empty
//! ranking: `RBO_ext = RBO_min = 0`, `RBO_res = 1`.

use rayon::prelude::*;

use crate::csr::Rows;
use crate::{CoreError, CoreResult};

/// `rank_A` of a document of `B` that `A` does not hold.
pub const NOT_IN_A: u32 = u32::MAX;

/// Rankings of several queries, as described in the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct RankingPairs<'a> {
    /// Length of `A` per query.
    pub a_lengths: &'a [u32],
    /// Per query, `rank_A` of each document of `B` in `B`'s order.
    pub cross: Rows<'a, u32>,
}

/// RBO of every query.
#[derive(Clone, Debug, PartialEq)]
pub struct RboResult {
    pub ext: Vec<f64>,
    pub min: Vec<f64>,
    pub res: Vec<f64>,
}

/// One query's rankings, cut at `depth`.
struct Query {
    a_len: usize,
    /// `rank_A` per position of `B` (within the depth), `NOT_IN_A` when absent.
    cross: Vec<u32>,
}

impl<'a> RankingPairs<'a> {
    fn check(&self) -> CoreResult<()> {
        if self.a_lengths.len() != self.cross.len() {
            return Err(CoreError::argument(
                "a_lengths",
                format!(
                    "expected one length per query ({}), got {}",
                    self.cross.len(),
                    self.a_lengths.len()
                ),
            ));
        }
        let bad = (0..self.cross.len()).into_par_iter().find_first(|&q| {
            let a_len = self.a_lengths[q] as usize;
            let mut seen = vec![false; a_len];
            self.cross.row(q).iter().any(|&r| {
                if r == NOT_IN_A {
                    return false;
                }
                let r = r as usize;
                if r >= a_len || seen[r] {
                    return true;
                }
                seen[r] = true;
                false
            })
        });
        match bad {
            Some(q) => Err(CoreError::query(
                q,
                "a document of the second ranking points outside the first or twice at the \
                 same document (duplicate documents)",
            )),
            None => Ok(()),
        }
    }

    fn query(&self, q: usize, depth: Option<usize>) -> Query {
        let depth = depth.unwrap_or(usize::MAX);
        let a_len = (self.a_lengths[q] as usize).min(depth);
        let row = self.cross.row(q);
        let cross = row[..row.len().min(depth)]
            .iter()
            .map(|&r| if (r as usize) < a_len { r } else { NOT_IN_A })
            .collect();
        Query { a_len, cross }
    }
}

impl Query {
    /// `X_1 .. X_l` (index `d - 1`) and `l`.
    fn overlaps(&self) -> Vec<u32> {
        let l = self.a_len.max(self.cross.len());
        let mut hits = vec![0u32; l];
        for (j, &r) in self.cross.iter().enumerate() {
            if r != NOT_IN_A {
                hits[j.max(r as usize)] += 1;
            }
        }
        let mut running = 0;
        for h in hits.iter_mut() {
            running += *h;
            *h = running;
        }
        hits
    }

    /// Positions (0-based, ascending) in the longer ranking of its documents the shorter lacks.
    fn unmatched_in_longer(&self) -> Vec<usize> {
        if self.cross.len() >= self.a_len {
            // B is the longer (or equal) ranking: its documents absent from A.
            self.cross
                .iter()
                .enumerate()
                .filter(|(_, r)| **r == NOT_IN_A)
                .map(|(j, _)| j)
                .collect()
        } else {
            let mut matched = vec![false; self.a_len];
            for &r in &self.cross {
                if r != NOT_IN_A {
                    matched[r as usize] = true;
                }
            }
            (0..self.a_len).filter(|&i| !matched[i]).collect()
        }
    }

    fn rbo(&self, p: f64) -> (f64, f64, f64) {
        let s = self.a_len.min(self.cross.len());
        let l = self.a_len.max(self.cross.len());
        if l == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        let x = self.overlaps();
        let xs = if s == 0 { 0.0 } else { f64::from(x[s - 1]) };
        let xl = f64::from(x[l - 1]);
        let scale = (1.0 - p) / p;
        let mut seen = 0.0; // sum_{d<=l} X_d/d p^d
        let mut extrapolated = 0.0; // sum_{s<d<=l} X_s (d-s)/(s d) p^d
        let mut harmonic = 0.0; // sum_{d<=l} p^d/d
        let mut upper = 0.0; // sum_{d<=l} (X_d + u_d)/d p^d
        let unmatched = self.unmatched_in_longer();
        let mut unmatched_seen = 0usize;
        let mut power = 1.0;
        for d in 1..=l {
            power *= p;
            let df = d as f64;
            let xd = f64::from(x[d - 1]);
            seen += xd / df * power;
            harmonic += power / df;
            let mut best = xd;
            if d > s {
                if s > 0 {
                    extrapolated += xs * (df - s as f64) / (s as f64 * df) * power;
                }
                while unmatched_seen < unmatched.len() && unmatched[unmatched_seen] < d {
                    unmatched_seen += 1;
                }
                best += (d - s).min(unmatched_seen) as f64;
            }
            upper += best / df * power;
        }
        let ext = if s == 0 {
            0.0
        } else {
            scale * (seen + extrapolated) + ((xl - xs) / l as f64 + xs / s as f64) * power
        };
        let min = scale * (seen + xl * (-(1.0 - p).ln() - harmonic));
        // Beyond l: agreement (2d - l - s + X_l)/d up to f, then 1.
        let f = l + s - x[l - 1] as usize;
        let mut tail = 0.0;
        let mut tail_power = power;
        for d in l + 1..=f {
            tail_power *= p;
            let df = d as f64;
            tail += (2.0 * df - (l + s) as f64 + xl) / df * tail_power;
        }
        let max = scale * (upper + tail) + tail_power;
        (ext, min, max - min)
    }
}

fn check_p(p: f64) -> CoreResult<()> {
    if p.is_finite() && 0.0 < p && p < 1.0 {
        Ok(())
    } else {
        Err(CoreError::argument(
            "p",
            format!("the persistence must lie strictly between 0 and 1, got {p}"),
        ))
    }
}

/// RBO_ext, RBO_min and RBO_res of every query, both rankings cut at `depth` when given.
pub fn rank_biased_overlap(
    pairs: RankingPairs<'_>,
    p: f64,
    depth: Option<usize>,
) -> CoreResult<RboResult> {
    check_p(p)?;
    if depth == Some(0) {
        return Err(CoreError::argument("depth", "must be at least 1, got 0"));
    }
    pairs.check()?;
    let values: Vec<(f64, f64, f64)> = (0..pairs.cross.len())
        .into_par_iter()
        .map(|q| pairs.query(q, depth).rbo(p))
        .collect();
    Ok(RboResult {
        ext: values.iter().map(|v| v.0).collect(),
        min: values.iter().map(|v| v.1).collect(),
        res: values.iter().map(|v| v.2).collect(),
    })
}

/// `|A[:k] ∩ B[:k]|` of every query (row-major `queries x depths`).
pub fn top_k_overlaps(pairs: RankingPairs<'_>, depths: &[usize]) -> CoreResult<Vec<u32>> {
    if let Some(&k) = depths.iter().find(|&&k| k == 0) {
        return Err(CoreError::argument(
            "k",
            format!("must be at least 1, got {k}"),
        ));
    }
    pairs.check()?;
    let rows: Vec<Vec<u32>> = (0..pairs.cross.len())
        .into_par_iter()
        .map(|q| {
            let query = pairs.query(q, None);
            let x = query.overlaps();
            depths
                .iter()
                .map(|&k| match x.len() {
                    0 => 0,
                    len => x[k.min(len) - 1],
                })
                .collect()
        })
        .collect();
    Ok(rows.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// RBO of explicit lists extended to depth `n` (the definition, eq. 7, truncated).
    fn truncated(a: &[u32], b: &[u32], p: f64, n: usize) -> f64 {
        let mut sum = 0.0;
        for d in 1..=n {
            let sa: std::collections::HashSet<_> = a.iter().take(d).collect();
            let overlap = b.iter().take(d).filter(|x| sa.contains(x)).count();
            sum += overlap as f64 / d as f64 * p.powi(d as i32);
        }
        (1.0 - p) / p * sum
    }

    fn encode(a: &[u32], b: &[u32]) -> (Vec<u32>, Vec<usize>, Vec<u32>) {
        let cross = b
            .iter()
            .map(|x| a.iter().position(|y| y == x).map_or(NOT_IN_A, |i| i as u32))
            .collect();
        (vec![a.len() as u32], vec![0, b.len()], cross)
    }

    fn one(a: &[u32], b: &[u32], p: f64) -> (f64, f64, f64) {
        let (lengths, offsets, cross) = encode(a, b);
        let pairs = RankingPairs {
            a_lengths: &lengths,
            cross: Rows::new("cross", &offsets, &cross).unwrap(),
        };
        let r = rank_biased_overlap(pairs, p, None).unwrap();
        (r.ext[0], r.min[0], r.res[0])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// The bounds are the RBO of the extreme continuations, computed from the definition.
        #[test]
        fn bounds_are_the_extreme_continuations(
            a in proptest::sample::subsequence((0u32..30).collect::<Vec<_>>(), 0..12).prop_shuffle(),
            b in proptest::sample::subsequence((0u32..30).collect::<Vec<_>>(), 0..12).prop_shuffle(),
            p in 0.5f64..0.9,
        ) {
            prop_assume!(!a.is_empty() || !b.is_empty());
            let (ext, min, res) = one(&a, &b, p);
            let n = 300;
            let mut fresh = 1000u32..;
            let mut a_min = a.clone();
            let mut b_min = b.clone();
            a_min.extend(fresh.by_ref().take(n));
            b_min.extend(fresh.by_ref().take(n));
            prop_assert!((min - truncated(&a_min, &b_min, p, n)).abs() < 1e-12);
            let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
            let mut s_max: Vec<u32> = short.clone();
            s_max.extend(long.iter().filter(|x| !short.contains(x)));
            let mut l_max: Vec<u32> = long.clone();
            l_max.extend(short.iter().filter(|x| !long.contains(x)));
            let shared: Vec<u32> = fresh.take(n).collect();
            s_max.extend(&shared);
            l_max.extend(&shared);
            prop_assert!((min + res - truncated(&s_max, &l_max, p, n)).abs() < 1e-12);
            prop_assert!(min - 1e-12 <= ext && ext <= min + res + 1e-12);
        }
    }

    #[test]
    fn identical_and_disjoint_rankings() {
        let (ext, min, res) = one(&[1, 2, 3], &[1, 2, 3], 0.9);
        assert!((ext - 1.0).abs() < 1e-15);
        assert!((min + res - 1.0).abs() < 1e-12);
        let (ext, min, _) = one(&[1, 2, 3], &[4, 5, 6], 0.9);
        assert_eq!((ext, min), (0.0, 0.0));
        let (ext, min, res) = one(&[], &[4, 5], 0.9);
        assert_eq!((ext, min), (0.0, 0.0));
        assert!((res - 1.0).abs() < 1e-12);
        assert!(one(&[], &[], 0.9).0.is_nan());
    }

    #[test]
    fn bad_input_is_refused() {
        let offsets = [0, 2];
        let lengths = [2u32];
        let twice = [1u32, 1];
        let outside = [0u32, 2];
        for cross in [&twice, &outside] {
            let pairs = RankingPairs {
                a_lengths: &lengths,
                cross: Rows::new("cross", &offsets, cross).unwrap(),
            };
            assert!(rank_biased_overlap(pairs, 0.9, None).is_err());
        }
        let fine = [1u32, NOT_IN_A];
        let pairs = RankingPairs {
            a_lengths: &lengths,
            cross: Rows::new("cross", &offsets, &fine).unwrap(),
        };
        assert!(rank_biased_overlap(pairs, 1.0, None).is_err());
        assert!(rank_biased_overlap(pairs, 0.9, Some(0)).is_err());
        assert!(top_k_overlaps(pairs, &[0]).is_err());
        assert_eq!(top_k_overlaps(pairs, &[1, 2, 5]).unwrap(), vec![0, 1, 1]);
        let cut = rank_biased_overlap(pairs, 0.5, Some(1)).unwrap();
        assert_eq!(cut.ext, vec![0.0]);
    }
}
