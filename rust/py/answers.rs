//! Binding of the answer metrics (`ragmeter_core::answers`): one score per answer, best over
//! its references, read and scored chunk by chunk (`crate::pipeline`).

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use ragmeter_core::answers::{AnswerMetric, answer_scores as core_answer_scores};

use crate::borrowed::for_each_list_item;
use crate::error::{ByPosition, invalid_input, to_pyerr, type_error};
use crate::normalize::normalization;
use crate::pipeline::pipelined;
use crate::strings::{Texts, list_texts, part_range, push_item, text_chunks, type_name};

/// References `range` as CSR rows: each item is one `str` or a non-empty list/tuple of `str`.
fn reference_rows(
    references: &Bound<'_, PyList>,
    range: std::ops::Range<usize>,
) -> PyResult<(Vec<usize>, Texts)> {
    let expected = "each reference must be a str or a list of acceptable str";
    let mut offsets = Vec::with_capacity(range.len() + 1);
    let mut texts = Texts::with_capacity(range.len());
    offsets.push(0);
    for_each_list_item(references, range, |i, item| {
        if item.is_instance_of::<PyString>() {
            push_item(&mut texts, item, &|| format!("references[{i}]"), expected)?;
        } else if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
            // Several acceptable answers: rare enough to read through owned references.
            let item = item.to_owned();
            let before = texts.len();
            for (j, alternative) in item.try_iter()?.enumerate() {
                let alternative = alternative?;
                push_item(
                    &mut texts,
                    alternative.as_borrowed(),
                    &|| format!("references[{i}][{j}]"),
                    "each acceptable reference must be a str",
                )?;
            }
            if texts.len() == before {
                return Err(invalid_input(format!(
                    "references[{i}] is an empty {}; give at least one acceptable answer",
                    type_name(&item)
                )));
            }
        } else {
            return Err(type_error(format!(
                "references[{i}] is {}; {expected}",
                type_name(&item.to_owned())
            )));
        }
        offsets.push(texts.len());
        Ok(())
    })?;
    Ok((offsets, texts))
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
    if references.len() != answers.len() {
        return Err(invalid_input(format!(
            "references and answers must have the same length (one reference entry per answer), \
             got {} references and {} answers",
            references.len(),
            answers.len()
        )));
    }
    let expected =
        "each answer must be one str (only references may list several acceptable strings)";
    let mut scores = Vec::with_capacity(answers.len());
    pipelined(
        py,
        n_threads,
        text_chunks(answers.len(), |range| {
            let (offsets, reference_texts) = reference_rows(references, range.clone())?;
            let answer_texts = list_texts(answers, range, "answers", expected)?;
            let bytes = reference_texts.total_bytes() + answer_texts.total_bytes();
            Ok(((offsets, reference_texts, answer_texts), bytes))
        }),
        move |((offsets, reference_texts, answer_texts), len), part| {
            let range = part_range(part, *len);
            // The block's rows of references, rebased to start at 0.
            let (first, last) = (offsets[range.start], offsets[range.end]);
            let block_offsets: Vec<usize> = offsets[range.start..=range.end]
                .iter()
                .map(|o| o - first)
                .collect();
            core_answer_scores(
                &block_offsets,
                &reference_texts.strs(first..last),
                &answer_texts.strs(range),
                metric,
                how,
            )
        },
        |chunk| {
            scores.extend(chunk.map_err(|e| to_pyerr(e, &ByPosition))?);
            Ok(())
        },
    )?;
    Ok(scores.into_pyarray(py))
}
