"""Agreement between raters: judges, a judge and human labels, annotators.

Every function takes ratings as one row per unit (a sample) and one column per rater (a judge
or a human), with ``None`` for a missing rating. An undefined statistic (for example kappa when
every rating falls in one category, so that chance agreement is already perfect) is returned as
``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` that says why;
:func:`agreement_report` returns ``None`` and the reason instead. The rank correlations
(Spearman's rho, Kendall's tau-b) are those of :mod:`~ragmeter.stats.orderings`, with its
undefined rule.

(Moved here from ``ragmeter.judges.agreement``, which re-exports these names with a
deprecation warning; ``ragmeter.judges`` re-exports them too.)
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any, Literal

import numpy as np

from ..exceptions import InvalidInputError, UndefinedMetricWarning
from .orderings import kendall_tau_result, paired_scores, spearman_rho_result

__all__ = [
    "BOOTSTRAP_METHOD",
    "LEVELS",
    "Level",
    "agreement_report",
    "cohen_kappa",
    "confusion_table",
    "fleiss_kappa",
    "krippendorff_alpha",
    "percent_agreement",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
Result = tuple[float | None, str | None]
# Above this many distinct values a confusion table is not a table anyone reads.
MAX_TABLE_CATEGORIES = 20
BOOTSTRAP_METHOD = (
    "percentile bootstrap over units (Efron & Tibshirani 1993, ch. 13): resample i of "
    "numpy.random.default_rng(seed).integers(0, n_units, size=(n_resamples, n_units)) is row i; "
    "resamples where a statistic is undefined are left out of its interval"
)


def _category_key(value: Any) -> tuple[Any, ...]:
    """Sort key of a category: numbers by value (an int label 2 and a float value 2.0 are one
    category, between 1.5 and 3), then every other type by its own order."""
    if isinstance(value, int | float):
        return (0, "", float(value))
    return (1, type(value).__name__, value)


def _ordered(categories: Iterable[Any]) -> list[Any]:
    return sorted(set(categories), key=_category_key)


def _public(result: Result, what: str) -> float:
    value, reason = result
    if value is None:
        warnings.warn(f"{what} is undefined: {reason}", UndefinedMetricWarning, stacklevel=3)
        return math.nan
    return value


def _rows(ratings: Sequence[Sequence[Any]]) -> list[list[Any]]:
    if isinstance(ratings, str | bytes) or not isinstance(ratings, Sequence):
        raise InvalidInputError(
            "ratings must be a sequence of rows (one per unit), each a sequence of ratings "
            f"(one per rater, None when missing), got {type(ratings).__name__}"
        )
    rows = [list(row) for row in ratings]
    for i, row in enumerate(rows):
        for value in row:
            if isinstance(value, float) and math.isnan(value):
                raise InvalidInputError(f"ratings[{i}] contains nan: use None for a missing rating")
    return rows


def _percent_agreement(rows: list[list[Any]]) -> Result:
    shares = []
    for row in rows:
        present = [v for v in row if v is not None]
        if len(present) < 2:
            continue
        pairs = list(combinations(present, 2))
        shares.append(sum(a == b for a, b in pairs) / len(pairs))
    if not shares:
        return None, "no unit has two ratings"
    return sum(shares) / len(shares), None


def percent_agreement(ratings: Sequence[Sequence[Hashable | None]]) -> float:
    """Mean over units (with at least two ratings) of the share of rating pairs that agree.

    With two raters this is the fraction of units on which they give the same rating.

    Parameters
    ----------
    ratings
        One row per unit, one column per rater; ``None`` for a missing rating.

    Returns
    -------
    float
        The agreement in [0, 1]; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning`
        when no unit has two ratings.

    Examples
    --------
    >>> round(percent_agreement([[1, 1], [1, 0], [0, 0]]), 4)  # 2 of 3 units agree
    0.6667
    """
    return _public(_percent_agreement(_rows(ratings)), "percent agreement")


def _cohen_kappa(
    a: Sequence[Any], b: Sequence[Any], weights: str | None, labels: Sequence[Any] | None
) -> Result:
    if len(a) != len(b):
        raise InvalidInputError(
            f"cohen_kappa needs two rating lists of the same length, got {len(a)} and {len(b)}"
        )
    if weights not in (None, "linear", "quadratic"):
        raise InvalidInputError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if not pairs:
        return None, "no unit is rated by both raters"
    if labels is None:
        labels = _ordered(x for pair in pairs for x in pair)
    index = {label: i for i, label in enumerate(labels)}
    for x, y in pairs:
        for value in (x, y):
            if value not in index:
                raise InvalidInputError(f"rating {value!r} is not among labels {list(labels)}")
    k = len(labels)
    n = len(pairs)
    observed = [[0.0] * k for _ in range(k)]
    for x, y in pairs:
        observed[index[x]][index[y]] += 1.0 / n
    rows = [sum(observed[i]) for i in range(k)]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights is None:
            return 0.0 if i == j else 1.0
        if weights == "linear":
            return float(abs(i - j))
        return float((i - j) ** 2)

    disagreement = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k))
    expected = sum(weight(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k))
    if expected == 0.0:
        return None, "chance disagreement is zero (both raters use a single, identical category)"
    return 1.0 - disagreement / expected, None


def cohen_kappa(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    *,
    weights: Literal["linear", "quadratic"] | None = None,
    labels: Sequence[Hashable] | None = None,
) -> float:
    """Cohen's kappa between two raters: ``1 - sum(w * O) / sum(w * E)``.

    ``O`` is the observed joint distribution of the two ratings over units rated by both, ``E``
    the product of its marginals, ``w`` 0/1 disagreement weights (unweighted), ``|i - j|``
    (``"linear"``) or ``(i - j)**2`` (``"quadratic"``, for ordinal ratings) over the category
    indices in ``labels`` order (default: sorted, numbers by value whether int or float).
    Undefined when ``sum(w * E)`` is zero.
    Cohen (1960), *Educ. Psychol. Meas.* 20(1); Cohen (1968) for the weighted form.

    Parameters
    ----------
    a, b
        The two raters' ratings, unit by unit (``None`` leaves the unit out).
    weights
        ``None``, ``"linear"`` or ``"quadratic"``.
    labels
        The categories in order (needed for weights on non-sortable labels).

    Returns
    -------
    float
        Kappa; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises
    ------
    InvalidInputError
        lists of different lengths, unknown weights, a rating not in
        ``labels``.

    Examples
    --------
    >>> # observed agreement 3/4, chance agreement 0.5 x 0.25 + 0.5 x 0.75 = 1/2
    >>> cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"])
    0.5
    """
    return _public(
        _cohen_kappa(_ratings(a, "a"), _ratings(b, "b"), weights, labels), "Cohen's kappa"
    )


def _confusion(a: Sequence[Any], b: Sequence[Any], labels: Sequence[Any] | None) -> dict[str, Any]:
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    order = list(labels) if labels is not None else _ordered(v for pair in pairs for v in pair)
    index = {label: i for i, label in enumerate(order)}
    counts = [[0] * len(order) for _ in order]
    for x, y in pairs:
        for value in (x, y):
            if value not in index:
                raise InvalidInputError(f"rating {value!r} is not among labels {order}")
        counts[index[x]][index[y]] += 1
    return {"labels": order, "counts": counts, "n": len(pairs)}


def confusion_table(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    *,
    labels: Sequence[Hashable] | None = None,
) -> dict[str, Any]:
    """How often rater ``a`` gave row label ``i`` where rater ``b`` gave column label ``j``.

    Units either rater left out (``None``) are not counted. ``labels`` default to every value
    seen, numbers in value order.

    Returns
    -------
    dict[str, Any]
        ``{"labels": [...], "counts": [[...], ...], "n": units counted}`` (rows: ``a``).

    Examples
    --------
    >>> confusion_table([1, 1, 0, None], [1, 0, 0, 1])
    {'labels': [0, 1], 'counts': [[1, 0], [1, 1]], 'n': 3}
    """
    a_list, b_list = _ratings(a, "a"), _ratings(b, "b")
    if len(a_list) != len(b_list):
        raise InvalidInputError(
            f"confusion_table needs two rating lists of the same length, got {len(a_list)} and "
            f"{len(b_list)}"
        )
    return _confusion(a_list, b_list, labels)


def _ratings(values: Any, argument: str) -> list[Any]:
    """One rater's ratings, unit by unit: a sequence (never a str, a set or a mapping), NaN
    refused (None is the missing rating)."""
    if isinstance(values, str | bytes | set | frozenset | Mapping) or not isinstance(
        values, Iterable
    ):
        raise InvalidInputError(
            f"{argument} must be a sequence of ratings (one per unit, None when missing), got "
            f"{type(values).__name__}"
        )
    ratings = list(values)
    for i, value in enumerate(ratings):
        if isinstance(value, float) and math.isnan(value):
            raise InvalidInputError(f"{argument}[{i}] is nan: use None for a missing rating")
    return ratings


def _fleiss_kappa(rows: list[list[Any]]) -> Result:
    if not rows:
        return None, "no units"
    n_raters = len(rows[0])
    for i, row in enumerate(rows):
        if any(v is None for v in row):
            raise InvalidInputError(
                f"fleiss_kappa needs a rating from every rater for every unit; unit {i} has a "
                "missing rating (use krippendorff_alpha, which allows missing ratings)"
            )
        if len(row) != n_raters:
            raise InvalidInputError(
                f"fleiss_kappa needs the same number of raters for every unit: unit 0 has "
                f"{n_raters}, unit {i} has {len(row)}"
            )
    if n_raters < 2:
        return None, "fewer than two raters"
    categories = _ordered(v for row in rows for v in row)
    n_units = len(rows)
    counts = [Counter(row) for row in rows]
    p_j = [sum(c[cat] for c in counts) / (n_units * n_raters) for cat in categories]
    p_i = [
        (sum(c[cat] ** 2 for cat in categories) - n_raters) / (n_raters * (n_raters - 1))
        for c in counts
    ]
    p_bar = sum(p_i) / n_units
    p_e = sum(p * p for p in p_j)
    if p_e == 1.0:
        return None, "every rating falls in one category, so chance agreement is perfect"
    return (p_bar - p_e) / (1.0 - p_e), None


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Fleiss' kappa for any number of raters on nominal ratings: ``(P - Pe) / (1 - Pe)``.

    ``P`` is the mean over units of the share of agreeing rater pairs, ``Pe = sum_j p_j**2``
    with ``p_j`` the overall share of ratings in category ``j``. Every unit needs a rating from
    every rater. Undefined when ``Pe = 1``. Fleiss (1971), *Psychol. Bull.* 76(5).

    Parameters
    ----------
    ratings
        One row per unit, one column per rater, no missing rating.

    Returns
    -------
    float
        Kappa; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises
    ------
    InvalidInputError
        a missing rating, or units with different numbers of raters.

    Examples
    --------
    >>> # P = (1 + 1/3 + 1) / 3 = 7/9, Pe = (5/9)**2 + (4/9)**2 = 41/81: kappa = 22/40
    >>> round(fleiss_kappa([["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"]]), 4)
    0.55
    """
    return _public(_fleiss_kappa(_rows(ratings)), "Fleiss' kappa")


def _delta2_matrix(level: str, order: list[Any], counts: np.ndarray) -> np.ndarray:
    """``d2(c, k)`` for every pair of categories in ``order`` (``counts``: their ``n_c``)."""
    k = len(order)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "ordinal":
        # sum_{g=c..k} n_g from the cumulative counts: O(1) per pair.
        cumulative = np.concatenate([[0.0], np.cumsum(counts)])
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cumulative[hi + 1] - cumulative[lo]
        result: np.ndarray = (between - (counts[:, None] + counts[None, :]) / 2.0) ** 2
        return result
    values = np.array([float(v) for v in order])
    difference = values[:, None] - values[None, :]
    if level == "interval":
        squared: np.ndarray = difference**2
        return squared
    total = values[:, None] + values[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(difference == 0.0, 0.0, difference / np.where(total == 0, 1, total))
    return ratio**2


def _krippendorff_alpha(rows: list[list[Any]], level: str) -> Result:
    if level not in LEVELS:
        raise InvalidInputError(f"level must be one of {LEVELS}, got {level!r}")
    pairable: list[list[Any]] = []
    for row in rows:
        present = [v for v in row if v is not None]
        if len(present) < 2:
            continue
        if level in ("interval", "ratio"):
            for v in present:
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise InvalidInputError(
                        f"level={level!r} needs numeric ratings, got {v!r}; use level='nominal'"
                    )
        pairable.append(present)
    if not pairable:
        return None, "no unit has two ratings"
    order = _ordered(v for unit in pairable for v in unit)
    index = {c: i for i, c in enumerate(order)}
    k = len(order)
    cells: list[int] = []
    weights: list[float] = []
    for unit in pairable:
        # every ordered pair (i != j) of the unit's ratings adds 1 / (m - 1)
        codes = [index[v] for v in unit]
        share = 1.0 / (len(codes) - 1)
        for i, c in enumerate(codes):
            for j, d in enumerate(codes):
                if i != j:
                    cells.append(c * k + d)
                    weights.append(share)
    coincidences = np.bincount(cells, weights=weights, minlength=k * k).reshape(k, k)
    totals = coincidences.sum(axis=1)
    n = float(totals.sum())
    delta = _delta2_matrix(level, order, totals)
    observed = float((coincidences * delta).sum())
    expected = float((np.outer(totals, totals) * delta).sum())
    if expected == 0.0:
        return None, "every pairable rating has the same value, so no disagreement is expected"
    return 1.0 - (n - 1.0) * observed / expected, None


def krippendorff_alpha(ratings: Sequence[Sequence[Any]], *, level: Level = "nominal") -> float:
    """Krippendorff's alpha, ``1 - D_o / D_e``, with missing ratings allowed.

    From the coincidence matrix ``o_ck`` (each unit with ``m >= 2`` ratings adds ``1 / (m - 1)``
    per ordered pair of its ratings) and its margins ``n_c`` (total ``n``):
    ``alpha = 1 - (n - 1) * sum(o_ck * d2(c, k)) / sum(n_c * n_k * d2(c, k))``, with the
    squared difference ``d2`` of the ``level``: nominal ``[c != k]``, ordinal
    ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)**2``, interval ``(c - k)**2``, ratio
    ``((c - k) / (c + k))**2``. Undefined when all pairable ratings are equal.
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability".

    Parameters
    ----------
    ratings
        One row per unit, one column per rater; ``None`` for a missing rating.
    level
        ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.

    Returns
    -------
    float
        Alpha; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises
    ------
    InvalidInputError
        an unknown level, or non-numbers at the interval or ratio level.

    Examples
    --------
    >>> # o_11 = o_00 = 2, o_10 = o_01 = 1, n = 6: alpha = 1 - 5 x 2 / (3 x 3 x 2) = 4/9
    >>> round(krippendorff_alpha([[1, 1], [1, 0], [0, 0]]), 4)
    0.4444
    """
    return _public(_krippendorff_alpha(_rows(ratings), level), "Krippendorff's alpha")


def _statistics(
    rows: list[list[Any]], level: str
) -> dict[str, Callable[[list[list[Any]]], Result]]:
    """The statistics that apply to ``rows`` at ``level``, each a function of the rows (so that
    the bootstrap can recompute it on a resample)."""
    n_raters = max((len(row) for row in rows), default=0)
    out: dict[str, Callable[[list[list[Any]]], Result]] = {
        "krippendorff_alpha": lambda r: _krippendorff_alpha(r, level),
        "percent_agreement": _percent_agreement,
    }

    def column(r: list[list[Any]], j: int) -> list[Any]:
        return [row[j] if len(row) > j else None for row in r]

    if n_raters == 2:
        labels = _ordered(v for row in rows for v in row if v is not None)
        if level in ("nominal", "ordinal"):
            weights = "quadratic" if level == "ordinal" else None
            out["cohen_kappa"] = lambda r: _cohen_kappa(column(r, 0), column(r, 1), weights, labels)
            if level == "ordinal":
                out["cohen_kappa_unweighted"] = lambda r: _cohen_kappa(
                    column(r, 0), column(r, 1), None, labels
                )
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels)
        if level != "nominal" and numeric:
            out["spearman_rho"] = lambda r: spearman_rho_result(
                *paired_scores(column(r, 0), column(r, 1), "spearman_rho")
            )
            out["kendall_tau"] = lambda r: kendall_tau_result(
                *paired_scores(column(r, 0), column(r, 1), "kendall_tau")
            )
    elif n_raters > 2 and level in ("nominal", "ordinal"):

        def fleiss(r: list[list[Any]]) -> Result:
            return _fleiss_kappa([row for row in r if len(row) == n_raters and None not in row])

        out["fleiss_kappa"] = fleiss
    return out


def _bootstrap(
    rows: list[list[Any]],
    statistics: Mapping[str, Callable[[list[list[Any]]], Result]],
    *,
    confidence: float,
    n_resamples: int,
    seed: int,
) -> tuple[dict[str, list[float] | None], dict[str, str]]:
    draws = np.random.default_rng(seed).integers(0, len(rows), size=(n_resamples, len(rows)))
    values: dict[str, list[float]] = {name: [] for name in statistics}
    for draw in draws:
        resample = [rows[i] for i in draw]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, statistic in statistics.items():
                value = statistic(resample)[0]
                if value is not None:
                    values[name].append(value)
    tail = (1.0 - confidence) / 2.0
    intervals: dict[str, list[float] | None] = {}
    undefined: dict[str, str] = {}
    for name, got in values.items():
        # Fewer than half the resamples defined: the percentiles describe another population.
        if len(got) * 2 < n_resamples:
            intervals[name] = None
            undefined[name] = (
                f"defined in {len(got)} of {n_resamples} resamples, too few for an interval"
            )
            continue
        low, high = np.quantile(np.array(got), [tail, 1.0 - tail])
        intervals[name] = [float(low), float(high)]
    return intervals, undefined


def agreement_report(
    ratings: Sequence[Sequence[Any]],
    *,
    level: Level = "nominal",
    confidence: float | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Every applicable statistic for ``ratings``, undefined ones as ``None`` with a reason.

    Always: Krippendorff's alpha at ``level`` and percent agreement. Two raters: Cohen's kappa
    for nominal and ordinal ratings (quadratic weights when ordinal, with the unweighted kappa
    as ``cohen_kappa_unweighted``), Spearman's rho and Kendall's tau-b for numeric ratings at
    the ordinal, interval and ratio levels, and the confusion table (``confusion``, rows the
    first rater) when at most 20 distinct values occur. Three or more raters: Fleiss' kappa
    (nominal and ordinal, units rated by everyone only).

    With ``confidence`` (e.g. ``0.95``), each statistic gets an interval in ``ci`` from a
    percentile bootstrap over units (:data:`BOOTSTRAP_METHOD` says exactly which resamples):
    ``{"ci": {statistic: [low, high] or None}, "ci_undefined": {statistic: reason}}``.
    Categories (and kappa's weights) are those of the full data in every resample.

    Returns
    -------
    dict[str, Any]
        ``{"level", "n_units", "n_raters", "n_units_pairable", <statistic>: value or None,
        "undefined": {<statistic>: reason}}`` (``undefined`` only when some are).

    Raises
    ------
    InvalidInputError
        an unknown level, ``confidence`` outside (0, 1), ``n_resamples``
        below 100.

    Examples
    --------
    >>> report = agreement_report([["y", "y"], ["y", "n"], ["n", "n"], ["n", "n"]])
    >>> report["percent_agreement"], report["cohen_kappa"]
    (0.75, 0.5)
    >>> report["confusion"]
    {'labels': ['n', 'y'], 'counts': [[2, 0], [1, 1]], 'n': 4}
    """
    rows = _rows(ratings)
    if level not in LEVELS:
        raise InvalidInputError(f"level must be one of {LEVELS}, got {level!r}")
    if confidence is not None and (
        isinstance(confidence, bool)
        or not isinstance(confidence, float | int)
        or not 0.0 < confidence < 1.0
    ):
        raise InvalidInputError(f"confidence must lie in (0, 1), e.g. 0.95, got {confidence!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 100:
        raise InvalidInputError(f"n_resamples must be an integer >= 100, got {n_resamples!r}")
    n_raters = max((len(row) for row in rows), default=0)
    report: dict[str, Any] = {
        "level": level,
        "n_units": len(rows),
        "n_raters": n_raters,
        "n_units_pairable": sum(1 for row in rows if sum(v is not None for v in row) >= 2),
    }
    undefined: dict[str, str] = {}
    statistics = _statistics(rows, level)
    for name, statistic in statistics.items():
        value, reason = statistic(rows)
        report[name] = value
        if value is None and reason is not None:
            undefined[name] = reason
    if "fleiss_kappa" in statistics:
        report["n_units_fleiss"] = sum(
            1 for row in rows if len(row) == n_raters and None not in row
        )
    if n_raters == 2:
        first = [row[0] if row else None for row in rows]
        second = [row[1] if len(row) > 1 else None for row in rows]
        table = _confusion(first, second, None)
        if len(table["labels"]) <= MAX_TABLE_CATEGORIES:
            report["confusion"] = table
    if undefined:
        report["undefined"] = undefined
    if confidence is not None and rows:
        intervals, ci_undefined = _bootstrap(
            rows, statistics, confidence=float(confidence), n_resamples=n_resamples, seed=seed
        )
        report["confidence"] = float(confidence)
        report["ci"] = intervals
        report["ci_method"] = BOOTSTRAP_METHOD
        report["n_resamples"] = n_resamples
        report["seed"] = seed
        if ci_undefined:
            report["ci_undefined"] = ci_undefined
    return report
