//! Bindings of the TREC file readers (`ragmeter_core::trec`): files read, parsed, joined and
//! prepared without the GIL.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragmeter_core::prepare::show;
use ragmeter_core::trec;

use crate::error::{ByPosition, invalid_input};
use crate::fallible;
use crate::prepare::ranking_options;
use crate::ranking::PreparedRankings;
use crate::threads;

fn utf8<'a>(bytes: &'a [u8], what: &str) -> PyResult<&'a str> {
    std::str::from_utf8(bytes)
        .map_err(|_| invalid_input(format!("{what} {} is not valid UTF-8", show(bytes))))
}

/// Judged query ids (sorted byte-wise, trec_eval's order), whether each is in the run, the
/// run's unjudged query ids and the run's tag.
type TrecJoin = (
    PreparedRankings,
    Vec<String>,
    Vec<bool>,
    Vec<String>,
    Option<String>,
);

/// Read, parse, join and prepare a qrels file and a run file without the GIL.
#[pyfunction]
#[pyo3(signature = (qrels_path, run_path, *, duplicates_first=false, max_docs=None, all_judged=false, ties=false, n_threads=None))]
// A Python function's arguments (pyo3 reads them one by one).
#[allow(clippy::too_many_arguments)]
pub fn prepare_trec(
    py: Python<'_>,
    qrels_path: PathBuf,
    run_path: PathBuf,
    duplicates_first: bool,
    max_docs: Option<usize>,
    all_judged: bool,
    ties: bool,
    n_threads: Option<usize>,
) -> PyResult<TrecJoin> {
    let opts = ranking_options(duplicates_first, max_docs, all_judged, ties);
    let files = threads::enter_core(py, n_threads, &ByPosition, || {
        trec::prepare_files(&qrels_path, &run_path, opts)
    })?;
    let decode = |ids: Vec<Vec<u8>>| -> PyResult<Vec<String>> {
        ids.iter()
            .map(|q| utf8(q, "query id").map(str::to_owned))
            .collect()
    };
    Ok((
        PreparedRankings::new(files.prepared),
        decode(files.query_ids)?,
        files.in_run,
        decode(files.run_only)?,
        files
            .run_tag
            .map(|t| String::from_utf8_lossy(&t).into_owned()),
    ))
}

/// A TREC file as a dict {query_id: {doc_id: value}}: grades (ints when written as integers)
/// for qrels, scores for runs. A document listed twice for one query is an error.
#[pyfunction]
#[pyo3(signature = (path, kind, *, n_threads=None))]
pub fn read_trec<'py>(
    py: Python<'py>,
    path: PathBuf,
    kind: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let kind = match kind {
        "qrels" => trec::TrecKind::Qrels,
        "run" => trec::TrecKind::Run,
        other => {
            return Err(invalid_input(format!(
                "kind: expected 'qrels' or 'run', got {other:?}"
            )));
        }
    };
    let bytes = threads::enter_core(py, n_threads, &ByPosition, || trec::read(&path))?;
    let file = threads::enter_core(py, n_threads, &ByPosition, || {
        trec::parse(&bytes, kind, &path)
    })?;
    // Every object is made by `fallible`: a file whose dict does not fit in memory is a
    // MemoryError, not an abort. The partial dict is released before the message is made.
    let rows = file.docs.offsets.last().copied().unwrap_or(0);
    to_dict(py, &file, &bytes, kind, &path).map_err(|error| {
        fallible::explain_memory_error(py, error, || {
            format!(
                "path: {}: not enough memory to hold its {rows} rows as Python dicts \
                 (read_run and read_qrels build them, and ragmeter.io.evaluate does for a \
                 TREC file evaluated with a table); to evaluate without dicts, give \
                 ragmeter.io.evaluate two TREC files, or two tables (pyarrow or polars read \
                 TREC files as tables)",
                path.display()
            )
        })
    })
}

fn to_dict<'py>(
    py: Python<'py>,
    file: &trec::TrecFile<'_>,
    bytes: &[u8],
    kind: trec::TrecKind,
    path: &std::path::Path,
) -> PyResult<Bound<'py, PyDict>> {
    let out = fallible::dict(py)?;
    let rows = file.docs.view();
    for (q, query_id) in file.query_ids.iter().enumerate() {
        let docs = fallible::dict(py)?;
        let first = file.docs.offsets[q];
        for (i, &(doc, value)) in rows.row(q).iter().enumerate() {
            let key = fallible::string(py, utf8(doc, "document id")?)?;
            if docs.contains(&key)? {
                let line = trec::line_of(bytes, doc);
                return Err(crate::error::format_error(format!(
                    "{}:{line}: document {} is listed twice for query {}",
                    path.display(),
                    show(doc),
                    show(query_id)
                )));
            }
            let value = if kind == trec::TrecKind::Qrels && file.integral[first + i] {
                fallible::int(py, value as i64)?
            } else {
                fallible::float(py, value)?
            };
            docs.set_item(key, value)?;
        }
        out.set_item(fallible::string(py, utf8(query_id, "query id")?)?, docs)?;
    }
    Ok(out)
}
