//! Bindings of the agreement between two runs (`ragmeter_core::agreement`): the rankings come
//! as lists of document ids (str or int, best first) per query, are encoded here with the GIL
//! (each document of the second ranking as its position in the first), and the kernels run
//! without it.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};
use ragmeter_core::agreement::{self, NOT_IN_A, RankingPairs};
use ragmeter_core::csr::Rows;
use rustc_hash::FxHashMap;

use crate::error::{ByPosition, invalid_input, type_error};
use crate::threads;

/// A document id as the key of a map: the text of a str, the value of an int.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Str(&'a str),
    Int(i64),
}

/// The first ranking's length and, per query, the second ranking's documents' positions in
/// the first.
struct Encoded {
    a_lengths: Vec<u32>,
    offsets: Vec<usize>,
    cross: Vec<u32>,
}

fn key<'a>(id: &'a Bound<'_, PyAny>, run: &str, query: &Bound<'_, PyAny>) -> PyResult<Key<'a>> {
    if let Ok(text) = id.cast::<PyString>() {
        return Ok(Key::Str(text.to_str()?));
    }
    if id.is_instance_of::<PyInt>() && !id.is_instance_of::<pyo3::types::PyBool>() {
        return id.extract::<i64>().map(Key::Int).map_err(|_| {
            invalid_input(format!(
                "{run}: query {}: document id {} is too large an int; use str ids",
                query.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
                id
            ))
        });
    }
    Err(type_error(format!(
        "{run}: query {}: document ids must be str or int, got {} ({}); convert them \
         (str(doc_id) or int(doc_id))",
        query.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
        id.get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string()),
        id.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
    )))
}

fn is_str(key: &Key<'_>) -> bool {
    matches!(key, Key::Str(_))
}

fn encode(
    query_ids: &Bound<'_, PyList>,
    rankings_a: &Bound<'_, PyList>,
    rankings_b: &Bound<'_, PyList>,
) -> PyResult<Encoded> {
    let n = query_ids.len();
    if rankings_a.len() != n || rankings_b.len() != n {
        return Err(invalid_input(format!(
            "rankings: expected {n} rankings per run, got {} and {}",
            rankings_a.len(),
            rankings_b.len()
        )));
    }
    let mut encoded = Encoded {
        a_lengths: Vec::with_capacity(n),
        offsets: Vec::with_capacity(n + 1),
        cross: Vec::new(),
    };
    encoded.offsets.push(0);
    // Whether each run's ids are str (None: no id seen yet).
    let mut kinds: [Option<bool>; 2] = [None, None];
    for q in 0..n {
        let query = query_ids.get_item(q)?;
        let a_items: Vec<Bound<'_, PyAny>> =
            rankings_a.get_item(q)?.cast::<PyList>()?.iter().collect();
        let b_items: Vec<Bound<'_, PyAny>> =
            rankings_b.get_item(q)?.cast::<PyList>()?.iter().collect();
        // Each document: its position in A (NOT_IN_A) and whether B ranked it already.
        let mut positions: FxHashMap<Key<'_>, (u32, bool)> =
            FxHashMap::with_capacity_and_hasher(a_items.len() + b_items.len(), Default::default());
        let name = || query.repr().map_or_else(|_| "?".into(), |r| r.to_string());
        let check_kind =
            |kinds: &mut [Option<bool>; 2], side: usize, k: &Key<'_>| -> PyResult<()> {
                let run = ["run_a", "run_b"][side];
                match kinds[side] {
                    Some(kind) if kind != is_str(k) => Err(type_error(format!(
                        "{run}: query {}: document ids mix str and int; use one type",
                        name()
                    ))),
                    _ => {
                        kinds[side] = Some(is_str(k));
                        if let (Some(a), Some(b)) = (kinds[0], kinds[1])
                            && a != b
                        {
                            let shown = |s: bool| if s { "str" } else { "int" };
                            return Err(type_error(format!(
                                "run_a's document ids are {}, run_b's are {}: no document could \
                             match; convert one run's ids",
                                shown(a),
                                shown(b)
                            )));
                        }
                        Ok(())
                    }
                }
            };
        for (i, item) in a_items.iter().enumerate() {
            let k = key(item, "run_a", &query)?;
            check_kind(&mut kinds, 0, &k)?;
            if positions.insert(k, (i as u32, false)).is_some() {
                return Err(invalid_input(format!(
                    "run_a: query {} ranks document {} twice; a ranking holds each document once",
                    name(),
                    item.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                )));
            }
        }
        for item in &b_items {
            let k = key(item, "run_b", &query)?;
            check_kind(&mut kinds, 1, &k)?;
            let entry = positions.entry(k).or_insert((NOT_IN_A, false));
            if entry.1 {
                return Err(invalid_input(format!(
                    "run_b: query {} ranks document {} twice; a ranking holds each document once",
                    name(),
                    item.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                )));
            }
            entry.1 = true;
            encoded.cross.push(entry.0);
        }
        let too_long = a_items.len() >= NOT_IN_A as usize;
        if too_long {
            return Err(invalid_input(format!(
                "run_a: query {} has too many documents",
                name()
            )));
        }
        encoded.a_lengths.push(a_items.len() as u32);
        encoded.offsets.push(encoded.cross.len());
    }
    Ok(encoded)
}

type RboOutput<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// RBO_ext, RBO_min and RBO_res per query of two runs' rankings (lists of str or int ids,
/// best first) with persistence `p`, both cut at `depth` when given. `tops_a` / `tops_b`
/// (flat, in the rankings' order): the position of the first document of each document's
/// group of tied documents (None: no ties).
#[pyfunction]
#[pyo3(signature = (query_ids, rankings_a, rankings_b, *, p, depth=None, tops_a=None, tops_b=None, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn rank_biased_overlap<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
    rankings_a: &Bound<'py, PyList>,
    rankings_b: &Bound<'py, PyList>,
    p: f64,
    depth: Option<usize>,
    tops_a: Option<PyReadonlyArray1<'py, u32>>,
    tops_b: Option<PyReadonlyArray1<'py, u32>>,
    n_threads: Option<usize>,
) -> PyResult<RboOutput<'py>> {
    let encoded = encode(query_ids, rankings_a, rankings_b)?;
    let mut a_offsets = Vec::with_capacity(encoded.a_lengths.len() + 1);
    a_offsets.push(0usize);
    for &len in &encoded.a_lengths {
        a_offsets.push(a_offsets[a_offsets.len() - 1] + len as usize);
    }
    let tops_a = tops_a.as_ref().map(|t| t.as_slice()).transpose()?;
    let tops_b = tops_b.as_ref().map(|t| t.as_slice()).transpose()?;
    let result = threads::enter_core(py, n_threads, &ByPosition, || {
        let pairs = RankingPairs {
            a_lengths: &encoded.a_lengths,
            cross: Rows::new("cross", &encoded.offsets, &encoded.cross)?,
            a_tops: tops_a
                .map(|t| Rows::new("tops_a", &a_offsets, t))
                .transpose()?,
            b_tops: tops_b
                .map(|t| Rows::new("tops_b", &encoded.offsets, t))
                .transpose()?,
        };
        agreement::rank_biased_overlap(pairs, p, depth)
    })?;
    Ok((
        result.ext.into_pyarray(py),
        result.min.into_pyarray(py),
        result.res.into_pyarray(py),
    ))
}

type TopKOutput<'py> = (
    Bound<'py, PyArray2<u32>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
);

/// `|A[:k] ∩ B[:k]|` per query (rows) and depth `k` of `depths` (columns), and the lengths of
/// both rankings per query.
#[pyfunction]
#[pyo3(signature = (query_ids, rankings_a, rankings_b, depths, *, n_threads=None))]
pub fn top_k_overlaps<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
    rankings_a: &Bound<'py, PyList>,
    rankings_b: &Bound<'py, PyList>,
    depths: Vec<usize>,
    n_threads: Option<usize>,
) -> PyResult<TopKOutput<'py>> {
    let encoded = encode(query_ids, rankings_a, rankings_b)?;
    let n_queries = encoded.a_lengths.len();
    let counts = threads::enter_core(py, n_threads, &ByPosition, || {
        let pairs = RankingPairs {
            a_lengths: &encoded.a_lengths,
            cross: Rows::new("cross", &encoded.offsets, &encoded.cross)?,
            a_tops: None,
            b_tops: None,
        };
        agreement::top_k_overlaps(pairs, &depths)
    })?;
    let b_lengths: Vec<u32> = encoded
        .offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as u32)
        .collect();
    Ok((
        counts.into_pyarray(py).reshape([n_queries, depths.len()])?,
        encoded.a_lengths.into_pyarray(py),
        b_lengths.into_pyarray(py),
    ))
}
