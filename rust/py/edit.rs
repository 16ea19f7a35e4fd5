//! Bindings of the edit-distance kernels (`ragmeter_core::edit`). Lists of `str` are read by
//! `crate::strings` chunk by chunk, and each chunk is scored by the pool while the next is
//! read (`crate::pipeline`).

use std::sync::Arc;

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyList;
use ragmeter_core::edit::{self, EditCount, Measure};
use ragmeter_core::normalize::{Normalization, normalize};

use crate::error::{ByPosition, invalid_input, to_pyerr};
use crate::normalize::normalization;
use crate::pipeline::pipelined;
use crate::strings::{INLINE_BELOW_BYTES, Texts, backed_str, list_texts, part_range, text_chunks};
use crate::threads;

/// `(distance, longer length)` of two strings, after `normalize_name`.
#[pyfunction]
pub fn edit_count(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    normalize_name: &str,
) -> PyResult<(usize, usize)> {
    let how = normalization(normalize_name)?;
    let expected = "compare two str, or two lists or tuples of items";
    let a = backed_str(a.clone(), &|| "a".to_owned(), expected)?;
    let b = backed_str(b.clone(), &|| "b".to_owned(), expected)?;
    let count = |a: &str, b: &str| {
        if how == Normalization::Identity {
            edit::edit_count(a, b)
        } else {
            edit::edit_count(&normalize(a, how), &normalize(b, how))
        }
    };
    let result = if a.len() + b.len() < INLINE_BELOW_BYTES {
        count(&a, &b)
    } else {
        threads::run(py, None, || count(&a, &b))?
    };
    Ok((result.distance, result.max_len))
}

/// The measure of every pair as a NumPy array: int64 for counts, float64 for ratios.
fn measure_array<'py>(py: Python<'py>, measure: Measure, edits: &[EditCount]) -> Bound<'py, PyAny> {
    if measure.is_count() {
        let counts: Vec<i64> = edits.iter().map(|e| measure.count(*e) as i64).collect();
        counts.into_pyarray(py).into_any()
    } else {
        let ratios: Vec<f64> = edits.iter().map(|e| measure.ratio(*e)).collect();
        ratios.into_pyarray(py).into_any()
    }
}

fn measure(name: &str) -> PyResult<Measure> {
    Measure::from_name(name).map_err(|e| to_pyerr(e, &ByPosition))
}

/// `measure` of `a[i]` against `b[i]` for every `i`.
#[pyfunction]
#[pyo3(signature = (a, b, measure_name, normalize_name, n_threads=None))]
pub fn edit_pairwise<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyList>,
    b: &Bound<'py, PyList>,
    measure_name: &str,
    normalize_name: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let measure = measure(measure_name)?;
    let how = normalization(normalize_name)?;
    if a.len() != b.len() {
        return Err(invalid_input(format!(
            "a and b must have the same length to be compared pair by pair, got {} and {}",
            a.len(),
            b.len()
        )));
    }
    let expected = "every item must be a str";
    let mut edits = Vec::with_capacity(a.len());
    pipelined(
        py,
        n_threads,
        text_chunks(a.len(), |range| {
            let left = list_texts(a, range.clone(), "a", expected)?;
            let right = list_texts(b, range, "b", expected)?;
            let bytes = left.total_bytes() + right.total_bytes();
            Ok(((left, right), bytes))
        }),
        move |((left, right), len), part| {
            let range = part_range(part, *len);
            edit::pairwise(&left.strs(range.clone()), &right.strs(range), how)
        },
        |chunk| {
            edits.extend(chunk.map_err(|e| to_pyerr(e, &ByPosition))?);
            Ok(())
        },
    )?;
    Ok(measure_array(py, measure, &edits))
}

/// Edit counts of `query` against every choice, chunk by chunk.
fn query_edits(
    py: Python<'_>,
    query: &Bound<'_, PyAny>,
    choices: &Bound<'_, PyList>,
    how: Normalization,
    n_threads: Option<usize>,
) -> PyResult<Vec<EditCount>> {
    let query = backed_str(
        query.clone(),
        &|| "query".to_owned(),
        "the query must be a str",
    )?;
    let query: Arc<str> = Arc::from(&*query);
    let mut edits = Vec::with_capacity(choices.len());
    pipelined(
        py,
        n_threads,
        text_chunks(choices.len(), |range| {
            let texts = list_texts(choices, range, "choices", "every choice must be a str")?;
            let bytes = texts.total_bytes() + query.len();
            Ok((texts, bytes))
        }),
        {
            let query = query.clone();
            move |(texts, len): &(Texts, usize), part| {
                edit::one_to_many(&query, &texts.strs(part_range(part, *len)), how)
            }
        },
        |chunk| {
            edits.extend(chunk);
            Ok(())
        },
    )?;
    Ok(edits)
}

/// `measure` of `query` against every choice.
#[pyfunction]
#[pyo3(signature = (query, choices, measure_name, normalize_name, n_threads=None))]
pub fn edit_one_to_many<'py>(
    py: Python<'py>,
    query: &Bound<'py, PyAny>,
    choices: &Bound<'py, PyList>,
    measure_name: &str,
    normalize_name: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let measure = measure(measure_name)?;
    let how = normalization(normalize_name)?;
    let edits = query_edits(py, query, choices, how, n_threads)?;
    Ok(measure_array(py, measure, &edits))
}

/// The ranked choices as `(indices, distances, normalised similarities)`.
#[pyfunction]
#[pyo3(signature = (query, choices, normalize_name, limit, score_cutoff, n_threads=None))]
#[allow(clippy::type_complexity)]
pub fn edit_rank(
    py: Python<'_>,
    query: &Bound<'_, PyAny>,
    choices: &Bound<'_, PyList>,
    normalize_name: &str,
    limit: Option<usize>,
    score_cutoff: f64,
    n_threads: Option<usize>,
) -> PyResult<(Vec<usize>, Vec<usize>, Vec<f64>)> {
    let how = normalization(normalize_name)?;
    // Check the arguments before the work.
    edit::rank_edits(&[], limit, score_cutoff).map_err(|e| to_pyerr(e, &ByPosition))?;
    let edits = query_edits(py, query, choices, how, n_threads)?;
    let ranked =
        edit::rank_edits(&edits, limit, score_cutoff).map_err(|e| to_pyerr(e, &ByPosition))?;
    Ok((
        ranked.iter().map(|r| r.index).collect(),
        ranked.iter().map(|r| r.edit.distance).collect(),
        ranked
            .iter()
            .map(|r| r.edit.normalized_similarity())
            .collect(),
    ))
}

/// What computes the distances: `(kernel description, rapidfuzz crate version)`.
#[pyfunction]
pub fn edit_backend() -> (&'static str, &'static str) {
    (edit::KERNEL, edit::RAPIDFUZZ_CRATE_VERSION)
}
