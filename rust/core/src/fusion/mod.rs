//! Fusion of several runs into one (ranx 0.3's methods and normalisations, with its semantics).
//!
//! Input: runs aligned by query (row `q` of every run is the same query; a run that lacks the
//! query has an empty row). Per query the work is:
//!
//! 1. the candidates: the union of the documents of every run;
//! 2. each run's scores normalised ([`Norm`]), over the documents it ranks (borda also gives a
//!    score to the candidates a run does not rank);
//! 3. each run's positions: its documents ordered by normalised score descending, ties by doc
//!    id byte-wise descending (trec_eval's rule, `prepare::trec_order`), position 0 first;
//! 4. the fused score of every candidate ([`Method`]);
//! 5. the fused ranking: fused score descending, ties by doc id byte-wise descending.
//!
//! Queries are independent and fused in parallel; every step is deterministic, so the output is
//! the same for any number of threads. Normalisation denominators are floored at 1e-9 as in
//! ranx: a query whose scores are all equal normalises to 0 (min-max, sum, zmuv) instead of
//! dividing by zero.
//!
//! `methods` declares each method once (`fusion_methods!`), `score` computes the fused scores of
//! one query, `train` learns the trained methods' parameters.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::{CoreError, CoreResult};

pub mod files;
mod methods;
mod score;
#[cfg(test)]
mod tests;
mod train;

pub use methods::{
    Args, Declaration, Family, Learns, METHODS, Method, PARAMETERS, ParamKind, Value, declaration,
    param_kind,
};
use methods::{check_method, method_needs_positions};
use score::fuse_query;
pub use train::{Relevant, Training, check_training, hit_lists, learn, train};

/// The denominator floor of ranx's normalisations.
const MIN_DENOMINATOR: f64 = 1e-9;
/// CombMIN's score of a run that does not rank a document (ranx).
const COMB_MIN_ABSENT: f64 = 1e9;
/// CombMAX's score of a run that does not rank a document (ranx).
const COMB_MAX_ABSENT: f64 = -1e9;
/// Bounds of SegFuse's segments: `10 * 2^(k-1) - 5` for k = 1..10 (Shokouhi 2007, ranx).
const SEGFUSE_BOUNDS: [usize; 11] = [0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115];
/// Cut-offs of BayesFuse's rank segments (ranx).
const BAYESFUSE_CUT_OFFS: [usize; 10] = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000];
/// The probability BayesFuse puts in place of 0 and of 1 (ranx).
const BAYESFUSE_FLOOR: f64 = 0.001;

/// Documents and scores of one run, query by query (CSR over queries; ids as UTF-8 or decimal
/// text in one buffer).
#[derive(Clone, Debug, Default)]
pub struct RunRows {
    /// `offsets[q]..offsets[q + 1]` are the documents of query `q`.
    pub offsets: Vec<usize>,
    /// All ids, one after another.
    pub text: Vec<u8>,
    /// `ends[i]`: the end of id `i` in `text` (it starts at `ends[i - 1]`, or 0).
    pub ends: Vec<usize>,
    pub scores: Vec<f64>,
}

impl RunRows {
    pub fn new() -> Self {
        RunRows {
            offsets: vec![0],
            ..RunRows::default()
        }
    }

    /// Append one document to the current (last) query.
    pub fn push_doc(&mut self, id: &[u8], score: f64) {
        self.text.extend_from_slice(id);
        self.ends.push(self.text.len());
        self.scores.push(score);
    }

    /// Close the current query.
    pub fn end_query(&mut self) {
        self.offsets.push(self.ends.len());
    }

    /// [`RunRows::push_doc`], reserving fallibly (amortised, as `push`): runs too big for the
    /// memory left are [`CoreError::OutOfMemory`], not an abort.
    pub fn try_push_doc(&mut self, id: &[u8], score: f64) -> CoreResult<()> {
        let failed = |rows: &RunRows| {
            out_of_memory(format!(
                "the runs' documents ({} read so far)",
                rows.ends.len()
            ))
        };
        if self.text.try_reserve(id.len()).is_err()
            || self.ends.try_reserve(1).is_err()
            || self.scores.try_reserve(1).is_err()
        {
            return Err(failed(self));
        }
        self.push_doc(id, score);
        Ok(())
    }

    /// [`RunRows::end_query`], reserving fallibly.
    pub fn try_end_query(&mut self) -> CoreResult<()> {
        reserve(&mut self.offsets, 1, "the runs' queries")?;
        self.end_query();
        Ok(())
    }

    pub fn n_queries(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Append the queries of `other` after this run's (reserving fallibly).
    pub fn try_append(&mut self, other: &RunRows) -> CoreResult<()> {
        let what = "the fused run";
        reserve(&mut self.text, other.text.len(), what)?;
        reserve(&mut self.ends, other.ends.len(), what)?;
        reserve(&mut self.scores, other.scores.len(), what)?;
        reserve(&mut self.offsets, other.n_queries(), what)?;
        let (text, docs) = (self.text.len(), self.ends.len());
        self.text.extend_from_slice(&other.text);
        self.ends.extend(other.ends.iter().map(|e| e + text));
        self.scores.extend_from_slice(&other.scores);
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|o| o + docs));
        Ok(())
    }

    /// The documents of query `q`: indices of `id` and `scores`.
    pub fn row(&self, q: usize) -> std::ops::Range<usize> {
        self.offsets[q]..self.offsets[q + 1]
    }

    pub fn id(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// The bytes of the ids in `rows`.
    fn id_bytes(&self, rows: std::ops::Range<usize>) -> usize {
        if rows.is_empty() {
            return 0;
        }
        let start = if rows.start == 0 {
            0
        } else {
            self.ends[rows.start - 1]
        };
        self.ends[rows.end - 1] - start
    }
}

/// How each run's scores are normalised before fusion (ranx's `norm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    None,
    MinMax,
    MinMaxInverted,
    Max,
    Sum,
    Zmuv,
    Rank,
    Borda,
}

/// The fused run: ids and scores per query, best first.
pub type Fused = RunRows;

/// Position of a candidate a run does not rank.
const NOT_RANKED: u32 = u32::MAX;

/// Runs aligned by query, read once for any number of fusions (and trainings): per query the
/// candidates (the union of the runs' documents) and each run's documents as candidate numbers
/// with their scores, in trec order. Ids are hashed and runs sorted here, once; a fusion then
/// reads numbers only, so fusing prepared runs again costs the methods' own work.
#[derive(Debug)]
pub struct FusionInput {
    n_runs: usize,
    queries: Vec<FusionQuery>,
}

/// One query of a [`FusionInput`].
#[derive(Debug, Default)]
struct FusionQuery {
    /// Candidate ids, one after another (`ends[c]`: the end of candidate `c`).
    text: Vec<u8>,
    ends: Vec<usize>,
    /// Every run's documents as candidate numbers, run after run (`run_ends[r]`: the end of run
    /// `r`), each run in trec order of its scores, which `scores` holds alongside.
    members: Vec<u32>,
    scores: Vec<f64>,
    run_ends: Vec<usize>,
}

/// A failed reservation: a MemoryError in Python, naming what did not fit.
fn out_of_memory(what: impl Into<String>) -> CoreError {
    CoreError::OutOfMemory { what: what.into() }
}

/// `v` emptied and refilled with `n` copies of `value`, reserving fallibly: a query too big for
/// the memory left is an error, not an abort.
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, value: T, what: &str) -> CoreResult<()> {
    v.clear();
    reserve(v, n, what)?;
    v.resize(n, value);
    Ok(())
}

fn reserve<T>(v: &mut Vec<T>, n: usize, what: &str) -> CoreResult<()> {
    v.try_reserve(n)
        .map_err(|_| out_of_memory(format!("{what} ({n} entries)")))
}

impl FusionQuery {
    /// Query `q` of `runs`: candidates numbered in first-seen order, each run sorted.
    fn new(runs: &[RunRows], q: usize, keyed: &mut Vec<(u64, u32)>) -> CoreResult<Self> {
        let total: usize = runs.iter().map(|run| run.row(q).len()).sum();
        if u32::try_from(total).is_err() {
            return Err(CoreError::query(
                q,
                format!("{total} documents over the runs; fusion takes at most 2^32 - 1 per query"),
            ));
        }
        let bytes: usize = runs.iter().map(|run| run.id_bytes(run.row(q))).sum();
        let mut input = FusionQuery::default();
        let what = "the documents of one query";
        reserve(&mut input.members, total, what)?;
        reserve(&mut input.scores, total, what)?;
        reserve(&mut input.ends, total, what)?;
        reserve(&mut input.text, bytes, what)?;
        reserve(&mut input.run_ends, runs.len(), what)?;
        let mut index: FxHashMap<&[u8], u32> = FxHashMap::default();
        index
            .try_reserve(total)
            .map_err(|_| out_of_memory(format!("{what} ({total} entries)")))?;
        // `last_run[c]`: the last run that ranked candidate `c` (a run lists a document once).
        let mut last_run: Vec<usize> = Vec::new();
        reserve(&mut last_run, total, what)?;
        for (r, run) in runs.iter().enumerate() {
            for i in run.row(q) {
                let id = run.id(i);
                let next = input.ends.len() as u32;
                let c = *index.entry(id).or_insert_with(|| {
                    input.text.extend_from_slice(id);
                    input.ends.push(input.text.len());
                    last_run.push(usize::MAX);
                    next
                });
                if last_run[c as usize] == r {
                    return Err(CoreError::query(
                        q,
                        format!(
                            "run {r}: document '{}' is listed twice; a run scores each \
                             document once",
                            String::from_utf8_lossy(id)
                        ),
                    ));
                }
                last_run[c as usize] = r;
                input.members.push(c);
                input.scores.push(run.scores[i]);
            }
            input.run_ends.push(input.members.len());
        }
        for r in 0..runs.len() {
            let range = input.run(r);
            keyed.clear();
            reserve(keyed, range.len(), what)?;
            keyed.extend(
                input.members[range.clone()]
                    .iter()
                    .zip(&input.scores[range.clone()])
                    .map(|(&c, &s)| (descending_key(s), c)),
            );
            sort_keyed(keyed, |c| input.id(c));
            for (slot, &(key, c)) in range.zip(keyed.iter()) {
                input.members[slot] = c;
                input.scores[slot] = score_of_key(key);
            }
        }
        Ok(input)
    }

    fn n_candidates(&self) -> usize {
        self.ends.len()
    }

    fn id(&self, c: u32) -> &[u8] {
        let c = c as usize;
        let start = if c == 0 { 0 } else { self.ends[c - 1] };
        &self.text[start..self.ends[c]]
    }

    fn run(&self, r: usize) -> std::ops::Range<usize> {
        let start = if r == 0 { 0 } else { self.run_ends[r - 1] };
        start..self.run_ends[r]
    }
}

impl FusionInput {
    /// Read `runs` (aligned by query) for fusion, in parallel over queries. Refuses runs that
    /// are not aligned, a score that is not finite (naming run, query and document) and a
    /// document listed twice in one run's query.
    pub fn new(runs: &[RunRows]) -> CoreResult<Self> {
        let n_queries = check_runs(runs)?;
        let queries = (0..n_queries)
            .into_par_iter()
            .map_init(Vec::new, |keyed, q| FusionQuery::new(runs, q, keyed))
            .collect::<CoreResult<Vec<_>>>()?;
        Ok(FusionInput {
            n_runs: runs.len(),
            queries,
        })
    }

    pub fn n_queries(&self) -> usize {
        self.queries.len()
    }

    pub fn n_runs(&self) -> usize {
        self.n_runs
    }
}

/// trec_eval's order of two scored documents: score descending, then id byte-wise descending
/// (the reference the kernel's integer sorts are tested against).
#[cfg(test)]
fn trec_cmp(a: (&[u8], f64), b: (&[u8], f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1)
        .then_with(|| b.0.cmp(a.0))
        .then(std::cmp::Ordering::Equal)
}

/// A key whose ascending order is trec order's score part (`total_cmp` descending): sorting
/// plain integers avoids the indirect id and score lookups of a comparator.
fn descending_key(score: f64) -> u64 {
    let bits = score.to_bits();
    // total_cmp's order as unsigned integers (IEEE 754 bits, sign-magnitude made monotone).
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// The score whose [`descending_key`] is `key` (the key is a bijection of the bits).
fn score_of_key(key: u64) -> f64 {
    let ascending = !key;
    let bits = if ascending >> 63 == 1 {
        ascending & !(1 << 63)
    } else {
        !ascending
    };
    f64::from_bits(bits)
}

/// Sort `(descending_key(score), candidate)` pairs into trec order: by key, then each run of
/// equal scores by id descending (`id(c)`: candidate `c`'s id; ids are compared only where
/// scores tie). The same order as sorting `(id, score)` with [`trec_cmp`] (a total order: equal
/// elements are indistinguishable). Pairs already in that order (a run written best first, as
/// runs are) are checked in one pass and left as they are. Sorts in place (no allocation).
fn sort_keyed<'a>(keyed: &mut [(u64, u32)], id: impl Fn(u32) -> &'a [u8]) {
    let in_order = keyed
        .windows(2)
        .all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && id(w[0].1) > id(w[1].1)));
    if in_order {
        return;
    }
    keyed.sort_unstable_by_key(|k| k.0);
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        if end - start > 1 {
            keyed[start..end].sort_unstable_by(|a, b| id(b.1).cmp(id(a.1)));
        }
        start = end;
    }
}

fn check_finite(runs: &[RunRows]) -> CoreResult<()> {
    for (r, run) in runs.iter().enumerate() {
        if let Some(i) = run.scores.iter().position(|s| !s.is_finite()) {
            let q = run.offsets.partition_point(|&o| o <= i).saturating_sub(1);
            return Err(CoreError::query(
                q,
                format!(
                    "run {r}: document '{}' has score {}; fusion needs finite scores (drop or \
                     replace the document)",
                    String::from_utf8_lossy(run.id(i)),
                    run.scores[i]
                ),
            ));
        }
    }
    Ok(())
}

fn check_runs(runs: &[RunRows]) -> CoreResult<usize> {
    let Some(first) = runs.first() else {
        return Err(CoreError::argument("runs", "no runs given"));
    };
    let n_queries = first.n_queries();
    for (r, run) in runs.iter().enumerate() {
        if run.n_queries() != n_queries
            || run.ends.len() != run.scores.len()
            || run.offsets.last().copied() != Some(run.ends.len())
            || run.offsets.windows(2).any(|w| w[0] > w[1])
            || run.ends.windows(2).any(|w| w[0] > w[1])
            || run.ends.last().is_some_and(|&e| e != run.text.len())
        {
            return Err(CoreError::argument(
                "runs",
                format!("run {r} is not aligned with run 0 (internal error, please report)"),
            ));
        }
    }
    check_finite(runs)?;
    Ok(n_queries)
}

/// Normalise `scores` (a run's scores of one query, in trec order) in place. `n_candidates` is
/// the query's number of candidates (borda).
fn normalise(norm: Norm, scores: &mut [f64], n_candidates: usize) {
    let n = scores.len();
    if n == 0 {
        return;
    }
    let min = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match norm {
        Norm::None => {}
        Norm::MinMax => {
            let d = (max - min).max(MIN_DENOMINATOR);
            scores.iter_mut().for_each(|s| *s = (*s - min) / d);
        }
        Norm::MinMaxInverted => {
            let d = (max - min).max(MIN_DENOMINATOR);
            scores.iter_mut().for_each(|s| *s = (max - *s) / d);
        }
        Norm::Max => {
            let d = max.max(MIN_DENOMINATOR);
            scores.iter_mut().for_each(|s| *s /= d);
        }
        Norm::Sum => {
            // The sums follow the run's order, as ranx's do.
            let sum: f64 = scores.iter().sum();
            let d = (sum - min * n as f64).max(MIN_DENOMINATOR);
            scores.iter_mut().for_each(|s| *s = (*s - min) / d);
        }
        Norm::Zmuv => {
            let sum: f64 = scores.iter().sum();
            let mean = sum / n as f64;
            let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n as f64;
            let d = var.sqrt().max(MIN_DENOMINATOR);
            scores.iter_mut().for_each(|s| *s = (*s - mean) / d);
        }
        Norm::Rank => {
            for (p, s) in scores.iter_mut().enumerate() {
                *s = 1.0 - p as f64 / n as f64;
            }
        }
        Norm::Borda => {
            for (p, s) in scores.iter_mut().enumerate() {
                *s = 1.0 - p as f64 / n_candidates as f64;
            }
        }
    }
}

/// One worker's buffers, reused from query to query (a fusion allocates per worker, not per
/// query, and every reservation is fallible).
#[derive(Default)]
struct Scratch {
    /// Run `r`'s normalised value of candidate `c` at `r * n + c` (NaN: not ranked by `r`).
    values: Vec<f64>,
    /// Run `r`'s position of candidate `c` at `r * n + c` ([`NOT_RANKED`]: not ranked).
    positions: Vec<u32>,
    /// The number of candidates each run ranks (after normalisation).
    lengths: Vec<usize>,
    normalised: Vec<f64>,
    keyed: Vec<(u64, u32)>,
    fused: Vec<f64>,
    counts: Vec<usize>,
    /// One candidate's values over the runs (CombMED).
    median_values: Vec<f64>,
    order: Vec<usize>,
    buffer: Vec<usize>,
}

/// Each run's normalised values of query `query`'s candidates and (when `with_positions`) their
/// positions, into `s`. The runs are stored in trec order, so the positions are that order
/// when the normalised values keep it (a monotone normalisation without new ties), checked
/// pair by pair; otherwise the run's candidates are sorted by normalised value.
fn view(
    query: &FusionQuery,
    n_runs: usize,
    norm: Norm,
    with_positions: bool,
    s: &mut Scratch,
) -> CoreResult<()> {
    let n = query.n_candidates();
    let cells = n
        .checked_mul(n_runs)
        .ok_or_else(|| out_of_memory("the candidates of one query times the runs"))?;
    let what = "one query's candidates times the runs";
    refill(&mut s.values, cells, f64::NAN, what)?;
    if with_positions {
        refill(&mut s.positions, cells, NOT_RANKED, what)?;
    }
    s.lengths.clear();
    reserve(&mut s.lengths, n_runs, what)?;
    for r in 0..n_runs {
        let range = query.run(r);
        let members = &query.members[range.clone()];
        s.normalised.clear();
        reserve(&mut s.normalised, members.len(), what)?;
        s.normalised.extend_from_slice(&query.scores[range]);
        normalise(norm, &mut s.normalised, n);
        let row = &mut s.values[r * n..(r + 1) * n];
        for (&c, &v) in members.iter().zip(&s.normalised) {
            row[c as usize] = v;
        }
        if norm == Norm::Borda {
            let unranked = 0.5 - (members.len() as f64 - 1.0) / (2.0 * n as f64);
            row.iter_mut()
                .filter(|v| v.is_nan())
                .for_each(|v| *v = unranked);
        }
        if with_positions {
            let positions = &mut s.positions[r * n..(r + 1) * n];
            // Strictly increasing in trec order: no new tie.
            let order_holds = norm != Norm::Borda
                && members
                    .windows(2)
                    .zip(s.normalised.windows(2))
                    .all(|(m, v)| {
                        let (a, b) = (descending_key(v[0]), descending_key(v[1]));
                        a < b || (a == b && query.id(m[0]) > query.id(m[1]))
                    });
            if order_holds {
                for (p, &c) in members.iter().enumerate() {
                    positions[c as usize] = p as u32;
                }
                s.lengths.push(members.len());
            } else {
                // The run's documents (all candidates after borda) by normalised score.
                s.keyed.clear();
                reserve(&mut s.keyed, n, what)?;
                s.keyed.extend(
                    (0..n)
                        .filter(|&c| !row[c].is_nan())
                        .map(|c| (descending_key(row[c]), c as u32)),
                );
                sort_keyed(&mut s.keyed, |c| query.id(c));
                for (p, &(_, c)) in s.keyed.iter().enumerate() {
                    positions[c as usize] = p as u32;
                }
                s.lengths.push(s.keyed.len());
            }
        }
    }
    Ok(())
}

/// Fuse `runs` (aligned by query) with `method` after normalising each with `norm`: reads them
/// into a [`FusionInput`] first ([`fuse_input`] fuses one again).
pub fn fuse(runs: &[RunRows], norm: Norm, method: &Method) -> CoreResult<Fused> {
    fuse_input(&FusionInput::new(runs)?, norm, method)
}

/// Fuse prepared runs with `method` after normalising each with `norm`. Every buffer whose size
/// follows the input is reserved fallibly: a fusion too big for the memory left is
/// [`CoreError::OutOfMemory`], not an abort.
pub fn fuse_input(input: &FusionInput, norm: Norm, method: &Method) -> CoreResult<Fused> {
    check_method(method, input.n_runs)?;
    let with_positions = method_needs_positions(method);
    let per_query: Vec<Vec<(u32, f64)>> = input
        .queries
        .par_iter()
        .map_init(Scratch::default, |s, query| {
            view(query, input.n_runs, norm, with_positions, s)?;
            fuse_query(query, input.n_runs, method, s)?;
            let n = query.n_candidates();
            s.keyed.clear();
            reserve(&mut s.keyed, n, "one query's fused run")?;
            s.keyed.extend(
                s.fused
                    .iter()
                    .enumerate()
                    .map(|(c, &v)| (descending_key(v), c as u32)),
            );
            sort_keyed(&mut s.keyed, |c| query.id(c));
            let mut docs = Vec::new();
            reserve(&mut docs, n, "one query's fused run")?;
            docs.extend(s.keyed.iter().map(|&(key, c)| (c, score_of_key(key))));
            Ok(docs)
        })
        .collect::<CoreResult<_>>()?;
    let total: usize = per_query.iter().map(Vec::len).sum();
    let bytes: usize = per_query
        .iter()
        .zip(&input.queries)
        .map(|(docs, query)| docs.iter().map(|&(c, _)| query.id(c).len()).sum::<usize>())
        .sum();
    let what = "the fused run";
    let mut out = RunRows::new();
    reserve(&mut out.text, bytes, what)?;
    reserve(&mut out.ends, total, what)?;
    reserve(&mut out.scores, total, what)?;
    reserve(&mut out.offsets, per_query.len(), what)?;
    for (docs, query) in per_query.iter().zip(&input.queries) {
        for &(c, score) in docs {
            out.push_doc(query.id(c), score);
        }
        out.end_query();
    }
    Ok(out)
}
