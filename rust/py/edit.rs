//! Bindings of the edit-distance and answer-metric kernels. The `str` items of Python lists are
//! read as borrowed references, checked item by item here so that a million-item call never
//! loops in Python, copied as UTF-8 into one buffer per chunk, and handed to the core without
//! the GIL.
//!
//! Large lists are processed in chunks of `CHUNK` items: copy a chunk, score it, move on. Each
//! string object is then read while it is still in the CPU cache, instead of three passes over
//! the whole list (measured on a million short answers: reading the inputs fell from about 420
//! to 170 ns per pair with borrowed `PyBackedStr`s, and further with the copies, which need no
//! reference counting). The GIL is taken back between chunks, so another thread that changes
//! the lists meanwhile gets an error or mixed results: don't.

use numpy::{IntoPyArray, PyArray1};
use pyo3::Borrowed;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString, PyTuple};
use ragmeter_core::answers::{AnswerMetric, answer_scores as core_answer_scores};
use ragmeter_core::edit::{self, EditCount, Execution, Measure};
use ragmeter_core::normalize::{Normalization, normalize};

use crate::borrowed::for_each_list_item;
use crate::errors::{ByPosition, invalid_input, to_pyerr, type_error};
use crate::threads;

/// Work on fewer UTF-8 bytes than this runs on the calling thread with the GIL held: handing it
/// to the thread pool would cost more (tens of microseconds) than the work itself.
const INLINE_BELOW_BYTES: usize = 16 * 1024;

/// Items copied and scored together (see the module documentation).
const CHUNK: usize = 8192;

/// `0..n` in consecutive ranges of at most `CHUNK` items (none when `n == 0`).
fn chunks(n: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..n)
        .step_by(CHUNK)
        .map(move |start| start..(start + CHUNK).min(n))
}

/// Strings of a chunk copied into one buffer. The items are read as borrowed references and
/// copied once: under the stable ABI every reference count change is a function call, and
/// keeping a `PyBackedStr` per item costs three of them.
#[derive(Default)]
struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    fn with_capacity(n: usize) -> Self {
        Texts {
            text: String::with_capacity(n * 24),
            ends: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn total_bytes(&self) -> usize {
        self.text.len()
    }

    fn strs(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let s = &self.text[start..end];
                start = end;
                s
            })
            .collect()
    }
}

/// Run a batch kernel: inline for small inputs, else without the GIL in ragmeter's pool.
fn run_batch<T: Send>(
    py: Python<'_>,
    bytes: usize,
    n_threads: Option<usize>,
    kernel: impl Fn(Execution) -> T + Send + Sync,
) -> PyResult<T> {
    if bytes < INLINE_BELOW_BYTES {
        Ok(kernel(Execution::Sequential))
    } else {
        threads::run(py, n_threads, || kernel(Execution::Parallel))
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    if obj.is_none() {
        return "None".to_owned();
    }
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".to_owned(), |name| name.to_string())
}

/// Borrow one `str` as UTF-8 (no copy for ASCII; other strings get a cached UTF-8 copy from
/// CPython); `place` names it in errors (e.g. `answers[3]`).
fn backed_str(
    obj: Bound<'_, PyAny>,
    place: &dyn Fn() -> String,
    expected: &str,
) -> PyResult<PyBackedStr> {
    let text = obj.cast_into::<PyString>().map_err(|err| {
        let obj = err.into_inner();
        type_error(format!("{} is {}; {expected}", place(), type_name(&obj)))
    })?;
    PyBackedStr::try_from(text).map_err(|_| {
        invalid_input(format!(
            "{} contains a lone surrogate code point, which is not valid Unicode text; clean it \
             first, e.g. with text.encode('utf-8', 'replace').decode()",
            place()
        ))
    })
}

/// Append one `str` item to `texts`; `place` names it in errors (e.g. `answers[3]`). Reads
/// the borrowed item without running Python code; errors are built from an owned reference.
fn push_item(
    texts: &mut Texts,
    item: Borrowed<'_, '_, PyAny>,
    place: &dyn Fn() -> String,
    expected: &str,
) -> PyResult<()> {
    if let Ok(text) = item.cast::<PyString>()
        && let Ok(text) = text.to_str()
    {
        texts.push(text);
        return Ok(());
    }
    // A non-str item, or a str that is not valid Unicode (a lone surrogate).
    backed_str(item.to_owned(), place, expected).map(|_| ())
}

/// The items `range` of `list`, which must be `str`s, copied into one buffer.
fn list_texts(
    list: &Bound<'_, PyList>,
    range: std::ops::Range<usize>,
    argument: &str,
    expected: &str,
) -> PyResult<Texts> {
    let mut texts = Texts::with_capacity(range.len());
    for_each_list_item(list, range, |i, item| {
        push_item(&mut texts, item, &|| format!("{argument}[{i}]"), expected)
    })?;
    Ok(texts)
}

fn normalization(name: &str) -> PyResult<Normalization> {
    Normalization::from_name(name).map_err(|e| to_pyerr(e, &ByPosition))
}

/// `text` normalised by `"none"`, `"basic"` or `"squad"`.
#[pyfunction]
pub fn normalize_text(text: &Bound<'_, PyAny>, normalize_name: &str) -> PyResult<String> {
    let how = normalization(normalize_name)?;
    let text = backed_str(
        text.clone(),
        &|| "text".to_owned(),
        "normalisers take one str",
    )?;
    Ok(normalize(&text, how))
}

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
    for range in chunks(a.len()) {
        let left = list_texts(a, range.clone(), "a", expected)?;
        let right = list_texts(b, range, "b", expected)?;
        let (left_strs, right_strs) = (left.strs(), right.strs());
        let bytes = left.total_bytes() + right.total_bytes();
        let chunk = run_batch(py, bytes, n_threads, |execution| {
            edit::pairwise(&left_strs, &right_strs, how, execution)
        })?
        .map_err(|e| to_pyerr(e, &ByPosition))?;
        edits.extend(chunk);
    }
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
    let mut edits = Vec::with_capacity(choices.len());
    for range in chunks(choices.len()) {
        let texts = list_texts(choices, range, "choices", "every choice must be a str")?;
        let strs = texts.strs();
        let bytes = texts.total_bytes();
        edits.extend(run_batch(py, bytes, n_threads, |execution| {
            edit::one_to_many(&query, &strs, how, execution)
        })?);
    }
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

/// References `range` as CSR rows: each item is one `str` or a non-empty list/tuple of `str`.
fn reference_rows(
    references: &Bound<'_, PyList>,
    range: std::ops::Range<usize>,
) -> PyResult<(Vec<usize>, Texts)> {
    let expected = "each reference must be a str or a list of acceptable str";
    let mut offsets = Vec::with_capacity(range.len() + 1);
    let mut texts = Texts::with_capacity(range.len());
    offsets.push(0);
    for_each_list_item(references, range, |i, item| {
        if item.is_instance_of::<PyString>() {
            push_item(&mut texts, item, &|| format!("references[{i}]"), expected)?;
        } else if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
            // Several acceptable answers: rare enough to read through owned references.
            let item = item.to_owned();
            let before = texts.len();
            for (j, alternative) in item.try_iter()?.enumerate() {
                let alternative = alternative?;
                push_item(
                    &mut texts,
                    alternative.as_borrowed(),
                    &|| format!("references[{i}][{j}]"),
                    "each acceptable reference must be a str",
                )?;
            }
            if texts.len() == before {
                return Err(invalid_input(format!(
                    "references[{i}] is an empty {}; give at least one acceptable answer",
                    type_name(&item)
                )));
            }
        } else {
            return Err(type_error(format!(
                "references[{i}] is {}; {expected}",
                type_name(&item.to_owned())
            )));
        }
        offsets.push(texts.len());
        Ok(())
    })?;
    Ok((offsets, texts))
}

/// One score per answer (best over its references) for `metric_name`.
#[pyfunction]
#[pyo3(signature = (references, answers, metric_name, normalize_name, threshold, n_threads=None))]
pub fn answer_scores<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    metric_name: &str,
    normalize_name: &str,
    threshold: f64,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let metric =
        AnswerMetric::from_name(metric_name, threshold).map_err(|e| to_pyerr(e, &ByPosition))?;
    let how = normalization(normalize_name)?;
    if references.len() != answers.len() {
        return Err(invalid_input(format!(
            "references and answers must have the same length (one reference entry per answer), \
             got {} references and {} answers",
            references.len(),
            answers.len()
        )));
    }
    let expected =
        "each answer must be one str (only references may list several acceptable strings)";
    let mut scores = Vec::with_capacity(answers.len());
    for range in chunks(answers.len()) {
        let (offsets, reference_texts) = reference_rows(references, range.clone())?;
        let answer_texts = list_texts(answers, range, "answers", expected)?;
        let (reference_strs, answer_strs) = (reference_texts.strs(), answer_texts.strs());
        let bytes = reference_texts.total_bytes() + answer_texts.total_bytes();
        let chunk = run_batch(py, bytes, n_threads, |execution| {
            core_answer_scores(
                &offsets,
                &reference_strs,
                &answer_strs,
                metric,
                how,
                execution,
            )
        })?
        .map_err(|e| to_pyerr(e, &ByPosition))?;
        scores.extend(chunk);
    }
    Ok(scores.into_pyarray(py))
}

/// What computes the distances: `(kernel description, rapidfuzz crate version)`.
#[pyfunction]
pub fn edit_backend() -> (&'static str, &'static str) {
    (edit::KERNEL, edit::RAPIDFUZZ_CRATE_VERSION)
}
