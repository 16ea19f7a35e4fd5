"""Agreement between judges, or between a judge and human labels.

Every function takes ratings as one row per unit (a sample) and one column per rater (a judge
or a human), with ``None`` for a missing rating. An undefined statistic (for example kappa when
every rating falls in one category, so that chance agreement is already perfect) is returned as
``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` that says why;
:func:`agreement_report` returns ``None`` and the reason instead.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any, Literal

from ..exceptions import InvalidInputError, UndefinedMetricWarning

__all__ = [
    "agreement_report",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "percent_agreement",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
Result = tuple[float | None, str | None]


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

    Args:
        ratings: One row per unit, one column per rater; ``None`` for a missing rating.

    Returns:
        The agreement in [0, 1]; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning`
        when no unit has two ratings.

    Example:
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

    Args:
        a, b: The two raters' ratings, unit by unit (``None`` leaves the unit out).
        weights: ``None``, ``"linear"`` or ``"quadratic"``.
        labels: The categories in order (needed for weights on non-sortable labels).

    Returns:
        Kappa; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises:
        InvalidInputError: lists of different lengths, unknown weights, a rating not in
            ``labels``.

    Example:
        >>> # observed agreement 3/4, chance agreement 0.5 x 0.25 + 0.5 x 0.75 = 1/2
        >>> cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"])
        0.5
    """
    return _public(
        _cohen_kappa(_ratings(a, "a"), _ratings(b, "b"), weights, labels), "Cohen's kappa"
    )


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

    Args:
        ratings: One row per unit, one column per rater, no missing rating.

    Returns:
        Kappa; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises:
        InvalidInputError: a missing rating, or units with different numbers of raters.

    Example:
        >>> # P = (1 + 1/3 + 1) / 3 = 7/9, Pe = (5/9)**2 + (4/9)**2 = 41/81: kappa = 22/40
        >>> round(fleiss_kappa([["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"]]), 4)
        0.55
    """
    return _public(_fleiss_kappa(_rows(ratings)), "Fleiss' kappa")


def _delta2(
    level: str, c: Any, k: Any, ordinal_counts: dict[Any, float], order: list[Any]
) -> float:
    if level == "nominal":
        return 0.0 if c == k else 1.0
    if level == "interval":
        return float(c - k) ** 2
    if level == "ratio":
        return 0.0 if c == k else ((c - k) / (c + k)) ** 2
    lo, hi = sorted((order.index(c), order.index(k)))
    between = sum(ordinal_counts[order[g]] for g in range(lo, hi + 1))
    return (between - (ordinal_counts[c] + ordinal_counts[k]) / 2.0) ** 2


def _krippendorff_alpha(rows: list[list[Any]], level: str) -> Result:
    if level not in LEVELS:
        raise InvalidInputError(f"level must be one of {LEVELS}, got {level!r}")
    coincidences: defaultdict[tuple[Any, Any], float] = defaultdict(float)
    for row in rows:
        present = [v for v in row if v is not None]
        m = len(present)
        if m < 2:
            continue
        if level in ("interval", "ratio"):
            for v in present:
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise InvalidInputError(
                        f"level={level!r} needs numeric ratings, got {v!r}; use level='nominal'"
                    )
        for i, c in enumerate(present):
            for j, k in enumerate(present):
                if i != j:
                    coincidences[(c, k)] += 1.0 / (m - 1)
    if not coincidences:
        return None, "no unit has two ratings"
    totals: defaultdict[Any, float] = defaultdict(float)
    for (c, _k), weight in coincidences.items():
        totals[c] += weight
    n = sum(totals.values())
    order = _ordered(totals)
    observed = sum(w * _delta2(level, c, k, totals, order) for (c, k), w in coincidences.items())
    expected = sum(
        totals[c] * totals[k] * _delta2(level, c, k, totals, order) for c in order for k in order
    )
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

    Args:
        ratings: One row per unit, one column per rater; ``None`` for a missing rating.
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.

    Returns:
        Alpha; ``nan`` with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Raises:
        InvalidInputError: an unknown level, or non-numbers at the interval or ratio level.

    Example:
        >>> # o_11 = o_00 = 2, o_10 = o_01 = 1, n = 6: alpha = 1 - 5 x 2 / (3 x 3 x 2) = 4/9
        >>> round(krippendorff_alpha([[1, 1], [1, 0], [0, 0]]), 4)
        0.4444
    """
    return _public(_krippendorff_alpha(_rows(ratings), level), "Krippendorff's alpha")


def agreement_report(
    ratings: Sequence[Sequence[Any]], *, level: Level = "nominal"
) -> dict[str, Any]:
    """Every applicable statistic for ``ratings``, undefined ones as ``None`` with a reason.

    Always: Krippendorff's alpha at ``level`` and percent agreement. For nominal and ordinal
    ratings also Cohen's kappa (two raters; quadratic weights when ordinal) or Fleiss' kappa
    (three or more raters, units rated by everyone only).

    Returns:
        ``{"level", "n_units", "n_raters", "n_units_pairable", <statistic>: value or None,
        "undefined": {<statistic>: reason}}`` (``undefined`` only when some are).

    Example:
        >>> report = agreement_report([["y", "y"], ["y", "n"], ["n", "n"], ["n", "n"]])
        >>> report["percent_agreement"], report["cohen_kappa"]
        (0.75, 0.5)
    """
    rows = _rows(ratings)
    n_raters = max((len(row) for row in rows), default=0)
    report: dict[str, Any] = {
        "level": level,
        "n_units": len(rows),
        "n_raters": n_raters,
        "n_units_pairable": sum(1 for row in rows if sum(v is not None for v in row) >= 2),
    }
    undefined: dict[str, str] = {}

    def put(name: str, result: Result) -> None:
        report[name] = result[0]
        if result[0] is None and result[1] is not None:
            undefined[name] = result[1]

    put("krippendorff_alpha", _krippendorff_alpha(rows, level))
    put("percent_agreement", _percent_agreement(rows))
    if level in ("nominal", "ordinal") and n_raters == 2:
        put(
            "cohen_kappa",
            _cohen_kappa(
                [row[0] for row in rows],
                [row[1] if len(row) > 1 else None for row in rows],
                "quadratic" if level == "ordinal" else None,
                None,
            ),
        )
    elif level in ("nominal", "ordinal") and n_raters > 2:
        complete = [row for row in rows if len(row) == n_raters and None not in row]
        put("fleiss_kappa", _fleiss_kappa(complete))
        report["n_units_fleiss"] = len(complete)
    if undefined:
        report["undefined"] = undefined
    return report
