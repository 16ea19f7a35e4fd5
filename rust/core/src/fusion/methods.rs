//! The fusion methods, each declared once (`fusion_methods!`), and the checks of their parameters.

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
