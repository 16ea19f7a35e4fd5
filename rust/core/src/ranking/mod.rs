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
//! This module holds the kernels' names and parameters (`Kind`, `Measure`) and the pass over
//! the queries (`evaluate`); `query` one query as the measures see it and trec_eval's measures,
//! `gains` trec_eval's gain tables, `providers` the measures of ir_measures' other providers and
//! of ranx, `diversity` ndeval's subtopic measures.

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
    // Without a cutoff (ranx's hit_rate and hits alone): the whole ranking.
    ("success", Some(false), Params::None),
    ("hits", Some(false), Params::None),
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
    let evaluate_query = |scratch: &mut Scratch, (q, out): (usize, &mut [f64])| {
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

mod diversity;
mod gains;
mod providers;
mod query;

use query::{Judgments, QueryView, Ranked};
#[cfg(test)]
mod tests;

#[derive(Default)]
struct Scratch {
    judged_hits: Vec<Hit>,
    ideal: Vec<f64>,
    relevance: Vec<f64>,
}
