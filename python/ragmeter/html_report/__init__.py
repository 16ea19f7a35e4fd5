"""One self-contained HTML report of saved results: :func:`report` and ``ragmeter report``.

The report reads saved results and evaluates nothing again (see :mod:`._sources` for what it
reads): comparisons (``ragmeter compare --format json``, ``compare_many(...).write``),
evaluations with per-query values (``ragmeter evaluate -q --format json``,
``MetricResults.write``, ``RetrievalEvaluation.write``, any per-query results) and judge
results (``JudgeResults.write``, ``to_jsonl``). Each file is read back by the saved result
type of its ``kind``, which refuses a file ragmeter did not write as it is. For each input it
shows

* the summary table: every system's mean of every metric with its interval and query count,
  and for a comparison every tested pair's difference, interval, effect size, p-value and
  adjusted p-value, with the test and correction in the caption;
* per metric, the means with their intervals, each candidate's per-query differences from the
  baseline sorted from worst to best (one small chart per candidate), and the distribution of
  the per-query values;
* a per-query explorer: per-query values and differences of every system, sortable, filtered
  by query id, with win/tie/loss counts, the worst-regressed queries first, rendered 200 rows
  at a time;
* for judge results, every row's status, value, reason and evidence (claims, verdicts);
* the manifest: ragmeter's version, each input's name, size and SHA-256, the options and seeds.

The file needs no network (CSS, script and SVG figures are inline; no font or library is
loaded) and opens from disk. The same inputs give the same bytes (no time is written unless
``timestamp=`` is given). Everything that comes from the data is escaped: a query id or a
context holding ``<script>`` is shown as text.

Intervals of a mean are Student t intervals over the queries with a value (the comparison's
level, else 95%); a comparison's differences and p-values are the ones it saved.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from .._core import __version__
from .._files import atomic_write_text
from ..exceptions import InvalidInputError
from ..stats.distributions import student_t_quantile
from ..stats.results import Comparison, MultipleComparison
from ._names import name_html, text_naming
from ._sources import Source, read_source
from ._svg import colour, deltas_chart, distribution_chart, means_chart

__all__ = ["build_report", "report"]

#: The largest number of points a sorted-differences chart draws (quantiles of the sorted
#: differences beyond it: the curve is monotonic, so its shape is kept).
_CHART_POINTS = 500


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    """JSON that can stand inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no
    ``</script>``), no line separators; NaN as null."""
    text = json.dumps(
        data, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")
    )
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _interval(values: np.ndarray, level: float) -> tuple[float, float, float, int]:
    v = values[np.isfinite(values)]
    n = int(v.size)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(np.mean(v))
    if n < 2:
        return mean, math.nan, math.nan, n
    half = student_t_quantile(0.5 + level / 2, n - 1) * float(np.std(v, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half, n


def _matrix(source: Source) -> tuple[list[str], list[str], list[str], dict[str, np.ndarray]]:
    """Systems, metrics (those every system has), queries (sorted union) and, per metric, a
    systems x queries array (NaN where a system has no value)."""
    systems = list(source.values)
    metrics: list[str] = []
    for name in systems:
        for metric in source.values[name]:
            if metric not in metrics and all(metric in source.values[s] for s in systems):
                metrics.append(metric)
    queries = sorted({q for s in systems for m in metrics for q in source.values[s][m]})
    arrays = {}
    for metric in metrics:
        array = np.full((len(systems), len(queries)), np.nan)
        position = {q: i for i, q in enumerate(queries)}
        for row, name in enumerate(systems):
            for q, value in source.values[name][metric].items():
                array[row, position[q]] = value
        arrays[metric] = array
    return systems, metrics, queries, arrays


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"


def _summary(
    source: Source,
    systems: list[str],
    metrics: list[str],
    arrays: dict[str, np.ndarray],
    level: float,
    names: list[str],
) -> list[str]:
    out = ['<table data-role="summary"><tr><th class="text">system</th>']
    out += [f"<th>{name_html(m)}</th>" for m in metrics]
    out.append("</tr>")
    for i, name in enumerate(systems):
        out.append(
            f'<tr><td class="text"><span class="swatch" style="background:{colour(i)}"></span>'
            f"{name_html(name)}</td>"
        )
        for metric in metrics:
            mean, low, high, n = _interval(arrays[metric][i], level)
            out.append(
                f'<td data-system="{_e(name)}" data-metric="{_e(metric)}" data-mean="{mean!r}">'
                f'{_fmt(mean)} <span class="note">[{_fmt(low)}, {_fmt(high)}] n={n}</span></td>'
            )
        out.append("</tr>")
    caption = (
        f"Means over the queries each system has a value for, with {level:.0%} Student t "
        "intervals and the number of queries n."
    )
    if source.comparison is not None:
        caption += " " + source.comparison.describe_test()
    else:
        caption += (
            " No significance test: this input holds no comparison (`ragmeter compare` makes one)."
        )
    out.append(f"<caption>{text_naming(caption, names)}</caption></table>")
    return out


def _pairs(comparison: MultipleComparison | Comparison, names: list[str]) -> list[str]:
    if isinstance(comparison, MultipleComparison):
        items = [(c.candidate, c.baseline, c.metrics) for c in comparison.comparisons.values()]
        notes = comparison.notes()
    else:
        items = [(comparison.candidate, comparison.baseline, comparison.metrics)]
        notes = []
    from ..stats import TESTS

    effect = TESTS[comparison.test].effect_size_name if comparison.test in TESTS else "effect"
    level = comparison.confidence_level or 0.95
    head = (
        '<table data-role="pairs"><tr><th class="text">candidate</th><th class="text">baseline'
        f'</th><th class="text">metric</th><th>n</th><th>Δ mean</th><th>{level:.0%} interval</th>'
        f"<th>{_e(effect)}</th><th>wins/ties/losses</th><th>p</th><th>adjusted p</th></tr>"
    )
    out = [head]
    for candidate, baseline, metrics in items:
        for m in metrics:
            significant = (
                m.p_value_adjusted is not None
                and math.isfinite(m.p_value_adjusted)
                and m.p_value_adjusted <= comparison.alpha
            )
            cls = ("better" if m.delta > 0 else "worse") if significant else ""
            out.append(
                f'<tr data-candidate="{_e(candidate)}" data-metric="{_e(m.metric)}" '
                f'data-delta="{m.delta!r}" data-p="{m.p_value!r}">'
                f'<td class="text">{name_html(candidate)}</td>'
                f'<td class="text">{name_html(baseline)}</td>'
                f'<td class="text">{name_html(m.metric)}</td><td>{m.n_pairs}</td>'
                f'<td class="{cls}">{m.delta:+.4f}</td>'
                f"<td>[{_fmt(m.ci_low)}, {_fmt(m.ci_high)}]</td>"
                f"<td>{_fmt(m.effect_size, 3)}</td><td>{m.wins}/{m.ties}/{m.losses}</td>"
                f"<td>{_fmt(m.p_value)}</td><td>{_fmt(m.p_value_adjusted)}"
                f"{' *' if significant else ''}</td></tr>"
            )
    caption = f"* adjusted p ≤ α = {comparison.alpha}. {comparison.describe_test()} " + " ".join(
        notes
    )
    names = [*names, *(name for item in items for name in item[:2] if name is not None)]
    out.append(f"<caption>{text_naming(caption.strip(), names)}</caption></table>")
    return out


def _sorted_sample(deltas: np.ndarray) -> np.ndarray:
    d = np.sort(deltas[np.isfinite(deltas)])
    if d.size <= _CHART_POINTS:
        return d
    result: np.ndarray = np.quantile(d, np.linspace(0, 1, _CHART_POINTS))
    return result


def _source_section(
    number: int, source: Source, baseline: str | None, explorers: list[Any], judges: list[Any]
) -> list[str]:
    out = [f'<section data-source="{number}"><h2>{name_html(source.name)}</h2>']
    systems, metrics, queries, arrays = _matrix(source)
    comparison = source.comparison
    level = (comparison.confidence_level if comparison is not None else None) or 0.95
    chosen = baseline
    if comparison is not None and comparison.baseline is not None:
        chosen = comparison.baseline if baseline is None else baseline
    if chosen is not None and chosen not in systems:
        raise InvalidInputError(
            f"baseline: {chosen!r} is not a system of {source.name} (its systems: {systems})"
        )
    if chosen is None and len(systems) > 1:
        chosen = systems[0]
    # Names that the captions' sentences may hold (isolated there, as everywhere).
    names = [*systems, *metrics, *queries]
    if systems and metrics:
        out.append("<h3>Summary</h3>")
        out += _summary(source, systems, metrics, arrays, level, names)
    if comparison is not None:
        out.append("<h3>Differences</h3>")
        out += _pairs(comparison, names)
    for metric in metrics:
        array = arrays[metric]
        means, lows, highs = [], [], []
        for i in range(len(systems)):
            mean, low, high, _ = _interval(array[i], level)
            means.append(mean)
            lows.append(low)
            highs.append(high)
        out.append(f'<h3>{name_html(metric)}</h3><div class="figures" data-metric="{_e(metric)}">')
        out.append(means_chart(metric, systems, means, lows, highs, level))
        out.append(distribution_chart(metric, systems, list(array)))
        if chosen is not None:
            base = systems.index(chosen)
            for i, name in enumerate(systems):
                if i != base:
                    out.append(
                        deltas_chart(
                            metric, name, chosen, _sorted_sample(array[i] - array[base]), i
                        )
                    )
        out.append("</div>")
    if queries and metrics:
        explorers.append(
            {
                "baseline": chosen,
                "metrics": metrics,
                "queries": queries,
                "systems": systems,
                "values": {
                    m: {s: _clean(list(arrays[m][i])) for i, s in enumerate(systems)}
                    for m in metrics
                },
            }
        )
        out.append(
            '<h3>Per query</h3><p class="note">Sorted by the worst difference from '
            f"{name_html(chosen) if chosen else 'the baseline'} first; click a column to sort by "
            "it.</p>"
            f'<div data-explorer="{len(explorers) - 1}"></div>'
        )
    if source.judge_rows:
        judges.append({"rows": _clean(source.judge_rows)})
        counts: dict[str, int] = {}
        for row in source.judge_rows:
            counts[row.get("status", "?")] = counts.get(row.get("status", "?"), 0) + 1
        tally = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        out.append(
            f'<h3>Judge rows</h3><p class="note">{len(source.judge_rows)} rows ({_e(tally)}); an '
            "error or undefined row has no value and says why.</p>"
            f'<div data-judges="{len(judges) - 1}"></div>'
        )
    out.append("</section>")
    return out


def _manifest(sources: Sequence[Source], timestamp: str | None) -> list[str]:
    rows = [
        f'<tr><td class="text">{name_html(s.name)}</td>'
        f'<td class="text">{_e(s.manifest.get("kind", s.kind))}'
        f"</td><td>{_e(s.manifest.get('bytes', '–'))}</td>"
        f'<td class="text"><code>{_e(s.manifest.get("sha256", "–"))}</code></td></tr>'
        for s in sources
    ]
    out = [
        '<h2>Manifest</h2><table data-role="manifest"><tr><th class="text">input</th>'
        '<th class="text">kind</th><th>bytes</th><th class="text">SHA-256</th></tr>',
        *rows,
        "</table>",
        f'<p class="note">ragmeter {_e(__version__)}'
        + (f"; built {_e(timestamp)}" if timestamp else "")
        + "</p>",
    ]
    for s in sources:
        if s.comparison is not None and s.comparison.options is not None:
            options = json.dumps(s.comparison.options.to_dict(), sort_keys=True)
            out.append(
                f'<p class="note">{name_html(s.name)} options: <code>{_e(options)}</code></p>'
            )
    return out


def build_report(
    *results: Any,
    baseline: str | None = None,
    title: str = "ragmeter report",
    timestamp: str | None = None,
) -> str:
    """The HTML text of the report of ``results`` (see the module documentation).

    Parameters
    ----------
    *results
        Paths of saved results, or result objects (``MultipleComparison``, ``Comparison``,
        ``JudgeResults``, ``RunEvaluations``, per-query results, ``(name, results)``).
    baseline
        The system the per-query differences are taken from (default: the comparison's
        baseline, else the first system of each input).
    title
        The page's title.
    timestamp
        A time to print in the manifest (none by default, so that the same inputs give the
        same bytes).

    Raises
    ------
    InvalidInputError
        No input, an input ragmeter did not write, a baseline that is not a system.
    """
    if not results:
        raise InvalidInputError("results: give at least one saved result to report on")
    sources = [read_source(item, i) for i, item in enumerate(results)]
    explorers: list[Any] = []
    judges: list[Any] = []
    body: list[str] = []
    for number, source in enumerate(sources):
        body += _source_section(number, source, baseline, explorers, judges)
    body += _manifest(sources, timestamp)
    data = _json_for_script({"explorers": explorers, "judges": judges})
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="ragmeter {_e(__version__)}">'
        f"<title>{_e(title)}</title><style>{_asset('report.css')}</style></head>"
        f"<body><header><h1>{_e(title)}</h1></header><main>" + "".join(body) + "</main>"
        f'<script type="application/json" id="ragmeter-data">{data}</script>'
        f"<script>{_asset('report.js')}</script></body></html>\n"
    )


def report(
    *results: Any,
    output: str | os.PathLike[str] | None = None,
    baseline: str | None = None,
    title: str = "ragmeter report",
    timestamp: str | None = None,
) -> str:
    """Build the HTML report of ``results`` and write it to ``output`` (atomically) when given;
    returns the HTML text. The arguments are those of :func:`build_report`.

    Examples
    --------
    >>> from ragmeter import compare_many, report
    >>> systems = {"bm25": {"map": {"q1": 0.2, "q2": 0.4, "q3": 0.1}},
    ...            "dense": {"map": {"q1": 0.3, "q2": 0.5, "q3": 0.1}}}
    >>> page = report(compare_many(systems, baseline="bm25", test="t"))
    >>> page.startswith("<!doctype html>") and "dense" in page
    True
    """
    text = build_report(*results, baseline=baseline, title=title, timestamp=timestamp)
    if output is not None:
        atomic_write_text(output, text)
    return text
