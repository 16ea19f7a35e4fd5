//! Answer-text normalisers, written to give exactly what the reference Python definitions give:
//!
//! * `Basic` is the DocVQA/ST-VQA evaluation's `" ".join(s.strip().lower().split())`.
//! * `Squad` is the official SQuAD v1.1 `normalize_answer`: `str.lower()`, drop
//!   `string.punctuation` (ASCII only), `re.sub(r"\b(a|an|the)\b", " ", s)`, then
//!   `" ".join(s.split())`. FlashRAG's `normalize_answer` is the same code.
//! * `Bergen` is BERGEN's `normalize`: the same steps, with the articles removed by the
//!   third-party `regex` module instead of `re`. Its word characters (for `\b`) are Unicode's
//!   (UTS #18): `Alphabetic`, marks (Mn, Mc, Me), decimal numbers (Nd), connector punctuation
//!   (Pc) and the join controls U+200C/U+200D; `re`'s are letters and all numbers. The two
//!   differ only next to non-ASCII characters (3,444 code points of Unicode 14, mostly
//!   combining marks and "other numbers" such as `²`).
//!
//! The Python behaviours they reproduce:
//! * `str.lower()` is the full Unicode lower-case mapping with the final-sigma rule; Rust's
//!   `str::to_lowercase` implements the same rules.
//! * `str.split()` splits on `str.isspace()` characters: Unicode `White_Space` plus the ASCII
//!   separators U+001C..U+001F, which Rust's `char::is_whitespace` does not include.
//! * A word character of Python's `re` (for `\b`) is a letter or number (general category L* or
//!   N*) or `_`; `_` is punctuation and already gone when articles are removed. Rust's
//!   `char::is_alphanumeric` also counts `Other_Alphabetic` marks (e.g. Devanagari vowel signs),
//!   so the general category is looked up instead.
//!
//! Character properties come from the Unicode version of the Rust standard library (case
//! mapping, 17.0) and of the `unicode-general-category` crate (word characters, 16.0). A test
//! compares both with Python on every code point Python's Unicode database assigns: they agree,
//! except that the final-sigma rule reads whether the neighbouring letters are cased, and
//! U+0295 (ʕ) is a cased letter in Unicode 14 (Python 3.11) but not in Unicode 17, so `"AΣʕ"`
//! lower-cases to `"aσʕ"` in Python 3.11 and to `"aςʕ"` here.

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::{CoreError, CoreResult};

/// Which text normalisation to apply before comparing answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalization {
    /// Compare the texts as given.
    Identity,
    /// Lower case, white space collapsed to single spaces, no leading or trailing space.
    Basic,
    /// SQuAD v1.1: lower case, ASCII punctuation and the articles a/an/the removed, white space
    /// collapsed.
    Squad,
    /// `Squad` with Unicode's word characters for the article step, as BERGEN's `normalize`
    /// (which removes articles with the `regex` module).
    Bergen,
}

impl Normalization {
    /// Parse the name used by the Python API (`"none"`, `"basic"`, `"squad"`).
    pub fn from_name(name: &str) -> CoreResult<Self> {
        match name {
            "none" => Ok(Normalization::Identity),
            "basic" => Ok(Normalization::Basic),
            "squad" => Ok(Normalization::Squad),
            "bergen" => Ok(Normalization::Bergen),
            other => Err(CoreError::argument(
                "normalize",
                format!(
                    "unknown normalisation {other:?}; use \"squad\", \"bergen\", \"basic\" \
                     or None"
                ),
            )),
        }
    }
}

/// `str.isspace()` of Python.
#[inline]
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A word character of Python's `re` module in a `str` pattern (`\w`), minus `_`.
#[inline]
fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        UppercaseLetter
            | LowercaseLetter
            | TitlecaseLetter
            | ModifierLetter
            | OtherLetter
            | DecimalNumber
            | LetterNumber
            | OtherNumber
    )
}

/// A word character of the `regex` module in a `str` pattern (`\w`, Unicode's definition of
/// UTS #18), minus `_`: `Alphabetic`, a mark, a decimal number, connector punctuation or a
/// join control.
#[inline]
fn is_unicode_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    if c.is_alphabetic() || matches!(c, '\u{200c}' | '\u{200d}') {
        return true;
    }
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        NonspacingMark | SpacingMark | EnclosingMark | DecimalNumber | ConnectorPunctuation
    )
}

fn is_article(word: &str) -> bool {
    matches!(word, "a" | "an" | "the")
}

/// Builds the normalised text: words separated by exactly one space, nothing leading or
/// trailing. `separate` marks that a separator was seen since the last character written.
struct Collapsed<'a> {
    out: &'a mut String,
    separate: bool,
}

impl Collapsed<'_> {
    #[inline]
    fn push(&mut self, c: char) {
        if self.separate && !self.out.is_empty() {
            self.out.push(' ');
        }
        self.separate = false;
        self.out.push(c);
    }
}

/// `" ".join(lowered.split())` into `out`.
fn collapse_spaces(lowered: impl Iterator<Item = char>, out: &mut String) {
    let mut text = Collapsed {
        out,
        separate: false,
    };
    for c in lowered {
        if is_python_space(c) {
            text.separate = true;
        } else {
            text.push(c);
        }
    }
}

/// SQuAD's punctuation, article and white-space steps over already lower-cased text, with
/// `is_word` the word characters of `\b`.
fn squad_steps(lowered: impl Iterator<Item = char>, is_word: fn(char) -> bool, out: &mut String) {
    let mut text = Collapsed {
        out,
        separate: false,
    };
    // Where the current run of word characters starts in `out`: `before` is the length before
    // the separator the run may have added, `start` where its first character is.
    let mut run: Option<(usize, usize)> = None;
    let close_run = |text: &mut Collapsed<'_>, run: &mut Option<(usize, usize)>| {
        if let Some((before, start)) = run.take()
            && is_article(&text.out[start..])
        {
            // re.sub replaces the article by one space.
            text.out.truncate(before);
            text.separate = true;
        }
    };
    for c in lowered {
        if c.is_ascii_punctuation() {
            // Removed before the article step, so "the-end" is the one word "theend".
            continue;
        }
        if is_word(c) {
            if run.is_none() {
                let before = text.out.len();
                if text.separate && !text.out.is_empty() {
                    text.out.push(' ');
                }
                text.separate = false;
                run = Some((before, text.out.len()));
            }
            text.out.push(c);
            continue;
        }
        close_run(&mut text, &mut run);
        if is_python_space(c) {
            text.separate = true;
        } else {
            text.push(c);
        }
    }
    close_run(&mut text, &mut run);
}

/// `str.isspace()` of Python for an ASCII byte.
fn is_ascii_python_space(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | 0x1c..=b' ')
}

/// Whether ASCII `bytes` is already white-space collapsed: no space at either end, no two
/// spaces in a row, and no other white space (nor any other byte below 0x20, which sends the
/// few texts with control characters down the general path). Eight bytes at a time.
fn is_single_spaced_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return true;
    };
    if first == b' ' || last == b' ' {
        return false;
    }
    let mut words = bytes.chunks_exact(8);
    let mut space_before = false;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // Some byte below 0x20: exact for ASCII bytes (no byte has its top bit set).
        if x.wrapping_sub(0x20 * ONES) & !x & HIGHS != 0 {
            return false;
        }
        // Top bit of each byte that is a space (exact: no borrow crosses bytes).
        let t = x ^ (0x20 * ONES);
        let spaces = !(((t & LOWS).wrapping_add(LOWS)) | t) & HIGHS;
        if spaces & (spaces << 8) != 0 || (space_before && spaces & 0x80 != 0) {
            return false;
        }
        space_before = spaces >> 63 != 0;
    }
    for &byte in words.remainder() {
        let space = byte == b' ';
        if byte < b' ' || (space && space_before) {
            return false;
        }
        space_before = space;
    }
    true
}

/// `Basic` for ASCII text: copy the words, then lower-case them in place.
fn basic_ascii(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    // Most answers are already single-spaced: then only the case changes.
    if is_single_spaced_ascii(bytes) {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_ascii_python_space(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !is_ascii_python_space(bytes[i]) {
            i += 1;
        }
        if start < i {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&text[start..i]);
        }
    }
    out.make_ascii_lowercase();
}

/// `Squad` for ASCII text: the steps of `squad_steps`, byte by byte.
fn squad_ascii(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut separate = false;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte.is_ascii_punctuation() {
            i += 1;
        } else if is_ascii_python_space(byte) {
            separate = true;
            i += 1;
        } else if byte.is_ascii_alphanumeric() {
            // A run of word characters; punctuation inside it is dropped and joins its parts.
            let before = out.len();
            if separate && !out.is_empty() {
                out.push(' ');
            }
            let start = out.len();
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i].is_ascii_punctuation())
            {
                if bytes[i].is_ascii_alphanumeric() {
                    out.push(char::from(bytes[i].to_ascii_lowercase()));
                }
                i += 1;
            }
            separate = is_article(&out[start..]);
            if separate {
                out.truncate(before);
            }
        } else {
            // Control characters: neither word nor space, kept as they are.
            if separate && !out.is_empty() {
                out.push(' ');
            }
            separate = false;
            out.push(char::from(byte));
            i += 1;
        }
    }
}

/// `Basic` for text without a capital sigma: lower-case each word on its own (only the sigma's
/// lower case depends on its neighbours), copying ASCII words whole.
fn basic_words(text: &str, out: &mut String) {
    for word in text.split(is_python_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        if word.is_ascii() {
            let start = out.len();
            out.push_str(word);
            out[start..].make_ascii_lowercase();
        } else {
            out.extend(word.chars().flat_map(char::to_lowercase));
        }
    }
}

/// The capital sigma, whose lower case is final or not depending on the letters around it.
const CAPITAL_SIGMA: char = '\u{3a3}';

/// Normalise `text` into `out` (cleared first). `Identity` copies the text.
pub fn normalize_into(text: &str, how: Normalization, out: &mut String) {
    out.clear();
    let ascii = text.is_ascii();
    match how {
        Normalization::Identity => out.push_str(text),
        Normalization::Basic if ascii => basic_ascii(text, out),
        Normalization::Basic if !text.contains(CAPITAL_SIGMA) => basic_words(text, out),
        Normalization::Basic => collapse_spaces(text.to_lowercase().chars(), out),
        // Both agree on ASCII text: `\w` is [A-Za-z0-9_] there for `re` and `regex` alike.
        Normalization::Squad | Normalization::Bergen if ascii => squad_ascii(text, out),
        Normalization::Squad | Normalization::Bergen => {
            let is_word = if how == Normalization::Squad {
                is_word
            } else {
                is_unicode_word
            };
            if text.contains(CAPITAL_SIGMA) {
                squad_steps(text.to_lowercase().chars(), is_word, out);
            } else {
                squad_steps(text.chars().flat_map(char::to_lowercase), is_word, out);
            }
        }
    }
}

/// `text` itself when nothing is to be done, else its normalisation written into `buffer`.
pub(crate) fn normalized<'a>(text: &'a str, how: Normalization, buffer: &'a mut String) -> &'a str {
    if how == Normalization::Identity {
        text
    } else {
        normalize_into(text, how, buffer);
        buffer
    }
}

/// Normalise `text` into a new string.
pub fn normalize(text: &str, how: Normalization) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, how, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squad(s: &str) -> String {
        normalize(s, Normalization::Squad)
    }

    fn basic(s: &str) -> String {
        normalize(s, Normalization::Basic)
    }

    #[test]
    fn single_spaced_check_matches_a_byte_by_byte_definition() {
        let naive = |b: &[u8]| {
            b.first() != Some(&b' ')
                && b.last() != Some(&b' ')
                && !b.windows(2).any(|w| w == b"  ")
                && !b.iter().any(|&c| c < b' ')
        };
        let alphabet = [
            b'a', b'Z', b'q', b'E', b' ', b' ', b'\t', b'\n', 0x1c, 0x1f, b'.', 0x7f, 0x00,
        ];
        let mut state = 12345u64;
        for len in 0..40 {
            for _ in 0..300 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                        alphabet[(state >> 33) as usize % alphabet.len()]
                    })
                    .collect();
                assert_eq!(is_single_spaced_ascii(&text), naive(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn squad_follows_the_official_steps() {
        assert_eq!(squad("The Eiffel Tower"), "eiffel tower");
        assert_eq!(squad("eiffel tower."), "eiffel tower");
        assert_eq!(squad("Paris, France"), "paris france");
        assert_eq!(squad("  A  cat,\tan apple; THE end "), "cat apple end");
        // Punctuation goes first, so it can join words; articles are whole words only.
        assert_eq!(squad("the-end"), "theend");
        assert_eq!(squad("theatre anthem a.n"), "theatre anthem");
        assert_eq!(squad("a a a"), "");
        assert_eq!(squad(""), "");
        assert_eq!(squad("...!"), "");
        // A non-word, non-space character keeps its place and separates words.
        assert_eq!(squad("x\u{0}the\u{0}y"), "x\u{0} \u{0}y");
        // Non-ASCII letters are word characters: no article inside "théa".
        assert_eq!(squad("théa thé the"), "théa thé");
        // A combining acute accent is a mark (Mn), not a word character: `\b` falls before it.
        assert_eq!(squad("a\u{301} b"), "\u{301} b");
        // Unicode punctuation is kept (string.punctuation is ASCII only).
        assert_eq!(squad("«the» end"), "« » end");
        // U+001F is white space for Python's str.split().
        assert_eq!(squad("x\u{1f}y"), "x y");
        // The ASCII fast path and the general path agree (a non-ASCII "é" forces the latter).
        for text in [
            "The cat, the-end. A",
            "an\u{0}a\u{7f}the",
            " x  a. b ",
            "a.\u{1}b the",
            "!!",
        ] {
            let general = squad(&format!("{text} é"));
            assert_eq!(
                format!("{} é", squad(text)).trim_start(),
                general,
                "{text:?}"
            );
        }
    }

    #[test]
    fn basic_lowercases_and_collapses() {
        assert_eq!(basic("  The  Eiffel\nTower. "), "the eiffel tower.");
        for spaced in [
            "The Eiffel Tower",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\x1fb",
            "a b c",
            " ",
        ] {
            let python = spaced
                .to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let python = python.replace('\x1f', " ");
            assert_eq!(basic(spaced), python, "{spaced:?}");
        }
        assert_eq!(basic(""), "");
        assert_eq!(basic(" \t "), "");
        // Final sigma, as Python's str.lower().
        assert_eq!(
            basic("ΟΔΟΣ ΟΔΟΣ"),
            "\u{3bf}\u{3b4}\u{3bf}\u{3c2} \u{3bf}\u{3b4}\u{3bf}\u{3c2}"
        );
        assert_eq!(basic("İ"), "i\u{307}");
        assert_eq!(basic("ÉCOLE  Straße"), "école straße");
        assert_eq!(squad("ΟΔΟΣ, the ΟΔΟΣ"), basic("ΟΔΟΣ ΟΔΟΣ"));
        assert_eq!(basic("a\u{3000}b\u{85}c"), "a b c");
    }

    #[test]
    fn names() {
        assert_eq!(
            Normalization::from_name("squad").unwrap(),
            Normalization::Squad
        );
        assert!(Normalization::from_name("SQuAD").is_err());
    }
}
