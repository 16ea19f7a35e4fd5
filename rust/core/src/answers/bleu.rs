//! BLEU (Papineni et al., 2002, "BLEU: a Method for Automatic Evaluation of Machine
//! Translation") as `sacrebleu` 2.x computes it (Post, 2018, "A Call for Clarity in Reporting
//! BLEU Scores"), the answer the hypothesis:
//!
//! * each text lower-cased if asked (`str.lower`), stripped of trailing white space
//!   (`str.rstrip`) and tokenized by `13a` (mteval-v13a's tokenizer: `<skipped>` removed,
//!   `-` + line break joined, line breaks to spaces, `&quot;` `&amp;` `&lt;` `&gt;` decoded,
//!   then four regular-expression rules, then split at white space) or `none` (split at white
//!   space);
//! * per answer: its length, the reference length closest to it (the shorter on a tie), and
//!   for n = 1..4 the n-grams it has (`total`) and those it shares with the references
//!   (`correct`, each n-gram clipped at its largest count in any one reference);
//! * BLEU from summed statistics: `BP = exp(1 - r / c)` when `c < r` (0 when `c = 0`),
//!   `p_n = 100 correct_n / total_n` with `sacrebleu`'s smoothing of a zero count, `BLEU = BP
//!   exp(sum_n log p_n / N)` on a 0-100 scale, 0 when no n-gram matches. `N` is 4, or with
//!   `effective_order` the largest n with `total_n > 0`; a `p_n` of 0 counts as
//!   `log = -9999999999`, as `sacrebleu.utils.my_log`.
//!
//! The floating-point operations are `sacrebleu`'s, in its order, so the scores are equal to
//! the bit.

use super::rows::answer_rows;
use crate::normalize::is_python_space;
use crate::{CoreError, CoreResult};

/// The n-gram orders BLEU counts (`sacrebleu`'s `MAX_NGRAM_ORDER`).
pub const MAX_ORDER: usize = 4;

/// How a text is cut into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BleuTokenizer {
    /// mteval-v13a's tokenizer, `sacrebleu`'s default.
    Thirteen,
    /// White space only.
    None,
}

/// How a zero count of matching n-grams is smoothed (Chen and Cherry, 2014).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smoothing {
    /// No smoothing: a zero precision makes BLEU 0.
    None,
    /// Method 1: a zero count becomes `value` (default 0.1).
    Floor(f64),
    /// Method 2: `value` (default 1) added to the counts of n > 1.
    AddK(f64),
    /// Method 3 (NIST, mteval-v13a): the k-th zero precision is `1 / (2^k total_n)`.
    Exp,
}

impl Smoothing {
    /// `sacrebleu`'s `smooth_method` and `smooth_value` (`None`: its default value).
    pub fn from_name(name: &str, value: Option<f64>) -> CoreResult<Self> {
        let checked = |default: f64| {
            let value = value.unwrap_or(default);
            if value.is_finite() && value >= 0.0 {
                Ok(value)
            } else {
                Err(CoreError::argument(
                    "smooth_value",
                    format!("must be a finite number >= 0, got {value}"),
                ))
            }
        };
        match name {
            "exp" => Ok(Smoothing::Exp),
            "none" => Ok(Smoothing::None),
            "floor" => Ok(Smoothing::Floor(checked(0.1)?)),
            "add-k" => Ok(Smoothing::AddK(checked(1.0)?)),
            other => Err(CoreError::argument(
                "smooth_method",
                format!(
                    "unknown smoothing {other:?}; use \"exp\" (sacrebleu's default), \"floor\", \
                     \"add-k\" or \"none\""
                ),
            )),
        }
    }
}

/// The sufficient statistics of one answer (or, summed, of a corpus).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BleuStats {
    pub hypothesis_len: u64,
    pub reference_len: u64,
    pub correct: [u64; MAX_ORDER],
    pub total: [u64; MAX_ORDER],
}

impl BleuStats {
    /// The statistics as `sacrebleu` lists them: `[hyp_len, ref_len, correct..., total...]`.
    pub fn to_array(&self) -> [u64; 2 + 2 * MAX_ORDER] {
        let mut out = [0; 2 + 2 * MAX_ORDER];
        out[0] = self.hypothesis_len;
        out[1] = self.reference_len;
        out[2..2 + MAX_ORDER].copy_from_slice(&self.correct);
        out[2 + MAX_ORDER..].copy_from_slice(&self.total);
        out
    }

    pub fn from_array(values: &[u64; 2 + 2 * MAX_ORDER]) -> Self {
        let mut stats = BleuStats {
            hypothesis_len: values[0],
            reference_len: values[1],
            ..BleuStats::default()
        };
        stats.correct.copy_from_slice(&values[2..2 + MAX_ORDER]);
        stats.total.copy_from_slice(&values[2 + MAX_ORDER..]);
        stats
    }
}

/// A BLEU score with its parts, as `sacrebleu.BLEUScore`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BleuScore {
    /// BLEU on `sacrebleu`'s 0-100 scale.
    pub score: f64,
    /// The n-gram precisions (0-100).
    pub precisions: [f64; MAX_ORDER],
    /// The brevity penalty.
    pub brevity_penalty: f64,
}

/// `sacrebleu.utils.my_log`.
fn my_log(x: f64) -> f64 {
    if x == 0.0 { -9_999_999_999.0 } else { x.ln() }
}

/// `BLEU.compute_bleu` of summed statistics.
pub fn compute_bleu(stats: &BleuStats, smoothing: Smoothing, effective_order: bool) -> BleuScore {
    let (sys_len, ref_len) = (stats.hypothesis_len, stats.reference_len);
    let mut brevity_penalty = 1.0;
    if sys_len < ref_len {
        brevity_penalty = if sys_len > 0 {
            (1.0 - ref_len as f64 / sys_len as f64).exp()
        } else {
            0.0
        };
    }
    let mut precisions = [0.0; MAX_ORDER];
    if stats.correct.iter().all(|&c| c == 0) {
        return BleuScore {
            score: 0.0,
            precisions,
            brevity_penalty,
        };
    }
    let mut smooth_mteval = 1.0f64;
    let mut eff_order = MAX_ORDER;
    for n in 1..=MAX_ORDER {
        let (mut correct, mut total) = (stats.correct[n - 1] as f64, stats.total[n - 1] as f64);
        if let Smoothing::AddK(k) = smoothing
            && n > 1
        {
            correct += k;
            total += k;
        }
        if total == 0.0 {
            break;
        }
        if effective_order {
            eff_order = n;
        }
        if correct == 0.0 {
            match smoothing {
                Smoothing::Exp => {
                    smooth_mteval *= 2.0;
                    precisions[n - 1] = 100.0 / (smooth_mteval * total);
                }
                Smoothing::Floor(value) => precisions[n - 1] = 100.0 * value / total,
                Smoothing::None | Smoothing::AddK(_) => {}
            }
        } else {
            precisions[n - 1] = 100.0 * correct / total;
        }
    }
    // Python's sum() adds from the integer 0, left to right.
    let log_sum = precisions[..eff_order]
        .iter()
        .fold(0.0, |sum, &p| sum + my_log(p));
    BleuScore {
        score: brevity_penalty * (log_sum / eff_order as f64).exp(),
        precisions,
        brevity_penalty,
    }
}

/// One `re.sub` pass of a rule matching two bytes: `matches(a, b)` says whether the bytes at
/// `i` and `i + 1` match, `write` writes the replacement; matches do not overlap and the scan
/// goes on after a match, as in `re.sub`. Byte by byte is exact on UTF-8 text here: every rule
/// has an ASCII byte on one side and "anything but a digit" (any byte of a multi-byte
/// character) on the other, which the bytes of a character satisfy exactly when the character
/// does.
fn substitute_pairs(
    input: &[u8],
    out: &mut Vec<u8>,
    matches: impl Fn(u8, u8) -> bool,
    write: impl Fn(&mut Vec<u8>, u8, u8),
) {
    out.clear();
    let mut i = 0;
    while i < input.len() {
        if i + 1 < input.len() && matches(input[i], input[i + 1]) {
            write(out, input[i], input[i + 1]);
            i += 2;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
}

/// The bytes of `13a`'s first rule, `[\{-\~\[-\` -\&\(-\+\:-\@\/]`: each gets a space on
/// both sides.
fn is_13a_symbol(byte: u8) -> bool {
    matches!(byte, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// Reusable buffers of the tokenizer.
#[derive(Default)]
pub(crate) struct TokenizerBuffers {
    lowered: String,
    a: Vec<u8>,
    b: Vec<u8>,
}

/// `sacrebleu`'s pre-processing and tokenization of `text`, as a string whose tokens are
/// separated by Python white space (written to `buffers`; the returned slice borrows them).
fn tokenized<'b>(
    text: &str,
    lowercase: bool,
    tokenizer: BleuTokenizer,
    buffers: &'b mut TokenizerBuffers,
) -> &'b str {
    let TokenizerBuffers { lowered, a, b } = buffers;
    let mut text = text;
    if lowercase {
        *lowered = text.to_lowercase();
        text = lowered;
    }
    let text = text.trim_end_matches(is_python_space);
    a.clear();
    match tokenizer {
        BleuTokenizer::None => a.extend_from_slice(text.as_bytes()),
        BleuTokenizer::Thirteen => {
            let mut line = text
                .replace("<skipped>", "")
                .replace("-\n", "")
                .replace('\n', " ");
            if line.contains('&') {
                line = line
                    .replace("&quot;", "\"")
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">");
            }
            a.push(b' ');
            for &byte in line.as_bytes() {
                if is_13a_symbol(byte) {
                    a.extend_from_slice(&[b' ', byte, b' ']);
                } else {
                    a.push(byte);
                }
            }
            a.push(b' ');
            let period_or_comma = |x: u8| x == b'.' || x == b',';
            // ([^0-9])([\.,]) -> \1 \2 (space after)
            substitute_pairs(
                a,
                b,
                |x, y| !x.is_ascii_digit() && period_or_comma(y),
                |out, x, y| out.extend_from_slice(&[x, b' ', y, b' ']),
            );
            // ([\.,])([^0-9]) -> space \1 space \2
            substitute_pairs(
                b,
                a,
                |x, y| period_or_comma(x) && !y.is_ascii_digit(),
                |out, x, y| out.extend_from_slice(&[b' ', x, b' ', y]),
            );
            // ([0-9])(-) -> \1 \2 (space after)
            substitute_pairs(
                a,
                b,
                |x, y| x.is_ascii_digit() && y == b'-',
                |out, x, y| out.extend_from_slice(&[x, b' ', y, b' ']),
            );
            std::mem::swap(a, b);
        }
    }
    // Only ASCII bytes were inserted, between characters: still UTF-8.
    std::str::from_utf8(a).unwrap_or_default()
}

/// Buffers of one batch.
#[derive(Default)]
pub(crate) struct Scratch {
    tokenizer: TokenizerBuffers,
    arena: String,
    ranges: Vec<(usize, usize)>,
    /// Per text (the answer, then its references): its tokens in `ranges`.
    texts: Vec<std::ops::Range<usize>>,
    order: Vec<u32>,
    ids: Vec<u32>,
    /// n-grams as (order, start) of one text, sorted; with counts.
    grams: Vec<(u8, u32)>,
    reference_counts: Vec<(u8, u32, u32)>,
    merged: Vec<(u8, u32, u32)>,
}

/// Sorts `grams` (n-grams of `ids` as (n, start)) by order then tokens, and writes each
/// distinct n-gram once with its count into `out` (as (n, start of its first occurrence,
/// count)).
fn count_grams(ids: &[u32], grams: &mut [(u8, u32)], out: &mut Vec<(u8, u32, u32)>) {
    let key = |&(n, start): &(u8, u32)| (n, &ids[start as usize..start as usize + usize::from(n)]);
    grams.sort_unstable_by(|x, y| key(x).cmp(&key(y)));
    out.clear();
    for gram in grams.iter() {
        match out.last_mut() {
            Some(last) if key(&(last.0, last.1)) == key(gram) => last.2 += 1,
            _ => out.push((gram.0, gram.1, 1)),
        }
    }
}

fn grams_of(text: &std::ops::Range<usize>, grams: &mut Vec<(u8, u32)>) {
    grams.clear();
    let len = text.len();
    for n in 1..=MAX_ORDER.min(len) {
        for start in text.start..=text.end - n {
            grams.push((n as u8, start as u32));
        }
    }
}

/// The statistics of one answer against its references (`_compute_segment_statistics`).
fn segment_stats(
    scratch: &mut Scratch,
    answer: &str,
    references: &[&str],
    lowercase: bool,
    tokenizer: BleuTokenizer,
) -> BleuStats {
    scratch.arena.clear();
    scratch.ranges.clear();
    scratch.texts.clear();
    for text in std::iter::once(&answer).chain(references) {
        let tokens = tokenized(text, lowercase, tokenizer, &mut scratch.tokenizer);
        let first = scratch.ranges.len();
        for token in tokens.split(is_python_space).filter(|t| !t.is_empty()) {
            let start = scratch.arena.len();
            scratch.arena.push_str(token);
            scratch.ranges.push((start, scratch.arena.len()));
        }
        scratch.texts.push(first..scratch.ranges.len());
    }
    // Equal tokens get equal ids: sort them once.
    let (arena, ranges) = (&scratch.arena, &scratch.ranges);
    let text = |k: u32| {
        let (start, end) = ranges[k as usize];
        &arena[start..end]
    };
    scratch.order.clear();
    scratch.order.extend(0..ranges.len() as u32);
    scratch
        .order
        .sort_unstable_by(|&x, &y| text(x).cmp(text(y)));
    scratch.ids.clear();
    scratch.ids.resize(ranges.len(), 0);
    let mut next = 0u32;
    for (k, &token) in scratch.order.iter().enumerate() {
        if k > 0 && text(scratch.order[k - 1]) != text(token) {
            next += 1;
        }
        scratch.ids[token as usize] = next;
    }
    let ids = &scratch.ids;
    // The references' n-grams, each with its largest count in any one reference.
    scratch.merged.clear();
    for reference in &scratch.texts[1..] {
        grams_of(reference, &mut scratch.grams);
        count_grams(ids, &mut scratch.grams, &mut scratch.reference_counts);
        scratch.merged.extend_from_slice(&scratch.reference_counts);
    }
    let key = |&(n, start, _): &(u8, u32, u32)| {
        (n, &ids[start as usize..start as usize + usize::from(n)])
    };
    scratch
        .merged
        .sort_unstable_by(|x, y| key(x).cmp(&key(y)).then(y.2.cmp(&x.2)));
    scratch
        .merged
        .dedup_by(|later, kept| key(later) == key(kept));
    // The answer's n-grams, matched against them.
    let answer_text = scratch.texts[0].clone();
    grams_of(&answer_text, &mut scratch.grams);
    count_grams(ids, &mut scratch.grams, &mut scratch.reference_counts);
    let mut stats = BleuStats {
        hypothesis_len: answer_text.len() as u64,
        ..BleuStats::default()
    };
    let mut j = 0;
    for gram in &scratch.reference_counts {
        let n = usize::from(gram.0);
        stats.total[n - 1] += u64::from(gram.2);
        while j < scratch.merged.len() && key(&scratch.merged[j]) < key(gram) {
            j += 1;
        }
        if j < scratch.merged.len() && key(&scratch.merged[j]) == key(gram) {
            stats.correct[n - 1] += u64::from(gram.2.min(scratch.merged[j].2));
        }
    }
    // `_get_closest_ref_len`: the closest length, the shorter on a tie.
    let hyp_len = stats.hypothesis_len;
    stats.reference_len = scratch.texts[1..]
        .iter()
        .map(|r| r.len() as u64)
        .min_by_key(|&len| (len.abs_diff(hyp_len), len))
        .unwrap_or(0);
    stats
}

/// The BLEU statistics of each answer against its references.
pub fn bleu_statistics(
    reference_offsets: &[usize],
    references: &[&str],
    answers: &[&str],
    lowercase: bool,
    tokenizer: BleuTokenizer,
) -> CoreResult<Vec<BleuStats>> {
    let rows = answer_rows(
        "references",
        reference_offsets,
        references,
        answers.len(),
        false,
        "reference",
    )?;
    let mut scratch = Scratch::default();
    Ok(answers
        .iter()
        .enumerate()
        .map(|(i, answer)| segment_stats(&mut scratch, answer, rows.row(i), lowercase, tokenizer))
        .collect())
}

/// The tokens of `text` as `sacrebleu` reads them (for tests and the documentation).
pub fn tokenize(text: &str, lowercase: bool, tokenizer: BleuTokenizer) -> Vec<String> {
    let mut buffers = TokenizerBuffers::default();
    tokenized(text, lowercase, tokenizer, &mut buffers)
        .split(is_python_space)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(answer: &str, references: &[&str]) -> BleuStats {
        let offsets = [0, references.len()];
        bleu_statistics(
            &offsets,
            references,
            &[answer],
            false,
            BleuTokenizer::Thirteen,
        )
        .unwrap()[0]
    }

    #[test]
    fn thirteen_a_tokenizer() {
        let tokens = |s: &str| tokenize(s, false, BleuTokenizer::Thirteen).join(" ");
        assert_eq!(tokens("Hello, world."), "Hello , world .");
        assert_eq!(tokens("It costs $3.50, ok?"), "It costs $ 3.50 , ok ?");
        assert_eq!(tokens("1-2 a-b"), "1 - 2 a-b");
        // The replacements run one after the other: "&amp;lt;" becomes "&lt;", then "<".
        assert_eq!(tokens("&quot;x&quot; &amp;lt;"), "\" x \" <");
        assert_eq!(tokens("a<skipped>b"), "ab");
        assert_eq!(tokens("co-\nop\nx"), "coop x");
        assert_eq!(tokens("a..b"), "a . . b");
        assert_eq!(tokens("café."), "café .");
        assert_eq!(tokens("  "), "");
    }

    #[test]
    fn statistics_clip_and_pick_the_closest_reference() {
        let s = stats("the the the the", &["the cat", "the the x y z"]);
        assert_eq!(s.hypothesis_len, 4);
        // Lengths 2 and 5 are 2 and 1 away from 4: 5.
        assert_eq!(s.reference_len, 5);
        // "the" clipped at 2 (the second reference), "the the" at 1.
        assert_eq!(s.correct, [2, 1, 0, 0]);
        assert_eq!(s.total, [4, 3, 2, 1]);
        // On a tie the shorter length: 2 and 4 are both 1 away from 3.
        assert_eq!(stats("a b c", &["a b c d", "a b"]).reference_len, 2);
    }

    #[test]
    fn perfect_and_empty() {
        let perfect = compute_bleu(&stats("a b c d e", &["a b c d e"]), Smoothing::Exp, false);
        assert!((perfect.score - 100.0).abs() < 1e-12);
        let empty = compute_bleu(&stats("", &["a b"]), Smoothing::Exp, false);
        assert_eq!((empty.score, empty.brevity_penalty), (0.0, 0.0));
    }
}
