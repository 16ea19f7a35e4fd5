"""Abstention curves and their normalised area (nAUC): how well a confidence score tells the
queries a system answers well from those it answers badly.

Gisserot-Boukhlef, Faysse, Malherbe, Hudelot and Colombo, "Towards Trustworthy Reranking: A
Simple yet Effective Abstention Mechanism", TMLR 2024 (arXiv 2402.12997), as mteb reports it
(``nAUC_<metric>_<confidence>`` of its retrieval tasks): at each abstention rate, the system
abstains on that share of the queries with the lowest confidence and is scored by the mean of
the metric over the others. The area under that curve is normalised between the flat curve
(abstaining changes nothing, 0) and the oracle's (abstaining on the worst queries first, 1).

Queries of equal confidence: a rate can leave out part of them, and which part would then
depend on the order the queries are given in. By default (``ties="mean"``) each query of a
group of equal confidence counts with the group's mean value, the expected value over the
orders of the group (mteb since 2.26.5, its PR 5613); ``ties="given"`` leaves them out in the
order given (a stable sort: mteb up to 2.26.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..exceptions import InvalidInputError

__all__ = [
    "DEFAULT_ABSTENTION_RATES",
    "TieRule",
    "abstention_curve",
    "normalized_abstention_auc",
]

#: The abstention rates mteb reads the curve at: 0.0, 0.1, ..., 0.9.
DEFAULT_ABSTENTION_RATES: npt.NDArray[np.float64] = np.linspace(0, 1, 11)[:-1]

#: How queries of equal confidence are left out: ``"mean"`` (each counts with its group's mean
#: value) or ``"given"`` (in the order given).
TieRule = Literal["mean", "given"]


def _checked(
    confidences: Sequence[float] | npt.NDArray[np.floating],
    values: Sequence[float] | npt.NDArray[np.floating],
    rates: Sequence[float] | npt.NDArray[np.floating],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    conf = np.asarray(confidences, dtype=np.float64)
    vals = np.asarray(values, dtype=np.float64)
    r = np.asarray(rates, dtype=np.float64)
    if conf.ndim != 1 or vals.ndim != 1 or conf.shape != vals.shape or conf.size == 0:
        raise InvalidInputError(
            f"confidences and values must be two non-empty 1-d arrays of one length, got "
            f"shapes {conf.shape} and {vals.shape}"
        )
    if r.ndim != 1 or r.size < 2 or np.any(np.diff(r) <= 0) or r[0] < 0 or r[-1] >= 1:
        raise InvalidInputError(
            f"abstention_rates must be at least two increasing rates in [0, 1), got {rates!r}"
        )
    return conf, vals, r


def abstention_curve(
    confidences: Sequence[float] | npt.NDArray[np.floating],
    values: Sequence[float] | npt.NDArray[np.floating],
    abstention_rates: Sequence[float] | npt.NDArray[np.floating] = DEFAULT_ABSTENTION_RATES,
    *,
    ties: TieRule = "mean",
) -> npt.NDArray[np.float64]:
    """The mean of ``values`` over the queries kept at each abstention rate.

    At rate a, the ``min(round(a * n), n - 1)`` queries with the lowest confidence are left out,
    so at least one query is kept. Among queries of equal confidence, with ``ties="mean"``
    (the default, mteb since 2.26.5) each counts with the mean value of its group, so the curve
    is the expected one over the orders of each group; with ``ties="given"`` they are left out
    in the order given (a stable sort, mteb up to 2.26.4).

    Parameters
    ----------
    confidences
        A confidence score per query (higher: more confident).
    values
        The metric per query.
    abstention_rates
        Increasing rates in [0, 1) (default: 0.0, 0.1, ..., 0.9).
    ties
        ``"mean"`` or ``"given"``.

    Returns
    -------
    numpy.ndarray
        The mean at each rate.

    Examples
    --------
    >>> abstention_curve([0.9, 0.1, 0.5], [1.0, 0.0, 0.5], [0.0, 0.5]).tolist()
    [0.5, 1.0]
    >>> abstention_curve([0.5, 0.5], [1.0, 0.0], [0.0, 0.5]).tolist()
    [0.5, 0.5]
    >>> abstention_curve([0.5, 0.5], [1.0, 0.0], [0.0, 0.5], ties="given").tolist()
    [0.5, 0.0]
    """
    conf, vals, rates = _checked(confidences, values, abstention_rates)
    if ties not in ("mean", "given"):
        raise InvalidInputError(f"ties must be 'mean' or 'given', got {ties!r}")
    order = np.argsort(conf, kind="stable")
    ordered = vals[order]
    if ties == "mean":
        # Each group of equal confidence (adjacent once sorted) counts with its mean, summed
        # and divided as mteb does (np.add.reduceat, then the group's size).
        sorted_conf = conf[order]
        starts = np.flatnonzero(np.r_[True, sorted_conf[1:] != sorted_conf[:-1]])
        sizes = np.diff(np.r_[starts, len(sorted_conf)])
        ordered = np.repeat(np.add.reduceat(ordered, starts) / sizes, sizes)
    n = order.shape[0]
    curve = np.zeros(len(rates))
    for i, rate in enumerate(rates):
        # Python's round of a double: halves to even, as mteb rounds.
        left_out = min(round(rate * n), n - 1)
        curve[i] = ordered[left_out:].mean()
    return curve


def normalized_abstention_auc(
    confidences: Sequence[float] | npt.NDArray[np.floating],
    values: Sequence[float] | npt.NDArray[np.floating],
    abstention_rates: Sequence[float] | npt.NDArray[np.floating] = DEFAULT_ABSTENTION_RATES,
    *,
    ties: TieRule = "mean",
) -> float:
    """The normalised area under the abstention curve (nAUC).

    ``(AUC - flat) / (oracle - flat)``: AUC the trapezoidal area under
    :func:`abstention_curve`, oracle the area of the curve that abstains on the lowest values
    first (the confidence is the value itself), flat ``oracle_curve[0] * (last rate - first
    rate)``, the area of a curve that stays at the mean over all queries.

    Parameters
    ----------
    confidences, values, abstention_rates, ties
        As :func:`abstention_curve` (the oracle's curve is the same with either rule: its
        tied queries have equal values).

    Returns
    -------
    float
        At most 1 (the oracle's); 0 for a confidence that tells nothing; NaN when the oracle's
        area is the flat one (every value equal, for instance: nothing to tell apart).

    Examples
    --------
    >>> normalized_abstention_auc([0.9, 0.1, 0.5], [1.0, 0.0, 0.5])
    1.0
    """
    conf, vals, rates = _checked(confidences, values, abstention_rates)
    curve = abstention_curve(conf, vals, rates, ties=ties)
    oracle = abstention_curve(vals, vals, rates, ties=ties)
    area = float(np.trapezoid(curve, rates))
    oracle_area = float(np.trapezoid(oracle, rates))
    flat_area = float(oracle[0] * (rates[-1] - rates[0]))
    if oracle_area == flat_area:
        return float("nan")
    return (area - flat_area) / (oracle_area - flat_area)
