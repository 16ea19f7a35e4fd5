"""Paired significance tests between systems evaluated on the same queries.

* :func:`sign_flip_test`: the two-sided paired sign-flip (Fisher randomisation) test of many
  metrics at once, exact up to 16 pairs and seeded sampling beyond, in the Rust core.
* :func:`bootstrap_confidence_interval`: a percentile bootstrap interval of a mean difference.
* :func:`adjust_p_values`: Holm (or Bonferroni) correction for a family of tests.
* :func:`compare_evaluations` (also ``candidate.compare(baseline)``) and :func:`compare_many`:
  per-metric deltas, wins, ties, losses, p-values and confidence intervals.

References: R. A. Fisher, *The Design of Experiments* (1935); M. D. Smucker, J. Allan and
B. Carterette, "A comparison of statistical significance tests for information retrieval
evaluation", CIKM 2007; B. Phipson and G. K. Smyth, "Permutation p-values should never be
zero", Stat. Appl. Genet. Mol. Biol. 9(1), 2010; S. Holm, "A simple sequentially rejective
multiple test procedure", Scand. J. Statist. 6(2), 1979; B. Efron and R. Tibshirani,
*An Introduction to the Bootstrap* (1993).
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from . import _core
from .exceptions import InvalidInputError
from .options import check_n_threads
from .reports import check_metric_names, metric_value, report_number

if TYPE_CHECKING:
    from .harness import RetrievalEvaluation

__all__ = [
    "EXACT_MAX_PAIRS",
    "Comparison",
    "MetricComparison",
    "MultipleComparison",
    "SignFlipResult",
    "adjust_p_values",
    "bootstrap_confidence_interval",
    "compare_evaluations",
    "compare_many",
    "sign_flip_test",
]

#: ``method="auto"`` enumerates every sign vector up to this many pairs, and samples beyond.
EXACT_MAX_PAIRS = 16
#: The exact test refuses more pairs than this (2^24 sign vectors).
EXACT_LIMIT = 24
#: Seed offset of the bootstrap, so that it does not reuse the sign-flip test's random stream.
_BOOTSTRAP_STREAM = 0x3007_5724_9C1D_E5A1
# Seeds stay below 2**63 so that every report format (TOML integers are signed 64-bit) keeps them.
_SEED_LIMIT = 2**63

Method = Literal["auto", "exact", "sampled"]
COMPARISON_KIND = "ragmeter.comparison"
MULTIPLE_COMPARISON_KIND = "ragmeter.multiple_comparison"


def _seed(random_state: int | None) -> int:
    if random_state is None:
        return secrets.randbelow(_SEED_LIMIT)
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise InvalidInputError(
            f"random_state: must be an int in [0, 2**63) or None (fresh entropy, recorded in "
            f"the result), got {random_state!r}"
        )
    if not 0 <= int(random_state) < _SEED_LIMIT:
        raise InvalidInputError(f"random_state: must lie in [0, 2**63), got {random_state}")
    return int(random_state)


def _positive_int(argument: str, value: object, *, allow_zero: bool = False) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or int(value) < (0 if allow_zero else 1)
    ):
        bound = ">= 0" if allow_zero else ">= 1"
        raise InvalidInputError(f"{argument}: must be an int {bound}, got {value!r}")
    return int(value)


def _matrix(differences: Any) -> tuple[np.ndarray, bool]:
    array = np.asarray(differences, dtype=np.float64)
    if array.ndim == 1:
        return np.ascontiguousarray(array[None, :]), True
    if array.ndim == 2:
        return np.ascontiguousarray(array), False
    raise InvalidInputError(
        f"differences: expected one row of per-pair differences or a 2-D array (one row per "
        f"metric), got an array of shape {array.shape}"
    )


@dataclass(frozen=True)
class SignFlipResult:
    """p-values of :func:`sign_flip_test` (a float for 1-D input, an array per row for 2-D),
    the counts of sign vectors at least as extreme as the observed one, how many sign vectors
    were examined (``2**n_pairs`` when exact) and the seed (None when exact)."""

    p_value: Any
    count: Any
    n_patterns: int
    method: Literal["exact", "sampled"]
    n_pairs: int
    random_state: int | None


def sign_flip_test(
    differences: Any,
    *,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> SignFlipResult:
    """Two-sided paired sign-flip randomisation test of mean differences.

    ``differences`` holds, for each pair ``i`` (a query), the candidate's score minus the
    baseline's: one row (one test) or a 2-D array with one row per metric, in which case
    every row is tested with the same sign vectors. Under the null hypothesis each difference
    is as likely to have either sign; the p-value is the share of sign vectors ``s`` with

        ``|sum_i s_i d_i| >= |sum_i d_i| - 1e-9 * sum_i |d_i|``

    (the tolerance only absorbs floating-point rounding, so ties count).

    * ``method="exact"`` enumerates all ``2**n`` sign vectors, the identity included, so
      ``p = count / 2**n`` and the smallest possible p-value is ``2 / 2**n`` (at most 24 pairs).
    * ``method="sampled"`` draws ``n_resamples`` sign vectors from ``random_state``, and
      ``p = (count + 1) / (n_resamples + 1)`` (never 0; Phipson and Smyth 2010). The signs come
      from a portable generator in fixed batches, so the result is the same for any
      ``n_threads`` and any platform.
    * ``method="auto"`` (default) is exact up to 16 pairs and sampled beyond.

    All-zero differences give p = 1. Undefined (NaN) differences are refused: drop those
    pairs first (or set them to 0, which for this statistic is the same as dropping them).
    """
    matrix, single = _matrix(differences)
    if method not in ("auto", "exact", "sampled"):
        raise InvalidInputError(f"method: must be 'auto', 'exact' or 'sampled', got {method!r}")
    n_pairs = matrix.shape[1]
    exact = method == "exact" or (method == "auto" and n_pairs <= EXACT_MAX_PAIRS)
    if exact and n_pairs > EXACT_LIMIT:
        raise InvalidInputError(
            f"method='exact' enumerates 2**n sign vectors and is limited to {EXACT_LIMIT} "
            f"pairs, got {n_pairs}; use method='sampled' or 'auto'"
        )
    resamples = _positive_int("n_resamples", n_resamples)
    seed = None if exact else _seed(random_state)
    p_values, counts, n_patterns = _core.sign_flip_test(
        matrix,
        exact=exact,
        n_resamples=resamples,
        seed=0 if seed is None else seed,
        n_threads=check_n_threads(n_threads),
    )
    return SignFlipResult(
        p_value=float(p_values[0]) if single else p_values,
        count=int(counts[0]) if single else counts,
        n_patterns=int(n_patterns),
        method="exact" if exact else "sampled",
        n_pairs=n_pairs,
        random_state=seed,
    )


def bootstrap_confidence_interval(
    differences: Any,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> tuple[Any, Any]:
    """Percentile bootstrap interval of the mean of ``differences`` (one row, or one row per
    metric resampled with the same pairs); NaN entries are left out of each resample's mean.

    Each of ``n_resamples`` resamples draws the pairs with replacement (from a portable
    generator in fixed batches, independent of ``n_threads``); the interval is the
    ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2`` quantiles of the resampled
    means (linear interpolation). Returns ``(low, high)``: floats for one row, arrays for 2-D.
    """
    matrix, single = _matrix(differences)
    if not isinstance(confidence_level, float | int) or not 0.0 < confidence_level < 1.0:
        raise InvalidInputError(
            f"confidence_level: must lie strictly between 0 and 1, got {confidence_level!r}"
        )
    resamples = _positive_int("n_resamples", n_resamples)
    seed = _seed(random_state)
    means = _core.bootstrap_mean_differences(
        matrix, n_resamples=resamples, seed=seed, n_threads=check_n_threads(n_threads)
    )
    alpha = (1.0 - confidence_level) / 2.0
    low = np.full(matrix.shape[0], math.nan)
    high = np.full(matrix.shape[0], math.nan)
    for row in range(matrix.shape[0]):
        defined = means[row][~np.isnan(means[row])]
        if defined.size:
            low[row], high[row] = np.quantile(defined, [alpha, 1.0 - alpha])
    if single:
        return float(low[0]), float(high[0])
    return low, high


def adjust_p_values(p_values: Any, method: Literal["holm", "bonferroni"] = "holm") -> np.ndarray:
    """Family-wise adjusted p-values (NaN entries are left out of the family and stay NaN).

    * Holm (1979): sort the ``m`` p-values ascending; the ``i``-th (1-based) becomes
      ``min(1, max_{j <= i} (m - j + 1) p_(j))``. It controls the family-wise error rate like
      Bonferroni and rejects at least as often.
    * Bonferroni: ``min(1, m p)``.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if method not in ("holm", "bonferroni"):
        raise InvalidInputError(f"method: must be 'holm' or 'bonferroni', got {method!r}")
    flat = p.ravel()
    adjusted = np.full(flat.shape, math.nan)
    defined = np.flatnonzero(~np.isnan(flat))
    if np.any((flat[defined] < 0) | (flat[defined] > 1)):
        raise InvalidInputError("p_values: every p-value must lie in [0, 1]")
    m = defined.size
    if method == "bonferroni":
        adjusted[defined] = np.minimum(1.0, flat[defined] * m)
    else:
        order = defined[np.argsort(flat[defined], kind="stable")]
        running = 0.0
        for i, index in enumerate(order):
            running = max(running, min(1.0, (m - i) * flat[index]))
            adjusted[index] = running
    return adjusted.reshape(p.shape)


@dataclass(frozen=True)
class MetricComparison:
    """One metric of a comparison.

    ``delta`` is the mean over paired queries of candidate minus baseline (the queries where
    both values are defined; ``n_pairs`` of them); ``wins``/``ties``/``losses`` count queries
    where the candidate scored higher/equal/lower. ``p_value`` is the two-sided paired
    sign-flip p-value; ``ci_low``/``ci_high`` a percentile bootstrap interval of ``delta``;
    ``p_value_adjusted`` the multiple-comparison adjusted p-value (:func:`compare_many`).
    """

    metric: str
    delta: float
    wins: int
    ties: int
    losses: int
    p_value: float
    n_pairs: int
    candidate_mean: float
    baseline_mean: float
    ci_low: float | None = None
    ci_high: float | None = None
    p_value_adjusted: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "delta": self.delta,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "p_value": self.p_value,
            "n_pairs": self.n_pairs,
            "candidate_mean": self.candidate_mean,
            "baseline_mean": self.baseline_mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "p_value_adjusted": self.p_value_adjusted,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetricComparison:
        """Rebuild one metric of a comparison report, checking every field (a report read
        from a file may have been edited)."""
        metric = check_metric_names([data["metric"]], "metric")[0]
        where = f"metric {metric!r}"

        def count(key: str) -> int:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"{where}: {key} must be a count, got {value!r}")
            return value

        def optional(key: str, check: Any) -> float | None:
            value = data.get(key)
            return None if value is None else float(check(value, f"{where}: {key}"))

        def difference(value: Any, field: str) -> float:
            return metric_value(value, field, difference=True)

        def probability(value: Any, field: str) -> float:
            return report_number(value, field, minimum=0.0, maximum=1.0)

        wins, ties, losses, n_pairs = (count(k) for k in ("wins", "ties", "losses", "n_pairs"))
        if wins + ties + losses != n_pairs:
            raise InvalidInputError(f"{where}: wins + ties + losses must equal n_pairs")
        return cls(
            metric=metric,
            delta=difference(data.get("delta"), f"{where}: delta"),
            wins=wins,
            ties=ties,
            losses=losses,
            p_value=probability(data.get("p_value"), f"{where}: p_value"),
            n_pairs=n_pairs,
            candidate_mean=metric_value(data.get("candidate_mean"), f"{where}: candidate_mean"),
            baseline_mean=metric_value(data.get("baseline_mean"), f"{where}: baseline_mean"),
            ci_low=optional("ci_low", difference),
            ci_high=optional("ci_high", difference),
            p_value_adjusted=optional("p_value_adjusted", probability),
        )


def _same(a: Any, b: Any) -> bool:
    from .harness import _canonical

    return bool(_canonical(a) == _canonical(b))


@dataclass(frozen=True, eq=False)
class Comparison:
    """A candidate against a baseline on the same queries, metric by metric.

    ``metrics`` holds a :class:`MetricComparison` per metric (also reachable as
    ``comparison["ndcg@10"]``); ``differences`` the per-query differences (NaN where a value
    is undefined), aligned with ``query_ids``. ``method`` is ``"exact"`` or ``"sampled"``,
    ``n_resamples`` the number of sign vectors examined, ``random_state`` the seed of the
    sampled test and of the bootstrap.
    """

    candidate: str
    baseline: str
    metrics: tuple[MetricComparison, ...]
    query_ids: tuple[Any, ...]
    differences: Mapping[str, tuple[float, ...]]
    method: str
    n_resamples: int
    random_state: int | None
    confidence_level: float | None
    n_bootstrap: int

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Comparison):
            return NotImplemented
        return _same(self.to_dict(), other.to_dict())

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, metric: str) -> MetricComparison:
        for item in self.metrics:
            if item.metric == metric:
                return item
        raise KeyError(f"{metric!r} is not compared here; metrics: {self.metric_names}")

    @property
    def metric_names(self) -> list[str]:
        return [m.metric for m in self.metrics]

    @property
    def n_pairs(self) -> int:
        return len(self.query_ids)

    @property
    def per_query(self) -> dict[str, dict[Any, float]]:
        """``{metric: {query_id: candidate - baseline}}``."""
        return {
            metric: dict(zip(self.query_ids, values, strict=True))
            for metric, values in self.differences.items()
        }

    def __repr__(self) -> str:
        return (
            f"Comparison(candidate={self.candidate!r}, baseline={self.baseline!r}, "
            f"n_pairs={self.n_pairs}, method={self.method!r}, metrics={self.metric_names})"
        )

    def __str__(self) -> str:
        return self.to_table()

    def to_table(self, digits: int = 4) -> str:
        """A plain-text table: one line per metric."""
        header = ["metric", "baseline", "candidate", "delta", "W/T/L", "p-value"]
        if self.confidence_level is not None:
            header.insert(4, f"{self.confidence_level:.0%} CI")
        adjusted = any(m.p_value_adjusted is not None for m in self.metrics)
        if adjusted:
            header.append("adjusted p")
        rows = [header]
        for m in self.metrics:
            row = [
                m.metric,
                f"{m.baseline_mean:.{digits}f}",
                f"{m.candidate_mean:.{digits}f}",
                f"{m.delta:+.{digits}f}",
                f"{m.wins}/{m.ties}/{m.losses}",
                _format_p(m.p_value),
            ]
            if self.confidence_level is not None:
                row.insert(
                    4,
                    "n/a"
                    if m.ci_low is None or m.ci_high is None
                    else f"[{m.ci_low:+.{digits}f}, {m.ci_high:+.{digits}f}]",
                )
            if adjusted:
                row.append(_format_p(m.p_value_adjusted))
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = [
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in rows
        ]
        title = (
            f"{self.candidate} vs {self.baseline}: {self.n_pairs} paired queries, "
            f"{'exact' if self.method == 'exact' else 'sampled'} sign-flip test "
            f"({self.n_resamples} sign vectors"
            + (f", seed {self.random_state}" if self.method == "sampled" else "")
            + ")"
        )
        return "\n".join([title, *lines])

    def to_dict(self) -> dict[str, Any]:
        from . import __version__

        return {
            "kind": COMPARISON_KIND,
            "format_version": 1,
            "ragmeter_version": __version__,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state,
            "confidence_level": self.confidence_level,
            "n_bootstrap": self.n_bootstrap,
            "metrics": [m.to_dict() for m in self.metrics],
            "query_ids": list(self.query_ids),
            "differences": {k: list(v) for k, v in self.differences.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        if data.get("kind") != COMPARISON_KIND:
            raise InvalidInputError(f"not a ragmeter comparison report (kind {data.get('kind')!r})")
        metrics = tuple(MetricComparison.from_dict(m) for m in data["metrics"])
        query_ids = tuple(data.get("query_ids") or ())
        differences = data.get("differences") or {}
        if sorted(differences) != sorted(m.metric for m in metrics) or any(
            len(values) != len(query_ids) for values in differences.values()
        ):
            raise InvalidInputError(
                "differences: expected one difference per query id for each compared metric"
            )
        if any(isinstance(q, bool) or not isinstance(q, str | int) for q in query_ids):
            raise InvalidInputError("query_ids: every query id must be a str or an int")
        if not all(isinstance(data[k], str) for k in ("candidate", "baseline")):
            raise InvalidInputError("candidate, baseline: must be the names of the systems")
        if data["method"] not in ("exact", "sampled"):
            raise InvalidInputError(f"method: must be 'exact' or 'sampled', got {data['method']!r}")
        level = data.get("confidence_level")
        if level is not None:
            report_number(level, "confidence_level", minimum=0.0, maximum=1.0)
        if data.get("random_state") is not None:
            _seed(data["random_state"])
        _positive_int("n_resamples", data["n_resamples"])
        _positive_int("n_bootstrap", data.get("n_bootstrap", 0), allow_zero=True)
        return cls(
            candidate=data["candidate"],
            baseline=data["baseline"],
            metrics=metrics,
            query_ids=query_ids,
            differences={
                k: tuple(metric_value(v, f"differences: {k}", difference=True) for v in values)
                for k, values in differences.items()
            },
            method=data["method"],
            n_resamples=int(data["n_resamples"]),
            random_state=data.get("random_state"),
            confidence_level=data.get("confidence_level"),
            n_bootstrap=int(data.get("n_bootstrap", 0)),
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per metric, with the comparison's settings on every row."""
        settings = {
            "kind": COMPARISON_KIND,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state,
            "confidence_level": self.confidence_level,
            "n_bootstrap": self.n_bootstrap,
            "query_ids": list(self.query_ids),
        }
        return [
            {**settings, **m.to_dict(), "differences": list(self.differences[m.metric])}
            for m in self.metrics
        ]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> Comparison:
        if not rows:
            raise InvalidInputError("rows: a comparison report needs at least one metric row")
        first = rows[0]
        return cls.from_dict(
            {
                **first,
                "metrics": list(rows),
                "differences": {row["metric"]: row["differences"] for row in rows},
            }
        )

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Any:
        """Write the comparison (json, jsonl: one row per metric, yaml, toml), atomically."""
        from .reports import write_report

        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> Comparison:
        from .reports import load_report

        return load_report(cls, path, format=format)

    def plot(
        self, metric: str | None = None, path: str | os.PathLike[str] | None = None, **options: Any
    ) -> Any:
        """Per-query difference plot of ``metric`` (:func:`ragmeter.plots.plot_query_deltas`)."""
        from .plots import plot_query_deltas

        return plot_query_deltas(self, metric, path=path, **options)


def _format_p(p: float | None) -> str:
    if p is None or math.isnan(p):
        return "n/a"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _check_comparable(candidate: RetrievalEvaluation, baseline: RetrievalEvaluation) -> None:
    from .harness import RetrievalEvaluation

    for argument, value in (("candidate", candidate), ("baseline", baseline)):
        if not isinstance(value, RetrievalEvaluation):
            raise TypeError(
                f"{argument}: expected a RetrievalEvaluation, got {type(value).__name__}"
            )
    cand_ids, base_ids = candidate.query_ids, baseline.query_ids
    cand_set, base_set = set(cand_ids), set(base_ids)
    if cand_set != base_set:
        only_cand = [q for q in cand_ids if q not in base_set]
        only_base = [q for q in base_ids if q not in cand_set]
        raise InvalidInputError(
            "a paired comparison needs both systems evaluated on the same queries: "
            f"{len(only_cand)} queries only in the candidate (e.g. {only_cand[:5]}), "
            f"{len(only_base)} only in the baseline (e.g. {only_base[:5]}). Evaluate both "
            "on one query set."
        )
    for key, label in (
        ("relevance_threshold", "relevance_threshold"),
        ("zero_division", "zero_division"),
    ):
        a, b = candidate.parameters.get(key), baseline.parameters.get(key)
        if not _same(a, b):
            raise InvalidInputError(
                f"the evaluations used different {label} ({a!r} for the candidate, {b!r} for "
                "the baseline), so their metric values do not mean the same thing; evaluate "
                "both with the same setting"
            )


def _differences(
    candidate: RetrievalEvaluation,
    baseline: RetrievalEvaluation,
    metrics: Iterable[str] | None,
) -> tuple[list[str], list[Any], np.ndarray, np.ndarray]:
    _check_comparable(candidate, baseline)
    if metrics is None:
        names = [m for m in candidate.metric_names if m in baseline.metric_names]
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        for name in names:
            for label, evaluation in (("candidate", candidate), ("baseline", baseline)):
                if name not in evaluation.metric_names:
                    raise InvalidInputError(
                        f"metrics: {name!r} was not evaluated for the {label} "
                        f"(it has {list(evaluation.metric_names)})"
                    )
    if not names:
        raise InvalidInputError(
            f"the evaluations share no metric (candidate {list(candidate.metric_names)}, "
            f"baseline {list(baseline.metric_names)})"
        )
    query_ids = candidate.query_ids
    cand_values = candidate.per_query
    base_values = baseline.per_query
    cand = np.array([[cand_values[m][q] for q in query_ids] for m in names], dtype=np.float64)
    base = np.array([[base_values[m][q] for q in query_ids] for m in names], dtype=np.float64)
    return names, query_ids, cand, base


def compare_evaluations(
    candidate: RetrievalEvaluation,
    baseline: RetrievalEvaluation,
    *,
    metrics: Iterable[str] | str | None = None,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    confidence_level: float | None = 0.95,
    n_bootstrap: int = 9999,
    n_threads: int | None = None,
) -> Comparison:
    """Compare two evaluations of the same queries, paired by query id.

    For every metric (default: those both evaluated, in the candidate's order) the
    per-query differences ``d_q = candidate_q - baseline_q`` give ``delta = mean(d)``, wins
    (``d > 0``), ties (``d == 0``) and losses (``d < 0``), the two-sided paired sign-flip
    p-value of :func:`sign_flip_test` (exact up to 16 pairs, ``n_resamples`` seeded sign vectors
    beyond, the same sign vectors for every metric) and a percentile bootstrap interval of
    ``delta`` at ``confidence_level`` (``None`` or ``n_bootstrap=0`` skips it). Queries where a
    value is undefined (NaN under ``zero_division=np.nan``) are left out of that metric.

    Different query sets, or evaluations with different ``relevance_threshold`` or
    ``zero_division``, are refused.
    """
    names, query_ids, cand, base = _differences(candidate, baseline, metrics)
    differences = cand - base
    defined = ~np.isnan(differences)
    n_bootstrap = _positive_int("n_bootstrap", n_bootstrap, allow_zero=True)
    if confidence_level is not None and n_bootstrap == 0:
        confidence_level = None
    seed = _seed(random_state)
    # An undefined pair contributes 0 to every signed sum: the same test as dropping it.
    test = sign_flip_test(
        np.where(defined, differences, 0.0),
        method=method,
        n_resamples=n_resamples,
        random_state=seed,
        n_threads=n_threads,
    )
    if confidence_level is not None:
        low, high = bootstrap_confidence_interval(
            differences,
            confidence_level=confidence_level,
            n_resamples=n_bootstrap,
            random_state=seed ^ _BOOTSTRAP_STREAM,
            n_threads=n_threads,
        )
    results = []
    for row, name in enumerate(names):
        mask = defined[row]
        d = differences[row][mask]
        n = int(mask.sum())
        results.append(
            MetricComparison(
                metric=name,
                delta=float(d.mean()) if n else math.nan,
                wins=int((d > 0).sum()),
                ties=int((d == 0).sum()),
                losses=int((d < 0).sum()),
                p_value=float(test.p_value[row]) if n else math.nan,
                n_pairs=n,
                candidate_mean=float(cand[row][mask].mean()) if n else math.nan,
                baseline_mean=float(base[row][mask].mean()) if n else math.nan,
                ci_low=None if confidence_level is None or not n else float(low[row]),
                ci_high=None if confidence_level is None or not n else float(high[row]),
            )
        )
    return Comparison(
        candidate=candidate.name or "candidate",
        baseline=baseline.name or "baseline",
        metrics=tuple(results),
        query_ids=tuple(query_ids),
        differences={name: tuple(differences[row].tolist()) for row, name in enumerate(names)},
        method=test.method,
        n_resamples=test.n_patterns,
        random_state=seed,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap if confidence_level is not None else 0,
    )


@dataclass(frozen=True, eq=False)
class MultipleComparison:
    """Several candidates against one baseline, with p-values adjusted across every
    (system, metric) test (``correction``: ``"holm"``, ``"bonferroni"`` or None)."""

    baseline: str
    comparisons: Mapping[str, Comparison]
    correction: str | None

    def __getitem__(self, name: str) -> Comparison:
        return self.comparisons[name]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MultipleComparison):
            return NotImplemented
        return _same(self.to_dict(), other.to_dict())

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        note = f"p-values adjusted by {self.correction} over every system and metric"
        blocks = [c.to_table() for c in self.comparisons.values()]
        return "\n\n".join([*blocks, note if self.correction else "no multiple-test correction"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": MULTIPLE_COMPARISON_KIND,
            "format_version": 1,
            "baseline": self.baseline,
            "correction": self.correction,
            "comparisons": [c.to_dict() for c in self.comparisons.values()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MultipleComparison:
        if data.get("kind") != MULTIPLE_COMPARISON_KIND:
            raise InvalidInputError(
                f"not a ragmeter multiple comparison report (kind {data.get('kind')!r})"
            )
        comparisons = [Comparison.from_dict(c) for c in data["comparisons"]]
        return cls(
            baseline=data["baseline"],
            comparisons={c.candidate: c for c in comparisons},
            correction=data.get("correction"),
        )

    def to_rows(self) -> list[dict[str, Any]]:
        return [
            {**row, "kind": MULTIPLE_COMPARISON_KIND, "correction": self.correction}
            for c in self.comparisons.values()
            for row in c.to_rows()
        ]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> MultipleComparison:
        grouped: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            grouped.setdefault(row["candidate"], []).append({**row, "kind": COMPARISON_KIND})
        comparisons = {name: Comparison.from_rows(r) for name, r in grouped.items()}
        first = rows[0]
        return cls(
            baseline=first["baseline"], comparisons=comparisons, correction=first.get("correction")
        )

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Any:
        from .reports import write_report

        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> MultipleComparison:
        from .reports import load_report

        return load_report(cls, path, format=format)


def compare_many(
    evaluations: Mapping[str, RetrievalEvaluation] | Sequence[RetrievalEvaluation],
    *,
    baseline: str | RetrievalEvaluation,
    correction: Literal["holm", "bonferroni"] | None = "holm",
    **options: Any,
) -> MultipleComparison:
    """Compare every evaluation with ``baseline`` and adjust the p-values for the number of
    tests (systems x metrics), by Holm's step-down method by default.

    ``evaluations`` is ``{name: evaluation}`` or a sequence of named evaluations;
    ``baseline`` is one of the names (or one of the evaluations), and the others are the
    candidates. ``options`` go to :func:`compare_evaluations`; every candidate is tested with
    the same ``random_state``.
    """
    from .harness import RetrievalEvaluation

    if isinstance(evaluations, Mapping):
        named = dict(evaluations)
    else:
        named = {}
        for position, evaluation in enumerate(evaluations):
            if not isinstance(evaluation, RetrievalEvaluation) or not evaluation.name:
                raise InvalidInputError(
                    f"evaluations: item {position} has no name; pass {{name: evaluation}} or "
                    "evaluate with name="
                )
            if evaluation.name in named:
                raise InvalidInputError(f"evaluations: the name {evaluation.name!r} is used twice")
            named[evaluation.name] = evaluation
    if isinstance(baseline, RetrievalEvaluation):
        matches = [name for name, e in named.items() if e is baseline]
        if not matches:
            raise InvalidInputError("baseline: the baseline evaluation is not in evaluations")
        baseline_name = matches[0]
    else:
        baseline_name = baseline
    if baseline_name not in named:
        raise InvalidInputError(
            f"baseline: {baseline_name!r} is not one of the evaluations {list(named)}"
        )
    if correction not in ("holm", "bonferroni", None):
        raise InvalidInputError(
            f"correction: must be 'holm', 'bonferroni' or None, got {correction!r}"
        )
    base = named[baseline_name]
    comparisons = {}
    for name, evaluation in named.items():
        if name == baseline_name:
            continue
        comparison = compare_evaluations(evaluation, base, **options)
        comparisons[name] = replace(comparison, candidate=name, baseline=baseline_name)
    if not comparisons:
        raise InvalidInputError("evaluations: there is no candidate besides the baseline")
    if correction is not None:
        flat = [(name, i) for name, c in comparisons.items() for i in range(len(c.metrics))]
        adjusted = adjust_p_values(
            [comparisons[name].metrics[i].p_value for name, i in flat], method=correction
        )
        for (name, i), p in zip(flat, adjusted, strict=True):
            items = list(comparisons[name].metrics)
            items[i] = replace(items[i], p_value_adjusted=None if math.isnan(p) else float(p))
            comparisons[name] = replace(comparisons[name], metrics=tuple(items))
    return MultipleComparison(
        baseline=baseline_name, comparisons=comparisons, correction=correction
    )
