"""Figures of evaluations and comparisons (needs matplotlib: ``pip install 'ragmeter[plot]'``).

* :func:`plot_metrics`: the metric means of one or several systems, as grouped bars with
  their confidence intervals;
* :func:`plot_per_query`: the per-query (per-topic) values of two systems on one metric,
  queries sorted by a baseline's value (or by the mean over the systems); for more than two
  systems, small multiples of each system's sorted per-query differences from the baseline
  (lines of many systems over many queries cannot be read);
* :func:`plot_query_deltas`: the per-query differences of a comparison, sorted.

Every function reads per-query results of any kind (:func:`~ragmeter.per_query_results`:
TREC results, ``ranking_metrics(average=None)``, evaluations, the judges' results). Figures
are built with :class:`matplotlib.figure.Figure` directly, not pyplot, so they need no display
and leave pyplot's global state alone. Pass ``path`` to save the figure (the format comes from
the suffix: ``.png``, ``.svg``, ``.pdf``, ...) or ``ax`` to draw into your own axes. A system
has the same colour in every figure and in the HTML report (:mod:`ragmeter._colours`).
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._colours import system_colour
from ._distributions import mean_t_interval
from ._files import atomic_write_bytes
from ._optional import import_optional
from ._pvalues import format_p_value, is_bound
from .exceptions import InvalidInputError
from .per_query import PerQueryResults, per_query_results

__all__ = ["plot_metrics", "plot_per_query", "plot_query_deltas"]


def _axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    figure_module = import_optional("matplotlib.figure", extra="plot", purpose="Plotting")
    if ax is not None:
        return ax.figure, ax
    figure = figure_module.Figure(figsize=size, layout="constrained")
    return figure, figure.add_subplot()


def _save(figure: Any, path: str | os.PathLike[str] | None) -> None:
    if path is None:
        return
    # Rendered in memory, then written through the one atomic writer: an interrupted or
    # failed save (a full disk) leaves the previous image whole.
    image = io.BytesIO()
    figure.savefig(image, dpi=150, format=Path(path).suffix.lstrip(".").lower() or "png")
    atomic_write_bytes(path, image.getvalue())


def _is_column(value: Any) -> bool:
    """Whether ``value`` is one metric's per-query values (numbers by query id, or in order)."""
    if isinstance(value, Mapping):
        items: Any = value.values()
    elif isinstance(value, np.ndarray | list | tuple):
        items = value
    else:
        return False
    return all(v is None or isinstance(v, int | float | np.number) for v in items)


def _named(systems: Any) -> dict[str, PerQueryResults]:
    """``{name: PerQueryResults}`` from one result, ``{name: results}`` or a sequence of
    results (``{metric: {query_id: value}}`` is one system)."""
    if isinstance(systems, Mapping):
        if systems and all(_is_column(v) for v in systems.values()):
            single = per_query_results(systems)
            return {single.name or "system": single}
        return {name: per_query_results(r, name) for name, r in systems.items()}
    if isinstance(systems, Sequence) and not isinstance(systems, str | bytes):
        named = {}
        for i, r in enumerate(systems):
            results = per_query_results(r)
            named[results.name or f"system {i + 1}"] = results
        return named
    single = per_query_results(systems)
    return {single.name or "system": single}


def _half_interval(values: np.ndarray, level: float) -> float:
    """Half the width of the Student t interval of the mean of the defined ``values`` (NaN with
    fewer than two)."""
    if not 0.0 < level < 1.0:
        raise InvalidInputError(f"confidence_level: must be in (0, 1), got {level!r}")
    mean, _low, high, _n = mean_t_interval(values, level)
    return high - mean


def plot_query_deltas(
    comparison: Any,
    metric: str | None = None,
    *,
    ax: Any = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Per-query differences (candidate - baseline) of a comparison on one metric, sorted, as
    bars: green where the candidate wins, red where it loses. The title gives the mean
    difference, wins/ties/losses and the p-value.

    Parameters
    ----------
    comparison
        A :class:`~ragmeter.Comparison`.
    metric
        The metric (default: the first compared metric).
    ax
        Matplotlib axes to draw into (default: a new figure).
    path
        Where to save the figure (its suffix gives the format).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (the ``plot`` extra).
    """
    name = metric if metric is not None else comparison.metrics[0].metric
    result = comparison[name]
    deltas = np.array(comparison.differences[name], dtype=np.float64)
    deltas = np.sort(deltas[~np.isnan(deltas)])[::-1]
    figure, axes = _axes(ax, (7.0, 3.5))
    colors = ["#2a9d3f" if d > 0 else "#c0392b" if d < 0 else "#999999" for d in deltas]
    axes.bar(np.arange(deltas.size), deltas, width=1.0, color=colors)
    axes.axhline(0.0, color="black", linewidth=0.8)
    axes.axhline(result.delta, color="#1f4e9c", linewidth=1.0, linestyle="--", label="mean")
    axes.set_xlabel(f"queries, sorted by difference ({result.n_pairs} paired)")
    axes.set_ylabel(f"{name}: {comparison.candidate} - {comparison.baseline}")
    p = format_p_value(result.p_value)
    relation = "p" if is_bound(result.p_value) else "p ="
    axes.set_title(
        f"{comparison.candidate} vs {comparison.baseline} on {name}: "
        f"mean {result.delta:+.4f}, W/T/L {result.wins}/{result.ties}/{result.losses}, "
        f"{relation} {p}",
        fontsize=9,
    )
    axes.set_xlim(-0.5, max(deltas.size, 1) - 0.5)
    axes.set_xticks([])
    low = min(float(deltas.min()) if deltas.size else 0.0, 0.0)
    high = max(float(deltas.max()) if deltas.size else 0.0, 0.0)
    margin = 0.05 * (high - low) or 0.05
    axes.set_ylim(low - margin, high + margin)
    axes.legend(loc="upper right", fontsize=8)
    _save(figure, path)
    return figure


def plot_metrics(
    evaluations: Any,
    *,
    metrics: Sequence[str] | None = None,
    confidence_level: float | None = 0.95,
    ax: Any = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Bar chart of the metric means of one system, or grouped bars for several (one colour per
    system), each with its confidence interval as an error bar: the Student t interval of the
    mean over the queries with a value, ``mean ± t(1 - (1 - level) / 2, n - 1) s / sqrt(n)``.
    Bars are labelled with their value; the legend says over how many queries each system was
    evaluated.

    More than six systems (and no ``ax``): one panel per metric, one
    row per system, sorted by the first metric's mean (the best at the top), each mean a dot
    with its interval and its value beside it, the systems named on the rows (no legend to
    clip, no labels over each other: 12 systems of one metric stay legible).

    Parameters
    ----------
    evaluations
        One per-query result (:func:`~ragmeter.per_query_results` reads it), a sequence of named
        ones or ``{name: results}``.
    metrics
        The metrics (default: the first system's).
    confidence_level
        The level of the error bars (default 0.95); None draws none.
    ax
        Matplotlib axes to draw into (default: a new figure).
    path
        Where to save the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    InvalidInputError
        Nothing to plot, a metric a system lacks.
    MissingDependencyError
        matplotlib is not installed (the ``plot`` extra).
    """
    named = _named(evaluations)
    if not named:
        raise InvalidInputError("evaluations: nothing to plot")
    first = next(iter(named.values()))
    names = list(metrics) if metrics is not None else list(first.metric_names)
    for label, results in named.items():
        missing = [m for m in names if m not in results.means()]
        if missing:
            raise InvalidInputError(f"metrics: {missing} were not evaluated for {label!r}")
    if len(named) > _MAX_GROUPED_SYSTEMS and ax is None:
        figure = _means_by_system(named, names, confidence_level)
        _save(figure, path)
        return figure
    figure, axes = _axes(ax, (max(4.5, 1.0 + len(names) * (0.8 + 0.4 * len(named))), 3.5))
    width = 0.8 / len(named)
    positions = np.arange(len(names))
    for i, (label, results) in enumerate(named.items()):
        means = results.means()
        missing = [m for m in names if m not in means]
        if missing:
            raise InvalidInputError(f"metrics: {missing} were not evaluated for {label!r}")
        values = [float(means[m]) for m in names]
        errors = None
        if confidence_level is not None:
            halves = [_half_interval(results.array(m), confidence_level) for m in names]
            errors = np.array([halves, halves])
        bars = axes.bar(
            positions + (i - (len(named) - 1) / 2) * width,
            values,
            width=width,
            yerr=errors,
            capsize=2,
            ecolor="#333333",
            color=system_colour(i),
            label=f"{label} ({results.n_queries} queries)",
        )
        # Inside the bars: above them the error bars would cross the labels.
        axes.bar_label(bars, labels=[f"{v:.3f}" for v in values], fontsize=7, label_type="center")
    axes.set_xticks(positions, names)
    level = "" if confidence_level is None else f" ({confidence_level:.0%} t intervals)"
    axes.set_ylabel(f"mean over queries{level}")
    top = max([1.0, *(float(v) for r in named.values() for v in r.means().values() if v == v)])
    axes.set_ylim(0.0, 1.1 * top)
    # As many legend columns as fit across the figure (about 14 characters an inch at 8 pt).
    longest = max(len(f"{label} ({r.n_queries} queries)") for label, r in named.items())
    fits = int(figure.get_figwidth() * 14 // (longest + 4))
    axes.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncols=max(1, min(len(named), 4, fits)),
        fontsize=8,
    )
    _save(figure, path)
    return figure


#: Above this many systems, :func:`plot_metrics` draws one row per system instead of grouped
#: bars (twelve grouped bars with a legend of twelve entries are unreadable).
_MAX_GROUPED_SYSTEMS = 6


def _means_by_system(
    named: Mapping[str, PerQueryResults], names: list[str], confidence_level: float | None
) -> Any:
    """One panel per metric, one row per system sorted by the first metric's mean."""
    figure_module = import_optional("matplotlib.figure", extra="plot", purpose="Plotting")
    labels = list(named)
    means = np.array([[float(named[s].means()[m]) for m in names] for s in labels])
    order = np.argsort(np.where(np.isnan(means[:, 0]), -np.inf, means[:, 0]), kind="stable")
    longest = max(len(f"{s} ({named[s].n_queries})") for s in labels)
    figure = figure_module.Figure(
        figsize=(max(5.5, 1.2 + 0.065 * longest + 2.6 * len(names)), 1.1 + 0.28 * len(labels)),
        layout="constrained",
    )
    panels = figure.subplots(1, len(names), sharey=True, squeeze=False)[0]
    rows = np.arange(len(labels))
    for column, (axes, metric) in enumerate(zip(panels, names, strict=True)):
        for row, i in enumerate(order):
            results = named[labels[i]]
            mean = means[i, column]
            half = (
                math.nan
                if confidence_level is None
                else _half_interval(results.array(metric), confidence_level)
            )
            axes.errorbar(
                mean,
                row,
                xerr=None if math.isnan(half) else half,
                fmt="o",
                markersize=4,
                capsize=2,
                color=system_colour(i),
                ecolor=system_colour(i),
            )
            axes.annotate(
                f"{mean:.3f}",
                (mean + (0.0 if math.isnan(half) else half), row),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
            )
        axes.set_title(metric, fontsize=9)
        axes.grid(axis="x", linewidth=0.4, alpha=0.5)
        axes.tick_params(axis="x", labelsize=7)
        low, high = axes.get_xlim()
        axes.set_xlim(low, high + 0.18 * (high - low))  # room for the values
    panels[0].set_yticks(rows, [f"{labels[i]} ({named[labels[i]].n_queries})" for i in order])
    panels[0].tick_params(axis="y", labelsize=8)
    panels[0].set_ylim(-0.7, len(labels) - 0.3)
    level = "" if confidence_level is None else f", {confidence_level:.0%} t intervals"
    figure.suptitle(
        f"Means of {len(labels)} systems over their queries (in brackets){level}\n"
        f"sorted by {names[0]}",
        fontsize=9,
    )
    return figure


def plot_per_query(
    systems: Any,
    metric: str,
    *,
    sort_by: str | None = None,
    ax: Any = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """The per-query (per-topic) values of systems on one metric.

    Two systems (or one): one line of markers per system, queries on the x axis sorted by the
    values of ``sort_by`` (default: the mean over the systems), descending. More than two: small
    multiples, one panel per system of its per-query differences from the baseline
    (``sort_by``, default the first system), sorted from best to worst, with the mean
    difference and wins/ties/losses in the panel's title: lines of many systems over many
    queries are an unreadable tangle, differences from one baseline are not. Only the queries
    every system holds are drawn; undefined values (NaN) leave gaps (and are left out of a
    panel's differences).

    Parameters
    ----------
    systems
        ``{name: results}`` or a sequence of named per-query results.
    metric
        The metric.
    sort_by
        A system's name whose values order the queries (with more than two systems: the
        baseline of the differences).
    ax
        Matplotlib axes to draw into (default: a new figure; two systems at most: more draw
        one panel per system, in a figure of their own).
    path
        Where to save the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    InvalidInputError
        A metric a system lacks, an unknown ``sort_by``, no query every system holds.
    MissingDependencyError
        matplotlib is not installed (the ``plot`` extra).
    """
    named = _named(systems)
    for name, results in named.items():
        if metric not in results:
            raise InvalidInputError(f"metric: {metric!r} was not evaluated for {name!r}")
    if sort_by is not None and sort_by not in named:
        raise InvalidInputError(f"sort_by: {sort_by!r} is not one of the systems {list(named)}")
    first = next(iter(named.values()))
    shared = set(first.query_ids)
    for results in named.values():
        shared &= set(results.query_ids)
    ids = [q for q in first.query_ids if q in shared]
    if not ids:
        raise InvalidInputError("systems: no query is held by every system")
    matrix = np.array([r.select(ids, [metric]).array(metric) for r in named.values()])
    if len(named) > 2:
        if ax is not None:
            raise InvalidInputError(
                f"ax: {len(named)} systems are drawn as one panel per system, in a figure of "
                "their own; leave ax out (or plot two systems into your axes)"
            )
        figure = _differences(list(named), matrix, metric, sort_by or next(iter(named)))
        _save(figure, path)
        return figure
    if sort_by is None:
        defined = ~np.isnan(matrix)
        with np.errstate(invalid="ignore", divide="ignore"):
            key = np.where(defined, matrix, 0.0).sum(axis=0) / defined.sum(axis=0)
    else:
        key = matrix[list(named).index(sort_by)]
    order = np.argsort(np.where(np.isnan(key), -np.inf, key), kind="stable")[::-1]
    figure, axes = _axes(ax, (max(6.0, min(14.0, 2.0 + len(ids) * 0.06)), 3.8))
    x = np.arange(len(ids))
    for i, (name, row) in enumerate(zip(named, matrix, strict=True)):
        axes.plot(
            x,
            row[order],
            marker="o",
            markersize=2.5,
            linewidth=0.8,
            label=name,
            color=system_colour(i),
        )
    what = f"sorted by {sort_by}" if sort_by else "sorted by the mean over systems"
    axes.set_xlabel(f"queries, {what} ({len(ids)})")
    axes.set_ylabel(metric)
    axes.set_title(f"{metric} per query, {len(named)} systems", fontsize=9)
    axes.set_xlim(-0.5, len(ids) - 0.5)
    if len(ids) > 40:
        axes.set_xticks([])
    else:
        axes.set_xticks(x, [str(ids[i]) for i in order], rotation=90, fontsize=6)
    axes.legend(loc="upper right", fontsize=8, ncols=max(1, len(named) // 8))
    _save(figure, path)
    return figure


def _differences(names: list[str], matrix: np.ndarray, metric: str, baseline: str) -> Any:
    """Small multiples: each system's sorted per-query differences from ``baseline``."""
    figure_module = import_optional("matplotlib.figure", extra="plot", purpose="Plotting")
    base = names.index(baseline)
    others = [i for i in range(len(names)) if i != base]
    figure = figure_module.Figure(figsize=(7.0, 1.9 * len(others) + 0.6), layout="constrained")
    panels = figure.subplots(len(others), 1, sharex=False, sharey=True, squeeze=False)[:, 0]
    for axes, i in zip(panels, others, strict=True):
        deltas = matrix[i] - matrix[base]
        deltas = np.sort(deltas[~np.isnan(deltas)])[::-1]
        axes.bar(np.arange(deltas.size), deltas, width=1.0, color=system_colour(i))
        axes.axhline(0.0, color="black", linewidth=0.8)
        wins, losses = int((deltas > 0).sum()), int((deltas < 0).sum())
        mean = float(deltas.mean()) if deltas.size else math.nan
        axes.set_title(
            f"{names[i]} - {baseline}: mean {mean:+.4f}, W/T/L {wins}/"
            f"{deltas.size - wins - losses}/{losses} ({deltas.size} queries)",
            fontsize=8,
        )
        axes.set_xlim(-0.5, max(deltas.size, 1) - 0.5)
        axes.set_xticks([])
        axes.set_ylabel(metric, fontsize=8)
    panels[-1].set_xlabel("queries, sorted by difference from the baseline")
    return figure
