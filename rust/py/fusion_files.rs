//! Bindings of the fusion of TREC run files (`ragmeter_core::fusion::files`): runs indexed,
//! fused and written without a Python object per line, the GIL released for every batch.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ragmeter_core::CoreResult;
use ragmeter_core::fusion::files::{BATCH_BYTES, RunFiles, write_fused};
use ragmeter_core::fusion::{self, Fused, Method, Norm, Relevant, RunRows};

use crate::error::{ByPosition, invalid_input};
use crate::fusion::{FusedRows, method_of, norm_of};
use crate::threads;

/// TREC run files indexed once for fusion (`RunFiles`): each query's lines found, every line
/// checked; the text itself is read again, batch by batch, when the runs are fused.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct FusionFiles {
    files: RunFiles,
}

#[pymethods]
impl FusionFiles {
    /// The number of runs.
    fn __len__(&self) -> usize {
        self.files.n_runs()
    }

    /// The query ids of run `run`, in order of first appearance in its file.
    fn query_ids(&self, run: usize) -> PyResult<Vec<String>> {
        let file = self
            .files
            .runs()
            .get(run)
            .ok_or_else(|| invalid_input(format!("run: {run} is not a run of these files")))?;
        // Every id was checked to be UTF-8 when the file was indexed.
        Ok(file
            .query_ids()
            .iter()
            .map(|id| String::from_utf8_lossy(id).into_owned())
            .collect())
    }
}

/// Index the TREC run files at `paths` (read in blocks in the pool, the GIL released).
#[pyfunction]
#[pyo3(signature = (paths, *, n_threads=None))]
pub fn index_fusion_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    n_threads: Option<usize>,
) -> PyResult<FusionFiles> {
    let files = threads::enter_core(py, n_threads, &ByPosition, || RunFiles::index(&paths))?;
    Ok(FusionFiles { files })
}

fn query_bytes(queries: Vec<String>) -> Vec<Vec<u8>> {
    queries.into_iter().map(String::into_bytes).collect()
}

/// Fuse `queries` (ids, in the order wanted) of the indexed runs into one fused run kept in
/// the core.
#[pyfunction]
#[pyo3(signature = (files, queries, *, method, norm, params, n_threads=None))]
pub fn fuse_files(
    py: Python<'_>,
    files: &FusionFiles,
    queries: Vec<String>,
    method: &str,
    norm: Option<&str>,
    params: &Bound<'_, PyDict>,
    n_threads: Option<usize>,
) -> PyResult<FusedRows> {
    let norm = norm_of(norm)?;
    let method = method_of(method, params)?;
    let queries = query_bytes(queries);
    let files = &files.files;
    let rows = threads::enter_core(py, n_threads, &ByPosition, || {
        let mut all = RunRows::new();
        let mut first = 0;
        while first < queries.len() {
            let batch = files.batch(&queries, first, BATCH_BYTES)?;
            let fused = files.fuse_batch(&batch, &queries, norm, &method)?;
            first += fused.n_queries();
            all.try_append(&fused)?;
        }
        Ok(all)
    })?;
    Ok(FusedRows::new(rows))
}

/// Learn trained method `method`'s parameter from the training `queries` of the indexed runs
/// (each run has every one), `relevant[q]` the relevant documents of `queries[q]`.
#[pyfunction]
#[pyo3(signature = (files, queries, relevant, *, method, norm, n_segments=None, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn train_fusion_files(
    py: Python<'_>,
    files: &FusionFiles,
    queries: Vec<String>,
    relevant: Vec<Vec<String>>,
    method: &str,
    norm: Option<&str>,
    n_segments: Option<usize>,
    n_threads: Option<usize>,
) -> PyResult<Vec<Vec<f64>>> {
    let norm = norm_of(norm)?;
    let training = crate::fusion::training_of(method, n_segments)?;
    if relevant.len() != queries.len() {
        return Err(invalid_input(
            "relevant: one list per query is needed".to_owned(),
        ));
    }
    let queries = query_bytes(queries);
    let files = &files.files;
    threads::enter_core(py, n_threads, &ByPosition, || {
        fusion::check_training(training)?;
        let mut hits = Vec::new();
        let mut first = 0;
        while first < queries.len() {
            let batch = files.batch(&queries, first, BATCH_BYTES)?;
            let n = batch.rows[0].n_queries();
            let mut rel = Relevant::new();
            for docs in &relevant[first..first + n] {
                for d in docs {
                    rel.try_push_doc(d.as_bytes(), 1.0)?;
                }
                rel.try_end_query()?;
            }
            let input = files.input(&batch, &queries)?;
            hits.extend(fusion::hit_lists(&input, &rel, norm)?);
            first += n;
        }
        let n_relevant: Vec<usize> = relevant.iter().map(Vec::len).collect();
        Ok(fusion::learn(&hits, &n_relevant, files.n_runs(), training))
    })
}

/// Where the lines of a fused run come from.
enum Source {
    /// Fused batch by batch from indexed files.
    Files {
        files: Py<FusionFiles>,
        queries: Vec<Vec<u8>>,
        norm: Norm,
        method: Method,
    },
    /// A fused run kept in the core, its queries named `queries`.
    Rows {
        rows: Py<FusedRows>,
        queries: Vec<Vec<u8>>,
    },
}

/// The TREC lines of a fused run in chunks of bytes (about a batch of queries each), made in
/// the pool with the GIL released: written to a file one chunk at a time, a fused run is never
/// whole in memory.
#[pyclass(module = "ragmeter._core")]
pub struct FusedTrecChunks {
    source: Source,
    tag: Vec<u8>,
    next: usize,
    n_threads: Option<usize>,
}

/// The queries `first..` of `rows` that hold about `bytes` of ids (one at least).
fn rows_batch(rows: &Fused, first: usize, bytes: usize) -> usize {
    let mut end = first;
    let mut text = 0;
    while end < rows.n_queries() && (end == first || text < bytes) {
        let r = rows.row(end);
        if !r.is_empty() {
            let start = if r.start == 0 {
                0
            } else {
                rows.ends[r.start - 1]
            };
            text += rows.ends[r.end - 1] - start;
        }
        end += 1;
    }
    end
}

#[pymethods]
impl FusedTrecChunks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let first = self.next;
        let tag = &self.tag;
        let (text, end) = match &self.source {
            Source::Files {
                files,
                queries,
                norm,
                method,
            } => {
                if first >= queries.len() {
                    return Ok(None);
                }
                let files = &files.get().files;
                threads::enter_core(py, self.n_threads, &ByPosition, || {
                    let batch = files.batch(queries, first, BATCH_BYTES)?;
                    let fused = files.fuse_batch(&batch, queries, *norm, method)?;
                    let end = first + fused.n_queries();
                    let mut text = Vec::new();
                    write_fused(&mut text, &fused, &queries[first..end], tag)?;
                    Ok((text, end))
                })?
            }
            Source::Rows { rows, queries } => {
                let rows = rows.get().rows();
                if first >= rows.n_queries() {
                    return Ok(None);
                }
                threads::enter_core(py, self.n_threads, &ByPosition, || {
                    // About a batch of fused rows at a time (ids are most of a line).
                    let end = rows_batch(rows, first, BATCH_BYTES / 2);
                    let part = rows_slice(rows, first, end)?;
                    let mut text = Vec::new();
                    write_fused(&mut text, &part, &queries[first..end], tag)?;
                    Ok((text, end))
                })?
            }
        };
        self.next = end;
        Ok(Some(PyBytes::new(py, &text)))
    }
}

/// Queries `first..end` of `rows` as a run of their own.
fn rows_slice(rows: &Fused, first: usize, end: usize) -> CoreResult<RunRows> {
    let mut out = RunRows::new();
    for q in first..end {
        for i in rows.row(q) {
            out.try_push_doc(rows.id(i), rows.scores[i])?;
        }
        out.try_end_query()?;
    }
    Ok(out)
}

fn checked_tag(tag: &str) -> PyResult<Vec<u8>> {
    ragmeter_core::trec_write::check_tag(tag)
        .map_err(|e| crate::error::to_pyerr(e, &ByPosition))?;
    Ok(tag.as_bytes().to_vec())
}

/// The TREC lines, in chunks, of `queries` of the indexed runs fused with `method` after
/// `norm`, tagged `tag`: each chunk fused when it is asked for.
#[pyfunction]
#[pyo3(signature = (files, queries, *, method, norm, params, tag, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn fused_trec_chunks(
    files: Py<FusionFiles>,
    queries: Vec<String>,
    method: &str,
    norm: Option<&str>,
    params: &Bound<'_, PyDict>,
    tag: &str,
    n_threads: Option<usize>,
) -> PyResult<FusedTrecChunks> {
    Ok(FusedTrecChunks {
        source: Source::Files {
            files,
            queries: query_bytes(queries),
            norm: norm_of(norm)?,
            method: method_of(method, params)?,
        },
        tag: checked_tag(tag)?,
        next: 0,
        n_threads,
    })
}

/// The TREC lines, in chunks, of a fused run kept in the core (`rows`), its queries named
/// `query_ids`, tagged `tag`.
#[pyfunction]
#[pyo3(signature = (rows, query_ids, *, tag, n_threads=None))]
pub fn fused_rows_trec_chunks(
    rows: Py<FusedRows>,
    query_ids: Vec<String>,
    tag: &str,
    n_threads: Option<usize>,
) -> PyResult<FusedTrecChunks> {
    let n = rows.get().rows().n_queries();
    if query_ids.len() != n {
        return Err(invalid_input(format!(
            "query_ids: {} ids for {n} fused queries",
            query_ids.len()
        )));
    }
    Ok(FusedTrecChunks {
        source: Source::Rows {
            rows,
            queries: query_bytes(query_ids),
        },
        tag: checked_tag(tag)?,
        next: 0,
        n_threads,
    })
}
