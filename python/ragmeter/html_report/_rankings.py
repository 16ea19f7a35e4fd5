"""The report's rankings: how sure each system's place is.

* :func:`rank_section`: under an input's summary, each system's mean of the chosen metric with
  its bootstrap interval, its rank and its rank interval (:func:`ragmeter.stats.rank_intervals`:
  the items resampled jointly for every system, Hall & Miller 2009), over the items where
  every system has a value, with a strip of the ranks each system may hold;
* :func:`battles_section`: a section of its own for pairwise preferences (FastChat-style
  battles, ``report(battles=...)``, ``ragmeter report --battles``): Bradley-Terry ratings on
  the Elo scale with their bootstrap intervals and rank intervals
  (:func:`ragmeter.stats.bradley_terry`).

The statistics are the statistics room's; this module only renders them. The resamples are
seeded (seed 0), so the same inputs give the same bytes.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..io import read_battles
from ..stats import bradley_terry, rank_intervals
from ._names import name_html

__all__ = ["RESAMPLES", "battles_section", "rank_section", "read_all_battles"]

#: Bootstrap resamples of the report's intervals (seed 0).
RESAMPLES = 2000


def _strip(low: int, high: int, rank: int, n: int) -> str:
    """The ranks ``1..n`` as cells, those of the interval filled, the observed one darkest."""
    cells = []
    for r in range(1, n + 1):
        fill = "#1f4e9a" if r == rank else ("#9db7e0" if low <= r <= high else "#eef1f6")
        cells.append(f'<rect x="{(r - 1) * 14}" y="0" width="12" height="12" fill="{fill}"/>')
    label = f"ranks {low} to {high} of {n}"
    return (
        f'<svg width="{n * 14}" height="12" role="img" aria-label="{label}">'
        + "".join(cells)
        + "</svg>"
    )


def _table(rows: list[tuple[int, str, str, str, int, int]], value: str, level: float) -> str:
    n = len(rows)
    out = [
        f'<table data-role="rankings"><tr><th>rank</th><th class="text">system</th>'
        f"<th>{value}</th><th>{level:.0%} interval</th><th>rank interval</th>"
        '<th class="text">ranks it may hold</th></tr>'
    ]
    for rank, system, shown, interval, low, high in rows:
        out.append(
            f'<tr data-ranked="{html.escape(system, quote=True)}"><td>{rank}</td>'
            f'<td class="text">{name_html(system)}</td><td>{shown}</td><td>{interval}</td>'
            f'<td>{low}–{high}</td><td class="text">{_strip(low, high, rank, n)}</td></tr>'
        )
    out.append("</table>")
    return "".join(out)


def rank_section(
    systems: Sequence[str], metric: str, values: np.ndarray, level: float
) -> list[str]:
    """The rank intervals of ``metric`` (``values``: systems x items, NaN undefined); nothing
    for fewer than 2 systems or fewer than 2 items every system has a value for.

    Parameters
    ----------
    systems
        The systems, in the rows' order of ``values``.
    metric
        The metric's name.
    values
        ``(n_systems, n_items)``.
    level
        The intervals' level.

    Returns
    -------
    list of str
        HTML.
    """
    keep = np.isfinite(values).all(axis=0)
    if len(systems) < 2 or int(keep.sum()) < 2:
        return []
    found = rank_intervals(
        {s: values[i, keep] for i, s in enumerate(systems)},
        n_resamples=RESAMPLES,
        confidence=level,
        random_state=0,
    )
    rows = [
        (
            r.rank,
            name,
            f"{r.mean:.4f}",
            f"[{r.mean_low:.4f}, {r.mean_high:.4f}]",
            r.low,
            r.high,
        )
        for name, r in found.items()
    ]
    left = int((~keep).sum())
    note = (
        f"{name_html(metric)}: rank 1 the highest mean, over the {int(keep.sum())} items every "
        "system has a value for"
        + (f" ({left} left out)" if left else "")
        + f"; {level:.0%} percentile intervals of the means and ranks over {RESAMPLES} "
        "bootstrap resamples of the items, every system resampled on the same items (Hall & "
        "Miller 2009, Ann. Statist. 37(6)), seed 0. A rank interval that spans several ranks "
        "says the data do not settle the order."
    )
    return [
        "<h3>Rank intervals</h3>",
        f'<p class="note">{note}</p>',
        f'<div class="scroll">{_table(rows, "mean", level)}</div>',
    ]


def read_all_battles(sources: Any) -> list[Any]:
    """The battles of ``sources``: a path, several paths, or battles in memory (records or
    ``(model_a, model_b, winner)`` tuples, as :func:`ragmeter.stats.bradley_terry` takes).

    Parameters
    ----------
    sources
        What ``battles=`` was given.

    Returns
    -------
    list
        The battles.
    """
    if isinstance(sources, str | os.PathLike):
        return list(read_battles(sources, argument="battles"))
    items = list(sources)
    if items and all(isinstance(s, str | os.PathLike) for s in items):
        return [b for path in items for b in read_battles(path, argument="battles")]
    return items


def battles_section(battles: Sequence[Any], number: int, level: float = 0.95) -> list[str]:
    """The section of pairwise preferences: Bradley-Terry ratings with their intervals.

    Parameters
    ----------
    battles
        The battles (:func:`read_all_battles`).
    number
        The section's number among the report's inputs.
    level
        The intervals' level.

    Returns
    -------
    list of str
        HTML.
    """
    result = bradley_terry(battles, n_resamples=RESAMPLES, confidence=level, random_state=0)
    rows = []
    for name in result.systems:
        low, high = result.rating_intervals.get(name, (math.nan, math.nan))
        r_low, r_high = result.rank_intervals.get(name, (result.ranks[name],) * 2)
        rows.append(
            (
                result.ranks[name],
                name,
                f"{result.ratings[name]:.1f}",
                f"[{low:.1f}, {high:.1f}]",
                r_low,
                r_high,
            )
        )
    note = (
        f"Bradley-Terry ratings of {len(result.systems)} systems from {result.n_battles} "
        "pairwise preferences (a tie half a win each), on the Elo scale as Chatbot Arena "
        "reports them (1000 + 400 θ / ln 10: 400 points are odds of 10 to 1); "
        f"{level:.0%} percentile intervals of the ratings and ranks over {RESAMPLES} "
        "bootstrap resamples of the battles, seed 0."
    )
    return [
        f'<section data-source="{number}" data-role="battles"><h2>Pairwise preferences</h2>',
        f'<p class="note">{note}</p>',
        f'<div class="scroll">{_table(rows, "rating", level)}</div>',
        "</section>",
    ]
