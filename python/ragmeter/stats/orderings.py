"""Agreement between two orderings of systems: Kendall's tau-b and the AP correlation tau_ap.

Typical orderings: the systems' means under two metrics, under two sets of judgments, or over
all queries and a subsample of them. Each ordering is a mapping ``system -> score`` (higher is
better), both over the same systems, or two sequences of scores in the same system order.

References: M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33(3),
1945 (tau-b); E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation coefficient for
information retrieval", SIGIR 2008 (tau_ap); E. M. Voorhees, "Evaluation by highly relevant
documents", SIGIR 2001 (tau between system orderings in IR).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ._arguments import float_array

__all__ = ["kendall_tau", "tau_ap"]


def _paired(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Two score vectors over the same systems, and the systems' names."""
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


def kendall_tau(x: Any, y: Any) -> float:
    """Kendall's tau-b between two orderings of the same systems.

    Over all pairs of systems, with ``P`` the pairs ordered alike by ``x`` and ``y``, ``Q`` the
    pairs ordered oppositely, ``T`` the pairs tied in ``x`` only and ``U`` those tied in ``y``
    only (pairs tied in both count in neither):

        ``tau_b = (P - Q) / sqrt((P + Q + T) (P + Q + U))``

    as ``scipy.stats.kendalltau`` computes it (its default ``variant="b"``). Undefined (NaN)
    when every system ties in ``x`` or in ``y``.

    Parameters
    ----------
    x, y
        Two mappings ``system -> score`` over the same systems, or two sequences of scores in
        the same system order.

    Returns
    -------
    float
        tau-b in [-1, 1], or NaN when undefined.

    Raises
    ------
    InvalidInputError
        Different systems, fewer than two systems, an undefined score.

    Examples
    --------
    >>> kendall_tau({"a": 0.3, "b": 0.2, "c": 0.1}, {"a": 0.25, "b": 0.3, "c": 0.1})
    0.3333333333333333
    """
    a, b, _ = _paired(x, y)
    i, j = np.triu_indices(a.size, 1)
    sign_a = np.sign(a[i] - a[j])
    sign_b = np.sign(b[i] - b[j])
    product = sign_a * sign_b
    concordant = int((product > 0).sum())
    discordant = int((product < 0).sum())
    ties_a_only = int(((sign_a == 0) & (sign_b != 0)).sum())
    ties_b_only = int(((sign_b == 0) & (sign_a != 0)).sum())
    denominator = (concordant + discordant + ties_a_only) * (concordant + discordant + ties_b_only)
    if denominator == 0:
        return math.nan
    return (concordant - discordant) / math.sqrt(denominator)


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
    truth, estimate, names = _paired(reference, other)
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
