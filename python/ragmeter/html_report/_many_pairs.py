"""The pairs of a campaign of hundreds of systems in the report: a matrix, not a table of rows.

300 systems make 44,850 pairs per metric: the report's table of differences (one row per pair
and metric) would be 224,250 rows for 5 metrics and tens of megabytes. Beyond
:data:`MANY_PAIRS` compared pairs the section of differences is instead a systems x systems
matrix drawn on a canvas by ``pairs_matrix.js`` when it comes into view: one cell per pair
(row minus column, the systems sorted by their mean on the metric shown), coloured by the
adjusted p-value (green: the row significantly better, red: significantly worse, the shade by
``-log10 p``; grey: no significant difference) or by the effect size (a diverging scale);
hovering a cell shows the pair's difference, interval, effect size, wins/ties/losses and
p-values, clicking pins them below the matrix. The data are the comparison's own arrays
(:class:`~ragmeter.stats.results.pairs.PairTable`), as float32 and int32 in base64 (about 50
bytes per pair and metric); no Python object is made per pair.

:class:`TableOverview` is the first screen's data (:class:`._overview.Overview`) read from
the same arrays: the groups of the compact letter display and the cells of the small pairs
matrix without a :class:`~ragmeter.stats.Comparison` per pair.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np

from ..stats.letters import compact_letter_display
from ..stats.results import MultipleComparison
from ._names import name_html
from ._overview import MATRIX_SYSTEMS, Overview

__all__ = [
    "MANY_PAIRS",
    "TableOverview",
    "charted_note",
    "charted_systems",
    "is_many",
    "many_pairs_section",
]

#: Above this many compared pairs the differences are the matrix, not the table of rows (the
#: pairs of 40 systems: the most the first screen's matrix shows).
MANY_PAIRS = 40 * 39 // 2

#: The fields of a pair shown on hover, as float32 (NaN where undefined).
_FLOATS = {
    "delta": "delta",
    "low": "ci_low",
    "high": "ci_high",
    "effect": "effect_size",
    "p": "p_value",
    "adjusted": "p_value_adjusted",
}
#: The counts, as int32.
_COUNTS = {"wins": "wins", "ties": "ties", "losses": "losses", "n": "n_pairs"}


def is_many(comparison: Any) -> bool:
    """Whether the comparison's differences are shown as the matrix (more than
    :data:`MANY_PAIRS` compared pairs)."""
    return isinstance(comparison, MultipleComparison) and len(comparison.table) > MANY_PAIRS


def charted_systems(comparison: Any, ranked: Sequence[str], baseline: str) -> set[str]:
    """The systems whose per-query differences from ``baseline`` are charted on a metric:
    every system, or for a campaign of many pairs (:func:`is_many`) the
    :data:`~._overview.MATRIX_SYSTEMS` best by that metric (``ranked``, best first)."""
    if not is_many(comparison):
        return set(ranked)
    return set([s for s in ranked if s != baseline][:MATRIX_SYSTEMS])


def charted_note(comparison: Any, n_systems: int, baseline: str | None) -> list[str]:
    """The note under a metric's charts when :func:`charted_systems` left systems out."""
    if baseline is None or not is_many(comparison):
        return []
    return [
        f'<p class="note">Per-query differences from {name_html(baseline)} charted for the '
        f"{MATRIX_SYSTEMS} best of the {n_systems - 1} other systems on this metric; every "
        "system's per-query values are in the explorer below.</p>"
    ]


class TableOverview(Overview):
    """:class:`Overview` of a :class:`MultipleComparison` read from its table of pairs.

    Parameters
    ----------
    comparison
        The comparison.
    metric
        The chosen metric.
    means
        ``{system: (mean, low, high, n)}`` on that metric.
    """

    def __init__(
        self,
        comparison: MultipleComparison,
        metric: str,
        means: Mapping[str, tuple[float, float, float, int]],
    ) -> None:
        # Not Overview.__init__: that one makes a Comparison of every pair.
        self.comparison = comparison
        self._campaign = comparison
        self.metric = metric
        self.means = dict(means)
        self.items = {}
        self.alpha = comparison.alpha
        systems = list(means)
        self.order = sorted(
            systems,
            key=lambda s: (-means[s][0] if math.isfinite(means[s][0]) else math.inf, s),
        )
        table = comparison.table
        n = len(table.systems)
        low = np.minimum(table.index[:, 0], table.index[:, 1])
        high = np.maximum(table.index[:, 0], table.index[:, 1])
        covered = len(np.unique(low * n + high)) if len(table) else 0
        self.every_pair = set(systems) <= set(table.systems) and covered == n * (n - 1) // 2
        self.letters: dict[str, str] | None = None
        #: The metric's column in the table (-1: not a compared metric).
        self._column = table.metrics.index(metric) if metric in table.metrics else -1
        if self._column < 0:
            self.every_pair = False
        if self.every_pair:
            delta = table.columns["delta"][:, self._column]
            found = table.significant(self.alpha)[:, self._column] & np.isfinite(delta)
            names = table.systems
            different = [(names[a], names[b]) for a, b in table.index[found].tolist()]
            self.letters = compact_letter_display(self.order, different)

    def pair(self, a: str, b: str) -> Any:
        """The metric's comparison of ``a`` against ``b`` (mirrored if compared the other way),
        or None when the pair was not compared."""
        if self._column < 0:
            return None
        try:
            return self._campaign.metric_comparisons(a, b)[self._column]
        except KeyError:
            return None


def _packed(array: np.ndarray, dtype: Any) -> str:
    """An array as base64 of its little-endian bytes (the page decodes it into a typed
    array)."""
    data = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
    return base64.b64encode(data.tobytes()).decode("ascii")


def _means(comparison: MultipleComparison) -> dict[str, list[float | None]]:
    """Every system's mean of every metric over the queries it has a value for."""
    values = comparison.values
    defined = ~np.isnan(values)
    counts = defined.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(defined, values, 0.0).sum(axis=2) / counts
    return {
        metric: [None if not math.isfinite(v) else v for v in means[:, m].tolist()]
        for m, metric in enumerate(comparison.metric_names)
    }


def matrix_data(comparison: MultipleComparison, metric: str, effect: str) -> dict[str, Any]:
    """What ``pairs_matrix.js`` draws: the systems, each metric's means (the order of the
    rows) and every pair's fields per metric, packed.

    Parameters
    ----------
    comparison
        The comparison.
    metric
        The metric shown first.
    effect
        The effect size's name.

    Returns
    -------
    dict
        JSON-ready.
    """
    table = comparison.table
    fields: dict[str, dict[str, str]] = {}
    for m, name in enumerate(table.metrics):
        packed = {key: _packed(table.columns[f][:, m], np.float32) for key, f in _FLOATS.items()}
        packed.update(
            {key: _packed(table.columns[f][:, m], np.int32) for key, f in _COUNTS.items()}
        )
        fields[name] = packed
    return {
        "systems": list(table.systems),
        "metrics": list(table.metrics),
        "metric": metric,
        "means": _means(comparison),
        "index": _packed(table.index, np.int32),
        "pairs": len(table),
        "fields": fields,
        "alpha": comparison.alpha,
        "adjusted": comparison.correction is not None,
        "effect": effect,
        "level": comparison.confidence_level,
    }


def many_pairs_section(
    comparison: MultipleComparison,
    metric: str,
    number: int,
    effect: str,
    caption: str,
    encode: Callable[[Any], str],
) -> list[str]:
    """The section of differences of a campaign of many pairs: the matrix's place, its data
    and its script.

    Parameters
    ----------
    comparison
        The comparison (:func:`is_many`).
    metric
        The metric shown first.
    number
        The section's number (the ids of its data).
    effect
        The effect size's name.
    caption
        The caption (HTML) put below the matrix.
    encode
        JSON that can stand inside a ``<script>`` element (the report's encoder).
    """
    data = encode(matrix_data(comparison, metric, effect))
    script = resources.files(__package__).joinpath("pairs_matrix.js").read_text(encoding="utf-8")
    n = len(comparison.systems)
    summary = (
        f"{len(comparison.table):,} compared pairs of {n} systems on "
        f"{len(comparison.metric_names)} metrics: one cell per pair, hover a cell for its "
        "values, click to keep them. Every pair and metric is also in the saved comparison "
        "(MultipleComparison.to_csv, ragmeter compare --format csv)."
    )
    return [
        f'<div class="pairs-grid" data-pairs-matrix="{number}" '
        f'data-role="pairs-matrix-many"></div>',
        f'<p class="note caption">{html.escape(summary)} {caption}</p>',
        f'<script type="application/json" id="ragmeter-pairs-matrix-{number}">{data}</script>',
        f"<script>{script}</script>",
    ]
