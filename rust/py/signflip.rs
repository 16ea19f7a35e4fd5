//! Bindings of the paired randomisation tests (`ragmeter_core::signflip`).

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use ragmeter_core::signflip::{self, SignFlipMethod};

use crate::error::ByPosition;
use crate::threads;

type SignFlipOutput<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u64>>, u64);

/// Two-sided paired sign-flip test of every row of `differences` (metrics x pairs), exact
/// (all 2^n sign vectors) or with `n_resamples` seeded random sign vectors. Returns the
/// p-values, the counts of sign vectors at least as extreme, and the number of sign vectors.
#[pyfunction]
#[pyo3(signature = (differences, *, exact, n_resamples, seed, n_threads=None))]
pub fn sign_flip_test<'py>(
    py: Python<'py>,
    differences: PyReadonlyArray2<'py, f64>,
    exact: bool,
    n_resamples: u64,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<SignFlipOutput<'py>> {
    let (n_metrics, n_pairs) = (differences.shape()[0], differences.shape()[1]);
    let values = differences.as_slice()?;
    let method = if exact {
        SignFlipMethod::Exact
    } else {
        SignFlipMethod::Sampled { n_resamples, seed }
    };
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        signflip::sign_flip_test(values, n_metrics, n_pairs, method)
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
