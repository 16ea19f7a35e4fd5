"""trec_eval's per-topic report as the core formats it (ragmeter._core.write_trec_per_topic),
against C's printf formatting as Python's %-operator applies it ("%-22s\t%s\t%6.4f" as
trec_eval's m_*.c print it; Python's % rounds the exact binary value half to even, as glibc)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter import _core


def _report(topics, columns):
    """The report's text, from the pieces the core writes."""
    pieces = []
    _core.write_trec_per_topic(topics, columns, pieces.append)
    assert all(isinstance(piece, bytes) and piece for piece in pieces)
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
    topics = [data.draw(st.text("abq01_-", min_size=1, max_size=6)) for _ in range(n_topics)]
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
    with pytest.raises(ValueError, match="map: 1 values for 2 topics"):
        _report(["q1", "q2"], [("map", "float", np.array([0.5]))])
    with pytest.raises(ValueError, match='kind "text" needs'):
        _report(["q1"], [("map", "text", np.array([0.5]))])


def test_a_report_of_many_megabytes_is_written_in_pieces_of_whole_topics():
    # ~2.6 MB of lines: three pieces or more, each ending at a topic's last line, joined the
    # same as printf's lines.
    topics = [f"q{t}" for t in range(20_000)]
    rng = np.random.default_rng(7)
    columns = [(f"m{m}", "float", rng.random(len(topics))) for m in range(4)]
    pieces = []
    _core.write_trec_per_topic(topics, columns, pieces.append)
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
        _core.write_trec_per_topic(["q1"], [("map", "float", np.array([0.5]))], refuse)
