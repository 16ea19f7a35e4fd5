//! Bindings of the agreement between two runs (`ragmeter_core::agreement`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use ragmeter_core::agreement::{self, RankingPairs};
use ragmeter_core::csr::Rows;

use crate::error::ByPosition;
use crate::threads;

/// Reads the pair of rankings of every query: the first ranking's length, and the offsets and
/// values of the second ranking's documents' positions in the first (`2**32 - 1`: absent).
fn offsets(offsets: &PyReadonlyArray1<'_, u64>) -> PyResult<Vec<usize>> {
    offsets
        .as_slice()?
        .iter()
        .map(|&o| {
            usize::try_from(o)
                .map_err(|_| crate::error::invalid_input(format!("offsets: {o} too large")))
        })
        .collect()
}

type RboOutput<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// RBO_ext, RBO_min and RBO_res per query with persistence `p`, both rankings cut at `depth`
/// when given.
#[pyfunction]
#[pyo3(signature = (a_lengths, offsets, cross, *, p, depth=None, n_threads=None))]
pub fn rank_biased_overlap<'py>(
    py: Python<'py>,
    a_lengths: PyReadonlyArray1<'py, u32>,
    offsets: PyReadonlyArray1<'py, u64>,
    cross: PyReadonlyArray1<'py, u32>,
    p: f64,
    depth: Option<usize>,
    n_threads: Option<usize>,
) -> PyResult<RboOutput<'py>> {
    let starts = self::offsets(&offsets)?;
    let lengths = a_lengths.as_slice()?;
    let values = cross.as_slice()?;
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        let pairs = RankingPairs {
            a_lengths: lengths,
            cross: Rows::new("cross", &starts, values)?,
        };
        agreement::rank_biased_overlap(pairs, p, depth)
    })?;
    Ok((
        result.ext.into_pyarray(py),
        result.min.into_pyarray(py),
        result.res.into_pyarray(py),
    ))
}

/// `|A[:k] ∩ B[:k]|` per query (rows) and depth `k` of `depths` (columns).
#[pyfunction]
#[pyo3(signature = (a_lengths, offsets, cross, depths, *, n_threads=None))]
pub fn top_k_overlaps<'py>(
    py: Python<'py>,
    a_lengths: PyReadonlyArray1<'py, u32>,
    offsets: PyReadonlyArray1<'py, u64>,
    cross: PyReadonlyArray1<'py, u32>,
    depths: Vec<usize>,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let starts = self::offsets(&offsets)?;
    let lengths = a_lengths.as_slice()?;
    let values = cross.as_slice()?;
    let n_queries = lengths.len();
    let counts = threads::enter_core(py, n_threads, &ByPosition, || {
        let pairs = RankingPairs {
            a_lengths: lengths,
            cross: Rows::new("cross", &starts, values)?,
        };
        agreement::top_k_overlaps(pairs, &depths)
    })?;
    counts.into_pyarray(py).reshape([n_queries, depths.len()])
}
