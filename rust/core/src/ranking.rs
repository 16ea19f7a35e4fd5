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

use std::cell::OnceCell;

use rayon::prelude::*;

use crate::prepare::{Prepared, SubtopicGrade};
use crate::{CoreError, CoreResult};

/// A ranked judged document: its 1-based rank and its grade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub rank: u32,
    pub grade: f64,
}

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

/// Kernel names with whether they take a cutoff (`Some(true)`: required, `Some(false)`:
/// optional, `None`: none) and how many parameters they read.
const KERNELS: &[(&str, Option<bool>, Params)] = &[
    ("num_ret", None, Params::None),
    ("num_rel", None, Params::None),
    ("num_rel_ret", None, Params::None),
    ("num_nonrel_judged_ret", None, Params::None),
    ("num_judged_positive", None, Params::None),
    ("precision", Some(true), Params::None),
    ("recall", Some(true), Params::None),
    ("success", Some(true), Params::None),
    ("hits", Some(true), Params::None),
    ("relative_precision", Some(true), Params::None),
    ("unjudged", Some(true), Params::None),
    ("reciprocal_rank", Some(false), Params::None),
    ("average_precision", Some(false), Params::None),
    ("r_precision", None, Params::None),
    ("r_precision_mult", None, Params::Exactly(1)),
    ("iprec_at_recall", None, Params::Exactly(1)),
    ("eleven_point_average", None, Params::AtLeast(1)),
    ("bpref", None, Params::None),
    ("infap", None, Params::None),
    ("bin_g", None, Params::None),
    ("g", None, Params::Gains),
    ("ndcg", Some(false), Params::OptionalGains),
    ("dcg", Some(false), Params::Gains),
    ("ideal_dcg", None, Params::Gains),
    ("ndcg_rel", None, Params::Gains),
    ("rndcg", None, Params::Gains),
    ("set_precision", None, Params::None),
    ("set_recall", None, Params::None),
    ("set_relative_precision", None, Params::None),
    ("set_map", None, Params::None),
    ("set_f", None, Params::Exactly(1)),
    ("utility", None, Params::Exactly(5)),
    ("rbp", None, Params::ExactlyWithGains(1)),
    ("rbp_residual", None, Params::Exactly(1)),
    ("err", Some(false), Params::None),
    ("ndcg_exp", Some(false), Params::None),
    ("rbp_graded", Some(false), Params::Exactly(1)),
    ("rbp_graded_residual", Some(false), Params::Exactly(1)),
    ("rbp_binary", None, Params::Exactly(1)),
    ("judged", Some(false), Params::None),
    ("accuracy", Some(false), Params::None),
    ("sdcg", Some(true), Params::Exactly(2)),
    ("nerr8", Some(true), Params::Exactly(2)),
    ("nerr9", Some(true), Params::Exactly(2)),
    ("nerr10", None, Params::Exactly(3)),
    ("nerr11", None, Params::Exactly(3)),
    ("inst", None, Params::Exactly(3)),
    ("insq", None, Params::Exactly(3)),
    ("bpm", Some(true), Params::Exactly(3)),
    ("compat", None, Params::Exactly(2)),
    ("f1", Some(false), Params::None),
    ("dcg_burges", Some(false), Params::None),
    ("ndcg_burges", Some(false), Params::None),
    ("alpha_dcg", Some(true), Params::Exactly(1)),
    ("alpha_ndcg", Some(true), Params::Exactly(1)),
    ("err_ia", Some(true), Params::Exactly(1)),
    ("nerr_ia", Some(true), Params::Exactly(1)),
    ("p_ia", Some(true), Params::None),
    ("st_recall", Some(true), Params::None),
    ("ap_ia", None, Params::None),
    ("nrbp", None, Params::Exactly(2)),
    ("nnrbp", None, Params::Exactly(2)),
];

#[derive(Clone, Copy, Debug)]
enum Params {
    None,
    Exactly(usize),
    AtLeast(usize),
    Gains,
    OptionalGains,
    ExactlyWithGains(usize),
}

/// The names of every kernel, for the declarations' tests.
pub fn kernel_names() -> Vec<&'static str> {
    KERNELS.iter().map(|k| k.0).collect()
}

/// A measure: a kernel, its cutoff (None: the whole ranking) and its relevance threshold (None:
/// the evaluation's).
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub kind: Kind,
    pub cutoff: Option<usize>,
    pub threshold: Option<f64>,
}

impl Measure {
    /// Build a measure from a kernel name, a cutoff, numeric parameters and gain pairs, checking
    /// that they fit the kernel.
    pub fn new(
        kernel: &str,
        cutoff: Option<usize>,
        params: &[f64],
        gains: Option<GainPairs>,
        threshold: Option<f64>,
    ) -> CoreResult<Measure> {
        let Some(&(_, takes_cutoff, takes)) = KERNELS.iter().find(|k| k.0 == kernel) else {
            return Err(CoreError::argument(
                "metrics",
                format!("unknown measure kernel {kernel:?}"),
            ));
        };
        match (takes_cutoff, cutoff) {
            (_, Some(0)) => {
                return Err(CoreError::argument(
                    "k",
                    "a cutoff must be a positive integer, got 0",
                ));
            }
            (Some(true), None) => {
                return Err(CoreError::argument(
                    "k",
                    format!("{kernel} needs a cutoff k (a positive integer)"),
                ));
            }
            (None, Some(k)) => {
                return Err(CoreError::argument(
                    "k",
                    format!("{kernel} takes no cutoff, got k={k}"),
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
        let count_ok = match takes {
            Params::None | Params::Gains | Params::OptionalGains => params.is_empty(),
            Params::Exactly(n) | Params::ExactlyWithGains(n) => params.len() == n,
            Params::AtLeast(n) => params.len() >= n,
        };
        if !count_ok || params.iter().any(|p| !p.is_finite()) {
            return Err(CoreError::argument(
                "metrics",
                format!("{kernel}: wrong parameters {params:?}"),
            ));
        }
        let gains_ok = matches!(
            takes,
            Params::Gains | Params::OptionalGains | Params::ExactlyWithGains(_)
        ) || gains.is_none();
        if !gains_ok {
            return Err(CoreError::argument(
                "metrics",
                format!("{kernel} takes no gains"),
            ));
        }
        if let Some(pairs) = &gains
            && let Some(bad) = pairs.iter().find(|(l, g)| *l < 0 || !g.is_finite())
        {
            return Err(CoreError::argument(
                "metrics",
                format!(
                    "{kernel}: gain {} for level {}: levels are judged grades >= 0 and gains finite",
                    bad.1, bad.0
                ),
            ));
        }
        let p = |i: usize| params[i];
        let pairs = || gains.clone().unwrap_or_default();
        let kind = match kernel {
            "num_ret" => Kind::NumRet,
            "num_rel" => Kind::NumRel,
            "num_rel_ret" => Kind::NumRelRet,
            "num_nonrel_judged_ret" => Kind::NumNonrelJudgedRet,
            "num_judged_positive" => Kind::NumJudgedPositive,
            "precision" => Kind::Precision,
            "recall" => Kind::Recall,
            "success" => Kind::Success,
            "hits" => Kind::Hits,
            "relative_precision" => Kind::RelativePrecision,
            "unjudged" => Kind::Unjudged,
            "reciprocal_rank" => Kind::ReciprocalRank,
            "average_precision" => Kind::AveragePrecision,
            "r_precision" => Kind::RPrecision,
            "r_precision_mult" => Kind::RPrecisionMult(p(0)),
            "iprec_at_recall" => Kind::IPrecAtRecall(p(0)),
            "eleven_point_average" => Kind::ElevenPointAverage(params.to_vec()),
            "bpref" => Kind::Bpref,
            "infap" => Kind::InfAp,
            "bin_g" => Kind::BinG,
            "g" => Kind::G(pairs()),
            "ndcg" => Kind::Ndcg(gains.clone()),
            "dcg" => Kind::Dcg(pairs()),
            "ideal_dcg" => Kind::IdealDcg(pairs()),
            "ndcg_rel" => Kind::NdcgRel(pairs()),
            "rndcg" => Kind::Rndcg(pairs()),
            "set_precision" => Kind::SetPrecision,
            "set_recall" => Kind::SetRecall,
            "set_relative_precision" => Kind::SetRelativePrecision,
            "set_map" => Kind::SetMap,
            "set_f" => Kind::SetF(p(0)),
            "utility" => Kind::Utility([p(0), p(1), p(2), p(3)], p(4)),
            "rbp" => {
                if !(0.0..1.0).contains(&p(0)) {
                    return Err(CoreError::argument(
                        "metrics",
                        format!("rbp: the persistence p must be in [0, 1), got {}", p(0)),
                    ));
                }
                Kind::Rbp(p(0), pairs())
            }
            "rbp_residual" => {
                if !(0.0..1.0).contains(&p(0)) {
                    return Err(CoreError::argument(
                        "metrics",
                        format!(
                            "rbp_resid: the persistence p must be in [0, 1), got {}",
                            p(0)
                        ),
                    ));
                }
                Kind::RbpResidual(p(0))
            }
            "err" => Kind::Err,
            "ndcg_exp" => Kind::NdcgExp,
            "rbp_graded" | "rbp_graded_residual" | "rbp_binary" => {
                if !(p(0) > 0.0 && p(0) < 1.0) {
                    return Err(CoreError::argument(
                        "metrics",
                        format!(
                            "{kernel}: the persistence p must be in (0, 1), got {}",
                            p(0)
                        ),
                    ));
                }
                match kernel {
                    "rbp_graded" => Kind::RbpGraded(p(0)),
                    "rbp_graded_residual" => Kind::RbpGradedResidual(p(0)),
                    _ => Kind::Cwl(CwlModel::Rbp(p(0)), CwlGains::Binary),
                }
            }
            "judged" => Kind::Judged,
            "accuracy" => Kind::Accuracy,
            "sdcg" | "nerr8" | "nerr9" => {
                let gains = cwl_gains(kernel, p(0), p(1))?;
                let model = match kernel {
                    "sdcg" => CwlModel::Sdcg,
                    "nerr8" => CwlModel::Nerr8,
                    _ => CwlModel::Nerr9,
                };
                Kind::Cwl(model, gains)
            }
            "nerr10" | "nerr11" | "inst" | "insq" | "bpm" => {
                let gains = cwl_gains(kernel, p(1), p(2))?;
                let x = p(0);
                let model = match kernel {
                    "nerr10" if x > 0.0 && x <= 1.0 => CwlModel::Nerr10(x),
                    "nerr10" => {
                        return Err(CoreError::argument(
                            "metrics",
                            format!("nerr10: the persistence p must be in (0, 1], got {x}"),
                        ));
                    }
                    _ if x <= 0.0 => {
                        return Err(CoreError::argument(
                            "metrics",
                            format!("{kernel}: the goal T must be > 0, got {x}"),
                        ));
                    }
                    "nerr11" => CwlModel::Nerr11(x),
                    "inst" => CwlModel::Inst(x),
                    "insq" => CwlModel::Insq(x),
                    _ => CwlModel::Bpm(x),
                };
                Kind::Cwl(model, gains)
            }
            "compat" => {
                if !(p(0) > 0.0 && p(0) < 1.0) {
                    return Err(CoreError::argument(
                        "metrics",
                        format!("compat: the persistence p must be in (0, 1), got {}", p(0)),
                    ));
                }
                Kind::Compat(p(0), p(1) != 0.0)
            }
            "f1" => Kind::F1,
            "dcg_burges" => Kind::DcgBurges,
            "ndcg_burges" => Kind::NdcgBurges,
            "alpha_dcg" | "alpha_ndcg" | "err_ia" | "nerr_ia" | "p_ia" | "st_recall" | "ap_ia"
            | "nrbp" | "nnrbp" => {
                let which = match kernel {
                    "alpha_dcg" => Diversity::AlphaDcg,
                    "alpha_ndcg" => Diversity::AlphaNdcg,
                    "err_ia" => Diversity::ErrIa,
                    "nerr_ia" => Diversity::NErrIa,
                    "p_ia" => Diversity::PIa,
                    "st_recall" => Diversity::StRecall,
                    "ap_ia" => Diversity::ApIa,
                    "nrbp" => Diversity::Nrbp,
                    _ => Diversity::NNrbp,
                };
                let alpha = params.first().copied().unwrap_or(0.5);
                let beta = params.get(1).copied().unwrap_or(0.5);
                if !(0.0..=1.0).contains(&alpha) || !(0.0..=1.0).contains(&beta) {
                    return Err(CoreError::argument(
                        "metrics",
                        format!(
                            "{kernel}: alpha and beta must be in [0, 1], got {alpha} and {beta}"
                        ),
                    ));
                }
                Kind::Diversity(which, alpha, beta)
            }
            _ => unreachable!("every name of KERNELS is matched"),
        };
        Ok(Measure {
            kind,
            cutoff,
            threshold,
        })
    }

    /// Whether the measure reads judged documents without a positive grade (judged non-relevant
    /// or unjudged in the pool), so the rankings must be prepared with all judged documents.
    pub fn needs_all_judged(&self) -> bool {
        match &self.kind {
            Kind::Bpref
            | Kind::InfAp
            | Kind::NumNonrelJudgedRet
            | Kind::Unjudged
            | Kind::RbpResidual(_)
            | Kind::RbpGradedResidual(_)
            | Kind::Judged => true,
            // A minimum grade below 0 gives judged non-relevant documents a gain (not
            // unjudged ones).
            Kind::Cwl(_, CwlGains::Scaled { min_rel, .. }) => *min_rel < 0.0,
            // A user's gain for level 0 makes judged non-relevant documents count.
            Kind::G(pairs)
            | Kind::Dcg(pairs)
            | Kind::IdealDcg(pairs)
            | Kind::NdcgRel(pairs)
            | Kind::Rndcg(pairs)
            | Kind::Rbp(_, pairs)
            | Kind::Ndcg(Some(pairs)) => !pairs.is_empty(),
            _ => false,
        }
    }

    /// Whether the measure reads diversity judgments (`{doc: {subtopic: grade}}`).
    pub fn reads_subtopics(&self) -> bool {
        matches!(self.kind, Kind::Diversity(..))
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

fn cwl_gains(kernel: &str, min_rel: f64, max_rel: f64) -> CoreResult<CwlGains> {
    if min_rel < max_rel {
        Ok(CwlGains::Scaled { min_rel, max_rel })
    } else {
        Err(CoreError::argument(
            "metrics",
            format!("{kernel}: min_rel ({min_rel}) must be less than max_rel ({max_rel})"),
        ))
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

/// Per-query values, row-major: `values[q * measures.len() + m]`. NaN marks an undefined value.
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
    values
        .par_chunks_mut(n_measures)
        .with_min_len(64)
        .enumerate()
        .for_each_init(Scratch::default, |scratch, (q, out)| {
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
                subtopics: subtopics.map_or(&[][..], |rows| rows.row(q)),
                n_judged: prepared.judged_count[q] as usize,
            };
            for (slot, measure) in out.iter_mut().zip(measures) {
                *slot = query.value(measure);
            }
        });
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

#[derive(Default)]
struct Scratch {
    judged_hits: Vec<Hit>,
    ideal: Vec<f64>,
    relevance: Vec<f64>,
}

/// One query's ranking as the measures see it: its judged ranked documents and its length.
#[derive(Clone, Copy)]
struct Ranked<'a> {
    hits: &'a [Hit],
    num_ret: usize,
}

impl<'a> Ranked<'a> {
    /// With `judged_only`, documents absent from the judgments or judged with a negative grade
    /// are removed before ranks are counted (trec_eval `-J`, which cuts at `-M` first).
    fn new(hits: &'a [Hit], num_ret: usize, judged_only: bool, scratch: &'a mut Vec<Hit>) -> Self {
        if !judged_only {
            return Ranked { hits, num_ret };
        }
        scratch.clear();
        scratch.extend(hits.iter().filter(|h| h.grade >= 0.0));
        for (i, h) in scratch.iter_mut().enumerate() {
            h.rank = (i + 1) as u32;
        }
        Ranked {
            num_ret: scratch.len(),
            hits: scratch,
        }
    }

    /// trec_eval's `results_rel_list`: the relevance value of each rank.
    fn fill_relevance(&self, out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.num_ret, NONPOOL);
        for h in self.hits {
            if let Some(slot) = out.get_mut(h.rank as usize - 1) {
                *slot = if h.grade < 0.0 { UNJUDGED } else { h.grade };
            }
        }
    }
}

/// One query's judgments: the positive grades, sorted in decreasing order (the ideal ranking
/// of the linear-gain nDCG), and the counts of the other judged documents.
struct Judgments<'a> {
    ideal: &'a [f64],
    n_zero: usize,
}

impl<'a> Judgments<'a> {
    fn new(
        positive: &[f64],
        n_judged: usize,
        n_negative: usize,
        scratch: &'a mut Vec<f64>,
    ) -> Self {
        scratch.clear();
        scratch.extend_from_slice(positive);
        scratch.sort_unstable_by(|a, b| b.total_cmp(a));
        Judgments {
            ideal: scratch,
            n_zero: n_judged.saturating_sub(positive.len() + n_negative),
        }
    }

    /// R: judged documents with a grade >= threshold.
    fn n_relevant(&self, threshold: f64) -> usize {
        self.ideal.partition_point(|g| *g >= threshold)
    }

    /// Judged documents with 0 <= grade < threshold.
    fn n_nonrelevant(&self, threshold: f64) -> usize {
        self.n_zero + self.ideal.len() - self.n_relevant(threshold)
    }

    /// trec_eval's `rel_levels`: (level, number of judged documents at it), levels ascending.
    /// Integer grades give every level from 0 to the highest (as trec_eval's array); other
    /// grades give 0 and each distinct grade.
    fn levels(&self) -> Vec<(f64, usize)> {
        let mut counts: Vec<(f64, usize)> = Vec::new();
        for &g in self.ideal.iter().rev() {
            match counts.last_mut() {
                Some(last) if last.0 == g => last.1 += 1,
                _ => counts.push((g, 1)),
            }
        }
        let integral = counts
            .iter()
            .all(|&(g, _)| g.fract() == 0.0 && g < MAX_INTEGER_LEVELS as f64);
        if integral {
            let top = counts.last().map_or(0, |&(g, _)| g as usize);
            let mut levels: Vec<(f64, usize)> = (0..=top).map(|l| (l as f64, 0)).collect();
            levels[0].1 = self.n_zero;
            for (g, n) in counts {
                levels[g as usize].1 = n;
            }
            levels
        } else {
            let mut levels = vec![(0.0, self.n_zero)];
            levels.extend(counts);
            levels
        }
    }
}

/// Integer grades up to this many levels are expanded to trec_eval's array of levels.
const MAX_INTEGER_LEVELS: usize = 1 << 16;

/// One level of trec_eval's gain table (`REL_GAIN`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LevelGain {
    level: f64,
    gain: f64,
    count: usize,
}

/// trec_eval's `setup_gains`: the user's pairs first (those whose level is an integer), then
/// every level of the judgments without a pair (gain = level), sorted by gain as trec_eval
/// sorts them.
fn gain_table(pairs: &[(i64, f64)], levels: &[(f64, usize)]) -> Vec<LevelGain> {
    let count_at = |level: f64| levels.iter().find(|l| l.0 == level).map_or(0, |l| l.1);
    let mut table: Vec<LevelGain> = pairs
        .iter()
        .map(|&(level, gain)| LevelGain {
            level: level as f64,
            gain,
            count: count_at(level as f64),
        })
        .collect();
    for &(level, count) in levels {
        if !table.iter().any(|g| g.level == level) {
            table.push(LevelGain {
                level,
                gain: level,
                count,
            });
        }
    }
    glibc_merge_sort(&mut table, |a, b| {
        // trec_eval's comparator returns the difference of the gains converted to an int:
        // gains less than 1 apart compare equal. glibc's qsort (a merge sort) keeps equal
        // elements in order, so that order is reproduced, not a total order by gain.
        (a.gain - b.gain) as i32
    });
    table
}

/// glibc's `msort_with_tmp` (the merge sort behind `qsort`): the same comparisons in the same
/// order, so that a comparator that is not a total order gives glibc's result. Never panics.
fn glibc_merge_sort<T: Copy>(items: &mut [T], cmp: impl Fn(&T, &T) -> i32 + Copy) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    glibc_merge_sort(&mut items[..n1], cmp);
    glibc_merge_sort(&mut items[n1..], cmp);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&items[i], &items[j]) <= 0 {
            merged.push(items[i]);
            i += 1;
        } else {
            merged.push(items[j]);
            j += 1;
        }
    }
    merged.extend_from_slice(&items[i..n1]);
    merged.extend_from_slice(&items[j..n]);
    items.copy_from_slice(&merged);
}

/// trec_eval's `get_gain`: the gain of a relevance value (0 for values without a level).
fn gain_of(relevance: f64, table: &[LevelGain]) -> f64 {
    table
        .iter()
        .find(|g| g.level == relevance)
        .map_or(0.0, |g| g.gain)
}

/// The ideal ranking of a gain table, walked as trec_eval walks it: from the highest gain
/// down, `count` documents per level, ending at the first level whose gain is not positive.
struct IdealGains<'a> {
    table: &'a [LevelGain],
    level: isize,
    at_level: usize,
}

impl<'a> IdealGains<'a> {
    fn new(table: &'a [LevelGain]) -> Self {
        IdealGains {
            table,
            level: table.len() as isize - 1,
            at_level: 0,
        }
    }

    fn current(&self) -> f64 {
        if self.level >= 0 {
            self.table[self.level as usize].gain
        } else {
            0.0
        }
    }

    /// Move to the next rank; return its ideal gain (trec_eval's `ideal_gain`).
    fn advance(&mut self) -> f64 {
        self.at_level += 1;
        while self.level >= 0 && self.at_level > self.table[self.level as usize].count {
            self.at_level = 1;
            self.level -= 1;
        }
        self.current()
    }
}

/// Sums start from +0.0: `Iterator::sum` of f64 starts from -0.0, and an empty sum must not
/// print as "-0.0000".
fn add(a: f64, b: f64) -> f64 {
    a + b
}

struct QueryView<'a> {
    ranked: Ranked<'a>,
    judged: Judgments<'a>,
    /// The relevance list (filled only when a measure reads it).
    relevance: &'a [f64],
    threshold: f64,
    /// Computed once per query, when first needed: the relevance levels, the default gain
    /// table, and the interpolated precisions at the evaluation's threshold.
    levels: OnceCell<Vec<(f64, usize)>>,
    default_gains: OnceCell<Vec<LevelGain>>,
    iprec: OnceCell<Vec<f64>>,
    /// Diversity judgments (empty without them).
    subtopics: &'a [SubtopicGrade],
    /// Judged documents of the query.
    n_judged: usize,
}

impl QueryView<'_> {
    fn relevant_ranks(&self, t: f64) -> impl Iterator<Item = usize> + '_ {
        self.ranked
            .hits
            .iter()
            .filter(move |h| h.grade >= t)
            .map(|h| h.rank as usize)
    }

    fn relevant_within(&self, t: f64, k: usize) -> usize {
        self.relevant_ranks(t).take_while(|&r| r <= k).count()
    }

    fn value(&self, measure: &Measure) -> f64 {
        let t = measure.threshold.unwrap_or(self.threshold);
        let k = measure.cutoff.unwrap_or(usize::MAX);
        let r = self.judged.n_relevant(t);
        let num_ret = self.ranked.num_ret;
        let per_relevant = |x: f64| if r == 0 { f64::NAN } else { x / r as f64 };
        match &measure.kind {
            Kind::NumRet => num_ret as f64,
            Kind::NumRel => r as f64,
            Kind::NumRelRet => self.relevant_within(t, usize::MAX) as f64,
            Kind::NumNonrelJudgedRet => self
                .ranked
                .hits
                .iter()
                .filter(|h| h.grade >= 0.0 && h.grade < t)
                .count() as f64,
            Kind::NumJudgedPositive => self.judged.ideal.len() as f64,
            Kind::Precision => self.relevant_within(t, k) as f64 / k as f64,
            Kind::Recall => per_relevant(self.relevant_within(t, k) as f64),
            Kind::Success => f64::from(u8::from(self.relevant_within(t, k) > 0)),
            Kind::Hits => self.relevant_within(t, k) as f64,
            Kind::RelativePrecision => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.relevant_within(t, k) as f64 / k.min(r) as f64
                }
            }
            Kind::Unjudged => {
                let judged = self
                    .ranked
                    .hits
                    .iter()
                    .take_while(|h| h.rank as usize <= k)
                    .filter(|h| h.grade >= 0.0)
                    .count();
                (k.min(num_ret) - judged) as f64 / k as f64
            }
            Kind::ReciprocalRank => match self.relevant_ranks(t).next() {
                Some(rank) if rank <= k => 1.0 / rank as f64,
                _ => 0.0,
            },
            Kind::AveragePrecision => {
                let sum = self
                    .relevant_ranks(t)
                    .take_while(|&rank| rank <= k)
                    .enumerate()
                    .map(|(i, rank)| (i + 1) as f64 / rank as f64)
                    .fold(0.0, add);
                per_relevant(sum)
            }
            Kind::RPrecision => per_relevant(self.relevant_within(t, r) as f64),
            Kind::RPrecisionMult(multiple) => self.r_precision_mult(t, r, *multiple),
            Kind::IPrecAtRecall(level) => {
                let cutoff = (level * r as f64).round() as i64;
                let at = |profile: &[f64]| {
                    usize::try_from(cutoff)
                        .ok()
                        .and_then(|c| profile.get(c).copied())
                        .unwrap_or(0.0)
                };
                if t == self.threshold {
                    at(self.iprec.get_or_init(|| self.iprec_profile(t)))
                } else {
                    at(&self.iprec_profile(t))
                }
            }
            Kind::ElevenPointAverage(levels) => {
                // trec_eval adds the interpolated precisions from the last level down.
                let values = self.interpolated_precision(t, r, levels);
                values.iter().rev().copied().fold(0.0, add) / levels.len() as f64
            }
            Kind::Bpref => self.bpref(t, r),
            Kind::InfAp => self.inf_ap(t, r),
            Kind::BinG => self.bin_g(t, r),
            Kind::G(pairs) => self.g(pairs),
            Kind::Ndcg(None) => self.ndcg_linear(k),
            Kind::Ndcg(Some(pairs)) => self.dcg_family(pairs, k, DcgOutput::Normalized),
            Kind::Dcg(pairs) => self.dcg_family(pairs, k, DcgOutput::Dcg),
            Kind::IdealDcg(pairs) => self.dcg_family(pairs, k, DcgOutput::Ideal),
            Kind::NdcgRel(pairs) => self.ndcg_rel(pairs),
            Kind::Rndcg(pairs) => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.rndcg(pairs)
                }
            }
            Kind::SetPrecision | Kind::SetRelativePrecision | Kind::SetMap if num_ret == 0 => {
                f64::NAN
            }
            Kind::SetPrecision => self.relevant_within(t, usize::MAX) as f64 / num_ret as f64,
            Kind::SetRecall => per_relevant(self.relevant_within(t, usize::MAX) as f64),
            Kind::SetRelativePrecision => {
                if r == 0 {
                    f64::NAN
                } else {
                    self.relevant_within(t, usize::MAX) as f64 / num_ret.min(r) as f64
                }
            }
            Kind::SetMap => {
                if r == 0 {
                    f64::NAN
                } else {
                    let rel_ret = self.relevant_within(t, usize::MAX) as f64;
                    (rel_ret * rel_ret) / (num_ret as f64 * r as f64)
                }
            }
            Kind::SetF(beta) => {
                if r == 0 {
                    return f64::NAN;
                }
                let rel_ret = self.relevant_within(t, usize::MAX);
                if rel_ret == 0 {
                    return 0.0;
                }
                let p = rel_ret as f64 / num_ret as f64;
                let recall = rel_ret as f64 / r as f64;
                (beta + 1.0) * p * recall / (beta * p + recall)
            }
            Kind::Utility(c, n_docs) => {
                let rel_ret = self.relevant_within(t, usize::MAX) as i64;
                let (num_ret, r) = (num_ret as i64, r as i64);
                c[0] * rel_ret as f64
                    + c[1] * (num_ret - rel_ret) as f64
                    + c[2] * (r - rel_ret) as f64
                    + c[3] * (*n_docs as i64 + rel_ret - num_ret - r) as f64
            }
            Kind::Rbp(p, pairs) => self.rbp(*p, pairs),
            Kind::RbpResidual(p) => {
                let mut unjudged = 0usize;
                let mut sum = 0.0;
                let mut weight = 1.0;
                for &rel in self.relevance {
                    if rel < 0.0 {
                        unjudged += 1;
                        sum += weight;
                    }
                    weight *= p;
                }
                if unjudged > 0 {
                    weight + (1.0 - p) * sum
                } else {
                    0.0
                }
            }
            Kind::Err => self.err(k),
            Kind::NdcgExp => self.ndcg_exp(k),
            Kind::RbpGraded(p) => self
                .ranked
                .hits
                .iter()
                .take_while(|h| h.rank as usize <= k)
                .filter(|h| h.grade > 0.0)
                .map(|h| (1.0 - p) * p.powf(f64::from(h.rank - 1)) * h.grade)
                .fold(0.0, add),
            Kind::RbpGradedResidual(p) => {
                // Unjudged: absent from the judgments (a negative grade is a judgment).
                let depth = if measure.cutoff.is_some() { k } else { num_ret };
                let mut judged = self.ranked.hits.iter().map(|h| h.rank as usize).peekable();
                let mut unjudged_weight = 0.0;
                for rank in 1..=depth.min(num_ret) {
                    if judged.next_if_eq(&rank).is_none() {
                        unjudged_weight += (1.0 - p) * p.powf((rank - 1) as f64);
                    }
                }
                unjudged_weight + p.powf(depth as f64)
            }
            Kind::Judged => {
                let depth = k.min(num_ret);
                if depth == 0 {
                    return f64::NAN;
                }
                let judged = self
                    .ranked
                    .hits
                    .iter()
                    .take_while(|h| h.rank as usize <= depth)
                    .count();
                judged as f64 / depth as f64
            }
            Kind::Accuracy => {
                let depth = k.min(num_ret);
                let (mut rel_ret, mut nonrel_above_sum) = (0usize, 0usize);
                for rank in self.relevant_ranks(t).take_while(|&r| r <= depth) {
                    nonrel_above_sum += rank - 1 - rel_ret;
                    rel_ret += 1;
                }
                let nonrel = depth - rel_ret;
                if rel_ret == 0 || nonrel == 0 {
                    return f64::NAN;
                }
                1.0 - nonrel_above_sum as f64 / (nonrel as f64 * rel_ret as f64)
            }
            Kind::Cwl(model, gains) => self.cwl(*model, *gains, t, measure.cutoff),
            Kind::Compat(p, normalize) => self.compat(*p, *normalize),
            Kind::F1 => {
                if r == 0 {
                    return f64::NAN;
                }
                let depth = measure.cutoff.unwrap_or(num_ret);
                if depth == 0 {
                    return 0.0;
                }
                let hits = self.relevant_within(t, depth) as f64;
                let precision = hits / depth as f64;
                let recall = hits / r as f64;
                if precision + recall == 0.0 {
                    0.0
                } else {
                    2.0 * ((precision * recall) / (precision + recall))
                }
            }
            Kind::Diversity(which, alpha, beta) => {
                self.diversity(*which, *alpha, *beta, t, measure.cutoff)
            }
            Kind::DcgBurges => self.dcg_burges(t, k),
            Kind::NdcgBurges => {
                let ideal = self.ideal_dcg_burges(t, k);
                if ideal > 0.0 {
                    self.dcg_burges(t, k) / ideal
                } else {
                    f64::NAN
                }
            }
        }
    }

    /// ndeval's diversity measures (version 4.5, as pyndeval runs it). A document's subtopics
    /// are those it is judged relevant to (grade >= t); only the subtopics some document is
    /// relevant to count (A of them). Undefined when A = 0.
    fn diversity(
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

    /// gdeval's `err`: ranks up to k, grades above gdeval's maximum 4 count as 4.
    fn err(&self, k: usize) -> f64 {
        if self.judged.ideal.is_empty() {
            // gdeval leaves out a topic without a positive judgment.
            return f64::NAN;
        }
        let max = ERR_MAX_GRADE.exp2();
        let (mut score, mut decay) = (0.0, 1.0);
        // Ranks without a positive grade have r = 0: they change neither sum.
        for h in self.ranked.hits.iter().filter(|h| h.grade > 0.0) {
            let rank = h.rank as usize;
            if rank > k {
                break;
            }
            let r = (h.grade.min(ERR_MAX_GRADE).exp2() - 1.0) / max;
            score += r * decay / rank as f64;
            decay *= 1.0 - r;
        }
        score
    }

    /// gdeval's nDCG: `sum (2^g - 1) / ln(i + 1)` over the ranking and over the positive
    /// grades in decreasing order, both cut at k.
    fn ndcg_exp(&self, k: usize) -> f64 {
        let dcg = self
            .ranked
            .hits
            .iter()
            .take_while(|h| h.rank as usize <= k)
            .filter(|h| h.grade > 0.0)
            .map(|h| (h.grade.exp2() - 1.0) / (h.rank as f64 + 1.0).ln())
            .fold(0.0, add);
        let ideal = self
            .judged
            .ideal
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, g)| (g.exp2() - 1.0) / (i as f64 + 2.0).ln())
            .fold(0.0, add);
        if ideal > 0.0 { dcg / ideal } else { f64::NAN }
    }

    /// ranx's `dcg_burges`: `sum (2^g - 1) / log2(i + 1)` over the top k, grades below the
    /// threshold gain nothing.
    fn dcg_burges(&self, t: f64, k: usize) -> f64 {
        self.ranked
            .hits
            .iter()
            .take_while(|h| h.rank as usize <= k)
            .filter(|h| h.grade >= t)
            .map(|h| (h.grade.exp2() - 1.0) / (h.rank as f64 + 1.0).log2())
            .fold(0.0, add)
    }

    fn ideal_dcg_burges(&self, t: f64, k: usize) -> f64 {
        self.judged
            .ideal
            .iter()
            .take_while(|g| **g >= t)
            .take(k)
            .enumerate()
            .map(|(i, g)| (g.exp2() - 1.0) / (i as f64 + 2.0).log2())
            .fold(0.0, add)
    }

    /// A C/W/L measure as cwl_eval computes it: over `CWL_DEPTH` ranks (gains 0 past the
    /// ranking and for unjudged documents), the expected utility
    /// `sum_i W_i g_i` with `W_i = C_i / sum_m C_m` and `C_i` the product of the
    /// continuation probabilities of the ranks above i.
    fn cwl(&self, model: CwlModel, gains: CwlGains, t: f64, cutoff: Option<usize>) -> f64 {
        let gain_of_grade = |grade: f64| match gains {
            CwlGains::Binary => f64::from(u8::from(grade >= t)),
            CwlGains::Scaled { min_rel, max_rel } => {
                (grade.max(0.0).clamp(min_rel, max_rel) - min_rel) / (max_rel - min_rel)
            }
        };
        // Gains of the ranks with a judgment the ranking was prepared with; 0 elsewhere
        // (unjudged, and judged with a grade that gains nothing unless min_rel < 0).
        let mut g = vec![0.0; CWL_DEPTH];
        for h in self.ranked.hits {
            let rank = h.rank as usize;
            if rank > CWL_DEPTH {
                break;
            }
            g[rank - 1] = gain_of_grade(h.grade);
        }
        let k = cutoff.unwrap_or(CWL_DEPTH) as f64;
        let (mut utility, mut mass, mut reach) = (0.0, 0.0, 1.0);
        let mut cumulative_gain = 0.0;
        for (i, &gain) in g.iter().enumerate() {
            utility += reach * gain;
            mass += reach;
            cumulative_gain += gain;
            let rank = (i + 1) as f64;
            let c = match model {
                CwlModel::Rbp(p) => p,
                CwlModel::Sdcg => {
                    if rank < k {
                        (rank + 1.0).log2() / (rank + 2.0).log2()
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr8 => {
                    if rank < k {
                        1.0 - gain
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr9 => {
                    if rank < k {
                        (rank / (rank + 1.0)) * (1.0 - gain)
                    } else {
                        0.0
                    }
                }
                CwlModel::Nerr10(phi) => phi * (1.0 - gain),
                CwlModel::Nerr11(goal) => {
                    ((rank + 2.0 * goal - 1.0) / (rank + 2.0 * goal)).powi(2) * (1.0 - gain)
                }
                CwlModel::Inst(goal) => {
                    let remaining = goal - cumulative_gain;
                    ((rank + goal + remaining - 1.0) / (rank + goal + remaining)).powi(2)
                }
                CwlModel::Insq(goal) => ((rank + 2.0 * goal - 1.0) / (rank + 2.0 * goal)).powi(2),
                CwlModel::Bpm(goal) => f64::from(u8::from(cumulative_gain < goal && rank < k)),
            };
            reach *= c;
        }
        utility / mass
    }

    /// ir_measures' `Compat`: rank-biased overlap of the ranking with an ideal ranking of the
    /// documents with a positive grade (by grade, ties in the order of the ranking, those not
    /// retrieved last), to the depth of the longer of the two.
    fn compat(&self, p: f64, normalize: bool) -> f64 {
        let ideal = self.judged.ideal;
        let n_ideal = ideal.len();
        let depth = self.ranked.num_ret.max(n_ideal);
        // Position in the ideal ranking of each retrieved document with a positive grade:
        // the documents with a higher grade, then those of its grade ranked above it.
        let mut retrieved: Vec<(f64, usize)> = self
            .ranked
            .hits
            .iter()
            .filter(|h| h.grade > 0.0)
            .map(|h| (h.grade, h.rank as usize))
            .collect();
        retrieved.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // `joins[d]`: documents in both prefixes from depth d on.
        let mut joins = vec![0usize; depth + 1];
        let mut i = 0;
        while i < retrieved.len() {
            let grade = retrieved[i].0;
            let above = ideal.partition_point(|g| *g > grade);
            let mut j = i;
            while j < retrieved.len() && retrieved[j].0 == grade {
                let position = above + (j - i) + 1;
                let rank = retrieved[j].1;
                if let Some(slot) = joins.get_mut(rank.max(position)) {
                    *slot += 1;
                }
                j += 1;
            }
            i = j;
        }
        let (mut score, mut normalizer, mut best, mut weight) = (0.0, 0.0, 0.0, 1.0);
        let mut overlap = 0usize;
        for (d, joined) in joins.iter().enumerate().skip(1) {
            overlap += joined;
            score += weight * overlap as f64 / d as f64;
            best += weight * d.min(n_ideal) as f64 / d as f64;
            normalizer += weight;
            weight *= p;
        }
        if depth == 0 {
            return 0.0;
        }
        let value = score / normalizer;
        let best = best / normalizer;
        if normalize && best > 0.0 {
            value / best
        } else {
            value
        }
    }

    /// trec_eval's `ndcg_cut` (and `ndcg` with its default gains): linear gains, an ideal
    /// ranking of all judged positive grades, both cut at k.
    fn ndcg_linear(&self, k: usize) -> f64 {
        let dcg = self
            .ranked
            .hits
            .iter()
            .take_while(|h| (h.rank as usize) <= k)
            .filter(|h| h.grade > 0.0)
            .map(|h| h.grade / (h.rank as f64 + 1.0).log2())
            .fold(0.0, add);
        let idcg = self
            .judged
            .ideal
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, g)| g / (i as f64 + 2.0).log2())
            .fold(0.0, add);
        if idcg > 0.0 { dcg / idcg } else { f64::NAN }
    }

    /// trec_eval's `Rprec_mult`: precision at `(long) (multiple * R + 0.9)` documents.
    fn r_precision_mult(&self, t: f64, r: usize, multiple: f64) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let cutoff = (multiple * r as f64 + 0.9) as i64;
        if cutoff <= 0 {
            return 0.0;
        }
        let cutoff = cutoff as usize;
        self.relevant_within(t, cutoff) as f64 / cutoff as f64
    }

    /// trec_eval's interpolated precision by number of relevant documents: entry c (1 to the
    /// relevant retrieved) is the value trec_eval's `iprec_at_recall` loop gives a recall
    /// level that rounds to c documents (the highest precision at or below the rank of the
    /// c-th relevant document), entry 0 its value after the loop; levels above the relevant
    /// retrieved get 0. Read off the relevant ranks: precision only falls between them.
    fn iprec_profile(&self, t: f64) -> Vec<f64> {
        let ranks: Vec<usize> = self.relevant_ranks(t).collect();
        let num_ret = self.ranked.num_ret;
        let mut profile = vec![0.0; ranks.len() + 1];
        // Nothing retrieved: 0 / 0, NaN (undefined; trec_eval prints -nan).
        let mut int_precis = ranks.len() as f64 / num_ret as f64;
        for (c, &rank) in ranks.iter().enumerate().rev() {
            let precis = (c + 1) as f64 / rank as f64;
            if int_precis < precis {
                int_precis = precis;
            }
            profile[c + 1] = int_precis;
        }
        profile[0] = int_precis;
        profile
    }

    /// trec_eval's `iprec_at_recall` loop for the given recall levels (in any order, as
    /// trec_eval receives them): the values in the order of the levels.
    fn interpolated_precision(&self, t: f64, r: usize, levels: &[f64]) -> Vec<f64> {
        let rel = self.relevance;
        let num_ret = rel.len();
        let cutoffs: Vec<i64> = levels
            .iter()
            .map(|l| (l * r as f64).round() as i64)
            .collect();
        let num_rel_ret = rel.iter().filter(|&&g| g >= t).count() as i64;
        let mut values = vec![0.0; levels.len()];
        let mut current = cutoffs.len() as isize - 1;
        while current >= 0 && cutoffs[current as usize] > num_rel_ret {
            current -= 1;
        }
        // Nothing retrieved: 0 / 0, NaN (undefined; trec_eval prints -nan) at the levels that
        // round to 0 relevant documents, 0 at the others, as in trec_eval.
        let mut int_precis = num_rel_ret as f64 / num_ret as f64;
        let mut rel_so_far = num_rel_ret;
        let mut i = num_ret;
        while i > 0 && rel_so_far > 0 {
            let precis = rel_so_far as f64 / i as f64;
            if int_precis < precis {
                int_precis = precis;
            }
            if rel[i - 1] >= t {
                while current >= 0 && rel_so_far == cutoffs[current as usize] {
                    values[current as usize] = int_precis;
                    current -= 1;
                }
                rel_so_far -= 1;
            }
            i -= 1;
        }
        while current >= 0 {
            values[current as usize] = int_precis;
            current -= 1;
        }
        values
    }

    fn bpref(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let num_nonrel = self.judged.n_nonrelevant(t);
        let mut nonrel_so_far = 0usize;
        let mut bpref = 0.0;
        for h in self.ranked.hits {
            if h.grade < 0.0 {
                continue;
            }
            if h.grade < t {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                bpref += 1.0 - (nonrel_so_far.min(r) as f64) / (num_nonrel.min(r) as f64);
            } else {
                bpref += 1.0;
            }
        }
        bpref / r as f64
    }

    fn inf_ap(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let (mut rel_so_far, mut nonrel_so_far, mut unjudged_so_far) = (0i64, 0i64, 0i64);
        let mut inf_ap = 0.0;
        for h in self.ranked.hits {
            if h.grade < 0.0 {
                unjudged_so_far += 1;
                continue;
            }
            if h.grade < t {
                nonrel_so_far += 1;
                continue;
            }
            rel_so_far += 1;
            let j = h.rank as usize - 1;
            if j == 0 {
                inf_ap += 1.0;
            } else {
                let fj = j as f64;
                inf_ap += 1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * ((rel_so_far - 1 + nonrel_so_far + unjudged_so_far) as f64 / fj)
                        * (((rel_so_far - 1) as f64 + INFAP_EPSILON)
                            / ((rel_so_far - 1 + nonrel_so_far) as f64 + 2.0 * INFAP_EPSILON));
            }
        }
        inf_ap / r as f64
    }

    fn bin_g(&self, t: f64, r: usize) -> f64 {
        if r == 0 {
            return f64::NAN;
        }
        let mut rel_so_far = 0usize;
        let mut sum = 0.0;
        for rank in self.relevant_ranks(t) {
            rel_so_far += 1;
            let i = rank - 1;
            sum += 1.0 / ((3 + i - rel_so_far) as f64).log2();
        }
        sum / r as f64
    }

    fn gains(&self, pairs: &[(i64, f64)]) -> std::borrow::Cow<'_, [LevelGain]> {
        let levels = self.levels.get_or_init(|| self.judged.levels());
        if pairs.is_empty() {
            std::borrow::Cow::Borrowed(self.default_gains.get_or_init(|| gain_table(&[], levels)))
        } else {
            std::borrow::Cow::Owned(gain_table(pairs, levels))
        }
    }

    /// trec_eval's `G`.
    fn g(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
        let min_cost = 1.0;
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            sum_results += results_gain;
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                sum_ideal += ideal_gain;
            }
            if ideal_gain >= min_cost {
                sum_cost += ideal_gain;
            } else {
                sum_cost += min_cost;
            }
            if results_gain != 0.0 {
                results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            sum_results += results_gain;
            sum_cost += min_cost;
            if results_gain != 0.0 {
                results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                sum_ideal += ideal_gain;
            }
        }
        if sum_ideal > 0.0 {
            results_g / sum_ideal
        } else {
            f64::NAN
        }
    }

    /// trec_eval's `ndcg` with a gain table (also `dcg` and `ideal_dcg`), cut at k if given.
    fn dcg_family(&self, pairs: &[(i64, f64)], k: usize, output: DcgOutput) -> f64 {
        let table = self.gains(pairs);
        let rel = &self.relevance[..self.relevance.len().min(k)];
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_dcg, mut ideal_dcg) = (0.0, 0.0);
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while ideal_gain > 0.0 && i < k {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        match output {
            DcgOutput::Dcg => results_dcg,
            DcgOutput::Ideal => ideal_dcg,
            DcgOutput::Normalized if ideal_dcg > 0.0 => results_dcg / ideal_dcg,
            DcgOutput::Normalized => f64::NAN,
        }
    }

    /// trec_eval's `ndcg_rel`.
    fn ndcg_rel(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let (mut num_rel_ret, mut num_rel) = (0i64, 0i64);
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                num_rel += 1;
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            if results_gain > 0.0 {
                sum += results_dcg / ideal_dcg;
                num_rel_ret += 1;
            }
            i += 1;
        }
        while i < rel.len() {
            let results_gain = gain_of(rel[i], &table);
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            if results_gain > 0.0 {
                sum += results_dcg / ideal_dcg;
                num_rel_ret += 1;
            }
            i += 1;
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if ideal_gain > 0.0 {
                num_rel += 1;
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if ideal_dcg <= 0.0 {
            return f64::NAN;
        }
        sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
        if sum > 0.0 { sum / num_rel as f64 } else { 0.0 }
    }

    /// trec_eval's `Rndcg` (the caller checks R > 0).
    fn rndcg(&self, pairs: &[(i64, f64)]) -> f64 {
        let table = self.gains(pairs);
        let rel = self.relevance;
        let mut ideal = IdealGains::new(&table);
        let mut ideal_gain = ideal.current();
        let mut old_ideal_gain = ideal_gain;
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let mut changes = 0i64;
        let mut i = 0;
        while i < rel.len() && ideal_gain > 0.0 {
            let results_gain = gain_of(rel[i], &table);
            ideal_gain = ideal.advance();
            if old_ideal_gain != ideal_gain {
                if ideal_dcg > 0.0 {
                    sum += results_dcg / ideal_dcg;
                    changes += 1;
                }
                old_ideal_gain = ideal_gain;
            }
            if results_gain != 0.0 {
                results_dcg += results_gain / ((i + 2) as f64).log2();
            }
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if i < rel.len() {
            while i < rel.len() {
                let results_gain = gain_of(rel[i], &table);
                if results_gain != 0.0 {
                    results_dcg += results_gain / ((i + 2) as f64).log2();
                }
                i += 1;
            }
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
        }
        while ideal_gain > 0.0 {
            ideal_gain = ideal.advance();
            if old_ideal_gain != ideal_gain {
                if ideal_dcg > 0.0 {
                    sum += results_dcg / ideal_dcg;
                    changes += 1;
                }
                old_ideal_gain = ideal_gain;
            }
            if ideal_gain > 0.0 {
                ideal_dcg += ideal_gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if changes == 0 {
            f64::NAN
        } else {
            sum / changes as f64
        }
    }

    /// trec_eval's `rbp`. Gains outside [0, 1] are rescaled to it with the smallest and
    /// largest gain of the table (trec_eval reads those two from uninitialised variables, so
    /// its graded values vary from one build to another; with binary grades no rescaling).
    fn rbp(&self, p: f64, pairs: &[(i64, f64)]) -> f64 {
        let mut table = self.gains(pairs).into_owned();
        let min = table.iter().map(|g| g.gain).fold(f64::INFINITY, f64::min);
        let max = table
            .iter()
            .map(|g| g.gain)
            .fold(f64::NEG_INFINITY, f64::max);
        if min < 0.0 || max > 1.0 {
            for g in &mut table {
                g.gain = (g.gain - min) / (max - min);
            }
        }
        let mut sum = 0.0;
        let mut weight = 1.0;
        for &rel in self.relevance {
            let gain = gain_of(rel, &table);
            if gain != 0.0 {
                sum += gain * weight;
            }
            weight *= p;
        }
        (1.0 - p) * sum
    }
}

/// The subtopics each judged document of a query is relevant to.
struct SubtopicSets {
    offsets: Vec<usize>,
    subtopics: Vec<u32>,
    /// Documents relevant to each subtopic.
    relevant: Vec<usize>,
}

impl SubtopicSets {
    fn new(judgments: &[SubtopicGrade], n_docs: usize, t: f64) -> Self {
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

    fn n_docs(&self) -> usize {
        self.offsets.len() - 1
    }

    fn n_subtopics(&self) -> usize {
        self.relevant.len()
    }

    fn n_relevant(&self, subtopic: usize) -> usize {
        self.relevant[subtopic]
    }

    /// Subtopics some document is relevant to (ndeval's `actualSubtopics`).
    fn n_covered(&self) -> usize {
        self.relevant.iter().filter(|&&n| n > 0).count()
    }

    fn of(&self, doc: usize) -> &[u32] {
        match (self.offsets.get(doc), self.offsets.get(doc + 1)) {
            (Some(&start), Some(&end)) => &self.subtopics[start..end],
            _ => &[],
        }
    }

    /// ndeval's `idealResult`: the first `limit` novelty scores of the greedy ideal ranking
    /// (at each rank the document with the highest score, ties to the greatest id); once the
    /// best score is 0 the remaining ranks score 0 and are left out.
    fn greedy_ideal(&self, alpha: f64, limit: usize) -> Vec<f64> {
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
fn novelty_scores(at_rank: &[&[u32]], n_subtopics: usize, alpha: f64) -> Vec<f64> {
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

#[derive(Clone, Copy)]
enum DcgOutput {
    Normalized,
    Dcg,
    Ideal,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::RowsBuf;
    use proptest::prelude::*;

    /// Straight from the definitions, over the full list of grades of the ranking.
    fn naive(ranked: &[f64], judged: &[f64], measure: &Measure, t: f64) -> f64 {
        let r = judged.iter().filter(|g| **g >= t).count();
        let k = measure.cutoff.unwrap_or(ranked.len().max(1));
        let top = &ranked[..k.min(ranked.len())];
        let rel_in = |xs: &[f64]| xs.iter().filter(|g| **g >= t).count() as f64;
        let div_r = |x: f64| if r == 0 { f64::NAN } else { x / r as f64 };
        match measure.kind {
            Kind::Precision => rel_in(top) / k as f64,
            Kind::Recall => div_r(rel_in(top)),
            Kind::Success => (rel_in(top) > 0.0) as u8 as f64,
            Kind::ReciprocalRank => top
                .iter()
                .position(|g| *g >= t)
                .map_or(0.0, |i| 1.0 / (i + 1) as f64),
            Kind::AveragePrecision => {
                let mut s = 0.0;
                for i in 0..top.len() {
                    if top[i] >= t {
                        s += rel_in(&top[..=i]) / (i + 1) as f64;
                    }
                }
                div_r(s)
            }
            Kind::RPrecision => div_r(rel_in(&ranked[..r.min(ranked.len())])),
            Kind::Ndcg(None) => {
                let dcg: f64 = top
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| **g > 0.0)
                    .map(|(i, g)| g / ((i + 2) as f64).log2())
                    .sum();
                let mut ideal: Vec<f64> = judged.iter().copied().filter(|g| *g > 0.0).collect();
                ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
                let kk = measure.cutoff.unwrap_or(ideal.len());
                let idcg: f64 = ideal
                    .iter()
                    .take(kk)
                    .enumerate()
                    .map(|(i, g)| g / ((i + 2) as f64).log2())
                    .sum();
                if idcg > 0.0 { dcg / idcg } else { f64::NAN }
            }
            _ => unreachable!(),
        }
    }

    /// A prepared query from the grades of a ranking (0: unjudged) and all judged grades.
    fn prepared_of(ranked: &[f64], judged: &[f64], all_judged: bool) -> Prepared {
        let mut hits = RowsBuf::default();
        hits.push_row(
            ranked
                .iter()
                .enumerate()
                .filter(|(_, g)| **g > 0.0 || (all_judged && **g != 0.0))
                .map(|(i, g)| Hit {
                    rank: (i + 1) as u32,
                    grade: *g,
                }),
        );
        let mut judged_positive = RowsBuf::default();
        judged_positive.push_row(judged.iter().copied().filter(|g| *g > 0.0));
        Prepared {
            hits,
            judged_positive,
            retrieved: vec![ranked.len() as u32],
            judged_count: vec![judged.len() as u32],
            judged_negative: vec![judged.iter().filter(|g| **g < 0.0).count() as u32],
            all_judged,
            subtopics: None,
        }
    }

    fn eval_one(ranked: &[f64], judged: &[f64], measure: &Measure, t: f64) -> f64 {
        let p = prepared_of(ranked, judged, measure.needs_all_judged());
        let options = EvaluationOptions {
            threshold: t,
            judged_only: false,
        };
        evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
    }

    fn m(kernel: &str, k: Option<usize>) -> Measure {
        Measure::new(kernel, k, &[], None, None).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12
    }

    fn common(k: usize) -> Vec<Measure> {
        let mut out = vec![];
        for kernel in [
            "precision",
            "recall",
            "success",
            "reciprocal_rank",
            "average_precision",
            "ndcg",
        ] {
            out.push(m(kernel, Some(k)));
        }
        for kernel in [
            "reciprocal_rank",
            "average_precision",
            "r_precision",
            "ndcg",
        ] {
            out.push(m(kernel, None));
        }
        out
    }

    #[test]
    fn hand_computed_values() {
        // E8: three relevant, run d1 > x, k = 10.
        let ranked = [1.0, 0.0];
        let judged = [1.0, 1.0, 1.0];
        let v = |kernel, k| eval_one(&ranked, &judged, &m(kernel, k), 1.0);
        assert!(close(v("precision", Some(10)), 0.1));
        assert!(close(v("recall", Some(10)), 1.0 / 3.0));
        assert!(close(v("average_precision", None), 1.0 / 3.0));
        assert!((v("ndcg", Some(10)) - 0.4693).abs() < 5e-5);
        // E11: 4 relevant, run d1 > x > d2.
        let ap = eval_one(
            &[1.0, 0.0, 1.0],
            &[1.0; 4],
            &m("average_precision", None),
            1.0,
        );
        assert!(close(ap, (1.0 + 2.0 / 3.0) / 4.0));
        let ap2 = eval_one(
            &[1.0, 0.0, 1.0],
            &[1.0; 4],
            &m("average_precision", Some(2)),
            1.0,
        );
        assert!(close(ap2, 0.25));
        // E2: grades d1=1, d2=3, d3=2, run d1 > d2 > x: linear nDCG@3 = 0.6075.
        let ndcg = eval_one(&[1.0, 3.0, 0.0], &[1.0, 3.0, 2.0], &m("ndcg", Some(3)), 1.0);
        assert!((ndcg - 0.6075).abs() < 5e-5, "{ndcg}");
    }

    #[test]
    fn judgment_based_measures_by_hand() {
        // Ranking: rel, nonrel (judged 0), unjudged (absent), rel, in-pool unjudged (-1).
        // Judged: two relevant retrieved, one relevant not retrieved, two non-relevant (one
        // retrieved), one -1.
        let ranked = [1.0, -0.5, 0.0, 1.0, -1.0];
        let judged = [1.0, 1.0, 1.0, 0.0, 0.0, -1.0];
        // prepared_of keeps grade -0.5 as a negative (unjudged) hit: use a real zero grade.
        let mut p = prepared_of(&ranked, &judged, true);
        p.hits.values[1].grade = 0.0;
        let run = |kernel: &str| {
            let measure = m(kernel, None);
            let options = EvaluationOptions {
                threshold: 1.0,
                judged_only: false,
            };
            evaluate(&p, &[measure], options).unwrap()[0]
        };
        // bpref: R=3, judged non-relevant = 2; first rel: 1, second rel (1 nonrel above): 1 - 1/2.
        assert!(close(run("bpref"), (1.0 + 0.5) / 3.0));
        assert!(close(run("num_nonrel_judged_ret"), 1.0));
        // set measures over 5 retrieved, 2 relevant retrieved, R = 3.
        assert!(close(run("set_precision"), 2.0 / 5.0));
        assert!(close(run("set_recall"), 2.0 / 3.0));
        assert!(close(run("set_map"), 4.0 / 15.0));
    }

    #[test]
    fn empty_sums_are_positive_zero() {
        for measure in common(5) {
            let v = eval_one(&[0.0, 0.0], &[1.0], &measure, 1.0);
            assert!(v == 0.0 && v.is_sign_positive(), "{measure:?}: {v}");
        }
    }

    #[test]
    fn undefined_values_are_nan() {
        assert!(eval_one(&[0.0], &[], &m("recall", Some(5)), 1.0).is_nan());
        assert_eq!(eval_one(&[0.0], &[], &m("precision", Some(5)), 1.0), 0.0);
        assert!(eval_one(&[0.0], &[0.0], &m("bpref", None), 1.0).is_nan());
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(Measure::new("precision", None, &[], None, None).is_err());
        assert!(Measure::new("ndcg", Some(0), &[], None, None).is_err());
        assert!(Measure::new("r_precision", Some(3), &[], None, None).is_err());
        assert!(Measure::new("nope", None, &[], None, None).is_err());
        assert!(Measure::new("set_f", None, &[], None, None).is_err());
        assert!(Measure::new("rbp", None, &[1.5], None, None).is_err());
        assert!(Measure::new("bpref", None, &[], Some(vec![(1, 2.0)]), None).is_err());
        assert!(Measure::new("g", None, &[], Some(vec![(-1, 2.0)]), None).is_err());
        let p = prepared_of(&[], &[], false);
        let measures = [m("ndcg", None)];
        for t in [0.0, f64::NAN] {
            let options = EvaluationOptions {
                threshold: t,
                judged_only: false,
            };
            assert!(evaluate(&p, &measures, options).is_err());
        }
    }

    #[test]
    fn every_kernel_name_builds() {
        for name in kernel_names() {
            let (_, cutoff, params) = KERNELS.iter().find(|k| k.0 == name).unwrap();
            let k = cutoff.map(|_| 5);
            let values: Vec<f64> = match params {
                // Increasing: min_rel < max_rel where a kernel reads them.
                Params::Exactly(n) | Params::ExactlyWithGains(n) | Params::AtLeast(n) => {
                    (0..*n).map(|i| 0.25 * (i + 1) as f64).collect()
                }
                _ => vec![],
            };
            assert!(Measure::new(name, k, &values, None, None).is_ok(), "{name}");
        }
    }

    #[test]
    fn glibc_merge_sort_keeps_equal_elements_in_order() {
        let mut items = [(1, 0.5), (2, 0.7), (0, 0.0)];
        glibc_merge_sort(&mut items, |a, b| (a.1 - b.1) as i32);
        assert_eq!(items, [(1, 0.5), (2, 0.7), (0, 0.0)]);
        let mut items = [3.0, 1.0, 2.0, 0.0, 5.0];
        glibc_merge_sort(&mut items, |a, b| (a - b) as i32);
        assert_eq!(items, [0.0, 1.0, 2.0, 3.0, 5.0]);
    }

    proptest! {
        #[test]
        fn matches_naive_definitions(
            ranked in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0), Just(-1.0)], 0..40),
            extra_judged in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0)], 0..10),
            k in 1usize..50,
            t in prop_oneof![Just(1.0), Just(2.0), Just(0.5)],
        ) {
            // Judged grades: every ranked document's grade (unjudged docs have grade 0) plus
            // documents that were not retrieved.
            let judged: Vec<f64> = ranked.iter().copied().chain(extra_judged.iter().copied()).collect();
            for measure in common(k) {
                let fast = eval_one(&ranked, &judged, &measure, t);
                let slow = naive(&ranked, &judged, &measure, t);
                prop_assert!(close(fast, slow), "{measure:?}: {fast} vs {slow}");
            }
        }

        /// The gain-table nDCG with default gains is the linear-gain nDCG, on integer grades.
        #[test]
        fn gain_table_ndcg_equals_linear_ndcg(
            ranked in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0)], 0..30),
            extra_judged in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(4.0)], 0..10),
        ) {
            let judged: Vec<f64> = ranked.iter().copied().chain(extra_judged.iter().copied()).collect();
            let linear = eval_one(&ranked, &judged, &m("ndcg", None), 1.0);
            let table = eval_one(&ranked, &judged, &Measure::new("ndcg", None, &[], Some(vec![]), None).unwrap(), 1.0);
            prop_assert!((linear.is_nan() && table.is_nan()) || (linear - table).abs() < 1e-12, "{linear} vs {table}");
        }
    }

    /// A prepared query from a ranking of judgments (None: unjudged) and the judged grades of
    /// documents that were not retrieved.
    fn prepared_with(ranked: &[Option<f64>], unretrieved: &[f64], all_judged: bool) -> Prepared {
        let mut hits = RowsBuf::default();
        hits.push_row(ranked.iter().enumerate().filter_map(|(i, g)| match g {
            Some(g) if *g > 0.0 || all_judged => Some(Hit {
                rank: (i + 1) as u32,
                grade: *g,
            }),
            _ => None,
        }));
        let judged: Vec<f64> = ranked
            .iter()
            .flatten()
            .chain(unretrieved)
            .copied()
            .collect();
        let mut judged_positive = RowsBuf::default();
        judged_positive.push_row(judged.iter().copied().filter(|g| *g > 0.0));
        Prepared {
            hits,
            judged_positive,
            retrieved: vec![ranked.len() as u32],
            judged_count: vec![judged.len() as u32],
            judged_negative: vec![judged.iter().filter(|g| **g < 0.0).count() as u32],
            all_judged,
            subtopics: None,
        }
    }

    fn value_of(ranked: &[Option<f64>], unretrieved: &[f64], measure: &Measure, t: f64) -> f64 {
        let p = prepared_with(ranked, unretrieved, measure.needs_all_judged());
        let options = EvaluationOptions {
            threshold: t,
            judged_only: false,
        };
        evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
    }

    /// The new kernels straight from their providers' code: full grade vectors, no hits.
    fn naive_provider(
        ranked: &[Option<f64>],
        unretrieved: &[f64],
        measure: &Measure,
        t: f64,
    ) -> f64 {
        let grade = |i: usize| ranked[i].unwrap_or(0.0).max(0.0);
        let n = ranked.len();
        let k = measure.cutoff.unwrap_or(n).min(n);
        let mut positive: Vec<f64> = ranked
            .iter()
            .flatten()
            .chain(unretrieved)
            .copied()
            .filter(|g| *g > 0.0)
            .collect();
        positive.sort_by(|a, b| b.total_cmp(a));
        let relevant = positive.iter().filter(|g| **g >= t).count();
        match &measure.kind {
            Kind::Err => {
                if positive.is_empty() {
                    return f64::NAN;
                }
                let (mut score, mut decay) = (0.0, 1.0);
                for i in 0..k {
                    let r = (2f64.powf(grade(i).min(4.0)) - 1.0) / 16.0;
                    score += r * decay / (i + 1) as f64;
                    decay *= 1.0 - r;
                }
                score
            }
            Kind::NdcgExp | Kind::NdcgBurges | Kind::DcgBurges => {
                let gain = |g: f64| match measure.kind {
                    Kind::NdcgExp => 2f64.powf(g) - 1.0,
                    _ if g >= t => 2f64.powf(g) - 1.0,
                    _ => 0.0,
                };
                let dcg: f64 = (0..k)
                    .map(|i| gain(grade(i)) / ((i + 2) as f64).log2())
                    .sum();
                let kk = measure.cutoff.unwrap_or(usize::MAX);
                let ideal: f64 = positive
                    .iter()
                    .take(kk)
                    .enumerate()
                    .map(|(i, g)| gain(*g) / ((i + 2) as f64).log2())
                    .sum();
                match measure.kind {
                    Kind::DcgBurges => dcg,
                    _ if ideal > 0.0 => dcg / ideal,
                    _ => f64::NAN,
                }
            }
            Kind::RbpGraded(p) => (0..k)
                .map(|i| (1.0 - p) * p.powi(i as i32) * grade(i))
                .sum(),
            Kind::RbpGradedResidual(p) => {
                let unjudged: f64 = (0..k)
                    .filter(|&i| ranked[i].is_none())
                    .map(|i| (1.0 - p) * p.powi(i as i32))
                    .sum();
                unjudged + p.powi(measure.cutoff.unwrap_or(n) as i32)
            }
            Kind::Judged => {
                if k == 0 {
                    f64::NAN
                } else {
                    (0..k).filter(|&i| ranked[i].is_some()).count() as f64 / k as f64
                }
            }
            Kind::Accuracy => {
                // ir_measures' accuracy provider, line by line.
                let mut nonrels = vec![0usize];
                for g in ranked.iter().take(k) {
                    if g.unwrap_or(0.0) >= t {
                        nonrels.push(*nonrels.last().unwrap());
                    } else {
                        *nonrels.last_mut().unwrap() += 1;
                    }
                }
                let last = *nonrels.last().unwrap();
                if nonrels.len() < 2 || last == 0 {
                    return f64::NAN;
                }
                let above: usize = nonrels[..nonrels.len() - 1].iter().sum();
                1.0 - above as f64 / (last as f64 * (nonrels.len() - 1) as f64)
            }
            Kind::F1 => {
                if relevant == 0 {
                    return f64::NAN;
                }
                let depth = measure.cutoff.unwrap_or(n);
                let hits = (0..k).filter(|&i| ranked[i].unwrap_or(0.0) >= t).count() as f64;
                let (p, r) = (hits / depth as f64, hits / relevant as f64);
                if depth == 0 || p + r == 0.0 {
                    0.0
                } else {
                    2.0 * p * r / (p + r)
                }
            }
            Kind::Cwl(model, gains) => {
                // cwl_eval's c vector over 1000 ranks, then W and the expected utility.
                let g: Vec<f64> = (0..CWL_DEPTH)
                    .map(|i| match (i < n, gains) {
                        (false, _) => 0.0,
                        (true, _) if ranked[i].is_none() => 0.0,
                        (true, CwlGains::Binary) => f64::from(u8::from(grade(i) >= t)),
                        (true, CwlGains::Scaled { min_rel, max_rel }) => {
                            (grade(i).clamp(*min_rel, *max_rel) - min_rel) / (max_rel - min_rel)
                        }
                    })
                    .collect();
                let kk = measure.cutoff.unwrap_or(CWL_DEPTH) as f64;
                let mut cum = 0.0;
                let c: Vec<f64> = g
                    .iter()
                    .enumerate()
                    .map(|(i, &gi)| {
                        cum += gi;
                        let r = (i + 1) as f64;
                        match model {
                            CwlModel::Rbp(p) => *p,
                            CwlModel::Sdcg if r < kk => (r + 1.0).log2() / (r + 2.0).log2(),
                            CwlModel::Nerr8 if r < kk => 1.0 - gi,
                            CwlModel::Nerr9 if r < kk => r / (r + 1.0) * (1.0 - gi),
                            CwlModel::Sdcg | CwlModel::Nerr8 | CwlModel::Nerr9 => 0.0,
                            CwlModel::Nerr10(p) => p * (1.0 - gi),
                            CwlModel::Nerr11(tt) => {
                                ((r + 2.0 * tt - 1.0) / (r + 2.0 * tt)).powi(2) * (1.0 - gi)
                            }
                            CwlModel::Inst(tt) => {
                                let ti = tt - cum;
                                ((r + tt + ti - 1.0) / (r + tt + ti)).powi(2)
                            }
                            CwlModel::Insq(tt) => ((r + 2.0 * tt - 1.0) / (r + 2.0 * tt)).powi(2),
                            CwlModel::Bpm(tt) => f64::from(u8::from(cum < *tt && r < kk)),
                        }
                    })
                    .collect();
                let mut reach = vec![1.0; CWL_DEPTH];
                for i in 1..CWL_DEPTH {
                    reach[i] = reach[i - 1] * c[i - 1];
                }
                let total: f64 = reach.iter().sum();
                (0..CWL_DEPTH).map(|i| reach[i] / total * g[i]).sum()
            }
            Kind::Compat(p, normalize) => {
                // ir_measures' compat provider with sets (documents named by rank, the
                // unretrieved ones by a negative index).
                let ranking: Vec<i64> = (0..n as i64).collect();
                let mut ideal: Vec<(f64, i64)> = ranked
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| g.filter(|g| *g > 0.0).map(|g| (g, i as i64)))
                    .chain(
                        unretrieved
                            .iter()
                            .enumerate()
                            .filter(|(_, g)| **g > 0.0)
                            .map(|(j, g)| (*g, -1 - j as i64)),
                    )
                    .collect();
                ideal.sort_by(|a, b| {
                    b.0.total_cmp(&a.0)
                        .then((a.1 < 0).cmp(&(b.1 < 0)))
                        .then(a.1.cmp(&b.1))
                });
                let ideal: Vec<i64> = ideal.into_iter().map(|x| x.1).collect();
                let depth = n.max(ideal.len());
                let rbo = |a: &[i64], b: &[i64]| {
                    let (mut sa, mut sb) = (
                        std::collections::HashSet::new(),
                        std::collections::HashSet::new(),
                    );
                    let (mut score, mut norm, mut w) = (0.0, 0.0, 1.0);
                    for i in 0..depth {
                        if i < a.len() {
                            sa.insert(a[i]);
                        }
                        if i < b.len() {
                            sb.insert(b[i]);
                        }
                        score += w * sa.intersection(&sb).count() as f64 / (i + 1) as f64;
                        norm += w;
                        w *= p;
                    }
                    if depth == 0 { 0.0 } else { score / norm }
                };
                let score = rbo(&ranking, &ideal);
                let best = rbo(&ideal, &ideal);
                if *normalize && best > 0.0 {
                    score / best
                } else {
                    score
                }
            }
            _ => unreachable!(),
        }
    }

    fn provider_kernels(k: usize) -> Vec<Measure> {
        let mk = |kernel: &str, cutoff: Option<usize>, params: &[f64]| {
            Measure::new(kernel, cutoff, params, None, None).unwrap()
        };
        let mut out = vec![];
        for cutoff in [Some(k), None] {
            for kernel in [
                "err",
                "ndcg_exp",
                "judged",
                "accuracy",
                "f1",
                "dcg_burges",
                "ndcg_burges",
            ] {
                out.push(mk(kernel, cutoff, &[]));
            }
            out.push(mk("rbp_graded", cutoff, &[0.8]));
            out.push(mk("rbp_graded_residual", cutoff, &[0.7]));
        }
        for kernel in ["sdcg", "nerr8", "nerr9"] {
            out.push(mk(kernel, Some(k), &[0.0, 4.0]));
            out.push(mk(kernel, Some(k), &[1.0, 3.0]));
        }
        for (kernel, x) in [
            ("nerr10", 0.9),
            ("nerr11", 2.0),
            ("inst", 1.0),
            ("insq", 3.0),
        ] {
            out.push(mk(kernel, None, &[x, 0.0, 4.0]));
            out.push(mk(kernel, None, &[x, -1.0, 2.0]));
        }
        out.push(mk("bpm", Some(k), &[2.0, 0.0, 3.0]));
        out.push(mk("rbp_binary", None, &[0.8]));
        out.push(mk("compat", None, &[0.95, 1.0]));
        out.push(mk("compat", None, &[0.8, 0.0]));
        out
    }

    proptest! {
        /// ir_measures' and ranx's kernels equal the providers' definitions written plainly.
        #[test]
        fn provider_kernels_match_naive_definitions(
            ranked in proptest::collection::vec(prop_oneof![Just(None), Just(Some(-1.0)), Just(Some(0.0)), Just(Some(1.0)), Just(Some(2.0)), Just(Some(3.0)), Just(Some(4.0)), Just(Some(6.0))], 0..40),
            unretrieved in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(4.0), Just(-1.0)], 0..10),
            k in 1usize..50,
            t in prop_oneof![Just(1.0), Just(2.0), Just(0.5)],
        ) {
            for measure in provider_kernels(k) {
                let fast = value_of(&ranked, &unretrieved, &measure, t);
                let slow = naive_provider(&ranked, &unretrieved, &measure, t);
                let ok = (fast.is_nan() && slow.is_nan()) || (fast - slow).abs() <= 1e-12 * slow.abs().max(1.0);
                prop_assert!(ok, "{measure:?}: {fast} vs {slow}");
            }
        }
    }

    #[test]
    fn cwl_measures_read_1000_ranks() {
        // A relevant document at rank 1001 changes nothing; at rank 1000 it counts.
        let mut ranked = vec![None; 1001];
        ranked[1000] = Some(4.0);
        let insq = Measure::new("insq", None, &[1.0, 0.0, 4.0], None, None).unwrap();
        assert_eq!(value_of(&ranked, &[], &insq, 1.0), 0.0);
        ranked[999] = Some(4.0);
        assert!(value_of(&ranked, &[], &insq, 1.0) > 0.0);
    }

    /// A query with diversity judgments: `ranked` holds the judged document index at each
    /// rank (None: unjudged), `judgments` (doc, subtopic, grade) triples of `n_docs` docs.
    fn diversity_value(
        ranked: &[Option<u32>],
        judgments: &[(u32, u32, f64)],
        n_docs: usize,
        measure: &Measure,
        t: f64,
    ) -> f64 {
        let mut hits = RowsBuf::default();
        hits.push_row(ranked.iter().enumerate().filter_map(|(i, d)| {
            d.map(|d| Hit {
                rank: (i + 1) as u32,
                grade: f64::from(d) + 1.0,
            })
        }));
        let mut subtopics = RowsBuf::default();
        subtopics.push_row(
            judgments
                .iter()
                .map(|&(doc, subtopic, grade)| SubtopicGrade {
                    doc,
                    subtopic,
                    grade,
                }),
        );
        let mut judged_positive = RowsBuf::default();
        judged_positive.push_row((1..=n_docs).map(|d| d as f64));
        let p = Prepared {
            hits,
            judged_positive,
            retrieved: vec![ranked.len() as u32],
            judged_count: vec![n_docs as u32],
            judged_negative: vec![0],
            all_judged: true,
            subtopics: Some(subtopics),
        };
        let options = EvaluationOptions {
            threshold: t,
            judged_only: false,
        };
        evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
    }

    /// ndeval's measures written from its definitions with sets, without normalisation
    /// shortcuts: subtopic recall, intent-aware precision and alpha-nDCG (greedy ideal by
    /// repeated full rescoring).
    fn naive_diversity(
        ranked: &[Option<u32>],
        judgments: &[(u32, u32, f64)],
        n_docs: usize,
        measure: &Measure,
        t: f64,
    ) -> f64 {
        use std::collections::BTreeSet;
        let rel = |d: u32| -> BTreeSet<u32> {
            judgments
                .iter()
                .filter(|j| j.0 == d && j.2 >= t)
                .map(|j| j.1)
                .collect()
        };
        let all: BTreeSet<u32> = (0..n_docs as u32).flat_map(rel).collect();
        let a = all.len() as f64;
        if all.is_empty() {
            return f64::NAN;
        }
        let k = measure.cutoff.unwrap();
        let run: Vec<BTreeSet<u32>> = ranked
            .iter()
            .take(k)
            .map(|d| d.map(rel).unwrap_or_default())
            .collect();
        let Kind::Diversity(which, alpha, _) = measure.kind else {
            unreachable!()
        };
        let score_of = |list: &[BTreeSet<u32>], i: usize| -> f64 {
            list[i]
                .iter()
                .map(|s| {
                    (1.0 - alpha).powi(list[..i].iter().filter(|x| x.contains(s)).count() as i32)
                })
                .sum()
        };
        let dcg = |list: &[BTreeSet<u32>]| -> f64 {
            (0..list.len())
                .map(|i| score_of(list, i) / ((i + 2) as f64).log2())
                .sum()
        };
        match which {
            Diversity::StRecall => run.iter().flatten().collect::<BTreeSet<_>>().len() as f64 / a,
            Diversity::PIa => run.iter().map(|s| s.len()).sum::<usize>() as f64 / (k as f64 * a),
            Diversity::AlphaNdcg => {
                let mut ideal: Vec<BTreeSet<u32>> = vec![];
                let mut left: Vec<u32> = (0..n_docs as u32).collect();
                while ideal.len() < k && !left.is_empty() {
                    let mut best = (0, -1.0);
                    for (i, &d) in left.iter().enumerate() {
                        let mut with = ideal.clone();
                        with.push(rel(d));
                        let score = score_of(&with, ideal.len());
                        if score >= best.1 {
                            best = (i, score);
                        }
                    }
                    ideal.push(rel(left.remove(best.0)));
                }
                let run_dcg = dcg(&run);
                if run_dcg == 0.0 {
                    0.0
                } else {
                    run_dcg / dcg(&ideal)
                }
            }
            _ => unreachable!(),
        }
    }

    proptest! {
        #[test]
        fn diversity_kernels_match_naive_definitions(
            n_docs in 1usize..8,
            judgments in proptest::collection::vec((0u32..8, 0u32..4, prop_oneof![Just(0.0), Just(1.0), Just(2.0)]), 0..20),
            ranked in proptest::collection::vec(prop_oneof![Just(None), (0u32..8).prop_map(Some)], 0..12),
            k in 1usize..15,
            alpha in prop_oneof![Just(0.5), Just(0.0), Just(1.0), Just(0.3)],
            t in prop_oneof![Just(1.0), Just(2.0)],
        ) {
            // Documents are 0..n_docs, each judged at most once per subtopic, ranked at most once.
            let mut seen = std::collections::BTreeSet::new();
            let judgments: Vec<(u32, u32, f64)> = judgments
                .into_iter()
                .filter(|j| (j.0 as usize) < n_docs && seen.insert((j.0, j.1)))
                .collect();
            let mut placed = std::collections::BTreeSet::new();
            let ranked: Vec<Option<u32>> = ranked
                .into_iter()
                .filter(|d| d.is_none_or(|d| (d as usize) < n_docs && placed.insert(d)))
                .collect();
            for kernel in ["st_recall", "p_ia", "alpha_ndcg"] {
                let params: &[f64] = if kernel == "alpha_ndcg" { &[alpha] } else { &[] };
                let measure = Measure::new(kernel, Some(k), params, None, None).unwrap();
                let fast = diversity_value(&ranked, &judgments, n_docs, &measure, t);
                let slow = naive_diversity(&ranked, &judgments, n_docs, &measure, t);
                let ok = (fast.is_nan() && slow.is_nan()) || (fast - slow).abs() < 1e-12;
                prop_assert!(ok, "{kernel}: {fast} vs {slow}");
            }
        }
    }
}
