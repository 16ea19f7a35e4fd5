"""Many tests at once: p-value corrections and Tukey's HSD.

* :func:`adjust_p_values`: Holm, Bonferroni (family-wise error rate) and Benjamini-Hochberg
  (false discovery rate) adjusted p-values, as ``statsmodels.stats.multitest.multipletests``
  computes them (``holm``, ``bonferroni``, ``fdr_bh``);
* :func:`tukey_hsd`: Tukey's honestly significant difference test of all pairs of groups, as
  ``scipy.stats.tukey_hsd`` computes it (ranx's ``stat_test="tukey"``).

References: S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J.
Statist. 6(2), 1979; Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
J. R. Statist. Soc. B 57(1), 1995; J. W. Tukey, "The problem of multiple comparisons" (1953);
C. Y. Kramer, "Extension of multiple range tests to group means with unequal numbers of
replications", Biometrics 12(3), 1956; B. Carterette, "Multiple testing in statistical
analysis of systems-based information retrieval experiments", ACM TOIS 30(1), 2012.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..exceptions import InputTypeError, InvalidInputError
from ._arguments import check_level, float_array
from .distributions import studentized_range_quantile, studentized_range_sf
from .pvalues import bound_p_values

__all__ = ["CORRECTIONS", "Correction", "TukeyResult", "adjust_p_values", "tukey_hsd"]

Correction = Literal["holm", "bonferroni", "bh"]
#: The corrections :func:`adjust_p_values` applies, with what they control.
CORRECTIONS: dict[str, str] = {
    "holm": "Holm's step-down method (family-wise error rate)",
    "bonferroni": "Bonferroni's method (family-wise error rate)",
    "bh": "the Benjamini-Hochberg method (false discovery rate)",
}


def adjust_p_values(p_values: Any, method: Correction = "holm") -> np.ndarray:
    """Adjusted p-values of a family of tests (NaN entries are left out of the family and stay
    NaN); a test is rejected at level ``alpha`` when its adjusted p-value is ``<= alpha``.

    * ``"holm"`` (Holm 1979): sort the ``m`` p-values ascending; the ``i``-th (1-based) becomes
      ``min(1, max_{j <= i} (m - j + 1) p_(j))``. It controls the family-wise error rate like
      Bonferroni and rejects at least as often.
    * ``"bonferroni"``: ``min(1, m p)``.
    * ``"bh"`` (Benjamini and Hochberg 1995): the ``i``-th smallest becomes
      ``min(1, min_{j >= i} m p_(j) / j)``; it controls the false discovery rate (the
      expected share of false rejections among the rejections) for independent or positively
      dependent tests.

    Parameters
    ----------
    p_values
        The family's p-values (any shape; NaN entries are left out).
    method
        ``"holm"`` (default), ``"bonferroni"`` or ``"bh"``.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the shape of ``p_values``.

    Raises
    ------
    InvalidInputError
        An unknown ``method``, a p-value outside [0, 1].

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.005]).round(6).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.005], "bh").round(6).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    p = float_array(p_values, "p_values", "the p-values of the family")
    if method not in CORRECTIONS:
        raise InvalidInputError(
            f"method: must be one of {', '.join(map(repr, CORRECTIONS))}, got {method!r}"
        )
    flat = p.ravel()
    adjusted = np.full(flat.shape, math.nan)
    defined = np.flatnonzero(~np.isnan(flat))
    if np.any((flat[defined] < 0) | (flat[defined] > 1)):
        raise InvalidInputError("p_values: every p-value must lie in [0, 1]")
    m = defined.size
    if m == 0:
        return adjusted.reshape(p.shape)
    if method == "bonferroni":
        adjusted[defined] = np.minimum(1.0, flat[defined] * m)
        return adjusted.reshape(p.shape)
    order = defined[np.argsort(flat[defined], kind="stable")]
    ordered = flat[order]
    if method == "holm":
        steps = np.minimum(1.0, (m - np.arange(m)) * ordered)
        adjusted[order] = np.maximum.accumulate(steps)
    else:
        steps = ordered * m / np.arange(1, m + 1)
        adjusted[order] = np.minimum(1.0, np.minimum.accumulate(steps[::-1])[::-1])
    return adjusted.reshape(p.shape)


@dataclass(frozen=True)
class TukeyResult:
    """The result of :func:`tukey_hsd`.

    Parameters
    ----------
    statistic
        ``k x k``: the mean of group ``i`` minus the mean of group ``j``.
    p_value
        ``k x k``: p-values adjusted over all pairs.
    ci_low, ci_high
        ``k x k``: simultaneous confidence intervals of the differences.
    confidence_level
        Their level.
    df
        The degrees of freedom of the pooled variance.
    k
        The number of groups.
    """

    statistic: np.ndarray
    p_value: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    confidence_level: float
    df: float
    k: int


def tukey_hsd(groups: Any, *, confidence_level: float = 0.95) -> TukeyResult:
    """Tukey's HSD test of every pair of ``groups`` (a sequence of 1-D samples, or a 2-D array
    with one group per row; NaN entries are left out), as ``scipy.stats.tukey_hsd(*groups)``:
    the pooled variance ``MSE`` of the groups with ``N - k`` degrees of freedom, the standard
    error ``sqrt(MSE / 2 * (1 / n_i + 1 / n_j))`` (Tukey-Kramer) and p-values from the
    studentized range distribution of ``k`` means, adjusted over all ``k (k - 1) / 2`` pairs.

    The groups are treated as independent samples, as scipy and ranx treat them; the
    per-query values of systems are paired (every system on the same queries), so this test is
    conservative for them (Carterette 2012 removes the query effect with a two-way ANOVA).

    Parameters
    ----------
    groups
        A sequence of 1-D samples, or a 2-D array with one group per row.
    confidence_level
        The level of the simultaneous intervals.

    Returns
    -------
    TukeyResult
        Differences, adjusted p-values and intervals of every pair of groups.

    Raises
    ------
    InvalidInputError
        Fewer than 2 groups, a group with fewer than 2 values.

    Examples
    --------
    >>> result = tukey_hsd([[24.5, 23.5, 26.4, 27.1, 29.9], [28.4, 34.2, 29.5, 32.2, 30.1],
    ...                     [26.1, 28.3, 24.3, 26.2, 27.8]])
    >>> result.p_value.round(3).tolist()[0]
    [1.0, 0.014, 0.98]
    """
    level = check_level("confidence_level", confidence_level)
    expected = "a sequence of 1-D samples, or a 2-D array with one group per row"
    if isinstance(groups, str | bytes) or not isinstance(groups, Iterable):
        raise InputTypeError(f"groups: expected {expected}, got {type(groups).__name__}")
    samples = [float_array(g, f"groups[{i}]", "the group's values") for i, g in enumerate(groups)]
    for i, sample in enumerate(samples):
        if sample.ndim != 1:
            raise InvalidInputError(
                f"groups[{i}]: a group is a 1-D sample, got an array of shape {sample.shape}"
            )
        if np.isinf(sample).any():
            raise InvalidInputError(f"groups[{i}]: holds an infinite value")
    samples = [s[~np.isnan(s)] for s in samples]
    k = len(samples)
    if k < 2:
        raise InvalidInputError(f"groups: Tukey's HSD compares at least 2 groups, got {k}")
    sizes = np.array([s.size for s in samples], dtype=np.float64)
    if (sizes < 2).any():
        raise InvalidInputError("groups: every group needs at least 2 values")
    means = np.array([s.mean() for s in samples])
    variances = np.array([s.var(ddof=1) for s in samples])
    df = float(sizes.sum() - k)
    mse = float(np.sum(variances * (sizes - 1)) / df)
    if np.unique(sizes).size == 1:
        normalize = np.full((k, k), 2.0 / sizes[0])
    else:
        normalize = 1.0 / sizes + 1.0 / sizes[:, None]
    standard_error = np.sqrt(normalize * mse / 2.0)
    differences = means[:, None] - means[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.abs(differences) / standard_error
    p = bound_p_values(studentized_range_sf(q, k, df))
    margin = studentized_range_quantile(level, k, df) * standard_error
    return TukeyResult(
        statistic=differences,
        p_value=p,
        ci_low=differences - margin,
        ci_high=differences + margin,
        confidence_level=level,
        df=df,
        k=k,
    )
