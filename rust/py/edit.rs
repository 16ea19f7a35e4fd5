//! Bindings of the edit-distance and answer-metric kernels. The `str` items of Python lists are
//! read as borrowed references, checked item by item here so that a million-item call never
//! loops in Python, copied as UTF-8 into one buffer per chunk, and handed to the core without
//! the GIL.
//!
//! Large lists are processed in chunks of `CHUNK` items: copy a chunk, score it, move on. Each
//! string object is then read while it is still in the CPU cache, instead of three passes over
//! the whole list (measured on a million short answers: reading the inputs fell from about 420
//! to 170 ns per pair with borrowed `PyBackedStr`s, and further with the copies, which need no
//! reference counting, and with the objects prefetched from the list's array). Reading chunk
//! k + 1 overlaps the scoring of chunk k (see `pipelined`). The GIL is released while this
//! thread scores, so another thread that changes the lists meanwhile gets an error or mixed
//! results: don't.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use numpy::{IntoPyArray, PyArray1};
use pyo3::Borrowed;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString, PyTuple};
use ragmeter_core::answers::{AnswerMetric, answer_scores as core_answer_scores};
use ragmeter_core::edit::{self, EditCount, Measure};
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
            text: String::with_capacity(n * 48),
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

    /// The strings `range`.
    fn strs(&self, range: std::ops::Range<usize>) -> Vec<&str> {
        let mut start = if range.start == 0 {
            0
        } else {
            self.ends[range.start - 1]
        };
        self.ends[range]
            .iter()
            .map(|&end| {
                let s = &self.text[start..end];
                start = end;
                s
            })
            .collect()
    }
}

/// Items scored together by one thread: a chunk is shared out in blocks of this size between
/// the pool's workers and the calling thread.
const BLOCK: usize = 512;

/// One chunk being scored: its input, the next block to claim, and each block's result.
struct SharedChunk<In, Out> {
    input: In,
    len: usize,
    next_block: AtomicUsize,
    results: Vec<OnceLock<Out>>,
}

impl<In, Out> SharedChunk<In, Out> {
    fn new(input: In, len: usize) -> Self {
        SharedChunk {
            input,
            len,
            next_block: AtomicUsize::new(0),
            results: (0..len.div_ceil(BLOCK)).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Claim and score blocks until none is left (called by every thread on the chunk).
    fn work(&self, score: &(impl Fn(&In, std::ops::Range<usize>) -> Out + ?Sized)) {
        loop {
            let block = self.next_block.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.results.get(block) else {
                return;
            };
            let start = block * BLOCK;
            let _ = slot.set(score(&self.input, start..(start + BLOCK).min(self.len)));
        }
    }
}

/// Score `n` items chunk by chunk, in order: `read(range)` copies a chunk out of the Python
/// objects (with the GIL) and says how many bytes of text it holds; `score(input, range)`
/// scores the items `range` of a chunk; `collect` receives the results in order.
///
/// Reading needs the GIL, so it runs on the calling thread, one chunk at a time. While it
/// reads chunk k + 1, the pool's workers score chunk k; then the calling thread, without the
/// GIL, claims what is left of chunk k's blocks like a worker. Every thread is busy until the
/// end, which on two cores is what made batches of short answers fast: one worker scores
/// while this thread reads, and neither waits for the other. `n_threads` counts this thread:
/// the pool gets `n_threads - 1` workers. A call of a single small chunk (under
/// `INLINE_BELOW_BYTES`) runs on the calling thread alone.
fn pipelined<In, Out>(
    py: Python<'_>,
    n: usize,
    n_threads: Option<usize>,
    mut read: impl FnMut(std::ops::Range<usize>) -> PyResult<(In, usize)>,
    score: impl Fn(&In, std::ops::Range<usize>) -> Out + Send + Sync + 'static,
    mut collect: impl FnMut(Out) -> PyResult<()>,
) -> PyResult<()>
where
    In: Send + Sync + 'static,
    Out: Send + Sync + 'static,
{
    let workers = threads::resolve(n_threads)? - 1;
    let score: BlockScorer<In, Out> = Arc::new(score);
    let mut in_flight: Option<InFlight<In, Out>> = None;
    for range in chunks(n) {
        let len = range.len();
        let (input, bytes) = read(range)?;
        if let Some(previous) = in_flight.take() {
            previous.finish(py, &score, &mut collect)?;
        }
        let chunk = Arc::new(SharedChunk::new(input, len));
        let small = n <= CHUNK && bytes < INLINE_BELOW_BYTES;
        let pending = if small || workers == 0 {
            Vec::new()
        } else {
            (0..workers)
                .map(|_| {
                    let (chunk, score) = (chunk.clone(), score.clone());
                    threads::spawn(Some(workers), move || chunk.work(&*score))
                })
                .collect::<PyResult<_>>()?
        };
        if small {
            // Too little work to hand out: score it here, with the GIL.
            chunk.work(&*score);
        }
        in_flight = Some(InFlight { chunk, pending });
    }
    match in_flight {
        Some(last) => last.finish(py, &score, &mut collect),
        None => Ok(()),
    }
}

/// How `pipelined` scores the items `range` of a chunk.
type BlockScorer<In, Out> = Arc<dyn Fn(&In, std::ops::Range<usize>) -> Out + Send + Sync>;

/// A chunk handed to the pool's workers.
struct InFlight<In, Out> {
    chunk: Arc<SharedChunk<In, Out>>,
    pending: Vec<threads::Pending<()>>,
}

impl<In, Out> InFlight<In, Out>
where
    In: Send + Sync,
    Out: Send + Sync,
{
    /// Help the workers (without the GIL), wait for them, and pass the results on in order.
    fn finish(
        self,
        py: Python<'_>,
        score: &BlockScorer<In, Out>,
        collect: &mut impl FnMut(Out) -> PyResult<()>,
    ) -> PyResult<()> {
        let chunk = &self.chunk;
        py.detach(|| chunk.work(&**score));
        for worker in self.pending {
            worker.wait(py)?;
        }
        let internal = |what: &str| {
            pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error in ragmeter's core (please report it): {what}"
            ))
        };
        let chunk = Arc::into_inner(self.chunk)
            .ok_or_else(|| internal("a chunk is still shared after its workers ended"))?;
        for result in chunk.results {
            collect(
                result
                    .into_inner()
                    .ok_or_else(|| internal("a block was not scored"))?,
            )?;
        }
        Ok(())
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
    // An exact `str` is recognised by its type pointer; the general check is a call under abi3.
    let text = match item.cast_exact::<PyString>() {
        Ok(text) => Ok(text),
        Err(_) => item.cast::<PyString>(),
    };
    if let Ok(text) = text
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
    pipelined(
        py,
        a.len(),
        n_threads,
        |range| {
            let left = list_texts(a, range.clone(), "a", expected)?;
            let right = list_texts(b, range, "b", expected)?;
            let bytes = left.total_bytes() + right.total_bytes();
            Ok(((left, right), bytes))
        },
        move |(left, right), range| {
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
        choices.len(),
        n_threads,
        |range| {
            let texts = list_texts(choices, range, "choices", "every choice must be a str")?;
            let bytes = texts.total_bytes() + query.len();
            Ok((texts, bytes))
        },
        {
            let query = query.clone();
            move |texts: &Texts, range| edit::one_to_many(&query, &texts.strs(range), how)
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
    pipelined(
        py,
        answers.len(),
        n_threads,
        |range| {
            let (offsets, reference_texts) = reference_rows(references, range.clone())?;
            let answer_texts = list_texts(answers, range, "answers", expected)?;
            let bytes = reference_texts.total_bytes() + answer_texts.total_bytes();
            Ok(((offsets, reference_texts, answer_texts), bytes))
        },
        move |(offsets, reference_texts, answer_texts), range| {
            // The block's rows of references, rebased to start at 0.
            let (first, last) = (offsets[range.start], offsets[range.end]);
            let block_offsets: Vec<usize> = offsets[range.start..=range.end]
                .iter()
                .map(|o| o - first)
                .collect();
            core_answer_scores(
                &block_offsets,
                &reference_texts.strs(first..last),
                &answer_texts.strs(range),
                metric,
                how,
            )
        },
        |chunk| {
            scores.extend(chunk.map_err(|e| to_pyerr(e, &ByPosition))?);
            Ok(())
        },
    )?;
    Ok(scores.into_pyarray(py))
}

/// What computes the distances: `(kernel description, rapidfuzz crate version)`.
#[pyfunction]
pub fn edit_backend() -> (&'static str, &'static str) {
    (edit::KERNEL, edit::RAPIDFUZZ_CRATE_VERSION)
}
