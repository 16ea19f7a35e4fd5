//! trec_eval's report (`trec_eval -q`), formatted by the core: one line per topic and
//! measure, `name\ttopic\tvalue\n` with the name left-aligned in 22 columns and the value as
//! trec_eval's print functions write it (`m_*.c`: `"%-22s\t%s\t%6.4f\n"` for floats, `%ld` for
//! counts, `%s` for text). The `ragmeter evaluate` command writes it in pieces of about a
//! megabyte from one reused buffer: the millions of lines of a big evaluation are never Python
//! strings, and the report is never held whole (twice, as a buffer and as its bytes object).

use std::io::Write;

use crate::ranking::columns::{
    Summary, ValueTable, geometric_mean, sequential_mean, sequential_sum,
};
use crate::{CoreError, CoreResult};

/// One measure's values, topic by topic (in the order of the report's topics).
pub enum ReportColumn<'a> {
    /// A real value, printed as C's `%6.4f` (NaN as `  -nan`, as glibc prints 0.0/0.0).
    Float(&'a [f64]),
    /// A count, printed as C's `%ld` of the value truncated to an integer.
    Int(&'a [f64]),
    /// A text value (`runid`, `relstring`), printed as it is.
    Text(&'a [String]),
}

/// The per-topic lines of `columns` (named `names`) for the topics of `topics` from `from` on,
/// topic by topic, measure by measure within a topic, appended to `out` until it holds at least
/// `budget` bytes (whole topics: the last may pass it); returns the first topic not written
/// (`topics.len()` when all are). Every column holds one value per topic.
pub fn write_per_topic(
    out: &mut Vec<u8>,
    topics: &[String],
    names: &[String],
    columns: &[ReportColumn<'_>],
    from: usize,
    budget: usize,
) -> usize {
    // Each name padded once (not on every line).
    let padded: Vec<String> = names.iter().map(|n| format!("{n:<22}\t")).collect();
    for (t, topic) in topics.iter().enumerate().skip(from) {
        if out.len() >= budget {
            return t;
        }
        for (name, column) in padded.iter().zip(columns) {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(topic.as_bytes());
            out.push(b'\t');
            write_value(out, column, t);
            out.push(b'\n');
        }
    }
    topics.len()
}

fn write_value(out: &mut Vec<u8>, column: &ReportColumn<'_>, t: usize) {
    // Writing into a Vec cannot fail.
    let _ = match column {
        ReportColumn::Float(values) => {
            let v = values[t];
            if v.is_nan() {
                out.extend_from_slice(b"  -nan");
                Ok(())
            } else if write_fixed4(out, v) {
                Ok(())
            } else {
                // Rust's `{:6.4}` rounds the exact binary value half to even, as glibc's
                // printf does (ties such as 1/32 = 0.03125 print 0.0312 in both).
                write!(out, "{v:6.4}")
            }
        }
        ReportColumn::Int(values) => write!(out, "{}", values[t] as i64),
        ReportColumn::Text(values) => {
            out.extend_from_slice(values[t].as_bytes());
            Ok(())
        }
    };
}

/// `%6.4f` of `v` without Rust's exact formatting (whose bignum fallback cost a few percent
/// of a big report) when the result is sure: for 0 <= v < 10^4, `v * 10^4` is within half an
/// ulp (below 1e-8) of the exact product, so unless its fraction is within 1e-6 of one half the
/// nearest integer is the exact value rounded. False (nothing written) otherwise: negative,
/// large, or near a tie, which the exact formatting then writes.
fn write_fixed4(out: &mut Vec<u8>, v: f64) -> bool {
    if !(0.0..10_000.0).contains(&v) || v.is_sign_negative() {
        return false;
    }
    let scaled = v * 10_000.0;
    let floor = scaled.floor();
    let fraction = scaled - floor;
    if (fraction - 0.5).abs() < 1e-6 {
        return false;
    }
    let n = floor as u64 + u64::from(fraction > 0.5);
    let _ = write!(out, "{}.", n / 10_000);
    let decimals = n % 10_000;
    out.extend_from_slice(&[
        b'0' + (decimals / 1000) as u8,
        b'0' + (decimals / 100 % 10) as u8,
        b'0' + (decimals / 10 % 10) as u8,
        b'0' + (decimals % 10) as u8,
    ]);
    true
}

/// How a column's values are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// `%6.4f`.
    Float,
    /// `%ld`.
    Int,
    /// The text as it is (`runid`).
    Text,
    /// The text between single quotes (`relstring`, as trec_eval's `m_relstring.c` prints it).
    QuotedText,
}

/// A column of a [`ValueTable`] in trec_eval's report, as its declaration describes it.
#[derive(Clone, Debug)]
pub struct ShownColumn {
    pub name: String,
    /// The column of the table.
    pub column: usize,
    pub shown: Shown,
    pub summary: Summary,
    /// The value trec_eval prints for an undefined one (its `zero_division`).
    pub undefined: f64,
    /// Printed per topic (`-q`).
    pub per_query: bool,
}

/// trec_eval's report of `table` (rows `topics`): with `per_topic`, every per-query column of
/// `shown` for every topic, topics sorted by their bytes (`trec_eval -q`); with `summary`, the
/// summary of every summarised column (`all`), the undefined values replaced by the
/// column's `undefined` and the values added in the topics' order. Written to `sink` in pieces
/// of about `piece_bytes` (whole topics). Returns each shown column's count of undefined values.
pub fn write_trec_report(
    table: &ValueTable,
    topics: &[String],
    shown: &[ShownColumn],
    per_topic: bool,
    summary: bool,
    piece_bytes: usize,
    sink: &mut dyn FnMut(&[u8]) -> CoreResult<()>,
) -> CoreResult<Vec<usize>> {
    if topics.len() != table.n_queries {
        return Err(CoreError::argument(
            "topics",
            format!("{} topics for {} rows", topics.len(), table.n_queries),
        ));
    }
    if let Some(c) = shown.iter().find(|c| c.column >= table.n_columns) {
        return Err(CoreError::argument(
            "columns",
            format!("{}: column {} of {}", c.name, c.column, table.n_columns),
        ));
    }
    let mut order: Vec<usize> = (0..topics.len()).collect();
    order.sort_by(|&a, &b| topics[a].as_bytes().cmp(topics[b].as_bytes()));
    let sorted_topics: Vec<String> = order.iter().map(|&q| topics[q].clone()).collect();
    // Each column in topic order, undefined values resolved.
    let mut numbers: Vec<Vec<f64>> = Vec::with_capacity(shown.len());
    let mut texts: Vec<Vec<String>> = Vec::with_capacity(shown.len());
    let mut n_undefined = Vec::with_capacity(shown.len());
    for c in shown {
        match (&table.texts[c.column], c.shown) {
            (Some(values), Shown::Text | Shown::QuotedText) => {
                let quoted = c.shown == Shown::QuotedText;
                texts.push(
                    order
                        .iter()
                        .map(|&q| {
                            if quoted {
                                format!("'{}'", values[q])
                            } else {
                                values[q].clone()
                            }
                        })
                        .collect(),
                );
                numbers.push(Vec::new());
                n_undefined.push(0);
            }
            (None, Shown::Float | Shown::Int) => {
                let column: Vec<f64> = table.column(c.column).collect();
                let mut undefined = 0;
                numbers.push(
                    order
                        .iter()
                        .map(|&q| {
                            let v = column[q];
                            if v.is_nan() {
                                undefined += 1;
                                c.undefined
                            } else {
                                v
                            }
                        })
                        .collect(),
                );
                texts.push(Vec::new());
                n_undefined.push(undefined);
            }
            _ => {
                return Err(CoreError::argument(
                    "columns",
                    format!(
                        "{}: shown as {:?}, which its values are not",
                        c.name, c.shown
                    ),
                ));
            }
        }
    }
    let mut out = Vec::with_capacity(piece_bytes + (1 << 16));
    if per_topic {
        let mut names = Vec::new();
        let mut views = Vec::new();
        for (i, c) in shown.iter().enumerate().filter(|(_, c)| c.per_query) {
            names.push(c.name.clone());
            views.push(match c.shown {
                Shown::Float => ReportColumn::Float(&numbers[i]),
                Shown::Int => ReportColumn::Int(&numbers[i]),
                Shown::Text | Shown::QuotedText => ReportColumn::Text(&texts[i]),
            });
        }
        let mut from = 0;
        while from < sorted_topics.len() {
            out.clear();
            from = write_per_topic(&mut out, &sorted_topics, &names, &views, from, piece_bytes);
            if from < sorted_topics.len() {
                sink(&out)?;
            }
        }
        if !summary {
            sink(&out)?;
            return Ok(n_undefined);
        }
    }
    if summary {
        let all = ["all".to_string()];
        for (i, c) in shown.iter().enumerate() {
            let value = match c.summary {
                Summary::None => continue,
                Summary::Mean => Summarised::Float(sequential_mean(numbers[i].iter().copied())),
                Summary::Geometric => Summarised::Float(geometric_mean(numbers[i].iter().copied())),
                Summary::Sum => {
                    let total = match &table.complete_totals[c.column] {
                        Some(totals) => sequential_sum(order.iter().map(|&q| totals[q])),
                        None => sequential_sum(numbers[i].iter().copied()),
                    };
                    // Half to even, as Python's round (the library's summaries); counts are integral.
                    Summarised::Int(total.round_ties_even())
                }
                Summary::Count => Summarised::Int(table.n_queries as f64),
                Summary::Run => match texts[i].first() {
                    Some(text) => Summarised::Text(text.clone()),
                    None => continue,
                },
            };
            let one_float;
            let one_text;
            let view = match (&value, c.shown) {
                (Summarised::Float(v), Shown::Int) | (Summarised::Int(v), _) => {
                    one_float = [*v];
                    ReportColumn::Int(&one_float)
                }
                (Summarised::Float(v), _) => {
                    one_float = [*v];
                    ReportColumn::Float(&one_float)
                }
                (Summarised::Text(t), _) => {
                    one_text = [t.clone()];
                    ReportColumn::Text(&one_text)
                }
            };
            write_per_topic(
                &mut out,
                &all,
                std::slice::from_ref(&c.name),
                &[view],
                0,
                usize::MAX,
            );
        }
        sink(&out)?;
    }
    Ok(n_undefined)
}

/// A summary value before printing.
enum Summarised {
    Float(f64),
    Int(f64),
    Text(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn report(columns: &[ReportColumn<'_>], names: &[&str], topics: &[&str]) -> String {
        let mut out = Vec::new();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let topics: Vec<String> = topics.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            write_per_topic(&mut out, &topics, &names, columns, 0, usize::MAX),
            topics.len()
        );
        // In pieces of at least one byte (one topic each), the same text.
        let mut pieces = Vec::new();
        let mut from = 0;
        while from < topics.len() {
            let mut piece = Vec::new();
            let next = write_per_topic(&mut piece, &topics, &names, columns, from, 1);
            assert_eq!(next, from + 1);
            pieces.extend_from_slice(&piece);
            from = next;
        }
        assert_eq!(pieces, out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lines_are_trec_evals() {
        let map = [0.25, f64::NAN];
        let rel = [3.0, 0.0];
        let tag = ["a".to_string(), "a".to_string()];
        let text = report(
            &[
                ReportColumn::Float(&map),
                ReportColumn::Int(&rel),
                ReportColumn::Text(&tag),
            ],
            &["map", "num_rel", "runid"],
            &["q1", "q2"],
        );
        let pad = |n: &str| format!("{n:<22}");
        let expected = format!(
            "{m}\tq1\t0.2500\n{r}\tq1\t3\n{t}\tq1\ta\n{m}\tq2\t  -nan\n{r}\tq2\t0\n{t}\tq2\ta\n",
            m = pad("map"),
            r = pad("num_rel"),
            t = pad("runid")
        );
        assert_eq!(text, expected);
    }

    proptest::proptest! {
        #[test]
        fn the_fast_path_writes_what_the_exact_formatting_writes(
            v in prop_oneof![
                0.0f64..1.0,
                0.0f64..20_000.0,
                (0u32..100_000_000).prop_map(|n| f64::from(n) / 1e8),
                (0u32..10_000_000).prop_map(|n| (f64::from(n) + 0.5) / 1e4),
                proptest::num::f64::ANY,
            ]
        ) {
            let mut fast = Vec::new();
            if write_fixed4(&mut fast, v) {
                proptest::prop_assert_eq!(String::from_utf8(fast).unwrap(), format!("{v:6.4}"));
            }
        }
    }

    #[test]
    fn ties_round_half_to_even_as_printf() {
        // Exact binary ties at the fifth decimal, as glibc's printf("%6.4f") prints them.
        let values = [0.03125, 0.09375, 0.15625, 1.0 / 64.0 * 5.0, -0.0, 12.5];
        let text = report(&[ReportColumn::Float(&values[..1])], &["x"], &["q"]);
        assert!(text.ends_with("\t0.0312\n"), "{text}");
        let expected = ["0.0312", "0.0938", "0.1562", "0.0781", "-0.0000", "12.5000"];
        for (v, e) in values.iter().zip(expected) {
            let one = [*v];
            let text = report(&[ReportColumn::Float(&one)], &["x"], &["q"]);
            assert!(text.ends_with(&format!("\t{e}\n")), "{v}: {text}");
        }
    }
}
