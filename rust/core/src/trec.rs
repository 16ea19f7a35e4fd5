//! TREC run and qrels files, parsed in parallel without copying ids out of the file buffer.
//!
//! qrels lines: `query_id iteration doc_id grade`; run lines:
//! `query_id Q0 doc_id rank score run_tag`. Fields are separated by white space (spaces, tabs,
//! carriage returns: any byte up to the space character); a line
//! whose first non-blank character is `#` is a comment (a `#` inside an id is part of the id,
//! as in trec_eval's own test data), blank lines are skipped. The rank column of a run is
//! ignored: trec_eval orders by score (see `prepare`).
//!
//! Where trec_eval would read a file differently from what it says, the file is refused with
//! `path:line` rather than read silently one way or the other:
//!
//! * a qrels line with more than 4 fields (trec_eval: "Malformed line"; a run file passed as
//!   qrels would otherwise be read with its rank column as the grade). Text after the 6th field
//!   of a run line is ignored, as trec_eval ignores it;
//! * a qrels grade that is not an integer written in decimal digits (`2`, `-1`, `2.0` are
//!   read as integers; `2.5`, `1e3`, `inf`, `nan` are refused): trec_eval reads grades with
//!   `atol`, which truncates (`2.5` becomes 2, `1e3` becomes 1);
//! * a carriage return followed by more text on the same line: the file has CR-only line ends
//!   (classic Mac OS), which trec_eval reads as one long line (LF and CRLF line ends are read);
//! * a query or document id that is not valid UTF-8 (ids become Python strings).

use std::fs::File;
use std::path::Path;

use std::mem::MaybeUninit;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::csr::RowsBuf;
use crate::prepare::{Doc, Prepared, QueryInput, RankingInput, RankingOptions, prepare, show};
use crate::{CoreError, CoreResult};

/// Documents of a TREC file grouped by query, in order of first appearance of each query.
/// `values` are grades (qrels) or scores (run).
#[derive(Debug, Default)]
pub struct TrecFile<'a> {
    pub query_ids: Vec<&'a [u8]>,
    pub docs: RowsBuf<Doc<'a>>,
    /// For qrels: whether each grade is an integer, which every accepted grade is (see
    /// `parse_grade`); empty for runs.
    pub integral: Vec<bool>,
    /// The run tag (6th field) of the last run line of the file, as trec_eval's `runid`
    /// measure reports it; None for qrels and for a run without lines.
    pub run_tag: Option<&'a [u8]>,
    /// The line ends (LFs) of the text, counted while parsing it.
    pub line_ends: usize,
    /// The text the ids point into, and the file it came from (for the lines of errors found
    /// after parsing).
    pub text: &'a [u8],
    pub path: std::path::PathBuf,
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

/// Field separators, as trec_eval splits its lines (`get_qrels.c`, `get_trec_results.c`: C's
/// `isspace`): space, tab, LF, vertical tab, form feed and CR. Every other byte is part of a
/// field, other control bytes (`d\x01x`) included, as in trec_eval. A NUL byte, the mark of a
/// file that is not text (UTF-16, binary; trec_eval stops reading at it), separates too, and
/// is refused where blanks are skipped (`NUL_MESSAGE`).
fn is_separator(b: u8) -> bool {
    matches!(b, 0 | b'\t'..=b'\r' | b' ')
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set where the byte of `word` is at most `limit`
/// (`limit` < 0x80), exactly: adding `0x7F - limit` to the low seven bits carries into bit 7
/// only for bytes above `limit`, and never into the next byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn bytes_at_most(word: u64, limit: u8) -> u64 {
    let add = u64::from(0x7F - limit) * 0x0101_0101_0101_0101;
    !(((word & LOW_SEVEN) + add) | word) & HIGH_BITS
}

/// Bit 7 of each byte set where the byte of `word` equals `value`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn bytes_equal(word: u64, value: u8) -> u64 {
    bytes_at_most(word ^ (u64::from(value) * 0x0101_0101_0101_0101), 0)
}

/// Bit 7 of each byte of `x` (the only bits set) gathered into the low 8 bits, byte `i` to bit
/// `i`: the multiplication moves bit `8i` of `x >> 7` to bit `56 + i`, and no two of the products
/// it adds meet (nor carry), so the top byte holds exactly the eight bits.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn pack_high_bits(x: u64) -> u64 {
    ((x >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The bitmaps of one block of 64 bytes (bit `i` for byte `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct BlockMasks {
    /// Separators (`is_separator`).
    separators: u64,
    /// LFs.
    newlines: u64,
    /// Bytes above 0x7F.
    high: u64,
    /// Spaces and tabs: the blanks of an ordinary line.
    spaces_and_tabs: u64,
}

/// The `BlockMasks` of `bytes`: with SSE2 (every x86_64 processor), 16 bytes per compare.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn block_masks(bytes: &[u8; 64]) -> BlockMasks {
    // SAFETY: SSE2 is part of the x86_64 architecture: every processor that runs this has it.
    unsafe { block_masks_sse2(bytes) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[allow(unsafe_code)]
fn block_masks_sse2(bytes: &[u8; 64]) -> BlockMasks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_sub_epi8,
    };
    let mut masks = BlockMasks::default();
    let space = _mm_set1_epi8(b' ' as i8);
    let tab = _mm_set1_epi8(b'\t' as i8);
    let lf = _mm_set1_epi8(b'\n' as i8);
    let zero = _mm_set1_epi8(0);
    let four = _mm_set1_epi8(4);
    for (i, sixteen) in bytes.chunks_exact(16).enumerate() {
        // SAFETY: `sixteen` is 16 readable bytes, and this load has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>()) };
        // Tab to CR (0x09 to 0x0D): v - 9 wraps below 9, and max(v - 9, 4) == 4 exactly where
        // v - 9 <= 4 (unsigned); then the space and NUL.
        let tab_to_cr = _mm_sub_epi8(v, tab);
        let separator = _mm_movemask_epi8(_mm_or_si128(
            _mm_cmpeq_epi8(_mm_max_epu8(tab_to_cr, four), four),
            _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, zero)),
        ));
        let is_lf = _mm_movemask_epi8(_mm_cmpeq_epi8(v, lf));
        let above_7f = _mm_movemask_epi8(v);
        let is_blank = _mm_movemask_epi8(_mm_or_si128(
            _mm_cmpeq_epi8(v, space),
            _mm_cmpeq_epi8(v, tab),
        ));
        let shift = 16 * i;
        masks.separators |= u64::from(separator as u16) << shift;
        masks.newlines |= u64::from(is_lf as u16) << shift;
        masks.high |= u64::from(above_7f as u16) << shift;
        masks.spaces_and_tabs |= u64::from(is_blank as u16) << shift;
    }
    masks
}

/// The bitmaps of `block_masks` eight bytes at a time, on other processors.
#[cfg(not(target_arch = "x86_64"))]
fn block_masks(bytes: &[u8; 64]) -> BlockMasks {
    block_masks_by_words(bytes)
}

/// The bitmaps of `block_masks`, eight bytes at a time in a `u64` (any processor).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn block_masks_by_words(bytes: &[u8; 64]) -> BlockMasks {
    let mut masks = BlockMasks::default();
    for (i, word) in bytes.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let word = u64::from_le_bytes(w);
        let tab_to_cr = bytes_at_most(word, b'\r') & !bytes_at_most(word, b'\t' - 1);
        let separators = tab_to_cr | bytes_equal(word, b' ') | bytes_equal(word, 0);
        masks.separators |= pack_high_bits(separators) << (8 * i);
        masks.newlines |= pack_high_bits(bytes_equal(word, b'\n')) << (8 * i);
        masks.high |= pack_high_bits(word & HIGH_BITS) << (8 * i);
        masks.spaces_and_tabs |=
            pack_high_bits(bytes_equal(word, b' ') | bytes_equal(word, b'\t')) << (8 * i);
    }
    masks
}

/// The `BlockMasks` of the 64 bytes of `text` from `base`; past the end of the text, bytes
/// read as LF.
fn masks_at(text: &[u8], base: usize) -> BlockMasks {
    let mut padded = [b'\n'; 64];
    let bytes: &[u8; 64] = match text.get(base..base + 64) {
        Some(full) => full.try_into().unwrap_or(&padded),
        None => {
            let tail = text.get(base..).unwrap_or(&[]);
            padded[..tail.len()].copy_from_slice(tail);
            &padded
        }
    };
    block_masks(bytes)
}

/// Bitmaps of 64 bytes of text at a time (bit `i` for the byte at `base + i`): the separators
/// (`is_separator`), the blanks (separators but LF) and the bytes above 0x7F. Finding the
/// next field or the end of one is then a shift and a count of trailing zeros, with no branch
/// per byte or per word (which mispredicted at the end of every field, a third of the time of
/// reading a run). Past the end of the text, bytes read as LF: a separator, not a blank.
struct Scanner<'a> {
    text: &'a [u8],
    base: usize,
    separators: u64,
    blanks: u64,
    high: u64,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a [u8]) -> Self {
        Scanner {
            text,
            base: usize::MAX,
            separators: 0,
            blanks: 0,
            high: 0,
        }
    }

    /// Compute the bitmaps of the 64 bytes from `base`.
    fn load(&mut self, base: usize) {
        let masks = masks_at(self.text, base);
        self.base = base;
        self.separators = masks.separators;
        self.blanks = masks.separators & !masks.newlines;
        self.high = masks.high;
    }

    /// The first position at or after `pos` whose bit is set in `mask(self)` (at most the
    /// length of the text), and the bits of `self.high` from `pos` on in the blocks passed.
    fn next(&mut self, mut pos: usize, mask: impl Fn(&Self) -> u64) -> (usize, u64) {
        let n = self.text.len();
        let mut high = 0;
        while pos < n {
            let base = pos & !63;
            if base != self.base {
                self.load(base);
            }
            let shift = pos - base;
            high |= self.high >> shift;
            let bits = mask(self) >> shift;
            if bits != 0 {
                return ((pos + bits.trailing_zeros() as usize).min(n), high);
            }
            pos = base + 64;
        }
        (n, high)
    }

    /// The end of the field that starts at `pos` (the first separator at or after it), and
    /// whether the field may hold a byte above 0x7F: false only when it certainly holds none
    /// (the bytes looked at may reach past the field, so true needs checking).
    fn field_end(&mut self, pos: usize) -> (usize, bool) {
        let (end, high) = self.next(pos, |s| s.separators);
        (end, high != 0)
    }

    /// The first byte at or after `pos` that starts a field or ends the line.
    fn skip_blanks(&mut self, pos: usize) -> usize {
        self.next(pos, |s| !s.blanks).0
    }
}

/// The field ends of ordinary run lines, read from the bitmaps of two blocks at a time.
///
/// Most lines of a run are `query Q0 doc rank score tag` with one space or tab between the
/// fields, in ASCII, ending in LF: for such a line the ends of the six fields are the first six
/// separators after its start, found by counting trailing zeros of one 128-bit window of the
/// bitmaps, with none of `Scanner`'s per-field calls. Any other line (blanks in a row, a
/// comment, a CR, a NUL, more fields, a byte above 0x7F, a line longer than the window, the
/// last line without its LF) is left to the general reading, so both readings agree on every
/// line the fast one accepts (tested against it).
struct RunLines<'a> {
    text: &'a [u8],
    /// The block of `low` (a multiple of 64; `usize::MAX` before the first).
    base: usize,
    low: BlockMasks,
    high: BlockMasks,
}

impl<'a> RunLines<'a> {
    fn new(text: &'a [u8]) -> Self {
        RunLines {
            text,
            base: usize::MAX,
            low: BlockMasks::default(),
            high: BlockMasks::default(),
        }
    }

    /// The ends of the six fields of the line that starts at `pos` (each end the position of
    /// the blank or LF after the field; the last is the line's LF), if it is an ordinary run
    /// line as described above.
    fn ordinary_line(&mut self, pos: usize) -> Option<[usize; 6]> {
        let base = pos & !63;
        if base != self.base {
            if base == self.base.wrapping_add(64) {
                self.low = self.high;
            } else {
                self.low = masks_at(self.text, base);
            }
            self.high = masks_at(self.text, base + 64);
            self.base = base;
        }
        let shift = (pos - base) as u32;
        let window = |pick: fn(&BlockMasks) -> u64| -> u128 {
            ((u128::from(pick(&self.high)) << 64) | u128::from(pick(&self.low))) >> shift
        };
        let separators = window(|m| m.separators);
        // A separator first: blank or empty line (the general reading skips or refuses it).
        if separators & 1 != 0 || self.text.get(pos) == Some(&b'#') {
            return None;
        }
        let mut rest = separators;
        let mut ends = [0usize; 6];
        for end in &mut ends {
            if rest == 0 {
                return None;
            }
            *end = rest.trailing_zeros() as usize;
            rest &= rest - 1;
        }
        let last = ends[5];
        // Bits are valid up to 128 - shift; the line's LF must be in the text.
        if last >= 128 - shift as usize || pos + last >= self.text.len() {
            return None;
        }
        let before_last = (1u128 << last) - 1;
        let not_plain_blank = separators & !window(|m| m.spaces_and_tabs);
        let blanks_in_a_row = separators & (separators >> 1);
        if (not_plain_blank | blanks_in_a_row | window(|m| m.high)) & before_last != 0
            || (window(|m| m.newlines) >> last) & 1 == 0
        {
            return None;
        }
        Some(ends.map(|end| pos + end))
    }
}

/// Whether `line` (without its LF) holds a carriage return followed by more text, the mark of
/// CR-only line ends. Only the first CR needs a look: if text follows any CR, it follows the
/// first one.
fn has_inner_carriage_return(line: &[u8]) -> bool {
    memchr::memchr(b'\r', line).is_some_and(|i| line[i + 1..].iter().any(|&b| !is_separator(b)))
}

/// Whether the blanks `blanks` hold a NUL byte: usually one space or tab, told apart by one
/// comparison (a call to `contains` for each field cost more than the field's scan).
fn has_nul(blanks: &[u8]) -> bool {
    match blanks {
        [] | [b' ' | b'\t'] => false,
        _ => blanks.contains(&0),
    }
}

/// `a == b` for short ids, compared in place (a call to `memcmp` per line cost more).
fn same_id(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

const NUL_MESSAGE: &str = "a NUL byte (\\x00) in the line: the file is not plain text (UTF-16 \
     text, or binary data?); TREC files are UTF-8 text with fields separated by blanks";

const CR_ONLY_MESSAGE: &str = "a carriage return (CR) is followed by more text on this line: \
     the file seems to use CR-only line ends (classic Mac OS), which would be read as one long \
     line; convert them to LF line ends (e.g. tr '\\r' '\\n' < old > new)";

/// The records of one chunk as runs of one query: `queries[r]` is the query of run `r`, and
/// `runs[r]` is (r, number of records); a query that comes back in the chunk has a run each
/// time (`parse_lines` numbers the queries). A file sorted by query has one run per query, so
/// placing the records costs a copy per run.
struct Chunk<'a> {
    queries: Vec<&'a [u8]>,
    runs: Vec<(u32, usize)>,
    /// Records written at the start of the chunk's region of the file's records.
    records: usize,
    /// Line ends (LF) in the chunk.
    lines: usize,
    run_tag: Option<&'a [u8]>,
}

/// A malformed line of a chunk, `line` counted from 1 at the chunk's start (the global line is
/// found only when there is an error: counting every chunk's lines up front costs a pass).
struct ChunkError {
    line: usize,
    message: String,
}

/// A run score: any number but NaN (trec_eval reads scores with `atof`, so `inf` and `1e400`
/// are infinite scores there too). Read by `fast-float2` (Clinger's fast path, else
/// Eisel-Lemire) from the bytes, correctly rounded as `str::parse` rounds (tested against it).
fn parse_number(field: &[u8]) -> Option<f64> {
    let x = fast_float2::parse::<f64, _>(field).ok()?;
    (!x.is_nan()).then_some(x)
}

/// Grades beyond this magnitude are refused (every integer up to it is an exact double).
const MAX_GRADE_DIGITS: usize = 15;

/// A qrels grade: an integer written in decimal digits, with an optional sign and an optional
/// fraction of zeros (`2`, `-1`, `+3`, `2.0`, `2.`). trec_eval reads grades with `atol`, which
/// keeps the leading digits and drops the rest (`2.5` and `2e1` become 2, `inf` becomes 0);
/// rather than truncate silently or keep a fraction trec_eval would drop, anything else is
/// refused, with what trec_eval would have read.
fn parse_grade(field: &[u8]) -> Result<f64, String> {
    let (negative, rest) = match field.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, field),
    };
    let n_digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (digits, tail) = rest.split_at(n_digits);
    let leading = || {
        digits.iter().fold(0u64, |value, &d| {
            value.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        })
    };
    let zero_fraction = match tail.split_first() {
        None => true,
        Some((b'.', fraction)) => fraction.iter().all(|&b| b == b'0'),
        Some(_) => false,
    };
    if n_digits > 0 && zero_fraction {
        if n_digits > MAX_GRADE_DIGITS {
            return Err(format!(
                "the grade {} is too large: grades are integers of at most {MAX_GRADE_DIGITS} \
                 digits",
                show(field)
            ));
        }
        let value = leading() as f64;
        return Ok(if negative { -value } else { value });
    }
    let what = if parse_number(field).is_some() {
        "is not an integer written in decimal digits"
    } else {
        "is not a number"
    };
    let atol = if n_digits == 0 || n_digits > 18 {
        String::from(if n_digits == 0 {
            "0"
        } else {
            "a truncated value"
        })
    } else {
        format!("{}{}", if negative { "-" } else { "" }, leading())
    };
    Err(format!(
        "the grade {} {what}; qrels grades are integers (trec_eval would read this one as \
         {atol}): write integer grades, or give fractional grades in a TSV, CSV, JSON or \
         Parquet file (query_id, doc_id, relevance), which reads them as given",
        show(field)
    ))
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

/// The UTF-8 encoding of U+FEFF, which editors on Windows write at the start of a text file.
pub(crate) const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// Parse a whole TREC file held in memory (a UTF-8 byte order mark at its start is skipped:
/// it is not part of the first query id).
pub fn parse<'a>(text: &'a [u8], kind: TrecKind, path: &Path) -> CoreResult<TrecFile<'a>> {
    parse_lines(
        text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text),
        kind,
        path,
    )
}

/// Parse TREC lines held in memory (a whole file, or a block of whole lines of one).
pub(crate) fn parse_lines<'a>(
    text: &'a [u8],
    kind: TrecKind,
    path: &Path,
) -> CoreResult<TrecFile<'a>> {
    let chunks = line_chunks(text, rayon::current_num_threads() * 4);
    // The records go straight into one buffer, each chunk's from the start of a region with
    // room for one record per line; in a file grouped by query (as runs are written) the
    // buffer, closed up, is already the rows (copying the records into rows cost a tenth of
    // reading a run).
    let room: Vec<usize> = chunks
        .par_iter()
        .map(|chunk| {
            memchr::memchr_iter(b'\n', chunk).count() + usize::from(!chunk.ends_with(b"\n"))
        })
        .collect();
    let mut records: Vec<Doc<'a>> = Vec::new();
    let lines: usize = room.iter().sum();
    records
        .try_reserve_exact(lines)
        .map_err(|_| CoreError::OutOfMemory {
            what: format!("the {lines} lines of {}", path.display()),
        })?;
    let mut regions = Vec::with_capacity(chunks.len());
    let mut rest = &mut records.spare_capacity_mut()[..];
    for &n in &room {
        let (region, tail) = rest.split_at_mut(n);
        regions.push(region);
        rest = tail;
    }
    let results: Vec<Result<Chunk<'a>, ChunkError>> = chunks
        .par_iter()
        .zip(regions.par_iter_mut())
        .map(|(chunk, region)| parse_chunk(chunk, kind, region))
        .collect();
    // The first malformed line in file order is the one reported.
    let mut lines_before = 0usize;
    let mut parsed = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(chunk) => {
                lines_before += chunk.lines;
                parsed.push(chunk);
            }
            Err(error) => {
                return Err(CoreError::Format {
                    path: path.to_path_buf(),
                    line: lines_before + error.line,
                    message: error.message,
                });
            }
        }
    }
    // Close up the regions: each chunk's records follow the previous chunk's.
    drop(regions);
    let mut starts = Vec::with_capacity(parsed.len());
    let (mut written, mut region) = (0usize, 0usize);
    for (chunk, &n) in parsed.iter().zip(&room) {
        if region != written {
            records
                .spare_capacity_mut()
                .copy_within(region..region + chunk.records, written);
        }
        starts.push(written);
        written += chunk.records;
        region += n;
    }
    // SAFETY: `records` has capacity for the sum of `room`; chunk `c` wrote (initialised) its
    // first `parsed[c].records` slots of its region, and those slots were just moved, in chunk
    // order, to `starts[c]..starts[c] + parsed[c].records`: slots `0..written` are initialised.
    // A `Doc` holds no resource to drop.
    #[allow(unsafe_code)]
    unsafe {
        records.set_len(written);
    }
    let total = written;
    if total > u32::MAX as usize {
        // Queries are numbered with u32 (there are at most as many queries as records).
        return Err(CoreError::argument(
            "path",
            format!(
                "{}: files of more than 2^32 records are not supported",
                path.display()
            ),
        ));
    }

    // Number queries globally in order of first appearance. What grows with the queries is
    // reserved fallibly, after a look at the memory (crate::memory): a run read while another
    // library fills the memory must end in an error, not an abort.
    crate::memory::check(|| format!("reading {}", path.display()))?;
    let n_local: usize = parsed.iter().map(|chunk| chunk.queries.len()).sum();
    let out_of_memory = |_| CoreError::OutOfMemory {
        what: format!(
            "the query ids ({n_local} runs of lines) of {}",
            path.display()
        ),
    };
    let mut index: FxHashMap<&[u8], u32> = FxHashMap::default();
    let mut query_ids: Vec<&[u8]> = Vec::new();
    let mut global: Vec<Vec<u32>> = Vec::new();
    // `n_local` counts runs: a file grouped by query has about one per query, one whose
    // queries take turns one per line, so the table is reserved up to a bound and grows
    // (fallibly) past it.
    index
        .try_reserve(n_local.min(1 << 20))
        .map_err(out_of_memory)?;
    query_ids.try_reserve(n_local).map_err(out_of_memory)?;
    global.try_reserve(parsed.len()).map_err(out_of_memory)?;
    for chunk in &parsed {
        let mut numbers = Vec::new();
        numbers
            .try_reserve_exact(chunk.queries.len())
            .map_err(out_of_memory)?;
        for q in &chunk.queries {
            if index.len() == index.capacity() {
                index.try_reserve(index.len()).map_err(out_of_memory)?;
            }
            let next = query_ids.len() as u32;
            let id = *index.entry(q).or_insert(next);
            if id == next {
                query_ids.push(q);
            }
            numbers.push(id);
        }
        global.push(numbers);
    }
    let zeros = |n: usize| -> CoreResult<Vec<usize>> {
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(out_of_memory)?;
        v.resize(n, 0);
        Ok(v)
    };
    let mut counts = zeros(query_ids.len())?;
    let mut pieces_per_query = zeros(query_ids.len())?;
    // Grouped: no query comes back after another (queries are numbered in order of first
    // appearance, so their runs' numbers never decrease).
    let mut grouped = true;
    let mut previous = 0u32;
    for (chunk, global) in parsed.iter().zip(&global) {
        for &(local, len) in &chunk.runs {
            let q = global[local as usize];
            grouped &= q >= previous;
            previous = q;
            counts[q as usize] += len;
            pieces_per_query[q as usize] += 1;
        }
    }
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0usize);
    for c in &counts {
        offsets.push(offsets[offsets.len() - 1] + c);
    }
    let docs = if grouped {
        // The records in file order are the rows.
        records
    } else {
        scatter(&records, &parsed, &starts, &global, &pieces_per_query)
    };
    Ok(TrecFile {
        query_ids,
        docs: RowsBuf {
            offsets,
            values: docs,
        },
        integral: vec![true; if kind == TrecKind::Qrels { total } else { 0 }],
        run_tag: parsed.iter().rev().find_map(|chunk| chunk.run_tag),
        line_ends: lines_before,
        text,
        path: path.to_path_buf(),
    })
}

/// The records of a file not grouped by query (`records` in file order, chunk `c`'s from
/// `starts[c]`), placed in their query's row: the runs of every query, in file order, are the
/// pieces of the rows (a counting sort of the runs by query), copied in parallel.
fn scatter<'a>(
    records: &[Doc<'a>],
    parsed: &[Chunk<'a>],
    starts: &[usize],
    global: &[Vec<u32>],
    pieces_per_query: &[usize],
) -> Vec<Doc<'a>> {
    let mut next_piece = Vec::with_capacity(pieces_per_query.len());
    let mut n_pieces = 0;
    for n in pieces_per_query {
        next_piece.push(n_pieces);
        n_pieces += n;
    }
    // (first record in `records`, length) of each piece, in row order.
    let mut pieces = vec![(0usize, 0usize); n_pieces];
    for ((chunk, global), &start) in parsed.iter().zip(global).zip(starts) {
        let mut from = start;
        for &(local, len) in &chunk.runs {
            let slot = &mut next_piece[global[local as usize] as usize];
            pieces[*slot] = (from, len);
            *slot += 1;
            from += len;
        }
    }
    // Where each piece starts in the rows.
    let mut piece_start = Vec::with_capacity(n_pieces + 1);
    piece_start.push(0usize);
    for &(_, len) in &pieces {
        piece_start.push(piece_start[piece_start.len() - 1] + len);
    }
    // Collected in parallel straight into the rows (rayon writes an indexed iterator in
    // place: no fill, no second copy). Each thread walks its range of rows in order, so the
    // piece of a row is the current one or the next, found by search only at a range's start.
    (0..records.len())
        .into_par_iter()
        .map_init(
            || 0usize,
            |piece, row| {
                if !(piece_start[*piece]..piece_start[*piece + 1]).contains(&row) {
                    *piece = if row == piece_start[*piece + 1] {
                        *piece + 1
                    } else {
                        piece_start.partition_point(|&start| start <= row) - 1
                    };
                }
                records[pieces[*piece].0 + row - piece_start[*piece]]
            },
        )
        .collect()
}

/// Parse the lines of `chunk`, writing its records from the start of `region` (which has room
/// for one record per line).
fn parse_chunk<'a>(
    chunk: &'a [u8],
    kind: TrecKind,
    region: &mut [MaybeUninit<Doc<'a>>],
) -> Result<Chunk<'a>, ChunkError> {
    let mut out = ChunkRecords {
        chunk: Chunk {
            queries: Vec::new(),
            runs: Vec::new(),
            records: 0,
            lines: 0,
            run_tag: None,
        },
        last: None,
        region,
    };
    let wanted = kind.n_fields();
    let n = chunk.len();
    // A malformed line whose real fault is CR-only line ends is reported as such.
    let line_error = |line: usize, start: usize, message: String| {
        let end = memchr::memchr(b'\n', &chunk[start..]).map_or(n, |i| start + i);
        let message = if has_inner_carriage_return(&chunk[start..end]) {
            CR_ONLY_MESSAGE.to_owned()
        } else {
            message
        };
        ChunkError { line, message }
    };
    // One pass over the bytes finds both the fields and the line ends.
    let mut scanner = Scanner::new(chunk);
    let mut run_lines = RunLines::new(chunk);
    let mut pos = 0;
    let mut line = 1;
    while pos < n {
        if kind == TrecKind::Run
            && let Some(ends) = run_lines.ordinary_line(pos)
            && let Some(value) = parse_number(&chunk[ends[3] + 1..ends[4]])
        {
            out.push(
                &chunk[pos..ends[0]],
                &chunk[ends[1] + 1..ends[2]],
                value,
                line,
            )?;
            out.chunk.run_tag = Some(&chunk[ends[4] + 1..ends[5]]);
            out.chunk.lines += 1;
            pos = ends[5] + 1;
            line += 1;
            continue;
        }
        let start = pos;
        let mut fields: [&[u8]; 6] = [&[]; 6];
        let mut non_ascii = [false; 6];
        let mut found = 0;
        let mut comment = false;
        loop {
            let blanks = pos;
            pos = scanner.skip_blanks(pos);
            if has_nul(&chunk[blanks..pos]) {
                return Err(line_error(line, start, NUL_MESSAGE.to_owned()));
            }
            if pos == n || chunk[pos] == b'\n' {
                break;
            }
            let field_start = pos;
            let high;
            (pos, high) = scanner.field_end(pos);
            fields[found] = &chunk[field_start..pos];
            non_ascii[found] = high;
            found += 1;
            if fields[0][0] == b'#' {
                comment = true;
                pos = memchr::memchr(b'\n', &chunk[pos..]).map_or(n, |i| pos + i);
                if has_inner_carriage_return(&chunk[start..pos]) {
                    return Err(line_error(line, start, String::new()));
                }
                break;
            }
            if found == wanted {
                pos = match kind {
                    // The rest of a run line is ignored, as trec_eval ignores it.
                    TrecKind::Run => match chunk.get(pos..(pos + 2).min(n)) {
                        Some([b'\n', ..]) => pos,
                        Some(b"\r\n") => pos + 1,
                        _ => {
                            let end = memchr::memchr(b'\n', &chunk[pos..]).map_or(n, |i| pos + i);
                            if has_inner_carriage_return(&chunk[pos..end]) {
                                return Err(line_error(line, start, String::new()));
                            }
                            end
                        }
                    },
                    TrecKind::Qrels => {
                        let next = scanner.skip_blanks(pos);
                        if has_nul(&chunk[pos..next]) {
                            return Err(line_error(line, start, NUL_MESSAGE.to_owned()));
                        }
                        if next < n && chunk[next] != b'\n' {
                            return Err(line_error(
                                line,
                                start,
                                format!(
                                    "more than {wanted} fields ({}); trec_eval refuses such a \
                                     line (\"Malformed line\"). Is this a run file given as \
                                     the qrels?",
                                    kind.layout()
                                ),
                            ));
                        }
                        next
                    }
                };
                break;
            }
        }
        let this_line = line;
        if pos < n {
            // `pos` is at the line's LF.
            out.chunk.lines += 1;
        }
        pos += 1;
        line += 1;
        if found == 0 || comment {
            continue;
        }
        if found < wanted {
            return Err(line_error(
                this_line,
                start,
                format!(
                    "expected {wanted} fields ({}), found {found}",
                    kind.layout()
                ),
            ));
        }
        for (at, what) in [(0, "query id"), (2, "document id")] {
            if non_ascii[at] && std::str::from_utf8(fields[at]).is_err() {
                return Err(line_error(
                    this_line,
                    start,
                    format!(
                        "the {what} {} is not valid UTF-8; ids are read as UTF-8 text: \
                         re-encode the file as UTF-8",
                        show(fields[at])
                    ),
                ));
            }
        }
        let value = match kind {
            TrecKind::Qrels => parse_grade(fields[3]),
            TrecKind::Run => parse_number(fields[4])
                .ok_or_else(|| format!("the score {} is not a number", show(fields[4]))),
        }
        .map_err(|message| line_error(this_line, start, message))?;
        out.push(fields[0], fields[2], value, this_line)?;
        if kind == TrecKind::Run {
            out.chunk.run_tag = Some(fields[5]);
        }
    }
    Ok(out.chunk)
}

/// A chunk's records as they are read: the chunk, the previous record's query, and the
/// region the records are written to.
struct ChunkRecords<'a, 'r> {
    chunk: Chunk<'a>,
    last: Option<&'a [u8]>,
    region: &'r mut [MaybeUninit<Doc<'a>>],
}

impl<'a> ChunkRecords<'a, '_> {
    /// Write the record of `line`.
    fn push(
        &mut self,
        query: &'a [u8],
        doc: &'a [u8],
        value: f64,
        line: usize,
    ) -> Result<(), ChunkError> {
        let out = &mut self.chunk;
        // A record of the previous record's query lengthens its run; any other starts a run.
        // Runs are numbered, not their queries: `parse_lines` numbers the queries of every
        // chunk in one table (a table per chunk too cost a second hash per query, and a query
        // per handful of lines is common: 100,000 queries x 10 documents).
        match (self.last, out.runs.last_mut()) {
            (Some(id), Some(run)) if same_id(id, query) => run.1 += 1,
            _ => {
                let next = out.queries.len() as u32;
                out.queries.push(query);
                self.last = Some(query);
                out.runs.push((next, 1));
            }
        }
        let Some(slot) = self.region.get_mut(out.records) else {
            return Err(ChunkError {
                line,
                message: "internal error: more records than lines (please report it)".to_owned(),
            });
        };
        slot.write((doc, value));
        out.records += 1;
        Ok(())
    }
}

/// The bytes of a TREC file, read into memory that belongs to the process.
///
/// Never memory-mapped from the file: a mapped file that shrinks while it is read kills the
/// process with SIGBUS, which nothing can catch, and a run rewritten by a retrieval job while
/// an evaluation reads it is ordinary. The buffer is an anonymous map (lazily zeroed by the
/// kernel, and allocated fallibly: a file larger than memory is an error, not an abort), or
/// the decompressed text of a compressed file.
#[derive(Debug)]
pub struct FileBytes(Bytes);

#[derive(Debug)]
enum Bytes {
    Read(memmap2::Mmap),
    Decompressed(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Bytes::Read(map) => map,
            Bytes::Decompressed(text) => text,
        }
    }
}

/// Blocks read by one thread at a time: large files are read by every thread of the pool.
const READ_BLOCK_BYTES: usize = 4 << 20;

/// Read a TREC file into memory (the caller keeps the bytes alive while it uses the parse); a
/// compressed file (`crate::compressed`) is decompressed.
///
/// Only regular files are read: a directory, a FIFO or a device (`/dev/zero`) is refused
/// before it is opened (opening a FIFO would wait for a writer; a device could be read until
/// memory runs out). The file is read in blocks by the threads of the current pool (the
/// copy and the page faults cost about as much as parsing). A file that changes while it is
/// read (shrinks, grows or is modified) gives an error that says so; otherwise the bytes are
/// those of the file as it was when it was opened.
pub fn read(path: &Path) -> CoreResult<FileBytes> {
    let io_error = |source| CoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let refuse =
        |message: String| CoreError::argument("path", format!("{}: {message}", path.display()));
    let file = open_regular(path)?;
    let before = file.metadata().map_err(io_error)?;
    if let Some((compression, reader)) =
        crate::compressed::open(path, file.try_clone().map_err(io_error)?)?
    {
        let text = crate::compressed::read_all(path, compression, reader)?;
        return Ok(FileBytes(Bytes::Decompressed(text)));
    }
    let len = usize::try_from(before.len())
        .map_err(|_| refuse(String::from("is too large to be read on this platform")))?;
    let mut bytes = memmap2::MmapMut::map_anon(len).map_err(|e| CoreError::OutOfMemory {
        what: format!("the {len} bytes of {} ({e})", path.display()),
    })?;
    let changed = |how: &str| changed_while_read(path, how);
    bytes
        .par_chunks_mut(READ_BLOCK_BYTES)
        .enumerate()
        .try_for_each(|(i, block)| read_exact_at(&file, block, (i * READ_BLOCK_BYTES) as u64))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => changed("it became shorter"),
            _ => io_error(e),
        })?;
    let mut probe = [0u8; 1];
    if read_at(&file, &mut probe, len as u64).map_err(io_error)? != 0 {
        return Err(changed("it became longer"));
    }
    let after = file.metadata().map_err(io_error)?;
    if after.len() != before.len() || after.modified().ok() != before.modified().ok() {
        return Err(changed("it was modified"));
    }
    Ok(FileBytes(Bytes::Read(
        bytes.make_read_only().map_err(io_error)?,
    )))
}

/// The error of a file that changed while it was read (`how`), and what to do.
fn changed_while_read(path: &Path, how: &str) -> CoreError {
    CoreError::argument(
        "path",
        format!(
            "{}: changed while it was read ({how}); evaluate it again once it is completely \
             written (write to a temporary file and rename it over the old one to replace a \
             file that is being read)",
            path.display()
        ),
    )
}

/// Whether the regular file at `path` is compressed (`crate::compressed`).
pub fn is_compressed(path: &Path) -> CoreResult<bool> {
    let mut file = open_regular(path)?;
    let mut head = [0u8; 8];
    let mut n = 0;
    while n < head.len() {
        match std::io::Read::read(&mut file, &mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(CoreError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
    Ok(crate::compressed::Compression::of(&head[..n]).is_some())
}

/// Open `path` if it is a regular file (see `read`).
pub(crate) fn open_regular(path: &Path) -> CoreResult<File> {
    let io_error = |source| CoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let refuse =
        |message: String| CoreError::argument("path", format!("{}: {message}", path.display()));
    let kind = std::fs::metadata(path).map_err(io_error)?.file_type();
    if !kind.is_file() {
        return Err(refuse(format!(
            "is {}, not a regular file; TREC files are read from regular files only (save \
             the output of a pipe or a program to a file first)",
            describe_file_type(kind)
        )));
    }
    let file = File::open(path).map_err(io_error)?;
    if !file.metadata().map_err(io_error)?.is_file() {
        return Err(refuse(String::from(
            "was replaced by something that is not a regular file while it was opened",
        )));
    }
    Ok(file)
}

fn describe_file_type(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "something else"
    }
}

/// Read at `offset` without moving a shared cursor, so that threads read blocks at once.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Fill `buf` from `offset`; `UnexpectedEof` when the file ends first.
pub(crate) fn read_exact_at(
    file: &File,
    mut buf: &mut [u8],
    mut offset: u64,
) -> std::io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
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

/// The error of judged query `q` of `qrels` (at `position` in the call), whose ranking (None:
/// not at hand) is `ranking`: a document judged twice, or ranked twice when that is refused, is
/// named at the line of its second listing; any other error names the query.
fn query_error(
    qrels: &TrecFile<'_>,
    q: usize,
    ranking: Option<(&TrecFile<'_>, &[Doc<'_>])>,
    opts: RankingOptions,
    position: usize,
    message: String,
) -> CoreError {
    let refused = opts.duplicates == crate::prepare::Duplicates::Raise;
    let judged = qrels.docs.view();
    let repeated = first_repeat(judged.row(q))
        .map(|doc| (qrels, doc))
        .or_else(|| {
            let (run, docs) = ranking?;
            first_repeat(docs).filter(|_| refused).map(|doc| (run, doc))
        });
    match repeated {
        Some((file, doc)) => CoreError::Format {
            path: file.path.clone(),
            line: line_of(file.text, doc),
            message: format!("query {}: {message}", show(qrels.query_ids[q])),
        },
        None => CoreError::InvalidQuery {
            query: position,
            query_id: Some(String::from_utf8_lossy(qrels.query_ids[q]).into_owned()),
            message,
        },
    }
}

/// The id of the first document of `docs` listed a second time, at its second listing.
fn first_repeat<'a>(docs: &[Doc<'a>]) -> Option<&'a [u8]> {
    let mut seen = rustc_hash::FxHashSet::default();
    docs.iter().map(|d| d.0).find(|id| !seen.insert(*id))
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
        CoreError::InvalidQuery { query, message, .. } => {
            let q = order[query];
            let ranking = run_index
                .get(qrels.query_ids[q])
                .map(|&r| (run, ranked.row(r)));
            query_error(qrels, q, ranking, opts, query, message)
        }
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

/// Parse one block of whole lines of a run read in blocks, after `lines_before` lines (the
/// first block, `lines_before == 0`, may start with a byte order mark): errors name the line
/// of the file.
pub fn parse_run_block<'a>(
    block: &'a [u8],
    lines_before: usize,
    path: &Path,
) -> CoreResult<TrecFile<'a>> {
    let parsed = if lines_before == 0 {
        parse(block, TrecKind::Run, path)
    } else {
        parse_lines(block, TrecKind::Run, path)
    };
    parsed.map_err(|e| match e {
        CoreError::Format {
            path,
            line,
            message,
        } => CoreError::Format {
            path,
            line: lines_before + line,
            message,
        },
        other => other,
    })
}

/// The query a block ended with, which the next block may continue: its id and documents,
/// copied out of the block (`arena` holds the ids).
struct OpenQuery {
    id: Vec<u8>,
    arena: Vec<u8>,
    docs: Vec<(usize, usize, f64)>,
}

impl OpenQuery {
    fn of(id: &[u8], docs: &[Doc<'_>]) -> Self {
        let mut arena = Vec::new();
        let mut kept = Vec::with_capacity(docs.len());
        for &(doc, value) in docs {
            let start = arena.len();
            arena.extend_from_slice(doc);
            kept.push((start, arena.len(), value));
        }
        OpenQuery {
            id: id.to_vec(),
            arena,
            docs: kept,
        }
    }

    fn docs(&self) -> Vec<Doc<'_>> {
        self.docs
            .iter()
            .map(|&(s, e, v)| (&self.arena[s..e], v))
            .collect()
    }
}

/// The key of a prepared query in `Stream::closed`: two independent 64-bit hashes of its id.
fn closed_key(id: &[u8]) -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut second = std::collections::hash_map::DefaultHasher::new();
    second.write(id);
    (u128::from(rustc_hash::FxBuildHasher.hash_one(id)) << 64) | u128::from(second.finish())
}

/// A run whose query comes back after other queries: it is read whole instead.
struct NotGrouped;

/// A query whose documents are all read: its id, its documents and its sorted position among
/// the judged queries (None: a query without judgments).
type Complete<'d> = (&'d [u8], &'d [Doc<'d>], Option<usize>);

/// What `stream_in_blocks` keeps from block to block.
struct Stream<'q, 'a> {
    path: &'q Path,
    /// The size of the blocks the run is read in (to read it again for an error's line).
    block_bytes: usize,
    qrels: &'q TrecFile<'a>,
    opts: RankingOptions,
    /// The qrels query of each sorted position, and the sorted position of each id.
    order: Vec<usize>,
    position: FxHashMap<&'a [u8], usize>,
    /// Prepared queries: (sorted position, part, row in part).
    placed: Vec<(usize, usize, usize)>,
    parts: Vec<Prepared>,
    /// Whether the judged query at each sorted position was prepared, and the 128-bit hashes
    /// of the run-only queries already listed: a query coming back means the run is not
    /// grouped by query. A judged query is found by the lookup of its position, which its
    /// preparation needs anyway (one hash per query); a collision of two run-only queries'
    /// hashes could only send a grouped run to the whole reading (same result, more memory),
    /// never mix two queries; no id is copied per query.
    done: Vec<bool>,
    closed: rustc_hash::FxHashSet<u128>,
    run_only: Vec<Vec<u8>>,
    open: Option<OpenQuery>,
    lines_before: usize,
    run_tag: Option<Vec<u8>>,
}

impl Stream<'_, '_> {
    /// Parse one block of whole lines and prepare the queries it completes.
    fn block(&mut self, block: &[u8]) -> CoreResult<Result<(), NotGrouped>> {
        let file = parse_run_block(block, self.lines_before, self.path)?;
        self.lines_before += file.line_ends;
        if let Some(tag) = file.run_tag {
            self.run_tag = Some(tag.to_vec());
        }
        let ids = &file.query_ids;
        if ids.is_empty() {
            return Ok(Ok(()));
        }
        let positions: Vec<Option<usize>> = ids
            .iter()
            .map(|id| self.position.get(id).copied())
            .collect();
        let came_back = |(id, position): (&&[u8], &Option<usize>)| match position {
            Some(p) => self.done[*p],
            None => self.closed.contains(&closed_key(id)),
        };
        if ids.iter().zip(&positions).any(came_back) {
            return Ok(Err(NotGrouped));
        }
        let open = self.open.take();
        let rows = file.docs.view();
        // The documents of a query the previous block ended with, which this block goes on
        // with or ends; every other query's documents are a row of this block, borrowed.
        let carried: Option<Vec<Doc<'_>>> = open
            .as_ref()
            .filter(|o| ids[0] == o.id.as_slice())
            .map(|o| {
                let mut docs = o.docs();
                docs.extend_from_slice(rows.row(0));
                docs
            });
        let ended = open.as_ref().filter(|o| ids[0] != o.id.as_slice());
        if ended.is_some_and(|done| ids.contains(&done.id.as_slice())) {
            return Ok(Err(NotGrouped));
        }
        let ended_docs = ended.map(OpenQuery::docs);
        let mut complete: Vec<Complete<'_>> = Vec::with_capacity(ids.len());
        if let (Some(done), Some(docs)) = (ended, &ended_docs) {
            complete.push((
                &done.id,
                docs,
                self.position.get(done.id.as_slice()).copied(),
            ));
        }
        let mut next_open = None;
        for (q, (&id, &position)) in ids.iter().zip(&positions).enumerate() {
            let docs = match &carried {
                Some(docs) if q == 0 => docs.as_slice(),
                _ => rows.row(q),
            };
            if q + 1 == ids.len() {
                // The last query may go on in the next block.
                next_open = Some(OpenQuery::of(id, docs));
            } else {
                complete.push((id, docs, position));
            }
        }
        self.prepare(&complete)?;
        self.open = next_open;
        Ok(Ok(()))
    }

    /// Prepare completed queries (judged ones; the others are listed as run-only), each with
    /// its sorted position among the judged queries.
    fn prepare(&mut self, complete: &[Complete<'_>]) -> CoreResult<()> {
        let judged_rows = self.qrels.docs.view();
        let mut inputs = Vec::with_capacity(complete.len());
        let mut positions = Vec::with_capacity(complete.len());
        let mut sources = Vec::with_capacity(complete.len());
        for (source, &(id, docs, position)) in complete.iter().enumerate() {
            match position {
                Some(position) => {
                    self.done[position] = true;
                    inputs.push(QueryInput {
                        judged: judged_rows.row(self.order[position]),
                        ranking: RankingInput::Scored(docs),
                    });
                    positions.push(position);
                    sources.push(source);
                }
                None => {
                    self.closed.insert(closed_key(id));
                    self.run_only.push(id.to_vec());
                }
            }
        }
        if inputs.is_empty() {
            return Ok(());
        }
        let part = match prepare(&inputs, self.opts, 0) {
            Ok(part) => part,
            Err(CoreError::InvalidQuery { query, message, .. }) => {
                return Err(match (positions.get(query), sources.get(query)) {
                    (Some(&p), Some(&source)) => {
                        let (id, docs, _) = &complete[source];
                        self.query_error(p, id, docs, query, message)?
                    }
                    _ => CoreError::InvalidQuery {
                        query,
                        query_id: None,
                        message,
                    },
                });
            }
            Err(other) => return Err(other),
        };
        let index = self.parts.len();
        self.parts.push(part);
        self.placed.extend(
            positions
                .into_iter()
                .enumerate()
                .map(|(row, position)| (position, index, row)),
        );
        Ok(())
    }
}

impl Stream<'_, '_> {
    /// The error of the judged query at sorted `position`, run id `id` with documents `docs`
    /// (the call's query `query`): a document ranked twice, when that is refused, is named at
    /// the line of its second listing, found by reading the run again (the blocks it was in
    /// are gone); the rest as `query_error` names them.
    fn query_error(
        &self,
        position: usize,
        id: &[u8],
        docs: &[Doc<'_>],
        query: usize,
        message: String,
    ) -> CoreResult<CoreError> {
        let q = self.order[position];
        let refused = self.opts.duplicates == crate::prepare::Duplicates::Raise;
        let judged_twice = first_repeat(self.qrels.docs.view().row(q)).is_some();
        if let Some(doc) = first_repeat(docs).filter(|_| refused && !judged_twice)
            && let Some(line) = line_of_repeat(self.path, id, doc, self.block_bytes)?
        {
            return Ok(CoreError::Format {
                path: self.path.to_path_buf(),
                line,
                message: format!("query {}: {message}", show(id)),
            });
        }
        Ok(query_error(self.qrels, q, None, self.opts, query, message))
    }
}

/// The line of the second listing of `doc` in the ranking of `query_id` in the compressed run
/// at `path`, read again block by block (in bounded memory, as the first reading was).
pub(crate) fn line_of_repeat(
    path: &Path,
    query_id: &[u8],
    doc: &[u8],
    block_bytes: usize,
) -> CoreResult<Option<usize>> {
    let file = open_regular(path)?;
    let (compression, reader) = crate::compressed::open_any(path, file)?;
    let mut blocks = crate::compressed::LineBlocks::new(path, compression, reader, block_bytes);
    let mut lines_before = 0;
    let mut first_block = true;
    let mut seen = false;
    while let Some(block) = blocks.next_block()? {
        let parsed = if first_block {
            parse(block.text(), TrecKind::Run, path)
        } else {
            parse_lines(block.text(), TrecKind::Run, path)
        }?;
        first_block = false;
        let rows = parsed.docs.view();
        for (q, &id) in parsed.query_ids.iter().enumerate() {
            if id != query_id {
                continue;
            }
            for &(listed, _) in rows.row(q) {
                if listed == doc {
                    if seen {
                        return Ok(Some(lines_before + line_of(block.text(), listed)));
                    }
                    seen = true;
                }
            }
        }
        lines_before += parsed.line_ends;
    }
    Ok(None)
}

/// The smallest plain run file that is read in blocks rather than whole: a smaller one costs
/// little memory read whole, and its blocks would be too few to overlap reading and parsing.
pub const STREAM_PLAIN_BYTES: u64 = 2 * crate::compressed::BLOCK_BYTES as u64;

/// A qrels file and a run file joined and prepared, owning what it names (the bindings'
/// `prepare_trec`).
#[derive(Debug)]
pub struct PreparedFiles {
    /// Judged query ids in trec_eval's order (sorted byte-wise).
    pub query_ids: Vec<Vec<u8>>,
    pub in_run: Vec<bool>,
    /// Run queries without judgments, in run order.
    pub run_only: Vec<Vec<u8>>,
    pub prepared: Prepared,
    /// The run tag of the run's last line.
    pub run_tag: Option<Vec<u8>>,
}

/// Join and prepare a qrels file and a run file. The qrels are read and parsed once; the run is
/// read in blocks when [`stream_in_blocks`] takes it (compressed, or plain of at least
/// [`STREAM_PLAIN_BYTES`], and grouped by query, as runs are written: bounded memory), else
/// whole. The one place that decides how a run file is read.
pub fn prepare_files(
    qrels_path: &Path,
    run_path: &Path,
    opts: RankingOptions,
) -> CoreResult<PreparedFiles> {
    // Per-query copies made fallibly, and the memory checked between the phases: past the
    // allocator's reserve, an allocation that fails aborts the process (crate::memory).
    let ids = |v: &[&[u8]], what: &str| -> CoreResult<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        out.try_reserve_exact(v.len())
            .map_err(|_| CoreError::OutOfMemory {
                what: what.to_owned(),
            })?;
        for q in v {
            out.push(crate::memory::try_to_vec(q, what)?);
        }
        Ok(out)
    };
    let exhausted = |what: &Path| crate::memory::check(|| format!("evaluating {}", what.display()));
    let qrels_bytes = read(qrels_path)?;
    let qrels = parse(&qrels_bytes, TrecKind::Qrels, qrels_path)?;
    exhausted(qrels_path)?;
    if let Some(streamed) = stream_in_blocks(
        &qrels,
        run_path,
        opts,
        crate::compressed::BLOCK_BYTES,
        STREAM_PLAIN_BYTES,
    )? {
        return Ok(streamed);
    }
    let run_bytes = read(run_path)?;
    let run = parse(&run_bytes, TrecKind::Run, run_path)?;
    exhausted(run_path)?;
    let joined = join_and_prepare(&qrels, &run, opts)?;
    exhausted(run_path)?;
    Ok(PreparedFiles {
        query_ids: ids(&joined.query_ids, "the query ids of the judgments")?,
        in_run: joined.in_run,
        run_only: ids(&joined.run_only, "the query ids of the run")?,
        prepared: joined.prepared,
        run_tag: run.run_tag.map(<[u8]>::to_vec),
    })
}

/// Join a qrels file and a run read in blocks of lines (`crate::compressed`), each block parsed
/// and its completed queries prepared while the next is read (and decompressed), so that the
/// run's text is never held whole: memory is bounded by a block, the largest query and the
/// prepared results. Compressed runs and plain runs of at least `plain_from_bytes` are read
/// so. None for a smaller plain run, or when a query of the run comes back after other queries
/// (the run is not grouped by query): the caller then reads it whole.
fn stream_in_blocks<'a>(
    qrels: &TrecFile<'a>,
    run_path: &Path,
    opts: RankingOptions,
    block_bytes: usize,
    plain_from_bytes: u64,
) -> CoreResult<Option<PreparedFiles>> {
    let io_error = |source| CoreError::Io {
        path: run_path.to_path_buf(),
        source,
    };
    let file = open_regular(run_path)?;
    let before = file.metadata().map_err(io_error)?;
    let (compression, reader) = crate::compressed::open_any(run_path, file)?;
    if compression.is_none() && before.len() < plain_from_bytes {
        return Ok(None);
    }
    let mut blocks = crate::compressed::LineBlocks::new(run_path, compression, reader, block_bytes);
    let mut order: Vec<usize> = (0..qrels.query_ids.len()).collect();
    order.sort_unstable_by_key(|&q| qrels.query_ids[q]);
    let position = order
        .iter()
        .enumerate()
        .map(|(p, &q)| (qrels.query_ids[q], p))
        .collect();
    let mut stream = Stream {
        path: run_path,
        block_bytes,
        qrels,
        opts,
        order,
        position,
        placed: Vec::new(),
        parts: Vec::new(),
        done: vec![false; qrels.query_ids.len()],
        closed: Default::default(),
        run_only: Vec::new(),
        open: None,
        lines_before: 0,
        run_tag: None,
    };
    let mut next = blocks.next_block()?;
    let mut spare = crate::compressed::Block::default();
    while let Some(block) = next.take() {
        // Read (decompress) the next block while this one is parsed and prepared; the one
        // before, done with, holds the next.
        let (read, done) = rayon::join(
            || blocks.next_block_in(std::mem::take(&mut spare)),
            || stream.block(block.text()),
        );
        if done?.is_err() {
            return Ok(None);
        }
        next = read?;
        spare = block;
        crate::memory::check(|| format!("evaluating {}", run_path.display()))?;
    }
    if compression.is_none() {
        // As `read` refuses a plain file that changed while it was read: its blocks are the
        // file as it was, or an error.
        let after = std::fs::metadata(run_path).map_err(io_error)?;
        let whole = blocks.bytes_returned() == before.len() && after.len() == before.len();
        if !whole || after.modified().ok() != before.modified().ok() {
            return Err(changed_while_read(
                run_path,
                if whole {
                    "it was modified"
                } else {
                    "its length changed"
                },
            ));
        }
    }
    if let Some(last) = stream.open.take() {
        let position = stream.position.get(last.id.as_slice()).copied();
        stream.prepare(&[(&last.id, &last.docs(), position)])?;
    }
    // Judged queries absent from the run: empty rankings.
    let n = qrels.query_ids.len();
    let mut in_run = vec![false; n];
    for &(position, _, _) in &stream.placed {
        in_run[position] = true;
    }
    let judged_rows = qrels.docs.view();
    let absent: Vec<usize> = (0..n).filter(|&p| !in_run[p]).collect();
    let inputs: Vec<QueryInput<'_>> = absent
        .iter()
        .map(|&p| QueryInput {
            judged: judged_rows.row(stream.order[p]),
            ranking: RankingInput::Scored(&[]),
        })
        .collect();
    let empty = prepare(&inputs, opts, 0).map_err(|e| match e {
        CoreError::InvalidQuery { query, message, .. } => CoreError::InvalidQuery {
            query,
            query_id: absent
                .get(query)
                .map(|&p| String::from_utf8_lossy(qrels.query_ids[stream.order[p]]).into_owned()),
            message,
        },
        other => other,
    })?;
    let index = stream.parts.len();
    stream.parts.push(empty);
    stream.placed.extend(
        absent
            .iter()
            .enumerate()
            .map(|(row, &position)| (position, index, row)),
    );
    stream.placed.sort_unstable_by_key(|p| p.0);
    let mut prepared = Prepared {
        all_judged: opts.all_judged,
        ..Prepared::default()
    };
    let parts = &stream.parts;
    prepared.reserve_or_fail(
        stream.placed.len(),
        parts.iter().map(|p| p.hits.values.len()).sum(),
        parts.iter().map(|p| p.judged_positive.values.len()).sum(),
    )?;
    for &(_, part, row) in &stream.placed {
        prepared.push_row_of(&stream.parts[part], row);
    }
    let mut query_ids = Vec::new();
    query_ids
        .try_reserve_exact(stream.order.len())
        .map_err(|_| CoreError::OutOfMemory {
            what: "the query ids of the judgments".to_owned(),
        })?;
    for &q in &stream.order {
        query_ids.push(crate::memory::try_to_vec(
            qrels.query_ids[q],
            "the query ids of the judgments",
        )?);
    }
    Ok(Some(PreparedFiles {
        query_ids,
        in_run,
        run_only: stream.run_only,
        prepared,
        run_tag: stream.run_tag,
    }))
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
            frac in proptest::option::of("0{0,8}[0-9]{0,17}"),
        ) {
            let text = format!("{}{int}{}", if negative { "-" } else { "" }, frac.map_or(String::new(), |f| format!(".{f}")));
            let want: f64 = text.parse().unwrap();
            let got = parse_number(text.as_bytes()).unwrap();
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", text);
        }

        /// Any text made of a number's characters reads as `str::parse` reads it (or not at
        /// all), through either path.
        #[test]
        fn number_like_text_reads_like_std(text in "[-+]?[0-9]{0,22}(\\.[0-9]{0,22})?([eE][-+]?[0-9]{0,4})?|[-+]?(inf|INF|infinity|nan|NaN|1_0|0x1|1e|\\.e1|e5)") {
            let want = text.parse::<f64>().ok().filter(|x| !x.is_nan());
            let got = parse_number(text.as_bytes());
            proptest::prop_assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{}", text);
        }

        #[test]
        fn any_float_round_trips(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
            for text in [format!("{x}"), format!("{x:e}"), format!("{x:.3}")] {
                let want: f64 = text.parse().unwrap();
                let got = parse_number(text.as_bytes()).unwrap();
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
            let (got_end, may_be_non_ascii) = Scanner::new(&text).field_end(start);
            proptest::prop_assert_eq!(got_end, end);
            if !text[start..end].is_ascii() {
                proptest::prop_assert!(may_be_non_ascii);
            }
            let mut next = start;
            while next < text.len() && is_separator(text[next]) && text[next] != b'\n' {
                next += 1;
            }
            proptest::prop_assert_eq!(Scanner::new(&text).skip_blanks(start), next);
        }
    }

    proptest::proptest! {
        #[test]
        fn block_masks_match_byte_tests(bytes in proptest::collection::vec(proptest::prop_oneof![
            proptest::num::u8::ANY, proptest::prelude::Just(b' '), proptest::prelude::Just(b'\n'),
            proptest::prelude::Just(0u8), proptest::prelude::Just(0x80u8),
            proptest::prelude::Just(b'\t'), proptest::prelude::Just(1u8),
            proptest::prelude::Just(8u8), proptest::prelude::Just(0x0bu8),
            proptest::prelude::Just(b'\r'), proptest::prelude::Just(0x0eu8),
            proptest::prelude::Just(0x1fu8)], 64)) {
            let block: [u8; 64] = bytes.clone().try_into().unwrap();
            let bit = |test: &dyn Fn(u8) -> bool| {
                bytes.iter().enumerate().fold(0u64, |m, (i, &b)| m | (u64::from(test(b)) << i))
            };
            let want = BlockMasks {
                // C's isspace, and NUL.
                separators: bit(&|b| b == 0 || b" \t\n\x0b\x0c\r".contains(&b)),
                newlines: bit(&|b| b == b'\n'),
                high: bit(&|b| b >= 0x80),
                spaces_and_tabs: bit(&|b| b == b' ' || b == b'\t'),
            };
            proptest::prop_assert_eq!(block_masks(&block), want);
            proptest::prop_assert_eq!(block_masks_by_words(&block), want);
        }
    }

    /// `RunLines::ordinary_line` by its definition, byte by byte: the six field ends of the
    /// line at `pos` if it is six non-empty ASCII fields, not starting with `#`, with one space
    /// or tab between them, ending in LF; None otherwise.
    fn ordinary_line_by_bytes(text: &[u8], pos: usize) -> Option<[usize; 6]> {
        let end = pos + memchr::memchr(b'\n', text.get(pos..)?)?;
        let line = &text[pos..end];
        if line.first() == Some(&b'#') || !line.is_ascii() {
            return None;
        }
        let fields: Vec<&[u8]> = line.split(|&b| b == b' ' || b == b'\t').collect();
        if fields.len() != 6
            || fields
                .iter()
                .any(|f| f.is_empty() || f.iter().any(|&b| is_separator(b)))
        {
            return None;
        }
        let mut ends = [0usize; 6];
        let mut at = pos;
        for (end, field) in ends.iter_mut().zip(&fields) {
            at += field.len();
            *end = at;
            at += 1;
        }
        Some(ends)
    }

    proptest::proptest! {
        #[test]
        fn ordinary_run_lines_are_found_as_byte_by_byte(
            text in proptest::collection::vec(proptest::prop_oneof![
                8 => proptest::prelude::Just(b"q1 Q0 d1 1 0.5 run\n".to_vec()),
                2 => proptest::prelude::Just(b"q1\tQ0\tdoc-2\t2\t-1e3\tr\n".to_vec()),
                1 => proptest::prelude::Just(b"q12345678901234567890 Q0 d1234567890123456789 1 0.123456789012345678 tag\n".to_vec()),
                1 => proptest::prelude::Just(b"q1  Q0 d1 1 0.5 run\n".to_vec()),
                1 => proptest::prelude::Just(b"q1 Q0 d1 1 0.5 run\r\n".to_vec()),
                1 => proptest::prelude::Just(b"q1 Q0 d1 1 0.5 run extra\n".to_vec()),
                1 => proptest::prelude::Just(b"# q1 Q0 d1 1 0.5\n".to_vec()),
                1 => proptest::prelude::Just(b" q1 Q0 d1 1 0.5 r\n".to_vec()),
                1 => proptest::prelude::Just(b"q\xc3\xa9 Q0 d1 1 0.5 r\n".to_vec()),
                1 => proptest::prelude::Just(b"q1 Q0 d\x001 1 0.5 r\n".to_vec()),
                1 => proptest::prelude::Just(b"\n".to_vec()),
                2 => proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
            ], 0..12)
        ) {
            let text = text.concat();
            let mut lines = RunLines::new(&text);
            // Every position in increasing order, as the parser asks, then some backwards,
            // which the window must serve too. What the window accepts is what the bytes
            // say; a line of less than 64 bytes that the bytes accept, the window accepts.
            for pos in (0..text.len()).chain((0..text.len()).rev().step_by(7)) {
                let by_bytes = ordinary_line_by_bytes(&text, pos);
                match lines.ordinary_line(pos) {
                    Some(ends) => proptest::prop_assert_eq!(Some(ends), by_bytes),
                    None => proptest::prop_assert!(by_bytes.is_none_or(|ends| ends[5] - pos >= 64)),
                }
            }
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
            // Control bytes that C's isspace does not accept: part of the id, as in trec_eval.
            Just(b"d\x01x".to_vec()),
            Just(b"\x1fq".to_vec()),
            proptest::collection::vec(any::<u8>(), 0..6),
        ];
        let separator = prop_oneof![
            Just(b" ".to_vec()),
            Just(b"\t".to_vec()),
            Just(b"  ".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\x0b".to_vec()),
            Just(b" \x0c".to_vec()),
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

    /// (query, doc, value)
    type Record<'a> = (&'a [u8], &'a [u8], f64);

    /// The records a line-by-line reading of the documented rules accepts, grouped by query
    /// in order of first appearance, or the first refused line.
    /// A parsed file's records, query by query, in file order within each query.
    fn records<'a>(file: &TrecFile<'a>) -> Vec<Record<'a>> {
        let view = file.docs.view();
        file.query_ids
            .iter()
            .enumerate()
            .flat_map(|(q, id)| view.row(q).iter().map(move |d| (*id, d.0, d.1)))
            .collect()
    }

    /// Records with their values' bits, so that -0.0 and 0.0 differ and NaN equals itself.
    fn bits<'a>(records: &[Record<'a>]) -> Vec<(&'a [u8], &'a [u8], u64)> {
        records.iter().map(|r| (r.0, r.1, r.2.to_bits())).collect()
    }

    /// A byte between fields: C's isspace (space, tab, LF, VT, FF, CR), as trec_eval splits
    /// its lines, and NUL (refused where it is read).
    fn naive_separator(b: u8) -> bool {
        b == 0 || b" \t\n\x0b\x0c\r".contains(&b)
    }

    fn naive_records(text: &[u8], kind: TrecKind) -> Result<Vec<Record<'_>>, usize> {
        let mut records = Vec::new();
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        for (number, line) in lines.iter().enumerate() {
            let refuse = Err(number + 1);
            let mut fields = Vec::new();
            let mut i = 0;
            while i < line.len() {
                if naive_separator(line[i]) {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < line.len() && !naive_separator(line[i]) {
                    i += 1;
                }
                fields.push((start, i));
            }
            let field = |k: usize| &line[fields[k].0..fields[k].1];
            let inner_cr = |from: usize| {
                let rest = &line[from..];
                rest.iter()
                    .position(|&b| b == b'\r')
                    .is_some_and(|c| rest[c..].iter().any(|&b| !naive_separator(b)))
            };
            // A NUL byte among the blanks before a field that is read, or after a qrels line's
            // last field (the rest of a run line and of a comment is not read).
            let nul_before = |k: usize| {
                let from = if k == 0 { 0 } else { fields[k - 1].1 };
                line[from..fields[k].0].contains(&0)
            };
            if fields.is_empty() {
                if line.contains(&0) {
                    return refuse;
                }
                continue;
            }
            if field(0)[0] == b'#' {
                if nul_before(0) || inner_cr(0) {
                    return refuse;
                }
                continue;
            }
            let wanted = kind.n_fields();
            let too_many = kind == TrecKind::Qrels && fields.len() > wanted;
            if fields.len() < wanted || too_many || inner_cr(fields[wanted - 1].1) {
                return refuse;
            }
            let trailing_nul = kind == TrecKind::Qrels && line[fields[wanted - 1].1..].contains(&0);
            if (0..wanted).any(nul_before) || trailing_nul {
                return refuse;
            }
            if std::str::from_utf8(field(0)).is_err() || std::str::from_utf8(field(2)).is_err() {
                return refuse;
            }
            let value = match kind {
                TrecKind::Qrels => {
                    let text = std::str::from_utf8(field(3)).unwrap_or("x");
                    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
                    let (int, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
                    let integer = !int.is_empty()
                        && int.len() <= 15
                        && int.bytes().all(|b| b.is_ascii_digit())
                        && fraction.bytes().all(|b| b == b'0');
                    if !integer {
                        return refuse;
                    }
                    let value: f64 = int.parse().unwrap();
                    if text.starts_with('-') { -value } else { value }
                }
                TrecKind::Run => match std::str::from_utf8(field(4)).map(str::parse::<f64>) {
                    Ok(Ok(x)) if !x.is_nan() => x,
                    _ => return refuse,
                },
            };
            records.push((field(0), field(2), value));
        }
        let mut order: Vec<&[u8]> = Vec::new();
        for record in &records {
            if !order.contains(&record.0) {
                order.push(record.0);
            }
        }
        records.sort_by_key(|record| order.iter().position(|q| *q == record.0));
        Ok(records)
    }

    fn text_with_damage() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            trec_like_text(),
            mostly_valid(TrecKind::Qrels),
            mostly_valid(TrecKind::Run),
            // CR-only and CRLF line ends, grades written as decimals.
            (
                mostly_valid(TrecKind::Qrels),
                prop_oneof![
                    Just(&b"\r"[..]),
                    Just(&b"\r\n"[..]),
                    Just(&b".0\n"[..]),
                    Just(&b".5\n"[..])
                ]
            )
                .prop_map(|(text, end)| text.split(|&b| b == b'\n').collect::<Vec<_>>().join(end)),
            (
                mostly_valid(TrecKind::Run),
                prop_oneof![Just(&b"\r"[..]), Just(&b"\r\n"[..]), Just(&b" x\r\n"[..])]
            )
                .prop_map(|(text, end)| text.split(|&b| b == b'\n').collect::<Vec<_>>().join(end)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn parse_agrees_with_a_line_by_line_reading(text in text_with_damage(), run in proptest::bool::ANY) {
            let kind = if run { TrecKind::Run } else { TrecKind::Qrels };
            let got = parse(&text, kind, p());
            match (naive_records(&text, kind), got) {
                (Ok(want), Ok(file)) => {
                    proptest::prop_assert_eq!(bits(&records(&file)), bits(&want));
                    proptest::prop_assert_eq!(file.line_ends, memchr::memchr_iter(b'\n', &text).count());
                }
                (Err(line), Err(CoreError::Format { line: got, .. })) => proptest::prop_assert_eq!(got, line),
                (want, got) => proptest::prop_assert!(false, "naive {:?} parse {:?}", want.map(|r| r.len()), got.map(|f| f.docs.values.len())),
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Files of several chunks (hundreds of kilobytes), grouped by query or not, with blank
        /// and comment lines that leave parts of the chunks' regions unwritten.
        #[test]
        fn large_files_agree_with_a_line_by_line_reading(
            lines in proptest::collection::vec((0u16..60, 0u16..400, 0u8..8, 0u8..40), 4000..9000),
            grouped in proptest::bool::ANY,
            run in proptest::bool::ANY,
        ) {
            let kind = if run { TrecKind::Run } else { TrecKind::Qrels };
            let mut lines = lines;
            if grouped {
                lines.sort_by_key(|l| l.0);
            }
            let mut text = Vec::new();
            for (i, &(q, d, value, extra)) in lines.iter().enumerate() {
                match extra {
                    0 => text.extend_from_slice(b"# a comment line\n"),
                    1 => text.extend_from_slice(b"\n"),
                    _ => {}
                }
                // Each document once per query: the line number makes it unique.
                let line = match kind {
                    TrecKind::Qrels => format!("query{q} 0 doc{d}-{i} {}\n", value % 4),
                    TrecKind::Run => format!("query{q} Q0 doc{d}-{i} 1 {}.25 tag\n", value),
                };
                text.extend_from_slice(line.as_bytes());
            }
            let want = naive_records(&text, kind).map_err(|line| format!("line {line}")).unwrap();
            let file = parse(&text, kind, p()).unwrap();
            proptest::prop_assert_eq!(bits(&records(&file)), bits(&want));
        }
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
                let opts = RankingOptions { duplicates, max_docs, all_judged: keep_first, ties: false };
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
            let opts = RankingOptions { duplicates, max_docs, all_judged: !keep_first, ties: false };
            if let (Ok(qrels), Ok(run)) =
                (parse(&qrels, TrecKind::Qrels, p()), parse(&run, TrecKind::Run, p()))
            {
                let _ = join_and_prepare(&qrels, &run, opts);
            }
        }
    }

    #[test]
    fn plain_decimal_edge_cases_read_like_std() {
        for text in [
            ".5",
            "5.",
            "-.5",
            "+0",
            "-0",
            "00.00",
            "0.0000000000000000000001",
            "9007199254740991",
            "9007199254740992",
            "1234567890123456789",
            "12345678.12345678",
            "0.12345678901234567",
            "99999999999999999999",
            "1.2.3",
            ".",
            "-",
            "+",
            "",
            "1e5",
            "12345678a",
            "1234567.",
            "0.00000000000000000000001",
        ] {
            let want = text.parse::<f64>().ok();
            assert_eq!(
                parse_number(text.as_bytes()).map(f64::to_bits),
                want.map(f64::to_bits),
                "{text}"
            );
        }
    }

    #[test]
    fn numbers_and_grades_are_recognised() {
        assert_eq!(parse_number(b"2"), Some(2.0));
        assert_eq!(parse_number(b"1e3"), Some(1000.0));
        assert_eq!(parse_number(b"inf"), Some(f64::INFINITY));
        assert_eq!(parse_number(b"."), None);
        assert_eq!(parse_number(b"1.2.3"), None);
        assert_eq!(parse_number(b"nan"), None);
        for (text, grade) in [
            (&b"2"[..], 2.0),
            (b"-1", -1.0),
            (b"+3", 3.0),
            (b"2.0", 2.0),
            (b"2.", 2.0),
            (b"007", 7.0),
            (b"999999999999999", 999_999_999_999_999.0),
        ] {
            assert_eq!(parse_grade(text), Ok(grade), "{text:?}");
        }
        // What trec_eval's atol would read each refused grade as.
        for (text, atol, what) in [
            (&b"2.5"[..], "2", "not an integer"),
            (b"-0.5", "-0", "not an integer"),
            (b"1e3", "1", "not an integer"),
            (b"1e400", "1", "not an integer"),
            (b"inf", "0", "not an integer"),
            (b"nan", "0", "not a number"),
            (b".5", "0", "not an integer"),
            (b"high", "0", "not a number"),
            (b"2.0x", "2", "not a number"),
        ] {
            let message = parse_grade(text).unwrap_err();
            assert!(
                message.contains(what) && message.contains(&format!("read this one as {atol})")),
                "{message}"
            );
        }
        assert!(
            parse_grade(b"1234567890123456")
                .unwrap_err()
                .contains("too large")
        );
    }

    fn error(text: &[u8], kind: TrecKind) -> String {
        parse(text, kind, p()).unwrap_err().to_string()
    }

    #[test]
    fn qrels_lines_with_more_than_four_fields_are_refused() {
        let err = error(b"q 0 d1 1\nq Q0 d2 2 0.5 run\n", TrecKind::Qrels);
        assert!(
            err.starts_with("mem.txt:2: more than 4 fields") && err.contains("Malformed line"),
            "{err}"
        );
        // Trailing blanks and CRLF are not fields; a run line may carry more text.
        assert!(parse(b"q 0 d1 1 \t\r\nq 0 d2 0\r\n", TrecKind::Qrels, p()).is_ok());
        assert!(parse(b"q Q0 d1 1 0.5 run extra\r\n", TrecKind::Run, p()).is_ok());
    }

    #[test]
    fn cr_only_line_ends_are_refused_with_the_line() {
        let cr = "a carriage return (CR) is followed by more text";
        for (text, kind, line) in [
            (&b"q 0 d1 1\rq 0 d2 0\r"[..], TrecKind::Qrels, 1),
            (b"q 0 d1 1\nq 0 d2 0\rq 0 d3 1\r\n", TrecKind::Qrels, 2),
            (b"q Q0 d1 1 0.5 r\rq Q0 d2 2 0.4 r\r", TrecKind::Run, 1),
            (b"# header\rq Q0 d1 1 0.5 r\r", TrecKind::Run, 1),
            (b"q 0\rq 0 d2 0\r", TrecKind::Qrels, 1),
            (b"q Q0 d1\rq Q0 d2 2 0.4 r\r", TrecKind::Run, 1),
        ] {
            let err = error(text, kind);
            assert!(err.starts_with(&format!("mem.txt:{line}: {cr}")), "{err}");
        }
        // A CR right before the LF (or the end of the file) ends the line.
        let run = parse(b"q Q0 d1 1 0.5 r\r\nq Q0 d2 2 0.4 r \r", TrecKind::Run, p()).unwrap();
        assert_eq!(run.docs.values.len(), 2);
    }

    #[test]
    fn invalid_utf8_ids_are_refused_with_the_line() {
        let err = error(b"q Q0 d1 1 0.5 r\nq\xff Q0 d1 1 0.5 r\n", TrecKind::Run);
        assert!(
            err.starts_with("mem.txt:2: the query id 'q\u{fffd}' is not valid UTF-8"),
            "{err}"
        );
        let err = error(b"q 0 d\xc3 1\n", TrecKind::Qrels);
        assert!(err.starts_with("mem.txt:1: the document id"), "{err}");
        // Valid UTF-8 ids, and invalid bytes outside the ids, are read.
        let run = "q\u{e9} Q0 \u{6587}\u{66f8} 1 0.5 r\n".as_bytes();
        assert_eq!(
            parse(run, TrecKind::Run, p()).unwrap().query_ids,
            vec!["q\u{e9}".as_bytes()]
        );
        assert!(parse(b"# \xff\nq Q0 d 1 0.5 \xff\n", TrecKind::Run, p()).is_ok());
    }

    #[test]
    fn the_run_tag_is_the_last_lines() {
        let mut text = Vec::new();
        for i in 0..30000 {
            text.extend_from_slice(format!("q{} Q0 d{i} 1 0.5 tag{}\n", i % 7, i % 3).as_bytes());
        }
        text.extend_from_slice(b"q1 Q0 dx 1 0.5 last\n# a comment\n\n");
        let run = parse(&text, TrecKind::Run, p()).unwrap();
        assert_eq!(run.run_tag, Some(&b"last"[..]));
        assert_eq!(parse(b"", TrecKind::Run, p()).unwrap().run_tag, None);
        let qrels = parse(b"q 0 d 1\n", TrecKind::Qrels, p()).unwrap();
        assert_eq!((qrels.run_tag, qrels.integral), (None, vec![true]));
    }

    fn temporary(name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("ragmeter-trec-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn files_are_read_whole_and_non_files_are_refused() {
        // Several read blocks, the last one partial.
        let contents: Vec<u8> = (0..READ_BLOCK_BYTES * 2 + 12345)
            .map(|i| (i % 251) as u8)
            .collect();
        let path = temporary("blocks", &contents);
        assert_eq!(&*read(&path).unwrap(), &contents[..]);
        std::fs::write(&path, b"").unwrap();
        assert!(read(&path).unwrap().is_empty());
        std::fs::remove_file(&path).unwrap();
        let err = read(&std::env::temp_dir()).unwrap_err().to_string();
        assert!(err.contains("is a directory, not a regular file"), "{err}");
        #[cfg(unix)]
        {
            let err = read(Path::new("/dev/zero")).unwrap_err().to_string();
            assert!(
                err.contains("/dev/zero: is a device, not a regular file"),
                "{err}"
            );
        }
        let missing = read(Path::new("/nonexistent/run.txt")).unwrap_err();
        assert!(matches!(missing, CoreError::Io { .. }), "{missing}");
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

    fn gzip_file(name: &str, text: &[u8]) -> std::path::PathBuf {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        temporary(name, &encoder.finish().unwrap())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// A run read in blocks (compressed or plain) gives what the whole file gives, and a
        /// run that is not grouped by query is left to the whole-file path.
        #[test]
        fn streamed_runs_equal_whole_runs(
            qrels in mostly_valid(TrecKind::Qrels),
            lines in proptest::collection::vec((0u8..4, 0u8..6, proptest::prop_oneof![proptest::prelude::Just(0.5f64), proptest::prelude::Just(0.25), proptest::prelude::Just(1.0)]), 0..40),
            grouped in proptest::bool::ANY,
            block_bytes in 1usize..120,
            keep_first in proptest::bool::ANY,
            compressed in proptest::bool::ANY,
        ) {
            let mut lines = lines;
            if grouped {
                lines.sort_by_key(|l| l.0);
            }
            let run: Vec<u8> = lines
                .iter()
                .enumerate()
                .flat_map(|(i, (q, d, s))| format!("q{q} Q0 d{d} {i} {s} tag{i}\n").into_bytes())
                .collect();
            let Ok(qrels) = parse(&qrels, TrecKind::Qrels, p()) else { return Ok(()); };
            let duplicates = if keep_first { Duplicates::KeepFirst } else { Duplicates::Raise };
            let opts = RankingOptions { duplicates, max_docs: None, all_judged: keep_first, ties: false };
            let name = format!("stream-{block_bytes}-{}-{compressed}", lines.len());
            let path = if compressed { gzip_file(&name, &run) } else { temporary(&name, &run) };
            let streamed = stream_in_blocks(&qrels, &path, opts, block_bytes, 0);
            std::fs::remove_file(&path).unwrap();
            let whole = parse(&run, TrecKind::Run, p()).unwrap();
            let want = join_and_prepare(&qrels, &whole, opts);
            match (want, streamed) {
                (Ok(want), Ok(Some(got))) => {
                    let query_ids: Vec<&[u8]> = got.query_ids.iter().map(Vec::as_slice).collect();
                    proptest::prop_assert_eq!(&query_ids, &want.query_ids);
                    proptest::prop_assert_eq!(&got.in_run, &want.in_run);
                    let run_only: Vec<&[u8]> = got.run_only.iter().map(Vec::as_slice).collect();
                    proptest::prop_assert_eq!(&run_only, &want.run_only);
                    proptest::prop_assert_eq!(&got.prepared, &want.prepared);
                    proptest::prop_assert_eq!(got.run_tag.as_deref(), whole.run_tag);
                }
                (_, Ok(None)) => proptest::prop_assert!(!grouped),
                // Both refuse the run (the first offending query may differ: the whole path
                // reports it in trec_eval's order, the stream in run order).
                // Repeated documents are named at their line.
                (Err(want), Err(got)) => proptest::prop_assert!(
                    matches!(&want, CoreError::InvalidQuery { query_id: Some(_), .. } | CoreError::Format { .. })
                        && matches!(&got, CoreError::InvalidQuery { query_id: Some(_), .. } | CoreError::Format { .. }),
                    "{} / {}", want, got
                ),
                (want, got) => proptest::prop_assert!(false, "whole {:?} streamed {:?}", want.map(|w| w.query_ids), got.map(|g| g.map(|g| g.query_ids))),
            }
        }
    }

    #[test]
    fn streamed_errors_give_the_line_of_the_whole_file() {
        let mut run = Vec::new();
        for i in 0..500 {
            run.extend_from_slice(format!("q{} Q0 d{i} 1 0.5 r\n", i / 100).as_bytes());
        }
        run.extend_from_slice(b"q9 Q0 dx 1 bad r\n");
        let path = gzip_file("bad-line.gz", &run);
        let qrels = parse(b"q1 0 d1 1\n", TrecKind::Qrels, p()).unwrap();
        let opts = RankingOptions {
            duplicates: Duplicates::Raise,
            max_docs: None,
            all_judged: false,
            ties: false,
        };
        let err = stream_in_blocks(&qrels, &path, opts, 1000, 0)
            .unwrap_err()
            .to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(
            err.contains(":501: the score 'bad' is not a number"),
            "{err}"
        );
    }

    #[test]
    fn streamed_repeats_are_named_at_the_line_of_the_whole_file() {
        // d3 of q1 is listed again 300 lines later, blocks of 1000 bytes apart; the error is
        // the whole file's, whatever the block size.
        let mut run = b"# a comment\n".to_vec();
        for i in 0..500 {
            let doc = if i == 303 { 3 } else { i };
            run.extend_from_slice(format!("q{} Q0 d{doc} {i} 0.5 r\n", i / 400).as_bytes());
        }
        let path = gzip_file("repeat-line.gz", &run);
        let qrels = parse(b"q0 0 d3 1\n", TrecKind::Qrels, p()).unwrap();
        let opts = RankingOptions {
            duplicates: Duplicates::Raise,
            max_docs: None,
            all_judged: false,
            ties: false,
        };
        let whole = parse(&run, TrecKind::Run, p()).unwrap();
        let want = join_and_prepare(&qrels, &whole, opts).unwrap_err();
        let want = want
            .to_string()
            .replace(&p().display().to_string(), &path.display().to_string());
        assert!(want.contains(":305: query 'q0'"), "{want}");
        for block_bytes in [40, 1000, 1 << 20] {
            let got = stream_in_blocks(&qrels, &path, opts, block_bytes, 0).unwrap_err();
            assert_eq!(got.to_string(), want, "blocks of {block_bytes} bytes");
        }
        std::fs::remove_file(&path).unwrap();
    }

    /// `prepare_files` against reading both files whole and joining them.
    fn check_prepare_files(name: &str, run: &[u8]) {
        let qrels_text = b"q1 0 d3 1\nq2 0 d4 2\nq3 0 d5 1\n";
        let qrels_path = temporary(&format!("{name}.qrels"), qrels_text);
        let run_path = temporary(&format!("{name}.run"), run);
        let opts = RankingOptions {
            duplicates: Duplicates::Raise,
            max_docs: None,
            all_judged: false,
            ties: false,
        };
        let got = prepare_files(&qrels_path, &run_path, opts).unwrap();
        let qrels = parse(qrels_text, TrecKind::Qrels, &qrels_path).unwrap();
        let whole = parse(run, TrecKind::Run, &run_path).unwrap();
        let want = join_and_prepare(&qrels, &whole, opts).unwrap();
        let ids = |v: &[&[u8]]| v.iter().map(|q| q.to_vec()).collect::<Vec<_>>();
        assert_eq!(got.query_ids, ids(&want.query_ids));
        assert_eq!(got.in_run, want.in_run);
        assert_eq!(got.run_only, ids(&want.run_only));
        assert_eq!(got.prepared, want.prepared);
        assert_eq!(got.run_tag.as_deref(), whole.run_tag);
        std::fs::remove_file(&qrels_path).unwrap();
        std::fs::remove_file(&run_path).unwrap();
    }

    #[test]
    fn prepare_files_reads_large_runs_grouped_or_not_as_whole_files() {
        // Small; large and grouped by query (read in blocks); large with the queries
        // interleaved (the blocks give up, the run is read whole, the qrels parsed once).
        let line = |q: &str, i: usize| format!("{q} Q0 d{i} {i} {} tag\n", 1.0 / (i + 1) as f64);
        let small: String = (0..50).map(|i| line("q1", i)).collect();
        check_prepare_files("small", small.as_bytes());
        let per_query = STREAM_PLAIN_BYTES as usize / 2 / 30 + 1000;
        let grouped: String = ["q1", "q2", "q9"]
            .iter()
            .flat_map(|q| (0..per_query).map(move |i| line(q, i)))
            .collect();
        assert!(grouped.len() as u64 >= STREAM_PLAIN_BYTES);
        check_prepare_files("grouped", grouped.as_bytes());
        let interleaved: String = (0..per_query)
            .flat_map(|i| ["q1", "q2", "q9"].map(|q| line(q, i)))
            .collect();
        check_prepare_files("interleaved", interleaved.as_bytes());
    }

    #[test]
    fn joins_on_judged_queries() {
        let qrels = parse(b"a 0 d1 1\nb 0 d2 1\n", TrecKind::Qrels, p()).unwrap();
        let run = parse(b"c Q0 d9 1 1.0 r\na Q0 d1 1 1.0 r\n", TrecKind::Run, p()).unwrap();
        let opts = RankingOptions {
            duplicates: Duplicates::Raise,
            max_docs: None,
            all_judged: false,
            ties: false,
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
