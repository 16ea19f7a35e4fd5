//! Binding of trec_eval's report formatting (`ragmeter_core::report`).

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ragmeter_core::report::{ReportColumn, write_per_topic};

use crate::error::invalid_input;

/// One measure's values as Python passes them: a float64 array (`kind` `"float"` or `"int"`)
/// or a list of str (`"text"`).
#[derive(FromPyObject)]
pub enum ColumnValues<'py> {
    Numbers(PyReadonlyArray1<'py, f64>),
    Texts(Vec<String>),
}

/// The bytes of each piece: about this many (whole topics).
const PIECE_BYTES: usize = 1 << 20;

/// trec_eval's per-topic report lines (`trec_eval -q`), passed to `write` as bytes objects
/// of about a megabyte (whole topics), in order: for each topic of `topics`, one line per
/// measure of `columns` (`(name, kind, values)`, `values` one per topic).
#[pyfunction]
pub fn write_trec_per_topic<'py>(
    py: Python<'py>,
    topics: Vec<String>,
    columns: Vec<(String, String, ColumnValues<'py>)>,
    write: Bound<'py, PyAny>,
) -> PyResult<()> {
    let mut names = Vec::with_capacity(columns.len());
    let mut views = Vec::with_capacity(columns.len());
    for (name, kind, values) in &columns {
        let column = match (kind.as_str(), values) {
            ("float", ColumnValues::Numbers(a)) => ReportColumn::Float(a.as_slice()?),
            ("int", ColumnValues::Numbers(a)) => ReportColumn::Int(a.as_slice()?),
            ("text", ColumnValues::Texts(t)) => ReportColumn::Text(t),
            _ => {
                return Err(invalid_input(format!(
                    "columns: {name}: kind {kind:?} needs float64 values (float, int) or a list \
                     of str (text)"
                )));
            }
        };
        let n = match &column {
            ReportColumn::Float(v) | ReportColumn::Int(v) => v.len(),
            ReportColumn::Text(v) => v.len(),
        };
        if n != topics.len() {
            return Err(invalid_input(format!(
                "columns: {name}: {n} values for {} topics",
                topics.len()
            )));
        }
        names.push(name.clone());
        views.push(column);
    }
    // One buffer, reused for every piece.
    let mut out = Vec::with_capacity(PIECE_BYTES + (1 << 16));
    let mut from = 0;
    while from < topics.len() {
        out.clear();
        // Formatting only reads Rust memory: without the GIL.
        from = py.detach(|| write_per_topic(&mut out, &topics, &names, &views, from, PIECE_BYTES));
        write.call1((PyBytes::new(py, &out),))?;
    }
    Ok(())
}
