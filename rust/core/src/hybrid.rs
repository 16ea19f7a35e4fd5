//! Hybrid retrieval (`RetrievalIndex`, `match_mode="hybrid"`): the semantic leg's best documents
//! from a matrix of cosines, and the weighted reciprocal rank fusion (Cormack, Clarke and
//! Buettcher, SIGIR 2009) of the keyword and semantic legs, a whole query set per call, queries
//! in parallel.
//!
//! The fusion is the Python package's definition, to the bit: a document at 0-based rank `r`
//! of a leg of weight `w` adds `w / (rrf_k + r + 1)`, the keyword leg's part first; the fused
//! ranking is score descending, ties by the documents' order (`doc_order`: each document's
//! place when the index's ids are sorted), cut at `top_k`.

use rayon::prelude::*;

use crate::bm25::Ranked;
use crate::csr::Rows;
use crate::{CoreError, CoreResult};

/// A document absent from a leg (its rank in [`Fused`]).
pub const ABSENT: u32 = u32::MAX;

/// Per row of `cosines` (`n_rows x n_docs`, row-major), the positions of the `limit` largest
/// values, largest first, ties by position (a stable sort of the row cut at `limit`), of which
/// those `>= threshold` are kept. Values are finite (cosines of finite unit vectors).
pub fn top_rows(
    cosines: &[f64],
    n_docs: usize,
    limit: usize,
    threshold: f64,
) -> CoreResult<Ranked> {
    if n_docs == 0 || !cosines.len().is_multiple_of(n_docs) {
        return Err(CoreError::argument(
            "cosines",
            format!(
                "{} values are not rows of {n_docs} documents",
                cosines.len()
            ),
        ));
    }
    let rows: Vec<Vec<(u32, f64)>> = cosines
        .par_chunks(n_docs)
        .map_init(Vec::new, |order: &mut Vec<u32>, row| {
            let before = |a: &u32, b: &u32| {
                let (x, y) = (row[*a as usize], row[*b as usize]);
                y.partial_cmp(&x)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(b))
            };
            order.clear();
            order.extend(0..n_docs as u32);
            let keep = limit.min(n_docs);
            if keep == 0 {
                return Vec::new();
            }
            if keep < n_docs {
                order.select_nth_unstable_by(keep - 1, before);
                order.truncate(keep);
            }
            order.sort_unstable_by(before);
            order
                .iter()
                .map(|&d| (d, row[d as usize]))
                .filter(|&(_, v)| v >= threshold)
                .collect()
        })
        .collect();
    let mut out = Ranked {
        offsets: Vec::with_capacity(rows.len() + 1),
        docs: Vec::new(),
        scores: Vec::new(),
    };
    out.offsets.push(0);
    for row in rows {
        out.docs.extend(row.iter().map(|d| d.0));
        out.scores.extend(row.iter().map(|d| d.1));
        out.offsets.push(out.docs.len());
    }
    Ok(out)
}

/// The fused rankings of [`fuse_legs`]: per query (`offsets`) the documents, their fused
/// scores, and each document's 0-based rank in the keyword and in the semantic leg
/// ([`ABSENT`] where the leg does not have it).
#[derive(Debug, Default)]
pub struct Fused {
    pub offsets: Vec<usize>,
    pub docs: Vec<u32>,
    pub scores: Vec<f64>,
    pub keyword_ranks: Vec<u32>,
    pub semantic_ranks: Vec<u32>,
}

/// The legs and settings of a hybrid fusion.
pub struct Legs<'a> {
    /// Each query's keyword leg, best first.
    pub keyword: Rows<'a, u32>,
    /// Each query's semantic leg, best first (an empty row where the query has none).
    pub semantic: Rows<'a, u32>,
    pub keyword_weight: f64,
    pub semantic_weight: f64,
    pub rrf_k: f64,
    pub top_k: usize,
    /// `doc_order[d]`: document `d`'s place in the order that breaks ties.
    pub doc_order: &'a [u32],
}

/// Fuse the two legs of every query (see the module's documentation).
pub fn fuse_legs(legs: &Legs<'_>) -> CoreResult<Fused> {
    let n = legs.keyword.len();
    if legs.semantic.len() != n {
        return Err(CoreError::argument(
            "semantic",
            format!("{} queries for {n} keyword rankings", legs.semantic.len()),
        ));
    }
    let n_docs = legs.doc_order.len();
    let out_of_range = |row: &[u32]| row.iter().any(|&d| d as usize >= n_docs);
    if (0..n).any(|q| out_of_range(legs.keyword.row(q)) || out_of_range(legs.semantic.row(q))) {
        return Err(CoreError::argument(
            "legs",
            format!("a document position is not below the {n_docs} documents"),
        ));
    }
    // (document, score, keyword rank, semantic rank) per query.
    type Entry = (u32, f64, u32, u32);
    let per_query: Vec<Vec<Entry>> = (0..n)
        .into_par_iter()
        .map(|q| {
            let mut entries: Vec<Entry> = legs
                .keyword
                .row(q)
                .iter()
                .enumerate()
                .map(|(r, &d)| {
                    let part = legs.keyword_weight / (legs.rrf_k + r as f64 + 1.0);
                    (d, 0.0 + part, r as u32, ABSENT)
                })
                .collect();
            let keyword_len = entries.len();
            for (r, &d) in legs.semantic.row(q).iter().enumerate() {
                let part = legs.semantic_weight / (legs.rrf_k + r as f64 + 1.0);
                match entries[..keyword_len].iter_mut().find(|e| e.0 == d) {
                    Some(e) => {
                        e.1 += part;
                        e.3 = r as u32;
                    }
                    None => entries.push((d, 0.0 + part, ABSENT, r as u32)),
                }
            }
            entries.sort_unstable_by(|a, b| {
                b.1.partial_cmp(&a.1)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(legs.doc_order[a.0 as usize].cmp(&legs.doc_order[b.0 as usize]))
            });
            entries.truncate(legs.top_k);
            entries
        })
        .collect();
    let total = per_query.iter().map(Vec::len).sum();
    let mut out = Fused {
        offsets: Vec::with_capacity(n + 1),
        docs: Vec::with_capacity(total),
        scores: Vec::with_capacity(total),
        keyword_ranks: Vec::with_capacity(total),
        semantic_ranks: Vec::with_capacity(total),
    };
    out.offsets.push(0);
    for entries in per_query {
        for (d, s, k, m) in entries {
            out.docs.push(d);
            out.scores.push(s);
            out.keyword_ranks.push(k);
            out.semantic_ranks.push(m);
        }
        out.offsets.push(out.docs.len());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The Python package's fusion, written out: a map summed leg by leg, sorted by
    /// (-score, order).
    fn naive(
        keyword: &[u32],
        semantic: &[u32],
        w: (f64, f64),
        k: f64,
        top: usize,
        order: &[u32],
    ) -> Vec<(u32, f64)> {
        let mut fused: Vec<(u32, f64)> = Vec::new();
        for (leg, weight) in [(keyword, w.0), (semantic, w.1)] {
            for (r, &d) in leg.iter().enumerate() {
                let part = weight / (k + r as f64 + 1.0);
                match fused.iter_mut().find(|e| e.0 == d) {
                    Some(e) => e.1 += part,
                    None => fused.push((d, 0.0 + part)),
                }
            }
        }
        fused.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap()
                .then(order[a.0 as usize].cmp(&order[b.0 as usize]))
        });
        fused.truncate(top);
        fused
    }

    proptest! {
        #[test]
        fn fusion_is_the_definition(
            keyword in prop::collection::hash_set(0u32..20, 0..10),
            semantic in prop::collection::hash_set(0u32..20, 0..10),
            alpha in 0.0f64..=1.0,
            k in 0u32..100,
            top in 1usize..25,
            seed in any::<u64>(),
        ) {
            let keyword: Vec<u32> = keyword.into_iter().collect();
            let semantic: Vec<u32> = semantic.into_iter().collect();
            let mut order: Vec<u32> = (0..20).collect();
            let mut s = seed;
            for i in (1..order.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
                order.swap(i, (s >> 33) as usize % (i + 1));
            }
            let offsets = [0, keyword.len()];
            let semantic_offsets = [0, semantic.len()];
            let legs = Legs {
                keyword: Rows::new("k", &offsets, &keyword).unwrap(),
                semantic: Rows::new("s", &semantic_offsets, &semantic).unwrap(),
                keyword_weight: 1.0 - alpha,
                semantic_weight: alpha,
                rrf_k: f64::from(k),
                top_k: top,
                doc_order: &order,
            };
            let fused = fuse_legs(&legs).unwrap();
            let expected = naive(&keyword, &semantic, (1.0 - alpha, alpha), f64::from(k), top, &order);
            let got: Vec<(u32, f64)> = fused.docs.iter().copied().zip(fused.scores.iter().copied()).collect();
            prop_assert_eq!(&got, &expected);
            for (i, &d) in fused.docs.iter().enumerate() {
                let kr = keyword.iter().position(|&x| x == d).map_or(ABSENT, |r| r as u32);
                let sr = semantic.iter().position(|&x| x == d).map_or(ABSENT, |r| r as u32);
                prop_assert_eq!((fused.keyword_ranks[i], fused.semantic_ranks[i]), (kr, sr));
            }
        }

        #[test]
        fn top_rows_is_a_stable_sort_cut_and_thresholded(
            values in prop::collection::vec(prop::sample::select(vec![-1.0, -0.5, 0.0, -0.0, 0.25, 0.5, 1.0]), 1..30),
            limit in 0usize..35,
            threshold in prop::sample::select(vec![-1.0, 0.0, 0.3]),
        ) {
            let n = values.len();
            let got = top_rows(&values, n, limit, threshold).unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| values[b].partial_cmp(&values[a]).unwrap());
            let expected: Vec<u32> = order.into_iter().take(limit).filter(|&d| values[d] >= threshold).map(|d| d as u32).collect();
            prop_assert_eq!(got.docs, expected);
        }
    }
}
