//! TREC run lines written byte for byte as the Python package's writer
//! (`ragmeter/io/_trec_writer.py`, `write_trec_run`) writes a `{query_id: {doc_id: score}}`
//! run: `query_id Q0 doc_id rank score tag`, each ranking in trec_eval's order (score
//! descending, -0.0 and 0.0 tied, ties by id byte-wise descending), the score as Python's
//! `repr` of the float (the shortest text that reads back as the same double), and what a TREC
//! file cannot hold refused with the writer's rules (an empty or blank-holding id, a query id
//! starting with `#`, an empty ranking). The fused runs of `crate::fusion` are written here
//! without building Python objects; `tests/test_fusion_files.py` holds the two writers to the
//! same bytes.

use std::io::Write;

use crate::{CoreError, CoreResult};

/// Python's `repr` of a finite float, appended to `out`: the shortest digits that read back
/// as `x` (ryu's, the same as CPython's `float_repr_style = 'short'`), laid out as CPython lays
/// them out: positional when the decimal exponent is in -4..16 (`0.0001`, `1e+16` otherwise),
/// a `.0` on integral values, an exponent of at least two digits with its sign.
pub fn write_float_repr(out: &mut Vec<u8>, x: f64) {
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
        return;
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(x).as_bytes();
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    // The digits and the exponent of ryu's text, whatever its layout (`123.45`, `1e16`,
    // `1.5e-7`): value = 0.d1d2... x 10^point.
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 32];
    let mut n = 0;
    let mut point = None;
    for &b in mantissa {
        if b == b'.' {
            point = Some(n);
        } else {
            digits[n] = b;
            n += 1;
        }
    }
    let mut point = point.unwrap_or(n) as i32 + exponent;
    let mut first = 0;
    while first < n && digits[first] == b'0' {
        first += 1;
        point -= 1;
    }
    while n > first && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = &digits[first..n];
    if negative {
        out.push(b'-');
    }
    let len = digits.len() as i32;
    if -4 < point && point <= 16 {
        if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-point) as usize));
            out.extend_from_slice(digits);
        } else if point < len {
            out.extend_from_slice(&digits[..point as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits[point as usize..]);
        } else {
            out.extend_from_slice(digits);
            out.extend(std::iter::repeat_n(b'0', (point - len) as usize));
            out.extend_from_slice(b".0");
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        let e = point - 1;
        out.push(b'e');
        out.push(if e < 0 { b'-' } else { b'+' });
        let _ = write!(out, "{:02}", e.unsigned_abs());
    }
}

/// The decimal digits of `n`.
fn write_count(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let value = digits
        .iter()
        .fold(0i32, |v, &d| v * 10 + i32::from(d - b'0'));
    if negative { -value } else { value }
}

/// Python's `repr` of a `str` (the quotes it picks, its escapes of non-printable characters):
/// how the Python writer shows an id in an error message, so both writers say the same.
pub fn str_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => {
                let code = u32::from(c);
                let escaped = if code < 0x100 {
                    format!("\\x{code:02x}")
                } else if code < 0x10000 {
                    format!("\\u{code:04x}")
                } else {
                    format!("\\U{code:08x}")
                };
                out.push_str(&escaped);
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` of one character: not in the categories Cc, Cf, Cs, Co, Cn, Zl,
/// Zp, Zs, except the space.
fn is_printable(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    c == ' '
        || !matches!(
            get_general_category(c),
            G::Control
                | G::Format
                | G::Surrogate
                | G::PrivateUse
                | G::Unassigned
                | G::LineSeparator
                | G::ParagraphSeparator
                | G::SpaceSeparator
        )
}

/// The Python writer's `_shown`: the repr, cut to 60 characters.
fn shown(text: &str) -> String {
    let repr = str_repr(text);
    if repr.chars().count() <= 60 {
        repr
    } else {
        let cut: String = repr.chars().take(57).collect();
        format!("{cut}...")
    }
}

/// Whether `c` may not be in a field of a TREC file: Python's `str.isspace()` or a control
/// character (category Cc; the surrogates of the Python rule are not text in UTF-8).
fn breaks_field(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

fn refuse(message: String) -> CoreError {
    CoreError::Refused { message }
}

/// The Python writer's `_field` check of an id (`what`: "query id", "document id") shown in
/// the error of query `query_id` (`where`).
fn check_field(what: &str, text: &str, query_id: &str) -> CoreResult<()> {
    let bad = text.chars().find(|&c| breaks_field(c));
    if text.is_empty() || bad.is_some() {
        let reason = match bad {
            None => "is empty".to_owned(),
            Some(c) => format!("holds {}", shown(&c.to_string())),
        };
        return Err(refuse(format!(
            "query {}: the {what} {} {reason}; a field of a TREC file is non-empty text without \
             white space, control characters or unpaired surrogates",
            shown(query_id),
            shown(text)
        )));
    }
    Ok(())
}

/// Check a run tag as the Python writer does.
pub fn check_tag(tag: &str) -> CoreResult<()> {
    let bad = tag.chars().find(|&c| breaks_field(c));
    if tag.is_empty() || bad.is_some() {
        let reason = match bad {
            None => "is empty".to_owned(),
            Some(c) => format!("holds {}", shown(&c.to_string())),
        };
        return Err(CoreError::argument(
            "tag",
            format!(
                "the run tag {} {reason}; a field of a TREC file is non-empty text without \
                 white space, control characters or unpaired surrogates",
                shown(tag)
            ),
        ));
    }
    Ok(())
}

fn text_of<'a>(bytes: &'a [u8], what: &str) -> CoreResult<&'a str> {
    std::str::from_utf8(bytes).map_err(|_| {
        refuse(format!(
            "the {what} {} is not valid UTF-8",
            crate::prepare::show(bytes)
        ))
    })
}

/// Append the lines of one ranking, `docs` (id, score) already in trec order except that
/// -0.0 and 0.0 may not be tied yet (the fusion's order tells them apart; trec_eval's and the
/// Python writer's do not): `order` is scratch space.
pub fn write_ranking(
    out: &mut Vec<u8>,
    query_id: &[u8],
    docs: &[(&[u8], f64)],
    tag: &[u8],
    order: &mut Vec<usize>,
) -> CoreResult<()> {
    let query = text_of(query_id, "query id")?;
    check_field("query id", query, query)?;
    if query.starts_with('#') {
        return Err(refuse(format!(
            "query {}: a query id starting with '#' would make its lines comments; rename the \
             query",
            shown(query)
        )));
    }
    if let Some(&(doc, score)) = docs.iter().find(|d| !d.1.is_finite()) {
        let doc = String::from_utf8_lossy(doc);
        let value = if score.is_nan() {
            "nan"
        } else if score > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        return Err(refuse(format!(
            "query {}, document {}: the score {value} is not finite; a TREC run orders documents \
             by score, so every score must be a finite number",
            shown(query),
            shown(&doc)
        )));
    }
    if docs.is_empty() {
        return Err(refuse(format!(
            "query {}: the ranking is empty, and a TREC run has no line for it (the query would \
             read back missing); leave the query out (evaluating with complete=True, or \
             trec_eval -c, scores a judged query missing from the run as empty)",
            shown(query)
        )));
    }
    order.clear();
    order.extend(0..docs.len());
    // The documents scored 0.0 or -0.0 (adjacent in the fusion's order) by id descending.
    if let Some(start) = docs.iter().position(|d| d.1 == 0.0) {
        let end = start + docs[start..].iter().take_while(|d| d.1 == 0.0).count();
        order[start..end].sort_by(|&a, &b| docs[b].0.cmp(docs[a].0));
    }
    for (rank, &i) in order.iter().enumerate() {
        let (doc, score) = docs[i];
        // Printable ASCII needs no further check (most ids).
        if !doc.iter().all(|&b| b > b' ' && b < 0x7f) {
            check_field("document id", text_of(doc, "document id")?, query)?;
        }
        out.extend_from_slice(query_id);
        out.extend_from_slice(b" Q0 ");
        out.extend_from_slice(doc);
        out.push(b' ');
        write_count(out, rank + 1);
        out.push(b' ');
        write_float_repr(out, score);
        out.push(b' ');
        out.extend_from_slice(tag);
        out.push(b'\n');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let mut out = Vec::new();
        write_float_repr(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_are_written_as_python_s_repr() {
        // CPython 3.11's repr of each.
        for (x, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.25e16, "1.25e+16"),
            (123456789012345.6, "123456789012345.6"),
            (1234567890123456.7, "1234567890123456.8"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (100.0, "100.0"),
            (1e100, "1e+100"),
            (0.00012345, "0.00012345"),
        ] {
            assert_eq!(repr(x), text, "{x:e}");
        }
    }

    #[test]
    fn strings_are_shown_as_python_s_repr() {
        assert_eq!(str_repr("d1"), "'d1'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a\u{a0}b"), "'a\\xa0b'");
        assert_eq!(str_repr("a\u{2003}"), "'a\\u2003'");
        assert_eq!(str_repr("\u{7f}"), "'\\x7f'");
        assert_eq!(str_repr("é"), "'é'");
    }

    #[test]
    fn zero_scores_tie_whatever_their_sign() {
        let docs: Vec<(&[u8], f64)> = vec![(b"a", 1.0), (b"b", 0.0), (b"c", -0.0), (b"d", -1.0)];
        let mut out = Vec::new();
        write_ranking(&mut out, b"q", &docs, b"t", &mut Vec::new()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "q Q0 a 1 1.0 t\nq Q0 c 2 -0.0 t\nq Q0 b 3 0.0 t\nq Q0 d 4 -1.0 t\n"
        );
    }

    #[test]
    fn a_blank_in_an_id_is_refused() {
        let docs: Vec<(&[u8], f64)> = vec![("a\u{a0}b".as_bytes(), 1.0)];
        let err = write_ranking(&mut Vec::new(), b"q", &docs, b"t", &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("holds '\\xa0'"), "{err}");
    }
}
