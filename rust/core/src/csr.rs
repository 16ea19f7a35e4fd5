//! Compressed sparse rows: one row per query, `offsets[q]..offsets[q + 1]` into flat values.

use crate::{CoreError, CoreResult};

/// A validated view of CSR rows over borrowed slices.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a, T> {
    offsets: &'a [usize],
    values: &'a [T],
}

impl<'a, T> Rows<'a, T> {
    /// Check the structure once (start at 0, never decrease, end at `values.len()`), so that
    /// `row` can never index out of bounds afterwards.
    pub fn new(argument: &'static str, offsets: &'a [usize], values: &'a [T]) -> CoreResult<Self> {
        match offsets.first() {
            None => {
                return Err(CoreError::argument(
                    argument,
                    "offsets must hold at least one entry (0)",
                ));
            }
            Some(&first) if first != 0 => {
                return Err(CoreError::argument(
                    argument,
                    format!("offsets must start at 0, got {first}"),
                ));
            }
            Some(_) => {}
        }
        if let Some(w) = offsets.windows(2).find(|w| w[1] < w[0]) {
            return Err(CoreError::argument(
                argument,
                format!("offsets must not decrease, got {} then {}", w[0], w[1]),
            ));
        }
        let last = offsets[offsets.len() - 1];
        if last != values.len() {
            return Err(CoreError::argument(
                argument,
                format!(
                    "offsets end at {last} but there are {} values",
                    values.len()
                ),
            ));
        }
        Ok(Rows { offsets, values })
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn row(&self, i: usize) -> &'a [T] {
        &self.values[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// Owned CSR rows built row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsBuf<T> {
    pub offsets: Vec<usize>,
    pub values: Vec<T>,
}

impl<T> Default for RowsBuf<T> {
    fn default() -> Self {
        RowsBuf {
            offsets: vec![0],
            values: Vec::new(),
        }
    }
}

impl<T> RowsBuf<T> {
    pub fn push_row(&mut self, row: impl IntoIterator<Item = T>) {
        self.values.extend(row);
        self.offsets.push(self.values.len());
    }

    /// Make room for `rows` more rows holding `values` more values in all.
    pub fn reserve(&mut self, rows: usize, values: usize) {
        self.offsets.reserve(rows);
        self.values.reserve(values);
    }

    /// Append all rows of `other` after the rows of `self`.
    pub fn append(&mut self, other: RowsBuf<T>) {
        let base = self.values.len();
        self.offsets
            .extend(other.offsets[1..].iter().map(|o| o + base));
        self.values.extend(other.values);
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn view(&self) -> Rows<'_, T> {
        Rows {
            offsets: &self.offsets,
            values: &self.values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_offsets() {
        let v = [1.0, 2.0];
        assert!(Rows::new("x", &[], &v).is_err());
        assert!(Rows::new("x", &[1, 2], &v).is_err());
        assert!(Rows::new("x", &[0, 2, 1], &v).is_err());
        assert!(Rows::new("x", &[0, 1], &v).is_err());
        let rows = Rows::new("x", &[0, 0, 2], &v).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.row(0).is_empty());
        assert_eq!(rows.row(1), &[1.0, 2.0]);
    }

    #[test]
    fn append_shifts_offsets() {
        let mut a = RowsBuf::default();
        a.push_row([1, 2]);
        let mut b = RowsBuf::default();
        b.push_row([3]);
        b.push_row([]);
        a.append(b);
        assert_eq!(a.offsets, vec![0, 2, 3, 3]);
        assert_eq!(a.values, vec![1, 2, 3]);
    }
}
