"""The two-way ANOVA without replication of a queries x systems matrix, and Tukey's HSD on
its residual (the topic-blocked, or paired, Tukey test).

Systems evaluated on the same queries are paired: the query (topic) effect is the largest
source of variance in IR, and a test that leaves it in the error term (the one-way ANOVA,
``scipy.stats.tukey_hsd``, ranx's ``"tukey"``) is blind to differences a paired test sees.
The two-way ANOVA without replication removes it:

``x_ij = mu + a_i (system i) + b_j (query j) + e_ij``, with ``S_A = n sum_i (mean_i -
mean)^2`` (``m - 1`` degrees of freedom), ``S_B = m sum_j (mean_j - mean)^2`` (``n - 1``) and
the residual ``S_E = S_T - S_A - S_B`` (``(n - 1)(m - 1)``), ``V_E = S_E / ((n - 1)(m - 1))``
and ``F = V_A / V_E``.

Tukey's HSD on that residual compares every pair of systems by ``q = |mean_i - mean_j| /
sqrt(V_E / n)`` against the studentized range of ``m`` means with ``(n - 1)(m - 1)`` degrees of
freedom (adjusted over all pairs), with simultaneous intervals ``mean_i - mean_j +-
q_crit sqrt(V_E / n)``; the standardised effect is ``(mean_i - mean_j) / sqrt(V_E)``.

References: B. Carterette, "Multiple testing in statistical analysis of systems-based
information retrieval experiments", ACM TOIS 30(1), 2012; T. Sakai, *Laboratory Experiments in
Information Retrieval: Sample Sizes, Effect Sizes, and Statistical Power*, Springer 2018,
chapters 3-5 (the worked example of the tests is that of Sakai's 情報アクセス評価方法論,
2015, table 5.1); J. W. Tukey, "The problem of multiple comparisons" (1953).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ._arguments import check_level, float_array
from .distributions import f_sf, studentized_range_quantile, studentized_range_sf
from .multiple import TukeyResult
from .pvalues import bound_p_value, bound_p_values, format_p_value

__all__ = ["TwoWayAnova", "paired_tukey_hsd", "two_way_anova"]


@dataclass(frozen=True)
class TwoWayAnova:
    """The two-way ANOVA without replication of a queries x systems matrix.

    Parameters
    ----------
    n_queries, n_systems
        ``n`` and ``m``: the queries (complete rows) and the systems analysed.
    n_dropped
        Queries left out because a system's value was undefined (NaN) there.
    grand_mean
        The mean of every value.
    system_means, query_means
        ``m`` and ``n`` means.
    ss_system, ss_query, ss_residual, ss_total
        The sums of squares ``S_A``, ``S_B``, ``S_E`` and ``S_T``.
    df_system, df_query, df_residual
        ``m - 1``, ``n - 1`` and ``(n - 1)(m - 1)``.
    ms_system, ms_query, ms_residual
        The mean squares ``V_A``, ``V_B`` and ``V_E`` (the residual variance).
    f_system, p_system
        The F statistic ``V_A / V_E`` of the system effect and its p-value.
    f_query, p_query
        The same for the query effect.
    """

    n_queries: int
    n_systems: int
    n_dropped: int
    grand_mean: float
    system_means: np.ndarray
    query_means: np.ndarray
    ss_system: float
    ss_query: float
    ss_residual: float
    ss_total: float
    df_system: int
    df_query: int
    df_residual: int
    ms_system: float
    ms_query: float
    ms_residual: float
    f_system: float
    p_system: float
    f_query: float
    p_query: float

    def to_dict(self) -> dict[str, Any]:
        """The table's numbers as a JSON-ready dict (NaN stays NaN).

        Returns
        -------
        dict
            Every field (the means as lists).
        """
        return {
            "n_queries": self.n_queries,
            "n_systems": self.n_systems,
            "n_dropped": self.n_dropped,
            "grand_mean": self.grand_mean,
            "system_means": self.system_means.tolist(),
            "ss_system": self.ss_system,
            "ss_query": self.ss_query,
            "ss_residual": self.ss_residual,
            "ss_total": self.ss_total,
            "df_system": self.df_system,
            "df_query": self.df_query,
            "df_residual": self.df_residual,
            "ms_system": self.ms_system,
            "ms_query": self.ms_query,
            "ms_residual": self.ms_residual,
            "f_system": self.f_system,
            "p_system": self.p_system,
            "f_query": self.f_query,
            "p_query": self.p_query,
        }

    def describe(self) -> str:
        """The system effect in one sentence, as the tables' notes say it.

        Returns
        -------
        str
            ``F(df_system, df_residual) = ..., p = ..., V_E = ... over n queries``.
        """
        p = format_p_value(self.p_system)
        f = "n/a" if math.isnan(self.f_system) else f"{self.f_system:.4g}"
        relation = "p" if p.startswith("<") or p == "n/a" else "p ="
        return (
            f"two-way ANOVA without replication over {self.n_queries} queries x "
            f"{self.n_systems} systems: system effect F({self.df_system}, {self.df_residual}) "
            f"= {f}, {relation} {p}; residual variance V_E = {self.ms_residual:.4g}"
        )


def _matrix(values: Any) -> tuple[np.ndarray, int]:
    """The complete rows of a queries x systems matrix and how many rows held NaN."""
    matrix = float_array(values, "values", "a queries x systems matrix of per-query values")
    if matrix.ndim != 2:
        raise InvalidInputError(
            f"values: expected a 2-D queries x systems matrix, got an array of shape {matrix.shape}"
        )
    if np.isinf(matrix).any():
        raise InvalidInputError("values: holds an infinite value")
    complete = ~np.isnan(matrix).any(axis=1)
    kept = matrix[complete]
    if kept.shape[1] < 2:
        raise InvalidInputError(
            f"values: the ANOVA compares at least 2 systems (columns), got {kept.shape[1]}"
        )
    if kept.shape[0] < 2:
        raise InvalidInputError(
            f"values: the ANOVA needs at least 2 queries (rows) where every system has a "
            f"value, got {kept.shape[0]}"
        )
    return kept, int(matrix.shape[0] - kept.shape[0])


def two_way_anova(values: Any) -> TwoWayAnova:
    """The two-way ANOVA without replication of ``values``, a queries x systems matrix
    (one row per query, one column per system; a query where any system's value is NaN is
    left out, and counted in ``n_dropped``).

    Parameters
    ----------
    values
        ``n x m`` per-query values.

    Returns
    -------
    TwoWayAnova
        Sums of squares, degrees of freedom, mean squares, F and p of both effects.

    Raises
    ------
    InvalidInputError
        Not a 2-D matrix, fewer than 2 systems or 2 complete queries, an infinite value.

    Examples
    --------
    The worked example of Sakai (2015, table 5.1; 2018, chapter 3): 20 topics, 3 systems.

    >>> a = [.7, .3, .2, .6, .4, .4, 0, .7, .1, .3, .5, .4, 0, .6, .5, .3, .1, .5, .2, .1]
    >>> b = [.5, .1, 0, .2, .4, .3, 0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2]
    >>> c = [0, 0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3]
    >>> anova = two_way_anova(np.column_stack([a, b, c]))
    >>> round(anova.ms_residual, 4), anova.df_residual, round(anova.f_system, 3)
    (0.0219, 38, 2.475)
    >>> round(anova.p_system, 3)
    0.098
    """
    x, dropped = _matrix(values)
    n, m = x.shape
    grand = float(x.mean())
    system_means = x.mean(axis=0)
    query_means = x.mean(axis=1)
    ss_total = float(((x - grand) ** 2).sum())
    ss_system = float(n * ((system_means - grand) ** 2).sum())
    ss_query = float(m * ((query_means - grand) ** 2).sum())
    # The residual computed directly (not S_T - S_A - S_B, which cancels when the effects
    # dominate).
    residual = x - system_means[None, :] - query_means[:, None] + grand
    ss_residual = float((residual**2).sum())
    df_system, df_query, df_residual = m - 1, n - 1, (n - 1) * (m - 1)
    ms_system, ms_query = ss_system / df_system, ss_query / df_query
    ms_residual = ss_residual / df_residual
    with np.errstate(divide="ignore", invalid="ignore"):
        f_system = float(np.float64(ms_system) / ms_residual)
        f_query = float(np.float64(ms_query) / ms_residual)
    if ms_residual == 0:
        # No residual variation: F is infinite where the effect varies, undefined where not.
        f_system = math.inf if ms_system > 0 else math.nan
        f_query = math.inf if ms_query > 0 else math.nan
    return TwoWayAnova(
        n_queries=n,
        n_systems=m,
        n_dropped=dropped,
        grand_mean=grand,
        system_means=system_means,
        query_means=query_means,
        ss_system=ss_system,
        ss_query=ss_query,
        ss_residual=ss_residual,
        ss_total=ss_total,
        df_system=df_system,
        df_query=df_query,
        df_residual=df_residual,
        ms_system=ms_system,
        ms_query=ms_query,
        ms_residual=ms_residual,
        f_system=f_system,
        p_system=bound_p_value(f_sf(f_system, df_system, df_residual)),
        f_query=f_query,
        p_query=bound_p_value(f_sf(f_query, df_query, df_residual)),
    )


@dataclass(frozen=True)
class PairedTukeyResult(TukeyResult):
    """The result of :func:`paired_tukey_hsd`: :class:`~ragmeter.stats.TukeyResult`'s
    fields (``k x k`` differences ``mean_i - mean_j``, adjusted p-values, simultaneous
    intervals, ``df = (n - 1)(m - 1)``, ``k = m``) with the ANOVA and the standardised
    effects.

    Parameters
    ----------
    anova
        The two-way ANOVA whose residual variance the test uses.
    effect_size
        ``k x k``: ``(mean_i - mean_j) / sqrt(V_E)`` (Sakai's standardised mean difference
        for multiple comparisons; NaN when ``V_E`` is 0).
    """

    anova: TwoWayAnova | None = None
    effect_size: np.ndarray | None = None


def paired_tukey_hsd(values: Any, *, confidence_level: float = 0.95) -> PairedTukeyResult:
    """Tukey's HSD test of every pair of systems of a queries x systems matrix, on the
    residual of the two-way ANOVA without replication (the query effect removed):
    ``q = |mean_i - mean_j| / sqrt(V_E / n)``, p-values from the studentized range of ``m``
    means with ``(n - 1)(m - 1)`` degrees of freedom (adjusted over all ``m (m - 1) / 2``
    pairs), simultaneous intervals ``mean_i - mean_j +- q_crit sqrt(V_E / n)``.

    Parameters
    ----------
    values
        ``n x m`` per-query values (one row per query; a query with a NaN is left out).
    confidence_level
        The level of the simultaneous intervals.

    Returns
    -------
    PairedTukeyResult
        Differences, adjusted p-values, intervals, standardised effects and the ANOVA.

    Raises
    ------
    InvalidInputError
        As :func:`two_way_anova`.

    Examples
    --------
    >>> a = [.7, .3, .2, .6, .4, .4, 0, .7, .1, .3, .5, .4, 0, .6, .5, .3, .1, .5, .2, .1]
    >>> b = [.5, .1, 0, .2, .4, .3, 0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2]
    >>> c = [0, 0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3]
    >>> result = paired_tukey_hsd(np.column_stack([a, b, c]))
    >>> result.effect_size[0].round(4).tolist()  # Sakai's ES_E of A against A, B and C
    [0.0, 0.507, 0.676]
    """
    level = check_level("confidence_level", confidence_level)
    anova = two_way_anova(values)
    n, m = anova.n_queries, anova.n_systems
    means = anova.system_means
    differences = means[:, None] - means[None, :]
    standard_error = math.sqrt(anova.ms_residual / n)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.abs(differences) / standard_error
        effect = differences / math.sqrt(anova.ms_residual)
    if anova.ms_residual == 0:
        q = np.where(differences == 0, math.nan, math.inf)
        effect = np.full(differences.shape, math.nan)
    # One p-value per pair (q is symmetric): the upper triangle, mirrored.
    upper = np.triu_indices(m, 1)
    p = np.ones((m, m))
    p[upper] = bound_p_values(studentized_range_sf(q[upper], m, anova.df_residual))
    p.T[upper] = p[upper]
    margin = studentized_range_quantile(level, m, anova.df_residual) * standard_error
    return PairedTukeyResult(
        statistic=differences,
        p_value=p,
        ci_low=differences - margin,
        ci_high=differences + margin,
        confidence_level=level,
        df=float(anova.df_residual),
        k=m,
        anova=anova,
        effect_size=effect,
    )
