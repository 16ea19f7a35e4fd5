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

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::{CoreError, CoreResult};

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

    pub fn id(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    fn row(&self, q: usize) -> std::ops::Range<usize> {
        self.offsets[q]..self.offsets[q + 1]
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

/// A fusion method with its parameters (ranx's names).
#[derive(Clone, Debug)]
pub enum Method {
    CombSum,
    CombMnz,
    CombMax,
    CombMin,
    CombMed,
    CombAnz,
    CombGmnz { gamma: f64 },
    Wsum { weights: Vec<f64> },
    Wmnz { weights: Vec<f64> },
    Mixed { weights: Vec<f64> },
    Rrf { k: f64 },
    Isr,
    LogIsr,
    LognIsr { sigma: f64 },
    BordaFuse,
    WeightedBordaFuse { weights: Vec<f64> },
    Condorcet,
    WeightedCondorcet { weights: Vec<f64> },
    Rbc { phi: f64 },
    PosFuse { probs: Vec<Vec<f64>> },
    ProbFuse { probs: Vec<Vec<f64>> },
    SegFuse { probs: Vec<Vec<f64>> },
    SlideFuse { probs: Vec<Vec<f64>>, w: usize },
    MapFuse { map_scores: Vec<f64> },
    BayesFuse { log_odds: Vec<Vec<f64>> },
}

/// What is learnt from training judgments (ranx's `*_train` functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Training {
    /// Probability of relevance at each position (PosFuse, SlideFuse).
    PositionProbs,
    /// Mean precision of each of `n_segments` segments of each ranking (ProbFuse).
    ProbFuse { n_segments: usize },
    /// Mean precision of SegFuse's exponentially growing segments.
    SegFuse,
    /// Log odds of relevance of BayesFuse's rank segments.
    BayesFuse,
    /// Mean average precision of each run (MAPFuse).
    MeanAveragePrecision,
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
    /// `id_rank[c]`: candidate `c`'s place when the candidates are sorted by id descending.
    id_rank: Vec<u32>,
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
        // Each candidate's place in id descending order: ties in trec order compare these
        // numbers, not the ids' bytes.
        let n = input.ends.len();
        let mut by_id: Vec<u32> = Vec::new();
        reserve(&mut by_id, n, what)?;
        by_id.extend(0..n as u32);
        by_id.sort_unstable_by(|&a, &b| input.id(b).cmp(input.id(a)));
        refill(&mut input.id_rank, n, 0, what)?;
        for (rank, &c) in by_id.iter().enumerate() {
            input.id_rank[c as usize] = rank as u32;
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
            sort_keyed(keyed, &input.id_rank);
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
/// equal scores by id descending, which `id_rank` gives (a candidate's place in id descending
/// order). The same order as sorting `(id, score)` with [`trec_cmp`] (a total order: equal
/// elements are indistinguishable). Sorts in place (no allocation).
fn sort_keyed(keyed: &mut [(u64, u32)], id_rank: &[u32]) {
    keyed.sort_unstable_by_key(|k| k.0);
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        if end - start > 1 {
            keyed[start..end].sort_unstable_by_key(|k| id_rank[k.1 as usize]);
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

fn check_weights(argument: &'static str, weights: &[f64], n_runs: usize) -> CoreResult<()> {
    if weights.len() != n_runs {
        return Err(CoreError::argument(
            argument,
            format!(
                "{} values for {n_runs} runs; give one per run, in the order of the runs",
                weights.len()
            ),
        ));
    }
    if let Some(w) = weights.iter().find(|w| !w.is_finite()) {
        return Err(CoreError::argument(
            argument,
            format!("{w} is not a finite number"),
        ));
    }
    Ok(())
}

fn check_per_run<T>(argument: &'static str, values: &[T], n_runs: usize) -> CoreResult<()> {
    if values.len() != n_runs {
        return Err(CoreError::argument(
            argument,
            format!(
                "{} entries for {n_runs} runs; train on the same runs, in the same order",
                values.len()
            ),
        ));
    }
    Ok(())
}

fn check_method(method: &Method, n_runs: usize) -> CoreResult<()> {
    let finite = |argument: &'static str, x: f64| {
        if x.is_finite() {
            Ok(())
        } else {
            Err(CoreError::argument(argument, format!("{x} is not finite")))
        }
    };
    match method {
        Method::Wsum { weights }
        | Method::Wmnz { weights }
        | Method::Mixed { weights }
        | Method::WeightedBordaFuse { weights }
        | Method::WeightedCondorcet { weights } => check_weights("weights", weights, n_runs),
        Method::MapFuse { map_scores } => check_weights("map_scores", map_scores, n_runs),
        Method::CombGmnz { gamma } => finite("gamma", *gamma),
        Method::Rrf { k } => {
            finite("k", *k)?;
            if *k < 0.0 {
                return Err(CoreError::argument(
                    "k",
                    format!("{k} is negative; RRF's k is 0 or more (60 in Cormack et al.)"),
                ));
            }
            Ok(())
        }
        Method::LognIsr { sigma } => {
            if !(0.0..=1.0).contains(sigma) {
                return Err(CoreError::argument(
                    "sigma",
                    format!("{sigma} is not in [0, 1]"),
                ));
            }
            Ok(())
        }
        Method::Rbc { phi } => {
            if !(0.0..=1.0).contains(phi) {
                return Err(CoreError::argument(
                    "phi",
                    format!("{phi} is not in [0, 1]"),
                ));
            }
            Ok(())
        }
        Method::PosFuse { probs }
        | Method::ProbFuse { probs }
        | Method::SegFuse { probs }
        | Method::SlideFuse { probs, .. } => {
            check_per_run("probs", probs, n_runs)?;
            if matches!(method, Method::ProbFuse { .. }) && probs.iter().any(|p| p.is_empty()) {
                return Err(CoreError::argument(
                    "probs",
                    "ProbFuse needs at least one segment probability per run",
                ));
            }
            if probs.iter().flatten().any(|p| !p.is_finite()) {
                return Err(CoreError::argument("probs", "a probability is not finite"));
            }
            Ok(())
        }
        Method::BayesFuse { log_odds } => {
            check_per_run("log_odds", log_odds, n_runs)?;
            if log_odds.iter().flatten().any(|p| !p.is_finite()) {
                return Err(CoreError::argument("log_odds", "a log odd is not finite"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
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

/// Whether `method` reads positions (the score-combining methods read only values).
fn method_needs_positions(method: &Method) -> bool {
    !matches!(
        method,
        Method::CombSum
            | Method::CombMnz
            | Method::CombAnz
            | Method::CombGmnz { .. }
            | Method::CombMax
            | Method::CombMin
            | Method::CombMed
            | Method::Wsum { .. }
            | Method::Wmnz { .. }
            | Method::Mixed { .. }
    )
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
                        a < b
                            || (a == b
                                && query.id_rank[m[0] as usize] < query.id_rank[m[1] as usize])
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
                sort_keyed(&mut s.keyed, &query.id_rank);
                for (p, &(_, c)) in s.keyed.iter().enumerate() {
                    positions[c as usize] = p as u32;
                }
                s.lengths.push(s.keyed.len());
            }
        }
    }
    Ok(())
}

/// A per-position score of a rank-based method (`p`: 0-based position among `n` documents;
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
    order.sort_unstable_by_key(|&c| query.id_rank[c]);
    refill(buffer, n, 0, what)?;
    merge_sort(order, buffer, &before);
    Ok(())
}

/// Stable top-down merge sort taking the left element when `before(left, right)`; unlike the
/// standard library's sorts it is defined (and never panics) for a comparison that is not a
/// total order.
fn merge_sort(items: &mut [usize], buffer: &mut [usize], before: &dyn Fn(usize, usize) -> bool) {
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
fn fuse_query(
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
            sort_keyed(&mut s.keyed, &query.id_rank);
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

/// Relevant documents of each training query (grade >= 1), in one buffer: `offsets[q]..` over
/// `ends`, as in `RunRows` (scores unused).
pub type Relevant = RunRows;

/// Learn `training` from `runs` (aligned by query with `relevant`) normalised with `norm`: one
/// vector per run (for MAPFuse, one value per run).
pub fn train(
    input: &FusionInput,
    relevant: &Relevant,
    norm: Norm,
    training: Training,
) -> CoreResult<Vec<Vec<f64>>> {
    let n_queries = input.n_queries();
    if relevant.n_queries() != n_queries {
        return Err(CoreError::argument(
            "qrels",
            "not aligned with the runs (internal error, please report)",
        ));
    }
    if let Training::ProbFuse { n_segments: 0 } = training {
        return Err(CoreError::argument("n_segments", "must be 1 or more"));
    }
    // Per query, per run: the hit list of the run's ranking (after normalisation).
    let hits: Vec<Vec<Vec<bool>>> = input
        .queries
        .par_iter()
        .enumerate()
        .map_init(
            Scratch::default,
            |s, (q, query)| -> CoreResult<Vec<Vec<bool>>> {
                view(query, input.n_runs, norm, true, s)?;
                let rel: rustc_hash::FxHashSet<&[u8]> =
                    relevant.row(q).map(|i| relevant.id(i)).collect();
                let n = query.n_candidates();
                Ok((0..input.n_runs)
                    .map(|r| {
                        let mut list = vec![false; s.lengths[r]];
                        for c in 0..n {
                            let p = s.positions[r * n + c];
                            if p != NOT_RANKED {
                                list[p as usize] = rel.contains(query.id(c as u32));
                            }
                        }
                        list
                    })
                    .collect())
            },
        )
        .collect::<CoreResult<_>>()?;
    let n_relevant: Vec<usize> = (0..n_queries).map(|q| relevant.row(q).len()).collect();
    Ok((0..input.n_runs)
        .map(|r| {
            let lists: Vec<&[bool]> = hits.iter().map(|h| h[r].as_slice()).collect();
            match training {
                Training::PositionProbs => position_probs(&lists),
                Training::ProbFuse { n_segments } => probfuse_probs(&lists, n_segments),
                Training::SegFuse => segfuse_probs(&lists),
                Training::BayesFuse => bayesfuse_log_odds(&lists),
                Training::MeanAveragePrecision => vec![mean_average_precision(&lists, &n_relevant)],
            }
        })
        .collect())
}

fn count(hits: &[bool]) -> f64 {
    hits.iter().filter(|&&h| h).count() as f64
}

/// Share of the queries ranking a relevant document at each position, over the queries whose
/// ranking reaches it.
fn position_probs(lists: &[&[bool]]) -> Vec<f64> {
    let len = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    let mut reached = vec![0.0; len];
    let mut relevant = vec![0.0; len];
    for list in lists {
        for (i, &h) in list.iter().enumerate() {
            reached[i] += 1.0;
            relevant[i] += f64::from(u8::from(h));
        }
    }
    relevant.iter().zip(&reached).map(|(a, b)| a / b).collect()
}

fn probfuse_probs(lists: &[&[bool]], n_segments: usize) -> Vec<f64> {
    let mut probs = vec![0.0; n_segments];
    for list in lists {
        let size = list.len().div_ceil(n_segments);
        for (k, prob) in probs.iter_mut().enumerate() {
            let start = (k * size).min(list.len());
            let end = ((k + 1) * size).min(list.len());
            if end > start {
                *prob += count(&list[start..end]) / (end - start) as f64;
            }
        }
    }
    let n = lists.len() as f64;
    probs.iter().map(|p| p / n).collect()
}

fn segfuse_probs(lists: &[&[bool]]) -> Vec<f64> {
    let mut probs = vec![0.0; SEGFUSE_BOUNDS.len() - 1];
    for list in lists {
        for (k, prob) in probs.iter_mut().enumerate() {
            let (start, end) = (SEGFUSE_BOUNDS[k], SEGFUSE_BOUNDS[k + 1]);
            let hits = count(&list[start.min(list.len())..end.min(list.len())]);
            *prob += hits / (end - start) as f64;
        }
    }
    let n = lists.len() as f64;
    probs.iter().map(|p| p / n).collect()
}

fn bayesfuse_log_odds(lists: &[&[bool]]) -> Vec<f64> {
    let last = BAYESFUSE_CUT_OFFS[BAYESFUSE_CUT_OFFS.len() - 1];
    let mut odds = vec![0.0; last];
    let n = lists.len() as f64;
    for w in BAYESFUSE_CUT_OFFS.windows(2) {
        let (start, end) = (w[0], w[1]);
        let mut precision = 0.0;
        for list in lists {
            let hits = count(&list[start.min(list.len())..end.min(list.len())]);
            precision += hits / (end - start) as f64 / n;
        }
        if precision == 0.0 {
            precision += BAYESFUSE_FLOOR;
        }
        let mut complement = 1.0 - precision;
        if complement == 0.0 {
            complement += BAYESFUSE_FLOOR;
        }
        let value = (precision / complement).ln();
        odds[start..end].iter_mut().for_each(|o| *o = value);
    }
    odds
}

/// Mean over the training queries of average precision (relevant retrieved at each rank over
/// the query's number of relevant documents; 0 for a query with none), as trec_eval's `map`.
fn mean_average_precision(lists: &[&[bool]], n_relevant: &[usize]) -> f64 {
    if lists.is_empty() {
        return 0.0;
    }
    let total: f64 = lists
        .iter()
        .zip(n_relevant)
        .map(|(list, &n_rel)| {
            if n_rel == 0 {
                return 0.0;
            }
            let mut found = 0.0;
            let mut sum = 0.0;
            for (i, &h) in list.iter().enumerate() {
                if h {
                    found += 1.0;
                    sum += found / (i as f64 + 1.0);
                }
            }
            sum / n_rel as f64
        })
        .sum();
    total / lists.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rows(queries: &[&[(&str, f64)]]) -> RunRows {
        let mut run = RunRows::new();
        for docs in queries {
            for (id, s) in *docs {
                run.push_doc(id.as_bytes(), *s);
            }
            run.end_query();
        }
        run
    }

    fn query(fused: &Fused, q: usize) -> Vec<(String, f64)> {
        fused
            .row(q)
            .map(|i| {
                (
                    String::from_utf8(fused.id(i).to_vec()).unwrap(),
                    fused.scores[i],
                )
            })
            .collect()
    }

    #[test]
    fn rrf_of_two_runs() {
        let a = rows(&[&[("d1", 3.0), ("d2", 2.0)]]);
        let b = rows(&[&[("d2", 9.0), ("d3", 1.0)]]);
        let fused = fuse(&[a, b], Norm::None, &Method::Rrf { k: 60.0 }).unwrap();
        let got = query(&fused, 0);
        assert_eq!(got[0].0, "d2");
        assert!((got[0].1 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-15);
        // d1 is first in run a (1/61), d3 second in run b (1/62).
        assert_eq!(got[1].0, "d1");
        assert_eq!(got[2].0, "d3");
    }

    #[test]
    fn ties_break_by_doc_id_descending() {
        let a = rows(&[&[("a", 1.0), ("b", 1.0), ("c", 1.0)]]);
        let b = rows(&[&[]]);
        let fused = fuse(&[a, b], Norm::None, &Method::CombSum).unwrap();
        let ids: Vec<String> = query(&fused, 0).into_iter().map(|d| d.0).collect();
        assert_eq!(ids, ["c", "b", "a"]);
    }

    #[test]
    fn non_finite_score_is_an_error_naming_run_and_document() {
        let a = rows(&[&[("a", f64::NAN)]]);
        let b = rows(&[&[("a", 1.0)]]);
        let err = fuse(&[b, a], Norm::None, &Method::CombSum).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("run 1") && text.contains("'a'") && text.contains("NaN"));
    }

    #[test]
    fn a_document_listed_twice_in_one_run_is_an_error() {
        let a = rows(&[&[("a", 1.0), ("b", 2.0), ("a", 3.0)]]);
        let b = rows(&[&[("a", 1.0)]]);
        let err = FusionInput::new(&[b, a]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("run 1") && text.contains("'a'") && text.contains("twice"));
    }

    #[test]
    fn score_of_key_inverts_descending_key() {
        for s in [
            0.0,
            -0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            -1e-310,
            f64::MAX,
            f64::MIN,
        ] {
            assert_eq!(score_of_key(descending_key(s)).to_bits(), s.to_bits());
        }
    }

    #[test]
    fn the_order_of_a_run_s_documents_does_not_change_the_fusion() {
        let a = rows(&[&[("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 0.5)]]);
        let a_reversed = rows(&[&[("d", 0.5), ("c", 2.0), ("b", 2.0), ("a", 1.0)]]);
        let b = rows(&[&[("c", 9.0), ("e", 1.0)]]);
        for method in [Method::Rrf { k: 60.0 }, Method::CombMnz, Method::BordaFuse] {
            for norm in [Norm::None, Norm::MinMax, Norm::Sum, Norm::Rank] {
                let x = fuse(&[a.clone(), b.clone()], norm, &method).unwrap();
                let y = fuse(&[a_reversed.clone(), b.clone()], norm, &method).unwrap();
                assert_eq!(query(&x, 0), query(&y, 0), "{method:?} {norm:?}");
            }
        }
    }

    #[test]
    fn weights_count_is_checked() {
        let a = rows(&[&[("a", 1.0)]]);
        let b = rows(&[&[("a", 1.0)]]);
        let err = fuse(&[a, b], Norm::None, &Method::Wsum { weights: vec![1.0] }).unwrap_err();
        assert!(err.to_string().contains("1 values for 2 runs"));
    }

    #[test]
    fn merge_sort_handles_a_cycle_without_panicking() {
        // a > b, b > c, c > a: a cyclic "order".
        let rank = |x: usize| x;
        let before = |x: usize, y: usize| (rank(x) + 1) % 3 != rank(y);
        let mut items = vec![0, 1, 2];
        let mut buffer = vec![0; 3];
        merge_sort(&mut items, &mut buffer, &before);
        let mut sorted = items.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2]);
    }

    /// A naive CombMNZ over dicts, the reference for the kernel.
    fn naive_mnz(runs: &[Vec<(String, f64)>]) -> Vec<(String, f64)> {
        let mut acc: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
        for run in runs {
            for (d, s) in run {
                let e = acc.entry(d.clone()).or_insert((0.0, 0));
                e.0 += s;
                e.1 += 1;
            }
        }
        let mut out: Vec<(String, f64)> = acc
            .into_iter()
            .map(|(d, (s, k))| (d, s * k as f64))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
        out
    }

    /// RRF by its definition: each run's documents by normalised score in trec order, 1 / (k +
    /// position) summed, the fused list in trec order.
    fn naive_rrf(runs: &[Vec<(String, f64)>], k: f64, min_max: bool) -> Vec<(String, f64)> {
        let mut sums: std::collections::BTreeMap<String, f64> = Default::default();
        for run in runs {
            let (lo, hi) = run
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| {
                    (a.min(d.1), b.max(d.1))
                });
            let mut docs: Vec<(String, f64)> = run
                .iter()
                .map(|(d, s)| {
                    let v = if min_max {
                        (s - lo) / (hi - lo).max(MIN_DENOMINATOR)
                    } else {
                        *s
                    };
                    (d.clone(), v)
                })
                .collect();
            docs.sort_by(|a, b| trec_cmp((a.0.as_bytes(), a.1), (b.0.as_bytes(), b.1)));
            for (p, (d, _)) in docs.iter().enumerate() {
                *sums.entry(d.clone()).or_insert(0.0) += 1.0 / (k + p as f64 + 1.0);
            }
        }
        let mut out: Vec<(String, f64)> = sums.into_iter().collect();
        out.sort_by(|a, b| trec_cmp((a.0.as_bytes(), a.1), (b.0.as_bytes(), b.1)));
        out
    }

    proptest! {
        #[test]
        fn sort_keyed_is_trec_cmp_order(
            items in prop::collection::vec(
                ("[a-c]{0,2}", prop::sample::select(vec![
                    -0.0, 0.0, 1.0, -1.0, 0.5, 1e-310, -1e-310, 3.0e300, -3.0e300,
                    f64::MIN_POSITIVE, 2.0, 2.0000000000000004,
                ])), 0..40)
        ) {
            let docs: Vec<(&[u8], f64)> = items.iter().map(|(d, s)| (d.as_bytes(), *s)).collect();
            let mut expected = docs.clone();
            expected.sort_by(|a, b| trec_cmp(*a, *b));
            let mut keyed: Vec<(u64, u32)> = docs
                .iter()
                .enumerate()
                .map(|(i, d)| (descending_key(d.1), i as u32))
                .collect();
            let mut by_id: Vec<usize> = (0..docs.len()).collect();
            by_id.sort_by(|&a, &b| docs[b].0.cmp(docs[a].0));
            let mut id_rank = vec![0u32; docs.len()];
            for (rank, &i) in by_id.iter().enumerate() {
                id_rank[i] = rank as u32;
            }
            sort_keyed(&mut keyed, &id_rank);
            prop_assert_eq!(keyed.len(), expected.len());
            for (&(key, i), e) in keyed.iter().zip(&expected) {
                prop_assert_eq!(docs[i as usize].0, e.0);
                prop_assert_eq!(score_of_key(key).to_bits(), e.1.to_bits());
            }
        }

        #[test]
        fn rrf_matches_its_definition(
            runs in prop::collection::vec(
                prop::collection::btree_map("[a-f]{1,2}", -5i32..5, 1..8), 2..4),
            min_max in any::<bool>(),
        ) {
            let runs: Vec<Vec<(String, f64)>> = runs
                .into_iter()
                .map(|m| m.into_iter().map(|(d, s)| (d, f64::from(s))).collect())
                .collect();
            let rows_: Vec<RunRows> = runs
                .iter()
                .map(|r| {
                    let docs: Vec<(&str, f64)> = r.iter().map(|(d, s)| (d.as_str(), *s)).collect();
                    rows(&[&docs])
                })
                .collect();
            let norm = if min_max { Norm::MinMax } else { Norm::None };
            let fused = fuse(&rows_, norm, &Method::Rrf { k: 60.0 }).unwrap();
            prop_assert_eq!(query(&fused, 0), naive_rrf(&runs, 60.0, min_max));
        }
    }

    proptest! {
        #[test]
        fn comb_mnz_matches_a_naive_reference(
            runs in prop::collection::vec(
                prop::collection::btree_map("[a-f]{1,2}", -5i32..5, 0..8), 2..4)
        ) {
            let runs: Vec<Vec<(String, f64)>> = runs
                .into_iter()
                .map(|m| m.into_iter().map(|(d, s)| (d, f64::from(s))).collect())
                .collect();
            let rows_: Vec<RunRows> = runs
                .iter()
                .map(|r| {
                    let docs: Vec<(&str, f64)> = r.iter().map(|(d, s)| (d.as_str(), *s)).collect();
                    rows(&[&docs])
                })
                .collect();
            let fused = fuse(&rows_, Norm::None, &Method::CombMnz).unwrap();
            prop_assert_eq!(query(&fused, 0), naive_mnz(&runs));
        }
    }
}
