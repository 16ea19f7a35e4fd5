//! From documents as the user gave them to the compact form the metrics read (`Prepared`).
//!
//! Per query: the judged documents and a ranking, given in one of three forms:
//!
//! * `Ordered`: ids, best first;
//! * `Scored`: `(id, score)` pairs in any order (a TREC run);
//! * `Joined`: what the bindings read from a `{doc_id: score}` dict without copying its ids: the
//!   scores of all ranked documents, the judged documents found in the ranking with their
//!   scores, and every ranked document whose score equals one of theirs.
//!
//! A scored ranking is ordered the trec_eval way: score descending, compared as f64 (-0.0 and
//! 0.0 tie), ties by id byte-wise descending. Only the ranks of judged documents matter to the
//! metrics (of those with a positive grade for the common ones; of every judged document for
//! bpref, infAP and the other judgment-based measures, when `RankingOptions::all_judged` asks
//! for them), so scored rankings are never sorted: the rank of such a document is one plus the
//! number of documents ordered before it, counted over the scores in O(N log F) for F found
//! documents among N.
//! Duplicates are refused unless `Duplicates::KeepFirst`, which keeps each id's best position;
//! the ranking is then cut at `max_docs` (trec_eval `-M`). Ids are compared as bytes: the
//! bindings pass str ids as UTF-8 and int ids as decimal text, so int ids tie-break the way
//! trec_eval would order them in a file.

use std::cmp::Ordering;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::csr::RowsBuf;
use crate::ties::{Tie, tie_groups};
use crate::{CoreError, CoreResult};

/// A ranked judged document as the measures read it: its 1-based rank and its grade (what
/// preparing a ranking leaves of it; `ranking` reads these, this module never reads `ranking`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub rank: u32,
    pub grade: f64,
}

/// A document id (UTF-8 or decimal text) and its value: a grade for judgments, a score for
/// scored rankings.
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
    /// Keep the ranks of every judged document (grade 0 and negative grades too), not only of
    /// those with a positive grade: bpref, infAP, `-J` and the judgment-based measures need
    /// them; the common measures do not, and preparing without them is faster.
    pub all_judged: bool,
    /// Keep the group of tied scores of each hit (`Prepared::ties`): the tie-aware measures
    /// need them.
    pub ties: bool,
}

impl RankingOptions {
    /// Whether the ranks of a judged document with this grade are kept.
    fn keeps(&self, grade: f64) -> bool {
        grade > 0.0 || self.all_judged
    }
}

/// A judged document found in a scored ranking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found<'a> {
    pub id: &'a [u8],
    pub score: f64,
    pub grade: f64,
}

/// One query's ranking (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub enum RankingInput<'a> {
    Ordered(&'a [&'a [u8]]),
    Scored(&'a [Doc<'a>]),
    Joined {
        /// Scores of all ranked documents (ids are unique: they were dict keys).
        scores: &'a [f64],
        /// Judged documents found in the ranking: those with a positive grade, or all of them
        /// when `RankingOptions::all_judged`.
        found: &'a [Found<'a>],
        /// Ranked documents whose score equals the score of a `found` document (including
        /// the found documents themselves).
        tied: &'a [Doc<'a>],
    },
}

/// One query's input. For `Joined` rankings `judged` may hold grades only (empty ids): the
/// found documents already carry their grades.
#[derive(Clone, Copy, Debug)]
pub struct QueryInput<'a> {
    pub judged: &'a [Doc<'a>],
    pub ranking: RankingInput<'a>,
}

/// One judgment of a document for one subtopic (diversity judgments, `{doc: {subtopic:
/// grade}}`): the document's index among its query's judged documents sorted by id
/// (byte-wise), the subtopic's index within the query, and the grade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubtopicGrade {
    pub doc: u32,
    pub subtopic: u32,
    pub grade: f64,
}

/// What the metrics need of every query (see `ranking`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prepared {
    /// Ranked judged documents by rank: those with a positive grade, or every judged one when
    /// `all_judged` is set.
    pub hits: RowsBuf<Hit>,
    /// Positive grades of all judged documents, in decreasing order.
    pub judged_positive: RowsBuf<f64>,
    /// Length of each ranking after deduplication and the `max_docs` cut.
    pub retrieved: Vec<u32>,
    /// Number of judged documents (any grade) of each query.
    pub judged_count: Vec<u32>,
    /// Number of judged documents with a negative grade (in the pool, not judged) of each query.
    pub judged_negative: Vec<u32>,
    /// Whether `hits` holds every judged ranked document (`RankingOptions::all_judged`).
    pub all_judged: bool,
    /// Diversity judgments, per query, by document index. With them, the judged documents
    /// were prepared with 1 + that index as their grade (so every judged document is kept,
    /// and the `grade` of a hit names its document): only the diversity measures read such
    /// rankings.
    pub subtopics: Option<RowsBuf<SubtopicGrade>>,
    /// With `RankingOptions::ties`: the group of tied scores of each hit, row by row as `hits`.
    pub ties: Option<RowsBuf<Tie>>,
}

impl Prepared {
    pub fn len(&self) -> usize {
        self.retrieved.len()
    }

    pub fn is_empty(&self) -> bool {
        self.retrieved.is_empty()
    }

    /// Score the queries marked in `missing` (judged, absent from the run) as trec_eval `-c`
    /// scores them: as a ranking of one document absent from the judgments. Their rankings
    /// must be empty.
    pub fn score_missing_as_trec_eval(&mut self, missing: &[bool]) -> CoreResult<()> {
        if missing.len() != self.len() {
            return Err(CoreError::argument(
                "missing",
                format!("{} flags for {} queries", missing.len(), self.len()),
            ));
        }
        for (q, &is_missing) in missing.iter().enumerate() {
            if is_missing {
                if self.retrieved[q] != 0 {
                    return Err(CoreError::query(q, "a query with a ranking is not missing"));
                }
                self.retrieved[q] = 1;
            }
        }
        Ok(())
    }

    /// Append query `row` of `other` (prepared without diversity judgments).
    pub fn push_row_of(&mut self, other: &Prepared, row: usize) {
        if self.is_empty() {
            self.all_judged = other.all_judged;
        }
        let hits = other.hits.view();
        self.hits.push_row(hits.row(row).iter().copied());
        let positive = other.judged_positive.view();
        self.judged_positive
            .push_row(positive.row(row).iter().copied());
        self.retrieved.push(other.retrieved[row]);
        self.judged_count.push(other.judged_count[row]);
        self.judged_negative.push(other.judged_negative[row]);
        if let Some(ties) = &other.ties {
            let queries = self.len() - 1;
            self.ties
                .get_or_insert_with(|| empty_rows(queries))
                .push_row(ties.view().row(row).iter().copied());
        }
    }

    /// Make room for `queries` more queries holding `hits` more hits and `positive` more
    /// positive grades in all, if the allocator grants it (a reservation is a hint: the
    /// vectors grow as needed otherwise).
    pub fn try_reserve(&mut self, queries: usize, hits: usize, positive: usize) {
        let _ = self.hits.offsets.try_reserve(queries);
        let _ = self.hits.values.try_reserve(hits);
        let _ = self.judged_positive.offsets.try_reserve(queries);
        let _ = self.judged_positive.values.try_reserve(positive);
        let _ = self.retrieved.try_reserve(queries);
        let _ = self.judged_count.try_reserve(queries);
        let _ = self.judged_negative.try_reserve(queries);
    }

    /// Make room for `queries` more queries holding `hits` more hits and `positive` more
    /// positive grades in all, or `CoreError::OutOfMemory` (never an aborted process) when the
    /// allocator cannot grant it.
    pub fn reserve_or_fail(
        &mut self,
        queries: usize,
        hits: usize,
        positive: usize,
    ) -> CoreResult<()> {
        let failed = |_| CoreError::OutOfMemory {
            what: format!("the prepared rankings of {queries} queries ({hits} hits)"),
        };
        self.hits.offsets.try_reserve(queries).map_err(failed)?;
        self.hits.values.try_reserve(hits).map_err(failed)?;
        self.judged_positive
            .offsets
            .try_reserve(queries)
            .map_err(failed)?;
        self.judged_positive
            .values
            .try_reserve(positive)
            .map_err(failed)?;
        self.retrieved.try_reserve(queries).map_err(failed)?;
        self.judged_count.try_reserve(queries).map_err(failed)?;
        self.judged_negative.try_reserve(queries).map_err(failed)?;
        Ok(())
    }

    /// The queries of `parts`, in order, in one `Prepared`. Every vector is sized once: appending
    /// part by part grows them many times (a copy and fresh pages each time), which on a
    /// million queries costs more than the parts' own preparation.
    pub fn concat(parts: Vec<Prepared>, all_judged: bool) -> CoreResult<Prepared> {
        let queries: usize = parts.iter().map(Prepared::len).sum();
        let hits: usize = parts.iter().map(|p| p.hits.values.len()).sum();
        let positive: usize = parts.iter().map(|p| p.judged_positive.values.len()).sum();
        let mut all = Prepared {
            all_judged,
            ..Prepared::default()
        };
        all.reserve_or_fail(queries, hits, positive)?;
        if parts.iter().any(|p| p.ties.is_some()) {
            let ties: usize = parts
                .iter()
                .map(|p| p.ties.as_ref().map_or(0, |t| t.values.len()))
                .sum();
            let mut rows = RowsBuf::default();
            rows.offsets
                .try_reserve(queries)
                .and_then(|()| rows.values.try_reserve(ties))
                .map_err(|_| CoreError::OutOfMemory {
                    what: format!("the tied groups of {queries} queries ({ties} hits)"),
                })?;
            all.ties = Some(rows);
        }
        for part in parts {
            all.append(part);
        }
        Ok(all)
    }

    pub fn append(&mut self, other: Prepared) {
        if self.is_empty() {
            self.all_judged = other.all_judged;
        }
        // Queries without subtopic data (a batch of queries with empty judgments read before
        // the first diversity judgment) have empty rows.
        if self.subtopics.is_some() || other.subtopics.is_some() {
            let mine = self
                .subtopics
                .get_or_insert_with(|| empty_rows(self.retrieved.len()));
            mine.append(
                other
                    .subtopics
                    .unwrap_or_else(|| empty_rows(other.retrieved.len())),
            );
        }
        if self.ties.is_some() || other.ties.is_some() {
            let mine = self
                .ties
                .get_or_insert_with(|| empty_rows(self.retrieved.len()));
            mine.append(
                other
                    .ties
                    .unwrap_or_else(|| empty_rows(other.retrieved.len())),
            );
        }
        self.hits.append(other.hits);
        self.judged_positive.append(other.judged_positive);
        self.retrieved.extend(other.retrieved);
        self.judged_count.extend(other.judged_count);
        self.judged_negative.extend(other.judged_negative);
    }
}

fn empty_rows<T>(n: usize) -> RowsBuf<T> {
    RowsBuf {
        offsets: vec![0; n + 1],
        values: Vec::new(),
    }
}

/// trec_eval's order of two scored documents: `Less` ranks first.
pub fn trec_order(a: Doc<'_>, b: Doc<'_>) -> Ordering {
    // Not total_cmp: -0.0 and 0.0 are equal scores for trec_eval. NaN never gets here (the
    // callers refuse it), and if it did it would only tie, never panic.
    if a.1 > b.1 {
        Ordering::Less
    } else if a.1 < b.1 {
        Ordering::Greater
    } else {
        b.0.cmp(a.0)
    }
}

/// An id as Python would print a str: in single quotes.
pub fn show(id: &[u8]) -> String {
    format!("'{}'", String::from_utf8_lossy(id))
}

fn duplicate_message(id: &[u8]) -> String {
    format!(
        "document {} appears more than once in the ranking; pass duplicates=\"first\" to keep its best position",
        show(id)
    )
}

/// One query's counts, beside its rows (hits, positive grades, tie groups) in `Scratch`.
struct QueryOutput {
    /// The tie group of each hit (with `RankingOptions::ties`, else empty).
    ties: Vec<Tie>,
    retrieved: u32,
    judged_count: u32,
    judged_negative: u32,
}

fn to_u32(n: usize) -> Result<u32, String> {
    u32::try_from(n)
        .map_err(|_| "a ranking or judgment list is longer than 2^32 documents".to_string())
}

fn grade_table<'a>(judged: &[Doc<'a>]) -> Result<FxHashMap<&'a [u8], f64>, String> {
    let mut grades = FxHashMap::default();
    grades.reserve(judged.len());
    for &(id, grade) in judged {
        if grades.insert(id, grade).is_some() {
            return Err(format!("document {} is judged twice", show(id)));
        }
    }
    Ok(grades)
}

/// Ranks of the found documents in a scored ranking without sorting it: one plus the number
/// of documents with a higher score plus the number of tied documents with a greater id.
fn count_ranks(
    scores: &[f64],
    found: &[Found<'_>],
    tied: &[Doc<'_>],
    limit: usize,
) -> Result<Vec<Hit>, String> {
    // A few found documents: one vectorised scan of the scores each is the fastest. Many (a
    // query with thousands of judged documents retrieved): O((N + T) log F) below, never
    // O(N * F).
    let ranks = if found.len() <= LINEAR_RANKS_UP_TO {
        ranks_by_scanning(scores, found, tied)
    } else {
        ranks_by_sorting(scores, found, tied)
    };
    hits_of(found, ranks, limit)
}

/// The hits of the found documents ranked within `limit`, by rank.
fn hits_of(found: &[Found<'_>], ranks: Vec<usize>, limit: usize) -> Result<Vec<Hit>, String> {
    let mut hits = Vec::with_capacity(found.len());
    hits_into(found.iter().map(|f| f.grade), &ranks, limit, &mut hits)?;
    Ok(hits)
}

/// `hits_of` from the found documents' grades, into `hits` (cleared first: a buffer reused
/// from query to query).
fn hits_into(
    grades: impl Iterator<Item = f64>,
    ranks: &[usize],
    limit: usize,
    hits: &mut Vec<Hit>,
) -> Result<(), String> {
    hits.clear();
    for (grade, &rank) in grades.zip(ranks) {
        if rank <= limit {
            hits.push(Hit {
                rank: to_u32(rank)?,
                grade,
            });
        }
    }
    hits.sort_unstable_by_key(|h| h.rank);
    Ok(())
}

/// Up to this many found documents, ranks are counted by scanning the scores once per document.
const LINEAR_RANKS_UP_TO: usize = 24;

fn ranks_by_scanning(scores: &[f64], found: &[Found<'_>], tied: &[Doc<'_>]) -> Vec<usize> {
    found
        .iter()
        .map(|f| {
            let higher = scores.iter().filter(|&&s| s > f.score).count();
            let tied_before = tied
                .iter()
                .filter(|&&(id, s)| s == f.score && id > f.id)
                .count();
            1 + higher + tied_before
        })
        .collect()
}

/// -0.0 and 0.0 are one score: the canonical value, ordered by `total_cmp`.
fn canonical(score: f64) -> f64 {
    if score == 0.0 { 0.0 } else { score }
}

fn ranks_by_sorting(scores: &[f64], found: &[Found<'_>], tied: &[Doc<'_>]) -> Vec<usize> {
    let (keys, histogram, _) = score_histogram(scores, found);
    ranks_of_histogram(&keys, &histogram, found, tied)
}

/// `ranks_by_sorting` without a list of tied documents: the scores counted for the histogram
/// also tell which found scores other documents share, and only those documents are looked
/// for (none, usually: no hash of every score to find them).
fn ranks_by_sorting_docs(scores: &[f64], docs: &[Doc<'_>], found: &[Found<'_>]) -> Vec<usize> {
    let (keys, histogram, equal) = score_histogram(scores, found);
    // Found scores held by more than one document (sorted, as `keys` is).
    let shared: Vec<f64> = keys
        .iter()
        .zip(&equal)
        .filter(|&(_, &n)| n > 1)
        .map(|(&k, _)| k)
        .collect();
    let tied: Vec<Doc<'_>> = if shared.is_empty() {
        Vec::new()
    } else {
        docs.iter()
            .filter(|d| {
                let s = canonical(d.1);
                shared.binary_search_by(|k| k.total_cmp(&s)).is_ok()
            })
            .copied()
            .collect()
    };
    ranks_of_histogram(&keys, &histogram, found, &tied)
}

/// The found scores ascending (`keys`, canonical); `histogram[j]`, the scores s with
/// keys[j - 1] < s <= keys[j] (j = keys.len(): above every key); `equal[j]`, the scores equal
/// to keys[j] where j is the first of equal keys (0 at the others).
fn score_histogram(scores: &[f64], found: &[Found<'_>]) -> (Vec<f64>, Vec<usize>, Vec<usize>) {
    let mut keys: Vec<f64> = found.iter().map(|f| canonical(f.score)).collect();
    keys.sort_unstable_by(f64::total_cmp);
    let mut histogram = vec![0usize; keys.len() + 1];
    let mut equal = vec![0usize; keys.len()];
    for &s in scores {
        let s = canonical(s);
        let j = keys.partition_point(|k| k.total_cmp(&s).is_lt());
        histogram[j] += 1;
        if let Some(k) = keys.get(j) {
            equal[j] += usize::from(k.total_cmp(&s).is_eq());
        }
    }
    (keys, histogram, equal)
}

/// The ranks of `found` from `score_histogram`'s keys and histogram and the documents tied
/// with found ones (`tied`: every document whose score a found one has and another document
/// shares; more may be listed).
fn ranks_of_histogram(
    keys: &[f64],
    histogram: &[usize],
    found: &[Found<'_>],
    tied: &[Doc<'_>],
) -> Vec<usize> {
    // `above[j]` counts the scores s with keys[j] < s, i.e. the documents ranked above a
    // found document with score keys[j].
    let mut above = vec![0usize; keys.len()];
    let mut running = 0;
    for j in (0..keys.len()).rev() {
        running += histogram[j + 1];
        above[j] = running;
    }
    // Tied documents by (score, id): the ones with the score of f and a greater id.
    let mut ties: Vec<(f64, &[u8])> = tied.iter().map(|&(id, s)| (canonical(s), id)).collect();
    ties.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    found
        .iter()
        .map(|f| {
            let score = canonical(f.score);
            let j = keys.partition_point(|k| k.total_cmp(&score).is_lt());
            let group_end = ties.partition_point(|t| t.0.total_cmp(&score).is_le());
            let after_id = ties.partition_point(|t| {
                t.0.total_cmp(&score).is_lt() || (t.0.total_cmp(&score).is_eq() && t.1 <= f.id)
            });
            1 + above[j] + (group_end - after_id)
        })
        .collect()
}

/// A key under which equal scores are equal: -0.0 == 0.0 as scores, so they share one.
pub fn canonical_bits(score: f64) -> u64 {
    if score == 0.0 { 0 } else { score.to_bits() }
}

/// An open-addressing table of the ids of one query's documents (by their index in a slice),
/// reused from query to query: the per-document work of preparing a scored ranking is one
/// hash, one probe here to find repeated ids and one to find judged ones, in tables small
/// enough to stay in the cache. A slot holds the low 32 bits of the id's hash and 1 + the
/// document's index (0: empty), so most probes never read the id itself.
#[derive(Default)]
pub(crate) struct IdTable {
    slots: Vec<u64>,
    shift: u32,
}

impl IdTable {
    /// Empty the table, sized for `n` ids (load factor at most one half).
    pub(crate) fn reset(&mut self, n: usize) {
        let capacity = (n.max(8) * 2).next_power_of_two();
        self.slots.clear();
        self.slots.resize(capacity, 0);
        self.shift = 64 - capacity.trailing_zeros();
    }

    /// The index of an id equal to the one of `hash` for which `same(index)` holds, after
    /// inserting `index` under `hash` if there was none.
    pub(crate) fn insert(
        &mut self,
        hash: u64,
        index: u32,
        same: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let tag = hash & 0xFFFF_FFFF;
        let mask = self.slots.len() - 1;
        let mut at = (hash >> self.shift) as usize;
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                self.slots[at] = (tag << 32) | (u64::from(index) + 1);
                return None;
            }
            let other = (slot & 0xFFFF_FFFF) as u32 - 1;
            if slot >> 32 == tag && same(other) {
                return Some(other);
            }
            at = (at + 1) & mask;
        }
    }

    /// The index of the id of `hash` for which `same(index)` holds, if any.
    pub(crate) fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        let tag = hash & 0xFFFF_FFFF;
        let mask = self.slots.len() - 1;
        let mut at = (hash >> self.shift) as usize;
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                return None;
            }
            let other = (slot & 0xFFFF_FFFF) as u32 - 1;
            if slot >> 32 == tag && same(other) {
                return Some(other);
            }
            at = (at + 1) & mask;
        }
    }
}

fn id_hash(id: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(id)
}

/// Buffers one thread reuses from query to query (a query of ten documents cost four
/// allocations and two copies of its rows before they were reused).
#[derive(Default)]
pub(crate) struct Scratch {
    judged: IdTable,
    ranked: IdTable,
    scores: Vec<f64>,
    /// The positions of the found documents in the ranking, and their grades.
    found_at: Vec<usize>,
    found_grades: Vec<f64>,
    ranks: Vec<usize>,
    /// The query's hits and positive grades, as they go into its row.
    hits: Vec<Hit>,
    positive: Vec<f64>,
}

/// Ranks of the judged documents of a scored ranking with unique ids (the common case, and
/// every TREC run trec_eval accepts): one pass finds repeated ids and judged documents; a
/// repeated id is an error, or with `Duplicates::KeepFirst` hands the query to
/// `scored_hits_with_duplicates`.
fn scored_hits(
    ranking: &[Doc<'_>],
    judged: &[Doc<'_>],
    opts: RankingOptions,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<usize, String> {
    let n_judged = to_u32(judged.len())?;
    to_u32(ranking.len())?;
    scratch.judged.reset(judged.len());
    for (i, &(id, _)) in judged.iter().enumerate() {
        let same = |j: u32| judged[j as usize].0 == id;
        if scratch.judged.insert(id_hash(id), i as u32, same).is_some() {
            return Err(format!("document {} is judged twice", show(id)));
        }
    }
    scratch.ranked.reset(ranking.len());
    scratch.scores.clear();
    scratch.found_at.clear();
    scratch.found_grades.clear();
    for (i, &(id, score)) in ranking.iter().enumerate() {
        let hash = id_hash(id);
        let same = |j: u32| ranking[j as usize].0 == id;
        if scratch.ranked.insert(hash, i as u32, same).is_some() {
            if opts.duplicates == Duplicates::Raise {
                return Err(duplicate_message(id));
            }
            let grades = grade_table(judged)?;
            let (hits, n_ranked) = scored_hits_with_duplicates(ranking, &grades, opts, limit)?;
            scratch.hits = hits;
            return Ok(n_ranked);
        }
        scratch.scores.push(score);
        if n_judged > 0
            && let Some(j) = scratch.judged.find(hash, |j| judged[j as usize].0 == id)
        {
            let grade = judged[j as usize].1;
            if opts.keeps(grade) {
                scratch.found_grades.push(grade);
                scratch.found_at.push(i);
            }
        }
    }
    if !ranks_in_score_order(
        &scratch.scores,
        ranking,
        &scratch.found_at,
        &mut scratch.ranks,
    ) {
        let found: Vec<Found<'_>> = scratch
            .found_at
            .iter()
            .zip(&scratch.found_grades)
            .map(|(&i, &grade)| Found {
                id: ranking[i].0,
                score: ranking[i].1,
                grade,
            })
            .collect();
        scratch.ranks = ranks_among_docs(&scratch.scores, ranking, &found);
    }
    let grades = scratch.found_grades.iter().copied();
    hits_into(grades, &scratch.ranks, limit, &mut scratch.hits)?;
    Ok(ranking.len())
}

/// The ranks of the documents at `found_at` in a ranking whose scores are already in
/// decreasing order (as runs are written), written to `ranks`; false if they are not in that
/// order (or one is NaN): a found
/// document's rank is then 1 + the position where its score's documents start + those of them
/// with a greater id (trec_eval's order of ties), read off the neighbours, with no count over
/// the whole ranking per found document. Also false past a budget of work (long runs of
/// ties).
fn ranks_in_score_order(
    scores: &[f64],
    docs: &[Doc<'_>],
    found_at: &[usize],
    ranks: &mut Vec<usize>,
) -> bool {
    ranks.clear();
    // `>=` is false with a NaN, and takes -0.0 and 0.0 as one score, as the ranks do.
    let ordered =
        scores.windows(2).all(|w| w[0] >= w[1]) && !scores.first().is_some_and(|s| s.is_nan());
    if !ordered {
        return false;
    }
    // Ties are read document by document: long runs of tied scores would make that
    // O(N * F), so past a budget of work the caller counts ranks its other ways.
    let mut budget = 4 * scores.len() + 64;
    for &i in found_at {
        let score = scores[i];
        let start = scores[..i]
            .iter()
            .rposition(|&s| s != score)
            .map_or(0, |j| j + 1);
        let end = scores[i..]
            .iter()
            .position(|&s| s != score)
            .map_or(scores.len(), |j| i + j);
        let Some(left) = budget.checked_sub(end - start) else {
            return false;
        };
        budget = left;
        let id = docs[i].0;
        let tied_before = docs[start..end].iter().filter(|d| d.0 > id).count();
        ranks.push(1 + start + tied_before);
    }
    true
}

/// The ranks of `found` among `docs` (whose scores are `scores`, in any order), the documents
/// tied with a found one looked for in `docs` only where its score is shared: by scanning the
/// scores for a few found documents, by sorting for many (never O(N * F)).
fn ranks_among_docs(scores: &[f64], docs: &[Doc<'_>], found: &[Found<'_>]) -> Vec<usize> {
    if found.len() <= LINEAR_RANKS_UP_TO {
        ranks_by_scanning_docs(scores, docs, found)
    } else {
        ranks_by_sorting_docs(scores, docs, found)
    }
}

/// `ranks_by_scanning` without a list of tied documents: the documents tied with a found one
/// are looked for only when its score occurs more than once.
fn ranks_by_scanning_docs(scores: &[f64], docs: &[Doc<'_>], found: &[Found<'_>]) -> Vec<usize> {
    found
        .iter()
        .map(|f| {
            let (mut higher, mut equal) = (0usize, 0usize);
            for &s in scores {
                higher += usize::from(s > f.score);
                equal += usize::from(s == f.score);
            }
            let tied_before = if equal > 1 {
                docs.iter()
                    .filter(|&&(id, s)| s == f.score && id > f.id)
                    .count()
            } else {
                0
            };
            1 + higher + tied_before
        })
        .collect()
}

/// A scored ranking that repeats ids, with `Duplicates::KeepFirst`: each id keeps its best
/// score.
fn scored_hits_with_duplicates(
    ranking: &[Doc<'_>],
    grades: &FxHashMap<&[u8], f64>,
    opts: RankingOptions,
    limit: usize,
) -> Result<(Vec<Hit>, usize), String> {
    // Best score of each id; a repeated id is an error unless KeepFirst.
    let mut best: FxHashMap<&[u8], f64> = FxHashMap::default();
    best.reserve(ranking.len());
    let mut repeated = false;
    for &(id, score) in ranking {
        match best.entry(id) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(score);
            }
            std::collections::hash_map::Entry::Occupied(mut slot) => {
                if opts.duplicates == Duplicates::Raise {
                    return Err(duplicate_message(id));
                }
                repeated = true;
                if score > *slot.get() {
                    slot.insert(score);
                }
            }
        }
    }
    let scores: Vec<f64> = if repeated {
        best.values().copied().collect()
    } else {
        ranking.iter().map(|d| d.1).collect()
    };
    let found: Vec<Found<'_>> = grades
        .iter()
        .filter(|(_, g)| opts.keeps(**g))
        .filter_map(|(&id, &grade)| best.get(id).map(|&score| Found { id, score, grade }))
        .collect();
    let docs: Vec<Doc<'_>> = best.iter().map(|(&id, &s)| (id, s)).collect();
    let hits = hits_of(&found, ranks_among_docs(&scores, &docs, &found), limit)?;
    Ok((hits, scores.len()))
}

fn ordered_hits(
    ranking: &[&[u8]],
    grades: &FxHashMap<&[u8], f64>,
    opts: RankingOptions,
    limit: usize,
) -> Result<(Vec<Hit>, usize), String> {
    let mut hits = Vec::new();
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    seen.reserve(ranking.len().min(limit));
    let mut rank: usize = 0;
    for &id in ranking {
        if rank == limit {
            break;
        }
        if !seen.insert(id) {
            match opts.duplicates {
                Duplicates::KeepFirst => continue,
                Duplicates::Raise => return Err(duplicate_message(id)),
            }
        }
        rank += 1;
        if let Some(&grade) = grades.get(id)
            && opts.keeps(grade)
        {
            hits.push(Hit {
                rank: to_u32(rank)?,
                grade,
            });
        }
    }
    Ok((hits, rank))
}

/// Prepare one query: its hits and positive grades are left in `scratch.hits` and
/// `scratch.positive` (the caller copies them into its rows; nothing is allocated per query
/// for a scored ranking without tie groups).
fn prepare_query(
    query: &QueryInput<'_>,
    opts: RankingOptions,
    scratch: &mut Scratch,
) -> Result<QueryOutput, String> {
    let limit = opts.max_docs.unwrap_or(usize::MAX);
    // Sorted here, in decreasing order (the ideal ranking), so that the kernels, which read
    // them once per measure, need not sort them again.
    scratch.positive.clear();
    scratch
        .positive
        .extend(query.judged.iter().map(|d| d.1).filter(|g| *g > 0.0));
    scratch.positive.sort_unstable_by(|a, b| b.total_cmp(a));
    let n_ranked = match query.ranking {
        RankingInput::Ordered(ids) => {
            let (hits, n) = ordered_hits(ids, &grade_table(query.judged)?, opts, limit)?;
            scratch.hits = hits;
            n
        }
        RankingInput::Scored(docs) => scored_hits(docs, query.judged, opts, limit, scratch)?,
        RankingInput::Joined {
            scores,
            found,
            tied,
        } => {
            scratch.hits = count_ranks(scores, found, tied, limit)?;
            scores.len()
        }
    };
    let ties = if opts.ties {
        let hits = std::mem::take(&mut scratch.hits);
        let ties = hit_ties(&query.ranking, &hits, opts, limit, scratch);
        scratch.hits = hits;
        ties?
    } else {
        Vec::new()
    };
    Ok(QueryOutput {
        ties,
        retrieved: to_u32(n_ranked.min(limit))?,
        judged_count: to_u32(query.judged.len())?,
        judged_negative: to_u32(query.judged.iter().filter(|d| d.1 < 0.0).count())?,
    })
}

impl Prepared {
    /// Prepared, empty, for `opts` (with rows of tie groups when it keeps them).
    fn for_options(opts: RankingOptions) -> Prepared {
        Prepared {
            all_judged: opts.all_judged,
            ties: opts.ties.then(RowsBuf::default),
            ..Prepared::default()
        }
    }

    /// Append the query `prepare_query` left in `scratch` (and `out`).
    fn push_prepared(&mut self, scratch: &Scratch, out: QueryOutput) {
        if let Some(ties) = &mut self.ties {
            ties.push_row(out.ties);
        }
        self.hits.push_row(scratch.hits.iter().copied());
        self.judged_positive
            .push_row(scratch.positive.iter().copied());
        self.retrieved.push(out.retrieved);
        self.judged_count.push(out.judged_count);
        self.judged_negative.push(out.judged_negative);
    }
}

/// The tie group of each hit (see `ties`): from the scores of the ranked documents (each id's
/// best score when ids repeat); a ranking given in order has none.
fn hit_ties(
    ranking: &RankingInput<'_>,
    hits: &[Hit],
    opts: RankingOptions,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<Vec<Tie>, String> {
    let ranks = hits.iter().map(|h| h.rank);
    let scores = &mut scratch.scores;
    scores.clear();
    match *ranking {
        RankingInput::Ordered(_) => return Ok(ranks.map(Tie::alone).collect()),
        RankingInput::Joined { scores: all, .. } => scores.extend_from_slice(all),
        RankingInput::Scored(docs) if opts.duplicates == Duplicates::KeepFirst => {
            let mut best: FxHashMap<&[u8], f64> = FxHashMap::default();
            for &(id, score) in docs {
                let slot = best.entry(id).or_insert(score);
                if score > *slot {
                    *slot = score;
                }
            }
            scores.extend(best.values());
        }
        RankingInput::Scored(docs) => scores.extend(docs.iter().map(|d| d.1)),
    }
    tie_groups(scores, ranks, limit)
}

/// Prepare every query, in parallel. `query_base` is added to query positions in errors (for
/// callers that prepare in batches).
pub fn prepare(
    queries: &[QueryInput<'_>],
    opts: RankingOptions,
    query_base: usize,
) -> CoreResult<Prepared> {
    check_options(opts)?;
    // Each worker's share of the queries goes into rows of its own, in order, then the
    // shares are put together once (no vectors per query to allocate, copy and free). A
    // share stops at its first error; the error of the first share that has one is returned.
    type Share = CoreResult<(Scratch, Prepared)>;
    let shares: Vec<Share> = queries
        .par_iter()
        .with_min_len(16)
        .enumerate()
        .fold(
            || Ok((Scratch::default(), Prepared::for_options(opts))),
            |share: Share, (q, query)| {
                let (mut scratch, mut part) = share?;
                // Once the memory ran out, every worker stops at its next query
                // (crate::memory).
                crate::memory::check(|| "the prepared rankings".to_owned())?;
                let out = prepare_query(query, opts, &mut scratch)
                    .map_err(|message| CoreError::query(query_base + q, message))?;
                part.push_prepared(&scratch, out);
                Ok((scratch, part))
            },
        )
        .collect();
    let mut parts = Vec::with_capacity(shares.len());
    for share in shares {
        parts.push(share?.1);
    }
    if parts.len() <= 1 {
        return Ok(parts.pop().unwrap_or_else(|| Prepared::for_options(opts)));
    }
    Prepared::concat(parts, opts.all_judged)
}

/// `prepare` on the calling thread alone (for callers that spread parts of their input over
/// threads themselves).
pub fn prepare_serial(
    queries: &[QueryInput<'_>],
    opts: RankingOptions,
    query_base: usize,
) -> CoreResult<Prepared> {
    check_options(opts)?;
    let mut scratch = Scratch::default();
    let mut prepared = Prepared::for_options(opts);
    for (q, query) in queries.iter().enumerate() {
        crate::memory::check(|| "the prepared rankings".to_owned())?;
        let out = prepare_query(query, opts, &mut scratch)
            .map_err(|message| CoreError::query(query_base + q, message))?;
        prepared.push_prepared(&scratch, out);
    }
    Ok(prepared)
}

/// Queries prepared one at a time, in order, on the calling thread (for callers that build
/// each query's input themselves and spread groups of queries over threads).
pub struct PreparedBuilder {
    prepared: Prepared,
    scratch: Scratch,
    opts: RankingOptions,
}

impl PreparedBuilder {
    pub fn new(opts: RankingOptions) -> CoreResult<Self> {
        check_options(opts)?;
        Ok(PreparedBuilder {
            prepared: Prepared::for_options(opts),
            scratch: Scratch::default(),
            opts,
        })
    }

    /// Prepare the next query; the error is its message (the caller names the query).
    pub fn push(&mut self, query: &QueryInput<'_>) -> Result<(), String> {
        let out = prepare_query(query, self.opts, &mut self.scratch)?;
        self.prepared.push_prepared(&self.scratch, out);
        Ok(())
    }

    pub fn finish(self) -> Prepared {
        self.prepared
    }
}

fn check_options(opts: RankingOptions) -> CoreResult<()> {
    if opts.max_docs == Some(0) {
        return Err(CoreError::argument(
            "max_docs",
            "must be a positive integer or None, got 0",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const OPTS: RankingOptions = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        all_judged: false,
        ties: false,
    };

    /// `ranks_in_score_order` into a fresh vector (with stale values in it first: the buffer
    /// is reused from query to query), None when it declines.
    fn in_score_order(scores: &[f64], docs: &[Doc<'_>], found_at: &[usize]) -> Option<Vec<usize>> {
        let mut ranks = vec![7; 3];
        ranks_in_score_order(scores, docs, found_at, &mut ranks).then_some(ranks)
    }

    fn one(query: QueryInput<'_>, opts: RankingOptions) -> CoreResult<Prepared> {
        prepare(&[query], opts, 0)
    }

    fn scored<'a>(
        judged: &'a [Doc<'a>],
        ranking: &'a [Doc<'a>],
        opts: RankingOptions,
    ) -> CoreResult<Prepared> {
        one(
            QueryInput {
                judged,
                ranking: RankingInput::Scored(ranking),
            },
            opts,
        )
    }

    /// The joined form the bindings build from a dict, built here from (id, score) pairs.
    fn joined(
        judged: &[Doc<'_>],
        ranking: &[Doc<'_>],
        opts: RankingOptions,
    ) -> CoreResult<Prepared> {
        let scores: Vec<f64> = ranking.iter().map(|d| d.1).collect();
        let found: Vec<Found<'_>> = judged
            .iter()
            .filter(|d| opts.keeps(d.1))
            .filter_map(|&(id, grade)| {
                ranking.iter().find(|d| d.0 == id).map(|d| Found {
                    id,
                    score: d.1,
                    grade,
                })
            })
            .collect();
        let tied: Vec<Doc<'_>> = ranking
            .iter()
            .copied()
            .filter(|d| found.iter().any(|f| f.score == d.1))
            .collect();
        one(
            QueryInput {
                judged,
                ranking: RankingInput::Joined {
                    scores: &scores,
                    found: &found,
                    tied: &tied,
                },
            },
            opts,
        )
    }

    /// Sort the whole ranking, then read ranks off it: the obvious implementation.
    fn by_sorting(
        judged: &[Doc<'_>],
        ranking: &[Doc<'_>],
        max_docs: Option<usize>,
        all_judged: bool,
    ) -> (Vec<Hit>, u32) {
        let mut sorted = ranking.to_vec();
        sorted.sort_by(|a, b| trec_order(*a, *b));
        sorted.truncate(max_docs.unwrap_or(usize::MAX));
        let hits = sorted
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                judged
                    .iter()
                    .find(|j| j.0 == d.0 && (j.1 > 0.0 || all_judged))
                    .map(|j| Hit {
                        rank: (i + 1) as u32,
                        grade: j.1,
                    })
            })
            .collect();
        (hits, sorted.len() as u32)
    }

    #[test]
    fn ties_break_by_id_bytewise_descending() {
        // E1: a, b, c all scored 1.0 -> order c, b, a; "d9" > "d10" > "d1" byte-wise.
        let p = scored(
            &[(b"a", 1.0)],
            &[(b"a", 1.0), (b"b", 1.0), (b"c", 1.0)],
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
        let p = scored(
            &[(b"d10", 1.0)],
            &[(b"d1", 0.0), (b"d10", 0.0), (b"d9", 0.0)],
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
        let p = joined(&[(b"a", 1.0)], &[(b"a", 0.0), (b"b", -0.0)], OPTS).unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 2,
                grade: 1.0
            }]
        );
        let p = scored(&[(b"a", 1.0)], &[(b"a", 0.0), (b"b", -0.0)], OPTS).unwrap();
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
        let ids: &[&[u8]] = &[b"x", b"d1", b"x"];
        let ordered = |judged, opts| {
            one(
                QueryInput {
                    judged,
                    ranking: RankingInput::Ordered(ids),
                },
                opts,
            )
        };
        let err = ordered(&[(b"d1", 1.0)], OPTS).unwrap_err();
        assert!(
            err.to_string().contains("'x' appears more than once"),
            "{err}"
        );
        let keep = RankingOptions {
            duplicates: Duplicates::KeepFirst,
            ..OPTS
        };
        let p = ordered(&[(b"x", 2.0)], keep).unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 1,
                grade: 2.0
            }]
        );
        assert_eq!(p.retrieved, vec![2]);
        // A scored duplicate keeps its best-scored position.
        let docs: &[Doc<'_>] = &[(b"d1", 1.0), (b"d2", 2.0), (b"d1", 3.0)];
        assert!(scored(&[(b"d1", 1.0)], docs, OPTS).is_err());
        let p = scored(&[(b"d1", 1.0)], docs, keep).unwrap();
        assert_eq!(
            p.hits.values,
            vec![Hit {
                rank: 1,
                grade: 1.0
            }]
        );
        assert_eq!(p.retrieved, vec![2]);
        let err = scored(&[(b"d1", 1.0), (b"d1", 2.0)], &[], OPTS).unwrap_err();
        assert!(err.to_string().contains("judged twice"));
    }

    #[test]
    fn max_docs_cuts_after_ordering_and_negative_grades_are_unjudged() {
        let opts = RankingOptions {
            max_docs: Some(2),
            ..OPTS
        };
        let judged: &[Doc<'_>] = &[(b"a", 1.0), (b"b", -1.0), (b"c", 2.0)];
        let ranking: &[Doc<'_>] = &[(b"a", 1.0), (b"b", 3.0), (b"c", 2.0)];
        for p in [
            scored(judged, ranking, opts).unwrap(),
            joined(judged, ranking, opts).unwrap(),
        ] {
            // order b, c, a; cut to b, c; b has a negative grade.
            assert_eq!(
                p.hits.values,
                vec![Hit {
                    rank: 2,
                    grade: 2.0
                }]
            );
            assert_eq!(p.judged_positive.values, vec![2.0, 1.0]);
            assert_eq!(p.retrieved, vec![2]);
            assert_eq!(p.judged_count, vec![3]);
        }
    }

    fn ids() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(b"d1".to_vec()),
            Just(b"d10".to_vec()),
            Just(b"d9".to_vec()),
            Just(b"a".to_vec()),
            Just(b"ab".to_vec()),
            Just(b"b".to_vec()),
            Just(b"z".to_vec()),
            Just(b"\xc3\xa9".to_vec()),
        ]
    }

    proptest! {
        #[test]
        fn counting_ranks_equals_sorting(
            ranking in proptest::collection::btree_map(ids(), prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(0.5), Just(2.0)], 0..8),
            judged in proptest::collection::btree_map(ids(), prop_oneof![Just(-1.0), Just(0.0), Just(1.0), Just(3.0)], 0..8),
            max_docs in prop_oneof![Just(None), Just(Some(1usize)), Just(Some(3usize))],
            all_judged in proptest::bool::ANY,
        ) {
            let ranking: Vec<Doc<'_>> = ranking.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
            let judged: Vec<Doc<'_>> = judged.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
            let opts = RankingOptions { max_docs, all_judged, ..OPTS };
            let (want, n) = by_sorting(&judged, &ranking, max_docs, all_judged);
            for p in [scored(&judged, &ranking, opts).unwrap(), joined(&judged, &ranking, opts).unwrap()] {
                prop_assert_eq!(&p.hits.values, &want);
                prop_assert_eq!(p.retrieved[0], n);
            }
        }

        /// A scored ranking that repeats ids: refused, or with `KeepFirst` ranked as the
        /// ranking of each id at its best score; many judged documents take the sorting path.
        #[test]
        fn repeated_ids_keep_their_best_score(
            ranking in proptest::collection::vec((ids(), prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(0.5), Just(2.0)]), 0..12),
            judged in proptest::collection::btree_map(ids(), prop_oneof![Just(-1.0), Just(0.0), Just(1.0), Just(3.0)], 0..8),
            max_docs in prop_oneof![Just(None), Just(Some(2usize))],
            all_judged in proptest::bool::ANY,
            many in proptest::bool::ANY,
        ) {
            let ranking: Vec<Doc<'_>> = ranking.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
            let extra: Vec<Vec<u8>> = (0..if many { 40 } else { 0 }).map(|i| format!("x{i}").into_bytes()).collect();
            let mut judged: Vec<Doc<'_>> = judged.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
            let mut ranking = ranking;
            for (i, id) in extra.iter().enumerate() {
                judged.push((id.as_slice(), 1.0));
                ranking.push((id.as_slice(), (i % 3) as f64));
            }
            let mut best: Vec<Doc<'_>> = Vec::new();
            for &(id, score) in &ranking {
                match best.iter_mut().find(|d| d.0 == id) {
                    Some(d) => d.1 = d.1.max(score),
                    None => best.push((id, score)),
                }
            }
            let repeated = best.len() < ranking.len();
            let (want, n) = by_sorting(&judged, &best, max_docs, all_judged);
            let raise = RankingOptions { max_docs, all_judged, ..OPTS };
            let keep = RankingOptions { duplicates: Duplicates::KeepFirst, ..raise };
            let got = scored(&judged, &ranking, keep).unwrap();
            prop_assert_eq!(&got.hits.values, &want);
            prop_assert_eq!(got.retrieved[0], n);
            match scored(&judged, &ranking, raise) {
                Ok(p) => {
                    prop_assert!(!repeated);
                    prop_assert_eq!(&p.hits.values, &want);
                }
                Err(e) => {
                    prop_assert!(repeated);
                    prop_assert!(e.to_string().contains("appears more than once"), "{}", e);
                }
            }
        }

        /// Both ways of counting ranks agree, on rankings with many found documents and ties.
        #[test]
        fn rank_counting_by_sorting_equals_scanning(
            docs in proptest::collection::btree_map("[a-e]{1,3}", prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(0.5), Just(2.0), Just(-3.0)], 0..60),
            found_mask in proptest::collection::vec(proptest::bool::ANY, 60),
        ) {
            let ranking: Vec<Doc<'_>> = docs.iter().map(|(k, v)| (k.as_bytes(), *v)).collect();
            let scores: Vec<f64> = ranking.iter().map(|d| d.1).collect();
            let found: Vec<Found<'_>> = ranking
                .iter()
                .zip(&found_mask)
                .filter(|(_, keep)| **keep)
                .map(|(d, _)| Found { id: d.0, score: d.1, grade: 1.0 })
                .collect();
            let tied: Vec<Doc<'_>> = ranking
                .iter()
                .copied()
                .filter(|d| found.iter().any(|f| f.score == d.1))
                .collect();
            let want = ranks_by_scanning(&scores, &found, &tied);
            let found_at: Vec<usize> = found_mask.iter().take(ranking.len()).enumerate().filter(|(_, keep)| **keep).map(|(i, _)| i).collect();
            if let Some(ranks) = in_score_order(&scores, &ranking, &found_at) {
                prop_assert_eq!(&ranks, &want);
            }
            // The same documents in decreasing order of score (ties in any order).
            let mut by_score: Vec<(Doc<'_>, bool)> = ranking.iter().copied().zip(found_mask.iter().copied()).collect();
            by_score.sort_by(|a, b| b.0.1.total_cmp(&a.0.1));
            let sorted: Vec<Doc<'_>> = by_score.iter().map(|d| d.0).collect();
            let sorted_scores: Vec<f64> = sorted.iter().map(|d| d.1).collect();
            let sorted_found: Vec<Found<'_>> = by_score.iter().filter(|d| d.1).map(|d| Found { id: d.0.0, score: d.0.1, grade: 1.0 }).collect();
            let sorted_at: Vec<usize> = by_score.iter().enumerate().filter(|(_, d)| d.1).map(|(i, _)| i).collect();
            // None only past the budget of 4N + 64 reads of tied documents, at most N per
            // found document: so only with more than 4 found documents.
            match in_score_order(&sorted_scores, &sorted, &sorted_at) {
                Some(ranks) => prop_assert_eq!(ranks, ranks_by_scanning(&sorted_scores, &sorted_found, &sorted)),
                None => prop_assert!(sorted_at.len() > 4),
            }
            prop_assert_eq!(&ranks_by_sorting(&scores, &found, &tied), &want);
            prop_assert_eq!(&ranks_by_sorting_docs(&scores, &ranking, &found), &want);
            prop_assert_eq!(&ranks_by_scanning_docs(&scores, &ranking, &found), &want);
        }
    }

    #[test]
    fn subtopics_of_queries_read_before_the_first_diversity_judgment_are_empty() {
        let plain = scored(&[], &[(b"a", 1.0)], OPTS).unwrap();
        let mut with = scored(&[(b"a", 1.0)], &[(b"a", 1.0)], OPTS).unwrap();
        let grade = SubtopicGrade {
            doc: 0,
            subtopic: 0,
            grade: 1.0,
        };
        let mut rows = RowsBuf::default();
        rows.push_row([grade]);
        with.subtopics = Some(rows);
        let mut all = plain.clone();
        all.append(with.clone());
        all.append(plain);
        let subtopics = all.subtopics.unwrap();
        assert_eq!(subtopics.offsets, vec![0, 0, 1, 1]);
        assert_eq!(subtopics.values, vec![grade]);
    }

    #[test]
    fn many_relevant_documents_rank_in_n_log_n() {
        // 200,000 documents, all relevant and retrieved, half of them tied: counting by
        // scanning would take 4 * 10^10 comparisons.
        let ids: Vec<Vec<u8>> = (0..200_000).map(|i| format!("d{i}").into_bytes()).collect();
        let ranking: Vec<Doc<'_>> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_slice(), if i % 2 == 0 { 1.0 } else { i as f64 }))
            .collect();
        let judged: Vec<Doc<'_>> = ranking.iter().map(|d| (d.0, 1.0)).collect();
        let p = scored(&judged, &ranking, OPTS).unwrap();
        let ranks: Vec<u32> = p.hits.values.iter().map(|h| h.rank).collect();
        assert_eq!(ranks, (1..=200_000).collect::<Vec<u32>>());
    }
}
