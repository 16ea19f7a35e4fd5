"""The notebook displays of every result type: :func:`to_html` and :func:`to_markdown`.

What ``_repr_html_`` and ``_repr_markdown_`` of the result types show
(:class:`ragmeter._notebook.NotebookDisplay`), built by the report's own renderers
(:mod:`ragmeter.html_report`) from the same data as ``ragmeter report``:

* a comparison (:class:`~ragmeter.stats.MultipleComparison`): the first screen (the systems
  sorted by the first metric, the best marked, the groups, the pairs matrix and the sorted means
  chart), the summary table of means with their intervals, and the table of differences (the
  report's rows, here as a static table: its first rows, the number left out said);
* a two-system :class:`~ragmeter.stats.Comparison`: its table of differences;
* an evaluation with per-query values (:class:`~ragmeter.MetricResults` of ``average=None``,
  :class:`~ragmeter.RunEvaluations`, :class:`~ragmeter.RetrievalEvaluation`,
  :class:`~ragmeter.PerQueryResults`): the summary table; an evaluation of means only: each
  mean, over how many queries, how many undefined;
* judge results (:class:`~ragmeter.judges.JudgeResults`): the summary table, the judge
  integrity report (as the report's judge section shows it) and the first judge rows (status,
  value, reason: a failed call is a status, never a score); a judge integrity report
  (:class:`~ragmeter.judges.JudgeReport`) alone: its table; an estimate judged within a budget
  (:class:`~ragmeter.judges.BudgetedEstimate`): the estimated mean, its interval, how many
  items were judged, the calls and cost, and why the waves stopped;
* a fused run (:class:`~ragmeter.FusedRun`): its method and parameters and the first
  documents of its first queries;
* a gate verdict (:class:`~ragmeter.gate.GateResult`): the verdict and every check.

HTML is wrapped in ``<div class="ragmeter-nb">`` with the report's stylesheet scoped to it
(no rule reaches the rest of the notebook), tables wider than the cell scroll; Markdown is
plain tables. Every name, id, reason and value from the data is escaped (HTML: ``&<>"'``;
Markdown: ``|``, backslashes, line breaks and HTML's characters), so a system called
``<script>`` is shown as text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..fusion import FusedRun
from ..gate.results import GateResult
from ..judges.budget import BudgetedEstimate
from ..judges.integrity import JudgeReport
from ..judges.results import JudgeResults
from ..per_query import PerQueryResults
from ..ranking.metric_results import MetricResults, RunEvaluations
from ..retrieval_evaluation import RetrievalEvaluation
from ..stats.pvalues import format_p_value
from ..stats.registry import TESTS
from ..stats.results import Comparison, MultipleComparison
from . import (
    escape,
    first_screen,
    integrity_rows,
    integrity_section,
    mean_interval,
    number_text,
    stylesheet,
    summary_table,
)
from . import value_matrix as matrix_of
from ._overview import pair_rows, sorted_systems
from ._sources import Source, read_source

__all__ = ["MAX_ROWS", "to_html", "to_markdown"]

#: The rows of a long table a display shows (the report shows them all).
MAX_ROWS = 20
#: The report's rules that style the page itself, not its tables (not scoped into a notebook).
_PAGE_RULES = ("body", "header", "main")


def _scoped_css() -> str:
    """The report's stylesheet with every rule scoped to ``.ragmeter-nb``."""
    rules = []
    for rule in re.findall(r"[^{}]+\{[^{}]*\}", stylesheet("report.css")):
        selectors, body = rule.split("{", 1)
        names = [s.strip() for s in selectors.split(",")]
        if any(n.split()[0] in _PAGE_RULES for n in names if n):
            continue
        scoped = ",".join(f".ragmeter-nb {n}" for n in names if n)
        rules.append(f"{scoped}{{{body}")
    return (
        ".ragmeter-nb{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,"
        "sans-serif;color:#222;font-size:13px;max-width:100%;overflow-x:auto}"
        ".ragmeter-nb h4{font-weight:500;margin:12px 0 4px;font-size:14px}" + "".join(rules)
    )


def _wrap(parts: Sequence[str]) -> str:
    return f'<div class="ragmeter-nb"><style>{_scoped_css()}</style>' + "".join(parts) + "</div>"


def _md(value: Any) -> str:
    """A Markdown table cell: HTML's characters escaped, no pipe, no line break."""
    text = escape(value).replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = [
        "| " + " | ".join(_md(h) for h in header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines


def _html_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str, text_columns: int = 1
) -> str:
    cls = ' class="text"'
    head = "".join(
        f"<th{cls if i < text_columns else ''}>{escape(h)}</th>" for i, h in enumerate(header)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{cls if i < text_columns else ''}>{escape(c)}</td>" for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table><tr>{head}</tr>{body}'
        f"<caption>{escape(caption)}</caption></table></div>"
    )


def _more(total: int, shown: int, what: str) -> str:
    if total <= shown:
        return ""
    return f" The first {shown} of {total} {what}; ragmeter.report(...) shows them all."


# -- the report's sources: comparisons, evaluations with per-query values, judge results ----


def _source(result: Any) -> Source | None:
    """The report's source of ``result``, or None for an evaluation without per-query values."""
    try:
        return read_source(result, 0)
    except (ValueError, TypeError):
        return None


def _heading(result: Any, source: Source, systems: list[str], metrics: list[str]) -> str:
    kinds = {"comparison": "Comparison", "evaluation": "Evaluation", "judge": "Judge results"}
    what = kinds.get(source.kind, "Results")
    shown = ", ".join(metrics[:4]) + (f" and {len(metrics) - 4} more" if len(metrics) > 4 else "")
    if isinstance(result, Comparison):
        return f"Comparison of {result.candidate} with {result.baseline}"
    if not systems:
        return what
    return f"{what} of {len(systems)} system{'s' if len(systems) != 1 else ''} on {shown}"


def _difference_rows(comparison: MultipleComparison | Comparison) -> tuple[list[str], list[Any]]:
    effect = TESTS[comparison.test].effect_size_name if comparison.test in TESTS else "effect"
    header = [
        "candidate",
        "baseline",
        "metric",
        "n",
        "Δ",
        "interval",
        effect,
        "W/T/L",
        "p",
        "adjusted p",
    ]
    rows = []
    for row in pair_rows(comparison):
        mark = " *" if row["significant"] else ""
        interval = (
            "–"
            if row["low"] is None
            else f"[{number_text(row['low'])}, {number_text(row['high'])}]"
        )
        rows.append(
            [
                row["candidate"],
                row["baseline"],
                row["metric"],
                row["n"],
                f"{row['delta']:+.4f}" if math.isfinite(row["delta"]) else "–",
                interval,
                number_text(row["effect"], 2),
                "/".join(map(str, row["wtl"])),
                row["p_text"],
                (row["adjusted_text"] if row["adjusted"] is not None else "–") + mark,
            ]
        )
    return header, rows


def _differences_caption(comparison: MultipleComparison | Comparison, total: int) -> str:
    return (
        "Every compared pair and metric: the difference of the means (candidate − baseline) "
        "over the n paired queries, its interval, the effect size, wins/ties/losses and the "
        f"p-values; * adjusted p ≤ α = {comparison.alpha:g}. {comparison.describe_test()}"
        + _more(total, MAX_ROWS, "rows")
    )


def _summary_rows(
    systems: list[str], metrics: list[str], arrays: dict[str, np.ndarray], level: float
) -> list[list[str]]:
    rows = []
    order = (
        sorted_systems(
            {s: mean_interval(arrays[metrics[0]][i], level)[0] for i, s in enumerate(systems)}
        )
        if metrics
        else systems
    )
    for name in order:
        i = systems.index(name)
        cells = [name]
        for metric in metrics:
            mean, low, high, n = mean_interval(arrays[metric][i], level)
            cells.append(f"{number_text(mean)} [{number_text(low)}, {number_text(high)}] n={n}")
        rows.append(cells)
    return rows


_JUDGE_HEADER = ["sample", "metric", "status", "value", "reason"]


def _judge_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    shown = []
    for row in rows[:MAX_ROWS]:
        value = row.get("value")
        shown.append(
            [
                row.get("sample_id", row.get("id", "")),
                row.get("metric", ""),
                row.get("status", ""),
                "–" if value is None else number_text(float(value)),
                str(row.get("reason") or row.get("error") or "")[:200],
            ]
        )
    return shown


def _source_html(result: Any, source: Source) -> list[str]:
    systems, metrics, _queries, arrays = matrix_of(source)
    comparison = source.comparison
    level = (comparison.confidence_level if comparison is not None else None) or 0.95
    out = [f"<h4>{escape(_heading(result, source, systems, metrics))}</h4>"]
    order = list(systems)
    if isinstance(comparison, MultipleComparison) and systems and metrics:
        first = comparison.metric_names[0]
        first = first if first in metrics else metrics[0]
        screen, overview = first_screen(comparison, first, systems, metrics, arrays, level)
        out += screen
        order = list(overview.order)
    elif systems and metrics:
        order = list(
            sorted_systems(
                {s: mean_interval(arrays[metrics[0]][i], level)[0] for i, s in enumerate(systems)}
            )
        )
    if systems and metrics:
        out.append('<div class="scroll">')
        out += summary_table(source, systems, metrics, arrays, level, order)
        out.append("</div>")
    if comparison is not None:
        header, rows = _difference_rows(comparison)
        caption = _differences_caption(comparison, len(rows))
        out.append(_html_table(header, rows[:MAX_ROWS], caption, text_columns=3))
    if source.integrity is not None:
        out += integrity_section(source.integrity)
    if source.judge_rows:
        caption = (
            f"{len(source.judge_rows)} judge rows; an error or undefined row has no value and "
            "says why." + _more(len(source.judge_rows), MAX_ROWS, "rows")
        )
        out.append(_html_table(_JUDGE_HEADER, _judge_rows(source.judge_rows), caption, 3))
    return out


def _source_markdown(result: Any, source: Source) -> list[str]:
    systems, metrics, _queries, arrays = matrix_of(source)
    comparison = source.comparison
    level = (comparison.confidence_level if comparison is not None else None) or 0.95
    out = [f"**{_md(_heading(result, source, systems, metrics))}**", ""]
    if systems and metrics:
        out += _md_table(["system", *metrics], _summary_rows(systems, metrics, arrays, level))
        out += [
            "",
            f"Means over the queries each system has a value for, with {level:.0%} Student t "
            "intervals and the number of queries n.",
            "",
        ]
    if comparison is not None:
        header, rows = _difference_rows(comparison)
        out += _md_table(header, rows[:MAX_ROWS])
        out += ["", _md(_differences_caption(comparison, len(rows))), ""]
    if source.integrity is not None:
        out += _integrity_markdown(source.integrity)
    if source.judge_rows:
        out += _md_table(_JUDGE_HEADER, _judge_rows(source.judge_rows))
        out += [
            "",
            _md(f"{len(source.judge_rows)} judge rows.")
            + _more(len(source.judge_rows), MAX_ROWS, "rows"),
            "",
        ]
    return out


# -- what the report does not read: means only, fused runs, gate verdicts ------------------------


def _means_rows(results: MetricResults) -> tuple[list[str], list[list[Any]]]:
    header = ["metric", "value", "over", "undefined"]
    rows = []
    for metric, value in results.items():
        n = getattr(value, "n_queries", None)
        undefined = getattr(value, "n_undefined", None)
        shown = number_text(float(value)) if isinstance(value, float) else str(value)
        rows.append([metric, shown, "" if n is None else f"{n} queries", undefined or 0])
    return header, rows


def _fused_rows(run: FusedRun) -> tuple[list[str], list[list[Any]]]:
    header = ["query", "documents (best first)", "fused scores"]
    rows = []
    for query in run.keys()[:MAX_ROWS]:
        ranked = list(run[query].items())[:5]
        rows.append(
            [
                query,
                ", ".join(str(d) for d, _ in ranked) + (" …" if len(run[query]) > 5 else ""),
                ", ".join(f"{s:.4g}" for _, s in ranked),
            ]
        )
    return header, rows


def _fused_caption(run: FusedRun) -> str:
    params = ", ".join(f"{k}={v}" for k, v in run.params.items())
    return (
        f"Fused run {run.name!r}: {run.method}"
        + (f" after {run.norm} normalisation" if run.norm else "")
        + (f" ({params})" if params else "")
        + f", {len(run)} queries; the first 5 documents of each."
        + _more(len(run), MAX_ROWS, "queries")
    )


def _gate_rows(result: GateResult) -> tuple[list[str], list[list[Any]]]:
    header = ["check", "verdict", "estimate", "interval", "p (corrected)", "n"]
    rows = []
    for check in result.checks:
        rows.append(
            [
                check.title,
                "pass" if check.passed else f"fail: {check.outcome}",
                number_text(check.mean),
                f"{100 * check.confidence_level:g}% [{number_text(check.ci_low)}, "
                f"{number_text(check.ci_high)}]",
                f"{format_p_value(check.p_value)} ({format_p_value(check.p_adjusted)})",
                check.n,
            ]
        )
    return header, rows


def _gate_caption(result: GateResult) -> str:
    verdict = "passed" if result.passed else "failed"
    return f"gate {verdict}: {result.caption()}. " + " ".join(result.notes)


_INTEGRITY_NOTE = (
    "Who judged, with which prompts, and the biases a judge is known for (self-judging, "
    "length, position, drift), each with its interval."
)


def _integrity_markdown(report: dict[str, Any]) -> list[str]:
    return [
        "**Judge integrity**",
        "",
        *_md_table(["what", "found"], integrity_rows(report)),
        "",
        _INTEGRITY_NOTE,
        "",
    ]


def _budget_rows(result: BudgetedEstimate) -> tuple[list[str], list[list[Any]]]:
    estimate = result.estimate
    interval = (
        f"– ({estimate.reason})"
        if estimate.ci is None and estimate.reason
        else "–"
        if estimate.ci is None
        else f"{100 * estimate.confidence:g}% [{number_text(estimate.ci[0])}, "
        f"{number_text(estimate.ci[1])}]"
    )
    header = ["metric", "estimated mean", "interval", "judged", "no value", "calls", "cost"]
    row = [
        result.metric,
        "–" if result.mean is None else number_text(result.mean),
        interval,
        f"{len(result.judged)} of {result.n_items}",
        result.n_no_value,
        result.calls,
        "–" if result.cost is None else f"{result.cost:.4f}",
    ]
    return header, [row]


def _budget_caption(result: BudgetedEstimate) -> str:
    return (
        f"The mean over every item, estimated from the items judged within the budget "
        f"({result.estimate.method}); stopped: {result.stopped}."
    )


def to_html(result: Any) -> str:
    """The notebook's HTML of a result (see the module documentation).

    Parameters
    ----------
    result
        Any result type of ragmeter.

    Returns
    -------
    str
        One ``<div class="ragmeter-nb">`` with its scoped style.
    """
    if isinstance(result, GateResult):
        header, rows = _gate_rows(result)
        mark = (
            '<span class="better">passed</span>'
            if result.passed
            else ('<span class="worse">failed</span>')
        )
        return _wrap(
            [
                f"<h4>ragmeter gate: {mark}</h4>",
                _html_table(header, rows, _gate_caption(result), text_columns=2),
            ]
        )
    if isinstance(result, JudgeReport):
        return _wrap(integrity_section(result.to_dict()))
    if isinstance(result, BudgetedEstimate):
        header, rows = _budget_rows(result)
        return _wrap(
            [
                "<h4>Judged within a budget</h4>",
                _html_table(header, rows, _budget_caption(result), text_columns=1),
            ]
        )
    if isinstance(result, FusedRun):
        header, rows = _fused_rows(result)
        return _wrap(
            [
                f"<h4>Fused run {escape(result.name)}</h4>",
                _html_table(header, rows, _fused_caption(result), text_columns=2),
            ]
        )
    source = _source(result)
    if source is None and isinstance(result, MetricResults):
        header, rows = _means_rows(result)
        return _wrap(["<h4>Evaluation</h4>", _html_table(header, rows, "Means over the queries.")])
    if source is None:
        return _wrap([f"<pre>{escape(repr(result))}</pre>"])
    return _wrap(_source_html(result, source))


def to_markdown(result: Any) -> str:
    """The notebook's Markdown of a result (see the module documentation).

    Parameters
    ----------
    result
        Any result type of ragmeter.

    Returns
    -------
    str
        Markdown tables with their captions.
    """
    if isinstance(result, GateResult):
        header, rows = _gate_rows(result)
        mark = "✅ passed" if result.passed else "❌ failed"
        lines = [
            f"**ragmeter gate {mark}**",
            "",
            *_md_table(header, rows),
            "",
            _md(_gate_caption(result)),
        ]
    elif isinstance(result, JudgeReport):
        lines = _integrity_markdown(result.to_dict())
    elif isinstance(result, BudgetedEstimate):
        header, rows = _budget_rows(result)
        lines = [
            "**Judged within a budget**",
            "",
            *_md_table(header, rows),
            "",
            _md(_budget_caption(result)),
        ]
    elif isinstance(result, FusedRun):
        header, rows = _fused_rows(result)
        lines = [
            f"**Fused run {_md(result.name)}**",
            "",
            *_md_table(header, rows),
            "",
            _md(_fused_caption(result)),
        ]
    else:
        source = _source(result)
        if source is None and isinstance(result, MetricResults):
            header, rows = _means_rows(result)
            lines = ["**Evaluation**", "", *_md_table(header, rows), "", "Means over the queries."]
        elif source is None:
            lines = [f"`{_md(repr(result))}`"]
        else:
            lines = _source_markdown(result, source)
    return "\n".join(lines).strip() + "\n"


#: The result types with a notebook display (each inherits ``NotebookDisplay``).
DISPLAYED = (
    MultipleComparison,
    Comparison,
    MetricResults,
    RunEvaluations,
    RetrievalEvaluation,
    PerQueryResults,
    JudgeResults,
    JudgeReport,
    BudgetedEstimate,
    FusedRun,
    GateResult,
)
