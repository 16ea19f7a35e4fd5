//! ndeval's diversity measures over subtopic judgments.

use super::query::*;
use super::*;

impl QueryView<'_> {
    /// ndeval's diversity measures (version 4.5, as pyndeval runs it). A document's subtopics
    /// are those it is judged relevant to (grade >= t); only the subtopics some document is
    /// relevant to count (A of them). Undefined when A = 0.
    pub(super) fn diversity(
        &self,
        which: Diversity,
        alpha: f64,
        beta: f64,
        t: f64,
        cutoff: Option<usize>,
    ) -> f64 {
        let sets = SubtopicSets::new(self.subtopics, self.n_judged, t);
        let a = sets.n_covered();
        if a == 0 {
            return f64::NAN;
        }
        let af = a as f64;
        // The subtopics of the document at each rank (empty: unjudged or relevant to none).
        let mut at_rank: Vec<&[u32]> = vec![&[]; self.ranked.num_ret];
        for h in self.ranked.hits {
            // With diversity judgments a hit's grade is 1 + its document's index.
            let doc = h.grade as usize - 1;
            if let Some(slot) = at_rank.get_mut(h.rank as usize - 1) {
                *slot = sets.of(doc);
            }
        }
        let k = cutoff.unwrap_or(usize::MAX);
        let top = &at_rank[..at_rank.len().min(k)];
        let discount = |i: usize| 2f64.ln() / ((i + 2) as f64).ln();
        // ndeval's "ideal ideal": every subtopic at every rank, its gain decaying by 1 - alpha.
        let ideal_ideal = |weight: &dyn Fn(usize) -> f64| {
            let (mut sum, mut gain) = (0.0, af);
            for i in 0..k {
                let term = gain * weight(i);
                // The terms only decrease: once one changes nothing, none will.
                if sum + term == sum && i > 0 {
                    break;
                }
                sum += term;
                gain *= 1.0 - alpha;
            }
            sum
        };
        // ndeval divides by the "ideal ideal" from rank 2 on only.
        let normalize = |x: f64, ideal: f64| if k >= 2 { x / ideal } else { x };
        match which {
            Diversity::AlphaDcg | Diversity::AlphaNdcg | Diversity::ErrIa | Diversity::NErrIa => {
                let dcg_like = matches!(which, Diversity::AlphaDcg | Diversity::AlphaNdcg);
                let weight = |i: usize| {
                    if dcg_like {
                        discount(i)
                    } else {
                        1.0 / (i + 1) as f64
                    }
                };
                let cumulate = |scores: &[f64]| {
                    scores
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            if dcg_like {
                                s * discount(i)
                            } else {
                                s / (i + 1) as f64
                            }
                        })
                        .fold(0.0, add)
                };
                let run_scores = novelty_scores(top, sets.n_subtopics(), alpha);
                let norm = ideal_ideal(&weight);
                let run = normalize(cumulate(&run_scores), norm);
                if matches!(which, Diversity::AlphaDcg | Diversity::ErrIa) {
                    return run;
                }
                // ndeval's renormalisation: 0 unless the run's alpha-DCG is positive.
                let run_dcg = run_scores
                    .iter()
                    .enumerate()
                    .map(|(i, s)| s * discount(i))
                    .fold(0.0, add);
                if run_dcg == 0.0 {
                    return 0.0;
                }
                let ideal = normalize(cumulate(&sets.greedy_ideal(alpha, k)), norm);
                run / ideal
            }
            Diversity::PIa => {
                let count: usize = top.iter().map(|s| s.len()).sum();
                count as f64 / (k as f64 * af)
            }
            Diversity::StRecall => {
                let mut seen = vec![false; sets.n_subtopics()];
                let mut covered = 0usize;
                for &s in top.iter().flat_map(|s| s.iter()) {
                    if !std::mem::replace(&mut seen[s as usize], true) {
                        covered += 1;
                    }
                }
                covered as f64 / af
            }
            Diversity::ApIa => {
                let mut count = vec![0usize; sets.n_subtopics()];
                let mut total = vec![0.0; sets.n_subtopics()];
                for (i, subtopics) in at_rank.iter().enumerate() {
                    for &s in subtopics.iter() {
                        count[s as usize] += 1;
                        total[s as usize] += count[s as usize] as f64 / (i + 1) as f64;
                    }
                }
                let sum = (0..sets.n_subtopics())
                    .filter(|&s| sets.n_relevant(s) > 0)
                    .map(|s| total[s] / sets.n_relevant(s) as f64)
                    .fold(0.0, add);
                sum / af
            }
            Diversity::Nrbp | Diversity::NNrbp => {
                let nrbp = |scores: &[f64]| {
                    let (mut sum, mut decay) = (0.0, 1.0);
                    for s in scores {
                        sum += s * decay;
                        decay *= beta;
                    }
                    sum * (1.0 - (1.0 - alpha) * beta) / af
                };
                let run = nrbp(&novelty_scores(&at_rank, sets.n_subtopics(), alpha));
                if which == Diversity::Nrbp {
                    run
                } else {
                    run / nrbp(&sets.greedy_ideal(alpha, usize::MAX))
                }
            }
        }
    }
}

/// The subtopics each judged document of a query is relevant to.
pub(super) struct SubtopicSets {
    pub(super) offsets: Vec<usize>,
    pub(super) subtopics: Vec<u32>,
    /// Documents relevant to each subtopic.
    pub(super) relevant: Vec<usize>,
}

impl SubtopicSets {
    pub(super) fn new(judgments: &[SubtopicGrade], n_docs: usize, t: f64) -> Self {
        let n_subtopics = judgments
            .iter()
            .map(|j| j.subtopic as usize + 1)
            .max()
            .unwrap_or(0);
        let mut per_doc: Vec<Vec<u32>> = vec![Vec::new(); n_docs];
        let mut relevant = vec![0usize; n_subtopics];
        for j in judgments.iter().filter(|j| j.grade >= t) {
            if let Some(doc) = per_doc.get_mut(j.doc as usize) {
                doc.push(j.subtopic);
                relevant[j.subtopic as usize] += 1;
            }
        }
        let mut offsets = vec![0];
        let mut subtopics = Vec::new();
        for mut doc in per_doc {
            doc.sort_unstable();
            doc.dedup();
            subtopics.extend(doc);
            offsets.push(subtopics.len());
        }
        SubtopicSets {
            offsets,
            subtopics,
            relevant,
        }
    }

    pub(super) fn n_docs(&self) -> usize {
        self.offsets.len() - 1
    }

    pub(super) fn n_subtopics(&self) -> usize {
        self.relevant.len()
    }

    pub(super) fn n_relevant(&self, subtopic: usize) -> usize {
        self.relevant[subtopic]
    }

    /// Subtopics some document is relevant to (ndeval's `actualSubtopics`).
    pub(super) fn n_covered(&self) -> usize {
        self.relevant.iter().filter(|&&n| n > 0).count()
    }

    pub(super) fn of(&self, doc: usize) -> &[u32] {
        match (self.offsets.get(doc), self.offsets.get(doc + 1)) {
            (Some(&start), Some(&end)) => &self.subtopics[start..end],
            _ => &[],
        }
    }

    /// ndeval's `idealResult`: the first `limit` novelty scores of the greedy ideal ranking
    /// (at each rank the document with the highest score, ties to the greatest id); once the
    /// best score is 0 the remaining ranks score 0 and are left out.
    pub(super) fn greedy_ideal(&self, alpha: f64, limit: usize) -> Vec<f64> {
        let mut gain = vec![1.0; self.n_subtopics()];
        let mut taken = vec![false; self.n_docs()];
        let mut scores = Vec::new();
        while scores.len() < limit.min(self.n_docs()) {
            let mut best: Option<(usize, f64)> = None;
            for (doc, _) in taken.iter().enumerate().filter(|(_, taken)| !**taken) {
                let score = self
                    .of(doc)
                    .iter()
                    .map(|&s| gain[s as usize])
                    .fold(0.0, add);
                // Documents are indexed by id, so a later one with the same score has the
                // greater id, which ndeval prefers.
                if best.is_none_or(|(_, max)| score >= max) {
                    best = Some((doc, score));
                }
            }
            let Some((doc, score)) = best else { break };
            if score == 0.0 {
                break;
            }
            taken[doc] = true;
            for &s in self.of(doc) {
                gain[s as usize] *= 1.0 - alpha;
            }
            scores.push(score);
        }
        scores
    }
}

/// The novelty score of each rank: the sum over the document's subtopics of (1 - alpha)^(the
/// documents above it relevant to the subtopic).
pub(super) fn novelty_scores(at_rank: &[&[u32]], n_subtopics: usize, alpha: f64) -> Vec<f64> {
    let mut gain = vec![1.0; n_subtopics];
    at_rank
        .iter()
        .map(|subtopics| {
            let mut score = 0.0;
            for &s in subtopics.iter() {
                score += gain[s as usize];
                gain[s as usize] *= 1.0 - alpha;
            }
            score
        })
        .collect()
}
