"""Report files: every format round-trips (NaN, None, int ids), JSON is strict, JSONL has one
row per query, TOML omits None, writes are atomic, missing writers name their extra; plots and
the demo write their files."""

from __future__ import annotations

import io
import json
import math
import os
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragmeter import (
    CorpusDocument,
    InvalidInputError,
    MissingDependencyError,
    MultipleComparison,
    RetrievalConfig,
    RetrievalEvaluation,
    RetrievalIndex,
    RetrievalWarning,
    compare_many,
    evaluate_retrieval,
)
from ragmeter.cli import main as cli_main
from ragmeter.stats import Comparison

FORMATS = ["json", "jsonl", "yaml", "yml", "toml"]


@pytest.fixture
def spec_report():
    texts = {
        "d1": "hemoglobin carries oxygen in red blood cells",
        "d2": "platelets help blood clot",
        "d3": "white blood cells fight infection",
    }
    documents = [
        CorpusDocument(doc_id=key, input_path=f"memory://{key}", chunk_index=0, text=text)
        for key, text in texts.items()
    ]
    index = RetrievalIndex(RetrievalConfig(match_mode="keyword", top_k=3))
    index.build(documents)
    queries = {"q1": "what carries oxygen", "q2": "blood clotting cells"}
    qrels = {"q1": ["d1"], "q2": ["d2"]}
    return evaluate_retrieval(index, queries, qrels, metrics=["recall@1", "mrr", "ndcg@3"])


@pytest.fixture
def awkward_report():
    """Int query and doc ids, an undefined value kept as NaN, a failed search with an error
    message and successful ones without (None), an empty ranking, a tiny latency."""

    def retriever(query):
        if query == "broken":
            raise TimeoutError("took too long")
        return {"first": [3, 1, 2], "second": [], "third": [2]}[query]

    queries = {10: "first", 20: "second", 30: "third", 40: "broken"}
    qrels = {10: {1: 2, 2: 1}, 20: {5: 0}, 30: [2], 40: [1]}
    with pytest.warns(RetrievalWarning):
        report = evaluate_retrieval(
            retriever,
            queries,
            qrels,
            metrics=["recall@2", "ndcg@3", "mrr"],
            zero_division=np.nan,
            on_degraded="warn",
            name="awkward",
        )
    assert math.isnan(report[20].values["recall@2"])
    assert report[10].error is None and report[40].error.startswith("TimeoutError")
    return report


@pytest.mark.parametrize("suffix", FORMATS)
def test_reports_round_trip_in_every_format(tmp_path, spec_report, awkward_report, suffix):
    for report in (spec_report, awkward_report):
        path = tmp_path / f"report.{suffix}"
        assert report.write(path) == path
        same = RetrievalEvaluation.read(path)
        assert same == report
        assert same.metrics == report.metrics or all(
            (math.isnan(a) and math.isnan(b)) or a == b
            for a, b in zip(same.metrics.values(), report.metrics.values(), strict=True)
        )
        assert same.query_ids == report.query_ids
        assert [type(q) for q in same.query_ids] == [type(q) for q in report.query_ids]
        assert same.status_counts == report.status_counts
        assert same.latency == report.latency


def test_spec_reports_example(tmp_path, spec_report, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = spec_report
    report.write("baseline.json")
    report.write("baseline.jsonl")
    same = type(report).read("baseline.json")
    assert same == report
    assert type(report).read("baseline.jsonl") == report


def test_json_is_strict_with_null_for_undefined(tmp_path, awkward_report):
    path = awkward_report.write(tmp_path / "r.json")
    text = path.read_text()

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    data = json.loads(text, parse_constant=refuse)
    by_id = {q["query_id"]: q for q in data["queries"]}
    assert by_id[20]["values"]["recall@2"] is None
    assert by_id[10]["error"] is None
    assert by_id[10]["retrieved"] == [3, 1, 2]
    assert data["metric_query_counts"]["recall@2"] == 3
    assert data["parameters"]["zero_division"] == "nan"
    assert data["kind"] == "ragmeter.retrieval_evaluation"


def test_jsonl_has_one_row_per_query_for_dataframes(tmp_path, awkward_report):
    path = awkward_report.write(tmp_path / "r.jsonl")
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    frame = pd.read_json(path, lines=True)
    assert frame["query_id"].tolist() == [10, 20, 30, 40]
    assert frame["status"].tolist() == ["success", "empty", "success", "failed"]
    assert frame["mrr"].tolist()[0] == pytest.approx(1 / 2)
    assert frame["name"].unique().tolist() == ["awkward"]


def test_toml_omits_none_and_keeps_nan(tmp_path, awkward_report):
    path = awkward_report.write(tmp_path / "r.toml")
    data = tomllib.loads(path.read_text())
    by_id = {q["query_id"]: q for q in data["queries"]}
    assert "error" not in by_id[10]
    assert by_id[40]["error"] == "TimeoutError: took too long"
    assert math.isnan(by_id[20]["values"]["recall@2"])


def test_unknown_suffix_and_foreign_files_are_refused(tmp_path, spec_report):
    with pytest.raises(InvalidInputError, match=r"\.csv"):
        spec_report.write(tmp_path / "r.csv")
    spec_report.write(tmp_path / "r.data", format="json")
    assert RetrievalEvaluation.read(tmp_path / "r.data", format="json") == spec_report
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(InvalidInputError, match="not a ragmeter"):
        RetrievalEvaluation.read(tmp_path / "other.json")


def test_missing_writers_name_their_extra(tmp_path, spec_report, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[yaml\]"):
        spec_report.write(tmp_path / "r.yaml")
    monkeypatch.setitem(sys.modules, "tomli_w", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[toml\]"):
        spec_report.write(tmp_path / "r.toml")
    assert not list(tmp_path.iterdir())


def test_an_interrupted_write_leaves_the_old_report_and_no_debris(
    tmp_path, spec_report, awkward_report, monkeypatch
):
    path = tmp_path / "r.json"
    spec_report.write(path)
    before = path.read_bytes()

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        awkward_report.write(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    monkeypatch.undo()
    awkward_report.write(path)
    assert RetrievalEvaluation.read(path) == awkward_report
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("suffix", FORMATS)
def test_comparisons_round_trip(tmp_path, awkward_report, suffix):
    other = evaluate_retrieval(
        lambda q: [1, 2, 3],
        {q: awkward_report[q].query for q in awkward_report.query_ids},
        {10: {1: 2, 2: 1}, 20: {5: 0}, 30: [2], 40: [1]},
        metrics=["recall@2", "ndcg@3", "mrr"],
        zero_division=np.nan,
        name="other",
    )
    comparison = other.compare(awkward_report)
    assert comparison["recall@2"].n_pairs == 3  # query 20 is undefined
    path = comparison.write(tmp_path / f"c.{suffix}")
    assert Comparison.read(path) == comparison
    many = compare_many([other, awkward_report], baseline="awkward")
    path = many.write(tmp_path / f"m.{suffix}")
    assert MultipleComparison.read(path) == many


def test_plots_are_written(tmp_path, spec_report, awkward_report):
    comparison = spec_report.compare(spec_report)
    delta_path = tmp_path / "deltas.png"
    comparison.plot("mrr", path=delta_path)
    bars_path = tmp_path / "bars.svg"
    spec_report.plot(path=bars_path)
    assert delta_path.read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in bars_path.read_bytes()
    from ragmeter.plots import plot_metrics

    figure = plot_metrics({"a": spec_report, "b": spec_report})
    assert len(figure.axes[0].patches) == 6


def test_plots_need_matplotlib(tmp_path, spec_report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[plot\]"):
        spec_report.plot(path=tmp_path / "x.png")


def test_demo_writes_reports_and_plots(tmp_path, capsys):
    output = tmp_path / "out"
    assert cli_main(["demo", "--output", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "keyword vs strict: 24 paired queries" in printed
    assert {p.name for p in output.iterdir()} == {
        "keyword.json",
        "keyword.jsonl",
        "strict.json",
        "comparison.json",
        "metrics.png",
        "ndcg@5-deltas.png",
    }
    keyword = RetrievalEvaluation.read(output / "keyword.json")
    assert keyword.name == "keyword" and keyword.n_queries == 24
    comparison = Comparison.read(output / "comparison.json")
    assert comparison.candidate == "keyword" and comparison.baseline == "strict"
    assert comparison.method == "sampled" and comparison.n_resamples == 9999


def test_demo_without_matplotlib_still_writes_reports(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    from ragmeter.demo import run_demo

    out = io.StringIO()
    assert run_demo(out, Path(tmp_path)) == 0
    assert "plots skipped" in out.getvalue() and "ragmeter[plot]" in out.getvalue()
    assert (tmp_path / "keyword.json").exists()


def test_readme_examples_work_as_written(tmp_path, monkeypatch, capsys):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    start = readme.index("## Evaluate a retriever")
    end = readme.find("\n## ", readme.index("## Compare two systems"))
    sections = readme[start : end if end != -1 else len(readme)]
    blocks = [block.split("```", 1)[0] for block in sections.split("```python\n")[1:]]
    assert len(blocks) == 4  # the fourth, "Tune a retriever with scikit-learn", prints nothing
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "{'recall@1': 0.5, 'mrr': 0.6666666666666666, 'ndcg@3': 0.75}"
    assert printed[1] == "{'success': 2}"
    assert printed[3] == "2"
    assert printed[4] == (
        "[('recall@1', -0.5, 1.0), ('mrr', -0.6666666666666666, 0.5), ('ndcg@3', -0.75, 0.5)]"
    )
    assert {p.name for p in tmp_path.iterdir()} == {
        "baseline.json",
        "baseline.jsonl",
        "baseline.yaml",
        "baseline.toml",
    }
