"""ragmeter.fusion: inputs, bad input, determinism (oracle tests against ranx are in
test_fusion_ranx.py)."""

from __future__ import annotations

import gzip
import random

import pytest

import ragmeter
from ragmeter.fusion import METHODS, fuse
from ragmeter.io import read_trec_run, write_trec_run

A = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d1": 1.0}}
B = {"q1": {"d2": 9.0, "d3": 1.0}, "q2": {"d4": 0.5}}


def test_rrf_by_hand():
    fused = fuse([A, B], method="rrf", norm=None, k=60)
    assert list(fused["q1"]) == ["d2", "d1", "d3"]
    assert fused["q1"]["d2"] == pytest.approx(1 / 62 + 1 / 61, rel=1e-15)
    assert fused.name == "rrf"


def test_trec_files_also_compressed_and_output_forms(tmp_path):
    write_trec_run(A, tmp_path / "a.run")
    write_trec_run(B, tmp_path / "b.tmp")
    (tmp_path / "b.run.gz").write_bytes(gzip.compress((tmp_path / "b.tmp").read_bytes()))
    from_files = fuse([tmp_path / "a.run", tmp_path / "b.run.gz"], method="mnz")
    assert from_files.to_dict() == fuse([A, B], method="mnz").to_dict()
    out = tmp_path / "fused.run"
    from_files.write_trec(out)
    assert read_trec_run(out) == from_files.to_dict()
    table = from_files.to_arrow()
    assert table.column_names == ["query_id", "doc_id", "score", "rank"]
    assert table.num_rows == sum(len(v) for v in from_files.to_dict().values())


def test_partly_disjoint_queries_are_named():
    c = {"q1": {"d1": 1.0}}
    with pytest.raises(ragmeter.InvalidInputError, match=r"'run 1' lacks 1: 'q2'"):
        fuse([A, c], method="sum")
    assert fuse([A, c], method="sum", missing="intersect").keys() == ["q1"]
    empty = fuse([A, c], method="sum", norm=None, missing="empty")
    assert empty["q2"] == {"d1": 1.0}


def test_non_finite_score_names_run_query_and_value():
    bad = {"q1": {"d1": float("nan"), "d2": 1.0}, "q2": {"d4": 1.0}}
    with pytest.raises(ragmeter.InvalidInputError, match=r"query 'q1'.*run 1.*'d1'.*NaN"):
        fuse([A, bad], method="sum")
    inf = {"q1": {"d1": 1.0}, "q2": {"d4": float("inf")}}
    with pytest.raises(ragmeter.InvalidInputError, match=r"query 'q2'.*inf"):
        fuse([A, inf], method="sum")


def test_weights_count_and_unknown_names():
    with pytest.raises(ragmeter.InvalidInputError, match="1 weights for 2 runs"):
        fuse([A, B], method="wsum", weights=[1.0])
    with pytest.raises(ragmeter.InvalidInputError, match="needs the parameter weights"):
        fuse([A, B], method="wsum")
    with pytest.raises(ragmeter.InvalidInputError, match="unknown fusion method"):
        fuse([A, B], method="nope")
    with pytest.raises(ragmeter.InvalidInputError, match="unknown normalisation"):
        fuse([A, B], method="sum", norm="nope")
    with pytest.raises(ragmeter.InvalidInputError, match="unknown parameter"):
        fuse([A, B], method="sum", k=3)
    with pytest.raises(ragmeter.InvalidInputError, match="at least 2 runs"):
        fuse([A], method="sum")


@pytest.mark.parametrize("method", [m for m, d in METHODS.items() if d.training])
def test_trained_method_without_qrels_is_refused(method):
    with pytest.raises(ragmeter.InvalidInputError, match="qrels="):
        fuse([A, B], method=method)


def test_all_equal_scores_normalise_to_zero():
    """The documented rule (ranx's): the denominator is floored at 1e-9."""
    flat = {"q1": {"d1": 2.0, "d2": 2.0}, "q2": {"d4": 5.0}}
    fused = fuse([flat, flat], method="sum", norm="min-max")
    assert fused["q1"] == {"d2": 0.0, "d1": 0.0}


@pytest.mark.parametrize("method", ["rrf", "sum", "condorcet", "bordafuse", "med"])
def test_same_output_for_any_thread_count(method):
    rng = random.Random(1)
    runs = [
        {
            f"q{q}": {f"d{rng.randint(0, 40)}": float(rng.randint(0, 3)) for _ in range(20)}
            for q in range(50)
        }
        for _ in range(3)
    ]
    one = fuse(runs, method=method, n_threads=1).to_dict()
    for n in (2, 3):
        again = fuse(runs, method=method, n_threads=n).to_dict()
        assert [list(v.items()) for v in again.values()] == [list(v.items()) for v in one.values()]
