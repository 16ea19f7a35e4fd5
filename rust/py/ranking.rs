//! Bindings of the ranking kernels (`ragmeter_core::ranking`): a `PreparedRankings` (made by
//! `crate::prepare` from Python objects, `crate::trec` from TREC files or `crate::table` from
//! Arrow tables) evaluated for any set of measures without converting the inputs again.

use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};
use ragmeter_core::prepare::Prepared;
use ragmeter_core::ranking::kernels::KERNELS;
use ragmeter_core::ranking::{
    EvaluationOptions, GainPairs, Measure, evaluate, relevance_strings, runs_inline,
};

use crate::error::{ByPosition, invalid_input, to_pyerr};
use crate::threads;

/// Rankings and judgments in the compact form the metric kernels read.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct PreparedRankings {
    inner: Prepared,
}

impl PreparedRankings {
    pub fn new(inner: Prepared) -> Self {
        PreparedRankings { inner }
    }
}

/// Judged documents (ranked and not) from which an evaluation on the calling thread releases
/// the GIL: below, it takes a few microseconds, about what releasing costs another thread.
const DETACH_MIN_DOCS: usize = 4096;

/// A measure as the Python declarations describe it: kernel name, cutoff, numeric parameters,
/// gain pairs (None: the kernel's default gains) and relevance threshold (None: the call's).
type MeasureArgs = (
    String,
    Option<usize>,
    Vec<f64>,
    Option<GainPairs>,
    Option<f64>,
);

fn measures_of(args: &[MeasureArgs]) -> PyResult<Vec<Measure>> {
    args.iter()
        .map(|(kernel, cutoff, params, gains, threshold)| {
            Measure::new(kernel, *cutoff, params, gains.clone(), *threshold)
                .map_err(|e| to_pyerr(e, &ByPosition))
        })
        .collect()
}

/// The measure kernels of the core as declared there, for the Python declarations to check
/// against: `(name, cutoff, judged set, reads subtopics)` with cutoff `"required"`,
/// `"optional"` or `"none"` and judged set `"positive"`, `"all"`, `"all_with_gains"` or
/// `"all_with_negative_min_grade"`.
#[pyfunction]
pub fn measure_kernels() -> Vec<(&'static str, &'static str, &'static str, bool)> {
    KERNELS
        .iter()
        .map(|k| (k.name, k.cutoff.name(), k.judged.name(), k.subtopics))
        .collect()
}

/// Measures built once per call from the declarations' arguments: `needs_all_judged` and
/// `PreparedRankings.evaluate` read the same built measures.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct Measures {
    inner: Vec<Measure>,
}

#[pymethods]
impl Measures {
    /// Build the measures `(kernel, cutoff, params, gains, relevance_threshold)`, checking each
    /// against its kernel's declaration.
    #[new]
    fn new(measures: Vec<MeasureArgs>) -> PyResult<Self> {
        Ok(Measures {
            inner: measures_of(&measures)?,
        })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Whether these measures (or `judged_only`) need the rankings prepared with every judged
    /// document.
    #[pyo3(signature = (judged_only=false))]
    fn needs_all_judged(&self, judged_only: bool) -> bool {
        judged_only || self.inner.iter().any(Measure::needs_all_judged)
    }
}

/// The order in which trec_eval adds up queries: the positions of `query_ids` sorted by the
/// bytes of their text (the UTF-8 of exact strs, the decimal text of exact ints); None when an
/// id is of another type or not valid UTF-8 (a lone surrogate), for the caller to sort.
#[pyfunction]
pub fn trec_order<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
) -> PyResult<Option<Bound<'py, PyArray1<isize>>>> {
    // The texts copied into one buffer, each with its first 8 bytes as a big-endian key (zero
    // padded): sorting by key compares two integers, and only ids that share 8 bytes compare
    // their whole texts (ids such as "q123" never get there).
    let mut bytes: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::with_capacity(query_ids.len());
    for id in query_ids.iter() {
        if let Ok(text) = id.cast_exact::<PyString>() {
            match text.to_str() {
                Ok(text) => bytes.extend_from_slice(text.as_bytes()),
                Err(_) => return Ok(None),
            }
        } else if id.is_exact_instance_of::<PyInt>() {
            match id.extract::<i64>() {
                Ok(n) => bytes.extend_from_slice(n.to_string().as_bytes()),
                Err(_) => return Ok(None),
            }
        } else {
            return Ok(None);
        }
        ends.push(bytes.len());
    }
    let text = |i: usize| &bytes[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
    let mut keyed: Vec<(u64, usize)> = (0..ends.len())
        .map(|i| {
            let mut prefix = [0u8; 8];
            let t = text(i);
            let n = t.len().min(8);
            prefix[..n].copy_from_slice(&t[..n]);
            (u64::from_be_bytes(prefix), i)
        })
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| text(a.1).cmp(text(b.1))));
    let order: Vec<isize> = keyed.into_iter().map(|(_, i)| i as isize).collect();
    Ok(Some(order.into_pyarray(py)))
}

#[pymethods]
impl PreparedRankings {
    #[getter]
    fn n_queries(&self) -> usize {
        self.inner.len()
    }

    /// Length of each ranking after deduplication and the `max_docs` cut.
    fn retrieved<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.inner.retrieved.clone().into_pyarray(py)
    }

    /// Number of judged documents (any grade) of each query.
    fn judged_count<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.inner.judged_count.clone().into_pyarray(py)
    }

    /// A copy in which the queries marked in `missing` (judged, absent from the run, empty
    /// here) are rankings of one unjudged document, as trec_eval `-c` scores them.
    fn with_missing_as_trec_eval(&self, missing: Vec<bool>) -> PyResult<PreparedRankings> {
        let mut inner = self.inner.clone();
        inner
            .score_missing_as_trec_eval(&missing)
            .map_err(|e| to_pyerr(e, &ByPosition))?;
        Ok(PreparedRankings { inner })
    }

    /// Whether every judged ranked document was kept (not only those with a positive grade).
    #[getter]
    fn all_judged(&self) -> bool {
        self.inner.all_judged
    }

    /// Whether the judgments were diversity judgments `{doc_id: {subtopic: grade}}`.
    #[getter]
    fn has_subtopics(&self) -> bool {
        self.inner.subtopics.is_some()
    }

    /// Values of `measures` for every query: an array of shape (n_queries, n_measures) in
    /// which NaN marks an undefined value.
    #[pyo3(signature = (measures, relevance_threshold, judged_only=false, n_threads=None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        measures: &Measures,
        relevance_threshold: f64,
        judged_only: bool,
        n_threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let measures = &measures.inner;
        let options = EvaluationOptions {
            threshold: relevance_threshold,
            judged_only,
        };
        let inner = &self.inner;
        let values = if runs_inline(inner) {
            // A few queries are evaluated on this thread (the core does not use the pool for
            // them): the hand-off to the pool costs more than they do. The GIL is released
            // only when the work outweighs releasing and taking it back.
            let work = || evaluate(inner, measures, options);
            if inner.hits.values.len() + inner.judged_positive.values.len() < DETACH_MIN_DOCS {
                work()
            } else {
                py.detach(work)
            }
            .map_err(|e| to_pyerr(e, &ByPosition))?
        } else {
            threads::enter_core(py, n_threads, &ByPosition, || {
                evaluate(inner, measures, options)
            })?
        };
        let n_measures = measures.len();
        numpy::ndarray::Array2::from_shape_vec((inner.len(), n_measures), values)
            .map(|a| a.into_pyarray(py))
            .map_err(|e| invalid_input(format!("internal shape error: {e}")))
    }

    /// trec_eval's relevance string of each query's first `length` ranks.
    #[pyo3(signature = (length, judged_only=false, n_threads=None))]
    fn relevance_strings(
        &self,
        py: Python<'_>,
        length: usize,
        judged_only: bool,
        n_threads: Option<usize>,
    ) -> PyResult<Vec<String>> {
        let inner = &self.inner;
        threads::enter_core(py, n_threads, &ByPosition, || {
            relevance_strings(inner, length, judged_only)
        })
    }
}
