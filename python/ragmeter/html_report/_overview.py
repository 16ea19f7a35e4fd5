"""The first screen of a comparison in the report: what a researcher asks first.

* :func:`leaderboard`: the systems sorted by the chosen metric (the best first, marked), each
  mean with its interval, the compact letter display of the groups of systems not
  significantly different (every pair compared), and the other metrics' means;
* :func:`pairs_matrix`: every pair's difference on the chosen metric, coloured where the
  (adjusted) test found it significant;
* :func:`pair_rows`: the data of the sortable, filterable table of differences (rendered by
  the page's script, 200 rows at a time: 300 systems make 44,850 pairs per metric).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..stats.letters import compact_letter_display
from ..stats.results import Comparison, MultipleComparison
from ..stats.tables import format_p_value as p_text
from ._svg import colour

__all__ = [
    "MATRIX_SYSTEMS",
    "Overview",
    "leaderboard",
    "pair_rows",
    "pairs_matrix",
    "sorted_systems",
]

#: The pairs matrix shows at most this many systems (the best by the chosen metric); every
#: pair stays in the table of differences.
MATRIX_SYSTEMS = 40


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"


def _compact(delta: float) -> str:
    """A difference in a matrix cell: three decimals without the leading zero (``+.066``)."""
    text = f"{delta:+.3f}"
    return text.replace("0.", ".", 1) if abs(delta) < 1 else text


def _items(comparison: MultipleComparison | Comparison) -> dict[tuple[str, str], dict[str, Any]]:
    """``{(candidate, baseline): {metric: MetricComparison}}`` as compared."""
    if isinstance(comparison, MultipleComparison):
        pairs = [comparison[c, b] for c, b in comparison.pairs]
    else:
        pairs = [comparison]
    return {(c.candidate, c.baseline): {m.metric: m for m in c.metrics} for c in pairs}


class Overview:
    """What the first screen shows of one comparison, on one metric.

    Parameters
    ----------
    comparison
        The comparison.
    metric
        The chosen metric (one the comparison holds).
    means
        ``{system: (mean, low, high, n)}`` on that metric.
    """

    def __init__(
        self,
        comparison: MultipleComparison | Comparison,
        metric: str,
        means: Mapping[str, tuple[float, float, float, int]],
    ) -> None:
        self.comparison = comparison
        self.metric = metric
        self.means = dict(means)
        self.items = _items(comparison)
        self.alpha = comparison.alpha
        systems = list(means)
        self.order = sorted(
            systems,
            key=lambda s: (-means[s][0] if math.isfinite(means[s][0]) else math.inf, s),
        )
        compared = {frozenset(pair) for pair in self.items}
        self.every_pair = all(
            frozenset((a, b)) in compared for i, a in enumerate(systems) for b in systems[i + 1 :]
        )
        self.letters: dict[str, str] | None = None
        if self.every_pair:
            different = [
                pair
                for pair, by_metric in self.items.items()
                if metric in by_metric and self._significant(by_metric[metric])
            ]
            self.letters = compact_letter_display(self.order, different)

    def _significant(self, item: Any) -> bool:
        return bool(item.significant(self.alpha)) and math.isfinite(item.delta)

    def pair(self, a: str, b: str) -> Any:
        """The metric's comparison of ``a`` against ``b`` (mirrored if compared the other way),
        or None when the pair was not compared."""
        if (a, b) in self.items:
            return self.items[a, b].get(self.metric)
        if (b, a) in self.items:
            item = self.items[b, a].get(self.metric)
            return None if item is None else item.mirrored()
        return None

    def best(self) -> list[str]:
        """The systems with the highest mean as printed (ties: all of them)."""
        printed = {
            s: round(self.means[s][0], 4) for s in self.order if math.isfinite(self.means[s][0])
        }
        top = max(printed.values(), default=math.nan)
        return [s for s in self.order if printed.get(s) == top]


def leaderboard(
    overview: Overview,
    other_means: Mapping[str, Mapping[str, float]],
    positions: Mapping[str, int],
    level: float,
) -> list[str]:
    """The systems sorted by the chosen metric, the best marked, with their groups.

    Parameters
    ----------
    overview
        The first screen's data.
    other_means
        ``{metric: {system: mean}}`` of the other metrics, shown after the chosen one.
    positions
        Each system's position (its colour).
    level
        The intervals' level.
    """
    best = set(overview.best())
    groups = overview.letters is not None
    head = [
        '<table data-role="leaderboard"><tr><th>#</th><th class="text">system</th>',
        f"<th>{_e(overview.metric)} [{level:.0%} interval]</th>",
        '<th class="text" title="systems sharing a letter are not significantly different">'
        "group</th>"
        if groups
        else "",
        *(f"<th>{_e(m)}</th>" for m in other_means),
        "</tr>",
    ]
    out = ["".join(head)]
    for rank, system in enumerate(overview.order, 1):
        mean, low, high, n = overview.means[system]
        mark = ' <span class="best">★ best</span>' if system in best else ""
        cls = ' class="best-row"' if system in best else ""
        letters = "" if overview.letters is None else overview.letters[system]
        out.append(
            f'<tr data-system="{_e(system)}"{cls}><td>{rank}</td>'
            f'<td class="text"><span class="swatch" style="background:'
            f'{colour(positions[system])}"></span><bdi>{_e(system)}</bdi>{mark}</td>'
            f'<td data-mean="{mean!r}" title="over {n} queries"><b>{_fmt(mean)}</b> '
            f'<span class="note">[{_fmt(low)}, {_fmt(high)}]</span></td>'
            + (
                f'<td class="text letters" data-letters="{_e(letters)}">{_e(letters)}</td>'
                if groups
                else ""
            )
            + "".join(f"<td>{_fmt(values.get(system))}</td>" for values in other_means.values())
            + "</tr>"
        )
    comparison = overview.comparison
    if groups:
        counts = sorted({overview.means[s][3] for s in overview.order})
        over = f"over {counts[0]} queries" if len(counts) == 1 else "over their queries"
        what = (
            f"Systems sorted by their mean {overview.metric} ({over}), the best marked ★. "
            "Systems that "
            "share a letter are not significantly different from each other on "
            f"{overview.metric} (compact letter display, Piepho 2004): "
        )
    else:
        what = (
            f"Systems sorted by their mean {overview.metric}, the best marked ★ (no groups: not "
            "every pair was compared). "
        )
    out.append(f"<caption>{_e(what + comparison.describe_test())}</caption></table>")
    return out


def pairs_matrix(overview: Overview, positions: Mapping[str, int]) -> list[str]:
    """Every pair's difference (row minus column) on the chosen metric: green where the row is
    significantly better, red where significantly worse, grey where no difference was shown,
    blank where the pair was not compared."""
    shown = overview.order[:MATRIX_SYSTEMS]
    out = [
        '<table data-role="pairs-matrix" class="matrix"><tr><th class="text">row − column</th>'
        + "".join(f'<th class="col" title="{_e(s)}"><bdi>{_e(s)}</bdi></th>' for s in shown)
        + "</tr>"
    ]
    for a in shown:
        cells = [
            f'<tr><th class="text"><span class="swatch" style="background:'
            f'{colour(positions[a])}"></span><bdi>{_e(a)}</bdi></th>'
        ]
        for b in shown:
            if a == b:
                cells.append('<td class="diag">·</td>')
                continue
            item = overview.pair(a, b)
            if item is None or not math.isfinite(item.delta):
                cells.append("<td></td>")
                continue
            significant = overview._significant(item)
            cls = ("better" if item.delta > 0 else "worse") if significant else "same"
            p = item.p_value_adjusted if item.p_value_adjusted is not None else item.p_value
            title = f"{a} − {b}: {item.delta:+.4f}, p = {p_text(p)}" + (
                " (significant)" if significant else ""
            )
            cells.append(
                f'<td class="{cls}" data-row="{_e(a)}" data-col="{_e(b)}" '
                f'data-significant="{int(significant)}" title="{_e(title)}">'
                f"{_compact(item.delta)}</td>"
            )
        out.append("".join(cells) + "</tr>")
    more = len(overview.order) - len(shown)
    note = (
        f"Difference of the means on the paired queries, row minus column ({overview.metric}); "
        f"green: the row is significantly better, red: significantly worse (adjusted p ≤ α = "
        f"{overview.alpha:g}), grey: no significant difference. Hover a cell for its p-value."
        + (
            f" The {len(shown)} best of {len(overview.order)} systems; every pair is in the "
            "table of differences."
            if more > 0
            else ""
        )
    )
    out.append(f"<caption>{_e(note)}</caption></table>")
    return out


def pair_rows(comparison: MultipleComparison | Comparison) -> list[dict[str, Any]]:
    """One row per compared pair and metric, for the page's table of differences."""
    rows = []
    for (candidate, baseline), by_metric in _items(comparison).items():
        for metric, m in by_metric.items():
            significant = (
                m.p_value_adjusted is not None
                and math.isfinite(m.p_value_adjusted)
                and m.p_value_adjusted <= comparison.alpha
            )
            rows.append(
                {
                    "candidate": candidate,
                    "baseline": baseline,
                    "metric": metric,
                    "n": m.n_pairs,
                    "delta": m.delta,
                    "low": m.ci_low,
                    "high": m.ci_high,
                    "effect": m.effect_size,
                    "wtl": [m.wins, m.ties, m.losses],
                    "p": m.p_value,
                    "p_text": p_text(m.p_value),
                    "adjusted": m.p_value_adjusted,
                    "adjusted_text": p_text(m.p_value_adjusted),
                    "significant": bool(significant),
                }
            )
    return rows


def sorted_systems(means: Mapping[str, float]) -> Sequence[str]:
    """Systems by decreasing mean (undefined last, then by name)."""
    return sorted(means, key=lambda s: (-means[s] if math.isfinite(means[s]) else math.inf, s))
