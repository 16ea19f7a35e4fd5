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
    /// Tie groups (`Ties::Tied`): per query, the position of the first document of each
    /// document's group of tied documents, for `A` (rows of `a_lengths` documents) and `B`.
    /// None: every document is its own group.
    pub a_tops: Option<Rows<'a, u32>>,
    pub b_tops: Option<Rows<'a, u32>>,
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
    /// The top rank (0-based position of the first document of its tie group) of each
    /// document of `A`, in `A`'s order.
    a_top: Vec<u32>,
    /// `rank_A` per position of `B` (within the depth), `NOT_IN_A` when absent.
    cross: Vec<u32>,
    /// The top rank of each document of `B`.
    b_top: Vec<u32>,
}

/// Whether `tops` describes groups of tied documents: 0 first, then each entry its own
/// position (a new group) or the previous entry (the same group).
fn valid_tops(tops: &[u32]) -> bool {
    tops.iter()
        .enumerate()
        .all(|(i, &t)| t as usize == i || (i > 0 && t == tops[i - 1]))
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
        for (argument, tops) in [("a_tops", self.a_tops), ("b_tops", self.b_tops)] {
            if let Some(tops) = tops
                && tops.len() != self.cross.len()
            {
                return Err(CoreError::argument(
                    argument,
                    format!("expected {} queries, got {}", self.cross.len(), tops.len()),
                ));
            }
        }
        let bad = (0..self.cross.len()).into_par_iter().find_first(|&q| {
            let a_len = self.a_lengths[q] as usize;
            let mut seen = vec![false; a_len];
            let cross_bad = self.cross.row(q).iter().any(|&r| {
                if r == NOT_IN_A {
                    return false;
                }
                let r = r as usize;
                if r >= a_len || seen[r] {
                    return true;
                }
                seen[r] = true;
                false
            });
            let a_bad = self
                .a_tops
                .is_some_and(|t| t.row(q).len() != a_len || !valid_tops(t.row(q)));
            let b_bad = self.b_tops.is_some_and(|t| {
                t.row(q).len() != self.cross.row(q).len() || !valid_tops(t.row(q))
            });
            cross_bad || a_bad || b_bad
        });
        match bad {
            Some(q) => Err(CoreError::query(
                q,
                "a document of the second ranking points outside the first or twice at the \
                 same document (duplicate documents), or the tie groups do not match the \
                 rankings",
            )),
            None => Ok(()),
        }
    }

    fn query(&self, q: usize, depth: Option<usize>) -> Query {
        let tops = |rows: Option<Rows<'a, u32>>, len: usize| -> Vec<u32> {
            rows.map_or_else(|| (0..len as u32).collect(), |t| t.row(q).to_vec())
        };
        let mut a_top = tops(self.a_tops, self.a_lengths[q] as usize);
        let row = self.cross.row(q);
        let mut b_top = tops(self.b_tops, row.len());
        // The prefix at depth k holds every document whose tie group starts above k.
        let depth = depth.unwrap_or(usize::MAX);
        a_top.retain(|&t| (t as usize) < depth);
        b_top.retain(|&t| (t as usize) < depth);
        let a_len = a_top.len();
        let cross = row[..b_top.len()]
            .iter()
            .map(|&r| if (r as usize) < a_len { r } else { NOT_IN_A })
            .collect();
        Query {
            a_top,
            cross,
            b_top,
        }
    }
}

/// `counts[d - 1]`: how many entries of `tops` are below `d`, for `d` in `1..=len`.
fn present(tops: &[u32], len: usize) -> Vec<u32> {
    let mut counts = vec![0u32; len];
    for &t in tops {
        counts[t as usize] += 1;
    }
    let mut running = 0;
    for c in counts.iter_mut() {
        running += *c;
        *c = running;
    }
    counts
}

impl Query {
    /// `X_1 .. X_l` (index `d - 1`): documents of both prefixes at depth `d`.
    fn overlaps(&self, l: usize) -> Vec<u32> {
        let mut hits = vec![0u32; l];
        for (j, &r) in self.cross.iter().enumerate() {
            if r != NOT_IN_A {
                hits[self.b_top[j].max(self.a_top[r as usize]) as usize] += 1;
            }
        }
        let mut running = 0;
        for h in hits.iter_mut() {
            running += *h;
            *h = running;
        }
        hits
    }

    /// Top ranks (ascending) in the longer ranking of its documents the shorter lacks.
    fn unmatched_in_longer(&self) -> Vec<u32> {
        if self.cross.len() >= self.a_top.len() {
            // B is the longer (or equal) ranking: its documents absent from A.
            self.cross
                .iter()
                .zip(&self.b_top)
                .filter(|(r, _)| **r == NOT_IN_A)
                .map(|(_, &t)| t)
                .collect()
        } else {
            let mut matched = vec![false; self.a_top.len()];
            for &r in &self.cross {
                if r != NOT_IN_A {
                    matched[r as usize] = true;
                }
            }
            (0..self.a_top.len())
                .filter(|&i| !matched[i])
                .map(|i| self.a_top[i])
                .collect()
        }
    }

    /// RBO_ext, RBO_min and RBO_res, with Webber's agreement for tied rankings
    /// `A_d = 2 X_d / (|A_:d| + |B_:d|)` (equal to `X_d / d` without ties).
    fn rbo(&self, p: f64) -> (f64, f64, f64) {
        let (a_len, b_len) = (self.a_top.len(), self.cross.len());
        let s = a_len.min(b_len);
        let l = a_len.max(b_len);
        if l == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        let x = self.overlaps(l);
        let size_a = present(&self.a_top, l);
        let size_b = present(&self.b_top, l);
        let size_long = if b_len >= a_len { &size_b } else { &size_a };
        let xl = f64::from(x[l - 1]);
        let agreement_s = if s == 0 {
            0.0
        } else {
            2.0 * f64::from(x[s - 1]) / f64::from(size_a[s - 1] + size_b[s - 1])
        };
        let scale = (1.0 - p) / p;
        let mut low = 0.0; // sum_{d<=l} A_d^min p^d
        let mut extrapolated = 0.0; // sum_{d<=l} A_d^ext p^d
        let mut upper = 0.0; // sum_{d<=l} A_d^max p^d
        let mut harmonic = 0.0; // sum_{d<=l} p^d/d
        let unmatched = self.unmatched_in_longer();
        let mut unmatched_seen = 0usize;
        let mut power = 1.0;
        for d in 1..=l {
            power *= p;
            let df = d as f64;
            let xd = f64::from(x[d - 1]);
            harmonic += power / df;
            if d <= s {
                let a = 2.0 * xd / f64::from(size_a[d - 1] + size_b[d - 1]);
                low += a * power;
                extrapolated += a * power;
                upper += a * power;
            } else {
                // The shorter ranking is all seen; its unseen ranks hold one document each.
                let sizes = df + f64::from(size_long[d - 1]);
                while unmatched_seen < unmatched.len() && (unmatched[unmatched_seen] as usize) < d {
                    unmatched_seen += 1;
                }
                let best = xd + (d - s).min(unmatched_seen) as f64;
                low += 2.0 * xd / sizes * power;
                extrapolated += 2.0 * (xd + (df - s as f64) * agreement_s) / sizes * power;
                upper += 2.0 * best / sizes * power;
            }
        }
        let ext = if s == 0 {
            0.0
        } else {
            scale * extrapolated + (xl + (l - s) as f64 * agreement_s) / l as f64 * power
        };
        let min = scale * (low + xl * (-(1.0 - p).ln() - harmonic));
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
            let x = query.overlaps(query.a_top.len().max(query.cross.len()));
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
            a_tops: None,
            b_tops: None,
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
                a_tops: None,
                b_tops: None,
            };
            assert!(rank_biased_overlap(pairs, 0.9, None).is_err());
        }
        let fine = [1u32, NOT_IN_A];
        let pairs = RankingPairs {
            a_lengths: &lengths,
            cross: Rows::new("cross", &offsets, &fine).unwrap(),
            a_tops: None,
            b_tops: None,
        };
        assert!(rank_biased_overlap(pairs, 1.0, None).is_err());
        assert!(rank_biased_overlap(pairs, 0.9, Some(0)).is_err());
        assert!(top_k_overlaps(pairs, &[0]).is_err());
        assert_eq!(top_k_overlaps(pairs, &[1, 2, 5]).unwrap(), vec![0, 1, 1]);
        let cut = rank_biased_overlap(pairs, 0.5, Some(1)).unwrap();
        assert_eq!(cut.ext, vec![0.0]);
    }
}
