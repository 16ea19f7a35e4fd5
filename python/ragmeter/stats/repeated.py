"""Variance components of repeated measurements: a judge's noise, from each (sample, metric)
judged several times (``evaluate(repeats=N)``).

The values ``y_ij`` (item ``i``, repeat ``j``) are read as a one-way random-effects design,
``y_ij = mu + a_i + e_ij``: ``a_i`` how far item ``i`` lies from the mean (variance
``between``), ``e_ij`` the judge's noise on a repeat (variance ``within``). The components are
the ANOVA estimators (Searle, Casella & McCulloch, *Variance Components*, Wiley 1992, sections
3.5-3.6): ``within = MSW``, ``between = max(0, (MSB - MSW) / n0)``, with
``n0 = (N - sum n_i**2 / N) / (a - 1)`` (``n0 = r`` when every item has ``r`` repeats).

The mean of the metric is the mean of the item means, and its interval is Student's
``mean +- t(a - 1) * sd(item means) / sqrt(a)``: the variance of an item mean is
``between + within / r``, so the interval carries the judge's noise. For a balanced design it
is the textbook interval ``t * sqrt(MSB / (a r))`` (Searle et al. 1992, section 3.5d); treating
the ``a r`` values as independent instead (the naive interval) is too narrow whenever the
judge is noisy, since repeats of one item are not new items.

(Moved here from ``ragmeter.judges.repeats``, which re-exports these names with a deprecation
warning.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..exceptions import InvalidInputError
from .distributions import mean_t_interval

__all__ = ["RepeatSummary", "variance_components"]


@dataclass(frozen=True)
class RepeatSummary:
    """Variance components and the interval of a metric judged several times per item.

    Attributes
    ----------
    mean
        The mean of the item means (``None`` without an item).
    ci
        Its interval at ``confidence`` (``None`` with fewer than two items).
    confidence
        The interval's nominal coverage.
    n_items
        Items with at least one ok value.
    n_values
        Ok values over those items.
    repeats
        The number of repeats asked per item.
    between
        The between-item variance component.
    within
        The within-item (judge) variance component; ``None`` when no item has two ok
        values.
    judge_share
        ``within / (between + within)``: the share of a single judgement's
        variance that is the judge's noise (``None`` when undefined).
    n_flaky
        Items flagged flaky (their repeats cross the threshold or disagree).
    method
        How the interval is formed.
    """

    mean: float | None
    ci: tuple[float, float] | None
    confidence: float
    n_items: int
    n_values: int
    repeats: int
    between: float | None
    within: float | None
    judge_share: float | None
    n_flaky: int = 0
    method: str = (
        "one-way random-effects ANOVA variance components (Searle, Casella & McCulloch 1992); "
        "Student's t interval over the item means"
    )

    def __str__(self) -> str:
        if self.mean is None:
            return "no item has an ok value"
        interval = (
            ""
            if self.ci is None
            else f", {self.confidence:.0%} CI [{self.ci[0]:.4f}, {self.ci[1]:.4f}]"
        )
        noise = (
            ""
            if self.within is None or self.between is None
            else f"; variance between items {self.between:.4g}, within (judge) {self.within:.4g}"
        )
        return (
            f"{self.mean:.4f}{interval} (mean of {self.n_items} item means, {self.repeats} "
            f"repeats, {self.n_flaky} flaky){noise}"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "mean": self.mean,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": self.confidence,
            "n_items": self.n_items,
            "n_values": self.n_values,
            "repeats": self.repeats,
            "between": self.between,
            "within": self.within,
            "judge_share": self.judge_share,
            "n_flaky": self.n_flaky,
            "method": self.method,
        }


def variance_components(
    values: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    repeats: int | None = None,
    n_flaky: int = 0,
) -> RepeatSummary:
    """The variance components and the interval of the mean (see the module's docstring).

    Parameters
    ----------
    values
        One list per item of its ok values, one per repeat (an empty list: no ok
        value, the item is left out).
    confidence
        The interval's nominal coverage.
    repeats
        The repeats asked per item (default: the longest list).
    n_flaky
        Carried into the summary.

    Returns
    -------
    RepeatSummary
        A :class:`RepeatSummary`.

    Examples
    --------
    >>> # item means 0.5 and 1.0: MSW = (0.25 + 0.25) / 2, MSB = 2 x 2 x 0.25**2 / 1
    >>> summary = variance_components([[0.0, 1.0], [1.0, 1.0]])
    >>> summary.mean, summary.within, summary.between
    (0.75, 0.25, 0.0)
    """
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInputError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not 0.0 < confidence < 1.0:
        raise InvalidInputError(f"confidence must lie in (0, 1), got {confidence!r}")
    items = [[float(v) for v in item] for item in values if len(item) > 0]
    for item in items:
        if not all(math.isfinite(v) for v in item):
            raise InvalidInputError("values must be finite numbers")
    asked = repeats if repeats is not None else max((len(item) for item in items), default=0)
    a = len(items)
    total = sum(len(item) for item in items)
    if a == 0:
        return RepeatSummary(None, None, confidence, 0, 0, asked, None, None, None, n_flaky)
    means = [math.fsum(item) / len(item) for item in items]
    grand = math.fsum(means) / a
    within_ss = math.fsum((v - m) ** 2 for item, m in zip(items, means, strict=True) for v in item)
    within_df = total - a
    within = within_ss / within_df if within_df > 0 else None
    between: float | None = None
    ci: tuple[float, float] | None = None
    if a >= 2:
        overall = math.fsum(v for item in items for v in item) / total
        between_ms = math.fsum(
            len(item) * (m - overall) ** 2 for item, m in zip(items, means, strict=True)
        ) / (a - 1)
        n0 = (total - sum(len(item) ** 2 for item in items) / total) / (a - 1)
        between = max(0.0, (between_ms - (within or 0.0)) / n0)
        _mean, low, high, _n = mean_t_interval(means, float(confidence))
        ci = (low, high)
    share = (
        within / (between + within)
        if within is not None and between is not None and between + within > 0
        else None
    )
    return RepeatSummary(
        grand, ci, float(confidence), a, total, asked, between, within, share, n_flaky
    )
