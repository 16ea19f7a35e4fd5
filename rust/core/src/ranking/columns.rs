//! A list of measures evaluated into one table of per-query values, with trec_eval's columns
//! that are no kernel (`runid`, `num_q`, `relstring`), its `-c` rules (a judged topic missing
//! from the run is a ranking of one unjudged document, a few measures are reset for it, and
//! `num_rel` is summed over every judged document), and its summaries over topics.
//!
//! Every evaluation goes through here: the library's (which turns the table into a numpy
//! matrix) and the `ragmeter evaluate` command's on TREC files (which summarises and prints it
//! without leaving the core). The rules are the declarations' (Python passes each measure's
//! column as [`ColumnSpec`]); this module only applies them, once.

use crate::prepare::Prepared;
use crate::ranking::{EvaluationOptions, MIN_GEO_MEAN, Measure, evaluate, relevance_strings};
use crate::{CoreError, CoreResult};

/// What fills a column.
#[derive(Clone, Debug)]
pub enum Column {
    /// A measure kernel, on the rankings or (`judged_only`, trec_eval `-J`) on their judged
    /// documents only.
    Kernel { measure: Measure, judged_only: bool },
    /// The run's tag (`runid`), the same text for every query.
    RunTag,
    /// `num_q`: 1 per query (its summary counts them).
    QueryCount,
    /// `relstring`: the relevance string of the first `length` ranks.
    RelevanceString { length: usize, judged_only: bool },
}

/// One column of the table, as the measure's declaration describes it.
#[derive(Clone, Debug)]
pub struct ColumnSpec {
    pub column: Column,
    /// Under `-c`, the value of a judged topic missing from the run is reset (0, or an empty
    /// text), as trec_eval resets it.
    pub reset_if_missing: bool,
    /// Under `-c`, the kernel whose values the summary adds up instead of the column's (trec_eval
    /// sums `num_rel` over every judged document, not the retrieved ones).
    pub complete_summary: Option<Measure>,
}

/// Per-query values of some columns: `numbers[q * n_columns + c]`, NaN where undefined (and in
/// text columns); `texts[c]` the values of a text column; `complete_totals[c]` the values the
/// summary of column `c` adds up under `-c`.
#[derive(Clone, Debug, Default)]
pub struct ValueTable {
    pub n_queries: usize,
    pub n_columns: usize,
    pub numbers: Vec<f64>,
    pub texts: Vec<Option<Vec<String>>>,
    pub complete_totals: Vec<Option<Vec<f64>>>,
}

impl ValueTable {
    /// The numbers of column `c`, query by query.
    pub fn column(&self, c: usize) -> impl Iterator<Item = f64> + '_ {
        self.numbers
            .iter()
            .skip(c)
            .step_by(self.n_columns.max(1))
            .copied()
    }
}

/// Evaluate `columns` on `prepared`.
///
/// `missing` marks the judged queries absent from the run that are scored as trec_eval `-c`
/// scores them (None: none is); `complete` says the evaluation is trec_eval's `-c` (the
/// complete summaries are computed); `run_tag` is the value of `runid` (an error when a
/// `RunTag` column has none).
pub fn evaluate_columns(
    prepared: &Prepared,
    columns: &[ColumnSpec],
    threshold: f64,
    missing: Option<&[bool]>,
    complete: bool,
    run_tag: Option<&str>,
) -> CoreResult<ValueTable> {
    let scored;
    let (prepared, missing) = match missing {
        Some(flags) if flags.iter().any(|&m| m) => {
            let mut with_missing = prepared.clone();
            with_missing.score_missing_as_trec_eval(flags)?;
            scored = with_missing;
            (&scored, Some(flags))
        }
        _ => (prepared, None),
    };
    let n = prepared.len();
    let n_columns = columns.len();
    let mut table = ValueTable {
        n_queries: n,
        n_columns,
        numbers: vec![f64::NAN; n * n_columns],
        texts: vec![None; n_columns],
        complete_totals: vec![None; n_columns],
    };
    // The kernels in two groups (judged only or not), each evaluated in one pass.
    let mut groups: [(Vec<usize>, Vec<Measure>); 2] = Default::default();
    for (c, spec) in columns.iter().enumerate() {
        match &spec.column {
            Column::Kernel {
                measure,
                judged_only,
            } => {
                let group = &mut groups[usize::from(*judged_only)];
                group.0.push(c);
                group.1.push(measure.clone());
            }
            Column::RunTag => {
                let tag = run_tag.ok_or_else(|| {
                    CoreError::argument(
                        "metrics",
                        "runid is the tag of a TREC run file; these rankings have none",
                    )
                })?;
                table.texts[c] = Some(vec![tag.to_owned(); n]);
            }
            Column::QueryCount => {
                for q in 0..n {
                    table.numbers[q * n_columns + c] = 1.0;
                }
            }
            Column::RelevanceString {
                length,
                judged_only,
            } => {
                table.texts[c] = Some(relevance_strings(prepared, *length, *judged_only)?);
            }
        }
    }
    for (judged_only, (positions, measures)) in groups.iter().enumerate() {
        if positions.is_empty() || n == 0 {
            continue;
        }
        let options = EvaluationOptions {
            threshold,
            judged_only: judged_only == 1,
        };
        let values = evaluate(prepared, measures, options)?;
        for (row, chunk) in values.chunks_exact(measures.len()).enumerate() {
            for (&c, &value) in positions.iter().zip(chunk) {
                table.numbers[row * n_columns + c] = value;
            }
        }
    }
    if let Some(flags) = missing {
        for (c, spec) in columns.iter().enumerate() {
            if !spec.reset_if_missing {
                continue;
            }
            for (q, _) in flags.iter().enumerate().filter(|(_, m)| **m) {
                match &mut table.texts[c] {
                    Some(texts) => texts[q].clear(),
                    None => table.numbers[q * n_columns + c] = 0.0,
                }
            }
        }
    }
    if complete && n > 0 {
        for (c, spec) in columns.iter().enumerate() {
            if let Some(kernel) = &spec.complete_summary {
                let options = EvaluationOptions {
                    threshold,
                    judged_only: false,
                };
                table.complete_totals[c] =
                    Some(evaluate(prepared, std::slice::from_ref(kernel), options)?);
            }
        }
    }
    Ok(table)
}

/// How a column is summarised over queries (the declarations' `summary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Summary {
    /// The mean, the values added one by one in the given order, as trec_eval adds them.
    Mean,
    /// trec_eval's geometric mean: `exp` of the mean of `log(max(value, MIN_GEO_MEAN))`.
    Geometric,
    /// The sum (counts such as `num_ret`).
    Sum,
    /// The number of queries (`num_q`).
    Count,
    /// The run's value (`runid`).
    Run,
    /// No summary (`relstring`).
    None,
}

impl Summary {
    pub fn from_name(name: &str) -> CoreResult<Summary> {
        Ok(match name {
            "mean" => Summary::Mean,
            "geometric" => Summary::Geometric,
            "sum" => Summary::Sum,
            "count" => Summary::Count,
            "run" => Summary::Run,
            "none" => Summary::None,
            other => {
                return Err(CoreError::argument(
                    "summary",
                    format!("expected mean, geometric, sum, count, run or none, got {other:?}"),
                ));
            }
        })
    }
}

/// The values added one by one, in their order (trec_eval's loop; a pairwise sum can change
/// the last printed digit).
pub fn sequential_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, |sum, v| sum + v)
}

/// trec_eval's geometric mean of `values` (NaN for none): `exp(sum(log(max(v, MIN_GEO_MEAN))) /
/// n)`, the logs added one by one; a NaN value counts as the floor, as C's `MAX` makes it.
pub fn geometric_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut n = 0usize;
    let sum = sequential_sum(values.into_iter().map(|v| {
        n += 1;
        // `v > MIN_GEO_MEAN` is false for NaN: the floor.
        (if v > MIN_GEO_MEAN { v } else { MIN_GEO_MEAN }).ln()
    }));
    if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).exp()
    }
}

/// The mean of `values` added one by one in their order (NaN for none).
pub fn sequential_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut n = 0usize;
    let sum = sequential_sum(values.into_iter().inspect(|_| n += 1));
    if n == 0 { f64::NAN } else { sum / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn geometric_mean_floors_small_and_nan_values() {
        let floor = MIN_GEO_MEAN.ln();
        let expected = ((0.25f64.ln() + floor + floor) / 3.0).exp();
        assert_eq!(geometric_mean([0.25, 0.0, f64::NAN]), expected);
        assert!(geometric_mean([]).is_nan());
        assert!(sequential_mean([]).is_nan());
    }

    proptest! {
        // The naive reference: a loop adding in order.
        #[test]
        fn sequential_mean_is_the_loop(values in proptest::collection::vec(-1e3f64..1e3, 1..50)) {
            let mut sum = 0.0;
            for v in &values {
                sum += v;
            }
            prop_assert_eq!(sequential_mean(values.iter().copied()), sum / values.len() as f64);
        }
    }
}
