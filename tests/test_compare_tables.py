"""The comparison tables: every p-value beside its difference, interval and standardised
effect in text, Markdown, LaTeX, CSV and JSON; display names of metrics; captions that state
the evaluation flags; the per-metric count of paired queries.

Oracles: ir_measures' own names of the same measures (parse_trec_measure, str), the pair
rows' numbers recomputed with scipy (ttest_rel, the t interval) and numpy (d_z), and
markdown-it-py (the Markdown renders two tables).
"""

from __future__ import annotations

import csv
import io
import json
import math

import ir_measures
import numpy as np
import pytest
from markdown_it import MarkdownIt
from scipy import stats as scipy_stats

from ragmeter import InvalidInputError, MultipleComparison, compare, compare_many
from ragmeter.ranking.names import parse_measures
from ragmeter.stats.tables import display_metric_name

TREC_NAMES = [
    "map",
    "P.5",
    "P.10",
    "recall.100",
    "recip_rank",
    "ndcg",
    "ndcg_cut.10",
    "map_cut.100",
    "bpref",
    "Rprec",
    "success.10",
]


@pytest.mark.parametrize("trec_name", TREC_NAMES)
def test_display_names_are_ir_measures_names(trec_name):
    ours = [display_metric_name(m.name) for m in parse_measures(trec_name)]
    theirs = [str(m) for m in ir_measures.parse_trec_measure(trec_name)]
    assert ours == theirs


def test_names_that_would_lose_a_parameter_or_are_unknown_stay():
    assert display_metric_name("iprec_at_recall_0.50") == "iprec_at_recall_0.50"
    assert display_metric_name("faithfulness") == "faithfulness"
    assert display_metric_name("P(rel=2)@5") == "P(rel=2)@5"


def campaign(n=25, seed=1):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, (2, n))
    systems = {}
    for name, shift in (("bm25", 0.0), ("dense", 0.04), ("hybrid", 0.1)):
        values = np.clip(base + shift + rng.normal(0, 0.05, base.shape), 0, 1)
        systems[name] = {
            "ndcg_cut_10": {f"q{i}": float(v) for i, v in enumerate(values[0])},
            "P_10": {f"q{i}": float(v) for i, v in enumerate(values[1])},
        }
    return systems


def test_every_pair_is_printed_with_its_effect_size_and_interval_in_every_format():
    systems = campaign()
    result = compare_many(systems, test="t", correction="holm")
    n_rows = len(result.pairs) * len(result.metric_names)
    for a, b in result.pairs:
        for metric in result.metric_names:
            item = result[a, b][metric]
            x = np.array(list(systems[a][metric].values()))
            y = np.array(list(systems[b][metric].values()))
            d = x - y
            assert item.p_value == pytest.approx(scipy_stats.ttest_rel(x, y).pvalue, rel=1e-9)
            half = scipy_stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
            assert item.ci_low == pytest.approx(d.mean() - half, rel=1e-9)
            assert item.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    text = result.to_table()
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("candidate"))
    assert "95% CI" in lines[start] and "d_z" in lines[start] and "p-value" in lines[start]
    body = lines[start + 1 : start + 1 + n_rows]
    for line, (a, b, metric) in zip(
        body, [(a, b, m) for a, b in result.pairs for m in result.metric_names], strict=True
    ):
        item = result[a, b][metric]
        assert line.split()[:3] == [a, b, metric]
        assert f"{item.delta:+.4f}" in line and f"{item.ci_low:+.4f}" in line
        assert f"{item.effect_size:+.2f}" in line
    assert "Differences (candidate - baseline)" in text
    # Markdown: the systems table and the table of differences; display names.
    markdown = result.to_markdown()
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert html.count("<table>") == 2 and "nDCG@10" in html and "P@10" in html
    assert html.count("<tr>") == 1 + 3 + 1 + n_rows
    # LaTeX: a second table with its own label; display names; the caption sentence given.
    latex = result.to_latex(label="tab:runs", caption="Runs on the test set.", digits=3)
    assert r"\label{tab:runs}" in latex and r"\label{tab:runs-pairs}" in latex
    # The caption is the first sentence; the whole explanation is under the table.
    assert r"\caption{Runs on the test set.}" in latex
    assert r"\raggedright Runs on the test set. Means over 25 queries" in latex
    assert "nDCG@10" in latex and "ndcg" not in latex
    item = result["dense", "bm25"]["ndcg_cut_10"]
    assert f"{item.delta:+.3f}" in latex and f"{item.ci_high:+.3f}" in latex
    assert result.to_latex(pairs=False).count(r"\begin{table}") == 1
    # CSV and JSON: one row per pair and metric with the same numbers.
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert len(rows) == n_rows
    for row in rows:
        assert row["delta"] and row["ci_low"] and row["ci_high"] and row["effect_size"]
    saved = json.loads(result.to_json())
    for entry in saved["comparisons"]:
        for m in entry["metrics"]:
            assert None not in (m["delta"], m["ci_low"], m["ci_high"], m["effect_size"])


def test_metric_names_can_be_given():
    result = compare_many(campaign(), test="t")
    latex = result.to_latex(metric_names={"ndcg_cut_10": "NDCG@10 (graded)"})
    assert "NDCG@10 (graded)" in latex and "P\\_10" in latex
    assert "ndcg_cut_10" in result.to_table() and "nDCG@10" in result.to_table(metric_names="auto")
    with pytest.raises(InvalidInputError, match="metric_names: \\['nope'\\] are not compared"):
        result.to_markdown(metric_names={"nope": "x"})
    with pytest.raises(InvalidInputError, match="metric_names: None, 'auto'"):
        result.to_markdown(metric_names="pretty")


def test_the_tukey_table_gives_es_e():
    result = compare_many(campaign(), test="tukey")
    text = result.to_table()
    assert "ES_E" in text and "sqrt(V_E)" in text and "simultaneous" in text
    anova = result.anova["ndcg_cut_10"]
    item = result["hybrid", "bm25"]["ndcg_cut_10"]
    assert item.effect_size == pytest.approx(item.statistic / math.sqrt(anova.ms_residual))


def test_the_header_counts_the_pairs_of_each_metric():
    a = {
        "map": {"q1": 0.5, "q2": 0.25, "q3": 0.75, "q4": math.nan},
        "p": {"q1": 0.5, "q2": 0.25, "q3": 0.75, "q4": 0.1},
    }
    b = {
        "map": {"q1": 0.25, "q2": 0.25, "q3": 0.5, "q4": 0.2},
        "p": {"q1": 0.5, "q2": 0.2, "q3": 0.7, "q4": 0.1},
    }
    text = compare(a, b).to_table()
    assert text.startswith("candidate vs baseline: 3 to 4 paired queries of 4 by metric")
    header, first, second = text.splitlines()[1:4]
    assert header.split()[:2] == ["metric", "n"]
    assert first.split()[:2] == ["map", "3"] and second.split()[:2] == ["p", "4"]
    only_map = compare(a, b, metrics=["map"]).to_table()
    assert only_map.startswith("candidate vs baseline: 3 paired queries of 4 (the others have")
    full = compare(b, b, metrics=["p"]).to_table()
    assert full.startswith("candidate vs baseline: 4 paired queries, two-sided")


def test_the_evaluation_is_stated_and_saved():
    result = compare_many(campaign(), test="t")
    result.evaluation = "evaluated with -c (a judged query a run did not rank scores 0)"
    assert "Means over 25 queries, evaluated with -c" in result.to_table()
    assert "evaluated with -c" in result.to_latex()
    back = MultipleComparison.from_dict(result.to_dict())
    assert back.evaluation == result.evaluation and back == result
    with pytest.raises(InvalidInputError, match="evaluation: a sentence or None"):
        MultipleComparison.from_dict(dict(result.to_dict(), evaluation=3))
