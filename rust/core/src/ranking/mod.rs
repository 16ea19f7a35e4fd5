//! Ranking measures per query: every requested measure in one pass over each query, queries in
//! parallel.
//!
//! The input is what `prepare` leaves of a ranking once it has been ordered and cut: the rank
//! and grade of the ranked judged documents (`Hit`; of those with a positive grade, or of all of
//! them when the measures need the judged non-relevant ones), the positive grades of all judged
//! documents, and counts. Each measure is the measure of trec_eval 10.0 of the same name,
//! ported line by line where trec_eval's order of floating-point operations decides the last
//! digit, so that per-topic values are equal to trec_eval's, not only close.
//!
//! trec_eval's view of a ranking (`res_rels` in its sources) is a relevance value per rank:
//! the grade of a judged document, `NONPOOL` for a document absent from the judgments and
//! `UNJUDGED` for a judged document with a negative grade (in the pool, not judged). Measures
//! that only need the relevant ranks read the hits directly (the common measures, fast);
//! the others read that list, rebuilt per query from the hits (`Ranked::relevance`).
//!
//! A value that divides by zero (no relevant document, an ideal DCG of 0, nothing retrieved for
//! the set measures) is NaN: the caller decides what an undefined value becomes (trec_eval
//! prints 0 for it).
//!
//! This module holds the measures (`Kind`, `Measure`) and the pass over the queries
//! (`evaluate`); `kernels` declares each kernel once (name, cutoff, parameters, judged set);
//! `query` one query as the measures see it and trec_eval's measures, `gains` trec_eval's gain tables, `providers` the measures of ir_measures' other providers and
//! of ranx, `diversity` ndeval's subtopic measures.

use std::cell::OnceCell;

use rayon::prelude::*;

use crate::prepare::{Hit, Prepared, SubtopicGrade};
use crate::{CoreError, CoreResult};

/// trec_eval's relevance value of a retrieved document absent from the judgments.
pub const NONPOOL: f64 = -1.0;
/// trec_eval's relevance value of a retrieved document judged with a negative grade.
pub const UNJUDGED: f64 = -2.0;
/// trec_eval's floor of a value in a geometric mean (`MIN_GEO_MEAN`).
pub const MIN_GEO_MEAN: f64 = 0.00001;
const INFAP_EPSILON: f64 = 0.00001;

/// Gains of relevance levels given by the user (trec_eval `ndcg.1=3,2=7`): `(level, gain)` in
/// the order given. Levels without a gain keep their own value as gain.
pub type GainPairs = Vec<(i64, f64)>;

/// The measure kernels. Names (`name`) are those the declarations of the Python package use.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Documents retrieved (trec_eval `num_ret`).
    NumRet,
    /// Relevant judged documents (trec_eval `num_rel`).
    NumRel,
    /// Relevant documents retrieved (trec_eval `num_rel_ret`).
    NumRelRet,
    /// Judged non-relevant documents retrieved (trec_eval `num_nonrel_judged_ret`).
    NumNonrelJudgedRet,
    /// Judged documents with a grade > 0 (trec_eval's `num_rel` summary under `-c`).
    NumJudgedPositive,
    /// Relevant in the top k / k (`P.k`).
    Precision,
    /// Relevant in the top k / R (`recall.k`).
    Recall,
    /// 1 if a relevant document is in the top k (`success.k`).
    Success,
    /// Relevant documents in the top k (ranx's `hits@k`).
    Hits,
    /// Relevant in the top k / min(k, R) (`relative_P.k`).
    RelativePrecision,
    /// Unjudged documents in the top k / k (`unj.k`).
    Unjudged,
    /// 1 / rank of the first relevant document, within the top k if given (`recip_rank`).
    ReciprocalRank,
    /// Average precision, within the top k if given (`map`, `map_cut.k`).
    AveragePrecision,
    /// Precision at R (`Rprec`).
    RPrecision,
    /// Precision at `multiple` * R (`Rprec_mult.m`).
    RPrecisionMult(f64),
    /// Interpolated precision at a recall level (`iprec_at_recall.l`).
    IPrecAtRecall(f64),
    /// Interpolated precision averaged over recall levels (`11pt_avg`).
    ElevenPointAverage(Vec<f64>),
    /// Binary preference (`bpref`).
    Bpref,
    /// Inferred AP (`infAP`).
    InfAp,
    /// Binary G (`binG`).
    BinG,
    /// Normalized gain (`G`).
    G(GainPairs),
    /// nDCG: linear gains (the grade) without pairs (`ndcg`, `ndcg_cut.k`), else trec_eval's
    /// gain table (`ndcg.1=3,...`).
    Ndcg(Option<GainPairs>),
    /// DCG with trec_eval's gain table (`dcg`).
    Dcg(GainPairs),
    /// Ideal DCG with trec_eval's gain table (`ideal_dcg`).
    IdealDcg(GainPairs),
    /// nDCG averaged over the relevant documents (`ndcg_rel`).
    NdcgRel(GainPairs),
    /// nDCG averaged at the R levels (`Rndcg`).
    Rndcg(GainPairs),
    /// Relevant retrieved / retrieved (`set_P`).
    SetPrecision,
    /// Relevant retrieved / R (`set_recall`).
    SetRecall,
    /// Relevant retrieved / min(retrieved, R) (`set_relative_P`).
    SetRelativePrecision,
    /// Relevant retrieved² / (retrieved R) (`set_map`).
    SetMap,
    /// F measure of the retrieved set with recall weight `beta` (`set_F.beta`).
    SetF(f64),
    /// `a*rel_ret + b*nonrel_ret + c*rel_notret + d*nonrel_notret` (`utility.a,b,c,d`) with
    /// the number of documents in the collection (trec_eval `-N`, an integer).
    Utility([f64; 4], f64),
    /// Rank-biased precision with persistence p (`rbp.p=`).
    Rbp(f64, GainPairs),
    /// The residual of rank-biased precision (`rbp_resid.p=`).
    RbpResidual(f64),
    /// gdeval's expected reciprocal rank: a cascade over the stopping probabilities
    /// (2^g - 1) / 2^4 (grades above 4 count as 4).
    Err,
    /// gdeval's nDCG: gains 2^g - 1 over natural-log discounts (`nDCG(dcg='exp-log2')`).
    NdcgExp,
    /// ir_measures' graded RBP (trectools): `(1 - p) * sum of grade_i * p^(i-1)` over the
    /// positive grades.
    RbpGraded(f64),
    /// The residual of the graded RBP: the weight of the unjudged ranks plus the tail p^d.
    RbpGradedResidual(f64),
    /// Judged documents in the top k / min(k, retrieved) (ir_measures' `Judged@k`).
    Judged,
    /// ir_measures' `Accuracy`: the probability that a retrieved relevant document is ranked
    /// above a retrieved non-relevant one.
    Accuracy,
    /// A C/W/L measure (cwl_eval): the expected utility of a user model over 1000 ranks.
    Cwl(CwlModel, CwlGains),
    /// Rank-biased overlap with an ideal ranking (ir_measures' `Compat`): persistence, and
    /// whether it is divided by the ideal ranking's own overlap.
    Compat(f64, bool),
    /// ranx's F1 of precision at k and recall at k.
    F1,
    /// ranx's DCG with gains 2^g - 1 (Burges et al.), gains below the threshold 0.
    DcgBurges,
    /// ranx's nDCG with gains 2^g - 1 (Burges et al.), gains below the threshold 0.
    NdcgBurges,
    /// A diversity measure of ndeval (pyndeval) over subtopic judgments, with its redundancy
    /// intolerance alpha and its patience beta.
    Diversity(Diversity, f64, f64),
    /// The mean of a measure over every order of the documents with tied scores (McSherry
    /// and Najork, ECIR 2008): reads the rankings prepared with their tie groups.
    TieAware(TieAware),
    /// Documents in the top k absent from the judgments (any grade, negative ones included),
    /// over k (BEIR's Hole@k).
    Hole,
}

/// ndeval's novelty and diversity measures (TREC Web track).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diversity {
    /// alpha-DCG@k over ndeval's "ideal ideal" (every subtopic at every rank).
    AlphaDcg,
    /// alpha-nDCG@k over the greedy ideal ranking.
    AlphaNdcg,
    /// Intent-aware ERR@k over the "ideal ideal".
    ErrIa,
    /// Intent-aware ERR@k over the greedy ideal ranking.
    NErrIa,
    /// Intent-aware precision@k.
    PIa,
    /// Subtopic recall@k.
    StRecall,
    /// Intent-aware average precision.
    ApIa,
    /// Novelty- and rank-biased precision.
    Nrbp,
    /// NRBP over the greedy ideal ranking's.
    NNrbp,
}

/// The user model of a C/W/L measure: its continuation probability at each rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CwlModel {
    /// Rank-biased precision with persistence p.
    Rbp(f64),
    /// Scaled DCG: DCG over the DCG of k fully relevant documents (`SDCG@k`).
    Sdcg,
    /// Equation 8 of Azzopardi, Mackenzie and Moffat (ICTIR 2021), truncated at k.
    Nerr8,
    /// Equation 9, truncated at k.
    Nerr9,
    /// Equation 10 with persistence phi.
    Nerr10(f64),
    /// Equation 11 (12 in the paper) with goal T.
    Nerr11(f64),
    /// INST with goal T.
    Inst(f64),
    /// INSQ with goal T.
    Insq(f64),
    /// The static Bejeweled Player Model with gain goal T and cost budget k.
    Bpm(f64),
}

/// How a C/W/L measure turns grades into gains in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CwlGains {
    /// 1 for a grade >= the relevance threshold, else 0 (ir_measures' `rel=`).
    Binary,
    /// `(clamp(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel)`.
    Scaled { min_rel: f64, max_rel: f64 },
}

/// The ranks a C/W/L measure reads: cwl_eval's `max_n` as ir_measures sets it.
pub const CWL_DEPTH: usize = 1000;
/// gdeval's `$MAX_JUDGMENT`: ERR's stopping probability is (2^g - 1) / 2^4.
pub const ERR_MAX_GRADE: f64 = 4.0;

/// The names of every kernel, for the declarations' tests.
pub fn kernel_names() -> Vec<&'static str> {
    KERNELS.iter().map(|k| k.name).collect()
}

/// A measure: a kernel, its cutoff (None: the whole ranking) and its relevance threshold (None:
/// the evaluation's), with what its declaration says it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub kind: Kind,
    pub cutoff: Option<usize>,
    pub threshold: Option<f64>,
    needs_all_judged: bool,
    reads_subtopics: bool,
}

impl Measure {
    /// Whether the measure maps grades through gain pairs (trec_eval's `ndcg.1=3,2=7`): they
    /// map integer grades, so fractional grades are refused with them.
    fn maps_integer_grades(&self) -> bool {
        match &self.kind {
            Kind::G(pairs)
            | Kind::Ndcg(Some(pairs))
            | Kind::Dcg(pairs)
            | Kind::IdealDcg(pairs)
            | Kind::NdcgRel(pairs)
            | Kind::Rndcg(pairs)
            | Kind::Rbp(_, pairs) => !pairs.is_empty(),
            _ => false,
        }
    }

    /// Whether the measure reads the groups of tied scores (`Prepared::ties`), so the rankings
    /// must be prepared with them (`RankingOptions::ties`).
    pub fn needs_ties(&self) -> bool {
        matches!(self.kind, Kind::TieAware(_))
    }
}

impl Measure {
    /// Build a measure from a kernel name, a cutoff, numeric parameters and gain pairs, checking
    /// that they fit the kernel's declaration (`kernels::KERNELS`).
    pub fn new(
        kernel_name: &str,
        cutoff: Option<usize>,
        params: &[f64],
        gains: Option<GainPairs>,
        threshold: Option<f64>,
    ) -> CoreResult<Measure> {
        let Some(kernel) = kernel(kernel_name) else {
            return Err(CoreError::argument(
                "metrics",
                format!("unknown measure kernel {kernel_name:?}"),
            ));
        };
        let name = kernel.name;
        match (kernel.cutoff, cutoff) {
            (_, Some(0)) => {
                return Err(CoreError::argument(
                    "k",
                    "a cutoff must be a positive integer, got 0",
                ));
            }
            (Cutoff::Required, None) => {
                return Err(CoreError::argument(
                    "k",
                    format!("{name} needs a cutoff k (a positive integer)"),
                ));
            }
            (Cutoff::Refused, Some(k)) => {
                return Err(CoreError::argument(
                    "k",
                    format!("{name} takes no cutoff, got k={k}"),
                ));
            }
            _ => {}
        }
        if let Some(t) = threshold
            && !(t.is_finite() && t > 0.0)
        {
            return Err(CoreError::argument(
                "relevance_threshold",
                format!("must be a finite number > 0, got {t}"),
            ));
        }
        check_params(kernel, params, gains.as_ref())?;
        let needs_all_judged = kernel.needs_all_judged(params, gains.as_ref());
        let kind = (kernel.build)(&Args {
            kernel: name,
            params,
            gains,
        })?;
        Ok(Measure {
            kind,
            cutoff,
            threshold,
            needs_all_judged,
            reads_subtopics: kernel.subtopics,
        })
    }

    /// Whether the measure reads judged documents without a positive grade (judged non-relevant
    /// or unjudged in the pool), so the rankings must be prepared with all judged documents
    /// (the kernel's `JudgedSet`).
    pub fn needs_all_judged(&self) -> bool {
        self.needs_all_judged
    }

    /// Whether the measure reads diversity judgments (`{doc: {subtopic: grade}}`).
    pub fn reads_subtopics(&self) -> bool {
        self.reads_subtopics
    }

    /// Whether the measure reads the relevance list rank by rank (rebuilt per query).
    fn reads_relevance_list(&self) -> bool {
        matches!(
            self.kind,
            Kind::RPrecisionMult(_)
                | Kind::IPrecAtRecall(_)
                | Kind::ElevenPointAverage(_)
                | Kind::G(_)
                | Kind::Ndcg(Some(_))
                | Kind::Dcg(_)
                | Kind::IdealDcg(_)
                | Kind::NdcgRel(_)
                | Kind::Rndcg(_)
                | Kind::Rbp(..)
                | Kind::RbpResidual(_)
        )
    }
}

/// Options of one evaluation.
#[derive(Clone, Copy, Debug)]
pub struct EvaluationOptions {
    /// Grade from which a document is relevant (trec_eval `-l`), unless a measure sets its own.
    pub threshold: f64,
    /// Evaluate judged documents only: unjudged ones are removed from the rankings before
    /// ranks are counted (trec_eval `-J`).
    pub judged_only: bool,
}

/// The fewest queries a worker of the pool evaluates at once.
const PARALLEL_MIN_QUERIES: usize = 64;

/// Whether [`evaluate`] works on the calling thread alone: fewer queries than two workers'
/// shares (rayon would not split them), so that a caller can skip the
/// hand-off to the pool (tens of microseconds, more than such an evaluation costs).
pub fn runs_inline(prepared: &Prepared) -> bool {
    prepared.len() < 2 * PARALLEL_MIN_QUERIES
}

/// Per-query values, row-major: `values[q * measures.len() + m]`. NaN marks an undefined value.
/// Few queries ([`runs_inline`]) are evaluated on the calling thread, more in rayon's current
/// pool.
pub fn evaluate(
    prepared: &Prepared,
    measures: &[Measure],
    options: EvaluationOptions,
) -> CoreResult<Vec<f64>> {
    let threshold = options.threshold;
    if !(threshold.is_finite() && threshold > 0.0) {
        return Err(CoreError::argument(
            "relevance_threshold",
            format!("must be a finite number > 0, got {threshold}"),
        ));
    }
    check_prepared_for(prepared, measures, options)?;
    let n_measures = measures.len();
    let mut values = vec![f64::NAN; prepared.len() * n_measures];
    if n_measures == 0 {
        return Ok(values);
    }
    let hits = prepared.hits.view();
    let judged_positive = prepared.judged_positive.view();
    let subtopics = prepared.subtopics.as_ref().map(|rows| rows.view());
    let needs_list = measures.iter().any(Measure::reads_relevance_list);
    let ties = prepared
        .ties
        .as_ref()
        .filter(|_| measures.iter().any(Measure::needs_ties))
        .map(|rows| rows.view());
    let evaluate_query = |scratch: &mut Scratch, (q, out): (usize, &mut [f64])| {
        let query_ties: &[Tie] = match ties {
            Some(rows) if options.judged_only => {
                let kept = hits.row(q).iter().map(|h| h.grade >= 0.0);
                ties_of_kept(rows.row(q), kept, &mut scratch.ties);
                &scratch.ties
            }
            Some(rows) => rows.row(q),
            None => &[],
        };
        let ranked = Ranked::new(
            hits.row(q),
            prepared.retrieved[q] as usize,
            options.judged_only,
            &mut scratch.judged_hits,
        );
        let judged = Judgments::new(
            judged_positive.row(q),
            prepared.judged_count[q] as usize,
            prepared.judged_negative[q] as usize,
            &mut scratch.ideal,
        );
        if needs_list {
            ranked.fill_relevance(&mut scratch.relevance);
        }
        let query = QueryView {
            ranked,
            judged,
            relevance: &scratch.relevance,
            threshold,
            levels: OnceCell::new(),
            default_gains: OnceCell::new(),
            iprec: OnceCell::new(),
            relevant: OnceCell::new(),
            subtopics: subtopics.map_or(&[][..], |rows| rows.row(q)),
            n_judged: prepared.judged_count[q] as usize,
            ties: query_ties,
        };
        for (slot, measure) in out.iter_mut().zip(measures) {
            *slot = query.value(measure);
        }
    };
    if runs_inline(prepared) {
        // A few queries: on the calling thread, without a hand-off to a pool that would
        // cost more than the evaluation (rayon would not split them anyway).
        let mut scratch = Scratch::default();
        values
            .chunks_mut(n_measures)
            .enumerate()
            .for_each(|item| evaluate_query(&mut scratch, item));
    } else {
        values
            .par_chunks_mut(n_measures)
            .with_min_len(PARALLEL_MIN_QUERIES)
            .enumerate()
            .for_each_init(Scratch::default, evaluate_query);
    }
    Ok(values)
}

fn check_prepared_for(
    prepared: &Prepared,
    measures: &[Measure],
    options: EvaluationOptions,
) -> CoreResult<()> {
    let needs_all = options.judged_only || measures.iter().any(Measure::needs_all_judged);
    if needs_all && !prepared.all_judged && !prepared.is_empty() {
        return Err(CoreError::argument(
            "metrics",
            "internal: these measures need the rankings prepared with every judged document",
        ));
    }
    if measures.iter().any(Measure::needs_ties) && prepared.ties.is_none() && !prepared.is_empty() {
        return Err(CoreError::argument(
            "metrics",
            "internal: these measures need the rankings prepared with their groups of tied scores",
        ));
    }
    if measures.iter().any(Measure::maps_integer_grades) {
        let positive = prepared.judged_positive.view();
        for q in 0..prepared.len() {
            if let Some(g) = positive.row(q).iter().find(|g| g.fract() != 0.0) {
                return Err(CoreError::query(
                    q,
                    format!(
                        "gain pairs (trec_eval's ndcg.1=3,2=7, ir_measures' gains=) map integer \
                         grades, but a document is judged {g}: without gain pairs the grades \
                         are the gains, or map the fractional grades to integer levels"
                    ),
                ));
            }
        }
    }
    let with_subtopics = prepared.subtopics.is_some();
    if let Some(m) = measures
        .iter()
        .find(|m| m.reads_subtopics() != with_subtopics)
    {
        return Err(CoreError::argument(
            "metrics",
            if with_subtopics {
                format!(
                    "{:?} reads judgments {{doc: grade}}, but these are diversity judgments {{doc: {{subtopic: grade}}}}",
                    m.kind
                )
            } else {
                format!(
                    "{:?} needs diversity judgments {{doc: {{subtopic: grade}}}}",
                    m.kind
                )
            },
        ));
    }
    Ok(())
}

/// trec_eval's relevance string of each query: one character per rank of the first `length`
/// ranks: the grade (0-9, `>` above 9), `-` for a document absent from the judgments, `.` for
/// one judged with a negative grade.
pub fn relevance_strings(
    prepared: &Prepared,
    length: usize,
    judged_only: bool,
) -> CoreResult<Vec<String>> {
    if !prepared.all_judged && !prepared.is_empty() {
        return Err(CoreError::argument(
            "metrics",
            "internal: relstring needs the rankings prepared with every judged document",
        ));
    }
    let hits = prepared.hits.view();
    Ok((0..prepared.len())
        .into_par_iter()
        .map_init(Scratch::default, |scratch, q| {
            let ranked = Ranked::new(
                hits.row(q),
                prepared.retrieved[q] as usize,
                judged_only,
                &mut scratch.judged_hits,
            );
            ranked.fill_relevance(&mut scratch.relevance);
            scratch
                .relevance
                .iter()
                .take(length)
                .map(|&rel| match rel {
                    r if r == NONPOOL => '-',
                    r if r == UNJUDGED => '.',
                    // trec_eval's grades are integers (it reads them with atol).
                    r if r.trunc() > 9.0 => '>',
                    r => char::from(b'0' + r.trunc() as u8),
                })
                .collect()
        })
        .collect())
}

pub mod columns;
mod diversity;
mod gains;
pub mod kernels;
mod providers;
mod query;
mod tie_aware;

use crate::ties::{Tie, ties_of_kept};
pub use tie_aware::TieAware;

use kernels::{Args, Cutoff, KERNELS, check_params, kernel};

use query::{Judgments, QueryView, Ranked};
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tie_aware_tests;

#[derive(Default)]
struct Scratch {
    judged_hits: Vec<Hit>,
    ideal: Vec<f64>,
    relevance: Vec<f64>,
    ties: Vec<Tie>,
}
