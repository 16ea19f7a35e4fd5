//! Bindings of the answer metrics (`ragmeter_core::answers`): one value (or a row of values)
//! per answer from its references, read and scored chunk by chunk (`crate::pipeline`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use ragmeter_core::CoreError;
use ragmeter_core::answers::bleu::{
    BleuStats, BleuTokenizer, MAX_ORDER, Smoothing, bleu_statistics, compute_bleu,
};
use ragmeter_core::answers::claims::claim_recall_scores;
use ragmeter_core::answers::patterns::{
    MatchMode, NoAnswerPatterns, no_answer_scores as core_no_answer_scores, pattern_scores,
};
use ragmeter_core::answers::rouge::{RougeType, rouge_scores as core_rouge_scores};
use ragmeter_core::answers::{AnswerMetric, answer_scores as core_answer_scores};

use crate::borrowed::for_each_list_item;
use crate::error::{ByPosition, invalid_input, to_pyerr, type_error};
use crate::normalize::normalization;
use crate::pipeline::pipelined;
use crate::strings::{Texts, list_texts, part_range, push_item, text_chunks, type_name};

/// How the entries of the list beside the answers read: each is one `str` or a list/tuple of
/// `str` (`argument[i]`), of which there must be at least one unless `allow_empty`.
#[derive(Clone, Copy)]
struct RowsOf {
    argument: &'static str,
    expected: &'static str,
    item: &'static str,
    allow_empty: bool,
}

const REFERENCES: RowsOf = RowsOf {
    argument: "references",
    expected: "each reference must be a str or a list of acceptable str",
    item: "acceptable answer",
    allow_empty: false,
};

const CLAIMS: RowsOf = RowsOf {
    argument: "claims",
    expected: "each entry of claims must be a list of str (one str is one claim)",
    item: "claim",
    allow_empty: true,
};

/// Entries `range` as CSR rows.
fn rows_of(
    list: &Bound<'_, PyList>,
    range: std::ops::Range<usize>,
    of: RowsOf,
) -> PyResult<(Vec<usize>, Texts)> {
    let mut offsets = Vec::with_capacity(range.len() + 1);
    let mut texts = Texts::with_capacity(range.len());
    offsets.push(0);
    let argument = of.argument;
    for_each_list_item(list, range, |i, item| {
        if item.is_instance_of::<PyString>() {
            push_item(
                &mut texts,
                item,
                &|| format!("{argument}[{i}]"),
                of.expected,
            )?;
        } else if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
            // Several strings: rare enough to read through owned references.
            let item = item.to_owned();
            let before = texts.len();
            for (j, alternative) in item.try_iter()?.enumerate() {
                let alternative = alternative?;
                push_item(
                    &mut texts,
                    alternative.as_borrowed(),
                    &|| format!("{argument}[{i}][{j}]"),
                    "each item must be a str",
                )?;
            }
            if texts.len() == before && !of.allow_empty {
                return Err(invalid_input(format!(
                    "{argument}[{i}] is an empty {}; give at least one {}",
                    type_name(&item),
                    of.item
                )));
            }
        } else {
            return Err(type_error(format!(
                "{argument}[{i}] is {}; {}",
                type_name(&item.to_owned()),
                of.expected
            )));
        }
        offsets.push(texts.len());
        Ok(())
    })?;
    Ok((offsets, texts))
}

/// The values of every answer, from `score(offsets, rows, answers)` over blocks of answers and
/// their rows, in order. An item error of the core (`InvalidQuery`: a bad pattern) names the
/// item by its position in the whole list.
fn per_answer<T: Send + Sync + 'static>(
    py: Python<'_>,
    rows: &Bound<'_, PyList>,
    answers: &Bound<'_, PyList>,
    of: RowsOf,
    n_threads: Option<usize>,
    score: impl Fn(&[usize], &[&str], &[&str]) -> Result<Vec<T>, CoreError> + Send + Sync + 'static,
) -> PyResult<Vec<T>> {
    if rows.len() != answers.len() {
        return Err(invalid_input(format!(
            "{0} and answers must have the same length (one {0} entry per answer), got {1} {0} \
             and {2} answers",
            of.argument,
            rows.len(),
            answers.len()
        )));
    }
    let expected =
        "each answer must be one str (only references may list several acceptable strings)";
    let mut values = Vec::with_capacity(answers.len());
    pipelined(
        py,
        n_threads,
        text_chunks(answers.len(), |range| {
            let start = range.start;
            let (offsets, row_texts) = rows_of(rows, range.clone(), of)?;
            let answer_texts = list_texts(answers, range, "answers", expected)?;
            let bytes = row_texts.total_bytes() + answer_texts.total_bytes();
            Ok(((start, offsets, row_texts, answer_texts), bytes))
        }),
        move |((start, offsets, row_texts, answer_texts), len), part| {
            let range = part_range(part, *len);
            // The block's rows, rebased to start at 0.
            let (first, last) = (offsets[range.start], offsets[range.end]);
            let block_offsets: Vec<usize> = offsets[range.start..=range.end]
                .iter()
                .map(|o| o - first)
                .collect();
            score(
                &block_offsets,
                &row_texts.strs(first..last),
                &answer_texts.strs(range.clone()),
            )
            .map_err(|error| (start + range.start, error))
        },
        |chunk| match chunk {
            Ok(chunk) => {
                values.extend(chunk);
                Ok(())
            }
            Err((offset, CoreError::InvalidQuery { query, message, .. })) => Err(invalid_input(
                format!("{}[{}]{message}", of.argument, offset + query),
            )),
            Err((_, error)) => Err(to_pyerr(error, &ByPosition)),
        },
    )?;
    Ok(values)
}

/// One score per answer (best over its references) for `metric_name`.
#[pyfunction]
#[pyo3(signature = (references, answers, metric_name, normalize_name, threshold, n_threads=None))]
pub fn answer_scores<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    metric_name: &str,
    normalize_name: &str,
    threshold: f64,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let metric =
        AnswerMetric::from_name(metric_name, threshold).map_err(|e| to_pyerr(e, &ByPosition))?;
    let how = normalization(normalize_name)?;
    let scores = per_answer(
        py,
        references,
        answers,
        REFERENCES,
        n_threads,
        move |o, r, a| core_answer_scores(o, r, a, metric, how),
    )?;
    Ok(scores.into_pyarray(py))
}

/// 1.0 per answer that a pattern of its references matches (`mode_name`: `"search"` or
/// `"fullmatch"`), after normalising the answer.
#[pyfunction]
#[pyo3(signature = (references, answers, mode_name, normalize_name, n_threads=None))]
pub fn pattern_match_scores<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    mode_name: &str,
    normalize_name: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let mode = match mode_name {
        "search" => MatchMode::Search,
        "fullmatch" => MatchMode::FullMatch,
        other => {
            return Err(invalid_input(format!(
                "mode: unknown match mode {other:?}; use \"search\" or \"fullmatch\""
            )));
        }
    };
    let how = normalization(normalize_name)?;
    let scores = per_answer(
        py,
        references,
        answers,
        REFERENCES,
        n_threads,
        move |o, r, a| pattern_scores(o, r, a, mode, how),
    )?;
    Ok(scores.into_pyarray(py))
}

/// 1.0 per answer whose normalised text one of `patterns` matches.
#[pyfunction]
#[pyo3(signature = (answers, patterns, normalize_name, n_threads=None))]
pub fn no_answer_scores<'py>(
    py: Python<'py>,
    answers: &Bound<'py, PyList>,
    patterns: Vec<String>,
    normalize_name: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let how = normalization(normalize_name)?;
    let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let compiled = std::sync::Arc::new(
        NoAnswerPatterns::new(&patterns).map_err(|e| to_pyerr(e, &ByPosition))?,
    );
    let expected = "each answer must be one str";
    let mut scores = Vec::with_capacity(answers.len());
    pipelined(
        py,
        n_threads,
        text_chunks(answers.len(), |range| {
            let texts = list_texts(answers, range, "answers", expected)?;
            let bytes = texts.total_bytes();
            Ok((texts, bytes))
        }),
        move |(texts, len), part| {
            core_no_answer_scores(&texts.strs(part_range(part, *len)), &compiled, how)
        },
        |chunk| {
            scores.extend(chunk);
            Ok(())
        },
    )?;
    Ok(scores.into_pyarray(py))
}

/// Claim recall per answer (NaN for an answer without claims).
#[pyfunction]
#[pyo3(signature = (claims, answers, normalize_name, threshold, n_threads=None))]
pub fn claim_recall<'py>(
    py: Python<'py>,
    claims: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    normalize_name: &str,
    threshold: f64,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let how = normalization(normalize_name)?;
    // Checked before any chunk is read, so the error is the same for every input.
    claim_recall_scores(&[0], &[], &[], how, threshold).map_err(|e| to_pyerr(e, &ByPosition))?;
    let scores = per_answer(py, claims, answers, CLAIMS, n_threads, move |o, c, a| {
        claim_recall_scores(o, c, a, how, threshold)
    })?;
    Ok(scores.into_pyarray(py))
}

/// ROUGE of each answer against its references: an array of shape (answers, types, 3) of
/// precision, recall and F-measure.
#[pyfunction]
#[pyo3(signature = (references, answers, rouge_types, use_stemmer, n_threads=None))]
pub fn rouge_scores<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    rouge_types: Vec<String>,
    use_stemmer: bool,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let types = rouge_types
        .iter()
        .map(|name| RougeType::from_name(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| to_pyerr(e, &ByPosition))?;
    if types.is_empty() {
        return Err(invalid_input(
            "rouge_types: give at least one ROUGE type".to_owned(),
        ));
    }
    let width = types.len() * 3;
    let scores = per_answer(
        py,
        references,
        answers,
        REFERENCES,
        n_threads,
        move |o, r, a| core_rouge_scores(o, r, a, &types, use_stemmer),
    )?;
    let flat: Vec<f64> = scores
        .iter()
        .flat_map(|s| [s.precision, s.recall, s.fmeasure])
        .collect();
    let n = flat.len() / width;
    flat.into_pyarray(py).reshape([n, width])
}

fn bleu_tokenizer(name: &str) -> PyResult<BleuTokenizer> {
    match name {
        "13a" => Ok(BleuTokenizer::Thirteen),
        "none" => Ok(BleuTokenizer::None),
        other => Err(invalid_input(format!(
            "tokenize: unknown tokenizer {other:?}; use \"13a\" (sacrebleu's default) or \"none\""
        ))),
    }
}

fn smoothing(method: &str, value: Option<f64>) -> PyResult<Smoothing> {
    Smoothing::from_name(method, value).map_err(|e| to_pyerr(e, &ByPosition))
}

/// BLEU's statistics of each answer: an array of shape (answers, 10) of `sacrebleu`'s
/// `[hyp_len, ref_len, correct_1..4, total_1..4]`.
#[pyfunction]
#[pyo3(signature = (references, answers, lowercase, tokenize, n_threads=None))]
pub fn bleu_stats<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    lowercase: bool,
    tokenize: &str,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let tokenizer = bleu_tokenizer(tokenize)?;
    let stats = per_answer(
        py,
        references,
        answers,
        REFERENCES,
        n_threads,
        move |o, r, a| bleu_statistics(o, r, a, lowercase, tokenizer),
    )?;
    let n = stats.len();
    let flat: Vec<u64> = stats.iter().flat_map(BleuStats::to_array).collect();
    flat.into_pyarray(py).reshape([n, 2 + 2 * MAX_ORDER])
}

/// Sentence BLEU of each answer (0-100).
#[pyfunction]
#[pyo3(signature = (references, answers, lowercase, tokenize, smooth_method, smooth_value, effective_order, n_threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn sentence_bleu<'py>(
    py: Python<'py>,
    references: &Bound<'py, PyList>,
    answers: &Bound<'py, PyList>,
    lowercase: bool,
    tokenize: &str,
    smooth_method: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let tokenizer = bleu_tokenizer(tokenize)?;
    let smoothing = smoothing(smooth_method, smooth_value)?;
    let scores = per_answer(
        py,
        references,
        answers,
        REFERENCES,
        n_threads,
        move |o, r, a| {
            Ok(bleu_statistics(o, r, a, lowercase, tokenizer)?
                .iter()
                .map(|stats| compute_bleu(stats, smoothing, effective_order).score)
                .collect())
        },
    )?;
    Ok(scores.into_pyarray(py))
}

/// BLEU of summed statistics (`sacrebleu`'s `[hyp_len, ref_len, correct_1..4, total_1..4]`):
/// the score, the four precisions and the brevity penalty.
#[pyfunction]
pub fn bleu_from_stats(
    stats: [u64; 2 + 2 * MAX_ORDER],
    smooth_method: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
) -> PyResult<(f64, [f64; MAX_ORDER], f64)> {
    let smoothing = smoothing(smooth_method, smooth_value)?;
    let score = compute_bleu(&BleuStats::from_array(&stats), smoothing, effective_order);
    Ok((score.score, score.precisions, score.brevity_penalty))
}

/// The Porter stem of one word, as `rouge-score` stems a token (for the tests against NLTK).
#[pyfunction]
pub fn porter_stem(word: &str) -> String {
    ragmeter_core::answers::porter::stem(word)
}

/// The tokens of `text` as sacrebleu reads them (for the tests against sacrebleu).
#[pyfunction]
pub fn bleu_tokens(text: &str, lowercase: bool, tokenize: &str) -> PyResult<Vec<String>> {
    Ok(ragmeter_core::answers::bleu::tokenize(
        text,
        lowercase,
        bleu_tokenizer(tokenize)?,
    ))
}
