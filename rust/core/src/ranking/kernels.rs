//! The measure kernels, each declared once: its name, whether it takes a cutoff, the
//! parameters it reads, which judged documents it needs prepared, whether it reads diversity
//! judgments, and how its `Kind` is built from the parameters. `Measure::new`, the judged-set
//! requirement and the Python package's list of kernels (`kernel_table`) all read this table,
//! so a kernel is added in one place (as pydantic-core's `validator_match!` declares each
//! validator once).

use super::{CwlGains, CwlModel, Diversity, GainPairs, Kind, TieAware};
use crate::{CoreError, CoreResult};

/// Whether a kernel takes a cutoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    /// `name@k` only.
    Required,
    /// With a cutoff, or over the whole ranking without one.
    Optional,
    /// Never.
    Refused,
}

impl Cutoff {
    /// The spelling of the Python declarations' `cutoff` field.
    pub fn name(self) -> &'static str {
        match self {
            Cutoff::Required => "required",
            Cutoff::Optional => "optional",
            Cutoff::Refused => "none",
        }
    }
}

/// The numeric parameters and gain pairs a kernel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Params {
    None,
    Exactly(usize),
    AtLeast(usize),
    Gains,
    OptionalGains,
    ExactlyWithGains(usize),
}

impl Params {
    /// Whether the kernel reads gain pairs.
    pub fn takes_gains(self) -> bool {
        matches!(
            self,
            Params::Gains | Params::OptionalGains | Params::ExactlyWithGains(_)
        )
    }

    fn count_fits(self, n: usize) -> bool {
        match self {
            Params::None | Params::Gains | Params::OptionalGains => n == 0,
            Params::Exactly(k) | Params::ExactlyWithGains(k) => n == k,
            Params::AtLeast(k) => n >= k,
        }
    }
}

/// Which judged documents a kernel reads, so which the rankings must be prepared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgedSet {
    /// Only those with a positive grade (fast to prepare).
    Positive,
    /// Every judged document: judged non-relevant and unjudged-in-pool ones too.
    All,
    /// Every judged document when the user gives gain pairs (a gain for level 0 makes judged
    /// non-relevant documents count); else the positive ones.
    AllWithGains,
    /// Every judged document when the minimum grade of the scaled gains (the second
    /// parameter from the end) is below 0: judged non-relevant documents then have a gain.
    AllWithNegativeMinGrade,
}

impl JudgedSet {
    /// The spelling `kernel_table` gives Python.
    pub fn name(self) -> &'static str {
        match self {
            JudgedSet::Positive => "positive",
            JudgedSet::All => "all",
            JudgedSet::AllWithGains => "all_with_gains",
            JudgedSet::AllWithNegativeMinGrade => "all_with_negative_min_grade",
        }
    }
}

/// What a kernel's `build` reads: its name, checked parameters and gain pairs.
pub struct Args<'a> {
    pub kernel: &'static str,
    pub params: &'a [f64],
    pub gains: Option<GainPairs>,
}

impl Args<'_> {
    fn p(&self, i: usize) -> f64 {
        self.params[i]
    }

    fn pairs(&self) -> GainPairs {
        self.gains.clone().unwrap_or_default()
    }
}

/// One kernel's declaration.
pub struct Kernel {
    pub name: &'static str,
    pub cutoff: Cutoff,
    pub params: Params,
    pub judged: JudgedSet,
    /// Reads diversity judgments `{doc: {subtopic: grade}}` (and only those).
    pub subtopics: bool,
    /// The kind, from parameters whose count and finiteness are checked.
    pub build: fn(&Args<'_>) -> CoreResult<Kind>,
}

impl Kernel {
    /// Whether a measure of this kernel with these parameters needs every judged document.
    pub fn needs_all_judged(&self, params: &[f64], gains: Option<&GainPairs>) -> bool {
        match self.judged {
            JudgedSet::Positive => false,
            JudgedSet::All => true,
            JudgedSet::AllWithGains => gains.is_some_and(|pairs| !pairs.is_empty()),
            JudgedSet::AllWithNegativeMinGrade => {
                params.len() >= 2 && params[params.len() - 2] < 0.0
            }
        }
    }
}

/// `kernels! { name: cutoff, params, judged[, subtopics] => |args| kind; ... }`: the table
/// `KERNELS`, one entry per kernel.
macro_rules! kernels {
    ($($name:literal : $cutoff:ident, $params:expr, $judged:ident $(, $subtopics:ident)?
        => |$a:ident| $build:expr;)*) => {
        /// Every kernel of the core, in the order of the Python declarations' families.
        pub static KERNELS: &[Kernel] = &[$(Kernel {
            name: $name,
            cutoff: Cutoff::$cutoff,
            params: $params,
            judged: JudgedSet::$judged,
            subtopics: kernels!(@subtopics $($subtopics)?),
            build: |$a: &Args<'_>| -> CoreResult<Kind> { $build },
        },)*];
    };
    (@subtopics) => { false };
    (@subtopics subtopics) => { true };
}

use Params::{AtLeast, Exactly, ExactlyWithGains, Gains, OptionalGains};

kernels! {
    "num_ret": Refused, Params::None, Positive => |_a| Ok(Kind::NumRet);
    "num_rel": Refused, Params::None, Positive => |_a| Ok(Kind::NumRel);
    "num_rel_ret": Refused, Params::None, Positive => |_a| Ok(Kind::NumRelRet);
    "num_nonrel_judged_ret": Refused, Params::None, All => |_a| Ok(Kind::NumNonrelJudgedRet);
    "num_judged_positive": Refused, Params::None, Positive => |_a| Ok(Kind::NumJudgedPositive);
    "precision": Required, Params::None, Positive => |_a| Ok(Kind::Precision);
    "recall": Required, Params::None, Positive => |_a| Ok(Kind::Recall);
    // Without a cutoff (ranx's hit_rate and hits alone): the whole ranking.
    "success": Optional, Params::None, Positive => |_a| Ok(Kind::Success);
    "hits": Optional, Params::None, Positive => |_a| Ok(Kind::Hits);
    "relative_precision": Required, Params::None, Positive => |_a| Ok(Kind::RelativePrecision);
    "unjudged": Required, Params::None, All => |_a| Ok(Kind::Unjudged);
    "hole": Required, Params::None, All => |_a| Ok(Kind::Hole);
    "reciprocal_rank": Optional, Params::None, Positive => |_a| Ok(Kind::ReciprocalRank);
    "average_precision": Optional, Params::None, Positive => |_a| Ok(Kind::AveragePrecision);
    "r_precision": Refused, Params::None, Positive => |_a| Ok(Kind::RPrecision);
    // The means over the orders of tied documents (they read the groups of tied scores).
    "precision_ta": Required, Params::None, Positive
        => |_a| Ok(Kind::TieAware(TieAware::Precision));
    "recall_ta": Required, Params::None, Positive => |_a| Ok(Kind::TieAware(TieAware::Recall));
    "reciprocal_rank_ta": Optional, Params::None, Positive
        => |_a| Ok(Kind::TieAware(TieAware::ReciprocalRank));
    "average_precision_ta": Optional, Params::None, Positive
        => |_a| Ok(Kind::TieAware(TieAware::AveragePrecision));
    "ndcg_ta": Optional, Params::None, Positive => |_a| Ok(Kind::TieAware(TieAware::Ndcg));
    "r_precision_mult": Refused, Exactly(1), Positive => |a| Ok(Kind::RPrecisionMult(a.p(0)));
    "iprec_at_recall": Refused, Exactly(1), Positive => |a| Ok(Kind::IPrecAtRecall(a.p(0)));
    "eleven_point_average": Refused, AtLeast(1), Positive
        => |a| Ok(Kind::ElevenPointAverage(a.params.to_vec()));
    "bpref": Refused, Params::None, All => |_a| Ok(Kind::Bpref);
    "infap": Refused, Params::None, All => |_a| Ok(Kind::InfAp);
    "bin_g": Refused, Params::None, Positive => |_a| Ok(Kind::BinG);
    "g": Refused, Gains, AllWithGains => |a| Ok(Kind::G(a.pairs()));
    "ndcg": Optional, OptionalGains, AllWithGains => |a| Ok(Kind::Ndcg(a.gains.clone()));
    "dcg": Optional, Gains, AllWithGains => |a| Ok(Kind::Dcg(a.pairs()));
    "ideal_dcg": Refused, Gains, AllWithGains => |a| Ok(Kind::IdealDcg(a.pairs()));
    "ndcg_rel": Refused, Gains, AllWithGains => |a| Ok(Kind::NdcgRel(a.pairs()));
    "rndcg": Refused, Gains, AllWithGains => |a| Ok(Kind::Rndcg(a.pairs()));
    "set_precision": Refused, Params::None, Positive => |_a| Ok(Kind::SetPrecision);
    "set_recall": Refused, Params::None, Positive => |_a| Ok(Kind::SetRecall);
    "set_relative_precision": Refused, Params::None, Positive
        => |_a| Ok(Kind::SetRelativePrecision);
    "set_map": Refused, Params::None, Positive => |_a| Ok(Kind::SetMap);
    "set_f": Refused, Exactly(1), Positive => |a| Ok(Kind::SetF(a.p(0)));
    "utility": Refused, Exactly(5), Positive
        => |a| Ok(Kind::Utility([a.p(0), a.p(1), a.p(2), a.p(3)], a.p(4)));
    "rbp": Refused, ExactlyWithGains(1), AllWithGains => |a| {
        persistence(a, "rbp", a.p(0), 0.0 <= a.p(0) && a.p(0) < 1.0, "[0, 1)")?;
        Ok(Kind::Rbp(a.p(0), a.pairs()))
    };
    "rbp_residual": Refused, Exactly(1), All => |a| {
        persistence(a, "rbp_resid", a.p(0), 0.0 <= a.p(0) && a.p(0) < 1.0, "[0, 1)")?;
        Ok(Kind::RbpResidual(a.p(0)))
    };
    "err": Optional, Params::None, Positive => |_a| Ok(Kind::Err);
    "ndcg_exp": Optional, Params::None, Positive => |_a| Ok(Kind::NdcgExp);
    "rbp_graded": Optional, Exactly(1), Positive => |a| {
        open_persistence(a)?;
        Ok(Kind::RbpGraded(a.p(0)))
    };
    "rbp_graded_residual": Optional, Exactly(1), All => |a| {
        open_persistence(a)?;
        Ok(Kind::RbpGradedResidual(a.p(0)))
    };
    "rbp_binary": Refused, Exactly(1), Positive => |a| {
        open_persistence(a)?;
        Ok(Kind::Cwl(CwlModel::Rbp(a.p(0)), CwlGains::Binary))
    };
    "judged": Optional, Params::None, All => |_a| Ok(Kind::Judged);
    "accuracy": Optional, Params::None, Positive => |_a| Ok(Kind::Accuracy);
    "sdcg": Required, Exactly(2), AllWithNegativeMinGrade
        => |a| Ok(Kind::Cwl(CwlModel::Sdcg, cwl_gains(a, 0)?));
    "nerr8": Required, Exactly(2), AllWithNegativeMinGrade
        => |a| Ok(Kind::Cwl(CwlModel::Nerr8, cwl_gains(a, 0)?));
    "nerr9": Required, Exactly(2), AllWithNegativeMinGrade
        => |a| Ok(Kind::Cwl(CwlModel::Nerr9, cwl_gains(a, 0)?));
    "nerr10": Refused, Exactly(3), AllWithNegativeMinGrade => |a| {
        let gains = cwl_gains(a, 1)?;
        persistence(a, "nerr10", a.p(0), a.p(0) > 0.0 && a.p(0) <= 1.0, "(0, 1]")?;
        Ok(Kind::Cwl(CwlModel::Nerr10(a.p(0)), gains))
    };
    "nerr11": Refused, Exactly(3), AllWithNegativeMinGrade => |a| {
        let gains = cwl_gains(a, 1)?;
        Ok(Kind::Cwl(CwlModel::Nerr11(goal(a)?), gains))
    };
    "inst": Refused, Exactly(3), AllWithNegativeMinGrade => |a| {
        let gains = cwl_gains(a, 1)?;
        Ok(Kind::Cwl(CwlModel::Inst(goal(a)?), gains))
    };
    "insq": Refused, Exactly(3), AllWithNegativeMinGrade => |a| {
        let gains = cwl_gains(a, 1)?;
        Ok(Kind::Cwl(CwlModel::Insq(goal(a)?), gains))
    };
    "bpm": Required, Exactly(3), AllWithNegativeMinGrade => |a| {
        let gains = cwl_gains(a, 1)?;
        Ok(Kind::Cwl(CwlModel::Bpm(goal(a)?), gains))
    };
    "compat": Refused, Exactly(2), Positive => |a| {
        persistence(a, "compat", a.p(0), a.p(0) > 0.0 && a.p(0) < 1.0, "(0, 1)")?;
        Ok(Kind::Compat(a.p(0), a.p(1) != 0.0))
    };
    "f1": Optional, Params::None, Positive => |_a| Ok(Kind::F1);
    "dcg_burges": Optional, Params::None, Positive => |_a| Ok(Kind::DcgBurges);
    "ndcg_burges": Optional, Params::None, Positive => |_a| Ok(Kind::NdcgBurges);
    "alpha_dcg": Required, Exactly(1), Positive, subtopics
        => |a| diversity(a, Diversity::AlphaDcg);
    "alpha_ndcg": Required, Exactly(1), Positive, subtopics
        => |a| diversity(a, Diversity::AlphaNdcg);
    "err_ia": Required, Exactly(1), Positive, subtopics => |a| diversity(a, Diversity::ErrIa);
    "nerr_ia": Required, Exactly(1), Positive, subtopics => |a| diversity(a, Diversity::NErrIa);
    "p_ia": Required, Params::None, Positive, subtopics => |a| diversity(a, Diversity::PIa);
    "st_recall": Required, Params::None, Positive, subtopics
        => |a| diversity(a, Diversity::StRecall);
    "ap_ia": Refused, Params::None, Positive, subtopics => |a| diversity(a, Diversity::ApIa);
    "nrbp": Refused, Exactly(2), Positive, subtopics => |a| diversity(a, Diversity::Nrbp);
    "nnrbp": Refused, Exactly(2), Positive, subtopics => |a| diversity(a, Diversity::NNrbp);
}

/// The declaration of a kernel name.
pub fn kernel(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

/// Check the parameters and gains a measure gives its kernel (count, finiteness, levels).
pub fn check_params(kernel: &Kernel, params: &[f64], gains: Option<&GainPairs>) -> CoreResult<()> {
    let name = kernel.name;
    if !kernel.params.count_fits(params.len()) || params.iter().any(|p| !p.is_finite()) {
        return Err(CoreError::argument(
            "metrics",
            format!("{name}: wrong parameters {params:?}"),
        ));
    }
    if !kernel.params.takes_gains() && gains.is_some() {
        return Err(CoreError::argument(
            "metrics",
            format!("{name} takes no gains"),
        ));
    }
    if let Some(pairs) = gains
        && let Some(bad) = pairs.iter().find(|(l, g)| *l < 0 || !g.is_finite())
    {
        return Err(CoreError::argument(
            "metrics",
            format!(
                "{name}: gain {} for level {}: levels are judged grades >= 0 and gains finite",
                bad.1, bad.0
            ),
        ));
    }
    Ok(())
}

fn persistence(_a: &Args<'_>, shown: &str, p: f64, ok: bool, range: &str) -> CoreResult<()> {
    if ok {
        Ok(())
    } else {
        Err(CoreError::argument(
            "metrics",
            format!("{shown}: the persistence p must be in {range}, got {p}"),
        ))
    }
}

fn open_persistence(a: &Args<'_>) -> CoreResult<()> {
    let p = a.p(0);
    persistence(a, a.kernel, p, p > 0.0 && p < 1.0, "(0, 1)")
}

fn goal(a: &Args<'_>) -> CoreResult<f64> {
    let x = a.p(0);
    if x > 0.0 {
        Ok(x)
    } else {
        Err(CoreError::argument(
            "metrics",
            format!("{}: the goal T must be > 0, got {x}", a.kernel),
        ))
    }
}

/// The scaled gains of a C/W/L kernel from its parameters `first` (min_rel) and `first + 1`.
fn cwl_gains(a: &Args<'_>, first: usize) -> CoreResult<CwlGains> {
    let (min_rel, max_rel) = (a.p(first), a.p(first + 1));
    if min_rel < max_rel {
        Ok(CwlGains::Scaled { min_rel, max_rel })
    } else {
        Err(CoreError::argument(
            "metrics",
            format!(
                "{}: min_rel ({min_rel}) must be less than max_rel ({max_rel})",
                a.kernel
            ),
        ))
    }
}

fn diversity(a: &Args<'_>, which: Diversity) -> CoreResult<Kind> {
    let alpha = a.params.first().copied().unwrap_or(0.5);
    let beta = a.params.get(1).copied().unwrap_or(0.5);
    if !(0.0..=1.0).contains(&alpha) || !(0.0..=1.0).contains(&beta) {
        return Err(CoreError::argument(
            "metrics",
            format!(
                "{}: alpha and beta must be in [0, 1], got {alpha} and {beta}",
                a.kernel
            ),
        ));
    }
    Ok(Kind::Diversity(which, alpha, beta))
}
