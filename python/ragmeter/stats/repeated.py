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
    n_asked
        Values asked for: every item (with an ok value or not) times ``repeats``
        (``None`` when not known), so that ``n_values`` of ``n_asked`` were usable.
    ci_reason
        Why ``ci`` is ``None``: fewer than two items with a value, or item means that are
        all equal (an interval from them would have zero width, however few they are).
    within_reason
        Why ``within`` (the judge's noise) is ``None``: no item has two usable values.
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
    n_asked: int | None = None
    ci_reason: str | None = None
    within_reason: str | None = None

    def _usable(self) -> str:
        if self.n_asked is None:
            return f"{self.n_values} values"
        return f"{self.n_values} of {self.n_asked} values usable"

    def __str__(self) -> str:
        if self.mean is None:
            return f"no item has an ok value ({self._usable()})"
        head = f"{self.mean:.4f}"
        counts = (
            f"mean of {self.n_items} item means, {self._usable()}, {self.repeats} repeats, "
            f"{self.n_flaky} flaky"
        )
        if self.ci is None:
            counts += f"; no interval: {self.ci_reason}"
        else:
            head += f", {self.confidence:.0%} CI [{self.ci[0]:.4f}, {self.ci[1]:.4f}]"
        if self.within is None:
            noise = f"; judge noise undefined: {self.within_reason}" if self.within_reason else ""
        elif self.between is None:
            noise = f"; variance within (judge) {self.within:.4g}"
        else:
            noise = f"; variance between items {self.between:.4g}, within (judge) {self.within:.4g}"
        return f"{head} ({counts}){noise}"

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
            "n_asked": self.n_asked,
            "ci_reason": self.ci_reason,
            "within_reason": self.within_reason,
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
    n_asked_items = len(values)
    items = [[float(v) for v in item] for item in values if len(item) > 0]
    for item in items:
        if not all(math.isfinite(v) for v in item):
            raise InvalidInputError("values must be finite numbers")
    asked = repeats if repeats is not None else max((len(item) for item in items), default=0)
    a = len(items)
    total = sum(len(item) for item in items)
    n_asked = n_asked_items * asked if asked else None
    if a == 0:
        return RepeatSummary(
            None,
            None,
            confidence,
            0,
            0,
            asked,
            None,
            None,
            None,
            n_flaky,
            n_asked=n_asked,
            ci_reason="no item has an ok value",
            within_reason="no item has an ok value",
        )
    means = [math.fsum(item) / len(item) for item in items]
    grand = math.fsum(means) / a
    within_ss = math.fsum((v - m) ** 2 for item, m in zip(items, means, strict=True) for v in item)
    within_df = total - a
    within = within_ss / within_df if within_df > 0 else None
    within_reason: str | None = None
    if within is None:
        within_reason = (
            "each item was judged once"
            if asked <= 1
            else f"no item has two usable values (the {total} usable values are of {a} items, "
            "one each), so no repeat can be compared with another"
        )
    between: float | None = None
    ci: tuple[float, float] | None = None
    ci_reason: str | None = None
    if a < 2:
        ci_reason = "fewer than two items have a value"
    else:
        overall = math.fsum(v for item in items for v in item) / total
        between_ms = math.fsum(
            len(item) * (m - overall) ** 2 for item, m in zip(items, means, strict=True)
        ) / (a - 1)
        n0 = (total - sum(len(item) ** 2 for item in items) / total) / (a - 1)
        between = max(0.0, (between_ms - (within or 0.0)) / n0)
        _mean, low, high, _n = mean_t_interval(means, float(confidence))
        if high > low:
            ci = (low, high)
        else:
            # Equal item means give a t interval of zero width: a statement of certainty
            # that a few (or many) equal values do not support.
            ci_reason = (
                f"the {a} item means are all equal, and an interval from them would have zero width"
            )
    share = (
        within / (between + within)
        if within is not None and between is not None and between + within > 0
        else None
    )
    return RepeatSummary(
        grand,
        ci,
        float(confidence),
        a,
        total,
        asked,
        between,
        within,
        share,
        n_flaky,
        n_asked=n_asked,
        ci_reason=ci_reason,
        within_reason=within_reason,
    )
