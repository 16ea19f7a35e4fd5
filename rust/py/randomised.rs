//! Bindings of the randomisation tests of many systems (`ragmeter_core::randomised`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use ragmeter_core::randomised::{self, MaxStatistic};
use ragmeter_core::signflip::SignFlipMethod;

use crate::error::ByPosition;
use crate::threads;

fn method(exact: bool, n_resamples: u64, seed: u64) -> SignFlipMethod {
    if exact {
        SignFlipMethod::Exact
    } else {
        SignFlipMethod::Sampled { n_resamples, seed }
    }
}

type TukeyOutput<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u64>>, u64);

/// Randomised Tukey HSD test of every pair of columns of `scores` (queries x systems), exact
/// or with `n_resamples` seeded permutations. Returns the p-values and counts of the pairs
/// `(i, j)`, `i < j`, in row-major order, and the number of permutations.
#[pyfunction]
#[pyo3(signature = (scores, *, exact, n_resamples, seed, n_threads=None))]
pub fn randomised_tukey<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray2<'py, f64>,
    exact: bool,
    n_resamples: u64,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<TukeyOutput<'py>> {
    let (n_queries, n_systems) = (scores.shape()[0], scores.shape()[1]);
    let values = scores.as_slice()?;
    let method = method(exact, n_resamples, seed);
    let result = threads::enter_core_interruptible(py, n_threads, &ByPosition, |cancel| {
        randomised::randomised_tukey_cancellable(values, n_queries, n_systems, method, cancel)
    })?;
    Ok((
        result.p_values.into_pyarray(py),
        result.counts.into_pyarray(py),
        result.n_permutations,
    ))
}

type WestfallYoungOutput<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    u64,
);

/// Westfall-Young max-T step-down test of every row of `differences` (candidates x queries,
/// candidate minus baseline) with the sign vectors of `sign_flip_test`; `statistic` is "t" or
/// "mean". Returns the adjusted and raw p-values, the observed statistics and the number of
/// sign vectors.
#[pyfunction]
#[pyo3(signature = (differences, *, statistic, exact, n_resamples, seed, n_threads=None))]
pub fn westfall_young<'py>(
    py: Python<'py>,
    differences: PyReadonlyArray2<'py, f64>,
    statistic: &str,
    exact: bool,
    n_resamples: u64,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<WestfallYoungOutput<'py>> {
    let kind = match statistic {
        "t" => MaxStatistic::T,
        "mean" => MaxStatistic::MeanDifference,
        other => {
            return Err(crate::error::invalid_input(format!(
                "statistic: must be 't' or 'mean', got {other:?}"
            )));
        }
    };
    let (n_candidates, n_pairs) = (differences.shape()[0], differences.shape()[1]);
    let values = differences.as_slice()?;
    let method = method(exact, n_resamples, seed);
    let result = threads::enter_core_interruptible(py, n_threads, &ByPosition, |cancel| {
        randomised::westfall_young_cancellable(values, n_candidates, n_pairs, kind, method, cancel)
    })?;
    Ok((
        result.adjusted.into_pyarray(py),
        result.raw.into_pyarray(py),
        result.statistics.into_pyarray(py),
        result.n_patterns,
    ))
}
