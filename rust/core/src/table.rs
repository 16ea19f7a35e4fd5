//! Judgments and runs as tables in long format: Arrow record batches with a query id column, a
//! document id column and a value column (a grade for judgments; a score, or a rank when there
//! is no score, for runs), read where they are, without copying a row.
//!
//! * Ids are text (`utf8`, `large_utf8`, `utf8_view`), integers (any width; compared as
//!   numbers, ordered for ties by their decimal text, as trec_eval would order them in a file) or
//!   dictionary-encoded text or integers (each dictionary value is hashed once, not each row).
//!   One kind per column pair: query ids of the judgments and of the run are both text or both
//!   integers, and so are document ids (`"1"` and `1` never match).
//! * Values are floating-point or integer numbers. A rank becomes the score `-rank` (rank 1 is
//!   the best). Null ids or values, NaN scores and infinite grades are refused, naming the
//!   column and the query.
//! * Rows of one query need not be adjacent; runs of adjacent rows of one query (the usual
//!   layout) are found by `scan_queries` and grouped by query in `join_and_prepare`, which
//!   evaluates the judged queries in trec_eval's order (query ids sorted byte-wise as text) and
//!   ranks documents as `prepare` does: score descending, ties by document id byte-wise
//!   descending.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::DataType;
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::csr::RowsBuf;
use crate::prepare::{
    Doc, Duplicates, Found, IdTable, Prepared, PreparedBuilder, QueryInput, RankingInput,
    RankingOptions, canonical_bits,
};
use crate::{CoreError, CoreResult};

/// What the value column of a table holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueKind {
    Grade,
    Score,
    Rank,
}

impl ValueKind {
    fn name(self) -> &'static str {
        match self {
            ValueKind::Grade => "grade",
            ValueKind::Score => "score",
            ValueKind::Rank => "rank",
        }
    }
}

/// The columns of a table and what the table is called in messages.
#[derive(Clone, Debug)]
pub struct Columns {
    /// The argument that gave the table (`y_true`, `run`...).
    pub argument: &'static str,
    /// Where it comes from (a path), or empty.
    pub source: String,
    pub query: String,
    pub doc: String,
    /// The value column, and what it holds.
    pub value: String,
    pub kind: ValueKind,
    /// For runs: the rank column used when the table has no `value` (score) column.
    pub rank: Option<String>,
}

/// An id read from a column: text (UTF-8 bytes, not checked here) or an integer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Id<'a> {
    Text(&'a [u8]),
    Int(i64),
}

impl Id<'_> {
    fn hash(self) -> u64 {
        match self {
            Id::Text(bytes) => FxBuildHasher.hash_one(bytes),
            Id::Int(n) => FxBuildHasher.hash_one(n),
        }
    }

    /// The id as trec_eval would see it in a file (integers as decimal text).
    pub fn text(self) -> std::borrow::Cow<'static, [u8]> {
        match self {
            Id::Text(bytes) => std::borrow::Cow::Owned(bytes.to_vec()),
            Id::Int(n) => std::borrow::Cow::Owned(n.to_string().into_bytes()),
        }
    }

    /// For messages: as Python would print a str.
    pub fn show(self) -> String {
        match self {
            Id::Text(bytes) => crate::prepare::show(bytes),
            Id::Int(n) => n.to_string(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IdKind {
    Text,
    Int,
}

impl IdKind {
    pub fn name(self) -> &'static str {
        match self {
            IdKind::Text => "text",
            IdKind::Int => "integers",
        }
    }
}

/// An integer column of any width.
#[derive(Clone, Copy)]
enum Ints<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

const MALFORMED: &str = "the Arrow array is malformed (an offset or a dictionary key points \
                         outside its data); the library that made it has a bug";

impl<'a> Ints<'a> {
    fn of(array: &'a dyn Array) -> Option<Ints<'a>> {
        Some(match array.data_type() {
            DataType::Int8 => Ints::I8(array.as_primitive::<Int8Type>().values()),
            DataType::Int16 => Ints::I16(array.as_primitive::<Int16Type>().values()),
            DataType::Int32 => Ints::I32(array.as_primitive::<Int32Type>().values()),
            DataType::Int64 => Ints::I64(array.as_primitive::<Int64Type>().values()),
            DataType::UInt8 => Ints::U8(array.as_primitive::<UInt8Type>().values()),
            DataType::UInt16 => Ints::U16(array.as_primitive::<UInt16Type>().values()),
            DataType::UInt32 => Ints::U32(array.as_primitive::<UInt32Type>().values()),
            DataType::UInt64 => Ints::U64(array.as_primitive::<UInt64Type>().values()),
            _ => return None,
        })
    }

    fn get(&self, row: usize) -> Result<i64, String> {
        let value = match self {
            Ints::I8(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::I16(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::I32(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::I64(v) => v.get(row).copied(),
            Ints::U8(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::U16(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::U32(v) => v.get(row).map(|&x| i64::from(x)),
            Ints::U64(v) => {
                return match v.get(row) {
                    Some(&x) => i64::try_from(x)
                        .map_err(|_| format!("the id {x} does not fit in a 64-bit signed integer")),
                    None => Err(MALFORMED.to_owned()),
                };
            }
        };
        value.ok_or_else(|| MALFORMED.to_owned())
    }

    /// The value of `row` as a number (rounded as `float(int)` rounds beyond 2^53; unsigned
    /// values of 2^63 and more are numbers too, though not ids).
    fn number(&self, row: usize) -> Result<f64, String> {
        match self {
            Ints::U64(v) => v
                .get(row)
                .map(|&x| x as f64)
                .ok_or_else(|| MALFORMED.to_owned()),
            _ => self.get(row).map(|x| x as f64),
        }
    }
}

/// A column of ids of one batch, read in place.
enum Ids<'a> {
    Utf8 {
        offsets: &'a [i32],
        data: &'a [u8],
    },
    LargeUtf8 {
        offsets: &'a [i64],
        data: &'a [u8],
    },
    View {
        /// The views as bytes, 16 per row.
        views: &'a [u8],
        buffers: &'a [Buffer],
    },
    Int(Ints<'a>),
    Dictionary {
        keys: Ints<'a>,
        values: Box<Ids<'a>>,
        hashes: Arc<Vec<u64>>,
    },
}

/// Hashes of dictionary values, by dictionary (the batches of one table often share one).
type DictionaryHashes = HashMap<(usize, usize, usize), Arc<Vec<u64>>>;

impl<'a> Ids<'a> {
    /// The ids of `array`, or a description of its type if ids cannot be read from it.
    /// With `cache` None, dictionary values are not hashed (`get_hashed` must not be used).
    fn of(array: &'a ArrayRef, cache: Option<&mut DictionaryHashes>) -> Result<Ids<'a>, String> {
        Ok(match array.data_type() {
            DataType::Utf8 => {
                let strings = array.as_string::<i32>();
                Ids::Utf8 {
                    offsets: strings.value_offsets(),
                    data: strings.value_data(),
                }
            }
            DataType::LargeUtf8 => {
                let strings = array.as_string::<i64>();
                Ids::LargeUtf8 {
                    offsets: strings.value_offsets(),
                    data: strings.value_data(),
                }
            }
            DataType::Utf8View => {
                let strings = array.as_string_view();
                Ids::View {
                    views: strings.views().inner().as_slice(),
                    buffers: strings.data_buffers(),
                }
            }
            DataType::Dictionary(_, value_type) => {
                let dictionary = array.as_any_dictionary();
                let keys = Ints::of(dictionary.keys())
                    .ok_or_else(|| format!("dictionary<{value_type}> with non-integer keys"))?;
                let values_array = dictionary.values();
                if matches!(values_array.data_type(), DataType::Dictionary(..)) {
                    return Err(format!(
                        "{} (a dictionary of dictionaries)",
                        array.data_type()
                    ));
                }
                let Some(cache) = cache else {
                    return Ok(Ids::Dictionary {
                        keys,
                        values: Box::new(Ids::of(values_array, None)?),
                        hashes: Arc::new(Vec::new()),
                    });
                };
                let values = Ids::of(values_array, None)?;
                let data = values_array.to_data();
                let key = (
                    data.buffers().first().map_or(0, |b| b.as_ptr() as usize),
                    data.buffers().last().map_or(0, |b| b.as_ptr() as usize),
                    data.offset() << 32 | data.len(),
                );
                let hashes = match cache.get(&key) {
                    Some(hashes) => hashes.clone(),
                    None => {
                        let hashes = (0..values_array.len())
                            .map(|i| values.get(i).map(Id::hash))
                            .collect::<Result<Vec<u64>, String>>()?;
                        let hashes = Arc::new(hashes);
                        cache.insert(key, hashes.clone());
                        hashes
                    }
                };
                Ids::Dictionary {
                    keys,
                    values: Box::new(values),
                    hashes,
                }
            }
            other => match Ints::of(array.as_ref()) {
                Some(ints) => Ids::Int(ints),
                None => return Err(other.to_string()),
            },
        })
    }

    fn kind(&self) -> IdKind {
        match self {
            Ids::Int(_) => IdKind::Int,
            Ids::Dictionary { values, .. } => values.kind(),
            _ => IdKind::Text,
        }
    }

    fn get(&self, row: usize) -> Result<Id<'a>, String> {
        let malformed = || MALFORMED.to_owned();
        match self {
            Ids::Utf8 { offsets, data } => text_at(offsets, data, row)
                .map(Id::Text)
                .ok_or_else(malformed),
            Ids::LargeUtf8 { offsets, data } => text_at(offsets, data, row)
                .map(Id::Text)
                .ok_or_else(malformed),
            Ids::View { views, buffers } => {
                // Arrow's view layout, little-endian: the length in bytes 0..4; up to 12 bytes
                // inline in bytes 4..16, else the buffer index in 8..12 and the offset in
                // 12..16.
                let view = views.get(row * 16..row * 16 + 16).ok_or_else(malformed)?;
                let word = |at: usize| {
                    <[u8; 4]>::try_from(&view[at..at + 4]).map_or(0, u32::from_le_bytes) as usize
                };
                let len = word(0);
                if len <= 12 {
                    return view.get(4..4 + len).map(Id::Text).ok_or_else(malformed);
                }
                let (index, offset) = (word(8), word(12));
                buffers
                    .get(index)
                    .and_then(|b| b.as_slice().get(offset..offset + len))
                    .map(Id::Text)
                    .ok_or_else(malformed)
            }
            Ids::Int(ints) => ints.get(row).map(Id::Int),
            Ids::Dictionary { keys, values, .. } => {
                let key = usize::try_from(keys.get(row)?).map_err(|_| malformed())?;
                values.get(key)
            }
        }
    }

    /// The id of `row` and its hash (precomputed for dictionary values).
    fn get_hashed(&self, row: usize) -> Result<(Id<'a>, u64), String> {
        match self {
            Ids::Dictionary {
                keys,
                values,
                hashes,
            } => {
                let key = usize::try_from(keys.get(row)?).map_err(|_| MALFORMED.to_owned())?;
                let hash = *hashes.get(key).ok_or_else(|| MALFORMED.to_owned())?;
                Ok((values.get(key)?, hash))
            }
            _ => self.get(row).map(|id| (id, id.hash())),
        }
    }
}

/// A numeric column of one batch.
enum Numbers<'a> {
    F64(&'a [f64]),
    F32(&'a [f32]),
    Int(Ints<'a>),
}

impl Numbers<'_> {
    fn of(array: &ArrayRef) -> Result<Numbers<'_>, String> {
        Ok(match array.data_type() {
            DataType::Float64 => Numbers::F64(array.as_primitive::<Float64Type>().values()),
            DataType::Float32 => Numbers::F32(array.as_primitive::<Float32Type>().values()),
            other => match Ints::of(array.as_ref()) {
                Some(ints) => Numbers::Int(ints),
                None => return Err(other.to_string()),
            },
        })
    }

    fn get(&self, row: usize) -> Result<f64, String> {
        match self {
            Numbers::F64(v) => v.get(row).copied().ok_or_else(|| MALFORMED.to_owned()),
            Numbers::F32(v) => v
                .get(row)
                .map(|&x| f64::from(x))
                .ok_or_else(|| MALFORMED.to_owned()),
            // Exact up to 2^53; beyond, rounded as float(int) rounds.
            Numbers::Int(ints) => ints.number(row),
        }
    }
}

/// The three columns of one record batch.
pub struct BatchColumns<'a> {
    rows: usize,
    query: Ids<'a>,
    doc: Ids<'a>,
    value: Numbers<'a>,
    kind: ValueKind,
}

impl<'a> BatchColumns<'a> {
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The value of `row` as the core reads it: a grade, or a score (`-rank` for a rank).
    fn value(&self, row: usize) -> Result<f64, String> {
        let x = self.value.get(row)?;
        Ok(if self.kind == ValueKind::Rank { -x } else { x })
    }
}

/// The columns of `batch` named by `columns`, checked: present, of a type ragmeter reads, and
/// without nulls.
fn batch_columns<'a>(
    batch: &'a RecordBatch,
    columns: &Columns,
    cache: Option<&mut DictionaryHashes>,
) -> CoreResult<BatchColumns<'a>> {
    let schema = batch.schema();
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let available = || {
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let column = |name: &str, role: &str, argument: &str| -> CoreResult<&'a ArrayRef> {
        let found = names.iter().filter(|n| n.as_str() == name).count();
        if found > 1 {
            // Reading the first of them silently could read the wrong values.
            return Err(columns.error(format_args!(
                "there are {found} columns named '{name}' (the {role}); its columns are {}: \
                 rename or drop all but one",
                available()
            )));
        }
        batch.column_by_name(name).ok_or_else(|| {
            columns.error(format_args!(
                "there is no column '{name}' (the {role}); its columns are {}: name the right \
                 one with {argument}=",
                available()
            ))
        })
    };
    let (value_name, kind, value_argument) = match columns.kind {
        ValueKind::Score
            if batch.column_by_name(&columns.value).is_none()
                && columns
                    .rank
                    .as_deref()
                    .is_some_and(|r| batch.column_by_name(r).is_some()) =>
        {
            (
                columns.rank.clone().unwrap_or_default(),
                ValueKind::Rank,
                "rank_col",
            )
        }
        ValueKind::Grade => (columns.value.clone(), ValueKind::Grade, "relevance_col"),
        kind => (columns.value.clone(), kind, "score_col"),
    };
    let query = column(&columns.query, "query ids", "query_col")?;
    let doc = column(&columns.doc, "document ids", "doc_col")?;
    let value = column(&value_name, kind.name_long(), value_argument)?;
    for (array, name) in [
        (query, &columns.query),
        (doc, &columns.doc),
        (value, &value_name),
    ] {
        // Logical nulls: a null stored in a dictionary's values (not in its keys) is a null
        // too, not the id "".
        let nulls = array.logical_null_count();
        if nulls > 0 {
            return Err(columns.error(format_args!(
                "column '{name}' holds {nulls} null values; drop or fill them first"
            )));
        }
    }
    let id_column = |array: &'a ArrayRef, name: &str, cache: Option<&mut DictionaryHashes>| {
        Ids::of(array, cache).map_err(|type_name| {
            columns.error(format_args!(
                "column '{name}' is {type_name}; ids are read from text or integer columns \
                 (dictionary-encoded or not): cast it to string"
            ))
        })
    };
    let query_ids = id_column(query, &columns.query, None)?;
    let doc_ids = id_column(doc, &columns.doc, cache)?;
    let value_numbers = Numbers::of(value).map_err(|type_name| {
        columns.error(format_args!(
            "column '{value_name}' is {type_name}; {}s are read from integer or floating-point \
             columns: cast it{}",
            kind.name(),
            if type_name == "Boolean" {
                " to int (True is not read as 1 silently)"
            } else {
                ""
            }
        ))
    })?;
    Ok(BatchColumns {
        rows: batch.num_rows(),
        query: query_ids,
        doc: doc_ids,
        value: value_numbers,
        kind,
    })
}

impl Columns {
    /// An error about the table.
    fn error(&self, message: impl std::fmt::Display) -> CoreError {
        if self.source.is_empty() {
            CoreError::argument(self.argument, message.to_string())
        } else {
            CoreError::argument(self.argument, format!("{}: {message}", self.source))
        }
    }
}

impl ValueKind {
    fn name_long(self) -> &'static str {
        match self {
            ValueKind::Grade => "relevance grades",
            ValueKind::Score => "scores",
            ValueKind::Rank => "ranks",
        }
    }
}

/// Check that `batch` has the columns of `columns`, of types ragmeter reads, without nulls.
pub fn check_batch(batch: &RecordBatch, columns: &Columns) -> CoreResult<()> {
    batch_columns(batch, columns, None).map(|_| ())
}

/// `scan_queries` over the rows `rows` of `batch`.
pub fn scan_batch(
    batch: &RecordBatch,
    columns: &Columns,
    rows: Range<usize>,
) -> CoreResult<Vec<Range<u32>>> {
    scan_queries(&batch_columns(batch, columns, None)?, columns, rows)
}

/// Rows of one batch read per task when scanning: enough to be worth a thread.
pub const SCAN_ROWS: usize = 1 << 16;

/// The runs of adjacent rows with one query id among `rows` of a batch (a table sorted or
/// grouped by query has one per query and batch).
fn scan_queries(
    columns: &BatchColumns<'_>,
    names: &Columns,
    rows: Range<usize>,
) -> CoreResult<Vec<Range<u32>>> {
    let mut runs = Vec::new();
    let mut start = rows.start;
    let mut previous: Option<Id<'_>> = None;
    for row in rows.clone() {
        let id = columns
            .query
            .get(row)
            .map_err(|message| names.error(message))?;
        if previous.is_some_and(|p| p != id) {
            runs.push(to_u32(start, names)?..to_u32(row, names)?);
            start = row;
        }
        previous = Some(id);
    }
    if start < rows.end {
        runs.push(to_u32(start, names)?..to_u32(rows.end, names)?);
    }
    Ok(runs)
}

fn elem_size<T>(_: &[T]) -> usize {
    std::mem::size_of::<T>()
}

/// `n` more elements reserved in `vec`, or an error (never an aborted process) when the
/// allocator cannot grant them: the allocations that grow with a table's rows go through here.
fn reserve<T>(vec: &mut Vec<T>, n: usize, names: &Columns, what: &str) -> CoreResult<()> {
    vec.try_reserve(n)
        .map_err(|_| out_of_memory(names, n, std::mem::size_of::<T>(), what))
}

fn out_of_memory(names: &Columns, n: usize, size: usize, what: &str) -> CoreError {
    CoreError::OutOfMemory {
        what: format!(
            "{}{}: {n} {what} ({} bytes more); read a part of it at a time (e.g. by query)",
            names.argument,
            if names.source.is_empty() {
                String::new()
            } else {
                format!(" ({})", names.source)
            },
            n.saturating_mul(size)
        ),
    }
}

fn to_u32(n: usize, names: &Columns) -> CoreResult<u32> {
    u32::try_from(n)
        .map_err(|_| names.error("a record batch of more than 2^32 rows is not supported"))
}

/// Adjacent rows of one query in one batch.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub batch: u32,
    pub rows: (u32, u32),
}

/// A table: its batches' columns and the segments `scan_queries` found, in table order.
pub struct Table<'a> {
    pub columns: &'a Columns,
    pub batches: Vec<BatchColumns<'a>>,
    pub segments: &'a [Segment],
}

impl<'a> Table<'a> {
    pub fn new(
        columns: &'a Columns,
        batches: &'a [RecordBatch],
        segments: &'a [Segment],
    ) -> CoreResult<Table<'a>> {
        let mut cache = DictionaryHashes::new();
        let batches = batches
            .iter()
            .map(|b| batch_columns(b, columns, Some(&mut cache)))
            .collect::<CoreResult<Vec<_>>>()?;
        Ok(Table {
            columns,
            batches,
            segments,
        })
    }

    /// The kinds of the query and document ids (None for a table without rows).
    fn id_kinds(&self) -> Option<(IdKind, IdKind)> {
        self.batches
            .iter()
            .find(|b| b.rows > 0)
            .or(self.batches.first())
            .map(|b| (b.query.kind(), b.doc.kind()))
    }

    fn query_of(&self, segment: &Segment) -> CoreResult<Id<'a>> {
        self.batches[segment.batch as usize]
            .query
            .get(segment.rows.0 as usize)
            .map_err(|message| self.columns.error(message))
    }

    /// Number the queries of the segments in order of first appearance (continuing `ids`),
    /// and list each query's segments in table order.
    /// The segments of each query (numbered in `index` and `ids` in order of first appearance,
    /// after those already there), as CSR rows: one `u32` per segment and the segments in
    /// query order, instead of a vector per query (two allocations each, on a million queries).
    fn group(
        &self,
        index: &mut FxHashMap<Id<'a>, u32>,
        ids: &mut Vec<Id<'a>>,
    ) -> CoreResult<RowsBuf<Segment>> {
        let mut query_of: Vec<u32> = Vec::new();
        reserve(&mut query_of, self.segments.len(), self.columns, "segments")?;
        index
            .try_reserve(self.segments.len().min(1 << 20))
            .map_err(|_| out_of_memory(self.columns, self.segments.len(), 16, "query ids"))?;
        let mut last: Option<(Id<'a>, u32)> = None;
        for segment in self.segments {
            let id = self.query_of(segment)?;
            let q = match last {
                Some((previous, q)) if previous == id => q,
                _ => {
                    let next = u32::try_from(ids.len())
                        .map_err(|_| self.columns.error("more than 2^32 queries"))?;
                    let q = *index.entry(id).or_insert(next);
                    if q == next {
                        reserve(ids, 1, self.columns, "query ids")?;
                        ids.push(id);
                    }
                    q
                }
            };
            last = Some((id, q));
            query_of.push(q);
        }
        // A counting sort of the segments by query, stable (table order within a query).
        let mut offsets = Vec::new();
        reserve(&mut offsets, ids.len() + 1, self.columns, "queries")?;
        offsets.resize(ids.len() + 1, 0usize);
        for &q in &query_of {
            offsets[q as usize + 1] += 1;
        }
        for q in 0..ids.len() {
            offsets[q + 1] += offsets[q];
        }
        let mut next = Vec::new();
        reserve(&mut next, offsets.len(), self.columns, "queries")?;
        next.extend_from_slice(&offsets);
        let mut values = Vec::new();
        reserve(&mut values, self.segments.len(), self.columns, "segments")?;
        values.resize(
            self.segments.len(),
            Segment {
                batch: 0,
                rows: (0, 0),
            },
        );
        for (segment, &q) in self.segments.iter().zip(&query_of) {
            values[next[q as usize]] = *segment;
            next[q as usize] += 1;
        }
        Ok(RowsBuf { offsets, values })
    }
}

/// The rows of one query of a table, for readers that turn tables into Python objects.
pub struct QueryRows<'a> {
    pub id: Id<'a>,
    /// (document id, value) in table order.
    pub docs: Vec<(Id<'a>, f64)>,
}

/// The rows of `table` grouped by query, queries in order of first appearance.
pub fn grouped<'a>(table: &Table<'a>) -> CoreResult<Vec<QueryRows<'a>>> {
    let mut index = FxHashMap::default();
    let mut ids = Vec::new();
    let segments = table.group(&mut index, &mut ids)?;
    let segments = segments.view();
    let mut groups = Vec::new();
    reserve(&mut groups, ids.len(), table.columns, "queries")?;
    for (q, &id) in ids.iter().enumerate() {
        let segments = segments.row(q);
        let rows: usize = segments
            .iter()
            .map(|s| (s.rows.1 - s.rows.0) as usize)
            .sum();
        let mut docs = Vec::new();
        reserve(&mut docs, rows, table.columns, "rows")?;
        for segment in segments {
            let batch = &table.batches[segment.batch as usize];
            for row in segment.rows.0 as usize..segment.rows.1 as usize {
                let value = batch.value(row);
                let doc = batch.doc.get(row);
                match (doc, value) {
                    (Ok(doc), Ok(value)) => docs.push((doc, value)),
                    (Err(message), _) | (_, Err(message)) => {
                        return Err(table.columns.error(message));
                    }
                }
            }
        }
        groups.push(QueryRows { id, docs });
    }
    Ok(groups)
}

/// Whether the value column of `table` holds integers (grades are then read back as ints).
pub fn integer_values(table: &Table<'_>) -> bool {
    table
        .batches
        .iter()
        .all(|b| matches!(b.value, Numbers::Int(_)))
}

/// Judgments and a run joined on the judged queries, prepared.
pub struct JoinedTables<'a> {
    /// Judged query ids in trec_eval's order (sorted byte-wise as text).
    pub query_ids: Vec<Id<'a>>,
    /// Whether each judged query has rows in the run.
    pub in_run: Vec<bool>,
    /// Run queries without judgments, in run order.
    pub run_only: Vec<Id<'a>>,
    pub prepared: Prepared,
}

/// Queries prepared per task.
const QUERIES_PER_TASK: usize = 64;

/// Queries prepared per wave (a wave's parts are appended to the result before the next).
const QUERIES_PER_WAVE: usize = QUERIES_PER_TASK * 64;

/// Join judgments and a run (each read into a `Table`) and prepare the judged queries.
pub fn join_and_prepare<'a>(
    qrels: &Table<'a>,
    run: &Table<'a>,
    opts: RankingOptions,
) -> CoreResult<JoinedTables<'a>> {
    if let (Some(judged), Some(ranked)) = (qrels.id_kinds(), run.id_kinds()) {
        for (what, a, b, column_a, column_b) in [
            (
                "query",
                judged.0,
                ranked.0,
                &qrels.columns.query,
                &run.columns.query,
            ),
            (
                "document",
                judged.1,
                ranked.1,
                &qrels.columns.doc,
                &run.columns.doc,
            ),
        ] {
            if a != b {
                return Err(run.columns.error(format_args!(
                    "the {what} ids of {} (column '{column_a}') are {} but those of {} (column \
                     '{column_b}') are {}; \"1\" and 1 never match: cast one column to the \
                     other's type",
                    qrels.columns.argument,
                    a.name(),
                    run.columns.argument,
                    b.name()
                )));
            }
        }
    }
    let mut index: FxHashMap<Id<'a>, u32> = FxHashMap::default();
    let mut ids: Vec<Id<'a>> = Vec::new();
    let judged_segments = qrels.group(&mut index, &mut ids)?;
    let n_judged = ids.len();
    // Rows for every query numbered so far: the judged ones first, then those of the run only.
    let run_segments = run.group(&mut index, &mut ids)?;
    let (judged_segments, run_segments) = (judged_segments.view(), run_segments.view());
    let run_only: Vec<Id<'a>> = ids[n_judged..].to_vec();
    // trec_eval's order: ids sorted byte-wise as text.
    let texts: Vec<std::borrow::Cow<'static, [u8]>> =
        ids[..n_judged].iter().map(|id| id.text()).collect();
    let mut order: Vec<usize> = (0..n_judged).collect();
    order.sort_unstable_by(|&a, &b| texts[a].cmp(&texts[b]));
    let in_run: Vec<bool> = order
        .iter()
        .map(|&q| !run_segments.row(q).is_empty())
        .collect();
    // Prepared in waves, each appended to vectors reserved for the most a query can hold (its
    // judged rows): the untouched part of a reservation costs no memory, and only one wave's
    // parts exist at a time besides the result (preparing every part first, then copying them
    // into the result, held both: on 100,000 short queries that was a sixth of the input).
    let judged_rows: usize = (0..n_judged)
        .map(|q| {
            judged_segments
                .row(q)
                .iter()
                .map(|s| (s.rows.1 - s.rows.0) as usize)
                .sum::<usize>()
        })
        .sum();
    let mut prepared = Prepared {
        all_judged: opts.all_judged,
        ..Prepared::default()
    };
    // The result's largest vectors, reserved fallibly: a table too large for the memory is
    // an error here, before the work, not an aborted process later.
    reserve(
        &mut prepared.hits.values,
        judged_rows,
        run.columns,
        "judged rows",
    )?;
    reserve(
        &mut prepared.judged_positive.values,
        judged_rows,
        qrels.columns,
        "judged rows",
    )?;
    prepared.try_reserve(n_judged, 0, 0);
    let rows_of = |segments: &[Segment]| -> usize {
        segments
            .iter()
            .map(|s| (s.rows.1 - s.rows.0) as usize)
            .sum()
    };
    for (wave, queries) in order.chunks(QUERIES_PER_WAVE).enumerate() {
        // The wave's parts grow by doubling on the pool's threads, where a failed allocation
        // would abort the process: the most they may take (twice their judged rows' hits and
        // grades, and sorting scratch for their run rows) is checked first, by a fallible
        // reservation freed at once (a table too large for the memory is then an error).
        let judged: usize = queries
            .iter()
            .map(|&q| rows_of(judged_segments.row(q)))
            .sum();
        let ranked: usize = queries.iter().map(|&q| rows_of(run_segments.row(q))).sum();
        let hit_bytes = elem_size(&prepared.hits.values) + 8;
        let peak = judged
            .saturating_mul(2 * hit_bytes)
            .saturating_add(ranked.saturating_mul(48));
        let rows = (judged + ranked).max(1);
        Vec::<u8>::new()
            .try_reserve(peak)
            .map_err(|_| out_of_memory(run.columns, rows, peak / rows, "rows to prepare"))?;
        let parts: Vec<Prepared> = queries
            .par_chunks(QUERIES_PER_TASK)
            .enumerate()
            .map_init(TableScratch::default, |scratch, (chunk, queries)| {
                let mut builder = PreparedBuilder::new(opts)?;
                for (i, &q) in queries.iter().enumerate() {
                    let position = wave * QUERIES_PER_WAVE + chunk * QUERIES_PER_TASK + i;
                    prepare_query(
                        qrels,
                        judged_segments.row(q),
                        run,
                        run_segments.row(q),
                        opts,
                        scratch,
                        &mut builder,
                    )
                    .map_err(|message| CoreError::InvalidQuery {
                        query: position,
                        query_id: Some(String::from_utf8_lossy(&ids[q].text()).into_owned()),
                        message,
                    })?;
                }
                Ok(builder.finish())
            })
            .collect::<CoreResult<_>>()?;
        for part in parts {
            prepared.append(part);
        }
    }
    Ok(JoinedTables {
        query_ids: order.iter().map(|&q| ids[q]).collect(),
        in_run,
        run_only,
        prepared,
    })
}

/// The bytes of row `row` of a string column, from its offsets (`i32` for Utf8, `i64` for
/// LargeUtf8) and its data; None when the offsets do not describe a slice of the data.
fn text_at<'a, O: Copy + TryInto<usize>>(
    offsets: &[O],
    data: &'a [u8],
    row: usize,
) -> Option<&'a [u8]> {
    let start = (*offsets.get(row)?).try_into().ok()?;
    let end = (*offsets.get(row + 1)?).try_into().ok()?;
    data.get(start..end)
}

/// Buffers one thread reuses from query to query.
#[derive(Default)]
struct TableScratch<'a> {
    judged: Vec<(Id<'a>, u64, f64)>,
    judged_slots: IdTable,
    grades: Vec<Doc<'static>>,
    ranked: Vec<(Id<'a>, f64)>,
    ranked_slots: IdTable,
    scores: Vec<f64>,
    /// Decimal text of the integer ids of found and tied documents.
    texts: Vec<u8>,
}

/// A found or tied document before its id has text: (id, score, grade).
type Pending<'a> = (Id<'a>, f64, f64);

fn prepare_query<'a>(
    qrels: &Table<'a>,
    judged_segments: &[Segment],
    run: &Table<'a>,
    run_segments: &[Segment],
    opts: RankingOptions,
    scratch: &mut TableScratch<'a>,
    builder: &mut PreparedBuilder,
) -> Result<(), String> {
    // Judged documents.
    scratch.judged.clear();
    for segment in judged_segments {
        let batch = &qrels.batches[segment.batch as usize];
        for row in segment.rows.0 as usize..segment.rows.1 as usize {
            let (id, hash) = batch.doc.get_hashed(row)?;
            let grade = batch.value(row)?;
            if !grade.is_finite() {
                return Err(format!(
                    "the grade of document {} is {grade}; grades must be finite numbers",
                    id.show()
                ));
            }
            scratch.judged.push((id, hash, grade));
        }
    }
    let judged = &scratch.judged;
    scratch.judged_slots.reset(judged.len());
    for (i, &(id, hash, _)) in judged.iter().enumerate() {
        let i = u32::try_from(i).map_err(|_| "more than 2^32 judged documents".to_owned())?;
        if scratch
            .judged_slots
            .insert(hash, i, |j| judged[j as usize].0 == id)
            .is_some()
        {
            return Err(format!("document {} is judged twice", id.show()));
        }
    }
    // Ranked documents, each id once.
    scratch.ranked.clear();
    let n_rows: usize = run_segments
        .iter()
        .map(|s| (s.rows.1 - s.rows.0) as usize)
        .sum();
    scratch.ranked_slots.reset(n_rows);
    scratch.scores.clear();
    let mut found: Vec<Pending<'a>> = Vec::new();
    for segment in run_segments {
        let batch = &run.batches[segment.batch as usize];
        for row in segment.rows.0 as usize..segment.rows.1 as usize {
            let (id, hash) = batch.doc.get_hashed(row)?;
            let score = batch.value(row)?;
            if score.is_nan() {
                return Err(format!(
                    "the score of document {} is NaN; scores must be numbers (not NaN)",
                    id.show()
                ));
            }
            let position = u32::try_from(scratch.ranked.len())
                .map_err(|_| "more than 2^32 ranked documents".to_owned())?;
            let ranked = &scratch.ranked;
            if let Some(first) = scratch
                .ranked_slots
                .insert(hash, position, |j| ranked[j as usize].0 == id)
            {
                if opts.duplicates == Duplicates::Raise {
                    return Err(format!(
                        "document {} appears more than once in the ranking; pass \
                         duplicates=\"first\" to keep its best position",
                        id.show()
                    ));
                }
                let kept = &mut scratch.ranked[first as usize].1;
                if score > *kept {
                    *kept = score;
                    scratch.scores[first as usize] = score;
                }
                continue;
            }
            scratch.ranked.push((id, score));
            scratch.scores.push(score);
            let _ = hash;
        }
    }
    // Judged documents found in the ranking (after duplicates kept their best score).
    let keeps = |grade: f64| grade > 0.0 || opts.all_judged;
    if !judged.is_empty() {
        for &(id, score) in &scratch.ranked {
            if let Some(j) = scratch
                .judged_slots
                .find(id.hash(), |j| judged[j as usize].0 == id)
            {
                let grade = judged[j as usize].2;
                if keeps(grade) {
                    found.push((id, score, grade));
                }
            }
        }
    }
    // Documents tied in score with a found one (the found ones included).
    let mut tied: Vec<Pending<'a>> = Vec::new();
    if !found.is_empty() {
        let found_scores: FxHashSet<u64> = found.iter().map(|f| canonical_bits(f.1)).collect();
        let mut counts: FxHashMap<u64, usize> = FxHashMap::default();
        for f in &found {
            *counts.entry(canonical_bits(f.1)).or_default() += 1;
        }
        let mut others = false;
        for &s in &scratch.scores {
            let bits = canonical_bits(s);
            if found_scores.contains(&bits) {
                let count = counts.entry(bits).or_default();
                if *count == 0 {
                    others = true;
                    break;
                }
                *count -= 1;
            }
        }
        if others {
            tied.extend(
                scratch
                    .ranked
                    .iter()
                    .filter(|d| found_scores.contains(&canonical_bits(d.1)))
                    .map(|&(id, score)| (id, score, 0.0)),
            );
        } else {
            tied.extend(found.iter().copied());
        }
    }
    // Text of the integer ids among them, then the core's joined form.
    scratch.texts.clear();
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(found.len() + tied.len());
    for &(id, _, _) in found.iter().chain(&tied) {
        match id {
            Id::Text(_) => spans.push((0, 0)),
            Id::Int(n) => {
                use std::io::Write;
                let start = scratch.texts.len();
                let _ = write!(scratch.texts, "{n}");
                spans.push((start, scratch.texts.len()));
            }
        }
    }
    let texts = &scratch.texts;
    let text_of = |i: usize, id: Id<'a>| -> &[u8] {
        match id {
            Id::Text(bytes) => bytes,
            Id::Int(_) => &texts[spans[i].0..spans[i].1],
        }
    };
    let found_docs: Vec<Found<'_>> = found
        .iter()
        .enumerate()
        .map(|(i, &(id, score, grade))| Found {
            id: text_of(i, id),
            score,
            grade,
        })
        .collect();
    let tied_docs: Vec<Doc<'_>> = tied
        .iter()
        .enumerate()
        .map(|(i, &(id, score, _))| (text_of(found.len() + i, id), score))
        .collect();
    scratch.grades.clear();
    scratch
        .grades
        .extend(judged.iter().map(|&(_, _, grade)| (&b""[..], grade)));
    builder.push(&QueryInput {
        judged: &scratch.grades,
        ranking: RankingInput::Joined {
            scores: &scratch.scores,
            found: &found_docs,
            tied: &tied_docs,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::{Duplicates, prepare};
    use arrow_array::builder::{StringDictionaryBuilder, StringViewBuilder};
    use arrow_array::{Float32Array, Float64Array, Int32Array, Int64Array, StringArray};
    use proptest::prelude::*;
    use std::sync::Arc;

    const OPTS: RankingOptions = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        all_judged: false,
        ties: false,
    };

    #[derive(Clone, Copy, Debug)]
    enum Encoding {
        Utf8,
        View,
        Dictionary,
        Int,
    }

    fn ids(values: &[String], encoding: Encoding) -> ArrayRef {
        match encoding {
            Encoding::Utf8 => Arc::new(StringArray::from_iter_values(values)),
            Encoding::View => {
                let mut b = StringViewBuilder::new();
                for v in values {
                    b.append_value(v);
                }
                Arc::new(b.finish())
            }
            Encoding::Dictionary => {
                let mut b = StringDictionaryBuilder::<Int32Type>::new();
                for v in values {
                    b.append_value(v);
                }
                Arc::new(b.finish())
            }
            Encoding::Int => Arc::new(Int64Array::from_iter_values(
                values.iter().map(|v| v.parse::<i64>().unwrap()),
            )),
        }
    }

    /// Rows (query, doc, value) as record batches of at most `batch_rows` rows.
    fn batches(
        rows: &[(String, String, f64)],
        encoding: Encoding,
        value_name: &str,
        batch_rows: usize,
        float32: bool,
    ) -> Vec<RecordBatch> {
        rows.chunks(batch_rows.max(1))
            .map(|chunk| {
                let q: Vec<String> = chunk.iter().map(|r| r.0.clone()).collect();
                let d: Vec<String> = chunk.iter().map(|r| r.1.clone()).collect();
                let values: ArrayRef = if float32 {
                    Arc::new(Float32Array::from_iter_values(
                        chunk.iter().map(|r| r.2 as f32),
                    ))
                } else if value_name == "relevance" {
                    Arc::new(Int32Array::from_iter_values(
                        chunk.iter().map(|r| r.2 as i32),
                    ))
                } else {
                    Arc::new(Float64Array::from_iter_values(chunk.iter().map(|r| r.2)))
                };
                RecordBatch::try_from_iter([
                    ("query_id", ids(&q, encoding)),
                    ("doc_id", ids(&d, encoding)),
                    (value_name, values),
                ])
                .unwrap()
            })
            .collect()
    }

    fn columns(kind: ValueKind) -> Columns {
        Columns {
            argument: if kind == ValueKind::Grade {
                "y_true"
            } else {
                "y_pred"
            },
            source: String::new(),
            query: "query_id".into(),
            doc: "doc_id".into(),
            value: if kind == ValueKind::Grade {
                "relevance".into()
            } else {
                "score".into()
            },
            kind,
            rank: Some("rank".into()),
        }
    }

    fn segments(batches: &[RecordBatch], names: &Columns) -> CoreResult<Vec<Segment>> {
        let mut cache = DictionaryHashes::new();
        let mut out = Vec::new();
        for (b, batch) in batches.iter().enumerate() {
            let cols = batch_columns(batch, names, Some(&mut cache))?;
            for run in scan_queries(&cols, names, 0..cols.rows())? {
                out.push(Segment {
                    batch: b as u32,
                    rows: (run.start, run.end),
                });
            }
        }
        Ok(out)
    }

    fn evaluate_tables(
        qrels: &[RecordBatch],
        run: &[RecordBatch],
        opts: RankingOptions,
    ) -> CoreResult<(Vec<String>, Vec<bool>, Prepared)> {
        let (qc, rc) = (columns(ValueKind::Grade), columns(ValueKind::Score));
        let (qs, rs) = (segments(qrels, &qc)?, segments(run, &rc)?);
        let q = Table::new(&qc, qrels, &qs)?;
        let r = Table::new(&rc, run, &rs)?;
        let joined = join_and_prepare(&q, &r, opts)?;
        let ids = joined
            .query_ids
            .iter()
            .map(|id| String::from_utf8(id.text().into_owned()).unwrap())
            .collect();
        Ok((ids, joined.in_run, joined.prepared))
    }

    /// The TREC file path of the same rows: grouped by query, judged queries sorted, `Scored`.
    fn evaluate_scored(
        qrels: &[(String, String, f64)],
        run: &[(String, String, f64)],
        opts: RankingOptions,
    ) -> CoreResult<(Vec<String>, Prepared)> {
        let mut judged: Vec<String> = qrels.iter().map(|r| r.0.clone()).collect();
        judged.sort();
        judged.dedup();
        let docs = |rows: &[(String, String, f64)], q: &str| -> Vec<(Vec<u8>, f64)> {
            rows.iter()
                .filter(|r| r.0 == q)
                .map(|r| (r.1.as_bytes().to_vec(), r.2))
                .collect()
        };
        type Owned = Vec<(Vec<u8>, f64)>;
        let per_query: Vec<(Owned, Owned)> = judged
            .iter()
            .map(|q| (docs(qrels, q), docs(run, q)))
            .collect();
        let views: Vec<(Vec<Doc<'_>>, Vec<Doc<'_>>)> = per_query
            .iter()
            .map(|(j, r)| {
                (
                    j.iter().map(|(d, g)| (d.as_slice(), *g)).collect(),
                    r.iter().map(|(d, s)| (d.as_slice(), *s)).collect(),
                )
            })
            .collect();
        let inputs: Vec<QueryInput<'_>> = views
            .iter()
            .map(|(j, r)| QueryInput {
                judged: j,
                ranking: RankingInput::Scored(r),
            })
            .collect();
        Ok((judged, prepare(&inputs, opts, 0)?))
    }

    fn row_strategy(ints: bool) -> impl Strategy<Value = (String, String, f64)> {
        let query = prop_oneof![Just("1"), Just("10"), Just("2"), Just("9"), Just("300")];
        let doc = prop_oneof![
            Just("1"),
            Just("10"),
            Just("9"),
            Just("100"),
            Just("2"),
            Just("12345678901234"),
            Just("7")
        ];
        let text_doc = prop_oneof![
            Just("d1"),
            Just("d10"),
            Just("d9"),
            Just("a"),
            Just("\u{e9}t\u{e9}-document-with-a-long-id"),
            Just("b"),
        ];
        let doc = if ints {
            doc.prop_map(str::to_owned).boxed()
        } else {
            text_doc.prop_map(str::to_owned).boxed()
        };
        (
            query.prop_map(str::to_owned),
            doc,
            prop_oneof![
                Just(0.0),
                Just(-0.0),
                Just(1.0),
                Just(0.5),
                Just(2.0),
                Just(3.0)
            ],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Every encoding, batching and row order gives the ranks of the `Scored` path (the
        /// TREC path): trec_eval's tie rule holds for tables too.
        #[test]
        fn tables_rank_as_trec_files(
            ints in proptest::bool::ANY,
            qrels in proptest::collection::vec(row_strategy(false), 0..20),
            run in proptest::collection::vec(row_strategy(false), 0..30),
            int_qrels in proptest::collection::vec(row_strategy(true), 0..20),
            int_run in proptest::collection::vec(row_strategy(true), 0..30),
            encoding in prop_oneof![Just(Encoding::Utf8), Just(Encoding::View), Just(Encoding::Dictionary)],
            batch_rows in 1usize..8,
            keep_first in proptest::bool::ANY,
            all_judged in proptest::bool::ANY,
            max_docs in prop_oneof![Just(None), Just(Some(2usize))],
        ) {
            let (mut qrels, run) = if ints { (int_qrels, int_run) } else { (qrels, run) };
            let encoding = if ints { Encoding::Int } else { encoding };
            // Judgments: one grade per (query, doc), as integers.
            let mut seen = std::collections::HashSet::new();
            qrels.retain(|r| seen.insert((r.0.clone(), r.1.clone())));
            let qrels: Vec<_> = qrels.into_iter().map(|(q, d, g)| (q, d, g.trunc())).collect();
            let opts = RankingOptions {
                duplicates: if keep_first { Duplicates::KeepFirst } else { Duplicates::Raise },
                max_docs,
                all_judged,
                ties: false,
            };
            let want = evaluate_scored(&qrels, &run, opts);
            let got = evaluate_tables(
                &batches(&qrels, encoding, "relevance", batch_rows, false),
                &batches(&run, encoding, "score", batch_rows + 1, false),
                opts,
            );
            match (want, got) {
                (Ok((want_ids, want)), Ok((ids, in_run, got))) => {
                    prop_assert_eq!(&ids, &want_ids);
                    prop_assert_eq!(&got.hits, &want.hits);
                    prop_assert_eq!(&got.retrieved, &want.retrieved);
                    prop_assert_eq!(&got.judged_positive, &want.judged_positive);
                    prop_assert_eq!(&got.judged_count, &want.judged_count);
                    for (q, present) in ids.iter().zip(in_run) {
                        prop_assert_eq!(present, run.iter().any(|r| &r.0 == q));
                    }
                }
                (Err(want), Err(got)) => {
                    prop_assert!(want.to_string().contains("more than once"), "{}", want);
                    prop_assert!(got.to_string().contains("more than once"), "{}", got);
                }
                (want, got) => prop_assert!(false, "scored {:?} table {:?}", want.map(|w| w.0), got.map(|g| g.0)),
            }
        }
    }

    #[test]
    fn ranks_float32_scores_and_rank_columns() {
        let row = |q: &str, d: &str, v: f64| (q.to_owned(), d.to_owned(), v);
        let qrels = batches(
            &[row("q", "a", 1.0)],
            Encoding::Utf8,
            "relevance",
            10,
            false,
        );
        // Ranks: a is third.
        let run = RecordBatch::try_from_iter([
            (
                "query_id",
                ids(&["q".into(), "q".into(), "q".into()], Encoding::Utf8),
            ),
            (
                "doc_id",
                ids(&["a".into(), "b".into(), "c".into()], Encoding::Utf8),
            ),
            (
                "rank",
                Arc::new(Int64Array::from(vec![3, 1, 2])) as ArrayRef,
            ),
        ])
        .unwrap();
        let (_, _, prepared) = evaluate_tables(&qrels, &[run], OPTS).unwrap();
        assert_eq!(prepared.hits.values[0].rank, 3);
        let run = batches(
            &[row("q", "a", 0.5), row("q", "b", 0.25)],
            Encoding::Utf8,
            "score",
            10,
            true,
        );
        let (_, _, prepared) = evaluate_tables(&qrels, &run, OPTS).unwrap();
        assert_eq!(prepared.hits.values[0].rank, 1);
    }

    #[test]
    fn refusals_name_the_column_and_the_query() {
        let row = |q: &str, d: &str, v: f64| (q.to_owned(), d.to_owned(), v);
        let qrels = batches(
            &[row("q", "a", 1.0)],
            Encoding::Utf8,
            "relevance",
            10,
            false,
        );
        let missing = batches(&[row("q", "a", 1.0)], Encoding::Utf8, "points", 10, false);
        let err = evaluate_tables(&qrels, &missing, OPTS)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no column 'score'")
                && err.contains("'points'")
                && err.contains("score_col="),
            "{err}"
        );
        let nan = batches(
            &[row("q", "a", f64::NAN)],
            Encoding::Utf8,
            "score",
            10,
            false,
        );
        let err = evaluate_tables(&qrels, &nan, OPTS).unwrap_err().to_string();
        assert!(err.contains("NaN"), "{err}");
        let twice = batches(
            &[row("q", "a", 1.0), row("q", "a", 2.0)],
            Encoding::Utf8,
            "relevance",
            10,
            false,
        );
        let run = batches(&[row("q", "a", 1.0)], Encoding::Utf8, "score", 10, false);
        let err = evaluate_tables(&twice, &run, OPTS).unwrap_err();
        assert!(
            matches!(&err, CoreError::InvalidQuery { query_id: Some(q), .. } if q == "q"),
            "{err}"
        );
        assert!(err.to_string().contains("judged twice"), "{err}");
        let mixed = RecordBatch::try_from_iter([
            ("query_id", ids(&["q".into()], Encoding::Utf8)),
            ("doc_id", ids(&["1".into()], Encoding::Int)),
            ("score", Arc::new(Float64Array::from(vec![1.0])) as ArrayRef),
        ])
        .unwrap();
        let err = evaluate_tables(&qrels, &[mixed], OPTS)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("document ids of y_true") && err.contains("never match"),
            "{err}"
        );
        let with_null = RecordBatch::try_from_iter([
            ("query_id", ids(&["q".into()], Encoding::Utf8)),
            ("doc_id", ids(&["a".into()], Encoding::Utf8)),
            (
                "score",
                Arc::new(Float64Array::from(vec![None])) as ArrayRef,
            ),
        ])
        .unwrap();
        let err = evaluate_tables(&qrels, &[with_null], OPTS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("null values"), "{err}");
        // A null stored among a dictionary's values, referenced by a valid key: a null too,
        // not the id "".
        let values = arrow_array::StringArray::from(vec![Some("a"), None]);
        let keys = arrow_array::Int32Array::from(vec![0, 1]);
        let doc_ids =
            arrow_array::DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).unwrap();
        assert_eq!(doc_ids.null_count(), 0);
        let null_value = RecordBatch::try_from_iter([
            ("query_id", ids(&["q".into(), "q".into()], Encoding::Utf8)),
            ("doc_id", Arc::new(doc_ids) as ArrayRef),
            (
                "score",
                Arc::new(Float64Array::from(vec![1.0, 0.5])) as ArrayRef,
            ),
        ])
        .unwrap();
        let err = evaluate_tables(&qrels, &[null_value], OPTS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("column 'doc_id' holds 1 null values"), "{err}");
        // Two columns of a needed name: refused by name, not the first read silently.
        let twice = RecordBatch::try_from_iter([
            ("query_id", ids(&["q".into()], Encoding::Utf8)),
            ("doc_id", ids(&["a".into()], Encoding::Utf8)),
            ("score", Arc::new(Float64Array::from(vec![1.0])) as ArrayRef),
            ("score", Arc::new(Float64Array::from(vec![2.0])) as ArrayRef),
        ])
        .unwrap();
        let err = evaluate_tables(&qrels, &[twice], OPTS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("2 columns named 'score'"), "{err}");
    }
}
