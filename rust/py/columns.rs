//! Bindings of `ragmeter_core::ranking::columns` (a measure list evaluated into one table of
//! per-query values) and of trec_eval's report of such a table (`ragmeter_core::report`).
//!
//! A `ValueTable` stays in the core: the library reads it as a numpy matrix (`numbers`), the
//! `ragmeter evaluate` command prints it (`write_trec_report`) without importing numpy.

use std::collections::HashMap;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ragmeter_core::ranking::Measure;
use ragmeter_core::ranking::columns::{
    Column, ColumnSpec, Summary, ValueTable as CoreTable, geometric_mean, sequential_sum,
};
use ragmeter_core::report::{Shown, ShownColumn, write_trec_report as core_report};

use crate::error::{ByPosition, invalid_input, to_pyerr};

/// A measure as the Python declarations describe it: kernel name, cutoff, numeric parameters,
/// gain pairs (None: the kernel's default gains) and relevance threshold (None: the call's).
pub type MeasureArgs = (
    String,
    Option<usize>,
    Vec<f64>,
    Option<ragmeter_core::ranking::GainPairs>,
    Option<f64>,
);

/// A column as Python passes it to `Columns`: `(kind, kernel, length, judged_only, reset_if_missing,
/// complete_summary_kernel)`, kind `"kernel"` (with its measure), `"runid"`, `"num_q"` or
/// `"relstring"` (with its length).
pub type ColumnArgs = (
    String,
    Option<MeasureArgs>,
    usize,
    bool,
    bool,
    Option<MeasureArgs>,
);

fn measure_of(args: &MeasureArgs) -> PyResult<Measure> {
    let (kernel, cutoff, params, gains, threshold) = args;
    Measure::new(kernel, *cutoff, params, gains.clone(), *threshold)
        .map_err(|e| to_pyerr(e, &ByPosition))
}

fn column_specs(columns: &[ColumnArgs]) -> PyResult<Vec<ColumnSpec>> {
    columns
        .iter()
        .map(|(kind, kernel, length, judged_only, reset, complete)| {
            let column = match (kind.as_str(), kernel) {
                ("kernel", Some(args)) => Column::Kernel {
                    measure: measure_of(args)?,
                    judged_only: *judged_only,
                },
                ("runid", None) => Column::RunTag,
                ("num_q", None) => Column::QueryCount,
                ("relstring", None) => Column::RelevanceString {
                    length: *length,
                    judged_only: *judged_only,
                },
                _ => {
                    return Err(invalid_input(format!(
                        "columns: kind {kind:?} with a kernel {}: expected a kernel column with \
                         its measure, or runid, num_q or relstring without one",
                        kernel.is_some()
                    )));
                }
            };
            Ok(ColumnSpec {
                column,
                reset_if_missing: *reset,
                complete_summary: complete.as_ref().map(measure_of).transpose()?,
            })
        })
        .collect()
}

/// The columns of a table, built once from the declarations' arguments (`ColumnArgs`): a
/// scorer called per query or per fold builds them once, not every call.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct Columns {
    pub inner: Vec<ColumnSpec>,
}

#[pymethods]
impl Columns {
    #[new]
    fn new(columns: Vec<ColumnArgs>) -> PyResult<Self> {
        Ok(Columns {
            inner: column_specs(&columns)?,
        })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// Per-query values of some columns (`PreparedRankings.evaluate_columns`), held by the core.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct ValueTable {
    inner: CoreTable,
}

impl ValueTable {
    pub fn new(inner: CoreTable) -> Self {
        ValueTable { inner }
    }
}

/// The bytes of each piece of a report: about this many (whole topics).
const PIECE_BYTES: usize = 1 << 20;

#[pymethods]
impl ValueTable {
    /// A table of the given values (`numbers` of shape (n_queries, n_columns), the text
    /// columns' and the complete summaries' values by column), for values computed elsewhere
    /// to be printed as the core prints its own.
    #[staticmethod]
    fn from_arrays(
        numbers: PyReadonlyArray2<'_, f64>,
        texts: HashMap<usize, Vec<String>>,
        complete_totals: HashMap<usize, PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<ValueTable> {
        let array = numbers.as_array();
        let (n_queries, n_columns) = array.dim();
        let mut table = CoreTable {
            n_queries,
            n_columns,
            numbers: array.iter().copied().collect(),
            texts: vec![None; n_columns],
            complete_totals: vec![None; n_columns],
        };
        for (c, values) in texts {
            if c >= n_columns || values.len() != n_queries {
                return Err(invalid_input(format!(
                    "texts: column {c} of {n_columns} with {} values for {n_queries} queries",
                    values.len()
                )));
            }
            table.texts[c] = Some(values);
        }
        for (c, values) in complete_totals {
            let values: Vec<f64> = values.as_array().iter().copied().collect();
            if c >= n_columns || values.len() != n_queries {
                return Err(invalid_input(format!(
                    "complete_totals: column {c} of {n_columns} with {} values for {n_queries} \
                     queries",
                    values.len()
                )));
            }
            table.complete_totals[c] = Some(values);
        }
        Ok(ValueTable { inner: table })
    }

    #[getter]
    fn n_queries(&self) -> usize {
        self.inner.n_queries
    }

    /// Each column's count of undefined values (NaN; 0 for a text column).
    fn undefined_counts(&self) -> Vec<usize> {
        let t = &self.inner;
        (0..t.n_columns)
            .map(|c| {
                if t.texts[c].is_some() {
                    0
                } else {
                    t.column(c).filter(|v| v.is_nan()).count()
                }
            })
            .collect()
    }

    /// The numbers, shape (n_queries, n_columns), NaN where undefined and in text columns.
    fn numbers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let t = &self.inner;
        numpy::ndarray::Array2::from_shape_vec((t.n_queries, t.n_columns), t.numbers.clone())
            .map(|a| a.into_pyarray(py))
            .map_err(|e| invalid_input(format!("internal shape error: {e}")))
    }

    /// The text columns' values, by column.
    fn texts(&self) -> HashMap<usize, Vec<String>> {
        self.inner
            .texts
            .iter()
            .enumerate()
            .filter_map(|(c, t)| t.clone().map(|t| (c, t)))
            .collect()
    }

    /// Under trec_eval `-c`, the values the summaries of some columns add up, by column.
    fn complete_totals<'py>(&self, py: Python<'py>) -> HashMap<usize, Bound<'py, PyArray1<f64>>> {
        self.inner
            .complete_totals
            .iter()
            .enumerate()
            .filter_map(|(c, t)| t.clone().map(|t| (c, t.into_pyarray(py))))
            .collect()
    }

    /// trec_eval's report of the table (rows `topics`), passed to `write` as bytes objects of
    /// about a megabyte: with `per_topic`, the per-query columns of `columns` topic by topic
    /// (topics sorted by their UTF-8 bytes, `trec_eval -q`), then with `summary` the summary
    /// lines (`all`). `columns` are `(name, column, shown, summary, undefined, per_query)`:
    /// shown `"float"`, `"int"`, `"text"` or `"quoted"`, summary as the declarations name it,
    /// `undefined` the value printed for an undefined one. Returns each column's count of
    /// undefined values.
    fn write_trec_report(
        &self,
        py: Python<'_>,
        topics: Vec<String>,
        columns: Vec<(String, usize, String, String, f64, bool)>,
        per_topic: bool,
        summary: bool,
        write: Bound<'_, PyAny>,
    ) -> PyResult<Vec<usize>> {
        let shown = columns
            .into_iter()
            .map(|(name, column, shown, summary, undefined, per_query)| {
                let shown = match shown.as_str() {
                    "float" => Shown::Float,
                    "int" => Shown::Int,
                    "text" => Shown::Text,
                    "quoted" => Shown::QuotedText,
                    other => {
                        return Err(invalid_input(format!(
                            "columns: {name}: shown {other:?}: expected float, int, text or \
                             quoted"
                        )));
                    }
                };
                Ok(ShownColumn {
                    name,
                    column,
                    shown,
                    summary: Summary::from_name(&summary).map_err(|e| to_pyerr(e, &ByPosition))?,
                    undefined,
                    per_query,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        // Each piece goes to Python as it is made; a failed write stops the report.
        let mut failure: Option<PyErr> = None;
        let mut sink = |piece: &[u8]| -> ragmeter_core::CoreResult<()> {
            match write.call1((PyBytes::new(py, piece),)) {
                Ok(_) => Ok(()),
                Err(error) => {
                    failure = Some(error);
                    Err(ragmeter_core::CoreError::argument(
                        "write",
                        "the write failed",
                    ))
                }
            }
        };
        let result = core_report(
            &self.inner,
            &topics,
            &shown,
            per_topic,
            summary,
            PIECE_BYTES,
            &mut sink,
        );
        if let Some(error) = failure {
            return Err(error);
        }
        result.map_err(|e| to_pyerr(e, &ByPosition))
    }
}

/// Each column of `numbers` added one by one in the row order `order` (trec_eval's loop over
/// topics; numpy's sum is pairwise and can change the last printed digit).
#[pyfunction]
pub fn sequential_column_sums(
    numbers: PyReadonlyArray2<'_, f64>,
    order: PyReadonlyArray1<'_, isize>,
) -> PyResult<Vec<f64>> {
    let numbers = numbers.as_array();
    let order = order.as_array();
    let n = numbers.nrows();
    let rows: Vec<usize> = order
        .iter()
        .map(|&r| {
            usize::try_from(r)
                .ok()
                .filter(|&r| r < n)
                .ok_or_else(|| invalid_input(format!("order: row {r} of {n}")))
        })
        .collect::<PyResult<_>>()?;
    Ok((0..numbers.ncols())
        .map(|c| sequential_sum(rows.iter().map(|&r| numbers[[r, c]])))
        .collect())
}

/// The values added one by one, in their order.
#[pyfunction(name = "sequential_sum")]
pub fn sequential_sum_of(values: PyReadonlyArray1<'_, f64>) -> f64 {
    sequential_sum(values.as_array().iter().copied())
}

/// trec_eval's geometric mean (`gm_map`): `exp` of the mean of `log(max(value, 0.00001))`, the
/// logs added one by one; NaN for no value.
#[pyfunction(name = "geometric_mean")]
pub fn geometric_mean_of(values: PyReadonlyArray1<'_, f64>) -> f64 {
    geometric_mean(values.as_array().iter().copied())
}
