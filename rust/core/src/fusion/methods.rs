//! The fusion methods, each declared once (`fusion_methods!`): its name, ranx's names for it,
//! family, parameters (with ranx's defaults), what it learns from training judgments, formula,
//! citation, and how its [`Method`] is built from the parameters. The bindings build methods
//! from this table and the Python package's declarations (`ragmeter.fusion.declarations`) read
//! it (`fusion_method_table`), so a method is added in one place, as the measures' `kernels!`.
//! The checks of the parameters against the runs are here too.

use super::*;

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

/// The form of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A finite number.
    Number,
    /// A whole number >= 0.
    Count,
    /// One number per run, in the order of the runs.
    PerRun,
    /// One vector of numbers per run.
    PerRunVectors,
}

impl ParamKind {
    /// The spelling the Python declarations read.
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::Number => "number",
            ParamKind::Count => "count",
            ParamKind::PerRun => "per_run",
            ParamKind::PerRunVectors => "per_run_vectors",
        }
    }
}

/// Every parameter a method or a training may take, and its form.
pub static PARAMETERS: &[(&str, ParamKind)] = &[
    ("weights", ParamKind::PerRun),
    ("k", ParamKind::Number),
    ("gamma", ParamKind::Number),
    ("sigma", ParamKind::Number),
    ("phi", ParamKind::Number),
    ("w", ParamKind::Count),
    ("n_segments", ParamKind::Count),
    ("probs", ParamKind::PerRunVectors),
    ("map_scores", ParamKind::PerRun),
    ("log_odds", ParamKind::PerRunVectors),
];

/// The form of parameter `name` (None: no such parameter).
pub fn param_kind(name: &str) -> Option<ParamKind> {
    PARAMETERS.iter().find(|p| p.0 == name).map(|p| p.1)
}

/// A parameter's value, in the form [`PARAMETERS`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Count(usize),
    PerRun(Vec<f64>),
    PerRunVectors(Vec<Vec<f64>>),
}

/// The parameters given to a method (by name), which its `build` reads.
#[derive(Clone, Debug, Default)]
pub struct Args {
    values: Vec<(&'static str, Value)>,
}

impl Args {
    pub fn new() -> Self {
        Args::default()
    }

    /// Give parameter `name` (one of [`PARAMETERS`], in its form; a later value replaces an
    /// earlier one).
    pub fn set(&mut self, name: &str, value: Value) -> CoreResult<()> {
        let Some(&(name, kind)) = PARAMETERS.iter().find(|p| p.0 == name) else {
            return Err(CoreError::argument(
                "params",
                format!("{name:?} is not a fusion parameter"),
            ));
        };
        let fits = matches!(
            (kind, &value),
            (ParamKind::Number, Value::Number(_))
                | (ParamKind::Count, Value::Count(_))
                | (ParamKind::PerRun, Value::PerRun(_))
                | (ParamKind::PerRunVectors, Value::PerRunVectors(_))
        );
        if !fits {
            return Err(CoreError::argument(
                name,
                format!("expected {}, got {value:?}", kind.name()),
            ));
        }
        self.values.retain(|v| v.0 != name);
        self.values.push((name, value));
        Ok(())
    }

    fn get(&self, method: &str, name: &str) -> CoreResult<&Value> {
        self.values
            .iter()
            .find(|v| v.0 == name)
            .map(|v| &v.1)
            .ok_or_else(|| {
                CoreError::argument(
                    "params",
                    format!("method {method:?} needs the parameter {name}"),
                )
            })
    }

    fn number(&self, method: &str, name: &str) -> CoreResult<f64> {
        match self.get(method, name)? {
            Value::Number(x) => Ok(*x),
            _ => unreachable!("`set` checks the form"),
        }
    }

    fn count(&self, method: &str, name: &str) -> CoreResult<usize> {
        match self.get(method, name)? {
            Value::Count(x) => Ok(*x),
            _ => unreachable!("`set` checks the form"),
        }
    }

    fn per_run(&self, method: &str, name: &str) -> CoreResult<Vec<f64>> {
        match self.get(method, name)? {
            Value::PerRun(x) => Ok(x.clone()),
            _ => unreachable!("`set` checks the form"),
        }
    }

    fn vectors(&self, method: &str, name: &str) -> CoreResult<Vec<Vec<f64>>> {
        match self.get(method, name)? {
            Value::PerRunVectors(x) => Ok(x.clone()),
            _ => unreachable!("`set` checks the form"),
        }
    }
}

/// The family of a method: what it reads of the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// The normalised scores.
    Score,
    /// The positions.
    Rank,
    /// The positions, weighted by what was learnt from training judgments.
    Trained,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Score => "score",
            Family::Rank => "rank",
            Family::Trained => "trained",
        }
    }
}

/// What a trained method learns: the name of the training (the Python declarations'
/// `training`), the parameter it fills, and the training built from the given parameters.
pub struct Learns {
    pub training: &'static str,
    pub parameter: &'static str,
    pub build: fn(&Args) -> CoreResult<Training>,
}

/// One fusion method's declaration.
pub struct Declaration {
    /// ragmeter's and ranx's `fuse(method=...)` name.
    pub name: &'static str,
    /// The name of ranx's per-method function (`ranx.fusion.comb_sum`) and of the run it
    /// returns by default.
    pub ranx_function: &'static str,
    pub ranx_run_name: &'static str,
    pub title: &'static str,
    pub family: Family,
    /// The parameters `fuse` takes (ProbFuse's `n_segments` is its training's), with ranx's
    /// default where ranx has one.
    pub parameters: &'static [(&'static str, Option<f64>)],
    pub learns: Option<Learns>,
    pub formula: &'static str,
    pub citation: &'static str,
    /// The method from its parameters (the trained one included).
    pub build: fn(&Args) -> CoreResult<Method>,
}

impl Declaration {
    /// The method from `args`, with the declared defaults for the parameters not given.
    pub fn method(&self, args: &Args) -> CoreResult<Method> {
        let mut args = args.clone();
        for &(name, default) in self.parameters {
            if let Some(default) = default
                && !args.values.iter().any(|v| v.0 == name)
            {
                args.set(name, Value::Number(default))?;
            }
        }
        (self.build)(&args)
    }

    /// The training of a trained method from `args` (`n_segments` for ProbFuse).
    pub fn training(&self, args: &Args) -> CoreResult<Training> {
        match &self.learns {
            Some(learns) => (learns.build)(args),
            None => Err(CoreError::argument(
                "method",
                format!("{:?} is not a trained method", self.name),
            )),
        }
    }
}

/// The declaration of method `name`.
pub fn declaration(name: &str) -> CoreResult<&'static Declaration> {
    METHODS.iter().find(|m| m.name == name).ok_or_else(|| {
        let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        CoreError::argument(
            "method",
            format!(
                "unknown fusion method {name:?}; one of {}",
                names.join(", ")
            ),
        )
    })
}

/// `fusion_methods! { "name" (ranx "function" -> "run name"): Family, "title",
/// [params = defaults], [trained "training" -> "parameter" => |a| training,]
/// "formula", citation => |a| method; ... }`: the table `METHODS`, one entry per method.
macro_rules! fusion_methods {
    ($($name:literal ($ranx:literal -> $run:literal): $family:ident, $title:literal,
        [$($param:literal $(= $default:literal)?),*],
        $(trained $training:literal -> $trained:literal => |$t:ident| $learn:expr,)?
        $formula:literal, $citation:expr => |$a:ident| $build:expr;)*) => {
        /// Every fusion method, in the order of ranx's documentation.
        pub static METHODS: &[Declaration] = &[$(Declaration {
            name: $name,
            ranx_function: $ranx,
            ranx_run_name: $run,
            title: $title,
            family: Family::$family,
            parameters: &[$(($param, fusion_methods!(@default $($default)?))),*],
            learns: fusion_methods!(@learns $($training, $trained, |$t| $learn)?),
            formula: $formula,
            citation: $citation,
            build: |$a: &Args| -> CoreResult<Method> { $build },
        },)*];
    };
    (@default) => { None };
    (@default $default:literal) => { Some($default) };
    (@learns) => { None };
    (@learns $training:literal, $trained:literal, |$t:ident| $learn:expr) => {
        Some(Learns {
            training: $training,
            parameter: $trained,
            build: |$t: &Args| -> CoreResult<Training> { $learn },
        })
    };
}

const FOX_SHAW: &str = "Fox & Shaw, Combination of Multiple Searches, TREC-2, 1994";
const LEE: &str = "Lee, Analyses of Multiple Evidence Combination, SIGIR 1997";
const WU: &str = "Wu & Crestani, Data fusion with estimated weights, CIKM 2002";
const MOURAO: &str = "Mourão et al., Multimodal medical information retrieval with unsupervised \
                      rank fusion, CMIG 2015";
const ASLAM: &str = "Aslam & Montague, Models for Metasearch, SIGIR 2001";
const MONTAGUE: &str = "Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002";
const LILLIS10: &str =
    "Lillis et al., Estimating probabilities for effective data fusion, SIGIR 2010";
const CORMACK: &str = "Cormack, Clarke & Büttcher, Reciprocal rank fusion outperforms Condorcet \
                       and individual rank learning methods, SIGIR 2009";
const BAILEY: &str = "Bailey, Moffat, Scholer & Thomas, Retrieval consistency in the presence of \
                      query variations, SIGIR 2017";
const LILLIS06: &str = "Lillis, Toolan, Collier & Dunnion, ProbFuse: a probabilistic approach to \
                        data fusion, SIGIR 2006";
const SHOKOUHI: &str =
    "Shokouhi, Segmentation of search engine results for effective data-fusion, ECIR 2007";
const LILLIS08: &str = "Lillis, Toolan, Collier & Dunnion, Extending probabilistic data fusion \
                        using sliding windows, ECIR 2008";

fusion_methods! {
    "sum" ("comb_sum" -> "comb_sum"): Score, "CombSUM", [],
        "s(d) = Σ_r s_r(d)", FOX_SHAW => |_a| Ok(Method::CombSum);
    "mnz" ("comb_mnz" -> "comb_mnz"): Score, "CombMNZ", [],
        "s(d) = |R_d| · Σ_r s_r(d)", FOX_SHAW => |_a| Ok(Method::CombMnz);
    "max" ("comb_max" -> "comb_max"): Score, "CombMAX", [],
        "s(d) = max_r s_r(d) (absent: -1e9)", FOX_SHAW => |_a| Ok(Method::CombMax);
    "min" ("comb_min" -> "comb_min"): Score, "CombMIN", [],
        "s(d) = min_r s_r(d) (absent: 1e9)", FOX_SHAW => |_a| Ok(Method::CombMin);
    "med" ("comb_med" -> "comb_med"): Score, "CombMED", [],
        "s(d) = median of s_r(d), r ∈ R_d", FOX_SHAW => |_a| Ok(Method::CombMed);
    "anz" ("comb_anz" -> "comb_anz"): Score, "CombANZ", [],
        "s(d) = Σ_r s_r(d) / |R_d|", FOX_SHAW => |_a| Ok(Method::CombAnz);
    "gmnz" ("comb_gmnz" -> "comb_gmnz"): Score, "CombGMNZ", ["gamma"],
        "s(d) = |R_d|^γ · Σ_r s_r(d)", LEE
        => |a| Ok(Method::CombGmnz { gamma: a.number("gmnz", "gamma")? });
    "wsum" ("wsum" -> "weighted_sum"): Score, "Weighted Sum", ["weights"],
        "s(d) = Σ_r w_r s_r(d)", WU
        => |a| Ok(Method::Wsum { weights: a.per_run("wsum", "weights")? });
    "wmnz" ("wmnz" -> "wmnz"): Score, "Weighted MNZ", ["weights"],
        "s(d) = (Σ_{r∈R_d} w_r) · Σ_{r∈R_d} s_r(d)", WU
        => |a| Ok(Method::Wmnz { weights: a.per_run("wmnz", "weights")? });
    "mixed" ("mixed" -> "mixed"): Score, "Mixed", ["weights"],
        "s(d) = √|R_d| · Σ_{r∈R_d} w_r s_r(d)", WU
        => |a| Ok(Method::Mixed { weights: a.per_run("mixed", "weights")? });
    "rrf" ("rrf" -> "rrf"): Rank, "Reciprocal Rank Fusion", ["k" = 60.0],
        "s(d) = Σ_{r∈R_d} 1 / (k + p_r(d))", CORMACK
        => |a| Ok(Method::Rrf { k: a.number("rrf", "k")? });
    "isr" ("isr" -> "isr"): Rank, "ISR", [],
        "s(d) = |R_d| · Σ_{r∈R_d} 1 / p_r(d)²", MOURAO => |_a| Ok(Method::Isr);
    "log_isr" ("log_isr" -> "log_isr"): Rank, "log_ISR", [],
        "s(d) = ln|R_d| · Σ_{r∈R_d} 1 / p_r(d)²", MOURAO => |_a| Ok(Method::LogIsr);
    "logn_isr" ("logn_isr" -> "logn_isr"): Rank, "logN_ISR", ["sigma" = 0.01],
        "s(d) = ln(|R_d| + σ) · Σ_{r∈R_d} 1 / p_r(d)²", MOURAO
        => |a| Ok(Method::LognIsr { sigma: a.number("logn_isr", "sigma")? });
    "bordafuse" ("bordafuse" -> "bordafuse"): Rank, "BordaFuse", [],
        "s(d) = Σ_r (n - p_r(d) + 1), unranked: (n - |r| + 1) / 2; n candidates", ASLAM
        => |_a| Ok(Method::BordaFuse);
    "w_bordafuse" ("weighted_bordafuse" -> "weighted_bordafuse"): Rank, "Weighted BordaFuse",
        ["weights"], "s(d) = Σ_r w_r · Borda_r(d)", ASLAM
        => |a| Ok(Method::WeightedBordaFuse { weights: a.per_run("w_bordafuse", "weights")? });
    "condorcet" ("condorcet" -> "condorcet"): Rank, "Condorcet", [],
        "candidates sorted by pairwise majority of the runs; s(d) = n - position", MONTAGUE
        => |_a| Ok(Method::Condorcet);
    "w_condorcet" ("weighted_condorcet" -> "weighted_condorcet"): Rank, "Weighted Condorcet",
        ["weights"], "as Condorcet, each run's vote weighted by w_r", MONTAGUE
        => |a| Ok(Method::WeightedCondorcet { weights: a.per_run("w_condorcet", "weights")? });
    "rbc" ("rbc" -> "rbc"): Rank, "Rank-Biased Centroid", ["phi"],
        "s(d) = Σ_{r∈R_d} (1 - φ) φ^(p_r(d) - 1)", BAILEY
        => |a| Ok(Method::Rbc { phi: a.number("rbc", "phi")? });
    "posfuse" ("posfuse" -> "posfuse"): Trained, "PosFuse", [],
        trained "probs" -> "probs" => |_t| Ok(Training::PositionProbs),
        "s(d) = Σ_{r∈R_d} P_r(rel | p_r(d))", LILLIS10
        => |a| Ok(Method::PosFuse { probs: a.vectors("posfuse", "probs")? });
    "probfuse" ("probfuse" -> "probfuse"): Trained, "ProbFuse", ["n_segments"],
        trained "probfuse" -> "probs"
            => |t| Ok(Training::ProbFuse { n_segments: t.count("probfuse", "n_segments")? }),
        "s(d) = Σ_{r∈R_d} P_r(rel | segment k) / k", LILLIS06
        => |a| Ok(Method::ProbFuse { probs: a.vectors("probfuse", "probs")? });
    "segfuse" ("segfuse" -> "segfuse"): Trained, "SegFuse", [],
        trained "segfuse" -> "probs" => |_t| Ok(Training::SegFuse),
        "s(d) = Σ_{r∈R_d} P_r(rel | segment of p_r(d)) · (s_r(d) + 1)", SHOKOUHI
        => |a| Ok(Method::SegFuse { probs: a.vectors("segfuse", "probs")? });
    "slidefuse" ("slidefuse" -> "slidefuse"): Trained, "SlideFuse", ["w"],
        trained "probs" -> "probs" => |_t| Ok(Training::PositionProbs),
        "s(d) = Σ_{r∈R_d} mean of P_r(rel | p) over p ∈ [p_r(d) - w, p_r(d) + w]", LILLIS08
        => |a| Ok(Method::SlideFuse {
            probs: a.vectors("slidefuse", "probs")?,
            w: a.count("slidefuse", "w")?,
        });
    "mapfuse" ("mapfuse" -> "mapfuse"): Trained, "MAPFuse", [],
        trained "map" -> "map_scores" => |_t| Ok(Training::MeanAveragePrecision),
        "s(d) = Σ_{r∈R_d} MAP_r / p_r(d)", LILLIS10
        => |a| Ok(Method::MapFuse { map_scores: a.per_run("mapfuse", "map_scores")? });
    "bayesfuse" ("bayesfuse" -> "bayesfuse"): Trained, "BayesFuse", [],
        trained "bayesfuse" -> "log_odds" => |_t| Ok(Training::BayesFuse),
        "s(d) = Σ_r log O_r(rel | rank segment of p_r(d)) (unranked: log(0.001/0.999))", ASLAM
        => |a| Ok(Method::BayesFuse { log_odds: a.vectors("bayesfuse", "log_odds")? });
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

pub(super) fn check_method(method: &Method, n_runs: usize) -> CoreResult<()> {
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

/// Whether `method` reads positions (the score-combining methods read only values).
pub(super) fn method_needs_positions(method: &Method) -> bool {
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
