//! Bindings of the BM25 kernels (`ragmeter_core::bm25`). The corpus travels as NumPy arrays
//! (term-major postings), so the Python side keeps it picklable and the core checks it on every
//! call (one pass over the postings, without the GIL).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use ragmeter_core::bm25::{self, Params, TermMatrix, Variant};
use ragmeter_core::csr::Rows;

use crate::error::{ByPosition, to_pyerr};
use crate::threads;

type PostingsArrays<'py> = (
    Bound<'py, PyArray1<usize>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
);

type RankedArrays<'py> = (
    Bound<'py, PyArray1<usize>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<f64>>,
);

/// Term-major postings of documents given as CSR rows of term ids (`doc_offsets`, `term_ids`,
/// every id below `n_terms`). Returns `(offsets, docs, tfs, doc_lengths)`.
#[pyfunction]
#[pyo3(signature = (doc_offsets, term_ids, n_terms, n_threads=None))]
pub fn bm25_postings<'py>(
    py: Python<'py>,
    doc_offsets: PyReadonlyArray1<'py, usize>,
    term_ids: PyReadonlyArray1<'py, u32>,
    n_terms: usize,
    n_threads: Option<usize>,
) -> PyResult<PostingsArrays<'py>> {
    let (offsets, ids) = (doc_offsets.as_slice()?, term_ids.as_slice()?);
    let postings = threads::enter_core(py, n_threads, &ByPosition, || {
        bm25::build_postings(Rows::new("documents", offsets, ids)?, n_terms)
    })?;
    Ok((
        postings.offsets.into_pyarray(py),
        postings.docs.into_pyarray(py),
        postings.tfs.into_pyarray(py),
        postings.doc_lengths.into_pyarray(py),
    ))
}

/// The idf of every term of the postings under `variant` ("lucene", "okapi", "bm25l",
/// "bm25plus").
#[pyfunction]
#[pyo3(signature = (offsets, docs, tfs, doc_lengths, variant, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn bm25_idf<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, usize>,
    docs: PyReadonlyArray1<'py, u32>,
    tfs: PyReadonlyArray1<'py, u32>,
    doc_lengths: PyReadonlyArray1<'py, u32>,
    variant: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let variant = Variant::from_name(variant).map_err(|e| to_pyerr(e, &ByPosition))?;
    let (offsets, docs, tfs, lengths) = (
        offsets.as_slice()?,
        docs.as_slice()?,
        tfs.as_slice()?,
        doc_lengths.as_slice()?,
    );
    let values = threads::enter_core(py, n_threads, &ByPosition, || {
        TermMatrix::new(offsets, docs, tfs, lengths).map(|matrix| bm25::idf(&matrix, variant))
    })?;
    Ok(values.into_pyarray(py))
}

/// The `k` best documents of every query (CSR rows of term ids) by BM25, scores `> 0` and
/// `>= min_score`, best first, ties by position. Returns `(offsets, docs, scores)`.
#[pyfunction]
#[pyo3(signature = (
    offsets, docs, tfs, doc_lengths, idf, query_offsets, query_terms, *,
    k1, b, delta, variant, k, min_score, n_threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn bm25_top_k<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, usize>,
    docs: PyReadonlyArray1<'py, u32>,
    tfs: PyReadonlyArray1<'py, u32>,
    doc_lengths: PyReadonlyArray1<'py, u32>,
    idf: PyReadonlyArray1<'py, f64>,
    query_offsets: PyReadonlyArray1<'py, usize>,
    query_terms: PyReadonlyArray1<'py, u32>,
    k1: f64,
    b: f64,
    delta: f64,
    variant: &str,
    k: usize,
    min_score: f64,
    n_threads: Option<usize>,
) -> PyResult<RankedArrays<'py>> {
    let params = Params {
        k1,
        b,
        delta,
        variant: Variant::from_name(variant).map_err(|e| to_pyerr(e, &ByPosition))?,
    };
    let (offsets, docs, tfs, lengths) = (
        offsets.as_slice()?,
        docs.as_slice()?,
        tfs.as_slice()?,
        doc_lengths.as_slice()?,
    );
    let (idf, query_offsets, query_terms) = (
        idf.as_slice()?,
        query_offsets.as_slice()?,
        query_terms.as_slice()?,
    );
    let ranked = threads::enter_core(py, n_threads, &ByPosition, || {
        let matrix = TermMatrix::new(offsets, docs, tfs, lengths)?;
        let queries = Rows::new("queries", query_offsets, query_terms)?;
        bm25::top_k(&matrix, idf, queries, params, k, min_score)
    })?;
    Ok((
        ranked.offsets.into_pyarray(py),
        ranked.docs.into_pyarray(py),
        ranked.scores.into_pyarray(py),
    ))
}
