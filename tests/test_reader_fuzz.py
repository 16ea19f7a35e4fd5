"""Bounded fuzzing of the readers (TREC text, compressed TREC, JSON, CSV, Parquet and Arrow IPC),
sized for CI: a few dozen examples per property. Each property holds for every input: a file is
read with exactly the values written (the generated run is the oracle) or refused with a
RagmeterError; damaged compressed data is refused or read as before, never read as other values.

The inputs that once broke a reader are kept as explicit ``@example`` cases (the regression
corpus of issue 25 and before), so they are tried on every run whatever hypothesis draws.
Damaged binary tables are fuzzed in a subprocess by tests/test_reader_contract.py; here only
valid ones are, in this process.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather
import pyarrow.parquet as pq
import pytest
from _hostile_files import pzstd_like, run_table, trec_text, zstd_frame
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ragmeter.io as rio
from ragmeter import RagmeterError

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-.:", min_size=1, max_size=8)
scores = st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e12, max_value=1e12)
runs = st.dictionaries(ids, st.dictionaries(ids, scores, min_size=1, max_size=6), max_size=5)


def as_floats(run):
    return {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}


def read_or_refuse(path, kind="run"):
    """The values read, or None when the file is refused with a RagmeterError."""
    try:
        return (rio.read_run if kind == "run" else rio.read_qrels)(path)
    except RagmeterError:
        return None


# -- TREC text: any bytes are read or refused -------------------------------------------------


@FUZZ
@given(data=st.binary(max_size=400), kind=st.sampled_from(["run", "qrels"]))
@example(data=b"q1 Q0 d1 1 0.5 r\x00\n", kind="run")  # a NUL byte in a line
@example(data=b"\xef\xbb\xbfq1 Q0 d1 1 0.5 r\n", kind="run")  # a byte order mark
@example(data=b"q1 Q0 d1 1 0.5 r\rq1 Q0 d2 2 0.4 r\r", kind="run")  # CR-only line ends
@example(data=b"q1 0 d1 99999999999999999999\n", kind="qrels")  # a grade beyond 64 bits
@example(data=b"q1 Q0 d1 1 nan r\n", kind="run")
def test_any_bytes_as_a_trec_file_are_read_or_refused(data, kind, tmp_path):
    path = tmp_path / "file.txt"
    path.write_bytes(data)
    read_or_refuse(path, kind)


@FUZZ
@given(run=runs)
def test_trec_runs_read_back_exactly(run, tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(trec_text(run))
    assert as_floats(rio.read_run(path)) == run


# -- compressed TREC: damage is refused or changes nothing ------------------------------------

COMPRESSORS = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": zstd_frame,
    "pzstd": pzstd_like,
}


@FUZZ
@given(
    run=runs.filter(bool),
    compressor=st.sampled_from(sorted(COMPRESSORS)),
    flip=st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)),
)
# zstd without its checksum verified: a flipped literal read as other scores (issue 25).
@example(run={"q": {"d1": 1.5, "d2": 0.25}}, compressor="zstd", flip=(0.5, 0))
# pzstd's skippable frames were refused as binary data (issue 25).
@example(run={"q": {"d1": 1.5}}, compressor="pzstd", flip=(0.0, 0))
def test_a_flipped_bit_of_compressed_trec_is_refused_or_changes_nothing(
    run, compressor, flip, tmp_path
):
    data = bytearray(COMPRESSORS[compressor](trec_text(run)))
    path = tmp_path / "run.txt.gz"
    path.write_bytes(bytes(data))
    assert as_floats(rio.read_run(path)) == run
    at = int(flip[0] * len(data))
    data[at] ^= 1 << flip[1]
    path.write_bytes(bytes(data))
    got = read_or_refuse(path)
    assert got is None or as_floats(got) == run


# -- JSON -------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


@FUZZ
@given(value=json_values)
@example(value={"q": {"d": float("nan")}})
@example(value={"q": {"d": True}})
@example(value={"q": {}})
@example(value={"": []})  # a ranking as a list is read as one
def test_any_json_is_read_or_refused(value, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(value))
    got = read_or_refuse(path)
    if got is not None:
        # {doc_id: score}, or a ranking as a list of document ids (the JSON format's other form)
        for docs in got.values():
            if isinstance(docs, list):
                assert all(isinstance(doc, str) for doc in docs)
            else:
                assert isinstance(docs, dict)
                assert all(math.isfinite(s) for s in docs.values())


@FUZZ
@given(run=runs)
def test_json_runs_read_back_exactly(run, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    assert as_floats(rio.read_run(path)) == run


# -- tables: CSV, Parquet, Arrow IPC ----------------------------------------------------------


def write_table(table: pa.Table, suffix: str, path):
    if suffix == ".csv":
        pacsv.write_csv(table, path)
    elif suffix == ".parquet":
        pq.write_table(table, path, write_page_checksum=True)
    else:
        pyarrow.feather.write_feather(table, path)


@FUZZ
@given(run=runs.filter(bool), suffix=st.sampled_from([".csv", ".parquet", ".arrow"]))
def test_table_files_read_back_exactly(run, suffix, tmp_path):
    path = tmp_path / f"run{suffix}"
    write_table(run_table(run), suffix, path)
    assert as_floats(rio.read_run(path)) == run


@FUZZ
@given(
    text=st.text(alphabet='q0d1,."\n\r\t -e', max_size=120),
    header=st.sampled_from(["query_id,doc_id,score\n", "query_id,doc_id,score,score\n", ""]),
)
@example(text="q1,d1,1.0,2.0\n", header="query_id,doc_id,score,score\n")  # two score columns
@example(text='q1,"d1\n",1.0\n', header="query_id,doc_id,score\n")
def test_any_csv_is_read_or_refused(text, header, tmp_path):
    path = tmp_path / "run.csv"
    path.write_text(header + text)
    got = read_or_refuse(path)
    if got is not None and header.count("score") > 1:
        pytest.fail(f"a CSV with two score columns was read: {got}")


@FUZZ
@given(run=runs.filter(bool), null_at=st.integers(0, 100), encode=st.booleans())
# A null inside an Arrow dictionary was read as the id "" (issue 25).
@example(run={"q": {"d1": 1.0, "d2": 0.5}}, null_at=1, encode=True)
def test_a_null_document_id_in_any_encoding_is_refused(run, null_at, encode):
    table = run_table(run)
    doc_ids = table["doc_id"].to_pylist()
    doc_ids[null_at % len(doc_ids)] = None
    array = pa.array(doc_ids).dictionary_encode(null_encoding="encode" if encode else "mask")
    table = table.set_column(1, "doc_id", array)
    with pytest.raises(RagmeterError, match="null"):
        rio.read_run(table)
