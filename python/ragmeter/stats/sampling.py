"""Estimating a finite population's mean from a stratified random sample, and planning one.

The population is every item a judge could score (``N`` items in strata ``h`` of ``N_h``);
the judge scores a simple random sample without replacement of ``n_h`` items in each stratum.
Two design-based estimators of the mean of the judge's values over all ``N`` items
(Cochran, *Sampling Techniques*, 3rd ed., Wiley 1977, ch. 5; Sarndal, Swensson & Wretman,
*Model Assisted Survey Sampling*, Springer 1992, sections 3.7 and 6.3):

- the **stratified mean**, ``sum_h W_h ybar_h`` with ``W_h = N_h / N``, variance
  ``sum_h W_h**2 (1 - n_h / N_h) s_h**2 / n_h`` (Cochran 1977, theorems 5.1-5.3);
- the **difference estimator** when a cheap proxy ``x`` is known for every item (another
  judge, a lexical score): ``sum_h W_h (Xbar_h + dbar_h)`` with ``d = y - x`` over the
  sample and ``Xbar_h`` the proxy's mean over the whole stratum; its variance is the
  stratified mean's with ``s_h`` of ``d`` (Sarndal et al. 1992, section 6.3). This is
  prediction-powered inference (Angelopoulos et al., *Science* 2023) for a finite population:
  the proxy's mean is known over every item instead of estimated from a second sample, and
  the finite-population correction ``1 - n_h / N_h`` applies. ``lam`` (PPI++'s power tuning,
  Angelopoulos, Duchi & Zrnic 2023) weighs the proxy: ``d = y - lam x``, estimator
  ``sum_h W_h (lam Xbar_h + dbar_h)``; ``lam = 1`` is the plain difference estimator.

The interval is ``estimate +- z sqrt(variance)`` (normal; strata with fewer than two sampled
items have no variance estimate and make the interval undefined). :class:`SequentialPlan`
samples in waves until the interval is as narrow as asked or the budget is spent: a pilot of
``min_per_stratum`` per stratum, then Neyman allocation (``n_h`` proportional to
``N_h s_h``, Cochran 1977 section 5.5) of the total the current variances say is needed. Each
stratum is sampled in one seeded order, so a larger budget judges a superset of the items a
smaller one did (a cache answers those again). Stopping when the interval is narrow enough
depends on the data, so its coverage is checked by simulation (``tests/stats``), not assumed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from .distributions import normal_quantile

__all__ = [
    "SequentialPlan",
    "StratifiedEstimate",
    "Wave",
    "neyman_allocation",
    "normal_quantile",
    "stratified_estimate",
]


@dataclass(frozen=True)
class StratifiedEstimate:
    """A population mean estimated from a stratified sample, with its normal interval.

    Attributes
    ----------
    method
        ``"stratified"`` (the stratified mean) or ``"difference"`` (with a proxy).
    mean
        The estimate (``None`` without any sampled value).
    ci
        ``(low, high)`` at ``confidence``; ``None`` when undefined (``reason``).
    confidence
        The interval's nominal coverage.
    variance
        The estimated variance of ``mean`` (``None`` when undefined).
    n_sampled
        Items with a value, over every stratum.
    n_population
        Items in the population.
    strata
        Per stratum: ``{"stratum", "N", "n", "mean", "sd"}`` (``mean`` of ``y`` or of
        ``d`` over the sample, ``sd`` with divisor ``n - 1``).
    lam
        The proxy's weight (difference estimator; ``None`` for the stratified mean).
    reason
        Why the interval (or the mean) is undefined.
    """

    method: str
    mean: float | None
    ci: tuple[float, float] | None
    confidence: float
    variance: float | None
    n_sampled: int
    n_population: int
    strata: tuple[Mapping[str, Any], ...] = ()
    lam: float | None = None
    reason: str | None = None

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (``None`` without an interval)."""
        return None if self.ci is None else (self.ci[1] - self.ci[0]) / 2.0

    def __str__(self) -> str:
        if self.mean is None:
            return f"{self.method}: undefined ({self.reason})"
        interval = (
            f"; no interval: {self.reason}"
            if self.ci is None
            else f", {self.confidence:.0%} CI [{self.ci[0]:.4f}, {self.ci[1]:.4f}]"
        )
        return (
            f"{self.method}: {self.mean:.4f}{interval} ({self.n_sampled} of "
            f"{self.n_population} items judged, {len(self.strata)} strata)"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "method": self.method,
            "mean": self.mean,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": self.confidence,
            "variance": self.variance,
            "n_sampled": self.n_sampled,
            "n_population": self.n_population,
            "strata": [dict(s) for s in self.strata],
            "lam": self.lam,
            "reason": self.reason,
        }


def _confidence(confidence: float) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 < confidence < 1.0)
    ):
        raise InvalidInputError(f"confidence must lie in (0, 1), e.g. 0.95, got {confidence!r}")
    return float(confidence)


def stratified_estimate(
    sampled: Mapping[Hashable, Sequence[float]],
    sizes: Mapping[Hashable, int],
    *,
    proxy_sampled: Mapping[Hashable, Sequence[float]] | None = None,
    proxy_means: Mapping[Hashable, float] | None = None,
    lam: float | str = 1.0,
    confidence: float = 0.95,
) -> StratifiedEstimate:
    """The stratified mean, or the difference estimator with a proxy (module docstring).

    Parameters
    ----------
    sampled
        ``{stratum: values of the sampled items}`` (a stratum may be empty).
    sizes
        ``{stratum: N_h}``, the number of items in each stratum (every stratum of
        the population, sampled or not).
    proxy_sampled, proxy_means
        With a proxy: its values on the sampled items (same order as ``sampled``) and
        its mean over every item of each stratum.
    lam
        The proxy's weight: a number, or ``"tuned"`` (``cov(y, x) / var(x)`` over the
        sample, clipped to [0, 1]: the variance-minimising weight).
    confidence
        The interval's nominal coverage.

    Returns
    -------
    StratifiedEstimate
        The estimate. A stratum of the population without a sampled value leaves its
        share unestimated: the mean and interval are then ``None`` with the reason.

    Raises
    ------
    InvalidInputError
        sizes that do not cover the sampled strata, more values than items, mismatched
        proxy values.

    Examples
    --------
    >>> est = stratified_estimate({"a": [1, 0, 1, 1], "b": [0, 0, 1]}, {"a": 40, "b": 60})
    >>> round(est.mean, 4), round(est.variance, 6)  # 0.4 x 0.75 + 0.6 x 1/3
    (0.5, 0.047)
    """
    chosen = _confidence(confidence)
    with_proxy = proxy_sampled is not None or proxy_means is not None
    if with_proxy and (proxy_sampled is None or proxy_means is None):
        raise InvalidInputError("a proxy needs both proxy_sampled and proxy_means")
    unknown = [h for h in sampled if h not in sizes]
    if unknown:
        raise InvalidInputError(f"sizes has no size for the strata {unknown[:3]}")
    total = sum(int(n) for n in sizes.values())
    if total <= 0:
        raise InvalidInputError("sizes must hold at least one item")
    ys = {h: np.asarray(sampled.get(h, ()), dtype=float) for h in sizes}
    xs: dict[Hashable, np.ndarray] = {}
    if with_proxy:
        assert proxy_sampled is not None and proxy_means is not None
        for h in sizes:
            xs[h] = np.asarray(proxy_sampled.get(h, ()), dtype=float)
            if len(xs[h]) != len(ys[h]):
                raise InvalidInputError(
                    f"stratum {h!r}: {len(ys[h])} values but {len(xs[h])} proxy values"
                )
            if len(ys[h]) and h not in proxy_means:
                raise InvalidInputError(f"proxy_means has no mean for stratum {h!r}")
    for h, values in ys.items():
        if len(values) > sizes[h]:
            raise InvalidInputError(
                f"stratum {h!r}: {len(values)} sampled values but only {sizes[h]} items"
            )
        if not np.all(np.isfinite(values)):
            raise InvalidInputError(f"stratum {h!r}: values must be finite numbers")
    weight = 1.0
    if with_proxy:
        if lam == "tuned":
            y_all = np.concatenate([ys[h] for h in sizes])
            x_all = np.concatenate([xs[h] for h in sizes])
            variance_x = float(np.var(x_all, ddof=1)) if len(x_all) > 1 else 0.0
            covariance = float(np.cov(y_all, x_all, ddof=1)[0, 1]) if len(x_all) > 1 else 0.0
            weight = min(1.0, max(0.0, covariance / variance_x)) if variance_x > 0 else 1.0
        elif isinstance(lam, int | float) and not isinstance(lam, bool) and math.isfinite(lam):
            weight = float(lam)
        else:
            raise InvalidInputError(f"lam must be a number or 'tuned', got {lam!r}")
    method = "difference" if with_proxy else "stratified"
    rows = []
    mean = 0.0
    variance = 0.0
    missing = []
    thin = []
    for h, size in sizes.items():
        w = size / total
        values = ys[h] - weight * xs[h] if with_proxy else ys[h]
        n = len(values)
        if n == 0:
            if size:
                missing.append(h)
            rows.append({"stratum": h, "N": int(size), "n": 0, "mean": None, "sd": None})
            continue
        level = float(values.mean())
        sd = float(values.std(ddof=1)) if n > 1 else None
        rows.append({"stratum": h, "N": int(size), "n": n, "mean": level, "sd": sd})
        shift = weight * float(proxy_means[h]) if with_proxy and proxy_means else 0.0
        mean += w * (shift + level)
        if n < size:
            if sd is None:
                thin.append(h)
            else:
                variance += w * w * (1.0 - n / size) * sd * sd / n
    n_sampled = sum(len(v) for v in ys.values())
    lam_out = weight if with_proxy else None
    if missing:
        return StratifiedEstimate(
            method,
            None,
            None,
            chosen,
            None,
            n_sampled,
            total,
            tuple(rows),
            lam_out,
            reason=f"no sampled value in the strata {missing[:5]}",
        )
    if thin:
        return StratifiedEstimate(
            method,
            mean,
            None,
            chosen,
            None,
            n_sampled,
            total,
            tuple(rows),
            lam_out,
            reason=f"one sampled value only in the strata {thin[:5]}: no variance estimate",
        )
    half = normal_quantile(1.0 - (1.0 - chosen) / 2.0) * math.sqrt(variance)
    return StratifiedEstimate(
        method,
        mean,
        (mean - half, mean + half),
        chosen,
        variance,
        n_sampled,
        total,
        tuple(rows),
        lam_out,
    )


def neyman_allocation(
    sizes: Mapping[Hashable, int],
    sds: Mapping[Hashable, float],
    n: int,
    *,
    floor: Mapping[Hashable, int] | None = None,
) -> dict[Hashable, int]:
    """Split ``n`` sampled items over strata in proportion to ``N_h * S_h`` (Neyman; Cochran
    1977, eq. 5.26), each at least ``floor[h]`` and at most ``N_h``, summing to
    ``min(n, N)``: largest remainders first, a stratum at its size giving its share to the
    others.

    Examples
    --------
    >>> neyman_allocation({"a": 100, "b": 100}, {"a": 0.1, "b": 0.3}, 40)
    {'a': 10, 'b': 30}
    """
    low = {h: min(int((floor or {}).get(h, 0)), int(sizes[h])) for h in sizes}
    target = min(int(n), sum(int(v) for v in sizes.values()))
    target = max(target, sum(low.values()))
    chosen = dict(low)
    open_ = [h for h in sizes if chosen[h] < sizes[h]]
    while sum(chosen.values()) < target and open_:
        left = target - sum(chosen.values())
        weights = {h: sizes[h] * max(float(sds.get(h, 0.0)), 0.0) for h in open_}
        if sum(weights.values()) <= 0:
            weights = {h: float(sizes[h]) for h in open_}
        total = sum(weights.values())
        ideal = {h: left * weights[h] / total for h in open_}
        grant = {h: min(math.floor(ideal[h]), sizes[h] - chosen[h]) for h in open_}
        rest = left - sum(grant.values())
        for h in sorted(open_, key=lambda k: ideal[k] - math.floor(ideal[k]), reverse=True):
            if rest <= 0:
                break
            if chosen[h] + grant[h] < sizes[h]:
                grant[h] += 1
                rest -= 1
        if not any(grant.values()):
            # Every remaining share rounds to zero: give the largest weights one each.
            for h in sorted(open_, key=lambda k: weights[k], reverse=True)[:left]:
                grant[h] = 1
        for h in open_:
            chosen[h] += grant[h]
        open_ = [h for h in open_ if chosen[h] < sizes[h]]
    return chosen


#: How many items' worth of weight the pooled variance has in a stratum's planned variance.
PRIOR_WEIGHT = 10


@dataclass(frozen=True)
class Wave:
    """What one wave of :class:`SequentialPlan` judged: the items, what they cost, and how
    many of them cost anything (the others were answered by a cache)."""

    items: tuple[int, ...]
    calls: int
    cost: float | None = None
    charged: int | None = None


#: ``observe(items) -> (values, calls, cost[, charged])``: the judge's value of each item
#: (``None`` when it has none), the calls it made, their cost (``None`` without prices) and,
#: optionally, how many items needed a call (default: every item).
Observer = Callable[[Sequence[int]], "tuple[Any, ...]"]


@dataclass
class SequentialPlan:
    """Sample strata in waves until the interval is narrow enough or the budget is spent.

    Parameters
    ----------
    strata
        One stratum key per item of the population (items are ``0 .. N - 1``).
    proxy
        A cheap value for every item (``None``: the stratified mean, no proxy).
    max_calls, max_cost
        The budget: a wave stays within what is left of it, at the calls (and cost) per
        item seen so far.
    half_width
        The target: stop once the interval's half width is at most this.
    confidence
        The interval's nominal coverage.
    min_per_stratum, min_pilot
        The pilot wave: at least ``min_per_stratum`` items of each stratum (>= 2, for a
        variance) and ``min_pilot`` in all, spread in proportion to the strata's sizes. A
        variance estimated from a handful of items is often far too small (a pass/fail
        judge that agrees with its proxy on five items shows no disagreement at all), and a
        plan that stops on it undercovers.
    overshoot
        A wave after the pilot takes this fraction more items than the current
        variances say the target needs, so that the interval usually meets the target at
        the first look after the pilot; stopping at whichever look first meets it, on
        variances estimated from the same data, otherwise favours the looks whose
        variance was underestimated (coverage below nominal).
    seed
        The order in which each stratum is sampled.
    lam
        The proxy's weight (see :func:`stratified_estimate`).
    """

    strata: Sequence[Hashable]
    proxy: Sequence[float] | None = None
    max_calls: int | None = None
    max_cost: float | None = None
    half_width: float | None = None
    confidence: float = 0.95
    min_per_stratum: int = 5
    min_pilot: int = 100
    overshoot: float = 0.1
    seed: int = 0
    lam: float | str = 1.0
    waves: list[Wave] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.max_calls is None and self.max_cost is None and self.half_width is None:
            raise InvalidInputError(
                "give a budget (max_calls=, max_cost=) or a target (half_width=)"
            )
        if self.half_width is not None and not self.half_width > 0:
            raise InvalidInputError(f"half_width must be > 0, got {self.half_width!r}")
        if self.min_per_stratum < 2:
            raise InvalidInputError("min_per_stratum must be at least 2 (a variance needs two)")
        if not self.overshoot >= 0:
            raise InvalidInputError(f"overshoot must be >= 0, got {self.overshoot!r}")
        if self.proxy is not None and len(self.proxy) != len(self.strata):
            raise InvalidInputError(
                f"proxy has {len(self.proxy)} values for {len(self.strata)} items"
            )
        _confidence(self.confidence)
        rng = np.random.default_rng(self.seed)
        groups: dict[Hashable, list[int]] = {}
        for i, h in enumerate(self.strata):
            groups.setdefault(h, []).append(i)
        self.order: dict[Hashable, np.ndarray] = {
            h: np.asarray(items)[rng.permutation(len(items))] for h, items in groups.items()
        }
        self.sizes = {h: len(items) for h, items in self.order.items()}
        self.taken = dict.fromkeys(self.order, 0)
        self._values = np.full(len(self.strata), np.nan)
        self._proxy = None if self.proxy is None else np.asarray(self.proxy, dtype=float)
        self._proxy_means = (
            None
            if self._proxy is None
            else {h: float(self._proxy[items].mean()) for h, items in self.order.items()}
        )
        self.calls = 0
        self.cost: float | None = None
        self.stopped: str | None = None

    @property
    def values(self) -> dict[int, float | None]:
        """``{item: value}`` of every item judged so far (``None``: no value)."""
        return {
            int(i): (None if math.isnan(self._values[i]) else float(self._values[i]))
            for h, items in self.order.items()
            for i in items[: self.taken[h]]
        }

    def estimate(self) -> StratifiedEstimate:
        """The estimate from every item judged so far (items without a value left out)."""
        sampled: dict[Hashable, Sequence[float]] = {}
        proxy_sampled: dict[Hashable, Sequence[float]] = {}
        for h, items in self.order.items():
            chosen = items[: self.taken[h]]
            values = self._values[chosen]
            keep = ~np.isnan(values)
            sampled[h] = values[keep]
            if self._proxy is not None:
                proxy_sampled[h] = self._proxy[chosen][keep]
        if self._proxy is None:
            return stratified_estimate(sampled, self.sizes, confidence=self.confidence)
        return stratified_estimate(
            sampled,
            self.sizes,
            proxy_sampled=proxy_sampled,
            proxy_means=self._proxy_means,
            lam=self.lam,
            confidence=self.confidence,
        )

    def _next_counts(self, estimate: StratifiedEstimate, cap: int) -> dict[Hashable, int]:
        """How many items of each stratum the next wave brings the sample to (at most
        ``cap`` in all): the pilot first, then the total the variances say is needed."""
        total = sum(self.sizes.values())
        if not self.waves:
            floor = {h: min(self.min_per_stratum, n) for h, n in self.sizes.items()}
            return neyman_allocation(
                self.sizes, dict.fromkeys(self.sizes, 1.0), self.min_pilot, floor=floor
            )
        sds = self._planning_sds(estimate)
        judged = sum(self.taken.values())
        needed = total
        if self.half_width is not None:
            # The total n the current variances say is needed (Cochran 1977, eq. 5.28 with
            # Neyman allocation and the finite-population correction).
            z = normal_quantile(1.0 - (1.0 - self.confidence) / 2.0)
            v = (self.half_width / z) ** 2
            weights = {h: self.sizes[h] / total for h in self.sizes}
            top = sum(weights[h] * sds[h] for h in self.sizes) ** 2
            bottom = v + sum(weights[h] * sds[h] ** 2 for h in self.sizes) / total
            needed = math.ceil(top / bottom * (1.0 + self.overshoot)) if bottom > 0 else total
            needed = max(needed, judged + 1)
        return neyman_allocation(self.sizes, sds, min(needed, cap), floor=self.taken)

    def _planning_sds(self, estimate: StratifiedEstimate) -> dict[Hashable, float]:
        """The strata's standard deviations the allocation and the needed total are planned
        with: each stratum's variance shrunk towards the pooled within-stratum variance,
        ``((n_h - 1) s_h**2 + k s_pooled**2) / (n_h - 1 + k)`` with ``k = PRIOR_WEIGHT``.
        A pilot of a few items per stratum often shows a variance of zero (no disagreement
        among five items); Neyman allocation would then never sample that stratum again and
        the interval would rest on its zero. Only the plan uses these; the estimate's own
        variance stays the design-based one."""
        rows = [r for r in estimate.strata if r["n"] >= 2 and r["sd"] is not None]
        df = sum(r["n"] - 1 for r in rows)
        pooled = sum((r["n"] - 1) * r["sd"] ** 2 for r in rows) / df if df else 0.0
        if pooled <= 0:
            return dict.fromkeys(self.sizes, 1.0)
        sds = {}
        for row in estimate.strata:
            n = int(row["n"])
            own = (row["sd"] or 0.0) ** 2
            k = PRIOR_WEIGHT
            sds[row["stratum"]] = math.sqrt(
                (max(n - 1, 0) * own + k * pooled) / (max(n - 1, 0) + k)
            )
        return sds

    def _room(self) -> int | None:
        """How many more items the budget pays for, at the calls (and cost) per item seen so
        far; ``None`` without a budget (or before the pilot)."""
        if not self.waves:
            return None
        # Per item that needed a call (a cache answers the others); before any, one call per
        # item is assumed.
        charged = sum(len(w.items) if w.charged is None else w.charged for w in self.waves)
        rooms = []
        if self.max_calls is not None:
            per_item = self.calls / charged if charged and self.calls else 1.0
            rooms.append(int((self.max_calls - self.calls) / per_item))
        if self.max_cost is not None:
            if self.cost:
                rooms.append(int((self.max_cost - self.cost) / (self.cost / charged)))
            elif charged and self.calls:
                return None  # calls were made but cost nothing: the cost cannot bound them
            else:
                rooms.append(int(self.max_cost / 1e-12) if self.max_cost > 0 else 0)
        return min(rooms) if rooms else None

    def run(self, observe: Observer) -> StratifiedEstimate:
        """Judge waves through ``observe`` until the target is met or the budget is spent;
        the final estimate (``stopped`` says why it stopped). The pilot wave is always
        judged; later waves stay within the budget."""
        estimate = self.estimate()
        while True:
            if (
                self.waves
                and self.half_width is not None
                and estimate.half_width is not None
                and estimate.half_width <= self.half_width
            ):
                self.stopped = "the interval is as narrow as asked"
                return estimate
            judged = sum(self.taken.values())
            room = self._room()
            if room is not None and room <= 0:
                self.stopped = "the budget is spent"
                return estimate
            cap = sum(self.sizes.values()) if room is None else judged + room
            counts = self._next_counts(estimate, cap)
            items = [
                int(i)
                for h, items_h in self.order.items()
                for i in items_h[self.taken[h] : counts[h]]
            ]
            if not items:
                self.stopped = "every item is judged"
                return estimate
            observed = observe(items)
            values, calls, cost = observed[0], observed[1], observed[2]
            charged = int(observed[3]) if len(observed) > 3 else None
            if len(values) != len(items):
                raise InvalidInputError(
                    f"observe returned {len(values)} values for {len(items)} items"
                )
            for i, value in zip(items, values, strict=True):
                self._values[i] = math.nan if value is None else float(value)
                self.taken[self.strata[i]] += 1
            self.calls += int(calls)
            if cost is not None:
                self.cost = (self.cost or 0.0) + float(cost)
            self.waves.append(Wave(tuple(items), int(calls), cost, charged))
            estimate = self.estimate()
            if self.half_width is None and self._room() is None:
                # A budget in cost without prices: nothing bounds the next wave.
                self.stopped = "no price to count the cost budget against"
                return estimate
