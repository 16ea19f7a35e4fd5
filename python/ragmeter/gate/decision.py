"""The gate's decision: non-inferiority or superiority of a candidate against a baseline on the
same queries, and absolute floors, each a one-sided test with its interval.

A check passes only when its test rejects "the candidate is worse than the threshold" at
``alpha`` (after the correction over every check): a gate never passes without evidence. A
failed check says which way it went: ``worse`` (the interval lies entirely below the
threshold: the candidate is worse by more than the margin), ``below`` (a floor shown not met)
or ``inconclusive`` (the interval straddles the threshold: not enough queries to tell), with
the number of queries the test would need (:func:`~ragmeter.gate.onesided.queries_needed`).

Multiplicity: the gate passes when every check passes (an intersection-union test; Berger,
"Multiparameter hypothesis testing and acceptance sampling", Technometrics 24, 1982), so
the chance of passing a gate whose candidate is in truth worse on some metric is at most
``alpha`` even without a correction. The default Holm correction (Holm 1979) also keeps the
chance that any one reported per-metric pass is wrong at ``alpha``; ``correction=None``
gives the uncorrected (more powerful) intersection-union gate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from .._nan_equal import canonical
from ..exceptions import InputTypeError, InvalidInputError
from ..per_query import VALUE_SETTINGS
from ..stats._arguments import check_level
from ..stats.multiple import adjust_p_values
from ..stats.options import ComparisonOptions
from ..stats.registry import find_test
from .inputs import GateValues, gate_values
from .onesided import GATE_TESTS, one_sided_test, queries_needed
from .results import CheckKind, GateCheck, GateResult, Outcome

__all__ = ["GateOptions", "check_compatible", "gate"]

Missing = Literal["raise", "skip"]


@dataclass(frozen=True)
class GateOptions:
    """How a gate tests, validated once.

    Parameters
    ----------
    test
        ``"t"`` (the one-sided paired t-test, the default: its interval is the one the
        decision reads) or ``"sign-flip"`` (see :data:`~ragmeter.gate.onesided.GATE_TESTS`).
    alpha
        The level of every check (0.05): the chance of passing a candidate that is in truth
        worse by the margin.
    correction
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` or None, over every check
        (``"auto"`` is Holm's, as in ``compare``).
    power
        The power the "queries needed" figure plans for (0.8).
    missing
        Queries only one system has: ``"raise"`` (refuse, naming them; the default) or
        ``"skip"`` (test on the shared queries and say which were left out).
    n_resamples, random_state
        Sign vectors and seed of the sampled sign-flip test (beyond 16 queries; None: a
        fresh seed, recorded).
    flaky_spread
        A judged item is flaky when its repeats differ by more than this (0: any
        disagreement).

    Raises
    ------
    InvalidInputError
        An unknown test, correction or missing policy, a level outside (0, 1), a bad
        resample count, seed or spread.
    """

    test: str = "t"
    alpha: float = 0.05
    correction: str | None = "holm"
    power: float = 0.8
    missing: Missing = "raise"
    n_resamples: int = 9999
    random_state: int | None = 0
    flaky_spread: float = 0.0

    def __post_init__(self) -> None:
        """Check every option (see the class documentation) through
        :class:`~ragmeter.stats.ComparisonOptions`, which validates the options a gate shares
        with ``compare`` (test names and aliases, correction, alpha, resamples, seed,
        missing), so both refuse the same values with the same messages."""
        if self.test in GATE_TESTS or not isinstance(self.test, str):
            name = self.test
        else:
            name = find_test(self.test).name  # an alias of compare's ("student", "fisher")
        if name not in GATE_TESTS:
            raise InvalidInputError(
                f"test: the gate tests with {' or '.join(map(repr, GATE_TESTS))}, got {self.test!r}"
            )
        correction = "none" if self.correction is None else self.correction
        comparison = ComparisonOptions(
            test=str(name),
            correction=correction,
            alpha=self.alpha,
            n_resamples=self.n_resamples,
            random_state=self.random_state,
            missing=self.missing,
            confidence_level=None,
        )
        if not comparison.alpha < 0.5:
            raise InvalidInputError(
                f"alpha: a one-sided test at alpha {self.alpha!r} >= 0.5 passes without "
                "evidence; use a level such as 0.05"
            )
        check_level("power", self.power)
        spread = self.flaky_spread
        if isinstance(spread, bool) or not isinstance(spread, int | float) or not spread >= 0:
            raise InvalidInputError(f"flaky_spread: must be a number >= 0, got {spread!r}")
        object.__setattr__(self, "test", comparison.test)
        object.__setattr__(self, "correction", comparison.correction)
        object.__setattr__(self, "alpha", comparison.alpha)
        object.__setattr__(self, "random_state", comparison.random_state)
        object.__setattr__(self, "n_resamples", comparison.n_resamples)

    def comparison_options(self, margin: float = 0.0) -> ComparisonOptions:
        """The same settings as :class:`~ragmeter.stats.ComparisonOptions`, to follow a gate
        with a two-sided ``compare`` of the same systems (intervals at ``1 - alpha``).

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
            n_resamples=self.n_resamples,
            random_state=self.random_state,
            missing=self.missing,
            margin=margin,
        )


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in dict.fromkeys([*a, *b]):
            if key not in a or key not in b:
                return f"{where}{key} (only one has it)"
            found = _first_difference(a[key], b[key], f"{where}{key}.")
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
    settings that differ (``relevance_threshold``, ``zero_division``), judges whose identity
    differs (judge, model, prompts, metric definitions of the run manifests). Noted: different
    ragmeter versions, judges known for one system only.
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
    for key in VALUE_SETTINGS:
        a, b = baseline.settings.get(key), candidate.settings.get(key)
        if a is not None and b is not None and canonical(a) != canonical(b):
            raise InvalidInputError(
                f"the baseline and the candidate were evaluated with different {key} ({a!r} "
                f"vs {b!r}): evaluate both with the same setting"
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
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
            raise InputTypeError(f"margin of {metric!r}: expected a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value) or value < 0:
            direction = "a gain the candidate must show" if superiority else "the drop you accept"
            raise InvalidInputError(
                f"margin of {metric!r}: {value!r} is not a size >= 0. A margin is {direction}, "
                "in the metric's unit (0.01); the direction comes from the test, so give it "
                "without a sign"
            )
        chosen[metric] = value
    return chosen


def _value_range(*arrays: np.ndarray) -> tuple[float, float] | None:
    """The metric's range: [0, 1] when every value lies there, else the values' span."""
    values = np.concatenate([a[~np.isnan(a)] for a in arrays])
    if values.size == 0:
        return None
    low, high = float(values.min()), float(values.max())
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    return low, high


def _check_unit(metric: str, margin: float, span: tuple[float, float] | None) -> None:
    if span is None:
        return
    width = span[1] - span[0]
    if width > 0 and margin >= width:
        raise InvalidInputError(
            f"margin of {metric!r}: {margin:g} is at least the metric's whole range "
            f"({span[0]:g} to {span[1]:g}), so no candidate could fail; margins are in the "
            "metric's unit, not in percent (0.01 is one point of a metric in [0, 1])"
        )


def _align(
    candidate: GateValues, baseline: GateValues, missing: str
) -> tuple[list[Any], dict[str, tuple[Any, ...]]]:
    base_ids = list(baseline.values.query_ids)
    cand_set = set(candidate.values.query_ids)
    base_set = set(base_ids)
    shared = [q for q in base_ids if q in cand_set]
    excluded = {
        "baseline": tuple(q for q in base_ids if q not in cand_set),
        "candidate": tuple(q for q in candidate.values.query_ids if q not in base_set),
    }
    excluded = {k: v for k, v in excluded.items() if v}
    if excluded and missing == "raise":
        parts = []
        for system, ids in excluded.items():
            shown = ", ".join(map(repr, ids[:5])) + (", ..." if len(ids) > 5 else "")
            parts.append(f"{len(ids)} queries only the {system} has: {shown}")
        typed = {str(q) for ids in excluded.values() for q in ids}
        hint = (
            " (the same ids as str in one and int in the other never pair)"
            if len(typed) < sum(len(ids) for ids in excluded.values())
            else ""
        )
        raise InvalidInputError(
            "the gate pairs queries and needs the baseline and the candidate evaluated on the "
            "same queries: "
            + "; ".join(parts)
            + hint
            + ". Evaluate both on one query set, or test on the shared queries with "
            "missing='skip' (CLI: --missing skip; the report lists what was left out)."
        )
    if not shared:
        raise InvalidInputError("the baseline and the candidate share no query: nothing to pair")
    return shared, excluded


def _flaky(
    values: GateValues, label: str, metric: str, items: Iterable[Any], spread: float
) -> tuple[list[tuple[str, Any, tuple[float, ...]]], float | None]:
    repeats = values.repeats.get(metric, {})
    wanted = set(items)
    flaky, variances = [], []
    for item, scores in repeats.items():
        if item not in wanted:
            continue
        defined = [s for s in scores if not math.isnan(s)]
        if len(defined) >= 2:
            variances.append(float(np.var(defined, ddof=1)))
            if max(defined) - min(defined) > spread:
                flaky.append((label, item, scores))
    flaky.sort(key=lambda entry: -(max(entry[2]) - min(entry[2])))
    return flaky, (sum(variances) / len(variances) if variances else None)


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

    The test (``options.test``) is the one-sided paired t-test or sign-flip test of the
    differences shifted by the threshold; every check carries the t interval at ``1 - 2
    alpha`` (its low end is the one-sided bound the t decision compares with the threshold).
    A query where a value is undefined (NaN: undefined metric, failed judge call) is left out
    of that metric and counted. Judged items with repeats are tested on their means (so the
    judge's variance is in the spread), and an item whose repeats disagree is reported.

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
    settings = options or GateOptions()
    if not isinstance(settings, GateOptions):
        raise InputTypeError(f"options: expected GateOptions, got {type(settings).__name__}")
    if option_values:
        unknown = set(option_values) - set(GateOptions.__dataclass_fields__)
        if unknown:
            raise InputTypeError(f"gate() got unexpected keyword arguments {sorted(unknown)}")
        settings = replace(settings, **option_values)
    cand = gate_values(candidate, candidate_name, where="candidate")
    cand_label = cand.name or "candidate"
    base = None
    if baseline is not None:
        base = gate_values(baseline, baseline_name, where="baseline")
    base_label = None if base is None else (base.name or "baseline")
    if base is not None and cand_label == base_label:
        base_label = f"{base_label} (baseline)"
    floors = dict(floors or {})
    if base is None:
        if margin is not None or margins or metrics is not None:
            raise InvalidInputError(
                "baseline: comparing metrics needs a baseline; give one, or check only "
                "floors={metric: value}"
            )
        compared: list[str] = []
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
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
            raise InputTypeError(f"floors: the floor of {metric!r} must be a number, got {value!r}")
        if not math.isfinite(float(value)):
            raise InvalidInputError(
                f"floors: the floor of {metric!r} must be finite, got {value!r}"
            )
    chosen = _margins(compared, margin, margins, superiority)
    notes: list[str] = []
    excluded: dict[str, tuple[Any, ...]] = {}
    shared: list[Any] = []
    if base is not None and compared:
        notes += check_compatible(cand, base, compared)
        shared, excluded = _align(cand, base, settings.missing)
        excluded = {
            (base_label if k == "baseline" else cand_label) or k: v for k, v in excluded.items()
        }
    alpha = settings.alpha
    seed = int(settings.random_state or 0)  # resolved (never None) by GateOptions
    shared_set = set(shared)
    raw: list[dict[str, Any]] = []
    for metric in compared:
        assert base is not None
        b = base.values.select(shared, [metric]).array(metric)
        c = cand.values.select(shared, [metric]).array(metric)
        _check_unit(metric, chosen[metric], _value_range(b, c))
        kind: CheckKind = "superiority" if superiority else "non-inferiority"
        threshold = chosen[metric] if superiority else -chosen[metric]
        d = c - b
        both = ~np.isnan(d)
        test = one_sided_test(
            d,
            threshold,
            test=settings.test,
            alpha=alpha,
            n_resamples=settings.n_resamples,
            random_state=seed,
        )
        order = np.argsort(np.where(both, d, np.inf), kind="stable")
        worst = tuple(
            (shared[i], float(d[i]), float(c[i]), float(b[i]))
            for i in order[:5]
            if both[i] and d[i] < 0
        )
        flaky_c, var_c = _flaky(cand, cand_label, metric, shared, settings.flaky_spread)
        flaky_b, var_b = _flaky(
            base, base_label or "baseline", metric, shared, settings.flaky_spread
        )
        variance = {
            name: v for name, v in ((cand_label, var_c), (base_label, var_b)) if v is not None
        }
        failed = {
            name or "baseline": tuple(q for q in values.failed.get(metric, ()) if q in shared_set)
            for name, values in ((cand_label, cand), (base_label, base))
        }
        raw.append(
            {
                "metric": metric,
                "kind": kind,
                "margin": chosen[metric],
                "threshold": threshold,
                "test": test,
                "left_out": int((~both).sum()),
                "candidate_mean": float(np.mean(c[both])) if both.any() else math.nan,
                "baseline_mean": float(np.mean(b[both])) if both.any() else math.nan,
                "worst": worst,
                "flaky": tuple(flaky_c + flaky_b),
                "judge_variance": variance,
                "failed": {k: v for k, v in failed.items() if v},
            }
        )
    for metric, floor in floors.items():
        ids = list(cand.values.query_ids)
        v = cand.values.array(metric)
        defined = ~np.isnan(v)
        test = one_sided_test(
            v,
            float(floor),
            test=settings.test,
            alpha=alpha,
            n_resamples=settings.n_resamples,
            random_state=seed,
        )
        order = np.argsort(np.where(defined, v, np.inf), kind="stable")
        lowest: tuple[tuple[Any, float, float, float | None], ...] = tuple(
            (ids[i], float(v[i]), float(v[i]), None)
            for i in order[:5]
            if defined[i] and v[i] < floor
        )
        flaky_floor, floor_variance = _flaky(cand, cand_label, metric, ids, settings.flaky_spread)
        failed_floor = tuple(cand.values.failed.get(metric, ()))
        raw.append(
            {
                "metric": metric,
                "kind": "floor",
                "margin": None,
                "threshold": float(floor),
                "test": test,
                "left_out": int((~defined).sum()),
                "candidate_mean": test.mean,
                "baseline_mean": None,
                "worst": lowest,
                "flaky": tuple(flaky_floor),
                "judge_variance": {} if floor_variance is None else {cand_label: floor_variance},
                "failed": {cand_label: failed_floor} if failed_floor else {},
            }
        )
    p_values = np.array([r["test"].p_value for r in raw], dtype=np.float64)
    if settings.correction is None or len(raw) == 1:
        adjusted = p_values.copy()
    else:
        adjusted = adjust_p_values(p_values, settings.correction)  # type: ignore[arg-type]
    checks = []
    for entry, p_adjusted in zip(raw, adjusted, strict=True):
        test = entry["test"]
        passed = bool(test.n >= 2 and p_adjusted <= alpha)
        kind = entry["kind"]
        outcome = _outcome(kind, passed, test.ci_high, entry["threshold"])
        planning = (
            _planning_mean(kind, test.mean, entry["threshold"])
            if outcome == "inconclusive"
            else None
        )
        needed = (
            None
            if planning is None
            else queries_needed(
                planning - entry["threshold"], test.sd, alpha=alpha, power=settings.power
            )
        )
        checks.append(
            GateCheck(
                metric=entry["metric"],
                kind=kind,
                margin=entry["margin"],
                threshold=entry["threshold"],
                n=test.n,
                n_left_out=entry["left_out"],
                mean=test.mean,
                sd=test.sd,
                candidate_mean=entry["candidate_mean"],
                baseline_mean=entry["baseline_mean"],
                ci_low=test.ci_low,
                ci_high=test.ci_high,
                confidence_level=1.0 - 2.0 * alpha,
                p_value=test.p_value,
                p_adjusted=float(p_adjusted),
                passed=passed,
                outcome=outcome,
                queries_needed=needed,
                planning_mean=planning,
                method=test.method,
                worst=entry["worst"],
                flaky=entry["flaky"],
                judge_variance=entry["judge_variance"],
                failed=entry["failed"],
            )
        )
    return GateResult(
        checks=tuple(checks),
        candidate=cand_label,
        baseline=base_label,
        test=settings.test,
        alpha=alpha,
        correction=settings.correction if len(checks) > 1 else None,
        power=settings.power,
        excluded=excluded,
        notes=tuple(notes),
        n_resamples=settings.n_resamples,
        random_state=seed,
    )
