"""Campaign comparisons: per-query results of every kind, pairing by query id, all pairs and
baselines, corrections, the paper tables (Markdown rendered, LaTeX compiled), ranx's compare
on the same runs, and ``ragmeter compare``.

Oracles: scipy.stats (ttest_rel, wilcoxon, tukey_hsd, permutation_test), statsmodels'
multipletests, ranx's compare and report, markdown-it-py (the table renders), pdflatex (the
LaTeX compiles), pandas/polars/pyarrow (the exports hold the values).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import ranx
from markdown_it import MarkdownIt
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

import ragmeter
from ragmeter import (
    InputTypeError,
    InvalidInputError,
    MissingDependencyError,
    MultipleComparison,
    PerQueryResults,
    compare,
    compare_many,
    evaluate_trec,
    per_query_results,
    ranking_metrics,
    sign_flip_test,
)
from ragmeter.cli import main

METRICS = ["map@100", "ndcg@10", "precision@10", "recall@10", "mrr@100"]


def synthetic_campaign(n_queries=60, systems=("bm25", "dense", "hybrid", "rerank"), seed=0):
    """qrels and runs with distinct scores (ranx and ragmeter break ties differently), better
    systems giving relevant documents a larger boost."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {
            f"d{q}_{i}": int(g)
            for i, g in enumerate(rng.choice(3, size=30, p=[0.8, 0.12, 0.08]))
            if g
        }
        | {f"d{q}_39": 1}
        for q in range(n_queries)
    }
    runs = {}
    for level, name in enumerate(systems):
        run = {}
        for q in range(n_queries):
            judged = qrels[f"q{q}"]
            scores = rng.random(40) + 0.15 * level * np.array(
                [judged.get(f"d{q}_{i}", 0) for i in range(40)]
            )
            run[f"q{q}"] = {f"d{q}_{i}": float(s) for i, s in enumerate(scores)}
        runs[name] = run
    return qrels, runs


@pytest.fixture(scope="module")
def campaign():
    qrels, runs = synthetic_campaign()
    values = {
        name: ranking_metrics(qrels, run, metrics=METRICS, average=None, zero_division=0.0)
        for name, run in runs.items()
    }
    return qrels, runs, values


def write_trec(directory: Path, qrels, runs, tags=None):
    qrels_path = directory / "qrels.txt"
    with qrels_path.open("w") as f:
        for q, judged in qrels.items():
            for d, g in judged.items():
                f.write(f"{q} 0 {d} {g}\n")
    paths = []
    for name, run in runs.items():
        path = directory / f"{name}.run"
        tag = name if tags is None else tags[name]
        with path.open("w") as f:
            for q, scores in run.items():
                ranked = sorted(scores.items(), key=lambda item: -item[1])
                for rank, (d, s) in enumerate(ranked, 1):
                    f.write(f"{q} Q0 {d} {rank} {s!r} {tag}\n")
        paths.append(path)
    return qrels_path, paths


# -- one per-query type for every kind of result ---------------------------------------------


def test_every_kind_of_result_becomes_per_query_results(tmp_path, campaign):
    qrels, runs, values = campaign
    from_mapping = per_query_results(values["dense"], "dense")
    assert from_mapping.metric_names == tuple(METRICS)
    assert from_mapping["ndcg@10"] == values["dense"]["ndcg@10"]
    qrels_path, paths = write_trec(tmp_path, qrels, {"dense": runs["dense"]})
    trec = evaluate_trec(qrels_path, paths[0], metrics=METRICS, per_query=True, zero_division=0.0)
    from_trec = per_query_results(trec)
    for metric in METRICS:
        assert from_trec[metric] == pytest.approx(from_mapping[metric], abs=1e-12)
    # sequences: ids are positions
    ids = list(qrels)
    by_position = ranking_metrics(
        [qrels[q] for q in ids],
        [runs["dense"][q] for q in ids],
        metrics=["ndcg@10"],
        average=None,
        zero_division=0.0,
    )
    positional = per_query_results(by_position)
    assert positional.query_ids == tuple(range(len(ids)))
    assert positional.array("ndcg@10").tolist() == [values["dense"]["ndcg@10"][q] for q in ids]
    # a plain mapping, and PerQueryResults passed through
    plain = per_query_results({"m": {"a": 0.5, "b": None}}, "p")
    assert math.isnan(plain["m"]["b"]) and per_query_results(plain) is plain
    with pytest.raises(InvalidInputError, match="per_query=True"):
        per_query_results(ranking_metrics(qrels, runs["dense"], metrics=["map"]))
    # the per-query MetricResults are tables too
    table = trec.to_pandas()
    assert list(table.columns) == ["query_id", *METRICS]
    assert table.set_index("query_id")["ndcg@10"].to_dict() == pytest.approx(
        from_mapping["ndcg@10"], abs=1e-12
    )
    assert trec.to_polars().shape == (len(qrels), 1 + len(METRICS))
    assert trec.to_arrow("long").num_rows == len(qrels) * len(METRICS)
    with pytest.raises(InputTypeError, match="cannot read per-query values"):
        per_query_results(42)
    with pytest.raises(InvalidInputError, match="appear more than once"):
        PerQueryResults({"m": [0.1, 0.2]}, ["a", "a"])
    with pytest.raises(InvalidInputError, match="not a number"):
        PerQueryResults({"m": ["0.1"]}, ["a"])


def test_judges_results_are_paired_by_sample_id_and_failures_stay_failures():
    from ragmeter.judges import JudgeResults, Score
    from ragmeter.judges.results import SampleResult

    class Metric:
        def __init__(self, name):
            self.name = name

    def judged(scores):
        rows = [
            SampleResult(sample_id=s, metric="faithfulness", score=score, judge="j")
            for s, score in scores.items()
        ]
        return JudgeResults(rows, metrics=[Metric("faithfulness")], manifest={})

    a = judged({"s1": Score.ok(0.9), "s2": Score.ok(0.4), "s3": Score.error("timeout", "t/o")})
    b = judged({"s3": Score.ok(0.5), "s1": Score.ok(0.7), "s2": Score.undefined("no_claims")})
    values = per_query_results(a, "a")
    assert values.failed == {"faithfulness": ("s3",)}
    assert math.isnan(values["faithfulness"]["s3"])
    long = values.to_pandas("long")
    assert long.set_index("query_id")["status"].to_dict() == {
        "s1": "ok",
        "s2": "ok",
        "s3": "failed",
    }
    comparison = compare_many({"a": a, "b": b}, test="t", confidence_level=None)
    item = comparison["b", "a"]["faithfulness"]
    # s3 failed for a and s2 is undefined for b: only s1 pairs
    assert item.n_pairs == 1 and item.delta == pytest.approx(-0.2)
    assert any("failed" in note for note in comparison.notes())


def test_exports_hold_the_values_and_name_missing_extras(monkeypatch):
    values = PerQueryResults(
        {"map": [0.5, math.nan, 0.25], "mrr": [1.0, 0.5, 0.0]}, ["q1", "q2", "q3"], name="x"
    )
    wide = values.to_pandas()
    assert list(wide.columns) == ["system", "query_id", "map", "mrr"]
    assert wide["mrr"].tolist() == [1.0, 0.5, 0.0] and math.isnan(wide["map"][1])
    long = values.to_pandas("long")
    assert len(long) == 6 and long["status"].tolist().count("undefined") == 1
    polars = values.to_polars()
    assert polars.columns == ["system", "query_id", "map", "mrr"]
    assert polars["mrr"].to_list() == [1.0, 0.5, 0.0]
    arrow = values.to_arrow("long")
    assert arrow.column_names == ["system", "query_id", "metric", "value", "status"]
    assert arrow.num_rows == 6
    # a module set to None in sys.modules cannot be imported
    monkeypatch.setitem(sys.modules, "polars", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[polars\]"):
        values.to_polars()
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[arrow\]"):
        values.to_arrow()


# -- pairing by query id, never silently ------------------------------------------------------


def test_pairing_rules():
    a = {"m": {"q1": 0.5, "q2": 0.25, "q3": 0.75, "q4": 0.5}}
    b = {"m": {"q3": 0.5, "q1": 0.25, "q2": 0.25}}
    with pytest.raises(InvalidInputError, match=r"same queries: 1 queries .* in a.*'q4'"):
        compare_many({"a": a, "b": b})
    skipped = compare_many({"a": a, "b": b}, missing="skip", test="t")
    assert skipped.excluded == {"a": ("q4",)}
    assert skipped.query_ids == ("q1", "q2", "q3")
    assert "left out" in skipped.to_table() and "'q4'" in skipped.to_markdown()
    assert skipped["a", "b"]["m"].delta == pytest.approx(np.mean([0.25, 0.0, 0.25]))
    with pytest.raises(InvalidInputError, match="missing='zero'"):
        compare_many({"a": a, "b": b}, missing="zero")
    ints = {"m": {1: 0.5, 2: 0.25, 3: 0.75, 4: 0.5}}
    strings = {"m": {"1": 0.5, "2": 0.25, "3": 0.75, "4": 0.5}}
    with pytest.raises(InvalidInputError, match="as str in one system and int in another"):
        compare_many({"a": ints, "b": strings})


def test_settings_metrics_and_names_are_checked():
    a = PerQueryResults({"m": [0.5, 0.2]}, ["x", "y"], parameters={"zero_division": 0.0})
    b = PerQueryResults({"m": [0.1, 0.2]}, ["x", "y"], parameters={"zero_division": 1.0})
    with pytest.raises(InvalidInputError, match="different zero_division"):
        compare(a, b)
    c = PerQueryResults({"n": [0.1, 0.2]}, ["x", "y"])
    with pytest.raises(InvalidInputError, match="share no metric"):
        compare(a, c)
    with pytest.raises(InvalidInputError, match="no name"):
        compare_many([a, c])
    with pytest.raises(InvalidInputError, match="at least 2 systems"):
        compare_many({"a": a})
    with pytest.raises(InvalidInputError, match="test: must be one of"):
        compare_many({"a": a, "b": a}, test="z")
    with pytest.raises(InvalidInputError, match="tukey-oneway test already adjusts its p-values"):
        compare_many({"a": a, "b": a}, test="tukey-oneway", correction="holm")
    with pytest.raises(InvalidInputError, match="baseline: 'z' is not one of"):
        compare_many({"a": a, "b": a}, baseline="z")
    # the baseline's results themselves, whatever their own name
    d = PerQueryResults({"m": [0.1, 0.3]}, ["x", "y"], name="own name")
    result = compare_many({"a": PerQueryResults({"m": [0.5, 0.2]}, ["x", "y"]), "d": d}, baseline=d)
    assert result.baseline == "d" and result.pairs == (("a", "d"),)
    with pytest.raises(InvalidInputError, match="not among the systems"):
        compare_many({"a": a, "d": d}, baseline=c)


# -- every test of a campaign against its oracle ----------------------------------------------


def pairwise_differences(result: MultipleComparison, candidate: str, baseline: str, metric: str):
    a, b = result.systems.index(candidate), result.systems.index(baseline)
    m = result.metric_names.index(metric)
    d = result.values[a, m] - result.values[b, m]
    return d[~np.isnan(d)], result.values[a, m], result.values[b, m]


@pytest.mark.parametrize("family", ["all", "metric"])
def test_all_pairs_t_tests_and_corrections_equal_scipy_and_statsmodels(campaign, family):
    _, _, values = campaign
    result = compare_many(values, test="t", correction="holm", family=family)
    assert result.baseline is None
    assert len(result.pairs) == 6
    raw = np.empty((len(result.pairs), len(METRICS)))
    for p, (candidate, baseline) in enumerate(result.pairs):
        for m, metric in enumerate(METRICS):
            _, a, b = pairwise_differences(result, candidate, baseline, metric)
            expected = scipy_stats.ttest_rel(a, b)
            item = result[candidate, baseline][metric]
            assert item.p_value == pytest.approx(expected.pvalue, rel=1e-12)
            assert item.statistic == pytest.approx(expected.statistic, rel=1e-12)
            interval = expected.confidence_interval(0.95)
            assert (item.ci_low, item.ci_high) == pytest.approx((interval.low, interval.high))
            assert (item.wins, item.ties, item.losses) == (
                int((a > b).sum()),
                int((a == b).sum()),
                int((a < b).sum()),
            )
            raw[p, m] = item.p_value
            # the other order is the mirror image
            mirrored = result[baseline, candidate][metric]
            assert mirrored.delta == -item.delta and mirrored.wins == item.losses
            assert mirrored.p_value == item.p_value
    adjusted = np.array(
        [[result[c, b][m].p_value_adjusted for m in METRICS] for c, b in result.pairs]
    )
    if family == "all":
        expected = multipletests(raw.ravel(), method="holm")[1].reshape(raw.shape)
    else:
        expected = np.column_stack(
            [multipletests(raw[:, m], method="holm")[1] for m in range(len(METRICS))]
        )
    assert np.allclose(adjusted, expected, rtol=1e-13, atol=0)


def test_baseline_design_with_wilcoxon_and_benjamini_hochberg(campaign):
    _, _, values = campaign
    result = compare_many(values, baseline="bm25", test="wilcoxon", correction="bh")
    assert result.pairs == (("dense", "bm25"), ("hybrid", "bm25"), ("rerank", "bm25"))
    raw = []
    for candidate, baseline in result.pairs:
        for metric in METRICS:
            d, _, _ = pairwise_differences(result, candidate, baseline, metric)
            expected = scipy_stats.wilcoxon(d)
            item = result[candidate][metric]
            assert item.statistic == expected.statistic
            assert item.p_value == pytest.approx(expected.pvalue, rel=1e-12)
            raw.append(item.p_value)
    adjusted = [result[c][m].p_value_adjusted for c, _ in result.pairs for m in METRICS]
    assert adjusted == pytest.approx(multipletests(raw, method="fdr_bh")[1], rel=1e-13)
    assert set(result.comparisons) == {"dense", "hybrid", "rerank"}
    with pytest.raises(KeyError, match="were not compared"):
        result["dense", "hybrid"]


def test_sign_flip_campaign_is_the_single_pair_test_on_the_same_sign_vectors(campaign):
    _, _, values = campaign
    result = compare_many(values, n_resamples=4000, random_state=9, correction=None)
    assert result.method == "sampled" and result.n_resamples == 4000
    for candidate, baseline in result.pairs:
        rows = np.array([pairwise_differences(result, candidate, baseline, m)[0] for m in METRICS])
        single = sign_flip_test(rows, n_resamples=4000, random_state=9)
        got = [result[candidate, baseline][m].p_value for m in METRICS]
        assert got == single.p_value.tolist()
    # exact up to 16 queries: scipy's exact permutation test
    small = {
        name: {m: dict(list(v[m].items())[:11]) for m in METRICS} for name, v in values.items()
    }
    exact = compare_many(small, correction=None)
    assert exact.method == "exact" and exact.n_resamples == 2**11
    d, _, _ = pairwise_differences(exact, "rerank", "bm25", "ndcg@10")
    expected = scipy_stats.permutation_test(
        (d,),
        lambda x, axis: np.abs(np.mean(x, axis=axis)),
        permutation_type="samples",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    ).pvalue
    assert exact["rerank", "bm25"]["ndcg@10"].p_value == pytest.approx(expected, rel=1e-12)


def test_tukey_campaign_equals_scipy_tukey_hsd(campaign):
    _, _, values = campaign
    result = compare_many(values, test="tukey-oneway")
    assert result.correction == "tukey"
    for m, metric in enumerate(METRICS):
        expected = scipy_stats.tukey_hsd(*[result.values[s, m] for s in range(4)])
        for candidate, baseline in result.pairs:
            a, b = result.systems.index(candidate), result.systems.index(baseline)
            item = result[candidate, baseline][metric]
            assert abs(item.p_value - expected.pvalue[a, b]) < 1e-9
            assert item.p_value_adjusted == item.p_value
            assert item.statistic == pytest.approx(expected.statistic[a, b])


def test_undefined_values_are_left_out_pair_by_pair():
    nan = math.nan
    systems = {
        "a": {"m": {"q1": 0.5, "q2": nan, "q3": 1.0, "q4": 0.5}},
        "b": {"m": {"q1": 0.25, "q2": 0.5, "q3": nan, "q4": 0.25}},
        "c": {"m": {"q1": 0.0, "q2": 0.5, "q3": 0.5, "q4": 0.0}},
    }
    result = compare_many(systems, correction=None)
    assert result["b", "a"]["m"].n_pairs == 2
    assert result["c", "b"]["m"].n_pairs == 3
    assert result["c", "a"]["m"].n_pairs == 3
    d = np.array([0.25, 0.25])  # a - b on q1, q4
    assert result["a", "b"]["m"].p_value == pytest.approx(
        scipy_stats.permutation_test(
            (d,),
            lambda x, axis: np.abs(np.mean(x, axis=axis)),
            permutation_type="samples",
            alternative="greater",
            n_resamples=np.inf,
            vectorized=True,
        ).pvalue
    )


# -- ranx's compare on the same runs ----------------------------------------------------------


def test_ranx_compare_table_on_the_same_runs(campaign):
    qrels, runs, values = campaign
    ranx_runs = [ranx.Run.from_dict(run, name=name) for name, run in runs.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = ranx.compare(
            ranx.Qrels.from_dict(qrels), ranx_runs, METRICS, stat_test="student", max_p=0.05
        )
    ours = compare_many(values, test="t", correction=None, alpha=0.05)
    means = ours.means()
    for name in runs:
        for metric in METRICS:
            assert means[name][metric] == pytest.approx(report.results[name][metric], rel=1e-12)
    for a, b in itertools.permutations(runs, 2):
        for metric in METRICS:
            theirs = report.comparisons[a, b][metric]["p_value"]
            assert abs(ours[a, b][metric].p_value - theirs) <= 1e-12
            wtl = report.win_tie_loss[a, b][metric]
            item = ours[a, b][metric]
            assert (item.wins, item.ties, item.losses) == (wtl["W"], wtl["T"], wtl["L"])
    # The significance letters: ranx marks a system with the labels of those it beats.
    table = ours.systems_table()
    labels = table.labels
    for s, name in enumerate(runs):
        for m, metric in enumerate(METRICS):
            theirs = "".join(
                "abcdefghijklmnopqrstuvwxyz"[j]
                for j, other in enumerate(runs)
                if other != name
                and report.comparisons[name, other][metric]["significant"]
                and report.results[name][metric] > report.results[other][metric]
            )
            assert "".join(labels[j] for j in table.beats[s][m]) == theirs
    # Tukey's HSD as ranx runs it (scipy's tukey_hsd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tukey = ranx.compare(
            ranx.Qrels.from_dict(qrels), ranx_runs, METRICS, stat_test="tukey", max_p=0.05
        )
    ours_tukey = compare_many(values, test="tukey-oneway")
    for a, b in itertools.combinations(runs, 2):
        for metric in METRICS:
            theirs = tukey.comparisons[a, b][metric]["p_value"]
            assert abs(ours_tukey[a, b][metric].p_value - theirs) < 1e-9


# -- the tables -------------------------------------------------------------------------------


def small_campaign():
    rng = np.random.default_rng(7)
    base = rng.uniform(0, 1, size=(2, 30))
    systems = {}
    for name, shift in [("bm25_v1", 0.0), ("dense & co", 0.05), ("hybrid%", 0.2)]:
        values = np.clip(base + shift + rng.normal(0, 0.05, base.shape), 0, 1)
        systems[name] = PerQueryResults(
            {"ndcg_cut_10": values[0], "P@10": values[1]}, [f"q{i}" for i in range(30)]
        )
    return compare_many(systems, test="t", correction="holm")


def test_markdown_renders_as_a_table():
    result = small_campaign()
    html = MarkdownIt("commonmark").enable("table").render(result.to_markdown())
    # The systems table and the table of differences (every p-value beside its effect).
    assert html.count("<table>") == 2
    header = html[html.index("<thead>") : html.index("</thead>")]
    # Display names from the measure declarations (ndcg_cut_10 -> nDCG@10).
    assert [cell for cell in ("System", "nDCG@10", "P@10") if cell in header] == [
        "System",
        "nDCG@10",
        "P@10",
    ]
    raw = MarkdownIt("commonmark").enable("table").render(result.to_markdown(metric_names=None))
    assert "ndcg_cut_10" in raw[raw.index("<thead>") : raw.index("</thead>")]
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    assert body.count("<tr>") == 3
    assert "dense &amp; co" in body and "hybrid%" in body and "bm25_v1" in body
    # hybrid beats both others on ndcg_cut_10 and is the best: bold, with both labels
    assert ("<strong>" in body and "&lt;sup&gt;ab&lt;/sup&gt;" in body) or "<sup>ab</sup>" in body
    assert "Holm" in html and "α = 0.05" in html


def test_latex_table_has_booktabs_bold_superscripts_and_caption():
    result = small_campaign()
    latex = result.to_latex()
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{", r"\textbf{"):
        assert command in latex
    assert r"dense \& co" in latex and r"hybrid\%" in latex and r"bm25\_v1" in latex
    assert r"$^{\mathrm{ab}}$" in latex
    assert "two-sided paired t-test" in latex and "Holm" in latex and r"$\alpha$ = 0.05" in latex


def test_latex_table_compiles_with_pdflatex(tmp_path):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        message = (
            "pdflatex is not installed (apt-get install texlive-latex-base "
            "texlive-latex-recommended)"
        )
        if os.environ.get("RAGMETER_REQUIRE_PDFLATEX"):
            pytest.fail(message + "; RAGMETER_REQUIRE_PDFLATEX is set, so this test must run")
        pytest.skip(message)
    source = tmp_path / "table.tex"
    source.write_text(small_campaign().to_latex(standalone=True), encoding="utf-8")
    done = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", source.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 1000


def test_best_values_are_bold_including_ties_and_text_table():
    systems = {
        "a": {"m": {"q1": 0.5, "q2": 0.5}, "n": {"q1": 0.1, "q2": 0.2}},
        "b": {"m": {"q1": 0.5, "q2": 0.5}, "n": {"q1": 0.3, "q2": 0.2}},
    }
    table = compare_many(systems).systems_table()
    assert table.bold == [[True, False], [True, True]]
    text = compare_many(systems).to_table()
    assert "0.5000*" in text and "sign-flip" in text and "exact over all 4 sign vectors" in text


def test_csv_and_json_hold_every_pair(tmp_path):
    result = small_campaign()
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert len(rows) == 3 * 2
    first = result[rows[0]["candidate"], rows[0]["baseline"]][rows[0]["metric"]]
    assert float(rows[0]["p_value"]) == first.p_value
    assert rows[0]["significant"] == str(first.significant(0.05))
    data = json.loads(result.to_json())
    assert MultipleComparison.from_dict(data) == result
    for suffix in ("json", "jsonl", "yaml", "toml"):
        path = result.write(tmp_path / f"c.{suffix}")
        assert MultipleComparison.read(path) == result


def test_per_query_plot_across_runs(tmp_path, campaign):
    _, _, values = campaign
    result = compare_many(values, baseline="bm25", test="t")
    path = tmp_path / "per-query.png"
    figure = result.plot("ndcg@10", path=path)
    assert path.stat().st_size > 1000
    names = list(values)
    if len(names) <= 2:
        lines = figure.axes[0].get_lines()
        assert [line.get_label() for line in lines] == names
        # queries sorted by the baseline's values, descending
        baseline = lines[0].get_ydata()
        assert list(baseline) == sorted(baseline, reverse=True)
        return
    # More than two systems: one panel per system of its sorted differences from the baseline.
    others = [n for n in names if n != "bm25"]
    assert len(figure.axes) == len(others)
    base = values["bm25"]["ndcg@10"]
    for panel, name in zip(figure.axes, others, strict=True):
        mine = values[name]["ndcg@10"]
        expected = sorted((mine[q] - base[q] for q in base), reverse=True)
        heights = [bar.get_height() for bar in panel.patches]
        assert heights == pytest.approx(expected, abs=1e-12)
        assert panel.get_title().startswith(f"{name} - bm25: mean")


# -- the command ------------------------------------------------------------------------------


def run_command(arguments, capsys):
    status = main(["compare", *map(str, arguments)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_command_equals_the_python_api(tmp_path, capsys, campaign):
    qrels, runs, _ = campaign
    qrels_path, paths = write_trec(tmp_path, qrels, runs, tags={n: f"{n}-tag" for n in runs})
    status, out, _ = run_command(
        [qrels_path, *paths, "-m", "map", "-m", "ndcg_cut.10", "--test", "t", "--format", "json"],
        capsys,
    )
    assert status == 0
    printed = MultipleComparison.from_dict(json.loads(out))
    # Runs are named by their file names (as `evaluate --format table`), not their tags.
    assert printed.systems == tuple(f"{n}.run" for n in runs)
    expected = compare_many(
        {
            f"{name}.run": evaluate_trec(
                qrels_path,
                path,
                metrics=["map", "ndcg_cut.10"],
                per_query=True,
                zero_division="trec_eval",
            )
            for name, path in zip(runs, paths, strict=True)
        },
        test="t",
    )
    for pair in expected.pairs:
        for metric in ("map", "ndcg_cut_10"):
            assert printed[pair][metric].p_value == expected[pair][metric].p_value
    status, out, _ = run_command(
        [qrels_path, *paths, "--baseline", "bm25.run", "--format", "markdown"], capsys
    )
    assert status == 0 and "baseline bm25.run only" in out
    status, out, _ = run_command(
        [qrels_path, *paths, "--baseline", "bm25-tag", "--format", "csv"], capsys
    )
    assert status == 0 and "bm25.run" in out  # the run tag also finds it
    status, out, _ = run_command([qrels_path, *paths[:2], "--format", "latex"], capsys)
    assert status == 0 and r"\toprule" in out
    status, out, _ = run_command([qrels_path, *paths[:2], "--format", "csv"], capsys)
    assert out.splitlines()[0].startswith("candidate,baseline,metric")
    report = tmp_path / "report.json"
    status, out, _err = run_command(
        [qrels_path, *paths[:3], "--details", "--output", report], capsys
    )
    assert status == 0 and "vs" in out and MultipleComparison.read(report).systems


def test_command_names_systems_by_file_when_tags_collide_and_reports_errors(
    tmp_path, capsys, campaign
):
    qrels, runs, _ = campaign
    qrels_path, paths = write_trec(tmp_path, qrels, runs, tags={n: "same" for n in runs})
    status, out, _ = run_command([qrels_path, *paths, "--format", "csv"], capsys)
    assert status == 0
    names = {row["candidate"] for row in csv.DictReader(io.StringIO(out))}
    assert names == {"dense.run", "hybrid.run", "rerank.run"}
    status, _, err = run_command([qrels_path, paths[0]], capsys)
    assert status == 2 and "at least two run files" in err
    status, _, err = run_command([qrels_path, *paths, "--baseline", "nope"], capsys)
    assert status == 2 and "--baseline: 'nope' is none of the runs" in err
    status, _, err = run_command([qrels_path, *paths, "-m", "runid"], capsys)
    assert status == 2 and "value per query" in err
    # judged topics a run misses: an error, as in evaluate, unless -c
    partial = tmp_path / "partial.run"
    partial.write_text(
        "".join(
            line for line in paths[1].read_text().splitlines(True) if not line.startswith("q0 ")
        )
    )
    status, _, err = run_command([qrels_path, paths[0], partial], capsys)
    # Worded with the command's flags, naming the run and the query.
    assert status == 2 and "partial.run: 1 ('q0')" in err and "Pass -c" in err
    assert "complete=True" not in err and "missing='skip'" not in err
    status, out, _ = run_command(
        [qrels_path, paths[0], partial, "--missing", "skip", "--test", "t"], capsys
    )
    assert status == 0 and "--missing skip" in out and "'q0'" in out
    status, out, _ = run_command([qrels_path, paths[0], partial, "-c", "--format", "csv"], capsys)
    assert status == 0
    status, out, _ = run_command([qrels_path, paths[0], partial, "-c", "-M", "50"], capsys)
    # -c and -M are stated in the caption of the table itself.
    assert status == 0 and "evaluated with -c (a judged query a run did not rank scores 0" in out
    assert "-M 50 (the first 50 documents of each ranking)" in out


def test_the_command_is_listed():
    from ragmeter.cli import COMMANDS, usage

    assert "compare" in COMMANDS and "ragmeter compare" in usage()


# -- structure --------------------------------------------------------------------------------

OWNED_MODULES = [
    "stats/__init__.py",
    "stats/_arguments.py",
    "stats/comparison.py",
    "stats/distributions.py",
    "stats/multiple.py",
    "stats/paired.py",
    "stats/results/__init__.py",
    "stats/results/_saved.py",
    "stats/results/comparison.py",
    "stats/results/multiple_comparison.py",
    "stats/tables.py",
    "per_query.py",
    "ranking/results.py",
    "ranking/metric_results.py",
    "plots.py",
    "harness.py",
    "retrieval_evaluation.py",
    "cli/compare.py",
]


def test_no_import_is_hidden_in_a_function_and_there_is_no_cycle():
    import ast

    package = Path(ragmeter.__file__).parent
    for relative in OWNED_MODULES:
        tree = ast.parse((package / relative).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    assert not isinstance(inner, ast.Import | ast.ImportFrom), (
                        f"{relative}:{inner.lineno}: an import inside {node.name}()"
                    )
    # the graph of top-level imports between these modules has no cycle
    graph: dict[str, set[str]] = {}
    names = {
        r.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for r in OWNED_MODULES
    }
    for relative in OWNED_MODULES:
        module = relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        parts = module.split(".")
        base = parts[:-1] if not relative.endswith("__init__.py") else parts
        edges = set()
        for node in ast.parse((package / relative).read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                anchor = base[: len(base) - node.level + 1]
                target = ".".join([*anchor, *(node.module or "").split(".")]).strip(".")
                for alias in node.names:
                    for candidate in (f"{target}.{alias.name}", target):
                        if candidate in names:
                            edges.add(candidate)
                            break
        graph[module] = edges - {module}
    visiting, done = set(), set()

    def visit(node, path):
        assert node not in visiting, f"import cycle: {' -> '.join([*path, node])}"
        if node in done:
            return
        visiting.add(node)
        for child in graph.get(node, ()):
            visit(child, [*path, node])
        visiting.discard(node)
        done.add(node)

    for module in graph:
        visit(module, [])
