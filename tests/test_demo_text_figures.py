"""Without matplotlib the demo shows its figure as text, never "plots skipped" (issue 50 item
9), and always writes the HTML report (SVG figures, no matplotlib). The text figure's values are
the per-query differences of the two systems' saved per-query values."""

from __future__ import annotations

import io
import json

import ragmeter.plots
from ragmeter.demo import run_demo
from ragmeter.exceptions import MissingDependencyError


def test_the_demo_draws_its_figure_as_text_without_matplotlib(tmp_path, monkeypatch) -> None:
    def missing(*args, **kwargs):
        raise MissingDependencyError("Plotting needs matplotlib: pip install 'ragmeter[plot]'")

    monkeypatch.setattr(ragmeter.plots, "plot_metrics", missing)
    out = io.StringIO()
    assert run_demo(out, tmp_path) == 0
    text = out.getvalue()
    assert "skipped" not in text and "ragmeter[plot]" in text
    figure = text.split("ndcg@5: keyword - strict per query, sorted", 1)[1].splitlines()[1:25]
    printed = sorted((float(line.split()[-1]) for line in figure), reverse=True)
    keyword = json.loads((tmp_path / "keyword.json").read_text())
    strict = json.loads((tmp_path / "strict.json").read_text())

    def values(saved):
        return {q["query_id"]: q["values"]["ndcg@5"] for q in saved["queries"]}

    a, b = values(keyword), values(strict)
    expected = sorted((round(a[q] - b[q], 3) for q in a), reverse=True)
    assert printed == expected
    assert (tmp_path / "report.html").exists() and "★ best" in (
        tmp_path / "report.html"
    ).read_text()
