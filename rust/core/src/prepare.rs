//! From documents as the user gave them to the compact form the metrics read (`Prepared`).
//!
//! Per query: judged `(id, grade)` pairs and a ranking, either already ordered (a sequence of
//! ids, best first) or scored `(id, score)`. A scored ranking is ordered the trec_eval way:
//! score descending, compared as f64, ties by id byte-wise descending. Duplicates are refused
//! unless `Duplicates::KeepFirst`, which keeps each id's best position; the ordered ranking is
//! then cut at `max_docs` (trec_eval `-M`). Ids are compared as bytes: the bindings pass str ids
//! as UTF-8 and int ids as decimal text, so int ids tie-break the way trec_eval would order them
//! in a file.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::csr::{Rows, RowsBuf};
use crate::ranking::Hit;
use crate::{CoreError, CoreResult};

/// A document id (UTF-8 or decimal text) and its value: a grade for judgments, a score for
/// scored rankings (ignored for ordered ones).
pub type Doc<'a> = (&'a [u8], f64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplicates {
    /// A repeated id is an error (trec_eval).
    Raise,
    /// Keep the best position of a repeated id (several chunks of one source document).
    KeepFirst,
}

#[derive(Clone, Copy, Debug)]
pub struct RankingOptions {
    pub duplicates: Duplicates,
    pub max_docs: Option<usize>,
    /// The caller guarantees ranking ids are unique (they come from a dict), so the duplicate
    /// check can be skipped.
    pub ids_known_unique: bool,
}

/// How each query's ranking is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankingKind {
    Ordered,
    Scored,
}

/// What the metrics need of every query (see `ranking`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prepared {
    /// Ranked documents with a positive grade, by rank.
    pub hits: RowsBuf<Hit>,
    /// Positive grades of all judged documents.
    pub judged_positive: RowsBuf<f64>,
    /// Length of each ranking after deduplication and the `max_docs` cut.
    pub retrieved: Vec<u32>,
    /// Number of judged documents (any grade) of each query.
    pub judged_count: Vec<u32>,
}

impl Prepared {
    pub fn len(&self) -> usize {
        self.retrieved.len()
    }

    pub fn is_empty(&self) -> bool {
        self.retrieved.is_empty()
    }

    pub fn append(&mut self, other: Prepared) {
        self.hits.append(other.hits);
        self.judged_positive.append(other.judged_positive);
        self.retrieved.extend(other.retrieved);
        self.judged_count.extend(other.judged_count);
    }
}

/// Compare two scored documents: the one that ranks first is `Less`.
fn trec_order(a: &Doc<'_>, b: &Doc<'_>) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    // Not total_cmp: -0.0 and 0.0 are equal scores for trec_eval. NaN never gets here (the
    // callers refuse it), and if it did it would only tie, never panic.
    if a.1 > b.1 {
        Less
    } else if a.1 < b.1 {
        Greater
    } else {
        b.0.cmp(a.0)
    }
}

fn show(id: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(id))
}

struct QueryOutput {
    hits: Vec<Hit>,
    judged_positive: Vec<f64>,
    retrieved: u32,
    judged_count: u32,
}

fn prepare_query(
    judged: &[Doc<'_>],
    ranking: &[Doc<'_>],
    kind: RankingKind,
    opts: RankingOptions,
) -> Result<QueryOutput, String> {
    let mut grades: FxHashMap<&[u8], f64> = FxHashMap::default();
    grades.reserve(judged.len());
    let mut judged_positive = Vec::new();
    for &(id, grade) in judged {
        if grades.insert(id, grade).is_some() {
            return Err(format!("document {} is judged twice", show(id)));
        }
        if grade > 0.0 {
            judged_positive.push(grade);
        }
    }

    let mut sorted;
    let ordered: &[Doc<'_>] = match kind {
        RankingKind::Ordered => ranking,
        RankingKind::Scored => {
            sorted = ranking.to_vec();
            sorted.sort_unstable_by(trec_order);
            &sorted
        }
    };

    let limit = opts.max_docs.unwrap_or(usize::MAX);
    let mut hits = Vec::new();
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    let check = !(opts.ids_known_unique && kind == RankingKind::Scored);
    let mut rank: usize = 0;
    for &(id, _) in ordered {
        if rank == limit {
            break;
        }
        if check && !seen.insert(id) {
            match opts.duplicates {
                Duplicates::KeepFirst => continue,
                Duplicates::Raise => {
                    return Err(format!(
                        "document {} appears more than once in the ranking; pass duplicates=\"first\" \
                         to keep its best position",
                        show(id)
                    ));
                }
            }
        }
        rank += 1;
        if let Some(&grade) = grades.get(id)
            && grade > 0.0
        {
            hits.push(Hit {
                rank: u32::try_from(rank)
                    .map_err(|_| "a ranking is longer than 2^32 documents".to_string())?,
                grade,
            });
        }
    }
    Ok(QueryOutput {
        hits,
        judged_positive,
        retrieved: u32::try_from(rank).unwrap_or(u32::MAX),
        judged_count: u32::try_from(grades.len()).unwrap_or(u32::MAX),
    })
}

/// Prepare every query, in parallel. `query_base` is added to query positions in errors (for
/// callers that prepare in batches).
pub fn prepare(
    judged: Rows<'_, Doc<'_>>,
    rankings: Rows<'_, Doc<'_>>,
    kinds: &[RankingKind],
    opts: RankingOptions,
    query_base: usize,
) -> CoreResult<Prepared> {
    if judged.len() != rankings.len() || kinds.len() != rankings.len() {
        return Err(CoreError::argument(
            "rankings",
            format!(
                "{} queries of judgments, {} of rankings and {} ranking kinds",
                judged.len(),
                rankings.len(),
                kinds.len()
            ),
        ));
    }
    if opts.max_docs == Some(0) {
        return Err(CoreError::argument(
            "max_docs",
            "must be a positive integer or None, got 0",
        ));
    }
    let outputs: Vec<QueryOutput> = (0..judged.len())
        .into_par_iter()
        .with_min_len(16)
        .map(|q| {
            prepare_query(judged.row(q), rankings.row(q), kinds[q], opts)
                .map_err(|message| CoreError::query(query_base + q, message))
        })
        .collect::<CoreResult<_>>()?;
    let mut prepared = Prepared::default();
    for out in outputs {
        prepared.hits.push_row(out.hits);
        prepared.judged_positive.push_row(out.judged_positive);
        prepared.retrieved.push(out.retrieved);
        prepared.judged_count.push(out.judged_count);
    }
    Ok(prepared)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(
        judged: &[Doc<'_>],
        ranking: &[Doc<'_>],
        kind: RankingKind,
        opts: RankingOptions,
    ) -> CoreResult<Prepared> {
        let mut j = RowsBuf::default();
        j.push_row(judged.iter().copied());
        let mut r = RowsBuf::default();
        r.push_row(ranking.iter().copied());
        prepare(j.view(), r.view(), &[kind], opts, 0)
    }

    const OPTS: RankingOptions = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        ids_known_unique: false,
    };

    #[test]
    fn ties_break_by_id_bytewise_descending() {
        // E1: a, b, c all scored 1.0 -> order c, b, a; "d9" > "d10" > "d1" byte-wise.
        let p = one(
            &[(b"a", 1.0)],
            &[(b"a", 1.0), (b"b", 1.0), (b"c", 1.0)],
            RankingKind::Scored,
            OPTS,
        )
        .unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 3,
                grade: 1.0
            }]
        );
        let p = one(
            &[(b"d10", 1.0)],
            &[(b"d1", 0.0), (b"d10", 0.0), (b"d9", 0.0)],
            RankingKind::Scored,
            OPTS,
        )
        .unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 2,
                grade: 1.0
            }]
        );
        // -0.0 and 0.0 tie.
        let p = one(
            &[(b"a", 1.0)],
            &[(b"a", 0.0), (b"b", -0.0)],
            RankingKind::Scored,
            OPTS,
        )
        .unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 2,
                grade: 1.0
            }]
        );
    }

    #[test]
    fn duplicates_are_refused_or_keep_first() {
        let ranking: &[Doc<'_>] = &[(b"x", 0.0), (b"d1", 0.0), (b"x", 0.0)];
        let err = one(&[(b"d1", 1.0)], ranking, RankingKind::Ordered, OPTS).unwrap_err();
        assert!(
            err.to_string().contains("\"x\" appears more than once"),
            "{err}"
        );
        let opts = RankingOptions {
            duplicates: Duplicates::KeepFirst,
            ..OPTS
        };
        let p = one(&[(b"x", 2.0)], ranking, RankingKind::Ordered, opts).unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 1,
                grade: 2.0
            }]
        );
        assert_eq!(p.retrieved, vec![2]);
        // A scored duplicate keeps its best-scored position.
        let scored: &[Doc<'_>] = &[(b"d1", 1.0), (b"d2", 2.0), (b"d1", 3.0)];
        let p = one(&[(b"d1", 1.0)], scored, RankingKind::Scored, opts).unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 1,
                grade: 1.0
            }]
        );
        let err = one(
            &[(b"d1", 1.0), (b"d1", 2.0)],
            &[],
            RankingKind::Ordered,
            OPTS,
        )
        .unwrap_err();
        assert!(err.to_string().contains("judged twice"));
    }

    #[test]
    fn max_docs_cuts_after_ordering_and_negative_grades_are_unjudged() {
        let opts = RankingOptions {
            max_docs: Some(2),
            ..OPTS
        };
        let p = one(
            &[(b"a", 1.0), (b"b", -1.0), (b"c", 2.0)],
            &[(b"a", 1.0), (b"b", 3.0), (b"c", 2.0)],
            RankingKind::Scored,
            opts,
        )
        .unwrap();
        // order b, c, a; cut to b, c; b has a negative grade.
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 2,
                grade: 2.0
            }]
        );
        assert_eq!(p.judged_positive.values, vec![1.0, 2.0]);
        assert_eq!(p.retrieved, vec![2]);
        assert_eq!(p.judged_count, vec![3]);
    }
}
