"""Ranking evaluations saved and read back (MetricResults.write/read, RunEvaluations): every
field round-trips in every format, undefined values keep their reason, a damaged file is
refused naming the file and the field, and the file `ragmeter evaluate --format json` writes
is read back as what the Python call returns."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _saved import unstamped

from ragmeter import CountScore, InvalidInputError, MeanScore, MetricResults, evaluate_trec
from ragmeter.ranking import RunEvaluations
from ragmeter.reports import SavedResult

FORMATS = ["json", "jsonl", "yaml", "toml"]


def _results(values, query_ids, *, name=None, missing=(), unjudged=()):
    results = MetricResults(values)
    results.query_ids = list(query_ids)
    results.missing_from_run = list(missing)
    results.unjudged = list(unjudged)
    results.name = name
    return results


def _means():
    # Three queries, one of them (q3) without a relevant document: its recall is undefined and
    # left out of the mean (zero_division=nan): over 2 queries, 1 undefined.
    return _results(
        {
            "recall@5": MeanScore(0.25, n_queries=2, n_undefined=1, metric="recall@5"),
            "map": MeanScore(0.5, n_queries=3, n_undefined=0, metric="map"),
            "num_rel": CountScore(7, n_queries=3, metric="num_rel"),
            "num_q": CountScore(3, n_queries=3, metric="num_q"),
            "runid": "bm25-tag",
        },
        ["q1", 2, "q3"],
        name="bm25.run",
        missing=["q9"],
        unjudged=[7, "x"],
    )


def _per_query(keyed=True):
    ids = ["q1", 2, "q3"] if keyed else [0, 1, 2]
    columns = {
        "recall@5": [0.5, 0.0, math.nan],
        "map": [1.0, 0.25, 0.25],
        "num_rel": [4, 3, 0],
        "relstring_3": ["1-0", "00-", "---"],
    }
    if keyed:
        values = {m: dict(zip(ids, column, strict=True)) for m, column in columns.items()}
    else:
        values = {
            m: np.array(column, dtype=np.float64) if m in ("recall@5", "map") else column
            for m, column in columns.items()
        }
    return _results(values, ids, name="bm25.run", missing=["q9"] if keyed else [])


def _assert_same(found: MetricResults, expected: MetricResults) -> None:
    """Every field equal, with its type: keys in order, MeanScore/CountScore and their counts,
    per-query containers, NaN where undefined, the query ids with their types."""
    assert list(found) == list(expected)
    assert found.name == expected.name
    for attribute in ("query_ids", "missing_from_run", "unjudged"):
        got, want = getattr(found, attribute), getattr(expected, attribute)
        assert [(type(q), q) for q in got] == [(type(q), q) for q in want], attribute
    for name, want in expected.items():
        got = found[name]
        assert type(got) is type(want), name
        if isinstance(want, MeanScore):
            assert (got.n_queries, got.n_undefined, got.metric) == (
                want.n_queries,
                want.n_undefined,
                want.metric,
            )
            assert float(got) == float(want) or (math.isnan(got) and math.isnan(want))
        elif isinstance(want, CountScore):
            assert (int(got), got.n_queries, got.metric) == (int(want), want.n_queries, want.metric)
        elif isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), name
        elif isinstance(want, dict):
            assert list(got) == list(want), name
            for key, value in want.items():
                assert type(got[key]) is type(value), (name, key)
                assert got[key] == value or (math.isnan(got[key]) and math.isnan(value))
        else:
            assert got == want, name


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("make", [_means, _per_query, lambda: _per_query(keyed=False)])
def test_results_round_trip_every_field_in_every_format(tmp_path, suffix, make):
    if suffix == "yaml":
        pytest.importorskip("yaml")
    if suffix == "toml":
        pytest.importorskip("tomli_w")
    results = make()
    path = results.write(tmp_path / f"saved.{suffix}")
    read = MetricResults.read(path)
    _assert_same(read, make())
    assert isinstance(results, SavedResult) and results.KIND == "ragmeter.evaluation"
    # Written again, the file is the same bytes.
    assert read.write(tmp_path / f"again.{suffix}").read_bytes() == path.read_bytes()


def test_undefined_values_are_null_with_their_reason(tmp_path):
    path = _per_query().write(tmp_path / "saved.json")
    run = json.loads(path.read_text())["runs"]["bm25.run"]
    assert run["per_query"]["recall@5"] == {"q1": 0.5, "2": 0.0, "q3": None}
    assert run["query_ids"] == ["q1", 2, "q3"]  # the int id stays an int
    # recall's family declares why a value is undefined; map has no undefined value here.
    assert run["undefined"] == {"recall@5": "the query has no relevant judged document (R = 0)"}
    means = json.loads(_means().write(tmp_path / "means.json").read_text())["runs"]["bm25.run"]
    assert means["n_undefined"] == {"recall@5": 1, "map": 0}
    assert means["undefined"] == {"recall@5": "the query has no relevant judged document (R = 0)"}


def test_a_run_with_both_forms_and_several_runs_round_trip(tmp_path):
    over = _results(
        {"recall@5": MeanScore(0.25, n_queries=2, n_undefined=1, metric="recall@5")},
        ["q1", 2, "q3"],
        missing=["q9"],
    )
    by_query = _results({"recall@5": {"q1": 0.5, 2: 0.0, "q3": math.nan}}, ["q1", 2, "q3"])
    by_query.missing_from_run = ["q9"]
    saved = RunEvaluations({"a": over, "bm25.run": _means()}, {"a": by_query})
    for suffix in FORMATS:
        read = RunEvaluations.read(saved.write(tmp_path / f"runs.{suffix}"))
        assert read == saved and read.runs == ("a", "bm25.run")
        _assert_same(
            read.results("a"), _results(dict(over), over.query_ids, name="a", missing=["q9"])
        )
        expected = _results(dict(by_query), by_query.query_ids, name="a", missing=["q9"])
        _assert_same(read.results("a", per_query=True), expected)
        _assert_same(MetricResults.read(tmp_path / f"runs.{suffix}", run="bm25.run"), _means())
    with pytest.raises(InvalidInputError, match=r"runs\.json: run: the evaluation holds 2 runs"):
        MetricResults.read(tmp_path / "runs.json")
    with pytest.raises(InvalidInputError, match=r"runs\['bm25.run'\]: the run has no per-query"):
        MetricResults.read(tmp_path / "runs.json", run="bm25.run", per_query=True)


def _damaged(tmp_path, edit, results=None):
    results = results if results is not None else _both()
    path = results.write(tmp_path / "saved.json")
    data = json.loads(path.read_text())
    edit(data)
    bad = tmp_path / "bad.json"
    # Edited as by hand, without the checksum (which would refuse any edit first).
    bad.write_text(json.dumps(unstamped(data)))
    return bad


def _both():
    over = _results(
        {"map": MeanScore(0.5, n_queries=3, n_undefined=0, metric="map")}, ["q1", "q2", "q3"]
    )
    by_query = _results({"map": {"q1": 1.0, "q2": 0.25, "q3": 0.25}}, ["q1", "q2", "q3"])
    return RunEvaluations({"r": over}, {"r": by_query})


def _set(path, value):
    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # a changed mean: no longer what its per-query values give
        (_set(("runs", "r", "means", "map"), 0.75), r"runs\.r\.means\.map: 0\.75 where the per"),
        # a changed per-query value: the mean no longer its values'
        (_set(("runs", "r", "per_query", "map", "q2"), 0.5), r"runs\.r\.means\.map"),
        (_set(("runs", "r", "means", "map"), "0.5"), r"runs\.r\.means\.map: expected a number"),
        (_set(("runs", "r", "n_queries", "map"), 4), r"runs\.r\.n_queries\.map: 4"),
        (_set(("runs", "r", "extra"), 1), r"runs\.r\.extra: a field ragmeter does not write"),
        (_set(("extra",), 1), r"extra: a field ragmeter does not write"),
        (_set(("runs", "r", "means", "bleu"), 0.5), r"runs\.r\.means\.bleu: .*unknown metric"),
        (_set(("runs", "r", "undefined", "map"), "why"), r"runs\.r\.undefined\.map: 'why'"),
        (_set(("runs", "r", "keyed"), "yes"), r"runs\.r\.keyed: expected true or false"),
        (_set(("kind",), "ragmeter.comparison"), r"kind: 'ragmeter\.comparison'"),
        (_set(("format_version",), 4), r"format_version: 4; .*upgrade ragmeter"),
        (_set(("format_version",), 2), r"runs\.r\.manifest: a field format 2 does not have"),
        (_set(("format_version",), 0), r"format_version: 0; .*write it again"),
    ],
)
def test_a_damaged_or_edited_file_is_refused_naming_the_file_and_the_field(tmp_path, edit, message):
    bad = _damaged(tmp_path, edit)
    with pytest.raises(InvalidInputError, match=message) as caught:
        RunEvaluations.read(bad)
    assert str(caught.value).startswith(f"{bad}: ")
    with pytest.raises(InvalidInputError, match=message):
        MetricResults.read(bad)


def test_an_unsaveable_result_is_refused_when_written(tmp_path):
    plain = _results({"map": 0.5}, ["q1"])  # a bare float says nothing of its queries
    with pytest.raises(InvalidInputError, match=r"runs\['run'\]\.means\.map: 0\.5 is not"):
        plain.write(tmp_path / "x.json")
    clash = _results({"map": {1: 0.5, "1": 0.25}}, [1, "1"])
    with pytest.raises(InvalidInputError, match="read the same as text"):
        clash.write(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


# -- the command's file --------------------------------------------------------------------------

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d1 0\nq4 0 d9 1\n"
RUN = (
    "q1 Q0 d2 1 3.0 tag\nq1 Q0 d1 2 2.0 tag\nq2 Q0 d4 1 1.0 tag\nq2 Q0 d3 2 0.5 tag\n"
    "q3 Q0 d1 1 1.0 tag\nq7 Q0 d1 1 1.0 tag\n"
)
# In trec_eval's order of measures, which the command prints them in whatever the -m order.
METRICS = ["runid", "num_q", "num_rel", "map", "gm_map", "recip_rank", "P.5", "ndcg_cut.10"]


def _command(tmp_path: Path, *flags: str) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    out = tmp_path / "evaluation.json"
    measures = [a for m in METRICS for a in ("-m", m)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ragmeter",
            "evaluate",
            *flags,
            *measures,
            "--format",
            "json",
            "-o",
            str(out),
            "qrels.txt",
            "run.txt",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    return out


@pytest.mark.parametrize("flags", [["-c"], ["-q", "-c"], ["-q", "--missing", "skip"]])
def test_the_command_file_is_read_as_what_the_python_call_returns(tmp_path, flags):
    path = _command(tmp_path, *flags)
    options = {"complete": True} if "-c" in flags else {"missing": "skip"}
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    # The command scores undefined values as trec_eval prints them.
    expected = evaluate_trec(qrels, run, metrics=METRICS, zero_division="trec_eval", **options)
    read = MetricResults.read(path)
    expected.name = "run.txt"  # the run as the command line gave it
    _assert_same(read, expected)
    # q4 has no ranking in the run; q7 no judgment: both said as the call says them.
    assert read.unjudged == ["q7"] and read.missing_from_run == ["q4"]
    assert read["map"].n_undefined == 1  # q3 has no relevant document
    if "-q" in flags:
        per_query = evaluate_trec(
            qrels, run, metrics=METRICS, zero_division="trec_eval", per_query=True, **options
        )
        per_query.name = "run.txt"
        _assert_same(MetricResults.read(path, per_query=True), per_query)
    # Written from Python, the same results give the command's file, byte for byte.
    saved = RunEvaluations(
        {"run.txt": read},
        {"run.txt": MetricResults.read(path, per_query=True)} if "-q" in flags else None,
    )
    assert saved.write(tmp_path / "again.json").read_text() == path.read_text().rstrip("\n")


def test_a_command_file_of_format_1_is_read_for_its_per_query_values(tmp_path):
    # What `ragmeter evaluate -q --format json` wrote before its file had a kind.
    legacy = {
        "run.txt": {
            "means": {"map": 0.5},
            "n_queries": {"map": 2},
            "missing_from_run": [],
            "unjudged": ["q7"],
            "per_query": {"map": {"q1": 1.0, "q2": 0.0}},
        }
    }
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(legacy))
    read = MetricResults.read(path)
    _assert_same(
        read,
        _results({"map": {"q1": 1.0, "q2": 0.0}}, ["q1", "q2"], name="run.txt", unjudged=["q7"]),
    )
    means_only = copy.deepcopy(legacy)
    del means_only["run.txt"]["per_query"]
    path.write_text(json.dumps(means_only))
    with pytest.raises(InvalidInputError, match=r"legacy\.json: .*run\.txt: .*evaluate -q"):
        MetricResults.read(path)
