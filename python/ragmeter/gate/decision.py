"""The gate's decision: a decision rule over the comparison engine.

A gate tests a candidate against a baseline on the same queries (non-inferiority by a margin,
or superiority) and against absolute floors. Every check is a one-sided test of the table of
tests (:data:`~ragmeter.stats.TESTS`: the paired t-test by default, or any test of paired
differences: sign-flip, Wilcoxon, bootstrap) run by the engine
(:func:`ragmeter.stats.engine.run_tests`) on differences shifted by the check's threshold,
with the engine's alignment of queries (:func:`ragmeter.stats.engine.align`) and its
small-sample rules; the options are :class:`~ragmeter.stats.ComparisonOptions` (the gate's
own fields, the power of the "queries needed" figure and the spread of a flaky judged item,
in :class:`GateOptions`).

A check passes only when its test rejects "the candidate is worse than the threshold" at
``alpha`` (after the correction over every check): a gate never passes without evidence. A
failed check says which way it went: ``worse`` (the interval lies entirely below the
threshold: the candidate is worse by more than the margin), ``below`` (a floor shown not met)
or ``inconclusive`` (the interval straddles the threshold, or the test is undefined: not
enough queries for it), with the number of queries the test would need
(:func:`~ragmeter.stats.power.queries_needed`, one-sided). Differences that do not vary give
the t-test no variance: its p-value is then the exact sign-flip test's (``1 / 2^n``), so 2
equal differences never pass at 0.05, and many do.

Multiplicity: the gate passes when every check passes (an intersection-union test; Berger,
"Multiparameter hypothesis testing and acceptance sampling", Technometrics 24, 1982), so
the chance of passing a gate whose candidate is in truth worse on some metric is at most
``alpha`` even without a correction. The default Holm correction (Holm 1979) also keeps the
chance that any one reported per-metric pass is wrong at ``alpha``; ``correction=None``
gives the uncorrected (more powerful) intersection-union gate.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from .._nan_equal import canonical
from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_clusters
from ..stats._arguments import check_level
from ..stats.clustered import cluster_mean, clusters_note, design_effects
from ..stats.engine import (
    UnpairedQueriesError,
    align,
    aligned_clusters,
    check_comparable,
    run_tests,
)
from ..stats.multiple import adjust_p_values
from ..stats.options import ComparisonOptions
from ..stats.paired import ZERO_VARIANCE, t_rows
from ..stats.power import queries_needed
from ..stats.pvalues import bound_p_values
from ..stats.registry import TESTS, find_test
from ..stats.repeated import variance_components
from .inputs import GateValues, gate_values
from .results import CheckKind, GateCheck, GateResult, Outcome, plain_text

__all__ = ["GateOptions", "check_compatible", "gate", "gate_tests", "queries_needed"]
# queries_needed is ragmeter.stats.power's, re-exported: the gate's "queries needed" figure.


def gate_tests() -> dict[str, str]:
    """The tests a gate decides with: every test of the table that tests paired differences
    one-sidedly (name -> what it assumes), in the table's order. The CLI's ``--test`` choices
    and the docs read it."""
    return {name: test.assumes for name, test in TESTS.items() if test.one_sided}


#: The options of ComparisonOptions a gate does not use, with the value it needs.
_NOT_USED = {"family": "all", "baseline": None, "margin": 0.0}


@dataclass(frozen=True)
class GateOptions(ComparisonOptions):
    """How a gate tests: :class:`~ragmeter.stats.ComparisonOptions` with the gate's defaults
    and its own two fields, validated once.

    The comparison's fields mean what they mean for ``compare``: ``test`` (default ``"t"``,
    the one-sided paired t-test; any test of :func:`gate_tests`: ``"sign-flip"``,
    ``"wilcoxon"``, ``"bootstrap"``), ``alpha`` (the level of every check: the chance of
    passing a candidate that is in truth worse by the margin; below 0.5), ``correction``
    (``"holm"`` by default, over every check), ``missing``, ``method``, ``n_resamples``,
    ``random_state``, ``n_threads``. ``alternative`` is ``"greater"`` (every check tests
    ``H0: mean <= threshold``); ``confidence_level`` is left None: a check's interval is the
    t interval at ``1 - 2 alpha``, whose low end is the one-sided ``1 - alpha`` bound. The
    comparison's ``family``, ``baseline`` and ``margin`` are not the gate's (its margins are
    per metric: :func:`gate`'s ``margin``/``margins``) and must keep their defaults.

    Parameters
    ----------
    power
        The power the "queries needed" figure plans for (0.8).
    flaky_spread
        A judged item is flaky when its repeats differ by more than this (0: any
        disagreement).

    Raises
    ------
    InvalidInputError
        An unknown test or one without a one-sided form, a correction, missing policy or
        level out of range, a bad resample count, seed or spread, an option the gate does
        not use.
    """

    test: str = "t"
    correction: str | None = "holm"
    confidence_level: float | None = None
    alternative: str = "greater"
    power: float = 0.8
    flaky_spread: float = 0.0

    def __post_init__(self) -> None:
        """Check every option (see the class documentation): the comparison's through
        :class:`~ragmeter.stats.ComparisonOptions` (so both refuse the same values with the
        same messages), then the gate's."""
        for name, needed in _NOT_USED.items():
            if canonical(getattr(self, name)) != canonical(needed):
                raise InvalidInputError(
                    f"{name}: the gate does not use it (its margins are per metric: "
                    f"gate(margin=..., margins=...)), got {getattr(self, name)!r}"
                )
        if self.alternative != "greater":
            raise InvalidInputError(
                "alternative: every check of a gate tests H0: mean <= threshold against "
                f"'greater' (use superiority=True or a floor), got {self.alternative!r}"
            )
        if self.confidence_level is not None:
            raise InvalidInputError(
                "confidence_level: a check's interval is the t interval at 1 - 2 alpha (its "
                f"low end is the one-sided bound); leave it None, got {self.confidence_level!r}"
            )
        if not find_test(self.test).one_sided:
            raise InvalidInputError(
                f"test: the gate tests with a one-sided test of paired differences: "
                f"{', '.join(map(repr, gate_tests()))}; got {self.test!r}"
            )
        super().__post_init__()
        if not self.alpha < 0.5:
            raise InvalidInputError(
                f"alpha: a one-sided test at alpha {self.alpha!r} >= 0.5 passes without "
                "evidence; use a level such as 0.05"
            )
        check_level("power", self.power)
        spread = self.flaky_spread
        if isinstance(spread, bool) or not isinstance(spread, int | float) or not spread >= 0:
            raise InvalidInputError(f"flaky_spread: must be a number >= 0, got {spread!r}")

    @property
    def interval_level(self) -> float:
        """The level of every check's two-sided t interval: ``1 - 2 alpha``."""
        return 1.0 - 2.0 * self.alpha

    def comparison_options(self, margin: float = 0.0) -> ComparisonOptions:
        """The same settings as a two-sided :class:`~ragmeter.stats.ComparisonOptions`, to
        follow a gate with a ``compare`` of the same systems (intervals at ``1 - alpha``).

        Parameters
        ----------
        margin
            The margin the comparison's tables mark.

        Returns
        -------
        ComparisonOptions
            The options.
        """
        return ComparisonOptions(
            test=self.test,
            correction=self.correction,
            alpha=self.alpha,
            confidence_level=1.0 - self.alpha,
            method=self.method,
            n_resamples=self.n_resamples,
            random_state=self.random_state,
            missing=self.missing,
            margin=margin,
            n_threads=self.n_threads,
        )


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in dict.fromkeys([*a, *b]):
            # Keys come from the files' manifests: written so that they cannot break a line.
            name = plain_text(str(key))
            if key not in a or key not in b:
                return f"{where}{name} (only one has it)"
            found = _first_difference(a[key], b[key], f"{where}{name}.")
            if found:
                return found
        return None
    if canonical(a) == canonical(b) or a == b:
        return None
    return f"{where.rstrip('.')}: {a!r} vs {b!r}"


def check_compatible(
    candidate: GateValues, baseline: GateValues, metrics: Iterable[str]
) -> list[str]:
    """Refuse a comparison whose values do not mean the same thing; return notes.

    Refused (an :class:`~ragmeter.InvalidInputError` naming the difference): a metric whose
    definition differs (family, depth, parameters, gains, relevance threshold...), evaluation
    settings that differ (``relevance_threshold``, ``zero_division``: the engine's one check,
    :func:`ragmeter.stats.engine.check_comparable`), judges whose identity differs (judge,
    model, prompts, metric definitions of the run manifests). Noted: different ragmeter
    versions, judges known for one system only.
    """
    notes = []
    for metric in metrics:
        a, b = baseline.definition(metric), candidate.definition(metric)
        if a is not None and b is not None:
            difference = _first_difference(a, b)
            if difference:
                raise InvalidInputError(
                    f"{metric!r} is not defined the same way for the baseline and the candidate "
                    f"({difference}, baseline vs candidate): their values do not mean the same "
                    "thing; evaluate both with the same measure definition (store a new "
                    "baseline if the definition changed on purpose)"
                )
    notes += check_comparable(
        {"the baseline": baseline.settings, "the candidate": candidate.settings}
    )
    if baseline.judges is not None and candidate.judges is not None:
        difference = _first_difference(dict(baseline.judges), dict(candidate.judges))
        if difference:
            raise InvalidInputError(
                f"the baseline and the candidate were judged differently ({difference}, "
                "baseline vs candidate): a change of judge, model or prompt changes the scores "
                "by itself; judge both with the same judges (or store a new baseline). A "
                "judge is known by its kind, name, model, prompts and the identity= given to "
                "its client, never by its URL or port"
            )
    elif (baseline.judges is None) != (candidate.judges is None):
        which = "baseline" if baseline.judges is not None else "candidate"
        notes.append(
            f"only the {which} says which judges scored it: the judges could not be compared"
        )
    if (
        baseline.ragmeter_version
        and candidate.ragmeter_version
        and baseline.ragmeter_version != candidate.ragmeter_version
    ):
        notes.append(
            f"the baseline was computed by ragmeter {baseline.ragmeter_version}, the candidate "
            f"by {candidate.ragmeter_version}"
        )
    return notes


# -- what to check ------------------------------------------------------------------------------


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputTypeError(f"{what}: expected a number, got {value!r}")
    return float(value)


def _margins(
    metrics: list[str],
    margin: Any,
    margins: Mapping[str, Any] | None,
    superiority: bool,
) -> dict[str, float]:
    chosen: dict[str, float] = {}
    for metric in margins or {}:
        if metric not in metrics:
            raise InvalidInputError(
                f"margins: {metric!r} is not one of the gated metrics {metrics}; add it to "
                "metrics or drop its margin"
            )
    for metric in metrics:
        value = (margins or {}).get(metric, margin)
        if value is None:
            if superiority:
                value = 0.0
            else:
                raise InvalidInputError(
                    f"margin: give the margin of {metric!r}: the largest drop you accept, in "
                    "the metric's unit (margin=0.01 accepts the candidate unless it is shown "
                    "worse by 0.01 or more; margins={metric: value} per metric; CLI: --margin "
                    "0.01 or --margin-for METRIC=VALUE)"
                )
        size = _number(value, f"margin of {metric!r}")
        if not math.isfinite(size) or size < 0:
            direction = "a gain the candidate must show" if superiority else "the drop you accept"
            raise InvalidInputError(
                f"margin of {metric!r}: {size!r} is not a size >= 0. A margin is {direction}, "
                "in the metric's unit (0.01); the direction comes from the test, so give it "
                "without a sign"
            )
        chosen[metric] = size
    return chosen


def _check_unit(metric: str, margin: float, *arrays: np.ndarray) -> None:
    """Refuse a margin at least the metric's range ([0, 1] when every value lies there)."""
    values = np.concatenate([a[~np.isnan(a)] for a in arrays])
    if values.size == 0:
        return
    low, high = float(values.min()), float(values.max())
    if low >= 0.0 and high <= 1.0:
        low, high = 0.0, 1.0
    if high > low and margin >= high - low:
        raise InvalidInputError(
            f"margin of {metric!r}: {margin:g} is at least the metric's whole range "
            f"({low:g} to {high:g}), so no candidate could fail; margins are in the "
            "metric's unit, not in percent (0.01 is one point of a metric in [0, 1])"
        )


def _compared_metrics(
    base: GateValues | None,
    cand: GateValues,
    metrics: str | Iterable[str] | None,
    margin: Any,
    margins: Mapping[str, Any] | None,
    superiority: bool,
    floors: Mapping[str, Any],
) -> list[str]:
    if base is None:
        if margin is not None or margins or metrics is not None:
            raise InvalidInputError(
                "baseline: comparing metrics needs a baseline; give one, or check only "
                "floors={metric: value}"
            )
        compared: list[Any] = []
    elif metrics is None and margin is None and not margins and not superiority and floors:
        compared = []  # floors only, against no margin: nothing to compare
    elif metrics is None:
        compared = (
            list(margins) if margins else [m for m in base.values.metric_names if m in cand.values]
        )
    else:
        compared = [metrics] if isinstance(metrics, str) else list(metrics)
    for metric in compared:
        if not isinstance(metric, str):
            raise InputTypeError(f"metrics: a metric name is a str, got {metric!r}")
    if len(set(compared)) != len(compared):
        raise InvalidInputError(f"metrics: {compared} names a metric more than once")
    if not compared and not floors:
        raise InvalidInputError(
            "nothing to check: give metrics with a margin to compare with the baseline, or "
            "floors={metric: value}"
        )
    for metric in compared:
        for label, values in (("baseline", base), ("candidate", cand)):
            assert values is not None
            if metric not in values.values:
                raise InvalidInputError(
                    f"metrics: {metric!r} is not in the {label}'s results (they hold "
                    f"{list(values.values.metric_names)}); name a metric they hold, or evaluate "
                    "it"
                )
    for metric, value in floors.items():
        if metric not in cand.values:
            raise InvalidInputError(
                f"floors: {metric!r} is not in the candidate's results (they hold "
                f"{list(cand.values.metric_names)})"
            )
        if not math.isfinite(_number(value, f"floors: the floor of {metric!r}")):
            raise InvalidInputError(
                f"floors: the floor of {metric!r} must be finite, got {value!r}"
            )
    return compared


# -- the checks -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tested:
    """The engine's one-sided tests of some checks, and the t intervals the decision reads:
    one entry per check (``(n_checks,)`` arrays)."""

    kind: list[CheckKind]
    metric: list[str]
    threshold: np.ndarray
    margin: list[float | None]
    n: np.ndarray
    n_left_out: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    candidate_mean: np.ndarray
    baseline_mean: list[float | None]
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    method: list[str]
    worst: list[Worst]
    flaky: list[tuple[tuple[str, Any, tuple[float, ...]], ...]]
    judge_variance: list[dict[str, float]]
    failed: list[dict[str, tuple[Any, ...]]]
    clusters_note: str | None = None


def _flaky(
    values: GateValues, label: str, metric: str, items: Iterable[Any], spread: float
) -> tuple[list[tuple[str, Any, tuple[float, ...]]], float | None]:
    """The flaky items (repeats that differ by more than ``spread``) and the within-item
    (judge) variance component of the repeats (:func:`~ragmeter.stats.repeated`:
    MSW; None without an item of two defined repeats)."""
    repeats = values.repeats.get(metric, {})
    wanted = set(items)
    flaky, repeated = [], []
    for item, scores in repeats.items():
        if item not in wanted:
            continue
        defined = [s for s in scores if not math.isnan(s)]
        if len(defined) >= 2:
            repeated.append(defined)
            if max(defined) - min(defined) > spread:
                flaky.append((label, item, scores))
    flaky.sort(key=lambda entry: -(max(entry[2]) - min(entry[2])))
    within = variance_components(repeated).within if repeated else None
    return flaky, within


Worst = tuple[tuple[Any, float, float, float | None], ...]


def _worst(
    ids: list[Any], tested: np.ndarray, c: np.ndarray, b: np.ndarray | None, below: float
) -> Worst:
    """Up to 5 items that went most the wrong way: ``(item, value, candidate, baseline)``."""
    defined = ~np.isnan(tested)
    order = np.argsort(np.where(defined, tested, np.inf), kind="stable")
    return tuple(
        (ids[i], float(tested[i]), float(c[i]), None if b is None else float(b[i]))
        for i in order[:5]
        if defined[i] and tested[i] < below
    )


def _test(
    values: np.ndarray,
    thresholds: np.ndarray,
    settings: GateOptions,
    clusters: np.ndarray | None = None,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """The engine's one-sided test of ``values`` (``[baseline, candidate]`` x metrics x
    items) against the thresholds, and the t intervals at ``1 - 2 alpha``."""
    outcome = run_tests(
        values, [(1, 0)], settings, null_difference=thresholds, correct=False, clusters=clusters
    )
    with np.errstate(invalid="ignore"):
        d = values[1] - values[0]
    _n, _mean, _t, _p, low, high, _size = t_rows(d, settings.interval_level)
    if clusters is not None and settings.statistical_test.requires_clusters:
        # The test's own intervals: cluster-robust, at the same level.
        for m, row in enumerate(d):
            keep = ~np.isnan(row)
            if keep.sum() >= 2 and np.unique(clusters[keep]).size >= 2:
                found = cluster_mean(row[keep], clusters[keep], confidence=settings.interval_level)
                low[m], high[m] = found.ci
    return outcome, low, high


def _clusters_note(
    values: np.ndarray,
    clusters: np.ndarray | None,
    metrics: list[str],
    settings: GateOptions,
    of: str = "the mean difference",
) -> str | None:
    """What the gate's report says of the clusters (None without): whether the test uses them,
    their count and each metric's design effect."""
    if clusters is None:
        return None
    effects = design_effects(dict(zip(metrics, values, strict=True)), clusters.tolist())
    spec = settings.statistical_test
    return clusters_note(
        int(clusters.size),
        int(np.unique(clusters).size),
        spec.name,
        spec.requires_clusters,
        {m: [e] for m, e in effects.items()},
        of=of,
    )


def _comparisons(
    cand: GateValues,
    base: GateValues,
    labels: tuple[str, str],
    compared: list[str],
    margins: dict[str, float],
    superiority: bool,
    settings: GateOptions,
) -> tuple[_Tested, dict[str, tuple[Any, ...]]]:
    """The non-inferiority or superiority checks of ``compared``."""
    cand_label, base_label = labels
    try:
        aligned = align(
            {base_label: base.values, cand_label: cand.values},
            compared,
            settings.missing,
            settings={base_label: base.settings, cand_label: cand.settings},
        )
    except UnpairedQueriesError as error:
        raise InvalidInputError(
            f"the gate pairs queries and needs the baseline and the candidate evaluated on the "
            f"same queries: {error.detail}. Evaluate both on one query set, or test on the "
            "shared queries with missing='skip' (CLI: --missing skip; the report lists what "
            "was left out)."
        ) from None
    values, ids = aligned.values, aligned.query_ids
    for m, metric in enumerate(compared):
        _check_unit(metric, margins[metric], values[0, m], values[1, m])
    sign = 1.0 if superiority else -1.0
    thresholds = np.array([sign * margins[m] for m in compared])
    outcome, low, high = _test(values, thresholds, settings, aligned.clusters)
    kind: CheckKind = "superiority" if superiority else "non-inferiority"
    worst, flaky, variance, failed = [], [], [], []
    for m, metric in enumerate(compared):
        b, c = values[0, m], values[1, m]
        with np.errstate(invalid="ignore"):
            worst.append(_worst(ids, c - b, c, b, 0.0))
        flaky_c, var_c = _flaky(cand, cand_label, metric, ids, settings.flaky_spread)
        flaky_b, var_b = _flaky(base, base_label, metric, ids, settings.flaky_spread)
        flaky.append(tuple(flaky_c + flaky_b))
        variance.append(
            {name: v for name, v in ((cand_label, var_c), (base_label, var_b)) if v is not None}
        )
        shared = set(ids)
        found = {
            name: tuple(q for q in values_.failed.get(metric, ()) if q in shared)
            for name, values_ in ((cand_label, cand), (base_label, base))
        }
        failed.append({k: v for k, v in found.items() if v})
    n = outcome.n_pairs[0]
    note = _clusters_note(values[1] - values[0], aligned.clusters, compared, settings)
    return (
        _Tested(
            kind=[kind] * len(compared),
            metric=list(compared),
            threshold=thresholds,
            margin=[margins[m] for m in compared],
            n=n,
            n_left_out=len(ids) - n,
            mean=outcome.delta[0],
            sd=outcome.sd[0],
            candidate_mean=outcome.candidate_mean[0],
            baseline_mean=[float(x) for x in outcome.baseline_mean[0]],
            ci_low=low,
            ci_high=high,
            p_value=outcome.p_value[0],
            method=[str(x) or settings.test for x in outcome.methods[0]],
            worst=worst,
            flaky=flaky,
            judge_variance=variance,
            failed=failed,
            clusters_note=note,
        ),
        aligned.excluded,
    )


def _floors(
    cand: GateValues, label: str, floors: dict[str, float], settings: GateOptions
) -> _Tested:
    """The floor checks: the candidate's values against a baseline of zeros, shifted by the
    floor (``H0: mean(candidate) <= floor``)."""
    metrics = list(floors)
    ids = list(cand.values.query_ids)
    v = np.array([cand.values.array(m) for m in metrics], dtype=np.float64).reshape(
        len(metrics), len(ids)
    )
    values = np.stack([np.zeros_like(v), v])
    thresholds = np.array([floors[m] for m in metrics], dtype=np.float64)
    clusters = aligned_clusters({label: cand.values}, ids)
    outcome, low, high = _test(values, thresholds, settings, clusters)
    worst, flaky, variance, failed = [], [], [], []
    for m, metric in enumerate(metrics):
        worst.append(_worst(ids, v[m], v[m], None, float(floors[metric])))
        flaky_m, var_m = _flaky(cand, label, metric, ids, settings.flaky_spread)
        flaky.append(tuple(flaky_m))
        variance.append({} if var_m is None else {label: var_m})
        items = tuple(cand.values.failed.get(metric, ()))
        failed.append({label: items} if items else {})
    n = outcome.n_pairs[0]
    note = _clusters_note(v, clusters, metrics, settings, of="the mean")
    return _Tested(
        kind=["floor"] * len(metrics),
        metric=metrics,
        threshold=thresholds,
        margin=[None] * len(metrics),
        n=n,
        n_left_out=len(ids) - n,
        mean=outcome.delta[0],
        sd=outcome.sd[0],
        candidate_mean=outcome.delta[0],
        baseline_mean=[None] * len(metrics),
        ci_low=low,
        ci_high=high,
        p_value=outcome.p_value[0],
        method=[str(x) or settings.test for x in outcome.methods[0]],
        worst=worst,
        flaky=flaky,
        judge_variance=variance,
        failed=failed,
        clusters_note=note,
    )


# -- the decision ---------------------------------------------------------------------------------


def _p_value_note(p: float, n: int, sd: float, mean: float, test: str) -> str | None:
    """What a reader must know of a check's p-value: why it is undefined (fewer items than
    the test needs), or, for the t-test of differences that do not vary, where it comes from."""
    spec = TESTS[test]
    if math.isnan(p):
        if n < spec.min_pairs:
            return (
                f"not enough queries: the {spec.title_for('greater')} needs at least "
                f"{spec.min_pairs}, there {'is' if n == 1 else 'are'} {n}"
            )
        return "the test is undefined on these values"
    if test == "t" and n >= 2 and not sd > ZERO_VARIANCE * abs(mean):
        return (
            f"the differences do not vary (sd {sd:.3g}): the t statistic is infinite; the "
            f"p-value is the exact sign-flip test's of {n} equal differences (1 / 2^{n}), "
            "never 0"
        )
    return None


def _outcome(kind: CheckKind, passed: bool, ci_high: float, threshold: float) -> Outcome:
    if passed:
        return "pass"
    if ci_high < threshold:
        return "below" if kind == "floor" else "worse"
    return "inconclusive"


def _planning_mean(kind: CheckKind, mean: float, threshold: float) -> float | None:
    """The true mean the "queries needed" figure assumes: the observed one when it is above
    the threshold; for non-inferiority an observed drop below the margin is planned as no
    difference (0): how many queries would show a candidate that is as good as the baseline."""
    if math.isnan(mean):
        return None
    if mean > threshold:
        return mean
    if kind == "non-inferiority" and threshold < 0:
        return 0.0
    return None


def _decide(parts: list[_Tested], settings: GateOptions) -> list[GateCheck]:
    """Every check's decision, the p-values corrected over all of them."""
    p_values = np.concatenate([part.p_value for part in parts])
    if settings.correction is None or p_values.size == 1:
        adjusted = p_values.copy()
    else:
        adjusted = bound_p_values(adjust_p_values(p_values, settings.correction))  # type: ignore[arg-type]
    alpha = settings.alpha
    checks = []
    position = 0
    for part in parts:
        for i, metric in enumerate(part.metric):
            p, p_adjusted = float(part.p_value[i]), float(adjusted[position])
            position += 1
            n, mean, sd = int(part.n[i]), float(part.mean[i]), float(part.sd[i])
            kind, threshold = part.kind[i], float(part.threshold[i])
            note = _p_value_note(p, n, sd, mean - threshold, settings.test)
            passed = bool(not math.isnan(p_adjusted) and p_adjusted <= alpha)
            outcome = _outcome(kind, passed, float(part.ci_high[i]), threshold)
            planning = _planning_mean(kind, mean, threshold) if outcome == "inconclusive" else None
            needed = (
                None
                if planning is None
                else queries_needed(planning - threshold, sd, alpha=alpha, power=settings.power)
            )
            checks.append(
                GateCheck(
                    metric=metric,
                    kind=kind,
                    margin=part.margin[i],
                    threshold=threshold,
                    n=n,
                    n_left_out=int(part.n_left_out[i]),
                    mean=mean,
                    sd=sd,
                    candidate_mean=float(part.candidate_mean[i]),
                    baseline_mean=part.baseline_mean[i],
                    ci_low=float(part.ci_low[i]),
                    ci_high=float(part.ci_high[i]),
                    confidence_level=settings.interval_level,
                    p_value=p,
                    p_adjusted=p_adjusted,
                    passed=passed,
                    outcome=outcome,
                    queries_needed=needed,
                    planning_mean=planning if needed is not None else None,
                    method=part.method[i],
                    worst=part.worst[i],
                    flaky=part.flaky[i],
                    judge_variance=part.judge_variance[i],
                    failed=part.failed[i],
                    p_value_note=note,
                )
            )
    return checks


def _options(options: Any, option_values: Mapping[str, Any]) -> GateOptions:
    settings = options if options is not None else GateOptions()
    if not isinstance(settings, GateOptions):
        raise InputTypeError(f"options: expected GateOptions, got {type(settings).__name__}")
    if option_values:
        known = {f.name for f in fields(GateOptions)}
        unknown = set(option_values) - known
        if unknown:
            raise InputTypeError(f"gate() got unexpected keyword arguments {sorted(unknown)}")
        settings = replace(settings, **option_values)
    return settings


def gate(
    candidate: Any,
    baseline: Any = None,
    *,
    metrics: str | Iterable[str] | None = None,
    margin: float | None = None,
    margins: Mapping[str, float] | None = None,
    superiority: bool = False,
    floors: Mapping[str, float] | None = None,
    options: GateOptions | None = None,
    candidate_name: str | None = None,
    baseline_name: str | None = None,
    clusters: Mapping[Any, Any] | str | os.PathLike[str] | None = None,
    **option_values: Any,
) -> GateResult:
    """Decide whether a candidate may replace a baseline: paired one-sided tests on the same
    queries, metric by metric, and absolute floors.

    For each metric, with ``d_i = candidate_i - baseline_i`` over the queries both hold:

    * non-inferiority (default): ``H0: mean(d) <= -margin``; the check passes when H0 is
      rejected at ``alpha`` (corrected over every check), i.e. the candidate is shown not to
      be worse by the margin or more;
    * ``superiority=True``: ``H0: mean(d) <= margin`` (default margin 0): the candidate is
      shown better by more than the margin;
    * ``floors={metric: value}``: ``H0: mean(candidate) <= value`` on the candidate's own
      values (also without a baseline).

    The test (``options.test``, a test of the table with a one-sided form: :func:`gate_tests`)
    is run by the comparison engine on the differences shifted by the threshold
    (``alternative="greater"``): the one-sided paired t-test by default
    (``scipy.stats.ttest_rel(candidate, baseline + threshold, alternative="greater")``), the
    sign-flip test (exact up to 16 queries), the Wilcoxon test or the bootstrap. Every check
    carries the t interval at ``1 - 2 alpha`` (its low end is the one-sided bound the t
    decision compares with the threshold). A query where a value is undefined (NaN: undefined
    metric, failed judge call) is left out of that metric and counted. Judged items with
    repeats are tested on their means (so the judge's variance is in the spread), and an item
    whose repeats disagree is reported. A check whose test is undefined (fewer queries than
    the test needs) never passes, and says why; for the t-test of differences that do not
    vary the p-value is the exact sign-flip test's of equal differences (``1 / 2^n``).

    Parameters
    ----------
    candidate, baseline
        Per-query results of each system (anything :func:`~ragmeter.gate.gate_values`
        reads). ``baseline`` may be None when only ``floors`` are checked.
    metrics
        The metrics to compare (default: those of ``margins``, else every metric both hold;
        none when only ``floors`` are given without a margin).
    margin
        The margin of every metric, in the metric's unit (``0.01``): a size >= 0, less than
        the metric's range.
    margins
        Per-metric margins, overriding ``margin``.
    superiority
        Test for a gain larger than the margin instead of a drop smaller than it.
    floors
        ``{metric: value}``: the candidate's mean must be shown above ``value``.
    options
        :class:`GateOptions`; keyword arguments (``test=``, ``alpha=``, ``correction=``,
        ``missing=``...) replace its fields.
    candidate_name, baseline_name
        Names in the report (default: the names the results carry, else "candidate" and
        "baseline").
    clusters
        Each query's cluster, ``{query_id: cluster}`` or the path of a file with
        ``query_id`` and ``cluster`` columns (:func:`ragmeter.io.read_clusters`), attached to
        both sides' values (as ``compare(clusters=)`` does; a side that records other
        clusters is refused); the test is then ``"cluster-t"`` unless ``test=`` or
        ``options`` says otherwise. Clusters given or recorded are used by ``test="cluster-t"``;
        the result's notes give their count and each metric's design effect, and say so when
        the chosen test ignores them.

    Returns
    -------
    GateResult
        Every check; ``bool(result)`` is whether the gate passed.

    Raises
    ------
    InvalidInputError
        No check, a metric not in the results, a margin that is negative, not finite or at
        least the metric's range, queries only one system has (``missing="raise"``),
        metric definitions, settings or judges that differ, bad options.

    Examples
    --------
    >>> baseline = {"ndcg@10": {f"q{i}": 0.5 + 0.01 * (i % 7) for i in range(40)}}
    >>> candidate = {"ndcg@10": {f"q{i}": 0.5 + 0.01 * (i % 5) for i in range(40)}}
    >>> result = gate(candidate, baseline, margin=0.02)
    >>> result.passed, result.checks[0].outcome
    (True, 'pass')
    >>> check = result.checks[0]
    >>> round(check.mean, 4), round(check.ci_low, 4), round(check.p_value, 4)
    (-0.0088, -0.015, 0.0021)
    """
    if clusters is not None and options is None and "test" not in option_values:
        option_values = {**option_values, "test": "cluster-t"}
    settings = _options(options, option_values)
    cand = gate_values(candidate, candidate_name, where="candidate")
    base = None if baseline is None else gate_values(baseline, baseline_name, where="baseline")
    if clusters is not None:
        given = read_clusters(clusters)
        cand = replace(cand, values=cand.values.with_clusters(given))
        base = None if base is None else replace(base, values=base.values.with_clusters(given))
    cand_label = cand.name or "candidate"
    base_label = None if base is None else (base.name or "baseline")
    if base is not None and cand_label == base_label:
        base_label = f"{base_label} (baseline)"
    floor_values = dict(floors or {})
    compared = _compared_metrics(base, cand, metrics, margin, margins, superiority, floor_values)
    chosen = _margins(compared, margin, margins, superiority)
    notes: list[str] = []
    excluded: dict[str, tuple[Any, ...]] = {}
    parts: list[_Tested] = []
    if base is not None and compared:
        assert base_label is not None
        notes += check_compatible(cand, base, compared)
        tested, excluded = _comparisons(
            cand, base, (cand_label, base_label), compared, chosen, superiority, settings
        )
        parts.append(tested)
    if floor_values:
        parts.append(
            _floors(cand, cand_label, {m: float(v) for m, v in floor_values.items()}, settings)
        )
    checks = _decide(parts, settings)
    notes += [part.clusters_note for part in parts if part.clusters_note]
    return GateResult(
        checks=tuple(checks),
        candidate=cand_label,
        baseline=base_label,
        test=settings.test,
        alpha=settings.alpha,
        correction=settings.correction if len(checks) > 1 else None,
        power=settings.power,
        excluded=excluded,
        notes=tuple(notes),
        n_resamples=settings.n_resamples,
        random_state=settings.seed,
    )
