"""Report files: every format round-trips (NaN, None, int ids), JSON is strict, JSONL has one
row per query, TOML omits None, writes are atomic, missing writers name their extra; plots and
the demo write their files."""

from __future__ import annotations

import io
import json
import math
import os
import re
import secrets
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _saved import unstamped, unstamped_text
from doc_pages import DOCS, python_blocks, run_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmeter import (
    CorpusDocument,
    InvalidInputError,
    MissingDependencyError,
    MultipleComparison,
    QueryRecord,
    RetrievalConfig,
    RetrievalEvaluation,
    RetrievalIndex,
    RetrievalWarning,
    compare_many,
    evaluate_retrieval,
)
from ragmeter.cli import main as cli_main
from ragmeter.reports import atomic_write_text
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
        "report.html",
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
    # The figure as text instead (issue 50), and the HTML report, which needs no matplotlib.
    assert "plots skipped" not in out.getvalue() and "ragmeter[plot]" in out.getvalue()
    assert "ndcg@5: keyword - strict per query, sorted" in out.getvalue()
    assert (tmp_path / "keyword.json").exists() and (tmp_path / "report.html").exists()


def test_the_comparisons_guide_prints_what_it_shows_and_scipy_agrees(tmp_path, monkeypatch):
    """docs/guides/comparisons.md runs as written (every example prints what the page shows) and
    writes its reports; its p-values are scipy's and statsmodels'."""
    from scipy.stats import permutation_test, ttest_rel
    from statsmodels.stats.multitest import multipletests

    monkeypatch.chdir(tmp_path)
    namespace = run_examples(python_blocks(DOCS / "guides" / "comparisons.md"), name="comparisons")
    assert {p.name for p in tmp_path.iterdir()} >= {
        "baseline.json",
        "baseline.jsonl",
        "baseline.yaml",
        "baseline.toml",
        "campaign.json",
    }
    for suffix in ("json", "jsonl", "yaml", "toml"):
        assert (
            type(namespace["report"]).read(tmp_path / f"baseline.{suffix}") == namespace["report"]
        )
    # Two systems: the exact two-sided sign-flip p-value of each metric is scipy's exact
    # paired permutation test of the mean difference.
    candidate, baseline = namespace["candidate"], namespace["report"]
    for result in namespace["comparison"].metrics:
        queries = sorted(baseline.per_query[result.metric])
        differences = np.array(
            [
                candidate.per_query[result.metric][q] - baseline.per_query[result.metric][q]
                for q in queries
            ]
        )
        exact = permutation_test(
            (differences,), np.mean, permutation_type="samples", n_resamples=np.inf
        )
        assert result.p_value == pytest.approx(exact.pvalue, abs=1e-12), result.metric
    # The campaign: paired t-tests of every pair and metric, Holm-adjusted over all 6 tests.
    systems, campaign = namespace["systems"], namespace["campaign"]
    pairs = [("strict", "bm25"), ("strict", "bm25 k1=0"), ("bm25", "bm25 k1=0")]
    tests, raw = [], []
    for a, b in pairs:
        for metric in ("ndcg@5", "mrr"):
            queries = sorted(systems[a].per_query[metric])
            first = [systems[a].per_query[metric][q] for q in queries]
            second = [systems[b].per_query[metric][q] for q in queries]
            tests.append((a, b, metric))
            raw.append(ttest_rel(first, second).pvalue)
    adjusted = multipletests(raw, method="holm")[1]
    for (a, b, metric), p_raw, p_adjusted in zip(tests, raw, adjusted, strict=True):
        result = campaign[a, b][metric]
        assert result.p_value == pytest.approx(p_raw, rel=1e-9), (a, b, metric)
        assert result.p_value_adjusted == pytest.approx(p_adjusted, rel=1e-9), (a, b, metric)
    # The marks the table shows: bm25 and bm25 k1=0 beat strict, and do not differ.
    assert max(adjusted[:4]) < 0.05 < min(adjusted[4:])


# -- every report reads back equal, whatever its text ---------------------------------------

LINE_BREAKING = "\x85\u2028\u2029"


def _evaluation(records, name="run", metrics=("mrr", "ndcg@3")):
    return RetrievalEvaluation(
        records=tuple(records),
        parameters={"metrics": tuple(metrics), "zero_division": "warn", "retriever": "r"},
        name=name,
    )


def _record(query_id, query="q", retrieved=("d",), values=(0.5, 1.0), error=None):
    return QueryRecord(
        query_id=query_id,
        query=query,
        status="success" if error is None else "failed",
        latency=0.25,
        retrieved=tuple(retrieved),
        values=dict(zip(("mrr", "ndcg@3"), values, strict=True)),
        error=error,
    )


@pytest.mark.parametrize("suffix", FORMATS)
def test_unicode_line_breaks_in_any_text_read_back(tmp_path, suffix):
    # str.splitlines() splits at U+0085, U+2028 and U+2029 (JSONL lost rows), and YAML reads
    # U+0085 as a line break (folded into a space).
    records = [
        _record(f"q{c}1", query=f"a{c}b", retrieved=(f"d{c}x", "e"), error=f"bad{c}")
        for c in LINE_BREAKING
    ]
    report = _evaluation(records, name=f"name{LINE_BREAKING}")
    path = report.write(tmp_path / f"r.{suffix}")
    assert RetrievalEvaluation.read(path) == report
    if suffix == "jsonl":
        assert len(path.read_text(encoding="utf-8").splitlines()) == len(records)


ids = st.one_of(st.text(max_size=8), st.integers(min_value=-(2**63), max_value=2**63 - 1))
values = st.one_of(st.floats(0, 1), st.just(math.nan))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.tuples(ids, st.text(), st.lists(ids, max_size=3), values, values, st.none() | st.text()),
        min_size=1,
        max_size=4,
        unique_by=lambda row: (type(row[0]), row[0]),
    ),
    name=st.none() | st.text(),
)
def test_every_report_written_reads_back_equal(tmp_path, rows, name):
    records = [
        _record(query_id, query=query, retrieved=docs, values=(a, b), error=error)
        for query_id, query, docs, a, b, error in rows
    ]
    report = _evaluation(records, name=name)
    for suffix in ("json", "jsonl", "yaml", "toml"):
        path = report.write(tmp_path / f"r.{suffix}")
        assert RetrievalEvaluation.read(path) == report, suffix
    comparison = report.compare(report)
    for suffix in ("json", "jsonl", "yaml", "toml"):
        path = comparison.write(tmp_path / f"c.{suffix}")
        assert Comparison.read(path) == comparison, suffix


# -- hand-edited, damaged and hostile reports are refused, naming the file ---------------------


def _edited(tmp_path, report, edit, suffix="json"):
    """The report written, then edited as by hand without its checksum (which would refuse
    any edit first: tests/test_saved_integrity.py): the field checks refuse it."""
    path = report.write(tmp_path / f"edited.{suffix}")
    data = json.loads(path.read_text()) if suffix == "json" else None
    if data is not None:
        edit(data)
        path.write_text(json.dumps(unstamped(data)))
    else:
        path.write_text(edit(unstamped_text(path.read_text())))
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d["queries"][0]["values"].update(mrr=7.5),
            r"mrr: 7.5 lies outside \[0.0, 1.0\]",
        ),
        (lambda d: d["queries"][0]["values"].update(mrr="0.5"), r"mrr: expected a number"),
        (lambda d: d["queries"][0].update(latency=True), r"latency: expected a number"),
        (lambda d: d["queries"][0].update(latency=None), r"latency must be a number of seconds"),
        (lambda d: d["queries"][0]["values"].update(bogus=0.5), r"not among the evaluated"),
        (lambda d: d["parameters"].update(metrics="mrr"), r"metrics: expected a non-empty list"),
        (lambda d: d["parameters"].update(metrics=["mrr", "bogus@3"]), r"unknown metric 'bogus@3'"),
        (
            lambda d: d["metrics"].update(mrr=0.123),
            r"metrics.mrr: 0.123 where ragmeter would write",
        ),
        (lambda d: d.update(comment="by hand"), r"comment: a field ragmeter does not write"),
        (lambda d: d["queries"][0].update(status="great"), r"status 'great' is not one of"),
        (lambda d: d["queries"][0].pop("status"), r"missing field 'status'"),
        (lambda d: d["queries"][0].update(query_id=[1]), r"query_id: expected a str or an int"),
        (lambda d: d.update(n_queries="2"), r"n_queries: '2' where ragmeter would write 2"),
        (lambda d: d["parameters"].update(seed=1), r"\['seed'\] are not parameters"),
        (lambda d: d["parameters"].update(duplicates="all"), r"duplicates: must be one of"),
        (lambda d: d["parameters"].update(relevance_threshold=[1]), r"relevance_threshold: must"),
        (lambda d: d["queries"][0].update(query="\ud800"), r"can't encode character '\\ud800'"),
    ],
)
def test_edited_reports_are_refused_naming_the_file_and_field(tmp_path, spec_report, edit, message):
    path = _edited(tmp_path, spec_report, edit)
    with pytest.raises(InvalidInputError, match=re.escape(str(path)) + ".*" + message):
        RetrievalEvaluation.read(path)


def test_edited_jsonl_rows_and_comparisons_are_refused(tmp_path, spec_report):
    path = spec_report.write(tmp_path / "r.jsonl")
    path.write_text(unstamped_text(path.read_text()).replace('"mrr": 1.0', '"mrr": 1.5', 1))
    with pytest.raises(InvalidInputError, match=r"r.jsonl: .*mrr: 1.5 lies outside"):
        RetrievalEvaluation.read(path)
    comparison = spec_report.compare(spec_report)
    for edit, message in [
        (lambda d: d["metrics"][0].update(p_value=1.5), r"p_value: 1.5 lies outside"),
        (lambda d: d["metrics"][0].update(metric=""), r"metric: expected a metric name"),
        (lambda d: d["metrics"][0].update(metric="bogus"), r"one difference per query id"),
        (lambda d: d["metrics"][0].update(wins=5), r"wins \+ ties \+ losses must equal n_pairs"),
        (lambda d: d.update(method="bogus"), r"method: must be one of \('exact', 'sampled'\)"),
        (lambda d: d.update(test="z"), r"test: must be one of"),
        (lambda d: d.update(query_ids=[[1], 2]), r"query_ids: every query id must be"),
        (lambda d: d.update(n_resamples=0), r"n_resamples: must be an int >= 1"),
        (lambda d: d.update(format_version=1), r"format_version: 1; this version"),
        (
            lambda d: d["differences"]["mrr"].__setitem__(0, 3.0),
            r"metric 'mrr': n_pairs, wins, ties and losses",
        ),
        (lambda d: d["metrics"][1].update(delta=0.5), r"metric 'mrr': delta 0.5 is not the mean"),
    ]:
        path = _edited(tmp_path, comparison, edit)
        with pytest.raises(InvalidInputError, match=r"edited.json: .*" + message):
            Comparison.read(path)


@pytest.mark.parametrize(
    ("suffix", "text", "message"),
    [
        ("yaml", "!!python/object/apply:os.system ['echo hi']\n", r"not a valid YAML report"),
        ("yaml", "kind: [unclosed\n", r"not a valid YAML report"),
        ("json", "[" * 100_000 + "]" * 100_000, r"nested too deeply"),
        ("yaml", "[" * 100_000 + "]" * 100_000, r"nested too deeply"),
        ("toml", "a = " + "[" * 100_000 + "]" * 100_000, r"nested too deeply|not a valid TOML"),
        ("json", '{"kind": ', r"not a valid JSON report"),
        ("jsonl", '{"kind": 1}\n{', r"not a valid JSONL report"),
        ("json", "[1, 2]", r"does not hold a ragmeter report"),
        ("toml", "kind = 'x'\nkind = 'y'\n", r"not a valid TOML report"),
    ],
)
def test_unreadable_reports_are_input_errors_naming_the_file(tmp_path, suffix, text, message):
    path = tmp_path / f"bad.{suffix}"
    path.write_text(text)
    with pytest.raises(InvalidInputError, match=r"bad\." + suffix + ": " + message):
        RetrievalEvaluation.read(path)


def test_reports_that_are_not_regular_files_or_utf8_are_refused(tmp_path):
    with pytest.raises(InvalidInputError, match=r"/dev/zero: is a device, not a regular file"):
        RetrievalEvaluation.read("/dev/zero", format="json")
    path = tmp_path / "latin1.json"
    path.write_bytes('{\n"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(InvalidInputError, match=r"latin1.json:2: not UTF-8 text"):
        RetrievalEvaluation.read(path)


# -- the atomic writer ------------------------------------------------------------------------


def test_atomic_writes_leave_the_umask_alone_and_keep_the_mode(tmp_path, spec_report, monkeypatch):
    def no_umask(*args):
        raise AssertionError("os.umask changes the umask of every thread of the process")

    monkeypatch.setattr(os, "umask", no_umask)
    path = spec_report.write(tmp_path / "r.json")
    monkeypatch.undo()
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    path.chmod(0o600)
    spec_report.write(path)
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o640)
    atomic_write_text(path, "text")
    assert path.stat().st_mode & 0o777 == 0o640 and path.read_text() == "text"


def test_atomic_writes_go_through_symlinks_and_never_follow_planted_ones(
    tmp_path, spec_report, monkeypatch
):
    target = tmp_path / "store" / "report.json"
    target.parent.mkdir()
    spec_report.write(target)
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    spec_report.write(link)
    assert link.is_symlink() and RetrievalEvaluation.read(target) == spec_report
    # A symlink planted under the temporary file's name is not written through: the name is
    # random and the file is created exclusively (a taken name is skipped).
    victim = tmp_path / "victim"
    victim.write_text("precious")
    names = iter(["planted", "fresh"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(names))
    (target.parent / ".report.json.planted.tmp").symlink_to(victim)
    atomic_write_text(target, "new")
    assert victim.read_text() == "precious" and target.read_text() == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == [
        ".report.json.planted.tmp",
        "report.json",
    ]


def test_a_report_that_cannot_be_encoded_is_refused_naming_the_file(tmp_path):
    report = _evaluation([_record("q", query="half \ud800 a pair")])
    path = tmp_path / "r.json"
    with pytest.raises(InvalidInputError, match=r"r.json: cannot be written: .*'\\ud800'"):
        report.write(path)
    assert not list(tmp_path.iterdir())
