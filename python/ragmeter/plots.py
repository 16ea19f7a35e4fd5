"""Figures of evaluations and comparisons (needs matplotlib: ``pip install 'ragmeter[plot]'``).

Figures are built with :class:`matplotlib.figure.Figure` directly, not pyplot, so they need no
display and leave pyplot's global state alone. Pass ``path`` to save the figure (the format
comes from the suffix: ``.png``, ``.svg``, ``.pdf``, ...) or ``ax`` to draw into your own axes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._optional import import_optional
from .exceptions import InvalidInputError

if TYPE_CHECKING:
    from .harness import RetrievalEvaluation
    from .stats import Comparison

__all__ = ["plot_metrics", "plot_query_deltas"]


def _axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    figure_module = import_optional("matplotlib.figure", extra="plot", purpose="Plotting")
    if ax is not None:
        return ax.figure, ax
    figure = figure_module.Figure(figsize=size, layout="constrained")
    return figure, figure.add_subplot()


def _save(figure: Any, path: str | os.PathLike[str] | None) -> None:
    if path is None:
        return
    target = Path(path)
    # Save next to the target and rename, so an interrupted save leaves no half image.
    temporary = target.with_name(f".{target.name}.tmp{target.suffix}")
    try:
        figure.savefig(temporary, dpi=150)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def plot_query_deltas(
    comparison: Comparison,
    metric: str | None = None,
    *,
    ax: Any = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Per-query differences (candidate - baseline) of ``metric`` (default: the first
    compared metric), sorted, as bars: green where the candidate wins, red where it loses.
    The title gives the mean difference, wins/ties/losses and the p-value. Returns the
    figure; saves it to ``path`` when given."""
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
    p = "n/a" if math.isnan(result.p_value) else f"{result.p_value:.3g}"
    axes.set_title(
        f"{comparison.candidate} vs {comparison.baseline} on {name}: "
        f"mean {result.delta:+.4f}, W/T/L {result.wins}/{result.ties}/{result.losses}, p = {p}",
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
    evaluations: RetrievalEvaluation
    | Sequence[RetrievalEvaluation]
    | Mapping[str, RetrievalEvaluation],
    *,
    metrics: Sequence[str] | None = None,
    ax: Any = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Bar chart of the metric means of one evaluation, or grouped bars for several (one
    colour per system). Bars are labelled with their value; the legend says over how many
    queries each system was evaluated. Returns the figure; saves it to ``path`` when given."""
    from .harness import RetrievalEvaluation

    if isinstance(evaluations, RetrievalEvaluation):
        named = {evaluations.name or "system": evaluations}
    elif isinstance(evaluations, Mapping):
        named = dict(evaluations)
    else:
        named = {e.name or f"system {i + 1}": e for i, e in enumerate(evaluations)}
    if not named:
        raise InvalidInputError("evaluations: nothing to plot")
    first = next(iter(named.values()))
    names = list(metrics) if metrics is not None else list(first.metric_names)
    figure, axes = _axes(ax, (max(4.5, 1.0 + len(names) * (0.8 + 0.4 * len(named))), 3.5))
    width = 0.8 / len(named)
    positions = np.arange(len(names))
    for i, (label, evaluation) in enumerate(named.items()):
        means = evaluation.metrics
        missing = [m for m in names if m not in means]
        if missing:
            raise InvalidInputError(f"metrics: {missing} were not evaluated for {label!r}")
        values = [float(means[m]) for m in names]
        bars = axes.bar(
            positions + (i - (len(named) - 1) / 2) * width,
            values,
            width=width,
            label=f"{label} ({evaluation.n_queries} queries)",
        )
        axes.bar_label(bars, labels=[f"{v:.3f}" for v in values], fontsize=7, padding=1)
    axes.set_xticks(positions, names)
    axes.set_ylabel("mean over queries")
    axes.set_ylim(0.0, 1.1)
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(len(named), 4), fontsize=8)
    _save(figure, path)
    return figure
