"""The assertions and the baseline store of :mod:`ragmeter.testing`.

Quality gates as assertions: a test fails when quality drops, not when it wobbles.

* :func:`assert_not_worse` fails unless a one-sided paired test on the same queries shows the
  candidate is not worse than the baseline by ``margin`` or more (:func:`ragmeter.gate.gate`);
* :func:`assert_at_least` fails unless the mean is shown above ``value``;
* :class:`BaselineStore` (:mod:`ragmeter.gate.store`) keeps baselines as JSON files with their
  manifest (ragmeter version, metric definitions, evaluation settings, judge identity),
  checked field by field when read back; comparing with a baseline whose definitions or
  judges differ is refused, naming the difference.

The pytest plugin (:mod:`ragmeter.testing.plugin`, registered through the ``pytest11`` entry
point; install ``ragmeter[gate]``) adds ``--ragmeter-baseline DIR`` and
``--ragmeter-update-baselines`` and the ``ragmeter_baseline`` fixture. The plugin does nothing
unless a test uses the fixture.

The failure messages hold the difference, its interval, the p-value and the worst queries:
everything needed to tell a regression from too few queries.

Examples
--------
>>> baseline = {"ndcg@10": {f"q{i}": 0.5 + 0.01 * (i % 7) for i in range(40)}}
>>> candidate = {"ndcg@10": {f"q{i}": 0.5 + 0.01 * (i % 5) for i in range(40)}}
>>> assert_not_worse(candidate, baseline, metric="ndcg@10", margin=0.02).passed
True
>>> assert_not_worse(candidate, baseline, metric="ndcg@10", margin=0.005)
Traceback (most recent call last):
...
AssertionError: gate FAILED: candidate 'candidate' against baseline 'baseline': ...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..gate import GateResult, gate
from ..gate.store import BaselineStore

__all__ = ["BaselineStore", "assert_at_least", "assert_not_worse"]


def _metrics(metric: str | Iterable[str]) -> list[str]:
    return [metric] if isinstance(metric, str) else list(metric)


def assert_not_worse(
    candidate: Any,
    baseline: Any,
    *,
    metric: str | Iterable[str],
    margin: float | Mapping[str, float],
    **options: Any,
) -> GateResult:
    """Fail unless the candidate is shown not worse than the baseline by ``margin`` or more
    on every ``metric`` (the non-inferiority checks of :func:`ragmeter.gate.gate`).

    Parameters
    ----------
    candidate, baseline
        Per-query results (anything :func:`ragmeter.gate.gate_values` reads: a
        ``RetrievalEvaluation``, per-query ``MetricResults``, ``JudgeResults``,
        ``{metric: {query: value}}``...).
    metric
        One metric or several.
    margin
        The largest drop accepted, in the metric's unit (or ``{metric: margin}``).
    options
        :class:`~ragmeter.gate.GateOptions` fields (``test``, ``alpha``, ``correction``,
        ``missing``...) and ``superiority=True``.

    Returns
    -------
    GateResult
        The passed gate.

    Raises
    ------
    AssertionError
        The gate failed: the message holds every check (difference, interval, p-value,
        worst queries, queries needed).
    InvalidInputError
        Bad input (different query sets, a margin that is not a size, a metric not in the
        results, definitions or judges that differ).
    """
    if isinstance(margin, Mapping):
        single, margins = None, dict(margin)
    else:
        single, margins = margin, None
    result = gate(
        candidate,
        baseline,
        metrics=_metrics(metric),
        margin=single,
        margins=margins,
        **options,
    )
    if not result.passed:
        raise AssertionError(result.to_text())
    return result


def assert_at_least(
    results: Any, *, metric: str | Iterable[str], value: float, **options: Any
) -> GateResult:
    """Fail unless the mean of every ``metric`` is shown above ``value`` (a one-sided test
    of the per-query values; its interval and the lowest queries are in the message).

    Parameters
    ----------
    results
        Per-query results (see :func:`assert_not_worse`).
    metric
        One metric or several.
    value
        The floor.
    options
        :class:`~ragmeter.gate.GateOptions` fields.

    Returns
    -------
    GateResult
        The passed gate.

    Raises
    ------
    AssertionError
        A floor was not shown met.

    Examples
    --------
    >>> assert_at_least({"mrr": {"q1": 1.0, "q2": 0.5, "q3": 1.0}}, metric="mrr", value=0.2).passed
    True
    """
    return _passed(gate(results, floors={m: value for m in _metrics(metric)}, **options))


def _passed(result: GateResult) -> GateResult:
    if not result.passed:
        raise AssertionError(result.to_text())
    return result
