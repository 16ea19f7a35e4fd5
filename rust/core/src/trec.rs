//! TREC run and qrels files, parsed in parallel without copying ids out of the file buffer.
//!
//! qrels lines: `query_id iteration doc_id grade`; run lines:
//! `query_id Q0 doc_id rank score run_tag`. Fields are separated by white space (spaces, tabs,
//! carriage returns: any byte up to the space character); a line
//! whose first non-blank character is `#` is a comment (a `#` inside an id is part of the id,
//! as in trec_eval's own test data), blank lines are skipped, and text after the last field is
//! ignored, as trec_eval ignores it. The rank column of a run is
//! ignored: trec_eval orders by score (see `prepare`).

use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::csr::RowsBuf;
use crate::prepare::{Doc, Prepared, QueryInput, RankingInput, RankingOptions, prepare};
use crate::{CoreError, CoreResult};

/// Documents of a TREC file grouped by query, in order of first appearance of each query.
/// `values` are grades (qrels) or scores (run).
#[derive(Debug, Default)]
pub struct TrecFile<'a> {
    pub query_ids: Vec<&'a [u8]>,
    pub docs: RowsBuf<Doc<'a>>,
    /// For qrels: whether each grade was written as an integer (empty for runs).
    pub integral: Vec<bool>,
}

/// The 1-based line of `field`, a slice of `text` (ids in a `TrecFile` point into the file).
pub fn line_of(text: &[u8], field: &[u8]) -> usize {
    let offset = (field.as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len());
    1 + memchr::memchr_iter(b'\n', &text[..offset]).count()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TrecKind {
    Qrels,
    Run,
}

impl TrecKind {
    fn layout(self) -> &'static str {
        match self {
            TrecKind::Qrels => "query_id iteration doc_id grade",
            TrecKind::Run => "query_id Q0 doc_id rank score run_tag",
        }
    }
    fn n_fields(self) -> usize {
        match self {
            TrecKind::Qrels => 4,
            TrecKind::Run => 6,
        }
    }
}

/// Field separators: every byte up to the space, so tabs, carriage returns and other control
/// characters separate fields (none of them can be part of an id). One comparison per byte.
fn is_separator(b: u8) -> bool {
    b <= b' '
}

const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set where the byte of `word` is at most `limit`
/// (`limit` < 0x80), exactly: adding `0x7F - limit` to the low seven bits carries into bit 7
/// only for bytes above `limit`, and never into the next byte.
fn bytes_at_most(word: u64, limit: u8) -> u64 {
    let add = u64::from(0x7F - limit) * 0x0101_0101_0101_0101;
    !(((word & LOW_SEVEN) + add) | word) & HIGH_BITS
}

/// Bit 7 of each byte set where the byte of `word` equals `value`.
fn bytes_equal(word: u64, value: u8) -> u64 {
    bytes_at_most(word ^ (u64::from(value) * 0x0101_0101_0101_0101), 0)
}

fn word_at(text: &[u8], i: usize) -> Option<u64> {
    text.get(i..i + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map(u64::from_le_bytes)
}

/// The end of the field that starts at `i`: the first separator at or after `i`. Eight bytes
/// at a time: doc ids are long, and this scan is most of the time of reading a run.
fn field_end(text: &[u8], mut i: usize) -> usize {
    while let Some(word) = word_at(text, i) {
        let found = bytes_at_most(word, b' ');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && !is_separator(text[i]) {
        i += 1;
    }
    i
}

/// The first byte at or after `i` that starts a field or ends the line.
fn skip_blanks(text: &[u8], mut i: usize) -> usize {
    while let Some(word) = word_at(text, i) {
        let found = (!bytes_at_most(word, b' ') & HIGH_BITS) | bytes_equal(word, b'\n');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && is_separator(text[i]) && text[i] != b'\n' {
        i += 1;
    }
    i
}

/// The records of one chunk, with queries numbered locally in order of first appearance.
/// `runs` lists the records as runs of one query: (local query, number of records); a file
/// sorted by query has one run per query, so placing the records costs a copy per run.
struct Chunk<'a> {
    queries: Vec<&'a [u8]>,
    runs: Vec<(u32, usize)>,
    docs: Vec<Doc<'a>>,
    integral: Vec<bool>,
}

/// Powers of ten that are exact doubles.
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A plain decimal (`-12.3456`, `7`) read exactly with Clinger's fast path: its digits form
/// an integer below 2^53 and its scale is at most 10^22, so both are exact doubles and one
/// correctly rounded division gives the correctly rounded value. `None` for anything else
/// (exponents, more digits), which the standard parser then reads.
fn parse_plain_decimal(field: &[u8]) -> Option<(f64, bool)> {
    let (negative, digits) = match field.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, field),
    };
    let mut mantissa: u64 = 0;
    let mut n_digits = 0usize;
    let mut scale: Option<usize> = None;
    for &b in digits {
        if b.is_ascii_digit() {
            if n_digits == 18 {
                return None;
            }
            mantissa = mantissa * 10 + u64::from(b - b'0');
            n_digits += 1;
            scale = scale.map(|s| s + 1);
        } else if b == b'.' && scale.is_none() {
            scale = Some(0);
        } else {
            return None;
        }
    }
    let scale = scale.unwrap_or(0);
    if n_digits == 0 || mantissa >= 1 << 53 || scale >= EXACT_POWERS_OF_TEN.len() {
        return None;
    }
    let x = mantissa as f64 / EXACT_POWERS_OF_TEN[scale];
    Some((if negative { -x } else { x }, !digits.contains(&b'.')))
}

/// A number and whether it was written as an integer.
fn parse_number(field: &[u8]) -> Option<(f64, bool)> {
    if let Some(parsed) = parse_plain_decimal(field) {
        return Some(parsed);
    }
    let x = std::str::from_utf8(field).ok()?.parse::<f64>().ok()?;
    (!x.is_nan()).then_some((x, false))
}

/// Split `text` into about `parts` chunks that end at line ends.
fn line_chunks(text: &[u8], parts: usize) -> Vec<&[u8]> {
    let target = (text.len() / parts.max(1)).max(1 << 16);
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = if rest.len() <= target {
            rest.len()
        } else {
            memchr::memchr(b'\n', &rest[target..]).map_or(rest.len(), |i| target + i + 1)
        };
        let (chunk, tail) = rest.split_at(cut);
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// Parse a whole TREC file held in memory.
pub fn parse<'a>(text: &'a [u8], kind: TrecKind, path: &Path) -> CoreResult<TrecFile<'a>> {
    let chunks = line_chunks(text, rayon::current_num_threads() * 4);
    let newlines: Vec<usize> = chunks
        .par_iter()
        .map(|c| memchr::memchr_iter(b'\n', c).count())
        .collect();
    let mut first_line = Vec::with_capacity(chunks.len());
    let mut line = 1usize;
    for n in &newlines {
        first_line.push(line);
        line += n;
    }
    if line > u32::MAX as usize {
        return Err(CoreError::argument(
            "path",
            "files of more than 2^32 lines are not supported",
        ));
    }
    let parsed: Vec<Chunk<'a>> = chunks
        .par_iter()
        .zip(first_line.par_iter())
        .map(|(chunk, &first)| parse_chunk(chunk, first, kind, path))
        .collect::<CoreResult<_>>()?;

    // Number queries globally in order of first appearance, then place each chunk's documents
    // in their query's row (a stable scatter keeps the file order within a query).
    let mut index: FxHashMap<&[u8], u32> = FxHashMap::default();
    let mut query_ids: Vec<&[u8]> = Vec::new();
    let global: Vec<Vec<u32>> = parsed
        .iter()
        .map(|chunk| {
            chunk
                .queries
                .iter()
                .map(|q| {
                    let next = query_ids.len() as u32;
                    let id = *index.entry(q).or_insert(next);
                    if id == next {
                        query_ids.push(q);
                    }
                    id
                })
                .collect()
        })
        .collect();
    let mut counts = vec![0usize; query_ids.len()];
    for (chunk, global) in parsed.iter().zip(&global) {
        for &(local, len) in &chunk.runs {
            counts[global[local as usize] as usize] += len;
        }
    }
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0usize);
    for c in &counts {
        offsets.push(offsets[offsets.len() - 1] + c);
    }
    let total = offsets[offsets.len() - 1];
    let mut cursor: Vec<usize> = offsets[..offsets.len() - 1].to_vec();
    let mut docs: Vec<Doc<'a>> = vec![(&[][..], 0.0); total];
    let keep_integral = kind == TrecKind::Qrels;
    let mut integral = vec![false; if keep_integral { total } else { 0 }];
    for (chunk, global) in parsed.iter().zip(&global) {
        let mut from = 0;
        for &(local, len) in &chunk.runs {
            let slot = &mut cursor[global[local as usize] as usize];
            docs[*slot..*slot + len].copy_from_slice(&chunk.docs[from..from + len]);
            if keep_integral {
                integral[*slot..*slot + len].copy_from_slice(&chunk.integral[from..from + len]);
            }
            *slot += len;
            from += len;
        }
    }
    Ok(TrecFile {
        query_ids,
        docs: RowsBuf {
            offsets,
            values: docs,
        },
        integral,
    })
}

fn parse_chunk<'a>(
    chunk: &'a [u8],
    first_line: usize,
    kind: TrecKind,
    path: &Path,
) -> CoreResult<Chunk<'a>> {
    let estimate = chunk.len() / 40;
    let mut out = Chunk {
        queries: Vec::new(),
        runs: Vec::new(),
        docs: Vec::with_capacity(estimate),
        integral: Vec::new(),
    };
    // Runs are usually sorted by query: check the previous record's query before the map.
    let mut index: FxHashMap<&[u8], u32> = FxHashMap::default();
    let mut last: Option<&[u8]> = None;
    let wanted = kind.n_fields();
    let (value_at, what) = match kind {
        TrecKind::Qrels => (3, "grade"),
        TrecKind::Run => (4, "score"),
    };
    let format_error = |line: usize, message: String| CoreError::Format {
        path: path.to_path_buf(),
        line,
        message,
    };
    // One pass over the bytes finds both the fields and the line ends.
    let n = chunk.len();
    let mut pos = 0;
    let mut line = first_line;
    while pos < n {
        let mut fields: [&[u8]; 6] = [&[]; 6];
        let mut found = 0;
        loop {
            pos = skip_blanks(chunk, pos);
            if pos == n || chunk[pos] == b'\n' {
                break;
            }
            let start = pos;
            pos = field_end(chunk, pos);
            fields[found] = &chunk[start..pos];
            found += 1;
            if found == wanted || fields[0][0] == b'#' {
                // The rest of the line is ignored (trec_eval ignores it too).
                pos = memchr::memchr(b'\n', &chunk[pos..]).map_or(n, |i| pos + i);
                break;
            }
        }
        let this_line = line;
        pos += 1;
        line += 1;
        if found == 0 || fields[0][0] == b'#' {
            continue;
        }
        if found < wanted {
            return Err(format_error(
                this_line,
                format!(
                    "expected {wanted} fields ({}), found {found}",
                    kind.layout()
                ),
            ));
        }
        let (value, integral) = parse_number(fields[value_at]).ok_or_else(|| {
            format_error(
                this_line,
                format!(
                    "the {what} {} is not a number",
                    crate::prepare::show(fields[value_at])
                ),
            )
        })?;
        let query = fields[0];
        match (last, out.runs.last_mut()) {
            (Some(id), Some(run)) if id == query => run.1 += 1,
            _ => {
                let next = out.queries.len() as u32;
                let q = *index.entry(query).or_insert(next);
                if q == next {
                    out.queries.push(query);
                }
                last = Some(query);
                out.runs.push((q, 1));
            }
        }
        out.docs.push((fields[2], value));
        if kind == TrecKind::Qrels {
            out.integral.push(integral);
        }
    }
    Ok(out)
}

/// The bytes of a TREC file: memory-mapped when it is large, read otherwise.
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// Files from this size on are mapped instead of read.
const MAP_FROM_BYTES: u64 = 1 << 20;

/// Open a TREC file (the caller keeps the bytes alive while it uses the parse).
///
/// A large file is memory-mapped: its pages come straight from the page cache, without the
/// copy and the zeroed pages of a read, which cost more than parsing it. The file must not be
/// truncated or rewritten while it is evaluated (as with any memory-mapped input). If it
/// cannot be mapped, it is read.
pub fn read(path: &Path) -> CoreResult<FileBytes> {
    let io_error = |source| CoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let len = file.metadata().map_err(io_error)?.len();
    if len >= MAP_FROM_BYTES
        && let Ok(map) = map_file(&file)
    {
        return Ok(FileBytes::Mapped(map));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(io_error)?;
    Ok(FileBytes::Read(bytes))
}

#[allow(unsafe_code)]
fn map_file(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and lives in `FileBytes`, which the parse borrows. Like
    // every memory-mapped reader, this relies on the file not being truncated or modified
    // while it is read; `read` documents that contract.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(map)
}

/// The run tag (6th field) of the last line of a run file that is not blank or a comment:
/// trec_eval's `runid` ("the run_id field of the last line is kept").
pub fn last_run_tag(text: &[u8]) -> Option<&[u8]> {
    text.split(|&b| b == b'\n' || b == b'\r')
        .rev()
        .map(|line| {
            line.split(|&b| is_separator(b))
                .filter(|field| !field.is_empty())
                .collect::<Vec<_>>()
        })
        .find(|fields| !fields.is_empty() && !fields[0].starts_with(b"#"))
        .and_then(|fields| fields.get(5).copied())
}

/// A qrels file and a run file joined on the judged queries (trec_eval loops over the qrels
/// topics; run topics without judgments are not evaluated).
#[derive(Debug)]
pub struct JoinedTrec<'a> {
    /// Judged query ids, in trec_eval's order: sorted byte-wise (trec_eval sorts the qrels by
    /// query id with strcmp, evaluates and adds up the topics in that order).
    pub query_ids: Vec<&'a [u8]>,
    /// Whether each judged query has a ranking in the run.
    pub in_run: Vec<bool>,
    /// Run queries without judgments, in run order.
    pub run_only: Vec<&'a [u8]>,
    pub prepared: Prepared,
}

pub fn join_and_prepare<'a>(
    qrels: &TrecFile<'a>,
    run: &TrecFile<'a>,
    opts: RankingOptions,
) -> CoreResult<JoinedTrec<'a>> {
    let run_index: FxHashMap<&[u8], usize> = run
        .query_ids
        .iter()
        .enumerate()
        .map(|(i, q)| (*q, i))
        .collect();
    let qrels_ids: rustc_hash::FxHashSet<&[u8]> = qrels.query_ids.iter().copied().collect();
    let judged = qrels.docs.view();
    let ranked = run.docs.view();
    let mut order: Vec<usize> = (0..qrels.query_ids.len()).collect();
    order.sort_unstable_by_key(|&q| qrels.query_ids[q]);
    let query_ids: Vec<&[u8]> = order.iter().map(|&q| qrels.query_ids[q]).collect();
    let in_run: Vec<bool> = query_ids
        .iter()
        .map(|id| run_index.contains_key(id))
        .collect();
    let queries: Vec<QueryInput<'_>> = order
        .iter()
        .map(|&q| QueryInput {
            judged: judged.row(q),
            ranking: RankingInput::Scored(
                run_index
                    .get(qrels.query_ids[q])
                    .map_or(&[][..], |&r| ranked.row(r)),
            ),
        })
        .collect();
    let prepared = prepare(&queries, opts, 0).map_err(|e| match e {
        CoreError::InvalidQuery { query, message, .. } => CoreError::InvalidQuery {
            query,
            query_id: query_ids
                .get(query)
                .map(|q| String::from_utf8_lossy(q).into_owned()),
            message,
        },
        other => other,
    })?;
    Ok(JoinedTrec {
        query_ids,
        in_run,
        run_only: run
            .query_ids
            .iter()
            .copied()
            .filter(|q| !qrels_ids.contains(q))
            .collect(),
        prepared,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::Duplicates;

    fn p() -> &'static Path {
        Path::new("mem.txt")
    }

    #[test]
    fn parses_comments_blank_lines_and_hash_inside_ids() {
        let text = b"# comment\n301 0 CR#93E-1860 1\n\n  # indented comment\n302\t0\td2\t0\r\n301 0 d3 2\n";
        let f = parse(text, TrecKind::Qrels, p()).unwrap();
        assert_eq!(f.query_ids, vec![&b"301"[..], &b"302"[..]]);
        assert_eq!(
            f.docs.view().row(0),
            &[(&b"CR#93E-1860"[..], 1.0), (&b"d3"[..], 2.0)]
        );
        assert_eq!(f.docs.view().row(1), &[(&b"d2"[..], 0.0)]);
        let lines: Vec<usize> = f.docs.values.iter().map(|d| line_of(text, d.0)).collect();
        assert_eq!(lines, vec![2, 6, 5]);
    }

    proptest::proptest! {
        #[test]
        fn plain_decimals_parse_like_std(
            negative in proptest::bool::ANY,
            int in "[0-9]{1,12}",
            frac in proptest::option::of("[0-9]{0,12}"),
        ) {
            let text = format!("{}{int}{}", if negative { "-" } else { "" }, frac.map_or(String::new(), |f| format!(".{f}")));
            let want: f64 = text.parse().unwrap();
            let (got, _) = parse_number(text.as_bytes()).unwrap();
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", text);
        }

        #[test]
        fn any_float_round_trips(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
            for text in [format!("{x}"), format!("{x:e}"), format!("{x:.3}")] {
                let want: f64 = text.parse().unwrap();
                let (got, _) = parse_number(text.as_bytes()).unwrap();
                proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", text);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn word_scans_match_byte_scans(text in proptest::collection::vec(proptest::prop_oneof![
            proptest::num::u8::ANY, proptest::prelude::Just(b' '), proptest::prelude::Just(b'\n'),
            proptest::prelude::Just(b'\t'), proptest::prelude::Just(b'a')], 0..40), start in 0usize..40) {
            let start = start.min(text.len());
            let mut end = start;
            while end < text.len() && !is_separator(text[end]) {
                end += 1;
            }
            proptest::prop_assert_eq!(field_end(&text, start), end);
            let mut next = start;
            while next < text.len() && is_separator(text[next]) && text[next] != b'\n' {
                next += 1;
            }
            proptest::prop_assert_eq!(skip_blanks(&text, start), next);
        }
    }

    /// Text that looks like TREC lines, with every kind of damage: missing and extra fields,
    /// odd numbers, stray separators, comments, invalid UTF-8, no final newline.
    fn trec_like_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let field = prop_oneof![
            Just(b"q1".to_vec()),
            Just(b"q2".to_vec()),
            Just(b"Q0".to_vec()),
            Just(b"0".to_vec()),
            Just(b"d1".to_vec()),
            Just(b"d2".to_vec()),
            Just(b"1".to_vec()),
            Just(b"-1".to_vec()),
            Just(b"0.5".to_vec()),
            Just(b"1e308".to_vec()),
            Just(b"1e999".to_vec()),
            Just(b"nan".to_vec()),
            Just(b"inf".to_vec()),
            Just(b"#".to_vec()),
            Just(b"\xff\xfe".to_vec()),
            proptest::collection::vec(any::<u8>(), 0..6),
        ];
        let separator = prop_oneof![
            Just(b" ".to_vec()),
            Just(b"\t".to_vec()),
            Just(b"  ".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\n".to_vec())
        ];
        let line = proptest::collection::vec((field, separator), 0..8).prop_map(|parts| {
            let mut line: Vec<u8> = parts
                .into_iter()
                .flat_map(|(f, s)| [f, s])
                .flatten()
                .collect();
            line.push(b'\n');
            line
        });
        proptest::collection::vec(line, 0..12).prop_map(|lines| lines.concat())
    }

    /// Mostly well-formed lines of `kind` (so that joining and ranking run too), some damaged.
    fn mostly_valid(kind: TrecKind) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let valid = (
            0u8..3,
            0u8..4,
            -1i8..3,
            prop_oneof![Just(0.5f64), Just(0.25), Just(-0.0), Just(0.0), Just(1e300)],
        )
            .prop_map(move |(q, d, grade, score)| match kind {
                TrecKind::Qrels => format!("q{q} 0 d{d} {grade}\n").into_bytes(),
                TrecKind::Run => format!("q{q} Q0 d{d} 1 {score} r\n").into_bytes(),
            });
        let line = prop_oneof![12 => valid, 1 => trec_like_text()];
        proptest::collection::vec(line, 0..16).prop_map(|lines| lines.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        #[test]
        fn damaged_files_give_errors_never_panics(
            qrels in trec_like_text(),
            run in trec_like_text(),
            cut in 0usize..200,
            keep_first in proptest::bool::ANY,
            max_docs in proptest::option::of(1usize..4),
        ) {
            // Also a file cut anywhere, e.g. in the middle of a line.
            let run = &run[..cut.min(run.len())];
            let qrels = parse(&qrels, TrecKind::Qrels, p());
            let run = parse(run, TrecKind::Run, p());
            if let (Ok(qrels), Ok(run)) = (qrels, run) {
                let duplicates = if keep_first { Duplicates::KeepFirst } else { Duplicates::Raise };
                let opts = RankingOptions { duplicates, max_docs, all_judged: keep_first };
                let _ = join_and_prepare(&qrels, &run, opts);
            }
        }

        #[test]
        fn mostly_valid_files_join_or_give_errors_never_panics(
            qrels in mostly_valid(TrecKind::Qrels),
            run in mostly_valid(TrecKind::Run),
            keep_first in proptest::bool::ANY,
            max_docs in proptest::option::of(1usize..4),
        ) {
            let duplicates = if keep_first { Duplicates::KeepFirst } else { Duplicates::Raise };
            let opts = RankingOptions { duplicates, max_docs, all_judged: !keep_first };
            if let (Ok(qrels), Ok(run)) =
                (parse(&qrels, TrecKind::Qrels, p()), parse(&run, TrecKind::Run, p()))
            {
                let _ = join_and_prepare(&qrels, &run, opts);
            }
        }
    }

    #[test]
    fn integral_grades_are_recognised() {
        assert_eq!(parse_number(b"2"), Some((2.0, true)));
        assert_eq!(parse_number(b"-1"), Some((-1.0, true)));
        assert_eq!(parse_number(b"1.0"), Some((1.0, false)));
        assert_eq!(parse_number(b"1e3"), Some((1000.0, false)));
        assert_eq!(parse_number(b"."), None);
        assert_eq!(parse_number(b"1.2.3"), None);
        assert_eq!(parse_number(b"nan"), None);
    }

    #[test]
    fn reports_line_numbers() {
        let text = b"q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2 abc run\n";
        let err = parse(text, TrecKind::Run, p()).unwrap_err().to_string();
        assert!(
            err.contains("mem.txt:2") && err.contains("'abc' is not a number"),
            "{err}"
        );
        let err = parse(b"q1 0 d1\n", TrecKind::Qrels, p())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mem.txt:1") && err.contains("expected 4 fields"),
            "{err}"
        );
        let err = parse(b"q1 Q0 d1 1 nan run\n", TrecKind::Run, p())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a number"), "{err}");
    }

    #[test]
    fn line_numbers_survive_chunking() {
        let mut text = Vec::new();
        for i in 0..20000 {
            text.extend_from_slice(format!("q{} Q0 d{i} {i} {}.5 run\n", i % 7, i).as_bytes());
        }
        text.extend_from_slice(b"q1 Q0 dx 1 bad run\n");
        let err = parse(&text, TrecKind::Run, p()).unwrap_err().to_string();
        assert!(err.contains("mem.txt:20001"), "{err}");
    }

    #[test]
    fn the_run_tag_is_that_of_the_last_line() {
        let text = b"q1 Q0 d1 1 1.0 first\nq2 Q0 d2 1 1.0 second\n# comment\n\n";
        assert_eq!(last_run_tag(text), Some(&b"second"[..]));
        assert_eq!(last_run_tag(b""), None);
    }

    #[test]
    fn joins_on_judged_queries() {
        let qrels = parse(b"a 0 d1 1\nb 0 d2 1\n", TrecKind::Qrels, p()).unwrap();
        let run = parse(b"c Q0 d9 1 1.0 r\na Q0 d1 1 1.0 r\n", TrecKind::Run, p()).unwrap();
        let opts = RankingOptions {
            duplicates: Duplicates::Raise,
            max_docs: None,
            all_judged: false,
        };
        let joined = join_and_prepare(&qrels, &run, opts).unwrap();
        assert_eq!(joined.query_ids, vec![&b"a"[..], &b"b"[..]]);
        assert_eq!(joined.in_run, vec![true, false]);
        assert_eq!(joined.run_only, vec![&b"c"[..]]);
        assert_eq!(joined.prepared.retrieved, vec![1, 0]);
        let dup = parse(b"a Q0 d1 1 1.0 r\na Q0 d1 2 0.5 r\n", TrecKind::Run, p()).unwrap();
        let err = join_and_prepare(&qrels, &dup, opts).unwrap_err();
        assert!(err.to_string().contains("more than once"));
    }
}
