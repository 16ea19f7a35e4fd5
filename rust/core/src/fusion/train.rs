//! What the trained methods learn from training judgments (ranx's `*_train` functions).

use rayon::prelude::*;

use super::*;

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
    check_training(training)?;
    let hits = hit_lists(input, relevant, norm)?;
    let n_relevant: Vec<usize> = (0..relevant.n_queries())
        .map(|q| relevant.row(q).len())
        .collect();
    Ok(learn(&hits, &n_relevant, input.n_runs, training))
}

/// Refuse a training that cannot be learnt (ProbFuse with no segment).
pub fn check_training(training: Training) -> CoreResult<()> {
    if let Training::ProbFuse { n_segments: 0 } = training {
        return Err(CoreError::argument("n_segments", "must be 1 or more"));
    }
    Ok(())
}

/// Per query, per run: the hit list of the run's ranking after normalisation with `norm`
/// (whether the document at each position is relevant: in `relevant`'s row of the query).
pub fn hit_lists(
    input: &FusionInput,
    relevant: &Relevant,
    norm: Norm,
) -> CoreResult<Vec<Vec<Vec<bool>>>> {
    if relevant.n_queries() != input.n_queries() {
        return Err(CoreError::argument(
            "qrels",
            "not aligned with the runs (internal error, please report)",
        ));
    }
    input
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
        .collect()
}

/// What `training` learns from the hit lists of every training query (in query order) and
/// the number of relevant documents of each: one vector per run.
pub fn learn(
    hits: &[Vec<Vec<bool>>],
    n_relevant: &[usize],
    n_runs: usize,
    training: Training,
) -> Vec<Vec<f64>> {
    (0..n_runs)
        .map(|r| {
            let lists: Vec<&[bool]> = hits.iter().map(|h| h[r].as_slice()).collect();
            match training {
                Training::PositionProbs => position_probs(&lists),
                Training::ProbFuse { n_segments } => probfuse_probs(&lists, n_segments),
                Training::SegFuse => segfuse_probs(&lists),
                Training::BayesFuse => bayesfuse_log_odds(&lists),
                Training::MeanAveragePrecision => vec![mean_average_precision(&lists, n_relevant)],
            }
        })
        .collect()
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
