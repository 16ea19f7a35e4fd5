"""p-values below the double-precision floor, and how every output format shows a p-value
(re-exported by :mod:`ragmeter.stats.pvalues`; here, below the statistics, so that the figures
use it too without importing them).

A p-value computed from a distribution in double precision (the t, normal, F and studentized
range tails) carries no information below about ``1e-16``: below it, digits are rounding, and
an underflow gives exactly 0, which no test can mean. ragmeter therefore reports every
p-value below :data:`P_VALUE_FLOOR` as the bound itself: the number saved (JSON, YAML, TOML,
CSV) is ``1e-16`` and every rendering (text, Markdown, LaTeX, the HTML report) reads
``< 1e-16``, never 0 (as R's ``format.pval`` prints ``< 2.2e-16``). Randomisation tests never
reach it (their smallest p-value is ``1 / 2^24`` when exact, ``1 / (B + 1)`` when sampled).

:func:`bound_p_values` applies the rule where p-values are made (the comparison engine, the
tests on arrays, the ANOVA, the gate); :func:`format_p_value` is the one place
that writes a p-value as text (the LaTeX tables escape its ``<`` as ``$<$``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "P_VALUE_BOUND_TEXT",
    "P_VALUE_FLOOR",
    "bound_p_value",
    "bound_p_values",
    "format_p_value",
    "is_bound",
]

#: The smallest p-value ragmeter reports: smaller ones are reported as this bound.
P_VALUE_FLOOR = 1e-16
#: How a p-value at the floor is written.
P_VALUE_BOUND_TEXT = "< 1e-16"


def bound_p_values(p: Any) -> np.ndarray:
    """``p`` (an array) with every value below :data:`P_VALUE_FLOOR` (0 included) replaced by
    the floor; NaN (undefined) stays NaN.

    Examples
    --------
    >>> bound_p_values([0.0, 9e-27, 0.03, float("nan")]).tolist()
    [1e-16, 1e-16, 0.03, nan]
    """
    array = np.array(p, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        array[array < P_VALUE_FLOOR] = P_VALUE_FLOOR
    return array


def bound_p_value(p: float) -> float:
    """One p-value under the rule of :func:`bound_p_values`.

    Examples
    --------
    >>> bound_p_value(0.0), bound_p_value(0.5)
    (1e-16, 0.5)
    """
    return p if math.isnan(p) or p >= P_VALUE_FLOOR else P_VALUE_FLOOR


def is_bound(p: float | None) -> bool:
    """Whether ``p`` is the floor (or below it): a bound, not a value."""
    return p is not None and not math.isnan(p) and p <= P_VALUE_FLOOR


def format_p_value(p: float | None, *, undefined: str = "n/a") -> str:
    """A p-value as text: 4 decimals, 1 significant digit in exponent form below ``1e-4``,
    ``< 1e-16`` at the floor, ``undefined`` for None or NaN.

    Examples
    --------
    >>> format_p_value(0.03125), format_p_value(2.3e-7), format_p_value(0.0)
    ('0.0312', '2.3e-07', '< 1e-16')
    """
    if p is None or math.isnan(p):
        return undefined
    if is_bound(p):
        return P_VALUE_BOUND_TEXT
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"
