//! Python `str` items read as UTF-8 for the text kernels. The items of lists are read as
//! borrowed references, checked one by one here (so that a million-item call never loops in
//! Python), and copied into one buffer per chunk: under the stable ABI every reference count
//! change is a function call, and keeping a `PyBackedStr` per item costs three of them
//! (measured on a million short answers: reading the inputs fell from about 420 to 170 ns per
//! pair, and further with the objects prefetched from the list's array).

use pyo3::Borrowed;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString};

use crate::borrowed::for_each_list_item;
use crate::error::{invalid_input, type_error};
use crate::pipeline::{Batch, NextBatch};

/// Items copied and worked on together: each string is read while it is still in the CPU
/// cache, instead of in three passes over the whole list.
pub const CHUNK: usize = 8192;

/// Work on fewer UTF-8 bytes than this runs on the calling thread with the GIL held: handing it
/// to the thread pool would cost more (tens of microseconds) than the work itself.
pub const INLINE_BELOW_BYTES: usize = 16 * 1024;

/// Items worked on together by one thread: a chunk is shared out in parts of this size.
pub const PART: usize = 512;

/// `0..n` in consecutive ranges of at most `CHUNK` items (none when `n == 0`).
pub fn chunks(n: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..n)
        .step_by(CHUNK)
        .map(move |start| start..(start + CHUNK).min(n))
}

/// Chunks of `n` list items read by `read(range)` (which also says how many bytes of text a
/// chunk holds), as the batches of `pipelined`: parts of `PART` items; a call of one small
/// chunk is worked on inline.
pub fn text_chunks<In>(
    n: usize,
    mut read: impl FnMut(std::ops::Range<usize>) -> PyResult<(In, usize)>,
) -> impl FnMut(Option<(In, usize)>) -> NextBatch<(In, usize)> {
    let mut ranges = chunks(n);
    move |_done| {
        let Some(range) = ranges.next() else {
            return Ok(None);
        };
        let len = range.len();
        let (input, bytes) = read(range)?;
        Ok(Some(Batch {
            input: (input, len),
            parts: len.div_ceil(PART),
            inline: n <= CHUNK && bytes < INLINE_BELOW_BYTES,
        }))
    }
}

/// The items of part `part` of a chunk of `len` items.
pub fn part_range(part: usize, len: usize) -> std::ops::Range<usize> {
    let start = part * PART;
    start..(start + PART).min(len)
}

/// Strings of a chunk copied into one buffer. The items are read as borrowed references and
/// copied once: under the stable ABI every reference count change is a function call, and
/// keeping a `PyBackedStr` per item costs three of them.
#[derive(Default)]
pub struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    pub fn with_capacity(n: usize) -> Self {
        Texts {
            text: String::with_capacity(n * 48),
            ends: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn total_bytes(&self) -> usize {
        self.text.len()
    }

    /// The strings `range`.
    pub fn strs(&self, range: std::ops::Range<usize>) -> Vec<&str> {
        let mut start = if range.start == 0 {
            0
        } else {
            self.ends[range.start - 1]
        };
        self.ends[range]
            .iter()
            .map(|&end| {
                let s = &self.text[start..end];
                start = end;
                s
            })
            .collect()
    }
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    if obj.is_none() {
        return "None".to_owned();
    }
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".to_owned(), |name| name.to_string())
}

/// Borrow one `str` as UTF-8 (no copy for ASCII; other strings get a cached UTF-8 copy from
/// CPython); `place` names it in errors (e.g. `answers[3]`).
pub fn backed_str(
    obj: Bound<'_, PyAny>,
    place: &dyn Fn() -> String,
    expected: &str,
) -> PyResult<PyBackedStr> {
    let text = obj.cast_into::<PyString>().map_err(|err| {
        let obj = err.into_inner();
        type_error(format!("{} is {}; {expected}", place(), type_name(&obj)))
    })?;
    PyBackedStr::try_from(text).map_err(|_| {
        invalid_input(format!(
            "{} contains a lone surrogate code point, which is not valid Unicode text; clean it \
             first, e.g. with text.encode('utf-8', 'replace').decode()",
            place()
        ))
    })
}

/// Append one `str` item to `texts`; `place` names it in errors (e.g. `answers[3]`). Reads
/// the borrowed item without running Python code; errors are built from an owned reference.
pub fn push_item(
    texts: &mut Texts,
    item: Borrowed<'_, '_, PyAny>,
    place: &dyn Fn() -> String,
    expected: &str,
) -> PyResult<()> {
    // An exact `str` is recognised by its type pointer; the general check is a call under abi3.
    let text = match item.cast_exact::<PyString>() {
        Ok(text) => Ok(text),
        Err(_) => item.cast::<PyString>(),
    };
    if let Ok(text) = text
        && let Ok(text) = text.to_str()
    {
        texts.push(text);
        return Ok(());
    }
    // A non-str item, or a str that is not valid Unicode (a lone surrogate).
    backed_str(item.to_owned(), place, expected).map(|_| ())
}

/// The items `range` of `list`, which must be `str`s, copied into one buffer.
pub fn list_texts(
    list: &Bound<'_, PyList>,
    range: std::ops::Range<usize>,
    argument: &str,
    expected: &str,
) -> PyResult<Texts> {
    let mut texts = Texts::with_capacity(range.len());
    for_each_list_item(list, range, |i, item| {
        push_item(&mut texts, item, &|| format!("{argument}[{i}]"), expected)
    })?;
    Ok(texts)
}
