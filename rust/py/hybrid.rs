//! Bindings of hybrid retrieval's kernels (`ragmeter_core::hybrid`): the semantic leg's best
//! documents from a NumPy matrix of cosines and the fusion of the two legs, the GIL released.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use ragmeter_core::csr::Rows;
use ragmeter_core::hybrid::{self, Legs};

use crate::error::{ByPosition, invalid_input};
use crate::threads;

type RankedArrays<'py> = (
    Bound<'py, PyArray1<usize>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<f64>>,
);

/// Per row of `cosines` (queries x documents), the `limit` best documents by value, ties by
/// position, of which those `>= threshold` are kept. Returns `(offsets, docs, values)`.
#[pyfunction]
#[pyo3(signature = (cosines, *, limit, threshold, n_threads=None))]
pub fn dense_top_k<'py>(
    py: Python<'py>,
    cosines: PyReadonlyArray2<'py, f64>,
    limit: usize,
    threshold: f64,
    n_threads: Option<usize>,
) -> PyResult<RankedArrays<'py>> {
    let n_docs = cosines.shape()[1];
    let values = cosines
        .as_slice()
        .map_err(|_| invalid_input("cosines: must be a C-contiguous matrix".to_owned()))?;
    let ranked = threads::enter_core(py, n_threads, &ByPosition, || {
        hybrid::top_rows(values, n_docs, limit, threshold)
    })?;
    Ok((
        ranked.offsets.into_pyarray(py),
        ranked.docs.into_pyarray(py),
        ranked.scores.into_pyarray(py),
    ))
}

type FusedArrays<'py> = (
    Bound<'py, PyArray1<usize>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
);

/// The weighted reciprocal rank fusion of each query's keyword leg (`keyword_offsets`,
/// `keyword_docs`) and semantic leg (an empty row where it has none), cut at `top_k`, ties by
/// `doc_order`. Returns `(offsets, docs, scores, keyword_ranks, semantic_ranks)`, a rank
/// `2**32 - 1` where the leg does not have the document.
#[pyfunction]
#[pyo3(signature = (
    keyword_offsets, keyword_docs, semantic_offsets, semantic_docs, doc_order, *,
    keyword_weight, semantic_weight, rrf_k, top_k, n_threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn hybrid_fuse<'py>(
    py: Python<'py>,
    keyword_offsets: PyReadonlyArray1<'py, usize>,
    keyword_docs: PyReadonlyArray1<'py, u32>,
    semantic_offsets: PyReadonlyArray1<'py, usize>,
    semantic_docs: PyReadonlyArray1<'py, u32>,
    doc_order: PyReadonlyArray1<'py, u32>,
    keyword_weight: f64,
    semantic_weight: f64,
    rrf_k: f64,
    top_k: usize,
    n_threads: Option<usize>,
) -> PyResult<FusedArrays<'py>> {
    let (ko, kd) = (keyword_offsets.as_slice()?, keyword_docs.as_slice()?);
    let (so, sd) = (semantic_offsets.as_slice()?, semantic_docs.as_slice()?);
    let order = doc_order.as_slice()?;
    let fused = threads::enter_core(py, n_threads, &ByPosition, || {
        hybrid::fuse_legs(&Legs {
            keyword: Rows::new("keyword", ko, kd)?,
            semantic: Rows::new("semantic", so, sd)?,
            keyword_weight,
            semantic_weight,
            rrf_k,
            top_k,
            doc_order: order,
        })
    })?;
    Ok((
        fused.offsets.into_pyarray(py),
        fused.docs.into_pyarray(py),
        fused.scores.into_pyarray(py),
        fused.keyword_ranks.into_pyarray(py),
        fused.semantic_ranks.into_pyarray(py),
    ))
}
