"""Budget-aware judging: judge a stratified sample of the items, not all of them.

:func:`evaluate_within_budget` judges items in waves (a pilot, then Neyman-allocated waves)
until the interval of the metric's mean over *every* item is as narrow as asked
(``ci_width=``) or the budget is spent (``max_calls=``, ``max_cost=`` with ``prices=``); the
items left are not judged. The estimate is design-based: the stratified mean, or, with a
cheap ``proxy`` value for every item, the difference estimator (prediction-powered inference
for a finite population). The statistics are :mod:`ragmeter.stats.sampling`'s.

Each stratum is sampled in one seeded order, so with the same ``seed`` and ``cache=`` a run
with a larger budget judges a superset of the items an earlier run judged, and the cache
answers those again without a call: a run is extended by running it again with more budget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._notebook import NotebookDisplay
from ..exceptions import InvalidInputError
from ..stats.sampling import SequentialPlan, StratifiedEstimate
from .evaluation import evaluate
from .registry import resolve_metrics
from .results import JudgeResults
from .sample import Sample, coerce_samples

__all__ = ["BudgetedEstimate", "evaluate_within_budget"]


@dataclass(frozen=True)
class BudgetedEstimate(NotebookDisplay):
    """The metric's mean over every item, estimated from the items judged within a budget.

    Attributes
    ----------
    metric
        The metric's name.
    estimate
        The :class:`~ragmeter.stats.sampling.StratifiedEstimate` (mean, interval,
        strata).
    judged
        The ids of the judged samples, in the order they were judged.
    n_items
        Every item's count (judged or not).
    n_no_value
        Judged items whose row is not ``ok`` (left out of the estimate, as missing at
        random within their stratum).
    calls, cost
        What the judging sent (calls answered by the cache cost nothing) and its cost
        (``None`` without prices).
    stopped
        Why the waves stopped.
    results
        The :class:`~ragmeter.judges.JudgeResults` of each wave.
    """

    metric: str
    estimate: StratifiedEstimate
    judged: tuple[str, ...]
    n_items: int
    n_no_value: int
    calls: int
    cost: float | None
    stopped: str
    results: tuple[JudgeResults, ...] = field(repr=False, default=())

    @property
    def mean(self) -> float | None:
        """The estimated mean over every item."""
        return self.estimate.mean

    @property
    def ci(self) -> tuple[float, float] | None:
        """Its interval."""
        return self.estimate.ci

    def __str__(self) -> str:
        cost = "" if self.cost is None else f", cost {self.cost:.4f}"
        missing = f", {self.n_no_value} without a value" if self.n_no_value else ""
        return (
            f"{self.metric}: {self.estimate} ({len(self.judged)} of {self.n_items} items "
            f"judged{missing}, {self.calls} calls{cost}; stopped: {self.stopped})"
        )


def _keys(
    spec: Sequence[Any] | Callable[[Sample], Any] | None, samples: list[Sample], what: str
) -> list[Any]:
    if spec is None:
        return [None] * len(samples)
    if callable(spec):
        return [spec(sample) for sample in samples]
    values = list(spec)
    if len(values) != len(samples):
        raise InvalidInputError(f"{what} has {len(values)} entries for {len(samples)} samples")
    return values


def evaluate_within_budget(
    samples: Any,
    metric: Any,
    *,
    judge: Any = None,
    max_calls: int | None = None,
    max_cost: float | None = None,
    ci_width: float | None = None,
    strata: Sequence[Hashable] | Callable[[Sample], Hashable] | None = None,
    proxy: Sequence[float] | Callable[[Sample], float] | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    min_per_stratum: int = 5,
    min_pilot: int = 100,
    **options: Any,
) -> BudgetedEstimate:
    """Estimate ``metric``'s mean over every sample from a stratified sample judged within a
    budget or until the interval is ``ci_width`` wide (see the module's docstring).

    Parameters
    ----------
    samples
        Every item (as ``evaluate`` takes them); each needs an ``id``.
    metric
        One metric (a name or a :class:`~ragmeter.judges.Metric`).
    judge
        As for :func:`~ragmeter.judges.evaluate`.
    max_calls, max_cost, ci_width
        The budget (calls sent, or cost with ``prices=``) and the target width of the
        interval (its full width); at least one.
    strata
        A stratum key per sample, or ``sample -> key`` (a topic, a system); ``None``:
        one stratum.
    proxy
        A cheap value per sample, or ``sample -> value``, on the metric's scale (another
        judge's, a lexical score): the difference estimator uses it (see
        :mod:`ragmeter.stats.sampling`).
    confidence, seed, min_per_stratum, min_pilot
        The interval's coverage, the sampling order, and the pilot wave (see
        :class:`~ragmeter.stats.sampling.SequentialPlan`).
    options
        Passed to :func:`~ragmeter.judges.evaluate` (``cache=``, to extend a run later;
        ``prices=``, for ``max_cost``; ``batch=``...).

    Returns
    -------
    BudgetedEstimate
        The estimate, what was judged and why the waves stopped.

    Raises
    ------
    InvalidInputError
        no budget and no target, samples without ids, strata or proxy of the wrong
        length, a cost budget without prices.

    Examples
    --------
    >>> from ragmeter.judges import RubricMetric, Sample, ScriptedJudge
    >>> rubric = RubricMetric("ok", "Is $answer right?", allowed_values=[0, 1])
    >>> judge = ScriptedJudge({"rubric_ok": {"value": 1, "reason": "right"}})
    >>> samples = [Sample("Q?", f"answer {i}", id=str(i)) for i in range(500)]
    >>> result = evaluate_within_budget(samples, rubric, judge=judge, max_calls=150,
    ...                                 min_pilot=50)
    >>> result.calls <= 150, len(result.judged) <= 150, result.mean
    (True, True, 1.0)
    """
    items = coerce_samples(samples)
    if any(not sample.id for sample in items):
        raise InvalidInputError("every sample needs an id (the budget's order follows them)")
    (the_metric,) = resolve_metrics([metric])
    if max_cost is not None and not options.get("prices"):
        raise InvalidInputError("max_cost needs prices= (the cost of a call)")
    if ci_width is not None and not ci_width > 0:
        raise InvalidInputError(f"ci_width must be > 0, got {ci_width!r}")
    keys = _keys(strata, items, "strata")
    proxies = None if proxy is None else [float(v) for v in _keys(proxy, items, "proxy")]
    options.setdefault("progress", False)
    plan = SequentialPlan(
        keys,
        proxy=proxies,
        max_calls=max_calls,
        max_cost=max_cost,
        half_width=None if ci_width is None else ci_width / 2.0,
        confidence=confidence,
        min_per_stratum=min_per_stratum,
        min_pilot=min_pilot,
        seed=seed,
    )
    waves: list[JudgeResults] = []
    judged: list[str] = []
    no_value = 0

    def observe(indices: Sequence[int]) -> tuple[list[float | None], int, float | None, int]:
        nonlocal no_value
        results = evaluate([items[i] for i in indices], [the_metric], judge=judge, **options)
        waves.append(results)
        values: list[float | None] = []
        charged = 0
        for i, row in zip(indices, results.rows, strict=True):
            judged.append(items[i].id or "")
            ok = row.status == "ok" and row.value is not None
            no_value += not ok
            values.append(row.value if ok else None)
            charged += row.total_usage().calls > 0
        return values, results.total_usage().calls, results.total_cost(), charged

    estimate = plan.run(observe)
    return BudgetedEstimate(
        metric=the_metric.name,
        estimate=estimate,
        judged=tuple(judged),
        n_items=len(items),
        n_no_value=no_value,
        calls=plan.calls,
        cost=plan.cost,
        stopped=plan.stopped or "",
        results=tuple(waves),
    )
