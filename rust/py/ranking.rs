//! Bindings of the ranking kernels (`ragmeter_core::ranking`): a `PreparedRankings` (made by
//! `crate::prepare` from Python objects, `crate::trec` from TREC files or `crate::table` from
//! Arrow tables) evaluated for any set of measures without converting the inputs again.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};
use ragmeter_core::prepare::Prepared;
use ragmeter_core::ranking::columns::evaluate_columns;
use ragmeter_core::ranking::kernels::KERNELS;
use ragmeter_core::ranking::{Measure, runs_inline};

use crate::columns::{Columns, MeasureArgs, ValueTable};
use crate::error::{ByPosition, to_pyerr};
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

    /// Whether these measures need the rankings prepared with their groups of tied scores
    /// (the tie-aware measures).
    fn needs_ties(&self) -> bool {
        self.inner.iter().any(Measure::needs_ties)
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

    /// Whether every judged ranked document was kept (not only those with a positive grade).
    #[getter]
    fn all_judged(&self) -> bool {
        self.inner.all_judged
    }

    /// Whether the rankings were prepared with their groups of tied scores.
    #[getter]
    fn has_ties(&self) -> bool {
        self.inner.ties.is_some()
    }

    /// Whether the judgments were diversity judgments `{doc_id: {subtopic: grade}}`.
    #[getter]
    fn has_subtopics(&self) -> bool {
        self.inner.subtopics.is_some()
    }

    /// The values of `columns` for every query, in one table held by
    /// the core: `missing` marks the judged queries absent from the run scored as trec_eval
    /// `-c` scores them (None: none), `complete` computes `-c`'s summary totals, `run_tag` is
    /// the value of `runid`.
    // A Python method's arguments (pyo3 reads them one by one).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (columns, relevance_threshold, missing, complete, run_tag, n_threads=None))]
    fn evaluate_columns(
        &self,
        py: Python<'_>,
        columns: &Columns,
        relevance_threshold: f64,
        missing: Option<Vec<bool>>,
        complete: bool,
        run_tag: Option<String>,
        n_threads: Option<usize>,
    ) -> PyResult<ValueTable> {
        let specs = &columns.inner;
        let inner = &self.inner;
        let work = || {
            evaluate_columns(
                inner,
                specs,
                relevance_threshold,
                missing.as_deref(),
                complete,
                run_tag.as_deref(),
            )
        };
        let table = if runs_inline(inner) {
            // As `evaluate`: a few queries on this thread, the GIL released only for real work.
            if inner.hits.values.len() + inner.judged_positive.values.len() < DETACH_MIN_DOCS {
                work()
            } else {
                py.detach(work)
            }
            .map_err(|e| to_pyerr(e, &ByPosition))?
        } else {
            threads::enter_core(py, n_threads, &ByPosition, work)?
        };
        Ok(ValueTable::new(table))
    }
}
