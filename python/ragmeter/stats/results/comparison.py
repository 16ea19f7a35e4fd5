""":class:`MetricComparison` (one metric of a candidate against a baseline) and
:class:`Comparison` (a candidate against a baseline, metric by metric, with the per-query
differences), their reports and plots."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from ..._nan_equal import canonical
from ..._notebook import NotebookDisplay
from ...exceptions import InvalidInputError
from ...plots import plot_query_deltas
from ...reports import load_report, report_number, saved_head, write_report
from .._arguments import positive_int
from ..clustered import clusters_note, design_effects
from ..options import ComparisonOptions
from ..pvalues import format_p_value
from ..registry import TESTS, p_value_methods
from ._saved import (
    COMPARISON_KIND,
    FORMAT_VERSION,
    READABLE_VERSIONS,
    _check_excluded,
    _check_mapping,
    _check_name,
    _check_options,
    _check_query_ids,
    _check_settings,
    _check_version,
    _describe,
    _excluded_notes,
    _number,
)

__all__ = ["Comparison", "MetricComparison"]


def _optional_number(data: Mapping[str, Any], key: str, where: str, **bounds: float) -> Any:
    value = data.get(key)
    return None if value is None else report_number(value, f"{where}: {key}", **bounds)


def _check_summary(item: MetricComparison, differences: Sequence[float]) -> None:
    """A metric's counts and mean difference must be those of its per-query differences (a
    report whose summary was edited is refused)."""
    d = np.array(differences, dtype=np.float64)
    defined = d[~np.isnan(d)]
    found = (
        int(defined.size),
        int((defined > 0).sum()),
        int((defined == 0).sum()),
        int((defined < 0).sum()),
    )
    if found != (item.n_pairs, item.wins, item.ties, item.losses):
        raise InvalidInputError(
            f"metric {item.metric!r}: n_pairs, wins, ties and losses {found} are those of "
            f"its differences, not {(item.n_pairs, item.wins, item.ties, item.losses)}"
        )
    if defined.size:
        mean = float(defined.mean())
        scale = max(1.0, float(np.abs(defined).max()))
        if math.isnan(item.delta) or abs(item.delta - mean) > 1e-9 * scale:
            raise InvalidInputError(
                f"metric {item.metric!r}: delta {item.delta!r} is not the mean of its "
                f"differences ({mean!r})"
            )


@dataclass(frozen=True)
class MetricComparison:
    """One metric of a comparison of a candidate with a baseline.

    NaN (for the optional fields None) means undefined: no paired query, fewer queries than
    the test needs, no variance for the t-test, no interval asked for, no correction.

    Parameters
    ----------
    metric
        The metric's name.
    delta
        The mean over the paired queries (the ``n_pairs`` queries where both values are
        defined) of candidate minus baseline.
    wins, ties, losses
        Queries where the candidate scored higher, the same, lower.
    p_value
        The p-value of the comparison's test under its alternative (two-sided unless the
        options say ``"greater"`` or ``"less"``); ``1e-16`` stands for ``< 1e-16``.
    n_pairs
        The paired queries of this metric.
    candidate_mean, baseline_mean
        The two means over the same queries.
    ci_low, ci_high
        The confidence interval of ``delta`` (the t interval for the t-test, Tukey's
        simultaneous interval, else bootstrap percentiles).
    p_value_adjusted
        The corrected p-value.
    statistic
        The test's statistic: t for the t-test, ``min(W+, W-)`` for Wilcoxon, the mean
        difference otherwise.
    effect_size
        Cohen's ``d_z``: ``delta`` over the standard deviation of the differences.
    p_value_method
        How the p-value was computed: ``exact`` or ``sampled`` sign vectors, ``t``,
        ``exact``/``permutation``/``normal`` for Wilcoxon, ``sampled`` resamples, ``tukey``.
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
    statistic: float | None = None
    effect_size: float | None = None
    p_value_method: str | None = None

    def __post_init__(self) -> None:
        # An optional value that is undefined is None, as reports read it back (JSON's null).
        for name in ("ci_low", "ci_high", "p_value_adjusted", "statistic", "effect_size"):
            value = getattr(self, name)
            if value is not None and math.isnan(value):
                object.__setattr__(self, name, None)

    def significant(self, alpha: float) -> bool:
        """Whether the null hypothesis is rejected at ``alpha``.

        Parameters
        ----------
        alpha
            The significance level.

        Returns
        -------
        bool
            The adjusted p-value (the p-value without a correction) is at most ``alpha``;
            never when it is undefined.
        """
        p = self.p_value if self.p_value_adjusted is None else self.p_value_adjusted
        return not math.isnan(p) and p <= alpha

    def mirrored(self) -> MetricComparison:
        """The same comparison with candidate and baseline swapped.

        Returns
        -------
        MetricComparison
            Negated difference, interval, statistic and effect size; wins and losses swapped;
            the same p-values.
        """
        return replace(
            self,
            delta=-self.delta,
            wins=self.losses,
            losses=self.wins,
            candidate_mean=self.baseline_mean,
            baseline_mean=self.candidate_mean,
            ci_low=None if self.ci_high is None else -self.ci_high,
            ci_high=None if self.ci_low is None else -self.ci_low,
            statistic=None
            if self.statistic is None or self.p_value_method in ("exact", "permutation", "normal")
            else -self.statistic,
            effect_size=None if self.effect_size is None else -self.effect_size,
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN; report writers turn it into null).
        """
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
            "statistic": self.statistic,
            "effect_size": self.effect_size,
            "p_value_method": self.p_value_method,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetricComparison:
        """Rebuild one metric of a comparison report, checking every field (a report read
        from a file may have been edited).

        Parameters
        ----------
        data
            What :meth:`to_dict` returned.

        Returns
        -------
        MetricComparison
            The rebuilt comparison.

        Raises
        ------
        InvalidInputError
            A field of the wrong type or out of range, counts that do not add up.
        """
        _check_mapping(data, "one metric of a comparison report")
        metric = data.get("metric")
        if not isinstance(metric, str) or not metric:
            raise InvalidInputError(f"metric: expected a metric name, got {metric!r}")
        where = f"metric {metric!r}"

        def count(key: str) -> int:
            """A non-negative int field."""
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"{where}: {key} must be a count, got {value!r}")
            return value

        wins, ties, losses, n_pairs = (count(k) for k in ("wins", "ties", "losses", "n_pairs"))
        if wins + ties + losses != n_pairs:
            raise InvalidInputError(f"{where}: wins + ties + losses must equal n_pairs")
        method = data.get("p_value_method")
        if method is not None and method not in p_value_methods():
            raise InvalidInputError(
                f"{where}: p_value_method must be one of {p_value_methods()}, got {method!r}"
            )
        probability = {"minimum": 0.0, "maximum": 1.0}
        return cls(
            metric=metric,
            delta=_number(data.get("delta"), f"{where}: delta"),
            wins=wins,
            ties=ties,
            losses=losses,
            p_value=report_number(data.get("p_value"), f"{where}: p_value", **probability),
            n_pairs=n_pairs,
            candidate_mean=_number(data.get("candidate_mean"), f"{where}: candidate_mean"),
            baseline_mean=_number(data.get("baseline_mean"), f"{where}: baseline_mean"),
            ci_low=_optional_number(data, "ci_low", where),
            ci_high=_optional_number(data, "ci_high", where),
            p_value_adjusted=_optional_number(data, "p_value_adjusted", where, **probability),
            statistic=_optional_number(data, "statistic", where),
            effect_size=_optional_number(data, "effect_size", where),
            p_value_method=method,
        )


@dataclass(frozen=True, eq=False)
class Comparison(NotebookDisplay):
    """A candidate against a baseline on the same queries, metric by metric.

    ``comparison["ndcg@10"]`` is the :class:`MetricComparison` of one metric.

    Parameters
    ----------
    candidate, baseline
        The systems' names.
    metrics
        One :class:`MetricComparison` per metric.
    query_ids
        The paired queries.
    differences
        ``{metric: per-query differences}`` aligned with ``query_ids`` (NaN where a value is
        undefined).
    method
        How the p-values were computed (``"exact"`` or ``"sampled"`` for the sign-flip test; see
        :meth:`StatisticalTest.campaign_methods`).
    n_resamples
        Sign vectors (or bootstrap resamples) examined.
    random_state
        The seed of the sampled test and of the bootstrap.
    confidence_level, n_bootstrap
        The intervals' level and bootstrap resamples (None and 0: none).
    test
        The test (a key of :data:`TESTS`).
    alpha
        The significance level.
    correction
        The p-value correction (None: none).
    family
        What the correction adjusted over: ``"all"`` or ``"metric"``.
    excluded
        The queries each system had that the comparison left out (``missing="skip"``).
    n_tests
        The tests the correction adjusted over together: more than the metrics here when the
        comparison is part of a campaign.
    options
        The options the comparison was computed with (:class:`ComparisonOptions`; derived
        from the settings for a report of format 2).
    clusters
        Each query's cluster, aligned with ``query_ids``, when clusters were given or
        recorded (not saved: a comparison read back has none).
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
    test: str = "sign-flip"
    alpha: float = 0.05
    correction: str | None = None
    family: str = "all"
    excluded: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    n_tests: int | None = None
    options: ComparisonOptions | None = None
    clusters: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)

    #: What a saved comparison's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = COMPARISON_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    #: The report formats :meth:`read` reads (older ones are upgraded).
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = READABLE_VERSIONS

    def __eq__(self, other: object) -> bool:
        """Equal when the reports are equal (NaN equal to NaN)."""
        if not isinstance(other, Comparison):
            return NotImplemented
        return bool(canonical(self.to_dict()) == canonical(other.to_dict()))

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, metric: str) -> MetricComparison:
        """The comparison of one metric; ``KeyError`` naming the compared metrics."""
        for item in self.metrics:
            if item.metric == metric:
                return item
        raise KeyError(f"{metric!r} is not compared here; metrics: {self.metric_names}")

    @property
    def metric_names(self) -> list[str]:
        """The compared metrics, in order."""
        return [m.metric for m in self.metrics]

    @property
    def n_pairs(self) -> int:
        """How many queries the two systems were paired on."""
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
            f"n_pairs={self.n_pairs}, test={self.test!r}, method={self.method!r}, "
            f"metrics={self.metric_names})"
        )

    def __str__(self) -> str:
        return self.to_table()

    def describe_test(self) -> str:
        """The test, how its p-values were computed, the correction and alpha.

        Returns
        -------
        str
            One sentence, as the tables' captions say it.
        """
        return _describe(
            self.test,
            self.method,
            self.n_resamples,
            self.random_state,
            self.correction,
            self.family,
            self.alpha,
            n_tests=self.n_tests or len(self.metrics),
            n_pairs=(self.n_tests or len(self.metrics)) // max(1, len(self.metrics))
            if self.family == "all" and TESTS[self.test].own_correction is None
            else self.n_tests,
            confidence_level=self.confidence_level,
            n_bootstrap=self.n_bootstrap,
            alternative="two-sided" if self.options is None else self.options.alternative,
        )

    def to_table(self, digits: int = 4) -> str:
        """A plain-text table: one line per metric (means, difference, interval, effect size, W/T/L,
        p-value, adjusted p-value), under a title that says what was tested.

        Parameters
        ----------
        digits
            Decimals of the means and differences.

        Returns
        -------
        str
            The table.
        """
        effect = TESTS[self.test].effect_size_name
        header = ["metric", "baseline", "candidate", "delta", effect, "W/T/L", "p-value"]
        counts = sorted({m.n_pairs for m in self.metrics})
        # A metric paired on fewer queries than the comparison (an undefined value left out)
        # says so in its own column.
        per_metric = counts != [self.n_pairs]
        if per_metric:
            header.insert(1, "n")
        if self.confidence_level is not None:
            header.insert(4 + per_metric, f"{self.confidence_level:.0%} CI")
        adjusted = any(m.p_value_adjusted is not None for m in self.metrics)
        if adjusted:
            header.append("adjusted p")
        rows = [header]
        for m in self.metrics:
            size = m.effect_size
            row = [
                m.metric,
                f"{m.baseline_mean:.{digits}f}",
                f"{m.candidate_mean:.{digits}f}",
                f"{m.delta:+.{digits}f}",
                "n/a" if size is None or math.isnan(size) else f"{size:+.2f}",
                f"{m.wins}/{m.ties}/{m.losses}",
                format_p_value(m.p_value),
            ]
            if per_metric:
                row.insert(1, str(m.n_pairs))
            if self.confidence_level is not None:
                row.insert(
                    4 + per_metric,
                    "n/a"
                    if m.ci_low is None or m.ci_high is None or math.isnan(m.ci_low)
                    else f"[{m.ci_low:+.{digits}f}, {m.ci_high:+.{digits}f}]",
                )
            if adjusted:
                row.append(format_p_value(m.p_value_adjusted))
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = [
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in rows
        ]
        if not per_metric:
            paired = f"{self.n_pairs} paired queries"
        elif len(counts) == 1:
            paired = (
                f"{counts[0]} paired queries of {self.n_pairs} (the others have an undefined value)"
            )
        else:
            paired = (
                f"{counts[0]} to {counts[-1]} paired queries of {self.n_pairs} by metric (n; "
                "the others have an undefined value)"
            )
        title = f"{self.candidate} vs {self.baseline}: {paired}, " + self.describe_test()
        return "\n".join([title, *lines, *self.notes()])

    @property
    def n_clusters(self) -> int | None:
        """How many clusters the queries are in (None: no cluster was given or recorded)."""
        return None if self.clusters is None else len(set(self.clusters))

    def design_effects(self) -> dict[str, float]:
        """Kish's design effect of each metric's mean difference
        (:func:`~ragmeter.stats.design_effects`; empty without clusters).

        Returns
        -------
        dict
            ``{metric: design effect}`` (NaN: fewer than 2 clusters or no variance).
        """
        if self.clusters is None:
            return {}
        return design_effects(self.differences, self.clusters)

    def notes(self) -> list[str]:
        """What a reader of the table must know: the queries left out, and the clusters (whether
        the test uses them, the design effects).

        Returns
        -------
        list of str
            The notes, as the table prints them.
        """
        notes = []
        if self.clusters is not None and self.n_clusters is not None:
            effects = {metric: [value] for metric, value in self.design_effects().items()}
            uses = TESTS[self.test].requires_clusters
            notes.append(clusters_note(self.n_pairs, self.n_clusters, self.test, uses, effects))
        return [*notes, *_excluded_notes(self.excluded)]

    def to_dict(self) -> dict[str, Any]:
        """The full report: settings, one entry per metric, the per-query differences.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN; report writers turn it into null).
        """
        return {
            **saved_head(self),
            "candidate": self.candidate,
            "baseline": self.baseline,
            "test": self.test,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state,
            "confidence_level": self.confidence_level,
            "n_bootstrap": self.n_bootstrap,
            "alpha": self.alpha,
            "correction": self.correction,
            "family": self.family,
            "n_tests": self.n_tests,
            "options": None if self.options is None else self.options.to_dict(),
            "excluded": {k: list(v) for k, v in self.excluded.items()},
            "metrics": [m.to_dict() for m in self.metrics],
            "query_ids": list(self.query_ids),
            "differences": {k: list(v) for k, v in self.differences.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        """Rebuild a comparison from :meth:`to_dict` output, checking every field (counts and mean
        differences must be those of the per-query differences).

        Parameters
        ----------
        data
            What :meth:`to_dict` returned (or a report file held).

        Returns
        -------
        Comparison
            The rebuilt comparison.

        Raises
        ------
        InvalidInputError
            Not a comparison report, a report of another format version, a field of the wrong type
            or out of range, a summary that does not match the differences.
        """
        _check_mapping(data, "a comparison report")
        if data.get("kind") != COMPARISON_KIND:
            raise InvalidInputError(f"not a ragmeter comparison report (kind {data.get('kind')!r})")
        data = _check_version(data)
        metrics = tuple(MetricComparison.from_dict(m) for m in data["metrics"])
        query_ids = _check_query_ids(data.get("query_ids") or [])
        differences = data.get("differences") or {}
        if sorted(differences) != sorted(m.metric for m in metrics) or any(
            len(values) != len(query_ids) for values in differences.values()
        ):
            raise InvalidInputError(
                "differences: expected one difference per query id for each compared metric"
            )
        settings = _check_settings(data)
        checked = {
            k: tuple(_number(v, f"differences: {k}") for v in values)
            for k, values in differences.items()
        }
        for item in metrics:
            _check_summary(item, checked[item.metric])
        baseline = _check_name(data["baseline"], "baseline")
        return cls(
            candidate=_check_name(data["candidate"], "candidate"),
            baseline=baseline,
            options=_check_options(data, settings, baseline),
            metrics=metrics,
            query_ids=query_ids,
            differences=checked,
            excluded=_check_excluded(data.get("excluded") or {}),
            n_tests=None
            if data.get("n_tests") is None
            else positive_int("n_tests", data["n_tests"]),
            **settings,
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per metric (for JSONL and dataframes).

        Returns
        -------
        list of dict
            Each row holds the comparison's settings, the metric's fields and its per-query
            differences.
        """
        settings = {k: v for k, v in self.to_dict().items() if k not in ("metrics", "differences")}
        return [
            {**settings, **m.to_dict(), "differences": list(self.differences[m.metric])}
            for m in self.metrics
        ]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> Comparison:
        """Rebuild a comparison from :meth:`to_rows` output.

        Parameters
        ----------
        rows
            What :meth:`to_rows` returned.

        Returns
        -------
        Comparison
            The rebuilt comparison (checked as :meth:`from_dict` checks it).
        """
        if not rows:
            raise InvalidInputError("rows: a comparison report needs at least one metric row")
        metric_fields = set(MetricComparison.__dataclass_fields__)
        first = {k: v for k, v in rows[0].items() if k not in metric_fields | {"differences"}}
        return cls.from_dict(
            {
                **first,
                "metrics": [{k: row.get(k) for k in metric_fields} for row in rows],
                "differences": {row["metric"]: row["differences"] for row in rows},
            }
        )

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Any:
        """Write the comparison to a report file, atomically.

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``: one row per metric,
            ``.yaml``, ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> Comparison:
        """Read a comparison written by :meth:`write`.

        Parameters
        ----------
        path
            The report file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        Comparison
            The comparison (equal to the one written).

        Raises
        ------
        InvalidInputError
            A file that is not exactly what ragmeter writes (edited, damaged), naming the field.
        """
        return load_report(cls, path, format=format)

    def plot(
        self, metric: str | None = None, path: str | os.PathLike[str] | None = None, **options: Any
    ) -> Any:
        """Per-query difference plot of one metric (:func:`ragmeter.plots.plot_query_deltas`; the
        ``plot`` extra).

        Parameters
        ----------
        metric
            The metric (default: the first).
        path
            Where to save the figure (its suffix gives the format).
        options
            Passed to :func:`~ragmeter.plots.plot_query_deltas` (``ax``).

        Returns
        -------
        matplotlib.figure.Figure
            The figure.
        """
        return plot_query_deltas(self, metric, path=path, **options)
