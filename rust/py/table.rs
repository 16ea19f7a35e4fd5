//! Bindings of the table readers (`ragmeter_core::table`): any object with the Arrow PyCapsule
//! interface (`__arrow_c_stream__` or `__arrow_c_array__`: pyarrow tables, batches and readers,
//! polars and DuckDB results, pandas DataFrames) is imported without copying its buffers
//! (`pyo3-arrow`, the Arrow C data interface), batch by batch: each batch is scanned for its
//! runs of one query by the pool while the next is imported (`crate::pipeline`), then the
//! judgments and the run are joined and prepared without the GIL.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_arrow::input::AnyRecordBatch;
use ragmeter_core::table::{self, Columns, Id, SCAN_ROWS, Segment, Table, ValueKind};

use crate::error::{ByPosition, invalid_input, to_pyerr, type_error};
use crate::fallible;
use crate::pipeline::{Batch, pipelined};
use crate::prepare::ranking_options;
use crate::ranking::PreparedRankings;
use crate::threads;

/// The argument names a table may come from (the core names tables by `&'static str`).
const ARGUMENTS: [&str; 6] = ["y_true", "y_pred", "qrels", "run", "judgments", "rankings"];

/// A table's columns as Python gives them: `(argument, source, query column, doc column,
/// value column, rank column or None)`.
type ColumnSpec = (String, String, String, String, String, Option<String>);

fn columns_of(spec: ColumnSpec, kind: ValueKind) -> PyResult<Columns> {
    let (argument, source, query, doc, value, rank) = spec;
    let argument = ARGUMENTS
        .iter()
        .copied()
        .find(|a| *a == argument)
        .ok_or_else(|| invalid_input(format!("internal: unknown table argument {argument:?}")))?;
    Ok(Columns {
        argument,
        source,
        query,
        doc,
        value,
        kind,
        rank,
    })
}

/// The batches of a table and the runs of adjacent rows of one query in them.
struct ReadTable {
    batches: Vec<RecordBatch>,
    segments: Vec<Segment>,
}

/// A batch worked on by the pool: its position, the batch, and the columns to read.
type ScanInput = (u32, RecordBatch, Arc<Columns>);

/// Import every batch of `source` (with the GIL: a stream may call Python code to make its
/// batches), scanning each in the pool while the next is imported.
fn read_table(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    columns: Columns,
    n_threads: Option<usize>,
) -> PyResult<ReadTable> {
    let argument = columns.argument;
    let any: AnyRecordBatch = source.extract().map_err(|_| {
        type_error(format!(
            "{argument}: expected a table with the Arrow PyCapsule interface \
             (__arrow_c_stream__: a pyarrow Table or RecordBatchReader, a polars or DuckDB \
             result, a pandas DataFrame), got {}",
            source
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let mut reader: Box<dyn RecordBatchReader + Send> = any.into_reader()?;
    let columns = Arc::new(columns);
    let mut batches = Vec::new();
    let mut segments = Vec::new();
    let read_columns = columns.clone();
    let read = |_done| -> PyResult<Option<Batch<ScanInput>>> {
        let batch = match reader.next() {
            None => return Ok(None),
            Some(Err(e)) => {
                // pyarrow's reader ran out of memory (its Status::OutOfMemory, through the C
                // stream): a MemoryError, never "is the file damaged?".
                if matches!(e, arrow_schema::ArrowError::MemoryError(_))
                    || e.to_string().contains("Out of memory")
                {
                    let what = if read_columns.source.is_empty() {
                        "the table".to_owned()
                    } else {
                        read_columns.source.clone()
                    };
                    return Err(pyo3::exceptions::PyMemoryError::new_err(format!(
                        "{argument}: not enough memory to read {what} ({e}): the memory this \
                         process may use is exhausted (the machine's, or a limit such as \
                         ulimit -v / RLIMIT_AS); free memory or raise the limit, or read a \
                         part of it at a time"
                    )));
                }
                // A file's reader fails here (a page whose checksum differs, a file cut while
                // read): name the file.
                let source = &read_columns.source;
                let what = if source.is_empty() {
                    "the table could not be read".to_owned()
                } else {
                    format!(
                        "{source}: could not be read (is the file damaged, or was it changed while it was read?)"
                    )
                };
                return Err(invalid_input(format!("{argument}: {what}: {e}")));
            }
            Some(Ok(batch)) => batch,
        };
        table::check_batch(&batch, &read_columns).map_err(|e| to_pyerr(e, &ByPosition))?;
        let index = u32::try_from(batches.len())
            .map_err(|_| invalid_input(format!("{argument}: more than 2^32 record batches")))?;
        batches.push(batch.clone());
        let parts = batch.num_rows().div_ceil(SCAN_ROWS);
        Ok(Some(Batch {
            inline: batch.num_rows() < SCAN_ROWS / 4,
            input: (index, batch, read_columns.clone()),
            parts,
        }))
    };
    pipelined(
        py,
        n_threads,
        read,
        |(index, batch, columns): &ScanInput, part| {
            let start = part * SCAN_ROWS;
            let rows = start..(start + SCAN_ROWS).min(batch.num_rows());
            table::scan_batch(batch, columns, rows).map(|runs| (*index, runs))
        },
        |result| {
            let (batch, runs) = result.map_err(|e| to_pyerr(e, &ByPosition))?;
            segments.extend(runs.into_iter().map(|rows| Segment {
                batch,
                rows: (rows.start, rows.end),
            }));
            Ok(())
        },
    )?;
    Ok(ReadTable { batches, segments })
}

/// An id of the table `argument` as a Python object: a str (its text must be UTF-8) or an int.
fn id_object<'py>(
    py: Python<'py>,
    id: Id<'_>,
    what: &str,
    argument: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match id {
        Id::Int(n) => fallible::int(py, n),
        Id::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => fallible::string(py, text),
            Err(_) => Err(invalid_input(format!(
                "{argument}: the {what} {} is not valid UTF-8 (the string column holds other \
                 bytes, which the library that wrote it should not allow): decode the column's \
                 bytes with the right encoding, or cast it to binary and back",
                ragmeter_core::prepare::show(bytes)
            ))),
        },
    }
}

/// Judged query ids (trec_eval's order), whether each is in the run, and the run's query ids
/// without judgments.
type TableJoin<'py> = (
    PreparedRankings,
    Vec<Bound<'py, PyAny>>,
    Vec<bool>,
    Vec<Bound<'py, PyAny>>,
);

/// Import judgments and a run given as tables, join them on the judged queries and prepare.
#[pyfunction]
#[pyo3(signature = (qrels, run, qrels_columns, run_columns, *, duplicates_first=false, max_docs=None, all_judged=false, ties=false, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn prepare_tables<'py>(
    py: Python<'py>,
    qrels: &Bound<'py, PyAny>,
    run: &Bound<'py, PyAny>,
    qrels_columns: ColumnSpec,
    run_columns: ColumnSpec,
    duplicates_first: bool,
    max_docs: Option<usize>,
    all_judged: bool,
    ties: bool,
    n_threads: Option<usize>,
) -> PyResult<TableJoin<'py>> {
    let opts = ranking_options(duplicates_first, max_docs, all_judged, ties);
    let qrels_columns = columns_of(qrels_columns, ValueKind::Grade)?;
    let run_columns = columns_of(run_columns, ValueKind::Score)?;
    let judged = read_table(py, qrels, qrels_columns.clone(), n_threads)?;
    let ranked = read_table(py, run, run_columns.clone(), n_threads)?;
    let (prepared, query_ids, in_run, run_only) =
        threads::enter_core(py, n_threads, &ByPosition, || {
            let qrels = Table::new(&qrels_columns, &judged.batches, &judged.segments)?;
            let run = Table::new(&run_columns, &ranked.batches, &ranked.segments)?;
            let joined = table::join_and_prepare(&qrels, &run, opts)?;
            let owned = |ids: &[Id<'_>]| ids.iter().map(|id| OwnedId::of(*id)).collect();
            Ok((
                joined.prepared,
                owned(&joined.query_ids),
                joined.in_run,
                owned(&joined.run_only),
            ))
        })?;
    let objects = |ids: Vec<OwnedId>, argument: &str| -> PyResult<Vec<Bound<'py, PyAny>>> {
        ids.iter()
            .map(|id| id_object(py, id.as_id(), "query id", argument))
            .collect()
    };
    Ok((
        PreparedRankings::new(prepared),
        objects(query_ids, qrels_columns.argument)?,
        in_run,
        objects(run_only, run_columns.argument)?,
    ))
}

/// An id that outlives the batches it was read from.
enum OwnedId {
    Text(Vec<u8>),
    Int(i64),
}

impl OwnedId {
    fn of(id: Id<'_>) -> Self {
        match id {
            Id::Text(bytes) => OwnedId::Text(bytes.to_vec()),
            Id::Int(n) => OwnedId::Int(n),
        }
    }

    fn as_id(&self) -> Id<'_> {
        match self {
            OwnedId::Text(bytes) => Id::Text(bytes),
            OwnedId::Int(n) => Id::Int(*n),
        }
    }
}

/// A table as a dict `{query_id: {doc_id: value}}`: grades (ints when the column holds
/// integers) for `kind="qrels"`, scores for `kind="run"` (`-rank` when read from a rank
/// column). A document listed twice for one query is an error.
#[pyfunction]
#[pyo3(signature = (source, columns, kind, *, n_threads=None))]
pub fn read_table_dict<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    columns: ColumnSpec,
    kind: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let value_kind = match kind {
        "qrels" => ValueKind::Grade,
        "run" => ValueKind::Score,
        other => {
            return Err(invalid_input(format!(
                "kind: expected 'qrels' or 'run', got {other:?}"
            )));
        }
    };
    let columns = columns_of(columns, value_kind)?;
    let read = read_table(py, source, columns.clone(), n_threads)?;
    let table = Table::new(&columns, &read.batches, &read.segments)
        .map_err(|e| to_pyerr(e, &ByPosition))?;
    let groups = table::grouped(&table).map_err(|e| to_pyerr(e, &ByPosition))?;
    let integers = value_kind == ValueKind::Grade && table::integer_values(&table);
    // Every object is made by `fallible`: a table whose dict does not fit in memory is a
    // MemoryError, not an abort.
    let rows: usize = groups.iter().map(|group| group.docs.len()).sum();
    let build = || -> PyResult<Bound<'py, PyDict>> {
        let out = fallible::dict(py)?;
        for group in groups {
            let docs = fallible::dict(py)?;
            for (doc, value) in group.docs {
                let key = id_object(py, doc, "document id", columns.argument)?;
                if docs.contains(&key)? {
                    return Err(invalid_input(format!(
                        "{}: document {} is listed twice for query {}",
                        columns.argument,
                        doc.show(),
                        group.id.show()
                    )));
                }
                let value = if integers {
                    fallible::int(py, value as i64)?
                } else {
                    fallible::float(py, value)?
                };
                docs.set_item(key, value)?;
            }
            out.set_item(id_object(py, group.id, "query id", columns.argument)?, docs)?;
        }
        Ok(out)
    };
    build().map_err(|error| {
        fallible::explain_memory_error(py, error, || {
            format!(
                "{}: not enough memory to hold its {rows} rows as Python dicts (read_run \
                 and read_qrels build them, and ragmeter.io.evaluate does for a table \
                 evaluated with a TREC file); to evaluate without dicts, give \
                 ragmeter.io.evaluate two tables (pyarrow or polars read TREC files as \
                 tables), or two TREC files",
                columns.argument
            )
        })
    })
}

/// The decompressed-size limit of compressed files (`RAGMETER_MAX_DECOMPRESSED_BYTES` or the
/// default unless set); with `limit`, set it first (0: back to the variable or the default)
/// and return the previous limit.
#[pyfunction]
#[pyo3(signature = (limit=None))]
pub fn max_decompressed_bytes(limit: Option<u64>) -> PyResult<u64> {
    use ragmeter_core::compressed;
    let previous = compressed::max_decompressed_bytes().map_err(|e| to_pyerr(e, &ByPosition));
    if let Some(limit) = limit {
        compressed::set_max_decompressed_bytes((limit > 0).then_some(limit));
    }
    previous
}
