//! BM25 over a sparse term matrix: the postings of every term (documents and term frequencies,
//! term-major CSR) scored for a whole query set in one call, each query keeping its best `k`
//! documents.
//!
//! Scoring is term at a time: for every distinct query term, its postings add their gain to a
//! per-thread accumulator of `n_docs` scores. A query that reads few postings keeps the list of
//! the documents it touched and ranks only those; one that reads postings of more than an
//! eighth of the corpus scans the accumulator instead. The best `k` are kept in a heap. When a
//! call reads more postings than the corpus has, the gain of every posting is computed once
//! first. The queries of a call are shared between the threads of the pool. Every path sums the
//! same terms in the same order, so the results do not depend on the path or on the threads.
//!
//! Variants (`N` documents, `df` documents containing the term, `tf` its frequency in the
//! document, `L = 1 - b + b * dl / avgdl` the length normalisation):
//!
//! * `Lucene`: `idf = ln(1 + (N - df + 0.5) / (df + 0.5))` (Lucene's), gain
//!   `idf * tf * (k1 + 1) / (tf + k1 * L)` (the classic numerator, as Lucene before 8.0).
//! * `Okapi`: rank_bm25's `BM25Okapi`: `idf = ln((N - df + 0.5) / (df + 0.5))`, a negative idf
//!   replaced by `0.25 *` the mean idf of the vocabulary; same gain.
//! * `L` (BM25L, Lv and Zhai 2011; Trotman et al. 2014): `idf = ln((N + 1) / (df + 0.5))`,
//!   `c = tf / L`, gain `idf * (k1 + 1) * (c + delta) / (k1 + c + delta)`.
//! * `Plus` (BM25+, Lv and Zhai 2011; Trotman et al. 2014): `idf = ln((N + 1) / df)`, gain
//!   `idf * ((k1 + 1) * tf / (k1 * L + tf) + delta)`.
//!
//! Every occurrence of a term in the query counts. For BM25L and BM25+ the gain of a term is
//! not zero at `tf = 0` (Trotman et al. sum over every query term, as rank_bm25 and bm25s do),
//! so a document's score is `sum over query terms of gain(tf)`, absent terms included; the
//! kernel adds the `tf = 0` part once per query (`floor`) and the difference through the
//! postings. Only documents that contain at least one query term are ranked, and only scores
//! `> 0` and `>= min_score` are kept. Ties are broken by document position.

use rayon::prelude::*;

use crate::csr::Rows;
use crate::{CoreError, CoreResult};

/// The BM25 formula (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Lucene,
    Okapi,
    L,
    Plus,
}

impl Variant {
    /// The names the bindings accept, in the order of the variants.
    pub const NAMES: [&'static str; 4] = ["lucene", "okapi", "bm25l", "bm25plus"];

    pub fn from_name(name: &str) -> CoreResult<Variant> {
        match name {
            "lucene" => Ok(Variant::Lucene),
            "okapi" => Ok(Variant::Okapi),
            "bm25l" => Ok(Variant::L),
            "bm25plus" => Ok(Variant::Plus),
            _ => Err(CoreError::argument(
                "variant",
                format!(
                    "must be one of {}, got {name:?}",
                    Variant::NAMES.map(|n| format!("{n:?}")).join(", ")
                ),
            )),
        }
    }
}

/// rank_bm25's `BM25Okapi` replaces a negative idf by this fraction of the mean idf.
pub const OKAPI_EPSILON: f64 = 0.25;

/// The postings of a corpus, owned (what [`build_postings`] returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Postings {
    /// `n_terms + 1` offsets into `docs` and `tfs`.
    pub offsets: Vec<usize>,
    /// Positions of the documents containing each term, ascending.
    pub docs: Vec<u32>,
    /// The term's frequency in each of those documents (>= 1).
    pub tfs: Vec<u32>,
    /// The number of tokens of every document.
    pub doc_lengths: Vec<u32>,
}

impl Postings {
    pub fn view(&self) -> CoreResult<TermMatrix<'_>> {
        TermMatrix::new(&self.offsets, &self.docs, &self.tfs, &self.doc_lengths)
    }
}

/// Term-major postings of documents given as rows of term ids (one id per token, in order).
/// Every id must be below `n_terms`.
pub fn build_postings(documents: Rows<'_, u32>, n_terms: usize) -> CoreResult<Postings> {
    let n_docs = documents.len();
    if u32::try_from(n_docs).is_err() {
        return Err(CoreError::argument(
            "documents",
            format!(
                "at most {} documents can be indexed, got {n_docs}",
                u32::MAX
            ),
        ));
    }
    let mut doc_lengths = Vec::with_capacity(n_docs);
    // `last[t]` is 1 + the last document counted for term t (0: none yet).
    let mut last = vec![0u32; n_terms];
    let mut doc_freqs = vec![0usize; n_terms];
    for d in 0..n_docs {
        let row = documents.row(d);
        let length = u32::try_from(row.len()).map_err(|_| {
            CoreError::argument(
                "documents",
                format!(
                    "document {d} has {} tokens, more than {}",
                    row.len(),
                    u32::MAX
                ),
            )
        })?;
        doc_lengths.push(length);
        let mark = d as u32 + 1;
        for &term in row {
            let slot = last.get_mut(term as usize).ok_or_else(|| {
                CoreError::argument(
                    "term_ids",
                    format!("document {d} has term id {term}, but there are {n_terms} terms"),
                )
            })?;
            if *slot != mark {
                *slot = mark;
                doc_freqs[term as usize] += 1;
            }
        }
    }
    let mut offsets = Vec::with_capacity(n_terms + 1);
    offsets.push(0usize);
    for &df in &doc_freqs {
        offsets.push(offsets[offsets.len() - 1] + df);
    }
    let nnz = offsets[n_terms];
    let mut docs = vec![0u32; nnz];
    let mut tfs = vec![0u32; nnz];
    let mut cursor = offsets[..n_terms].to_vec();
    // `slot_of[t]` is where the current document's posting of term t is, when `last[t]` says
    // the current document has it.
    let mut slot_of = vec![0usize; n_terms];
    last.iter_mut().for_each(|mark| *mark = 0);
    for d in 0..n_docs {
        let mark = d as u32 + 1;
        for &term in documents.row(d) {
            let t = term as usize;
            if last[t] == mark {
                tfs[slot_of[t]] += 1;
            } else {
                last[t] = mark;
                let slot = cursor[t];
                cursor[t] += 1;
                slot_of[t] = slot;
                docs[slot] = d as u32;
                tfs[slot] = 1;
            }
        }
    }
    Ok(Postings {
        offsets,
        docs,
        tfs,
        doc_lengths,
    })
}

/// A validated view of a corpus' postings: `postings.row(t)` are the positions of the documents
/// containing term `t` (strictly ascending, each below `n_docs`) and `tfs` their frequencies
/// (>= 1 and at most the document's length).
#[derive(Clone, Copy, Debug)]
pub struct TermMatrix<'a> {
    postings: Rows<'a, u32>,
    offsets: &'a [usize],
    docs: &'a [u32],
    tfs: &'a [u32],
    doc_lengths: &'a [u32],
}

impl<'a> TermMatrix<'a> {
    pub fn new(
        offsets: &'a [usize],
        docs: &'a [u32],
        tfs: &'a [u32],
        doc_lengths: &'a [u32],
    ) -> CoreResult<Self> {
        let postings = Rows::new("postings", offsets, docs)?;
        if tfs.len() != docs.len() {
            return Err(CoreError::argument(
                "postings",
                format!("{} term frequencies for {} postings", tfs.len(), docs.len()),
            ));
        }
        let n_docs = doc_lengths.len();
        for t in 0..postings.len() {
            let range = offsets[t]..offsets[t + 1];
            let mut previous: Option<u32> = None;
            for (&d, &tf) in docs[range.clone()].iter().zip(&tfs[range]) {
                let length = *doc_lengths.get(d as usize).ok_or_else(|| {
                    CoreError::argument(
                        "postings",
                        format!("term {t} names document {d}, but there are {n_docs} documents"),
                    )
                })?;
                if previous.is_some_and(|p| p >= d) {
                    return Err(CoreError::argument(
                        "postings",
                        format!("the documents of term {t} must be strictly ascending"),
                    ));
                }
                if tf == 0 || tf > length {
                    return Err(CoreError::argument(
                        "postings",
                        format!(
                            "term {t} occurs {tf} times in document {d} of {length} tokens; a \
                             posting's frequency must lie in 1..=length"
                        ),
                    ));
                }
                previous = Some(d);
            }
        }
        Ok(TermMatrix {
            postings,
            offsets,
            docs,
            tfs,
            doc_lengths,
        })
    }

    pub fn n_terms(&self) -> usize {
        self.postings.len()
    }

    pub fn n_docs(&self) -> usize {
        self.doc_lengths.len()
    }

    fn doc_freq(&self, term: usize) -> usize {
        self.offsets[term + 1] - self.offsets[term]
    }

    /// The postings of `term`: their range in the flat arrays, documents and frequencies.
    fn term(&self, term: usize) -> (std::ops::Range<usize>, &'a [u32], &'a [u32]) {
        let range = self.offsets[term]..self.offsets[term + 1];
        (range.clone(), self.postings.row(term), &self.tfs[range])
    }

    fn average_length(&self) -> f64 {
        let total: u64 = self.doc_lengths.iter().map(|&l| u64::from(l)).sum();
        total as f64 / self.n_docs() as f64
    }
}

/// The idf of every term under `variant` (terms in no document get 0).
pub fn idf(matrix: &TermMatrix<'_>, variant: Variant) -> Vec<f64> {
    let n = matrix.n_docs() as f64;
    let raw = |df: f64| match variant {
        Variant::Lucene => (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
        Variant::Okapi => ((n - df + 0.5) / (df + 0.5)).ln(),
        Variant::L => ((n + 1.0) / (df + 0.5)).ln(),
        Variant::Plus => ((n + 1.0) / df).ln(),
    };
    let mut values: Vec<f64> = (0..matrix.n_terms())
        .map(|t| match matrix.doc_freq(t) {
            0 => 0.0,
            df => raw(df as f64),
        })
        .collect();
    if variant == Variant::Okapi {
        let present = (0..matrix.n_terms()).filter(|&t| matrix.doc_freq(t) > 0);
        let (sum, count) = present.fold((0.0, 0usize), |(s, c), t| (s + values[t], c + 1));
        if count > 0 {
            let floor = OKAPI_EPSILON * sum / count as f64;
            values.iter_mut().for_each(|v| {
                if *v < 0.0 {
                    *v = floor;
                }
            });
        }
    }
    values
}

/// BM25's free parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub k1: f64,
    pub b: f64,
    /// The lower bound of BM25L and BM25+ (ignored by the other variants).
    pub delta: f64,
    pub variant: Variant,
}

impl Params {
    fn check(&self) -> CoreResult<()> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(CoreError::argument(
                "k1",
                format!("must be a finite number >= 0, got {}", self.k1),
            ));
        }
        if !(0.0..=1.0).contains(&self.b) {
            return Err(CoreError::argument(
                "b",
                format!("must lie in [0, 1], got {}", self.b),
            ));
        }
        if !(self.delta.is_finite() && self.delta >= 0.0) {
            return Err(CoreError::argument(
                "delta",
                format!("must be a finite number >= 0, got {}", self.delta),
            ));
        }
        Ok(())
    }

    /// The gain of a term at `tf = 0`, per unit of idf.
    fn floor(&self) -> f64 {
        match self.variant {
            Variant::Lucene | Variant::Okapi => 0.0,
            // (k1 + 1) * delta / (k1 + delta); 0 without a lower bound (delta = 0).
            Variant::L if self.delta == 0.0 => 0.0,
            Variant::L => (self.k1 + 1.0) * self.delta / (self.k1 + self.delta),
            Variant::Plus => self.delta,
        }
    }

    /// The gain of `tf >= 1` occurrences per unit of idf, `length_norm` being `L`.
    fn gain(&self, tf: f64, length_norm: f64) -> f64 {
        match self.variant {
            Variant::Lucene | Variant::Okapi => tf * (self.k1 + 1.0) / (tf + self.k1 * length_norm),
            Variant::L => {
                let c = tf / length_norm;
                (self.k1 + 1.0) * (c + self.delta) / (self.k1 + c + self.delta)
            }
            Variant::Plus => (self.k1 + 1.0) * tf / (self.k1 * length_norm + tf) + self.delta,
        }
    }
}

/// The best documents of every query: `offsets` (`n_queries + 1`) into `docs` (positions) and
/// `scores`, each query's best first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranked {
    pub offsets: Vec<usize>,
    pub docs: Vec<u32>,
    pub scores: Vec<f64>,
}

/// Queries scored together on one thread, sharing one accumulator.
struct Scratch {
    scores: Vec<f64>,
    touched: Vec<u32>,
    seen: Vec<bool>,
    terms: Vec<u32>,
}

impl Scratch {
    fn new(n_docs: usize) -> Self {
        Scratch {
            scores: vec![0.0; n_docs],
            touched: Vec::new(),
            seen: vec![false; n_docs],
            terms: Vec::new(),
        }
    }

    /// Add to a document's sum, remembering the documents touched. Between queries every
    /// sum is 0 and every document unseen.
    #[inline]
    fn add(&mut self, doc: u32, value: f64) {
        let d = doc as usize;
        if !self.seen[d] {
            self.seen[d] = true;
            self.touched.push(doc);
        }
        self.scores[d] += value;
    }

    /// Add to a document's sum; the caller scans every document afterwards.
    #[inline]
    fn add_dense(&mut self, doc: u32, value: f64) {
        let d = doc as usize;
        self.seen[d] = true;
        self.scores[d] += value;
    }
}

struct Scorer<'a> {
    matrix: TermMatrix<'a>,
    idf: &'a [f64],
    params: Params,
    /// `L` of every document.
    length_norms: Vec<f64>,
    /// `gain - floor` of every posting, when the queries read more postings than there are
    /// (computing each once then costs less than computing it at every read).
    gains: Option<Vec<f64>>,
    /// [`Plan::dense`].
    dense: Option<bool>,
    floor: f64,
    k: usize,
    min_score: f64,
}

impl Scorer<'_> {
    fn query(&self, terms: &[u32], scratch: &mut Scratch, out: &mut Vec<(u32, f64)>) {
        // Repeated terms count once per occurrence: score each distinct term once, weighted.
        scratch.terms.clear();
        scratch.terms.extend_from_slice(terms);
        scratch.terms.sort_unstable();
        // A query reading postings of many documents scores into the whole accumulator and
        // scans it; one reading few keeps the list of documents it touched. The sums are the
        // same, in the same order.
        let read: usize = scratch
            .terms
            .iter()
            .map(|&t| self.matrix.doc_freq(t as usize))
            .sum();
        let dense = self
            .dense
            .unwrap_or(read.saturating_mul(8) >= self.matrix.n_docs());
        let mut base = 0.0;
        let mut i = 0;
        while i < scratch.terms.len() {
            let term = scratch.terms[i];
            let mut count = 1;
            while i + count < scratch.terms.len() && scratch.terms[i + count] == term {
                count += 1;
            }
            i += count;
            let weight = count as f64 * self.idf[term as usize];
            base += weight * self.floor;
            let (range, docs, tfs) = self.matrix.term(term as usize);
            match (&self.gains, dense) {
                (Some(gains), true) => {
                    for (&d, &gain) in docs.iter().zip(&gains[range]) {
                        scratch.add_dense(d, weight * gain);
                    }
                }
                (Some(gains), false) => {
                    for (&d, &gain) in docs.iter().zip(&gains[range]) {
                        scratch.add(d, weight * gain);
                    }
                }
                (None, _) => {
                    for (&d, &tf) in docs.iter().zip(tfs) {
                        let norm = self.length_norms[d as usize];
                        let gain = self.params.gain(f64::from(tf), norm) - self.floor;
                        if dense {
                            scratch.add_dense(d, weight * gain);
                        } else {
                            scratch.add(d, weight * gain);
                        }
                    }
                }
            }
        }
        let mut best = Best::new(self.k);
        let mut keep = |d: u32, sum: f64| {
            let score = base + sum;
            if score > 0.0 && score >= self.min_score {
                best.offer(Candidate { doc: d, score });
            }
        };
        if dense {
            for (d, (seen, sum)) in scratch.seen.iter_mut().zip(&mut scratch.scores).enumerate() {
                if *seen {
                    keep(d as u32, *sum);
                    *seen = false;
                    *sum = 0.0;
                }
            }
        } else {
            for &d in &scratch.touched {
                keep(d, scratch.scores[d as usize]);
                scratch.seen[d as usize] = false;
                scratch.scores[d as usize] = 0.0;
            }
            scratch.touched.clear();
        }
        out.clear();
        out.extend(best.into_sorted().into_iter().map(|c| (c.doc, c.score)));
    }
}

/// A scored document, ordered best first: higher score, then lower position.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    doc: u32,
    score: f64,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.doc.cmp(&other.doc))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}

/// The `k` best candidates offered: a heap whose top is the worst kept, so most offers cost one
/// comparison.
struct Best {
    k: usize,
    heap: std::collections::BinaryHeap<Candidate>,
}

impl Best {
    fn new(k: usize) -> Self {
        Best {
            k,
            heap: std::collections::BinaryHeap::with_capacity(k.min(1 << 16)),
        }
    }

    fn offer(&mut self, candidate: Candidate) {
        if self.heap.len() < self.k {
            self.heap.push(candidate);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && candidate < *worst
        {
            *worst = candidate;
        }
    }

    fn into_sorted(self) -> Vec<Candidate> {
        self.heap.into_sorted_vec()
    }
}

/// Score every query (rows of term ids below the matrix's `n_terms`; every occurrence counts)
/// and keep its `k` best documents scoring `> 0` and `>= min_score`, best first, ties by
/// position. `idf` is [`idf`] of the same variant.
pub fn top_k(
    matrix: &TermMatrix<'_>,
    idf: &[f64],
    queries: Rows<'_, u32>,
    params: Params,
    k: usize,
    min_score: f64,
) -> CoreResult<Ranked> {
    top_k_with(matrix, idf, queries, params, k, min_score, Plan::default())
}

/// How [`top_k`] computes, each choice `None` by default (decided by the sizes); every choice
/// gives the same results, bit for bit.
#[derive(Clone, Copy, Debug, Default)]
struct Plan {
    /// Compute the gain of every posting first (`true`) or at every read (`false`).
    precompute: Option<bool>,
    /// Score a query into the whole accumulator and scan it (`true`), or keep the list of the
    /// documents touched (`false`).
    dense: Option<bool>,
}

fn top_k_with(
    matrix: &TermMatrix<'_>,
    idf: &[f64],
    queries: Rows<'_, u32>,
    params: Params,
    k: usize,
    min_score: f64,
    plan: Plan,
) -> CoreResult<Ranked> {
    params.check()?;
    if k == 0 {
        return Err(CoreError::argument("k", "must be >= 1"));
    }
    if min_score.is_nan() {
        return Err(CoreError::argument(
            "min_score",
            "must be a number, got NaN",
        ));
    }
    if idf.len() != matrix.n_terms() {
        return Err(CoreError::argument(
            "idf",
            format!("{} values for {} terms", idf.len(), matrix.n_terms()),
        ));
    }
    if let Some(t) = idf.iter().position(|v| !v.is_finite()) {
        return Err(CoreError::argument(
            "idf",
            format!("the idf of term {t} is {}", idf[t]),
        ));
    }
    for q in 0..queries.len() {
        if let Some(&term) = queries.row(q).iter().find(|&&t| t as usize >= idf.len()) {
            return Err(CoreError::query(
                q,
                format!("term id {term}, but there are {} terms", idf.len()),
            ));
        }
    }
    let average = matrix.average_length();
    // Without any token there are no postings, and no length is ever divided by.
    let length_norms: Vec<f64> = matrix
        .doc_lengths
        .iter()
        .map(|&l| {
            if average > 0.0 {
                1.0 - params.b + params.b * f64::from(l) / average
            } else {
                1.0
            }
        })
        .collect();
    let floor = params.floor();
    let read: usize = (0..queries.len())
        .flat_map(|q| queries.row(q).iter())
        .map(|&t| matrix.doc_freq(t as usize))
        .sum();
    let gains = plan.precompute.unwrap_or(read > matrix.tfs.len()).then(|| {
        let mut gains = vec![0.0; matrix.tfs.len()];
        gains
            .par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(chunk, out)| {
                let start = chunk << 14;
                for (i, gain) in out.iter_mut().enumerate() {
                    let p = start + i;
                    let norm = length_norms[matrix.docs[p] as usize];
                    *gain = params.gain(f64::from(matrix.tfs[p]), norm) - floor;
                }
            });
        gains
    });
    let scorer = Scorer {
        matrix: *matrix,
        idf,
        params,
        length_norms,
        gains,
        dense: plan.dense,
        floor,
        k,
        min_score,
    };
    let n_queries = queries.len();
    // A few blocks per thread: each allocates one accumulator and scores its queries in turn.
    let block = n_queries.div_ceil(4 * rayon::current_num_threads()).max(1);
    let blocks: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = (0..n_queries.div_ceil(block))
        .into_par_iter()
        .map(|b| {
            let mut scratch = Scratch::new(matrix.n_docs());
            let mut hits = Vec::new();
            let (mut lengths, mut docs, mut scores) = (Vec::new(), Vec::new(), Vec::new());
            for q in b * block..((b + 1) * block).min(n_queries) {
                scorer.query(queries.row(q), &mut scratch, &mut hits);
                lengths.push(hits.len());
                docs.extend(hits.iter().map(|h| h.0));
                scores.extend(hits.iter().map(|h| h.1));
            }
            (lengths, docs, scores)
        })
        .collect();
    let mut ranked = Ranked {
        offsets: Vec::with_capacity(n_queries + 1),
        ..Ranked::default()
    };
    ranked.offsets.push(0);
    for (lengths, docs, scores) in blocks {
        for length in lengths {
            ranked
                .offsets
                .push(ranked.offsets[ranked.offsets.len() - 1] + length);
        }
        ranked.docs.extend(docs);
        ranked.scores.extend(scores);
    }
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::RowsBuf;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn rows(data: &[Vec<u32>]) -> RowsBuf<u32> {
        let mut buf = RowsBuf::default();
        for row in data {
            buf.push_row(row.iter().copied());
        }
        buf
    }

    /// Postings by counting every (term, document) pair in a map.
    fn naive_postings(documents: &[Vec<u32>], n_terms: usize) -> Postings {
        let mut by_term: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_terms];
        for (d, doc) in documents.iter().enumerate() {
            let mut counts: HashMap<u32, u32> = HashMap::new();
            for &t in doc {
                *counts.entry(t).or_default() += 1;
            }
            for (t, tf) in counts {
                by_term[t as usize].push((d as u32, tf));
            }
        }
        let mut postings = Postings {
            offsets: vec![0],
            docs: Vec::new(),
            tfs: Vec::new(),
            doc_lengths: documents.iter().map(|d| d.len() as u32).collect(),
        };
        for mut list in by_term {
            list.sort_unstable();
            postings.docs.extend(list.iter().map(|p| p.0));
            postings.tfs.extend(list.iter().map(|p| p.1));
            postings.offsets.push(postings.docs.len());
        }
        postings
    }

    /// The formulas of the module documentation, written out over the documents' tokens: every
    /// query token, every document.
    fn naive_top_k(
        documents: &[Vec<u32>],
        query: &[u32],
        params: Params,
        k: usize,
        min_score: f64,
    ) -> Vec<(u32, f64)> {
        let n = documents.len() as f64;
        let avgdl = documents.iter().map(|d| d.len()).sum::<usize>() as f64 / n;
        let tf = |d: &Vec<u32>, t: u32| d.iter().filter(|&&x| x == t).count() as f64;
        let df = |t: u32| documents.iter().filter(|d| d.contains(&t)).count() as f64;
        let raw_idf = |df: f64| match params.variant {
            Variant::Lucene => (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
            Variant::Okapi => ((n - df + 0.5) / (df + 0.5)).ln(),
            Variant::L => ((n + 1.0) / (df + 0.5)).ln(),
            Variant::Plus => ((n + 1.0) / df).ln(),
        };
        let vocabulary: Vec<u32> = {
            let mut v: Vec<u32> = documents.iter().flatten().copied().collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let okapi_floor = {
            let idfs: Vec<f64> = vocabulary.iter().map(|&t| raw_idf(df(t))).collect();
            OKAPI_EPSILON * idfs.iter().sum::<f64>() / idfs.len().max(1) as f64
        };
        let idf = |t: u32| {
            let value = raw_idf(df(t));
            if params.variant == Variant::Okapi && value < 0.0 {
                okapi_floor
            } else {
                value
            }
        };
        let (k1, b, delta) = (params.k1, params.b, params.delta);
        let mut scored = Vec::new();
        for (d, doc) in documents.iter().enumerate() {
            if !query.iter().any(|t| doc.contains(t)) {
                continue;
            }
            let norm = 1.0 - b + b * doc.len() as f64 / avgdl;
            let mut score = 0.0;
            for &t in query {
                if df(t) == 0.0 {
                    continue;
                }
                let f = tf(doc, t);
                let gain = match params.variant {
                    // An absent term adds nothing (0 / 0 when k1 = 0: no gain either).
                    Variant::Lucene | Variant::Okapi if f == 0.0 => 0.0,
                    Variant::Lucene | Variant::Okapi => f * (k1 + 1.0) / (f + k1 * norm),
                    Variant::L => {
                        let c = f / norm;
                        if c + delta == 0.0 {
                            0.0
                        } else {
                            (k1 + 1.0) * (c + delta) / (k1 + c + delta)
                        }
                    }
                    Variant::Plus => {
                        if f == 0.0 {
                            delta
                        } else {
                            (k1 + 1.0) * f / (k1 * norm + f) + delta
                        }
                    }
                };
                score += idf(t) * gain;
            }
            if score > 0.0 && score >= min_score {
                scored.push((d as u32, score));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    /// `got` is a correct top k of `all` (the naive full ranking): the same scores at every
    /// rank, and each document's own score; documents may differ only among scores that tie
    /// up to rounding.
    fn check_ranking(got: &[(u32, f64)], all: &[(u32, f64)], k: usize) {
        let expected: Vec<_> = all.iter().take(k).collect();
        assert_eq!(got.len(), expected.len(), "{got:?} vs {expected:?}");
        let score_of: HashMap<u32, f64> = all.iter().copied().collect();
        for (i, (&(d, s), &&(ed, es))) in got.iter().zip(&expected).enumerate() {
            assert!(close(s, es), "rank {i}: {s} vs {es}");
            assert!(close(score_of[&d], s), "doc {d}: {s} vs {}", score_of[&d]);
            if d != ed {
                let ties = all.iter().filter(|h| close(h.1, s)).count();
                assert!(ties > 1, "rank {i}: doc {d} instead of {ed} without a tie");
            }
        }
    }

    fn variant_strategy() -> impl Strategy<Value = Variant> {
        prop_oneof![
            Just(Variant::Lucene),
            Just(Variant::Okapi),
            Just(Variant::L),
            Just(Variant::Plus)
        ]
    }

    proptest! {
        #[test]
        fn postings_equal_counting(
            documents in prop::collection::vec(prop::collection::vec(0u32..12, 0..15), 0..20),
        ) {
            let buf = rows(&documents);
            let got = build_postings(buf.view(), 12).unwrap();
            prop_assert_eq!(&got, &naive_postings(&documents, 12));
            prop_assert!(got.view().is_ok());
        }

        #[test]
        fn top_k_equals_the_formulas(
            documents in prop::collection::vec(prop::collection::vec(0u32..10, 0..12), 1..25),
            queries in prop::collection::vec(prop::collection::vec(0u32..12, 0..6), 1..8),
            variant in variant_strategy(),
            k1 in prop_oneof![Just(0.0), 0.0f64..3.0],
            b in prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0],
            delta in prop_oneof![Just(0.0), 0.0f64..2.0],
            k in 1usize..30,
            min_score in prop_oneof![Just(f64::NEG_INFINITY), -1.0f64..3.0],
        ) {
            // Term ids 10 and 11 are in no document: they add nothing and are never an error.
            let buf = rows(&documents);
            let postings = build_postings(buf.view(), 12).unwrap();
            let matrix = postings.view().unwrap();
            let idf_values = idf(&matrix, variant);
            let params = Params { k1, b, delta, variant };
            let query_rows = rows(&queries);
            let ranked =
                top_k(&matrix, &idf_values, query_rows.view(), params, k, min_score).unwrap();
            prop_assert_eq!(ranked.offsets.len(), queries.len() + 1);
            for (q, query) in queries.iter().enumerate() {
                let range = ranked.offsets[q]..ranked.offsets[q + 1];
                let got: Vec<(u32, f64)> = ranked.docs[range.clone()]
                    .iter()
                    .copied()
                    .zip(ranked.scores[range].iter().copied())
                    .collect();
                let all = naive_top_k(&documents, query, params, usize::MAX, min_score);
                check_ranking(&got, &all, k);
            }
        }

        #[test]
        fn every_strategy_gives_the_same_rankings(
            documents in prop::collection::vec(prop::collection::vec(0u32..15, 1..20), 1..30),
            queries in prop::collection::vec(prop::collection::vec(0u32..15, 0..6), 1..10),
            variant in variant_strategy(),
            k1 in 0.0f64..3.0,
            b in 0.0f64..=1.0,
            delta in 0.0f64..2.0,
        ) {
            let buf = rows(&documents);
            let postings = build_postings(buf.view(), 15).unwrap();
            let matrix = postings.view().unwrap();
            let idf_values = idf(&matrix, variant);
            let params = Params { k1, b, delta, variant };
            let query_rows = rows(&queries);
            let run = |precompute, dense| {
                let plan = Plan { precompute, dense };
                top_k_with(&matrix, &idf_values, query_rows.view(), params, 7, 0.0, plan)
                    .unwrap()
            };
            let auto = run(None, None);
            for precompute in [Some(true), Some(false)] {
                for dense in [Some(true), Some(false)] {
                    prop_assert_eq!(&auto, &run(precompute, dense));
                }
            }
        }

        #[test]
        fn one_thread_or_many_give_the_same_rankings(
            documents in prop::collection::vec(prop::collection::vec(0u32..30, 1..20), 1..40),
            queries in prop::collection::vec(prop::collection::vec(0u32..30, 1..5), 1..60),
        ) {
            let buf = rows(&documents);
            let postings = build_postings(buf.view(), 30).unwrap();
            let matrix = postings.view().unwrap();
            let idf_values = idf(&matrix, Variant::Lucene);
            let params = Params { k1: 1.2, b: 0.75, delta: 0.0, variant: Variant::Lucene };
            let query_rows = rows(&queries);
            let run = |threads: usize| {
                rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(
                    || top_k(&matrix, &idf_values, query_rows.view(), params, 5, 0.0).unwrap(),
                )
            };
            prop_assert_eq!(run(1), run(3));
        }
    }

    #[test]
    fn idf_of_each_variant_by_hand() {
        // Three documents; term 0 in all of them, term 1 in one, term 2 in none.
        let buf = rows(&[vec![0, 1], vec![0], vec![0, 0]]);
        let postings = build_postings(buf.view(), 3).unwrap();
        let matrix = postings.view().unwrap();
        let lucene = idf(&matrix, Variant::Lucene);
        assert!(close(lucene[0], (1.0f64 + 0.5 / 3.5).ln()));
        assert!(close(lucene[1], (1.0f64 + 2.5 / 1.5).ln()));
        assert_eq!(lucene[2], 0.0);
        // Okapi: ln(0.5 / 3.5) < 0 is replaced by 0.25 * the mean over the two present terms.
        let okapi = idf(&matrix, Variant::Okapi);
        let raw = [(0.5f64 / 3.5).ln(), (2.5f64 / 1.5).ln()];
        assert!(close(okapi[0], 0.25 * (raw[0] + raw[1]) / 2.0));
        assert!(close(okapi[1], raw[1]));
        let l = idf(&matrix, Variant::L);
        assert!(close(l[0], (4.0f64 / 3.5).ln()) && close(l[1], (4.0f64 / 1.5).ln()));
        let plus = idf(&matrix, Variant::Plus);
        assert!(close(plus[0], (4.0f64 / 3.0).ln()) && close(plus[1], 4.0f64.ln()));
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let buf = rows(&[vec![0, 1], vec![1]]);
        assert!(build_postings(buf.view(), 1).is_err()); // term id 1 of 1 term
        let postings = build_postings(buf.view(), 2).unwrap();
        let matrix = postings.view().unwrap();
        let idf_values = idf(&matrix, Variant::Lucene);
        let params = Params {
            k1: 1.5,
            b: 0.75,
            delta: 0.0,
            variant: Variant::Lucene,
        };
        let queries = rows(&[vec![0], vec![5]]);
        let err = top_k(&matrix, &idf_values, queries.view(), params, 3, 0.0).unwrap_err();
        assert!(
            matches!(err, CoreError::InvalidQuery { query: 1, .. }),
            "{err}"
        );
        let ok = rows(&[vec![0]]);
        for bad in [
            Params { k1: -1.0, ..params },
            Params {
                k1: f64::NAN,
                ..params
            },
            Params { b: 1.5, ..params },
            Params {
                delta: f64::INFINITY,
                ..params
            },
        ] {
            assert!(top_k(&matrix, &idf_values, ok.view(), bad, 3, 0.0).is_err());
        }
        assert!(top_k(&matrix, &idf_values, ok.view(), params, 0, 0.0).is_err());
        assert!(top_k(&matrix, &idf_values, ok.view(), params, 1, f64::NAN).is_err());
        assert!(top_k(&matrix, &idf_values[..1], ok.view(), params, 1, 0.0).is_err());
        // Malformed postings: document out of range, not ascending, zero or too large tf.
        let lengths = [2u32, 1];
        assert!(TermMatrix::new(&[0, 1], &[2], &[1], &lengths).is_err());
        assert!(TermMatrix::new(&[0, 2], &[1, 0], &[1, 1], &lengths).is_err());
        assert!(TermMatrix::new(&[0, 2], &[0, 0], &[1, 1], &lengths).is_err());
        assert!(TermMatrix::new(&[0, 1], &[0], &[0], &lengths).is_err());
        assert!(TermMatrix::new(&[0, 1], &[1], &[2], &lengths).is_err());
        assert!(TermMatrix::new(&[0, 1], &[0], &[1, 1], &lengths).is_err());
        assert!(Variant::from_name("bm25x").is_err());
    }

    #[test]
    fn empty_corpus_tokens_and_queries() {
        // Documents without tokens: no postings, nothing divided by the zero average length.
        let buf = rows(&[vec![], vec![]]);
        let postings = build_postings(buf.view(), 0).unwrap();
        let matrix = postings.view().unwrap();
        let params = Params {
            k1: 1.5,
            b: 1.0,
            delta: 1.0,
            variant: Variant::Plus,
        };
        let queries = rows(&[vec![], vec![]]);
        let ranked = top_k(&matrix, &[], queries.view(), params, 3, 0.0).unwrap();
        assert_eq!(ranked.offsets, vec![0, 0, 0]);
    }
}
