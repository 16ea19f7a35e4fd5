"""Repeats of a judged item: one score from its repeats (:func:`combine_repeats`) and why they
disagree (:func:`flaky_reason`). The variance components of the repeats, with the interval of
the mean that carries the judge's noise, are :mod:`ragmeter.stats.repeated`
(``JudgeResults.repeat_summary``); the design it reads:

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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .._moved import moved_names
from .score import Score

__all__ = ["combine_repeats", "flaky_reason"]

# The variance components are a statistic: ragmeter.stats.repeated (issue 44).
__getattr__ = moved_names(
    __name__,
    {
        "RepeatSummary": "ragmeter.stats.repeated",
        "variance_components": "ragmeter.stats.repeated",
    },
)


def flaky_reason(scores: Sequence[Score], threshold: float) -> str | None:
    """Why the repeats of one item disagree, or ``None`` when they do not.

    Flaky: the ok values lie on both sides of ``threshold`` (some ``>= threshold``, some
    below), the verdicts (pairwise preference's winner) differ, or some repeats are ok and
    others are not.
    """
    statuses = {s.status for s in scores}
    if len(statuses) > 1:
        return f"the repeats' statuses differ: {sorted(statuses)}"
    ok = [s for s in scores if s.status == "ok" and s.value is not None]
    winners = {str(s.evidence["winner"]) for s in ok if "winner" in s.evidence}
    if len(winners) > 1:
        return f"the verdicts differ: {sorted(winners)}"
    values = [float(s.value) for s in ok if s.value is not None]
    if values and min(values) < threshold <= max(values):
        return f"the values cross {threshold:g}: from {min(values):g} to {max(values):g}"
    return None


def combine_repeats(scores: Sequence[Score], threshold: float) -> Score:
    """One item's score from its repeats: the mean of the ok values, with the spread.

    The evidence holds ``repeats`` (how many), ``n_ok``, ``values`` (one per repeat,
    ``None`` unless ok), ``spread`` (max - min of the ok values), ``std`` (their population
    standard deviation), ``flaky`` and ``flaky_reason`` (see :func:`flaky_reason`). Without any
    ok repeat the score is the first error (else the first undefined repeat), with the same
    evidence. Each repeat's own score (reasons, verdicts) is kept in the row's ``repeats``.

    Examples
    --------
    >>> score = combine_repeats([Score.ok(1.0), Score.ok(0.0), Score.ok(1.0)], 0.5)
    >>> round(score.value, 4), score.evidence["flaky"], score.evidence["spread"]
    (0.6667, True, 1.0)
    """
    ok = [s for s in scores if s.status == "ok" and s.value is not None]
    values = [float(s.value) for s in ok if s.value is not None]
    reason = flaky_reason(scores, threshold)
    mean = math.fsum(values) / len(values) if values else None
    evidence: dict[str, Any] = {
        "repeats": len(scores),
        "n_ok": len(values),
        "values": [s.value if s.status == "ok" else None for s in scores],
        "spread": max(values) - min(values) if values else None,
        "std": (
            math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
            if mean is not None
            else None
        ),
        "flaky": reason is not None,
        "flaky_reason": reason,
    }
    if mean is not None:
        return Score.ok(mean, reasons=ok[0].reasons, evidence=evidence)
    failed = next((s for s in scores if s.status == "error"), None) or scores[0]
    code = failed.reason_code or "unknown"
    message = f"no repeat of {len(scores)} gave a value; the first says: {failed.message or code}"
    if failed.status == "error":
        return Score.error(code, message, evidence=evidence)
    return Score.undefined(code, message, evidence=evidence)
