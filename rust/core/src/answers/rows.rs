//! The references of a batch of answers as CSR rows, checked once against the answers.

use crate::csr::Rows;
use crate::{CoreError, CoreResult};

/// `values` split into one row per answer by `offsets`, checked: valid CSR rows, as many rows
/// as `n_answers`, and (unless `allow_empty`) no empty row. `what` names a row's items in the
/// message of an empty row ("acceptable answer", "claim", ...).
pub(crate) fn answer_rows<'a, T>(
    argument: &'static str,
    offsets: &'a [usize],
    values: &'a [T],
    n_answers: usize,
    allow_empty: bool,
    what: &str,
) -> CoreResult<Rows<'a, T>> {
    let rows = Rows::new(argument, offsets, values)?;
    if rows.len() != n_answers {
        return Err(CoreError::argument(
            argument,
            format!(
                "{argument} and answers must have the same length, got {} {argument} and {} \
                 answers",
                rows.len(),
                n_answers
            ),
        ));
    }
    if !allow_empty && let Some(empty) = (0..rows.len()).find(|&i| rows.row(i).is_empty()) {
        return Err(CoreError::argument(
            argument,
            format!("{argument}[{empty}] is an empty list; give at least one {what}"),
        ));
    }
    Ok(rows)
}
