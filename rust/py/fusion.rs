//! Bindings of run fusion (`ragmeter_core::fusion`): runs read from `{doc_id: score}` dicts
//! aligned by query, fused (or trained on) in the pool with the GIL released.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use ragmeter_core::fusion::{
    self, Args, FusionInput, Method, Norm, ParamKind, RunRows, Training, Value,
};

use crate::borrowed::{exact_number, for_each_item};
use crate::error::{ByPosition, QueryNamer, invalid_input, to_pyerr, type_error};
use crate::fallible;
use crate::strings::type_name;
use crate::threads;

/// Query ids for error messages.
struct QueryIds(Vec<String>);

impl QueryNamer for QueryIds {
    fn name(&self, query: usize) -> String {
        self.0
            .get(query)
            .map_or_else(|| format!("at position {query}"), |id| format!("'{id}'"))
    }
}

pub(crate) fn norm_of(name: Option<&str>) -> PyResult<Norm> {
    Ok(match name {
        None => Norm::None,
        Some("min-max" | "min_max") => Norm::MinMax,
        Some("min-max-inverted" | "min_max_inverted") => Norm::MinMaxInverted,
        Some("max") => Norm::Max,
        Some("sum") => Norm::Sum,
        Some("zmuv") => Norm::Zmuv,
        Some("rank") => Norm::Rank,
        Some("borda") => Norm::Borda,
        Some(other) => {
            return Err(invalid_input(format!(
                "norm: unknown normalisation {other:?}"
            )));
        }
    })
}

/// The fusion methods' table (`ragmeter_core::fusion::METHODS`) for the Python declarations:
/// per method its name, ranx's function and run names, title, family, parameters with their
/// defaults, training and trained parameter (None for untrained methods), formula, citation.
#[pyfunction]
pub fn fusion_method_table() -> Vec<MethodRow> {
    fusion::METHODS
        .iter()
        .map(|m| MethodRow {
            name: m.name,
            ranx_function: m.ranx_function,
            ranx_run_name: m.ranx_run_name,
            title: m.title,
            family: m.family.name(),
            parameters: m.parameters.to_vec(),
            training: m.learns.as_ref().map(|l| l.training),
            trained_parameter: m.learns.as_ref().map(|l| l.parameter),
            formula: m.formula,
            citation: m.citation,
        })
        .collect()
}

/// One row of [`fusion_method_table`] (a dict in Python, by field name).
#[derive(IntoPyObject)]
pub struct MethodRow {
    name: &'static str,
    ranx_function: &'static str,
    ranx_run_name: &'static str,
    title: &'static str,
    family: &'static str,
    parameters: Vec<(&'static str, Option<f64>)>,
    training: Option<&'static str>,
    trained_parameter: Option<&'static str>,
    formula: &'static str,
    citation: &'static str,
}

/// Every fusion parameter and its form (`number`, `count`, `per_run`, `per_run_vectors`).
#[pyfunction]
pub fn fusion_parameter_table() -> Vec<(&'static str, &'static str)> {
    fusion::PARAMETERS
        .iter()
        .map(|&(name, kind)| (name, kind.name()))
        .collect()
}

/// The parameters given in `params` (`{name: value}`; None values are not given), read in
/// the form the table declares for each.
fn args_of(params: &Bound<'_, PyDict>) -> PyResult<Args> {
    let mut args = Args::new();
    for (key, value) in params.iter() {
        if value.is_none() {
            continue;
        }
        let name: String = key
            .extract()
            .map_err(|_| type_error("params: parameter names are str".to_owned()))?;
        let kind = fusion::param_kind(&name)
            .ok_or_else(|| invalid_input(format!("params: unknown fusion parameter {name:?}")))?;
        let wrong = |_| {
            type_error(format!(
                "{name}: expected {}, got {}",
                kind.name(),
                type_name(&value)
            ))
        };
        let value = match kind {
            ParamKind::Number => Value::Number(value.extract().map_err(wrong)?),
            ParamKind::Count => Value::Count(value.extract().map_err(wrong)?),
            ParamKind::PerRun => Value::PerRun(value.extract().map_err(wrong)?),
            ParamKind::PerRunVectors => Value::PerRunVectors(value.extract().map_err(wrong)?),
        };
        args.set(&name, value).map_err(core_error)?;
    }
    Ok(args)
}

/// The training of trained method `method` (`n_segments` for ProbFuse), as the table builds it.
pub(crate) fn training_of(method: &str, n_segments: Option<usize>) -> PyResult<Training> {
    let mut args = Args::new();
    if let Some(n) = n_segments {
        args.set("n_segments", Value::Count(n))
            .map_err(core_error)?;
    }
    fusion::declaration(method)
        .and_then(|d| d.training(&args))
        .map_err(core_error)
}

/// The method `name` with the parameters `params`, as the table builds it.
pub(crate) fn method_of(name: &str, params: &Bound<'_, PyDict>) -> PyResult<Method> {
    let declaration = fusion::declaration(name).map_err(core_error)?;
    declaration.method(&args_of(params)?).map_err(core_error)
}

/// A core error met while reading the runs (none names a query: the caller's names do).
fn core_error(err: ragmeter_core::CoreError) -> PyErr {
    to_pyerr(err, &ByPosition)
}

/// Read `queries` (one entry per aligned query: a `{doc_id: score}` dict, or None for a query
/// the run lacks) into `RunRows`; `run_name` and `query_ids` name errors.
fn read_run(
    queries: &Bound<'_, PyList>,
    run_name: &str,
    query_ids: &[String],
) -> PyResult<RunRows> {
    let mut rows = RunRows::new();
    for (q, item) in queries.iter().enumerate() {
        let query = || query_ids.get(q).cloned().unwrap_or_default();
        if !item.is_none() {
            let dict = item.cast::<PyDict>().map_err(|_| {
                type_error(format!(
                    "run {run_name}, query '{}': the documents are {}, not a dict of \
                     {{doc_id: score}}",
                    query(),
                    type_name(&item)
                ))
            })?;
            for_each_item(dict, |id, score| {
                let number = exact_number(&score);
                if let (Ok(text), Some(score)) = (id.cast_exact::<PyString>(), number)
                    && let Ok(text) = text.to_str()
                {
                    rows.try_push_doc(text.as_bytes(), score)
                        .map_err(core_error)?;
                    return Ok(());
                }
                {
                    {
                        let (id, score) = (id.to_owned(), score.to_owned());
                        let id_text = id.cast::<PyString>().map_err(|_| {
                            type_error(format!(
                                "run {run_name}, query '{}': document id {} is {}; fusion \
                                 reads str ids (convert them with str(doc_id))",
                                query(),
                                id.repr().map(|r| r.to_string()).unwrap_or_default(),
                                type_name(&id)
                            ))
                        })?;
                        let id_text = id_text.to_str()?.to_owned();
                        let value: f64 = score.extract().map_err(|_| {
                            type_error(format!(
                                "run {run_name}, query '{}': the score of document '{id_text}' \
                                 is {}; scores must be numbers",
                                query(),
                                type_name(&score)
                            ))
                        })?;
                        rows.try_push_doc(id_text.as_bytes(), value)
                            .map_err(core_error)?;
                        Ok(())
                    }
                }
            })?;
        }
        rows.try_end_query().map_err(core_error)?;
    }
    Ok(rows)
}

fn read_runs(
    runs: &Bound<'_, PyList>,
    run_names: &[String],
    query_ids: &[String],
) -> PyResult<Vec<RunRows>> {
    runs.iter()
        .enumerate()
        .map(|(r, queries)| {
            let queries = queries
                .cast_into::<PyList>()
                .map_err(|_| type_error("runs: each run must be a list of dicts".to_owned()))?;
            if queries.len() != query_ids.len() {
                return Err(invalid_input(format!(
                    "runs: run {r} has {} queries, query_ids {}",
                    queries.len(),
                    query_ids.len()
                )));
            }
            let name = run_names.get(r).cloned().unwrap_or_else(|| r.to_string());
            read_run(&queries, &format!("{name:?}"), query_ids)
        })
        .collect()
}

/// Runs read once into the core's representation, aligned by query, for many fusions (ranx's
/// `Run` objects are built once too): `fuse_prepared` and `train_prepared` reuse it.
#[pyclass(frozen, module = "ragmeter._core")]
pub struct FusionRuns {
    input: FusionInput,
    query_ids: Vec<String>,
}

#[pymethods]
impl FusionRuns {
    /// The number of aligned queries.
    fn __len__(&self) -> usize {
        self.query_ids.len()
    }
}

/// Read runs aligned by query (`runs[r][q]`: run r's `{doc_id: score}` for `query_ids[q]`, or
/// None) once into a `FusionRuns`.
#[pyfunction]
#[pyo3(signature = (runs, query_ids, run_names, *, n_threads=None))]
pub fn prepare_fusion_runs(
    py: Python<'_>,
    runs: &Bound<'_, PyList>,
    query_ids: Vec<String>,
    run_names: Vec<String>,
    n_threads: Option<usize>,
) -> PyResult<FusionRuns> {
    let rows = read_runs(runs, &run_names, &query_ids)?;
    let names = QueryIds(query_ids);
    // Ids hashed and runs sorted once here (in the pool, the GIL released); the rows go.
    let input = threads::enter_core(py, n_threads, &names, || FusionInput::new(&rows))?;
    drop(rows);
    Ok(FusionRuns {
        input,
        query_ids: names.0,
    })
}

/// A fused run kept in the core: query offsets, ids and scores, best first per query. Python
/// objects are built only for what is asked (`doc_ids`, `to_dict`).
#[pyclass(frozen, module = "ragmeter._core")]
pub struct FusedRows {
    rows: RunRows,
}

impl FusedRows {
    pub(crate) fn new(rows: RunRows) -> Self {
        FusedRows { rows }
    }

    pub(crate) fn rows(&self) -> &RunRows {
        &self.rows
    }

    fn text(&self, i: usize) -> PyResult<&str> {
        std::str::from_utf8(self.rows.id(i))
            .map_err(|e| invalid_input(format!("internal error: {e}")))
    }
}

#[pymethods]
impl FusedRows {
    /// The number of queries.
    fn __len__(&self) -> usize {
        self.rows.n_queries()
    }

    /// `offsets[q]..offsets[q + 1]` are the documents of query `q`.
    fn offsets<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        let offsets: Vec<u64> = self.rows.offsets.iter().map(|&o| o as u64).collect();
        offsets.into_pyarray(py)
    }

    /// Every document id, query after query.
    fn doc_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let ids = PyList::empty(py);
        for i in 0..self.rows.ends.len() {
            ids.append(fallible::string(py, self.text(i)?)?)?;
        }
        Ok(ids)
    }

    /// Every score, aligned with `doc_ids`.
    fn scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.rows.scores.clone().into_pyarray(py)
    }

    /// `{query_id: {doc_id: score}}` (insertion order: best first), `query_ids` naming the
    /// queries in order.
    fn to_dict<'py>(
        &self,
        py: Python<'py>,
        query_ids: Vec<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        if query_ids.len() != self.rows.n_queries() {
            return Err(invalid_input(format!(
                "query_ids: {} ids for {} fused queries",
                query_ids.len(),
                self.rows.n_queries()
            )));
        }
        // Every object is made by `fallible`: fused runs whose dict does not fit in memory are
        // a MemoryError, not an abort.
        let build = || -> PyResult<Bound<'py, PyDict>> {
            let out = fallible::dict(py)?;
            for (q, query_id) in query_ids.iter().enumerate() {
                let docs = fallible::dict(py)?;
                for i in self.rows.offsets[q]..self.rows.offsets[q + 1] {
                    let score = fallible::float(py, self.rows.scores[i])?;
                    docs.set_item(fallible::string(py, self.text(i)?)?, score)?;
                }
                out.set_item(fallible::string(py, query_id)?, docs)?;
            }
            Ok(out)
        };
        build().map_err(|error| {
            fallible::explain_memory_error(py, error, || {
                format!(
                    "not enough memory to hold the {} fused rows as Python dicts; write them \
                     with ragmeter.fusion's TREC writer or keep the FusedRun",
                    self.rows.ends.len()
                )
            })
        })
    }
}

/// Fuse prepared runs with `method` after normalising each run with `norm`.
#[pyfunction]
#[pyo3(signature = (prepared, *, method, norm, params, n_threads=None))]
pub fn fuse_prepared(
    py: Python<'_>,
    prepared: &FusionRuns,
    method: &str,
    norm: Option<&str>,
    params: &Bound<'_, PyDict>,
    n_threads: Option<usize>,
) -> PyResult<FusedRows> {
    let norm = norm_of(norm)?;
    let method = method_of(method, params)?;
    let names = QueryIds(prepared.query_ids.clone());
    let input = &prepared.input;
    let fused = threads::enter_core(py, n_threads, &names, || {
        fusion::fuse_input(input, norm, &method)
    })?;
    Ok(FusedRows { rows: fused })
}

type FusedOutput<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyList>,
    Bound<'py, PyArray1<f64>>,
);

/// Fuse runs aligned by query (`runs[r][q]`: run r's `{doc_id: score}` for `query_ids[q]`,
/// or None) in one call: `prepare_fusion_runs` then `fuse_prepared`. Returns the fused run as
/// query offsets, doc ids and scores, best first per query.
#[pyfunction]
#[pyo3(signature = (runs, query_ids, run_names, *, method, norm, params, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn fuse_runs<'py>(
    py: Python<'py>,
    runs: &Bound<'py, PyList>,
    query_ids: Vec<String>,
    run_names: Vec<String>,
    method: &str,
    norm: Option<&str>,
    params: &Bound<'py, PyDict>,
    n_threads: Option<usize>,
) -> PyResult<FusedOutput<'py>> {
    let prepared = prepare_fusion_runs(py, runs, query_ids, run_names, n_threads)?;
    let fused = fuse_prepared(py, &prepared, method, norm, params, n_threads)?;
    drop(prepared);
    Ok((fused.offsets(py), fused.doc_ids(py)?, fused.scores(py)))
}

/// Learn the parameter of trained method `method` from `runs` aligned with `relevant` (per
/// query, the ids of the relevant documents); `n_segments` for ProbFuse.
#[pyfunction]
#[pyo3(signature = (runs, relevant, query_ids, run_names, *, method, norm, n_segments=None, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn train_fusion(
    py: Python<'_>,
    runs: &Bound<'_, PyList>,
    relevant: Vec<Vec<String>>,
    query_ids: Vec<String>,
    run_names: Vec<String>,
    method: &str,
    norm: Option<&str>,
    n_segments: Option<usize>,
    n_threads: Option<usize>,
) -> PyResult<Vec<Vec<f64>>> {
    let norm = norm_of(norm)?;
    let training = training_of(method, n_segments)?;
    if relevant.len() != query_ids.len() {
        return Err(invalid_input(
            "relevant: one list per query is needed".to_owned(),
        ));
    }
    let rows = read_runs(runs, &run_names, &query_ids)?;
    let mut rel = RunRows::new();
    for docs in &relevant {
        for d in docs {
            rel.push_doc(d.as_bytes(), 1.0);
        }
        rel.end_query();
    }
    let names = QueryIds(query_ids);
    threads::enter_core(py, n_threads, &names, || {
        fusion::train(&FusionInput::new(&rows)?, &rel, norm, training)
    })
}
