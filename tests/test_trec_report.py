"""trec_eval's report as the core formats it (ragmeter._core.ValueTable.write_trec_report),
against C's printf formatting as Python's %-operator applies it ("%-22s\t%s\t%6.4f" as
trec_eval's m_*.c print it; Python's % rounds the exact binary value half to even, as glibc),
and its summary lines against trec_eval's summaries computed here (a loop adding the values
in topic order, math.log/exp for the geometric mean)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter import _core


def _write(topics, columns, write, *, summary=False, summaries=None):
    """The core's report of ``columns`` ``(name, kind, values)``, kind "float", "int" or
    "text": a table of those columns, each with its summary of ``summaries`` (default none)."""
    numbers = np.full((len(topics), len(columns)), np.nan)
    texts = {}
    report = []
    for c, (name, kind, values) in enumerate(columns):
        if kind == "text":
            texts[c] = list(values)
        else:
            numbers[:, c] = values
        summarised = (summaries or {}).get(name, "none")
        report.append((name, c, kind, summarised, math.nan, True))
    table = _core.ValueTable.from_arrays(numbers, texts, {})
    return table.write_trec_report(topics, report, True, summary, write)


def _report(topics, columns):
    """The report's text, from the pieces the core writes."""
    pieces = []
    _write(topics, columns, pieces.append)
    assert all(isinstance(piece, bytes) for piece in pieces)
    return b"".join(pieces).decode()


def _printf_lines(topics, columns):
    lines = []
    for t, topic in enumerate(topics):
        for name, kind, values in columns:
            v = values[t]
            if kind == "text":
                text = v
            elif kind == "int":
                text = "%ld" % int(v)  # noqa: UP031
            elif math.isnan(v):
                text = "  -nan"
            else:
                text = "%6.4f" % v  # noqa: UP031
            lines.append("%-22s\t%s\t%s\n" % (name, topic, text))  # noqa: UP031
    return "".join(lines)


# Exact binary ties at the 5th decimal (k/32, k/64...), ordinary reals, NaN, signed zeros.
values = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
    st.just(math.nan),
    st.integers(0, 4096).map(lambda k: k / 64),
    st.integers(0, 4096).map(lambda k: k / 32),
    st.sampled_from([0.0, -0.0, 0.00005, 0.99995, 1.0]),
)


@settings(max_examples=200, deadline=None)
@given(
    n_topics=st.integers(0, 5),
    data=st.data(),
)
def test_lines_are_printfs(n_topics, data):
    # Distinct ids in byte order: the report sorts its topics so (tested below).
    topics = sorted(
        set(data.draw(st.lists(st.text("abq01_-", min_size=1, max_size=6), max_size=n_topics)))
    )
    n_topics = len(topics)
    floats = data.draw(st.lists(values, min_size=n_topics, max_size=n_topics))
    counts = data.draw(st.lists(st.integers(0, 10**9), min_size=n_topics, max_size=n_topics))
    texts = data.draw(st.lists(st.text("ab'- ", max_size=5), min_size=n_topics, max_size=n_topics))
    columns = [
        ("map", "float", np.array(floats, dtype=np.float64)),
        ("num_rel_ret", "int", np.array(counts, dtype=np.float64)),
        ("a_name_longer_than_22_columns", "text", texts),
    ]
    expected = _printf_lines(topics, [(n, k, list(v)) for n, k, v in columns])
    assert _report(topics, columns) == expected


def test_a_column_of_the_wrong_length_or_kind_is_refused():
    table = _core.ValueTable.from_arrays(np.array([[0.5], [0.25]]), {}, {})
    with pytest.raises(ValueError, match="1 topics for 2 rows"):
        table.write_trec_report(["q1"], [("map", 0, "float", "mean", 0.0, True)], True, True, print)
    with pytest.raises(ValueError, match="map: shown as Text"):
        table.write_trec_report(
            ["a", "b"], [("map", 0, "text", "run", 0.0, True)], True, True, print
        )
    with pytest.raises(ValueError, match="column 3 of 1"):
        table.write_trec_report(
            ["a", "b"], [("x", 3, "float", "mean", 0.0, True)], True, True, print
        )
    with pytest.raises(ValueError, match="texts: column 0 of 1 with 1 values for 2"):
        _core.ValueTable.from_arrays(np.array([[0.5], [0.25]]), {0: ["a"]}, {})


def test_topics_are_printed_in_byte_order_and_summaries_follow():
    # Rows in any order: printed by the ids' UTF-8 bytes ("Z" < "a" < "é"), as trec_eval
    # sorts them; the mean adds the values in that order.
    topics = ["é", "a", "Z"]
    columns = [("map", "float", [0.5, 0.25, 0.125]), ("num_ret", "int", [3, 1, 2])]
    pieces = []
    _write(
        topics, columns, pieces.append, summary=True, summaries={"map": "mean", "num_ret": "sum"}
    )
    text = b"".join(pieces).decode()
    order = [2, 1, 0]
    expected = _printf_lines(
        [topics[i] for i in order], [(n, k, [v[i] for i in order]) for n, k, v in columns]
    )
    mean = (0.125 + 0.25) + 0.5
    expected += "%-22s\tall\t%6.4f\n" % ("map", mean / 3)  # noqa: UP031
    expected += "%-22s\tall\t%ld\n" % ("num_ret", 6)  # noqa: UP031
    assert text == expected


summary_values = st.lists(
    st.one_of(st.floats(0, 1), st.just(math.nan), st.sampled_from([0.0, 1e-7, 1.0])),
    min_size=1,
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(values=summary_values, undefined=st.sampled_from([0.0, math.nan]))
def test_summary_lines_are_trec_evals(values, undefined):
    # trec_eval's summaries, computed here: undefined values printed as `undefined`, a mean
    # added one by one in topic order, gm_ over log(max(v, 0.00001)) (a NaN counting as the
    # floor, as C's MAX(NaN, floor) does), counts as %ld.
    topics = [f"q{i:03d}" for i in range(len(values))]
    numbers = np.array([values, values, values, [1.0] * len(values)]).T
    table = _core.ValueTable.from_arrays(numbers, {}, {})
    report = [
        ("map", 0, "float", "mean", undefined, False),
        ("gm_map", 1, "float", "geometric", undefined, False),
        ("num_ret", 2, "int", "sum", 0.0, False),
        ("num_q", 3, "int", "count", 0.0, False),
    ]
    pieces = []
    counts = table.write_trec_report(topics, report, True, True, pieces.append)
    resolved = [undefined if math.isnan(v) else v for v in values]
    total = 0.0
    for v in resolved:
        total += v
    logs = 0.0
    for v in resolved:
        logs += math.log(v if v > 0.00001 else 0.00001)
    counted = [0.0 if math.isnan(v) else v for v in values]
    expected = "".join(
        [
            _line("map", "  -nan" if math.isnan(total) else "%6.4f" % (total / len(values))),
            _line("gm_map", "%6.4f" % math.exp(logs / len(values))),  # noqa: UP031
            _line("num_ret", "%ld" % round(sum(counted))),  # noqa: UP031
            _line("num_q", "%ld" % len(values)),  # noqa: UP031
        ]
    )
    assert b"".join(pieces).decode() == expected
    n_nan = sum(math.isnan(v) for v in values)
    assert counts == [n_nan, n_nan, n_nan, 0]


def _line(name, value):
    return "%-22s\tall\t%s\n" % (name, value)  # noqa: UP031


def test_quoted_text_and_run_summaries():
    table = _core.ValueTable.from_arrays(
        np.full((2, 2), np.nan), {0: ["tag", "tag"], 1: ["1-0", ""]}, {}
    )
    report = [
        ("runid", 0, "text", "run", 0.0, False),
        ("relstring", 1, "quoted", "none", 0.0, True),
    ]
    pieces = []
    table.write_trec_report(["b", "a"], report, True, True, pieces.append)
    assert b"".join(pieces).decode() == (
        _printf_lines(["a", "b"], [("relstring", "text", ["''", "'1-0'"])]) + _line("runid", "tag")
    )


def test_a_report_of_many_megabytes_is_written_in_pieces_of_whole_topics():
    # ~2.6 MB of lines: three pieces or more, each ending at a topic's last line, joined the
    # same as printf's lines.
    topics = [f"q{t:05d}" for t in range(20_000)]
    rng = np.random.default_rng(7)
    columns = [(f"m{m}", "float", rng.random(len(topics))) for m in range(4)]
    pieces = []
    _write(topics, columns, pieces.append)
    assert len(pieces) >= 3
    for piece in pieces:
        last = piece.decode().splitlines()[-1]
        assert last.startswith("m3")
    expected = _printf_lines(topics, [(n, k, list(v)) for n, k, v in columns])
    assert b"".join(pieces).decode() == expected


def test_an_error_of_the_writer_stops_the_report():
    def refuse(piece):
        raise BrokenPipeError("reader gone")

    with pytest.raises(BrokenPipeError):
        _write(["q1"], [("map", "float", np.array([0.5]))], refuse)
