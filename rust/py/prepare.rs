//! Judgments and rankings given as Python objects (dicts, lists, sets) read into the core's
//! input form (`ragmeter_core::prepare`), batch by batch, while the pool prepares the batch
//! read before (`crate::pipeline`).

use std::ops::Range;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};
use ragmeter_core::csr::RowsBuf;
use ragmeter_core::prepare::{
    Doc, Duplicates, Found, Prepared, QueryInput, RankingInput, RankingOptions, SubtopicGrade,
    canonical_bits, prepare_serial,
};
use rustc_hash::FxHashMap;

use crate::borrowed::{exact_float, exact_number, for_each_item, next_item};
use crate::error::{QueryNamer, invalid_input, to_pyerr, type_error};
use crate::pipeline::{Batch as PipelineBatch, pipelined};
use crate::ranking::PreparedRankings;

/// numpy's bool scalar (`np.True_`), which converts to a float as 1.0 like a bool.
fn is_numpy_bool(value: &Bound<'_, PyAny>) -> bool {
    let ty = value.get_type();
    ty.module().is_ok_and(|m| m == "numpy") && ty.name().is_ok_and(|n| n == "bool" || n == "bool_")
}

/// The size of an int for messages: its digits, or its bits when it has too many digits to
/// print (Python refuses to print ints of more than 4300 digits).
fn int_size(value: &Bound<'_, PyAny>) -> String {
    match value.str() {
        Ok(text) if text.len().is_ok_and(|n| n <= 40) => format!("value {text}"),
        Ok(text) => format!("{} digits", text.len().unwrap_or(0)),
        Err(_) => {
            let bits = value
                .call_method0("bit_length")
                .and_then(|b| b.extract::<u64>())
                .unwrap_or(0);
            format!("{bits} bits")
        }
    }
}

/// Whether `id` is an exact str or int (of `kind`), whose equality is that of its text.
fn is_exact(id: &Bound<'_, PyAny>, kind: IdKind) -> bool {
    match kind {
        IdKind::Str => id.is_exact_instance_of::<PyString>(),
        IdKind::Int => id.is_exact_instance_of::<PyInt>(),
    }
}

/// Names queries by the repr of the user's query ids.
struct ByQueryId<'a, 'py> {
    ids: &'a Bound<'py, PyList>,
}

impl QueryNamer for ByQueryId<'_, '_> {
    fn name(&self, query: usize) -> String {
        self.ids
            .get_item(query)
            .and_then(|id| id.repr().map(|r| r.to_string()))
            .unwrap_or_else(|_| format!("at position {query}"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IdKind {
    Str,
    Int,
}

impl IdKind {
    fn name(self) -> &'static str {
        match self {
            IdKind::Str => "str",
            IdKind::Int => "int",
        }
    }
}

/// Documents of a batch of queries, copied out of the Python objects so the kernels can run
/// without the GIL. Ids are stored as byte ranges into `bytes` (UTF-8 for str ids, decimal
/// text for int ids); a `{doc_id: score}` ranking is read in the joined form of
/// `ragmeter_core::prepare`, which copies only the ids the ranks depend on.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    judged: Vec<(usize, usize, f64)>,
    ordered: Vec<(usize, usize)>,
    scores: Vec<f64>,
    found: Vec<(usize, usize, f64, f64)>,
    tied: Vec<(usize, usize, f64)>,
    queries: Vec<Slots>,
    /// The lengths of the vectors above before each query, and after the last.
    marks: Vec<Marks>,
    /// Diversity judgments by query, once the judgments are known to be of that form.
    subtopics: RowsBuf<SubtopicGrade>,
    /// Whether `subtopics` holds a row for every query (the judgments are diversity ones).
    diversity: bool,
    /// Position of the batch's first query among all queries.
    first_query: usize,
    /// Where each part of the batch starts (query positions within the batch), and its end.
    part_starts: Vec<usize>,
}

#[derive(Clone, Copy, Default)]
struct Marks {
    judged: usize,
    ordered: usize,
    scores: usize,
    found: usize,
    tied: usize,
}

enum RankingSlots {
    Ordered(Range<usize>),
    Joined {
        scores: Range<usize>,
        found: Range<usize>,
        tied: Range<usize>,
    },
}

struct Slots {
    judged: Range<usize>,
    ranking: RankingSlots,
}

impl Batch {
    /// An empty batch starting at query `first_query`, in the buffers of `done` (a batch whose
    /// work is over) when there is one: they keep their capacity.
    fn reuse(done: Option<Batch>, first_query: usize) -> Self {
        let mut batch = done.unwrap_or_default();
        batch.bytes.clear();
        batch.judged.clear();
        batch.ordered.clear();
        batch.scores.clear();
        batch.found.clear();
        batch.tied.clear();
        batch.queries.clear();
        batch.marks.clear();
        batch.marks.push(Marks::default());
        batch.subtopics = RowsBuf::default();
        batch.diversity = false;
        batch.first_query = first_query;
        batch.part_starts.clear();
        batch.part_starts.push(0);
        batch
    }

    fn n_docs(&self) -> usize {
        self.judged.len() + self.ordered.len() + self.scores.len()
    }

    /// Record the end of the query just added, and end a part after `PART_DOCS` documents.
    fn end_query(&mut self) {
        self.marks.push(Marks {
            judged: self.judged.len(),
            ordered: self.ordered.len(),
            scores: self.scores.len(),
            found: self.found.len(),
            tied: self.tied.len(),
        });
        let part_start = self.marks[*self.part_starts.last().unwrap_or(&0)];
        let docs = self.judged.len() + self.ordered.len() + self.scores.len()
            - (part_start.judged + part_start.ordered + part_start.scores);
        if docs >= PART_DOCS {
            self.part_starts.push(self.queries.len());
        }
    }

    /// Close the batch: its last part, and a subtopic row for every query if any has one.
    fn close(&mut self, diversity: bool) {
        if self.part_starts.last() != Some(&self.queries.len()) {
            self.part_starts.push(self.queries.len());
        }
        self.diversity = diversity;
        if diversity {
            while self.subtopics.len() < self.queries.len() {
                self.subtopics.push_row([]);
            }
        }
    }

    fn n_parts(&self) -> usize {
        self.part_starts.len() - 1
    }

    /// Prepare the queries of part `part`.
    fn prepare_part(
        &self,
        part: usize,
        opts: RankingOptions,
    ) -> ragmeter_core::CoreResult<Prepared> {
        let queries = self.part_starts[part]..self.part_starts[part + 1];
        let base = self.first_query + queries.start;
        let mut prepared =
            self.with_inputs(queries.clone(), |inputs| prepare_serial(inputs, opts, base))?;
        if self.diversity {
            let view = self.subtopics.view();
            let mut rows = RowsBuf::default();
            for q in queries {
                rows.push_row(view.row(q).iter().copied());
            }
            prepared.subtopics = Some(rows);
        }
        Ok(prepared)
    }

    /// Run `f` over the queries `queries` of the batch in the core's form (slices into the
    /// batch).
    fn with_inputs<T>(&self, queries: Range<usize>, f: impl FnOnce(&[QueryInput<'_>]) -> T) -> T {
        let (lo, hi) = (self.marks[queries.start], self.marks[queries.end]);
        let id = |s: usize, e: usize| &self.bytes[s..e];
        let judged: Vec<Doc<'_>> = self.judged[lo.judged..hi.judged]
            .iter()
            .map(|&(s, e, g)| (id(s, e), g))
            .collect();
        let ordered: Vec<&[u8]> = self.ordered[lo.ordered..hi.ordered]
            .iter()
            .map(|&(s, e)| id(s, e))
            .collect();
        let found: Vec<Found<'_>> = self.found[lo.found..hi.found]
            .iter()
            .map(|&(s, e, score, grade)| Found {
                id: id(s, e),
                score,
                grade,
            })
            .collect();
        let tied: Vec<Doc<'_>> = self.tied[lo.tied..hi.tied]
            .iter()
            .map(|&(s, e, score)| (id(s, e), score))
            .collect();
        let shift = |r: &Range<usize>, by: usize| r.start - by..r.end - by;
        let inputs: Vec<QueryInput<'_>> = self.queries[queries]
            .iter()
            .map(|slots| QueryInput {
                judged: &judged[shift(&slots.judged, lo.judged)],
                ranking: match &slots.ranking {
                    RankingSlots::Ordered(r) => {
                        RankingInput::Ordered(&ordered[shift(r, lo.ordered)])
                    }
                    RankingSlots::Joined {
                        scores,
                        found: f,
                        tied: t,
                    } => RankingInput::Joined {
                        scores: &self.scores[scores.clone()],
                        found: &found[shift(f, lo.found)],
                        tied: &tied[shift(t, lo.tied)],
                    },
                },
            })
            .collect();
        f(&inputs)
    }
}

/// A one-hash Bloom filter of scores with 4096 bits: with the few dozen scores of a query's
/// found documents, about 1% of other scores pass it, so the branch on it is predictable (a
/// 64-bit filter let about half through and cost more than the hash lookups it saved).
struct ScoreFilter([u64; 64]);

impl ScoreFilter {
    fn new(scores: impl Iterator<Item = u64>) -> Self {
        let mut filter = ScoreFilter([0; 64]);
        for bits in scores {
            let (word, bit) = Self::slot(bits);
            filter.0[word] |= bit;
        }
        filter
    }

    /// Fibonacci hashing of the score's bits: the top 12 bits pick one of 4096.
    fn slot(bits: u64) -> (usize, u64) {
        let h = bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52;
        ((h >> 6) as usize, 1 << (h & 63))
    }

    fn may_contain(&self, bits: u64) -> bool {
        let (word, bit) = Self::slot(bits);
        self.0[word] & bit != 0
    }
}

struct Extractor<'a, 'py> {
    names: ByQueryId<'a, 'py>,
    id_kind: Option<IdKind>,
    /// Keep every judged document found in a ranking, not only those with a positive grade.
    all_judged: bool,
    /// Whether the judgments are diversity judgments `{doc_id: {subtopic: grade}}` (None until
    /// a query with judgments says).
    diversity: Option<bool>,
    /// Tables of `join_run`, kept from query to query (no allocation per query).
    tie_scores: Vec<u64>,
    tie_counts: Vec<usize>,
}

/// Judged documents as `judged_items` reads them: the id, its kind and the grade.
type JudgedItems<'py> = Vec<(Bound<'py, PyAny>, IdKind, f64)>;

impl<'py> Extractor<'_, 'py> {
    fn fail_type(&self, query: usize, message: String) -> PyErr {
        type_error(format!("query {}: {message}", self.names.name(query)))
    }

    fn fail_value(&self, query: usize, message: String) -> PyErr {
        invalid_input(format!("query {}: {message}", self.names.name(query)))
    }

    /// Check that `id` is a str or an int of the same kind as every id before it.
    fn check_id(&mut self, query: usize, id: &Bound<'py, PyAny>) -> PyResult<IdKind> {
        // Exact types first: a pointer comparison, no call into the interpreter.
        let kind = if id.is_exact_instance_of::<PyString>() || id.is_instance_of::<PyString>() {
            IdKind::Str
        } else if id.is_instance_of::<PyInt>() && !id.is_instance_of::<PyBool>() {
            IdKind::Int
        } else {
            let type_name = id.get_type().name()?;
            return Err(self.fail_type(
                query,
                format!(
                    "document ids must be str or int, got {} of type {type_name}; convert them \
                     first (int(doc_id) for a numpy integer, str(doc_id) otherwise)",
                    id.repr()?
                ),
            ));
        };
        match self.id_kind {
            Some(seen) if seen == kind => {}
            None => self.id_kind = Some(kind),
            Some(seen) => {
                return Err(self.fail_type(
                    query,
                    format!(
                        "document id {} is {} but earlier ids are {}: use one id type per evaluation \
                         (\"1\" and 1 would never match)",
                        id.repr()?,
                        kind.name(),
                        seen.name()
                    ),
                ));
            }
        }
        Ok(kind)
    }

    /// Append the bytes of a checked id to the batch; return its byte range.
    fn push_id(
        &self,
        query: usize,
        id: &Bound<'py, PyAny>,
        kind: IdKind,
        bytes: &mut Vec<u8>,
    ) -> PyResult<(usize, usize)> {
        let start = bytes.len();
        match kind {
            IdKind::Str => {
                let text = id.cast::<PyString>()?.to_str().map_err(|_| {
                    self.fail_value(
                        query,
                        format!(
                            "document id {} is not valid Unicode (it holds a lone surrogate); \
                             ids must encode as UTF-8",
                            id.repr().map(|r| r.to_string()).unwrap_or_default()
                        ),
                    )
                })?;
                bytes.extend_from_slice(text.as_bytes())
            }
            IdKind::Int => {
                let n: i64 = id.extract().map_err(|_| {
                    self.fail_value(query, format!("document id {id} does not fit in 64 bits"))
                })?;
                bytes.extend_from_slice(n.to_string().as_bytes());
            }
        }
        Ok((start, bytes.len()))
    }

    fn number(
        &self,
        query: usize,
        id: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
        what: &str,
    ) -> PyResult<f64> {
        // Exact floats and ints (the common grades and scores) are read without a call into
        // Python code.
        let x = if let Some(x) = exact_number(value) {
            x
        } else if let Ok(f) = value.cast::<PyFloat>() {
            f.value()
        } else if value.is_instance_of::<PyBool>() || is_numpy_bool(value) {
            return Err(self.fail_type(
                query,
                format!(
                    "the {what} of document {} is a bool ({}); {what}s must be numbers: pass 1 \
                     or 0 if that is what you mean",
                    id.repr().map(|r| r.to_string()).unwrap_or_default(),
                    value.repr().map(|r| r.to_string()).unwrap_or_default()
                ),
            ));
        } else if value.is_instance_of::<PyInt>() {
            // An int that does not fit in a float (beyond about 1.8e308).
            value.extract::<f64>().map_err(|_| {
                self.fail_value(
                    query,
                    format!(
                        "the {what} of document {} is an int of {}, too large for a 64-bit \
                         float (at most about 1.8e308): give it as a float, or scale the {what}s",
                        id.repr().map(|r| r.to_string()).unwrap_or_default(),
                        int_size(value)
                    ),
                )
            })?
        } else {
            value.extract::<f64>().map_err(|_| {
                let type_name = value
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                self.fail_type(
                    query,
                    format!(
                        "the {what} of document {} must be a number, got {} of type {type_name}",
                        id.repr().map(|r| r.to_string()).unwrap_or_default(),
                        value.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                )
            })?
        };
        if x.is_nan() || (what == "grade" && x.is_infinite()) {
            return Err(self.fail_value(
                query,
                format!(
                    "the {what} of document {} is {}; {what}s must be {}",
                    id.repr()?,
                    if x.is_nan() {
                        "NaN".to_string()
                    } else {
                        x.to_string()
                    },
                    if what == "grade" {
                        "finite numbers"
                    } else {
                        "numbers (not NaN)"
                    }
                ),
            ));
        }
        Ok(x)
    }

    /// The (id, id kind, grade) triples of one query's judgments, ids checked.
    fn judged_items(
        &mut self,
        query: usize,
        obj: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<(Bound<'py, PyAny>, IdKind, f64)>> {
        if let Ok(dict) = obj.cast::<PyDict>() {
            let mut items = Vec::with_capacity(dict.len());
            for_each_item(dict, |id, grade| {
                // The common case on borrowed items, without running Python code: an id of the
                // expected exact type and an exact int or float grade that is finite.
                let fast_kind = match self.id_kind {
                    Some(IdKind::Str) if id.is_exact_instance_of::<PyString>() => Some(IdKind::Str),
                    Some(IdKind::Int) if id.is_exact_instance_of::<PyInt>() => Some(IdKind::Int),
                    _ => None,
                };
                let id = id.to_owned();
                let item = match (fast_kind, exact_number(&grade)) {
                    (Some(kind), Some(grade)) if grade.is_finite() => (id, kind, grade),
                    _ => {
                        let grade = grade.to_owned();
                        let kind = self.check_id(query, &id)?;
                        let grade = self.number(query, &id, &grade, "grade")?;
                        (id, kind, grade)
                    }
                };
                items.push(item);
                Ok(())
            })?;
            return Ok(items);
        }
        let is_set = obj.is_instance_of::<PySet>() || obj.is_instance_of::<PyFrozenSet>();
        if !(is_set || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
            return Err(self.fail_type(
                query,
                format!(
                    "judgments must be a dict {{doc_id: grade}} or a list, tuple or set of relevant doc ids, got {}",
                    obj.get_type().name()?
                ),
            ));
        }
        let distinct = PySet::empty(obj.py())?;
        let mut items = Vec::new();
        for id in obj.try_iter()? {
            let id = id?;
            let kind = self.check_id(query, &id)?;
            if !is_set {
                if distinct.contains(&id)? {
                    return Err(
                        self.fail_value(query, format!("document {} is judged twice", id.repr()?))
                    );
                }
                distinct.add(&id)?;
            }
            items.push((id, kind, 1.0));
        }
        Ok(items)
    }

    /// Diversity judgments `{doc_id: {subtopic: grade}}` of one query: the judged documents
    /// sorted by id (byte-wise), each with 1 + its index as grade (see `Prepared::subtopics`),
    /// and their grades by subtopic, subtopics numbered in order of appearance.
    fn subtopic_items(
        &mut self,
        query: usize,
        dict: &Bound<'py, PyDict>,
    ) -> PyResult<(JudgedItems<'py>, Vec<SubtopicGrade>)> {
        type Doc<'py> = (Vec<u8>, Bound<'py, PyAny>, IdKind, Vec<(u32, f64)>);
        let mut docs: Vec<Doc<'py>> = Vec::with_capacity(dict.len());
        let mut numbers: FxHashMap<(bool, Vec<u8>), u32> = FxHashMap::default();
        for (id, value) in dict.iter() {
            let kind = self.check_id(query, &id)?;
            let Ok(grades) = value.cast::<PyDict>() else {
                return Err(self.fail_type(
                    query,
                    format!(
                        "the judgment of document {} is {} of type {}, but other documents have \
                         diversity judgments {{subtopic: grade}}: judge every document by subtopic",
                        id.repr()?,
                        value.repr()?,
                        value.get_type().name()?
                    ),
                ));
            };
            let mut id_bytes = Vec::new();
            self.push_id(query, &id, kind, &mut id_bytes)?;
            let mut grades_by_subtopic = Vec::with_capacity(grades.len());
            for (subtopic, grade) in grades.iter() {
                let key = if let Ok(text) = subtopic.cast::<PyString>() {
                    (true, text.to_str()?.as_bytes().to_vec())
                } else if subtopic.is_instance_of::<PyInt>() && !subtopic.is_instance_of::<PyBool>()
                {
                    (false, subtopic.str()?.to_str()?.as_bytes().to_vec())
                } else {
                    return Err(self.fail_type(
                        query,
                        format!(
                            "document {}: subtopic ids must be str or int, got {} of type {}",
                            id.repr()?,
                            subtopic.repr()?,
                            subtopic.get_type().name()?
                        ),
                    ));
                };
                let grade = self.number(query, &id, &grade, "grade")?;
                let next = u32::try_from(numbers.len())
                    .map_err(|_| self.fail_value(query, "too many subtopics".to_string()))?;
                let number = *numbers.entry(key).or_insert(next);
                grades_by_subtopic.push((number, grade));
            }
            docs.push((id_bytes, id, kind, grades_by_subtopic));
        }
        docs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut items = Vec::with_capacity(docs.len());
        let mut grades = Vec::new();
        for (index, (_, id, kind, by_subtopic)) in docs.into_iter().enumerate() {
            let doc = u32::try_from(index)
                .map_err(|_| self.fail_value(query, "too many judged documents".to_string()))?;
            items.push((id, kind, f64::from(doc) + 1.0));
            grades.extend(
                by_subtopic
                    .into_iter()
                    .map(|(subtopic, grade)| SubtopicGrade {
                        doc,
                        subtopic,
                        grade,
                    }),
            );
        }
        Ok((items, grades))
    }

    /// Whether a document other than the found ones has the score of a found one, for many
    /// found documents: their scores in a sorted vector and a Bloom filter, one pass over the
    /// scores (the vectors are kept from query to query, no map per query).
    fn tied_by_filter(&mut self, found: &[(usize, usize, f64, f64)], scores: &[f64]) -> bool {
        let mut expected = std::mem::take(&mut self.tie_scores);
        expected.clear();
        expected.extend(found.iter().map(|f| canonical_bits(f.2)));
        expected.sort_unstable();
        let mut counts = std::mem::take(&mut self.tie_counts);
        counts.clear();
        counts.resize(expected.len(), 0usize);
        let filter = ScoreFilter::new(expected.iter().copied());
        for &s in scores {
            let bits = canonical_bits(s);
            if filter.may_contain(bits)
                && let Ok(i) = expected.binary_search(&bits)
            {
                counts[i] += 1;
            }
        }
        // Each found score was seen once per found document with it (the equal entries of
        // `expected` share the count of the first): any more is another document.
        let mut others = false;
        let mut i = 0;
        while i < expected.len() {
            let group = expected[i..]
                .iter()
                .take_while(|&&b| b == expected[i])
                .count();
            let seen: usize = counts[i..i + group].iter().sum();
            others |= seen != group;
            i += group;
        }
        self.tie_scores = expected;
        self.tie_counts = counts;
        others
    }

    /// Read a `{doc_id: score}` ranking in the joined form: one pass over the dict for the
    /// scores, then the judged documents whose ranks are kept (those with a positive grade, or
    /// all of them) looked up in it.
    ///
    /// The lookups come after the pass, when the dict's entries and keys are in the cache:
    /// each costs about one cache miss (its slot in the dict's index), where hashing every
    /// ranked id to find the judged ones cost a call per ranked document. Ids are copied only
    /// for the found documents, and for other documents with exactly the score of a found one
    /// (rare; a second pass finds them).
    fn join_run(
        &mut self,
        query: usize,
        judged_items: &[(Bound<'py, PyAny>, IdKind, f64)],
        run: &Bound<'py, PyDict>,
        batch: &mut Batch,
    ) -> PyResult<RankingSlots> {
        batch
            .judged
            .extend(judged_items.iter().map(|(_, _, grade)| (0, 0, *grade)));
        let found_start = batch.found.len();
        let scores_start = batch.scores.len();
        batch.scores.reserve(run.len());
        let expected = self.id_kind;
        for_each_item(run, |id, score| {
            // The common case on borrowed items: an id of the expected exact type and a float
            // score, read without running Python code. Anything else takes the owned path.
            let fast = match expected {
                Some(IdKind::Str) if id.is_exact_instance_of::<PyString>() => exact_float(&score),
                Some(IdKind::Int) if id.is_exact_instance_of::<PyInt>() => exact_float(&score),
                _ => None,
            };
            let score = match fast {
                Some(score) if !score.is_nan() => score,
                _ => {
                    let (id, score) = (id.to_owned(), score.to_owned());
                    self.check_id(query, &id)?;
                    self.number(query, &id, &score, "score")?
                }
            };
            batch.scores.push(score);
            Ok(())
        })?;
        // A found document's id is copied from the judged id, which has the text of the run's
        // key when both are exact strs or ints; a judged id of another type (a str subclass
        // with its own __eq__) may equal a key of another text, so a query with such ids finds
        // its documents by comparing them with every key instead.
        let mut exact_ids = true;
        for (id, kind, grade) in judged_items {
            if !(*grade > 0.0 || self.all_judged) {
                continue;
            }
            if !is_exact(id, *kind) {
                exact_ids = false;
                break;
            }
            // Python's own lookup: the ids match as dict keys match.
            let Some(score) = run.get_item(id)? else {
                continue;
            };
            let score = match exact_number(&score) {
                Some(score) if !score.is_nan() => score,
                _ => self.number(query, id, &score, "score")?,
            };
            let (s, e) = self.push_id(query, id, *kind, &mut batch.bytes)?;
            batch.found.push((s, e, score, *grade));
        }
        if !exact_ids {
            batch.found.truncate(found_start);
            for_each_item(run, |key, score| {
                let (key, score) = (key.to_owned(), score.to_owned());
                for (id, _, grade) in judged_items {
                    if (*grade > 0.0 || self.all_judged) && key.eq(id)? {
                        let kind = self.check_id(query, &key)?;
                        let score = self.number(query, &key, &score, "score")?;
                        let (s, e) = self.push_id(query, &key, kind, &mut batch.bytes)?;
                        batch.found.push((s, e, score, *grade));
                    }
                }
                Ok(())
            })?;
        }

        // Documents tied with a found document: counted over the scores, then (only if some
        // other document has such a score) read in a second pass.
        let tied_start = batch.tied.len();
        let found = &batch.found[found_start..];
        if !found.is_empty() {
            let scores = &batch.scores[scores_start..];
            let others = if found.len() <= COUNT_TIES_UP_TO {
                // A few found documents: one branch-free (vectorised) count of equal scores each.
                // (`==` is the ranking's equality: -0.0 and 0.0 tie.)
                found.iter().any(|f| {
                    let in_found = found.iter().filter(|g| g.2 == f.2).count();
                    let in_run: usize = scores.iter().map(|&s| usize::from(s == f.2)).sum();
                    in_run != in_found
                })
            } else {
                self.tied_by_filter(found, scores)
            };
            if !others {
                // No other document has the score of a found one: only found documents can
                // tie with each other.
                for &(s, e, score, _) in &batch.found[found_start..] {
                    batch.tied.push((s, e, score));
                }
            } else {
                let mut expected = std::mem::take(&mut self.tie_scores);
                expected.clear();
                expected.extend(found.iter().map(|f| canonical_bits(f.2)));
                expected.sort_unstable();
                for_each_item(run, |id, score| {
                    let (id, score) = (id.to_owned(), score.to_owned());
                    let kind = self.check_id(query, &id)?;
                    let score = self.number(query, &id, &score, "score")?;
                    if expected.binary_search(&canonical_bits(score)).is_ok() {
                        let (s, e) = self.push_id(query, &id, kind, &mut batch.bytes)?;
                        batch.tied.push((s, e, score));
                    }
                    Ok(())
                })?;
                self.tie_scores = expected;
            }
        }
        Ok(RankingSlots::Joined {
            scores: scores_start..batch.scores.len(),
            found: found_start..batch.found.len(),
            tied: tied_start..batch.tied.len(),
        })
    }

    fn add_query(
        &mut self,
        query: usize,
        judged: &Bound<'py, PyAny>,
        ranking: &Bound<'py, PyAny>,
        batch: &mut Batch,
    ) -> PyResult<()> {
        let judged_dict = judged.cast::<PyDict>().ok();
        let diversity = match judged_dict.and_then(|d| d.iter().next()) {
            Some((_, value)) => Some(value.is_instance_of::<PyDict>()),
            // Empty judgments, or a collection of relevant ids (plain judgments).
            None if judged_dict.is_some() => None,
            None => Some(false),
        };
        match (self.diversity, diversity) {
            (Some(seen), Some(now)) if seen != now => {
                let form = |d: bool| {
                    if d {
                        "diversity judgments {doc_id: {subtopic: grade}}"
                    } else {
                        "{doc_id: grade} (or relevant ids)"
                    }
                };
                return Err(self.fail_type(
                    query,
                    format!(
                        "its judgments are {} but earlier queries' are {}: give every query \
                         judgments of one form",
                        form(now),
                        form(seen)
                    ),
                ));
            }
            (None, Some(now)) => self.diversity = Some(now),
            _ => {}
        }
        let judged_items = match (self.diversity, judged_dict) {
            (Some(true), Some(dict)) => {
                let (items, grades) = self.subtopic_items(query, dict)?;
                // Queries of this batch read before the form was known had no judgments.
                while batch.subtopics.len() < batch.queries.len() {
                    batch.subtopics.push_row([]);
                }
                batch.subtopics.push_row(grades);
                items
            }
            _ => self.judged_items(query, judged)?,
        };
        let judged_start = batch.judged.len();
        let ranking_slots = if let Ok(run) = ranking.cast::<PyDict>() {
            self.join_run(query, &judged_items, run, batch)?
        } else if ranking.is_instance_of::<PyList>() || ranking.is_instance_of::<PyTuple>() {
            for (id, kind, grade) in &judged_items {
                let (s, e) = self.push_id(query, id, *kind, &mut batch.bytes)?;
                batch.judged.push((s, e, *grade));
            }
            let start = batch.ordered.len();
            for id in ranking.try_iter()? {
                let id = id?;
                let kind = self.check_id(query, &id)?;
                let range = self.push_id(query, &id, kind, &mut batch.bytes)?;
                batch.ordered.push(range);
            }
            RankingSlots::Ordered(start..batch.ordered.len())
        } else {
            return Err(self.fail_type(
                query,
                format!(
                    "a ranking must be a list or tuple of doc ids (best first) or a dict {{doc_id: score}}, got {}",
                    ranking.get_type().name()?
                ),
            ));
        };
        batch.queries.push(Slots {
            judged: judged_start..batch.judged.len(),
            ranking: ranking_slots,
        });
        Ok(())
    }
}

/// Up to this many found documents in a ranking, the check for other documents tied with them
/// counts equal scores once per found document (branch-free, vectorised); beyond it, one pass
/// with a Bloom filter of their scores.
const COUNT_TIES_UP_TO: usize = 16;

/// Documents per batch: bounds the memory of the copied ids, keeps batches large enough for
/// the threads, and small enough that little of the pool's work is left when reading ends.
const BATCH_DOCS: usize = 1 << 18;

/// Documents per part of a batch (the unit of work one thread takes at a time).
const PART_DOCS: usize = 1 << 13;

/// A call with fewer documents in all is prepared on the calling thread (a hand-off to the pool
/// costs more).
const INLINE_DOCS: usize = 4096;

/// The core's ranking options from the bindings' arguments (`duplicates_first`: keep the first
/// of a repeated document rather than refuse it).
pub(crate) fn ranking_options(
    duplicates_first: bool,
    max_docs: Option<usize>,
    all_judged: bool,
    ties: bool,
) -> RankingOptions {
    RankingOptions {
        duplicates: if duplicates_first {
            Duplicates::KeepFirst
        } else {
            Duplicates::Raise
        },
        max_docs,
        all_judged,
        ties,
    }
}

/// Refuse a query id that is not a str or an int of at most 64 bits (as document ids): other
/// keys (None, floats, tuples) would be evaluated but could not be ordered as trec_eval orders
/// topics, nor written to a TREC file, nor compared with another run's.
fn check_query_id(id: &Bound<'_, PyAny>) -> PyResult<()> {
    if id.is_instance_of::<PyString>() {
        return Ok(());
    }
    let text = || {
        id.repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| format!("(an int of {})", int_size(id)))
    };
    if id.is_instance_of::<PyInt>() && !id.is_instance_of::<PyBool>() {
        return match id.extract::<i64>() {
            Ok(_) => Ok(()),
            Err(_) => Err(invalid_input(format!(
                "y_true: the query id {} does not fit in 64 bits; query ids must be str or \
                 int of at most 64 bits: use str ids",
                text()
            ))),
        };
    }
    Err(type_error(format!(
        "y_true: query ids must be str or int, got {} of type {}: convert them (str(query_id), \
         or int(query_id) for a numpy integer)",
        text(),
        id.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    )))
}

/// Where the judgments and the ranking of each query come from.
enum QuerySource<'a, 'py> {
    /// Lists aligned with the query ids.
    Aligned {
        judgments: &'a Bound<'py, PyList>,
        rankings: &'a Bound<'py, PyList>,
    },
    /// The judgments and rankings dicts themselves, paired in order: the i-th keys of both
    /// must be the same query, and the values of types the core reads as they are.
    InOrder {
        judgments: &'a Bound<'py, PyDict>,
        rankings: &'a Bound<'py, PyDict>,
        positions: (pyo3::ffi::Py_ssize_t, pyo3::ffi::Py_ssize_t),
    },
}

impl<'py> QuerySource<'_, 'py> {
    /// The judgments and ranking of query `q` (queries are asked for in order); None when the
    /// dicts are not paired in order at this query (or hold a value the core does not read).
    fn get(&mut self, q: usize) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
        match self {
            QuerySource::Aligned {
                judgments,
                rankings,
            } => Ok(Some((judgments.get_item(q)?, rankings.get_item(q)?))),
            QuerySource::InOrder {
                judgments,
                rankings,
                positions,
            } => {
                let (Some((judged_key, judged)), Some((ranked_key, ranking))) = (
                    next_item(judgments, &mut positions.0),
                    next_item(rankings, &mut positions.1),
                ) else {
                    return Ok(None);
                };
                // As `==` compares two lists of keys: identity first.
                let same = judged_key.is(&ranked_key) || judged_key.eq(&ranked_key)?;
                let readable = judged.is_exact_instance_of::<PyDict>()
                    || judged.is_exact_instance_of::<PyList>()
                    || judged.is_exact_instance_of::<PyTuple>()
                    || judged.is_exact_instance_of::<PySet>()
                    || judged.is_exact_instance_of::<PyFrozenSet>();
                let ranked = ranking.is_exact_instance_of::<PyDict>()
                    || ranking.is_exact_instance_of::<PyList>()
                    || ranking.is_exact_instance_of::<PyTuple>();
                Ok((same && readable && ranked).then_some((judged, ranking)))
            }
        }
    }
}

/// Convert aligned per-query judgments and rankings (Python objects) into `PreparedRankings`.
#[pyfunction]
#[pyo3(signature = (query_ids, judgments, rankings, *, duplicates_first=false, max_docs=None, all_judged=false, ties=false, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn prepare_rankings<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
    judgments: &Bound<'py, PyList>,
    rankings: &Bound<'py, PyList>,
    duplicates_first: bool,
    max_docs: Option<usize>,
    all_judged: bool,
    ties: bool,
    n_threads: Option<usize>,
) -> PyResult<PreparedRankings> {
    let n = query_ids.len();
    if judgments.len() != n || rankings.len() != n {
        return Err(invalid_input(format!(
            "internal: {n} query ids, {} judgments and {} rankings",
            judgments.len(),
            rankings.len()
        )));
    }
    let source = QuerySource::Aligned {
        judgments,
        rankings,
    };
    let opts = ranking_options(duplicates_first, max_docs, all_judged, ties);
    let prepared = prepare_from(py, query_ids, source, opts, n_threads)?;
    prepared.ok_or_else(|| invalid_input("internal: aligned queries were not read".to_string()))
}

/// `prepare_rankings` on two dicts `{query_id: judgments}` and `{query_id: ranking}` that list
/// the same queries in the same order (`query_ids`, the keys of `judgments`), paired here
/// without building aligned lists first; None when they do not (other queries, another order,
/// a value to convert first), for the caller to align them.
#[pyfunction]
#[pyo3(signature = (query_ids, judgments, rankings, *, duplicates_first=false, max_docs=None, all_judged=false, ties=false, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn prepare_rankings_in_order<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
    judgments: &Bound<'py, PyDict>,
    rankings: &Bound<'py, PyDict>,
    duplicates_first: bool,
    max_docs: Option<usize>,
    all_judged: bool,
    ties: bool,
    n_threads: Option<usize>,
) -> PyResult<Option<PreparedRankings>> {
    let n = query_ids.len();
    if judgments.len() != n || rankings.len() != n {
        return Ok(None);
    }
    let source = QuerySource::InOrder {
        judgments,
        rankings,
        positions: (0, 0),
    };
    let opts = ranking_options(duplicates_first, max_docs, all_judged, ties);
    prepare_from(py, query_ids, source, opts, n_threads)
}

/// Read the queries of `source` batch by batch while the pool prepares them (None: the source
/// said its dicts are not paired in order).
fn prepare_from<'py>(
    py: Python<'py>,
    query_ids: &Bound<'py, PyList>,
    mut source: QuerySource<'_, 'py>,
    opts: RankingOptions,
    n_threads: Option<usize>,
) -> PyResult<Option<PreparedRankings>> {
    let n = query_ids.len();
    let mut extractor = Extractor {
        names: ByQueryId { ids: query_ids },
        id_kind: None,
        all_judged: opts.all_judged,
        diversity: None,
        tie_scores: Vec::new(),
        tie_counts: Vec::new(),
    };
    let names = ByQueryId { ids: query_ids };
    let mut parts = Vec::new();
    let mut start = 0;
    let mut unpaired = false;
    let read = |done: Option<Batch>| -> PyResult<Option<PipelineBatch<Batch>>> {
        if start >= n || unpaired {
            return Ok(None);
        }
        let mut batch = Batch::reuse(done, start);
        let mut end = start;
        while end < n && batch.n_docs() < BATCH_DOCS {
            check_query_id(&query_ids.get_item(end)?)?;
            let Some((judged, ranking)) = source.get(end)? else {
                unpaired = true;
                return Ok(None);
            };
            extractor.add_query(end, &judged, &ranking, &mut batch)?;
            batch.end_query();
            end += 1;
        }
        batch.close(extractor.diversity == Some(true));
        let inline = start == 0 && end == n && batch.n_docs() < INLINE_DOCS;
        start = end;
        let parts = batch.n_parts();
        Ok(Some(PipelineBatch {
            input: batch,
            parts,
            inline,
        }))
    };
    pipelined(
        py,
        n_threads,
        read,
        move |batch: &Batch, part| batch.prepare_part(part, opts),
        |part| {
            parts.push(part.map_err(|e| to_pyerr(e, &names))?);
            Ok(())
        },
    )?;
    if unpaired {
        return Ok(None);
    }
    let all = Prepared::concat(parts, opts.all_judged).map_err(|e| to_pyerr(e, &names))?;
    Ok(Some(PreparedRankings::new(all)))
}
