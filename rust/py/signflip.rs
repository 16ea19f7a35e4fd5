//! Bindings of the paired randomisation tests (`ragmeter_core::signflip`).

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyReadonlyArray3,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use ragmeter_core::signflip::{self, Alternative, SignFlipMethod};

use crate::error::ByPosition;
use crate::threads;

type SignFlipOutput<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u64>>, u64);

/// Paired sign-flip test of every row of `differences` (metrics x pairs) under `alternative`
/// ("two-sided", "greater" or "less"), exact (all 2^n sign vectors) or with `n_resamples`
/// seeded random sign vectors. Returns the p-values, the counts of sign vectors at least as
/// extreme, and the number of sign vectors.
#[pyfunction]
#[pyo3(signature = (differences, *, exact, n_resamples, seed, alternative="two-sided", n_threads=None))]
pub fn sign_flip_test<'py>(
    py: Python<'py>,
    differences: PyReadonlyArray2<'py, f64>,
    exact: bool,
    n_resamples: u64,
    seed: u64,
    alternative: &str,
    n_threads: Option<usize>,
) -> PyResult<SignFlipOutput<'py>> {
    let alternative =
        Alternative::parse(alternative).map_err(|e| crate::error::to_pyerr(e, &ByPosition))?;
    let (n_metrics, n_pairs) = (differences.shape()[0], differences.shape()[1]);
    let values = differences.as_slice()?;
    let method = if exact {
        SignFlipMethod::Exact
    } else {
        SignFlipMethod::Sampled { n_resamples, seed }
    };
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        signflip::sign_flip_test(values, n_metrics, n_pairs, method, alternative)
    })?;
    Ok((
        result.p_values.into_pyarray(py),
        result.counts.into_pyarray(py),
        result.n_patterns,
    ))
}

/// Bootstrap distribution (metrics x n_resamples) of the mean of the non-NaN differences of
/// every row, resampling pairs with replacement from `seed`.
#[pyfunction]
#[pyo3(signature = (differences, *, n_resamples, seed, n_threads=None))]
pub fn bootstrap_mean_differences<'py>(
    py: Python<'py>,
    differences: PyReadonlyArray2<'py, f64>,
    n_resamples: u64,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (n_metrics, n_pairs) = (differences.shape()[0], differences.shape()[1]);
    let values = differences.as_slice()?;
    let means = threads::enter_core(py, n_threads, &ByPosition, || {
        signflip::bootstrap_mean_differences(values, n_metrics, n_pairs, n_resamples, seed)
    })?;
    let columns = usize::try_from(n_resamples).unwrap_or(usize::MAX);
    means.into_pyarray(py).reshape([n_metrics, columns])
}

type PairsOutput<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<u64>>, u64);

/// Reads `values` (systems x metrics x queries) and `pairs` (n x 2 system indices).
fn campaign<'a>(
    values: &'a PyReadonlyArray3<'_, f64>,
    pairs: &PyReadonlyArray2<'_, u64>,
) -> PyResult<(signflip::SystemValues<'a>, Vec<(usize, usize)>)> {
    let shape = values.shape();
    let systems = signflip::SystemValues {
        values: values.as_slice()?,
        n_systems: shape[0],
        n_metrics: shape[1],
        n_queries: shape[2],
    };
    if pairs.shape()[1] != 2 {
        return Err(crate::error::invalid_input(format!(
            "pairs: expected one row of two system indices per pair, got {} columns",
            pairs.shape()[1]
        )));
    }
    let indices = pairs.as_slice()?;
    let pairs = indices
        .chunks_exact(2)
        .map(|p| (p[0] as usize, p[1] as usize))
        .collect();
    Ok((systems, pairs))
}

/// Sign-flip tests of many pairs of systems (`values`: systems x metrics x queries, NaN where
/// undefined; `pairs`: rows `(candidate, baseline)`) under `alternative`, the same sign vectors
/// for every pair and metric. Returns p-values and counts (pairs x metrics) and the number of
/// sign vectors.
#[pyfunction]
#[pyo3(signature = (values, pairs, *, exact, n_resamples, seed, alternative="two-sided", n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn sign_flip_pairs<'py>(
    py: Python<'py>,
    values: PyReadonlyArray3<'py, f64>,
    pairs: PyReadonlyArray2<'py, u64>,
    exact: bool,
    n_resamples: u64,
    seed: u64,
    alternative: &str,
    n_threads: Option<usize>,
) -> PyResult<PairsOutput<'py>> {
    let alternative =
        Alternative::parse(alternative).map_err(|e| crate::error::to_pyerr(e, &ByPosition))?;
    let (systems, pairs) = campaign(&values, &pairs)?;
    let method = if exact {
        SignFlipMethod::Exact
    } else {
        SignFlipMethod::Sampled { n_resamples, seed }
    };
    let n_metrics = systems.n_metrics;
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        signflip::sign_flip_pairs(systems, &pairs, method, alternative)
    })?;
    let shape = [pairs.len(), n_metrics];
    Ok((
        result.p_values.into_pyarray(py).reshape(shape)?,
        result.counts.into_pyarray(py).reshape(shape)?,
        result.n_patterns,
    ))
}

type BootstrapOutput<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<u64>>,
    Bound<'py, PyArray2<u64>>,
);

/// Paired bootstrap of many pairs of systems (the same resamples for every pair and metric):
/// the percentile interval of the mean difference at `confidence_level`, the resamples at
/// least as far from the observed mean as it lies from 0 in the direction of `alternative`,
/// and the resamples with a defined mean; each pairs x metrics.
#[pyfunction]
#[pyo3(signature = (values, pairs, *, n_resamples, seed, confidence_level, alternative="two-sided", n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn bootstrap_pairs<'py>(
    py: Python<'py>,
    values: PyReadonlyArray3<'py, f64>,
    pairs: PyReadonlyArray2<'py, u64>,
    n_resamples: u64,
    seed: u64,
    confidence_level: f64,
    alternative: &str,
    n_threads: Option<usize>,
) -> PyResult<BootstrapOutput<'py>> {
    let alternative =
        Alternative::parse(alternative).map_err(|e| crate::error::to_pyerr(e, &ByPosition))?;
    let (systems, pairs) = campaign(&values, &pairs)?;
    let n_metrics = systems.n_metrics;
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        signflip::bootstrap_pairs(
            systems,
            &pairs,
            n_resamples,
            seed,
            confidence_level,
            alternative,
        )
    })?;
    let shape = [pairs.len(), n_metrics];
    Ok((
        result.low.into_pyarray(py).reshape(shape)?,
        result.high.into_pyarray(py).reshape(shape)?,
        result.counts.into_pyarray(py).reshape(shape)?,
        result.n_valid.into_pyarray(py).reshape(shape)?,
    ))
}
