"""One self-contained HTML report of saved results: :func:`report` and ``ragmeter report``.

The report reads saved results and evaluates nothing again (see :mod:`._sources` for what it
reads): comparisons (``ragmeter compare --format json``, ``compare_many(...).write``),
evaluations with per-query values (``ragmeter evaluate -q --format json``,
``MetricResults.write``, ``RetrievalEvaluation.write``, any per-query results) and judge
results (``JudgeResults.write``, ``to_jsonl``). Each file is read back by the saved result
type of its ``kind``, which refuses a file ragmeter did not write as it is. For each input it
shows

* first, for a comparison (:mod:`._overview`): the systems sorted by the chosen metric, the
  best marked, the compact letter display of the groups not significantly different, the
  pairs matrix and the sorted means with their intervals;
* the summary table: every system's mean of every metric with its interval and query count,
  and for a comparison every tested pair's difference, interval, effect size, p-value and
  adjusted p-value, with the test and correction in the caption (sortable and filtered by the
  page's script, drawn 200 rows at a time);
* the rank intervals of the first metric: each system's mean with its bootstrap interval, its
  rank and the ranks it may hold (:mod:`ragmeter.html_report._rankings`); with ``battles=``, a
  section of Bradley-Terry ratings of pairwise preferences with rating and rank intervals;
* per metric, the means with their intervals, each candidate's per-query differences from the
  baseline sorted from worst to best (one small chart per candidate), and the distribution of
  the per-query values;
* a per-query explorer: per-query values and differences of every system, sortable, filtered
  by query id, with win/tie/loss counts, the worst-regressed queries first, rendered 200 rows
  at a time;
* for judge results, every row's status, value, reason and evidence (claims, verdicts);
* for nugget banks and assignments (:mod:`._nuggets`): the bank's hash and record, the blind
  record, and per topic (collapsed, drawn when opened) the nuggets, their importance and each
  answer's labels with the judge's reasons, a failed judgement as an error;
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
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np

from .._core import __version__
from .._files import atomic_write_text
from ..exceptions import InvalidInputError
from ..stats.distributions import mean_t_interval
from ..stats.results import Comparison, MultipleComparison
from ._many_pairs import (
    TableOverview,
    charted_note,
    charted_systems,
    is_many,
    many_pairs_section,
)
from ._names import name_html, text_naming
from ._nuggets import nugget_section
from ._overview import Overview, leaderboard, pair_rows, pairs_matrix, sorted_systems
from ._rankings import battles_section, rank_section, read_all_battles
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
    order: Sequence[str],
) -> list[str]:
    out = ['<table data-role="summary"><tr><th class="text">system</th>']
    out += [f"<th>{name_html(m)}</th>" for m in metrics]
    out.append("</tr>")
    for name in order:
        i = systems.index(name)
        out.append(
            f'<tr><td class="text"><span class="swatch" style="background:{colour(i)}"></span>'
            f"{name_html(name)}</td>"
        )
        for metric in metrics:
            mean, low, high, n = mean_t_interval(arrays[metric][i], level)
            out.append(
                f'<td data-system="{_e(name)}" data-metric="{_e(metric)}" data-mean="{mean!r}">'
                f'{_fmt(mean)} <span class="note">[{_fmt(low)}, {_fmt(high)}] n={n}</span></td>'
            )
        out.append("</tr>")
    caption = (
        f"Means over the queries each system has a value for, with {level:.0%} Student t "
        f"intervals and the number of queries n; sorted by {metrics[0] if order else ''}."
    )
    if source.comparison is not None:
        caption += " " + source.comparison.describe_test()
    else:
        caption += (
            " No significance test: this input holds no comparison (`ragmeter compare` makes one)."
        )
    out.append(f"<caption>{text_naming(caption, [*systems, *metrics])}</caption></table>")
    return out


def _pairs(
    comparison: MultipleComparison | Comparison, tables: list[Any], metric: str, number: int = 0
) -> list[str]:
    """The table of differences: rendered by the page's script from its data (sortable by
    every column, filtered by system and metric, 200 rows at a time); for hundreds of systems
    the matrix of :mod:`._many_pairs` instead."""
    from ..stats import TESTS

    effect = TESTS[comparison.test].effect_size_name if comparison.test in TESTS else "effect"
    notes = comparison.notes() if isinstance(comparison, MultipleComparison) else []
    caption = (
        f"Every compared pair and metric: the difference of the means (candidate − baseline) "
        f"over the n paired queries, its interval, {effect}, wins/ties/losses and the p-values; "
        f"* adjusted p ≤ α = {comparison.alpha:g}. {comparison.describe_test()} " + " ".join(notes)
    )
    text = text_naming(caption.strip(), _pair_names(comparison))
    if isinstance(comparison, MultipleComparison) and is_many(comparison):
        return many_pairs_section(comparison, metric, number, effect, text, _json_for_script)
    tables.append(
        {
            "rows": _clean(pair_rows(comparison)),
            "effect": effect,
            "level": comparison.confidence_level or 0.95,
            "metric": metric,
        }
    )
    return [
        f'<div class="scroll" data-pairs="{len(tables) - 1}"></div>',
        f'<p class="note caption">{text}</p>',
    ]


def _pair_names(comparison: MultipleComparison | Comparison) -> list[str]:
    """The systems and metrics a comparison's caption may name (isolated there)."""
    if isinstance(comparison, MultipleComparison):
        return [*comparison.systems, *comparison.metric_names]
    names = [name for name in (comparison.candidate, comparison.baseline) if name is not None]
    return names + [m.metric for m in comparison.metrics]


def _sorted_sample(deltas: np.ndarray) -> np.ndarray:
    d = np.sort(deltas[np.isfinite(deltas)])
    if d.size <= _CHART_POINTS:
        return d
    result: np.ndarray = np.quantile(d, np.linspace(0, 1, _CHART_POINTS))
    return result


def _heading(source: Source, systems: list[str], metrics: list[str], named: bool) -> str:
    """The section's heading: the input's name, or what it holds when it was given as an
    object without a name (never "input 1")."""
    if named or not systems:
        return source.name
    what = {
        "comparison": "Comparison",
        "evaluation": "Evaluation",
        "judge": "Judge results",
        "nuggets": "Nugget scores",
    }
    shown = ", ".join(metrics[:4]) + (f" and {len(metrics) - 4} more" if len(metrics) > 4 else "")
    return f"{what.get(source.kind, 'Results')} of {len(systems)} systems on {shown}"


def _chosen_metric(
    comparison: MultipleComparison | Comparison | None, metrics: list[str], metric: str | None
) -> str | None:
    if metric is not None:
        if metric not in metrics:
            raise InvalidInputError(
                f"metric: {metric!r} is not a metric of every system here (they are {metrics})"
            )
        return metric
    if comparison is not None:
        first = (
            comparison.metric_names[0]
            if isinstance(comparison, MultipleComparison)
            else comparison.metrics[0].metric
        )
        if first in metrics:
            return first
    return metrics[0] if metrics else None


def _first_screen(
    comparison: MultipleComparison | Comparison,
    chosen: str,
    systems: list[str],
    metrics: list[str],
    arrays: dict[str, np.ndarray],
    level: float,
) -> tuple[list[str], Overview]:
    """The leaderboard with its groups, the pairs matrix, and the sorted means chart."""
    means = {s: mean_t_interval(arrays[chosen][i], level) for i, s in enumerate(systems)}
    overview = (
        TableOverview(comparison, chosen, means)
        if isinstance(comparison, MultipleComparison)
        else Overview(comparison, chosen, means)
    )
    positions = {s: i for i, s in enumerate(systems)}
    others = {
        m: {s: mean_t_interval(arrays[m][i], level)[0] for i, s in enumerate(systems)}
        for m in metrics
        if m != chosen
    }
    out = ['<div class="first-screen"><div>']
    out += leaderboard(overview, others, positions, level)
    out.append("</div>")
    if len(systems) > 1:
        out.append('<div class="scroll">')
        out += pairs_matrix(overview, positions)
        out.append("</div>")
    out.append("</div>")
    order = overview.order
    out.append(
        means_chart(
            chosen,
            order,
            [means[s][0] for s in order],
            [means[s][1] for s in order],
            [means[s][2] for s in order],
            level,
            [colour(positions[s]) for s in order],
        )
    )
    return out, overview


def _source_section(
    number: int,
    source: Source,
    baseline: str | None,
    explorers: list[Any],
    judges: list[Any],
    tables: list[Any],
    metric: str | None = None,
    named: bool = True,
    headings: list[str] | None = None,
) -> list[str]:
    systems, metrics, queries, arrays = _matrix(source)
    heading = _heading(source, systems, metrics, named)
    if headings is not None:
        headings.append(heading)
    out = [f'<section data-source="{number}"><h2>{name_html(heading)}</h2>']
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
    first = _chosen_metric(comparison, metrics, metric)
    order = list(systems)
    if first is not None and systems:
        order = list(
            sorted_systems(
                {s: mean_t_interval(arrays[first][i], level)[0] for i, s in enumerate(systems)}
            )
        )
    if comparison is not None and first is not None and systems:
        screen, overview = _first_screen(comparison, first, systems, metrics, arrays, level)
        out += screen
        order = overview.order
    if systems and metrics:
        shown = [first, *(m for m in metrics if m != first)] if first else metrics
        out.append("<h3>Summary</h3>")
        out += _summary(source, systems, shown, arrays, level, order)
        out += rank_section(systems, shown[0], arrays[shown[0]], level)
    if comparison is not None:
        out.append("<h3>Differences</h3>")
        out += _pairs(comparison, tables, first or "", number)
    for name in metrics:
        array = arrays[name]
        intervals = {s: mean_t_interval(array[i], level) for i, s in enumerate(systems)}
        ranked = sorted_systems({s: intervals[s][0] for s in systems})
        out.append(f'<h3>{name_html(name)}</h3><div class="figures" data-metric="{_e(name)}">')
        out.append(
            means_chart(
                name,
                ranked,
                [intervals[s][0] for s in ranked],
                [intervals[s][1] for s in ranked],
                [intervals[s][2] for s in ranked],
                level,
                [colour(systems.index(s)) for s in ranked],
            )
        )
        out.append(distribution_chart(name, systems, list(array)))
        if chosen is not None:
            base = systems.index(chosen)
            charted = charted_systems(comparison, ranked, chosen)
            for i, system in enumerate(systems):
                if i != base and system in charted:
                    out.append(
                        deltas_chart(
                            name, system, chosen, _sorted_sample(array[i] - array[base]), i
                        )
                    )
        out.append("</div>")
        out += charted_note(comparison, len(systems), chosen)
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
            f"{name_html(chosen) if chosen else 'the baseline'} first; click any column (the "
            "differences too) to sort by it.</p>"
            f'<div class="scroll" data-explorer="{len(explorers) - 1}"></div>'
        )
    if source.integrity is not None:
        out += integrity_section(source.integrity)
    out += repeats_section(source.judge_repeats) + agreement_section(source.judge_agreement)
    if source.judge_rows:
        judges.append({"rows": _clean(source.judge_rows), "samples": _clean(source.judge_samples)})
        counts: dict[str, int] = {}
        for row in source.judge_rows:
            counts[row.get("status", "?")] = counts.get(row.get("status", "?"), 0) + 1
        tally = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        out.append(
            f'<h3>Judge rows</h3><p class="note">{len(source.judge_rows)} rows ({_e(tally)}); an '
            "error or undefined row has no value and says why. Open a row to read its sample "
            "(question, answer, contexts, reference) and the judge's evidence.</p>"
            f'<div data-judges="{len(judges) - 1}"></div>'
        )
    if source.nuggets is not None:
        out += nugget_section(source.nuggets, number)
    out.append("</section>")
    return out


def integrity_rows(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The rows of a judge integrity report (``JudgeReport.to_dict()``): ``(what, found)``,
    one per finding, the flags first (the report's table and the notebook displays)."""
    rows: list[tuple[str, str]] = [("flag", line) for line in report.get("flagged", [])]
    identity = report.get("identity", {})
    for judge in identity.get("judges", []) or []:
        rows.append(("judge", json.dumps(judge, sort_keys=True)))
    for metric, digests in (identity.get("prompts") or {}).items():
        for prompt, digest in digests.items():
            rows.append((f"prompt of {metric}", f"{prompt}: sha256 {digest}"))
    for entry in report.get("self_judging", []):
        same = entry.get("same_family")
        verdict = "same family: self-judging" if same else "unknown" if same is None else "no"
        rows.append(
            (
                "self-judging",
                f"judge {entry.get('judge')} ({entry.get('judge_family')}), generator "
                f"{entry.get('generator')} ({entry.get('generator_family')}): {verdict}",
            )
        )
    for metric, found in (report.get("length_bias") or {}).items():
        slope = found.get("slope") or {}
        rows.append(
            (f"length bias of {metric}", f"slope on {slope.get('x')}: {slope.get('summary')}")
        )
        if "longer_wins" in found:
            rows.append(
                (f"longer answer wins ({metric})", str(found["longer_wins"].get("summary")))
            )
    for metric, found in (report.get("position") or {}).items():
        rows.append((f"position flips ({metric})", str(found["flips"].get("summary"))))
        rows.append(
            (f"first seat wins ({metric})", str(found["first_position_wins"].get("summary")))
        )
    for metric, found in (report.get("drift") or {}).items():
        rows.append((f"drift of {metric}", str(found.get("summary"))))
    rows += [("note", note) for note in report.get("notes", [])]
    rows.append(("kept", str(identity.get("kept", ""))))
    return rows


def integrity_section(report: Mapping[str, Any]) -> list[str]:
    """The judge integrity report of a judge result (:func:`ragmeter.judges.judge_report`):
    one table row per finding, the flags first."""
    rows = integrity_rows(report)
    flag = ' class="flag"'
    body = "".join(
        f'<tr{flag if kind == "flag" else ""}><td class="text">{_e(kind)}</td>'
        f'<td class="text">{_e(text)}</td></tr>'
        for kind, text in rows
    )
    return [
        '<h3>Judge integrity</h3><p class="note">Who judged, with which prompts, and the '
        "biases a judge is known for (self-judging, length, position, drift), each with its "
        "interval.</p>",
        f'<table data-role="judge-integrity"><tr><th class="text">what</th>'
        f'<th class="text">found</th></tr>{body}</table>',
    ]


def repeats_section(repeats: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The judge's noise of a result judged several times per sample: per metric, the mean of
    the item means with its interval (which includes the judge's noise), the between-item and
    within-item (judge) variance components, the judge's share and the flaky items
    (:meth:`ragmeter.judges.JudgeResults.repeat_summary`)."""
    if not repeats:
        return []
    body = []
    for metric, r in repeats.items():
        ci = r.get("ci")
        interval = f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else f"none: {r.get('ci_reason')}"
        within = _fmt(r.get("within")) if r.get("within") is not None else "–"
        usable = f"{r.get('n_values')} of {r.get('n_asked') or '?'}"
        body.append(
            f'<tr><td class="text">{name_html(metric)}</td><td>{_fmt(r.get("mean"))}</td>'
            f'<td class="text">{_e(interval)}</td><td>{_e(r.get("n_items"))}</td>'
            f"<td>{_e(usable)}</td><td>{_e(r.get('repeats'))}</td>"
            f"<td>{_fmt(r.get('between'))}</td><td>{within}</td>"
            f"<td>{_fmt(r.get('judge_share'), 3)}</td><td>{_e(r.get('n_flaky'))}</td></tr>"
        )
    method = next(iter(repeats.values())).get("method", "")
    head = "".join(
        f'<th class="{"text" if i < 1 else ""}">{_e(h)}</th>'
        for i, h in enumerate(
            (
                "metric",
                "mean",
                f"{next(iter(repeats.values())).get('confidence', 0.95):.0%} interval",
                "items",
                "values usable",
                "repeats",
                "between items",
                "within (judge)",
                "judge share",
                "flaky items",
            )
        )
    )
    return [
        '<h3>Judge repeats</h3><p class="note">Each sample was judged several times: how much '
        "of a single judgement's variance is the judge's own noise (within) rather than the "
        f"samples' (between), and an interval for the mean that includes it. {_e(method)}.</p>",
        f'<table data-role="judge-repeats"><tr>{head}</tr>{"".join(body)}</table>',
    ]


def agreement_section(agreement: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The agreement of a panel's judges, per metric (:meth:`JudgeResults.agreement`)."""
    if not agreement:
        return []
    columns = (
        ("krippendorff_alpha", "Krippendorff's alpha"),
        ("percent_agreement", "% agreement"),
        ("cohen_kappa", "Cohen's kappa"),
        ("spearman_rho", "Spearman's rho"),
        ("kendall_tau", "Kendall's tau"),
    )
    body = []
    for metric, a in agreement.items():
        raters = ", ".join(str(r) for r in a.get("raters", []))
        cells = "".join(
            f"<td>{_fmt(a.get(key), 3) if isinstance(a.get(key), float | int) else '–'}</td>"
            for key, _ in columns
        )
        body.append(
            f'<tr><td class="text">{name_html(metric)}</td><td class="text">{_e(raters)}</td>'
            f'<td class="text">{_e(a.get("level"))}</td><td>{_e(a.get("n_units"))}</td>{cells}</tr>'
        )
    head = "".join(
        f'<th class="text">{h}</th>' for h in ("metric", "judges", "level", "samples")
    ) + "".join(f"<th>{_e(label)}</th>" for _, label in columns)
    return [
        '<h3>Agreement of the panel\'s judges</h3><p class="note">Between the judges of the '
        "panel, one unit per sample, at the metric's level of measurement. Agreement with "
        "human labels, and a mean corrected by them (prediction-powered inference), need the "
        "labels, which a judge result does not hold: <code>JudgeResults.agreement_with</code> "
        "and <code>ragmeter.judges.ppi_mean</code>.</p>",
        f'<table data-role="judge-agreement"><tr>{head}</tr>{"".join(body)}</table>',
    ]


def _manifest(
    sources: Sequence[Source], timestamp: str | None, headings: Sequence[str]
) -> list[str]:
    rows = [
        f'<tr><td class="text">{name_html(heading)}</td>'
        f'<td class="text">{_e(s.manifest.get("kind", s.kind))}'
        f"</td><td>{_e(s.manifest.get('bytes', '–'))}</td>"
        f'<td class="text"><code>{_e(s.manifest.get("sha256", "–"))}</code></td></tr>'
        for s, heading in zip(sources, headings, strict=True)
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
    for s, heading in zip(sources, headings, strict=True):
        if s.comparison is not None and s.comparison.options is not None:
            options = json.dumps(s.comparison.options.to_dict(), sort_keys=True)
            out.append(
                f'<p class="note">{name_html(heading)} options: <code>{_e(options)}</code></p>'
            )
    return out


def build_report(
    *results: Any,
    baseline: str | None = None,
    title: str = "ragmeter report",
    timestamp: str | None = None,
    metric: str | None = None,
    battles: Any = None,
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
    metric
        The metric the systems are sorted by, and the first screen's groups and pairs matrix
        are of (default: a comparison's first metric, else the first metric).
    battles
        Pairwise preferences (a file of FastChat-style battles, several, or the battles
        themselves): a section of Bradley-Terry ratings with rating and rank intervals.

    Raises
    ------
    InvalidInputError
        No input, an input ragmeter did not write, a baseline that is not a system, a
        metric that not every system has.
    """
    if not results:
        raise InvalidInputError("results: give at least one saved result to report on")
    sources = [read_source(item, i) for i, item in enumerate(results)]
    explorers: list[Any] = []
    judges: list[Any] = []
    tables: list[Any] = []
    headings: list[str] = []
    body: list[str] = []
    for number, (item, source) in enumerate(zip(results, sources, strict=True)):
        named = isinstance(item, str | os.PathLike | tuple)
        body += _source_section(
            number, source, baseline, explorers, judges, tables, metric, named, headings
        )
    if battles is not None:
        body += battles_section(read_all_battles(battles), len(sources))
    body += _manifest(sources, timestamp, headings)
    nuggets = {str(i): _clean(s.nuggets) for i, s in enumerate(sources) if s.nuggets is not None}
    data = _json_for_script(
        {"explorers": explorers, "judges": judges, "pairs": tables, "nuggets": nuggets}
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="ragmeter {_e(__version__)}">'
        f"<title>{_e(title)}</title><style>{_asset('report.css')}</style></head>"
        f"<body><header><h1>{_e(title)}</h1></header><main>" + "".join(body) + "</main>"
        f'<script type="application/json" id="ragmeter-data">{data}</script>'
        f"<script>{_asset('report.js')}</script>"
        + (f"<script>{_asset('nuggets.js')}</script>" if nuggets else "")
        + "</body></html>\n"
    )


def report(
    *results: Any,
    output: str | os.PathLike[str] | None = None,
    baseline: str | None = None,
    title: str = "ragmeter report",
    timestamp: str | None = None,
    metric: str | None = None,
    battles: Any = None,
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
    text = build_report(
        *results,
        baseline=baseline,
        title=title,
        timestamp=timestamp,
        metric=metric,
        battles=battles,
    )
    if output is not None:
        atomic_write_text(output, text)
    return text


# The report's table renderers, under the names the notebook displays
# (ragmeter.html_report.notebook) call them: one renderer for the page and the notebooks.
value_matrix = _matrix
mean_interval = mean_t_interval
summary_table = _summary
first_screen = _first_screen
escape = _e
number_text = _fmt
stylesheet = _asset
