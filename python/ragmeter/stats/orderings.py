"""Agreement between two orderings: Kendall's tau-b, Spearman's rho and the AP correlation
tau_ap (the one implementation of each: the judges' agreement statistics use them too).

Typical orderings: the systems' means under two metrics, under two sets of judgments, or over
all queries and a subsample of them; two raters' scores of the same units. Each ordering is a
mapping ``item -> score`` (higher is better), both over the same items, or two sequences of
scores in the same item order; ``None`` is a missing score (that item is left out of both).

One rule for undefined values: Kendall's tau and Spearman's rho are undefined when fewer than
two items have both scores, or when one ordering ties every item (no pair is ordered); they
are then NaN with an :class:`~ragmeter.UndefinedMetricWarning` saying which.

References: M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33(3),
1945 (tau-b); C. Spearman, "The proof and measurement of association between two things",
Am. J. Psychol. 15(1), 1904; E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank
correlation coefficient for information retrieval", SIGIR 2008 (tau_ap); E. M. Voorhees,
"Evaluation by highly relevant documents", SIGIR 2001 (tau between system orderings in IR).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError, UndefinedMetricWarning
from ._arguments import float_array

__all__ = [
    "Correlation",
    "kendall_tau",
    "kendall_tau_result",
    "paired_scores",
    "spearman_rho",
    "spearman_rho_result",
    "tau_ap",
]

#: A correlation and, when it is undefined (None), why.
Correlation = tuple[float | None, str | None]


def _scores(values: Any, argument: str) -> list[Any]:
    """One ordering's scores in item order (a sequence; never a str, set or mapping)."""
    if isinstance(values, str | bytes | set | frozenset | Mapping) or not isinstance(
        values, Iterable
    ):
        raise InvalidInputError(
            f"{argument}: must be a sequence of scores (one per item, None when missing), got "
            f"{type(values).__name__}"
        )
    return list(values)


def paired_scores(x: Any, y: Any, what: str = "x, y") -> tuple[np.ndarray, np.ndarray]:
    """The scores both orderings give, as two float arrays in item order.

    ``x`` and ``y`` are two mappings ``item -> score`` over the same items, or two sequences
    of the same length; ``None`` is a missing score, and an item missing from either is left
    out. Scores must be finite numbers (not bool; NaN is refused: use None).

    Parameters
    ----------
    x, y
        The two orderings.
    what
        How error messages name them.

    Returns
    -------
    tuple of numpy.ndarray
        The paired scores.

    Raises
    ------
    InvalidInputError
        Mappings over different items, sequences of different lengths, a mapping and a
        sequence, a score that is not a finite number.
    """
    if isinstance(x, Mapping) != isinstance(y, Mapping):
        raise InvalidInputError(
            f"{what}: pass two mappings item -> score, or two sequences of scores in the same "
            "item order, not one of each"
        )
    if isinstance(x, Mapping):
        only_x = [k for k in x if k not in y]
        only_y = [k for k in y if k not in x]
        if only_x or only_y:
            raise InvalidInputError(
                f"{what}: the orderings must rank the same systems (items); only in the first: "
                f"{only_x[:5]}, only in the second: {only_y[:5]}"
            )
        names = list(x)
        a, b = [x[k] for k in names], [y[k] for k in names]
    else:
        a, b = _scores(x, "x"), _scores(y, "y")
        if len(a) != len(b):
            raise InvalidInputError(
                f"{what}: needs two score lists of the same length, got {len(a)} and {len(b)}"
            )
        names = list(range(len(a)))
    kept_a, kept_b = [], []
    for name, u, v in zip(names, a, b, strict=True):
        if u is None or v is None:
            continue
        for value in (u, v):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float | np.integer | np.floating)
                or not math.isfinite(float(value))
            ):
                raise InvalidInputError(
                    f"{what} needs numeric scores: item {name!r} has {value!r} (finite "
                    "numbers; None for a missing one; map labels to numbers first)"
                )
        kept_a.append(float(u))
        kept_b.append(float(v))
    return np.array(kept_a, dtype=np.float64), np.array(kept_b, dtype=np.float64)


def _warned(result: Correlation, what: str) -> float:
    value, reason = result
    if value is None:
        warnings.warn(f"{what} is undefined: {reason}", UndefinedMetricWarning, stacklevel=3)
        return math.nan
    return value


def kendall_tau_result(a: np.ndarray, b: np.ndarray) -> Correlation:
    """Kendall's tau-b of two paired score arrays, or None and why it is undefined (see
    :func:`kendall_tau`); O(n^2) over blocks of 512 rows, so memory stays at 512 x n."""
    if len(a) < 2:
        return None, "fewer than two items have both scores"
    concordance = untied_a = untied_b = 0.0
    for start in range(0, len(a), 512):
        sa = np.sign(a[start : start + 512, None] - a[None, :])
        sb = np.sign(b[start : start + 512, None] - b[None, :])
        concordance += float((sa * sb).sum())
        untied_a += float(np.abs(sa).sum())
        untied_b += float(np.abs(sb).sum())
    if untied_a == 0.0 or untied_b == 0.0:
        return None, "one ordering gives every item the same rating, so no pair is ordered"
    return concordance / math.sqrt(untied_a * untied_b), None


def kendall_tau(x: Any, y: Any) -> float:
    """Kendall's tau-b between two orderings of the same items.

    Over all pairs of items with both scores, with ``P`` the pairs ordered alike by ``x`` and
    ``y``, ``Q`` the pairs ordered oppositely, ``T`` the pairs tied in ``x`` only and ``U``
    those tied in ``y`` only (pairs tied in both count in neither):

        ``tau_b = (P - Q) / sqrt((P + Q + T) (P + Q + U))``

    as ``scipy.stats.kendalltau`` computes it (its default ``variant="b"``). Undefined (NaN
    with an :class:`~ragmeter.UndefinedMetricWarning`) when fewer than two items have both
    scores or when one ordering ties every item.

    Parameters
    ----------
    x, y
        Two mappings ``item -> score`` over the same items, or two sequences of scores in the
        same item order; ``None`` for a missing score.

    Returns
    -------
    float
        tau-b in [-1, 1], or NaN when undefined.

    Raises
    ------
    InvalidInputError
        Different items, a score that is not a finite number.

    Examples
    --------
    >>> kendall_tau({"a": 0.3, "b": 0.2, "c": 0.1}, {"a": 0.25, "b": 0.3, "c": 0.1})
    0.3333333333333333
    >>> round(kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]), 4)  # 5 concordant, 1 discordant pair
    0.6667
    """
    return _warned(kendall_tau_result(*paired_scores(x, y)), "Kendall's tau")


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing the mean of the ranks they span (as scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    ordered = x[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1], [True]]))
    mean_rank = (starts[:-1] + starts[1:] + 1) / 2.0
    ranks = np.empty(len(x))
    ranks[order] = np.repeat(mean_rank, np.diff(starts))
    return ranks


def spearman_rho_result(a: np.ndarray, b: np.ndarray) -> Correlation:
    """Spearman's rho of two paired score arrays, or None and why it is undefined (see
    :func:`spearman_rho`)."""
    if len(a) < 2:
        return None, "fewer than two items have both scores"
    ra, rb = _average_ranks(a) - (len(a) + 1) / 2.0, _average_ranks(b) - (len(b) + 1) / 2.0
    denominator = math.sqrt(float(ra @ ra) * float(rb @ rb))
    if denominator == 0.0:
        return None, "one ordering gives every item the same rating, so no pair is ordered"
    return float(ra @ rb) / denominator, None


def spearman_rho(x: Any, y: Any) -> float:
    """Spearman's rank correlation: Pearson's correlation of the average ranks (ties share
    the mean rank) over the items both orderings score (``scipy.stats.spearmanr``). Undefined
    under the rule of :func:`kendall_tau`.

    Parameters
    ----------
    x, y
        Two mappings ``item -> score`` or two sequences; ``None`` for a missing score.

    Returns
    -------
    float
        rho in [-1, 1]; NaN with an :class:`~ragmeter.UndefinedMetricWarning` when undefined.

    Examples
    --------
    >>> spearman_rho([1, 2, 3, 4], [1, 3, 2, 4])
    0.8
    """
    return _warned(spearman_rho_result(*paired_scores(x, y)), "Spearman's rho")


def _strict_orderings(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Two score vectors over the same systems, every score defined, and the names."""
    if isinstance(x, Mapping) != isinstance(y, Mapping):
        raise InvalidInputError(
            "x, y: pass two mappings system -> score, or two sequences of scores in the same "
            "system order, not one of each"
        )
    if isinstance(x, Mapping):
        only_x = [s for s in x if s not in y]
        only_y = [s for s in y if s not in x]
        if only_x or only_y:
            raise InvalidInputError(
                f"x, y: the orderings must rank the same systems; only in x: {only_x[:5]}, "
                f"only in y: {only_y[:5]}"
            )
        names = [str(s) for s in x]
        a = float_array([x[s] for s in x], "x", "one score per system")
        b = float_array([y[s] for s in x], "y", "one score per system")
    else:
        a = float_array(x, "x", "one score per system")
        b = float_array(y, "y", "one score per system")
        if a.ndim != 1 or a.shape != b.shape:
            raise InvalidInputError(
                f"x, y: expected two 1-D sequences of the same length, got shapes {a.shape} "
                f"and {b.shape}"
            )
        names = [str(i) for i in range(a.size)]
    for argument, values in (("x", a), ("y", b)):
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise InvalidInputError(
                f"{argument}: system {names[bad[0]]!r} has score {values[bad[0]]}; every system "
                "needs a defined score"
            )
    if a.size < 2:
        raise InvalidInputError(f"x, y: need at least two systems to order, got {a.size}")
    return a, b, names


def tau_ap(reference: Any, other: Any) -> float:
    """The AP rank correlation tau_ap of ``other`` against ``reference`` (Yilmaz, Aslam and
    Robertson 2008), which weighs swaps near the top of the ordering more.

    Order the ``N`` systems by ``other``'s score, best first. For the system at position
    ``i >= 2``, ``C(i)`` counts the systems above it in ``other`` that ``reference`` also puts
    above it; then

        ``tau_ap = 2 / (N - 1) * sum_{i=2}^{N} C(i) / (i - 1) - 1``

    It is 1 for the same ordering and -1 for the reverse one; it is not symmetric:
    ``reference`` is the ordering taken as correct (the full judgments, all queries). Average
    ``tau_ap(x, y)`` and ``tau_ap(y, x)`` for a symmetric value.

    Ties: tau_ap is defined for strict orderings, and tied scores are refused (naming the tied
    systems) rather than broken silently: break them explicitly, or use :func:`kendall_tau`
    (tau-b) which accounts for ties.

    Parameters
    ----------
    reference
        The ordering taken as correct: a mapping ``system -> score`` or a sequence of scores.
    other
        The ordering to compare with it, over the same systems.

    Returns
    -------
    float
        tau_ap in [-1, 1].

    Raises
    ------
    InvalidInputError
        Different systems, fewer than two systems, an undefined score, tied scores.

    Examples
    --------
    >>> tau_ap({"a": 0.3, "b": 0.2, "c": 0.1}, {"a": 0.25, "b": 0.3, "c": 0.1})
    0.0
    >>> tau_ap({"a": 0.3, "b": 0.2, "c": 0.1}, {"a": 0.3, "b": 0.1, "c": 0.2})
    0.5
    """
    truth, estimate, names = _strict_orderings(reference, other)
    for argument, values in (("reference", truth), ("other", estimate)):
        order = np.argsort(values, kind="stable")
        tied = np.flatnonzero(np.diff(values[order]) == 0)
        if tied.size:
            first, second = names[order[tied[0]]], names[order[tied[0] + 1]]
            raise InvalidInputError(
                f"{argument}: systems {first!r} and {second!r} tie at {values[order[tied[0]]]}; "
                "tau_ap needs strict orderings: break the tie explicitly or use kendall_tau "
                "(tau-b)"
            )
    ranked = np.argsort(-estimate, kind="stable")
    n = ranked.size
    total = 0.0
    for i in range(1, n):
        current = ranked[i]
        above = ranked[:i]
        correct = int((truth[above] > truth[current]).sum())
        total += correct / i
    return 2.0 * total / (n - 1) - 1.0
