"""Notebook displays (_repr_html_, _repr_markdown_) of every result type.

Oracles: the means and p-values in the tables are recomputed here with numpy and scipy from
the per-query values; the Markdown is parsed by markdown-it-py (tables with the expected rows);
the HTML is rendered in headless Chromium, hostile names shown as text (no script runs), the
style scoped to the display (a table outside it keeps the browser's default look).
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from browser import browser_or_skip, screenshot
from markdown_it import MarkdownIt
from scipy import stats

import ragmeter
from ragmeter.gate import gate
from ragmeter.html_report.notebook import DISPLAYED
from ragmeter.io import means_and_per_query
from ragmeter.judges import (
    RubricMetric,
    Sample,
    ScriptedJudge,
    evaluate_within_budget,
    judge_report,
)
from ragmeter.judges import evaluate as judge_evaluate
from ragmeter.judges.testing import RuleJudge
from ragmeter.ranking import RunEvaluations

HOSTILE = "<script>window.__pwned=1</script>|x"
RUBRIC = RubricMetric("ok", "Is $answer right?", allowed_values=[0, 1])
#: 60 answers, the even ones right (the judge says so by the number in the answer).
BUDGET_SAMPLES = [Sample("Q?", f"answer {i}", id=str(i)) for i in range(60)]
BUDGET_JUDGE = ScriptedJudge(
    [(re.compile(r"answer \d*[02468]\b"), {"value": 1, "reason": "right"})],
    default={"value": 0, "reason": "wrong"},
)
QUERIES = [f"q{i}" for i in range(12)]


def values_of(seed, shift=0.0):
    rng = np.random.default_rng(seed)
    return {"ndcg@10": dict(zip(QUERIES, (rng.random(12) * 0.8 + shift).tolist(), strict=True))}


def _saved_evaluation(qrels, run):
    means, per_query = means_and_per_query(qrels, run, metrics=["P.1", "map"])
    return RunEvaluations({HOSTILE: means}, {HOSTILE: per_query})


def _retrieval_evaluation():
    texts = {"d1": "hemoglobin carries oxygen", "d2": "platelets help blood clot"}
    documents = [
        ragmeter.CorpusDocument(doc_id=k, input_path=f"memory://{k}", chunk_index=0, text=t)
        for k, t in texts.items()
    ]
    index = ragmeter.RetrievalIndex(ragmeter.RetrievalConfig(match_mode="keyword")).build(documents)
    queries = {"q1": "what carries oxygen", "q2": "blood clotting"}
    return ragmeter.evaluate_retrieval(
        index, queries, {"q1": ["d1"], "q2": ["d2"]}, metrics=["mrr"]
    )


@pytest.fixture(scope="module")
def results():
    systems = {"bm25": values_of(1), HOSTILE: values_of(2, 0.1), "dense": values_of(3, 0.05)}
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.9}, "q2": {"d3": 0.1, "d4": 0.8}}
    samples = [
        Sample("What is <b>x</b>?", "x is y.", ("x is y.",), id="s1"),
        Sample("Who?", "Nobody | somebody.", ("Somebody.",), id="s2"),
    ]
    candidate = ragmeter.PerQueryResults(values_of(2, 0.1), name="candidate")
    baseline = ragmeter.PerQueryResults(values_of(1), name="baseline")
    return {
        "multiple comparison": ragmeter.compare_many(systems, baseline="bm25", test="t"),
        "comparison": ragmeter.compare(candidate, baseline, test="t"),
        "per-query evaluation": ragmeter.ranking_metrics(
            qrels, run, metrics=["ndcg@10", "map"], average=None
        ),
        "means": ragmeter.ranking_metrics(qrels, run, metrics=["ndcg@10", "map"]),
        "per-query values": ragmeter.PerQueryResults(values_of(4), name=HOSTILE),
        "judge results": judge_evaluate(samples, ["groundedness"], judge=RuleJudge()),
        "fusion": ragmeter.fuse([run, {"q1": {"d2": 1.0}, "q2": {"d4": 0.3}}], names=["a", "b"]),
        "gate verdict": gate(candidate, baseline, margin=0.05),
        "saved evaluation": _saved_evaluation(qrels, run),
        "retrieval evaluation": _retrieval_evaluation(),
        "judge integrity report": judge_report(
            judge_evaluate(samples, ["groundedness"], judge=RuleJudge()), generator=HOSTILE
        ),
        "budget estimate": evaluate_within_budget(
            BUDGET_SAMPLES, RUBRIC, judge=BUDGET_JUDGE, max_calls=30, min_pilot=10
        ),
    }


def test_every_displayed_type_is_shown_here(results):
    assert {type(r) for r in results.values()} >= set(DISPLAYED)


def test_every_result_type_has_both_displays(results):
    for name, result in results.items():
        page = result._repr_html_()
        assert page.startswith('<div class="ragmeter-nb">'), name
        assert "<table" in page, name
        markdown = result._repr_markdown_()
        tokens = MarkdownIt().enable("table").parse(markdown)
        assert any(t.type == "table_open" for t in tokens), (name, markdown)


def test_hostile_names_are_escaped(results):
    for name in ("multiple comparison", "per-query values", "saved evaluation"):
        page = results[name]._repr_html_()
        assert "<script>window" not in page, name
        assert html.escape("<script>", quote=True) in page
        markdown = results[name]._repr_markdown_()
        assert "<script>" not in markdown
        # The pipe of the name does not split a Markdown cell.
        rendered = MarkdownIt().enable("table").render(markdown)
        assert "<td>&lt;script&gt;window.__pwned=1&lt;/script&gt;|x</td>" in rendered
        assert "<script>" not in rendered


def test_the_tables_hold_the_means_and_p_values(results):
    campaign = results["multiple comparison"]
    page = campaign._repr_html_()
    markdown = campaign._repr_markdown_()
    for seed, shift in ((1, 0.0), (2, 0.1), (3, 0.05)):
        mean = np.mean(list(values_of(seed, shift)["ndcg@10"].values()))
        assert f"{mean:.4f}" in page and f"{mean:.4f}" in markdown
    a = np.array(list(values_of(2, 0.1)["ndcg@10"].values()))
    b = np.array(list(values_of(1)["ndcg@10"].values()))
    p = stats.ttest_rel(a, b).pvalue
    shown = ragmeter.stats.tables.format_p_value(p)
    assert shown in page and shown in markdown
    assert f"{np.mean(a - b):+.4f}" in page
    two = results["comparison"]._repr_markdown_()
    assert shown in two and f"{np.mean(a - b):+.4f}" in two


def test_means_only_and_judge_rows_say_their_counts(results):
    markdown = results["means"]._repr_markdown_()
    assert "2 queries" in markdown
    judged = results["judge results"]._repr_markdown_()
    assert "judge rows" in judged and "s1" in judged
    verdict = results["gate verdict"]
    assert ("passed" if verdict.passed else "failed") in verdict._repr_markdown_()


def test_displays_in_chromium(results, tmp_path):
    driver = browser_or_skip()
    try:
        cells = "".join(
            f'<h2 class="cell">{html.escape(name)}</h2><div class="output">{r._repr_html_()}</div>'
            for name, r in results.items()
        )
        page = (
            '<!doctype html><html><head><meta charset="utf-8"></head>'
            '<body style="width:900px;font-family:sans-serif">'
            '<table id="outside"><tr><td>outside</td></tr></table>'
            f"{cells}</body></html>"
        )
        path = tmp_path / "notebook.html"
        path.write_text(page, encoding="utf-8")
        driver.set_window_size(1000, 900)
        driver.get(path.as_uri())
        assert driver.execute_script("return window.__pwned") is None
        # The report's style is scoped: a table outside the displays has no border.
        outside = driver.execute_script(
            "return getComputedStyle(document.querySelector('#outside td')).borderTopWidth"
        )
        assert outside == "0px"
        inside = driver.execute_script(
            "return getComputedStyle(document.querySelector('.ragmeter-nb td')).borderTopWidth"
        )
        assert inside == "1px"
        # No display is wider than the page: wide tables scroll inside.
        widths = driver.execute_script(
            "return [...document.querySelectorAll('.ragmeter-nb')].map(e => e.scrollWidth > "
            "e.clientWidth + 1 ? 0 : e.getBoundingClientRect().width)"
        )
        assert all(w <= 900 for w in widths)
        text = driver.execute_script("return document.body.innerText")
        assert "<script>window.__pwned=1</script>|x" in text
        height = driver.execute_script("return document.body.scrollHeight")
        for part, top in enumerate(range(0, height, 800), 1):
            driver.execute_script(f"window.scrollTo(0, {top})")
            screenshot(driver, f"notebook-displays-{part}")
    finally:
        driver.quit()


def test_markdown_cells_escape_html_and_pipes():
    from ragmeter.html_report.notebook import to_markdown

    values = ragmeter.PerQueryResults({"a|b": {"q": 1.0}}, name="x<y>")
    markdown = to_markdown(values)
    assert "x&lt;y&gt;" in markdown and "a\\|b" in markdown
    assert not re.search(r"<y>", markdown)


def test_judge_results_show_the_report_s_integrity_table(results):
    """The judge section's integrity table is the report's own (one renderer), in both."""
    judged = results["judge results"]
    report_page = ragmeter.report(judged)
    table = re.search(r'<table data-role="judge-integrity">.*?</table>', report_page, re.S)
    assert table is not None
    assert table.group(0) in judged._repr_html_()
    alone = results["judge integrity report"]
    assert '<table data-role="judge-integrity">' in alone._repr_html_()
    assert "<script>window" not in alone._repr_html_()  # the hostile generator's name
    markdown = alone._repr_markdown_()
    rendered = MarkdownIt().enable("table").render(markdown)
    assert "self-judging" in rendered and "<script>" not in rendered
    assert "Judge integrity" in judged._repr_markdown_()


def test_a_budget_estimate_shows_its_mean_interval_and_counts(results):
    estimate = results["budget estimate"]
    # Oracle: the judged items' values, recomputed from the rule the judge follows.
    judged = [int(i) % 2 == 0 for i in estimate.judged]
    page, markdown = estimate._repr_html_(), estimate._repr_markdown_()
    assert len(judged) <= 30 and estimate.calls <= 30
    for text in (page, markdown):
        assert f"{len(judged)} of 60" in text
        assert f"{estimate.mean:.4f}" in text
        assert f"[{estimate.ci[0]:.4f}, {estimate.ci[1]:.4f}]" in text
        assert estimate.stopped in text.replace("&#x27;", "'").replace("&#39;", "'")
    # Stratified sampling without a proxy: the judged items' mean (one stratum).
    assert estimate.mean == pytest.approx(np.mean(judged))
